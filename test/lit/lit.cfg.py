# lit configuration for apistamp's own tests (test/lit).
import os
import lit.formats

config.name = "apistamp"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".cpp", ".test"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.apistamp_build_dir, "test", "lit")

# Tools: our binary first, then FileCheck, split-file, not, count.
config.environment["PATH"] = os.pathsep.join(
    [config.apistamp_bin_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])
config.substitutions.append(("%apistamp", os.path.join(config.apistamp_bin_dir, "apistamp")))
# scripts/test.sh runs the suite a second time with APISTAMP_NO_SKIP_BODIES=1:
# every function body parsed must give the same results.
if os.environ.get("APISTAMP_NO_SKIP_BODIES"):
    config.environment["APISTAMP_NO_SKIP_BODIES"] = os.environ["APISTAMP_NO_SKIP_BODIES"]
# ... and twice more with APISTAMP_PREAMBLE_STORE=DIR: every TU on a stored
# preamble (built on the first pass, used on the second).
if os.environ.get("APISTAMP_PREAMBLE_STORE"):
    config.environment["APISTAMP_PREAMBLE_STORE"] = os.environ["APISTAMP_PREAMBLE_STORE"]
# rules/ is a suite of its own that uses the shipped rule-author configuration
# (tool/lit/apistamp.cfg.py); it finds the binary under test through this.
os.environ["APISTAMP"] = os.path.join(config.apistamp_bin_dir, "apistamp")
config.substitutions.append(("%exit-code", "python3 " + os.path.join(config.test_source_root, "Inputs", "exit-code.py")))
config.substitutions.append(("%split-file", "split-file --leading-lines"))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
config.substitutions.append(("%cmake", config.cmake_command))
config.substitutions.append(("%lit", config.lit_command))
config.substitutions.append(("%clang_resource_dir", config.clang_resource_dir))
config.substitutions.append(("%build_dir", config.apistamp_build_dir))
config.substitutions.append(("%source_dir", config.apistamp_source_dir))
# Compiler arguments for sources that use no system headers.
config.substitutions.append(("%cxxflags", "-std=c++17 -nostdinc++ -I" +
                             os.path.join(config.test_source_root, "Inputs", "include")))

# Optional tools: tests that need them say REQUIRES; scripts/install-deps.sh
# installs them, so CI runs every test.
import shutil
if shutil.which("pre-commit"):
    config.available_features.add("pre-commit")
if shutil.which("ninja"):
    config.available_features.add("ninja")
if shutil.which("git"):
    config.available_features.add("git")
# sqlite3: the report's warehouse SQL (docs/report-sql.md) is tested on it.
if shutil.which("sqlite3"):
    config.available_features.add("sqlite3")
# duckdb: DuckDB's Node.js client, which scripts/fetch-duckdb.sh installs;
# the warehouse SQL is tested on it too. Without it, say why the test is
# skipped.
duckdb_node_dir = os.path.join(
    os.environ.get("APISTAMP_CACHE_DIR", "/var/cache/apistamp"), "node")
if shutil.which("node") and os.path.isfile(os.path.join(
        duckdb_node_dir, "node_modules", "@duckdb", "node-api", "package.json")):
    config.available_features.add("duckdb")
    config.substitutions.append(("%duckdb_node_dir", duckdb_node_dir))
else:
    lit_config.note("DuckDB's Node.js client is not in " + duckdb_node_dir +
                    " (scripts/fetch-duckdb.sh installs it, or node is"
                    " missing): report/sql-duckdb.test is skipped")
# asan: the tool built with -fsanitize=address,undefined (build-tool-asan);
# tests that limit the address space cannot run there (ASan reserves
# terabytes of it).
if getattr(config, "apistamp_sanitizer", ""):
    config.available_features.add("asan")
