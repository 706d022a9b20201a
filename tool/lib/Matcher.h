//===- Matcher.h - Raw clang-query matchers in rules --------------*- C++
//-*-===//
//
// The `matcher:` escape hatch: a rule selects with an AST matcher expression
// (clang-query syntax), parsed by clang's dynamic matcher parser.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_MATCHER_H
#define APISTAMP_LIB_MATCHER_H

#include "apistamp/Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <string>
#include <vector>

namespace apistamp {

/// A parsed matcher expression that can match function declarations.
struct CompiledMatcher {
  std::string Text;
  clang::ast_matchers::internal::Matcher<clang::Decl> Matcher;
};

/// Where in the expression a parse error is, 1-based.
struct MatcherErrorPosition {
  unsigned Line = 1, Column = 1;
};

/// Deepest nesting of parentheses a matcher may have: clang's parser recurses
/// once per level, and 10,000 levels overflow the stack.
constexpr unsigned MaxMatcherNesting = 64;

/// Parses \p Code; on error, \p At is where the problem is in \p Code.
llvm::Expected<std::shared_ptr<const CompiledMatcher>>
parseFunctionMatcher(llvm::StringRef Code, MatcherErrorPosition &At);

/// The matchers of \p Rules, in the rules' order (a rule without one not
/// counted): Candidate::Matches numbers them so, and a parse's matches serve
/// only rules with the same texts.
std::vector<const CompiledMatcher *> matchersOf(const RuleSet &Rules);

/// Whether \p M matches \p FD.
bool matchesFunction(const CompiledMatcher &M, const clang::FunctionDecl &FD,
                     clang::ASTContext &Ctx);

} // namespace apistamp

#endif // APISTAMP_LIB_MATCHER_H
