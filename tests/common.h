/*
 * Helpers shared by the crowdik test files: vector and quaternion math in
 * double precision (the tests' own, independent of the library), backend
 * tests parameterized over the dispatch table, batch construction from generated workloads and comparison of
 * solved batches.
 */
#ifndef CROWDIK_TESTS_COMMON_H
#define CROWDIK_TESTS_COMMON_H

#include <crowdik/crowdik.h>
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include "workloads.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* Backend tests run once per backend of the dispatch table (the public
 * enum, REFERENCE to CIK_BACKEND_COUNT - 1, REFERENCE first), each run a
 * test of its own that passes, fails or is skipped under the backend's name:
 *
 *   T_BACKEND_TEST(suite, name) { ... be ... }   every backend
 *   T_KERNEL_TEST(suite, name) { ... be ... }    every backend but REFERENCE
 *
 * A backend this build or CPU lacks is skipped with its name. */
#include <criterion/parameterized.h>

static inline struct criterion_test_params t_backend_params(cik_backend first)
{
    static cik_backend list[CIK_BACKEND_COUNT];
    int n = 0;
    for (int b = (int)first; b < CIK_BACKEND_COUNT; ++b) list[n++] = (cik_backend)b;
    return cr_make_param_array(cik_backend, list, (size_t)n);
}

/* Skips a backend that does not run here; names the run in the log. */
static inline void t_backend_enter(cik_backend be)
{
    if (!cik_backend_available(be)) cr_skip_test("%s: not available on this build or CPU", cik_backend_name(be));
    cr_log_info("backend %s", cik_backend_name(be));
}

#define T_BACKEND_TEST_(suite, name, first)                                                                      \
    ParameterizedTestParameters(suite, name) { return t_backend_params(first); }                                \
    static void t_body_##suite##_##name(cik_backend be);                                                        \
    ParameterizedTest(cik_backend *t_be, suite, name)                                                           \
    {                                                                                                           \
        t_backend_enter(*t_be);                                                                                 \
        t_body_##suite##_##name(*t_be);                                                                         \
    }                                                                                                           \
    static void t_body_##suite##_##name(cik_backend be)
#define T_BACKEND_TEST(suite, name) T_BACKEND_TEST_(suite, name, CIK_BACKEND_REFERENCE)
#define T_KERNEL_TEST(suite, name) T_BACKEND_TEST_(suite, name, CIK_BACKEND_SCALAR)

static inline cik_vec3 t_v3(float x, float y, float z)
{
    cik_vec3 v = {x, y, z};
    return v;
}

static inline cik_quat t_q(float x, float y, float z, float w)
{
    cik_quat q = {x, y, z, w};
    return q;
}

static inline cik_quat t_qid(void) { return t_q(0, 0, 0, 1); }

/* angle-axis in double, rounded to float once (axis need not be unit). */
static inline cik_quat t_angle_axis(double angle, double x, double y, double z)
{
    double n = sqrt(x * x + y * y + z * z);
    double s = sin(0.5 * angle) / n;
    return t_q((float)(x * s), (float)(y * s), (float)(z * s), (float)cos(0.5 * angle));
}

/* A chain with identity rotations, no limits, root at the origin. */
static inline cik_chain t_chain(int joints)
{
    cik_chain c;
    memset(&c, 0, sizeof c);
    c.joint_count = joints;
    c.root_rotation = t_qid();
    for (int j = 0; j < CIK_MAX_JOINTS; ++j) c.rotation[j] = t_qid();
    return c;
}

static inline double t_len3(cik_vec3 v)
{
    return sqrt((double)v.x * v.x + (double)v.y * v.y + (double)v.z * v.z);
}

static inline double t_dist(cik_vec3 a, cik_vec3 b)
{
    double dx = (double)a.x - b.x, dy = (double)a.y - b.y, dz = (double)a.z - b.z;
    return sqrt(dx * dx + dy * dy + dz * dz);
}

