#!/usr/bin/env bash
# README command 2 (and CI's, through .ci/run): install dependencies, build
# apistamp and run the full suite: the tool's unit tests, its lit tests four
# ways, the tool's unit and lit tests again under ASan+UBSan, the format
# check, the runtime's tests (also under TSan and ASan, against the real c10,
# the c10 bridge, its checks), fault injection, the hostile-inputs corpora,
# the fuzzers, report end to end, the real projects (googletest, jsoncpp,
# pugixml, torchvision), tu/merge under Ninja and the Bazel aspect; each
# section's wall time, then a one-line summary. Exit 1 on any failure.
#
#   scripts/test.sh           the full suite (CI)
#   scripts/test.sh --quick   the quick tier, for development: build, format
#                             check, unit tests, lit once, the runtime's
#                             gtest suites, the hostile-inputs corpora and a
#                             fuzz smoke run (minutes on a warm tree)
set -euo pipefail
cd "$(dirname "$0")/.."

full=1
case ${1:-} in
  --quick) full=0 ;;
  "") ;;
  *) echo "usage: scripts/test.sh [--quick]" >&2; exit 2 ;;
esac

# Each section's wall time, printed before the summary: the full run's
# budget is 20 minutes on 2 cores (a clean clone), the quick tier's 8 on a
# warm tree, and this says where it goes.
# Beside the wall time, the CPU time the section's processes used (user +
# system, of those waited for): CPU/wall near 2 means both cores were busy.
timings=()
section_name="install dependencies and build"
section_start=$SECONDS
# The children's user + system CPU so far, in whole seconds, from bash's times
# (run by this shell, into a file: in a pipe or $(...) it would be a
# subshell's, zero).
times_file=$(mktemp)
lane_pid= lane_cpu=
# The lane (below) is its own process group: ended with this script.
trap 'rm -f "$times_file"; [[ -z $lane_pid ]] || kill -- -"$lane_pid" 2>/dev/null || true' EXIT
# children_cpu FILE: the children's CPU that FILE, a `times` output, lists.
children_cpu() {
  awk 'NR == 2 { t = 0
    for (i = 1; i <= 2; i++) { split($i, p, "m"); t += p[1] * 60 + p[2] }
    printf "%d", t + 0.5 }' "$1"
}
times > "$times_file"
section_cpu=$(children_cpu "$times_file")
section() {
  local cpu
  # The lane's CPU counts here once it has ended and this shell has reaped
  # it: left out of the sections (it has its own lines).
  if [[ -n $lane_pid && -z $lane_cpu ]] && ! kill -0 "$lane_pid" 2>/dev/null; then
    lane_cpu=$(cat "$results/lane-cpu" 2>/dev/null || echo 0)
  fi
  times > "$times_file"
  cpu=$(($(children_cpu "$times_file") - ${lane_cpu:-0}))
  timings+=("$(printf '%6d s %6d s CPU  %s' $((SECONDS - section_start)) \
    $((cpu - section_cpu)) "$section_name")")
  section_name=$1
  section_start=$SECONDS
  section_cpu=$cpu
  echo "== $1"
}

scripts/install-deps.sh
build=${APISTAMP_BUILD_DIR:-build}
# Warnings are errors in the test command's builds of the tool (clang).
scripts/configure-build.sh "$build" -DAPISTAMP_WERROR=ON
cmake --build "$build"

results="$build/test-results"
rm -rf "$results" && mkdir -p "$results"
status=0

