/*
 * Generated workloads (see workloads.h). Every pose a target is taken from
 * lies within the chain's joint limits, so "reachable" means reachable with
 * the limits on.
 */
#define _POSIX_C_SOURCE 200809L
#include "workloads.h"

#include "legs.h"
#include "scalar_math.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void wl_seed(wl_rng *r, uint64_t seed)
{
    r->s = seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
    if (!r->s) r->s = 1;
}

/* xorshift64* */
uint32_t wl_next(wl_rng *r)
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return (uint32_t)((r->s * 0x2545F4914F6CDD1Dull) >> 32);
}

float wl_uniform(wl_rng *r, float lo, float hi)
{
    return lo + (hi - lo) * (float)(wl_next(r) >> 8) * (1.0f / 16777216.0f);
}

float wl_in_ball(wl_rng *r, float min_n2, float v[3])
{
    float n2;
    do {
        v[0] = wl_uniform(r, -1, 1);
        v[1] = wl_uniform(r, -1, 1);
        v[2] = wl_uniform(r, -1, 1);
        n2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    } while (n2 > 1.0f || n2 < min_n2);
    return n2;
}

cik_quat wl_angle_axis(float angle, float x, float y, float z) { return quat_axis_angle(angle, x, y, z); }

cik_quat wl_qmul(cik_quat a, cik_quat b) { return quat_mul(a, b); }

static cik_vec3 random_dir(wl_rng *r)
{
    for (;;) {
        float x = wl_uniform(r, -1, 1), y = wl_uniform(r, -1, 1), z = wl_uniform(r, -1, 1);
        float n = x * x + y * y + z * z;
        if (n > 1e-3f && n <= 1.0f) {
            n = sqrtf(n);
            return vec3(x / n, y / n, z / n);
        }
    }
}

/* A unit vector perpendicular to the unit vector a, random about it. */
static cik_vec3 random_perp(wl_rng *r, cik_vec3 a)
{
    for (;;) {
        cik_vec3 d = random_dir(r);
        float k = d.x * a.x + d.y * a.y + d.z * a.z;
        cik_vec3 p = vec3(d.x - k * a.x, d.y - k * a.y, d.z - k * a.z);
        float n = sqrtf(p.x * p.x + p.y * p.y + p.z * p.z);
        if (n > 1e-2f) return vec3_scale(p, 1.0f / n);
    }
}

/* A random rotation that satisfies limit l. */
static cik_quat random_within(wl_rng *r, const cik_limit *l, float max_angle)
{
    cik_vec3 a = l->axis;
    switch (l->type) {
    case CIK_LIMIT_HINGE:
        return wl_angle_axis(wl_uniform(r, l->min_angle, l->max_angle), a.x, a.y, a.z);
    case CIK_LIMIT_SWING_TWIST: {
        cik_quat twist = wl_angle_axis(wl_uniform(r, l->min_angle, l->max_angle), a.x, a.y, a.z);
        cik_vec3 s = random_perp(r, a);
        cik_quat swing = wl_angle_axis(wl_uniform(r, 0.0f, l->swing_max), s.x, s.y, s.z);
        return wl_qmul(swing, twist);
    }
    default: {
        cik_vec3 d = random_dir(r);
        return wl_angle_axis(wl_uniform(r, 0.0f, max_angle), d.x, d.y, d.z);
    }
    }
}

static void set_target_from_pose(cik_chain *c, const cik_quat *pose)
{
    cik_chain t = *c;
    memcpy(t.rotation, pose, sizeof(cik_quat) * (size_t)c->joint_count);
    cik_chain_forward(&t, NULL, &c->target);
}

