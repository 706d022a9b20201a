//===- LineReader.cpp - Split a log's bytes into lines and count them -----===//

#include "LineReader.h"
#include <cassert>
#include <cstring>

namespace apistamp {

void LineReader::consume(const char *Data, size_t Size) {
  // The lines of the last bytes consumed may be gone.
  Counts.AnyOrder.forgetLines();
  const char *End = Data + Size;
  const char *Line = Data;
  if (Skipping) {
    const char *Newline =
        static_cast<const char *>(memchr(Line, '\n', End - Line));
    if (!Newline)
      return;
    Skipping = false;
    Line = Newline + 1;
  }
  while (Line < End) {
    if (Form == LogForm::JsonLines && Carry.empty() && !ValidatingOnly) {
      // A collector's lines come together: after the shapes' path took a
      // line, it is tried first, and the runtime's path after it.
      if (LastShaped)
        if (const char *Next = countShapedLine(Line, End)) {
          Line = Next;
          continue;
        }
      if (const char *Next = countCachedLine(Line, End)) {
        Line = Next;
        LastShaped = false;
        continue;
      }
      if (!LastShaped && Counts.AnyOrder.knowsShapes())
        if (const char *Next = countShapedLine(Line, End)) {
          Line = Next;
          LastShaped = true;
          continue;
        }
    }
    const char *Newline =
        static_cast<const char *>(memchr(Line, '\n', End - Line));
    if (!Newline) {
      if (Carry.size() + size_t(End - Line) > MaxLineBytes) {
        tooLong();
        Skipping = true;
      } else {
        Carry.append(Line, End - Line);
      }
      return;
    }
    if (Carry.size() + size_t(Newline - Line) > MaxLineBytes) {
      tooLong();
    } else if (!Carry.empty()) {
      Carry.append(Line, Newline - Line);
      parseCarry(/*Newline=*/true);
    } else {
      parse(Line, Newline - Line, (End - Line) + LogLinePadding,
            /*Newline=*/true);
    }
    Line = Newline + 1;
  }
}

const char *LineReader::countCachedLine(const char *Line, const char *End) {
  LogHead Head;
  if (!scanRuntimeLogHead(Line, End - Line, Head) ||
      !isPlainText(Head.Time.data(), Head.Time.size()))
    return nullptr;
  LocalEvent *Event = Counts.cachedEvent(Head.Event);
  if (!Event || !Event->PlainName)
    return nullptr;
  const char *Tail = Line + Head.TailOffset;
  const TailCache::Entry &Cached = Counts.Tails.slot(Tail);
  if (!TailCache::holds(Cached, Tail, End - Tail))
    return nullptr;
  ++LineNumber;
  ++Counts.Lines;
  countAt(*Event, Head.Time, {Cached.Host, Cached.Process, Cached.Job});
  return Tail + Cached.Length;
}

const char *LineReader::countShapedLine(const char *Line, const char *End) {
  LogLine Fields;
  ProcessKeys *Kept;
  size_t Length =
      Counts.AnyOrder.parseKnownShape(Line, End - Line, Fields, Kept);
  if (!Length)
    return nullptr;
  ++LineNumber;
  ++Counts.Lines;
  // The process of the line this one followed: its keys are this one's.
  if (Kept && Kept->Known) {
    countAnyOrderLine(Fields, {Kept->Host, Kept->Process, Kept->Job});
  } else {
    LineKeys Keys = LineKeys::of(Fields);
    if (Kept)
      *Kept = {Keys.Host, Keys.Process, Keys.Job, /*Known=*/true};
    countAnyOrderLine(Fields, Keys);
  }
  return Line + Length + 1;
}

void LineReader::parse(const char *Data, size_t Length, size_t Capacity,
                       bool Newline) {
  ++LineNumber;
  if (Length && Data[Length - 1] == '\r') {
    --Length;
    Newline = false; // Its tail is not followed by a newline.
  }
  bool Blank = true;
  for (size_t I = 0; I < Length && Blank; ++I)
    Blank = Data[I] == ' ' || Data[I] == '\t';
  if (Blank)
    return;
  ++Counts.Lines;
  if (Form == LogForm::Stderr ||
      (Form == LogForm::Undecided &&
       std::string_view(Data, Length).substr(0, StderrLinePrefix.size()) ==
           StderrLinePrefix)) {
    if (Form == LogForm::Undecided)
      decide(LogForm::Stderr);
    return countStderrLine(Data, Length);
  }
  assert(Capacity >= Length + LogLinePadding && "the parsers read ahead");
  LogLine Fields;
  size_t TailOffset = 0;
  // The runtime's own lines take the fast path, their tails mostly from
  // the cache; lines in another shape the any-order scanner; anything
  // else, and every bad line, goes through the validating DOM parser.
  if (!ValidatingOnly &&
      parseRuntimeLogHead(Data, Length, Fields, TailOffset)) {
    const char *Tail = Data + TailOffset;
    size_t TailLength = Length - TailOffset;
    TailCache::Entry &Cached = Counts.Tails.slot(Tail);
    if (Newline && TailCache::holds(Cached, Tail, TailLength + 1))
      return countLine(Fields, {Cached.Host, Cached.Process, Cached.Job});
    if (parseRuntimeLogTail(Tail, TailLength, Fields)) {
      LineKeys Keys = LineKeys::of(Fields);
      if (Newline)
        TailCache::store(Cached, Tail, TailLength, Keys);
      return countLine(Fields, Keys);
    }
  }
  // Any other key order, spaces, extra keys (a log collector's lines):
  // validated and taken by a scanner that leaves what it is unsure of to
  // the DOM parser.
  if (!ValidatingOnly && Counts.AnyOrder.parse(Data, Length, Fields))
    return countAnyOrderLine(Fields, LineKeys::of(Fields));
  LogLineError Error = Counts.Slow.parse(Data, Length, Capacity, Fields);
  if (Error == LogLineError::NotJson && LastLine) {
    malformed("not JSON (a truncated last line, without a newline: a "
              "process that was killed?)");
    return;
  }
  if (Error != LogLineError::None) {
    malformed(describe(Error));
    return;
  }
  countLine(Fields, LineKeys::of(Fields));
}

void LineReader::countStderrLine(const char *Data, size_t Length) {
  std::string_view Line(Data, Length);
  if (Line.substr(0, StderrLinePrefix.size()) != StderrLinePrefix) {
    ++Stderr.Ignored;
    return;
  }
  std::string_view Event = Line.substr(StderrLinePrefix.size());
  // The log's modification time is its lines': a day of the calendar, or
  // no line of it has one (a clock far off: ext4 holds years to 2446,
  // tmpfs and XFS later ones).
  const char *Problem =
      LastLine ? "the last line, without its newline: cut short?"
      : !SourceTimeIsDay
          ? "the log's modification time, its lines' time, is not a day "
            "of the calendar (YYYY-MM-DD)"
          : stderrEventProblem(Event);
  if (Problem) {
    if (Stderr.Malformed++ < FirstProblemsKept)
      Stderr.First.push_back({LineNumber, Problem});
    return;
  }
  ++Stderr.Events;
  if (inWindow(Source.Time))
    Counts.count(Counts.event(Event), Source.Time, Source.Keys,
                 /*HasHost=*/false);
}

} // namespace apistamp
