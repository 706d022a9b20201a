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

/// What the rules need to know about one definition.
struct DeclFacts {
  DeclKind Kind = DeclKind::Function;
  /// Unqualified name; the class name for constructors.
  std::string Name;
  /// The parameters' types as written ("const Tensor &"), "..." for a C
  /// variadic; empty for a class without a constructor body.
  std::vector<std::string> ParameterTypes;
  /// Enclosing namespaces, outermost first; inline namespaces are omitted.
  std::vector<std::string> Namespaces;
  /// Enclosing classes, outermost first; empty for free functions.
  std::vector<std::string> Classes;
  /// Qualified names ("a::B") of every direct and indirect base class.
  std::vector<std::string> Bases;
  bool ExternalLinkage = true;
  /// The member and every enclosing class are public.
  bool Public = true;
  /// Each of them is public or protected: reachable from a derived class.
  bool PublicOrProtected = true;
  /// The definition's file relative to the root, '/'-separated.
  std::string RelativePath;
  /// Files under the root that hold a declaration of it (the definition
  /// included), relative to the root; a class's file for its constructors.
  std::vector<std::string> DeclaredIn;
  /// Whether a rule's `matcher:` matches the declaration; set by the
  /// analysis, which has the AST. Unset: no matcher matches.
  std::function<bool(const CompiledMatcher &)> MatchesMatcher;

  /// "a::b", "" for the global namespace.
  std::string namespaceName() const;
  /// "a::Outer::Inner", "" for free functions.
  std::string qualifiedClassName() const;
};

} // namespace apistamp

#endif // APISTAMP_DECLFACTS_H
