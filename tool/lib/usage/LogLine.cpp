//===- LogLine.cpp - The fields of one API usage log line -----------------===//

#include "LogLine.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/Compiler.h"
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <simdjson.h>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
// A template fitted as two segments, 64 bytes a step, where the CPU has
// AVX2, BMI1 and BMI2 (checked on first use; run by run otherwise).
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#define APISTAMP_AVX2_SEGMENTS 1
#define APISTAMP_TARGET_AVX2 __attribute__((target("avx2,bmi,bmi2")))
#include <immintrin.h>
#else
#define APISTAMP_AVX2_SEGMENTS 0
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
  if (Time.size() < 10 || Time[4] != '-' || Time[7] != '-' ||
      (Time.size() > 10 && Time[10] != 'T'))
    return false;
  for (size_t I : {0, 1, 2, 3, 5, 6, 8, 9})
    if (Time[I] < '0' || Time[I] > '9')
      return false;
  return true;
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

/// True when the \p Length bytes at \p Data hold no control character
/// (JSON allows none in a string; a tab or a '\r' between tokens is left
/// to simdjson) and are valid UTF-8. Reads up to 15 bytes past \p Length.
bool isTextWithoutControls(const char *Data, size_t Length) {
#if defined(__SSE2__)
  const __m128i Space = _mm_set1_epi8(0x20);
  unsigned Control = 0, High = 0;
  for (size_t I = 0; I < Length; I += 16) {
    __m128i Bytes =
        _mm_loadu_si128(reinterpret_cast<const __m128i *>(Data + I));
    // Signed: bytes >= 0x80 are below 0x20 too; their sign bits tell them.
    unsigned Below = unsigned(_mm_movemask_epi8(_mm_cmplt_epi8(Bytes, Space)));
    unsigned Signs = unsigned(_mm_movemask_epi8(Bytes));
    unsigned Keep = Length - I < 16 ? (1u << (Length - I)) - 1 : 0xFFFFu;
    Control |= Below & ~Signs & Keep;
    High |= Signs & Keep;
  }
  if (Control)
    return false;
  return !High || simdjson::validate_utf8(Data, Length);
#else
  for (size_t I = 0; I < Length; ++I)
    if (uint8_t(Data[I]) < 0x20)
      return false;
  return simdjson::validate_utf8(Data, Length);
#endif
}

/// The first '"' or '\\' at or after \p From, before \p End, or null.
/// Reads up to 15 bytes past \p End.
const char *findQuoteOrBackslash(const char *From, const char *End) {
#if defined(__SSE2__)
  const __m128i Quote = _mm_set1_epi8('"'), Backslash = _mm_set1_epi8('\\');
  for (; From < End; From += 16) {
    __m128i Bytes = _mm_loadu_si128(reinterpret_cast<const __m128i *>(From));
    unsigned Mask = unsigned(_mm_movemask_epi8(_mm_or_si128(
        _mm_cmpeq_epi8(Bytes, Quote), _mm_cmpeq_epi8(Bytes, Backslash))));
    if (Mask) {
      const char *Found = From + __builtin_ctz(Mask);
      return Found < End ? Found : nullptr;
    }
  }
  return nullptr;
#else
  for (; From < End; ++From)
    if (*From == '"' || *From == '\\')
      return From;
  return nullptr;
#endif
}

#if defined(__SSE2__)
/// A bit for each of 64 bytes: the bits of the sign of \p Block (0 to 3,
/// the bytes 16 * Block to 16 * Block + 15), block by block.
template <typename BlockFn>
LLVM_ATTRIBUTE_ALWAYS_INLINE uint64_t bits64(BlockFn Block) {
  uint64_t Bits = 0;
  for (int I = 0; I < 4; ++I)
    Bits |= uint64_t(unsigned(_mm_movemask_epi8(Block(I)))) << (16 * I);
  return Bits;
}

/// The 16 bytes at \p At.
LLVM_ATTRIBUTE_ALWAYS_INLINE __m128i load16(const char *At) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i *>(At));
}
#endif

/// The first '"', '\\' or control character at or after \p From, before
/// \p End, or null; \p High set when a byte >= 0x80 comes before it.
/// Reads up to 15 bytes past \p End.
LLVM_ATTRIBUTE_ALWAYS_INLINE const char *
findStringEnd(const char *From, const char *End, bool &High) {
  High = false;
#if defined(__SSE2__)
  const __m128i Quote = _mm_set1_epi8('"'), Backslash = _mm_set1_epi8('\\'),
                Space = _mm_set1_epi8(0x20);
  for (; From < End; From += 16) {
    __m128i Bytes = load16(From);
    // Signed: bytes >= 0x80 are below 0x20 too; their sign bits tell them.
    unsigned Signs = unsigned(_mm_movemask_epi8(Bytes));
    unsigned Special =
        (unsigned(_mm_movemask_epi8(_mm_cmplt_epi8(Bytes, Space))) & ~Signs) |
        unsigned(_mm_movemask_epi8(_mm_or_si128(
            _mm_cmpeq_epi8(Bytes, Quote), _mm_cmpeq_epi8(Bytes, Backslash))));
    if (Special) {
      unsigned At = __builtin_ctz(Special);
      High |= (Signs & ((1u << At) - 1)) != 0;
      const char *Found = From + At;
      return Found < End ? Found : nullptr;
    }
    High |= Signs != 0;
  }
  return nullptr;
#else
  for (; From < End; ++From) {
    if (*From == '"' || *From == '\\' || uint8_t(*From) < 0x20)
      return From;
    High |= uint8_t(*From) >= 0x80;
  }
  return nullptr;
#endif
}

/// isIsoTime on a time with 15 readable bytes after it, 16 bytes at once.
LLVM_ATTRIBUTE_ALWAYS_INLINE bool isIsoTimePadded(std::string_view Time) {
#if defined(__SSE2__)
  if (Time.size() < 10)
    return false;
  __m128i Bytes = load16(Time.data());
  // Digits are the bytes that, less '0', are below 10 (signed: from -128).
  __m128i Shifted = _mm_sub_epi8(Bytes, _mm_set1_epi8(char('0' - 128)));
  unsigned Digits = unsigned(_mm_movemask_epi8(
      _mm_cmplt_epi8(Shifted, _mm_set1_epi8(char(-128 + 10)))));
  unsigned Dashes =
      unsigned(_mm_movemask_epi8(_mm_cmpeq_epi8(Bytes, _mm_set1_epi8('-'))));
  constexpr unsigned DigitsAt = 0x36F, DashesAt = 0x90; // YYYY-MM-DD
  return (Digits & DigitsAt) == DigitsAt && (Dashes & DashesAt) == DashesAt &&
         (Time.size() == 10 || Time[10] == 'T');
#else
  return isIsoTime(Time);
#endif
}

