/*
 * The dispatch table: for every cik_backend its name, its CPU test, its CCD
 * kernel and its foot kernels. Nothing else in crowdik switches over
 * backends: cik_backend_name, cik_backend_available, cik_backend_best (the
 * table's order), cik_solve's kernel and the foot crowd's kernels all read
 * this table, and tests and tools iterate it through the public enum
 * (CIK_BACKEND_REFERENCE .. CIK_BACKEND_COUNT - 1, cik_backend_name).
 *
 * Adding an instruction set (docs/layout.md): its vector header, its enum
 * value, one row here with its CPU test, one row in CMakeLists.txt's
 * CROWDIK_ISAS.
 */
#include "internal.h"

#include <stdatomic.h>
#include <stddef.h>

/* CPU tests. __builtin_cpu_supports reads a table the runtime fills before
 * main; on another architecture an x86 test answers 0 (its row is not built
 * there anyway). */
static int cpu_any(void) { return 1; }
#if defined(__x86_64__) || defined(__i386__)
static int cpu_sse41(void) { return __builtin_cpu_supports("sse4.1"); }
static int cpu_avx2(void) { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }
static int cpu_avx512(void) { return __builtin_cpu_supports("avx512f"); }
#else
static int cpu_sse41(void) { return 0; }
static int cpu_avx2(void) { return 0; }
static int cpu_avx512(void) { return 0; }
#endif
#if defined(__aarch64__)
static int cpu_neon(void) { return 1; /* part of the aarch64 base */ }
#else
static int cpu_neon(void) { return 0; }
#endif

/* The instruction sets with kernels, best first: AUTO takes the first one
 * this build has and this CPU runs. ROW(isa, BACKEND, name, cpu test): `isa`
 * is the name of its row in CMakeLists.txt's CROWDIK_ISAS (and of its
 * kernels, cik__kernel_<isa>, cik__foot_kernel_<isa>). */
#define CIK__KERNEL_ROWS(ROW)                     \
    ROW(avx512, AVX512, "avx512", cpu_avx512)     \
    ROW(avx2, AVX2, "avx2", cpu_avx2)             \
    ROW(sse, SSE, "sse4.1", cpu_sse41)            \
    ROW(neon, NEON, "neon", cpu_neon)             \
    ROW(scalar, SCALAR, "scalar", cpu_any)

/* Whether CMake built an instruction set's translation unit: it defines
 * CIK_BUILT_<isa> as 1 for this file. CIK__BUILT(isa) is then 1, else 0 (the
 * preprocessor test of Linux's IS_ENABLED: a defined 1 pastes into a macro
 * that adds an argument), and CIK__IF_BUILT(isa, a) is `a` or NULL, so that
 * the table names no kernel the library lacks. */
#define CIK__ON_1 0,
#define CIK__SECOND(a, b, ...) b
#define CIK__BUILT(isa) CIK__BUILT1(CIK_BUILT_##isa)
#define CIK__BUILT1(m) CIK__BUILT2(m)
#define CIK__BUILT2(v) CIK__BUILT3(CIK__ON_##v)
#define CIK__BUILT3(arg) CIK__SECOND(arg 1, 0, ~)
#define CIK__CAT(a, b) CIK__CAT2(a, b)
#define CIK__CAT2(a, b) a##b
#define CIK__PICK_1(a) a
#define CIK__PICK_0(a) NULL
#define CIK__IF_BUILT(isa, a) CIK__CAT(CIK__PICK_, CIK__BUILT(isa))(a)

#define CIK__DECLARE(isa, BACKEND, name, cpu) \
    extern const cik__kernel cik__kernel_##isa;  \
    extern const struct cik__foot_kernel cik__foot_kernel_##isa;
CIK__KERNEL_ROWS(CIK__DECLARE)

#define CIK__ROW(isa, BACKEND, name, cpu)                                          \
    {CIK_BACKEND_##BACKEND, name, cpu, CIK__IF_BUILT(isa, &cik__kernel_##isa), \
     CIK__IF_BUILT(isa, &cik__foot_kernel_##isa)},

static const cik__isa table[] = {
    CIK__KERNEL_ROWS(CIK__ROW)
    /* the oracle: no kernel; a crowd solved by it runs the one-lane foot
     * kernels, which every build has */
    {CIK_BACKEND_REFERENCE, "reference", cpu_any, NULL, &cik__foot_kernel_scalar},
    {CIK_BACKEND_AUTO, "auto", cpu_any, NULL, NULL},
};
#define TABLE_ROWS ((int)(sizeof table / sizeof table[0]))

static const cik__isa *row_of(cik_backend backend)
{
    for (int i = 0; i < TABLE_ROWS; ++i)
        if (table[i].backend == backend) return &table[i];
    return NULL;
}

/* Built into this library and run by this CPU (AUTO is not a row's own). */
static int row_usable(const cik__isa *r)
{
    return r && (r->ccd || r->backend == CIK_BACKEND_REFERENCE) && r->cpu_runs();
}

const char *cik_backend_name(cik_backend backend)
{
    const cik__isa *r = row_of(backend);
    return r ? r->name : "unknown";
}

int cik_backend_available(cik_backend backend)
{
    return backend == CIK_BACKEND_AUTO || row_usable(row_of(backend));
}

cik_backend cik_backend_best(void)
{
    /* Chosen once. An atomic, so that threads making their first AUTO solve
     * at the same time do not race (C11 7.17): each may compute the choice,
     * all compute the same one, and relaxed order suffices because nothing
     * else is published with it. -1: not chosen yet. */
    static atomic_int best = -1;
    int b = atomic_load_explicit(&best, memory_order_relaxed);
    if (b < 0) {
        b = CIK_BACKEND_SCALAR;
        for (int i = 0; i < TABLE_ROWS; ++i) {
            if (table[i].ccd && row_usable(&table[i])) {
                b = (int)table[i].backend;
                break;
            }
        }
        atomic_store_explicit(&best, b, memory_order_relaxed);
    }
    return (cik_backend)b;
}

const cik__isa *cik__isa_usable(cik_backend backend)
{
    if (backend == CIK_BACKEND_AUTO) backend = cik_backend_best();
    const cik__isa *r = row_of(backend);
    return row_usable(r) ? r : NULL;
}

int cik__crowd_prefetch(void)
{
#if defined(CIK_CROWD_PREFETCH)
    return CIK_CROWD_PREFETCH != 0;
#elif defined(__x86_64__) || defined(__i386__)
    return !__builtin_cpu_is("intel");
#else
    return 1;
#endif
}
