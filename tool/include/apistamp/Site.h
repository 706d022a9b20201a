//===- Site.h - What the analysis finds, as plain data ----------*- C++ -*-===//
//
// The model types every stage shares: a selected definition (Site) with the
// facts the analysis found and what was decided from them, the edits that
// fix it, suppression and expectation comments, explanations, and one TU's
// result. Data only: no clang types, so that renderers, the cache and the
// unit tests do not depend on the front end.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_SITE_H
#define APISTAMP_SITE_H

#include "apistamp/DeclFacts.h"
#include "apistamp/Rules.h"
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace apistamp {

/// An edit of one file, as a value: a replacement of
/// File[Offset, Offset+Length) by Text, or (like Transformer's AddInclude)
/// the #include of header Text, placed by clang's HeaderIncludes when the
/// file's edits are applied, unless the file includes it already; or the
/// removal of the #include line File[Offset, Offset+Length) that follows the
/// removal of a stale call, made only if no token of the macro Text is left
/// in the file once its other edits are made.
struct TextEdit {
  enum KindType { Replace, AddInclude, RemoveInclude };
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
  /// The removal of the #include line \p File[\p Offset, \p Offset +
  /// \p Length) if nothing in \p File names \p Macro any more.
  static TextEdit removeInclude(std::string File, unsigned Offset,
                                unsigned Length, std::string Macro) {
    return TextEdit{std::move(File),  Offset,        Length,
                    std::move(Macro), RemoveInclude, false};
  }

  friend bool operator<(const TextEdit &L, const TextEdit &R) {
    return std::tie(L.File, L.Offset, L.Length, L.Text, L.Kind, L.Angled) <
           std::tie(R.File, R.Offset, R.Length, R.Text, R.Kind, R.Angled);
  }
  friend bool operator==(const TextEdit &L, const TextEdit &R) {
    return !(L < R) && !(R < L);
  }
};

/// One use of the rules' macro written directly in a file.
struct MacroUse {
#define APISTAMP_MACRO_USE_FIELD(Type, Name, Key) Type Name{};
#include "apistamp/SiteFields.def"
};

/// Where a selected body is, as offsets into its file.
struct BodyLocation {
#define APISTAMP_BODY_FIELD(Type, Name, Key) Type Name{};
#include "apistamp/SiteFields.def"
};

/// A module-level `from M import a, b` of a Python file.
struct PythonFromImport {
#define APISTAMP_PYTHON_IMPORT_FIELD(Type, Name, Key) Type Name{};
#include "apistamp/SiteFields.def"
};

/// Where a Python function's call goes and how its body is laid out, with
/// what its module's imports need: the Python front end's facts of a body.
struct PythonBody {
#define APISTAMP_PYTHON_BODY_FIELD(Type, Name, Key) Type Name{};
#include "apistamp/SiteFields.def"
};

/// What a selected definition's body is.
enum class BodyShape {
  Block,             ///< A block (or a try block) in the name's file.
  NoConstructorBody, ///< A class whose constructors are all implicit,
                     ///< defaulted, deleted or inherited.
  FromMacro,         ///< Its braces come from a macro (BodyMacro).
  InAnotherFile,     ///< Written in another file than the name.
  Unrecognised,
};

/// Whether a function is constexpr or consteval.
enum class ConstexprKind { None, Constexpr, Consteval };

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
  /// Selected, but TUs reach the body with different events or include
  /// needs (a fragment included in two namespaces, an X-macro file included
  /// twice): one body cannot log both. ConflictingTUs says which, through
  /// which TU (and SkipReason, in words); no fix.
  Conflict,
};

/// One TU's part in a Conflict: what it needs in the body (an event, or a
/// macro and its #include) and the TU it reaches the body through.
struct ConflictParticipant {
  std::string Need;
  std::string Through;
  /// The TU reached the body once already, with another need.
  bool IncludedAgain = false;
  bool operator==(const ConflictParticipant &O) const {
    return Need == O.Need && Through == O.Through &&
           IncludedAgain == O.IncludedAgain;
  }
};

/// A definition that a rule selects, or whose first statement logs an
/// event though no rule selects it.
struct Site {
  // The facts (SiteFields.def): what the analysis found, as the rules make
  // them of a Candidate (sitesFromFacts).
#define APISTAMP_SITE_FACT(Type, Name, Key) Type Name{};
#include "apistamp/SiteFields.def"