/// True when the \p Length bytes at \p A and \p B are the same, 64 at a
/// time, stopping at the first block that differs. Reads up to 31 bytes
/// past \p Length at both: for a template's runs between two lines of a
/// buffer with LogLinePadding after it. equalPadded, for the short compares
/// of names and tails that have EqualPaddedBlock bytes of padding, reads
/// 15 past: with it, a collector line took about 5 ns more.
LLVM_ATTRIBUTE_ALWAYS_INLINE bool equalRun(const char *A, const char *B,
                                           size_t Length) {
#if defined(__SSE2__)
  auto Same32 = [&](size_t At) {
    return _mm_and_si128(
        _mm_cmpeq_epi8(load16(A + At), load16(B + At)),
        _mm_cmpeq_epi8(load16(A + At + 16), load16(B + At + 16)));
  };
  size_t I = 0;
  for (; I + 64 <= Length; I += 64)
    if (unsigned(_mm_movemask_epi8(_mm_and_si128(Same32(I), Same32(I + 32)))) !=
        0xFFFFu)
      return false;
  if (I + 32 <= Length) {
    if (unsigned(_mm_movemask_epi8(Same32(I))) != 0xFFFFu)
      return false;
    I += 32;
  }
  if (I == Length)
    return true;
  uint32_t Same = unsigned(_mm_movemask_epi8(
                      _mm_cmpeq_epi8(load16(A + I), load16(B + I)))) |
                  (unsigned(_mm_movemask_epi8(
                       _mm_cmpeq_epi8(load16(A + I + 16), load16(B + I + 16))))
                   << 16);
  uint32_t Kept = (uint32_t(1) << (Length - I)) - 1; // Length - I < 32.
  return (~Same & Kept) == 0;
#else
  return std::memcmp(A, B, Length) == 0;
#endif
}

/// The closing quote of a string at \p From that is likely \p Expected
/// bytes long (a time's, a process's event's), when its bytes are plain:
/// no '"', '\\' or control character, and valid UTF-8; else as
/// findStringEnd, on a line that ends before \p End. Reads up to 31 bytes
/// past \p From + \p Expected, and 15 past \p End.
LLVM_ATTRIBUTE_ALWAYS_INLINE const char *findExpectedStringEnd(const char *From,
                                                               const char *End,
                                                               size_t Expected,
                                                               bool &High) {
#if defined(__SSE2__)
  if (Expected < 32 && From + Expected < End && From[Expected] == '"') {
    const __m128i Quote = _mm_set1_epi8('"'), Backslash = _mm_set1_epi8('\\'),
                  Space = _mm_set1_epi8(0x20);
    auto Special = [&](__m128i Bytes) {
      // Signed: a byte >= 0x80 is below 0x20 too, and tells High.
      return unsigned(_mm_movemask_epi8(
          _mm_or_si128(_mm_cmplt_epi8(Bytes, Space),
                       _mm_or_si128(_mm_cmpeq_epi8(Bytes, Quote),
                                    _mm_cmpeq_epi8(Bytes, Backslash)))));
    };
    uint32_t Any = Special(load16(From)) | (Special(load16(From + 16)) << 16);
    if ((Any & ((uint32_t(1) << Expected) - 1)) == 0) {
      High = false;
      return From + Expected;
    }
  }
#endif
  return findStringEnd(From, End, High);
}

/// A number in JSON's grammar at \p P, which it moves past it: an integer
/// of at most 18 digits (\p Value set, \p Integer true), or one with a
/// fraction (at most 64 digits). An exponent, or more digits, is left to
/// simdjson's range checks.
LLVM_ATTRIBUTE_ALWAYS_INLINE bool scanNumber(const char *&P, const char *End,
                                             bool &Integer, int64_t &Value) {
  bool Negative = P != End && *P == '-';
  const char *Digits = P + Negative, *After = Digits;
  while (After != End && *After >= '0' && *After <= '9')
    ++After;
  size_t Count = After - Digits;
  if (Count == 0 || Count > 18 || (Count > 1 && *Digits == '0'))
    return false;
  int64_t V = 0;
  for (const char *D = Digits; D != After; ++D)
    V = V * 10 + (*D - '0');
  Integer = true;
  if (After != End && *After == '.') {
    const char *Fraction = ++After;
    while (After != End && *After >= '0' && *After <= '9')
      ++After;
    if (After == Fraction || After - Fraction > 64)
      return false;
    Integer = false;
  }
  if (After != End && (*After == 'e' || *After == 'E'))
    return false;
  Value = Negative ? -V : V;
  P = After;
  return true;
}

/// The fields a line's keys may name, a bit each.
enum Field : unsigned {
  Other = 0,
  Event = 1,
  Time = 2,
  Pid = 4,
  Host = 8,
  Exe = 16,
  Job = 32
};

/// A value of a line that another line of the same shape may hold
/// otherwise: a string's bytes between its quotes, or a number.
struct Hole {
  uint32_t Start, End;
  bool IsString;
  Field Of; ///< The needed field it is, or Other.
};

/// Validates one JSON object in any key order, skipping the values that
/// are not needed and taking the ones that are (parseAnyOrderLogLine).
/// Every step returns false when it is not sure the line is valid or how
/// simdjson would read it: the caller then asks simdjson. The line has no
/// control character and is valid UTF-8 (isTextWithoutControls): the only
/// whitespace is ' ', and a '"' or '\\' is never inside a multi-byte
/// character.
class AnyOrderScanner {
public:
  /// \p Holes, when given, gets the line's values (AnyOrderLogParser).
  AnyOrderScanner(const char *Data, size_t Length,
                  std::vector<Hole> *Holes = nullptr)
      : Begin(Data), P(Data), End(Data + Length), Holes(Holes) {}

  bool line(LogLine &Out);

private:
  /// Nesting deeper than this is left to simdjson.
  static constexpr unsigned MaxDepth = 16;

  static Field fieldOf(std::string_view Key) {
    switch (Key.size()) {
    case 3:
      return Key == "pid" ? Pid : Key == "exe" ? Exe : Other;
    case 4:
      return Key == "time" ? Time : Key == "host" ? Host : Other;
    case 5:
      return Key == "event" ? Event : Other;
    case 6:
      return Key == "job_id" ? Job : Other;
    default:
      return Other;
    }
  }

  void spaces() {
    while (P < End && *P == ' ')
      ++P;
  }

  bool expect(char C) {
    if (P == End || *P != C)
      return false;
    ++P;
    return true;
  }

  template <size_t N> bool literal(const char (&Text)[N]) {
    constexpr size_t Size = N - 1;
    if (size_t(End - P) < Size || std::memcmp(P, Text, Size) != 0)
      return false;
    P += Size;
    return true;
  }

