//===- LineReader.h - Cut a log's bytes into counted lines ------*- C++ -*-===//
//
// A log's bytes, as read or decompressed, in pieces of any size: lines are
// cut at newlines (a line split between two pieces is carried over), the
// runtime's own lines take a fast path whose line ends and key hashes come
// from ThreadCounts' caches, and anything else (a log collector's lines, in
// any key order) goes through the validating parser. Bad lines are counted
// and the first few kept, with their numbers. A log is JSON lines or c10's
// stderr form, as its first line of either decides; until then, the lines
// that are neither wait to be called malformed (JSON lines) or the
// process's other output (stderr).
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_USAGE_LINEREADER_H
#define APISTAMP_LIB_USAGE_LINEREADER_H

#include "LogCounts.h"
#include "UsageLog.h"
#include <string>
#include <string_view>

namespace apistamp {

/// The longest line read: a longer one (a runtime line is a few hundred
/// bytes) is counted malformed and skipped up to the next newline, never
/// buffered whole (a file without newlines, /dev/zero, a compressed bomb).
constexpr size_t MaxLineBytes = size_t(1) << 20;

/// The form of a log's lines.
enum class LogForm {
  Undecided, ///< No line has said yet.
  JsonLines, ///< The runtime's JSON lines.
  /// c10's stderr logger's "PYTORCH_API_USAGE <event>" lines, among the
  /// process's other output.
  Stderr,
};

/// What a log in the stderr form does not say, for every line: the time,
/// and the keys of its one process and its job.
struct StderrSource {
  std::string Time;
  LineKeys Keys;
};

/// Splits one log's decompressed bytes into lines and counts them.
class LineReader {
public:
  /// A reader of a log whose form is \p Form (Undecided: its first line of
  /// either form decides), counted as \p IfStderr says if that is stderr.
  LineReader(ThreadCounts &Counts, LogFileProblems &Problems,
             const LogWindow &Window, LogForm Form = LogForm::Undecided,
             StderrSource IfStderr = {"1970-01-01T00:00:00.000000Z", {}})
      : Counts(Counts), Problems(Problems), Window(Window), Form(Form),
        Source(std::move(IfStderr)),
        SourceTimeIsDay(isIsoTime(Source.Time) && isCalendarDay(Source.Time)) {}

  /// \p Data has LogLinePadding readable bytes after \p Size.
  void consume(const char *Data, size_t Size);

  /// Forgets the partial line read last (the file ended in a way that
  /// makes it no line at all).
  void discardPartialLine() {
    Carry.clear();
    Skipping = false;
  }

  /// Reads every line with the validating parser alone, none on a fast
  /// path: the reference the fast paths are compared with (tests, the
  /// fuzzer).
  void validateEveryLine() { ValidatingOnly = true; }

  /// Lines seen so far, blank ones included.
  uint64_t lines() const { return LineNumber; }

  /// The last line, without its newline (a crashed process's, perhaps).
  /// A log that no line decided is JSON lines, its lines malformed.
  void finish() {
    if (!Carry.empty()) {
      LastLine = true;
      parseCarry(/*Newline=*/false);
    }
    if (Form == LogForm::Undecided)
      decide(LogForm::JsonLines);
  }

  /// The log's form, once finished: JsonLines or Stderr.
  LogForm form() const { return Form; }
  /// What a log in the stderr form held (its File and Job unset).
  const StderrLog &stderrLog() const { return Stderr; }

private:
  /// The log is of form \p Decided: the lines that waited are malformed
  /// (JSON lines) or the process's other output (stderr).
  void decide(LogForm Decided) {
    Form = Decided;
    if (Decided == LogForm::JsonLines) {
      Counts.Malformed += Pending;
      Problems.Malformed += Pending;
      Problems.First = std::move(PendingFirst);
    } else {
      Stderr.Time = Source.Time;
      Stderr.Ignored += Pending;
    }
    Pending = 0;
    PendingFirst.clear();
  }