static inline double t_qlen(cik_quat q)
{
    return sqrt((double)q.x * q.x + (double)q.y * q.y + (double)q.z * q.z + (double)q.w * q.w);
}

/* SPEC reach: sum_{j>=1} |o[j]| + |e|. */
static inline double t_reach(const cik_chain *c)
{
    double r = t_len3(c->effector);
    for (int j = 1; j < c->joint_count; ++j) r += t_len3(c->offset[j]);
    return r;
}

static inline int t_quat_finite(cik_quat q)
{
    return isfinite(q.x) && isfinite(q.y) && isfinite(q.z) && isfinite(q.w);
}

/* Angle (radians) of a rotation about a unit axis: 2 atan2(q.xyz . axis, q.w)
 * after making w >= 0. */
static inline double t_angle_about(cik_quat q, cik_vec3 axis)
{
    double s = (double)q.x * axis.x + (double)q.y * axis.y + (double)q.z * axis.z, w = q.w;
    if (w < 0) {
        s = -s;
        w = -w;
    }
    return 2.0 * atan2(s, w);
}

/* An angle lies in [lo - tol, hi + tol] modulo 2 pi (q and -q are one rotation). */
static inline int t_angle_in(double a, double lo, double hi, double tol)
{
    for (int k = -1; k <= 1; ++k) {
        double b = a + 2.0 * M_PI * k;
        if (b >= lo - tol && b <= hi + tol) return 1;
    }
    return 0;
}

/* SPEC swing-twist decomposition of q (made w >= 0) about a unit axis:
 * twist angle and swing angle. */
static inline void t_swing_twist(cik_quat q, cik_vec3 axis, double *twist_angle, double *swing_angle)
{
    double x = q.x, y = q.y, z = q.z, w = q.w;
    if (w < 0) {
        x = -x;
        y = -y;
        z = -z;
        w = -w;
    }
    double ax = axis.x, ay = axis.y, az = axis.z;
    double s = x * ax + y * ay + z * az;
    double tx = ax * s, ty = ay * s, tz = az * s, tw = w;
    double tn = sqrt(tx * tx + ty * ty + tz * tz + tw * tw);
    if (tn > 0) {
        tx /= tn;
        ty /= tn;
        tz /= tn;
        tw /= tn;
    } else {
        tx = ty = tz = 0;
        tw = 1;
    }
    /* swing = q * conj(twist) */
    double cx = -tx, cy = -ty, cz = -tz, cw = tw;
    double sx = w * cx + x * cw + y * cz - z * cy;
    double sy = w * cy - x * cz + y * cw + z * cx;
    double sz = w * cz + x * cy - y * cx + z * cw;
    double sw = w * cw - x * cx - y * cy - z * cz;
    *twist_angle = 2.0 * atan2(tx * ax + ty * ay + tz * az, tw);
    *swing_angle = 2.0 * atan2(sqrt(sx * sx + sy * sy + sz * sz), fabs(sw));
}

/* A batch of `n` chains of workload `kind` (chain i = wl_chain(kind, seed, i)). */
static inline cik_batch *t_workload_batch(wl_kind kind, uint64_t seed, int n, int joints)
{
    cik_batch *b = NULL;
    cr_assert_eq(cik_batch_create(n, wl_joint_count(kind, joints), &b), CIK_OK);
    cr_assert_eq(wl_fill(b, kind, seed, 0), CIK_OK, "wl_fill %s J=%d", wl_name(kind), joints);
    return b;
}

static inline cik_options t_options(cik_backend backend, int threads)
{
    cik_options o = cik_default_options();
    o.backend = backend;
    o.threads = threads;
    return o;
}

/* Plain CCD exactly as the solver semantics describe it: every convergence
 * option zero. */
static inline cik_options t_plain_options(cik_backend backend, int threads)
{
    cik_options o = cik_plain_options();
    o.backend = backend;
    o.threads = threads;
    return o;
}

/* One chain solved alone with the options o: its result, the solved chain,
 * its joints' positions and its effector. */
