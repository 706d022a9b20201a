//===- DeclFactsFromAST.cpp - Selection facts from the AST ---------------===//

#include "DeclFactsFromAST.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include <deque>

using namespace clang;

namespace apistamp {

static std::string componentName(const NamedDecl &D) {
  if (const auto *NS = dyn_cast<NamespaceDecl>(&D))
    if (NS->isAnonymousNamespace())
      return "(anonymous namespace)";
  // Constructors, operators and conversions have names that are not
  // identifiers: print them as clang does ("Video", "operator+"). A
  // conversion to a type that depends on a template parameter names the
  // parameter as written ("operator T", not the canonical
  // "operator type-parameter-0-0").
  // A constructor or destructor of a class template is named by the class
  // ("RepeatedField", "~RepeatedField"), not by its canonical type
  // ("RepeatedField<type-parameter-0-0>").
  if (isa<CXXConstructorDecl, CXXDestructorDecl>(&D))
    if (const auto *Record = dyn_cast<CXXRecordDecl>(D.getDeclContext());
        Record && Record->getIdentifier() &&
        (Record->getDescribedClassTemplate() ||
         isa<ClassTemplatePartialSpecializationDecl>(Record)))
      return (isa<CXXDestructorDecl>(&D) ? "~" : "") + Record->getName().str();
  if (const auto *Conversion = dyn_cast<CXXConversionDecl>(&D))
    if (Conversion->getConversionType()->isDependentType()) {
      PrintingPolicy Policy(D.getASTContext().getLangOpts());
      Policy.SuppressTagKeyword = true;
      return "operator " + Conversion->getConversionType().getAsString(Policy);
    }
  std::string Name = D.getNameAsString();
  return Name.empty() ? "(anonymous)" : Name;
}

/// Walks \p DC outwards; returns false if it is inside a function.
static bool enclosingScopes(const DeclContext *DC,
                            std::deque<std::string> &Namespaces,
                            std::deque<std::string> &Classes) {
  for (; DC && !DC->isTranslationUnit(); DC = DC->getParent()) {
    if (const auto *NS = dyn_cast<NamespaceDecl>(DC)) {
      if (!NS->isInline())
        Namespaces.push_front(componentName(*NS));
    } else if (const auto *RD = dyn_cast<RecordDecl>(DC)) {
      Classes.push_front(componentName(*RD));
    } else if (DC->isFunctionOrMethod()) {
      return false;
    }
    // extern "C" blocks, export declarations: transparent.
  }
  return true;
}

std::string qualifiedName(const NamedDecl &D) {
  std::deque<std::string> Namespaces, Classes;
  enclosingScopes(D.getDeclContext(), Namespaces, Classes);
  std::vector<std::string> Parts(Namespaces.begin(), Namespaces.end());
  Parts.insert(Parts.end(), Classes.begin(), Classes.end());
  Parts.push_back(componentName(D));
  return llvm::join(Parts, "::");
}

static const CXXRecordDecl *baseRecord(QualType Type) {
  if (const CXXRecordDecl *RD = Type->getAsCXXRecordDecl())
    return RD;
  // A dependent base such as Cloneable<T>: use the primary template.
  if (const auto *TST = Type->getAs<TemplateSpecializationType>())
    if (const TemplateDecl *TD = TST->getTemplateName().getAsTemplateDecl())
      return dyn_cast_or_null<CXXRecordDecl>(TD->getTemplatedDecl());
  return nullptr;
}

static void collectBases(const CXXRecordDecl *RD,
                         llvm::SmallPtrSetImpl<const Decl *> &Seen,
                         std::vector<std::string> &Bases) {
  const CXXRecordDecl *Definition = RD->getDefinition();
  if (!Definition)
    if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD))
      Definition =
          Spec->getSpecializedTemplate()->getTemplatedDecl()->getDefinition();
  if (!Definition)
    return;
  for (const CXXBaseSpecifier &Base : Definition->bases()) {
    const CXXRecordDecl *BaseDecl = baseRecord(Base.getType());
    if (!BaseDecl || !Seen.insert(BaseDecl->getCanonicalDecl()).second)
      continue;
    Bases.push_back(qualifiedName(*BaseDecl));
    collectBases(BaseDecl, Seen, Bases);
  }
}

/// Qualified names of every direct and indirect base of \p RD.
static std::vector<std::string> basesOf(const CXXRecordDecl &RD) {
  std::vector<std::string> Bases;
  llvm::SmallPtrSet<const Decl *, 8> Seen;
  collectBases(&RD, Seen, Bases);
  return Bases;
}

/// Facts with the namespaces and classes enclosing \p DC (\p DC included),
/// or nullopt inside a function (a local class).
static std::optional<DeclFacts> factsInScope(const DeclContext *DC) {
  std::deque<std::string> Namespaces, Classes;
  if (!enclosingScopes(DC, Namespaces, Classes))
    return std::nullopt;
  DeclFacts Facts;
  Facts.Namespaces.assign(Namespaces.begin(), Namespaces.end());
  Facts.Classes.assign(Classes.begin(), Classes.end());
  return Facts;
}

