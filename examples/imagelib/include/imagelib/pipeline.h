// imagelib's main class: a named sequence of image operations.
#ifndef IMAGELIB_PIPELINE_H
#define IMAGELIB_PIPELINE_H

#include "imagelib/image.h"
#include <functional>
#include <string>
#include <vector>

namespace imagelib {

/// One named step of a pipeline: a building block, not an API of its own.
class Stage {
public:
  using Operation = std::function<Image(const Image &)>;

  Stage(std::string Name, Operation Apply);
  const std::string &name() const { return Name; }
  Image run(const Image &In) const { return Apply(In); }

private:
  std::string Name;
  Operation Apply;
};

/// Applies its stages in order.
class Pipeline {
public:
  explicit Pipeline(std::string Name);
  Pipeline(std::string Name, std::vector<Stage> Stages);

  /// Appends \p S; returns *this for chaining.
  Pipeline &add(Stage S);
  /// Runs every stage on \p In and returns the last result.
  Image run(const Image &In) const;
  /// Returns "name: stage1 -> stage2 ...".
  std::string describe() const;

private:
  std::string Name;
  std::vector<Stage> Stages;
};

} // namespace imagelib

#endif // IMAGELIB_PIPELINE_H