typedef struct t_solved {
    cik_result r;
    cik_chain c;
    cik_vec3 p[CIK_MAX_JOINTS];
    cik_vec3 e;
} t_solved;

static inline t_solved t_solve_chain(const cik_chain *c, const cik_options *o)
{
    t_solved s;
    cik_batch *b = NULL;
    cr_assert_eq(cik_batch_create(1, c->joint_count, &b), CIK_OK);
    cr_assert_eq(cik_batch_set_chain(b, 0, c), CIK_OK);
    cr_assert_eq(cik_solve(b, o), CIK_OK, "%s", cik_backend_name(o->backend));
    cr_assert_eq(cik_batch_result(b, 0, &s.r), CIK_OK);
    cr_assert_eq(cik_batch_get_chain(b, 0, &s.c), CIK_OK);
    cr_assert_eq(cik_batch_forward(b, 0, s.p, &s.e), CIK_OK);
    cik_batch_destroy(b);
    return s;
}

/* Agreement between backends (docs/solver.md): `ref` solved on the
 * reference and `got` on backend `be`, both with the options o otherwise. */
static inline void t_solve_pair(cik_batch *ref, cik_batch *got, cik_options o, cik_backend be)
{
    o.backend = CIK_BACKEND_REFERENCE;
    cr_assert_eq(cik_solve(ref, &o), CIK_OK);
    o.backend = be;
    cr_assert_eq(cik_solve(got, &o), CIK_OK, "%s", cik_backend_name(be));
}

/* How far chain i's effector in `got` lies from its effector in `ref`,
 * relative to the chain's scale (docs/solver.md): the larger of 1, its
 * reach and the magnitude of its coordinates in `ref`, those of every joint
 * and the effector (every_joint) or of the root and the effector (float
 * positions carry a relative error). */
static inline double t_effector_gap(const cik_batch *ref, const cik_batch *got, int i, int every_joint)
{
    cik_vec3 er, eg, p[CIK_MAX_JOINTS];
    cik_chain c;
    cr_assert_eq(cik_batch_get_chain(ref, i, &c), CIK_OK);
    cr_assert_eq(cik_batch_forward(ref, i, p, &er), CIK_OK);
    cr_assert_eq(cik_batch_forward(got, i, NULL, &eg), CIK_OK);
    const int points = every_joint ? c.joint_count : 1;
    if (!every_joint) p[0] = c.root_position;
    double scale = t_reach(&c) > 1 ? t_reach(&c) : 1;
    for (int j = 0; j <= points; ++j) {
        cik_vec3 v = j < points ? p[j] : er;
        double m = fmax(fabs(v.x), fmax(fabs(v.y), fabs(v.z)));
        scale = m > scale ? m : scale;
    }
    return t_dist(er, eg) / scale;
}

/* Chain i took as many passes in both batches and has the same converged
 * flag (only CONVERGED: UNREACHABLE is a coin toss for a target exactly at
 * the reach). */
static inline int t_same_passes(const cik_batch *ref, const cik_batch *got, int i)
{
    cik_result rr, rg;
    cr_assert_eq(cik_batch_result(ref, i, &rr), CIK_OK);
    cr_assert_eq(cik_batch_result(got, i, &rg), CIK_OK);
    return rr.iterations == rg.iterations && (rr.flags & CIK_RESULT_CONVERGED) == (rg.flags & CIK_RESULT_CONVERGED);
}

/* The chains of an agreement check: t_workload_batch(kind, seed, n,
 * joints), then folded by wl_fold_batch(b, fold_seed, 0) where fold_seed
 * is not 0. */
typedef struct t_chains {
    wl_kind kind;
    uint64_t seed;
    int n, joints;
    uint64_t fold_seed;
} t_chains;

typedef struct t_agreement {
    long chains, over; /* after one pass: chains, effectors over 1e-5 of the scale apart */
    double worst;      /* after one pass: the largest gap (NaN where one was NaN) */
    long total, same;  /* after ten passes: chains, with the same passes and converged flag */
} t_agreement;