  /// A string: \p Out its bytes between the quotes, \p Escaped whether
  /// they hold an escape (JSON's: \" \\ \/ \b \f \n \r \t \uXXXX; a
  /// surrogate's \u is left to simdjson).
  bool string(std::string_view &Out, bool &Escaped) {
    if (P == End || *P != '"')
      return false;
    const char *Start = ++P;
    Escaped = false;
    for (;;) {
      const char *Found = findQuoteOrBackslash(P, End);
      if (!Found)
        return false;
      if (*Found == '"') {
        Out = std::string_view(Start, Found - Start);
        P = Found + 1;
        return true;
      }
      Escaped = true;
      P = Found + 1;
      if (P == End)
        return false;
      switch (*P) {
      case '"':
      case '\\':
      case '/':
      case 'b':
      case 'f':
      case 'n':
      case 'r':
      case 't':
        ++P;
        break;
      case 'u': {
        if (End - P < 5)
          return false;
        unsigned Code = 0;
        for (int I = 1; I <= 4; ++I) {
          char H = P[I], Lower = char(H | 0x20);
          unsigned Digit;
          if (H >= '0' && H <= '9')
            Digit = unsigned(H - '0');
          else if (Lower >= 'a' && Lower <= 'f')
            Digit = unsigned(Lower - 'a' + 10);
          else
            return false;
          Code = Code * 16 + Digit;
        }
        if (Code >= 0xD800 && Code <= 0xDFFF)
          return false;
        P += 5;
        break;
      }
      default:
        return false;
      }
    }
  }

  bool number(bool &Integer, int64_t &Value) {
    return scanNumber(P, End, Integer, Value);
  }

  /// Any value, skipped; \p Depth: the containers it is in.
  bool value(unsigned Depth) {
    if (P == End)
      return false;
    switch (*P) {
    case '"': {
      std::string_view Text;
      bool Escaped;
      return valueString(Text, Escaped, Other);
    }
    case '{':
      return Depth < MaxDepth && object(Depth + 1);
    case '[':
      return Depth < MaxDepth && array(Depth + 1);
    case 't':
      return literal("true");
    case 'f':
      return literal("false");
    case 'n':
      return literal("null");
    default: {
      bool Integer;
      int64_t Number;
      return valueNumber(Integer, Number, Other);
    }
    }
  }

  bool object(unsigned Depth) {
    ++P; // '{'
    spaces();
    if (expect('}'))
      return true;
    for (;;) {
      std::string_view Key;
      bool Escaped;
      if (!string(Key, Escaped))
        return false;
      spaces();
      if (!expect(':'))
        return false;
      spaces();
      if (!value(Depth))
        return false;
      spaces();
      if (!expect(','))
        return expect('}');
      spaces();
    }
  }

  bool array(unsigned Depth) {
    ++P; // '['
    spaces();
    if (expect(']'))
      return true;
    for (;;) {
      if (!value(Depth))
        return false;
      spaces();
      if (!expect(','))
        return expect(']');
      spaces();
    }
  }

  /// An unescaped string, or null (\p Out empty, \p IsNull set).
  bool plainStringOrNull(std::string_view &Out, bool &IsNull, Field Of) {
    IsNull = literal("null");
    if (IsNull) {
      Out = {};
      return true;
    }
    bool Escaped;
    return valueString(Out, Escaped, Of) && !Escaped;
  }

  void hole(const char *Start, const char *Stop, bool IsString, Field Of) {
    if (Holes)
      Holes->push_back(
          {uint32_t(Start - Begin), uint32_t(Stop - Begin), IsString, Of});
  }

  /// A value string, a hole; \p Out and \p Escaped as string() sets them.
  bool valueString(std::string_view &Out, bool &Escaped, Field Of) {
    if (!string(Out, Escaped))
      return false;
    hole(Out.data(), Out.data() + Out.size(), true, Of);
    return true;
  }

  /// A value number, a hole.
  bool valueNumber(bool &Integer, int64_t &Value, Field Of) {
    const char *Start = P;
    if (!number(Integer, Value))
      return false;
    hole(Start, P, false, Of);
    return true;
  }

  const char *Begin, *P, *End;
  std::vector<Hole> *Holes;
};

bool AnyOrderScanner::line(LogLine &Out) {
  Out = LogLine();
  spaces();
  if (!expect('{'))
    return false;
  spaces();
  unsigned Seen = 0;
  for (;;) {
    std::string_view Key;
    bool Escaped;
    // An escaped key may spell a needed one: simdjson decides.
    if (!string(Key, Escaped) || Escaped)
      return false;
    spaces();
    if (!expect(':'))
      return false;
    spaces();
    Field F = fieldOf(Key);
    // A needed key twice: simdjson checks every one and keeps the last.
    if (Seen & F)
      return false;
    Seen |= F;
    bool Ok = false, IsNull = false, Integer = false;
    switch (F) {
    case Other:
      Ok = value(1);
      break;
    case Event:
      Ok = valueString(Out.Event, Escaped, Event) && !Escaped &&
           !Out.Event.empty();
      break;
    case Time:
      Ok = valueString(Out.Time, Escaped, Time) && !Escaped &&
           isIsoTime(Out.Time);
      break;
    case Pid:
      Ok = valueNumber(Integer, Out.Pid, Pid) && Integer;
      break;
    case Host:
      Ok = plainStringOrNull(Out.Host, IsNull, Host);
      break;
    case Exe:
      Ok = plainStringOrNull(Out.Exe, IsNull, Exe);
      break;
    case Job:
      Ok = plainStringOrNull(Out.Job, IsNull, Job);
      Out.HasJob = !IsNull;
      break;
    }
    if (!Ok)
      return false;
    spaces();
    if (!expect(',')) {
      if (!expect('}'))
        return false;
      break;
    }
    spaces();
  }
  spaces();
  constexpr unsigned Required = Event | Time | Pid;
  return P == End && (Seen & Required) == Required;
}

} // namespace

bool parseAnyOrderLogLine(const char *Data, size_t Length, LogLine &Out) {
  if (!isTextWithoutControls(Data, Length))
    return false;
  AnyOrderScanner Scanner(Data, Length);
  return Scanner.line(Out);
}

/// A line the scanner accepted, and its holes: a line that has its bytes
/// but for what is in the holes (plain strings, numbers) is valid too.
struct AnyOrderLogParser::Shape {
  std::string Bytes; ///< The line, and EqualPaddedBlock bytes of padding.
  size_t Length = 0; ///< 0: no line yet.
  std::vector<Hole> Holes;
  /// The hole of each needed field (Event, Time, Pid, Host, Exe, Job, by
  /// the bit that Field sets), or NoHole: null, or more holes than a line
  /// followed has.
  uint8_t FieldHoles[6];
  static constexpr uint8_t NoHole = 0xFF;
  /// The holes seen to differ between two lines of a process, a bit each
  /// (the times, the event): a template's holes.
  uint32_t ProcessVarying = 0;
};

namespace {

/// The holes of a line that parseKnownShape follows: a shape with more is
/// not followed.
constexpr size_t MaxFollowHoles = 16;
/// The bytes before a line's newline that choose what line it follows.
constexpr size_t FollowKeyBytes = 32;
/// The varying holes of a template: a process whose lines differ in more
/// is followed hole by hole.
constexpr size_t MaxTemplateHoles = 4;
/// The 64-byte blocks of a segment that fitsSegments compares: a template
/// with a longer one is fitted run by run.
constexpr size_t SegmentBlocks = 6;

} // namespace

