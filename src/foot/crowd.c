/* The crowd foot-placement pipeline (include/crowdik/foot.h, docs/foot.md). */
#include "crowdik/foot.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef CIK_HAVE_OPENMP
#include <omp.h>
#endif

#include "foot_math.h"

/* Per-character float streams, then per-foot ones (internal ones last). */
enum { C_PX, C_PY, C_PZ, C_QX, C_QY, C_QZ, C_QW, C_DROP, C_STATE, C_COUNT };
enum {
    F_POSE = 0, /* 12: x[3] y[3] z[3] w[3] */
    F_WEIGHT = 12,
    F_AAX, F_AAY, F_AAZ,
    F_PROBEX, F_PROBEZ,
    F_CY, F_CNX, F_CNY, F_CNZ,
    F_TX, F_TY, F_TZ,
    F_AX, F_AY, F_AZ,
    F_FQX, F_FQY, F_FQZ, F_FQW,
    F_AFX, F_AFY, F_AFZ, F_AFW, /* animated foot world rotation */
    F_DFX, F_DFY, F_DFZ, F_DFW, /* desired foot world rotation */
    F_COUNT
};

struct cik_foot_crowd {
    int characters, feet;
    int primed;
    cik_batch *batch;
    cik_streams bs;
    cik_foot_leg *legs; /* per foot, axes and sole normal normalised */
    float *reach;       /* per foot: |thigh| + |shin| */
    void *block;
    float *c[C_COUNT];
    float *f[F_COUNT];
};

cik_foot_options cik_foot_default_options(void)
{
    cik_foot_options o;
    memset(&o, 0, sizeof o);
    o.solver = cik_default_options();
    o.solver.threshold = 2e-4f;
    o.solver.max_iterations = 16;
    o.dt = 1.0f / 60.0f;
    o.max_pelvis_drop = 0.3f;
    o.pelvis_drop_speed = 2.5f;
    o.pelvis_rise_time = 0.12f;
    o.reach_margin = 0.002f;
    o.start = CIK_FOOT_START_TWO_BONE;
    return o;
}

static cik_status check_options(const cik_foot_options *o)
{
    if (!(o->solver.threshold > 0.0f) || !isfinite(o->solver.threshold) ||
        o->solver.max_iterations < 0)
        return CIK_ERROR_OPTIONS;
    if (!(o->dt > 0.0f) || !isfinite(o->dt)) return CIK_ERROR_OPTIONS;
    if (!(o->max_pelvis_drop >= 0.0f) || !isfinite(o->max_pelvis_drop)) return CIK_ERROR_OPTIONS;
    if (!(o->pelvis_drop_speed > 0.0f) || !isfinite(o->pelvis_drop_speed)) return CIK_ERROR_OPTIONS;
    if (!(o->pelvis_rise_time >= 0.0f) || !isfinite(o->pelvis_rise_time)) return CIK_ERROR_OPTIONS;
    if (!(o->reach_margin >= 0.0f) || !(o->reach_margin < 0.5f)) return CIK_ERROR_OPTIONS;
    if (o->start < CIK_FOOT_START_ANIMATION || o->start > CIK_FOOT_START_TWO_BONE) return CIK_ERROR_OPTIONS;
    return CIK_OK;
}

