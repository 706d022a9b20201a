// A pipeline of image operations: the library's main class.
#pragma once
#include "imagelib/image.h"
#include <functional>
#include <string>
#include <vector>

namespace imagelib {

/// One step of a pipeline: a building block, not an API of its own.
class Stage {
public:
  Stage(std::string Name, std::function<Image(const Image &)> Apply);
  const std::string &name() const { return Name; }
  Image run(const Image &In) const { return Apply(In); }

private:
  std::string Name;
  std::function<Image(const Image &)> Apply;
};

class Pipeline {
public:
  explicit Pipeline(std::string Name);
  Pipeline(std::string Name, std::vector<Stage> Stages);
  Pipeline &add(Stage S);
  Image run(const Image &In) const;
  std::string describe() const;

private:
  std::string Name;
  std::vector<Stage> Stages;
};

} // namespace imagelib