/// A line of a shape that parseKnownShape took, in a buffer still
/// readable (Generation), where its holes are, and its keys: the next line
/// that ends in the same bytes is compared with it. What a line that fits
/// the template reads is in the first cache line.
struct alignas(64) AnyOrderLogParser::Follow {
  /// The parser's generation when it was stored (0: empty): the lines and
  /// the shape in its slot then.
  uint32_t Generation = 0;
  uint32_t Slot = 0; ///< The shape's slot.

  /// The process's template: the line it was made of, in the same
  /// buffer, and where its holes that differ from line to line are
  /// (Varying of them; 0: no template). The bytes between those holes are
  /// the process's: a line that has them, and a string or a number in each
  /// of those holes, is valid (as fitsShape's lines are).
  const char *TemplateLine = nullptr;
  uint32_t TemplateLength = 0;
  uint8_t Varying = 0;
  /// The varying holes of the event and the time.
  uint8_t EventHole = 0, TimeHole = 0;
  bool HasJob = false;
  uint16_t VaryingStarts[MaxTemplateHoles], VaryingEnds[MaxTemplateHoles];
  /// Whether each varying hole holds a string (else a number).
  bool VaryingIsString[MaxTemplateHoles];
  /// Where the host, exe and job_id are on a line that fits: after the
  /// varying hole After - 1 ends (the line's start for 0), Offset bytes
  /// on; Length 0 when the line has none (null).
  struct Constant {
    uint8_t After = 0;
    uint16_t Offset = 0, Length = 0;
  } ConstantHost, ConstantExe, ConstantJob;

  int64_t Pid = 0;
  ProcessKeys Keys;
  const char *Line = nullptr;
  uint32_t Length = 0; ///< Without the newline.
  /// Where each of the shape's holes starts and ends on the line.
  uint16_t Starts[MaxFollowHoles], Ends[MaxFollowHoles];

  /// The template as two segments, the bytes before the event and those
  /// after it (fitsSegments): a line whose other varying holes (strings)
  /// are as long as on the template line is the template line's bytes but
  /// in those holes, which are plain. Usable when the template has them.
  struct Segments {
    /// The event's start and its closing quote on the template line.
    uint16_t EventStart = 0, EventEnd = 0;
    /// Where the time, host, exe and job_id are on a line that fits: from
    /// its start, or (AfterEvent) from the event's closing quote.
    struct Place {
      uint16_t At = 0, Length = 0;
      bool AfterEvent = false;
    } Time, Host, Exe, Job;
    /// A bit for each byte of a segment that a varying hole holds, 64 a
    /// word: those bytes may differ from the template line's.
    uint64_t Holes[2][SegmentBlocks];
    bool Usable = false;
  } Split;
};

static_assert(offsetof(AnyOrderLogParser::Follow, Pid) <= 64,
              "a template's fields fill the first cache line");

AnyOrderLogParser::AnyOrderLogParser()
    : Shapes(std::make_unique<Shape[]>(ShapeCount + 1)),
      Follows(std::make_unique<Follow[]>(size_t(1) << FollowBits)),
      Segmented(cpuFitsSegments()) {}

void AnyOrderLogParser::fitSegments(bool Use) {
  Segmented = Use && cpuFitsSegments();
}

bool AnyOrderLogParser::cpuFitsSegments() {
#if APISTAMP_AVX2_SEGMENTS
  static const bool Fits = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
           __builtin_cpu_supports("bmi2");
  }();
  return Fits;
#else
  return false;
#endif
}
AnyOrderLogParser::~AnyOrderLogParser() = default;

void AnyOrderLogParser::forgetLines() {
  if (++Generation)
    return;
  // Wrapped around: no entry may claim a generation to come.
  for (size_t I = 0; I < (size_t(1) << FollowBits); ++I)
    Follows[I].Generation = 0;
  Generation = 1;
}

