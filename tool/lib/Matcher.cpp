//===- Matcher.cpp - Raw clang-query matchers in rules --------------------===//

#include "Matcher.h"
#include "Suggestions.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/Dynamic/Diagnostics.h"
#include "clang/ASTMatchers/Dynamic/Parser.h"
#include "clang/ASTMatchers/Dynamic/Registry.h"

using namespace clang;
using namespace clang::ast_matchers;

namespace apistamp {

/// The registered matcher name closest to \p Name, or "".
static std::string closestMatcherName(StringRef Name) {
  // Node matchers and the narrowing and traversal matchers that apply to
  // the declarations and types a function matcher usually goes through.
  std::vector<dynamic::ArgKind> Kinds =
      dynamic::Registry::getAcceptedCompletionTypes({});
  for (ASTNodeKind Kind : {ASTNodeKind::getFromNodeKind<CXXConstructorDecl>(),
                           ASTNodeKind::getFromNodeKind<CXXRecordDecl>(),
                           ASTNodeKind::getFromNodeKind<NamespaceDecl>(),
                           ASTNodeKind::getFromNodeKind<ParmVarDecl>(),
                           ASTNodeKind::getFromNodeKind<QualType>(),
                           ASTNodeKind::getFromNodeKind<Stmt>()})
    Kinds.push_back(dynamic::ArgKind::MakeMatcherArg(Kind));
  std::vector<dynamic::MatcherCompletion> Completions =
      dynamic::Registry::getMatcherCompletions(Kinds);
  std::vector<StringRef> Names;
  for (const dynamic::MatcherCompletion &C : Completions)
    Names.push_back(StringRef(C.TypedText).split('(').first);
  return closestWord(Name, Names);
}

/// Where the first parenthesis that nests deeper than MaxMatcherNesting is in
/// \p Code, skipping string literals and '#' comments as clang's matcher
/// tokenizer does; false if there is none.
static bool findTooDeepParenthesis(StringRef Code, MatcherErrorPosition &At) {
  unsigned Depth = 0, Line = 1;
  size_t LineStart = 0;
  for (size_t I = 0; I < Code.size(); ++I) {
    char C = Code[I];
    if (C == '\n') {
      ++Line;
      LineStart = I + 1;
    } else if (C == '#') {
      I = std::min(Code.find('\n', I), Code.size()) - 1;
    } else if (C == '"' || C == '\'') {
      // An unterminated string runs to the end; clang reports it.
      for (++I; I < Code.size() && Code[I] != C; ++I)
        if (Code[I] == '\\')
          ++I;
    } else if (C == '(' && ++Depth > MaxMatcherNesting) {
      At.Line = Line;
      At.Column = I - LineStart + 1;
      return true;
    } else if (C == ')' && Depth > 0) {
      --Depth;
    }
  }
  return false;
}

llvm::Expected<std::shared_ptr<const CompiledMatcher>>
parseFunctionMatcher(StringRef Code, MatcherErrorPosition &At) {
  // The parser recurses once per level: bound it before it runs out of stack.
  if (findTooDeepParenthesis(Code, At))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "in matcher: parentheses nest deeper than " +
                                       llvm::Twine(MaxMatcherNesting) +
                                       " levels");
  dynamic::Diagnostics Diag;
  StringRef Remaining = Code;
  std::optional<internal::DynTypedMatcher> Parsed =
      dynamic::Parser::parseMatcherExpression(Remaining, &Diag);
  if (!Parsed) {
    std::string Message = "bad matcher";
    if (!Diag.errors().empty() && !Diag.errors().front().Messages.empty()) {
      const auto &First = Diag.errors().front().Messages.front();
      At.Line = std::max(1u, First.Range.Start.Line);
      At.Column = std::max(1u, First.Range.Start.Column);
      // toString() gives "line:col: message", then the context stack.
      std::string Text = Diag.toString();
      Message = StringRef(Text).split('\n').first.split(": ").second.str();
      if (First.Type == dynamic::Diagnostics::ET_RegistryMatcherNotFound &&
          !First.Args.empty()) {
        std::string Suggestion = closestMatcherName(First.Args.front());
        if (!Suggestion.empty())
          Message += "; did you mean '" + Suggestion + "'?";
      }
    }
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "in matcher: " + printable(Message, 300));
  }
  ASTNodeKind Function = ASTNodeKind::getFromNodeKind<FunctionDecl>();
  // varDecl() is a Decl matcher restricted to VarDecl: the restriction is
  // what says which nodes it can match (getID() is where it is exposed).
  ASTNodeKind Supported = Parsed->getID().first;
  if (!Function.isBaseOf(Supported) && !Supported.isBaseOf(Function))
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "the matcher must match function declarations (functionDecl(...), "
        "cxxMethodDecl(...), cxxConstructorDecl(...)), not '" +
            printable(Supported.asStringRef()) + "'");
  auto Result = std::make_shared<CompiledMatcher>(CompiledMatcher{
      Code.str(), Parsed->dynCastTo(ASTNodeKind::getFromNodeKind<Decl>())
                      .unconditionalConvertTo<Decl>()});
  return std::shared_ptr<const CompiledMatcher>(std::move(Result));
}

std::vector<const CompiledMatcher *> matchersOf(const RuleSet &Rules) {
  std::vector<const CompiledMatcher *> Matchers;
  for (const Rule &R : Rules.Rules)
    if (R.Matcher)
      Matchers.push_back(R.Matcher.get());
  return Matchers;
}

bool matchesFunction(const CompiledMatcher &M, const FunctionDecl &FD,
                     ASTContext &Ctx) {
  return !match(M.Matcher, static_cast<const Decl &>(FD), Ctx).empty();
}

} // namespace apistamp
