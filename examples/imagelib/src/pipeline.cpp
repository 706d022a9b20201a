// imagelib::Pipeline and its building block, imagelib::Stage.
#include "imagelib/pipeline.h"

#include <utility>

namespace imagelib {

Stage::Stage(std::string Name, Operation Apply)
    : Name(std::move(Name)), Apply(std::move(Apply)) {}

Pipeline::Pipeline(std::string Name) : Name(std::move(Name)) {}

Pipeline::Pipeline(std::string Name, std::vector<Stage> Stages)
    : Name(std::move(Name)), Stages(std::move(Stages)) {}

Pipeline &Pipeline::add(Stage S) {
  Stages.push_back(std::move(S));
  return *this;
}

Image Pipeline::run(const Image &In) const {
  Image Current = In;
  for (const Stage &S : Stages)
    Current = S.run(Current);
  return Current;
}

std::string Pipeline::describe() const {
  std::string Text = Name + ":";
  for (std::size_t I = 0; I < Stages.size(); ++I)
    Text += (I ? " -> " : " ") + Stages[I].name();
  return Text;
}

} // namespace imagelib
