//===- SiteDecision.cpp - How a selected definition stands, and its fix ---===//

#include "SiteDecision.h"
#include "Insertion.h"
#include "python/PythonEdits.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace apistamp {

std::pair<unsigned, unsigned> lineAndColumn(StringRef Code, unsigned Offset) {
  unsigned Line = 1, LineStart = 0;
  for (unsigned I = 0; I < Offset && I < Code.size(); ++I) {
    if (Code[I] == '\n' ||
        (Code[I] == '\r' && (I + 1 >= Code.size() || Code[I + 1] != '\n'))) {
      ++Line;
      LineStart = I + 1;
    }
  }
  return {Line, Offset - LineStart + 1};
}

static void reportAt(Site &S, StringRef Code, unsigned Offset) {
  std::tie(S.ReportLine, S.ReportColumn) = lineAndColumn(Code, Offset);
}

/// The macro \p Use calls.
static StringRef macroOf(const MacroUse &Use, const RuleSet &Rules) {
  return Use.Macro.empty() ? StringRef(Rules.Macro) : StringRef(Use.Macro);
}

/// A fix of the call also makes the file include what provides it.
static void addInclude(Site &S, const RuleSet &Rules) {
  if (!Rules.Include.empty())
    S.Edits.push_back(
        TextEdit::addInclude(S.IncludeFile.empty() ? S.File : S.IncludeFile,
                             Rules.Include, Rules.IncludeAngled));
}

/// Skips blanks, line breaks and comments from \p Pos.
static size_t skipBlanksAndComments(StringRef Code, size_t Pos) {
  while (Pos < Code.size()) {
    if (isSpace(Code[Pos])) {
      ++Pos;
    } else if (Code.substr(Pos).starts_with("//")) {
      // A comment ends at a line break without a backslash before it.
      size_t End = Pos;
      do
        End = Code.find('\n', End + 1);
      while (End != StringRef::npos && Code[End - 1] == '\\');
      if (End == StringRef::npos)
        return Code.size();
      Pos = End + 1;
    } else if (Code.substr(Pos).starts_with("/*")) {
      size_t End = Code.find("*/", Pos + 2);
      if (End == StringRef::npos)
        return Code.size();
      Pos = End + 2;
    } else {
      break;
    }
  }
  return Pos;
}

bool isFirstStatement(StringRef Code, unsigned LBraceOffset,
                      const MacroUse &Use) {
  return skipBlanksAndComments(Code, afterOpeningBrace(Code, LBraceOffset)) ==
         Use.Offset;
}

/// The bytes after the statement "MACRO(\"event\");" that starts at
/// \p Offset of \p Code, as clang's lexer reads them; nullopt, and why in
/// \p Why, if something else is written there.
static std::optional<size_t> endOfCallStatement(StringRef Code,
                                                const MacroUse &Use,
                                                StringRef Macro,
                                                std::string &Why) {
  if (Use.Offset >= Code.size()) {
    Why = "it is not in the file";
    return std::nullopt;
  }
  clang::LangOptions Cxx;
  Cxx.CPlusPlus = Cxx.CPlusPlus11 = Cxx.CPlusPlus17 = true;
  // The lexer reads up to a NUL after the bytes: a copy has one.
  std::string Rest = Code.substr(Use.Offset).str();
  clang::Lexer Lex(clang::SourceLocation(), Cxx, Rest.data(), Rest.data(),
                   Rest.data() + Rest.size());
  // A comment between the call's tokens is someone's note: the call is not
  // what apistamp writes, and is not removed with it.
  Lex.SetCommentRetentionState(true);
  clang::Token Tok;
  bool Commented = false;
  auto Next = [&](clang::tok::TokenKind Kind) {
    Lex.LexFromRawLexer(Tok);
    Commented |= Tok.is(clang::tok::comment);
    return Tok.is(Kind);
  };
  auto Fail = [&](const std::string &Reason) -> std::optional<size_t> {
    Why = Commented ? "a comment is written inside it" : Reason;
    return std::nullopt;
  };
  auto Spelling = [&] {
    const char *End = Lex.getBufferLocation();
    return StringRef(End - Tok.getLength(), Tok.getLength());
  };
  if (!Next(clang::tok::raw_identifier) || Tok.getRawIdentifier() != Macro ||
      !Next(clang::tok::l_paren))
    return Fail("it is not a call of '" + Macro.str() + "'");
  if (!Next(clang::tok::string_literal) ||
      Spelling() != quoteEvent(Use.Event) || !Next(clang::tok::r_paren))
    return Fail("its argument is not the one string literal apistamp writes");
  if (!Next(clang::tok::semi))
    return Fail("the call is not a statement of its own");
  return Use.Offset + size_t(Lex.getBufferLocation() - Rest.data());
}

