//===- LogCounts.cpp - What the threads reading logs count ----------------===//

#include "LogCounts.h"
#include "llvm/ADT/STLExtras.h"

using namespace llvm;

namespace apistamp {

UsageCounts countKeys(const CounterIds &Ids, ArrayRef<DistinctKeys *> Keys,
                      unsigned Threads) {
  UsageCounts Counts;
  const std::vector<CounterIds::Counter> &Counters = Ids.counters();
  std::vector<uint64_t> Distinct =
      DistinctKeys::countDistinct(Keys, Counters.size(), Threads);
  for (size_t Id = 0; Id < Counters.size(); ++Id) {
    const CounterIds::Counter &C = Counters[Id];
    EventCounts &Event = Counts.Events[C.Event.str()];
    if (!C.Day.empty())
      Event.JobsByDay.push_back({C.Day, Distinct[Id]});
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
  UsageCounts Counts = countKeys(Ids, Keys, unsigned(Threads.size()));
  addInputs(Counts, Threads);
  const std::vector<CounterIds::Counter> &Counters = Ids.counters();
  for (const std::unique_ptr<ThreadCounts> &T : Threads)
    for (auto &Entry : T->Events) {
      const LocalEvent &Local = Entry.second;
      EventCounts &Event = Counts.Events[Counters[Local.Base].Event.str()];
      widenSeen(Event.FirstSeen, Event.LastSeen, Local.FirstSeen,
                Local.LastSeen);
    }
  return Counts;
}

} // namespace apistamp