namespace {

/// Sets \p Out's field \p Of to \p Value, which a shape's hole holds,
/// when it is good there (an event not empty, an ISO time).
LLVM_ATTRIBUTE_ALWAYS_INLINE bool takeField(Field Of, std::string_view Value,
                                            LogLine &Out) {
  switch (Of) {
  case Event:
    Out.Event = Value;
    return !Value.empty();
  case Time:
    Out.Time = Value;
    return isIsoTimePadded(Value);
  case Host:
    Out.Host = Value;
    return true;
  case Exe:
    Out.Exe = Value;
    return true;
  case Job:
    Out.Job = Value;
    Out.HasJob = true;
    return true;
  default:
    return true;
  }
}

/// Reads the value that fills hole \p H at \p At, on a line that ends
/// before \p End: a string's bytes up to its closing quote (no escape, no
/// control character, valid UTF-8) or a number in JSON's grammar, and
/// takes it into \p Out when it is a needed field that is good. Returns
/// where it ends (a string's closing quote), or null. A string is likely
/// \p Expected bytes long.
LLVM_ATTRIBUTE_ALWAYS_INLINE const char *readHole(const Hole &H, const char *At,
                                                  const char *End, LogLine &Out,
                                                  size_t Expected = SIZE_MAX) {
  if (H.IsString) {
    bool High = false;
    const char *Close = findExpectedStringEnd(At, End, Expected, High);
    if (!Close || *Close != '"' ||
        (High && !simdjson::validate_utf8(At, Close - At)) ||
        !takeField(H.Of, std::string_view(At, Close - At), Out))
      return nullptr;
    return Close;
  }
  bool Integer = false;
  int64_t Value = 0;
  if (!scanNumber(At, End, Integer, Value))
    return nullptr;
  if (H.Of == Pid) {
    if (!Integer)
      return nullptr;
    Out.Pid = Value;
  }
  return At;
}

/// Takes the line of \p Length bytes at \p Data when it has \p S's
/// shape: its bytes are \p S's line's but in holes, which hold unescaped
/// strings (no control character, valid UTF-8) and numbers where \p S's
/// line's do, and the needed fields in them are good. The bytes it shares
/// with \p S's line were validated there: the bytes between two holes are
/// compared 16 at a time, and each hole read on the line (a sequence of
/// compares the same for every line of the shape, which the branch
/// predictor learns). With \p UntilNewline, \p Length bytes are readable
/// at \p Data, and the line is the one that a '\n' ends: \p LineLength is
/// set to its length. \p Starts and \p Ends, when given, get where the
/// holes are on the line.
bool fitsShape(const AnyOrderLogParser::Shape &S, const char *Data,
               size_t Length, LogLine &Out, bool UntilNewline,
               size_t &LineLength, uint16_t *Starts = nullptr,
               uint16_t *Ends = nullptr) {
  const char *Ref = S.Bytes.data();
  const char *End = Data + Length;
  size_t RefAt = 0;
  const char *At = Data;
  Out = LogLine();
  for (const Hole &H : S.Holes) {
    size_t Same = H.Start - RefAt;
    if (size_t(End - At) < Same || !equalPadded(Ref + RefAt, At, Same))
      return false;
    At += Same;
    RefAt = H.End;
    const char *Stop = readHole(H, At, End, Out);
    if (!Stop)
      return false;
    if (Starts) {
      *Starts++ = uint16_t(At - Data);
      *Ends++ = uint16_t(Stop - Data);
    }
    At = Stop;
  }
  size_t Same = S.Length - RefAt;
  if (size_t(End - At) < Same || !equalPadded(Ref + RefAt, At, Same))
    return false;
  At += Same;
  if (UntilNewline ? At < End && *At == '\n' : At == End) {
    LineLength = At - Data;
    return true;
  }
  return false;
}

/// How many bytes \p A and \p B share from their start, at most
/// \p Length. Reads 64 bytes at a time: up to 63 past \p Length at both.
LLVM_ATTRIBUTE_ALWAYS_INLINE size_t sharedPrefix(const char *A, const char *B,
                                                 size_t Length) {
#if defined(__SSE2__)
  for (size_t I = 0; I < Length; I += 64) {
    uint64_t Same = bits64([&](int Block) {
      size_t At = I + 16 * Block;
      return _mm_cmpeq_epi8(load16(A + At), load16(B + At));
    });
    if (~Same)
      return std::min(I + __builtin_ctzll(~Same), Length);
  }
  return Length;
#else
  size_t I = 0;
  while (I < Length && A[I] == B[I])
    ++I;
  return I;
#endif
}

/// Takes the line of \p Length bytes at \p Data when it has the shape of
/// \p F's line, \p S: its bytes are \p F's line's but in holes, which are
/// read where the two lines differ (readHole), and taken as \p F's line's
/// where they do not (the same bytes and the byte after them). \p F then
/// follows the line; \p SameProcess is set when the holes of its host,
/// exe, pid and job_id were \p F's line's. On false, \p F is left half
/// updated.
bool followLine(AnyOrderLogParser::Follow &F, const AnyOrderLogParser::Shape &S,
                const char *Data, size_t Length, LogLine &Out,
                bool &SameProcess, uint32_t &Differed) {
  const char *Ref = F.Line;
  const Hole *Holes = S.Holes.data();
  size_t Count = S.Holes.size(), RefAt = 0, At = 0, K = 0;
  unsigned Read = 0; // The needed fields read on the line.
  Differed = 0;
  Out = LogLine();
  for (;;) {
    size_t Equal = sharedPrefix(Ref + RefAt, Data + At,
                                std::min(F.Length - RefAt, Length - At));
    RefAt += Equal;
    At += Equal;
    // The holes up to the first difference, their ends included, hold the
    // same values at the same distance from it.
    ptrdiff_t Shift = ptrdiff_t(At) - ptrdiff_t(RefAt);
    for (; K < Count && F.Ends[K] < RefAt; ++K) {
      F.Starts[K] = uint16_t(F.Starts[K] + Shift);
      F.Ends[K] = uint16_t(F.Ends[K] + Shift);
    }
    if (RefAt == F.Length)
      break;
    // A difference in the bytes between holes, or where the line ended.
    if (K == Count || RefAt < F.Starts[K])
      return false;
    const char *Start = Data + (F.Starts[K] + Shift);
    const char *Stop = readHole(Holes[K], Start, Data + Length, Out);
    if (!Stop)
      return false;
    Read |= Holes[K].Of;
    Differed |= uint32_t(1) << K;
    RefAt = F.Ends[K];
    At = Stop - Data;
    F.Starts[K] = uint16_t(Start - Data);
    F.Ends[K] = uint16_t(At);
    ++K;
  }
  if (At != Length)
    return false;
  // The needed fields not read are the same bytes as the last line's.
  auto Value = [&](Field Of) {
    unsigned H = S.FieldHoles[__builtin_ctz(Of)];
    return H == AnyOrderLogParser::Shape::NoHole
               ? std::string_view()
               : std::string_view(Data + F.Starts[H], F.Ends[H] - F.Starts[H]);
  };
  if (!(Read & Event))
    Out.Event = Value(Event);
  if (!(Read & Time))
    Out.Time = Value(Time);
  if (!(Read & Host))
    Out.Host = Value(Host);
  if (!(Read & Exe))
    Out.Exe = Value(Exe);
  if (!(Read & Job)) {
    Out.Job = Value(Job);
    Out.HasJob =
        S.FieldHoles[__builtin_ctz(Job)] != AnyOrderLogParser::Shape::NoHole;
  }
  if (!(Read & Pid))
    Out.Pid = F.Pid;
  SameProcess = !(Read & (Pid | Host | Exe | Job));
  F.Line = Data;
  F.Length = uint32_t(Length);
  F.Pid = Out.Pid;
  return true;
}

/// The closing quote of the string at \p From, on a line that ends
/// before \p End, when it has no escape or control character and is
/// valid UTF-8 (findStringEnd): readPlainString's way for a string that is
/// long or not ASCII.
LLVM_ATTRIBUTE_ALWAYS_INLINE const char *readStringSlowly(const char *From,
                                                          const char *End) {
  bool High = false;
  const char *Close = findStringEnd(From, End, High);
  if (!Close || *Close != '"' ||
      (High && !simdjson::validate_utf8(From, Close - From)))
    return nullptr;
  return Close;
}

/// The closing quote of the string at \p From, on a line that ends
/// before \p End, when its bytes are plain (no '"', '\\' or control
/// character, valid UTF-8): up to 64 bytes are looked at once, a longer or
/// non-ASCII string as findStringEnd does. Reads up to 63 bytes past
/// \p From, and 15 past \p End.
LLVM_ATTRIBUTE_ALWAYS_INLINE const char *readPlainString(const char *From,
                                                         const char *End) {
#if defined(__SSE2__)
  const __m128i Quote = _mm_set1_epi8('"'), Backslash = _mm_set1_epi8('\\'),
                Space = _mm_set1_epi8(0x20);
  // Signed: a byte >= 0x80 is below 0x20 too, and is left to the slow path.
  auto Special = [&](const char *At) {
    __m128i Bytes = load16(At);
    return unsigned(_mm_movemask_epi8(
        _mm_or_si128(_mm_cmplt_epi8(Bytes, Space),
                     _mm_or_si128(_mm_cmpeq_epi8(Bytes, Quote),
                                  _mm_cmpeq_epi8(Bytes, Backslash)))));
  };
  for (const char *Block = From; Block < From + 64; Block += 32) {
    uint32_t Found = Special(Block) | (Special(Block + 16) << 16);
    if (Found) {
      const char *At = Block + __builtin_ctz(Found);
      if (*At == '"')
        return At < End ? At : nullptr;
      break;
    }
  }
#endif
  return readStringSlowly(From, End);
}

/// Sets \p Out's host, exe and job_id, where \p Place puts \p Host,
/// \p Exe and \p Job on the line, and its pid and whether it has a job,
/// \p F's: those of every line of the process.
template <typename PlaceFn, typename Where>
LLVM_ATTRIBUTE_ALWAYS_INLINE void
setProcessFields(const AnyOrderLogParser::Follow &F, LogLine &Out,
                 PlaceFn Place, const Where &Host, const Where &Exe,
                 const Where &Job) {
  Out.Host = Place(Host);
  Out.Exe = Place(Exe);
  Out.Job = Place(Job);
  Out.HasJob = F.HasJob;
  Out.Pid = F.Pid;
}

/// Takes the line of \p Length bytes at \p Data when it fits \p F's
/// template of \p N varying holes: the bytes between those holes are the
/// template line's, the holes hold unescaped strings (no control
/// character, valid UTF-8) and numbers where that line's do, the event
/// and the time are good. The host, exe and job_id are then at the places
/// the template says, the pid is F's. The runs between holes and where
/// the line's holes end stay in registers: \p N is a constant.
template <unsigned N>
LLVM_ATTRIBUTE_ALWAYS_INLINE bool fitsTemplate(AnyOrderLogParser::Follow &F,
                                               const char *Data, size_t Length,
                                               LogLine &Out) {
  const char *Ref = F.TemplateLine;
  const char *End = Data + Length;
  size_t RefAt = 0, At = 0;
  size_t Starts[N], Ends[N];
  for (unsigned K = 0; K < N; ++K) {
    size_t Run = F.VaryingStarts[K] - RefAt;
    if (At + Run > Length || !equalRun(Ref + RefAt, Data + At, Run))
      return false;
    At += Run;
    Starts[K] = At;
    const char *Stop;
    if (F.VaryingIsString[K]) {
      Stop = readPlainString(Data + At, End);
    } else {
      Stop = Data + At;
      bool Integer;
      int64_t Value;
      if (!scanNumber(Stop, End, Integer, Value))
        Stop = nullptr;
    }
    if (!Stop)
      return false;
    At = Ends[K] = size_t(Stop - Data);
    RefAt = F.VaryingEnds[K];
  }
  size_t Run = F.TemplateLength - RefAt;
  if (At + Run != Length || !equalRun(Ref + RefAt, Data + At, Run))
    return false;
  auto HoleAt = [&](unsigned K) {
    return std::string_view(Data + Starts[K], Ends[K] - Starts[K]);
  };
  Out.Event = HoleAt(F.EventHole);
  Out.Time = HoleAt(F.TimeHole);
  if (Out.Event.empty() || !isIsoTimePadded(Out.Time))
    return false;
  setProcessFields(
      F, Out,
      [&](const AnyOrderLogParser::Follow::Constant &C) {
        size_t From = (C.After ? Ends[C.After - 1] : 0) + C.Offset;
        return std::string_view(Data + From, C.Length);
      },
      F.ConstantHost, F.ConstantExe, F.ConstantJob);
  return true;
}

/// fitsTemplate with the template's count of varying holes made constant.
bool fitsAnyTemplate(AnyOrderLogParser::Follow &F, const char *Data,
                     size_t Length, LogLine &Out) {
  switch (F.Varying) {
  case 2:
    return fitsTemplate<2>(F, Data, Length, Out);
  case 3:
    return fitsTemplate<3>(F, Data, Length, Out);
  case 4:
    return fitsTemplate<4>(F, Data, Length, Out);
  default:
    return false; // None (0), or more than are worth a template.
  }
}

#if APISTAMP_AVX2_SEGMENTS
/// A bit for each of the 32 bytes at \p At that is a '"', '\\', control
/// character or >= 0x80 (signed: below 0x20 too).
APISTAMP_TARGET_AVX2 inline uint32_t notPlain32(__m256i Bytes) {
  return uint32_t(_mm256_movemask_epi8(_mm256_or_si256(
      _mm256_cmpgt_epi8(_mm256_set1_epi8(0x20), Bytes),
      _mm256_or_si256(_mm256_cmpeq_epi8(Bytes, _mm256_set1_epi8('"')),
                      _mm256_cmpeq_epi8(Bytes, _mm256_set1_epi8('\\'))))));
}

APISTAMP_TARGET_AVX2 inline __m256i load32(const char *At) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i *>(At));
}