std::optional<TextEdit> callRemoval(StringRef File, StringRef Code,
                                    const MacroUse &Use, StringRef Macro,
                                    std::string *WhyNot) {
  std::string Why;
  std::optional<size_t> StatementEnd =
      endOfCallStatement(Code, Use, Macro, Why);
  if (!StatementEnd) {
    if (WhyNot)
      *WhyNot = std::move(Why);
    return std::nullopt;
  }
  size_t Begin = Use.Offset, End = *StatementEnd;
  // find_last_of looks below its From: the byte before Begin is seen (a
  // call at column 1 is alone on its line too).
  size_t LineBegin = Code.find_last_of("\r\n", Begin);
  LineBegin = LineBegin == StringRef::npos ? 0 : LineBegin + 1;
  size_t AfterBlanks = Code.find_first_not_of(" \t", End);
  bool AloneOnLine = Code.slice(LineBegin, Begin).trim(" \t").empty() &&
                     (AfterBlanks == StringRef::npos ||
                      Code[AfterBlanks] == '\n' || Code[AfterBlanks] == '\r');
  if (AloneOnLine) {
    Begin = LineBegin;
    End = AfterBlanks == StringRef::npos ? Code.size() : AfterBlanks;
    if (End < Code.size() && Code[End] == '\r')
      ++End;
    if (End < Code.size() && Code[End] == '\n')
      ++End;
  } else {
    End = AfterBlanks == StringRef::npos ? Code.size() : AfterBlanks;
  }
  return TextEdit{File.str(), unsigned(Begin), unsigned(End - Begin), ""};
}

const MacroUse *staleCall(const Site &S, StringRef Code, const RuleSet &Rules) {
  if (S.Shape != BodyShape::Block || (!S.Body && !S.Python))
    return nullptr;
  auto First = llvm::find_if(
      S.Calls, [](const MacroUse &Use) { return !Use.FunctionCall; });
  if (First == S.Calls.end() ||
      !(S.Python ? python::isFirstStatement(S, *First)
                 : isFirstStatement(Code, S.Body->LBraceOffset, *First)) ||
      First->Event.empty() || Rules.keeps(First->Event))
    return nullptr;
  return &*First;
}

std::optional<std::pair<unsigned, unsigned>>
includeLine(StringRef Code, StringRef Header, bool Angled) {
  if (Header.empty())
    return std::nullopt;
  std::string Directive = ("#include " + Twine(Angled ? '<' : '"') + Header +
                           Twine(Angled ? '>' : '"'))
                              .str();
  clang::LangOptions Cxx;
  Cxx.CPlusPlus = Cxx.CPlusPlus11 = Cxx.CPlusPlus17 = true;
  // The lexer reads up to a NUL after the bytes: a copy has one.
  std::string Copy = Code.str();
  clang::Lexer Lex(clang::SourceLocation(), Cxx, Copy.data(), Copy.data(),
                   Copy.data() + Copy.size());
  std::optional<std::pair<unsigned, unsigned>> Found;
  clang::Token Tok;
  while (!Lex.LexFromRawLexer(Tok)) {
    if (!Tok.is(clang::tok::hash) || !Tok.isAtStartOfLine())
      continue;
    unsigned Begin = Lex.getBufferLocation() - Tok.getLength() - Copy.data();
    StringRef Rest = Code.substr(Begin);
    if (!Rest.starts_with(Directive))
      continue;
    StringRef After = Rest.drop_front(Directive.size());
    unsigned Ending = After.starts_with("\r\n")                            ? 2
                      : After.starts_with("\n") || After.starts_with("\r") ? 1
                                                                           : 0;
    if (Ending == 0 && !After.empty())
      continue;
    if ((Begin > 0 && Code[Begin - 1] != '\n' && Code[Begin - 1] != '\r') ||
        Found)
      return std::nullopt; // Indented, or written twice: not apistamp's.
    unsigned Length = unsigned(Directive.size()) + Ending;
    // An include block of its own (a blank line or the file's start before
    // it, a blank line after), as the include inserter writes a new block:
    // the blank line after goes with it.
    StringRef Before = Code.substr(0, Begin), Next = After.drop_front(Ending);
    bool BlankBefore = Before.empty() || Before.ends_with("\n\n") ||
                       Before.ends_with("\r\n\r\n") || Before.ends_with("\r\r");
    unsigned BlankAfter = Next.starts_with("\r\n") ? 2
                          : Next.starts_with("\n") || Next.starts_with("\r")
                              ? 1
                              : 0;
    if (Ending && BlankBefore)
      Length += BlankAfter;
    Found = {Begin, Length};
  }
  return Found;
}

