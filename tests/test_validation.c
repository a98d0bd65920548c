/*
 * Every refused input returns its status and leaves the batch exactly as it
 * was: every chain as cik_batch_get_chain reads it, every result and every
 * value the bulk streams expose, compared byte for byte.
 */
#include "common.h"

#include <float.h>
#include <limits.h>

#define N 5
#define J 3

typedef struct snapshot {
    cik_chain chain[N];
    cik_result result[N];
    float streams[N * (10 + 4 * J)];
} snapshot;

static void take(cik_batch *b, snapshot *s)
{
    memset(s, 0, sizeof *s);
    for (int i = 0; i < N; ++i) {
        cr_assert_eq(cik_batch_get_chain(b, i, &s->chain[i]), CIK_OK);
        cr_assert_eq(cik_batch_result(b, i, &s->result[i]), CIK_OK);
    }
    cik_streams st;
    cr_assert_eq(cik_batch_streams(b, &st), CIK_OK);
    cr_assert_eq(st.chain_count, N);
    cr_assert_eq(st.joint_count, J);
    const float *p[10 + 4 * J] = {st.target_x,        st.target_y,        st.target_z,        st.root_position_x,
                                  st.root_position_y, st.root_position_z, st.root_rotation_x, st.root_rotation_y,
                                  st.root_rotation_z, st.root_rotation_w};
    for (int j = 0; j < J; ++j) {
        p[10 + 4 * j] = st.rotation_x[j];
        p[11 + 4 * j] = st.rotation_y[j];
        p[12 + 4 * j] = st.rotation_z[j];
        p[13 + 4 * j] = st.rotation_w[j];
    }
    for (int k = 0; k < 10 + 4 * J; ++k) {
        cr_assert_not_null(p[k]);
        cr_assert_eq((uintptr_t)p[k] % 64, 0, "stream %d not 64-byte aligned", k);
        memcpy(&s->streams[k * N], p[k], N * sizeof(float));
    }
    for (int j = J; j < CIK_MAX_JOINTS; ++j) cr_assert_null(st.rotation_x[j]);
}

/* A batch of legs, solved once so that results are not all zero. */
static cik_batch *make_batch(snapshot *s)
{
    cik_batch *b = t_workload_batch(WL_LEGS, 5, N, J);
    cik_options o = t_options(CIK_BACKEND_REFERENCE, 1);
    o.max_iterations = 2;
    cr_assert_eq(cik_solve(b, &o), CIK_OK);
    /* move the targets so a further solve would change things */
    for (int i = 0; i < N; ++i) {
        cik_chain c;
        cr_assert_eq(cik_batch_get_chain(b, i, &c), CIK_OK);
        c.target.y += 0.05f;
        cr_assert_eq(cik_batch_set_target(b, i, c.target), CIK_OK);
    }
    take(b, s);
    return b;
}

static void expect_unchanged(cik_batch *b, const snapshot *before, const char *what)
{
    snapshot after;
    take(b, &after);
    cr_assert_eq(memcmp(before, &after, sizeof after), 0, "%s changed the batch", what);
}

