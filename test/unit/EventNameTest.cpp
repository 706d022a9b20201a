//===- EventNameTest.cpp - Tests for event name templates -----------------===//

#include "apistamp/EventName.h"
#include "TestSupport.h"
#include "apistamp/Selection.h"

using namespace apistamp;

namespace {

std::string expand(llvm::StringRef Template, const DeclFacts &F) {
  size_t Column = 0;
  return valueOrFail(EventTemplate::parse(Template, Column)).expand(F);
}

DeclFacts nms() {
  DeclFacts F;
  F.Name = "nms";
  F.Namespaces = {"vision", "ops"};
  F.RelativePath = "torchvision/csrc/ops/nms.cpp";
  return F;
}

DeclFacts videoConstructor() {
  DeclFacts F;
  F.Kind = DeclKind::Constructor;
  F.Name = "Video";
  F.Namespaces = {"vision", "video"};
  F.Classes = {"Video"};
  F.RelativePath = "torchvision/csrc/io/video/video.cpp";
  return F;
}

TEST(EventNameTest, TorchvisionPathNames) {
  EXPECT_EQ(expand("{path}.{name}", nms()), "torchvision.csrc.ops.nms.nms");
  EXPECT_EQ(expand("{path}.{name}", videoConstructor()),
            "torchvision.csrc.io.video.video.Video");
}

TEST(EventNameTest, QualifiedNames) {
  EXPECT_EQ(expand("{qualified}", nms()), "vision.ops.nms");
  EXPECT_EQ(expand("{qualified}", videoConstructor()), "vision.video.Video");
  DeclFacts Method = videoConstructor();
  Method.Kind = DeclKind::Method;
  Method.Name = "next";
  EXPECT_EQ(expand("{qualified}", Method), "vision.video.Video.next");
  DeclFacts Global;
  Global.Name = "f";
  EXPECT_EQ(expand("{qualified}", Global), "f");
}

TEST(EventNameTest, OtherPlaceholdersAndLiterals) {
  DeclFacts F = videoConstructor();
  F.Classes = {"Outer", "Video"};
  EXPECT_EQ(expand("{namespace}|{class}|{name}|{file}", F),
            "vision.video|Outer.Video|Video|video");
  EXPECT_EQ(expand("prefix.{file}", nms()), "prefix.nms");
  EXPECT_EQ(expand("literal", nms()), "literal");
}

TEST(EventNameTest, ErrorsCarryColumns) {
  size_t Column = 99;
  EXPECT_FALSE(errorOf(EventTemplate::parse("ab.{nope}", Column)).empty());
  EXPECT_EQ(Column, 3u);
  EXPECT_FALSE(errorOf(EventTemplate::parse("a\"b", Column)).empty());
  EXPECT_EQ(Column, 1u);
  EXPECT_FALSE(errorOf(EventTemplate::parse("{name", Column)).empty());
  EXPECT_EQ(Column, 0u);
}

} // namespace