# The lane: sections that mostly wait (fault injection's kill loops and
# sleeps, the Bazel server, the bridge's subprocesses, a headless browser) or
# use one core (the fuzzers) run one after another in the background, beside
# the others, which keep both cores busy. Each runs as it would in the
# foreground; their output and times are printed after the others'.
lane_section() { # TITLE COMMAND...
  local title=$1 start=$SECONDS before
  shift
  times > "$lane_times"
  before=$(children_cpu "$lane_times")
  echo "== $title"
  "$@" || lane_failed=1
  times > "$lane_times"
  printf '%6d s %6d s CPU  %s (in the lane)\n' $((SECONDS - start)) \
    $(($(children_cpu "$lane_times") - before)) "$title" >> "$results/lane-timings"
}
lane() {
  lane_failed=0
  lane_times=$(mktemp)
  # libFuzzer under ASan and UBSan (test/fuzz), each fuzzer's seeds and
  # inputs mutated from them: the log reader's fast paths against its
  # validating parser; report --merge's parser of partial files. The quick
  # tier mutates 300 inputs each (a smoke run), the full suite each
  # fuzzer's own count.
  local fuzz_runs=()
  ((full)) || fuzz_runs=(--runs 300)
  lane_section "fuzzers (test/fuzz)$( ((full)) || echo ', smoke run')" \
    python3 test/fuzz/run_fuzzer.py --bin "$build/bin" --work "$build/fuzz" \
    "${fuzz_runs[@]}" --junit "$results/fuzzers.xml"
  if ((full)); then
    # The c10 bridge (libapistamp_c10bridge.so): linked and preloaded into
    # programs that use libtorch, preloaded into programs that do not; its
    # Python tests skip, with a message, if /usr/bin/python3 cannot import
    # torch.
    lane_section "the c10 bridge (libtorch-dev; LD_PRELOAD into C, C++ and Python)" \
      runtime/test/run-gtest.sh runtime-c10-bridge "$results" "$build/bin/apistampC10BridgeTests"
    # Fault injection (test/fault): failing writes (an LD_PRELOAD shim and a
    # full tmpfs), a kill -9 loop, a concurrent race on one header; every
    # file whole. The same for the preamble store: write faults, kill -9, 4
    # runs sharing it, deleted mid-run, on a full tmpfs; every answer the
    # cold one.
    lane_section "fault injection (test/fault)" \
      python3 test/fault/fault_suite.py --apistamp "$build/bin/apistamp" \
      --shim "$build/lib/faultinject.so" --work "$build/fault" \
      --junit "$results/fault-injection.xml"
    # apistamp report end to end (test/report): 8 ranks of one job (SLURM,
    # torchrun, APISTAMP_JOB_ID_ENV) are 1 job in the report; the HTML page
    # in headless chromium without network: it renders, sorts, loads nothing.
    lane_section "report end to end (test/report)" \
      python3 test/report/report_e2e.py --apistamp "$build/bin/apistamp" \
      --runtime-dir runtime --work "$build/report-e2e" \
      --junit "$results/report-e2e.xml"
    # The Python half of the torchvision policy against torchvision 0.14.1's
    # 156 hand-placed Python calls: stripped, restored by `fix` (recall and
    # precision, the documented drifts excused), compiled, checked clean,
    # and the fixed package imported by Debian's python3 over its compiled
    # extensions, logging resnet18's event (about 10 s; skipped, with a
    # message, without the fetched source).
    lane_section "torchvision Python policy (test/realworld)" \
      python3 test/realworld/torchvision_python.py --apistamp "$build/bin/apistamp" \
      --rules rules/torchvision.yaml --work "$build/realworld/torchvision-python" \
      --junit "$results/torchvision-python.xml"
    # The Bazel aspect (bazel/) with Debian's Bazel 4.2.3, offline: one tu
    # action per source of each target and merges equal to check -p; after
    # clean --expunge every action hits --disk_cache, then an HTTP/1.1
    # --remote_cache on 127.0.0.1, and so does a checkout at another path
    # (about 40 s; skipped, and counted, without bazel).
    lane_section "Bazel aspect, disk and remote cache, offline (test/bazel)" \
      python3 test/bazel/bazel_test.py --apistamp "$build/bin/apistamp" \
      --junit "$results/bazel.xml"
  fi
  times > "$lane_times"
  children_cpu "$lane_times" > "$results/lane-cpu"
  rm -f "$lane_times"
  return $lane_failed
}
set -m
lane > "$results/lane.log" 2>&1 &
lane_pid=$!
set +m

section "format (clang-format-19 on tool/, runtime/, test/unit/, test/fuzz/, bench/), vendored files"
scripts/check-format.sh "$results/format.xml" || status=1
# third_party/: the bytes their README.apistamp.md lists (sha256).
scripts/check-vendored.sh || status=1
section "unit tests"
"$build/bin/apistampUnitTests" --gtest_output="xml:$results/unit.xml" --gtest_brief=1 || status=1
section "lit tests"
"$build/bin/apistamp-lit" -sv "$build/test/lit" \
  --xunit-xml-output "$results/lit.xml" || status=1
