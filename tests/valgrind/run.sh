#!/usr/bin/env bash
# Runs a program under valgrind memcheck: any memory error or definite leak
# fails (exit 1). Exit 77 (skipped) without valgrind, or when the program was
# built with sanitizers (ASan and valgrind do not mix).
#
#   tests/valgrind/run.sh PROGRAM [SANITIZE]
set -euo pipefail
prog=${1:?program}
if [ "${2:-OFF}" = ON ]; then
    echo "valgrind: the program is built with sanitizers; skipped"
    exit 77
fi
if ! command -v valgrind >/dev/null 2>&1; then
    echo "valgrind: not installed; skipped"
    exit 77
fi
# One thread: OpenMP's runtime keeps its pool alive (reachable, not leaked).
export OMP_NUM_THREADS=1
exec valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite \
    --track-origins=yes --quiet "$prog"
