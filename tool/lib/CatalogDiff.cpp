//===- CatalogDiff.cpp - Events added, removed, renamed between catalogs --===//

#include "CatalogDiff.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"
#include <map>
#include <set>
#include <tuple>

using namespace llvm;

namespace apistamp {

StringRef renameMatchName(RenameMatch M) {
  switch (M) {
  case RenameMatch::Alias:
    return "alias";
  case RenameMatch::SameName:
    return "same-name";
  case RenameMatch::SameLine:
    return "same-line";
  case RenameMatch::OnlyInFile:
    return "only-in-file";
  case RenameMatch::SameLastName:
    return "same-last-name";
  }
  llvm_unreachable("unknown RenameMatch");
}

StringRef eventChangeName(EventChange C) {
  switch (C) {
  case EventChange::Unchanged:
    return "unchanged";
  case EventChange::Added:
    return "added";
  case EventChange::Removed:
    return "removed";
  case EventChange::Renamed:
    return "renamed";
  }
  llvm_unreachable("unknown EventChange");
}

size_t CatalogDiff::count(EventChange C) const {
  return count_if(Events, [C](const EventDiff &E) { return E.Change == C; });
}

std::vector<const EventDiff *> CatalogDiff::suggestedAliases() const {
  std::vector<const EventDiff *> Suggested;
  for (const EventDiff &E : Events)
    if (E.Change == EventChange::Renamed && E.Match != RenameMatch::Alias)
      Suggested.push_back(&E);
  return Suggested;
}

namespace {

/// Each event's first row by file and line (overloads share an event).
std::map<std::string, CatalogEvent> byEvent(ArrayRef<CatalogEvent> Rows) {
  std::map<std::string, CatalogEvent> Events;
  for (const CatalogEvent &Row : Rows) {
    auto [It, New] = Events.try_emplace(Row.Event, Row);
    if (!New && std::tie(Row.File, Row.Line) <
                    std::tie(It->second.File, It->second.Line))
      It->second = Row;
  }
  return Events;
}

/// The last component of a definition's name ("f" of "lib::f"), or of its
/// event ("f" of "lib.a.f") when the catalog does not name it.
StringRef lastName(const CatalogEvent &E) {
  StringRef Name = E.Name;
  // A Python name is dotted ("pkg.nets.ResNet.__init__": ResNet's).
  if (!Name.empty() && !Name.contains("::")) {
    Name.consume_back(".__init__");
    auto [Head, Tail] = Name.rsplit('.');
    return Tail.empty() ? Head : Tail;
  }
  auto [Head, Tail] =
      Name.empty() ? StringRef(E.Event).rsplit('.') : Name.rsplit("::");
  return Tail.empty() ? Head : Tail;
}

/// Whether two last name components are alike enough for a rename within a
/// file: at most half of the longer one edited (decode_jpeg and
/// decode_jpegs, not legacy and sharpen).
bool similarNames(const CatalogEvent &Old, const CatalogEvent &New) {
  std::string From = lastName(Old).lower(), To = lastName(New).lower();
  return StringRef(From).edit_distance(To) <=
         std::max(From.size(), To.size()) / 2;
}

/// What a criterion compares, beyond the rule and the kind every one
/// compares; nullopt when \p E does not say (no name, no file).
std::optional<std::string> criterionKey(RenameMatch M, const CatalogEvent &E) {
  switch (M) {
  case RenameMatch::Alias:
    break;
  case RenameMatch::SameName:
    if (E.Name.empty())
      return std::nullopt;
    return E.Name;
  case RenameMatch::SameLine:
    if (E.File.empty() || E.Line == 0)
      return std::nullopt;
    return E.File + ":" + std::to_string(E.Line);
  case RenameMatch::OnlyInFile:
    if (E.File.empty())
      return std::nullopt;
    return E.File;
  case RenameMatch::SameLastName:
    return lastName(E).str();
  }
  return std::nullopt;
}

/// "file:line".
std::string place(const CatalogEvent &E) {
  return E.File + ":" + std::to_string(E.Line);
}

/// How a pair matched by \p M was matched, in words.
std::string howMatched(RenameMatch M, const CatalogEvent &Old,
                       const CatalogEvent &New) {
  std::string Moved = Old.File == New.File ? "" : ", moved from " + place(Old);
  switch (M) {
  case RenameMatch::Alias:
    return "alias declared";
  case RenameMatch::SameName:
    return "same rule, same name '" + New.Name + "'" + Moved;
  case RenameMatch::SameLine:
    return "same rule, same file and line";
  case RenameMatch::OnlyInFile:
    return "same rule, same file, the only pair there, similar names (was "
           "line " +
           std::to_string(Old.Line) + ")";
  case RenameMatch::SameLastName:
    return "same rule, same last name component '" + lastName(New).str() + "'" +
           Moved;
  }
  llvm_unreachable("unknown RenameMatch");
}

/// What the candidates of an ambiguous criterion share, in words.
std::string sharedBy(RenameMatch M, const CatalogEvent &E) {
  std::string Rule = "rule '" + E.Rule + "', " + E.Kind;
  switch (M) {
  case RenameMatch::Alias:
    break;
  case RenameMatch::SameName:
    return Rule + " '" + E.Name + "'";
  case RenameMatch::SameLine:
    return Rule + " at " + place(E);
  case RenameMatch::OnlyInFile:
    return Rule + " in " + E.File;
  case RenameMatch::SameLastName:
    return Rule + " named '" + lastName(E).str() + "'";
  }
  return Rule;
}

std::string quotedList(const std::vector<std::string> &Events) {
  std::string Text;
  for (const std::string &E : Events)
    Text += (Text.empty() ? "'" : ", '") + E + "'";
  return Text;
}

/// One rename criterion's candidates that are not one to one.
struct Ambiguity {
  RenameMatch Match;
  CatalogEvent Example;
  std::vector<std::string> Old, New;
};

} // namespace

namespace {

/// The state of one diff: the events of each side, those of one side only
/// (the candidates of renames) and the renames found so far.
class RenameFinder {
public:
  RenameFinder(ArrayRef<CatalogEvent> Old, ArrayRef<CatalogEvent> New)
      : OldEvents(byEvent(Old)), NewEvents(byEvent(New)) {
    for (const auto &[Event, Row] : OldEvents) {
      auto Now = NewEvents.find(Event);
      if (Now == NewEvents.end()) {
        Removed.insert(Event);
        continue;
      }
      EventDiff Same;
      Same.OldEvent = Same.NewEvent = Event;
      Same.Old = Row;
      Same.New = Now->second;
      Unchanged.push_back(std::move(Same));
    }
    for (const auto &Entry : NewEvents)
      if (!OldEvents.count(Entry.first))
        Added.insert(Entry.first);
  }

