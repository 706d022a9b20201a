//===- UnifiedDiff.cpp - Render a unified diff of two texts ---------------===//
//
// Myers' O(ND) line diff; only the diagonals reached at each step are kept for
// the backtrack, so memory is O(D^2) for D changed lines.
//
//===----------------------------------------------------------------------===//

#include "apistamp/UnifiedDiff.h"
#include "Suggestions.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include <algorithm>
#include <vector>

using namespace llvm;

namespace apistamp {

namespace {

enum class Op { Equal, Delete, Insert };

struct Step {
  Op Kind;
  int Before; ///< Line index in Before (Equal, Delete).
  int After;  ///< Line index in After (Equal, Insert).
};

std::vector<StringRef> splitLines(StringRef Text) {
  std::vector<StringRef> Lines;
  while (!Text.empty()) {
    size_t End = Text.find('\n');
    size_t Length = End == StringRef::npos ? Text.size() : End + 1;
    Lines.push_back(Text.take_front(Length));
    Text = Text.drop_front(Length);
  }
  return Lines;
}

std::vector<Step> diffLines(ArrayRef<StringRef> A, ArrayRef<StringRef> B) {
  const int N = A.size(), M = B.size(), Max = N + M;
  std::vector<int> V(2 * Max + 3, 0);
  auto At = [&](int K) -> int & { return V[K + Max + 1]; };
  std::vector<std::vector<int>> Trace; // Trace[D][K + D]
  int Final = -1;
  for (int D = 0; D <= Max && Final < 0; ++D) {
    for (int K = -D; K <= D; K += 2) {
      int X = (K == -D || (K != D && At(K - 1) < At(K + 1))) ? At(K + 1)
                                                             : At(K - 1) + 1;
      int Y = X - K;
      while (X < N && Y < M && A[X] == B[Y])
        ++X, ++Y;
      At(K) = X;
      if (X >= N && Y >= M)
        Final = D;
    }
    Trace.emplace_back(&At(-D), &At(D) + 1);
  }
  std::vector<Step> Steps;
  int X = N, Y = M;
  for (int D = Final; D > 0; --D) {
    const std::vector<int> &Prev = Trace[D - 1];
    auto PrevAt = [&](int K) { return Prev[K + D - 1]; };
    int K = X - Y;
    bool Down = K == -D || (K != D && PrevAt(K - 1) < PrevAt(K + 1));
    int PrevK = Down ? K + 1 : K - 1;
    int PrevX = PrevAt(PrevK), PrevY = PrevX - PrevK;
    while (X > PrevX && Y > PrevY)
      Steps.push_back({Op::Equal, --X, --Y});
    if (Down)
      Steps.push_back({Op::Insert, X, --Y});
    else
      Steps.push_back({Op::Delete, --X, Y});
  }
  while (X > 0 && Y > 0)
    Steps.push_back({Op::Equal, --X, --Y});
  std::reverse(Steps.begin(), Steps.end());
  return Steps;
}

void printLine(std::string &Out, char Prefix, StringRef Line) {
  Out += Prefix;
  Out += Line.str();
  if (!Line.ends_with("\n"))
    Out += "\n\\ No newline at end of file\n";
}

/// \p Path as the "---"/"+++" lines name it: as it is, or, if it has a
/// character printable() escapes (a control, a bidirectional-text control,
/// a byte that is not UTF-8), a double quote or a backslash, quoted as git
/// quotes paths ("x\tb.cpp"), which git apply and patch read back: \", \\,
/// \a, \b, \t, \n, \v, \f and \r, and each byte of any other such
/// character as \NNN (octal). Other UTF-8 is kept, as git keeps it with
/// core.quotePath off.
std::string headerPath(StringRef Path) {
  if (findUnprintable(Path) == StringRef::npos &&
      Path.find_first_of("\"\\") == StringRef::npos)
    return Path.str();
  constexpr StringLiteral Controls("\a\b\t\n\v\f\r"), Letters("abtnvfr");
  std::string Quoted = "\"";
  for (size_t Pos = 0; Pos < Path.size();) {
    DecodedChar C = decodeUTF8(Path.substr(Pos));
    size_t Letter = Controls.find(Path[Pos]);
    if (C.Valid && !isControl(C.CodePoint)) {
      if (Path[Pos] == '"' || Path[Pos] == '\\')
        Quoted += '\\';
      Quoted += Path.substr(Pos, C.Length);
    } else if (Letter != StringRef::npos) {
      Quoted += '\\';
      Quoted += Letters[Letter];
    } else {
      for (unsigned char Byte : Path.substr(Pos, C.Length)) {
        Quoted += '\\';
        Quoted += char('0' + (Byte >> 6));
        Quoted += char('0' + ((Byte >> 3) & 7));
        Quoted += char('0' + (Byte & 7));
      }
    }
    Pos += C.Length;
  }
  return Quoted + "\"";
}

std::string range(int Start, int Length) {
  // Line numbers are 1-based; an empty range names the line before it.
  int First = Length == 0 ? Start : Start + 1;
  return std::to_string(First) +
         (Length == 1 ? "" : "," + std::to_string(Length));
}

} // namespace

std::string unifiedDiff(StringRef Before, StringRef After, StringRef Path,
                        unsigned Context) {
  if (Before == After)
    return "";
  std::vector<StringRef> A = splitLines(Before), B = splitLines(After);
  std::vector<Step> Steps = diffLines(A, B);
  // git's a/ and b/ prefixes: `git apply` and `patch -p1` strip them.
  std::string Out = "--- " + headerPath("a/" + Path.str()) + "\n+++ " +
                    headerPath("b/" + Path.str()) + "\n";
  const int C = Context, Size = Steps.size();
  int I = 0;
  while (I < Size) {
    while (I < Size && Steps[I].Kind == Op::Equal)
      ++I;
    if (I == Size)
      break;
    int Begin = std::max(0, I - C);
    // Extend the hunk while the next change is within 2*Context lines.
    int End = I;
    while (true) {
      while (End < Size && Steps[End].Kind != Op::Equal)
        ++End;
      int NextChange = End;
      while (NextChange < Size && Steps[NextChange].Kind == Op::Equal)
        ++NextChange;
      if (NextChange < Size && NextChange - End <= 2 * C) {
        End = NextChange;
        continue;
      }
      End = std::min(Size, End + C);
      break;
    }
    int BeforeStart = -1, AfterStart = -1, BeforeLength = 0, AfterLength = 0;
    for (int J = Begin; J < End; ++J) {
      const Step &S = Steps[J];
      if (S.Kind != Op::Insert) {
        if (BeforeStart < 0)
          BeforeStart = S.Before;
        ++BeforeLength;
      }
      if (S.Kind != Op::Delete) {
        if (AfterStart < 0)
          AfterStart = S.After;
        ++AfterLength;
      }
    }
    if (BeforeStart < 0)
      BeforeStart = Steps[Begin].Before;
    if (AfterStart < 0)
      AfterStart = Steps[Begin].After;
    Out += "@@ -" + range(BeforeStart, BeforeLength) + " +" +
           range(AfterStart, AfterLength) + " @@\n";
    for (int J = Begin; J < End; ++J) {
      const Step &S = Steps[J];
      if (S.Kind == Op::Equal)
        printLine(Out, ' ', A[S.Before]);
      else if (S.Kind == Op::Delete)
        printLine(Out, '-', A[S.Before]);
      else
        printLine(Out, '+', B[S.After]);
    }
    I = End;
  }
  return Out;
}

} // namespace apistamp
