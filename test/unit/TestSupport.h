//===- TestSupport.h - Helpers for apistamp unit tests ----------*- C++ -*-===//
//
// llvm/Testing/Support's library is not shipped by Debian, so ASSERT_THAT_
// EXPECTED is not available; these are the two helpers the tests need.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_TEST_SUPPORT_H
#define APISTAMP_TEST_SUPPORT_H

#include "llvm/Support/Error.h"
#include "gtest/gtest.h"
#include <string>

namespace apistamp {

/// The value of \p E; fails the test (and returns a default) on error.
template <typename T> T valueOrFail(llvm::Expected<T> E) {
  if (!E) {
    ADD_FAILURE() << "unexpected error: " << llvm::toString(E.takeError());
    return T();
  }
  return std::move(*E);
}

/// The message of \p E's error; fails the test if it holds a value.
template <typename T> std::string errorOf(llvm::Expected<T> E) {
  if (E) {
    ADD_FAILURE() << "expected an error";
    return "";
  }
  return llvm::toString(E.takeError());
}

} // namespace apistamp

#endif