  /// Counts the line of \p Length bytes at \p Data of a stderr log.
  void countStderrLine(const char *Data, size_t Length);

  /// Counts the line at \p Line when it has the runtime's shape, its event
  /// is in the cache with a plain name and its tail, newline included, is
  /// cached: the line's end is then known without looking for it. Returns
  /// where the next line starts, or null when this line is not one of
  /// those. \p End: the end of the bytes read, followed by LogLinePadding
  /// readable ones.
  const char *countCachedLine(const char *Line, const char *End);

  /// Counts a line longer than MaxLineBytes, malformed; the reader skips
  /// the rest of it.
  void tooLong() {
    ++LineNumber;
    ++Counts.Lines;
    Carry.clear();
    malformed("longer than 1 MiB (no runtime writes such a line): skipped "
              "up to the next newline");
  }

  void parseCarry(bool Newline) {
    size_t Length = Carry.size();
    Carry.resize(Length + LogLinePadding);
    parse(Carry.data(), Length, Carry.size(), Newline);
    Carry.clear();
  }

  void malformed(const std::string &Why) {
    if (Form == LogForm::Undecided) {
      if (Pending++ < FirstProblemsKept)
        PendingFirst.push_back({LineNumber, Why});
      return;
    }
    if (Form == LogForm::Stderr) {
      ++Stderr.Ignored; // The process's other output.
      return;
    }
    ++Counts.Malformed;
    if (Problems.Malformed++ < FirstProblemsKept)
      Problems.First.push_back({LineNumber, Why});
  }

  bool inWindow(std::string_view Time) {
    if ((!Window.Since.empty() && Time < std::string_view(Window.Since)) ||
        (!Window.Until.empty() && Time >= std::string_view(Window.Until))) {
      ++Counts.OutsideWindow;
      return false;
    }
    return true;
  }

  /// Parses the line of \p Length bytes at \p Data, which a newline ended
  /// when \p Newline is set.
  void parse(const char *Data, size_t Length, size_t Capacity, bool Newline);

  /// Counts a valid JSON line (which decides the log's form).
  void countLine(const LogLine &Fields, const LineKeys &Keys) {
    if (Form == LogForm::Undecided)
      decide(LogForm::JsonLines);
    if (!isCalendarDay(Fields.Time))
      return notADay();
    if (inWindow(Fields.Time))
      Counts.count(Counts.event(Fields.Event), Fields.Time, Keys);
  }

  void notADay() {
    malformed("'time' is not a day of the calendar (YYYY-MM-DD)");
  }

  /// Counts a line of \p Event at \p Time, unless its day is not a day of
  /// the calendar (malformed) or it is outside the window. The event's last
  /// day was one: a line of that day is not checked again.
  void countAt(LocalEvent &Event, std::string_view Time, const LineKeys &Keys) {
    if (!Counts.onLastDay(Event, Time) && !isCalendarDay(Time))
      return notADay();
    if (inWindow(Time))
      Counts.count(Event, Time, Keys);
  }

  ThreadCounts &Counts;
  LogFileProblems &Problems;
  const LogWindow &Window;
  std::string Carry;
  uint64_t LineNumber = 0;
  bool LastLine = false;       ///< Parsing the last line, which had no newline.
  bool Skipping = false;       ///< Inside a line that was too long.
  bool ValidatingOnly = false; ///< validateEveryLine().
  LogForm Form;
  StderrSource Source;
  /// Source.Time is a day of the calendar: a stderr log's lines have one.
  bool SourceTimeIsDay;
  StderrLog Stderr;
  /// Lines that are neither form, before the form is decided: the count
  /// and the first few (line number, why not JSON).
  uint64_t Pending = 0;
  std::vector<std::pair<uint64_t, std::string>> PendingFirst;
};

} // namespace apistamp

#endif // APISTAMP_LIB_USAGE_LINEREADER_H
