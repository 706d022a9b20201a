//===- UsagePartial.cpp - The exact distinct keys of a set of logs --------===//
//
// The file: a text line "apistamp-partial v1", then varints (LEB128) and
// strings (a varint length, then the bytes): the settings, the inputs, the
// events with their keys (ascending, each as the difference to the one
// before, less one), then the xxh3 of every byte before it (8 bytes, little
// endian). The reader checks the checksum first and every count against
// the bytes left, so that no byte, however hostile, makes it allocate more
// than the file's size or read past its end.
//
//===----------------------------------------------------------------------===//

#include "UsagePartial.h"
#include "../Suggestions.h"
#include "UsageReport.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/xxhash.h"

using namespace llvm;

namespace apistamp {

namespace {

/// The first line of a partial, but for its version's digits and newline.
constexpr StringRef Magic = "apistamp-partial v";
/// The checksum that ends a partial.
constexpr size_t ChecksumBytes = 8;
/// The shift from a DistinctKeys key to a partial's key.
constexpr unsigned KeyShift = 64 - DistinctKeys::KeptKeyBits;
/// The largest key a partial holds.
constexpr uint64_t MaxKey = (uint64_t(1) << DistinctKeys::KeptKeyBits) - 1;

/// Appends the file format's values to a string.
class Writer {
public:
  std::string Out;

  void varint(uint64_t V) {
    while (V >= 0x80) {
      Out.push_back(char(uint8_t(V) | 0x80));
      V >>= 7;
    }
    Out.push_back(char(V));
  }
  void string(StringRef S) {
    varint(S.size());
    Out.append(S.data(), S.size());
  }
  void keys(const PartialKeys &Keys) {
    varint(Keys.size());
    uint64_t Previous = 0;
    for (size_t I = 0; I < Keys.size(); ++I) {
      varint(I == 0 ? Keys[I] : Keys[I] - Previous - 1);
      Previous = Keys[I];
    }
  }
  void firstProblems(ArrayRef<std::pair<uint64_t, std::string>> First) {
    varint(First.size());
    for (const auto &[Line, Why] : First) {
      varint(Line);
      string(Why);
    }
  }
};

/// Reads the file format's values, each checked against the bytes left;
/// the first failure is kept and every read after it fails.
class Reader {
public:
  Reader(StringRef Bytes) : At(Bytes.bytes_begin()), End(Bytes.bytes_end()) {}

  /// What was wrong first, or "".
  std::string Problem;

  bool fail(const Twine &Why) {
    if (Problem.empty())
      Problem = Why.str();
    At = End;
    return false;
  }
  size_t left() const { return size_t(End - At); }
  bool done() const { return At == End && Problem.empty(); }

