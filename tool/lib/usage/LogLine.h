//===- LogLine.h - The fields of one API usage log line --------*- C++ -*-===//
//
// Parsers of one JSON line into the fields the report counts: a fast one
// for the exact shape the runtime writes (runtime/sinks.cpp), one for any
// key order and extra keys (a log collector's lines), and simdjson's DOM
// parser for everything else. The fast ones answer only when they are
// sure; they give the DOM parser's fields for every line they accept
// (LogLineTest checks this on random and mutated lines).
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_USAGE_LOGLINE_H
#define APISTAMP_LIB_USAGE_LOGLINE_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace simdjson::dom {
class parser;
} // namespace simdjson::dom

namespace apistamp {

/// Bytes readable past a line's end that spare the parsers a copy
/// (simdjson's SIMDJSON_PADDING).
constexpr size_t LogLinePadding = 64;

/// What one log line says; the views point into the line (or, for a job id
/// logged as a number, into the parser).
struct LogLine {
  std::string_view Event, Time, Host, Exe, Job;
  int64_t Pid = 0;
  bool HasJob = false; ///< job_id was a string or a number, not null.
};

/// Why a line is not counted.
enum class LogLineError {
  None,
  NotJson,
  NotObject,
  BadEvent,
  BadTime,
  TimeNotIso,
  BadPid,
  BadHost,
  BadExe,
  BadJob,
  NoEvent,
  NoTime,
  NoPid,
};

/// The message for \p Error ("not JSON", "'pid' is not an integer", ...).
const char *describe(LogLineError Error);

/// "YYYY-MM-DD", alone or followed by 'T' and the time of day.
bool isIsoTime(std::string_view Time);

/// True when the first ten bytes of \p Time, which isIsoTime accepted, are
/// a day of the calendar: a month 01 to 12 and a day of that month (29
/// February in leap years only).
bool isCalendarDay(std::string_view Time);

/// Parses \p Length bytes at \p Data when they are exactly the runtime's
/// shape: {"event":S,"time":S,"pid":N,"host":S|null,"exe":S|null,
/// "rank":N|S|null,"job_id":S|null}, no whitespace, no escapes, no control
/// characters, valid UTF-8, a valid event, time and pid. Returns false for
/// anything else, valid or not: then use LogLineParser. \p Data must have
/// LogLinePadding readable bytes after \p Length (it reads up to 15).
bool parseRuntimeLogLine(const char *Data, size_t Length, LogLine &Out);

/// parseRuntimeLogLine in two steps. The head, {"event":S,"time":S, sets
/// Event and Time and \p TailOffset, where the tail starts. The tail,
/// ,"pid":N,...}, sets the other fields from its bytes alone: a reader may
/// remember them for a tail it has seen (a process's lines share theirs).
/// A line is the runtime's when both parts are.
bool parseRuntimeLogHead(const char *Data, size_t Length, LogLine &Out,
                         size_t &TailOffset);
bool parseRuntimeLogTail(const char *Data, size_t Length, LogLine &Out);

/// Parses \p Length bytes at \p Data when they are one JSON object in
/// any key order, as a log collector forwards the runtime's lines (spaces
/// after ':' and ',', extra keys, nested objects and arrays): the whole
/// line is validated as strictly as LogLineParser does (JSON's grammar,
/// UTF-8, no control characters, escapes), unknown values are skipped, and
/// event, time, pid, host, exe and job_id are taken. Returns false for
/// anything it is not sure of, valid or not (a needed key twice or
/// escaped, an escaped needed value, a number it does not range-check, a
/// tab, deep nesting, a job id that is a number, a missing or bad needed
/// field): then use LogLineParser, whose verdict stands. When it returns
/// true, LogLineParser would accept the line with the same fields.
/// \p Data must have LogLinePadding readable bytes after \p Length.
bool parseAnyOrderLogLine(const char *Data, size_t Length, LogLine &Out);

/// The hashes a reader derives from a line's host, exe, pid and job_id,
/// kept with the last line of a process that AnyOrderLogParser follows.
struct ProcessKeys {
  uint64_t Host = 0, Process = 0, Job = 0;
  /// Set by the reader once it has hashed a line's fields into them; the
  /// parser clears it when the line it keeps them with is of another
  /// process.
  bool Known = false;
};

/// parseAnyOrderLogLine with a memory of the shapes of the last few lines
/// it accepted: a line that differs from one of them only in the bytes of
/// its unescaped strings and its numbers (a log collector's lines mostly
/// do) is validated by comparing the bytes between them, and its needed
/// fields checked; any other line is scanned, and its shape remembered.
///
/// Where lines follow each other in a buffer (parseKnownShape), a line is
/// compared with the last line of the same shape that ended in the same
/// bytes (mostly the same process's: a collector's lines end with the
/// runtime's tail), by pointer: only the holes whose bytes differ (the
/// times and the event) are read, the rest is one compare.
///
/// A line followed makes a template of its process's lines: the holes
/// that differ between two lines of a process (those that differed from
/// the line before when it was the same process's, those that did in
/// other processes' lines of the shape, the event and the time) and the
/// bytes between them (at most four such holes). The next line that ends
/// in the same bytes is compared with the template's line first: the runs
/// between those holes at known lengths, the few holes read; host, exe,
/// pid, job_id and their keys are the process's. Only a line that does
/// not fit is followed hole by hole. The template is the line in the
/// buffer, not a copy: its bytes are in the cache already. A new shape
/// makes every line followed stale (forgetLines), as a new buffer does.
class AnyOrderLogParser {
public:
  AnyOrderLogParser();
  ~AnyOrderLogParser();
  /// As parseAnyOrderLogLine: false leaves the verdict to LogLineParser.
  bool parse(const char *Data, size_t Length, LogLine &Out);