# The full tier (not --quick): lit three more ways, and the tool under ASan.
if ((full)); then
  # The same tests on stored preambles: every TU's include prefix parsed once
  # (first pass) and loaded (second pass) must give the same results.
  section "lit tests on stored preambles (built, then used)"
  preambles=$(mktemp -d)
  for pass in built used; do
    APISTAMP_PREAMBLE_STORE="$preambles" "$build/bin/apistamp-lit" -sv "$build/test/lit" \
      --xunit-xml-output "$results/lit-preamble-$pass.xml" || status=1
  done
  rm -rf "$preambles"
  # The same tests with every function body parsed (--no-skip-bodies): skipping
  # the bodies no rule can select must not change any result.
  section "lit tests, every function body parsed"
  APISTAMP_NO_SKIP_BODIES=1 "$build/bin/apistamp-lit" -sv "$build/test/lit" \
    --xunit-xml-output "$results/lit-no-skip-bodies.xml" || status=1
  # The tool itself under AddressSanitizer + UndefinedBehaviorSanitizer
  # ($build-tool-asan): its unit tests, beside its lit tests (but the
  # installed package's, which the plain build runs). A debug build
  # (assertions on), unoptimised: a fifth of -O2's compile time under the
  # sanitizers. LLVM's own signal handlers do the crash isolation
  # (handle_segv=0); leaks are not checked (clang's front end frees some of
  # its state only at exit).
  section "the tool under -fsanitize=address,undefined (unit and lit tests)"
  asan_tool="$build-tool-asan"
  if scripts/configure-build.sh "$asan_tool" -DAPISTAMP_TOOL_SANITIZER=address -DAPISTAMP_WERROR=ON \
       -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_C_FLAGS_DEBUG=-O0 -g1" "-DCMAKE_CXX_FLAGS_DEBUG=-O0 -g1" &&
     cmake --build "$asan_tool" --target apistamp apistampUnitTests; then
    export ASAN_OPTIONS=detect_leaks=0:handle_segv=0:handle_sigbus=0:handle_abort=0:handle_sigill=0:handle_sigfpe=0
    export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
    "$asan_tool/bin/apistampUnitTests" --gtest_output="xml:$results/unit-asan.xml" \
      --gtest_brief=1 > "$results/unit-asan.log" 2>&1 &
    unit_asan=$!
    "$asan_tool/bin/apistamp-lit" -sv "$asan_tool/test/lit" --filter-out 'install/' \
      --xunit-xml-output "$results/lit-asan.xml" || status=1
    wait "$unit_asan" || { status=1; cat "$results/unit-asan.log"; }
    unset ASAN_OPTIONS UBSAN_OPTIONS
  else
    status=1
    echo "the sanitized build of the tool failed"
  fi
fi
# The runtime (runtime/): its gtest suites, the same under ThreadSanitizer and
# AddressSanitizer+UBSan (runtime-only builds in $build-tsan, $build-asan), the
# test against the real c10, and its checks (headers, installed package); the
# c10 bridge's suite runs in the lane.
section "runtime tests"
runtime/test/run-gtest.sh runtime "$results" "$build/bin/apistampRuntimeTests" || status=1
if ((full)); then
  section "runtime tests against the real c10 (libtorch-dev)"
  runtime/test/run-gtest.sh runtime-c10 "$results" "$build/bin/apistampC10Tests" || status=1
  section "runtime checks (headers: g++/clang++, C++11-20, -fno-exceptions -fno-rtti; installed package; apistamp_instrument on an installed library)"
  ctest --test-dir "$build/runtime" -L runtime-check -j2 --output-on-failure \
    --output-junit "$(cd "$results" && pwd)/runtime-checks.xml" > "$results/runtime-checks.log" 2>&1 \
    || { status=1; cat "$results/runtime-checks.log"; }
  grep -E "tests passed" "$results/runtime-checks.log" || true
  for sanitizer in thread address; do
    sanitized="$build-${sanitizer:0:1}san"
    section "runtime tests under -fsanitize=$sanitizer ($sanitized)"
    program="$sanitized/bin/apistampRuntimeTests"
    # Line tables only (-g1, as scripts/configure-build.sh): the reports keep
    # file:line; the two trees are 53 MB, not -g's 127 MB. (The runtime is
    # C++ only: no C flags, which CMake would warn were unused.)
    # AddressSanitizer comes from clang-19: its runtime locks its allocator
    # around fork(); GCC 12's libasan does not, and a child forked while
    # another thread allocates can hang in malloc (CI saw the fork test's
    # child hang so, stop 51). ThreadSanitizer's (GCC's) handles fork.
    compiler=()
    [[ $sanitizer == address ]] && compiler=(-DCMAKE_CXX_COMPILER=clang++-19)
    cmake -S runtime -B "$sanitized" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      "${compiler[@]}" "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" \
      -DAPISTAMP_SANITIZER=$sanitizer > /dev/null && cmake --build "$sanitized" -j2 \
      || { status=1; program="$program (build failed)"; }
    TSAN_OPTIONS=second_deadlock_stack=1 ASAN_OPTIONS=detect_leaks=1 \
      UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      runtime/test/run-gtest.sh "runtime-${sanitizer:0:1}san" "$results" "$program" || status=1
  done
