//===- UsageHtml.cpp - The report as one self-contained HTML page ---------===//
//
// No network is needed to view it: the styles, the sorting script and the
// charts (inline SVG) are all in the page.
//
//===----------------------------------------------------------------------===//

#include "UsageReport.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace apistamp {

static std::string html(StringRef Text) {
  std::string Out;
  for (char C : Text) {
    switch (C) {
    case '&':
      Out += "&amp;";
      break;
    case '<':
      Out += "&lt;";
      break;
    case '>':
      Out += "&gt;";
      break;
    case '"':
      Out += "&quot;";
      break;
    case '\'':
      Out += "&#39;";
      break;
    default:
      Out += C;
    }
  }
  return Out;
}

/// An event name that may wrap after its dots (and only there, unless a
/// part is longer than the column).
static std::string breakAfter(StringRef Text, char Separator) {
  std::string Out;
  for (char C : Text) {
    Out += html(StringRef(&C, 1));
    if (C == Separator)
      Out += "<wbr>";
  }
  return Out;
}
static std::string eventHtml(StringRef Event) { return breakAfter(Event, '.'); }

/// An ISO 8601 time as "2026-11-23 10:00:00" (UTC; the column says so),
/// the full value as its title.
static std::string timeHtml(StringRef Time) {
  if (Time.empty())
    return "";
  std::string Short =
      Time.size() >= 19 && Time[10] == 'T'
          ? (Time.substr(0, 10) + " " + Time.substr(11, 8)).str()
          : Time.str();
  return "<time datetime=\"" + html(Time) + "\" title=\"" + html(Time) + "\">" +
         html(Short) + "</time>";
}

