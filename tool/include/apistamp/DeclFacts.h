//===- DeclFacts.h - What the rules know of a definition --------*- C++ -*-===//
//
// The facts selection works on, extracted from the AST (DeclFactsFromAST.h):
// plain data, so the policy logic is testable without parsing C++.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_DECLFACTS_H
#define APISTAMP_DECLFACTS_H

#include "apistamp/Rules.h"
#include <functional>
#include <string>
#include <vector>

namespace apistamp {

/// What the rules need to know about one definition. The fields are listed
/// in SiteFields.def (the result cache stores them).
struct DeclFacts {
#define APISTAMP_DECL_FACT(Type, Name, Key, Default) Type Name = Default;
#include "apistamp/SiteFields.def"
  /// Whether a rule's `matcher:` matches the declaration: set from what the
  /// parse found (Candidate::Matches). Unset: no matcher matches.
  std::function<bool(const CompiledMatcher &)> MatchesMatcher;

  /// "a::b", "" for the global namespace.
  std::string namespaceName() const;
  /// "a::Outer::Inner", "" for free functions.
  std::string qualifiedClassName() const;
};

} // namespace apistamp

#endif // APISTAMP_DECLFACTS_H