#define REFUSE(b, snap, call, status)                                                                        \
    do {                                                                                                      \
        cik_status st_ = (call);                                                                              \
        cr_assert_eq(st_, (status), "%s: got %d (%s), expected %d", #call, (int)st_, cik_status_string(st_), \
                     (int)(status));                                                                          \
        expect_unchanged((b), (snap), #call);                                                                 \
    } while (0)

Test(validation, null_pointers_and_indices)
{
    snapshot s;
    cik_batch *b = make_batch(&s);
    cik_chain c = s.chain[1];
    cik_chain out;
    cik_result r;
    cik_quat q = t_qid();
    cik_vec3 v = t_v3(0, 0, 0);
    cik_streams st;

    REFUSE(b, &s, cik_batch_set_chain(NULL, 0, &c), CIK_ERROR_ARGUMENT);
    REFUSE(b, &s, cik_batch_set_chain(b, 0, NULL), CIK_ERROR_ARGUMENT);
    REFUSE(b, &s, cik_batch_get_chain(NULL, 0, &out), CIK_ERROR_ARGUMENT);
    REFUSE(b, &s, cik_batch_get_chain(b, 0, NULL), CIK_ERROR_ARGUMENT);
    REFUSE(b, &s, cik_batch_result(NULL, 0, &r), CIK_ERROR_ARGUMENT);
    REFUSE(b, &s, cik_batch_result(b, 0, NULL), CIK_ERROR_ARGUMENT);
    REFUSE(b, &s, cik_batch_streams(NULL, &st), CIK_ERROR_ARGUMENT);
    REFUSE(b, &s, cik_batch_streams(b, NULL), CIK_ERROR_ARGUMENT);
    REFUSE(b, &s, cik_batch_set_target(NULL, 0, v), CIK_ERROR_ARGUMENT);
    REFUSE(b, &s, cik_batch_set_root(NULL, 0, v, q), CIK_ERROR_ARGUMENT);
    REFUSE(b, &s, cik_batch_set_rotation(NULL, 0, 0, q), CIK_ERROR_ARGUMENT);
    REFUSE(b, &s, cik_batch_get_rotation(NULL, 0, 0, &q), CIK_ERROR_ARGUMENT);
    REFUSE(b, &s, cik_batch_get_rotation(b, 0, 0, NULL), CIK_ERROR_ARGUMENT);
    REFUSE(b, &s, cik_batch_forward(NULL, 0, NULL, &v), CIK_ERROR_ARGUMENT);
    REFUSE(b, &s, cik_solve(NULL, NULL), CIK_ERROR_ARGUMENT);

    const int bad_index[] = {-1, N, N + 1, INT_MAX, INT_MIN};
    for (int k = 0; k < 5; ++k) {
        int i = bad_index[k];
        REFUSE(b, &s, cik_batch_set_chain(b, i, &c), CIK_ERROR_ARGUMENT);
        REFUSE(b, &s, cik_batch_get_chain(b, i, &out), CIK_ERROR_ARGUMENT);
        REFUSE(b, &s, cik_batch_result(b, i, &r), CIK_ERROR_ARGUMENT);
        REFUSE(b, &s, cik_batch_set_target(b, i, v), CIK_ERROR_ARGUMENT);
        REFUSE(b, &s, cik_batch_set_root(b, i, v, q), CIK_ERROR_ARGUMENT);
        REFUSE(b, &s, cik_batch_set_rotation(b, i, 0, q), CIK_ERROR_ARGUMENT);
        REFUSE(b, &s, cik_batch_get_rotation(b, i, 0, &q), CIK_ERROR_ARGUMENT);
        REFUSE(b, &s, cik_batch_forward(b, i, NULL, &v), CIK_ERROR_ARGUMENT);
    }
    const int bad_joint[] = {-1, J, CIK_MAX_JOINTS, INT_MAX, INT_MIN};
    for (int k = 0; k < 5; ++k) {
        REFUSE(b, &s, cik_batch_set_rotation(b, 1, bad_joint[k], q), CIK_ERROR_ARGUMENT);
        REFUSE(b, &s, cik_batch_get_rotation(b, 1, bad_joint[k], &q), CIK_ERROR_ARGUMENT);
    }
    /* joint count mismatch */
    const int bad_count[] = {J - 1, J + 1, 0, -1, CIK_MAX_JOINTS + 1};
    for (int k = 0; k < 5; ++k) {
        cik_chain m = c;
        m.joint_count = bad_count[k];
        REFUSE(b, &s, cik_batch_set_chain(b, 1, &m), CIK_ERROR_ARGUMENT);
    }
    cik_batch_destroy(b);
}

/* Every float of a chain that set_chain validates as finite-or-refused:
 * pointers into `c` and a name. */
typedef struct field {
    float *p;
    char name[48];
} field;

static int chain_fields(cik_chain *c, field *f)
{
    int n = 0;
#define ADD(ptr, fmt, ...)                                   \
    do {                                                     \
        f[n].p = (ptr);                                      \
        snprintf(f[n].name, sizeof f[n].name, fmt, __VA_ARGS__); \
        ++n;                                                 \
    } while (0)
    for (int k = 0; k < 3; ++k) ADD(&c->root_position.x + k, "root_position[%d]", k);
    for (int k = 0; k < 4; ++k) ADD(&c->root_rotation.x + k, "root_rotation[%d]", k);
    for (int j = 0; j < J; ++j) {
        for (int k = 0; k < 3; ++k) ADD(&c->offset[j].x + k, "offset[%d][%d]", j, k);
        for (int k = 0; k < 4; ++k) ADD(&c->rotation[j].x + k, "rotation[%d][%d]", j, k);
        for (int k = 0; k < 3; ++k) ADD(&c->limit[j].axis.x + k, "limit[%d].axis[%d]", j, k);
        ADD(&c->limit[j].min_angle, "limit[%d].min_angle", j);
        ADD(&c->limit[j].max_angle, "limit[%d].max_angle", j);
        ADD(&c->limit[j].swing_max, "limit[%d].swing_max", j);
    }
    for (int k = 0; k < 3; ++k) ADD(&c->effector.x + k, "effector[%d]", k);
    for (int k = 0; k < 3; ++k) ADD(&c->target.x + k, "target[%d]", k);
#undef ADD
    return n;
}

Test(validation, non_finite_in_every_field)
{
    snapshot s;
    cik_batch *b = make_batch(&s);
    const float bad[] = {NAN, INFINITY, -INFINITY};
    field f[128];
    cik_chain c = s.chain[2];
    int n = chain_fields(&c, f);
    cr_assert_eq(n, 13 + 13 * J, "field count");
    for (int k = 0; k < n; ++k) {
        for (int v = 0; v < 3; ++v) {
            float keep = *f[k].p;
            *f[k].p = bad[v];
            cik_status st = cik_batch_set_chain(b, 2, &c);
            cr_assert_eq(st, CIK_ERROR_NON_FINITE, "%s = %g: status %d", f[k].name, bad[v], (int)st);
            expect_unchanged(b, &s, f[k].name);
            *f[k].p = keep;
        }
    }
    /* the chain itself is fine */
    cr_assert_eq(cik_batch_set_chain(b, 2, &c), CIK_OK);
    cik_batch_destroy(b);
}

Test(validation, bad_limits)
{
    snapshot s;
    cik_batch *b = make_batch(&s);
    const cik_chain good = s.chain[3];
    /* legs: joint 0 swing-twist, joint 1 hinge, joint 2 swing-twist */
    cr_assert_eq(good.limit[0].type, CIK_LIMIT_SWING_TWIST);
    cr_assert_eq(good.limit[1].type, CIK_LIMIT_HINGE);
    for (int j = 0; j < J; ++j) {
        cik_chain c = good;
        const int types[] = {3, 7, -1, 100};
        for (int k = 0; k < 4; ++k) {
            c = good;
            c.limit[j].type = (cik_limit_type)types[k];
            REFUSE(b, &s, cik_batch_set_chain(b, 3, &c), CIK_ERROR_LIMIT);
        }
        for (int type = CIK_LIMIT_HINGE; type <= CIK_LIMIT_SWING_TWIST; ++type) {
            cik_chain base = good;
            base.limit[j].type = (cik_limit_type)type;
            base.limit[j].axis = t_v3(0, 1, 0);
            base.limit[j].min_angle = -0.5f;
            base.limit[j].max_angle = 0.5f;
            base.limit[j].swing_max = 1.0f;
            base.rotation[j] = t_qid();
            c = base;
            c.limit[j].axis = t_v3(0, 0, 0);
            REFUSE(b, &s, cik_batch_set_chain(b, 3, &c), CIK_ERROR_LIMIT);
            c = base;
            c.limit[j].min_angle = 0.6f;
            REFUSE(b, &s, cik_batch_set_chain(b, 3, &c), CIK_ERROR_LIMIT);
            const float out_of_range[] = {-3.2f, 3.2f, -4.0f, 7.0f, -FLT_MAX};
            for (int k = 0; k < 5; ++k) {
                c = base;
                if (out_of_range[k] < 0)
                    c.limit[j].min_angle = out_of_range[k];
                else
                    c.limit[j].max_angle = out_of_range[k];
                REFUSE(b, &s, cik_batch_set_chain(b, 3, &c), CIK_ERROR_LIMIT);
            }
            if (type == CIK_LIMIT_SWING_TWIST) {
                const float swings[] = {-0.01f, -1.0f, 3.15f, 4.0f};
                for (int k = 0; k < 4; ++k) {
                    c = base;
                    c.limit[j].swing_max = swings[k];
                    REFUSE(b, &s, cik_batch_set_chain(b, 3, &c), CIK_ERROR_LIMIT);
                }
            }
            /* the edges are accepted: +-pi as floats, min == max, swing 0 and pi */
            c = base;
            c.limit[j].min_angle = -(float)M_PI;
            c.limit[j].max_angle = (float)M_PI;
            c.limit[j].swing_max = (float)M_PI;
            cr_assert_eq(cik_batch_set_chain(b, 3, &c), CIK_OK, "type %d +-pi", type);
            c.limit[j].min_angle = c.limit[j].max_angle = 0.25f;
            c.limit[j].swing_max = 0.0f;
            c.limit[j].axis = t_v3(0, 3, 4); /* normalised when set */
            cr_assert_eq(cik_batch_set_chain(b, 3, &c), CIK_OK, "type %d min == max", type);
            cik_chain back;
            cr_assert_eq(cik_batch_get_chain(b, 3, &back), CIK_OK);
            cr_assert(fabs(back.limit[j].axis.y - 0.6) < 1e-6 && fabs(back.limit[j].axis.z - 0.8) < 1e-6,
                      "axis not normalised");
            cr_assert_eq(cik_batch_set_chain(b, 3, &good), CIK_OK);
            take(b, &s);
        }
    }
    cik_batch_destroy(b);
}

Test(validation, quaternion_length)
{
    snapshot s;
    cik_batch *b = make_batch(&s);
    const cik_chain good = s.chain[0];
    const float far[] = {2.0f, 0.5f, 0.0f, 1.02f, 0.98f};
    for (int k = 0; k < 5; ++k) {
        cik_quat q = t_q(0, 0, 0, far[k]);
        cik_chain c = good;
        c.root_rotation = q;
        REFUSE(b, &s, cik_batch_set_chain(b, 0, &c), CIK_ERROR_NOT_UNIT);
        for (int j = 0; j < J; ++j) {
            c = good;
            c.rotation[j] = t_q(far[k] * 0.6f, 0, far[k] * 0.8f, 0);
            REFUSE(b, &s, cik_batch_set_chain(b, 0, &c), CIK_ERROR_NOT_UNIT);
            REFUSE(b, &s, cik_batch_set_rotation(b, 0, j, c.rotation[j]), CIK_ERROR_NOT_UNIT);
        }
        REFUSE(b, &s, cik_batch_set_root(b, 0, t_v3(1, 2, 3), q), CIK_ERROR_NOT_UNIT);
    }
    /* near-unit quaternions are accepted and normalised */
    const float near_unit[] = {1.001f, 0.999f, 1.009f};
    for (int k = 0; k < 3; ++k) {
        float m = near_unit[k];
        cik_chain c = good;
        c.root_rotation = t_q(0.6f * m, 0, 0, 0.8f * m);
        c.rotation[1] = t_q(0, 0.8f * m, 0, 0.6f * m);
        cr_assert_eq(cik_batch_set_chain(b, 0, &c), CIK_OK, "length %g", m);
        cik_chain back;
        cr_assert_eq(cik_batch_get_chain(b, 0, &back), CIK_OK);
        cr_assert(fabs(t_qlen(back.root_rotation) - 1.0) < 1e-6, "root |q| %.9g", t_qlen(back.root_rotation));
        cr_assert(fabs(back.root_rotation.x - 0.6) < 1e-6 && fabs(back.root_rotation.w - 0.8) < 1e-6);
        cr_assert(fabs(t_qlen(back.rotation[1]) - 1.0) < 1e-6);
        cr_assert_eq(cik_batch_set_rotation(b, 0, 2, t_q(0, 0, 0, m)), CIK_OK);
        cik_quat q;
        cr_assert_eq(cik_batch_get_rotation(b, 0, 2, &q), CIK_OK);
        cr_assert_eq(q.w, 1.0f, "set_rotation normalises");
        cr_assert_eq(cik_batch_set_root(b, 0, t_v3(0, 0, 0), t_q(0, 0, 0, m)), CIK_OK);
        cr_assert_eq(cik_batch_get_chain(b, 0, &back), CIK_OK);
        cr_assert_eq(back.root_rotation.w, 1.0f, "set_root normalises");
    }
    cik_batch_destroy(b);
}

Test(validation, setters_refuse_non_finite)
{
    snapshot s;
    cik_batch *b = make_batch(&s);
    const float bad[] = {NAN, INFINITY, -INFINITY};
    for (int v = 0; v < 3; ++v) {
        for (int k = 0; k < 3; ++k) {
            cik_vec3 p = t_v3(0.1f, 0.2f, 0.3f);
            (&p.x)[k] = bad[v];
            REFUSE(b, &s, cik_batch_set_target(b, 1, p), CIK_ERROR_NON_FINITE);
            REFUSE(b, &s, cik_batch_set_root(b, 1, p, t_qid()), CIK_ERROR_NON_FINITE);
        }
        for (int k = 0; k < 4; ++k) {
            cik_quat q = t_qid();
            (&q.x)[k] = bad[v];
            REFUSE(b, &s, cik_batch_set_root(b, 1, t_v3(0, 0, 0), q), CIK_ERROR_NON_FINITE);
            REFUSE(b, &s, cik_batch_set_rotation(b, 1, 1, q), CIK_ERROR_NON_FINITE);
        }
    }
    /* and accept finite values, writing exactly what was given */
    cr_assert_eq(cik_batch_set_target(b, 1, t_v3(0.1f, -0.2f, 0.3f)), CIK_OK);
    cik_chain back;
    cr_assert_eq(cik_batch_get_chain(b, 1, &back), CIK_OK);
    cr_assert(back.target.x == 0.1f && back.target.y == -0.2f && back.target.z == 0.3f);
    cik_batch_destroy(b);
}

Test(validation, solve_options)
{
    snapshot s;
    cik_batch *b = make_batch(&s);
    const float thresholds[] = {0.0f, -0.0f, -1e-3f, NAN, INFINITY, -INFINITY};
    for (int k = 0; k < 6; ++k) {
        for (int be = 0; be < CIK_BACKEND_COUNT; ++be) {
            cik_options o = t_options((cik_backend)be, 1);
            o.threshold = thresholds[k];
            REFUSE(b, &s, cik_solve(b, &o), CIK_ERROR_OPTIONS);
        }
    }
    const int iters[] = {-1, INT_MIN};
    for (int k = 0; k < 2; ++k) {
        cik_options o = t_options(CIK_BACKEND_AUTO, 1);
        o.max_iterations = iters[k];
        REFUSE(b, &s, cik_solve(b, &o), CIK_ERROR_OPTIONS);
    }
    {
        cik_options o = t_options(CIK_BACKEND_AUTO, -1);
        REFUSE(b, &s, cik_solve(b, &o), CIK_ERROR_OPTIONS);
        o.threads = INT_MIN;
        REFUSE(b, &s, cik_solve(b, &o), CIK_ERROR_OPTIONS);
    }
    const int backends[] = {CIK_BACKEND_COUNT, 99, -1};
    for (int k = 0; k < 3; ++k) {
        cik_options o = t_options((cik_backend)backends[k], 1);
        REFUSE(b, &s, cik_solve(b, &o), CIK_ERROR_BACKEND_UNAVAILABLE);
    }
    for (int be = 0; be < CIK_BACKEND_COUNT; ++be) {
        if (cik_backend_available((cik_backend)be)) continue;
        cik_options o = t_options((cik_backend)be, 1);
        REFUSE(b, &s, cik_solve(b, &o), CIK_ERROR_BACKEND_UNAVAILABLE);
    }
    cik_batch_destroy(b);
}

/* max_iterations 0 is accepted: no pass runs, the pose stays, results are
 * recorded. */
T_BACKEND_TEST(validation, zero_passes_keep_the_pose)
{
    snapshot s;
    cik_batch *b = make_batch(&s);
    cik_options o = t_options(be, 1);
    o.max_iterations = 0;
    cr_assert_eq(cik_solve(b, &o), CIK_OK);
    snapshot after;
    take(b, &after);
    cr_assert_eq(memcmp(after.chain, s.chain, sizeof s.chain), 0, "%s: pose changed with 0 passes",
                 cik_backend_name(be));
    for (int i = 0; i < N; ++i) {
        cik_vec3 e;
        cr_assert_eq(cik_batch_forward(b, i, NULL, &e), CIK_OK);
        cr_assert_eq(after.result[i].iterations, 0);
        cr_assert(fabs(after.result[i].error - t_dist(e, s.chain[i].target)) < 1e-5);
        cr_assert_eq((after.result[i].flags & CIK_RESULT_CONVERGED) != 0, after.result[i].error < o.threshold);
    }
    cik_batch_destroy(b);
}
