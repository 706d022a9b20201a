// A conversion operator to a type that depends on a template parameter is
// named with the parameter as written, as clang's diagnostics name it:
// "operator T", "operator View<CharT>"; before, "operator type-parameter-0-0"
// (fmt's uint128_fallback and string_literal). A conversion to a concrete
// type keeps its name. A constructor of a class template is named by the
// class ("Box::Box", not "Box<type-parameter-0-0>": protobuf's RepeatedField).
// RUN: rm -rf %t && %split-file %s %t
// RUN: cd %t && %apistamp catalog --unselected --rules rules.yaml a.cpp -- %cxxflags 2>&1 \
// RUN:   | FileCheck %s --implicit-check-not=type-parameter
// CHECK-DAG: lib::Wide::operator T (method)
// CHECK-DAG: lib::Literal::operator View<CharT> (method)
// CHECK-DAG: lib::Flag::operator bool (method)
// CHECK-DAG: lib::Box::Box (constructor)

//--- rules.yaml
version: 1
public_surface:
  headers: ["a.cpp"]
rules:
  - id: none
    namespace: other
//--- a.cpp
namespace lib {
template <typename C> struct View {};
struct Wide {
  template <typename T> explicit operator T() const { return T(); }
};
template <typename CharT> struct Literal {
  operator View<CharT>() const { return {}; }
};
struct Flag {
  explicit operator bool() const { return true; }
};
template <typename E> struct Box {
  template <typename It> Box(It, It);
};
template <typename E> template <typename It> Box<E>::Box(It, It) {}
}
