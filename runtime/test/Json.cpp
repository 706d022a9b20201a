//===- Json.cpp - A strict, minimal JSON parser for the runtime's tests ---===//

#include "Json.h"

#include <cstring>

namespace apistamp {
namespace test {

const JsonValue *JsonValue::get(const std::string &Key) const {
  for (const auto &Member : Members)
    if (Member.first == Key)
      return &Member.second;
  return nullptr;
}

std::vector<std::string> JsonValue::keys() const {
  std::vector<std::string> Keys;
  for (const auto &Member : Members)
    Keys.push_back(Member.first);
  return Keys;
}

namespace {

class Parser {
public:
  explicit Parser(const std::string &Text) : Text(Text) {}

  bool parseDocument(JsonValue &Out) {
    skipSpace();
    if (!parseValue(Out, 0))
      return false;
    skipSpace();
    if (Pos != Text.size())
      return fail("trailing characters");
    return true;
  }

  std::string Error;

private:
  const std::string &Text;
  std::size_t Pos = 0;

  bool fail(const std::string &Message) {
    if (Error.empty())
      Error = Message + " at offset " + std::to_string(Pos);
    return false;
  }

  void skipSpace() {
    while (Pos < Text.size() && std::strchr(" \t\r\n", Text[Pos]) &&
           Text[Pos] != '\0')
      ++Pos;
  }

  bool consume(const char *Word) {
    std::size_t N = std::strlen(Word);
    if (Text.compare(Pos, N, Word) != 0)
      return false;
    Pos += N;
    return true;
  }

  bool parseValue(JsonValue &Out, int Depth) {
    if (Depth > 64)
      return fail("nesting too deep");
    if (Pos >= Text.size())
      return fail("unexpected end");
    char C = Text[Pos];
    if (C == '{')
      return parseObject(Out, Depth);
    if (C == '[')
      return parseArray(Out, Depth);
    if (C == '"') {
      Out.K = JsonValue::String;
      return parseString(Out.Text);
    }
    if (consume("null")) {
      Out.K = JsonValue::Null;
      return true;
    }
    if (consume("true") || consume("false")) {
      Out.K = JsonValue::Bool;
      Out.Boolean = Text[Pos - 1] == 'e' && Text[Pos - 2] == 'u';
      return true;
    }
    if (C == '-' || (C >= '0' && C <= '9'))
      return parseNumber(Out);
    return fail("unexpected character");
  }

  bool parseObject(JsonValue &Out, int Depth) {
    Out.K = JsonValue::Object;
    ++Pos;
    skipSpace();
    if (Pos < Text.size() && Text[Pos] == '}') {
      ++Pos;
      return true;
    }
    for (;;) {
      skipSpace();
      if (Pos >= Text.size() || Text[Pos] != '"')
        return fail("expected a key");
      std::string Key;
      if (!parseString(Key))
        return false;
      if (Out.get(Key))
        return fail("duplicate key '" + Key + "'");
      skipSpace();
      if (Pos >= Text.size() || Text[Pos] != ':')
        return fail("expected ':'");
      ++Pos;
      skipSpace();
      JsonValue Value;
      if (!parseValue(Value, Depth + 1))
        return false;
      Out.Members.emplace_back(Key, std::move(Value));
      skipSpace();
      if (Pos < Text.size() && Text[Pos] == ',') {
        ++Pos;
        continue;
      }
      if (Pos < Text.size() && Text[Pos] == '}') {
        ++Pos;
        return true;
      }
      return fail("expected ',' or '}'");
    }
  }

  bool parseArray(JsonValue &Out, int Depth) {
    Out.K = JsonValue::Array;
    ++Pos;
    skipSpace();
    if (Pos < Text.size() && Text[Pos] == ']') {
      ++Pos;
      return true;
    }
    for (;;) {
      skipSpace();
      JsonValue Value;
      if (!parseValue(Value, Depth + 1))
        return false;
      Out.Elements.push_back(std::move(Value));
      skipSpace();
      if (Pos < Text.size() && Text[Pos] == ',') {
        ++Pos;
        continue;
      }
      if (Pos < Text.size() && Text[Pos] == ']') {
        ++Pos;
        return true;
      }
      return fail("expected ',' or ']'");
    }
  }

  bool parseNumber(JsonValue &Out) {
    std::size_t Start = Pos;
    if (Text[Pos] == '-')
      ++Pos;
    if (Pos < Text.size() && Text[Pos] == '0') {
      ++Pos;
    } else if (Pos < Text.size() && Text[Pos] >= '1' && Text[Pos] <= '9') {
      while (Pos < Text.size() && Text[Pos] >= '0' && Text[Pos] <= '9')
        ++Pos;
    } else {
      return fail("bad number");
    }
    if (Pos < Text.size() && Text[Pos] == '.') {
      ++Pos;
      std::size_t Digits = Pos;
      while (Pos < Text.size() && Text[Pos] >= '0' && Text[Pos] <= '9')
        ++Pos;
      if (Pos == Digits)
        return fail("bad fraction");
    }
    if (Pos < Text.size() && (Text[Pos] == 'e' || Text[Pos] == 'E')) {
      ++Pos;
      if (Pos < Text.size() && (Text[Pos] == '+' || Text[Pos] == '-'))
        ++Pos;
      std::size_t Digits = Pos;
      while (Pos < Text.size() && Text[Pos] >= '0' && Text[Pos] <= '9')
        ++Pos;
      if (Pos == Digits)
        return fail("bad exponent");
    }
    Out.K = JsonValue::Number;
    Out.Text = Text.substr(Start, Pos - Start);
    return true;
  }

