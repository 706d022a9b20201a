#!/usr/bin/env python3
"""jsoncpp 1.9.5 (Debian source package libjsoncpp 1.9.5-4) adopts apistamp.

Every library source is built three ways (shared with -DJSON_DLL_BUILD,
static, object), json_valueiterator.inl is a fragment that json_value.cpp
includes (not self-contained, not in the compilation database), and the
tests live in the same tree. adoption.py runs the round trip; this file says
what is particular to jsoncpp, including its pre-commit session: a new
public method is stopped and fixed, comment-only changes to the fragment and
to the fuzzer source commit, and narrowing the policy (no constructor events)
removes the now stale events.
"""
import os
import re
import sys

from adoption import Project, parse_args, run_adoption

SOURCE = os.path.join(os.environ.get("APISTAMP_CACHE_DIR", "/var/cache/apistamp"), "libjsoncpp/jsoncpp-1.9.5")

CLASS_RULE = """  - id: json-classes
    where: constructor
    namespace: Json
    class: "Json::(Value|Reader|CharReaderBuilder|StreamWriterBuilder|FastWriter|StyledWriter|StyledStreamWriter|Path|Features)"
    files: *lib
"""

RULES = """version: 1
include: <apistamp/api_usage.h>
compile_commands: build
public_headers: ["include/json/**"]
public_header_edits: forbid
exclude_files: ["src/test_lib_json/**", "src/jsontestrunner/**", "example/**"]
rules:
  - id: json-functions
    where: function
    namespace: Json
    files: &lib ["src/lib_json/**"]
    declared_in: &api ["include/json/**"]
  - id: json-methods
    where: method
    namespace: Json
    files: *lib
    declared_in: *api
""" + CLASS_RULE


class Jsoncpp(Project):
    name = "jsoncpp"
    source = SOURCE
    rules = RULES
    cmake_args = ["-DJSONCPP_WITH_WARNING_AS_ERROR=ON",
                  "-DJSONCPP_WITH_POST_BUILD_UNITTEST=OFF",
                  "-DBUILD_SHARED_LIBS=ON", "-DBUILD_STATIC_LIBS=ON",
                  "-DBUILD_OBJECT_LIBS=ON"]
    min_insertions = 150
    configurations = {"src/lib_json/json_value.cpp": 3,
                      "src/lib_json/json_reader.cpp": 3,
                      "src/lib_json/json_writer.cpp": 3,
                      "src/test_lib_json/fuzz.cpp": 1}
    # Serial: jsoncpp's two reader/writer tests write the same
    # test/data/*.actual files, so in parallel they race (seen in CI).
    test_command = ["ctest", "--output-on-failure"]

    def check_report(self, src, rows, logged):
        problems = []
        # By hand: every test parses with a Reader; no job id in the
        # environment, so each process is its own job.
        for name in ("Json.Reader.parse", "Json.Value.asInt", "Json.CharReaderBuilder"):
            row = rows.get(name, {})
            if row.get("status") != "used" or row.get("jobs") != row.get("processes"):
                problems.append("%s: %s, expected used, a job per process" % (name, row))
        # Reader::good() has no caller in the tests or the test runner.
        callers = [str(p) for d in ("src/test_lib_json", "src/jsontestrunner")
                   for p in (src / d).rglob("*.cpp")
                   if re.search(r"\bgood\(\)", p.read_text())]
        if callers:
            problems.append("Json.Reader.good has callers, pick another: %s" % callers)
        if rows.get("Json.Reader.good", {}).get("status") != "never-used":
            problems.append("Json.Reader.good: %s, expected never-used"
                            % rows.get("Json.Reader.good"))
        return problems

    def pre_commit_session(self, s):
        # A new public method: the commit is stopped, the hook inserts its
        # event (the public header is only read), the second commit passes.
        s.edit("include/json/value.h", "  bool isNull() const;\n",
               "  bool isNull() const;\n  bool isEmptyArray() const;\n")
        s.edit("src/lib_json/json_value.cpp", "\n} // namespace Json\n",
               "\nbool Value::isEmptyArray() const { return isArray() && empty(); }\n"
               "\n} // namespace Json\n", last=True)
        s.expect_blocked_then_pass(
            "Value::isEmptyArray", ["include/json/value.h", "src/lib_json/json_value.cpp"],
            [("src/lib_json/json_value.cpp",
              'C10_LOG_API_USAGE_ONCE("Json.Value.isEmptyArray");')])
        # Comment-only changes to the fragment (analysed through
        # json_value.cpp) and to the fuzzer source (excluded, not parsed).
        s.edit("src/lib_json/json_valueiterator.inl", "// included by json_value.cpp\n",
               "// included by json_value.cpp, at file scope\n")
        s.expect_pass("comment in the fragment", ["src/lib_json/json_valueiterator.inl"])
        s.edit("src/test_lib_json/fuzz.cpp", '#include "fuzz.h"\n',
               '#include "fuzz.h" // LLVMFuzzerTestOneInput\n')
        s.expect_pass("comment in the fuzzer", ["src/test_lib_json/fuzz.cpp"])
        # The policy narrowed: constructors get no event any more.
        s.edit(".apistamp.yaml", CLASS_RULE, "")
        s.expect_blocked_then_pass(
            "no constructor events", [".apistamp.yaml"], [])
        for path, event in (("src/lib_json/json_value.cpp", "Json.Value"),
                            ("src/lib_json/json_reader.cpp", "Json.Reader"),
                            ("src/lib_json/json_writer.cpp", "Json.StreamWriterBuilder")):
            if 'C10_LOG_API_USAGE_ONCE("%s");' % event in (s.src / path).read_text():
                raise RuntimeError("the stale event %s is still in %s" % (event, path))
        s.git(["diff", "--quiet", "HEAD~1", "HEAD", "--", "include"])  # headers untouched


if __name__ == "__main__":
    sys.exit(run_adoption(Jsoncpp(), parse_args(__doc__)))
