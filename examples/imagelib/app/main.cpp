// imagelib_demo: prints the API usage events the library logs while it runs.
#include "imagelib/io.h"
#include "imagelib/ops.h"
#include "imagelib/pipeline.h"
#include <apistamp/api_usage.h>
#include <iostream>

int main() {
  apistamp::SetAPIUsageLogger([](const std::string &Event) {
    std::cout << "api-usage: " << Event << "\n";
  });

  imagelib::Image Img(8, 8, 40);
  Img.set(3, 3, 250);
  imagelib::Pipeline P("denoise");
  P.add(imagelib::Stage("blur", [](const imagelib::Image &I) {
     return imagelib::blur(I, 1);
   }))
      .add(imagelib::Stage("threshold", [](const imagelib::Image &I) {
        return imagelib::threshold(I, 45);
      }));
  // Run twice: each event is logged once.
  imagelib::Image Out = P.run(P.run(Img));
  imagelib::Image Back = imagelib::decodePgm(imagelib::encodePgm(Out));
  double Mean = Back.mean();
  std::cout << P.describe() << " -> mean " << Mean << "\n";
  return 0;
}
