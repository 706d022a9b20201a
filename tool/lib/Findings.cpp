//===- Findings.cpp - The findings of check, rendered ---------------------===//

#include "Findings.h"
#include "Catalog.h"
#include "CatalogDiff.h"
#include "Csv.h"
#include "Project.h"
#include "Suggestions.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include <tuple>
#include <vector>

using namespace llvm;

namespace apistamp {

static std::string joinQuoted(ArrayRef<std::string> Events) {
  std::string Result;
  for (const std::string &E : Events)
    Result += (Result.empty() ? "'" : ", '") + E + "'";
  return Result;
}

std::string otherMacroProblem(const Site &S) {
  std::string Old = "'" + S.FoundMacro + "'";
  std::string Rules = (S.Python ? "the rules' call '" : "the rules' macro '") +
                      S.ExpectedMacro + "'";
  if (S.FoundEvents.size() > 1)
    return "API usage event '" + S.Event + "' is also logged with " + Old +
           ", beside " + Rules;
  const std::string &Found = S.FoundEvents.front();
  if (Found == S.Event)
    return "API usage event '" + S.Event + "' is logged with " + Old +
           ", not " + Rules;
  return "wrong API usage event '" + Found + "', expected '" + S.Event +
         "', logged with " + Old + ", not " + Rules;
}

static void siteFindings(const Site &S, bool Verbose,
                         std::vector<Finding> &Out) {
  auto Add = [&](Severity Level, std::string Message) {
    Out.push_back(
        {S.File, S.ReportLine, S.ReportColumn, Level, std::move(Message),
         S.Status == SiteStatus::Stale ? StaleEventRule.str() : S.RuleId, &S,
         nullptr});
  };
  switch (S.Status) {
  case SiteStatus::Missing:
    Add(S.NotJudged ? Severity::Note : Severity::Warning,
        (S.Internal ? "missing internal entry point marker " +
                          InternalEntryMacro.str() + "('" + S.Event + "')"
                    : "missing API usage event '" + S.Event + "'") +
            (S.NotJudged ? "; " + S.SkipReason : ""));
    break;
  case SiteStatus::Wrong:
    Add(S.NotJudged ? Severity::Note : Severity::Warning,
        (S.FoundMacro.empty()
             ? "wrong API usage event '" + S.FoundEvents.front() +
                   "', expected '" + S.Event + "'"
             : otherMacroProblem(S)) +
            (S.NotJudged ? "; " + S.SkipReason : ""));
    break;
  case SiteStatus::Duplicate:
    Add(Severity::Warning, "duplicate API usage events " +
                               joinQuoted(S.FoundEvents) +
                               " in one body, expected one '" + S.Event + "'");
    break;
  case SiteStatus::Skipped:
    if (Verbose)
      Add(Severity::Note, "skipped " + S.QualifiedName + ": " + S.SkipReason);
    break;
  case SiteStatus::Present:
    if (Verbose)
      Add(Severity::Note, "instrumented '" + S.Event + "'");
    break;
  case SiteStatus::Suppressed:
    if (Verbose)
      Add(Severity::Note,
          "suppressed " + S.QualifiedName + ": " +
              (S.SkipReason.empty() ? "(no reason given)" : S.SkipReason));
    break;
  case SiteStatus::Stale:
    Add(S.NotJudged ? Severity::Note : Severity::Warning,
        "stale API usage event '" + S.Event + "': " + S.SkipReason);
    break;
  case SiteStatus::Conflict:
    Add(Severity::Warning,
        "conflicting API usage events: TUs reach this body with " +
            S.SkipReason + "; nothing is written here");
    break;
  }
}

std::vector<Finding> collectFindings(ArrayRef<Site> Sites,
                                     ArrayRef<Suppression> Suppressions,
                                     bool Verbose) {
  std::vector<Finding> Findings;
  for (const Site &S : Sites)
    siteFindings(S, Verbose, Findings);
  for (const Suppression &S : Suppressions) {
    if (S.Reason.empty())
      Findings.push_back({S.File, S.Line, S.Column, Severity::Error,
                          "apistamp-ignore needs a reason: '" +
                              std::string(isPythonSource(S.File) ? "#" : "//") +
                              " apistamp-ignore: <why this is not "
                              "instrumented>'",
                          directiveSpelling(Directive::Ignore).str(), nullptr,
                          nullptr});
    if (!S.Used)
      Findings.push_back({S.File, S.Line, S.Column, Severity::Warning,
                          "apistamp-ignore suppresses nothing: no definition "
                          "that a rule selects starts on this line or the next",
                          directiveSpelling(Directive::Ignore).str(), nullptr,
                          nullptr});
  }
  llvm::stable_sort(Findings, [](const Finding &L, const Finding &R) {
    return std::tie(L.File, L.Line, L.Column) <
           std::tie(R.File, R.Line, R.Column);
  });
  return Findings;
}

StringRef severityName(Severity S) {
  switch (S) {
  case Severity::Error:
    return "error";
  case Severity::Warning:
    return "warning";
  case Severity::Note:
    return "note";
  }
  llvm_unreachable("unknown Severity");
}

unsigned countProblems(ArrayRef<Finding> Findings) {
  return llvm::count_if(Findings,
                        [](const Finding &F) { return F.isProblem(); });
}

void printFindings(raw_ostream &OS, ArrayRef<Finding> Findings,
                   const PathDisplay &Display) {
  // A message quotes events and names from the sources: escaped whole.
  for (const Finding &F : Findings) {
    OS << printableLine(Display(F.File)) << ":" << F.Line << ":" << F.Column
       << ": " << severityName(F.Level) << ": " << printableLine(F.Message);
    if (F.FromSite || F.FromUnselected)
      OS << " [" << printableLine(F.RuleId) << "]";
    OS << "\n";
    if (!F.SuggestedRule.empty())
      OS << printableLines(F.SuggestedRule);
  }
}

std::vector<Site> selectedSites(ArrayRef<Site> Sites) {
  std::vector<Site> Selected;
  llvm::copy_if(Sites, std::back_inserter(Selected),
                [](const Site &S) { return S.Status != SiteStatus::Stale; });
  return Selected;
}

StringRef statusName(SiteStatus Status) {
  switch (Status) {
  case SiteStatus::Present:
    return "present";
  case SiteStatus::Missing:
    return "missing";
  case SiteStatus::Wrong:
    return "wrong";
  case SiteStatus::Duplicate:
    return "duplicate";
  case SiteStatus::Skipped:
    return "skipped";
  case SiteStatus::Suppressed:
    return "suppressed";
  case SiteStatus::Stale:
    return "stale";
  case SiteStatus::Conflict:
    return "conflict";
  }
  llvm_unreachable("unknown SiteStatus");
}

void printCatalog(raw_ostream &OS, ArrayRef<CatalogEvent> Catalog,
                  OutputFormat Format) {
  if (Format == OutputFormat::Json) {
    json::Array Entries;
    for (const CatalogEvent &C : Catalog) {
      json::Object Entry{{"event", C.Event}, {"rule", C.Rule},
                         {"file", C.File},   {"line", C.Line},
                         {"kind", C.Kind},   {"status", C.Status},
                         {"name", C.Name},   {"language", C.Language}};
      if (!C.Through.empty())
        Entry["through"] = json::Object{{"name", C.Through},
                                        {"file", C.ThroughFile},
                                        {"line", C.ThroughLine}};
      Entries.push_back(std::move(Entry));
    }
    OS << formatv("{0:2}", json::Value(std::move(Entries))) << "\n";
    return;
  }
  if (Format == OutputFormat::Csv) {
    OS << "event,rule,file,line,kind,status,name,language,through\n";
    for (const CatalogEvent &C : Catalog)
      OS << csvField(C.Event) << "," << csvField(C.Rule) << ","
         << csvField(C.File) << "," << C.Line << "," << C.Kind << ","
         << C.Status << "," << csvField(C.Name) << "," << C.Language << ","
         << csvField(C.Through) << "\n";
    return;
  }
  // Events ({file}, {path}) and files are escaped, and padded as printed.
  std::vector<std::string> Events;
  size_t Width = 5;
  for (const CatalogEvent &C : Catalog) {
    Events.push_back(printableLine(C.Event));
    Width = std::max(Width, Events.back().size());
  }
  for (auto [C, Event] : zip_equal(Catalog, Events)) {
    OS << left_justify(Event, Width) << "  " << left_justify(C.Status, 10)
       << "  " << left_justify(C.Kind, 11) << "  " << printableLine(C.File)
       << ":" << C.Line << "  [" << printableLine(C.Rule) << "]";
    if (!C.Through.empty())
      OS << " through " << printableLine(C.Through) << " ("
         << printableLine(C.ThroughFile) << ":" << C.ThroughLine << ")";
    OS << "\n";
  }
}

std::optional<std::string> yamlScalar(StringRef Text, bool GlobEscaped) {
  if (!json::isUTF8(Text))
    return std::nullopt;
  static const StringRef Keywords[] = {"true", "false", "null", "yes", "no",
                                       "on",   "off",   "y",    "n",   "~"};
  bool Plain = !Text.empty() &&
               (isAlpha(Text.front()) || Text.front() == '_') &&
               all_of(Text,
                      [](char C) {
                        return isAlnum(C) || C == '_' || C == '.' || C == '-' ||
                               C == '/';
                      }) &&
               !is_contained(Keywords, Text.lower());
  if (Plain)
    return Text.str();
  std::string Quoted = "\"";
  for (size_t I = 0; I < Text.size(); ++I) {
    unsigned char C = Text[I];
    if (C == '"' || C == '\\')
      Quoted +=
          GlobEscaped && C == '\\' ? "\\\\\\\\" : "\\" + std::string(1, C);
    else if (GlobEscaped && StringRef("*?[]{}").contains(C))
      Quoted += "\\\\" + std::string(1, C);
    else if (C < 0x20 || C == 0x7f)
      Quoted += formatv("\\x{0:x-2}", unsigned(C)).str();
    else if (C < 0x80)
      Quoted += C;
    else {
      // Every other character as an escape: no bidi control or invisible
      // character in a block meant to be pasted.
      unsigned Length = C >= 0xf0 ? 4 : C >= 0xe0 ? 3 : 2;
      uint32_t Code = C & (0x7f >> Length);
      for (unsigned K = 1; K < Length; ++K)
        Code = Code << 6 | (uint8_t(Text[I + K]) & 0x3f);
      I += Length - 1;
      Quoted += Code > 0xffff ? formatv("\\U{0:x-8}", Code).str()
                              : formatv("\\u{0:x-4}", Code).str();
    }
  }
  return Quoted + "\"";
}

/// "a -> b" for a rename, else the one event; escaped for a line of text.
static std::string diffEventText(const EventDiff &E) {
  switch (E.Change) {
  case EventChange::Renamed:
    return printableLine(E.OldEvent) + " -> " + printableLine(E.NewEvent);
  case EventChange::Removed:
    return printableLine(E.OldEvent);
  case EventChange::Added:
  case EventChange::Unchanged:
    return printableLine(E.NewEvent);
  }
  llvm_unreachable("unknown EventChange");
}

/// One event of a catalog diff as a JSON object.
static json::Object diffEventJson(const EventDiff &E) {
  json::Object Row{{"change", eventChangeName(E.Change)}};
  const CatalogEvent &Def = E.Change == EventChange::Removed ? E.Old : E.New;
  Row["rule"] = Def.Rule;
  Row["kind"] = Def.Kind;
  if (E.Change != EventChange::Removed) {
    Row["event"] = E.NewEvent;
    Row["file"] = E.New.File;
    Row["line"] = E.New.Line;
  }
  if (E.Change == EventChange::Removed || E.Change == EventChange::Renamed) {
    Row["old_event"] = E.OldEvent;
    Row["old_file"] = E.Old.File;
    Row["old_line"] = E.Old.Line;
  }
  if (E.Change == EventChange::Renamed) {
    Row["matched_by"] = renameMatchName(E.Match);
    Row["how"] = E.How;
  }
  return Row;
}

/// catalog --diff --format=json.
static void printCatalogDiffJson(raw_ostream &OS, const CatalogDiff &Diff,
                                 size_t Aliased,
                                 ArrayRef<const EventDiff *> Suggested) {
  json::Array Events;
  for (const EventDiff &E : Diff.Events)
    Events.push_back(diffEventJson(E));
  json::Object Aliases;
  for (const EventDiff *E : Suggested)
    Aliases[E->OldEvent] = E->NewEvent;
  json::Object Result{
      {"version", 1},
      {"counts",
       json::Object{{"renamed", Diff.count(EventChange::Renamed)},
                    {"renamed_by_declared_alias", Aliased},
                    {"removed", Diff.count(EventChange::Removed)},
                    {"added", Diff.count(EventChange::Added)},
                    {"unchanged", Diff.count(EventChange::Unchanged)}}},
      {"events", std::move(Events)},
      {"notes", json::Array(Diff.Notes)},
      {"suggested_aliases", std::move(Aliases)}};
  OS << formatv("{0:2}", json::Value(std::move(Result))) << "\n";
}

/// The suggested aliases, as lines to paste into a rules file.
static void printSuggestedAliases(raw_ostream &OS,
                                  ArrayRef<const EventDiff *> Suggested) {
  OS << "\n# Suggested aliases for the rules file (old event: current event);\n"
        "# check each match above before pasting.\n"
        "aliases:\n";
  for (const EventDiff *E : Suggested) {
    std::optional<std::string> From = yamlScalar(E->OldEvent, true),
                               To = yamlScalar(E->NewEvent, false);
    if (From && To)
      OS << "  " << *From << ": " << *To << "\n";
    else
      OS << "  # not UTF-8, cannot be written in YAML: "
         << printableLine(E->OldEvent) << " -> " << printableLine(E->NewEvent)
         << "\n";
  }
}

void printCatalogDiff(raw_ostream &OS, const CatalogDiff &Diff,
                      OutputFormat Format, bool ListUnchanged) {
  size_t Aliased = count_if(Diff.Events, [](const EventDiff &E) {
    return E.Change == EventChange::Renamed && E.Match == RenameMatch::Alias;
  });
  std::vector<const EventDiff *> Suggested = Diff.suggestedAliases();
  if (Format == OutputFormat::Json)
    return printCatalogDiffJson(OS, Diff, Aliased, Suggested);
  // One line per event: the change, the event (padded), where, the rule
  // and, for a rename, how it was matched.
  std::vector<std::pair<const EventDiff *, std::string>> Lines;
  size_t Width = 0;
  for (const EventDiff &E : Diff.Events)
    if (ListUnchanged || E.Change != EventChange::Unchanged) {
      Lines.emplace_back(&E, diffEventText(E));
      Width = std::max(Width, Lines.back().second.size());
    }
  for (const auto &[E, Text] : Lines) {
    const CatalogEvent &Def =
        E->Change == EventChange::Removed ? E->Old : E->New;
    OS << left_justify(eventChangeName(E->Change), 9) << "  "
       << left_justify(Text, Width) << "  " << printableLine(Def.File) << ":"
       << Def.Line << "  [" << printableLine(Def.Rule) << "]";
    if (E->Change == EventChange::Renamed)
      OS << "  " << printableLine(E->How);
    OS << "\n";
  }
  for (const std::string &Note : Diff.Notes)
    OS << "note: " << printableLine(Note) << "\n";
  OS << "catalog diff: " << Diff.count(EventChange::Renamed) << " renamed ("
     << Aliased << " by a declared alias), " << Diff.count(EventChange::Removed)
     << " removed, " << Diff.count(EventChange::Added) << " added, "
     << Diff.count(EventChange::Unchanged) << " unchanged\n";
  if (!Suggested.empty())
    printSuggestedAliases(OS, Suggested);
}

/// "body comes from macro 'X'" -> "body comes from macro".
static std::string skipReasonKind(StringRef Reason) {
  return Reason
      .take_until([](char C) { return C == ':' || C == '\'' || C == '('; })
      .rtrim()
      .str();
}

SiteCounts countSites(ArrayRef<Site> Sites) {
  SiteCounts Counts;
  for (const Site &S : Sites) {
    Counts.Selected += S.Status != SiteStatus::Stale;
    switch (S.Status) {
    case SiteStatus::Present:
      ++Counts.Present;
      break;
    // One not judged (a partial view) is a note, and not counted.
    case SiteStatus::Missing:
      Counts.Missing += !S.NotJudged;
      break;
    case SiteStatus::Wrong:
      Counts.Wrong += !S.NotJudged;
      break;
    case SiteStatus::Duplicate:
      ++Counts.Duplicate;
      break;
    case SiteStatus::Skipped:
      ++Counts.Skipped;
      ++Counts.SkippedByReason[skipReasonKind(S.SkipReason)];
      break;
    case SiteStatus::Suppressed:
      ++Counts.Suppressed;
      break;
    case SiteStatus::Stale:
      // One not judged (a partial view) is a note, and not counted.
      Counts.Stale += !S.NotJudged;
      Counts.StaleKept += S.Edits.empty() && !S.NotJudged;
      break;
    case SiteStatus::Conflict:
      ++Counts.Conflict;
      break;
    }
  }
  return Counts;
}

Finding publicHeaderFinding(const PublicHeaderEdit &E) {
  return {E.File,
          E.Line,
          E.Column,
          Severity::Warning,
          "the API usage event '" + E.Event +
              (E.AlreadyThere ? "' is in a public header ("
                              : "' goes into a public header (") +
              E.Why + "): every user of the library " +
              (E.AlreadyThere ? "needs" : "would need") +
              " the rules' include; exclude the header, or drop "
              "'public_header_edits: warn' (the default, forbid, makes no "
              "edit there)",
          E.RuleId,
          nullptr,
          nullptr};
}

} // namespace apistamp
