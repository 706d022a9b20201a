//===- LogDecoder.cpp - Decompress a log as it is read --------------------===//

#include "LogDecoder.h"

namespace apistamp {

bool Decoder::feed(const char *In, size_t Size, LineReader &Lines) {
  if (Kind == Plain) {
    // Parsed where it was read: \p In is padded.
    Lines.consume(In, Size);
    return true;
  }
  if (Kind == Gzip) {
    Zlib->next_in = reinterpret_cast<Bytef *>(const_cast<char *>(In));
    Zlib->avail_in = Size;
    while (Zlib->avail_in > 0) {
      Zlib->next_out = reinterpret_cast<Bytef *>(Out.data());
      Zlib->avail_out = ChunkSize;
      int Status = inflate(Zlib.get(), Z_NO_FLUSH);
      MidStream = Status != Z_STREAM_END;
      Lines.consume(Out.data(), ChunkSize - Zlib->avail_out);
      if (Status == Z_STREAM_END) {
        inflateReset(Zlib.get()); // Concatenated gzip members.
      } else if (Status != Z_OK && Status != Z_BUF_ERROR) {
        Error = "corrupt gzip data";
        return false;
      } else if (Status == Z_BUF_ERROR && Zlib->avail_out == ChunkSize) {
        break;
      }
    }
    return true;
  }
  ZSTD_inBuffer Input{In, Size, 0};
  while (Input.pos < Input.size) {
    ZSTD_outBuffer Output{Out.data(), ChunkSize, 0};
    size_t Status = ZSTD_decompressStream(ZstdStream, &Output, &Input);
    if (ZSTD_isError(Status)) {
      Error = std::string("corrupt zstd data: ") + ZSTD_getErrorName(Status);
      return false;
    }
    MidStream = Status != 0; // 0: a frame ended, and was flushed.
    Lines.consume(Out.data(), Output.pos);
  }
  // Flush what the decoder still holds.
  for (;;) {
    ZSTD_inBuffer None{nullptr, 0, 0};
    ZSTD_outBuffer Output{Out.data(), ChunkSize, 0};
    size_t Status = ZSTD_decompressStream(ZstdStream, &Output, &None);
    if (ZSTD_isError(Status))
      break;
    // Nothing more: between frames, a non-zero Status asks for the next
    // one's header, and says nothing of the last.
    if (Output.pos == 0) {
      MidStream &= Status != 0;
      break;
    }
    MidStream = Status != 0;
    Lines.consume(Out.data(), Output.pos);
  }
  return true;
}

bool Decoder::finish() {
  if (Kind == Plain || !MidStream)
    return true;
  Error = std::string("truncated ") + (Kind == Gzip ? "gzip" : "zstd") +
          " data: the file ends inside a compressed stream (cut off while it "
          "was copied or written?)";
  return false;
}

Decoder::Format formatOf(const char *Data, size_t Size) {
  if (Size >= 2 && uint8_t(Data[0]) == 0x1f && uint8_t(Data[1]) == 0x8b)
    return Decoder::Gzip;
  if (Size >= 4 && uint8_t(Data[0]) == 0x28 && uint8_t(Data[1]) == 0xb5 &&
      uint8_t(Data[2]) == 0x2f && uint8_t(Data[3]) == 0xfd)
    return Decoder::Zstd;
  return Decoder::Plain;
}

} // namespace apistamp