/// A body that \p Removal leaves with nothing but one line break between
/// its braces goes back to "{}", as it was before fix opened it (add then
/// remove gives the same bytes).
static void collapseEmptiedBody(const Site &S, StringRef Code,
                                TextEdit &Removal) {
  if (!S.Body || !Removal.Text.empty())
    return;
  unsigned Open = S.Body->LBraceOffset + 1, Close = S.Body->RBraceOffset;
  if (Open > Removal.Offset || Removal.Offset + Removal.Length > Close ||
      Close > Code.size())
    return;
  StringRef Before = Code.slice(Open, Removal.Offset);
  StringRef After = Code.slice(Removal.Offset + Removal.Length, Close);
  std::string Left = (Before + After).str();
  bool OnlyBlanks = llvm::all_of(Left, [](char C) {
    return C == ' ' || C == '\t' || C == '\n' || C == '\r';
  });
  size_t Breaks = llvm::count(Left, '\n');
  if (!OnlyBlanks || Breaks != 1)
    return;
  Removal.Offset = Open;
  Removal.Length = Close - Open;
}

/// A stale call is removed only if it is what apistamp writes,
/// "MACRO(\"event\");", as the file's bytes show: anything else (side
/// effects in the argument, a call inside an expression) is reported, with
/// the reason, and left alone. A removal also takes the rules' #include, as
/// apistamp writes it, if nothing else in the file names the macro then
/// (fileReplacements decides, over all the file's edits).
static void decideStale(Site &S, StringRef Code, const MacroUse &Call,
                        std::string Why, const RuleSet &Rules) {
  S.Status = SiteStatus::Stale;
  S.Event = Call.Event;
  S.RuleId.clear();
  S.AlsoSelectedBy.clear();
  S.FoundEvents = {Call.Event};
  reportAt(S, Code, Call.Offset);
  std::string WhyNot;
  if (S.Python) {
    // The import stays: other code of the module may call it.
    if (std::optional<TextEdit> Removal =
            python::callRemoval(S, &Call - S.Calls.data(), &WhyNot))
      S.Edits.push_back(std::move(*Removal));
    else
      Why += "; not removed: " + WhyNot;
    S.SkipReason = std::move(Why);
    return;
  }
  // The rules' #include provides their macro and the internal entry
  // point's marker; a call of another recognised macro keeps whatever
  // provides it.
  bool OwnMacro = macroOf(Call, Rules) == Rules.Macro ||
                  macroOf(Call, Rules) == InternalEntryMacro;
  if (std::optional<TextEdit> Removal =
          callRemoval(S.File, Code, Call, macroOf(Call, Rules), &WhyNot)) {
    collapseEmptiedBody(S, Code, *Removal);
    S.Edits.push_back(std::move(*Removal));
    if (std::optional<std::pair<unsigned, unsigned>> Include =
            includeLine(Code, Rules.Include, Rules.IncludeAngled);
        OwnMacro && Include &&
        (S.IncludeFile.empty() || S.IncludeFile == S.File))
      S.Edits.push_back(TextEdit::removeInclude(S.File, Include->first,
                                                Include->second, Rules.Macro));
  } else {
    Why += "; not removed: " + WhyNot;
  }
  S.SkipReason = std::move(Why);
}