  /// The length of the line at \p Data, which a '\n' ends, when it has
  /// the shape of a line seen (its fields in \p Out); else 0, and the line
  /// is for parse. \p Available bytes are readable at \p Data, and
  /// LogLinePadding after them. \p Keys is set to the keys kept with the
  /// line now followed (null when none are): Known when this line's host,
  /// exe, pid and job_id are those they were hashed from. The line must
  /// stay readable until forgetLines().
  size_t parseKnownShape(const char *Data, size_t Available, LogLine &Out,
                         ProcessKeys *&Keys);

  /// The lines given to parseKnownShape may be gone (a buffer reused or
  /// unmapped): none is compared with any more.
  void forgetLines();

  /// Whether a template is fitted as two segments, 64 bytes a step, where
  /// the CPU has AVX2 (the default), or run by run: tests run both. Takes
  /// effect for the templates made after it.
  void fitSegments(bool Use);
  /// Whether this CPU can fit segments (AVX2, BMI1 and BMI2).
  static bool cpuFitsSegments();
  /// The lines taken as two segments so far (for tests).
  uint64_t segmentFits() const { return SegmentFits; }

  /// Whether a line was accepted: parseKnownShape may then answer.
  bool knowsShapes() const { return Known; }

  /// A line accepted, and where its strings and numbers are (LogLine.cpp).
  struct Shape;
  /// A line parseKnownShape took, where its holes are, and its keys.
  struct Follow;

private:
  /// The slot of the first shape, from the one that fitted last, that the
  /// line at \p Data fits (fitsShape in LogLine.cpp: \p UntilNewline,
  /// \p LineLength, and where its holes are in \p Starts and \p Ends when
  /// given and it has MaxFollowHoles or fewer); ShapeCount if none does.
  unsigned fittingShape(const char *Data, size_t Length, LogLine &Out,
                        bool UntilNewline, size_t &LineLength,
                        uint16_t *Starts = nullptr, uint16_t *Ends = nullptr);

  /// Whether \p F follows a line still readable, of a shape still kept.
  bool isCurrent(const Follow &F) const;
  /// Takes a line of \p Length bytes that fitted \p F's template.
  size_t fitted(Follow &F, size_t Length, ProcessKeys *&Keys);

