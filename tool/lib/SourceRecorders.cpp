//===- SourceRecorders.cpp - Our macro's uses and directive comments -----===//

#include "SourceRecorders.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/LiteralSupport.h"
#include "clang/Lex/MacroArgs.h"
#include "llvm/ADT/StringExtras.h"

using namespace clang;

namespace apistamp {

void describeArgument(MacroUse &Use, llvm::ArrayRef<Token> Tokens,
                      Preprocessor &PP) {
  if (Tokens.empty() || !Tokens.front().getLocation().isFileID() ||
      !Tokens.back().getLocation().isFileID())
    return;
  const SourceManager &SM = PP.getSourceManager();
  CharSourceRange ArgRange = CharSourceRange::getTokenRange(
      Tokens.front().getLocation(), Tokens.back().getLocation());
  Use.HasArgRange = true;
  Use.ArgBegin = SM.getFileOffset(ArgRange.getBegin());
  Use.ArgEnd = SM.getFileOffset(
      Lexer::getLocForEndOfToken(ArgRange.getEnd(), 0, SM, PP.getLangOpts()));
  bool AllStrings = llvm::all_of(
      Tokens, [](const Token &T) { return tok::isStringLiteral(T.getKind()); });
  if (AllStrings) {
    StringLiteralParser Literal(Tokens, PP);
    if (!Literal.hadError)
      Use.Event = Literal.GetString().str();
  } else {
    Use.Event = Lexer::getSourceText(ArgRange, SM, PP.getLangOpts()).str();
  }
}

void MacroUseRecorder::MacroExpands(const Token &MacroNameTok,
                                    const MacroDefinition &, SourceRange,
                                    const MacroArgs *Args) {
  const IdentifierInfo *II = MacroNameTok.getIdentifierInfo();
  SourceLocation Loc = MacroNameTok.getLocation();
  // A use inside another macro's expansion is that macro's business.
  if (!II || !Loc.isFileID())
    return;
  auto Called = llvm::find(Macros, II->getName());
  if (Called == Macros.end())
    return;
  const SourceManager &SM = PP.getSourceManager();
  MacroUse Use;
  if (Called != Macros.begin())
    Use.Macro = *Called;
  Use.Offset = SM.getFileOffset(Loc);
  if (Args && Args->getNumMacroArguments() > 0) {
    llvm::SmallVector<Token, 4> Tokens;
    for (const Token *T = Args->getUnexpArgument(0); T->isNot(tok::eof); ++T)
      Tokens.push_back(*T);
    describeArgument(Use, Tokens, PP);
  }
  Uses[SM.getFileID(Loc)].push_back(std::move(Use));
}

std::optional<DirectiveComment>
directiveCommentIn(SourceRange Range, const SourceManager &SM,
                   const LangOptions &LangOpts) {
  SourceLocation Begin = Range.getBegin();
  if (!Begin.isFileID())
    return std::nullopt;
  llvm::StringRef Text =
      Lexer::getSourceText(CharSourceRange::getCharRange(Range), SM, LangOpts);
  llvm::StringRef Body = Text.drop_front(2); // "//" or "/*"
  if (Text.starts_with("/*"))
    Body.consume_back("*/");
  std::optional<DirectiveText> Found = directiveIn(Body);
  if (!Found)
    return std::nullopt;
  DirectiveComment C;
  C.File = SM.getFileID(Begin);
  C.Offset = SM.getFileOffset(Begin);
  C.Line = SM.getSpellingLineNumber(Begin);
  C.Column = SM.getSpellingColumnNumber(Begin);
  C.Directive = Found->Kind;
  C.Argument = std::move(Found->Argument);
  return C;
}

bool DirectiveCommentCollector::HandleComment(Preprocessor &PP,
                                              SourceRange Range) {
  if (std::optional<DirectiveComment> C =
          directiveCommentIn(Range, PP.getSourceManager(), PP.getLangOpts()))
    Comments.push_back(std::move(*C));
  return false;
}

} // namespace apistamp
