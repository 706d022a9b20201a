// Synthetic API usage logs for the `apistamp report` benchmark.
//
// Writes lines shaped exactly as runtime/sinks.cpp writes them, in the same
// field order and time format:
//   {"event":"...","time":"2026-11-23T01:02:03.123456Z","pid":N,
//    "host":"...","exe":"...","rank":N|null,"job_id":"..."|null}
// and the catalog (`apistamp catalog --format=json` shape) that places most
// of the events, plus some that no log uses.
//
// The model: JOBS jobs over DAYS days, each running 1-6 hours; a job uses
// 10-60 of the EVENTS event names (Zipf-like popularity: a few are used by
// most jobs, many by few) and runs as many processes (8 to a host, out of a
// pool of 2000 hosts) as the byte target needs; each process logs each of a
// share of the job's events once, as the runtime does (once per name per
// process). One job in ten has no scheduler (job_id null: each process is
// its own job). A job's lines go, in time order, to file (job % FILES), so
// files are independent and can be read in parallel. Deterministic for a
// given seed.
//
// Two variants of the same lines (the same seed gives the same events,
// times, processes and jobs):
//   --shape collector: as a log collector (Fluent Bit, Vector, Logstash)
//     forwards them: other key order, a space after each ':' and ',', and
//     fields of its own ("@timestamp", a nested "kubernetes" object,
//     "stream"), e.g.
//       {"@timestamp": "...", "kubernetes": {"namespace": "ml", "pod":
//        "train-4000007-3", "labels": {"team": "vision"}}, "stream":
//        "stderr", "job_id": "...", "host": "...", "event": "...",
//        "time": "...", "pid": N, "exe": "...", "rank": N}
//   --shape reordered: the collector's key order and spaces, without its
//     fields ("job_id", "host", "event", "time", "pid", "exe", "rank");
//   --shape timestamp: reordered, and the collector's "@timestamp" and
//     "stream" first (no nested object): with reordered, these show where
//     the collector's cost comes from;
//   --order shuffled: every line in a random file at a random place, so
//     that nothing of a job's ranks or a process's lines is together (a
//     collector merging many streams); the generator's order otherwise.
//
//   c++ -O2 -std=c++17 -o gen-logs gen-logs.cpp
//   gen-logs OUT_DIR [--bytes N] [--files N] [--events N] [--jobs N]
//            [--days N] [--seed N]
//            [--shape runtime|collector|reordered|timestamp]
//            [--order generator|shuffled]
//
// Prints the number of lines and bytes written.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Rng {
  uint64_t State;
  uint64_t next() { // splitmix64
    uint64_t Z = (State += 0x9e3779b97f4a7c15ULL);
    Z = (Z ^ (Z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    Z = (Z ^ (Z >> 27)) * 0x94d049bb133111ebULL;
    return Z ^ (Z >> 31);
  }
  uint64_t below(uint64_t N) { return next() % N; }
  double unit() { return (next() >> 11) * (1.0 / 9007199254740992.0); }
};

const char *Namespaces[] = {"torch",  "torchvision", "c10",    "at",
                            "caffe2", "torchaudio",  "libmlx", "fbgemm"};
const char *Modules[] = {"ops",      "io",     "nn",      "transforms",
                         "models",   "tensor", "cuda",    "distributed",
                         "optim",    "utils",  "storage", "autograd",
                         "quantize", "jit",    "data",    "sparse"};
const char *Verbs[] = {
    "nms",         "roi_align",   "deform_conv2d", "read_image",
    "decode_jpeg", "resize",      "normalize",     "to",
    "empty",       "zeros",       "copy_",         "view",
    "reshape",     "matmul",      "conv2d",        "batch_norm",
    "allreduce",   "broadcast",   "step",          "load",
    "save",        "pin_memory",  "record_stream", "sum",
    "mean",        "softmax",     "dropout",       "embedding",
    "grid_sample", "interpolate", "pad",           "cat",
    "stack",       "split",       "chunk",         "index_select",
    "scatter_add", "gather",      "topk",          "sort"};

std::string eventName(unsigned I) {
  const unsigned NN = sizeof(Namespaces) / sizeof(*Namespaces);
  const unsigned NM = sizeof(Modules) / sizeof(*Modules);
  const unsigned NV = sizeof(Verbs) / sizeof(*Verbs);
  std::string Name = std::string(Namespaces[I % NN]) + "." +
                     Modules[(I / NN) % NM] + "." + Verbs[(I * 7 + I / 3) % NV];
  // Make every name distinct: an overload-style suffix where needed.
  return Name + "." + std::to_string(I);
}

void appendTime(std::string &Out, int64_t Micros) {
  // 2026-11-01T00:00:00Z plus Micros.
  int64_t Seconds = Micros / 1000000;
  int64_t Frac = Micros % 1000000;
  int64_t Day = Seconds / 86400, Rest = Seconds % 86400;
  // November 2026 has 30 days; December follows.
  int Month = 11, Dom = int(Day) + 1;
  if (Dom > 30) {
    Month = 12;
    Dom -= 30;
  }
  char Buffer[64];
  std::snprintf(
      Buffer, sizeof(Buffer), "\"2026-%02d-%02dT%02d:%02d:%02d.%06ldZ\"", Month,
      Dom, int(Rest / 3600), int(Rest / 60 % 60), int(Rest % 60), long(Frac));
  Out += Buffer;
}

struct Process {
  int Pid;
  unsigned Host, Exe;
  int Rank; // -1: null
};

} // namespace