/// True when the \p Length bytes at \p Line are \p Ref's but where
/// \p Holes' bits are set, and the bytes under those bits are plain
/// (notPlain32). Reads up to 63 bytes past \p Length at both.
APISTAMP_TARGET_AVX2 inline bool equalButHoles(const char *Ref,
                                               const char *Line, size_t Length,
                                               const uint64_t *Holes) {
  uint64_t Bad = 0;
  size_t At = 0;
  auto Masked = [&](uint64_t Hole, uint64_t Kept) APISTAMP_TARGET_AVX2 {
    __m256i Low = load32(Line + At), High = load32(Line + At + 32);
    uint64_t Same = uint32_t(_mm256_movemask_epi8(
                        _mm256_cmpeq_epi8(Low, load32(Ref + At)))) |
                    uint64_t(uint32_t(_mm256_movemask_epi8(
                        _mm256_cmpeq_epi8(High, load32(Ref + At + 32)))))
                        << 32;
    uint64_t Bits = ~Same & ~Hole;
    if (Hole)
      Bits |= (notPlain32(Low) | uint64_t(notPlain32(High)) << 32) & Hole;
    Bad |= Bits & Kept;
  };
  for (; At + 64 <= Length; At += 64) {
    uint64_t Hole = Holes[At / 64];
    if (Hole) {
      Masked(Hole, ~uint64_t(0));
      continue;
    }
    __m256i Same = _mm256_and_si256(
        _mm256_cmpeq_epi8(load32(Line + At), load32(Ref + At)),
        _mm256_cmpeq_epi8(load32(Line + At + 32), load32(Ref + At + 32)));
    Bad |= ~uint32_t(_mm256_movemask_epi8(Same));
  }
  if (At < Length)
    Masked(Holes[At / 64], _bzhi_u64(~uint64_t(0), unsigned(Length - At)));
  return Bad == 0;
}

/// Takes the line of \p Length bytes at \p Data when it fits \p F's
/// template as fitsTemplate would and its varying holes other than the
/// event are as long as on the template line: the bytes before the event,
/// the event, the bytes after it. False for any other line, which
/// fitsTemplate may still take.
APISTAMP_TARGET_AVX2 bool fitsSegments(const AnyOrderLogParser::Follow &F,
                                       const char *Data, size_t Length,
                                       LogLine &Out) {
  const AnyOrderLogParser::Follow::Segments &S = F.Split;
  const char *Ref = F.TemplateLine;
  size_t After = F.TemplateLength - S.EventEnd; // From the closing quote.
  // Shorter, the line could have no event between its segments.
  if (S.EventStart + After >= Length ||
      !equalButHoles(Ref, Data, S.EventStart, S.Holes[0]))
    return false;
  const char *Event = Data + S.EventStart;
  const char *Close = readPlainString(Event, Data + Length);
  if (!Close || size_t(Close - Data) + After != Length ||
      !equalButHoles(Ref + S.EventEnd, Close, After, S.Holes[1]))
    return false;
  auto Value = [&](const AnyOrderLogParser::Follow::Segments::Place &P) {
    return std::string_view((P.AfterEvent ? Close : Data) + P.At, P.Length);
  };
  Out.Time = Value(S.Time);
  if (!isIsoTimePadded(Out.Time))
    return false;
  Out.Event = std::string_view(Event, Close - Event);
  setProcessFields(F, Out, Value, S.Host, S.Exe, S.Job);
  return true;
}
#endif