/// Why a selected body of \p S's shape cannot be instrumented; "" if it can.
static std::string skipReason(const Site &S) {
  if (S.Python) {
    if (S.Shape == BodyShape::NoConstructorBody)
      return "no __init__ to instrument (the class has no constructor of "
             "its own)";
    return S.Python->Unplaceable;
  }
  if (S.Constexpr != ConstexprKind::None)
    return std::string(S.Constexpr == ConstexprKind::Consteval ? "consteval"
                                                               : "constexpr") +
           " function: a static local is ill-formed there";
  if (S.OnlyFails && S.Shape == BodyShape::Block && S.SkipStub)
    return "a stub that only fails (compiled when an optional library is "
           "absent): a call of it is no use of the API";
  switch (S.Shape) {
  case BodyShape::Block:
    return "";
  case BodyShape::NoConstructorBody:
    return "no constructor body to instrument (implicit, defaulted, "
           "deleted or inherited constructors only)";
  case BodyShape::FromMacro:
    return "body comes from macro '" + S.BodyMacro + "'";
  case BodyShape::InAnotherFile:
    return "body is written in another file than the name";
  case BodyShape::Unrecognised:
    return "unrecognised function body";
  }
  llvm_unreachable("unknown BodyShape");
}

/// The edit that gives \p Call the event \p S expects, if its argument is
/// a literal written in the file.
static void correctArgument(Site &S, StringRef Code, const MacroUse &Call) {
  if (Call.Event == S.Event || !Call.HasArgRange)
    return;
  S.Edits.push_back(TextEdit{S.File, Call.ArgBegin, Call.ArgEnd - Call.ArgBegin,
                             quoteEvent(S.Event)});
  S.ReportColumn = lineAndColumn(Code, Call.ArgBegin).second;
}

/// The macro \p S's body takes: the rules', or an internal entry point's.
static StringRef expectedMacro(const Site &S, const RuleSet &Rules) {
  return S.Internal ? StringRef(InternalEntryMacro) : StringRef(Rules.Macro);
}

/// A C++ block that calls another recognised macro than the one it takes
/// (one the rules named before, a known API-usage macro, or the internal
/// entry point's marker where an event belongs, or the other way round):
/// the same site under the old name. Alone, the call is renamed in place
/// (and its event corrected); beside one call of the expected macro, it is
/// removed. Wrong either way; false (nothing decided) if the calls are of
/// the expected macro only, or too many to tell which one stays (a
/// Duplicate).
static bool decideOtherMacro(Site &S, StringRef Code, const RuleSet &Rules,
                             ArrayRef<MacroUse> Calls) {
  StringRef Expected = expectedMacro(S, Rules);
  std::vector<const MacroUse *> Own, Other;
  for (const MacroUse &Call : Calls)
    if (!Call.FunctionCall)
      (macroOf(Call, Rules) == Expected ? Own : Other).push_back(&Call);
  if (Other.empty() || Own.size() + Other.size() != Calls.size() ||
      Own.size() > 1 || (Own.empty() && Other.size() > 1))
    return false;
  std::vector<TextEdit> Removals;
  for (const MacroUse *Call : Other) {
    if (Own.empty())
      break;
    std::optional<TextEdit> Removal =
        callRemoval(S.File, Code, *Call, macroOf(*Call, Rules));
    if (!Removal)
      return false; // Not what apistamp writes: a Duplicate, no fix.
    Removals.push_back(std::move(*Removal));
  }
  S.Status = SiteStatus::Wrong;
  S.FoundMacro = macroOf(*Other.front(), Rules).str();
  S.ExpectedMacro = Expected.str();
  reportAt(S, Code, Other.front()->Offset);
  if (Own.empty()) {
    const MacroUse &Call = *Other.front();
    S.Edits.push_back(TextEdit{S.File, Call.Offset,
                               unsigned(macroOf(Call, Rules).size()),
                               Expected.str()});
    correctArgument(S, Code, Call);
  } else {
    S.Edits = std::move(Removals);
    correctArgument(S, Code, *Own.front());
  }
  addInclude(S, Rules);
  return true;
}