static int vec_finite(cik_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

/* ------------------------------------------------------------------------ */
/* Limits, as docs/solver.md                                                */

static float clampf(float x, float lo, float hi) { return x < lo ? lo : (x > hi ? hi : x); }

float cik_foot_limit_excess(const cik_limit *l, cik_quat q)
{
    if (!l || l->type == CIK_LIMIT_NONE) return 0.0f;
    if (q.w < 0.0f) q = fm_q(-q.x, -q.y, -q.z, -q.w);
    cik_vec3 axis = fm_norm(l->axis);
    float s = q.x * axis.x + q.y * axis.y + q.z * axis.z;
    if (l->type == CIK_LIMIT_HINGE) {
        float angle = 2.0f * atan2f(s, q.w);
        cik_vec3 off = fm_sub(fm_v(q.x, q.y, q.z), fm_scale(axis, s));
        float e = 2.0f * asinf(clampf(fm_len(off), 0.0f, 1.0f));
        if (angle > l->max_angle && angle - l->max_angle > e) e = angle - l->max_angle;
        if (angle < l->min_angle && l->min_angle - angle > e) e = l->min_angle - angle;
        return e;
    }
    cik_quat twist = fm_q(axis.x * s, axis.y * s, axis.z * s, q.w);
    float tn = sqrtf(twist.x * twist.x + twist.y * twist.y + twist.z * twist.z + twist.w * twist.w);
    twist = tn > 1e-12f ? fm_q(twist.x / tn, twist.y / tn, twist.z / tn, twist.w / tn)
                        : fm_q(0, 0, 0, 1);
    cik_quat swing = fm_qmul(q, fm_qconj(twist));
    float tangle = 2.0f * atan2f(twist.x * axis.x + twist.y * axis.y + twist.z * axis.z, twist.w);
    float sangle = 2.0f * acosf(clampf(fabsf(swing.w), 0.0f, 1.0f));
    float e = 0.0f;
    if (tangle > l->max_angle) e = tangle - l->max_angle;
    if (tangle < l->min_angle) e = l->min_angle - tangle;
    if (sangle - l->swing_max > e) e = sangle - l->swing_max;
    return e;
}

cik_quat cik_foot_apply_limit(const cik_limit *l, cik_quat q)
{
    if (!l || l->type == CIK_LIMIT_NONE) return q;
    cik_quat in = q;
    if (q.w < 0.0f) q = fm_q(-q.x, -q.y, -q.z, -q.w);
    cik_vec3 axis = fm_norm(l->axis);
    float s = q.x * axis.x + q.y * axis.y + q.z * axis.z;
    if (l->type == CIK_LIMIT_HINGE) {
        float angle = 2.0f * atan2f(s, q.w);
        cik_vec3 off = fm_sub(fm_v(q.x, q.y, q.z), fm_scale(axis, s));
        if (fm_len(off) <= 1e-6f && angle >= l->min_angle && angle <= l->max_angle) return in;
        return fm_angle_axis(clampf(angle, l->min_angle, l->max_angle), axis);
    }
    cik_quat twist = fm_q(axis.x * s, axis.y * s, axis.z * s, q.w);
    float tn = sqrtf(twist.x * twist.x + twist.y * twist.y + twist.z * twist.z + twist.w * twist.w);
    twist = tn > 1e-12f ? fm_q(twist.x / tn, twist.y / tn, twist.z / tn, twist.w / tn)
                        : fm_q(0, 0, 0, 1);
    cik_quat swing = fm_qmul(q, fm_qconj(twist));
    if (swing.w < 0.0f) swing = fm_q(-swing.x, -swing.y, -swing.z, -swing.w);
    float tangle = 2.0f * atan2f(twist.x * axis.x + twist.y * axis.y + twist.z * axis.z, twist.w);
    float sangle = 2.0f * acosf(clampf(swing.w, 0.0f, 1.0f));
    int twist_ok = tangle >= l->min_angle && tangle <= l->max_angle;
    int swing_ok = sangle <= l->swing_max;
    if (twist_ok && swing_ok) return in;
    if (!twist_ok) twist = fm_angle_axis(clampf(tangle, l->min_angle, l->max_angle), axis);
    if (!swing_ok) {
        cik_vec3 sa = fm_v(swing.x, swing.y, swing.z);
        float n = fm_len(sa);
        if (n > 1e-12f) swing = fm_angle_axis(l->swing_max, fm_scale(sa, 1.0f / n));
    }
    return fm_qnorm(fm_qmul(swing, twist));
}

/* ------------------------------------------------------------------------ */
/* Creation                                                                 */

static cik_status leg_chain(const cik_foot_leg *leg, cik_chain *c)
{
    memset(c, 0, sizeof *c);
    c->joint_count = 3;
    c->root_rotation = fm_q(0, 0, 0, 1);
    c->offset[0] = leg->hip;
    c->offset[1] = leg->thigh;
    c->offset[2] = leg->shin;
    for (int j = 0; j < 3; ++j) {
        c->rotation[j] = fm_q(0, 0, 0, 1);
        c->limit[j] = leg->limit[j];
    }
    c->effector = fm_v(0, 0, 0);
    return CIK_OK;
}

static cik_status check_leg(const cik_foot_leg *leg)
{
    if (!leg) return CIK_ERROR_ARGUMENT;
    if (!vec_finite(leg->hip) || !vec_finite(leg->thigh) || !vec_finite(leg->shin) ||
        !vec_finite(leg->sole_normal) || !isfinite(leg->ankle_height))
        return CIK_ERROR_NON_FINITE;
    if (!(leg->ankle_height >= 0.0f) || !(fm_len(leg->sole_normal) > 1e-6f))
        return CIK_ERROR_ARGUMENT;
    return CIK_OK;
}

static cik_status install_legs(cik_foot_crowd *cr, int character, const cik_foot_leg legs[2])
{
    for (int side = 0; side < 2; ++side) {
        cik_status s = check_leg(&legs[side]);
        if (s != CIK_OK) return s;
    }
    /* validate both through the batch before keeping either */
    cik_chain c[2];
    for (int side = 0; side < 2; ++side) {
        leg_chain(&legs[side], &c[side]);
        cik_chain probe;
        cik_status s = cik_batch_get_chain(cr->batch, 2 * character + side, &probe);
        if (s != CIK_OK) return s;
        s = cik_batch_set_chain(cr->batch, 2 * character + side, &c[side]);
        if (s != CIK_OK) {
            if (side == 1) cik_batch_set_chain(cr->batch, 2 * character, &probe);
            return s;
        }
    }
    for (int side = 0; side < 2; ++side) {
        int f = 2 * character + side;
        cik_foot_leg l = legs[side];
        l.sole_normal = fm_norm(l.sole_normal);
        for (int j = 0; j < 3; ++j)
            if (l.limit[j].type != CIK_LIMIT_NONE) l.limit[j].axis = fm_norm(l.limit[j].axis);
        cr->legs[f] = l;
        cr->reach[f] = fm_len(l.thigh) + fm_len(l.shin);
    }
    return CIK_OK;
}

cik_status cik_foot_crowd_create(int character_count, const cik_foot_leg legs[2],
                                 cik_foot_crowd **out)
{
    if (!out || !legs || character_count < 1 || character_count > (1 << 26))
        return CIK_ERROR_ARGUMENT;
    *out = NULL;
    for (int side = 0; side < 2; ++side) {
        cik_status s = check_leg(&legs[side]);
        if (s != CIK_OK) return s;
    }
    cik_foot_crowd *cr = calloc(1, sizeof *cr);
    if (!cr) return CIK_ERROR_OUT_OF_MEMORY;
    cr->characters = character_count;
    cr->feet = 2 * character_count;
    cik_status s = cik_batch_create(cr->feet, 3, &cr->batch);
    if (s != CIK_OK) {
        free(cr);
        return s;
    }
    cik_batch_streams(cr->batch, &cr->bs);
    size_t cstride = ((size_t)cr->characters + 15) & ~(size_t)15; /* 64-byte multiples */
    size_t fstride = ((size_t)cr->feet + 15) & ~(size_t)15;
    size_t floats = cstride * C_COUNT + fstride * F_COUNT;
    cr->block = malloc(floats * sizeof(float) + 64);
    cr->legs = malloc(sizeof(cik_foot_leg) * (size_t)cr->feet);
    cr->reach = malloc(sizeof(float) * (size_t)cr->feet);
    if (!cr->block || !cr->legs || !cr->reach) {
        cik_foot_crowd_destroy(cr);
        return CIK_ERROR_OUT_OF_MEMORY;
    }
    float *p = (float *)(((uintptr_t)cr->block + 63) & ~(uintptr_t)63);
    memset(p, 0, floats * sizeof(float));
    for (int i = 0; i < C_COUNT; ++i, p += cstride) cr->c[i] = p;
    for (int i = 0; i < F_COUNT; ++i, p += fstride) cr->f[i] = p;
    for (int c = 0; c < cr->characters; ++c) {
        cr->c[C_QW][c] = 1.0f;
        s = install_legs(cr, c, legs);
        if (s != CIK_OK) {
            cik_foot_crowd_destroy(cr);
            return s;
        }
    }
    for (int f = 0; f < cr->feet; ++f) {
        cr->f[F_POSE + 9][f] = cr->f[F_POSE + 10][f] = cr->f[F_POSE + 11][f] = 1.0f;
        cr->f[F_WEIGHT][f] = 1.0f;
        cr->f[F_CNY][f] = 1.0f;
        cr->f[F_FQW][f] = cr->f[F_AFW][f] = cr->f[F_DFW][f] = 1.0f;
    }
    *out = cr;
    return CIK_OK;
}

void cik_foot_crowd_destroy(cik_foot_crowd *cr)
{
    if (!cr) return;
    cik_batch_destroy(cr->batch);
    free(cr->block);
    free(cr->legs);
    free(cr->reach);
    free(cr);
}

cik_status cik_foot_crowd_set_legs(cik_foot_crowd *cr, int character, const cik_foot_leg legs[2])
{
    if (!cr || !legs || character < 0 || character >= cr->characters) return CIK_ERROR_ARGUMENT;
    return install_legs(cr, character, legs);
}

cik_status cik_foot_crowd_get_legs(const cik_foot_crowd *cr, int character, cik_foot_leg legs[2])
{
    if (!cr || !legs || character < 0 || character >= cr->characters) return CIK_ERROR_ARGUMENT;
    legs[0] = cr->legs[2 * character];
    legs[1] = cr->legs[2 * character + 1];
    return CIK_OK;
}

int cik_foot_crowd_character_count(const cik_foot_crowd *cr) { return cr ? cr->characters : 0; }

const cik_batch *cik_foot_crowd_batch(const cik_foot_crowd *cr) { return cr ? cr->batch : NULL; }

cik_status cik_foot_crowd_reset(cik_foot_crowd *cr)
{
    if (!cr) return CIK_ERROR_ARGUMENT;
    cr->primed = 0;
    memset(cr->c[C_STATE], 0, sizeof(float) * (size_t)cr->characters);
    return CIK_OK;
}

cik_status cik_foot_crowd_streams(cik_foot_crowd *cr, cik_foot_streams *o)
{
    if (!cr || !o) return CIK_ERROR_ARGUMENT;
    memset(o, 0, sizeof *o);
    o->character_count = cr->characters;
    o->foot_count = cr->feet;
    o->pelvis_x = cr->c[C_PX];
    o->pelvis_y = cr->c[C_PY];
    o->pelvis_z = cr->c[C_PZ];
    o->pelvis_qx = cr->c[C_QX];
    o->pelvis_qy = cr->c[C_QY];
    o->pelvis_qz = cr->c[C_QZ];
    o->pelvis_qw = cr->c[C_QW];
    for (int j = 0; j < 3; ++j) {
        o->pose_x[j] = cr->f[F_POSE + j];
        o->pose_y[j] = cr->f[F_POSE + 3 + j];
        o->pose_z[j] = cr->f[F_POSE + 6 + j];
        o->pose_w[j] = cr->f[F_POSE + 9 + j];
        o->solved_x[j] = cr->bs.rotation_x[j];
        o->solved_y[j] = cr->bs.rotation_y[j];
        o->solved_z[j] = cr->bs.rotation_z[j];
        o->solved_w[j] = cr->bs.rotation_w[j];
    }
    o->weight = cr->f[F_WEIGHT];
    o->anim_ankle_x = cr->f[F_AAX];
    o->anim_ankle_y = cr->f[F_AAY];
    o->anim_ankle_z = cr->f[F_AAZ];
    o->probe_x = cr->f[F_PROBEX];
    o->probe_z = cr->f[F_PROBEZ];
    o->contact_y = cr->f[F_CY];
    o->contact_nx = cr->f[F_CNX];
    o->contact_ny = cr->f[F_CNY];
    o->contact_nz = cr->f[F_CNZ];
    o->pelvis_drop = cr->c[C_DROP];
    o->target_x = cr->f[F_TX];
    o->target_y = cr->f[F_TY];
    o->target_z = cr->f[F_TZ];
    o->ankle_x = cr->f[F_AX];
    o->ankle_y = cr->f[F_AY];
    o->ankle_z = cr->f[F_AZ];
    o->foot_qx = cr->f[F_FQX];
    o->foot_qy = cr->f[F_FQY];
    o->foot_qz = cr->f[F_FQZ];
    o->foot_qw = cr->f[F_FQW];
    return CIK_OK;
}

/* ------------------------------------------------------------------------ */
/* The frame                                                                */

/* Threads for a stage over n feet. With one, a stage runs its loop directly
 * and never enters an OpenMP region: libgomp allocates and frees a team for
 * a region even under if (0) once its pool has more threads, and a frame
 * allocates nothing (tests/test_alloc.c counts). */
static int thread_count(const cik_foot_options *o, int n)
{
#ifdef CIK_HAVE_OPENMP
    if (n < 2048 || (o && o->solver.threads == 1)) return 1;
    return o && o->solver.threads > 0 ? o->solver.threads : omp_get_max_threads();
#else
    (void)o;
    (void)n;
    return 1;
#endif
}


static inline cik_quat pose_q(const cik_foot_crowd *cr, int f, int j)
{
    return fm_q(cr->f[F_POSE + j][f], cr->f[F_POSE + 3 + j][f], cr->f[F_POSE + 6 + j][f],
                cr->f[F_POSE + 9 + j][f]);
}

static inline cik_quat pelvis_q(const cik_foot_crowd *cr, int c)
{
    return fm_qnorm(fm_q(cr->c[C_QX][c], cr->c[C_QY][c], cr->c[C_QZ][c], cr->c[C_QW][c]));
}

/* Stage 1 for foot f. */
static inline void probe_foot(cik_foot_crowd *cr, int f)
{
    int c = f >> 1;
    const cik_foot_leg *leg = &cr->legs[f];
    cik_quat r = pelvis_q(cr, c);
    cik_vec3 p = fm_v(cr->c[C_PX][c], cr->c[C_PY][c], cr->c[C_PZ][c]);
    cik_quat w0 = fm_qmul(r, pose_q(cr, f, 0));
    cik_quat w1 = fm_qmul(w0, pose_q(cr, f, 1));
    cik_quat w2 = fm_qnorm(fm_qmul(w1, pose_q(cr, f, 2)));
    cik_vec3 a = fm_add(fm_add(fm_add(p, fm_rot(r, leg->hip)), fm_rot(w0, leg->thigh)),
                        fm_rot(w1, leg->shin));
    cr->f[F_AAX][f] = a.x;
    cr->f[F_AAY][f] = a.y;
    cr->f[F_AAZ][f] = a.z;
    cr->f[F_PROBEX][f] = a.x;
    cr->f[F_PROBEZ][f] = a.z;
    cr->f[F_AFX][f] = w2.x;
    cr->f[F_AFY][f] = w2.y;
    cr->f[F_AFZ][f] = w2.z;
    cr->f[F_AFW][f] = w2.w;
}

cik_status cik_foot_crowd_probe(cik_foot_crowd *cr)
{
    if (!cr) return CIK_ERROR_ARGUMENT;
    const int n = cr->feet;
    int nt = thread_count(NULL, n);
    if (nt > 1) {
#ifdef CIK_HAVE_OPENMP
#pragma omp parallel for schedule(static) num_threads(nt)
#endif
        for (int f = 0; f < n; ++f) probe_foot(cr, f);
    } else {
        for (int f = 0; f < n; ++f) probe_foot(cr, f);
    }
    return CIK_OK;
}

cik_status cik_foot_crowd_ground_heightfield(cik_foot_crowd *cr, const cik_heightfield *hf)
{
    if (!cr) return CIK_ERROR_ARGUMENT;
    return cik_heightfield_sample_many(hf, cr->feet, cr->f[F_PROBEX], cr->f[F_PROBEZ],
                                       cr->f[F_CY], cr->f[F_CNX], cr->f[F_CNY], cr->f[F_CNZ]);
}


/* Knee hinge angle in [lo, hi] that puts the ankle `dist` from the hip:
 * |t + R(axis, k) s| = dist, i.e. C + A cos k + B sin k = (dist^2 - |t|^2 -
 * |s|^2) / 2. Of the (at most two) solutions, clamped, the one that fits
 * best, nearer the current angle on a tie. */
static float knee_for_distance(const cik_foot_leg *leg, float dist, float current)
{
    const cik_limit *l = &leg->limit[1];
    cik_vec3 a = l->axis, t = leg->thigh, sv = leg->shin;
    cik_vec3 spar = fm_scale(a, fm_dot(a, sv));
    cik_vec3 sperp = fm_sub(sv, spar);
    float C = fm_dot(t, spar), A = fm_dot(t, sperp), B = fm_dot(t, fm_cross(a, sperp));
    float M = sqrtf(A * A + B * B);
    if (!(M > 1e-9f)) return current;
    float want = 0.5f * (dist * dist - fm_dot(t, t) - fm_dot(sv, sv)) - C;
    float c = want / M;
    c = c < -1.0f ? -1.0f : (c > 1.0f ? 1.0f : c);
    float phi = atan2f(B, A), ac = acosf(c);
    float best = current, best_err = INFINITY;
    for (int k = 0; k < 2; ++k) {
        float ang = phi + (k ? -ac : ac);
        while (ang > 3.14159265f) ang -= 6.28318531f;
        while (ang < -3.14159265f) ang += 6.28318531f;
        ang = clampf(ang, l->min_angle, l->max_angle);
        float e = fabsf(A * cosf(ang) + B * sinf(ang) - want);
        if (e < best_err - 1e-7f || (fabsf(e - best_err) <= 1e-7f && fabsf(ang - current) < fabsf(best - current))) {
            best = ang;
            best_err = e;
        }
    }
    return best;
}

/* Seeds a leg's start pose toward target t from a hip at `hip` (world) under
 * a pelvis rotation r; q[0], q[1] are the clamped animated hip and knee. */
static void seed_leg(const cik_foot_leg *leg, int mode, cik_quat r, cik_vec3 hip, cik_vec3 t, cik_quat q[2])
{
    if (mode == CIK_FOOT_START_ANIMATION || leg->limit[1].type != CIK_LIMIT_HINGE) return;
    cik_vec3 a = leg->limit[1].axis;
    cik_quat q1 = q[1].w < 0.0f ? fm_q(-q[1].x, -q[1].y, -q[1].z, -q[1].w) : q[1];
    float current = 2.0f * atan2f(q1.x * a.x + q1.y * a.y + q1.z * a.z, q1.w);
    float dist = fm_len(fm_sub(t, hip));
    float k = knee_for_distance(leg, dist, current);
    if (fabsf(k - current) > 1e-6f) q[1] = fm_angle_axis(k, a);
    if (mode != CIK_FOOT_START_TWO_BONE) return;
    cik_quat w0 = fm_qmul(r, q[0]);
    cik_vec3 e = fm_rot(w0, fm_add(leg->thigh, fm_rot(q[1], leg->shin)));
    cik_vec3 b = fm_sub(t, hip);
    float el = fm_len(e), bl = fm_len(b);
    if (!(el > 1e-6f) || !(bl > 1e-6f)) return;
    cik_quat turn = fm_arc(fm_scale(e, 1.0f / el), fm_scale(b, 1.0f / bl));
    if (turn.w > 0.9999999f) return;
    cik_quat q0 = fm_qnorm(fm_qmul(fm_qconj(r), fm_qmul(turn, w0)));
    q[0] = cik_foot_apply_limit(&leg->limit[0], q0);
}

/* How far the hip must come down so that `t` is `lim` away from it. */
static inline float drop_need(cik_vec3 hip, cik_vec3 t, float lim)
{
    cik_vec3 v = fm_sub(t, hip);
    float d2 = fm_dot(v, v);
    if (!(d2 > lim * lim)) return 0.0f; /* reachable (or NaN) */
    if (v.y >= 0.0f) return 0.0f;      /* above the hip: lowering does not help */
    float h2 = v.x * v.x + v.z * v.z;
    if (h2 >= lim * lim) return -v.y; /* beyond reach sideways: bring the hip level */
    return -sqrtf(lim * lim - h2) - v.y;
}

/* Stage 3 for character c and its two feet. */
static inline void place_character(cik_foot_crowd *cr, const cik_foot_options *opt, float rise, float step,
                                   int primed, int c)
{
    const cik_streams *bs = &cr->bs;
    cik_quat r = pelvis_q(cr, c);
    cik_vec3 p = fm_v(cr->c[C_PX][c], cr->c[C_PY][c], cr->c[C_PZ][c]);
    float need = 0.0f;
    for (int side = 0; side < 2; ++side) {
        int f = 2 * c + side;
        const cik_foot_leg *leg = &cr->legs[f];
        float w = cr->f[F_WEIGHT][f];
        w = w > 0.0f ? (w < 1.0f ? w : 1.0f) : 0.0f;
        cik_vec3 a = fm_v(cr->f[F_AAX][f], cr->f[F_AAY][f], cr->f[F_AAZ][f]);
        cik_vec3 n = fm_v(cr->f[F_CNX][f], cr->f[F_CNY][f], cr->f[F_CNZ][f]);
        float nl = fm_len(n);
        n = nl > 1e-6f ? fm_scale(n, 1.0f / nl) : fm_v(0, 1, 0);
        /* planted: the ankle above the contact along the normal */
        cik_vec3 tp = fm_add(fm_v(a.x, cr->f[F_CY][f], a.z), fm_scale(n, leg->ankle_height));
        cik_vec3 t = fm_add(a, fm_scale(fm_sub(tp, a), w));
        if (t.y < tp.y) t.y = tp.y; /* no foot below the ground */
        cr->f[F_TX][f] = t.x;
        cr->f[F_TY][f] = t.y;
        cr->f[F_TZ][f] = t.z;
        bs->target_x[f] = t.x;
        bs->target_y[f] = t.y;
        bs->target_z[f] = t.z;
        /* desired foot orientation: the animated one, turned so the sole
         * lies on the ground normal, blended by the weight */
        cik_quat af = fm_q(cr->f[F_AFX][f], cr->f[F_AFY][f], cr->f[F_AFZ][f], cr->f[F_AFW][f]);
        cik_vec3 sole = fm_rot(af, leg->sole_normal);
        cik_quat df = w > 0.0f ? fm_qmul(fm_arc(sole, n), af) : af;
        if (w < 1.0f) df = fm_nlerp(af, df, w);
        cr->f[F_DFX][f] = df.x;
        cr->f[F_DFY][f] = df.y;
        cr->f[F_DFZ][f] = df.z;
        cr->f[F_DFW][f] = df.w;
        /* pelvis: what this foot needs beyond the leg's comfortable
         * reach (or beyond the animation's own extension, if longer) */
        cik_vec3 hip = fm_add(p, fm_rot(r, leg->hip));
        float lim = cr->reach[f] * (1.0f - opt->reach_margin);
        float anim = fm_len(fm_sub(a, hip));
        if (anim > lim) lim = anim;
        float nd = drop_need(hip, t, lim);
        if (nd > need) need = nd;
    }
    if (need > opt->max_pelvis_drop) need = opt->max_pelvis_drop;
    float s = cr->c[C_STATE][c];
    if (!primed || !isfinite(s)) s = need;
    else if (need > s) s = need < s + step ? need : s + step;
    else s = need + (s - need) * rise;
    cr->c[C_STATE][c] = s;
    cr->c[C_DROP][c] = s;
    cik_vec3 pl = fm_v(p.x, p.y - s, p.z);
    for (int side = 0; side < 2; ++side) {
        int f = 2 * c + side;
        const cik_foot_leg *leg = &cr->legs[f];
        bs->root_position_x[f] = pl.x;
        bs->root_position_y[f] = pl.y;
        bs->root_position_z[f] = pl.z;
        bs->root_rotation_x[f] = r.x;
        bs->root_rotation_y[f] = r.y;
        bs->root_rotation_z[f] = r.z;
        bs->root_rotation_w[f] = r.w;
        /* start pose: the animation clamped into the limits, seeded */
        cik_quat q[3];
        for (int j = 0; j < 3; ++j) q[j] = cik_foot_apply_limit(&leg->limit[j], pose_q(cr, f, j));
        cik_vec3 t = fm_v(cr->f[F_TX][f], cr->f[F_TY][f], cr->f[F_TZ][f]);
        cik_vec3 hip = fm_add(pl, fm_rot(r, leg->hip));
        /* a target still out of reach after the pelvis drop is pulled in
         * to the reach: the leg then points at it, knee not locked */
        {
            cik_vec3 a = fm_v(cr->f[F_AAX][f], cr->f[F_AAY][f], cr->f[F_AAZ][f]);
            cik_vec3 ahip = fm_add(p, fm_rot(r, leg->hip));
            float lim = cr->reach[f] * (1.0f - opt->reach_margin);
            float anim = fm_len(fm_sub(a, ahip));
            if (anim > lim) lim = anim;
            cik_vec3 v = fm_sub(t, hip);
            float d = fm_len(v);
            if (d > lim) {
                t = fm_add(hip, fm_scale(v, lim / d));
                cr->f[F_TX][f] = bs->target_x[f] = t.x;
                cr->f[F_TY][f] = bs->target_y[f] = t.y;
                cr->f[F_TZ][f] = bs->target_z[f] = t.z;
            }
        }
        /* a start pose that already meets the target is left alone */
        cik_vec3 e = fm_add(hip, fm_rot(fm_qmul(r, q[0]), fm_add(leg->thigh, fm_rot(q[1], leg->shin))));
        if (fm_len(fm_sub(e, t)) >= opt->solver.threshold) seed_leg(leg, opt->start, r, hip, t, q);
        for (int j = 0; j < 3; ++j) {
            bs->rotation_x[j][f] = q[j].x;
            bs->rotation_y[j][f] = q[j].y;
            bs->rotation_z[j][f] = q[j].z;
            bs->rotation_w[j][f] = q[j].w;
        }
    }
}

cik_status cik_foot_crowd_place(cik_foot_crowd *cr, const cik_foot_options *opt)
{
    cik_foot_options defaults = cik_foot_default_options();
    if (!cr) return CIK_ERROR_ARGUMENT;
    if (!opt) opt = &defaults;
    cik_status st = check_options(opt);
    if (st != CIK_OK) return st;
    const int nc = cr->characters;
    const float rise = opt->pelvis_rise_time > 0.0f ? expf(-opt->dt / opt->pelvis_rise_time) : 0.0f;
    const float step = opt->pelvis_drop_speed * opt->dt;
    const int primed = cr->primed;
    int nt = thread_count(opt, 2 * nc);
    if (nt > 1) {
#ifdef CIK_HAVE_OPENMP
#pragma omp parallel for schedule(static) num_threads(nt)
#endif
        for (int c = 0; c < nc; ++c) place_character(cr, opt, rise, step, primed, c);
    } else {
        for (int c = 0; c < nc; ++c) place_character(cr, opt, rise, step, primed, c);
    }
    cr->primed = 1;
    return CIK_OK;
}

cik_status cik_foot_crowd_solve(cik_foot_crowd *cr, const cik_foot_options *opt)
{
    if (!cr) return CIK_ERROR_ARGUMENT;
    cik_foot_options defaults = cik_foot_default_options();
    if (!opt) opt = &defaults;
    return cik_solve(cr->batch, &opt->solver);
}

/* Stage 5 for foot f. */
static inline void align_foot(cik_foot_crowd *cr, int f)
{
    const cik_streams *bs = &cr->bs;
    const cik_foot_leg *leg = &cr->legs[f];
    cik_quat r = fm_q(bs->root_rotation_x[f], bs->root_rotation_y[f], bs->root_rotation_z[f],
                      bs->root_rotation_w[f]);
    cik_vec3 p = fm_v(bs->root_position_x[f], bs->root_position_y[f], bs->root_position_z[f]);
    cik_quat q0 = fm_q(bs->rotation_x[0][f], bs->rotation_y[0][f], bs->rotation_z[0][f],
                       bs->rotation_w[0][f]);
    cik_quat q1 = fm_q(bs->rotation_x[1][f], bs->rotation_y[1][f], bs->rotation_z[1][f],
                       bs->rotation_w[1][f]);
    cik_quat w0 = fm_qmul(r, q0);
    cik_quat w1 = fm_qmul(w0, q1);
    cik_vec3 a = fm_add(fm_add(fm_add(p, fm_rot(r, leg->hip)), fm_rot(w0, leg->thigh)),
                        fm_rot(w1, leg->shin));
    cik_quat df = fm_q(cr->f[F_DFX][f], cr->f[F_DFY][f], cr->f[F_DFZ][f], cr->f[F_DFW][f]);
    cik_quat q2 = fm_qnorm(fm_qmul(fm_qconj(w1), df));
    q2 = cik_foot_apply_limit(&leg->limit[2], q2);
    bs->rotation_x[2][f] = q2.x;
    bs->rotation_y[2][f] = q2.y;
    bs->rotation_z[2][f] = q2.z;
    bs->rotation_w[2][f] = q2.w;
    cik_quat w2 = fm_qnorm(fm_qmul(w1, q2));
    cr->f[F_AX][f] = a.x;
    cr->f[F_AY][f] = a.y;
    cr->f[F_AZ][f] = a.z;
    cr->f[F_FQX][f] = w2.x;
    cr->f[F_FQY][f] = w2.y;
    cr->f[F_FQZ][f] = w2.z;
    cr->f[F_FQW][f] = w2.w;
}

cik_status cik_foot_crowd_align(cik_foot_crowd *cr, const cik_foot_options *opt)
{
    if (!cr) return CIK_ERROR_ARGUMENT;
    const int n = cr->feet;
    int nt = thread_count(opt, n);
    if (nt > 1) {
#ifdef CIK_HAVE_OPENMP
#pragma omp parallel for schedule(static) num_threads(nt)
#endif
        for (int f = 0; f < n; ++f) align_foot(cr, f);
    } else {
        for (int f = 0; f < n; ++f) align_foot(cr, f);
    }
    return CIK_OK;
}

cik_status cik_foot_crowd_frame(cik_foot_crowd *cr, const cik_heightfield *hf,
                                const cik_foot_options *opt)
{
    cik_foot_options defaults = cik_foot_default_options();
    if (!cr) return CIK_ERROR_ARGUMENT;
    if (!opt) opt = &defaults;
    cik_status s = check_options(opt);
    if (s == CIK_OK) s = cik_heightfield_validate(hf);
    if (s == CIK_OK) s = cik_foot_crowd_probe(cr);
    if (s == CIK_OK) s = cik_foot_crowd_ground_heightfield(cr, hf);
    if (s == CIK_OK) s = cik_foot_crowd_place(cr, opt);
    if (s == CIK_OK) s = cik_foot_crowd_solve(cr, opt);
    if (s == CIK_OK) s = cik_foot_crowd_align(cr, opt);
    return s;
}
