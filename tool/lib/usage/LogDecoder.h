//===- LogDecoder.h - Decompress a log as it is read ------------*- C++ -*-===//
//
// What is read from a log, gzip (concatenated members too), zstd or plain
// text as its first bytes say, passed on to a LineReader as plain text.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_USAGE_LOGDECODER_H
#define APISTAMP_LIB_USAGE_LOGDECODER_H

#include "LineReader.h"
#include <cstring>
#include <memory>
#include <string>
#include <vector>
#include <zlib.h>
#include <zstd.h>

namespace apistamp {

/// Decompresses (or passes through) what is read from a file descriptor.
class Decoder {
public:
  enum Format { Plain, Gzip, Zstd };
  explicit Decoder(Format F) : Kind(F) {
    if (Kind != Plain)
      Out.resize(ChunkSize + LogLinePadding);
    if (Kind == Gzip) {
      Zlib = std::make_unique<z_stream>();
      std::memset(Zlib.get(), 0, sizeof(z_stream));
      inflateInit2(Zlib.get(), 16 + MAX_WBITS);
    } else if (Kind == Zstd) {
      ZstdStream = ZSTD_createDStream();
    }
  }
  ~Decoder() {
    if (Zlib)
      inflateEnd(Zlib.get());
    if (ZstdStream)
      ZSTD_freeDStream(ZstdStream);
  }

  /// Feeds \p Size bytes to \p Lines; false with Error set on bad data.
  /// \p In has LogLinePadding readable bytes after \p Size.
  bool feed(const char *In, size_t Size, LineReader &Lines);

  /// False with Error set when the data ended inside a gzip member or a
  /// zstd frame: the file was cut off.
  bool finish();

  std::string Error;

private:
  /// Inside a gzip member or a zstd frame: more data was due.
  bool MidStream = false;
  Format Kind;
  std::vector<char> Out;
  std::unique_ptr<z_stream> Zlib;
  ZSTD_DStream *ZstdStream = nullptr;
};

/// The format of a log whose first \p Size bytes are \p Data (gzip and
/// zstd by their magic bytes).
Decoder::Format formatOf(const char *Data, size_t Size);

} // namespace apistamp

#endif // APISTAMP_LIB_USAGE_LOGDECODER_H
