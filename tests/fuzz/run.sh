#!/usr/bin/env bash
# Builds a crowdik libFuzzer target with clang straight from the sources
# (no OpenMP; each SIMD kernel with its own instruction-set flags) and runs
# it for a bounded time on a copy of its seed corpus, so the repository's
# corpus stays unchanged. Prints the execution count.
#
#   tests/fuzz/run.sh TARGET SOURCE_DIR BUILD_DIR
#     TARGET      api | bvh | foot | herd
#     SOURCE_DIR  the repository root
#     BUILD_DIR   where the binary, the working corpus and findings go
#
# Environment: FUZZ_SECONDS (default 60; 0 runs the seeds only), FUZZ_SEED
# (libFuzzer's -seed, default 1, so that a run of the test suite tries the
# same inputs in the same order on every machine and a failure reproduces;
# 0 draws a new seed each run, for a search campaign), CLANG (default:
# clang-14, then clang), FUZZ_ARGS (extra libFuzzer arguments), FUZZ_REQUIRED (1: a missing
# clang or libFuzzer is a failure, not a skip; tools/test.sh sets it).
# Exit status: 0 clean run, 77 when clang or libFuzzer is missing (or the
# target's sources are absent), otherwise the fuzzer's failure status; a
# crashing input is left in BUILD_DIR/fuzz-TARGET/ and its path printed.
#
# The library objects (instrumented, sanitized) are compiled once into
# BUILD_DIR/obj and shared by the targets; a lock lets two targets started
# at once (ctest -j) wait for each other instead of compiling twice.
set -euo pipefail

target=${1:?target (api, bvh, foot or herd)}
src=$(cd "${2:?source dir}" && pwd)
build=${3:?build dir}
seconds=${FUZZ_SECONDS:-60}
case "$seconds" in
'' | *[!0-9]*) echo "fuzz_$target: FUZZ_SECONDS must be a whole number of seconds, not '$seconds'" >&2; exit 2 ;;
esac
seed=${FUZZ_SEED:-1}
case "$seed" in
'' | *[!0-9]*) echo "fuzz_$target: FUZZ_SEED must be a whole number, not '$seed'" >&2; exit 2 ;;
esac
# A missing toolchain: skipped (77), or a failure where FUZZ_REQUIRED=1.
skip() {
    if [ "${FUZZ_REQUIRED:-0}" = 1 ]; then
        echo "fuzz_$target: $1 (FUZZ_REQUIRED=1: failing instead of skipping)" >&2
        exit 1
    fi
    echo "fuzz_$target: $1; skipped"
    exit 77
}

# max_len: what each decoder can use (a long input is a long call sequence:
# fuzz_api reads up to 1,024 operations, fuzz_foot and fuzz_herd 256). len_control 0 lets
# mutations reach that length at once: libFuzzer's default raises the limit
# only after runs without new coverage, and a 10-minute fuzz_api run stayed
# at 39 bytes (a handful of calls).
case "$target" in
api) extra=(support/workloads.c support/legs.c); max_len=16384; len_control=0 ;;
bvh)
    if [ ! -f "$src/support/bvh.c" ]; then skip "support/bvh.c is not there"; fi
    extra=(support/bvh.c)
    max_len=4096
    len_control=100 # libFuzzer's default: BVH text grows line by line
    ;;
foot | herd) extra=(); max_len=16384; len_control=0 ;;
*) echo "unknown target $target" >&2; exit 2 ;;
esac

cc=${CLANG:-}
if [ -z "$cc" ]; then
    for c in clang-14 clang; do
        if command -v "$c" >/dev/null 2>&1; then cc=$c; break; fi
    done
fi
if [ -z "$cc" ]; then skip "clang not found (Debian: clang-14)"; fi

mkdir -p "$build"
build=$(cd "$build" && pwd)
work=$build/fuzz-$target
mkdir -p "$work/obj" "$build/obj"

# libFuzzer present? (clang without compiler-rt's fuzzer runtime fails here)
probe=$work/obj/probe
printf '#include <stdint.h>\n#include <stddef.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' >"$probe.c"
if ! "$cc" -fsanitize=fuzzer,address,undefined "$probe.c" -o "$probe" >/dev/null 2>&1; then
    skip "$cc cannot link -fsanitize=fuzzer (libFuzzer missing; Debian: libclang-rt-14-dev)"
fi

cflags=(-std=c11 -O1 -g -Wall -Wextra -fno-omit-frame-pointer
        -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
        -D_POSIX_C_SOURCE=200809L -DCIK_BUILDING
        -I"$src/include" -I"$src/support" -I"$src/src")
