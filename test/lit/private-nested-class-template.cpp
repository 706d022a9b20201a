// Access is the effective access through every enclosing class: the members
// of a private nested class template (protobuf's
// SimpleDescriptorDatabase::DescriptorIndex<Value>) are not public API, as
// those of a private nested class are not; a public nested template's are.
// `catalog --unselected` does not list them as public API either.
// RUN: rm -rf %t && %split-file %s %t
// RUN: not %apistamp check --rules %t/rules.yaml %t/a.cpp -- %cxxflags | FileCheck %s -implicit-check-not=warning:
// RUN: %apistamp catalog --unselected --rules %t/narrow.yaml %t/a.cpp -- %cxxflags | FileCheck %s --check-prefix=UNSELECTED -implicit-check-not=Index
// UNSELECTED: a.cpp:[[#]]:[[#]]: lib::Outer::Open::add (method)

//--- rules.yaml
version: 1
rules:
  - id: outer
    namespace: lib
//--- narrow.yaml
version: 1
public_surface:
  headers: ["a.cpp"]
rules:
  - id: outer
    namespace: lib
    name: api
//--- a.cpp
namespace lib {
class Outer {
public:
  void api();
  template <typename T> class Open {
  public:
    void add(T);
  };

private:
  template <typename T> class Index {
  public:
    void add(T);
  };
  class Plain {
  public:
    void add(int);
  };
};
// CHECK: a.cpp:[[@LINE+1]]:13: warning: missing API usage event 'lib.Outer.api' [outer]
void Outer::api() {}
// CHECK: a.cpp:[[@LINE+2]]:22: warning: missing API usage event 'lib.Outer.Open.add' [outer]
template <typename T>
void Outer::Open<T>::add(T) {}
template <typename T>
void Outer::Index<T>::add(T) {}
void Outer::Plain::add(int) {}
} // namespace lib
