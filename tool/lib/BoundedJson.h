//===- BoundedJson.h - JSON from untrusted files, bounded ---*- C++ -*-===//
//
// llvm::json's parser recurses once per nesting level: a file of 100,000
// nested brackets overflows the stack (issue 44's F07). Every JSON input
// apistamp reads (catalogs, usage files, cache entries, tu results, store
// entries) is measured first, without recursion.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_BOUNDEDJSON_H
#define APISTAMP_LIB_BOUNDEDJSON_H

#include "llvm/Support/JSON.h"

namespace apistamp {

/// How deeply \p Text's JSON arrays and objects nest (strings skipped).
unsigned jsonNestingDepth(llvm::StringRef Text);

/// Catalogs and usage reports nest 4 deep; this leaves room for growth.
constexpr unsigned MaxInputNesting = 64;

/// \p Text parsed by llvm::json, or an error if it nests deeper than
/// \p MaxDepth (before any recursion) or is not JSON.
llvm::Expected<llvm::json::Value>
parseBoundedJson(llvm::StringRef Text, unsigned MaxDepth = MaxInputNesting);

} // namespace apistamp

#endif // APISTAMP_LIB_BOUNDEDJSON_H
