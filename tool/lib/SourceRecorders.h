//===- SourceRecorders.h - Macro uses and directive comments --*- C++ -*-===//
//
// Two preprocessor hooks that record, as plain data with file offsets, every
// expansion of the rules' macro and every apistamp directive comment.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_SOURCERECORDERS_H
#define APISTAMP_LIB_SOURCERECORDERS_H

#include "apistamp/Site.h"
#include "clang/Basic/SourceLocation.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/DenseMap.h"
#include <optional>
#include <string>
#include <vector>

namespace apistamp {

/// The macro's uses, per file.
using MacroUses = llvm::DenseMap<clang::FileID, std::vector<MacroUse>>;

/// Records every expansion, written in a file, of one of \p Macros (the
/// rules' macro first: RuleSet::recognisedMacros); a use of another than
/// the first names its macro.
class MacroUseRecorder : public clang::PPCallbacks {
public:
  MacroUseRecorder(clang::Preprocessor &PP, std::vector<std::string> Macros,
                   MacroUses &Uses)
      : PP(PP), Macros(std::move(Macros)), Uses(Uses) {}

  void MacroExpands(const clang::Token &MacroNameTok,
                    const clang::MacroDefinition &, clang::SourceRange,
                    const clang::MacroArgs *Args) override;

private:
  clang::Preprocessor &PP;
  std::vector<std::string> Macros;
  MacroUses &Uses;
};

/// An "apistamp-ignore" or "expect-..." comment as the lexer saw it.
struct DirectiveComment {
  clang::FileID File;
  unsigned Offset = 0, Line = 0, Column = 0;
  apistamp::Directive Directive = Directive::Ignore;
  std::string Argument; ///< After the ':', trimmed; "" if none.
};

/// The directive comment spanning \p Range, if it is one.
std::optional<DirectiveComment>
directiveCommentIn(clang::SourceRange Range, const clang::SourceManager &SM,
                   const clang::LangOptions &LangOpts);

/// Fills \p Use's argument (its range and event) from the tokens of the
/// macro's first argument, as written.
void describeArgument(MacroUse &Use, llvm::ArrayRef<clang::Token> Tokens,
                      clang::Preprocessor &PP);

/// Collects comments that start with "apistamp-ignore" (suppressions) or
/// "expect-event", "expect-no-event" or "expect-skipped" (for verify).
class DirectiveCommentCollector : public clang::CommentHandler {
public:
  explicit DirectiveCommentCollector(std::vector<DirectiveComment> &Comments)
      : Comments(Comments) {}

  bool HandleComment(clang::Preprocessor &PP,
                     clang::SourceRange Range) override;

private:
  std::vector<DirectiveComment> &Comments;
};

} // namespace apistamp

#endif // APISTAMP_LIB_SOURCERECORDERS_H
