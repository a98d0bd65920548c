/*
 * crowdik_demo: a crowd walking over uneven ground, its feet placed every
 * frame by the batched foot-placement pipeline (include/crowdik/foot.h).
 *
 * With no arguments: 1000 characters, a procedural walk cycle, procedural
 * terrain (hills, a 15-degree ridge, 10 cm steps), 300 frames at 60 Hz. It
 * prints the time per frame and per stage, how well the stance feet meet the
 * ground, limit violations and convergence, and writes an SVG of a few
 * characters side-on. --bvh FILE drives the crowd with a motion-capture clip;
 * --view FILE.html also writes the whole run as a 3D page (demo/view.h).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bvh.h"
#include "crowdik/crowdik.h"
#include "crowdik/foot.h"
#include "demo/view.h" /* --view */

#define PI_F 3.14159265f

/* ---------------------------------------------------------------- math */

static cik_vec3 v3(float x, float y, float z)
{
    cik_vec3 v = {x, y, z};
    return v;
}
static cik_vec3 vadd(cik_vec3 a, cik_vec3 b) { return v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static cik_vec3 vsub(cik_vec3 a, cik_vec3 b) { return v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static cik_vec3 vscale(cik_vec3 a, float s) { return v3(a.x * s, a.y * s, a.z * s); }
static float vdot(cik_vec3 a, cik_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static float vlen(cik_vec3 a) { return sqrtf(vdot(a, a)); }
static cik_vec3 vnorm(cik_vec3 a)
{
    float n = vlen(a);
    return n > 0 ? vscale(a, 1.0f / n) : a;
}
static cik_quat qq(float x, float y, float z, float w)
{
    cik_quat q = {x, y, z, w};
    return q;
}
static cik_quat qmul(cik_quat a, cik_quat b)
{
    return qq(a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
              a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z);
}
static cik_quat qconj(cik_quat q) { return qq(-q.x, -q.y, -q.z, q.w); }
static cik_quat qaxis(float angle, float x, float y, float z)
{
    float n = sqrtf(x * x + y * y + z * z), s = sinf(0.5f * angle) / n;
    return qq(x * s, y * s, z * s, cosf(0.5f * angle));
}
static cik_vec3 qrot(cik_quat q, cik_vec3 v)
{
    cik_vec3 u = v3(q.x, q.y, q.z);
    cik_vec3 t = v3(2 * (u.y * v.z - u.z * v.y), 2 * (u.z * v.x - u.x * v.z), 2 * (u.x * v.y - u.y * v.x));
    return v3(v.x + q.w * t.x + (u.y * t.z - u.z * t.y), v.y + q.w * t.y + (u.z * t.x - u.x * t.z),
              v.z + q.w * t.z + (u.x * t.y - u.y * t.x));
}
static cik_quat qnorm(cik_quat q)
{
    float n = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    return n > 0 ? qq(q.x / n, q.y / n, q.z / n, q.w / n) : qq(0, 0, 0, 1);
}
static float clampf(float x, float lo, float hi) { return x < lo ? lo : (x > hi ? hi : x); }
static cik_vec3 vlerp(cik_vec3 a, cik_vec3 b, float u) { return vadd(a, vscale(vsub(b, a), u)); }
/* Spherical interpolation along the shorter arc (b's sign flipped when the
 * two lie in opposite hemispheres); nearly equal rotations fall back to a
 * normalised lerp, where slerp's sin(theta) would lose precision. */
static cik_quat qslerp(cik_quat a, cik_quat b, float u)
{
    float d = a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
    if (d < 0) {
        b = qq(-b.x, -b.y, -b.z, -b.w);
        d = -d;
    }
    float wa = 1.0f - u, wb = u;
    if (d < 0.9995f) {
        float th = acosf(d), s = sinf(th);
        wa = sinf((1.0f - u) * th) / s;
        wb = sinf(u * th) / s;
    }
    return qnorm(qq(wa * a.x + wb * b.x, wa * a.y + wb * b.y, wa * a.z + wb * b.z, wa * a.w + wb * b.w));
}
static float smooth01(float x)
{
    x = clampf(x, 0, 1);
    return x * x * (3 - 2 * x);
}

static uint64_t rng_state;
static float urand(float lo, float hi)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    uint32_t r = (uint32_t)((rng_state * 0x2545F4914F6CDD1Dull) >> 40);
    return lo + (hi - lo) * (float)r * (1.0f / 16777216.0f);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* --view: the report goes to stdout and, when a page is written, into the
 * page too (report_copy is the view's stream). */
static FILE *report_copy;
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static void report(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    if (report_copy) {
        va_start(ap, fmt);
        vfprintf(report_copy, fmt, ap);
        va_end(ap);
    }
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}
/* Sorts v in place; percentile p in [0, 1]. */
static float pct_sorted(const float *v, size_t n, float p)
{
    if (!n) return 0.0f;
    size_t i = (size_t)(p * (float)(n - 1) + 0.5f);
    return v[i < n ? i : n - 1];
}

/* ---------------------------------------------------------------- terrain */

#define RIDGE_SLOPE_DEG 15.0f
/* Hills everywhere; a ridge along x (period 24 m: 4 m up at 15 degrees, 4 m
 * flat, 4 m down, 12 m flat); 10 cm steps along z (up at z = 8 mod 16, down
 * at z = 0 mod 16). */
static float terrain(float x, float z)
{
    float h = 0.18f * sinf(0.31f * x + 0.5f) * cosf(0.23f * z) + 0.07f * sinf(0.83f * x - 0.61f * z);
    float k = tanf(RIDGE_SLOPE_DEG * PI_F / 180.0f);
    float xm = fmodf(x + 2400.0f, 24.0f);
    float r = xm < 4 ? k * xm : (xm < 8 ? 4 * k : (xm < 12 ? k * (12 - xm) : 0));
    float zm = fmodf(z + 1600.0f, 16.0f);
    return h + r + (zm >= 8.0f ? 0.10f : 0.0f);
}

/* ---------------------------------------------------------------- rig */

/* What the demo knows about one character's legs beyond the pipeline:
 * where toe and heel lie in the ankle frame (for drawing and penetration). */
typedef struct rig {
    cik_foot_leg leg[2];
    cik_vec3 toe[2], heel[2];
} rig;

static cik_limit lim_hinge(float ax, float ay, float az, float lo, float hi)
{
    cik_limit l;
    memset(&l, 0, sizeof l);
    l.type = CIK_LIMIT_HINGE;
    l.axis = v3(ax, ay, az);
    l.min_angle = lo;
    l.max_angle = hi;
    return l;
}
static cik_limit lim_st(float lo, float hi, float swing)
{
    cik_limit l = lim_hinge(0, -1, 0, lo, hi);
    l.type = CIK_LIMIT_SWING_TWIST;
    l.swing_max = swing;
    return l;
}

/* The workload legs (tools/workloads.c) at body size s. */
static void procedural_rig(float s, rig *r)
{
    for (int side = 0; side < 2; ++side) {
        cik_foot_leg *l = &r->leg[side];
        memset(l, 0, sizeof *l);
        l->hip = v3(side == 0 ? 0.1f * s : -0.1f * s, -0.05f * s, 0);
        l->thigh = v3(0, -0.45f * s, 0);
        l->shin = v3(0, -0.42f * s, 0);
        l->limit[0] = lim_st(-0.6f, 0.6f, 1.5f);
        l->limit[1] = lim_hinge(1, 0, 0, 0.0f, 2.6f);
        l->limit[2] = lim_st(-0.35f, 0.35f, 0.7f);
        l->sole_normal = v3(0, 1, 0);
        l->ankle_height = 0.06f * s;
        r->toe[side] = v3(0, -0.06f * s, 0.14f * s);
        r->heel[side] = v3(0, -0.06f * s, -0.05f * s);
    }
}

/* ---------------------------------------------------------------- animation */

typedef struct pose {
    cik_vec3 pelvis; /* character space: x lateral (left +), y up from the floor, z forward */
    cik_quat pelvis_q;
    cik_quat q[2][3];
    float weight[2];
} pose;

#define WALK_PERIOD 1.0f
#define WALK_SPEED 1.1f
#define STANCE 0.6f

/* Analytic two-bone leg in the sagittal plane: hip at h, ankle at a
 * (character space, same x), foot pitch p (world, about +X). */
static void leg_ik(const cik_foot_leg *l, cik_vec3 h, cik_vec3 a, float pitch, cik_quat q[3])
{
    float ta = vlen(l->thigh), tb = vlen(l->shin);
    cik_vec3 v = vsub(a, h);
    float d = sqrtf(v.y * v.y + v.z * v.z);
    float dmax = (ta + tb) * 0.9995f;
    if (d > dmax) d = dmax;
    float ck = (d * d - ta * ta - tb * tb) / (2 * ta * tb);
    float k = acosf(clampf(ck, -1, 1));
    /* ankle in the hip frame with the knee bent: u = thigh + Rx(k) shin */
    float uy = -(ta + tb * cosf(k)), uz = -tb * sinf(k);
    float au = atan2f(uz, -uy), av = atan2f(v.z, -v.y);
    float th = au - av;
    q[0] = qaxis(th, 1, 0, 0);
    q[1] = qaxis(k, 1, 0, 0);
    float ank = clampf(pitch - th - k, -0.6f, 0.6f);
    q[2] = qaxis(ank, 1, 0, 0);
}

/* Procedural walk at phase t (seconds) for body size s. */
static void walk_pose(const rig *r, float s, float t, pose *out)
{
    float L = WALK_SPEED * s * WALK_PERIOD * STANCE; /* stance travel */
    cik_vec3 foot[2];
    float pitch[2];
    int planted[2]; /* the foot at or next to ground contact */
    float ah = r->leg[0].ankle_height;
    for (int side = 0; side < 2; ++side) {
        float ph = t / WALK_PERIOD + (side ? 0.5f : 0.0f);
        ph -= floorf(ph);
        float x = r->leg[side].hip.x;
        if (ph < STANCE) {
            foot[side] = v3(x, ah, L * 0.5f - L * ph / STANCE);
            pitch[side] = 0.0f;
            out->weight[side] = 1.0f;
            planted[side] = 1;
        } else {
            float u = (ph - STANCE) / (1 - STANCE);
            float z = -L * 0.5f + L * (u - sinf(2 * PI_F * u) / (2 * PI_F));
            foot[side] = v3(x, ah + 0.11f * s * sinf(PI_F * u) * (1.0f - 0.3f * u), z);
            pitch[side] = -0.25f * sinf(PI_F * u) + 0.15f * sinf(2 * PI_F * u);
            /* IK weight: out over the first 12 % of the swing, back in
             * over the last 30 % (120 ms). The pipeline lowers the pelvis
             * at most pelvis_drop_speed (2.5 m/s); a foot landing past a
             * step down on a downhill slope can need 20 cm of drop, so the
             * weight must come in no faster than the pelvis can follow or
             * the landing foot is held above the ground (a blend-in of the
             * last 12 %, 48 ms, left one foot 72 mm up for a frame). */
            out->weight[side] = u < 0.12f ? 1.0f - smooth01(u / 0.12f) : (u > 0.70f ? smooth01((u - 0.70f) / 0.30f) : 0.0f);
            planted[side] = u < 0.06f || u > 0.94f;
        }
    }
    /* the hip as high as the stance feet allow with knees bent >= 0.2 rad */
    float ta = vlen(r->leg[0].thigh), tb = vlen(r->leg[0].shin);
    float dmax = sqrtf(ta * ta + tb * tb + 2 * ta * tb * cosf(0.2f));
    float hip_y = 1e9f;
    for (int side = 0; side < 2; ++side) {
        if (!planted[side] && !(foot[side].y < ah + 0.02f)) continue;
        float dz = foot[side].z;
        float y = foot[side].y + sqrtf(dmax * dmax - dz * dz);
        if (y < hip_y) hip_y = y;
    }
    float sway = 0.015f * s * sinf(2 * PI_F * t / WALK_PERIOD);
    out->pelvis = v3(sway, hip_y - r->leg[0].hip.y, 0);
    out->pelvis_q = qq(0, 0, 0, 1);
    for (int side = 0; side < 2; ++side) {
        cik_vec3 h = vadd(out->pelvis, r->leg[side].hip);
        foot[side].x = h.x;
        leg_ik(&r->leg[side], h, foot[side], pitch[side], out->q[side]);
    }
}

/* ---------------------------------------------------------------- BVH clip */

typedef struct clip_anim {
    int frames; /* usable frames (the clip's frames 1..N-1) */
    float dt;   /* seconds per clip frame */
    pose *poses;
    cik_vec3 travel; /* root travel over the loop, character space, metres */
    float scale;
    rig rig;
    char legs_desc[160];
} clip_anim;

static int load_clip(const char *path, const char *legs_spec, float scale_opt, clip_anim *ca, char *err,
                     size_t errsz)
{
    bvh_clip c;
    if (bvh_load(path, &c, err, errsz)) return -1;
    if (c.frame_count < 3) {
        snprintf(err, errsz, "%s: needs at least 3 frames (frame 0 is the reference pose)", path);
        bvh_free(&c);
        return -1;
    }
    bvh_leg legs[2];
    if (legs_spec) {
        char buf[512];
        snprintf(buf, sizeof buf, "%s", legs_spec);
        char *sides[2] = {buf, strchr(buf, ':')};
        if (!sides[1]) {
            snprintf(err, errsz, "--legs wants LHIP,LKNEE,LANKLE[,LTOE]:RHIP,RKNEE,RANKLE[,RTOE]");
            bvh_free(&c);
            return -1;
        }
        *sides[1]++ = 0;
        for (int s = 0; s < 2; ++s) {
            char *n[4] = {0};
            int k = 0;
            for (char *tok = strtok(sides[s], ","); tok && k < 4; tok = strtok(NULL, ",")) n[k++] = tok;
            if (k < 3 || bvh_find_leg(&c, n[0], n[1], n[2], n[3], &legs[s], err, errsz)) {
                if (k < 3) snprintf(err, errsz, "--legs: each side needs hip,knee,ankle[,toe]");
                bvh_free(&c);
                return -1;
            }
        }
    } else if (bvh_find_legs(&c, legs, err, errsz)) {
        bvh_free(&c);
        return -1;
    }
    float sc = scale_opt > 0 ? scale_opt : bvh_detect_scale(&c, &legs[0]);
    ca->scale = sc;
    snprintf(ca->legs_desc, sizeof ca->legs_desc, "%.24s/%.24s/%.24s, %.24s/%.24s/%.24s", c.joints[legs[0].hip].name,
             c.joints[legs[0].knee].name, c.joints[legs[0].ankle].name, c.joints[legs[1].hip].name,
             c.joints[legs[1].knee].name, c.joints[legs[1].ankle].name);
    int nj = c.joint_count;
    cik_vec3 *pos = malloc(sizeof(cik_vec3) * (size_t)nj), *end = malloc(sizeof(cik_vec3) * (size_t)nj);
    cik_quat *rot = malloc(sizeof(cik_quat) * (size_t)nj);
    cik_quat *c0 = malloc(sizeof(cik_quat) * (size_t)nj);
    int nf = c.frame_count - 1;
    ca->frames = nf;
    ca->dt = (float)c.frame_time;
    ca->poses = calloc((size_t)nf, sizeof(pose));
    cik_vec3 *ankle = malloc(sizeof(cik_vec3) * 2 * (size_t)nf);
    cik_vec3 *soleup = malloc(sizeof(cik_vec3) * 2 * (size_t)nf);
    cik_vec3 *root = malloc(sizeof(cik_vec3) * (size_t)nf);
    if (!pos || !end || !rot || !c0 || !ca->poses || !ankle || !soleup || !root) {
        snprintf(err, errsz, "out of memory");
        return -1;
    }
    /* frame 0 (the reference pose, legs vertical) is the bind pose: the
     * canonical frame of every joint is its frame-0 world frame */
    bvh_pose(&c, 0, pos, rot, end);
    for (int j = 0; j < nj; ++j) c0[j] = qconj(rot[j]);
    int R = 0;
    rig *rg = &ca->rig;
    memset(rg, 0, sizeof *rg);
    for (int s = 0; s < 2; ++s) {
        cik_foot_leg *l = &rg->leg[s];
        l->hip = vscale(vsub(pos[legs[s].hip], pos[R]), sc);
        l->thigh = vscale(vsub(pos[legs[s].knee], pos[legs[s].hip]), sc);
        l->shin = vscale(vsub(pos[legs[s].ankle], pos[legs[s].knee]), sc);
        l->limit[0] = lim_st(-0.9f, 0.9f, 1.7f);
        l->limit[1] = lim_hinge(1, 0, 0, 0.0f, 2.7f);
        l->limit[2] = lim_st(-0.6f, 0.6f, 1.0f);
        rg->toe[s] = vscale(vsub(bvh_toe_position(&c, &legs[s], pos, end), pos[legs[s].ankle]), sc);
    }
    for (int f = 0; f < nf; ++f) {
        bvh_pose(&c, f + 1, pos, rot, end);
        pose *p = &ca->poses[f];
        cik_quat wr = qmul(rot[R], c0[R]);
        root[f] = vscale(pos[R], sc);
        p->pelvis = root[f];
        p->pelvis_q = qnorm(wr);
        for (int s = 0; s < 2; ++s) {
            cik_quat wh = qmul(rot[legs[s].hip], c0[legs[s].hip]);
            cik_quat wk = qmul(rot[legs[s].knee], c0[legs[s].knee]);
            cik_quat wa = qmul(rot[legs[s].ankle], c0[legs[s].ankle]);
            p->q[s][0] = qnorm(qmul(qconj(wr), wh));
            p->q[s][1] = qnorm(qmul(qconj(wh), wk));
            p->q[s][2] = qnorm(qmul(qconj(wk), wa));
            ankle[2 * f + s] = vscale(pos[legs[s].ankle], sc);
            soleup[2 * f + s] = qrot(qconj(wa), v3(0, 1, 0));
        }
    }
    /* stance: the ankle slow and low; the sole's up and the ankle height are
     * what the stance frames show */
    float *hs = malloc(sizeof(float) * 2 * (size_t)nf);
    for (int s = 0; s < 2; ++s) {
        float lo = 1e9f;
        for (int f = 0; f < nf; ++f) lo = fminf(lo, ankle[2 * f + s].y);
        cik_vec3 up = v3(0, 0, 0);
        int n = 0;
        float *w = malloc(sizeof(float) * (size_t)nf);
        for (int f = 0; f < nf; ++f) {
            int a = f > 0 ? f - 1 : f, b = f < nf - 1 ? f + 1 : f;
            cik_vec3 d = vsub(ankle[2 * b + s], ankle[2 * a + s]);
            float speed = sqrtf(d.x * d.x + d.z * d.z) / ((float)(b - a) * ca->dt);
            int st = speed < 0.3f && ankle[2 * f + s].y < lo + 0.06f;
            w[f] = st ? 1.0f : 0.0f;
            if (st) {
                up = vadd(up, soleup[2 * f + s]);
                hs[n++] = ankle[2 * f + s].y;
            }
        }
        qsort(hs, (size_t)n, sizeof(float), cmp_float);
        rg->leg[s].sole_normal = n ? vnorm(up) : v3(0, 1, 0);
        rg->leg[s].ankle_height = n ? pct_sorted(hs, (size_t)n, 0.5f) : lo;
        /* weights: 1 in stance, eased to 0 over the RAMP_S seconds of swing
         * next to it (before the landing and after the lift-off). A weight
         * that jumps to 1 at the landing asks the pelvis to drop at once
         * when the ground there is lower than the clip's floor, faster than
         * the pipeline lowers it (pelvis_drop_speed), and the landing foot
         * is held above the ground until the pelvis catches up. */
        const float RAMP_S = 0.12f;
        int ramp = (int)(RAMP_S / ca->dt + 0.5f);
        if (ramp < 1) ramp = 1;
        for (int f = 0; f < nf; ++f) {
            int d = ramp + 1;
            for (int k = 0; k <= ramp && d > ramp; ++k)
                if ((f - k >= 0 && w[f - k] > 0) || (f + k < nf && w[f + k] > 0)) d = k;
            ca->poses[f].weight[s] = d > ramp ? 0.0f : 1.0f - smooth01((float)d / (float)(ramp + 1));
        }
        free(w);
        /* heel: behind the ankle at the sole, a third of the toe's reach */
        cik_vec3 n3 = rg->leg[s].sole_normal;
        cik_vec3 t = rg->toe[s];
        cik_vec3 fwd = vsub(t, vscale(n3, vdot(t, n3)));
        rg->heel[s] = vsub(vscale(n3, -rg->leg[s].ankle_height), vscale(fwd, 0.3f));
        rg->toe[s] = vadd(vscale(n3, -rg->leg[s].ankle_height), fwd);
    }
    /* character space: pelvis xz relative to the first frame's, y as is */
    cik_vec3 r0 = root[0];
    for (int f = 0; f < nf; ++f) {
        ca->poses[f].pelvis.x -= r0.x;
        ca->poses[f].pelvis.z -= r0.z;
    }
    ca->travel = vsub(root[nf - 1], r0);
    ca->travel.y = 0;
    free(hs);
    free(pos);
    free(end);
    free(rot);
    free(c0);
    free(ankle);
    free(soleup);
    free(root);
    bvh_free(&c);
    return 0;
}

/* The clip at time t (seconds), looped with its travel carried on,
 * resampled between its frames: joint and pelvis rotations slerped, the
 * pelvis position and the IK weights lerped. The demo runs at 60 Hz and a
 * clip at its own rate (120 Hz for the CMU clips); picking the nearest
 * frame would make the motion step whenever the rates do not divide. `out`
 * (may be NULL) gets the pose; returns where the pelvis is (character space,
 * x and z). */
static cik_vec3 clip_sample(const clip_anim *ca, float t, pose *out)
{
    float loop = (float)(ca->frames - 1) * ca->dt;
    float loops = floorf(t / loop);
    float x = (t - loops * loop) / ca->dt;
    int f0 = (int)floorf(x);
    if (f0 < 0) f0 = 0;
    if (f0 > ca->frames - 2) f0 = ca->frames - 2;
    float u = clampf(x - (float)f0, 0.0f, 1.0f);
    const pose *a = &ca->poses[f0], *b = &ca->poses[f0 + 1];
    cik_vec3 p = vlerp(a->pelvis, b->pelvis, u);
    if (out) {
        out->pelvis = p;
        out->pelvis_q = qslerp(a->pelvis_q, b->pelvis_q, u);
        for (int s = 0; s < 2; ++s) {
            for (int j = 0; j < 3; ++j) out->q[s][j] = qslerp(a->q[s][j], b->q[s][j], u);
            out->weight[s] = a->weight[s] + (b->weight[s] - a->weight[s]) * u;
        }
    }
    return vadd(vscale(ca->travel, loops), v3(p.x, 0, p.z));
}

/* ---------------------------------------------------------------- crowd */

typedef struct character {
    float x0, z0, heading, size, phase;
    float floor; /* the character controller's ground height (smoothed) */
} character;

typedef struct record {
    /* per drawn frame: pelvis, both legs' hip, knee, ankle, heel, toe */
    cik_vec3 anim[2][5], solved[2][5];
    cik_vec3 pelvis, pelvis_solved;
} record;

#define PANELS 4

/* ---------------------------------------------------------------- picture */

/* The picture is drawn once per output through this small canvas: into an
 * SVG file, or into an RGB raster (anti-aliased lines and discs, filled
 * polygons; no text) that is then written as a PNG. */
typedef struct canvas {
    FILE *svg;          /* SVG output, or NULL */
    unsigned char *rgb; /* raster, w * h * 3 bytes, or NULL */
    int w, h;
} canvas;

static void px_blend(canvas *cv, int x, int y, uint32_t col, float a)
{
    if (x < 0 || y < 0 || x >= cv->w || y >= cv->h || !(a > 0.0f)) return;
    if (a > 1.0f) a = 1.0f;
    unsigned char *p = cv->rgb + 3 * ((size_t)y * (size_t)cv->w + (size_t)x);
    for (int k = 0; k < 3; ++k) {
        float c = (float)((col >> (16 - 8 * k)) & 255u);
        p[k] = (unsigned char)((float)p[k] + (c - (float)p[k]) * a + 0.5f);
    }
}

/* A segment `width` pixels wide; coverage from each pixel centre's distance
 * to the segment (one pixel of anti-aliasing). */
static void raster_segment(canvas *cv, float x0, float y0, float x1, float y1, float width, uint32_t col)
{
    float r = 0.5f * width + 0.5f;
    int xa = (int)floorf(fminf(x0, x1) - r), xb = (int)ceilf(fmaxf(x0, x1) + r);
    int ya = (int)floorf(fminf(y0, y1) - r), yb = (int)ceilf(fmaxf(y0, y1) + r);
    xa = xa < 0 ? 0 : xa;
    ya = ya < 0 ? 0 : ya;
    xb = xb >= cv->w ? cv->w - 1 : xb;
    yb = yb >= cv->h ? cv->h - 1 : yb;
    float dx = x1 - x0, dy = y1 - y0, l2 = dx * dx + dy * dy;
    for (int y = ya; y <= yb; ++y)
        for (int x = xa; x <= xb; ++x) {
            float px = (float)x + 0.5f - x0, py = (float)y + 0.5f - y0;
            float t = l2 > 0.0f ? clampf((px * dx + py * dy) / l2, 0.0f, 1.0f) : 0.0f;
            float ex = px - t * dx, ey = py - t * dy;
            px_blend(cv, x, y, col, r - sqrtf(ex * ex + ey * ey));
        }
}

static void cv_text(canvas *cv, float x, float y, int size, const char *text)
{
    if (cv->svg) fprintf(cv->svg, "<text x=\"%.0f\" y=\"%.1f\" font-size=\"%d\">%s</text>\n", x, y, size, text);
}

/* A polyline through n points (xy pairs), dashed 3 on 2 off if asked. */
static void cv_polyline(canvas *cv, const float *xy, int n, uint32_t col, float width, int dashed)
{
    if (cv->svg) {
        fprintf(cv->svg, "<path d=\"");
        for (int i = 0; i < n; ++i) fprintf(cv->svg, "%c%.1f %.1f", i ? 'L' : 'M', xy[2 * i], xy[2 * i + 1]);
        fprintf(cv->svg, "\" fill=\"none\" stroke=\"#%06x\" stroke-width=\"%.1f\" stroke-linejoin=\"round\"%s/>\n",
                (unsigned)col, width, dashed ? " stroke-dasharray=\"3 2\"" : "");
        return;
    }
    float along = 0.0f; /* position in the dash pattern, carried over corners */
    for (int i = 0; i + 1 < n; ++i) {
        float x0 = xy[2 * i], y0 = xy[2 * i + 1], x1 = xy[2 * i + 2], y1 = xy[2 * i + 3];
        if (!dashed) {
            raster_segment(cv, x0, y0, x1, y1, width, col);
            continue;
        }
        float len = sqrtf((x1 - x0) * (x1 - x0) + (y1 - y0) * (y1 - y0)), s = 0.0f;
        while (s < len) {
            float phase = fmodf(along, 5.0f), step = phase < 3.0f ? 3.0f - phase : 5.0f - phase;
            float e = fminf(len, s + step);
            if (phase < 3.0f && len > 0.0f)
                raster_segment(cv, x0 + (x1 - x0) * s / len, y0 + (y1 - y0) * s / len, x0 + (x1 - x0) * e / len,
                               y0 + (y1 - y0) * e / len, width, col);
            along += e - s;
            s = e;
        }
    }
}

/* A closed polygon, filled (even-odd, pixel centres) and outlined. */
static void cv_polygon(canvas *cv, const float *xy, int n, uint32_t fill, uint32_t stroke, float width)
{
    if (cv->svg) {
        fprintf(cv->svg, "<path d=\"");
        for (int i = 0; i < n; ++i) fprintf(cv->svg, "%c%.1f %.1f", i ? 'L' : 'M', xy[2 * i], xy[2 * i + 1]);
        fprintf(cv->svg, "Z\" fill=\"#%06x\" stroke=\"#%06x\" stroke-width=\"%.1f\"/>\n", (unsigned)fill,
                (unsigned)stroke, width);
        return;
    }
    float *xs = malloc(sizeof(float) * (size_t)n);
    if (!xs) return;
    for (int y = 0; y < cv->h; ++y) {
        float yc = (float)y + 0.5f;
        int m = 0;
        for (int i = 0; i < n; ++i) {
            float ax = xy[2 * i], ay = xy[2 * i + 1];
            float bx = xy[2 * ((i + 1) % n)], by = xy[2 * ((i + 1) % n) + 1];
            if ((ay <= yc) != (by <= yc)) xs[m++] = ax + (yc - ay) * (bx - ax) / (by - ay);
        }
        qsort(xs, (size_t)m, sizeof(float), cmp_float);
        for (int k = 0; k + 1 < m; k += 2)
            for (int x = (int)ceilf(xs[k] - 0.5f); (float)x + 0.5f <= xs[k + 1]; ++x) px_blend(cv, x, y, fill, 1.0f);
    }
    free(xs);
    float *closed = malloc(sizeof(float) * 2 * (size_t)(n + 1));
    if (!closed) return;
    memcpy(closed, xy, sizeof(float) * 2 * (size_t)n);
    closed[2 * n] = xy[0];
    closed[2 * n + 1] = xy[1];
    cv_polyline(cv, closed, n + 1, stroke, width, 0);
    free(closed);
}

static void cv_disc(canvas *cv, float cx, float cy, float r, uint32_t col)
{
    if (cv->svg) {
        fprintf(cv->svg, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.0f\" fill=\"#%06x\"/>\n", cx, cy, r, (unsigned)col);
        return;
    }
    raster_segment(cv, cx, cy, cx, cy, 2.0f * r - 1.0f, col);
}

/* PNG: 8-bit RGB, one IDAT holding a zlib stream of stored (uncompressed)
 * deflate blocks; CRC-32 per chunk, Adler-32 over the image data. Large
 * files, no dependency. */
static uint32_t crc32_update(uint32_t crc, const unsigned char *p, size_t n)
{
    static uint32_t table[256];
    if (!table[1])
        for (uint32_t i = 0; i < 256; ++i) {
            uint32_t c = i;
            for (int k = 0; k < 8; ++k) c = c & 1u ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            table[i] = c;
        }
    crc = ~crc;
    for (size_t i = 0; i < n; ++i) crc = table[(crc ^ p[i]) & 255u] ^ (crc >> 8);
    return ~crc;
}

static void put_be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static int png_chunk(FILE *fp, const char *type, const unsigned char *data, size_t n)
{
    unsigned char head[8], tail[4];
    put_be32(head, (uint32_t)n);
    memcpy(head + 4, type, 4);
    uint32_t crc = crc32_update(crc32_update(0, head + 4, 4), data, n);
    put_be32(tail, crc);
    return fwrite(head, 1, 8, fp) == 8 && (n == 0 || fwrite(data, 1, n, fp) == n) && fwrite(tail, 1, 4, fp) == 4;
}

static int write_png(const char *path, const unsigned char *rgb, int w, int h)
{
    size_t row = 1 + 3 * (size_t)w, raw_n = row * (size_t)h;
    size_t blocks = raw_n / 65535 + 1;
    size_t z_n = 2 + raw_n + 5 * blocks + 4;
    unsigned char *z = malloc(z_n);
    if (!z) return -1;
    /* zlib header: deflate, 32 KiB window, no dictionary; 0x7801 % 31 == 0 */
    size_t o = 0;
    z[o++] = 0x78;
    z[o++] = 0x01;
    uint32_t a = 1, b = 0; /* Adler-32 */
    size_t done = 0, y = 0, x = 0; /* position in the filtered rows */
    for (size_t k = 0; k < blocks; ++k) {
        size_t n = raw_n - done < 65535 ? raw_n - done : 65535;
        z[o++] = k + 1 == blocks ? 1 : 0; /* BFINAL, BTYPE 00 (stored) */
        z[o++] = (unsigned char)(n & 255u);
        z[o++] = (unsigned char)(n >> 8);
        z[o++] = (unsigned char)(~n & 255u);
        z[o++] = (unsigned char)((~n >> 8) & 255u);
        for (size_t i = 0; i < n; ++i) {
            /* byte x of row y: the filter type (0, none), then the pixels */
            unsigned char v = x == 0 ? 0 : rgb[y * 3 * (size_t)w + x - 1];
            if (++x == row) x = 0, ++y;
            z[o++] = v;
            a = (a + v) % 65521u;
            b = (b + a) % 65521u;
        }
        done += n;
    }
    put_be32(z + o, (b << 16) | a);
    o += 4;
    FILE *fp = fopen(path, "wb");
    if (!fp) {
        free(z);
        return -1;
    }
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    unsigned char ihdr[13];
    put_be32(ihdr, (uint32_t)w);
    put_be32(ihdr + 4, (uint32_t)h);
    ihdr[8] = 8;  /* bits per channel */
    ihdr[9] = 2;  /* RGB */
    ihdr[10] = 0; /* deflate */
    ihdr[11] = 0; /* adaptive filtering (every row: none) */
    ihdr[12] = 0; /* no interlace */
    int ok = fwrite(sig, 1, 8, fp) == 8 && png_chunk(fp, "IHDR", ihdr, 13) && png_chunk(fp, "IDAT", z, o) &&
             png_chunk(fp, "IEND", NULL, 0);
    free(z);
    if (fclose(fp) != 0) ok = 0;
    return ok ? 0 : -1;
}


static const char *usage =
    "usage: crowdik_demo [options]\n"
    "\n"
    "Runs a crowd walking over uneven ground and places every foot every frame\n"
    "with crowdik's batched foot-placement pipeline. Prints the time per frame\n"
    "and per stage, how well the stance feet meet the ground, joint-limit\n"
    "violations and solver convergence, and writes an SVG of a few characters\n"
    "side-on (animated legs faint, solved legs solid).\n"
    "\n"
    "  --characters N   crowd size (default 1000)\n"
    "  --frames N       frames to run at 60 Hz (default 300 = 5 s)\n"
    "  --threads N      solver threads (default 0 = all)\n"
    "  --backend NAME   auto, reference, scalar, sse, avx2, avx512, neon (default auto)\n"
    "  --seed N         crowd placement seed (default 1)\n"
    "  --out PATH       SVG output (default crowdik_demo.svg)\n"
    "  --png PATH       also the picture as a PNG (no text; uncompressed)\n"
    "  --view PATH      also an HTML page that plays the run in 3D in a browser\n"
    "                   (needs three.js: npm ci --prefix viewer; docs/viewer.md)\n"
    "  --bvh FILE       drive the crowd with a BVH clip instead of the built-in walk\n"
    "                   (legs found by name, scale detected from the leg length)\n"
    "  --bvh-scale F    file units to metres (default: detected)\n"
    "  --legs L:R       leg joints for --bvh, e.g.\n"
    "                   LeftUpLeg,LeftLeg,LeftFoot,LeftToeBase:RightUpLeg,RightLeg,RightFoot,RightToeBase\n"
    "  --start MODE     leg solve start pose: two-bone (default; knee and hip\n"
    "                   seeded analytically, CCD refines), knee (knee seeded),\n"
    "                   animation (plain CCD from the animated pose)\n"
    "  --quiet          print the report only (no progress line)\n"
    "  --help           this text\n"
    "\n"
    "Mocap data from mocap.cs.cmu.edu: the database was created with funding from\n"
    "NSF EIA-0196217.\n";

static int parse_int(const char *s, int lo, int hi, int *out)
{
    char *e;
    errno = 0;
    long v = strtol(s, &e, 10);
    if (!*s || *e || errno || v < lo || v > hi) return -1;
    *out = (int)v;
    return 0;
}

/* World transform of a character at time t: pelvis and leg pose. */
typedef struct world_pose {
    cik_vec3 pelvis;
    cik_quat pelvis_q;
    pose p;
} world_pose;

int main(int argc, char **argv)
{
    int characters = 1000, frames = 300, threads = 0, seed = 1, quiet = 0;
    const char *out_path = "crowdik_demo.svg", *png_path = NULL, *bvh_path = NULL, *legs_spec = NULL;
    const char *view_path = NULL; /* --view */
    float bvh_scale = 0;
    cik_backend backend = CIK_BACKEND_AUTO;
    int start = CIK_FOOT_START_TWO_BONE;
    static const char *start_names[3] = {"animation", "knee", "two-bone"};
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int needs = !strcmp(a, "--characters") || !strcmp(a, "--frames") || !strcmp(a, "--threads") ||
                    !strcmp(a, "--backend") || !strcmp(a, "--seed") || !strcmp(a, "--out") || !strcmp(a, "--png") ||
                    !strcmp(a, "--bvh") || !strcmp(a, "--bvh-scale") || !strcmp(a, "--legs") || !strcmp(a, "--start") ||
                    !strcmp(a, "--view");
        if (needs && !v) {
            fprintf(stderr, "crowdik_demo: %s needs a value (see --help)\n", a);
            return 2;
        }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage, stdout);
            return 0;
        } else if (!strcmp(a, "--characters")) {
            if (parse_int(v, 1, 10000000, &characters)) goto bad_value;
            ++i;
        } else if (!strcmp(a, "--frames")) {
            if (parse_int(v, 1, 1000000, &frames)) goto bad_value;
            ++i;
        } else if (!strcmp(a, "--threads")) {
            if (parse_int(v, 0, 4096, &threads)) goto bad_value;
            ++i;
        } else if (!strcmp(a, "--seed")) {
            if (parse_int(v, 0, 2147483647, &seed)) goto bad_value;
            ++i;
        } else if (!strcmp(a, "--backend")) {
            int found = 0;
            for (int b = 0; b < CIK_BACKEND_COUNT; ++b)
                if (!strcmp(v, b == 0 ? "auto" : cik_backend_name((cik_backend)b))) {
                    backend = (cik_backend)b;
                    found = 1;
                }
            if (!found) goto bad_value;
            if (!cik_backend_available(backend)) {
                fprintf(stderr, "crowdik_demo: backend '%s' is not available on this build or CPU\n", v);
                return 2;
            }
            ++i;
        } else if (!strcmp(a, "--out")) {
            out_path = v;
            ++i;
        } else if (!strcmp(a, "--png")) {
            png_path = v;
            ++i;
        } else if (!strcmp(a, "--view")) {
            view_path = v;
            ++i;
        } else if (!strcmp(a, "--bvh")) {
            bvh_path = v;
            ++i;
        } else if (!strcmp(a, "--legs")) {
            legs_spec = v;
            ++i;
        } else if (!strcmp(a, "--bvh-scale")) {
            char *e;
            bvh_scale = strtof(v, &e);
            if (*e || !(bvh_scale > 0) || !isfinite(bvh_scale)) goto bad_value;
            ++i;
        } else if (!strcmp(a, "--start")) {
            start = -1;
            for (int k = 0; k < 3; ++k)
                if (!strcmp(v, start_names[k])) start = k;
            if (start < 0) goto bad_value;
            ++i;
        } else if (!strcmp(a, "--quiet")) {
            quiet = 1;
        } else {
            fprintf(stderr, "crowdik_demo: unknown option '%s' (see --help)\n", a);
            return 2;
        }
        continue;
    bad_value:
        fprintf(stderr, "crowdik_demo: bad value '%s' for %s (see --help)\n", v, a);
        return 2;
    }

    /* --view: fail before the run when three.js is not installed */
    if (view_path) {
        char err[4608];
        if (view_check_assets(view_assets_dir(), err, sizeof err)) {
            fprintf(stderr, "crowdik_demo: %s\n", err);
            return 1;
        }
    }

    /* the clip, if any */
    clip_anim clip;
    memset(&clip, 0, sizeof clip);
    if (bvh_path) {
        char err[512];
        if (load_clip(bvh_path, legs_spec, bvh_scale, &clip, err, sizeof err)) {
            fprintf(stderr, "crowdik_demo: %s\n", err);
            return 1;
        }
    } else if (legs_spec) {
        fprintf(stderr, "crowdik_demo: --legs needs --bvh\n");
        return 2;
    }

    /* the crowd: placed at random, the first PANELS characters where the
     * picture wants them (a step up, up the ridge, over the ridge top, a
     * step down) */
    rng_state = 0x9E3779B97F4A7C15ull * (uint64_t)(seed + 1) + 1;
    const float dt = 1.0f / 60.0f;
    float half = 0.5f * sqrtf((float)characters) * 2.5f + 2.0f;
    character *ch = calloc((size_t)characters, sizeof *ch);
    rig *rigs = calloc((size_t)characters, sizeof *rigs);
    if (!ch || !rigs) {
        fprintf(stderr, "crowdik_demo: out of memory\n");
        return 1;
    }
    static const float panel_place[PANELS][3] = {
        {-6.0f, 5.0f, 0.0f}, {-2.0f, 3.0f, 0.5f * PI_F}, {6.5f, 3.0f, 0.5f * PI_F}, {-26.0f, 13.0f, 0.0f}};
    for (int c = 0; c < characters; ++c) {
        character *k = &ch[c];
        k->x0 = urand(-half, half);
        k->z0 = urand(-half, half);
        k->heading = urand(-PI_F, PI_F);
        k->size = urand(0.9f, 1.1f);
        k->phase = urand(0.0f, 10.0f);
        if (c < PANELS) {
            k->x0 = panel_place[c][0];
            k->z0 = panel_place[c][1];
            k->heading = panel_place[c][2];
            k->size = 1.0f;
            k->phase = 0.3f * (float)c;
        }
        if (bvh_path) {
            rigs[c] = clip.rig;
            k->size = 1.0f;
        } else {
            procedural_rig(k->size, &rigs[c]);
        }
    }
    float speed = bvh_path ? vlen(clip.travel) / ((float)(clip.frames - 1) * clip.dt) : WALK_SPEED;
    /* the field covers the crowd's square and the pictured characters'
     * places (x up to 26 m from the origin), whatever the crowd size */
    float reach_out = fmaxf(half, 26.0f) + 2.0f + speed * (float)frames * dt + 2.0f;

    /* the heightfield: 10 cm spacing over the crowd's whole walk */
    cik_heightfield hf;
    hf.spacing_x = hf.spacing_z = 0.1f;
    hf.origin_x = hf.origin_z = -reach_out;
    hf.count_x = hf.count_z = (int)(2.0f * reach_out / 0.1f) + 2;
    float *heights = malloc(sizeof(float) * (size_t)hf.count_x * (size_t)hf.count_z);
    if (!heights) {
        fprintf(stderr, "crowdik_demo: out of memory for the terrain\n");
        return 1;
    }
    for (int iz = 0; iz < hf.count_z; ++iz)
        for (int ix = 0; ix < hf.count_x; ++ix)
            heights[(size_t)iz * (size_t)hf.count_x + (size_t)ix] =
                terrain(hf.origin_x + (float)ix * hf.spacing_x, hf.origin_z + (float)iz * hf.spacing_z);
    hf.heights = heights;

    cik_foot_crowd *crowd;
    cik_status st = cik_foot_crowd_create(characters, rigs[0].leg, &crowd);
    for (int c = 1; st == CIK_OK && c < characters; ++c) st = cik_foot_crowd_set_legs(crowd, c, rigs[c].leg);
    if (st != CIK_OK) {
        fprintf(stderr, "crowdik_demo: cannot build the crowd: %s\n", cik_status_string(st));
        return 1;
    }
    cik_foot_streams s;
    cik_foot_crowd_streams(crowd, &s);
    cik_foot_options opt = cik_foot_default_options();
    opt.dt = dt;
    opt.solver.backend = backend;
    opt.solver.threads = threads;
    opt.start = start;

    /* statistics */
    enum { ST_ANIM, ST_PROBE, ST_GROUND, ST_PLACE, ST_SOLVE, ST_ALIGN, ST_TOTAL, ST_COUNT };
    static const char *stage_name[ST_COUNT] = {"animation (input)", "probe (FK)", "ground", "place",
                                               "solve", "align", "frame (probe..align)"};
    float *times[ST_COUNT];
    for (int k = 0; k < ST_COUNT; ++k) times[k] = malloc(sizeof(float) * (size_t)frames);
    size_t cap = (size_t)frames * 2 * (size_t)characters;
    float *err_stance = malloc(sizeof(float) * cap), *tilt_stance = malloc(sizeof(float) * cap);
    float *pen_stance = malloc(sizeof(float) * cap);
    size_t n_stance = 0;
    double passes = 0, converged = 0, solved_chains = 0, drop_sum = 0;
    float drop_max = 0, swing_pen_max = 0;
    /* the stance foot farthest from the ground, to say where the max is */
    struct { float err, above, drop; int frame, character, side; } worst = {-1.0f, 0, 0, 0, 0, 0};
    long violations = 0, hinge_back = 0;
    int draw_every = 10;
    int draw_frames = (frames + draw_every - 1) / draw_every;
    record *rec = calloc((size_t)PANELS * (size_t)draw_frames, sizeof(record));
    float *floor_start = calloc(PANELS, sizeof(float));
    if (!err_stance || !tilt_stance || !pen_stance || !rec || !floor_start) {
        fprintf(stderr, "crowdik_demo: out of memory for statistics\n");
        return 1;
    }
    int tty = !quiet && isatty(2) && (double)frames * characters > 2e5;
    /* --view: the page records every character's legs every frame */
    view *vw = NULL;
    if (view_path) {
        char scene[256];
        snprintf(scene, sizeof scene, "%d characters, %s", characters, bvh_path ? bvh_path : "procedural walk");
        if (!(vw = view_create(characters, 1.0f / dt, scene))) {
            fprintf(stderr, "crowdik_demo: out of memory for --view\n");
            return 1;
        }
        for (int c = 0; c < characters; ++c) view_set_legs(vw, c, rigs[c].leg, rigs[c].heel, rigs[c].toe);
        report_copy = view_report(vw);
    }
    const cik_batch *batch = cik_foot_crowd_batch(crowd);

    for (int fr = 0; fr < frames; ++fr) {
        float t = (float)fr * dt;
        double t0 = now();
        /* animation: what a game's animation system hands over */
        for (int c = 0; c < characters; ++c) {
            character *k = &ch[c];
            pose p;
            cik_vec3 travel;
            if (bvh_path) {
                travel = vsub(clip_sample(&clip, t + k->phase, &p), clip_sample(&clip, k->phase, NULL));
                p.pelvis.x = p.pelvis.z = 0;
            } else {
                walk_pose(&rigs[c], k->size, t + k->phase, &p);
                travel = v3(0, 0, WALK_SPEED * k->size * t);
            }
            cik_quat hq = qaxis(k->heading, 0, 1, 0);
            cik_vec3 cp = vadd(v3(k->x0, 0, k->z0), qrot(hq, vadd(travel, v3(p.pelvis.x, 0, p.pelvis.z))));
            /* a character controller: ground under the pelvis, smoothed */
            float g = terrain(cp.x, cp.z);
            k->floor = fr == 0 ? g : k->floor + (g - k->floor) * (1.0f - expf(-dt / 0.1f));
            cik_quat pq = qnorm(qmul(hq, p.pelvis_q));
            s.pelvis_x[c] = cp.x;
            s.pelvis_y[c] = k->floor + p.pelvis.y;
            s.pelvis_z[c] = cp.z;
            s.pelvis_qx[c] = pq.x;
            s.pelvis_qy[c] = pq.y;
            s.pelvis_qz[c] = pq.z;
            s.pelvis_qw[c] = pq.w;
            for (int side = 0; side < 2; ++side) {
                int f = 2 * c + side;
                for (int j = 0; j < 3; ++j) {
                    s.pose_x[j][f] = p.q[side][j].x;
                    s.pose_y[j][f] = p.q[side][j].y;
                    s.pose_z[j][f] = p.q[side][j].z;
                    s.pose_w[j][f] = p.q[side][j].w;
                }
                s.weight[f] = p.weight[side];
            }
        }
        double t1 = now();
        st = cik_foot_crowd_probe(crowd);
        double t2 = now();
        if (st == CIK_OK) st = cik_foot_crowd_ground_heightfield(crowd, &hf);
        double t3 = now();
        if (st == CIK_OK) st = cik_foot_crowd_place(crowd, &opt);
        double t4 = now();
        if (st == CIK_OK) st = cik_foot_crowd_solve(crowd, &opt);
        double t5 = now();
        if (st == CIK_OK) st = cik_foot_crowd_align(crowd, &opt);
        double t6 = now();
        if (st != CIK_OK) {
            fprintf(stderr, "crowdik_demo: frame %d failed: %s\n", fr, cik_status_string(st));
            return 1;
        }
        times[ST_ANIM][fr] = (float)(t1 - t0);
        times[ST_PROBE][fr] = (float)(t2 - t1);
        times[ST_GROUND][fr] = (float)(t3 - t2);
        times[ST_PLACE][fr] = (float)(t4 - t3);
        times[ST_SOLVE][fr] = (float)(t5 - t4);
        times[ST_ALIGN][fr] = (float)(t6 - t5);
        times[ST_TOTAL][fr] = (float)(t6 - t1);

        /* measurement (not timed) */
        for (int c = 0; c < characters; ++c) {
            float drop = s.pelvis_drop[c];
            drop_sum += drop;
            if (drop > drop_max) drop_max = drop;
            for (int side = 0; side < 2; ++side) {
                int f = 2 * c + side;
                const cik_foot_leg *leg = &rigs[c].leg[side];
                cik_result res;
                cik_batch_result(batch, f, &res);
                passes += res.iterations;
                converged += (res.flags & CIK_RESULT_CONVERGED) ? 1 : 0;
                solved_chains += 1;
                for (int j = 0; j < 3; ++j) {
                    cik_quat q = qq(s.solved_x[j][f], s.solved_y[j][f], s.solved_z[j][f], s.solved_w[j][f]);
                    if (cik_foot_limit_excess(&leg->limit[j], q) > 1e-3f) violations++;
                    if (j == 1) {
                        float ang = 2.0f * atan2f(q.x, q.w < 0 ? -q.w : q.w) * (q.w < 0 ? -1.0f : 1.0f);
                        if (ang < -1e-3f) hinge_back++;
                    }
                }
                cik_quat fq = qq(s.foot_qx[f], s.foot_qy[f], s.foot_qz[f], s.foot_qw[f]);
                cik_vec3 ank = v3(s.ankle_x[f], s.ankle_y[f], s.ankle_z[f]);
                cik_vec3 up = qrot(fq, leg->sole_normal);
                cik_vec3 sole = vsub(ank, vscale(up, leg->ankle_height));
                float h;
                cik_vec3 n;
                cik_heightfield_sample(&hf, sole.x, sole.z, &h, &n);
                if (s.weight[f] >= 0.999f) {
                    err_stance[n_stance] = fabsf(sole.y - h);
                    if (err_stance[n_stance] > worst.err) {
                        worst.err = err_stance[n_stance];
                        worst.above = sole.y - h;
                        worst.drop = s.pelvis_drop[c];
                        worst.frame = fr;
                        worst.character = c;
                        worst.side = side;
                    }
                    tilt_stance[n_stance] = acosf(clampf(vdot(up, n), -1, 1)) * 180.0f / PI_F;
                    float pen = fmaxf(0.0f, h - sole.y);
                    cik_vec3 pts[2] = {vadd(ank, qrot(fq, rigs[c].toe[side])), vadd(ank, qrot(fq, rigs[c].heel[side]))};
                    for (int k = 0; k < 2; ++k) {
                        float hh;
                        cik_heightfield_sample(&hf, pts[k].x, pts[k].z, &hh, NULL);
                        pen = fmaxf(pen, hh - pts[k].y);
                    }
                    pen_stance[n_stance] = pen;
                    n_stance++;
                } else {
                    swing_pen_max = fmaxf(swing_pen_max, h - sole.y);
                }
            }
        }
        if (vw && view_frame(vw, &s, NULL)) { /* --view */
            fprintf(stderr, "crowdik_demo: out of memory for --view\n");
            return 1;
        }
        /* the picture's records */
        if (fr % draw_every == 0) {
            for (int c = 0; c < PANELS && c < characters; ++c) {
                record *r = &rec[(size_t)(fr / draw_every) * PANELS + (size_t)c];
                if (fr == 0) floor_start[c] = ch[c].floor;
                cik_quat pq = qq(s.pelvis_qx[c], s.pelvis_qy[c], s.pelvis_qz[c], s.pelvis_qw[c]);
                cik_vec3 pp = v3(s.pelvis_x[c], s.pelvis_y[c], s.pelvis_z[c]);
                r->pelvis = pp;
                r->pelvis_solved = vsub(pp, v3(0, s.pelvis_drop[c], 0));
                for (int side = 0; side < 2; ++side) {
                    int f = 2 * c + side;
                    const rig *rg = &rigs[c];
                    const cik_foot_leg *leg = &rg->leg[side];
                    for (int which = 0; which < 2; ++which) {
                        cik_vec3 base = which ? r->pelvis_solved : pp;
                        cik_quat q[3];
                        for (int j = 0; j < 3; ++j)
                            q[j] = which ? qq(s.solved_x[j][f], s.solved_y[j][f], s.solved_z[j][f], s.solved_w[j][f])
                                         : qq(s.pose_x[j][f], s.pose_y[j][f], s.pose_z[j][f], s.pose_w[j][f]);
                        cik_vec3 *o = which ? r->solved[side] : r->anim[side];
                        cik_quat w0 = qmul(pq, q[0]), w1 = qmul(w0, q[1]), w2 = qmul(w1, q[2]);
                        o[0] = vadd(base, qrot(pq, leg->hip));
                        o[1] = vadd(o[0], qrot(w0, leg->thigh));
                        o[2] = vadd(o[1], qrot(w1, leg->shin));
                        o[3] = vadd(o[2], qrot(w2, rg->heel[side]));
                        o[4] = vadd(o[2], qrot(w2, rg->toe[side]));
                    }
                }
            }
        }
        if (tty && (fr % 10 == 0 || fr == frames - 1)) {
            fprintf(stderr, "\rframe %d/%d", fr + 1, frames);
            fflush(stderr);
        }
    }
    if (tty) fprintf(stderr, "\r%40s\r", "");

    /* report */
    report("crowdik %s foot placement demo: %d characters (%d legs), %d frames at 60 Hz, backend %s, %s\n",
           cik_version(), characters, 2 * characters, frames,
           cik_backend_name(backend == CIK_BACKEND_AUTO ? cik_backend_best() : backend),
           threads ? "threads as given" : "all threads");
    report("solve: CCD from the %s start pose, threshold %.2f mm, at most %d passes\n", start_names[start],
           1e3 * opt.solver.threshold, opt.solver.max_iterations);
    if (bvh_path)
        report("motion: %s (%d frames at %.0f fps, scale %.6g m/unit, legs %s; ankle height %.3f m)\n", bvh_path,
               clip.frames, 1.0 / clip.dt, clip.scale, clip.legs_desc, clip.rig.leg[0].ankle_height);
    else
        report("motion: procedural walk, 1.1 m/s, 1 s cycle; terrain: hills, %.0f-degree ridge, 10 cm steps\n",
               RIDGE_SLOPE_DEG);
    report("\ntime per frame (ms)      median      p99\n");
    for (int k = 0; k < ST_COUNT; ++k) {
        qsort(times[k], (size_t)frames, sizeof(float), cmp_float);
        report("  %-22s %8.3f %8.3f\n", stage_name[k], 1e3 * pct_sorted(times[k], (size_t)frames, 0.5f),
               1e3 * pct_sorted(times[k], (size_t)frames, 0.99f));
    }
    qsort(err_stance, n_stance, sizeof(float), cmp_float);
    qsort(tilt_stance, n_stance, sizeof(float), cmp_float);
    qsort(pen_stance, n_stance, sizeof(float), cmp_float);
    report("\nstance feet (%zu foot-frames)     median      p99      max\n", n_stance);
    report("  sole to ground (mm)       %8.3f %8.3f %8.3f\n", 1e3 * pct_sorted(err_stance, n_stance, 0.5f),
           1e3 * pct_sorted(err_stance, n_stance, 0.99f), n_stance ? 1e3 * err_stance[n_stance - 1] : 0.0);
    report("  sole off normal (deg)     %8.3f %8.3f %8.3f\n", pct_sorted(tilt_stance, n_stance, 0.5f),
           pct_sorted(tilt_stance, n_stance, 0.99f), n_stance ? tilt_stance[n_stance - 1] : 0.0);
    report("  toe/heel penetration (mm) %8.3f %8.3f %8.3f\n", 1e3 * pct_sorted(pen_stance, n_stance, 0.5f),
           1e3 * pct_sorted(pen_stance, n_stance, 0.99f), n_stance ? 1e3 * pen_stance[n_stance - 1] : 0.0);
    report("  swing sole penetration max (mm) %.3f\n", 1e3 * fmaxf(0.0f, swing_pen_max));
    if (worst.err >= 0.0f)
        report("  farthest: character %d, frame %d, %s foot, sole %.1f mm %s the ground (pelvis lowered %.1f mm)\n",
               worst.character, worst.frame, worst.side ? "right" : "left", 1e3 * fabsf(worst.above),
               worst.above >= 0.0f ? "above" : "below", 1e3 * worst.drop);
    report("\nlimit violations: %ld (knees bent backwards: %ld)\n", violations, hinge_back);
    report("converged: %.2f%% of leg solves, mean passes %.2f\n", 100.0 * converged / solved_chains,
           passes / solved_chains);
    report("pelvis lowered: mean %.1f mm, max %.1f mm\n", 1e3 * drop_sum / ((double)frames * characters),
           1e3 * drop_max);

    /* the picture: the SVG, and the same drawn into a raster for --png */
    static const char *titles[PANELS] = {"a 10 cm step up", "up a 15-degree slope", "over the ridge top and down",
                                         "a 10 cm step down"};
    const float px = 150.0f, width = 1200.0f;
    int panels = characters < PANELS ? characters : PANELS;
    int pose_step = 3; /* every 3rd record: one pose per 30 frames (0.5 s) */
    float top[PANELS], bottom[PANELS], height_total = 40.0f;
    for (int c = 0; c < panels; ++c) {
        cik_vec3 start = v3(ch[c].x0, 0, ch[c].z0);
        cik_vec3 dir = qrot(qaxis(ch[c].heading, 0, 1, 0), v3(0, 0, 1));
        float lo = 1e9f, hi = -1e9f;
        for (int i = 0; i <= 240; ++i) {
            cik_vec3 p = vadd(start, vscale(dir, -0.8f + (float)i * ((width - 60.0f) / px) / 240.0f));
            lo = fminf(lo, terrain(p.x, p.z));
        }
        for (int k = 0; k < draw_frames; ++k) hi = fmaxf(hi, rec[(size_t)k * PANELS + (size_t)c].pelvis.y);
        top[c] = hi + 0.25f;
        bottom[c] = lo - 0.15f;
        height_total += (top[c] - bottom[c]) * px + 40.0f; /* title 30, gap 10 */
    }
    for (int output = 0; output < 2; ++output) {
        const char *path = output ? png_path : out_path;
        if (!path) continue;
        canvas cv = {NULL, NULL, (int)width, (int)ceilf(height_total)};
        if (output == 0) {
            cv.svg = fopen(path, "w");
            if (!cv.svg) {
                fprintf(stderr, "crowdik_demo: cannot write %s: %s\n", path, strerror(errno));
                return 1;
            }
            fprintf(cv.svg,
                    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                    "font-family=\"sans-serif\" font-size=\"14\">\n<rect width=\"100%%\" height=\"100%%\" "
                    "fill=\"white\"/>\n",
                    width, height_total);
        } else {
            cv.rgb = malloc((size_t)cv.w * (size_t)cv.h * 3);
            if (!cv.rgb) {
                fprintf(stderr, "crowdik_demo: out of memory for the PNG\n");
                return 1;
            }
            memset(cv.rgb, 255, (size_t)cv.w * (size_t)cv.h * 3);
        }
        char line[256];
        snprintf(line, sizeof line,
                 "crowdik foot placement, side view, a pose every %.2f s (grey dashed: animation; solid: solved, "
                 "blue left leg, red right leg; dot: pelvis)",
                 (double)(draw_every * pose_step) * dt);
        cv_text(&cv, 10, 22, 16, line);
        float oy = 40.0f;
        for (int c = 0; c < panels; ++c) {
            cik_vec3 start = v3(ch[c].x0, 0, ch[c].z0);
            cik_vec3 dir = qrot(qaxis(ch[c].heading, 0, 1, 0), v3(0, 0, 1));
            float base_y = top[c];
            float panel_bottom = oy + 30.0f + (top[c] - bottom[c]) * px;
            /* side-on: forward to the right, up up */
#define SX(p) (40.0f + px * (vdot(vsub((p), start), dir) + 0.8f))
#define SY(p) (oy + 30.0f + px * (base_y - (p).y))
            snprintf(line, sizeof line, "character %d: %s", c,
                     bvh_path ? "the mocap clip on the procedural terrain" : titles[c]);
            cv_text(&cv, 10, oy + 18, 14, line);
            float ground[2 * 243];
            for (int i = 0; i <= 240; ++i) {
                float d = -0.8f + (float)i * ((width - 60.0f) / px) / 240.0f;
                cik_vec3 p = vadd(start, vscale(dir, d));
                p.y = terrain(p.x, p.z);
                ground[2 * i] = SX(p);
                ground[2 * i + 1] = SY(p);
            }
            ground[482] = width - 20.0f;
            ground[483] = panel_bottom;
            ground[484] = 40.0f;
            ground[485] = panel_bottom;
            cv_polygon(&cv, ground, 243, 0xece4d4u, 0x806040u, 1.5f);
            for (int k = 0; k < draw_frames; k += pose_step) {
                const record *r = &rec[(size_t)k * PANELS + (size_t)c];
                for (int which = 0; which < 2; ++which) {
                    for (int side = 1; side >= 0; --side) {
                        const cik_vec3 *o = which ? r->solved[side] : r->anim[side];
                        cik_vec3 pel = which ? r->pelvis_solved : r->pelvis;
                        /* pelvis, hip, knee, ankle, heel, toe, back to the ankle */
                        const cik_vec3 *pts[7] = {&pel, &o[0], &o[1], &o[2], &o[3], &o[4], &o[2]};
                        float xy[14];
                        for (int i = 0; i < 7; ++i) {
                            xy[2 * i] = SX(*pts[i]);
                            xy[2 * i + 1] = SY(*pts[i]);
                        }
                        if (which)
                            cv_polyline(&cv, xy, 7, side ? 0xd03020u : 0x2050d0u, 1.8f, 0);
                        else
                            cv_polyline(&cv, xy, 7, 0xa0a0a0u, 1.0f, 1);
                    }
                    if (which) cv_disc(&cv, SX(r->pelvis_solved), SY(r->pelvis_solved), 3.0f, 0x000000u);
                }
            }
#undef SX
#undef SY
            oy = panel_bottom + 10.0f;
        }
        if (cv.svg) {
            fprintf(cv.svg, "</svg>\n");
            if (fclose(cv.svg) != 0) {
                fprintf(stderr, "crowdik_demo: cannot write %s\n", path);
                return 1;
            }
        } else {
            int rc = write_png(path, cv.rgb, cv.w, cv.h);
            free(cv.rgb);
            if (rc != 0) {
                fprintf(stderr, "crowdik_demo: cannot write %s\n", path);
                return 1;
            }
        }
        printf("%spicture: %s\n", output ? "" : "\n", path);
    }
    if (vw) { /* --view */
        char err[4608];
        if (view_write(vw, view_path, view_assets_dir(), terrain, err, sizeof err)) {
            fprintf(stderr, "crowdik_demo: %s\n", err);
            return 1;
        }
        printf("view: %s (%d characters, %d frames; motion %.2f MB, terrain %.2f MB)\n", view_path, characters,
               frames, 1e-6 * (double)view_motion_bytes(vw), 1e-6 * (double)view_terrain_bytes(vw));
        report_copy = NULL;
        view_destroy(vw);
    }
    int ok = violations == 0;
    cik_foot_crowd_destroy(crowd);
    free(heights);
    free(ch);
    free(rigs);
    free(rec);
    free(floor_start);
    free(err_stance);
    free(tilt_stance);
    free(pen_stance);
    for (int k = 0; k < ST_COUNT; ++k) free(times[k]);
    free(clip.poses);
    return ok ? 0 : 1;
}
