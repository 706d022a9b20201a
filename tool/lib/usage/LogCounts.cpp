//===- LogCounts.cpp - What the threads reading logs count ----------------===//

#include "LogCounts.h"
#include "llvm/ADT/STLExtras.h"

using namespace llvm;

namespace apistamp {

UsageCounts collect(const CounterIds &Ids,
                    ArrayRef<std::unique_ptr<ThreadCounts>> Threads) {
  UsageCounts Counts;
  std::vector<DistinctKeys *> Keys;
  for (const std::unique_ptr<ThreadCounts> &T : Threads) {
    Keys.push_back(&T->Keys);
    Counts.Files += T->Files;
    Counts.Lines += T->Lines;
    Counts.EventLines += T->EventLines;
    Counts.Malformed += T->Malformed;
    Counts.OutsideWindow += T->OutsideWindow;
  }
  const std::vector<CounterIds::Counter> &Counters = Ids.counters();
  std::vector<uint64_t> Distinct = DistinctKeys::countDistinct(
      Keys, Counters.size(), unsigned(Threads.size()));
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
  for (const std::unique_ptr<ThreadCounts> &T : Threads)
    for (auto &Entry : T->Events) {
      const LocalEvent &Local = Entry.second;
      EventCounts &Event = Counts.Events[Counters[Local.Base].Event.str()];
      if (Event.FirstSeen.empty() || Local.FirstSeen < Event.FirstSeen)
        Event.FirstSeen = Local.FirstSeen;
      if (Local.LastSeen > Event.LastSeen)
        Event.LastSeen = Local.LastSeen;
    }
  return Counts;
}

} // namespace apistamp
