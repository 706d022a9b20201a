#!/usr/bin/env python3
"""pugixml 1.13 (Debian source package pugixml 1.13-0.2) adopts apistamp.

pugixml.cpp is built twice (shared with PUGIXML_API set, and static) and a
third time as a fragment of the header-only tests (PUGIXML_HEADER_ONLY makes
pugixml.hpp include it); the fuzzers tests/fuzz_*.cpp are sources that CMake
does not build; the tree is indented with tabs; the project's warnings
(its Makefile's: -Wall -Wextra -pedantic -Wshadow -Wold-style-cast ...) are
errors here. adoption.py runs the round trip; this file says what is
particular to pugixml, including its pre-commit session.
"""
import os
import re
import sys

from adoption import Project, parse_args, run_adoption

SOURCE = os.path.join(os.environ.get("APISTAMP_CACHE_DIR", "/var/cache/apistamp"), "pugixml/pugixml-1.13")

METHOD_RULE = """  - id: pugi-methods
    where: method
    namespace: pugi
    files: *lib
    declared_in: *api
"""

RULES = """version: 1
include: <apistamp/api_usage.h>
compile_commands: build
public_header_edits: forbid
exclude_files: ["tests/**", "scripts/**", "docs/**"]
rules:
  - id: pugi-functions
    where: function
    namespace: pugi
    files: &lib ["src/pugixml.cpp"]
    declared_in: &api ["src/pugixml.hpp"]
  - id: pugi-documents
    where: constructor
    namespace: pugi
    class: "pugi::(xml_document|xpath_query|xpath_variable_set)"
    files: *lib
""" + METHOD_RULE

WARNINGS = ("-Wall -Wextra -Werror -pedantic -Wundef -Wshadow -Wcast-align "
            "-Wcast-qual -Wold-style-cast -Wdouble-promotion")


class Pugixml(Project):
    name = "pugixml"
    source = SOURCE
    rules = RULES
    cxx_flags = WARNINGS
    cmake_args = ["-DPUGIXML_BUILD_TESTS=ON", "-DBUILD_SHARED_LIBS=ON",
                  "-DPUGIXML_BUILD_SHARED_AND_STATIC_LIBS=ON"]
    min_insertions = 250
    configurations = {"src/pugixml.cpp": 2, "tests/test_header_only_1.cpp": 1}
    test_command = ["ctest", "--output-on-failure"]

    def check_report(self, src, rows, logged):
        problems = []
        # By hand: the one test process loads documents, walks nodes and runs
        # XPath; it is its own job.
        for name in ("pugi.xml_document", "pugi.xml_document.load_string",
                     "pugi.xml_node.first_child", "pugi.xpath_query"):
            row = rows.get(name, {})
            if row.get("status") != "used" or row.get("jobs") != 1 or row.get("processes") != 1:
                problems.append("%s: %s, expected used by 1 process, 1 job" % (name, row))
        text = (src / "src/pugixml.cpp").read_text()
        if "\t\tC10_LOG_API_USAGE_ONCE(\"pugi.xml_node.empty\");\n" not in text:
            problems.append("the event in xml_node::empty is not indented with the body's tabs")
        return problems

    def usage_gate(self, src, gate, fix):
        # Narrowing the policy drops the events of select_node(s), which the
        # project's own tests use (one job): the gate stops it, naming the
        # rule; with --min-jobs 2 it is a note. The rules file is restored.
        problems = []
        rules_file, source = src / ".apistamp.yaml", src / "src/pugixml.cpp"
        before, source_before = rules_file.read_text(), source.read_text()
        rules_file.write_text(before.replace(
            METHOD_RULE, METHOD_RULE + "    exclude_names: [\"select_.*\"]\n"))
        try:
            # fix removes the calls that are now stale; the tree is clean but
            # for the gate.
            fix(src)
            out = gate(expect=1)
            if not re.search(r"\.apistamp\.yaml:\d+:5: error: removes API usage event "
                             r"'pugi\.xml_node\.select_nodes' used by 1 job since \d{4}-\d\d-\d\d "
                             r"\(last seen \d{4}-\d\d-\d\d\)", out):
                problems.append("no error for the removed select_nodes event:\n" + out[-3000:])
            out = gate(["--min-jobs", "2"], expect=0)
            if "note: removes API usage event 'pugi.xml_node.select_nodes', used by 1 job" not in out:
                problems.append("--min-jobs 2 does not make it a note:\n" + out[-3000:])
        finally:
            rules_file.write_text(before)
            source.write_text(source_before)
        return problems

    def pre_commit_session(self, s):
        # A new public method: stopped, fixed (with tabs), then committed.
        s.edit("src/pugixml.hpp", "\t\t// Check if node is empty.\n\t\tbool empty() const;\n",
               "\t\t// Check if node is empty.\n\t\tbool empty() const;\n"
               "\t\tbool is_element() const;\n")
        s.edit("src/pugixml.cpp", "\tPUGI__FN bool xml_node::empty() const\n",
               "\tPUGI__FN bool xml_node::is_element() const\n\t{\n"
               "\t\treturn type() == node_element;\n\t}\n\n"
               "\tPUGI__FN bool xml_node::empty() const\n")
        s.expect_blocked_then_pass(
            "xml_node::is_element", ["src/pugixml.hpp", "src/pugixml.cpp"],
            [("src/pugixml.cpp", "\t{\n\t\tC10_LOG_API_USAGE_ONCE(\"pugi.xml_node.is_element\");\n"
              "\t\treturn type() == node_element;")])
        # A comment-only change to a fuzzer that CMake does not build (and
        # that no rule can select): not parsed, committed.
        s.edit("tests/fuzz_parse.cpp", "#include <stdint.h>\n",
               "#include <stdint.h> // uint8_t\n")
        s.expect_pass("comment in the fuzzer", ["tests/fuzz_parse.cpp"])
        # The policy narrowed: XPath selection methods are no longer API
        # events; their events are stale and removed.
        s.edit(".apistamp.yaml", METHOD_RULE,
               METHOD_RULE + "    exclude_names: [\"select_.*\"]\n")
        s.expect_blocked_then_pass("no select_* events", [".apistamp.yaml"], [])
        text = (s.src / "src/pugixml.cpp").read_text()
        if "pugi.xml_node.select_nodes" in text or "pugi.xml_node.first_child" not in text:
            raise RuntimeError("select_* events not removed, or other events removed")


if __name__ == "__main__":
    sys.exit(run_adoption(Pugixml(), parse_args(__doc__)))