  /// Declared aliases first: many old events may map to one new one, which
  /// may also be unchanged.
  void matchAliases(const AliasLookup &Aliases) {
    for (auto It = Removed.begin(); It != Removed.end();) {
      std::optional<std::string> To = Aliases(*It);
      if (!To || *To == *It) {
        ++It;
        continue;
      }
      if (!NewEvents.count(*To)) {
        Diff.Notes.push_back("the aliases map '" + *It + "' to '" + *To +
                             "', which the current catalog does not place");
        ++It;
        continue;
      }
      rename(*It, *To, RenameMatch::Alias);
      Added.erase(*To);
      It = Removed.erase(It);
    }
  }

  /// One criterion over what is left: a pair is a rename when each is the
  /// only candidate of the other.
  void matchBy(RenameMatch M) {
    using Key = std::tuple<std::string, std::string, std::string>;
    std::map<Key, std::pair<std::vector<std::string>, std::vector<std::string>>>
        Candidates;
    for (const std::string &Event : Removed) {
      const CatalogEvent &E = OldEvents.at(Event);
      if (std::optional<std::string> K = criterionKey(M, E))
        Candidates[{E.Rule, E.Kind, *K}].first.push_back(Event);
    }
    for (const std::string &Event : Added) {
      const CatalogEvent &E = NewEvents.at(Event);
      if (std::optional<std::string> K = criterionKey(M, E))
        Candidates[{E.Rule, E.Kind, *K}].second.push_back(Event);
    }
    for (const auto &[K, Sides] : Candidates) {
      const auto &[From, To] = Sides;
      if (From.empty() || To.empty())
        continue;
      if (From.size() > 1 || To.size() > 1) {
        Ambiguous.push_back({M, OldEvents.at(From.front()), From, To});
        continue;
      }
      if (M == RenameMatch::OnlyInFile &&
          !similarNames(OldEvents.at(From.front()), NewEvents.at(To.front())))
        continue;
      rename(From.front(), To.front(), M);
      Removed.erase(From.front());
      Added.erase(To.front());
    }
  }

