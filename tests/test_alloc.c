/*
 * cik_solve allocates nothing: the C allocator is interposed in this
 * executable (forwarding to glibc's own entry points) and every call made
 * while counting is on is counted, from any thread.
 */
#include "common.h"

#if defined(__SANITIZE_ADDRESS__)
#define T_NO_INTERPOSE 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) || __has_feature(thread_sanitizer)
#define T_NO_INTERPOSE 1
#endif
#endif
#if !defined(__GLIBC__)
#define T_NO_INTERPOSE 1
#endif

#ifndef T_NO_INTERPOSE
#include <errno.h>
#include <stdatomic.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);

static atomic_int counting;
static atomic_long calls;

static void note(void)
{
    if (atomic_load_explicit(&counting, memory_order_relaxed)) atomic_fetch_add(&calls, 1);
}

void *malloc(size_t n)
{
    note();
    return __libc_malloc(n);
}
void *calloc(size_t a, size_t b)
{
    note();
    return __libc_calloc(a, b);
}
void *realloc(void *p, size_t n)
{
    note();
    return __libc_realloc(p, n);
}
void free(void *p)
{
    if (p) note();
    __libc_free(p);
}
void *memalign(size_t align, size_t n)
{
    note();
    return __libc_memalign(align, n);
}
void *aligned_alloc(size_t align, size_t n)
{
    note();
    return __libc_memalign(align, n);
}
int posix_memalign(void **out, size_t align, size_t n)
{
    note();
    if (align < sizeof(void *) || (align & (align - 1)) != 0) return EINVAL;
    void *p = __libc_memalign(align, n);
    if (!p && n) return ENOMEM;
    *out = p;
    return 0;
}

static long counted(cik_batch *b, const cik_options *o)
{
    atomic_store(&calls, 0);
    atomic_store(&counting, 1);
    cik_status st = cik_solve(b, o);
    atomic_store(&counting, 0);
    cr_assert_eq(st, CIK_OK);
    return atomic_load(&calls);
}

Test(alloc, interposition_works)
{
    /* the counter sees this file's own allocations */
    atomic_store(&calls, 0);
    atomic_store(&counting, 1);
    void *volatile p = malloc(64);
    free(p);
    atomic_store(&counting, 0);
    cr_assert_eq(atomic_load(&calls), 2);
}

Test(alloc, solve_allocates_nothing)
{
    const int n = 1000, J = 5;
    cik_batch *b = t_workload_batch(WL_RANDOM, 9, n, J);
    /* the very first solves: OpenMP may build its thread pool here */
    cik_options first = t_options(CIK_BACKEND_AUTO, 2);
    long first_calls = counted(b, &first);
    cr_log_info("alloc: the first solve (auto, 2 threads) made %ld allocator calls (thread pool set-up)",
                first_calls);
    for (int bi = 0; bi < T_BACKEND_COUNT; ++bi) {
        cik_backend be = t_backends[bi];
        if (!t_backend_usable(be)) continue;
        const int threads[] = {1, 2};
        for (int t = 0; t < 2; ++t) {
            cik_options o = t_options(be, threads[t]);
            cr_assert_eq(wl_fill(b, WL_RANDOM, 9, 0), CIK_OK);
            long c = counted(b, &o);
            cr_assert_eq(c, 0, "%s with %d threads: %ld allocator calls during cik_solve", cik_backend_name(be),
                         threads[t], c);
            /* and a second solve, from the solved pose */
            c = counted(b, &o);
            cr_assert_eq(c, 0, "%s with %d threads (second solve): %ld allocator calls", cik_backend_name(be),
                         threads[t], c);
        }
    }
    /* refusals allocate nothing either */
    cik_options bad = t_options(CIK_BACKEND_AUTO, 1);
    bad.threshold = -1.0f;
    atomic_store(&calls, 0);
    atomic_store(&counting, 1);
    cik_status st = cik_solve(b, &bad);
    atomic_store(&counting, 0);
    cr_assert_eq(st, CIK_ERROR_OPTIONS);
    cr_assert_eq(atomic_load(&calls), 0);
    cik_batch_destroy(b);
}

#else

Test(alloc, solve_allocates_nothing)
{
    cr_skip_test("the allocator cannot be interposed in this build (sanitizer or not glibc)");
}

#endif