/// A Python body that calls another recognised callee than its rule's
/// `call:` (a known API-usage call, one of the rules' former_calls, another
/// rule's): the same site under the old name, as decideOtherMacro decides a
/// C++ block. Alone, the call is rewritten in place as the rule writes it
/// (callee and argument); beside one call of the rule's callee, it is
/// removed if it is a statement apistamp could have written.
static bool decideOtherCall(Site &S, StringRef Code, const Rule &R,
                            ArrayRef<MacroUse> Calls) {
  std::vector<const MacroUse *> Own, Other;
  for (const MacroUse &Call : Calls)
    (Call.Macro.empty() || Call.Macro == R.Call.Callee ? Own : Other)
        .push_back(&Call);
  if (Other.empty() || Own.size() > 1 || (Own.empty() && Other.size() > 1))
    return false;
  std::vector<TextEdit> Removals;
  for (const MacroUse *Call : Other) {
    if (Own.empty())
      break;
    // Calls is a filtered copy of S.Calls: the call's index there.
    size_t Index = llvm::find_if(S.Calls,
                                 [&](const MacroUse &Use) {
                                   return Use.Offset == Call->Offset;
                                 }) -
                   S.Calls.begin();
    std::optional<TextEdit> Removal =
        Index < S.Calls.size() ? python::callRemoval(S, Index, nullptr)
                               : std::nullopt;
    if (!Removal)
      return false; // Not a line apistamp writes: a Duplicate, no fix.
    Removals.push_back(std::move(*Removal));
  }
  S.Status = SiteStatus::Wrong;
  S.FoundMacro = Other.front()->Macro;
  S.ExpectedMacro = R.Call.Callee;
  reportAt(S, Code, Other.front()->Offset);
  if (!Own.empty()) {
    S.Edits = std::move(Removals);
    const MacroUse &Kept = *Own.front();
    if (Kept.Event != S.Event && Kept.HasArgRange)
      S.Edits.push_back(TextEdit{S.File, Kept.ArgBegin,
                                 Kept.ArgEnd - Kept.ArgBegin,
                                 python::callArgument(S, R)});
  } else {
    // `old(argument)` as written, callee to argument: rewritten whole.
    const MacroUse &Call = *Other.front();
    size_t Open = Call.HasArgRange ? Code.rfind('(', Call.ArgBegin) : 0;
    size_t Begin = Open - std::min<size_t>(Open, Call.Macro.size());
    if (!Call.HasArgRange || Open == StringRef::npos ||
        Code.substr(Begin, Open - Begin) != Call.Macro)
      return true; // Wrong; too unusual a call to rewrite.
    S.Edits.push_back(
        TextEdit{S.File, unsigned(Begin), Call.ArgEnd - unsigned(Begin),
                 R.Call.Callee + "(" + python::callArgument(S, R)});
  }
  if (std::optional<TextEdit> Import = python::importEdit(S, R))
    S.Edits.push_back(std::move(*Import));
  return true;
}