int main(int Argc, char **Argv) {
  if (Argc < 2) {
    std::fprintf(stderr, "usage: gen-logs OUT_DIR [--bytes N] [--files N] "
                         "[--events N] [--jobs N] [--days N] [--seed N] "
                         "[--shape S] [--order O]\n");
    return 2;
  }
  std::string Dir = Argv[1];
  uint64_t Bytes = 1100ull << 20;
  unsigned Files = 8, Events = 500, Jobs = 50000, Days = 14, Hosts = 2000;
  uint64_t Seed = 1;
  // The collector's key order and spaces; its "@timestamp" and "stream";
  // its nested "kubernetes" object.
  bool Reordered = false, Stamped = false, Nested = false, Shuffled = false;
  for (int I = 2; I + 1 < Argc; I += 2) {
    std::string Flag = Argv[I];
    uint64_t V = std::strtoull(Argv[I + 1], nullptr, 10);
    std::string Value = Argv[I + 1];
    if (Flag == "--shape" && (Value == "runtime" || Value == "collector" ||
                              Value == "reordered" || Value == "timestamp")) {
      Reordered = Value != "runtime";
      Stamped = Value == "collector" || Value == "timestamp";
      Nested = Value == "collector";
    } else if (Flag == "--order" &&
               (Value == "generator" || Value == "shuffled"))
      Shuffled = Value == "shuffled";
    else if (Flag == "--bytes")
      Bytes = V;
    else if (Flag == "--files")
      Files = unsigned(V);
    else if (Flag == "--events")
      Events = unsigned(V);
    else if (Flag == "--jobs")
      Jobs = unsigned(V);
    else if (Flag == "--days")
      Days = unsigned(V);
    else if (Flag == "--seed")
      Seed = V;
    else {
      std::fprintf(stderr, "gen-logs: unknown flag %s\n", Flag.c_str());
      return 2;
    }
  }
  Rng R{Seed};
  std::vector<std::string> Names;
  for (unsigned I = 0; I < Events; ++I)
    Names.push_back(eventName(I));
  // Zipf-like popularity (s = 1): a cumulative table to draw from.
  std::vector<double> Cumulative;
  double Sum = 0;
  for (unsigned I = 0; I < Events; ++I)
    Cumulative.push_back(Sum += 1.0 / (I + 1));
  auto DrawEvent = [&] {
    double X = R.unit() * Sum;
    return unsigned(std::lower_bound(Cumulative.begin(), Cumulative.end(), X) -
                    Cumulative.begin());
  };
  const char *Exes[] = {"/opt/conda/envs/train/bin/python3.11",
                        "/usr/bin/python3", "/home/ci/venv/bin/python",
                        "/opt/app/bin/inference-server",
                        "/scratch/build/bin/benchmark_runner"};
  // Events are shuffled onto the Zipf ranks, so the popular ones are spread
  // over the names (and the catalog order).
  std::vector<unsigned> Rank(Events);
  for (unsigned I = 0; I < Events; ++I)
    Rank[I] = I;
  for (unsigned I = Events; I > 1; --I)
    std::swap(Rank[I - 1], Rank[R.below(I)]);

  std::vector<FILE *> Out;
  for (unsigned F = 0; F < Files; ++F) {
    char Name[64];
    std::snprintf(Name, sizeof(Name), "/usage-%02u.jsonl", F);
    FILE *File = std::fopen((Dir + Name).c_str(), "wb");
    if (!File) {
      std::perror((Dir + Name).c_str());
      return 1;
    }
    Out.push_back(File);
  }
  // Lines per job: the byte target over the jobs, about 195 bytes a line.
  const double LinesPerJob = double(Bytes) / 195.0 / Jobs;
  uint64_t Written = 0, Lines = 0;
  std::vector<std::string> Buffers(Files);
  std::string Line;
  std::vector<std::pair<int64_t, std::string>> JobLines;
  // --order shuffled: every file's lines, to shuffle at the end, with a
  // generator of their own (R makes the same lines in every order).
  std::vector<std::vector<std::string>> AllLines(Files);
  Rng Shuffler{Seed ^ 0x53485546464c4544ULL};
  for (unsigned J = 0; J < Jobs; ++J) {
    bool Scheduled = R.below(10) != 0;
    std::string JobId;
    if (Scheduled) {
      // Slurm job ids (numbers, as text) and torchelastic run ids.
      if (R.below(4))
        JobId = "\"" + std::to_string(4000000 + J * 7 + R.below(7)) + "\"";
      else {
        char Id[40];
        std::snprintf(Id, sizeof(Id), "\"%08llx-%04llx-run\"",
                      (unsigned long long)(R.next() & 0xffffffff),
                      (unsigned long long)(R.next() & 0xffff));
        JobId = Id;
      }
    }
    // The events this job uses (popular ones more often).
    std::vector<unsigned> Used;
    for (unsigned U = 10 + unsigned(R.below(50)); U > 0; --U) {
      unsigned E = Rank[DrawEvent()];
      if (std::find(Used.begin(), Used.end(), E) == Used.end())
        Used.push_back(E);
    }
    // The runtime logs each event name once per process: a job's lines are
    // its processes times the events each uses, so the number of processes
    // follows from the lines wanted.
    double Wanted = LinesPerJob * (0.25 + 1.5 * R.unit());
    unsigned NProcs = std::max(
        1u,
        std::min(256u, unsigned(std::lround(Wanted / (0.65 * Used.size())))));
    unsigned FirstHost = unsigned(R.below(Hosts));
    unsigned Exe = unsigned(R.below(sizeof(Exes) / sizeof(*Exes)));
    // Starting some time in the window, running 1-6 hours, ending in it.
    int64_t Start =
        int64_t(R.below(uint64_t(Days) * 86400 - 7 * 3600)) * 1000000 +
        int64_t(R.below(1000000));
    int64_t Duration = int64_t(3600 + R.below(5 * 3600)) * 1000000;
    JobLines.clear();
    for (unsigned P = 0; P < NProcs; ++P) {
      Process Proc{int(1000 + R.below(4000000)), (FirstHost + P / 8) % Hosts,
                   Exe, NProcs > 1 ? int(P) : -1};
      double Share = 0.3 + 0.7 * R.unit(); // of the job's events it uses
      int64_t ProcStart = Start + int64_t(R.below(60 * 1000000));
      for (unsigned E : Used) {
        if (R.unit() > Share)
          continue;
        // First use: mostly early in the run.
        double U = R.unit();
        int64_t Now = ProcStart + int64_t(U * U * U * double(Duration));
        Line.clear();
        if (Reordered) {
          std::string Time;
          appendTime(Time, Now);
          Line += "{";
          if (Stamped)
            Line += "\"@timestamp\": " + Time + ", ";
          if (Nested) {
            char Pod[128];
            std::snprintf(Pod, sizeof(Pod),
                          "\"kubernetes\": {\"namespace\": \"ml\", \"pod\": "
                          "\"train-%u-%u\", \"labels\": {\"team\": "
                          "\"vision\"}}, ",
                          J, P);
            Line += Pod;
          }
          if (Stamped)
            Line += "\"stream\": \"stderr\", ";
          Line += "\"job_id\": ";
          Line += Scheduled ? JobId : std::string("null");
          char Host[48];
          std::snprintf(Host, sizeof(Host),
                        ", \"host\": \"node%04u.cluster.example.org\"",
                        Proc.Host);
          Line += Host;
          Line += ", \"event\": \"";
          Line += Names[E];
          Line += "\", \"time\": ";
          Line += Time;
          Line += ", \"pid\": ";
          Line += std::to_string(Proc.Pid);
          Line += ", \"exe\": \"";
          Line += Exes[Proc.Exe];
          Line += "\", \"rank\": ";
          Line +=
              Proc.Rank < 0 ? std::string("null") : std::to_string(Proc.Rank);
          Line += "}\n";
          JobLines.push_back({Now, Line});
          continue;
        }
        Line += "{\"event\":\"";
        Line += Names[E];
        Line += "\",\"time\":";
        appendTime(Line, Now);
        Line += ",\"pid\":";
        Line += std::to_string(Proc.Pid);
        char Host[48];
        std::snprintf(Host, sizeof(Host),
                      ",\"host\":\"node%04u.cluster.example.org\"", Proc.Host);
        Line += Host;
        Line += ",\"exe\":\"";
        Line += Exes[Proc.Exe];
        Line += "\",\"rank\":";
        Line += Proc.Rank < 0 ? std::string("null") : std::to_string(Proc.Rank);
        Line += ",\"job_id\":";
        Line += Scheduled ? JobId : std::string("null");
        Line += "}\n";
        JobLines.push_back({Now, Line});
      }
    }
    // One log file per job, in time order (processes interleaved).
    std::sort(JobLines.begin(), JobLines.end(),
              [](const auto &A, const auto &B) { return A.first < B.first; });
    if (Shuffled) {
      for (const auto &[Time, Text] : JobLines) {
        AllLines[Shuffler.below(Files)].push_back(Text);
        Written += Text.size();
        ++Lines;
      }
      continue;
    }
    std::string &Buffer = Buffers[J % Files];
    for (const auto &[Time, Text] : JobLines) {
      Buffer += Text;
      Written += Text.size();
      ++Lines;
    }
    if (Buffer.size() > (8u << 20)) {
      std::fwrite(Buffer.data(), 1, Buffer.size(), Out[J % Files]);
      Buffer.clear();
    }
  }
  for (unsigned F = 0; F < Files; ++F) {
    std::vector<std::string> &Shuffle = AllLines[F];
    for (size_t I = Shuffle.size(); I > 1; --I)
      std::swap(Shuffle[I - 1], Shuffle[Shuffler.below(I)]);
    for (const std::string &Text : Shuffle)
      Buffers[F] += Text;
    Shuffle = {};
    std::fwrite(Buffers[F].data(), 1, Buffers[F].size(), Out[F]);
    std::fclose(Out[F]);
  }
  // The catalog: nine events in ten are placed by a rule; the rest of the
  // logged ones are unknown; 50 more are placed and never logged.
  FILE *Catalog = std::fopen((Dir + "/catalog.json").c_str(), "wb");
  if (!Catalog) {
    std::perror("catalog.json");
    return 1;
  }
  std::fputs("[", Catalog);
  bool First = true;
  for (unsigned I = 0; I < Events + 50; ++I) {
    if (I < Events && I % 10 == 9)
      continue;
    std::string Name =
        I < Events ? Names[I] : "unused.api." + std::to_string(I);
    std::fprintf(Catalog,
                 "%s\n {\"event\":\"%s\",\"rule\":\"rule%u\",\"file\":"
                 "\"src/file%u.cpp\",\"line\":%u,\"kind\":\"function\","
                 "\"status\":\"present\",\"name\":\"ns::f%u\"}",
                 First ? "" : ",", Name.c_str(), I % 12, I % 40, 10 + I, I);
    First = false;
  }
  std::fputs("\n]\n", Catalog);
  std::fclose(Catalog);
  std::printf("%llu lines, %llu bytes, %u files\n", (unsigned long long)Lines,
              (unsigned long long)Written, Files);
  return 0;
}