if [ "${CROWDIK_WERROR:-OFF}" = ON ]; then cflags+=(-Werror); fi

# The library, built as the fuzzer sees it: instrumented, sanitized.
objs=()
compile() { # source, extra flags... (kernels: sanitizers named by $san; objects into $objdir)
    local s=$1; shift
    local o=$objdir/${obj:-$(echo "$s" | tr '/.' '__')}.o
    if [ ! -f "$o" ] || [ "$src/$s" -nt "$o" ] || [ "$0" -nt "$o" ] ||
       [ -n "$(find "$src/src" "$src/include" "$src/support" -name '*.h' -newer "$o" -print -quit)" ]; then
        # -fsanitize=fuzzer on library code means coverage instrumentation only
        "$cc" "${cflags[@]/-fsanitize=fuzzer,address,undefined/-fsanitize=fuzzer-no-link,$san}" \
            "$@" -c "$src/$s" -o "$o"
    fi
    objs+=("$o")
}
objdir=$build/obj
exec 9>"$build/obj.lock"
flock 9 2>/dev/null || true # without flock(1) the targets may compile the same objects twice
san=address,undefined
# The instruction sets built here, as CMakeLists.txt's CROWDIK_ISAS:
# "name BACKEND flags..." (the dispatch table names these only).
isas=("scalar SCALAR")
if [ "$(uname -m)" = x86_64 ]; then
    isas+=("sse SSE -msse4.1" "avx2 AVX2 -mavx2 -mfma" "avx512 AVX512 -mavx512f -mavx2 -mfma")
fi
built=()
for row in "${isas[@]}"; do read -r isa _ <<<"$row"; built+=("-DCIK_BUILT_$isa=1"); done
for s in "$src"/src/*.c "$src"/src/foot/*.c; do
    [ -f "$s" ] && compile "${s#"$src"/}" "${built[@]}"
done
# The SIMD kernels get AddressSanitizer but not UBSan: UBSan's checks on
# these heavily inlined files take minutes per file to compile, and the
# kernels are integer-free float code; the reference solver and everything
# else keep both.
# As in the CMake sanitizer build, one native vector per group and the
# joint update out of line (CIK_IL=1, CIK_SANITIZE_BUILD): the same
# arithmetic, a fraction of the compile time.
san=address
kflags=(-DCIK_IL=1 -DCIK_FOOT_IL=1 -DCIK_SANITIZE_BUILD)
for row in "${isas[@]}"; do
    read -r isa backend flags <<<"$row"
    # shellcheck disable=SC2086 # the row's flags are words
    obj=isa_$isa compile src/kernels/isa.c $flags -DCIK_ISA="$isa" -DCIK_ISA_BACKEND="$backend" \
        -DCIK_ISA_HEADER="\"vec_$isa.h\"" "${kflags[@]}"
done
exec 9>&-
objdir=$work/obj
san=address,undefined
for s in "${extra[@]+"${extra[@]}"}"; do compile "$s"; done

bin=$work/fuzz_$target
"$cc" "${cflags[@]}" "$src/tests/fuzz/fuzz_$target.c" "${objs[@]}" -lm -o "$bin"

# Run on a copy of the corpus; findings go to $work/findings.
corpus=$work/corpus
rm -rf "$corpus"
mkdir -p "$corpus" "$work/findings"
if [ -d "$src/tests/fuzz/corpus_$target" ]; then
    cp -r "$src/tests/fuzz/corpus_$target/." "$corpus/"
fi
log=$work/fuzz.log
# libFuzzer reads -max_total_time=0 as "no limit": 0 means the seeds only.
if [ "$seconds" = 0 ]; then limit=(-runs=0); else limit=(-max_total_time="$seconds"); fi
echo "fuzz_$target: running $bin for ${seconds}s, seed $seed"
set +e
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
"$bin" "${limit[@]}" -max_len="$max_len" -len_control="$len_control" -timeout=20 -rss_limit_mb=2048 \
    -seed="$seed" -print_final_stats=1 -error_exitcode=1 -artifact_prefix="$work/findings/" ${FUZZ_ARGS:-} \
    "$corpus" >"$log" 2>&1
rc=$?
set -e
tail -n 40 "$log"
runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -n1 || true)
rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -n1 || true)
echo "fuzz_$target: ${runs:-?} executions in ${seconds}s (${rate:-?} exec/s), exit $rc"
if [ $rc -ne 0 ]; then
    echo "fuzz_$target: FAILED; crashing inputs:"
    grep -h 'property violated' -A1 "$log" | head -n 4 || true
    ls -1d "$work"/findings/* || true
    exit 1
fi