static const char *const Style = R"css(
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#1d2330;background:#fff}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px}
.summary{color:#555;margin-bottom:16px}
.cards{display:flex;gap:12px;flex-wrap:wrap}
.card{border:1px solid #d8dce5;border-radius:6px;padding:10px 14px;min-width:120px}
.card b{display:block;font-size:22px}
table{border-collapse:collapse;width:100%;margin-top:6px}
th,td{border-bottom:1px solid #e4e7ee;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f3f5f9;white-space:nowrap}
table.sortable th{cursor:pointer;user-select:none}
th[aria-sort=descending]::after{content:" \25BC";font-size:10px}
th[aria-sort=ascending]::after{content:" \25B2";font-size:10px}
th.num,td.num{text-align:right}
td.event{font-family:ui-monospace,monospace;overflow-wrap:anywhere}
td.nowrap,.nw{white-space:nowrap}
tr.never-used td{background:#fff6f6}tr.unknown td{background:#fffbea}
.status{font-size:12px;border-radius:3px;padding:1px 6px;white-space:nowrap}
.status.used{background:#e3f4e6;color:#145a22}
.status.never-used{background:#fde2e2;color:#8a1c1c}
.status.unknown{background:#fff0c2;color:#6b5200}
.status.layer,.status.other-library{background:#e7eefb;color:#1f3f7a}
.bar{background:#e4e7ee;border-radius:3px;height:12px;width:240px;display:inline-block;vertical-align:middle}
.bar span{display:block;height:12px;background:#3b7dd8;border-radius:3px}
svg text{font:11px system-ui,sans-serif;fill:#444}
.legend span{display:inline-block;margin-right:14px;font-size:12px}
.legend i{display:inline-block;width:10px;height:10px;margin-right:4px;border-radius:2px}
.problems{color:#8a1c1c}
.through{color:#666;font-size:12px;white-space:nowrap}
)css";

static const char *const SortScript = R"js(
// A click sorts by the column: numbers most first, text A to Z; a second
// click reverses.
document.querySelectorAll('table.sortable').forEach(function(table){
  table.querySelectorAll('th').forEach(function(th,column){
    th.addEventListener('click',function(){
      var body=table.tBodies[0],rows=Array.prototype.slice.call(body.rows);
      var numeric=th.classList.contains('num');
      var current=th.getAttribute('aria-sort');
      var descending=current?current==='ascending':numeric;
      table.querySelectorAll('th').forEach(function(h){h.removeAttribute('aria-sort');});
      th.setAttribute('aria-sort',descending?'descending':'ascending');
      rows.sort(function(a,b){
        var x=a.cells[column].textContent,y=b.cells[column].textContent;
        var c=numeric?(Number(x)-Number(y)):x.localeCompare(y);
        return descending?-c:c;
      });
      rows.forEach(function(r){body.appendChild(r);});
    });
  });
});
)js";

static const char *const Palette[] = {"#3b7dd8", "#d8523b", "#2f9e44",
                                      "#9c36b5", "#e8890c", "#0c8599",
                                      "#5f3dc4", "#c2255c"};

/// Trend lines of the \p Count events with most jobs.
static void printTrend(raw_ostream &OS, const UsageReport &R, size_t Count) {
  std::vector<const ReportEvent *> Top;
  for (const ReportEvent &E : R.Events)
    if (E.Counts.Jobs)
      Top.push_back(&E);
  if (Top.size() > Count)
    Top.resize(Count);
  if (Top.empty() || R.Periods.empty()) {
    OS << "<p>No events in the logs.</p>\n";
    return;
  }
  const int Width = 900, Height = 260, Left = 48, Right = 40, Bottom = 36,
            Top_ = 12;
  uint64_t Max = 1;
  for (const ReportEvent *E : Top)
    for (const auto &Entry : E->Trend.entries())
      Max = std::max(Max, Entry.second);
  size_t N = R.Periods.size();
  auto X = [&](size_t I) {
    return Left + (N == 1 ? (Width - Left - Right) / 2.0
                          : double(I) * (Width - Left - Right) / (N - 1));
  };
  auto Y = [&](uint64_t V) {
    return Top_ + (Height - Top_ - Bottom) * (1.0 - double(V) / Max);
  };
  OS << formatv("<svg role=\"img\" aria-label=\"jobs per {0}\" width=\"{1}\" "
                "height=\"{2}\" viewBox=\"0 0 {1} {2}\">\n",
                R.TrendUnit, Width, Height);
  for (int Tick = 0; Tick <= 4; ++Tick) {
    uint64_t V = Max * Tick / 4;
    OS << formatv("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2:F1}\" y2=\"{2:F1}\" "
                  "stroke=\"#e4e7ee\"/><text x=\"{3}\" y=\"{4:F1}\" "
                  "text-anchor=\"end\">{5}</text>\n",
                  Left, Width - Right, Y(V), Left - 6, Y(V) + 4, V);
  }
  size_t Step = std::max<size_t>(1, N / 8);
  for (size_t I = 0; I < N; I += Step)
    OS << formatv("<text x=\"{0:F1}\" y=\"{1}\" text-anchor=\"middle\">{2}"
                  "</text>\n",
                  X(I), Height - 14, html(R.Periods[I]));
  for (size_t L = 0; L < Top.size(); ++L) {
    std::string Points;
    for (size_t I = 0; I < N; ++I)
      Points += formatv("{0:F1},{1:F1} ", X(I), Y(Top[L]->Trend[I])).str();
    const char *Color = Palette[L % std::size(Palette)];
    OS << formatv("<polyline fill=\"none\" stroke=\"{0}\" stroke-width=\"2\" "
                  "points=\"{1}\"><title>{2}</title></polyline>\n",
                  Color, Points, html(Top[L]->Event));
    for (size_t I = 0; I < N; ++I)
      OS << formatv("<circle cx=\"{0:F1}\" cy=\"{1:F1}\" r=\"2.5\" "
                    "fill=\"{2}\"/>\n",
                    X(I), Y(Top[L]->Trend[I]), Color);
  }
  OS << "</svg>\n";
  if (R.PeriodsLogged > N)
    OS << formatv("<p class=\"summary\">The latest {0} {1}s of the {2} "
                  "logged.</p>\n",
                  N, R.TrendUnit, R.PeriodsLogged);
  if (N == 1)
    OS << "<p class=\"summary\">The logs cover one " << R.TrendUnit << " ("
       << html(R.Periods.front()) << "): a trend needs more.</p>\n";
  OS << "<div class=\"legend\">";
  for (size_t L = 0; L < Top.size(); ++L)
    OS << formatv("<span><i style=\"background:{0}\"></i>{1}</span>",
                  Palette[L % std::size(Palette)], html(Top[L]->Event));
  OS << "</div>\n";
}

/// The page's head, the input figures, the cards and the inputs' problems.
static void printSummary(raw_ostream &OS, const UsageReport &R) {
  const UsageCounts &In = R.Inputs;
  OS << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<title>API usage report</title><style>"
     << Style << "</style></head><body>\n<h1>API usage report</h1>\n"
     << formatv("<div class=\"summary\">{0} files, {1} lines, {2} events "
                "read, {3} malformed lines skipped</div>\n",
                In.Files, In.Lines, In.EventLines, In.Malformed);
  OS << "<div class=\"cards\">"
     << formatv("<div class=\"card\" id=\"jobs-count\"><b>{0}</b>jobs</div>",
                In.Jobs)
     << formatv("<div class=\"card\"><b>{0}</b>events placed</div>",
                R.Events.size())
     << formatv("<div class=\"card\"><b>{0}</b>used</div>", R.Used)
     << formatv("<div class=\"card\" id=\"never-used-count\"><b>{0}</b>never "
                "used</div>",
                llvm::count_if(R.Events,
                               [](const ReportEvent &E) {
                                 return E.Status == EventStatus::NeverUsed;
                               }))
     << formatv("<div class=\"card\"><b>{0}</b>unknown</div>",
                R.Unknown.size());
  // Each language's share, when the catalog has more than one.
  std::vector<GroupCoverage> Languages =
      groupCoverage(R, ReportGrouping::Language);
  if (Languages.size() > 1)
    for (const GroupCoverage &G : Languages)
      OS << formatv("<div class=\"card\" id=\"language-{0}\"><b>{1} of {2}"
                    "</b>{0} events used</div>",
                    html(G.Key), G.Used, G.Events);
  if (!R.Layers.empty())
    OS << formatv("<div class=\"card\" id=\"layers-count\"><b>{0}</b>of "
                  "other layers</div>",
                  eventsIn(R.Layers));
  if (!R.OtherLibraries.empty())
    OS << formatv("<div class=\"card\" id=\"other-libraries-count\"><b>{0}"
                  "</b>of other libraries</div>",
                  eventsIn(R.OtherLibraries));
  OS << "</div>\n";
  for (const LogFileProblems &P : In.Problems)
    OS << "<p class=\"problems\">" << html(P.File) << ": "
       << html(P.Unreadable
                   ? "cannot read: " + P.Error
                   : std::to_string(P.Malformed) + " malformed lines skipped" +
                         (P.Error.empty() ? "" : "; " + P.Error))
       << "</p>\n";
}

/// The coverage of each group \p By makes (rule, module, language), with
/// a bar, titled \p Title.
static void printCoverage(raw_ostream &OS, const UsageReport &R,
                          ReportGrouping By, StringRef Title) {
  OS << "<h2>" << html(Title) << "</h2>\n<table class=\"sortable\" id=\""
     << groupingName(By) << "s\"><thead><tr><th>" << groupingName(By)
     << "</th><th class=\"num\">events</th><th class=\"num\">used</th>"
        "<th class=\"num\">jobs</th><th>coverage</th></tr></thead><tbody>\n";
  for (const GroupCoverage &G : groupCoverage(R, By)) {
    OS << "<tr><td class=\"nowrap\">" << html(G.Key)
       << "</td><td class=\"num\">" << G.Events << "</td><td class=\"num\">"
       << G.Used << "</td><td class=\"num\">" << G.Jobs
       << formatv("</td><td><span class=\"bar\"><span style=\"width:{0}%\">"
                  "</span></span> {0}%</td></tr>\n",
                  G.Percent);
  }
  OS << "</tbody></table>\n";
}

/// Where \p E is placed; a path wraps after its slashes only, not at the
/// hyphens of a name.
static std::string whereHtml(const ReportEvent &E) {
  if (!E.Placed || E.Placed->File.empty())
    return std::string();
  std::string Path = E.Placed->File + ":" + std::to_string(E.Placed->Line);
  std::string Out;
  for (StringRef Rest = Path; !Rest.empty();) {
    size_t Slash = Rest.find('/');
    StringRef Part =
        Rest.take_front(Slash == StringRef::npos ? Rest.size() : Slash + 1);
    Out += "<span class=\"nw\">" + html(Part) + "</span>";
    Rest = Rest.drop_front(Part.size());
    if (!Rest.empty())
      Out += "<wbr>";
  }
  return Out;
}

/// "through <base>" for an event a class logs through a base's constructor.
static std::string throughHtml(const ReportEvent &E) {
  if (!E.Placed || E.Placed->Through.empty())
    return std::string();
  return " <span class=\"through\">through " + eventHtml(E.Placed->Through) +
         "</span>";
}

/// A sortable table of events with their counts.
static void printEventTable(raw_ostream &OS, StringRef Id,
                            ArrayRef<ReportEvent> Rows) {
  OS << "<table class=\"sortable\" id=\"" << html(Id)
     << "\"><thead><tr><th>event</th><th>status</th><th>language</th>"
        "<th class=\"num\">"
        "jobs</th><th class=\"num\">processes</th><th class=\"num\">hosts"
        "</th><th>first seen (UTC)</th><th>last seen (UTC)</th><th>rule"
        "</th><th>where</th></tr></thead><tbody>\n";
  for (const ReportEvent &E : Rows) {
    StringRef Status = statusName(E.Status);
    OS << "<tr class=\"" << Status << "\"><td class=\"event\">"
       << eventHtml(E.Event) << "</td><td><span class=\"status " << Status
       << "\">" << Status << "</span></td><td class=\"nowrap\">"
       << html(E.Placed ? languageOf(*E.Placed) : "") << "</td>"
       << formatv("<td class=\"num\">{0}</td><td class=\"num\">{1}</td>"
                  "<td class=\"num\">{2}</td>",
                  E.Counts.Jobs, E.Counts.Processes, E.Counts.Hosts)
       << "<td class=\"nowrap\">" << timeHtml(E.Counts.FirstSeen)
       << "</td><td class=\"nowrap\">" << timeHtml(E.Counts.LastSeen)
       << "</td><td class=\"nowrap\">" << html(E.Placed ? E.Placed->Rule : "")
       << "</td><td>" << whereHtml(E) << throughHtml(E) << "</td></tr>\n";
  }
  OS << "</tbody></table>\n";
}

/// The deprecation candidates: no counts to show, only where they are.
static void printNeverUsedTable(raw_ostream &OS, ArrayRef<ReportEvent> Rows) {
  OS << "<table class=\"sortable\" id=\"never-used\"><thead><tr><th>event"
        "</th><th>language</th><th>module</th><th>kind</th><th>rule</th>"
        "<th>where</th></tr></thead><tbody>\n";
  for (const ReportEvent &E : Rows)
    OS << "<tr class=\"never-used\"><td class=\"event\">" << eventHtml(E.Event)
       << "</td><td class=\"nowrap\">"
       << html(E.Placed ? languageOf(*E.Placed) : "")
       << "</td><td class=\"nowrap\">"
       << html(E.Placed ? packageOf(*E.Placed) : "")
       << "</td><td class=\"nowrap\">" << html(E.Placed ? E.Placed->Kind : "")
       << "</td><td class=\"nowrap\">" << html(E.Placed ? E.Placed->Rule : "")
       << "</td><td>" << whereHtml(E) << throughHtml(E) << "</td></tr>\n";
  OS << "</tbody></table>\n";
}

void printReportHtml(raw_ostream &OS, const UsageReport &R) {
  printSummary(OS, R);
  OS << formatv("<h2>Jobs per {0}, top events</h2>\n", R.TrendUnit);
  printTrend(OS, R, 8);
  if (groupCoverage(R, ReportGrouping::Language).size() > 1)
    printCoverage(OS, R, ReportGrouping::Language, "Coverage by language");
  printCoverage(OS, R, ReportGrouping::Module, "Coverage by module");
  printCoverage(OS, R, ReportGrouping::Rule, "Coverage by rule");
  std::vector<ReportEvent> NeverUsed;
  for (const ReportEvent &E : R.Events)
    switch (E.Status) {
    case EventStatus::NeverUsed:
      NeverUsed.push_back(E);
      break;
    case EventStatus::Used:
    case EventStatus::Unknown:
    case EventStatus::NotMeasured:
    case EventStatus::Layer:
    case EventStatus::OtherLibrary:
      break;
    }
  if (!R.Pairs.empty()) {
    OS << "<h2>Both sides of one API: " << R.Pairs.size()
       << " pairs</h2>\n<table class=\"sortable\" id=\"pairs\"><thead><tr>"
          "<th>Python</th><th class=\"num\">jobs</th><th>C++</th><th "
          "class=\"num\">jobs</th><th>route</th></tr></thead><tbody>\n";
    for (const ApiPair &P : R.Pairs)
      OS << "<tr><td class=\"event\">" << eventHtml(P.Python->Event)
         << "</td><td class=\"num\">" << P.Python->Counts.Jobs
         << "</td><td class=\"event\">" << eventHtml(P.Cxx->Event)
         << "</td><td class=\"num\">" << P.Cxx->Counts.Jobs
         << "</td><td class=\"nowrap\">" << html(P.Route) << "</td></tr>\n";
    OS << "</tbody></table>\n";
  }
  OS << formatv("<h2>Never used: {0} events (deprecation candidates)</h2>\n",
                NeverUsed.size());
  printNeverUsedTable(OS, NeverUsed);
  OS << "<h2>All placed events (click a column to sort)</h2>\n";
  printEventTable(OS, "events", R.Events);
  if (!R.Unknown.empty()) {
    OS << formatv("<h2>Unknown: {0} events logged but placed by no rule</h2>"
                  "\n",
                  R.Unknown.size());
    printEventTable(OS, "unknown", R.Unknown);
  }
  for (const EventGroup &G : R.Layers) {
    OS << "<h2>Logged by other layers: " << html(G.Name) << ": "
       << G.Events.size() << " events</h2>\n";
    if (!G.Events.empty())
      printEventTable(OS, "layer-" + G.Name, G.Events);
  }
  for (const EventGroup &G : R.OtherLibraries) {
    OS << "<h2>Other libraries: " << html(G.Name) << ": " << G.Events.size()
       << " events</h2>\n";
    printEventTable(OS, "library-" + G.Name, G.Events);
  }
  OS << "<script>" << SortScript << "</script>\n</body></html>\n";
}

} // namespace apistamp
