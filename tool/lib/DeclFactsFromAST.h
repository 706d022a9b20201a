//===- DeclFactsFromAST.h - Selection facts from the AST -------*- C++ -*-===//

#ifndef APISTAMP_LIB_DECLFACTSFROMAST_H
#define APISTAMP_LIB_DECLFACTSFROMAST_H

#include "apistamp/Selection.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include <optional>

namespace apistamp {

/// "a::b::C" for a namespace or class, skipping inline namespaces and
/// without template arguments.
std::string qualifiedName(const clang::NamedDecl &D);

/// Facts about \p FD for the rules, or nullopt if \p FD is never a candidate:
/// not a user-written definition with a body, a destructor, a lambda, a
/// member of a local class, a template instantiation, a deduction guide or a
/// CUDA device function. RelativePath is left empty.
std::optional<DeclFacts> extractFacts(const clang::FunctionDecl &FD);

/// Facts for the constructors of \p RD if the class has none that a user
/// wrote (all implicit, defaulted, deleted or inherited), else nullopt.
/// RelativePath is left empty.
std::optional<DeclFacts>
classWithoutConstructorBody(const clang::CXXRecordDecl &RD);

} // namespace apistamp

#endif // APISTAMP_LIB_DECLFACTSFROMAST_H