  // The decision (decideSite): what follows from the facts and the file's
  // bytes. A stale site's Event becomes the event its call logs, and it has
  // no RuleId.
  SiteStatus Status = SiteStatus::Missing;
  /// Why a Skipped site cannot be instrumented; why a Stale one is not
  /// selected; the reason a Suppressed one's comment gives.
  std::string SkipReason;
  /// A Conflict's TUs, in the order they were met; SkipReason is made from
  /// them (conflictReason).
  std::vector<ConflictParticipant> ConflictingTUs;
  /// Whether a Conflict is of events ("different events") rather than of
  /// include needs.
  bool ConflictOfEvents = false;
  /// Events already in the body, in order.
  std::vector<std::string> FoundEvents;
  /// Where a finding is reported: the name, or the call or literal at fault.
  unsigned ReportLine = 0, ReportColumn = 0;
  /// What fixes it: replacements, and the #include the inserted call needs.
  std::vector<TextEdit> Edits;
  /// A Stale site seen from a partial view that may be selected elsewhere:
  /// a note, not a finding; nothing is removed.
  bool NotJudged = false;
  /// Skipped because the rules forbid its edit (`public_header_edits:
  /// forbid`), not because it cannot hold a call: a selected definition
  /// check does not check (it fails unless its rule says `allow_skipped`).
  bool SkippedByPolicy = false;
  /// Its body only fails (OnlyFails) and its rule says `skip_stubs`.
  bool SkipStub = false;
  /// A Wrong site whose body logs its event with another recognised macro
  /// (a known API-usage macro, or one of the rules' former_macros) than the
  /// rules' ExpectedMacro: instead of it (FoundEvents has one event; the
  /// fix renames the call), or beside a call of it (the fix removes the
  /// other call). "" otherwise.
  std::string FoundMacro, ExpectedMacro;
  /// Its rule says `internal: true`: the body takes InternalEntryMacro, not
  /// an event (it is no row of the catalog).
  bool Internal = false;
};

/// An event a class logs through a base's constructor: a Python call that
/// logs `self` names the instance's class at run time, so each public class
/// whose construction runs that constructor (it defines no __init__, or its
/// __init__ calls super().__init__) logs an event of its own name.
struct InheritedEvent {
  /// The event, by the base site's rule's template applied to the class.
  std::string Event;
  std::string File; ///< The class's, canonical.
  unsigned Line = 0, Column = 0;
  std::string QualifiedName; ///< "torchvision.datasets.mnist.MNIST"
  /// The constructor whose call logs it (a selected site), and the chain of
  /// classes between (outermost first, the class and the base excluded).
  std::string ThroughEvent, ThroughFile, ThroughName, RuleId;
  unsigned ThroughLine = 0;
  SiteStatus ThroughStatus = SiteStatus::Present;
  std::vector<std::string> Chain;
};

/// A "// apistamp-ignore: <reason>" comment in a file under the root.
struct Suppression {
#define APISTAMP_SUPPRESSION_FIELD(Type, Name, Key) Type Name{};
#include "apistamp/SiteFields.def"
};

/// An expectation comment for `apistamp verify`, on the line before a
/// definition (or its first line): "// expect-event: <event>",
/// "// expect-no-event" or "// expect-skipped: <reason>".
struct Expectation {
  enum KindType { Event, NoEvent, Skipped };
#define APISTAMP_EXPECTATION_FIELD(Type, Name, Key) Type Name{};
#include "apistamp/SiteFields.def"
};

/// A definition no rule selects that users could call (external linkage,
/// public), with each rule's reason: recorded only when the public surface
/// is asked for (`catalog --unselected`, `check --fail-on-unselected`).
struct UnselectedDefinition {
#define APISTAMP_UNSELECTED_FIELD(Type, Name, Key) Type Name{};
#include "apistamp/SiteFields.def"
};

/// A definition some rules could select, as a parse found it, whatever its
/// rules: a function definition with a body that was parsed (or a class
/// without a constructor body) in a file under the root. sitesFromFacts
/// makes Sites of the candidates that a rule selects or whose first
/// statement logs an event.
struct Candidate {
#define APISTAMP_CANDIDATE_FIELD(Type, Name, Key) Type Name{};
#include "apistamp/SiteFields.def"
};

/// What a parse of one TU found that rules decide on: the candidates and the
/// directive comments, in source order. It depends on the rules only through
/// what they make the parse do (the root, the macro, the matchers, and the
/// function bodies not parsed): the result cache stores it, and another
/// rules file decides on it without a parse.
struct TUFacts {
  std::vector<Candidate> Candidates;
  /// Every "apistamp-ignore" comment under the root (none Used).
  std::vector<Suppression> Suppressions;
  /// Every expectation comment under the root, bound to its definition.
  std::vector<Expectation> Expectations;
  /// Canonical paths of the files under the root some of whose function
  /// bodies were not parsed (no rule's `files` matched them, and they do not
  /// name the macro): rules that can select something there need a parse.
  std::vector<std::string> BodiesSkippedIn;
};

/// The comments apistamp reads in sources.
enum class Directive { Ignore, ExpectEvent, ExpectNoEvent, ExpectSkipped };
constexpr Directive AllDirectives[] = {
    Directive::Ignore, Directive::ExpectEvent, Directive::ExpectNoEvent,
    Directive::ExpectSkipped};

