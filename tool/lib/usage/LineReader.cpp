//===- LineReader.cpp - Split a log's bytes into lines and count them -----===//

#include "LineReader.h"
#include <cassert>
#include <cstring>

namespace apistamp {

void LineReader::consume(const char *Data, size_t Size) {
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
    if (Form == LogForm::JsonLines && Carry.empty() && !ValidatingOnly)
      if (const char *Next = countCachedLine(Line, End)) {
        Line = Next;
        continue;
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
  // the cache; any other line (a log collector's, in any key order, with
  // extra keys), and every bad line, goes through the validating DOM
  // parser, whose verdict is the truth.
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
