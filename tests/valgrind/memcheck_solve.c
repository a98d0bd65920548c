/*
 * A small self-checking program for valgrind memcheck (tests/valgrind/run.sh):
 * creates batches of several shapes, fills them with generated chains,
 * writes a few bad values through the bulk path, solves with the reference,
 * scalar, SSE and AVX2 backends (those this CPU runs; never AVX-512, which
 * valgrind hides) on one thread, reads everything back and frees it.
 * Memcheck reports reads of uninitialised memory (padding lanes, result
 * streams), out-of-bounds accesses and leaks; the program itself checks that
 * the results are sane and exits non-zero otherwise.
 */
#include "crowdik/crowdik.h"
#include "workloads.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define EXPECT(cond, ...)                                                  \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "memcheck_solve: %s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                                  \
            fprintf(stderr, "\n");                                         \
            ++failures;                                                    \
        }                                                                  \
    } while (0)

static void solve_shape(wl_kind kind, int chains, int random_joints, cik_backend backend)
{
    int J = wl_joint_count(kind, random_joints);
    cik_batch *b = NULL;
    cik_status st = cik_batch_create(chains, J, &b);
    EXPECT(st == CIK_OK && b, "create %d x %d: %s", chains, J, cik_status_string(st));
    if (!b) return;
    EXPECT(wl_fill(b, kind, 42, 0) == CIK_OK, "fill");

    /* bad values through the bulk path: these chains are SKIPPED */
    cik_streams s;
    EXPECT(cik_batch_streams(b, &s) == CIK_OK, "streams");
    int bad_nan = chains > 3 ? 3 : -1, bad_unit = chains > 5 ? chains - 2 : -1;
    if (bad_nan >= 0) s.target_y[bad_nan] = NAN;
    if (bad_unit >= 0) s.rotation_w[J - 1][bad_unit] *= 1.5f;

    cik_options o = cik_default_options();
    o.backend = backend;
    o.threads = 1;
    o.max_iterations = 12;
    st = cik_solve(b, &o);
    EXPECT(st == CIK_OK, "%s: solve: %s", cik_backend_name(backend), cik_status_string(st));

    int converged = 0;
    for (int i = 0; i < chains; ++i) {
        cik_result r;
        cik_chain c;
        cik_vec3 P[CIK_MAX_JOINTS], E;
        EXPECT(cik_batch_result(b, i, &r) == CIK_OK, "result");
        EXPECT(cik_batch_get_chain(b, i, &c) == CIK_OK, "get_chain");
        EXPECT(cik_batch_forward(b, i, P, &E) == CIK_OK, "forward");
        int bad = i == bad_nan || i == bad_unit;
        if (bad) {
            EXPECT(r.flags == CIK_RESULT_SKIPPED && isnan(r.error), "%s: chain %d not skipped",
                   cik_backend_name(backend), i);
            continue;
        }
        EXPECT(!(r.flags & CIK_RESULT_SKIPPED) && isfinite(r.error), "%s: chain %d: flags %u error %g",
               cik_backend_name(backend), i, r.flags, r.error);
        for (int j = 0; j < J; ++j) {
            cik_quat q = c.rotation[j];
            float n = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
            EXPECT(fabsf(n - 1.0f) < 1e-3f, "%s: chain %d joint %d |q| = %g", cik_backend_name(backend), i, j, n);
        }
        /* a branch on every output, so that memcheck sees uninitialised ones */
        if (r.flags & CIK_RESULT_CONVERGED) ++converged;
        if (E.x + E.y + E.z > 1e30f) ++failures;
    }
    EXPECT(chains < 64 || converged > 0, "%s: nothing converged", cik_backend_name(backend));
    EXPECT(cik_batch_memory_bytes(b) > 0, "memory bytes");
    cik_batch_destroy(b);
}

int main(void)
{
    const cik_backend backends[] = {CIK_BACKEND_REFERENCE, CIK_BACKEND_SCALAR, CIK_BACKEND_SSE,
                                    CIK_BACKEND_AVX2};
    for (size_t k = 0; k < sizeof backends / sizeof backends[0]; ++k) {
        cik_backend be = backends[k];
        if (!cik_backend_available(be)) {
            printf("memcheck_solve: %s not available, skipped\n", cik_backend_name(be));
            continue;
        }
        solve_shape(WL_LEGS, 0, 0, be);
        solve_shape(WL_LEGS, 1, 0, be);
        solve_shape(WL_LEGS, 203, 0, be);
        solve_shape(WL_SPINE, 65, 0, be);
        solve_shape(WL_TAIL, 17, 0, be);
        solve_shape(WL_RANDOM_HARD, 130, 16, be);
        solve_shape(WL_RANDOM, 37, 1, be);
        printf("memcheck_solve: %s done\n", cik_backend_name(be));
    }

    /* refusals allocate nothing and leak nothing */
    cik_batch *b = NULL;
    EXPECT(cik_batch_create(-1, 3, &b) == CIK_ERROR_ARGUMENT && !b, "negative count");
    EXPECT(cik_batch_create(4, 0, &b) == CIK_ERROR_ARGUMENT && !b, "zero joints");
    EXPECT(cik_batch_create(4, CIK_MAX_JOINTS + 1, &b) == CIK_ERROR_ARGUMENT && !b, "17 joints");
    EXPECT(cik_solve(NULL, NULL) == CIK_ERROR_ARGUMENT, "solve NULL");
    cik_batch_destroy(NULL);

    if (failures) {
        fprintf(stderr, "memcheck_solve: %d failures\n", failures);
        return 1;
    }
    printf("memcheck_solve: ok\n");
    return 0;
}
