// A coroutine's body gets the call as its first statement.
// RUN: rm -rf %t && %split-file %s %t
// RUN: %apistamp fix --rules %t/rules.yaml %t/a.cpp -- -std=c++20 -nostdinc++ -I%inputs/include -I%t
// RUN: FileCheck %s --input-file=%t/a.cpp
// RUN: %apistamp check --rules %t/rules.yaml %t/a.cpp -- -std=c++20 -nostdinc++ -I%inputs/include -I%t

//--- rules.yaml
version: 1
include: c10/util/Logging.h
rules:
  - id: tasks
    name: run

//--- coroutine
// Just enough of <coroutine> for clang to accept a coroutine.
#pragma once
namespace std {
template <class R, class... Args> struct coroutine_traits { using promise_type = typename R::promise_type; };
template <class P = void> struct coroutine_handle;
template <> struct coroutine_handle<void> {
  static coroutine_handle from_address(void *) noexcept { return {}; }
  void *address() const noexcept { return nullptr; }
};
template <class P> struct coroutine_handle : coroutine_handle<> {
  static coroutine_handle from_address(void *) noexcept { return {}; }
  static coroutine_handle from_promise(P &) noexcept { return {}; }
};
struct suspend_never {
  bool await_ready() const noexcept { return true; }
  void await_suspend(coroutine_handle<>) const noexcept {}
  void await_resume() const noexcept {}
};
} // namespace std

//--- a.cpp
#include "c10/util/Logging.h"
#include <coroutine>
struct Task {
  struct promise_type {
    Task get_return_object() { return {}; }
    std::suspend_never initial_suspend() noexcept { return {}; }
    std::suspend_never final_suspend() noexcept { return {}; }
    void return_void() {}
    void unhandled_exception() {}
  };
};
// CHECK:      {{^}}Task run() {{[{]$}}
// CHECK-NEXT: {{^}}  C10_LOG_API_USAGE_ONCE("run");{{$}}
// CHECK-NEXT: {{^}}  co_await std::suspend_never{};{{$}}
Task run() {
  co_await std::suspend_never{};
}