/// A block's status from the calls in it, and its fix.
static void decideBlock(Site &S, StringRef Code, const RuleSet &Rules) {
  // A call the rules keep (keep_events) was placed by hand for its own
  // sake: it is neither this body's event nor a duplicate of it.
  std::vector<MacroUse> Calls;
  llvm::copy_if(S.Calls, std::back_inserter(Calls), [&](const MacroUse &Use) {
    return Use.Event == S.Event || !Rules.keeps(Use.Event);
  });
  for (const MacroUse &Call : Calls)
    S.FoundEvents.push_back(Call.Event);
  const Rule *R = S.Python ? Rules.rule(S.RuleId) : nullptr;
  if (Calls.empty()) {
    S.Status = SiteStatus::Missing;
    if (R) {
      S.Edits = python::insertion(S, Code, *R);
      return;
    }
    const BodyLocation &Body = *S.Body;
    S.Edits =
        makeInsertion(S.File, Code, Body.DeclOffset, Body.LBraceOffset,
                      Body.RBraceOffset, expectedMacro(S, Rules), S.Event);
    addInclude(S, Rules);
    return;
  }
  if (S.Python ? R && decideOtherCall(S, Code, *R, Calls)
               : decideOtherMacro(S, Code, Rules, Calls))
    return;
  if (Calls.size() > 1) {
    S.Status = SiteStatus::Duplicate;
    reportAt(S, Code, Calls[1].Offset);
    return;
  }
  const MacroUse &Call = Calls.front();
  if (Call.Event == S.Event) {
    S.Status = SiteStatus::Present;
    return;
  }
  S.Status = SiteStatus::Wrong;
  reportAt(S, Code, Call.Offset);
  if (Call.HasArgRange && R) {
    S.Edits.push_back(TextEdit{S.File, Call.ArgBegin,
                               Call.ArgEnd - Call.ArgBegin,
                               python::callArgument(S, *R)});
    S.ReportColumn = lineAndColumn(Code, Call.ArgBegin).second;
    if (std::optional<TextEdit> Import = python::importEdit(S, *R))
      S.Edits.push_back(std::move(*Import));
  } else if (Call.HasArgRange && !S.Python) {
    correctArgument(S, Code, Call);
    addInclude(S, Rules);
  }
}

/// With `public_header_edits: forbid`, a fix in a public header is not made.
static void forbidPublicHeaderEdits(Site &S, const RuleSet &Rules,
                                    StringRef PublicHeaderWhy) {
  if (Rules.PublicHeaderEdits != RuleSet::PublicHeaderPolicy::Forbid ||
      PublicHeaderWhy.empty() || S.Edits.empty() ||
      (S.Status != SiteStatus::Missing && S.Status != SiteStatus::Wrong))
    return;
  S.Status = SiteStatus::Skipped;
  S.SkippedByPolicy = true;
  S.SkipReason = "in a public header (" + PublicHeaderWhy.str() +
                 "); the rules forbid edits there (public_header_edits: "
                 "forbid)";
  S.Edits.clear();
}

bool decideSite(Site &S, StringRef Code, const RuleSet &Rules,
                StringRef PublicHeaderWhy, bool PartialView) {
  S.Status = SiteStatus::Missing;
  S.NotJudged = false;
  S.SkippedByPolicy = false;
  S.SkipStub = false;
  S.FoundMacro.clear();
  S.ExpectedMacro.clear();
  S.Internal = false;
  S.SkipReason.clear();
  S.FoundEvents.clear();
  S.Edits.clear();
  S.ReportLine = S.Line;
  S.ReportColumn = S.Column;
  bool Selected = !S.RuleId.empty();
  if (!Selected || S.Suppressed) {
    if (const MacroUse *Call = staleCall(S, Code, Rules)) {
      std::string Why = "no rule selects '" + S.QualifiedName + "'";
      if (Selected)
        Why = S.SuppressionReason.empty()
                  ? "suppressed"
                  : "suppressed (" + S.SuppressionReason + ")";
      if (!Selected && PartialView) {
        // Another TU, not analysed, may select it (declared_in): whether it
        // is stale depends on what this view did not see.
        decideStale(S, Code, *Call, Why, Rules);
        S.Edits.clear();
        S.NotJudged = true;
        S.SkipReason = Why +
                       "; not judged: seen from a partial view (the TUs that "
                       "were not analysed may select it); run over the whole "
                       "project to judge it";
        return true;
      }
      decideStale(S, Code, *Call, std::move(Why), Rules);
      return true;
    }
    if (!Selected)
      return false;
    S.Status = SiteStatus::Suppressed;
    S.SkipReason = S.SuppressionReason;
    return true;
  }
  // A call in a stub (an earlier fix's) logs what is no use of the API.
  const Rule *Selecting = Rules.rule(S.RuleId);
  S.Internal = Selecting && Selecting->Internal && !S.Python;
  S.SkipStub = S.OnlyFails && Selecting && Selecting->SkipStubs;
  if (S.SkipStub && S.Shape == BodyShape::Block && !S.Python)
    if (const MacroUse *Call = staleCall(S, Code, Rules)) {
      decideStale(S, Code, *Call,
                  "'" + S.QualifiedName + "' is " + skipReason(S), Rules);
      return true;
    }
  S.SkipReason = skipReason(S);
  if (!S.SkipReason.empty()) {
    S.Status = SiteStatus::Skipped;
    return true;
  }
  if (!S.Body && !S.Python)
    return false; // A block without braces: facts no analysis records.
  decideBlock(S, Code, Rules);
  forbidPublicHeaderEdits(S, Rules, PublicHeaderWhy);
  if (PartialView && !S.IncludeFile.empty() && !S.Edits.empty()) {
    // A fragment's other includers, not analysed, would need the #include
    // too, and may need another event.
    S.Edits.clear();
    S.NotJudged = true;
    S.SkipReason = "not written: seen from a partial view (other files that "
                   "include the fragment were not analysed); run over the "
                   "whole project to fix it";
  }
  return true;
}