static bool isPublic(AccessSpecifier Access) {
  return Access == AS_public || Access == AS_none;
}

static bool isPublicOrProtected(AccessSpecifier Access) {
  return isPublic(Access) || Access == AS_protected;
}

/// \p DC and every class enclosing it pass \p Allowed (or are not members
/// at all).
static bool isScopeAccessible(const DeclContext *DC,
                              bool (*Allowed)(AccessSpecifier)) {
  for (; DC; DC = DC->getParent()) {
    const auto *Record = dyn_cast<CXXRecordDecl>(DC);
    if (!Record)
      break;
    // A class template's pattern has no access of its own: the template's
    // (or, for a specialisation, its template's) is the member's.
    AccessSpecifier Access = Record->getCanonicalDecl()->getAccess();
    if (const ClassTemplateDecl *Template = Record->getDescribedClassTemplate())
      Access = Template->getCanonicalDecl()->getAccess();
    else if (const auto *Special =
                 dyn_cast<ClassTemplateSpecializationDecl>(Record))
      Access =
          Special->getSpecializedTemplate()->getCanonicalDecl()->getAccess();
    if (!Allowed(Access))
      return false;
  }
  return true;
}

static bool isPublicScope(const DeclContext *DC) {
  return isScopeAccessible(DC, isPublic);
}

static bool isEffectivelyPublic(const FunctionDecl &FD) {
  return isPublic(FD.getCanonicalDecl()->getAccess()) &&
         isPublicScope(FD.getDeclContext());
}

static bool isEffectivelyPublicOrProtected(const FunctionDecl &FD) {
  return isPublicOrProtected(FD.getCanonicalDecl()->getAccess()) &&
         isScopeAccessible(FD.getDeclContext(), isPublicOrProtected);
}

static bool isCudaDeviceOnly(const FunctionDecl &FD) {
  return FD.hasAttr<CUDAGlobalAttr>() ||
         (FD.hasAttr<CUDADeviceAttr>() && !FD.hasAttr<CUDAHostAttr>());
}

std::optional<DeclFacts> classWithoutConstructorBody(const CXXRecordDecl &RD) {
  if (!RD.isThisDeclarationADefinition() || RD.isImplicit() || RD.isLambda() ||
      RD.isUnion() || RD.getIdentifier() == nullptr)
    return std::nullopt;
  if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(&RD))
    if (Spec->getSpecializationKind() != TSK_ExplicitSpecialization)
      return std::nullopt;
  for (const CXXConstructorDecl *Ctor : RD.ctors()) {
    if (Ctor->isImplicit() || Ctor->isDefaulted() || Ctor->isDeleted())
      continue;
    // Declared in the class, defaulted out of line: "W::W() = default;".
    const FunctionDecl *Definition = nullptr;
    if (Ctor->isDefined(Definition) &&
        (Definition->isDefaulted() || Definition->isDeleted()))
      continue;
    return std::nullopt; // Written somewhere, maybe in another file.
  }
  std::optional<DeclFacts> Facts = factsInScope(&RD);
  if (!Facts)
    return std::nullopt;
  Facts->Kind = DeclKind::Constructor;
  Facts->Name = componentName(RD);
  Facts->Bases = basesOf(RD);
  Facts->ExternalLinkage = RD.isExternallyVisible();
  Facts->Public = isPublicScope(&RD);
  Facts->PublicOrProtected = isScopeAccessible(&RD, isPublicOrProtected);
  return Facts;
}

std::optional<DeclFacts> extractFacts(const FunctionDecl &FD) {
  if (!FD.doesThisDeclarationHaveABody() || FD.isImplicit() ||
      FD.isDefaulted() || FD.isDeleted() || FD.isTemplateInstantiation() ||
      isa<CXXDestructorDecl>(FD) || isa<CXXDeductionGuideDecl>(FD) ||
      isCudaDeviceOnly(FD))
    return std::nullopt;
  const auto *Method = dyn_cast<CXXMethodDecl>(&FD);
  if (Method && Method->getParent()->isLambda())
    return std::nullopt;

  std::optional<DeclFacts> Facts = factsInScope(FD.getDeclContext());
  if (!Facts)
    return std::nullopt; // Local class member.
  if (isa<CXXConstructorDecl>(FD)) {
    Facts->Kind = DeclKind::Constructor;
    Facts->Name = componentName(*Method->getParent());
  } else {
    Facts->Kind = Method ? DeclKind::Method : DeclKind::Function;
    Facts->Name = componentName(FD);
  }
  if (Method)
    Facts->Bases = basesOf(*Method->getParent());
  Facts->ExternalLinkage = FD.isExternallyVisible();
  Facts->Public = isEffectivelyPublic(FD);
  Facts->PublicOrProtected = isEffectivelyPublicOrProtected(FD);
  PrintingPolicy Policy(FD.getASTContext().getLangOpts());
  Policy.SuppressTagKeyword = true;
  for (const ParmVarDecl *Param : FD.parameters())
    Facts->ParameterTypes.push_back(Param->getType().getAsString(Policy));
  if (FD.isVariadic())
    Facts->ParameterTypes.push_back("...");
  return Facts;
}

} // namespace apistamp
