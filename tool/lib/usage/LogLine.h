//===- LogLine.h - The fields of one API usage log line --------*- C++ -*-===//
//
// Parsers of one JSON line into the fields the report counts: a fast one
// for the exact shape the runtime writes (runtime/sinks.cpp), and
// simdjson's DOM parser for every other line (a log collector's, in any key
// order, with extra keys, and every bad line). The fast one answers only
// when it is sure; it gives the DOM parser's fields for every line it
// accepts (LogLineTest checks this on random and mutated lines).
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
class element;
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

/// "YYYY-MM-DD" alone, or followed by "Thh:mm", optional ":ss" and
/// ".fraction", and an optional "Z" or "+hh:mm"/"-hh:mm": nothing else, no
/// hour past 23 (a time checked up to its 'T' alone let "Tgarbage" be an
/// event's last seen time).
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
/// included), the values of the keys it does not read too (a line with a
/// bad one is NotJson); those keys are otherwise ignored. Every line not of
/// the runtime's exact shape (a log collector's) is read with it.
class LogLineParser {
public:
  LogLineParser();
  ~LogLineParser();
  /// \p Capacity: bytes readable at \p Data (LogLinePadding past
  /// \p Length avoids a copy).
  LogLineError parse(const char *Data, size_t Length, size_t Capacity,
                     LogLine &Out);

private:
  /// Reads job_id's \p Value: a string, an integer (as text), or null.
  LogLineError readJob(const simdjson::dom::element &Value, LogLine &Out);

  std::unique_ptr<simdjson::dom::parser> Parser;
  std::string JobNumber;
};

} // namespace apistamp

#endif // APISTAMP_LIB_USAGE_LOGLINE_H