  /// The diff: renames, removals, additions, then the unchanged events,
  /// with a note for each ambiguity whose candidates are still left.
  CatalogDiff take() && {
    noteAmbiguities();
    llvm::sort(Renamed, [](const EventDiff &L, const EventDiff &R) {
      return L.OldEvent < R.OldEvent;
    });
    Diff.Events = std::move(Renamed);
    // An event of one side: its name and row on that side alone.
    for (auto [Change, Events, Side, Event, Row] :
         {std::tuple(EventChange::Removed, &Removed, &OldEvents,
                     &EventDiff::OldEvent, &EventDiff::Old),
          std::tuple(EventChange::Added, &Added, &NewEvents,
                     &EventDiff::NewEvent, &EventDiff::New)})
      for (const std::string &Name : *Events) {
        EventDiff One;
        One.Change = Change;
        One.*Event = Name;
        One.*Row = Side->at(Name);
        Diff.Events.push_back(std::move(One));
      }
    Diff.Events.insert(Diff.Events.end(),
                       std::make_move_iterator(Unchanged.begin()),
                       std::make_move_iterator(Unchanged.end()));
    return std::move(Diff);
  }

private:
  void rename(const std::string &From, const std::string &To, RenameMatch M) {
    EventDiff R;
    R.Change = EventChange::Renamed;
    R.OldEvent = From;
    R.NewEvent = To;
    R.Old = OldEvents.at(From);
    R.New = NewEvents.at(To);
    R.Match = M;
    R.How = howMatched(M, R.Old, R.New);
    Renamed.push_back(std::move(R));
  }

  void noteAmbiguities() {
    std::set<std::pair<std::vector<std::string>, std::vector<std::string>>>
        Noted;
    for (Ambiguity &A : Ambiguous) {
      erase_if(A.Old, [&](const std::string &E) { return !Removed.count(E); });
      erase_if(A.New, [&](const std::string &E) { return !Added.count(E); });
      if (A.Old.empty() || A.New.empty() ||
          !Noted.insert({A.Old, A.New}).second)
        continue;
      Diff.Notes.push_back("not matched as renames, ambiguous (" +
                           sharedBy(A.Match, A.Example) + "): removed " +
                           quotedList(A.Old) + ", added " + quotedList(A.New));
    }
  }

  std::map<std::string, CatalogEvent> OldEvents, NewEvents;
  std::set<std::string> Removed, Added;
  std::vector<EventDiff> Renamed, Unchanged;
  std::vector<Ambiguity> Ambiguous;
  CatalogDiff Diff;
};

} // namespace

CatalogDiff diffCatalogs(ArrayRef<CatalogEvent> Old, ArrayRef<CatalogEvent> New,
                         const AliasLookup &Aliases) {
  RenameFinder Finder(Old, New);
  if (Aliases)
    Finder.matchAliases(Aliases);
  for (RenameMatch M : {RenameMatch::SameName, RenameMatch::SameLine,
                        RenameMatch::OnlyInFile, RenameMatch::SameLastName})
    Finder.matchBy(M);
  return std::move(Finder).take();
}

} // namespace apistamp
