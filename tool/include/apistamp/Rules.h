//===- Rules.h - apistamp policy rules: data model and loader ---*- C++ -*-===//
//
// A rules file (version 1) says which definitions get an API usage event and
// how the event is named. Loading validates everything up front, so later
// stages never see a malformed rule.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_RULES_H
#define APISTAMP_RULES_H

#include "apistamp/EventName.h"
#include "apistamp/Glob.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/Regex.h"
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace apistamp {

/// The kind of definition a rule selects.
enum class DeclKind { Function, Method, Constructor };

/// Spelling of a kind as written in rules files and reports.
llvm::StringRef kindName(DeclKind Kind);

/// The language a rule's definitions are written in (`language:`).
enum class Language { Cxx, Python };

/// Spelling of a language as written in rules files and reports.
llvm::StringRef languageName(Language L);

/// A whole-match regular expression with its source text.
class NameRegex {
public:
  /// Compiles \p Pattern anchored at both ends; reports a bad pattern.
  static llvm::Expected<NameRegex> create(llvm::StringRef Pattern);
  bool matches(llvm::StringRef Text) const;
  const std::string &pattern() const { return Pattern; }

private:
  std::string Pattern;
  std::shared_ptr<llvm::Regex> Compiled;
};

/// A namespace selector: "a::b" exactly, "a::b::**" for it or any nested
/// namespace, "::" for the global namespace, "**" for any.
class NamespacePattern {
public:
  static llvm::Expected<NamespacePattern> create(llvm::StringRef Pattern);
  /// \p Namespace is "::"-joined, "" for the global namespace.
  bool matches(llvm::StringRef Namespace) const;
  const std::string &pattern() const { return Pattern; }

private:
  std::string Pattern;
  std::string Prefix;
  bool Nested = false;
};

/// A Python module selector (`modules:`): a dotted glob, "a.b" exactly,
/// "a.*" for a module directly in package a, "a.**" for a or anything in
/// it at any depth.
class ModulePattern {
public:
  static llvm::Expected<ModulePattern> create(llvm::StringRef Pattern);
  bool matches(llvm::StringRef Module) const;
  const std::string &pattern() const { return Pattern; }

private:
  std::string Pattern;
  std::optional<PathGlob> Glob; ///< The pattern with '.' as '/'.
  std::string Prefix;           ///< For "a.**": "a".
};

/// How a Python rule's call is written, imported and placed (`call`,
/// `guard`, `import`, `relative_import`, `placement`).
struct PythonCall {
  /// The called function, as `call:` writes it ("_log_api_usage_once").
  std::string Callee = "_log_api_usage_once";
  /// The argument template: "self", "{name}" (the function itself), or
  /// "{event}" (the event as a string literal). Empty: "self" for
  /// constructors and methods, "{name}" for functions.
  std::string Argument;
  /// `guard:` the condition of the `if` the call goes inside ("not
  /// torch.jit.is_scripting() and not torch.jit.is_tracing()"), or "".
  std::string Guard;
  /// `import: "from M import N"`: the module (absolute, dotted) and name
  /// that provide the callee; empty: no import is added.
  std::string ImportModule, ImportName;
  /// `relative_import: true`: written "from ..M import N" when M is in the
  /// module's own top-level package.
  bool RelativeImport = false;
  /// `placement: after_super_init` (constructors' default): after a leading
  /// `super().__init__(...)`; else the first statement after the docstring.
  std::optional<bool> AfterSuperInit;
};

/// A rule's `matcher:` expression, parsed (see tool/lib/Matcher.h).
struct CompiledMatcher;

/// One policy rule. Every filter that is absent does not filter.
struct Rule {
  std::string Id;
  unsigned Line = 0; ///< 1-based line of the rule in the rules file.
  /// `allow_skipped: true`: its definitions skipped by the rules' policy
  /// (public_header_edits: forbid) do not fail check.
  bool AllowSkipped = false;
  /// `skip_stubs: true`: its definitions whose body only fails (a stub
  /// compiled when an optional library is absent) are skipped, and a call
  /// in one is stale.
  bool SkipStubs = false;
  /// `internal: true`: its definitions are the library's internal entry
  /// points (static initialisers, start-up routines): they get
  /// InternalEntryMacro, which logs nothing and makes the library's calls
  /// under them nested (APISTAMP_LOG_API_ENTRY logs outermost calls only).
  bool Internal = false;
  Language Lang = Language::Cxx; ///< `language:` (c++ by default)
  std::optional<DeclKind> Where;
  std::vector<PathGlob> Files;
  std::vector<PathGlob> ExcludeFiles;
  /// Some declaration is in a matching file (an API declared in a header).
  std::vector<PathGlob> DeclaredIn;
  std::vector<NamespacePattern> Namespaces; ///< Any of them.
  std::vector<NameRegex> Names;             ///< Any of them.
  std::vector<NameRegex> ExcludeNames;
  std::optional<NameRegex> Class;
  /// `derived_from`: any of these classes is a base ("a::B"; Python:
  /// "torch.nn.Module").
  std::vector<std::string> DerivedFrom;
  bool ExternalLinkageOnly = true; ///< linkage: external (default) | any
  /// access: public (default) | protected (public or protected) | any
  enum class AccessFilter { Public, Protected, Any };
  AccessFilter Access = AccessFilter::Public;
  /// `matcher:` replaces the selection keys above but Files and
  /// ExcludeFiles.
  std::shared_ptr<const CompiledMatcher> Matcher;
  EventTemplate Event;
  /// Python: `modules:` (any of them).
  std::vector<ModulePattern> Modules;
  /// Python: `skip_decorators:` a definition with one of these decorators
  /// (dotted, as imported: "overload", "torch.jit.unused") is not selected.
  std::vector<std::string> SkipDecorators;
  /// Python: how the call is written.
  PythonCall Call;
};

/// One entry of a rules file's `aliases:`: the events an old name or glob
/// matches are counted, and judged, as the current event To (a rename that
/// keeps its history). When To has a '*', From is one too, "prefix*suffix"
/// with no other glob character, and To's '*' takes what From's matched.
struct EventAlias {
  EventGlob From;
  std::string To;
  unsigned Line = 0; ///< 1-based line of the entry in the rules file.
  /// From's prefix and suffix around its one '*', when To has a '*'.
  std::string Prefix, Suffix;

  /// The current name of \p Event, if this alias maps it.
  std::optional<std::string> map(llvm::StringRef Event) const;
};

/// One API on both sides (`pairs:`): the events of its Python functions and
/// of their C++ side. A function of one side and one of the other are one
/// API when their events end in the same name and the C++ event, without
/// its ".csrc" component, is under the Python event's package
/// (torchvision.io.image.decode_png and
/// torchvision.csrc.io.image.cpu.decode_png.decode_png). check flags an
/// event of either side without its partner, unless its name is listed as
/// one-sided.
struct EventPair {
  std::optional<EventGlob> Python, Cxx;
  /// Function names logged on one side only on purpose.
  std::vector<std::string> PythonOnly, CxxOnly;
  unsigned Line = 0, Column = 0; ///< 1-based, of the entry.
};

/// The current name of \p Event under the first of \p Aliases that maps
/// it, or \p Event itself.
std::string currentEventName(llvm::ArrayRef<EventAlias> Aliases,
                             llvm::StringRef Event);

/// `public_surface`: the definitions users of the library call, which
/// `catalog --unselected` lists and `check --fail-on-unselected` requires a
/// rule for when no rule selects them.
struct PublicSurface {
  /// `headers`: a definition is on the surface if some declaration of it is
  /// in a matching header (as `declared_in` matches). Empty: the public
  /// headers (`public_headers` and those the CMake build installs).
  std::vector<PathGlob> Headers;
  /// `exclude_namespaces`: not if an enclosing namespace's name matches one
  /// ("detail", "internal", "_.*").
  std::vector<NameRegex> ExcludeNamespaces;
  /// `exclude_names`: not if its name or an enclosing class's matches one.
  std::vector<NameRegex> ExcludeNames;
  /// `exclude_files`: not if it is written in a matching file (inline
  /// definitions in installed headers, which the default public-header
  /// policy would never instrument).
  std::vector<PathGlob> ExcludeFiles;
};

/// The API-usage macros every rules file recognises besides its own
/// `macro:`: c10's and the runtime's (C10_LOG_API_USAGE_ONCE,
/// APISTAMP_LOG_API_USAGE_ONCE, APISTAMP_LOG_API_ENTRY). A call of one in a
/// body is that body's event, whichever macro the rules name.
llvm::ArrayRef<llvm::StringRef> knownApiUsageMacros();

/// The Python calls every rules file recognises besides its rules' `call:`
/// callees: torchvision's helper and torch's binding
/// (_log_api_usage_once, torch._C._log_api_usage_once). A call of one in a
/// body is that body's event, whichever callee the rules name.
llvm::ArrayRef<llvm::StringRef> knownApiUsageCalls();

/// The runtime's marker of an internal entry point (a rule's `internal:
/// true`): `APISTAMP_LIBRARY_INTERNAL("name");`.
inline constexpr llvm::StringLiteral InternalEntryMacro =
    "APISTAMP_LIBRARY_INTERNAL";

/// A loaded rules file.
struct RuleSet {
  std::string Path; ///< The rules file, absolute.
  /// Paths in rules and events are relative to it. Canonical once planned
  /// (planProject makes it so): the analysis compares paths with it as is.
  std::string Root;
  /// xxh3 of the text these rules were parsed from: what results cached
  /// under them depend on.
  uint64_t TextHash = 0;
  std::string Macro = "C10_LOG_API_USAGE_ONCE";
  /// `former_macros`: macros the rules named before (besides the known
  /// API-usage macros, knownApiUsageMacros()). A call of one is the same
  /// event as a call of Macro: check reports it and fix renames it.
  std::vector<std::string> FormerMacros;
  /// `former_calls`: Python callees the rules' `call:` named before
  /// (dotted names, besides knownApiUsageCalls()): the same event, renamed.
  std::vector<std::string> FormerCalls;
  std::string Include; ///< Header to include, without quotes or brackets.
  bool IncludeAngled = false;
  std::vector<Rule> Rules;
  /// `keep_events`: globs of events placed by hand on purpose, outside any
  /// rule; they are never stale.
  std::vector<EventGlob> KeepEvents;
  /// `layers`: the events other layers log (torchvision's Python side,
  /// torch core), by layer, in the file's order. Only report reads them:
  /// such events are reported as their layer's, not as unknown.
  std::vector<EventLayer> Layers;
  /// `pairs`: APIs logged on both sides, Python and C++.
  std::vector<EventPair> Pairs;
  /// `aliases`: old event names (or globs) and the events they are now, in
  /// the file's order. report counts an old name as its current event, and
  /// check --usage does not take a rename with an alias for a removal.
  std::vector<EventAlias> Aliases;
  /// Top-level `exclude_files`: no rule selects anything in these files
  /// (added to every rule's ExcludeFiles when loaded).
  std::vector<PathGlob> ExcludeFiles;
  /// `public_headers`: headers the library installs for its users, besides
  /// those its CMake build installs (found in cmake_install.cmake).
  std::vector<PathGlob> PublicHeaders;
  /// `public_header_edits`: what an insertion or correction in a public
  /// header does. Every user of the library would then need the header
  /// that provides the macro: by default no edit is made there (Forbid);
  /// Warn makes it and says so on every run; Allow makes it silently.
  enum class PublicHeaderPolicy { Warn, Forbid, Allow };
  PublicHeaderPolicy PublicHeaderEdits = PublicHeaderPolicy::Forbid;
  /// `public_surface`: what `catalog --unselected` and `check
  /// --fail-on-unselected` hold the rules against.
  PublicSurface Surface;
  /// `python: path:` the directories under the root that are on Python's
  /// path (a module's name is its path under the first that holds it),
  /// relative to the root; "." by default.
  std::vector<std::string> PythonPath = {"."};
  /// `compile_commands`: the directory of compile_commands.json, absolute
  /// (resolved against the rules file's directory); "" if not set. -p wins.
  std::string CompileCommandsDir;

  /// The rule whose id is \p Id; null if none is.
  const Rule *rule(llvm::StringRef Id) const {
    for (const Rule &R : Rules)
      if (R.Id == Id)
        return &R;
    return nullptr;
  }

  /// The macros whose calls log this rules' events: Macro first, then the
  /// known API-usage macros and FormerMacros, each once.
  std::vector<std::string> recognisedMacros() const;
  /// Whether \p Text names one of recognisedMacros(): a file a stale call
  /// may be in.
  bool mentionsAMacro(llvm::StringRef Text) const;
  /// Whether \p Name is one of recognisedMacros().
  bool recognisesMacro(llvm::StringRef Name) const;
  /// The Python callees whose calls log this rules' events: each Python
  /// rule's, then the known API-usage calls and FormerCalls, each once.
  std::vector<std::string> recognisedCalls() const;

  /// Whether \p Event matches one of KeepEvents.
  bool keeps(llvm::StringRef Event) const {
    return llvm::any_of(KeepEvents, [Event](const EventGlob &Keep) {
      return Keep.matches(Event);
    });
  }
};

/// Parses rules from \p Text; \p Path names the file in diagnostics. All
/// problems are reported as "path:line:col: error: ..." joined in one Error.
llvm::Expected<RuleSet> parseRules(llvm::StringRef Text, llvm::StringRef Path);

/// Reads and parses the rules file at \p Path; Root defaults to its directory.
llvm::Expected<RuleSet> loadRules(llvm::StringRef Path);

/// The nearest ".apistamp.yaml" in \p File's directory or above, or "".
std::string findRulesFileFor(llvm::StringRef File);

} // namespace apistamp

#endif // APISTAMP_RULES_H