static void legs(wl_rng *r, int limits, cik_chain *c)
{
    float s = wl_uniform(r, 0.85f, 1.15f); /* body size */
    float side = (wl_next(r) & 1) ? 0.1f : -0.1f;
    c->joint_count = 3;
    /* Every draw is its own statement: C leaves the order of a call's
     * arguments (and of an initializer list) unspecified, and gcc and clang
     * differ, so draws inside one call would make compiler-dependent chains. */
    float rx = wl_uniform(r, -50, 50), rz = wl_uniform(r, -50, 50);
    c->root_position = vec3(rx, 0.95f * s, rz);
    c->root_rotation = wl_angle_axis(wl_uniform(r, -3.14159f, 3.14159f), 0, 1, 0);
    c->offset[0] = vec3(side * s, -0.05f * s, 0.0f);
    c->offset[1] = vec3(0.0f, -0.45f * s, 0.0f);
    c->offset[2] = vec3(0.0f, -0.42f * s, 0.0f);
    c->effector = vec3(0.0f, -0.06f * s, 0.14f * s);
    if (limits) {
        /* +X hinge: positive angles swing the shin backwards (a real knee) */
        c->limit[0] = limit_swing_twist(vec3(0, -1, 0), -0.6f, 0.6f, 1.5f);
        c->limit[1] = limit_hinge(vec3(1, 0, 0), 0.0f, 2.6f);
        c->limit[2] = limit_swing_twist(vec3(0, -1, 0), -0.35f, 0.35f, 0.7f);
    }
    /* animated pose: hip flexion and abduction, knee flexion, ankle pitch */
    float hf = wl_uniform(r, -0.6f, 0.4f), ha = wl_uniform(r, -0.15f, 0.15f);
    float kf = wl_uniform(r, 0.05f, 1.2f), af = wl_uniform(r, -0.4f, 0.4f);
    c->rotation[0] = wl_qmul(wl_angle_axis(ha, 0, 0, 1), wl_angle_axis(hf, 1, 0, 0));
    c->rotation[1] = wl_angle_axis(kf, 1, 0, 0);
    c->rotation[2] = wl_angle_axis(af, 1, 0, 0);
    /* target: the toe of a nearby pose (foot placement moves feet by cm) */
    float tk = kf + wl_uniform(r, -0.2f, 0.2f);
    tk = tk < 0.02f ? 0.02f : (tk > 2.5f ? 2.5f : tk);
    float dha = wl_uniform(r, -0.08f, 0.08f);
    float dhf = wl_uniform(r, -0.15f, 0.15f);
    float daf = wl_uniform(r, -0.2f, 0.2f);
    cik_quat pose[3] = {wl_qmul(wl_angle_axis(ha + dha, 0, 0, 1), wl_angle_axis(hf + dhf, 1, 0, 0)),
                        wl_angle_axis(tk, 1, 0, 0), wl_angle_axis(af + daf, 1, 0, 0)};
    set_target_from_pose(c, pose);
}

/* A chain of `n` joints with bones of `bone` along `dir`, swing-twist limits
 * about the bone, a start pose bent by up to `bend` per joint and a target
 * from a pose bent by up to `bend` more. */
static void bendy(wl_rng *r, int n, cik_vec3 dir, float bone, float bend, cik_chain *c)
{
    c->joint_count = n;
    float rx = wl_uniform(r, -50, 50), rz = wl_uniform(r, -50, 50);
    c->root_position = vec3(rx, 1.0f, rz);
    c->root_rotation = wl_angle_axis(wl_uniform(r, -3.14159f, 3.14159f), 0, 1, 0);
    cik_quat pose[CIK_MAX_JOINTS];
    for (int j = 0; j < n; ++j) {
        c->offset[j] = j == 0 ? vec3(0, 0, 0) : vec3_scale(dir, bone);
        c->limit[j] = limit_swing_twist(dir, -0.3f, 0.3f, 2.5f * bend);
        cik_vec3 p1 = random_perp(r, dir), p2 = random_perp(r, dir);
        c->rotation[j] = wl_angle_axis(wl_uniform(r, 0, bend), p1.x, p1.y, p1.z);
        pose[j] = wl_qmul(wl_angle_axis(wl_uniform(r, 0, bend), p2.x, p2.y, p2.z), c->rotation[j]);
    }
    c->effector = vec3_scale(dir, bone);
    set_target_from_pose(c, pose);
}

