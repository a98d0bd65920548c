#!/usr/bin/env bash
# Builds tests/consumer/main.c against crowdik one way at a time and runs it,
# or checks the installed libraries' symbols. Called by CTest
# (tests/consumer.cmake); every step works in <work>/<linkage>/ only.
#
#   run.sh STEP LINKAGE SOURCE WORK [CMAKE] [CC] [WERROR]
#
#   STEP     install    configure, build and install crowdik into WORK/LINKAGE/prefix
#            subdir     consumer with add_subdirectory(SOURCE)
#            package    consumer with find_package(crowdik) against the prefix
#            pkgconfig  consumer compiled by hand with `pkg-config --cflags --libs crowdik`
#            symbols    the installed library exports cik_* only, and all of the API
#   LINKAGE  static or shared (BUILD_SHARED_LIBS=OFF/ON)
#   SOURCE   crowdik's source tree
#   WORK     a scratch directory under the build tree
set -euo pipefail

step=$1 linkage=$2 src=$3 work=$4
cmake=${5:-cmake}
cc=${6:-cc}
werror=${7:-OFF}
jobs=${CROWDIK_CONSUMER_JOBS:-2}
here=$(cd "$(dirname "$0")" && pwd)

case $linkage in
static) shared=OFF ;;
shared) shared=ON ;;
*) echo "run.sh: linkage must be static or shared" >&2; exit 2 ;;
esac

dir=$work/$linkage
prefix=$dir/prefix

say() { echo "consumer[$step/$linkage]: $*"; }
fail() { echo "consumer[$step/$linkage]: FAIL: $*" >&2; exit 1; }

# The consumer must have linked crowdik the way it was asked to.
check_linkage() {
    local exe=$1 needed
    needed=$(readelf -d "$exe" | grep NEEDED || true)
    if [ "$linkage" = shared ]; then
        grep -q 'libcrowdik\.so' <<<"$needed" || fail "$exe does not load libcrowdik.so"
    else
        ! grep -q 'libcrowdik' <<<"$needed" || fail "$exe loads libcrowdik.so in a static build"
    fi
}

libdir_of() { dirname "$(find "$prefix" -name crowdik.pc -path '*pkgconfig*' | head -n 1)"; }

case $step in
install)
    rm -rf "$dir/crowdik-build" "$prefix"
    # A Release install (the configuration an engine's package maps to), its
    # code compiled without optimisation: these tests check the packaging, the
    # linkage and the symbols, and solve one leg; the optimised kernels are
    # built and tested by the main build. On a 2-core machine the library
    # took 141 s to build at -O3 and 36 s at -O0.
    "$cmake" -S "$src" -B "$dir/crowdik-build" \
        -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_C_FLAGS_RELEASE="-O0 -DNDEBUG" \
        -DBUILD_SHARED_LIBS=$shared -DCROWDIK_WERROR="$werror" \
        -DCROWDIK_BUILD_TESTS=OFF -DCROWDIK_BUILD_TOOLS=OFF \
        -DCROWDIK_BUILD_BENCH=OFF -DCROWDIK_BUILD_EXAMPLES=OFF \
        -DCMAKE_INSTALL_PREFIX="$prefix" >/dev/null
    "$cmake" --build "$dir/crowdik-build" -j "$jobs"
    "$cmake" --install "$dir/crowdik-build" >/dev/null
    for f in include/crowdik/crowdik.h; do
        [ -f "$prefix/$f" ] || fail "$f not installed"
    done
    for f in crowdikConfig.cmake crowdikConfigVersion.cmake crowdikTargets.cmake crowdik.pc; do
        [ -n "$(find "$prefix" -name "$f")" ] || fail "$f not installed"
    done
    if [ "$shared" = ON ]; then
        [ -n "$(find "$prefix" -name 'libcrowdik.so*')" ] || fail "no libcrowdik.so installed"
    else
        [ -n "$(find "$prefix" -name 'libcrowdik.a')" ] || fail "no libcrowdik.a installed"
        [ -z "$(find "$prefix" -name 'libcrowdik.so*')" ] || fail "a shared library in a static install"
    fi
    say "installed into $prefix"
    ;;

subdir)
    # No CMAKE_BUILD_TYPE on purpose: crowdik must not choose one for its parent.
    rm -rf "$dir/subdir"
    "$cmake" -S "$here" -B "$dir/subdir" -DCMAKE_C_COMPILER="$cc" \
        -DBUILD_SHARED_LIBS=$shared -DCROWDIK_WERROR="$werror" \
        -DCROWDIK_CONSUMER_MODE=subdir -DCROWDIK_SOURCE_DIR="$src" >/dev/null
    "$cmake" --build "$dir/subdir" -j "$jobs"
    check_linkage "$dir/subdir/consumer"
    "$dir/subdir/consumer"
    ;;