  static void appendUtf8(std::string &Out, unsigned long CodePoint) {
    if (CodePoint < 0x80) {
      Out += static_cast<char>(CodePoint);
    } else if (CodePoint < 0x800) {
      Out += static_cast<char>(0xC0 | (CodePoint >> 6));
      Out += static_cast<char>(0x80 | (CodePoint & 0x3F));
    } else if (CodePoint < 0x10000) {
      Out += static_cast<char>(0xE0 | (CodePoint >> 12));
      Out += static_cast<char>(0x80 | ((CodePoint >> 6) & 0x3F));
      Out += static_cast<char>(0x80 | (CodePoint & 0x3F));
    } else {
      Out += static_cast<char>(0xF0 | (CodePoint >> 18));
      Out += static_cast<char>(0x80 | ((CodePoint >> 12) & 0x3F));
      Out += static_cast<char>(0x80 | ((CodePoint >> 6) & 0x3F));
      Out += static_cast<char>(0x80 | (CodePoint & 0x3F));
    }
  }

  bool parseHex4(unsigned long &Value) {
    if (Pos + 4 > Text.size())
      return fail("short \\u escape");
    Value = 0;
    for (int I = 0; I < 4; ++I) {
      char C = Text[Pos++];
      Value <<= 4;
      if (C >= '0' && C <= '9')
        Value |= static_cast<unsigned long>(C - '0');
      else if (C >= 'a' && C <= 'f')
        Value |= static_cast<unsigned long>(C - 'a' + 10);
      else if (C >= 'A' && C <= 'F')
        Value |= static_cast<unsigned long>(C - 'A' + 10);
      else
        return fail("bad \\u escape");
    }
    return true;
  }

  /// Checks one UTF-8 sequence starting at Pos and copies it to \p Out.
  bool copyUtf8(std::string &Out) {
    unsigned char C = static_cast<unsigned char>(Text[Pos]);
    std::size_t Length = C >= 0xF0 ? 4 : C >= 0xE0 ? 3 : C >= 0xC0 ? 2 : 0;
    if (Length == 0 || C > 0xF4 || C == 0xC0 || C == 0xC1 ||
        Pos + Length > Text.size())
      return fail("invalid UTF-8");
    unsigned long CodePoint = C & (0x7F >> Length);
    for (std::size_t I = 1; I < Length; ++I) {
      unsigned char Next = static_cast<unsigned char>(Text[Pos + I]);
      if ((Next & 0xC0) != 0x80)
        return fail("invalid UTF-8");
      CodePoint = (CodePoint << 6) | (Next & 0x3F);
    }
    static const unsigned long Min[] = {0, 0, 0x80, 0x800, 0x10000};
    if (CodePoint < Min[Length] || CodePoint > 0x10FFFF ||
        (CodePoint >= 0xD800 && CodePoint <= 0xDFFF))
      return fail("invalid UTF-8");
    Out.append(Text, Pos, Length);
    Pos += Length;
    return true;
  }

  bool parseString(std::string &Out) {
    ++Pos; // The opening quote.
    for (;;) {
      if (Pos >= Text.size())
        return fail("unterminated string");
      unsigned char C = static_cast<unsigned char>(Text[Pos]);
      if (C == '"') {
        ++Pos;
        return true;
      }
      if (C < 0x20)
        return fail("control character in string");
      if (C >= 0x80) {
        if (!copyUtf8(Out))
          return false;
        continue;
      }
      ++Pos;
      if (C != '\\') {
        Out += static_cast<char>(C);
        continue;
      }
      if (Pos >= Text.size())
        return fail("unterminated escape");
      char E = Text[Pos++];
      switch (E) {
      case '"':
      case '\\':
      case '/':
        Out += E;
        break;
      case 'b':
        Out += '\b';
        break;
      case 'f':
        Out += '\f';
        break;
      case 'n':
        Out += '\n';
        break;
      case 'r':
        Out += '\r';
        break;
      case 't':
        Out += '\t';
        break;
      case 'u': {
        unsigned long CodePoint;
        if (!parseHex4(CodePoint))
          return false;
        if (CodePoint >= 0xD800 && CodePoint <= 0xDBFF) {
          unsigned long Low;
          if (!consume("\\u") || !parseHex4(Low) || Low < 0xDC00 ||
              Low > 0xDFFF)
            return fail("unpaired surrogate");
          CodePoint = 0x10000 + ((CodePoint - 0xD800) << 10) + (Low - 0xDC00);
        } else if (CodePoint >= 0xDC00 && CodePoint <= 0xDFFF) {
          return fail("unpaired surrogate");
        }
        appendUtf8(Out, CodePoint);
        break;
      }
      default:
        return fail("bad escape");
      }
    }
  }
};

} // namespace

bool parseJson(const std::string &Text, JsonValue &Out, std::string &Error) {
  Parser P(Text);
  Out = JsonValue();
  bool Ok = P.parseDocument(Out);
  Error = P.Error;
  return Ok;
}

} // namespace test
} // namespace apistamp