static void random_chain(wl_rng *r, int n, int limits, cik_chain *c)
{
    c->joint_count = n;
    cik_vec3 rd = random_dir(r);
    c->root_position = vec3_scale(rd, wl_uniform(r, 0, 3));
    cik_vec3 d = random_dir(r);
    c->root_rotation = wl_angle_axis(wl_uniform(r, 0, 3.14159f), d.x, d.y, d.z);
    cik_quat pose[CIK_MAX_JOINTS];
    for (int j = 0; j < n; ++j) {
        cik_vec3 od = random_dir(r);
        c->offset[j] = vec3_scale(od, j == 0 ? wl_uniform(r, 0, 0.3f) : wl_uniform(r, 0.2f, 1.0f));
        int type = limits ? (int)(wl_next(r) % 3) : 0;
        cik_vec3 axis = random_dir(r);
        if (type == 1) {
            float lo = -wl_uniform(r, 0.3f, 3.14159f), hi = wl_uniform(r, 0.3f, 3.14159f);
            c->limit[j] = limit_hinge(axis, lo, hi);
        } else if (type == 2) {
            float lo = -wl_uniform(r, 0.1f, 3.14159f), hi = wl_uniform(r, 0.1f, 3.14159f);
            float swing = wl_uniform(r, 0.3f, 3.14159f);
            c->limit[j] = limit_swing_twist(axis, lo, hi, swing);
        } else {
            c->limit[j] = limit_none();
        }
        c->rotation[j] = random_within(r, &c->limit[j], 1.2f);
        pose[j] = random_within(r, &c->limit[j], 1.2f);
    }
    cik_vec3 ed = random_dir(r);
    c->effector = vec3_scale(ed, wl_uniform(r, 0.2f, 1.0f));
    set_target_from_pose(c, pose);
}

/* WL_HOCK_LEG (3 segments) and WL_HIND_LEG (4): see workloads.h. +X hinges:
 * the stifle swings the tibia back (+), the hock the cannon forward (-),
 * the fetlock the pastern back (+). */
static void hind_leg(wl_rng *r, int segments, cik_chain *c)
{
    static const float bone[4] = {0.40f, 0.45f, 0.30f, 0.12f};
    float s = wl_uniform(r, 0.9f, 1.1f);
    float rx = wl_uniform(r, -50, 50), rz = wl_uniform(r, -50, 50);
    c->joint_count = segments;
    c->root_position = vec3(rx, 1.45f * s, rz);
    c->root_rotation = wl_angle_axis(wl_uniform(r, -3.14159f, 3.14159f), 0, 1, 0);
    c->offset[0] = vec3((wl_next(r) & 1) ? 0.12f * s : -0.12f * s, 0.0f, 0.0f);
    for (int j = 1; j < segments; ++j) c->offset[j] = vec3(0.0f, -bone[j - 1] * s, 0.0f);
    c->effector = vec3(0.0f, -bone[segments - 1] * s, 0.04f * s);
    c->limit[0] = limit_swing_twist(vec3(0, -1, 0), -0.3f, 0.3f, 1.0f);
    c->limit[1] = limit_hinge(vec3(1, 0, 0), 0.2f, 2.0f);
    c->limit[2] = limit_hinge(vec3(1, 0, 0), -2.2f, -0.3f);
    if (segments > 3) c->limit[3] = limit_hinge(vec3(1, 0, 0), -0.3f, 1.8f);
    /* the stance: hip flexion and abduction, then each hinge's bend; the
     * target's pose moves each by a little, within its limits */
    static const float lo[4] = {-0.5f, 0.4f, -1.6f, 0.0f}, hi[4] = {0.3f, 1.4f, -0.5f, 0.9f};
    float ha = wl_uniform(r, -0.1f, 0.1f), dha = wl_uniform(r, -0.06f, 0.06f);
    cik_quat pose[4];
    for (int j = 0; j < segments; ++j) {
        float a = wl_uniform(r, lo[j], hi[j]);
        float b = a + wl_uniform(r, -0.15f, 0.15f);
        if (j > 0) b = clampf(b, c->limit[j].min_angle, c->limit[j].max_angle);
        if (j == 0) {
            c->rotation[0] = wl_qmul(wl_angle_axis(ha, 0, 0, 1), wl_angle_axis(a, 1, 0, 0));
            pose[0] = wl_qmul(wl_angle_axis(ha + dha, 0, 0, 1), wl_angle_axis(b, 1, 0, 0));
        } else {
            c->rotation[j] = wl_angle_axis(a, 1, 0, 0);
            pose[j] = wl_angle_axis(b, 1, 0, 0);
        }
    }
    set_target_from_pose(c, pose);
}

