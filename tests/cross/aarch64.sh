#!/usr/bin/env bash
# Cross-compiles crowdik and its validation tool for aarch64 and runs the
# tool under qemu-aarch64 through CTest, so the NEON kernel is checked
# against the reference on an x86 machine, then the vector layer's checks
# (tests/vec_layer.c) on NEON. Criterion cannot run under qemu;
# the validation tool is the check there.
#   aarch64.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1
build=$2
if ! command -v aarch64-linux-gnu-gcc >/dev/null || ! command -v qemu-aarch64 >/dev/null; then
    echo "aarch64 cross check skipped: needs gcc-aarch64-linux-gnu and qemu-user"
    exit 77
fi
cmake -S "$src" -B "$build" -DCMAKE_TOOLCHAIN_FILE="$src/cmake/aarch64-linux-gnu.cmake" \
    -DCMAKE_BUILD_TYPE=Release -DCROWDIK_WERROR=ON -DCROWDIK_BUILD_TESTS=OFF \
    -DCROWDIK_BUILD_BENCH=OFF -DCROWDIK_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target crowdik_validate >/dev/null
ctest --test-dir "$build" -R validate_backends --output-on-failure
# The vector layer's own checks on NEON (tests/vec_layer.c needs no
# Criterion): arithmetic, masks, cells and the heightfield's row loads.
aarch64-linux-gnu-gcc -O2 -std=c11 -Wall -Wextra -Werror -I "$src/include" -I "$src/src/kernels" \
    -DCIK_ISA_BACKEND=NEON '-DCIK_ISA_HEADER="vec_neon.h"' "$src/tests/vec_layer.c" "$build/libcrowdik.a" \
    -fopenmp -lm -o "$build/vec_layer_neon"
qemu-aarch64 -L /usr/aarch64-linux-gnu "$build/vec_layer_neon"
