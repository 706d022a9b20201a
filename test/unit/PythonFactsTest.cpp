//===- PythonFactsTest.cpp - Tests of the Python front end's facts --------===//
//
// readModuleFacts on strings: the candidates a module gives (kinds, names,
// publicity, decorators, bases through imports, calls and their events, the
// PythonBody's offsets), absoluteModule, and the parser's refusals (syntax
// error, missing token, bytes not in the file's encoding).
//
//===----------------------------------------------------------------------===//

#include "python/PythonFacts.h"
#include "TestSupport.h"
#include "python/PythonSyntax.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

using namespace apistamp;
using namespace apistamp::python;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using ::testing::UnorderedElementsAre;

namespace {

ModuleFacts read(llvm::StringRef Code, llvm::StringRef Module = "pkg.m",
                 bool IsPackage = false) {
  CallNames Calls;
  Calls.Callees = {"_log_api_usage_once"};
  Calls.Guards = {"not torch.jit.is_scripting()"};
  return valueOrFail(readModuleFacts("/r/pkg/m.py", Code, Module, IsPackage,
                                     "pkg/m.py", Calls));
}

std::string error(llvm::StringRef Code) {
  CallNames Calls;
  return errorOf(
      readModuleFacts("/r/pkg/m.py", Code, "pkg.m", false, "pkg/m.py", Calls));
}

const Candidate *named(const ModuleFacts &M, llvm::StringRef Qualified) {
  for (const Candidate &C : M.Facts.Candidates)
    if (C.QualifiedName == Qualified)
      return &C;
  ADD_FAILURE() << "no candidate " << Qualified.str();
  return nullptr;
}

unsigned offsetOf(llvm::StringRef Code, llvm::StringRef Needle) {
  size_t At = Code.find(Needle);
  EXPECT_NE(At, llvm::StringRef::npos) << Needle.str();
  return unsigned(At);
}

TEST(PythonFacts, AbsoluteModule) {
  EXPECT_EQ(absoluteModule("torch.nn", "pkg.m", false), "torch.nn");
  EXPECT_EQ(absoluteModule(".utils", "pkg.m", false), "pkg.utils");
  EXPECT_EQ(absoluteModule("..utils", "pkg.sub.m", false), "pkg.utils");
  EXPECT_EQ(absoluteModule(".", "pkg.sub.m", false), "pkg.sub");
  EXPECT_EQ(absoluteModule("..", "pkg.sub.m", false), "pkg");
  // A package's __init__: one dot is the package itself.
  EXPECT_EQ(absoluteModule(".utils", "pkg.sub", true), "pkg.sub.utils");
  EXPECT_EQ(absoluteModule("..utils", "pkg.sub", true), "pkg.utils");
  // Above the top package.
  EXPECT_EQ(absoluteModule("...utils", "pkg.sub.m", false), "");
  EXPECT_EQ(absoluteModule("..x", "m", false), "");
  EXPECT_EQ(absoluteModule(".x", "m", false), "");
}

TEST(PythonFacts, KindsNamesAndOrder) {
  ModuleFacts M = read("def f():\n"
                       "    return 1\n"
                       "\n"
                       "class C:\n"
                       "    def __init__(self):\n"
                       "        pass\n"
                       "    def m(self):\n"
                       "        pass\n"
                       "    class Inner:\n"
                       "        def run(self):\n"
                       "            pass\n"
                       "\n"
                       "async def g():\n"
                       "    pass\n");
  std::vector<std::string> Names;
  for (const Candidate &C : M.Facts.Candidates)
    Names.push_back(C.QualifiedName);
  // Inner has no __init__: a constructor candidate with no body.
  EXPECT_THAT(Names,
              ElementsAre("pkg.m.f", "pkg.m.C.__init__", "pkg.m.C.m",
                          "pkg.m.C.Inner", "pkg.m.C.Inner.run", "pkg.m.g"));
  const Candidate *F = named(M, "pkg.m.f");
  ASSERT_TRUE(F);
  EXPECT_EQ(F->Facts.Kind, DeclKind::Function);
  EXPECT_EQ(F->Facts.Lang, Language::Python);
  EXPECT_EQ(F->Facts.Module, "pkg.m");
  EXPECT_EQ(F->Facts.RelativePath, "pkg/m.py");
  EXPECT_EQ(F->Line, 1u);
  EXPECT_EQ(F->Column, 5u);
  EXPECT_EQ(F->BeginLine, 1u);
  EXPECT_EQ(F->EndLine, 2u);
  EXPECT_EQ(F->Shape, BodyShape::Block);
  const Candidate *Init = named(M, "pkg.m.C.__init__");
  ASSERT_TRUE(Init);
  EXPECT_EQ(Init->Facts.Kind, DeclKind::Constructor);
  EXPECT_EQ(Init->Facts.Name, "C");
  EXPECT_THAT(Init->Facts.Classes, ElementsAre("C"));
  const Candidate *Method = named(M, "pkg.m.C.m");
  ASSERT_TRUE(Method);
  EXPECT_EQ(Method->Facts.Kind, DeclKind::Method);
  const Candidate *Inner = named(M, "pkg.m.C.Inner");
  ASSERT_TRUE(Inner);
  EXPECT_EQ(Inner->Facts.Kind, DeclKind::Constructor);
  EXPECT_EQ(Inner->Shape, BodyShape::NoConstructorBody);
  const Candidate *G = named(M, "pkg.m.g");
  ASSERT_TRUE(G);
  EXPECT_EQ(G->Line, 13u);
  EXPECT_EQ(G->Column, 11u);
}

TEST(PythonFacts, PublicityByUnderscore) {
  ModuleFacts M = read("def f(): pass\n"
                       "def _g(): pass\n"
                       "class C:\n"
                       "    def __init__(self): pass\n"
                       "    def _m(self): pass\n"
                       "    def __call__(self): pass\n"
                       "class _D:\n"
                       "    def run(self): pass\n"
                       "def outer():\n"
                       "    def nested(): pass\n");
  auto Public = [&](llvm::StringRef Name) {
    const Candidate *C = named(M, Name);
    return C && C->Facts.Public;
  };
  EXPECT_TRUE(Public("pkg.m.f"));
  EXPECT_FALSE(Public("pkg.m._g"));
  EXPECT_TRUE(Public("pkg.m.C.__init__"));
  EXPECT_FALSE(Public("pkg.m.C._m"));
  EXPECT_TRUE(Public("pkg.m.C.__call__"));
  EXPECT_FALSE(Public("pkg.m._D.run"));
  EXPECT_TRUE(Public("pkg.m.outer"));
  // A nested function is never API: not a candidate at all (with `access:
  // any` a rule would otherwise select it, under its bare name).
  for (const Candidate &C : M.Facts.Candidates)
    EXPECT_NE(C.Facts.Name, "nested");
}

TEST(PythonFacts, PublicityByAll) {
  ModuleFacts M = read("__all__ = ['f', '_g']\n"
                       "__all__ += ('C',)\n"
                       "def f(): pass\n"
                       "def _g(): pass\n"
                       "def h(): pass\n"
                       "class C:\n"
                       "    def __init__(self): pass\n");
  EXPECT_TRUE(named(M, "pkg.m.f")->Facts.Public);
  EXPECT_TRUE(named(M, "pkg.m._g")->Facts.Public);
  EXPECT_FALSE(named(M, "pkg.m.h")->Facts.Public);
  EXPECT_TRUE(named(M, "pkg.m.C.__init__")->Facts.Public);
}

TEST(PythonFacts, PrivateModuleHasNothingPublic) {
  ModuleFacts M = read("__all__ = ['f']\ndef f(): pass\n", "pkg._impl");
  EXPECT_FALSE(named(M, "pkg._impl.f")->Facts.Public);
  ModuleFacts P = read("def f(): pass\n", "pkg._p.m");
  EXPECT_FALSE(named(P, "pkg._p.m.f")->Facts.Public);
  // A dunder module is not private.
  ModuleFacts Init = read("def f(): pass\n", "pkg.__main__");
  EXPECT_TRUE(named(Init, "pkg.__main__.f")->Facts.Public);
}

TEST(PythonFacts, DecoratorsAsWrittenAndResolved) {
  ModuleFacts M = read("import torch\n"
                       "from typing import overload\n"
                       "import functools as ft\n"
                       "@overload\n"
                       "def a(x: int) -> int: ...\n"
                       "@torch.jit.unused\n"
                       "def b(): pass\n"
                       "@ft.lru_cache(maxsize=None)\n"
                       "@staticmethod\n"
                       "def c(): pass\n");
  EXPECT_THAT(named(M, "pkg.m.a")->Facts.Decorators,
              ElementsAre("overload", "typing.overload"));
  EXPECT_THAT(named(M, "pkg.m.b")->Facts.Decorators,
              ElementsAre("torch.jit.unused"));
  EXPECT_THAT(
      named(M, "pkg.m.c")->Facts.Decorators,
      ElementsAre("ft.lru_cache", "functools.lru_cache", "staticmethod"));
  // A decorated definition begins at its first decorator.
  EXPECT_EQ(named(M, "pkg.m.c")->BeginLine, 8u);
  EXPECT_EQ(named(M, "pkg.m.c")->Line, 10u);
}

TEST(PythonFacts, BasesResolvedThroughImports) {
  ModuleFacts M = read("import torch\n"
                       "import torch.nn as tnn\n"
                       "from torch import nn\n"
                       "from .a import A\n"
                       "from ..b import B as Bee\n"
                       "class P(nn.Module): pass\n"
                       "class Q(torch.nn.Module, tnn.Sequential): pass\n"
                       "class R(A, Bee): pass\n"
                       "class S(P): pass\n"
                       "class T(Unknown, object): pass\n",
                       "pkg.sub.m");
  EXPECT_THAT(M.Classes["P"], ElementsAre("torch.nn.Module"));
  EXPECT_THAT(M.Classes["Q"],
              ElementsAre("torch.nn.Module", "torch.nn.Sequential"));
  EXPECT_THAT(M.Classes["R"], ElementsAre("pkg.sub.a.A", "pkg.b.B"));
  EXPECT_THAT(M.Classes["S"], ElementsAre("pkg.sub.m.P"));
  EXPECT_THAT(M.Classes["T"], ElementsAre("Unknown", "object"));
  // The class without __init__ is a candidate whose facts carry the bases.
  EXPECT_THAT(named(M, "pkg.sub.m.P")->Facts.Bases,
              ElementsAre("torch.nn.Module"));
  EXPECT_EQ(M.Imports["nn"], "torch.nn");
  EXPECT_EQ(M.Imports["tnn"], "torch.nn");
  EXPECT_EQ(M.Imports["Bee"], "pkg.b.B");
}

TEST(PythonFacts, StarImports) {
  ModuleFacts M = read("from .base import *\nfrom torch.nn import *\n");
  EXPECT_THAT(M.StarImports, ElementsAre("pkg.base", "torch.nn"));
}

TEST(PythonFacts, CallsAndTheirEvents) {
  std::string Code = "from .utils import _log_api_usage_once\n"
                     "import torch\n"
                     "def other(): pass\n"
                     "class C:\n"
                     "    def __init__(self):\n"
                     "        super().__init__()\n"
                     "        _log_api_usage_once(self)\n"
                     "def f(x):\n"
                     "    if not torch.jit.is_scripting():\n"
                     "        _log_api_usage_once(f)\n"
                     "    _log_api_usage_once(other)\n"
                     "    _log_api_usage_once(\"pkg.m.literal\")\n"
                     "    _log_api_usage_once(x)\n"
                     "    y = _log_api_usage_once(f)\n"
                     "    def inner():\n"
                     "        _log_api_usage_once(inner)\n"
                     "    return lambda: _log_api_usage_once(f)\n";
  ModuleFacts M = read(Code);
  const Candidate *Init = named(M, "pkg.m.C.__init__");
  ASSERT_TRUE(Init);
  ASSERT_EQ(Init->Calls.size(), 1u);
  EXPECT_EQ(Init->Calls[0].Event, "pkg.m.C");
  EXPECT_TRUE(Init->Calls[0].HasArgRange);
  EXPECT_EQ(Init->Calls[0].ArgBegin, offsetOf(Code, "self)\ndef f"));
  EXPECT_EQ(Init->Calls[0].ArgEnd, Init->Calls[0].ArgBegin + 4);

  const Candidate *F = named(M, "pkg.m.f");
  ASSERT_TRUE(F);
  // Not the one in the nested function, nor the one in the lambda.
  ASSERT_EQ(F->Calls.size(), 5u);
  EXPECT_EQ(F->Calls[0].Event, "pkg.m.f");
  EXPECT_TRUE(F->Calls[0].Guarded);
  // A guarded call's statement is its `if`, whole lines.
  EXPECT_EQ(F->Calls[0].Offset, offsetOf(Code, "if not torch"));
  EXPECT_EQ(F->Calls[0].StatementBegin, offsetOf(Code, "    if not torch"));
  EXPECT_EQ(F->Calls[0].StatementEnd,
            offsetOf(Code, "    _log_api_usage_once(other)"));
  EXPECT_EQ(F->Calls[1].Event, "pkg.m.other");
  EXPECT_FALSE(F->Calls[1].Guarded);
  EXPECT_EQ(F->Calls[2].Event, "pkg.m.literal");
  // An argument the module's text cannot name: no event.
  EXPECT_EQ(F->Calls[3].Event, "");
  EXPECT_TRUE(F->Calls[3].HasArgRange);
  // Inside another statement: no removal range.
  EXPECT_EQ(F->Calls[4].StatementBegin, F->Calls[4].StatementEnd);
}

TEST(PythonFacts, BodyOffsetsWithDocstringAndSuper) {
  std::string Code = "class C:\n"
                     "    def __init__(self, n):\n"
                     "        \"\"\"Doc.\"\"\"\n"
                     "        layers = [n]\n"
                     "        super().__init__(*layers)\n"
                     "        self.n = n\n";
  ModuleFacts M = read(Code);
  const Candidate *Init = named(M, "pkg.m.C.__init__");
  ASSERT_TRUE(Init && Init->Python);
  const PythonBody &B = *Init->Python;
  EXPECT_FALSE(B.IsInline);
  EXPECT_TRUE(B.HasDocstring);
  EXPECT_EQ(B.Statements, 3u);
  EXPECT_EQ(B.Indent, "        ");
  EXPECT_EQ(B.DefIndent, "    ");
  EXPECT_EQ(B.IndentUnit, "    ");
  EXPECT_EQ(B.Newline, "\n");
  EXPECT_EQ(B.InsertAfterDocstring, offsetOf(Code, "        layers"));
  EXPECT_EQ(B.FirstAfterDocstring, offsetOf(Code, "layers"));
  EXPECT_EQ(B.InsertAfterSuper, offsetOf(Code, "        self.n"));
  EXPECT_EQ(B.FirstAfterSuper, offsetOf(Code, "self.n"));
  EXPECT_EQ(B.Unplaceable, "");
  EXPECT_EQ(B.Module, "pkg.m");
  EXPECT_FALSE(B.IsPackage);
}

TEST(PythonFacts, BodyOffsetsWithoutSuperAreAfterTheDocstring) {
  std::string Code = "def f(x):\n"
                     "    '''Doc.'''\n"
                     "    # comment\n"
                     "    return x\n";
  ModuleFacts M = read(Code);
  const PythonBody &B = *named(M, "pkg.m.f")->Python;
  EXPECT_EQ(B.InsertAfterDocstring, offsetOf(Code, "    # comment"));
  EXPECT_EQ(B.FirstAfterDocstring, offsetOf(Code, "return x"));
  EXPECT_EQ(B.InsertAfterSuper, B.InsertAfterDocstring);
  EXPECT_EQ(B.FirstAfterSuper, B.FirstAfterDocstring);
}

TEST(PythonFacts, InlineBodyTabsAndCRLF) {
  std::string Inline = "def f(x): return x\n";
  ModuleFacts IFacts = read(Inline);
  const PythonBody &I = *named(IFacts, "pkg.m.f")->Python;
  EXPECT_TRUE(I.IsInline);
  EXPECT_EQ(I.Inline, offsetOf(Inline, "return"));
  EXPECT_EQ(I.Indent, "    ");

  std::string Tabs = "class C:\n\tdef m(self):\n\t\treturn 1\n";
  ModuleFacts TFacts = read(Tabs);
  const PythonBody &T = *named(TFacts, "pkg.m.C.m")->Python;
  EXPECT_EQ(T.Indent, "\t\t");
  EXPECT_EQ(T.IndentUnit, "\t");

  std::string CRLF = "def f(x):\r\n    return x\r\n";
  ModuleFacts WFacts = read(CRLF);
  const PythonBody &W = *named(WFacts, "pkg.m.f")->Python;
  EXPECT_EQ(W.Newline, "\r\n");
  EXPECT_EQ(W.InsertAfterDocstring, offsetOf(CRLF, "    return"));
}

TEST(PythonFacts, UnplaceableBodies) {
  std::string Code = "def a(): \"Doc.\"; return 1\n"
                     "def b():\n"
                     "    \"\"\"Doc.\"\"\"; x = 1\n"
                     "    return x\n";
  ModuleFacts M = read(Code);
  // A one-line body that starts with a docstring: no place for the call.
  EXPECT_NE(named(M, "pkg.m.a")->Python->Unplaceable, "");
  EXPECT_THAT(named(M, "pkg.m.b")->Python->Unplaceable,
              HasSubstr("another statement follows"));
}

TEST(PythonFacts, ModuleImportFacts) {
  std::string Code = "\"\"\"Module.\"\"\"\n"
                     "from __future__ import annotations\n"
                     "import os\n"
                     "from ..utils import (\n"
                     "    a,\n"
                     "    b,\n"
                     ")\n"
                     "X = 1\n"
                     "def f(): pass\n";
  ModuleFacts M = read(Code, "pkg.sub.m");
  const PythonBody &B = *named(M, "pkg.sub.m.f")->Python;
  EXPECT_EQ(B.ImportOffset, offsetOf(Code, "X = 1"));
  EXPECT_FALSE(B.ImportNeedsNewline);
  // `from __future__ import` is not one to merge into.
  ASSERT_EQ(B.FromImports.size(), 1u);
  EXPECT_EQ(B.FromImports.back().Module, "pkg.utils");
  EXPECT_EQ(B.FromImports.back().LastNameEnd, offsetOf(Code, ",\n)"));
  // Of the names bound at top level, only the callees' are kept (an import
  // binds its callee): none of X, f, os, a, b is one.
  EXPECT_TRUE(B.TopLevelNames.empty());
  ModuleFacts Bound =
      read("from ..utils import a, _log_api_usage_once\ndef f(): pass\n",
           "pkg.sub.m");
  EXPECT_THAT(named(Bound, "pkg.sub.m.f")->Python->TopLevelNames,
              ::testing::ElementsAre("_log_api_usage_once"));
}

TEST(PythonFacts, Directives) {
  std::string Code = "# apistamp-ignore: hot path\n"
                     "def f(): pass\n"
                     "# expect-event: pkg.m.g\n"
                     "def g(): pass\n"
                     "# expect-no-event\n"
                     "def h(): pass\n";
  ModuleFacts M = read(Code);
  ASSERT_EQ(M.Facts.Suppressions.size(), 1u);
  EXPECT_EQ(M.Facts.Suppressions[0].Reason, "hot path");
  EXPECT_EQ(M.Facts.Suppressions[0].Line, 1u);
  EXPECT_EQ(named(M, "pkg.m.f")->Suppression, std::optional<unsigned>(0));
  ASSERT_EQ(M.Facts.Expectations.size(), 2u);
  EXPECT_EQ(M.Facts.Expectations[0].Kind, Expectation::Event);
  EXPECT_EQ(M.Facts.Expectations[0].Value, "pkg.m.g");
  EXPECT_EQ(M.Facts.Expectations[0].Definition, "pkg.m.g");
  EXPECT_EQ(M.Facts.Expectations[0].DefinitionLine, 4u);
  EXPECT_EQ(M.Facts.Expectations[1].Kind, Expectation::NoEvent);
  EXPECT_EQ(M.Facts.Expectations[1].Definition, "pkg.m.h");
}

TEST(PythonFacts, SyntaxErrorSaysWhere) {
  std::string E = error("def f(x):\n    return (x\n\ndef g():\n    pass\n");
  EXPECT_THAT(E, StartsWith("/r/pkg/m.py:2:5: error: invalid Python syntax"));
  EXPECT_THAT(E, HasSubstr("nothing is changed in a file that does not parse"));
}

TEST(PythonFacts, MissingTokenIsAnError) {
  // tree-sitter recovers by inventing the ':' (a MISSING node).
  std::string E = error("def f(x)\n    return x\n");
  EXPECT_THAT(E, StartsWith("/r/pkg/m.py:1:"));
  EXPECT_THAT(E, HasSubstr("error: invalid Python syntax"));
}

TEST(PythonFacts, NotUTF8) {
  std::string E = error("def f():\n    return 'caf\xe9'\n");
  EXPECT_EQ(E, "/r/pkg/m.py:2:16: error: not UTF-8, and no coding cookie "
               "names another encoding (PEP 263)");
  // A latin-1 cookie makes the same bytes acceptable.
  ModuleFacts M =
      read("# -*- coding: latin-1 -*-\ndef f():\n    return 'caf\xe9'\n");
  EXPECT_EQ(M.Facts.Candidates.size(), 1u);
  // A UTF-8 cookie does not.
  EXPECT_THAT(error("# coding: utf-8\ndef f():\n    return 'caf\xe9'\n"),
              HasSubstr("not UTF-8, which its coding cookie names"));
  // An encoding that is not ASCII-compatible is refused at 1:1.
  EXPECT_THAT(error("# coding: utf-16\ndef f(): pass\n"),
              StartsWith("/r/pkg/m.py:1:1: error: encoding 'utf-16'"));
}

TEST(PythonFacts, OnlyTheRulesGuardsAreRemovable) {
  // A call alone in an `if` of another condition is reported where it is
  // (the `if` is the statement), but its lines are not apistamp's to take.
  std::string Code = "def f(x):\n"
                     "    if x:\n"
                     "        _log_api_usage_once(f)\n"
                     "    if  not torch.jit.is_scripting():\n"
                     "        _log_api_usage_once(f)\n";
  ModuleFacts M = read(Code);
  const Candidate *F = named(M, "pkg.m.f");
  ASSERT_EQ(F->Calls.size(), 2u);
  EXPECT_TRUE(F->Calls[0].Guarded);
  EXPECT_EQ(F->Calls[0].Offset, offsetOf(Code, "if x"));
  EXPECT_EQ(F->Calls[0].StatementBegin, F->Calls[0].StatementEnd);
  // Blanks inside the condition do not matter.
  EXPECT_TRUE(F->Calls[1].Guarded);
  EXPECT_EQ(F->Calls[1].StatementBegin, offsetOf(Code, "    if  not"));
  EXPECT_EQ(conditionText(" not\n  torch.x() "), "not torch.x()");
}

TEST(PythonSyntax, CodingCookie) {
  EXPECT_EQ(codingCookie("# -*- coding: Latin-1 -*-\n"), "latin-1");
  EXPECT_EQ(
      codingCookie("#!/usr/bin/env python\n# vim: set fileencoding=utf-8 :\n"),
      "utf-8");
  // Line 2 counts only if line 1 is a comment or blank.
  EXPECT_EQ(codingCookie("import os\n# coding: latin-1\n"), "");
  EXPECT_EQ(codingCookie("\n\n# coding: latin-1\n"), "");
  EXPECT_EQ(codingCookie("x = 1\n"), "");
}

} // namespace