static float chain_reach(const cik_chain *c)
{
    float reach = sqrtf(c->effector.x * c->effector.x + c->effector.y * c->effector.y +
                        c->effector.z * c->effector.z);
    for (int j = 1; j < c->joint_count; ++j)
        reach += sqrtf(c->offset[j].x * c->offset[j].x + c->offset[j].y * c->offset[j].y +
                       c->offset[j].z * c->offset[j].z);
    return reach;
}

static void hard_chain(wl_rng *r, int n, cik_chain *c)
{
    int limits = (int)(wl_next(r) & 1);
    random_chain(r, n, limits, c);
    cik_vec3 p[CIK_MAX_JOINTS];
    switch (wl_next(r) % 8) {
    case 0: /* a zero-length bone */
        if (n > 1) c->offset[1 + wl_next(r) % (unsigned)(n - 1)] = vec3(0, 0, 0);
        break;
    case 1:
    case 2: { /* unreachable: far along a random direction */
        cik_chain_forward(c, p, NULL);
        cik_vec3 d = random_dir(r);
        float k = chain_reach(c) * wl_uniform(r, 1.1f, 2.0f);
        c->target = vec3(p[0].x + d.x * k, p[0].y + d.y * k, p[0].z + d.z * k);
        break;
    }
    case 3:
    case 4: { /* straight chain along +X, the target on its line in front of
               * the root or straight behind it (antiparallel start) */
        float len = 0.0f;
        for (int j = 0; j < n; ++j) {
            float b = j == 0 ? 0.0f : wl_uniform(r, 0.3f, 1.0f);
            c->offset[j] = vec3(b, 0, 0);
            c->rotation[j] = wl_angle_axis(0, 1, 0, 0);
            len += b;
        }
        c->effector = vec3(wl_uniform(r, 0.3f, 1.0f), 0, 0);
        len += c->effector.x;
        c->root_rotation = wl_angle_axis(0, 1, 0, 0); /* the chain points along world +X */
        cik_chain_forward(c, p, NULL);
        float u = wl_uniform(r, 0.3f, 0.8f);
        float k = len * u * (wl_next(r) % 2 ? -1.0f : 1.0f);
        c->target = vec3(p[0].x + k, p[0].y, p[0].z);
        for (int j = 0; j < n; ++j) c->limit[j] = limit_none();
        break;
    }
    default:
        break;
    }
}

int wl_joint_count(wl_kind kind, int random_joints)
{
    switch (kind) {
    case WL_LEGS:
    case WL_LEGS_NO_LIMITS: return 3;
    case WL_SPINE: return 5;
    case WL_TAIL: return 12;
    case WL_HOCK_LEG: return 3;
    case WL_HIND_LEG: return 4;
    default: return random_joints;
    }
}