/// Sets \p F's Split for its template: the event's place, and the bytes
/// of the other varying holes, when they are strings and each segment has
/// SegmentBlocks blocks or fewer.
void makeSegments(AnyOrderLogParser::Follow &F) {
  AnyOrderLogParser::Follow::Segments &Split = F.Split;
  Split.Usable = false;
  size_t EventStart = F.VaryingStarts[F.EventHole],
         EventEnd = F.VaryingEnds[F.EventHole];
  if (EventStart > 64 * SegmentBlocks ||
      F.TemplateLength - EventEnd > 64 * SegmentBlocks)
    return;
  std::fill(&Split.Holes[0][0], &Split.Holes[0][0] + 2 * SegmentBlocks, 0);
  for (unsigned K = 0; K < F.Varying; ++K) {
    if (K == F.EventHole)
      continue;
    if (!F.VaryingIsString[K])
      return;
    bool AfterEvent = K > F.EventHole;
    size_t From = AfterEvent ? EventEnd : 0;
    // The hole's bits, a word at a time.
    for (size_t At = F.VaryingStarts[K] - From, End = F.VaryingEnds[K] - From;
         At < End;) {
      size_t Bit = At % 64, Bits = std::min<size_t>(64 - Bit, End - At);
      Split.Holes[AfterEvent][At / 64] |= (~uint64_t(0) >> (64 - Bits)) << Bit;
      At += Bits;
    }
  }
  auto Place = [&](size_t Start, size_t Length) {
    bool AfterEvent = Start > EventStart;
    return AnyOrderLogParser::Follow::Segments::Place{
        uint16_t(Start - (AfterEvent ? EventEnd : 0)), uint16_t(Length),
        AfterEvent};
  };
  Split.Time = Place(F.VaryingStarts[F.TimeHole],
                     F.VaryingEnds[F.TimeHole] - F.VaryingStarts[F.TimeHole]);
  // The host, exe and job_id do not vary: they are at the template's places.
  auto Constant = [&](const AnyOrderLogParser::Follow::Constant &C) {
    return Place((C.After ? F.VaryingEnds[C.After - 1] : 0) + C.Offset,
                 C.Length);
  };
  Split.Host = Constant(F.ConstantHost);
  Split.Exe = Constant(F.ConstantExe);
  Split.Job = Constant(F.ConstantJob);
  Split.EventStart = uint16_t(EventStart);
  Split.EventEnd = uint16_t(EventEnd);
  Split.Usable = true;
}

/// Makes \p F's template of the line of \p Length bytes at \p Data, which
/// \p F now follows (of shape \p S): the holes \p Differing (none of host,
/// exe, pid and job_id), the event and the time vary, the other bytes are
/// the process's. No template is made of a shape whose event or time is
/// not followed (more than MaxFollowHoles holes). Its segments are made
/// only when \p Segmented (the parser fits them).
void makeTemplate(AnyOrderLogParser::Follow &F,
                  const AnyOrderLogParser::Shape &S, const char *Data,
                  size_t Length, uint32_t Differing, bool Segmented) {
  F.Varying = 0;
  F.Split.Usable = false;
  uint8_t EventHole = S.FieldHoles[__builtin_ctz(Event)],
          TimeHole = S.FieldHoles[__builtin_ctz(Time)];
  if (EventHole == AnyOrderLogParser::Shape::NoHole ||
      TimeHole == AnyOrderLogParser::Shape::NoHole)
    return;
  uint32_t VaryingHoles =
      Differing | (uint32_t(1) << EventHole) | (uint32_t(1) << TimeHole);
  uint32_t Count = 0;
  F.ConstantHost = F.ConstantExe = F.ConstantJob = {};
  for (size_t H = 0; H < S.Holes.size(); ++H) {
    if (VaryingHoles & (uint32_t(1) << H)) {
      if (Count == MaxTemplateHoles)
        return; // No template: F.Varying is 0.
      if (H == EventHole)
        F.EventHole = uint8_t(Count);
      if (H == TimeHole)
        F.TimeHole = uint8_t(Count);
      F.VaryingStarts[Count] = F.Starts[H];
      F.VaryingEnds[Count] = F.Ends[H];
      F.VaryingIsString[Count] = S.Holes[H].IsString;
      ++Count;
      continue;
    }
    Field Of = S.Holes[H].Of;
    if (Of != Host && Of != Exe && Of != Job)
      continue;
    AnyOrderLogParser::Follow::Constant &C = Of == Host  ? F.ConstantHost
                                             : Of == Exe ? F.ConstantExe
                                                         : F.ConstantJob;
    C.After = uint8_t(Count);
    C.Offset = uint16_t(F.Starts[H] - (Count ? F.VaryingEnds[Count - 1] : 0));
    C.Length = uint16_t(F.Ends[H] - F.Starts[H]);
  }
  // A job_id that is not null is a hole (a string).
  F.HasJob =
      S.FieldHoles[__builtin_ctz(Job)] != AnyOrderLogParser::Shape::NoHole;
  F.TemplateLine = Data;
  F.TemplateLength = uint32_t(Length);
  F.Varying = uint8_t(Count);
  if (Segmented)
    makeSegments(F);
}

/// The slot of the line followed by the one whose newline is at
/// \p Newline, by the FollowKeyBytes before it: one multiply, its high
/// bits, on the words folded (a short chain: each line waits for it).
size_t followSlot(const char *Newline, unsigned Bits) {
  const char *Key = Newline - FollowKeyBytes;
  uint64_t Words[FollowKeyBytes / 8];
  std::memcpy(Words, Key, sizeof Words);
  uint64_t Folded = (Words[0] ^ llvm::rotl(Words[1], 21)) ^
                    (llvm::rotl(Words[2], 42) ^ llvm::rotl(Words[3], 11));
  return size_t((Folded * 0x9E3779B97F4A7C15ULL) >> (64 - Bits));
}

} // namespace

unsigned AnyOrderLogParser::fittingShape(const char *Data, size_t Length,
                                         LogLine &Out, bool UntilNewline,
                                         size_t &LineLength, uint16_t *Starts,
                                         uint16_t *Ends) {
  for (unsigned I = 0; I < ShapeCount; ++I) {
    unsigned Slot = (Last + I) % ShapeCount;
    const Shape &S = Shapes[Slot];
    bool Located = Starts && S.Holes.size() <= MaxFollowHoles;
    if (S.Length &&
        fitsShape(S, Data, Length, Out, UntilNewline, LineLength,
                  Located ? Starts : nullptr, Located ? Ends : nullptr)) {
      Last = Slot;
      return Slot;
    }
  }
  return ShapeCount;
}