package)
    rm -rf "$dir/package"
    "$cmake" -S "$here" -B "$dir/package" -DCMAKE_C_COMPILER="$cc" \
        -DCMAKE_BUILD_TYPE=Release -DCROWDIK_CONSUMER_MODE=package \
        -DCMAKE_PREFIX_PATH="$prefix"
    "$cmake" --build "$dir/package" -j "$jobs"
    check_linkage "$dir/package/consumer"
    "$dir/package/consumer"
    ;;

pkgconfig)
    command -v pkg-config >/dev/null || { echo "pkg-config not found: skipped"; exit 77; }
    pcdir=$(libdir_of)
    [ -d "$pcdir" ] || fail "no crowdik.pc under $prefix"
    export PKG_CONFIG_PATH=$pcdir
    version=$(pkg-config --modversion crowdik)
    pkg-config --exists 'crowdik >= 0.1' || fail "pkg-config --exists 'crowdik >= 0.1'"
    cflags=$(pkg-config --cflags crowdik)
    libs=$(pkg-config --libs crowdik)
    say "crowdik $version: cflags [$cflags] libs [$libs]"
    mkdir -p "$dir/pkgconfig"
    # shellcheck disable=SC2086 # the flags are lists
    "$cc" -std=c11 -Wall -Wextra -Wpedantic -Werror $cflags \
        "$here/main.c" -o "$dir/pkgconfig/consumer" $libs -lm
    check_linkage "$dir/pkgconfig/consumer"
    # A shared install outside the loader's path: point the loader at it.
    LD_LIBRARY_PATH=$(pkg-config --variable=libdir crowdik)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
        "$dir/pkgconfig/consumer"
    if [ "$linkage" = static ]; then
        # The conventional static link line works too.
        # shellcheck disable=SC2086
        "$cc" -std=c11 $cflags "$here/main.c" -o "$dir/pkgconfig/consumer-static" \
            $(pkg-config --static --libs crowdik) -lm
        "$dir/pkgconfig/consumer-static" >/dev/null
    fi
    ;;

symbols)
    command -v nm >/dev/null || { echo "nm not found: skipped"; exit 77; }
    # Every function the public headers declare with CIK_API.
    api=$(grep -h '^CIK_API' "$prefix"/include/crowdik/*.h |
        sed -E 's/\(.*//; s/.*[^A-Za-z0-9_]([A-Za-z_][A-Za-z0-9_]*)[[:space:]]*$/\1/' | sort -u)
    [ -n "$api" ] || fail "no CIK_API declarations found in the installed headers"
    if [ "$linkage" = shared ]; then
        lib=$(find "$prefix" -name 'libcrowdik.so.*' -type f | head -n 1)
        [ -n "$lib" ] || fail "no libcrowdik.so installed"
        soname=$(readelf -d "$lib" | sed -n 's/.*SONAME.*\[\(.*\)\].*/\1/p')
        say "$(basename "$lib"), soname $soname"
        [[ $soname == libcrowdik.so.* ]] || fail "soname is '$soname'"
        exported=$(nm -D --defined-only "$lib" | awk 'NF >= 3 { print $3 }' | sed 's/@.*//' | sort -u)
        stray=$(grep -v '^cik_' <<<"$exported" || true)
        internal=$(grep '^cik__' <<<"$exported" || true)
        [ -z "$stray" ] || fail "exports symbols outside the cik_ prefix:"$'\n'"$stray"
        [ -z "$internal" ] || fail "exports internal cik__ symbols:"$'\n'"$internal"
        missing=$(comm -23 <(echo "$api") <(echo "$exported"))
        [ -z "$missing" ] || fail "API functions not exported:"$'\n'"$missing"
        extra=$(comm -13 <(echo "$api") <(echo "$exported"))
        [ -z "$extra" ] || say "note: exported but not declared with CIK_API in a public header: $(tr "\n" " " <<<"$extra")"
        say "exports $(wc -l <<<"$exported") symbols, all cik_, covering the $(wc -l <<<"$api") API functions"
    else
        # A static archive cannot hide symbols, but every global one it
        # defines stays in crowdik's namespace so it cannot clash in a link.
        lib=$(find "$prefix" -name 'libcrowdik.a' | head -n 1)
        [ -n "$lib" ] || fail "no libcrowdik.a installed"
        defined=$(nm -g --defined-only "$lib" | awk 'NF >= 3 { print $3 }' | sort -u)
        stray=$(grep -v '^cik_' <<<"$defined" || true)
        [ -z "$stray" ] || fail "defines global symbols outside the cik_ prefix:"$'\n'"$stray"
        missing=$(comm -23 <(echo "$api") <(echo "$defined"))
        [ -z "$missing" ] || fail "API functions not defined:"$'\n'"$missing"
        say "every global symbol is cik_-prefixed ($(wc -l <<<"$defined"))"
    fi
    ;;

*)
    echo "run.sh: unknown step '$step'" >&2
    exit 2
    ;;
esac