void wl_chain(wl_kind kind, uint64_t seed, int index, int joint_count, cik_chain *c)
{
    wl_rng r;
    wl_seed(&r, seed * 1000003ull + (uint64_t)index);
    memset(c, 0, sizeof *c);
    for (int j = 0; j < CIK_MAX_JOINTS; ++j) c->rotation[j].w = 1.0f;
    c->root_rotation.w = 1.0f;
    switch (kind) {
    case WL_LEGS: legs(&r, 1, c); break;
    case WL_LEGS_NO_LIMITS: legs(&r, 0, c); break;
    case WL_SPINE: bendy(&r, 5, vec3(0, 1, 0), 0.1f, 0.15f, c); break;
    case WL_TAIL: bendy(&r, 12, vec3(0, 0, -1), 0.08f, 0.2f, c); break;
    case WL_RANDOM: random_chain(&r, joint_count, 1, c); break;
    case WL_RANDOM_NO_LIMITS: random_chain(&r, joint_count, 0, c); break;
    case WL_RANDOM_HARD: hard_chain(&r, joint_count, c); break;
    case WL_HOCK_LEG: hind_leg(&r, 3, c); break;
    case WL_HIND_LEG: hind_leg(&r, 4, c); break;
    }
}

cik_status wl_fill(cik_batch *b, wl_kind kind, uint64_t seed, int first)
{
    int n = cik_batch_chain_count(b), J = cik_batch_joint_count(b);
    for (int i = 0; i < n; ++i) {
        cik_chain c;
        wl_chain(kind, seed, first + i, J, &c);
        cik_status st = cik_batch_set_chain(b, i, &c);
        if (st != CIK_OK) return st;
    }
    return CIK_OK;
}

void wl_fold(cik_chain *c, uint64_t seed, int index)
{
    wl_rng r;
    wl_seed(&r, seed * 15485863ull + (uint64_t)index + 11u);
    float el = sqrtf(c->effector.x * c->effector.x + c->effector.y * c->effector.y + c->effector.z * c->effector.z);
    if (!(el > 0.0f)) return;
    cik_vec3 u = random_perp(&r, vec3_scale(c->effector, 1.0f / el));
    for (int j = 0; j < c->joint_count; ++j) {
        float angle = 3.14159265f / (float)c->joint_count;
        if (c->limit[j].type == CIK_LIMIT_SWING_TWIST && angle > 0.98f * c->limit[j].swing_max)
            angle = 0.98f * c->limit[j].swing_max;
        c->rotation[j] = wl_angle_axis(angle, u.x, u.y, u.z);
    }
}

cik_status wl_fold_batch(cik_batch *b, uint64_t seed, int first)
{
    int n = cik_batch_chain_count(b);
    for (int i = 0; i < n; ++i) {
        cik_chain c;
        cik_batch_get_chain(b, i, &c);
        wl_fold(&c, seed, first + i);
        cik_status st = cik_batch_set_chain(b, i, &c);
        if (st != CIK_OK) return st;
    }
    return CIK_OK;
}

const char *wl_name(wl_kind kind)
{
    switch (kind) {
    case WL_LEGS: return "legs";
    case WL_LEGS_NO_LIMITS: return "legs-no-limits";
    case WL_SPINE: return "spine";
    case WL_TAIL: return "tail";
    case WL_RANDOM: return "random";
    case WL_RANDOM_NO_LIMITS: return "random-no-limits";
    case WL_RANDOM_HARD: return "random-hard";
    case WL_HOCK_LEG: return "hock-leg";
    case WL_HIND_LEG: return "hind-leg";
    }
    return "unknown";
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

void wl_collect(const cik_batch *b, wl_stats *out, float *scratch)
{
    memset(out, 0, sizeof *out);
    int n = cik_batch_chain_count(b), m = 0;
    long passes = 0;
    out->chains = n;
    for (int i = 0; i < n; ++i) {
        cik_result res;
        cik_batch_result(b, i, &res);
        if (res.flags & CIK_RESULT_SKIPPED) {
            out->skipped++;
            continue;
        }
        out->converged += (res.flags & CIK_RESULT_CONVERGED) != 0;
        out->unreachable += (res.flags & CIK_RESULT_UNREACHABLE) != 0;
        passes += res.iterations;
        scratch[m++] = res.error;
    }
    if (m == 0) return;
    qsort(scratch, (size_t)m, sizeof(float), cmp_float);
    out->mean_passes = (double)passes / m;
    out->error_p50 = scratch[m / 2];
    out->error_p99 = scratch[(int)((m - 1) * 0.99)];
    out->error_max = scratch[m - 1];
}

double wl_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
