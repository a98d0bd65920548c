#!/bin/sh
# prefetch_check.sh OBJDUMP LIBRARY: the foot crowd's and the herd's frames
# ask for their next block's cache lines (src/foot/crowd.c prefetch_block,
# src/foot/herd.c herd_prefetch). GCC drops a call to a function whose only
# effects are prefetches, with no warning, so the prefetching functions are
# always inlined (CIK__PREFETCH_INLINE); this fails when a build of the
# static library has no prefetch instruction in crowd.c's or herd.c's code.
objdump=$1
lib=$2
out=$("$objdump" -d "$lib" 2>/dev/null) || { echo "prefetch_check: $objdump cannot read $lib"; exit 77; }
for member in crowd.c.o herd.c.o; do
    n=$(printf '%s\n' "$out" | awk -v m="$member:" '
        / file format / { inside = ($1 == m) }
        inside && /\tprefetch/ { n++ }
        END { print n + 0 }')
    echo "prefetch_check: $member: $n prefetch instructions"
    [ "$n" -gt 0 ] || { echo "prefetch_check: $member has no prefetch instruction"; exit 1; }
done