/// How \p D is spelled in a comment: "apistamp-ignore", "expect-event",
/// "expect-no-event" or "expect-skipped".
llvm::StringRef directiveSpelling(Directive D);

/// The directive that states an expectation of \p Kind.
Directive directiveOf(Expectation::KindType Kind);

/// The expectation a directive other than Ignore states.
Expectation::KindType expectationOf(Directive D);

/// What a directive comment says: which directive, and its argument (after
/// the ':', trimmed; "" if none).
struct DirectiveText {
  Directive Kind = Directive::Ignore;
  std::string Argument;
};

/// The directive \p Body spells, if any: a comment's text after its "//",
/// "/*" or "#" ("expect-events" or "apistamp-ignored" are other words).
std::optional<DirectiveText> directiveIn(llvm::StringRef Body);

/// Whether two values of a type of SiteFields.def have the same fields
/// (for a Site, the same facts).
bool sameFields(const MacroUse &L, const MacroUse &R);
bool sameFields(const BodyLocation &L, const BodyLocation &R);
bool sameFields(const PythonBody &L, const PythonBody &R);
bool sameFields(const PythonFromImport &L, const PythonFromImport &R);
bool sameFields(const Site &L, const Site &R);
bool sameFields(const Suppression &L, const Suppression &R);
bool sameFields(const Expectation &L, const Expectation &R);
bool sameFields(const UnselectedDefinition &L, const UnselectedDefinition &R);
bool sameFields(const DeclFacts &L, const DeclFacts &R);
bool sameFields(const Candidate &L, const Candidate &R);

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

/// A file's bytes, shared by every result that saw them (a header that
/// every TU reads is held once, not once a TU); compared by contents.
class SharedBytes {
public:
  SharedBytes() = default;
  /// A copy of \p Bytes.
  explicit SharedBytes(llvm::StringRef Bytes)
      : Bytes(std::make_shared<const std::string>(Bytes.str())) {}
  explicit SharedBytes(std::shared_ptr<const std::string> Bytes)
      : Bytes(std::move(Bytes)) {}

  /// The bytes, NUL-terminated (as clang's lexer needs them).
  const std::string &text() const {
    static const std::string None;
    return Bytes ? *Bytes : None;
  }
  llvm::StringRef ref() const { return text(); }
  operator llvm::StringRef() const { return ref(); }
  std::string str() const { return ref().str(); }
  size_t size() const { return ref().size(); }

  bool operator==(const SharedBytes &Other) const {
    return Bytes == Other.Bytes || ref() == Other.ref();
  }
  bool operator!=(const SharedBytes &Other) const { return !(*this == Other); }

private:
  std::shared_ptr<const std::string> Bytes;
};

/// What analysing one translation unit produced: facts, not yet decided.
struct TUResult {
  /// Where a result comes from. What a run writes is decided by parses made
  /// in this run without a stored preamble: a result from anywhere else
  /// that would change a file is parsed again first (ProjectAnalysis).
  enum class Origin {
    Parsed,           ///< Parsed by this run, all of it.
    ParsedOnPreamble, ///< Parsed by this run on a stored preamble.
    Cache,            ///< The result cache's entry.
    ResultFile,       ///< A file `tu` wrote (merge).
  };
  Origin From = Origin::Parsed;
  /// The compiler reported errors: nothing from this TU may be applied.
  bool ParseFailed = false;
  /// Compiler diagnostics, rendered as clang prints them.
  std::string Diagnostics;
  std::vector<Site> Sites;
  std::vector<Suppression> Suppressions;
  std::vector<Expectation> Expectations;
  /// For `explain`: the definitions that match the target.
  std::vector<Explanation> Explanations;
  /// Definitions no rule selects, when asked for (AnalysisOptions).
  std::vector<UnselectedDefinition> Unselected;
  /// The contents the analysis saw of every file that has sites: edits are
  /// offsets into these bytes.
  std::map<std::string, SharedBytes> FileContents;
  /// Function bodies not parsed because no rule can select them.
  unsigned SkippedBodies = 0;
  /// Every file the TU read, by canonical path, with an xxh3 hash of the
  /// bytes read (none if it was only looked up), sorted: what a cached
  /// result depends on.
  std::vector<std::pair<std::string, std::optional<uint64_t>>> Dependencies;
  /// Paths the TU looked for and did not find (absolute, sorted): one that
  /// appears (a header earlier on the include path) may change it.
  std::vector<std::string> Absent;
  /// What the sites, suppressions, expectations and unselected definitions
  /// above were decided from (sitesFromFacts): what the cache stores. Only
  /// a fresh parse has them.
  TUFacts Facts;
};

} // namespace apistamp

#endif // APISTAMP_SITE_H
