//===- Site.cpp - Field-by-field equality of the model types --------------===//

#include "apistamp/Site.h"
#include "SiteFieldVisitor.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include <cassert>

namespace apistamp {

namespace {

template <typename T> bool equalField(const T &L, const T &R) { return L == R; }
bool equalField(const std::optional<BodyLocation> &L,
                const std::optional<BodyLocation> &R) {
  return L.has_value() == R.has_value() && (!L || sameFields(*L, *R));
}
bool equalField(const std::vector<MacroUse> &L,
                const std::vector<MacroUse> &R) {
  return L.size() == R.size() &&
         std::equal(L.begin(), L.end(), R.begin(),
                    [](const MacroUse &A, const MacroUse &B) {
                      return sameFields(A, B);
                    });
}
bool equalField(const DeclFacts &L, const DeclFacts &R) {
  return sameFields(L, R);
}
bool equalField(const std::optional<PythonBody> &L,
                const std::optional<PythonBody> &R) {
  return L.has_value() == R.has_value() && (!L || sameFields(*L, *R));
}
bool equalField(const std::vector<PythonFromImport> &L,
                const std::vector<PythonFromImport> &R) {
  return L.size() == R.size() &&
         std::equal(L.begin(), L.end(), R.begin(),
                    [](const PythonFromImport &A, const PythonFromImport &B) {
                      return sameFields(A, B);
                    });
}

} // namespace

llvm::StringRef directiveSpelling(Directive D) {
  switch (D) {
  case Directive::Ignore:
    return "apistamp-ignore";
  case Directive::ExpectEvent:
    return "expect-event";
  case Directive::ExpectNoEvent:
    return "expect-no-event";
  case Directive::ExpectSkipped:
    return "expect-skipped";
  }
  llvm_unreachable("unknown Directive");
}

Directive directiveOf(Expectation::KindType Kind) {
  switch (Kind) {
  case Expectation::Event:
    return Directive::ExpectEvent;
  case Expectation::NoEvent:
    return Directive::ExpectNoEvent;
  case Expectation::Skipped:
    return Directive::ExpectSkipped;
  }
  llvm_unreachable("unknown Expectation::KindType");
}

Expectation::KindType expectationOf(Directive D) {
  assert(D != Directive::Ignore && "apistamp-ignore states no expectation");
  return D == Directive::ExpectEvent     ? Expectation::Event
         : D == Directive::ExpectNoEvent ? Expectation::NoEvent
                                         : Expectation::Skipped;
}

std::optional<DirectiveText> directiveIn(llvm::StringRef Body) {
  Body = Body.ltrim();
  std::optional<Directive> Found;
  for (Directive Known : AllDirectives)
    if (Body.consume_front(directiveSpelling(Known)))
      Found = Known;
  if (!Found ||
      (!Body.empty() && !Body.starts_with(":") && !llvm::isSpace(Body.front())))
    return std::nullopt;
  DirectiveText Text{*Found, ""};
  if (Body.consume_front(":"))
    Text.Argument = Body.trim().str();
  return Text;
}

/// Whether \p L and \p R agree on every field SiteFields.def lists for T.
template <typename T> static bool sameListedFields(const T &L, const T &R) {
  bool Same = true;
  forEachField<T>([&](llvm::StringLiteral, auto Field) {
    Same = Same && equalField(L.*Field, R.*Field);
  });
  return Same;
}

bool sameFields(const MacroUse &L, const MacroUse &R) {
  return sameListedFields(L, R);
}
bool sameFields(const BodyLocation &L, const BodyLocation &R) {
  return sameListedFields(L, R);
}
bool sameFields(const PythonBody &L, const PythonBody &R) {
  return sameListedFields(L, R);
}
bool sameFields(const PythonFromImport &L, const PythonFromImport &R) {
  return sameListedFields(L, R);
}
bool sameFields(const Site &L, const Site &R) { return sameListedFields(L, R); }
bool sameFields(const Suppression &L, const Suppression &R) {
  return sameListedFields(L, R);
}
bool sameFields(const Expectation &L, const Expectation &R) {
  return sameListedFields(L, R);
}
bool sameFields(const UnselectedDefinition &L, const UnselectedDefinition &R) {
  return sameListedFields(L, R);
}
bool sameFields(const DeclFacts &L, const DeclFacts &R) {
  return sameListedFields(L, R);
}
bool sameFields(const Candidate &L, const Candidate &R) {
  return sameListedFields(L, R);
}

} // namespace apistamp
