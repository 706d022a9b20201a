//===- PythonEditsTest.cpp - Tests of the Python front end's edits --------===//
//
// The edits of a Python site on strings: the call's insertion (with a
// guard, after the docstring or super().__init__, a one-line body made a
// block, CRLF and tabs), the import (relative at several depths, absolute,
// merged into an existing one, not added when bound) and a stale call's
// removal (with `pass` when the body would be empty).
//
//===----------------------------------------------------------------------===//

#include "python/PythonEdits.h"
#include "TestSupport.h"
#include "python/PythonFacts.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

using namespace apistamp;
using namespace apistamp::python;

namespace {

/// The site of \p Qualified in \p Code (module \p Module), as decideSite
/// sees it, with event \p Event.
Site siteOf(llvm::StringRef Code, llvm::StringRef Qualified,
            llvm::StringRef Module = "pkg.m", bool IsPackage = false) {
  CallNames Calls;
  Calls.Callees = {"_log_api_usage_once"};
  Calls.Guards = {"not torch.jit.is_scripting()"};
  ModuleFacts M = valueOrFail(
      readModuleFacts("/r/m.py", Code, Module, IsPackage, "m.py", Calls));
  for (const Candidate &C : M.Facts.Candidates)
    if (C.QualifiedName == Qualified) {
      Site S;
      S.File = C.File;
      S.Offset = C.Offset;
      S.Line = C.Line;
      S.Column = C.Column;
      S.Kind = C.Facts.Kind;
      S.QualifiedName = C.QualifiedName;
      S.Calls = C.Calls;
      S.Python = C.Python;
      S.Event = Qualified.str();
      return S;
    }
  ADD_FAILURE() << "no candidate " << Qualified.str();
  return Site();
}

Rule functionRule() {
  Rule R;
  R.Id = "funcs";
  R.Lang = Language::Python;
  R.Call.Argument = "{name}";
  R.Call.ImportModule = "pkg.utils";
  R.Call.ImportName = "_log_api_usage_once";
  R.Call.RelativeImport = true;
  return R;
}

/// \p Code with \p Edits applied (from the last to the first).
std::string apply(std::string Code, std::vector<TextEdit> Edits) {
  std::sort(
      Edits.begin(), Edits.end(),
      [](const TextEdit &L, const TextEdit &R) { return L.Offset > R.Offset; });
  for (const TextEdit &E : Edits)
    Code.replace(E.Offset, E.Length, E.Text);
  return Code;
}

TEST(PythonEdits, CallArgument) {
  std::string Code = "def f(): pass\nclass C:\n    def __init__(self): pass\n";
  Site F = siteOf(Code, "pkg.m.f");
  Rule R = functionRule();
  EXPECT_EQ(callArgument(F, R), "f");
  R.Call.Argument = "{event}";
  EXPECT_EQ(callArgument(F, R), "\"pkg.m.f\"");
  R.Call.Argument = "";
  EXPECT_EQ(callArgument(F, R), "f");
  Site Init = siteOf(Code, "pkg.m.C.__init__");
  EXPECT_EQ(callArgument(Init, R), "self");
  R.Call.Argument = "{name}";
  EXPECT_EQ(callArgument(Init, R), "C");
}

TEST(PythonEdits, GuardedInsertionAfterDocstringWithImport) {
  std::string Code = "import torch\n"
                     "\n"
                     "def nms(x):\n"
                     "    \"\"\"Doc.\"\"\"\n"
                     "    return x\n";
  Site S = siteOf(Code, "pkg.m.nms");
  Rule R = functionRule();
  R.Call.Guard = "not torch.jit.is_scripting()";
  EXPECT_EQ(apply(Code, insertion(S, Code, R)),
            "import torch\n"
            "from .utils import _log_api_usage_once\n"
            "\n"
            "def nms(x):\n"
            "    \"\"\"Doc.\"\"\"\n"
            "    if not torch.jit.is_scripting():\n"
            "        _log_api_usage_once(nms)\n"
            "    return x\n");
}

TEST(PythonEdits, ConstructorAfterSuperInitOrFirst) {
  std::string Code = "class C:\n"
                     "    def __init__(self):\n"
                     "        x = 1\n"
                     "        super().__init__(x)\n"
                     "        self.x = x\n";
  Site S = siteOf(Code, "pkg.m.C.__init__");
  Rule R = functionRule();
  R.Call.Argument = "self";
  R.Call.ImportName.clear();
  EXPECT_EQ(apply(Code, insertion(S, Code, R)),
            "class C:\n"
            "    def __init__(self):\n"
            "        x = 1\n"
            "        super().__init__(x)\n"
            "        _log_api_usage_once(self)\n"
            "        self.x = x\n");
  R.Call.AfterSuperInit = false;
  EXPECT_EQ(apply(Code, insertion(S, Code, R)),
            "class C:\n"
            "    def __init__(self):\n"
            "        _log_api_usage_once(self)\n"
            "        x = 1\n"
            "        super().__init__(x)\n"
            "        self.x = x\n");
}

TEST(PythonEdits, InlineBodyBecomesABlock) {
  std::string Code = "class C:\n\tdef m(self): return self  # keep\n";
  Site S = siteOf(Code, "pkg.m.C.m");
  Rule R = functionRule();
  R.Call.Argument = "self";
  R.Call.ImportName.clear();
  EXPECT_EQ(apply(Code, insertion(S, Code, R)),
            "class C:\n\tdef m(self):\n\t\t_log_api_usage_once(self)\n"
            "\t\treturn self  # keep\n");
}

TEST(PythonEdits, CRLFAndNoFinalLineBreak) {
  std::string Code = "import os\r\ndef f(x):\r\n    return x";
  Site S = siteOf(Code, "pkg.m.f");
  Rule R = functionRule();
  EXPECT_EQ(apply(Code, insertion(S, Code, R)),
            "import os\r\nfrom .utils import _log_api_usage_once\r\n"
            "def f(x):\r\n    _log_api_usage_once(f)\r\n    return x");
}

TEST(PythonEdits, RelativeImportAtSeveralDepths) {
  std::string Code = "def f(): pass\n";
  Rule R = functionRule();
  EXPECT_EQ(importStatement(siteOf(Code, "pkg.m.f", "pkg.m"), R),
            "from .utils import _log_api_usage_once");
  EXPECT_EQ(importStatement(siteOf(Code, "pkg.a.m.f", "pkg.a.m"), R),
            "from ..utils import _log_api_usage_once");
  EXPECT_EQ(importStatement(siteOf(Code, "pkg.a.b.m.f", "pkg.a.b.m"), R),
            "from ...utils import _log_api_usage_once");
  // A package's __init__ is in the package: one dot less.
  EXPECT_EQ(importStatement(siteOf(Code, "pkg.a.f", "pkg.a", true), R),
            "from ..utils import _log_api_usage_once");
  EXPECT_EQ(importStatement(siteOf(Code, "pkg.f", "pkg", true), R),
            "from .utils import _log_api_usage_once");
  // The target in the module's own package, and the package itself.
  R.Call.ImportModule = "pkg.a.helpers";
  EXPECT_EQ(importStatement(siteOf(Code, "pkg.a.m.f", "pkg.a.m"), R),
            "from .helpers import _log_api_usage_once");
  R.Call.ImportModule = "pkg";
  EXPECT_EQ(importStatement(siteOf(Code, "pkg.a.m.f", "pkg.a.m"), R),
            "from .. import _log_api_usage_once");
  // Another top package: absolute all the same.
  R.Call.ImportModule = "pkg.utils";
  EXPECT_EQ(importStatement(siteOf(Code, "other.m.f", "other.m"), R),
            "from pkg.utils import _log_api_usage_once");
  // relative_import false: as the rule writes it.
  R.Call.RelativeImport = false;
  EXPECT_EQ(importStatement(siteOf(Code, "pkg.a.m.f", "pkg.a.m"), R),
            "from pkg.utils import _log_api_usage_once");
}

TEST(PythonEdits, ImportMergedIntoAnExistingOne) {
  std::string Code = "import os\n"
                     "from ..utils import x\n"
                     "def f(): return x\n";
  Site S = siteOf(Code, "pkg.sub.m.f", "pkg.sub.m");
  std::optional<TextEdit> E = importEdit(S, functionRule());
  ASSERT_TRUE(E);
  EXPECT_EQ(E->Offset, Code.find(" x\n") + 2);
  EXPECT_EQ(E->Length, 0u);
  EXPECT_EQ(E->Text, ", _log_api_usage_once");
}

TEST(PythonEdits, NoImportWhenTheNameIsBound) {
  Rule R = functionRule();
  EXPECT_FALSE(importEdit(siteOf("from .utils import _log_api_usage_once\n"
                                 "def f(): pass\n",
                                 "pkg.m.f"),
                          R));
  EXPECT_FALSE(importEdit(siteOf("def _log_api_usage_once(o): pass\n"
                                 "def f(): pass\n",
                                 "pkg.m.f"),
                          R));
  EXPECT_FALSE(importEdit(siteOf("try:\n"
                                 "    from .u import _log_api_usage_once\n"
                                 "except ImportError:\n"
                                 "    pass\n"
                                 "def f(): pass\n",
                                 "pkg.m.f"),
                          R));
  // No import: in the rule.
  R.Call.ImportName.clear();
  EXPECT_FALSE(importEdit(siteOf("def f(): pass\n", "pkg.m.f"), R));
}

TEST(PythonEdits, ImportPlacedAfterTheLeadingImports) {
  std::string Code = "\"\"\"Doc.\"\"\"\n"
                     "import os\n"
                     "X = 1\n"
                     "import sys\n"
                     "def f(): pass\n";
  std::optional<TextEdit> E =
      importEdit(siteOf(Code, "pkg.m.f"), functionRule());
  ASSERT_TRUE(E);
  EXPECT_EQ(E->Offset, Code.find("X = 1"));
  EXPECT_EQ(E->Text, "from .utils import _log_api_usage_once\n");
}

TEST(PythonEdits, ImportBeforeAFirstStatementAtTheTop) {
  // No leading import: the import goes before the first statement.
  std::string Code = "def f(): pass\nimport os\n";
  std::optional<TextEdit> E =
      importEdit(siteOf(Code, "pkg.m.f"), functionRule());
  ASSERT_TRUE(E);
  EXPECT_EQ(E->Offset, 0u);
}

TEST(PythonEdits, RemovalOfAStaleCall) {
  std::string Code = "import torch\n"
                     "def a():\n"
                     "    _log_api_usage_once(a)\n"
                     "def b():\n"
                     "    \"\"\"Doc.\"\"\"\n"
                     "    _log_api_usage_once(b)\n"
                     "def c(x):\n"
                     "    if not torch.jit.is_scripting():\n"
                     "        _log_api_usage_once(c)\n"
                     "    return x\n"
                     "def d(x):\n"
                     "    return _log_api_usage_once(d)\n";
  std::string WhyNot;
  Site A = siteOf(Code, "pkg.m.a");
  std::optional<TextEdit> RA = callRemoval(A, 0, &WhyNot);
  ASSERT_TRUE(RA);
  EXPECT_EQ(RA->Offset, Code.find("    _log_api_usage_once(a)"));
  EXPECT_EQ(RA->Length, std::string("    _log_api_usage_once(a)\n").size());
  EXPECT_EQ(RA->Text, "    pass\n");
  // With a docstring left, no pass.
  std::optional<TextEdit> RB = callRemoval(siteOf(Code, "pkg.m.b"), 0, &WhyNot);
  ASSERT_TRUE(RB);
  EXPECT_EQ(RB->Text, "");
  // The guard goes with the call.
  std::optional<TextEdit> RC = callRemoval(siteOf(Code, "pkg.m.c"), 0, &WhyNot);
  ASSERT_TRUE(RC);
  EXPECT_EQ(RC->Offset, Code.find("    if not torch"));
  EXPECT_EQ(RC->Offset + RC->Length, Code.find("    return x"));
  EXPECT_EQ(RC->Text, "");
  // Inside another statement: not removed, and why.
  EXPECT_FALSE(callRemoval(siteOf(Code, "pkg.m.d"), 0, &WhyNot));
  EXPECT_EQ(WhyNot, "the call is not a statement of its own lines");
  std::string Applied = apply(Code, {*RA, *RB, *RC});
  EXPECT_EQ(Applied, "import torch\n"
                     "def a():\n"
                     "    pass\n"
                     "def b():\n"
                     "    \"\"\"Doc.\"\"\"\n"
                     "def c(x):\n"
                     "    return x\n"
                     "def d(x):\n"
                     "    return _log_api_usage_once(d)\n");
}

TEST(PythonEdits, IsFirstStatement) {
  std::string Code = "class C:\n"
                     "    def __init__(self):\n"
                     "        \"\"\"Doc.\"\"\"\n"
                     "        super().__init__()\n"
                     "        _log_api_usage_once(self)\n"
                     "def f():\n"
                     "    x = 1\n"
                     "    _log_api_usage_once(f)\n";
  Site Init = siteOf(Code, "pkg.m.C.__init__");
  ASSERT_EQ(Init.Calls.size(), 1u);
  EXPECT_TRUE(isFirstStatement(Init, Init.Calls[0]));
  Site F = siteOf(Code, "pkg.m.f");
  ASSERT_EQ(F.Calls.size(), 1u);
  EXPECT_FALSE(isFirstStatement(F, F.Calls[0]));
}

} // namespace