/* Adds to *a how backend `be` agrees with the reference on the chains `w`
 * with the options o (docs/solver.md, "Agreement between backends"): after
 * one pass the effectors (t_effector_gap, the scale from every joint or
 * from the root), after ten the passes (t_same_passes). */
static inline void t_agree(t_agreement *a, t_chains w, cik_options o, cik_backend be, int every_joint)
{
    for (int passes = 1; passes <= 10; passes += 9) {
        cik_batch *ref = t_workload_batch(w.kind, w.seed, w.n, w.joints);
        cik_batch *got = t_workload_batch(w.kind, w.seed, w.n, w.joints);
        if (w.fold_seed) {
            cr_assert_eq(wl_fold_batch(ref, w.fold_seed, 0), CIK_OK);
            cr_assert_eq(wl_fold_batch(got, w.fold_seed, 0), CIK_OK);
        }
        o.max_iterations = passes;
        t_solve_pair(ref, got, o, be);
        for (int i = 0; i < w.n; ++i) {
            if (passes == 1) {
                double d = t_effector_gap(ref, got, i, every_joint);
                a->over += d > 1e-5;
                if (isnan(d) || d > a->worst) a->worst = d;
                ++a->chains;
            } else {
                a->same += t_same_passes(ref, got, i);
                ++a->total;
            }
        }
        cik_batch_destroy(ref);
        cik_batch_destroy(got);
    }
}

/* Every rotation and result of a batch, for bitwise comparison. */
/* The chains of the sign tests: an unlimited one-joint chain whose solution
 * has w < 0 (reached by turning on past a half turn, to 3.383 rad), and the
 * same chain with a hinge limit, started from the identity. */
static inline void t_sign_pair(cik_chain *free_chain, cik_chain *limited)
{
    *free_chain = t_chain(1);
    free_chain->effector = t_v3(1, 0, 0);
    free_chain->rotation[0] = t_angle_axis(2.5, 0, 0, 1);
    free_chain->target = t_v3((float)cos(-2.9), (float)sin(-2.9), 0);
    *limited = *free_chain;
    limited->limit[0].type = CIK_LIMIT_HINGE;
    limited->limit[0].axis = t_v3(0, 0, 1);
    limited->limit[0].min_angle = -1.0f;
    limited->limit[0].max_angle = 1.0f;
    limited->rotation[0] = t_qid();
}

typedef struct t_solution {
    int n, joints;
    cik_quat *rot; /* n * joints */
    cik_result *res;
} t_solution;

static inline t_solution t_capture(const cik_batch *b)
{
    t_solution s;
    s.n = cik_batch_chain_count(b);
    s.joints = cik_batch_joint_count(b);
    s.rot = (cik_quat *)calloc((size_t)s.n * (size_t)s.joints + 1, sizeof(cik_quat));
    s.res = (cik_result *)calloc((size_t)s.n + 1, sizeof(cik_result));
    cr_assert(s.rot && s.res);
    for (int i = 0; i < s.n; ++i) {
        for (int j = 0; j < s.joints; ++j)
            cr_assert_eq(cik_batch_get_rotation(b, i, j, &s.rot[(size_t)i * s.joints + j]), CIK_OK);
        cr_assert_eq(cik_batch_result(b, i, &s.res[i]), CIK_OK);
    }
    return s;
}

static inline void t_release(t_solution *s)
{
    free(s->rot);
    free(s->res);
    s->rot = NULL;
    s->res = NULL;
}

/* Chain i of `a` and chain k of `b` have bitwise identical rotations and results. */
static inline int t_same_chain(const t_solution *a, int i, const t_solution *b, int k)
{
    if (a->joints != b->joints) return 0;
    if (memcmp(&a->rot[(size_t)i * a->joints], &b->rot[(size_t)k * b->joints],
               sizeof(cik_quat) * (size_t)a->joints) != 0)
        return 0;
    return memcmp(&a->res[i], &b->res[k], sizeof(cik_result)) == 0;
}

#endif