  bool varint(uint64_t &V, const char *What) {
    V = 0;
    for (unsigned Shift = 0; Shift < 64; Shift += 7) {
      if (At == End)
        return fail(Twine("it ends inside ") + What);
      uint8_t Byte = *At++;
      if (Shift == 63 && Byte > 1)
        return fail(Twine(What) + " does not fit in 64 bits");
      V |= uint64_t(Byte & 0x7f) << Shift;
      if (!(Byte & 0x80))
        return true;
    }
    return fail(Twine(What) + " does not fit in 64 bits");
  }
  /// A count of items that take at least \p MinBytes each.
  bool count(uint64_t &N, const char *What, size_t MinBytes = 1) {
    if (!varint(N, What))
      return false;
    if (N > left() / MinBytes)
      return fail(Twine(What) + " (" + Twine(N) +
                  ") is more than the file's bytes can hold");
    return true;
  }
  bool flag(bool &B, const char *What) {
    uint64_t V;
    if (!varint(V, What))
      return false;
    if (V > 1)
      return fail(Twine(What) + " is neither 0 nor 1");
    B = V;
    return true;
  }
  bool string(std::string &S, const char *What) {
    uint64_t N;
    if (!varint(N, What))
      return false;
    if (N > left())
      return fail(Twine("it ends inside ") + What);
    S.assign(reinterpret_cast<const char *>(At), size_t(N));
    At += N;
    return true;
  }
  bool keys(PartialKeys &Keys, const char *What) {
    uint64_t N;
    if (!count(N, What))
      return false;
    Keys.clear();
    Keys.reserve(size_t(N));
    uint64_t Previous = 0;
    for (uint64_t I = 0; I < N; ++I) {
      uint64_t Delta;
      if (!varint(Delta, What))
        return false;
      uint64_t Key = I == 0 ? Delta : Previous + Delta + 1;
      if (Key > MaxKey || (I > 0 && (Delta > MaxKey || Key <= Previous)))
        return fail(Twine(What) + ": a key past " +
                    Twine(DistinctKeys::KeptKeyBits) + " bits");
      Keys.push_back(Key);
      Previous = Key;
    }
    return true;
  }
  bool firstProblems(std::vector<std::pair<uint64_t, std::string>> &First) {
    uint64_t N;
    if (!count(N, "a count of first problems", 2))
      return false;
    if (N > FirstProblemsKept)
      return fail("more first problems than a report keeps");
    First.resize(size_t(N));
    for (auto &[Line, Why] : First)
      if (!varint(Line, "a line number") || !string(Why, "a problem"))
        return false;
    return true;
  }

private:
  const uint8_t *At, *End;
};

void writeSettings(Writer &W, const PartialSettings &S) {
  W.string(S.Since);
  W.string(S.Until);
  W.string(S.StderrJobId);
  W.string(S.StderrJobFrom);
  W.varint(S.Aliases.size());
  for (const auto &[Old, Current] : S.Aliases) {
    W.string(Old);
    W.string(Current);
  }
  W.varint(DistinctKeys::KeptKeyBits);
}

bool readSettings(Reader &R, PartialSettings &S) {
  uint64_t Aliases, Bits;
  if (!R.string(S.Since, "--since") || !R.string(S.Until, "--until") ||
      !R.string(S.StderrJobId, "--stderr-job-id") ||
      !R.string(S.StderrJobFrom, "--stderr-job-from") ||
      !R.count(Aliases, "the count of aliases", 2))
    return false;
  S.Aliases.resize(size_t(Aliases));
  for (auto &[Old, Current] : S.Aliases)
    if (!R.string(Old, "an alias") || !R.string(Current, "an alias"))
      return false;
  if (!R.varint(Bits, "the bits of a key"))
    return false;
  if (Bits != DistinctKeys::KeptKeyBits)
    return R.fail("its keys keep " + Twine(Bits) + " bits, this apistamp's " +
                  Twine(DistinctKeys::KeptKeyBits));
  return true;
}

void writeInputs(Writer &W, const UsageCounts &In) {
  for (uint64_t V : {uint64_t(In.Files), In.Lines, In.EventLines, In.Malformed,
                     In.OutsideWindow})
    W.varint(V);
  W.varint(In.Problems.size());
  for (const LogFileProblems &P : In.Problems) {
    W.string(P.File);
    W.varint(P.Unreadable);
    W.string(P.Error);
    W.varint(P.Truncated);
    W.varint(P.Malformed);
    W.firstProblems(P.First);
  }
  W.varint(In.StderrLogs.size());
  for (const StderrLog &S : In.StderrLogs) {
    W.string(S.File);
    W.string(S.Time);
    W.varint(S.Job.has_value());
    W.string(S.Job.value_or(""));
    W.varint(S.NameUnmatched);
    W.varint(S.Events);
    W.varint(S.Ignored);
    W.varint(S.Malformed);
    W.firstProblems(S.First);
  }
}

bool readInputs(Reader &R, UsageCounts &In) {
  uint64_t Files;
  if (!R.varint(Files, "the count of files"))
    return false;
  if (Files > UINT32_MAX)
    return R.fail("the count of files does not fit in 32 bits");
  In.Files = unsigned(Files);
  uint64_t Problems, Stderr;
  if (!R.varint(In.Lines, "the count of lines") ||
      !R.varint(In.EventLines, "the count of event lines") ||
      !R.varint(In.Malformed, "the count of malformed lines") ||
      !R.varint(In.OutsideWindow, "the count of lines outside the window") ||
      !R.count(Problems, "the count of files with problems", 6))
    return false;
  In.Problems.resize(size_t(Problems));
  for (LogFileProblems &P : In.Problems)
    if (!R.string(P.File, "a file's name") ||
        !R.flag(P.Unreadable, "'unreadable'") ||
        !R.string(P.Error, "a file's error") ||
        !R.flag(P.Truncated, "'truncated'") ||
        !R.varint(P.Malformed, "a count of malformed lines") ||
        !R.firstProblems(P.First))
      return false;
  if (!R.count(Stderr, "the count of stderr logs", 9))
    return false;
  In.StderrLogs.resize(size_t(Stderr));
  for (StderrLog &S : In.StderrLogs) {
    bool HasJob;
    std::string Job;
    if (!R.string(S.File, "a stderr log's name") ||
        !R.string(S.Time, "a stderr log's time") ||
        !R.flag(HasJob, "'has job'") || !R.string(Job, "a stderr log's job") ||
        !R.flag(S.NameUnmatched, "'name unmatched'") ||
        !R.varint(S.Events, "a count of events") ||
        !R.varint(S.Ignored, "a count of ignored lines") ||
        !R.varint(S.Malformed, "a count of malformed lines") ||
        !R.firstProblems(S.First))
      return false;
    if (HasJob)
      S.Job = std::move(Job);
  }
  return true;
}

void writeEvents(Writer &W, const std::map<std::string, PartialEvent> &Events) {
  W.varint(Events.size());
  for (const auto &[Name, E] : Events) {
    W.string(Name);
    W.string(E.FirstSeen);
    W.string(E.LastSeen);
    W.keys(E.Jobs);
    W.keys(E.Processes);
    W.keys(E.Hosts);
    W.varint(E.Days.size());
    for (const auto &[Day, Keys] : E.Days) {
      W.string(Day);
      W.keys(Keys);
    }
  }
}

bool readEvents(Reader &R, std::map<std::string, PartialEvent> &Events) {
  uint64_t N;
  if (!R.count(N, "the count of events", 7))
    return false;
  for (uint64_t I = 0; I < N; ++I) {
    std::string Name;
    if (!R.string(Name, "an event's name"))
      return false;
    // The first may be "", every event's together: the jobs that logged
    // anything, and nothing else (checked below).
    if (Name.empty() && I > 0)
      return R.fail("an event without a name");
    if (!Events.empty() && !(std::prev(Events.end())->first < Name))
      return R.fail("its events are not sorted by name");
    PartialEvent &E = Events[Name];
    uint64_t Days;
    if (!R.string(E.FirstSeen, "a time") || !R.string(E.LastSeen, "a time") ||
        !R.keys(E.Jobs, "an event's jobs") ||
        !R.keys(E.Processes, "an event's processes") ||
        !R.keys(E.Hosts, "an event's hosts") ||
        !R.count(Days, "the count of an event's days", 12))
      return false;
    if (Name.empty() && (!E.FirstSeen.empty() || !E.LastSeen.empty() ||
                         !E.Processes.empty() || !E.Hosts.empty() || Days))
      return R.fail("an event without a name");
    if (E.LastSeen < E.FirstSeen)
      return R.fail("event '" + printableLine(Name) +
                    "': its last time is before its first");
    E.Days.resize(size_t(Days));
    for (size_t D = 0; D < E.Days.size(); ++D) {
      auto &[Day, Keys] = E.Days[D];
      if (!R.string(Day, "a day") || !R.keys(Keys, "a day's jobs"))
        return false;
      std::optional<int64_t> Number = daysOf(Day);
      if (Day.size() != 10 || !Number || dayName(*Number) != Day)
        return R.fail("event '" + printableLine(Name) +
                      "': a day that is not YYYY-MM-DD: '" +
                      printableLine(Day) + "'");
      if (D > 0 && !(E.Days[D - 1].first < Day))
        return R.fail("event '" + printableLine(Name) +
                      "': its days are not sorted");
    }
  }
  return true;
}

/// The first setting in which \p A and \p B differ, as "--since '...'".
std::string firstDifference(const PartialSettings &A,
                            const PartialSettings &B) {
  auto Quote = [](StringRef S) { return "'" + printableLine(S) + "'"; };
  for (auto [Option, X, Y] :
       {std::tuple<StringRef, StringRef, StringRef>{"--since", A.Since,
                                                    B.Since},
        {"--until", A.Until, B.Until},
        {"--stderr-job-id", A.StderrJobId, B.StderrJobId},
        {"--stderr-job-from", A.StderrJobFrom, B.StderrJobFrom}})
    if (X != Y)
      return (Option + " " + Quote(X) + ", not " + Quote(Y)).str();
  return (Twine(A.Aliases.size()) + " aliases, not the same " +
          Twine(B.Aliases.size()) + " (the rules' 'aliases')")
      .str();
}

} // namespace

PartialSettings partialSettings(const LogWindow &Window, const StderrJobs &Jobs,
                                ArrayRef<EventAlias> Aliases) {
  PartialSettings S{Window.Since, Window.Until, Jobs.JobId, Jobs.JobFrom, {}};
  for (const EventAlias &A : Aliases)
    S.Aliases.push_back({A.From.pattern(), A.To});
  return S;
}

std::string serializePartial(const UsagePartial &Partial) {
  Writer W;
  W.Out = (Magic + Twine(PartialFormatVersion) + "\n").str();
  writeSettings(W, Partial.Settings);
  writeInputs(W, Partial.Inputs);
  writeEvents(W, Partial.Events);
  uint64_t Sum = xxh3_64bits(StringRef(W.Out));
  for (size_t I = 0; I < ChecksumBytes; ++I)
    W.Out.push_back(char(uint8_t(Sum >> (8 * I))));
  return std::move(W.Out);
}

Expected<UsagePartial> parsePartial(StringRef Bytes, StringRef Name) {
  auto Bad = [&](const Twine &Why) { return inputFileError(Name, Why); };
  if (!Bytes.starts_with(Magic))
    return Bad("not an apistamp partial (it does not start with '" + Magic +
               Twine(PartialFormatVersion) + "')");
  size_t Newline = Bytes.find('\n');
  StringRef Digits = Bytes.slice(Magic.size(), Newline);
  unsigned Version;
  if (Newline == StringRef::npos || Digits.size() > 9 ||
      Digits.getAsInteger(10, Version))
    return Bad("not an apistamp partial (a bad version line)");
  if (Version != PartialFormatVersion)
    return Bad("a partial of format version " + Twine(Version) +
               "; this apistamp reads version " + Twine(PartialFormatVersion) +
               ": emit it again with this apistamp");
  if (Bytes.size() < Newline + 1 + ChecksumBytes)
    return Bad("a truncated partial (it ends before its checksum)");
  StringRef Body = Bytes.drop_back(ChecksumBytes);
  uint64_t Sum = 0;
  for (size_t I = 0; I < ChecksumBytes; ++I)
    Sum |= uint64_t(uint8_t(Bytes[Body.size() + I])) << (8 * I);
  if (Sum != xxh3_64bits(Body))
    return Bad("a corrupt or truncated partial (its checksum does not "
               "match its bytes)");
  Reader R(Body.drop_front(Newline + 1));
  UsagePartial P;
  if (readSettings(R, P.Settings) && readInputs(R, P.Inputs) &&
      readEvents(R, P.Events) && !R.done())
    R.fail("bytes after its last event");
  if (!R.Problem.empty())
    return Bad("a corrupt partial: " + R.Problem);
  return P;
}

Expected<UsagePartial> readPartialFile(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFileOrSTDIN(
      Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!Buffer)
    return inputFileError(Path, "cannot read the partial: " +
                                    Buffer.getError().message());
  return parsePartial((*Buffer)->getBuffer(), Path);
}

namespace {

/// Every counter of \p Ids with its distinct keys in \p Keys, as events;
/// their times left empty.
std::map<std::string, PartialEvent>
eventsOfKeys(const CounterIds &Ids, ArrayRef<DistinctKeys *> Keys) {
  const std::vector<CounterIds::Counter> &Counters = Ids.counters();
  std::map<std::string, PartialEvent> Events;
  std::vector<PartialKeys *> Target(Counters.size());
  // Days first, in order, each event's vector reserved: their addresses
  // stay.
  std::vector<std::tuple<StringRef, StringRef, size_t>> Days;
  for (size_t Id = 0; Id < Counters.size(); ++Id) {
    const CounterIds::Counter &C = Counters[Id];
    PartialEvent &E = Events[C.Event.str()];
    if (!C.day().empty())
      Days.push_back({C.Event, C.day(), Id});
    else
      Target[Id] = C.Kind == JobsCounter        ? &E.Jobs
                   : C.Kind == ProcessesCounter ? &E.Processes
                                                : &E.Hosts;
  }
  llvm::sort(Days);
  std::map<std::string, size_t> Needed;
  for (const auto &[Event, Day, Id] : Days)
    ++Needed[Event.str()];
  for (auto &[Name, N] : Needed)
    Events[Name].Days.reserve(N);
  for (const auto &[Event, Day, Id] : Days) {
    auto &List = Events[Event.str()].Days;
    List.push_back({Day.str(), {}});
    Target[Id] = &List.back().second;
  }
  // Counted first, to hold each counter's keys in one allocation.
  std::vector<uint64_t> Sizes(Counters.size());
  DistinctKeys::forEachDistinct(
      Keys, [&](uint32_t Counter, uint64_t) { ++Sizes[Counter]; });
  for (size_t Id = 0; Id < Counters.size(); ++Id)
    Target[Id]->reserve(Sizes[Id]);
  DistinctKeys::forEachDistinct(Keys, [&](uint32_t Counter, uint64_t Key) {
    Target[Counter]->push_back(Key >> KeyShift);
  });
  for (PartialKeys *K : Target)
    llvm::sort(*K);
  return Events;
}

} // namespace

std::map<std::string, PartialEvent>
partialEventsOf(const CounterIds &Ids,
                ArrayRef<std::unique_ptr<ThreadCounts>> Threads) {
  std::vector<DistinctKeys *> Keys;
  for (const std::unique_ptr<ThreadCounts> &T : Threads)
    Keys.push_back(&T->Keys);
  std::map<std::string, PartialEvent> Events = eventsOfKeys(Ids, Keys);
  const std::vector<CounterIds::Counter> &Counters = Ids.counters();
  for (const std::unique_ptr<ThreadCounts> &T : Threads)
    for (auto &Entry : T->Events) {
      const LocalEvent &Local = Entry.second;
      PartialEvent &E = Events[Counters[Local.Base].Event.str()];
      widenSeen(E.FirstSeen, E.LastSeen, Local.FirstSeen, Local.LastSeen);
    }
  return Events;
}

struct PartialMerger::State {
  CounterIds Ids;
  DistinctKeys Keys{KeyBudget};
  PartialSettings Settings;
  std::string FirstName;
  UsageCounts Inputs;
  /// First and last seen, by event.
  std::map<std::string, std::pair<std::string, std::string>> Seen;
};

PartialMerger::PartialMerger() : S(std::make_unique<State>()) {}
PartialMerger::~PartialMerger() = default;

Error PartialMerger::add(UsagePartial &&Partial, StringRef Name) {
  if (Added == 0) {
    S->Settings = Partial.Settings;
    S->FirstName = Name.str();
  } else if (Partial.Settings != S->Settings) {
    return inputFileError(
        Name, "counted with " + firstDifference(Partial.Settings, S->Settings) +
                  " as '" + printableLine(S->FirstName) +
                  "' was: partials merge only when counted with the same "
                  "--since, --until, --stderr-job-id, --stderr-job-from and "
                  "aliases");
  }
  ++Added;
  UsageCounts &In = S->Inputs;
  In.Files += Partial.Inputs.Files;
  In.Lines += Partial.Inputs.Lines;
  In.EventLines += Partial.Inputs.EventLines;
  In.Malformed += Partial.Inputs.Malformed;
  In.OutsideWindow += Partial.Inputs.OutsideWindow;
  for (LogFileProblems &P : Partial.Inputs.Problems)
    In.Problems.push_back(std::move(P));
  for (StderrLog &L : Partial.Inputs.StderrLogs)
    In.StderrLogs.push_back(std::move(L));
  for (auto &[Event, E] : Partial.Events) {
    uint32_t Base = S->Ids.event(Event);
    for (auto [Kind, Keys] :
         {std::pair<uint32_t, const PartialKeys *>{JobsCounter, &E.Jobs},
          {ProcessesCounter, &E.Processes},
          {HostsCounter, &E.Hosts}})
      for (uint64_t Key : *Keys)
        S->Keys.add(Base + Kind, Key << KeyShift);
    for (const auto &[Day, Keys] : E.Days) {
      uint32_t Counter = S->Ids.day(Base, Day);
      for (uint64_t Key : Keys)
        S->Keys.add(Counter, Key << KeyShift);
    }
    auto &[First, Last] = S->Seen[Event];
    widenSeen(First, Last, E.FirstSeen, E.LastSeen);
    // Dropped as it is added: the merge holds one partial's keys at most.
    E = PartialEvent();
  }
  return Error::success();
}

UsageCounts PartialMerger::counts(unsigned Threads) {
  S->Keys.finish();
  DistinctKeys *Keys = &S->Keys;
  UsageCounts Counts = countKeys(S->Ids, Keys, std::max(1u, Threads));
  for (auto &[Name, Event] : Counts.Events) {
    const auto &[First, Last] = S->Seen[Name];
    Event.FirstSeen = First;
    Event.LastSeen = Last;
  }
  UsageCounts &In = S->Inputs;
  Counts.Files = In.Files;
  Counts.Lines = In.Lines;
  Counts.EventLines = In.EventLines;
  Counts.Malformed = In.Malformed;
  Counts.OutsideWindow = In.OutsideWindow;
  Counts.Problems = std::move(In.Problems);
  Counts.StderrLogs = std::move(In.StderrLogs);
  return Counts;
}

UsagePartial PartialMerger::partial() {
  S->Keys.finish();
  UsagePartial P;
  P.Settings = S->Settings;
  DistinctKeys *Keys = &S->Keys;
  P.Events = eventsOfKeys(S->Ids, Keys);
  for (auto &[Name, Event] : P.Events) {
    const auto &[First, Last] = S->Seen[Name];
    Event.FirstSeen = First;
    Event.LastSeen = Last;
  }
  P.Inputs = std::move(S->Inputs);
  return P;
}

} // namespace apistamp
