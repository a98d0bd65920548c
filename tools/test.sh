#!/usr/bin/env bash
# crowdik's test command: installs what the tests need (Debian packages, when
# run as root), builds everything warning-free with -Werror, and runs every
# test through CTest: the Criterion suites, the validation tool on every
# backend this CPU runs, the aarch64 cross build under qemu, the benchmark
# quick mode, the tools' bad-input checks, valgrind, the libFuzzer targets
# (a bounded run each), the sanitizer build and the ThreadSanitizer build.
#
#   tools/test.sh                      # from the repository root
#   BUILD_DIR=out tools/test.sh
#   FUZZ_SECONDS=600 tools/test.sh     # fuzz each target longer (default 60 s)
#   FUZZ_SECONDS=0 tools/test.sh       # only build the fuzz targets and run their seeds
set -euo pipefail
cd "$(dirname "$0")/.."

# clang-14 and libclang-rt-14-dev (compiler-rt: libFuzzer and the
# sanitizer runtimes for clang) build the fuzz targets.
# chromium runs the 3D viewer's test headless (tests/viewer.cmake); libpng
# writes the demo's --png picture.
need=(libcriterion-dev pkg-config libbenchmark-dev g++ gcc-aarch64-linux-gnu qemu-user valgrind
      clang-14 libclang-rt-14-dev chromium libpng-dev)
missing=()
for p in "${need[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
    if [ "$(id -u)" = 0 ]; then
        echo "crowdik: installing ${missing[*]}"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    else
        # One line to install them; then run tools/test.sh again (as root it
        # installs them itself, so a fresh container needs no sudo).
        echo "crowdik: the tests need Debian packages that are missing. Install them, then run tools/test.sh again:" >&2
        echo "  sudo sh -c 'apt-get update && apt-get install -y ${missing[*]}'" >&2
        exit 1
    fi
fi

# Each fuzz target runs this long (seconds); with the packages above it must
# run, so a missing libFuzzer fails instead of being skipped.
export FUZZ_SECONDS=${FUZZ_SECONDS:-60}
export FUZZ_REQUIRED=1

# The viewer's npm packages (three.js, playwright-core, pngjs), as pinned in
# viewer/package-lock.json; without npm the viewer's test is skipped.
if command -v npm >/dev/null 2>&1; then
    npm ci --prefix viewer --no-audit --no-fund --loglevel=error >/dev/null
else
    echo "crowdik: npm not found, the viewer's browser test will be skipped (apt-get install npm)" >&2
fi

build=${BUILD_DIR:-build-test}
jobs=$(nproc)
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCROWDIK_WERROR=ON >/dev/null
cmake --build "$build" -j "$jobs"
ctest --test-dir "$build" --output-on-failure -j "$jobs"
# CTest hides a passing test's output: the fuzzers' execution counts.
for log in "$build"/tests/fuzz/fuzz-*/fuzz.log; do
    [ -f "$log" ] || continue
    t=$(basename "$(dirname "$log")")
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -n1 || true)
    rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -n1 || true)
    echo "crowdik: ${t/-/_}: ${runs:-?} executions (${rate:-?} per second) in ${FUZZ_SECONDS}s"
done

# The Criterion suites again under AddressSanitizer and UBSan: any report
# fails the test (-fno-sanitize-recover=all), and every test ends with a leak
# check (tests/leak_check.h). The demo's bad-input cases run there too: its
# error exits must not leak (LeakSanitizer fails them).
asan=${build}-sanitize
cmake -S . -B "$asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCROWDIK_SANITIZE=ON -DCROWDIK_BUILD_BENCH=OFF \
    -DCROWDIK_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$asan" -j "$jobs"
ASAN_OPTIONS=handle_segv=0:detect_leaks=1:allocator_may_return_null=1 ctest --test-dir "$asan" -R '^(test_|tool_bad_demo)' --output-on-failure -j "$jobs"

# The documented-safe concurrency under ThreadSanitizer (tests/threads.c):
# different batches solved at once with AUTO (the dispatch choice made by
# racing first calls), const functions on one batch, crowds sharing one
# heightfield, crowds created at once; and examples/job_pool.c and
# foot_job_pool.c, range solves of one batch and foot-frame ranges of one
# crowd from a pool of threads, checked bitwise against the one-call solve;
# examples/cxx_crowd.cpp, the C++ wrapper's frame plans on std::threads.
# Without OpenMP, on plain threads: TSan does not know libgomp's
# synchronisation. Any report fails the run.
tsan=${build}-tsan
cmake -S . -B "$tsan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCROWDIK_OPENMP=OFF -DCROWDIK_WERROR=ON \
    -DCMAKE_C_FLAGS=-fsanitize=thread -DCMAKE_CXX_FLAGS=-fsanitize=thread -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread \
    -DCROWDIK_BUILD_TOOLS=OFF -DCROWDIK_BUILD_BENCH=OFF -DCROWDIK_BUILD_EXAMPLES=ON >/dev/null
cmake --build "$tsan" -j "$jobs" --target test_threads crowdik_example_job_pool \
    crowdik_example_foot_job_pool crowdik_example_cxx_crowd
TSAN_OPTIONS=halt_on_error=1:exitcode=66 ctest --test-dir "$tsan" \
    -R '^(threads_|example_job_pool$|example_foot_job_pool$|example_cxx_crowd$)' \
    --output-on-failure -j "$jobs"
echo "crowdik: all tests passed"
