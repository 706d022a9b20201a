//===- LogLine.cpp - The fields of one API usage log line -----------------===//

#include "LogLine.h"
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <simdjson.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace apistamp {

const char *describe(LogLineError Error) {
  switch (Error) {
  case LogLineError::None:
    return "";
  case LogLineError::NotJson:
    return "not JSON";
  case LogLineError::NotObject:
    return "not a JSON object";
  case LogLineError::BadEvent:
    return "'event' is not a non-empty string";
  case LogLineError::BadTime:
    return "'time' is not a string";
  case LogLineError::TimeNotIso:
    return "'time' is not an ISO 8601 time (YYYY-MM-DDThh:mm:ss)";
  case LogLineError::BadPid:
    return "'pid' is not an integer";
  case LogLineError::BadHost:
    return "'host' is not a string or null";
  case LogLineError::BadExe:
    return "'exe' is not a string or null";
  case LogLineError::BadJob:
    return "'job_id' is not a string, integer or null";
  case LogLineError::NoEvent:
    return "no 'event'";
  case LogLineError::NoTime:
    return "no 'time'";
  case LogLineError::NoPid:
    return "no 'pid'";
  }
  return "";
}

bool isIsoTime(std::string_view Time) {
  auto Digit = [&](size_t I) { return Time[I] >= '0' && Time[I] <= '9'; };
  // N digits at I, at most Max.
  auto Number = [&](size_t I, size_t N, unsigned Max) {
    if (I + N > Time.size())
      return false;
    unsigned V = 0;
    for (size_t K = I; K < I + N; ++K) {
      if (!Digit(K))
        return false;
      V = V * 10 + unsigned(Time[K] - '0');
    }
    return V <= Max;
  };
  if (Time.size() < 10 || Time[4] != '-' || Time[7] != '-' ||
      !Number(0, 4, 9999) || !Number(5, 2, 99) || !Number(8, 2, 99))
    return false;
  if (Time.size() == 10)
    return true; // A day.
  // "THH:MM", then ":SS" and ".fraction", then "Z" or "+HH:MM"/"-HH:MM".
  if (Time[10] != 'T' || !Number(11, 2, 23) || Time.size() < 16 ||
      Time[13] != ':' || !Number(14, 2, 59))
    return false;
  size_t I = 16;
  if (I < Time.size() && Time[I] == ':') {
    if (!Number(I + 1, 2, 60))
      return false;
    I += 3;
    if (I < Time.size() && Time[I] == '.') {
      size_t Digits = 0;
      while (I + 1 + Digits < Time.size() && Digit(I + 1 + Digits))
        ++Digits;
      if (Digits == 0)
        return false;
      I += 1 + Digits;
    }
  }
  if (I < Time.size() && Time[I] == 'Z')
    return I + 1 == Time.size();
  if (I < Time.size() && (Time[I] == '+' || Time[I] == '-'))
    return I + 6 == Time.size() && Number(I + 1, 2, 23) && Time[I + 3] == ':' &&
           Number(I + 4, 2, 59);
  return I == Time.size();
}

bool isCalendarDay(std::string_view Time) {
  auto Digits = [&](size_t At, size_t N) {
    unsigned V = 0;
    for (size_t I = At; I < At + N; ++I)
      V = V * 10 + unsigned(Time[I] - '0');
    return V;
  };
  unsigned Year = Digits(0, 4), Month = Digits(5, 2), Day = Digits(8, 2);
  static const unsigned Length[] = {31, 28, 31, 30, 31, 30,
                                    31, 31, 30, 31, 30, 31};
  if (Month < 1 || Month > 12 || Day < 1)
    return false;
  bool Leap = Year % 4 == 0 && (Year % 100 != 0 || Year % 400 == 0);
  return Day <= Length[Month - 1] + (Month == 2 && Leap);
}

bool isPlainText(const char *Data, size_t Length) {
  bool Special = false;
#if defined(__SSE2__)
  // Signed compare: bytes >= 0x80 count as "special" too, and are looked
  // at below. Reads up to 15 bytes past the end, masked off.
  const __m128i Space = _mm_set1_epi8(0x20), Backslash = _mm_set1_epi8('\\');
  unsigned Any = 0;
  for (size_t I = 0; I < Length; I += 16) {
    __m128i Bytes =
        _mm_loadu_si128(reinterpret_cast<const __m128i *>(Data + I));
    unsigned Mask = unsigned(_mm_movemask_epi8(_mm_or_si128(
        _mm_cmplt_epi8(Bytes, Space), _mm_cmpeq_epi8(Bytes, Backslash))));
    if (Length - I < 16)
      Mask &= (1u << (Length - I)) - 1;
    Any |= Mask;
  }
  Special = Any != 0;
#else
  for (size_t I = 0; I < Length; ++I)
    Special |=
        uint8_t(Data[I]) < 0x20 || uint8_t(Data[I]) >= 0x80 || Data[I] == '\\';
#endif
  if (!Special)
    return true;
  for (size_t I = 0; I < Length; ++I)
    if (uint8_t(Data[I]) < 0x20 || Data[I] == '\\')
      return false;
  return simdjson::validate_utf8(Data, Length);
}

const char *stderrEventProblem(std::string_view Event) {
  if (Event.empty())
    return "no event after 'PYTORCH_API_USAGE '";
  for (char C : Event) {
    if (C == ' ' || C == '\t')
      return "a space in the event (another write interleaved?)";
    if (uint8_t(C) < 0x20 || C == 0x7F)
      return "a control character in the event";
  }
  if (!simdjson::validate_utf8(Event.data(), Event.size()))
    return "the event is not valid UTF-8";
  return nullptr;
}

namespace {

/// Reads the runtime's fixed shape left to right.
class Cursor {
public:
  Cursor(const char *Data, size_t Length) : P(Data), End(Data + Length) {}

  bool atEnd() const { return P == End; }
  size_t offset(const char *Start) const { return P - Start; }

  /// The literal \p Text (its size known here: the compare is inlined).
  template <size_t N> bool literal(const char (&Text)[N]) {
    constexpr size_t Size = N - 1;
    if (size_t(End - P) < Size || std::memcmp(P, Text, Size) != 0)
      return false;
    P += Size;
    return true;
  }

  bool string(std::string_view &Out) {
    if (P == End || *P != '"')
      return false;
    const char *Close = findQuote(P + 1);
    if (!Close)
      return false;
    Out = std::string_view(P + 1, Close - P - 1);
    P = Close + 1;
    return true;
  }

  /// A string, or null (\p Out empty, \p IsNull set).
  bool stringOrNull(std::string_view &Out, bool &IsNull) {
    IsNull = literal("null");
    if (IsNull) {
      Out = {};
      return true;
    }
    return string(Out);
  }

  /// JSON's integer grammar, -?(0|[1-9][0-9]*), at most 18 digits (so that
  /// it fits int64_t); a fraction or exponent is left for the caller's next
  /// literal to refuse.
  bool integer(int64_t &Out) {
    bool Negative = P != End && *P == '-';
    const char *Digits = P + Negative;
    const char *After = Digits;
    while (After != End && *After >= '0' && *After <= '9')
      ++After;
    size_t Count = After - Digits;
    if (Count == 0 || Count > 18 || (Count > 1 && *Digits == '0'))
      return false;
    int64_t Value = 0;
    for (const char *D = Digits; D != After; ++D)
      Value = Value * 10 + (*D - '0');
    Out = Negative ? -Value : Value;
    P = After;
    return true;
  }

private:
  /// The first '"' at or after \p From and before End (strings are short:
  /// 16 bytes at a time, inline, reading at most 15 bytes past End).
  const char *findQuote(const char *From) const {
#if defined(__SSE2__)
    const __m128i Quote = _mm_set1_epi8('"');
    for (; From < End; From += 16) {
      unsigned Mask = unsigned(_mm_movemask_epi8(_mm_cmpeq_epi8(
          _mm_loadu_si128(reinterpret_cast<const __m128i *>(From)), Quote)));
      if (Mask) {
        const char *Found = From + __builtin_ctz(Mask);
        return Found < End ? Found : nullptr;
      }
    }
    return nullptr;
#else
    return static_cast<const char *>(std::memchr(From, '"', End - From));
#endif
  }

  const char *P, *End;
};

} // namespace

bool scanRuntimeLogHead(const char *Data, size_t Length, LogHead &Out) {
  Cursor C(Data, Length);
  if (!C.literal("{\"event\":") || !C.string(Out.Event) || Out.Event.empty() ||
      !C.literal(",\"time\":") || !C.string(Out.Time) || !isIsoTime(Out.Time))
    return false;
  Out.TailOffset = C.offset(Data);
  return true;
}

bool parseRuntimeLogHead(const char *Data, size_t Length, LogLine &Out,
                         size_t &TailOffset) {
  // The check comes last: the head's end was unknown before. It ends on an
  // ASCII '"', so the line is valid UTF-8 when the head and tail both are.
  LogHead Head;
  if (!scanRuntimeLogHead(Data, Length, Head) ||
      !isPlainText(Data, Head.TailOffset))
    return false;
  Out.Event = Head.Event;
  Out.Time = Head.Time;
  TailOffset = Head.TailOffset;
  return true;
}

bool parseRuntimeLogTail(const char *Data, size_t Length, LogLine &Out) {
  if (!isPlainText(Data, Length))
    return false;
  Cursor C(Data, Length);
  bool IsNull = false;
  int64_t Rank = 0;
  std::string_view RankText;
  if (!C.literal(",\"pid\":") || !C.integer(Out.Pid) ||
      !C.literal(",\"host\":") || !C.stringOrNull(Out.Host, IsNull) ||
      !C.literal(",\"exe\":") || !C.stringOrNull(Out.Exe, IsNull) ||
      !C.literal(",\"rank\":"))
    return false;
  // The rank is not counted: null, an integer or a string.
  if (!C.literal("null") && !C.integer(Rank) && !C.string(RankText))
    return false;
  if (!C.literal(",\"job_id\":") || !C.stringOrNull(Out.Job, IsNull) ||
      !C.literal("}") || !C.atEnd())
    return false;
  Out.HasJob = !IsNull;
  return true;
}

bool parseRuntimeLogLine(const char *Data, size_t Length, LogLine &Out) {
  size_t TailOffset = 0;
  return parseRuntimeLogHead(Data, Length, Out, TailOffset) &&
         parseRuntimeLogTail(Data + TailOffset, Length - TailOffset, Out);
}

namespace {

/// A key the report reads.
enum class LogKey { Event, Time, Pid, Host, Exe, Job, Other };

/// \p Key's field. Compared at sizes known here, inline: memcmp called at
/// a size known at run time was 9% of reading a collector's line (ten keys
/// or more).
LogKey keyOf(std::string_view Key) {
  auto Is = [&](const auto &Name) {
    constexpr size_t Size = sizeof(Name) - 1;
    return Key.size() == Size && std::memcmp(Key.data(), Name, Size) == 0;
  };
  return Is("event")    ? LogKey::Event
         : Is("time")   ? LogKey::Time
         : Is("pid")    ? LogKey::Pid
         : Is("host")   ? LogKey::Host
         : Is("exe")    ? LogKey::Exe
         : Is("job_id") ? LogKey::Job
                        : LogKey::Other;
}

} // namespace

static_assert(LogLinePadding >= simdjson::SIMDJSON_PADDING,
              "the padding callers leave must be simdjson's");

LogLineParser::LogLineParser()
    : Parser(std::make_unique<simdjson::dom::parser>()) {}
LogLineParser::~LogLineParser() = default;

LogLineError LogLineParser::readJob(const simdjson::dom::element &Value,
                                    LogLine &Out) {
  using Type = simdjson::dom::element_type;
  Type T = Value.type();
  Out.HasJob = T != Type::NULL_VALUE;
  Out.Job = {};
  if (T == Type::STRING) {
    Out.Job = Value.get_string().value_unsafe();
  } else if (T == Type::INT64 || T == Type::UINT64) {
    JobNumber = T == Type::INT64
                    ? std::to_string(Value.get_int64().value_unsafe())
                    : std::to_string(Value.get_uint64().value_unsafe());
    Out.Job = JobNumber;
  } else if (T != Type::NULL_VALUE) {
    return LogLineError::BadJob;
  }
  return LogLineError::None;
}

LogLineError LogLineParser::parse(const char *Data, size_t Length,
                                  size_t Capacity, LogLine &Out) {
  Out = LogLine();
  simdjson::dom::element Doc;
  if (Parser
          ->parse(Data, Length,
                  /*realloc_if_needed=*/Capacity <
                      Length + simdjson::SIMDJSON_PADDING)
          .get(Doc))
    return LogLineError::NotJson;
  simdjson::dom::object Object;
  if (Doc.get_object().get(Object))
    return LogLineError::NotObject;
  bool HasEvent = false, HasTime = false, HasPid = false;
  for (simdjson::dom::key_value_pair Field : Object) {
    simdjson::dom::element Value = Field.value;
    LogKey Key = keyOf(Field.key);
    switch (Key) {
    case LogKey::Event:
      if (Value.get_string().get(Out.Event) || Out.Event.empty())
        return LogLineError::BadEvent;
      HasEvent = true;
      break;
    case LogKey::Time:
      if (Value.get_string().get(Out.Time))
        return LogLineError::BadTime;
      if (!isIsoTime(Out.Time))
        return LogLineError::TimeNotIso;
      HasTime = true;
      break;
    case LogKey::Pid:
      if (Value.get_int64().get(Out.Pid))
        return LogLineError::BadPid;
      HasPid = true;
      break;
    case LogKey::Host:
    case LogKey::Exe: {
      bool IsHost = Key == LogKey::Host;
      std::string_view &Into = IsHost ? Out.Host : Out.Exe;
      Into = {};
      if (!Value.is_null() && Value.get_string().get(Into))
        return IsHost ? LogLineError::BadHost : LogLineError::BadExe;
      break;
    }
    case LogKey::Job:
      if (LogLineError Error = readJob(Value, Out); Error != LogLineError::None)
        return Error;
      break;
    case LogKey::Other:
      break;
    }
  }
  if (!HasEvent)
    return LogLineError::NoEvent;
  if (!HasTime)
    return LogLineError::NoTime;
  if (!HasPid)
    return LogLineError::NoPid;
  return LogLineError::None;
}

} // namespace apistamp
