//===- EventNameTest.cpp - Tests for event name templates -----------------===//

#include "apistamp/EventName.h"
#include "TestSupport.h"
#include "apistamp/Selection.h"
#include "llvm/ADT/STLExtras.h"
#include "gmock/gmock.h"

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

TEST(EventNameTest, SignatureTellsOverloadsApart) {
  DeclFacts F = nms();
  F.ParameterTypes = {"const at::Tensor &", "double"};
  EXPECT_EQ(expand("{qualified}{signature}", F),
            "vision.ops.nms(const at::Tensor &, double)");
  F.ParameterTypes.clear();
  EXPECT_EQ(expand("{name}{signature}", F), "nms()");
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

TEST(EventNameTest, ControlCharactersAreRefusedAndNotEchoed) {
  // Promise
  // (docs/reliability.md#an-event-is-text-never-code-or-terminal-control): the
  // template went into the source as it was, line breaks and all; messages that
  // quote the template echoed its raw bytes.
  for (llvm::StringRef Bad :
       {llvm::StringRef("a\nb"), llvm::StringRef("a\rb"),
        llvm::StringRef("a\0b", 3), llvm::StringRef("a\tb"),
        llvm::StringRef("a\x1b[31mb"),
        llvm::StringRef("a\x7f"
                        "b"),
        llvm::StringRef("a\xC2\x85"
                        "b")}) {
    size_t Column = 99;
    std::string Message = errorOf(EventTemplate::parse(Bad, Column));
    EXPECT_THAT(Message,
                ::testing::HasSubstr(
                    "event template may not contain control characters"))
        << Message;
    EXPECT_EQ(Column, 1u) << Message;
    EXPECT_TRUE(llvm::none_of(Message, [](char C) {
      return (unsigned char)C < 0x20 || C == 0x7f;
    })) << Message;
  }
  size_t Column = 0;
  EXPECT_EQ(errorOf(EventTemplate::parse("x}\x1b", Column)),
            "event template may not contain control characters (found "
            "'\\x1b')");
}

TEST(EventNameTest, UTF8IsKeptAndInvalidUTF8IsNamed) {
  EXPECT_EQ(expand("caf\xC3\xA9.{name}", nms()), "caf\xC3\xA9.nms");
  size_t Column = 0;
  EXPECT_EQ(errorOf(EventTemplate::parse("ab\xE9.{name}", Column)),
            "event template is not valid UTF-8 (found byte '\\xe9')");
  EXPECT_EQ(Column, 2u);
  EXPECT_EQ(errorOf(EventTemplate::parse("a\"b", Column)),
            "event template may not contain quotes or backslashes");
}

TEST(EventNameTest, BidirectionalControlsAreControlCharacters) {
  size_t Column = 0;
  EXPECT_EQ(errorOf(EventTemplate::parse("x}\xE2\x80\xAE", Column)),
            "event template may not contain control characters (found "
            "'\\u202e')");
  EXPECT_EQ(Column, 2u);
}

TEST(EventNameTest, LengthIsBounded) {
  size_t Column = 99;
  EXPECT_EQ(
      valueOrFail(EventTemplate::parse(std::string(1024, 'x'), Column)).text(),
      std::string(1024, 'x'));
  EXPECT_EQ(errorOf(EventTemplate::parse(std::string(1025, 'x'), Column)),
            "event template is 1025 bytes long; at most 1024 are allowed");
  EXPECT_EQ(Column, 0u);
}

} // namespace
