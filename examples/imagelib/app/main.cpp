// imagelib_demo: uses imagelib and prints the API usage events it logs.
#include "imagelib/io.h"
#include "imagelib/ops.h"
#include "imagelib/pipeline.h"

#include <apistamp/api_usage.h>
#include <iostream>

int main() {
  apistamp::SetAPIUsageLogger([](const std::string &Event) {
    std::cout << "api-usage: " << Event << "\n";
  });

  // A dark 8x8 image with a bright 3x3 square and one noisy pixel.
  imagelib::Image Img(8, 8, 20);
  for (int Y = 2; Y < 5; ++Y)
    for (int X = 2; X < 5; ++X)
      Img.set(X, Y, 230);
  Img.set(6, 6, 255);

  imagelib::Pipeline Denoise("denoise");
  Denoise
      .add(imagelib::Stage(
          "blur",
          [](const imagelib::Image &I) { return imagelib::blur(I, 1); }))
      .add(imagelib::Stage("threshold", [](const imagelib::Image &I) {
        return imagelib::threshold(I, 100);
      }));
  // Each call site logs once however often it runs: the pipeline, blur and
  // threshold run twice here but log once each.
  imagelib::Image Clean = Denoise.run(Denoise.run(Img));
  imagelib::Image Negative =
      imagelib::decodePgm(imagelib::encodePgm(imagelib::invert(Clean)));

  int Bright = Clean.histogram()[255];
  double CentreMean = Clean.crop(2, 2, 3, 3).mean();
  double NegativeMean = imagelib::binarize(Negative).mean();
  std::string Name = Denoise.describe();

  std::cout << Name << "\n";
  for (int Y = 0; Y < Clean.height(); ++Y) {
    for (int X = 0; X < Clean.width(); ++X)
      std::cout << (Clean.at(X, Y) ? '#' : '.');
    std::cout << "\n";
  }
  std::cout << "bright pixels: " << Bright << ", centre mean: " << CentreMean
            << ", negative mean: " << NegativeMean << "\n";
  return 0;
}
