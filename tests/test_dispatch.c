/*
 * The dispatch table seen from the public face: every backend has one name,
 * AUTO resolves to the first available one of the order of preference, and
 * the solver and the foot stages accept and refuse the same backends.
 */
#include "common.h"

#include <crowdik/foot.h>

Test(dispatch, names_are_distinct_and_known)
{
    for (int a = 0; a < CIK_BACKEND_COUNT; ++a) {
        const char *na = cik_backend_name((cik_backend)a);
        cr_assert(na && strcmp(na, "unknown") != 0, "backend %d has no name", a);
        for (int b = a + 1; b < CIK_BACKEND_COUNT; ++b)
            cr_assert_str_neq(na, cik_backend_name((cik_backend)b), "backends %d and %d share a name", a, b);
    }
    cr_assert_str_eq(cik_backend_name((cik_backend)CIK_BACKEND_COUNT), "unknown");
    cr_assert_str_eq(cik_backend_name((cik_backend)-1), "unknown");
    cr_assert(!cik_backend_available((cik_backend)CIK_BACKEND_COUNT));
    cr_assert(!cik_backend_available((cik_backend)-1));
    cr_assert(cik_backend_available(CIK_BACKEND_AUTO) && cik_backend_available(CIK_BACKEND_REFERENCE) &&
              cik_backend_available(CIK_BACKEND_SCALAR));
}

/* AUTO is the first available backend of AVX-512, AVX2, SSE4.1, NEON,
 * scalar (the table's order), and solves as that backend does, bit for bit. */
Test(dispatch, auto_is_the_best_available_kernel)
{
    const cik_backend order[] = {CIK_BACKEND_AVX512, CIK_BACKEND_AVX2, CIK_BACKEND_SSE, CIK_BACKEND_NEON,
                                 CIK_BACKEND_SCALAR};
    cik_backend want = CIK_BACKEND_SCALAR;
    for (int i = 0; i < 5; ++i)
        if (cik_backend_available(order[i])) {
            want = order[i];
            break;
        }
    cr_assert_eq(cik_backend_best(), want, "best %s, expected %s", cik_backend_name(cik_backend_best()),
                 cik_backend_name(want));
    cr_assert_eq(cik_backend_best(), want, "the choice changed between calls");
    cik_batch *a = t_workload_batch(WL_RANDOM, 3, 200, 6), *b = t_workload_batch(WL_RANDOM, 3, 200, 6);
    cik_options oa = t_options(CIK_BACKEND_AUTO, 1), ob = t_options(want, 1);
    cr_assert_eq(cik_solve(a, &oa), CIK_OK);
    cr_assert_eq(cik_solve(b, &ob), CIK_OK);
    t_solution sa = t_capture(a), sb = t_capture(b);
    for (int i = 0; i < 200; ++i) cr_assert(t_same_chain(&sa, i, &sb, i), "chain %d: AUTO differs from %s", i,
                                            cik_backend_name(want));
    t_release(&sa);
    t_release(&sb);
    cik_batch_destroy(a);
    cik_batch_destroy(b);
}

static cik_foot_crowd *small_crowd(void)
{
    cik_foot_leg legs[2];
    memset(legs, 0, sizeof legs);
    for (int s = 0; s < 2; ++s) {
        legs[s].hip = t_v3(s ? -0.1f : 0.1f, -0.05f, 0);
        legs[s].thigh = t_v3(0, -0.45f, 0);
        legs[s].shin = t_v3(0, -0.42f, 0);
        legs[s].sole_normal = t_v3(0, 1, 0);
        legs[s].ankle_height = 0.06f;
    }
    cik_foot_crowd *cr = NULL;
    cr_assert_eq(cik_foot_crowd_create(3, legs, &cr), CIK_OK);
    cik_foot_streams s;
    cr_assert_eq(cik_foot_crowd_streams(cr, &s), CIK_OK);
    for (int c = 0; c < 3; ++c) {
        s.pelvis_x[c] = (float)c;
        s.pelvis_y[c] = 0.9f;
        s.pelvis_z[c] = 0.0f;
        s.pelvis_qx[c] = s.pelvis_qy[c] = s.pelvis_qz[c] = 0.0f;
        s.pelvis_qw[c] = 1.0f;
    }
    for (int f = 0; f < 6; ++f) {
        for (int j = 0; j < 3; ++j) {
            s.pose_x[j][f] = s.pose_y[j][f] = s.pose_z[j][f] = 0.0f;
            s.pose_w[j][f] = 1.0f;
        }
        s.weight[f] = 1.0f;
    }
    return cr;
}

/* A backend this build or CPU lacks (and an unknown one) is refused by every
 * foot stage that takes options, as cik_solve refuses it, and the crowd
 * stays as it was: the stages once ran the scalar foot kernels instead. */
Test(dispatch, foot_stages_refuse_what_the_solver_refuses)
{
    static float heights[4] = {0, 0, 0, 0};
    cik_heightfield hf = {-10, -10, 20, 20, 2, 2, heights};
    int refused = 0;
    for (int be = -1; be <= CIK_BACKEND_COUNT; ++be) {
        cik_foot_crowd *cr = small_crowd();
        cik_foot_options o = cik_foot_default_options();
        o.solver.backend = (cik_backend)be;
        int ok = be >= 0 && be < CIK_BACKEND_COUNT && cik_backend_available((cik_backend)be);
        cik_status want = ok ? CIK_OK : CIK_ERROR_BACKEND_UNAVAILABLE;
        cik_batch *probe = NULL;
        cr_assert_eq(cik_batch_create(1, 1, &probe), CIK_OK);
        cik_options so = t_options((cik_backend)be, 1);
        cr_assert_eq(cik_solve(probe, &so), want, "cik_solve on %s", cik_backend_name((cik_backend)be));
        cik_batch_destroy(probe);
        cik_foot_streams s;
        cr_assert_eq(cik_foot_crowd_streams(cr, &s), CIK_OK);
        float before = s.target_y[0];
        cr_assert_eq(cik_foot_crowd_place(cr, &o), want, "place on %s", cik_backend_name((cik_backend)be));
        if (!ok) cr_assert(memcmp(&before, &s.target_y[0], sizeof before) == 0, "a refused place changed a target");
        cr_assert_eq(cik_foot_crowd_solve(cr, &o), want, "solve on %s", cik_backend_name((cik_backend)be));
        cr_assert_eq(cik_foot_crowd_align(cr, &o), want, "align on %s", cik_backend_name((cik_backend)be));
        cr_assert_eq(cik_foot_crowd_frame(cr, &hf, &o), want, "frame on %s", cik_backend_name((cik_backend)be));
        cr_assert_eq(cik_foot_crowd_probe(cr, &o), want, "probe on %s", cik_backend_name((cik_backend)be));
        cr_assert_eq(cik_foot_crowd_ground_heightfield(cr, &hf, &o), want, "ground on %s",
                     cik_backend_name((cik_backend)be));
        refused += !ok;
        cik_foot_crowd_destroy(cr);
    }
    cr_assert_geq(refused, 2, "the unknown values -1 and COUNT were not refused");
}
