//===- Analysis.h - Find selected definitions in a TU -----------*- C++ -*-===//
//
// The analysis stage parses one translation unit and returns, as plain data,
// every definition a rule selected, its instrumentation status and the text
// edits that would fix it. It never prints and never writes files.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_ANALYSIS_H
#define APISTAMP_ANALYSIS_H

#include "apistamp/Rules.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/Support/VirtualFileSystem.h"
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace apistamp {

/// An edit of one file, as a value: a replacement of
/// File[Offset, Offset+Length) by Text, or (like Transformer's AddInclude)
/// the #include of header Text, placed by clang's HeaderIncludes when the
/// file's edits are applied, unless the file includes it already.
struct TextEdit {
  enum KindType { Replace, AddInclude };
  std::string File; ///< Canonical absolute path.
  unsigned Offset = 0;
  unsigned Length = 0;
  std::string Text;
  KindType Kind = Replace;
  bool Angled = false; ///< AddInclude: <Text> rather than "Text".

  /// The #include of \p Header in \p File.
  static TextEdit addInclude(std::string File, std::string Header,
                             bool Angled) {
    return TextEdit{std::move(File),   0,          0,
                    std::move(Header), AddInclude, Angled};
  }

  friend bool operator<(const TextEdit &L, const TextEdit &R) {
    return std::tie(L.File, L.Offset, L.Length, L.Text, L.Kind, L.Angled) <
           std::tie(R.File, R.Offset, R.Length, R.Text, R.Kind, R.Angled);
  }
  friend bool operator==(const TextEdit &L, const TextEdit &R) {
    return !(L < R) && !(R < L);
  }
};

/// One expansion of the rules' macro written directly in a file.
struct MacroUse {
  unsigned Offset = 0; ///< Of the macro name.
  /// The event if the argument is a string literal, else its spelling.
  std::string Event;
  /// The first argument's text, [ArgBegin, ArgEnd), when it is written in
  /// the file (not produced by another macro): what a correction replaces.
  bool HasArgRange = false;
  unsigned ArgBegin = 0, ArgEnd = 0;
};

/// Where a selected body is, as offsets into its file.
struct BodyLocation {
  unsigned DeclOffset = 0; ///< Where the definition starts.
  unsigned LBraceOffset = 0, RBraceOffset = 0;
};

/// Instrumentation state of a selected definition.
enum class SiteStatus {
  Present,    ///< Exactly one call with the expected event.
  Missing,    ///< No call: an insertion is proposed.
  Wrong,      ///< One call with another event: a correction is proposed.
  Duplicate,  ///< More than one call in the body.
  Skipped,    ///< Selected, but cannot be instrumented (see SkipReason).
  Suppressed, ///< Selected, but excluded by an apistamp-ignore comment.
  /// Not selected (no rule selects it, or it is suppressed), yet its first
  /// statement logs an event: the event keeps firing. Event is that event,
  /// SkipReason says why it is stale; the fix removes the call.
  Stale,
};

/// One selected definition with a body.
struct Site {
  std::string File;    ///< Canonical absolute path of the definition.
  unsigned Offset = 0; ///< Of the declaration's name; the site's identity.
  unsigned Line = 0, Column = 0;
  /// The lines the definition spans, a template's header included.
  unsigned BeginLine = 0, EndLine = 0;
  DeclKind Kind = DeclKind::Function;
  std::string QualifiedName;
  std::string RuleId;
  /// Later rules that would also select it; the first rule wins.
  std::vector<std::string> AlsoSelectedBy;
  std::string Event; ///< The expected event.
  SiteStatus Status = SiteStatus::Missing;
  /// For a site whose status comes from its body: where the body is and
  /// the macro's uses in it. Status, FoundEvents, the report location and
  /// Edits are computed from these and File's bytes (SiteDecision).
  std::optional<BodyLocation> Body;
  std::vector<MacroUse> Calls;
  /// Events already in the body, in order.
  std::vector<std::string> FoundEvents;
  /// Where a finding is reported: the name, or the wrong event's literal.
  unsigned ReportLine = 0, ReportColumn = 0;
  /// Where the #include of an inserted call goes when not into File: the
  /// file at whose file scope a fragment (a .inl included inside a
  /// namespace or class) is included.
  std::string IncludeFile;
  /// What fixes it: replacements, and the #include the inserted call needs.
  std::vector<TextEdit> Edits;
  /// Why a Skipped site cannot be instrumented; the reason given by the
  /// comment of a Suppressed one.
  std::string SkipReason;
};

/// A "// apistamp-ignore: <reason>" comment in a file under the root.
struct Suppression {
  std::string File; ///< Canonical absolute path.
  unsigned Offset = 0;
  unsigned Line = 0, Column = 0;
  std::string Reason; ///< Empty if the comment gives none (an error).
  bool Used = false;  ///< It excluded a selected definition.
};

/// An expectation comment for `apistamp verify`, on the line before a
/// definition (or its first line): "// expect-event: <event>",
/// "// expect-no-event" or "// expect-skipped: <reason>".
struct Expectation {
  enum KindType { Event, NoEvent, Skipped };
  KindType Kind = Event;
  std::string File; ///< Canonical absolute path.
  unsigned Line = 0, Column = 0;
  std::string Value; ///< The event or skip reason; "" for NoEvent.
  /// Where the name of the definition it applies to is; 0 if it precedes
  /// no definition.
  unsigned DefinitionLine = 0, DefinitionColumn = 0;
  std::string Definition; ///< Its qualified name.
};

/// Which definition `apistamp explain` asks about: the one whose text spans
/// Line of File, or every one with the qualified name.
struct ExplainTarget {
  std::string File; ///< Canonical absolute path.
  unsigned Line = 0;
  std::string QualifiedName; ///< "a::B::f"; used when not empty.
};

/// Why a definition is or is not instrumented, rule by rule.
struct Explanation {
  std::string File; ///< Canonical absolute path.
  unsigned Line = 0, Column = 0;
  unsigned SpanLines = 0; ///< How many lines the definition spans.
  std::string QualifiedName;
  std::string Kind; ///< "function", "method", "constructor" or "".
  /// Each rule in order: its id, its line, and why it rejected the
  /// definition ("" if it selects it). Empty if no rule was consulted.
  struct RuleLine {
    std::string Id;
    unsigned Line;
    std::string Rejection;
  };
  std::vector<RuleLine> Rules;
  /// Why no rule was consulted, or what the rules decided.
  enum OutcomeKind {
    InSystemHeader,    ///< Never instrumented.
    OutsideRoot,       ///< Never instrumented (Root says where it is).
    NotUserDefinition, ///< Implicit, a destructor, a lambda, ...
    Defaulted,         ///< "= default" or "= delete": no body.
    NotSelected,       ///< No rule selects it.
    Selected,          ///< SelectedSite says how it stands.
  };
  OutcomeKind Outcome = NotSelected;
  std::string Root;                 ///< For OutsideRoot.
  std::optional<Site> SelectedSite; ///< For Selected.
};

/// What analysing one translation unit produced.
struct TUResult {
  /// The compiler reported errors: nothing from this TU may be applied.
  bool ParseFailed = false;
  /// Compiler diagnostics, rendered as clang prints them.
  std::string Diagnostics;
  std::vector<Site> Sites;
  std::vector<Suppression> Suppressions;
  std::vector<Expectation> Expectations;
  /// For `explain`: the definitions that match the target.
  std::vector<Explanation> Explanations;
  /// The contents the analysis saw of every file that has sites: edits are
  /// offsets into these bytes.
  std::map<std::string, std::string> FileContents;
  /// Function bodies not parsed because no rule can select them.
  unsigned SkippedBodies = 0;
  /// Every file the TU read, by canonical path, with an xxh3 hash of the
  /// bytes read (none if it was only looked up), sorted: what a cached
  /// result depends on.
  std::vector<std::pair<std::string, std::optional<uint64_t>>> Dependencies;
};

/// How one translation unit is analysed.
struct AnalysisOptions {
  const RuleSet *Rules = nullptr;
  /// For `explain`: also explain the definitions it names (every body is
  /// parsed then).
  const ExplainTarget *Target = nullptr;
  /// Do not parse the bodies of functions no rule can select (in system
  /// headers, outside the root, in files no rule's `files` matches); the
  /// results are the same.
  bool SkipBodies = true;
};

/// Parses the TU of \p Command (through \p FS, the real file system if
/// null) and analyses it; a TU that does not parse has ParseFailed set and
/// its diagnostics in Diagnostics, and nothing else.
TUResult
analyseTU(const clang::tooling::CompileCommand &Command,
          const AnalysisOptions &Options,
          llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS = nullptr);

/// Preprocesses the TU of \p Command (no parse) and returns the canonical
/// paths of every file it reads, the source included, sorted. A TU that
/// does not preprocess returns the files read until the error.
std::vector<std::string>
filesReachedBy(const clang::tooling::CompileCommand &Command,
               llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS = nullptr);

} // namespace apistamp

#endif // APISTAMP_ANALYSIS_H
