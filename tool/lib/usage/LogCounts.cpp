//===- LogCounts.cpp - What the threads reading logs count ----------------===//

#include "LogCounts.h"
#include "llvm/ADT/STLExtras.h"

using namespace llvm;

namespace apistamp {

UsageCounts countKeys(const CounterIds &Ids, ArrayRef<DistinctKeys *> Keys,
                      unsigned Threads, UsageCounts Counts) {
  const std::vector<CounterIds::Counter> &Counters = Ids.counters();
  std::vector<uint64_t> Distinct =
      DistinctKeys::countDistinct(Keys, Counters.size(), Threads);
  for (size_t Id = 0; Id < Counters.size(); ++Id) {
    const CounterIds::Counter &C = Counters[Id];
    if (C.Event.empty()) { // Every event's: only its jobs are counted.
      if (C.Kind == JobsCounter)
        Counts.Jobs = Distinct[Id];
      continue;
    }
    EventCounts &Event = Counts.Events[C.Event.str()];
    if (!C.day().empty())
      Event.JobsByDay.push_back({C.day().str(), Distinct[Id]});
    else if (C.Kind == JobsCounter)
      Event.Jobs = Distinct[Id];
    else if (C.Kind == ProcessesCounter)
      Event.Processes = Distinct[Id];
    else
      Event.Hosts = Distinct[Id];
  }
  for (auto &[Name, Event] : Counts.Events)
    llvm::sort(Event.JobsByDay);
  return Counts;
}

void addInputs(UsageCounts &Into,
               ArrayRef<std::unique_ptr<ThreadCounts>> Threads) {
  for (const std::unique_ptr<ThreadCounts> &T : Threads) {
    Into.Files += T->Files;
    Into.Lines += T->Lines;
    Into.EventLines += T->EventLines;
    Into.Malformed += T->Malformed;
    Into.OutsideWindow += T->OutsideWindow;
  }
}

void widenSeen(std::string &FirstSeen, std::string &LastSeen,
               const std::string &First, const std::string &Last) {
  if (FirstSeen.empty() || First < FirstSeen)
    FirstSeen = First;
  if (Last > LastSeen)
    LastSeen = Last;
}

UsageCounts collect(const CounterIds &Ids,
                    ArrayRef<std::unique_ptr<ThreadCounts>> Threads) {
  std::vector<DistinctKeys *> Keys;
  for (const std::unique_ptr<ThreadCounts> &T : Threads)
    Keys.push_back(&T->Keys);
  // The times first, each thread's event dropped once taken: the threads'
  // events and the counts never both hold every event.
  UsageCounts Seen;
  const std::vector<CounterIds::Counter> &Counters = Ids.counters();
  for (const std::unique_ptr<ThreadCounts> &T : Threads) {
    T->forgetRecentEvents();
    for (auto It = T->Events.begin(), End = T->Events.end(); It != End;) {
      const LocalEvent &Local = It->second;
      EventCounts &Event = Seen.Events[Counters[Local.Base].Event.str()];
      widenSeen(Event.FirstSeen, Event.LastSeen, Local.FirstSeen,
                Local.LastSeen);
      T->Events.erase(It++);
    }
  }
  UsageCounts Counts =
      countKeys(Ids, Keys, unsigned(Threads.size()), std::move(Seen));
  addInputs(Counts, Threads);
  return Counts;
}

} // namespace apistamp
