# lit configuration for testing apistamp rules; rule authors load it from the
# lit.cfg.py of their rules' test folder (docs/rule-authoring.md):
#
#   config.test_source_root = os.path.dirname(__file__)
#   lit_config.load_config(config, "/usr/local/share/apistamp/lit/apistamp.cfg.py")
#
# (set config.apistamp_rules_dir before the second line if the rules are not
# in the test folder's parent).
#
# Tests are .cpp, .cc or .test files; substitutions:
#   %apistamp    the apistamp binary: $APISTAMP, else the one installed next to
#                this file (<prefix>/bin/apistamp), else apistamp on PATH
#   %rules       the rules folder: config.apistamp_rules_dir, else $APISTAMP_RULES_DIR,
#                else the test folder's parent
#   %split-file  split-file --leading-lines (line numbers stay those of the test)
#   %FileCheck   FileCheck; FileCheck, split-file and not are also on PATH
import os
import shutil
import tempfile

import lit.formats

_here = os.path.dirname(os.path.abspath(__file__))


def _find_tool(name, candidates):
    for candidate in candidates:
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    found = shutil.which(name)
    if not found:
        lit_config.fatal("apistamp lit config: cannot find %s (tried %s and PATH)"
                         % (name, ", ".join(c for c in candidates if c)))
    return found


if not config.test_source_root:
    lit_config.fatal("apistamp lit config: set config.test_source_root first; "
                     "the lit.cfg.py of a rules test folder reads:\n"
                     "  config.test_source_root = os.path.dirname(__file__)\n"
                     "  lit_config.load_config(config, \"%s\")" % os.path.abspath(__file__))
if config.name == "<unnamed>":
    config.name = "apistamp-rules"
config.test_format = lit.formats.ShTest(execute_external=False)
if not config.suffixes:
    config.suffixes = [".cpp", ".cc", ".test"]
# Output/ goes to a temporary folder, not next to the tests.
if not config.test_exec_root:
    config.test_exec_root = os.path.join(
        tempfile.gettempdir(), "apistamp-lit",
        config.test_source_root.strip(os.sep).replace(os.sep, "_"))

_apistamp = _find_tool("apistamp", [
    os.environ.get("APISTAMP"),
    os.path.normpath(os.path.join(_here, "..", "..", "..", "bin", "apistamp")),
])
_llvm_bin = "/usr/lib/llvm-19/bin"
_filecheck = _find_tool("FileCheck", [os.path.join(_llvm_bin, "FileCheck")])
_split_file = _find_tool("split-file", [os.path.join(_llvm_bin, "split-file")])
_rules_dir = (getattr(config, "apistamp_rules_dir", None)
              or os.environ.get("APISTAMP_RULES_DIR")
              or os.path.dirname(config.test_source_root))

config.environment["PATH"] = os.pathsep.join(
    [os.path.dirname(_filecheck), os.path.dirname(_apistamp),
     os.environ.get("PATH", "")])
if os.environ.get("APISTAMP_NO_SKIP_BODIES"):
    config.environment["APISTAMP_NO_SKIP_BODIES"] = os.environ["APISTAMP_NO_SKIP_BODIES"]
config.substitutions.append(("%apistamp", _apistamp))
config.substitutions.append(("%rules", os.path.abspath(_rules_dir)))
config.substitutions.append(("%split-file", _split_file + " --leading-lines"))
config.substitutions.append(("%FileCheck", _filecheck))