/// What a TU needs for the call in \p S to compile, in words; two TUs that
/// need different things cannot share the body.
static std::string includeNeed(const Site &S, const RuleSet &Rules) {
  if (Rules.Include.empty())
    return "macro '" + Rules.Macro + "', no #include";
  std::string Header = Rules.IncludeAngled ? "<" + Rules.Include + ">"
                                           : "\"" + Rules.Include + "\"";
  return "macro '" + Rules.Macro + "' from #include " + Header +
         (S.IncludeFile.empty() ? " in the file itself"
                                : " in the file that includes it");
}

void reconcileReach(Site &Decided, const RuleSet &DecidedRules,
                    StringRef DecidedThrough, const Site &Other,
                    const RuleSet &OtherRules, StringRef OtherThrough) {
  // A body nothing is written into (skipped, suppressed, stale) serves
  // every TU alike.
  if (Decided.RuleId.empty() || Other.RuleId.empty() ||
      Decided.Status == SiteStatus::Stale ||
      Decided.Status == SiteStatus::Skipped ||
      Decided.Status == SiteStatus::Suppressed)
    return;
  std::string Need = includeNeed(Decided, DecidedRules);
  std::string OtherNeed = includeNeed(Other, OtherRules);
  bool Fixes = Decided.Status == SiteStatus::Missing ||
               Decided.Status == SiteStatus::Wrong;
  if (Other.Event == Decided.Event && (Need == OtherNeed || !Fixes)) {
    bool AddsInclude = llvm::any_of(Decided.Edits, [](const TextEdit &E) {
      return E.Kind == TextEdit::AddInclude;
    });
    TextEdit Include = TextEdit::addInclude(
        Other.IncludeFile.empty() ? Other.File : Other.IncludeFile,
        OtherRules.Include, OtherRules.IncludeAngled);
    if (AddsInclude && !llvm::is_contained(Decided.Edits, Include))
      Decided.Edits.push_back(std::move(Include));
    return;
  }
  bool SameEvent = Other.Event == Decided.Event;
  ConflictParticipant Theirs{SameEvent ? OtherNeed : "'" + Other.Event + "'",
                             OtherThrough.str(),
                             OtherThrough == DecidedThrough};
  if (Decided.Status != SiteStatus::Conflict) {
    Decided.Status = SiteStatus::Conflict;
    Decided.Edits.clear();
    Decided.ReportLine = Decided.Line;
    Decided.ReportColumn = Decided.Column;
    Decided.ConflictOfEvents = !SameEvent;
    Decided.ConflictingTUs = {{SameEvent ? Need : "'" + Decided.Event + "'",
                               DecidedThrough.str(), false}};
  }
  if (!llvm::is_contained(Decided.ConflictingTUs, Theirs))
    Decided.ConflictingTUs.push_back(std::move(Theirs));
  Decided.SkipReason = conflictReason(Decided);
}

std::string conflictReason(const Site &S) {
  std::string Reason =
      S.ConflictOfEvents ? "different events" : "different include needs";
  for (size_t I = 0; I < S.ConflictingTUs.size(); ++I) {
    const ConflictParticipant &P = S.ConflictingTUs[I];
    Reason += (I == 0 ? ": " : "; ") + P.Need + " through " + P.Through +
              (P.IncludedAgain ? ", included again" : "");
  }
  return Reason;
}

} // namespace apistamp