fi
# Hostile inputs (test/hostile): tampered cache entries and file names,
# rules files (C++ and Python rules), and for Python also hostile sources.
section "hostile inputs (test/hostile)"
# The rules corpus beside the other two (each uses one core); its output
# after theirs.
python3 test/hostile/run-rules-corpus.py --apistamp "$build/bin/apistamp" \
  --junit "$results/hostile-rules.xml" > "$results/hostile-rules.log" 2>&1 &
rules_corpus=$!
python3 test/hostile/cache_and_names.py --apistamp "$build/bin/apistamp" \
  --work "$build/hostile" --junit "$results/hostile-cache-and-names.xml" || status=1
python3 test/hostile/python_hostile.py --apistamp "$build/bin/apistamp" \
  --work "$build/hostile-python" --junit "$results/hostile-python.xml" || status=1
wait "$rules_corpus" || status=1
cat "$results/hostile-rules.log"
if ((full)); then
  # The real project: instrument googletest, rebuild it with its samples and
  # tests against the runtime, run them, read the events (a few minutes).
  section "googletest round trip (test/realworld)"
  python3 test/realworld/googletest_roundtrip.py --apistamp "$build/bin/apistamp" \
    --runtime-include runtime/include --runtime-lib "$build/runtime/libapistamp_runtime.a" \
    --work "$build/realworld/googletest" --junit "$results/googletest-roundtrip.xml" || status=1
  # Two more real projects adopt apistamp (jsoncpp: three configurations of
  # every source and an .inl fragment; pugixml: a fuzzer CMake does not build):
  # policy, fix, their build with warnings as errors, their tests, report, and a
  # pre-commit session (skipped, with a message, without the fetched sources).
  for project in jsoncpp pugixml; do
    section "$project adoption (test/realworld)"
    python3 test/realworld/${project}_adoption.py --apistamp "$build/bin/apistamp" \
      --runtime-include runtime/include --runtime-lib "$build/runtime/libapistamp_runtime.a" \
      --source-dir . --work "$build/realworld/$project" \
      --junit "$results/$project-adoption.xml" || status=1
  done
  # A library whose compiled API is in an installed header (fmt's
  # format-inl.h): instrumented through its copy of the runtime's shim, built
  # with apistamp_instrument on its compiled and header-only targets; the
  # compiled one logs, header-only users log nothing and need no apistamp
  # (about half a minute; skipped without the fetched source).
  section "fmt: a header-only library through the shim (test/realworld)"
  python3 test/realworld/fmt_header_only.py --apistamp "$build/bin/apistamp" \
    --build "$build" --work "$build/realworld/fmt" \
    --junit "$results/fmt-header-only.xml" || status=1
  # protobuf at scale (its own CMake database, 168 TUs): a warm check from the
  # cache alone, Ninja's tu actions and merge equal check -p (merge's peak
  # memory printed), fix on twelve TUs with an internal entry point, the
  # public surface's private nested templates and exclude_files, and the
  # round trip (about two minutes; skipped without the fetched source).
  section "protobuf at scale (test/realworld)"
  python3 test/realworld/protobuf_at_scale.py --apistamp "$build/bin/apistamp" \
    --work "$build/realworld/protobuf" \
    --junit "$results/protobuf-at-scale.xml" || status=1
  # Stored preambles on the real projects' trees the tests above left (nothing
  # fetched): googletest (its library sources), jsoncpp, pugixml and 7 of
  # torchvision's TUs, uninstrumented, give byte-identical JSON and text
  # without a store, building it and on it; a pre-commit edit on pugixml with
  # a warm store and cache gives the cold answer (about a minute and a half).
  # torchvision's tree is made where the policy test below makes it, and its
  # cold reference parse fills the result cache the policy test then uses
  # (one parse of those 7 TUs, not two).
  section "stored preambles on real projects (test/realworld)"
  python3 test/realworld/preamble_equivalence.py --apistamp "$build/bin/apistamp" \
    --rules rules/torchvision.yaml --realworld "$build/realworld" \
    --work "$build/realworld/preambles" \
    --torchvision-work "$build/realworld/torchvision" \
    --torchvision-cache "$build/realworld/torchvision-cache" \
    --junit "$results/preamble-equivalence.xml" || status=1
  # The bundled torchvision policy against torchvision 0.14.1's hand-placed
  # calls (a few minutes; skipped, with a message, without the fetched source).
  section "torchvision policy (test/realworld)"
  python3 test/realworld/torchvision_policy.py --apistamp "$build/bin/apistamp" \
    --rules rules/torchvision.yaml --work "$build/realworld/torchvision" \
    --cache-dir "$build/realworld/torchvision-cache" \
    --junit "$results/torchvision-policy.xml" || status=1
  # At scale (`apistamp ninja`, `tu`, `merge`) on the same trees: Ninja's
  # build of one tu action per compile command and a merge equals check -p in
  # every format, reruns nothing, reruns exactly a touched header's TUs; tu's
  # results are the same bytes in another checkout (about a minute).
  section "tu actions under Ninja and merge on real projects (test/realworld)"
  python3 test/realworld/tu_merge.py --apistamp "$build/bin/apistamp" \
    --realworld "$build/realworld" --work "$build/realworld/tu-merge" \
    --junit "$results/tu-merge.xml" || status=1
  # The loop on the real system, both languages: torchvision's image library,
  # two ops and its Python package, stripped and instrumented by one
  # `apistamp fix`, built against Debian's libtorch, the package over
  # Debian's compiled extensions; a training step (DataLoader workers), an io
  # job, a job of two ranks and a C++ program under the c10 bridge; the logs
  # against what c10 printed, `apistamp report -p` over them (the used set
  # exactly c10's names), the page in chromium, the saved catalog, a rename
  # and the usage gate (about two minutes; skipped, with a message, without
  # the fetched source or python3-torch).
  section "torchvision end to end: real c10, Python, the bridge, report (test/realworld)"
  python3 test/realworld/torchvision_e2e.py --apistamp "$build/bin/apistamp" \
    --rules rules/torchvision.yaml --bridge "$build/lib/libapistamp_c10bridge.so" \
    --work "$build/realworld/torchvision-e2e" \
    --junit "$results/torchvision-e2e.xml" || status=1
  # docs/torchvision.md followed as written: its shell blocks run in order
  # against an apistamp installed from this build, their shown output
  # compared (about 40 seconds; skipped like the above).
  section "docs/torchvision.md, followed as written (test/realworld)"
  python3 test/realworld/torchvision_procedure.py --build "$build" \
    --work "$build/realworld/torchvision-procedure" \
    --junit "$results/torchvision-procedure.xml" || status=1
fi
section "the lane (its sections ran beside the others)"
wait "$lane_pid" || status=1
lane_cpu=${lane_cpu:-$(cat "$results/lane-cpu" 2>/dev/null || echo 0)}
lane_pid=
cat "$results/lane.log"
section "time per section (total $((SECONDS / 60)) min $((SECONDS % 60)) s)"
printf '%s\n' "${timings[@]}"
cat "$results/lane-timings"
python3 scripts/summarize-tests.py --status "$status" "$results"/*.xml || status=1
exit $status