bool AnyOrderLogParser::parse(const char *Data, size_t Length, LogLine &Out) {
  size_t LineLength;
  if (fittingShape(Data, Length, Out, /*UntilNewline=*/false, LineLength) !=
      ShapeCount)
    return true;
  if (!isTextWithoutControls(Data, Length))
    return false;
  // A line not taken leaves the shapes, and the lines that follow them, as
  // they are.
  std::vector<Hole> &Scanned = Shapes[ShapeCount].Holes;
  Scanned.clear();
  AnyOrderScanner Scanner(Data, Length, &Scanned);
  if (!Scanner.line(Out))
    return false;
  if (Length > MaxShapeBytes)
    return true;
  Shape &S = Shapes[Next];
  // No line followed is of the shape in the slot any more.
  forgetLines();
  S.Holes.swap(Scanned);
  S.ProcessVarying = 0;
  S.Bytes.assign(Data, Length);
  S.Bytes.append(EqualPaddedBlock, '\0');
  S.Length = Length;
  std::fill(std::begin(S.FieldHoles), std::end(S.FieldHoles), Shape::NoHole);
  if (S.Holes.size() <= MaxFollowHoles)
    for (size_t H = 0; H < S.Holes.size(); ++H)
      if (S.Holes[H].Of != Other)
        S.FieldHoles[__builtin_ctz(S.Holes[H].Of)] = uint8_t(H);
  Known = true;
  Last = Next;
  Next = (Next + 1) % ShapeCount;
  return true;
}

bool AnyOrderLogParser::isCurrent(const Follow &F) const {
  return F.Generation == Generation;
}

size_t AnyOrderLogParser::fitted(Follow &F, size_t Length, ProcessKeys *&Keys) {
  Keys = &F.Keys;
  Last = F.Slot;
  FollowScore = std::min(FollowScore + 1, MaxFollowScore);
  return Length;
}

size_t AnyOrderLogParser::parseKnownShape(const char *Data, size_t Available,
                                          LogLine &Out, ProcessKeys *&Keys) {
  Keys = nullptr;
  // Lines mostly of other processes than the lines they would follow (an
  // arbitrary order): the shapes alone, but for a line in ProbeEvery.
  if (FollowScore == 0 && ++Probes % ProbeEvery != 0) {
    size_t Length;
    return fittingShape(Data, Available, Out, /*UntilNewline=*/true, Length) !=
                   ShapeCount
               ? Length
               : 0;
  }
  const char *Newline =
      static_cast<const char *>(std::memchr(Data, '\n', Available));
  if (!Newline)
    return 0;
  size_t Length = Newline - Data;
  if (Length > MaxShapeBytes)
    return 0; // No shape is that long.
  Follow *F = Length >= FollowKeyBytes
                  ? &Follows[followSlot(Newline, FollowBits)]
                  : nullptr;
  if (F && isCurrent(*F)) {
#if APISTAMP_AVX2_SEGMENTS
    if (Segmented && F->Varying && F->Split.Usable &&
        fitsSegments(*F, Data, Length, Out)) {
      ++SegmentFits;
      return fitted(*F, Length, Keys);
    }
#endif
    if (fitsAnyTemplate(*F, Data, Length, Out))
      return fitted(*F, Length, Keys);
    bool SameProcess;
    uint32_t Differed;
    if (followLine(*F, Shapes[F->Slot], Data, Length, Out, SameProcess,
                   Differed)) {
      F->Keys.Known &= SameProcess;
      Keys = &F->Keys;
      Last = F->Slot;
      FollowScore = SameProcess ? std::min(FollowScore + 1, MaxFollowScore)
                                : FollowScore - std::min(FollowScore, 2u);
      // The template of the line's process: the holes that differ between a
      // process's lines are those that did since the line before, when it was
      // of the same process, and those that did in other processes' lines.
      Shape &S = Shapes[F->Slot];
      if (SameProcess)
        S.ProcessVarying |= Differed;
      makeTemplate(*F, S, Data, Length,
                   (SameProcess ? Differed : 0) | S.ProcessVarying, Segmented);
      return Length;
    }
    F->Generation = 0; // Half updated.
    FollowScore -= std::min(FollowScore, 2u);
  }
  size_t LineLength;
  unsigned Slot =
      fittingShape(Data, Length, Out, /*UntilNewline=*/false, LineLength,
                   F ? F->Starts : nullptr, F ? F->Ends : nullptr);
  if (Slot != ShapeCount) {
    const Shape &S = Shapes[Slot];
    if (F && S.Holes.size() <= MaxFollowHoles) {
      F->Line = Data;
      F->Length = uint32_t(Length);
      F->Generation = Generation;
      F->Slot = Slot;
      F->Pid = Out.Pid;
      F->Keys = ProcessKeys();
      F->Varying = 0;
      Keys = &F->Keys;
    } else if (F) {
      F->Generation = 0;
    }
    return Length;
  }
  if (F)
    F->Generation = 0; // fitsShape may have written holes there.
  return 0;
}

static_assert(LogLinePadding >= simdjson::SIMDJSON_PADDING,
              "the padding callers leave must be simdjson's");

LogLineParser::LogLineParser()
    : Parser(std::make_unique<simdjson::dom::parser>()) {}
LogLineParser::~LogLineParser() = default;

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
  using Type = simdjson::dom::element_type;
  for (simdjson::dom::key_value_pair Field : Object) {
    std::string_view Key = Field.key;
    simdjson::dom::element Value = Field.value;
    if (Key == "event") {
      if (Value.get_string().get(Out.Event) || Out.Event.empty())
        return LogLineError::BadEvent;
      HasEvent = true;
    } else if (Key == "time") {
      if (Value.get_string().get(Out.Time))
        return LogLineError::BadTime;
      if (!isIsoTime(Out.Time))
        return LogLineError::TimeNotIso;
      HasTime = true;
    } else if (Key == "pid") {
      if (Value.get_int64().get(Out.Pid))
        return LogLineError::BadPid;
      HasPid = true;
    } else if (Key == "host" || Key == "exe") {
      bool IsHost = Key == "host";
      std::string_view &Into = IsHost ? Out.Host : Out.Exe;
      Into = {};
      if (!Value.is_null() && Value.get_string().get(Into))
        return IsHost ? LogLineError::BadHost : LogLineError::BadExe;
    } else if (Key == "job_id") {
      Type T = Value.type();
      Out.HasJob = true;
      if (T == Type::STRING) {
        Out.Job = Value.get_string().value_unsafe();
      } else if (T == Type::INT64 || T == Type::UINT64) {
        JobNumber = T == Type::INT64
                        ? std::to_string(Value.get_int64().value_unsafe())
                        : std::to_string(Value.get_uint64().value_unsafe());
        Out.Job = JobNumber;
      } else if (T == Type::NULL_VALUE) {
        Out.HasJob = false;
        Out.Job = {};
      } else {
        return LogLineError::BadJob;
      }
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