  static constexpr unsigned ShapeCount = 4;
  /// A longer line is scanned every time.
  static constexpr size_t MaxShapeBytes = 4096;
  /// log2 of the lines followed.
  static constexpr unsigned FollowBits = 10;
  /// ShapeCount shapes, then the line parse scans before it is one.
  std::unique_ptr<Shape[]> Shapes;
  std::unique_ptr<Follow[]> Follows;
  unsigned Next = 0, Last = 0;
  /// The buffers forgotten and the shapes replaced: a line followed is of
  /// this generation, else gone.
  uint32_t Generation = 1;
  /// Up one for a line that followed its process's last line, down 2 for
  /// one that did not: at 0 (lines in an arbitrary order, of another
  /// process than the line they would follow), only a line in ProbeEvery
  /// is followed, the others read with the shapes alone.
  unsigned FollowScore = MaxFollowScore, Probes = 0;
  static constexpr unsigned MaxFollowScore = 64, ProbeEvery = 64;
  bool Known = false;
  bool Segmented = false;
  uint64_t SegmentFits = 0;
};

/// A line's head, {"event":S,"time":S, and where its tail starts.
struct LogHead {
  std::string_view Event, Time;
  size_t TailOffset;
};

/// parseRuntimeLogHead without its last check, that the head's bytes are
/// plainText: a reader that knows the event's bytes to be plain checks the
/// time's alone. \p Length may run past the line: the head is read up to
/// the time's closing quote.
bool scanRuntimeLogHead(const char *Data, size_t Length, LogHead &Out);

/// True when \p Length bytes at \p Data hold no control character, no
/// backslash and only valid UTF-8: every string in them is then its own
/// JSON text (no escapes), and the first '"' after an opening one closes
/// it. Reads up to 15 bytes past \p Length.
bool isPlainText(const char *Data, size_t Length);

/// How far past a compared length equalPadded may read: one 16-byte block.
constexpr size_t EqualPaddedBlock = 16;

/// True when the \p Length bytes at \p A and \p B are the same. Reads up
/// to 15 bytes past \p Length at both: inline, for the short compares of
/// every line (a cached tail, an event's name).
inline bool equalPadded(const char *A, const char *B, size_t Length) {
#if defined(__SSE2__)
  // A bit per byte of the 16 at \p At that differ.
  auto Differing = [&](size_t At) {
    __m128i Left = _mm_loadu_si128(reinterpret_cast<const __m128i *>(A + At));
    __m128i Right = _mm_loadu_si128(reinterpret_cast<const __m128i *>(B + At));
    return unsigned(_mm_movemask_epi8(_mm_cmpeq_epi8(Left, Right))) ^ 0xFFFFu;
  };
  constexpr size_t Block = sizeof(__m128i);
  unsigned Differ = 0;
  size_t I = 0;
  for (; I + Block <= Length; I += Block)
    Differ |= Differing(I);
  if (I < Length)
    Differ |= Differing(I) & ((1u << (Length - I)) - 1);
  return Differ == 0;
#else
  return std::memcmp(A, B, Length) == 0;
#endif
}

/// How c10's stderr logger (PYTORCH_API_USAGE_STDERR=1) starts each line:
/// the event follows it.
constexpr std::string_view StderrLinePrefix = "PYTORCH_API_USAGE ";

/// Why \p Event, the rest of a line after StderrLinePrefix, is not an
/// event (empty, a space, a control character, not UTF-8), or null when it
/// is one.
const char *stderrEventProblem(std::string_view Event);

/// Any line: simdjson's DOM parser, which validates the whole line (UTF-8
/// included); extra keys are ignored.
class LogLineParser {
public:
  LogLineParser();
  ~LogLineParser();
  /// \p Capacity: bytes readable at \p Data (LogLinePadding past
  /// \p Length avoids a copy).
  LogLineError parse(const char *Data, size_t Length, size_t Capacity,
                     LogLine &Out);

private:
  std::unique_ptr<simdjson::dom::parser> Parser;
  std::string JobNumber;
};

} // namespace apistamp

#endif // APISTAMP_LIB_USAGE_LOGLINE_H
