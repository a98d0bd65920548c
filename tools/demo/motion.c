/*
 * crowdik_demo's motion: the procedural terrain, the characters' rigs, the
 * procedural walk and a BVH clip turned into poses for the rig, looped
 * (seamlessly by default: a cross-fade from its end into its start) and
 * played back at the demo's rate.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bvh.h"
#include "demo.h"
#include "legs.h"
#include "scalar_math.h"

/* ---------------------------------------------------------------- terrain */

static int terrain_kind = TERRAIN_PROCEDURAL;

void terrain_select(int kind) { terrain_kind = kind; }

/* The procedural terrain in double precision: in float, x + 2400 is only
 * good to 0.24 mm, which would put steps of that size into the ridge and
 * noise into a 1 mm difference. Hills everywhere; a ridge along x (period
 * 24 m: 4 m up at 15 degrees, 4 m flat, 4 m down, 12 m flat). */
static double terrain_smooth(double x, double z)
{
    double h = 0.18 * sin(0.31 * x + 0.5) * cos(0.23 * z) + 0.07 * sin(0.83 * x - 0.61 * z);
    double k = tan(RIDGE_SLOPE_DEG * 3.14159265358979323846 / 180.0);
    double xm = fmod(x + 2400.0, 24.0);
    double r = xm < 4 ? k * xm : (xm < 8 ? 4 * k : (xm < 12 ? k * (12 - xm) : 0));
    return h + r;
}

/* 10 cm steps along z: up at z = 8 mod 16, down at z = 0 mod 16. */
static double terrain_step(double z) { return fmod(z + 1600.0, 16.0) >= 8.0 ? 0.10 : 0.0; }

float terrain(float x, float z)
{
    if (terrain_kind == TERRAIN_FLAT) return 0.0f;
    return (float)(terrain_smooth(x, z) + terrain_step(z));
}

cik_vec3 terrain_normal(float x, float z)
{
    if (terrain_kind == TERRAIN_FLAT) return vec3(0, 1, 0);
    const double d = 1e-3;
    double gx = (terrain_smooth((double)x + d, z) - terrain_smooth((double)x - d, z)) / (2 * d);
    double gz = (terrain_smooth(x, (double)z + d) - terrain_smooth(x, (double)z - d)) / (2 * d);
    double n = sqrt(gx * gx + 1 + gz * gz);
    return vec3((float)(-gx / n), (float)(1 / n), (float)(-gz / n));
}

int terrain_place(float x, float z)
{
    if (terrain_kind == TERRAIN_FLAT) return TERRAIN_AT_OTHER;
    double zm = fmod((double)z + 1600.0, 8.0);
    if (zm < 0.15 || zm > 8.0 - 0.15) return TERRAIN_AT_STEP;
    double xm = fmod((double)x + 2400.0, 24.0);
    return xm < 4.0 || (xm >= 8.0 && xm < 12.0) ? TERRAIN_AT_SLOPE : TERRAIN_AT_OTHER;
}

/* ---------------------------------------------------------------- rig */

void procedural_rig(float s, rig *r)
{
    legs_adult(s, r->leg);
    for (int side = 0; side < 2; ++side) {
        r->leg[side].point[CIK_FOOT_HEEL] = vec3(0, -0.06f * s, -0.05f * s);
        r->leg[side].point[CIK_FOOT_BALL] = vec3(0, -0.06f * s, 0.10f * s);
        r->leg[side].point[CIK_FOOT_TOE] = vec3(0, -0.06f * s, 0.14f * s);
    }
}

/* ---------------------------------------------------------------- walk */

static float smooth01(float x)
{
    x = clampf(x, 0, 1);
    return x * x * (3 - 2 * x);
}

#define WALK_PERIOD 1.0f
#define STANCE 0.6f

/* Analytic two-bone leg: hip at h, ankle at a (character space), foot
 * pitch p (world, about +X). The knee bends in the leg's plane, which is
 * rolled about the forward axis (z) so that the ankle stays where the
 * foot is while the pelvis sways; the ankle takes the roll back so the sole
 * stays level. */
static void leg_ik(const cik_foot_leg *l, cik_vec3 h, cik_vec3 a, float pitch, cik_quat q[3])
{
    float ta = vec3_length(l->thigh), tb = vec3_length(l->shin);
    cik_vec3 v = vec3_sub(a, h);
    /* Rz(roll) takes (0, -|y|, z) to (v.x, v.y, z) */
    float roll = atan2f(v.x, -v.y), vy = -sqrtf(v.x * v.x + v.y * v.y);
    float d = sqrtf(vy * vy + v.z * v.z);
    float dmax = (ta + tb) * 0.9995f;
    if (d > dmax) d = dmax;
    float ck = (d * d - ta * ta - tb * tb) / (2 * ta * tb);
    float k = acosf(clampf(ck, -1, 1));
    /* ankle in the hip frame with the knee bent: u = thigh + Rx(k) shin */
    float uy = -(ta + tb * cosf(k)), uz = -tb * sinf(k);
    float au = atan2f(uz, -uy), av = atan2f(v.z, -vy);
    float th = au - av;
    q[0] = quat_mul(quat_axis_angle(roll, 0, 0, 1), quat_axis_angle(th, 1, 0, 0));
    q[1] = quat_axis_angle(k, 1, 0, 0);
    float ank = clampf(pitch - th - k, -0.6f, 0.6f);
    /* world foot = Rz(roll) Rx(th + k) q2 = Rx(th + k + ank) */
    cik_quat back = quat_mul(quat_mul(quat_axis_angle(-(th + k), 1, 0, 0), quat_axis_angle(-roll, 0, 0, 1)),
                             quat_axis_angle(th + k, 1, 0, 0));
    q[2] = quat_normalize(quat_mul(back, quat_axis_angle(ank, 1, 0, 0)));
}

/* Procedural walk at phase t (seconds) for body size s. */
void walk_pose(const rig *r, float s, float t, pose *out)
{
    float L = WALK_SPEED * s * WALK_PERIOD * STANCE; /* stance travel */
    cik_vec3 foot[2];
    float pitch[2];
    float ah = r->leg[0].ankle_height;
    for (int side = 0; side < 2; ++side) {
        float ph = t / WALK_PERIOD + (side ? 0.5f : 0.0f);
        ph -= floorf(ph);
        float x = r->leg[side].hip.x;
        if (ph < STANCE) {
            foot[side] = vec3(x, ah, L * 0.5f - L * ph / STANCE);
            pitch[side] = 0.0f;
            out->weight[side] = 1.0f;
        } else {
            float u = (ph - STANCE) / (1 - STANCE);
            float z = -L * 0.5f + L * (u - sinf(2 * SM_PI_F * u) / (2 * SM_PI_F));
            foot[side] = vec3(x, ah + 0.11f * s * sinf(SM_PI_F * u) * (1.0f - 0.3f * u), z);
            pitch[side] = -0.25f * sinf(SM_PI_F * u) + 0.15f * sinf(2 * SM_PI_F * u);
            /* IK weight (used with --contacts weights only): out over
             * the first 12 % of the swing, back in over the last 30 %
             * (120 ms), so that the pelvis has time to follow a foot
             * landing past a step down on a downhill slope (up to 20 cm
             * of drop). */
            out->weight[side] = u < 0.12f ? 1.0f - smooth01(u / 0.12f) : (u > 0.70f ? smooth01((u - 0.70f) / 0.30f) : 0.0f);
        }
    }
    /* the hip as high as both feet allow with knees bent >= 0.2 rad: a
     * minimum over both feet at all times is continuous in t, where one over
     * the planted feet alone jumped whenever a foot landed or lifted (the
     * stance knee by 20 degrees in a frame). The minimum is a smooth one
     * (quadratic, over 4 cm at size 1: the hip at most 1 cm lower where
     * both feet ask for the same height): the hard minimum's corners, where
     * the foot that holds the hip down changes, stopped a knee dead at its
     * 0.2 rad floor from 10 degrees a frame (a second difference of 5 to
     * 11 degrees a frame^2 in 12.6 percent of the foot-frames; 2.4 percent
     * with the smooth one). */
    float ta = vec3_length(r->leg[0].thigh), tb = vec3_length(r->leg[0].shin);
    float dmax = sqrtf(ta * ta + tb * tb + 2 * ta * tb * cosf(0.2f));
    float sway = 0.015f * s * sinf(2 * SM_PI_F * t / WALK_PERIOD);
    float y[2];
    for (int side = 0; side < 2; ++side) {
        float dz = foot[side].z;
        y[side] = foot[side].y + sqrtf(dmax * dmax - dz * dz - sway * sway);
    }
    const float kw = 0.04f * s, hw = fmaxf(kw - fabsf(y[0] - y[1]), 0.0f) / kw;
    float hip_y = fminf(y[0], y[1]) - 0.25f * kw * hw * hw;
    out->pelvis = vec3(sway, hip_y - r->leg[0].hip.y, 0);
    out->pelvis_q = quat(0, 0, 0, 1);
    /* the feet keep their own x: the sway moves the pelvis, not a planted
     * foot */
    for (int side = 0; side < 2; ++side)
        leg_ik(&r->leg[side], vec3_add(out->pelvis, r->leg[side].hip), foot[side], pitch[side], out->q[side]);
}


/* ---------------------------------------------------------------- BVH clip */

/* The legs named by --legs ("L,K,A[,T]:R,K,A[,T]"), or found by name. */
static int clip_legs(const bvh_clip *c, const char *legs_spec, bvh_leg legs[2], char *err, size_t errsz)
{
    if (!legs_spec) return bvh_find_legs(c, legs, err, errsz);
    char buf[512];
    snprintf(buf, sizeof buf, "%s", legs_spec);
    char *sides[2] = {buf, strchr(buf, ':')};
    if (!sides[1]) {
        snprintf(err, errsz, "--legs wants LHIP,LKNEE,LANKLE[,LTOE]:RHIP,RKNEE,RANKLE[,RTOE]");
        return -1;
    }
    *sides[1]++ = 0;
    for (int s = 0; s < 2; ++s) {
        char *n[4] = {0};
        int k = 0;
        for (char *tok = strtok(sides[s], ","); tok && k < 4; tok = strtok(NULL, ",")) n[k++] = tok;
        if (k < 3) {
            snprintf(err, errsz, "--legs: each side needs hip,knee,ankle[,toe]");
            return -1;
        }
        if (bvh_find_leg(c, n[0], n[1], n[2], n[3], &legs[s], err, errsz)) return -1;
    }
    return 0;
}

/* Per clip frame (1..N-1) and side: the ankle's world position (metres)
 * and the sole's up in the ankle frame, for the stance detection. */
typedef struct clip_tracks {
    cik_vec3 *ankle, *soleup, *root;
    /* per side, in the ankle frame (frame 0's world axes): the toe tip and
     * the toe joint (the ball; has_ball 0 when the leg has no toe joint) */
    cik_vec3 tip[2], ball[2];
    int has_ball[2];
} clip_tracks;

/* The rig from frame 0 and the poses of frames 1..N-1. Frame 0 (the
 * reference pose, legs vertical) is the bind pose: the canonical frame of
 * every joint is its frame-0 world frame. */
static int clip_poses(const bvh_clip *c, const bvh_leg legs[2], clip_anim *ca, clip_tracks *tr)
{
    int nj = c->joint_count, nf = ca->frames, R = 0;
    float sc = ca->scale;
    cik_vec3 *pos = malloc(sizeof(cik_vec3) * (size_t)nj), *end = malloc(sizeof(cik_vec3) * (size_t)nj);
    cik_quat *rot = malloc(sizeof(cik_quat) * (size_t)nj), *c0 = malloc(sizeof(cik_quat) * (size_t)nj);
    int ok = pos && end && rot && c0;
    if (ok) {
        bvh_pose(c, 0, pos, rot, end);
        for (int j = 0; j < nj; ++j) c0[j] = quat_conj(rot[j]);
        rig *rg = &ca->rig;
        memset(rg, 0, sizeof *rg);
        const cik_vec3 down = {0, -1, 0}, knee_axis = {1, 0, 0};
        for (int s = 0; s < 2; ++s) {
            cik_foot_leg *l = &rg->leg[s];
            l->hip = vec3_scale(vec3_sub(pos[legs[s].hip], pos[R]), sc);
            l->thigh = vec3_scale(vec3_sub(pos[legs[s].knee], pos[legs[s].hip]), sc);
            l->shin = vec3_scale(vec3_sub(pos[legs[s].ankle], pos[legs[s].knee]), sc);
            /* wide enough for what the clips do (49_04's leap swings a hip
             * past 1.7 rad and an ankle past 1.0): the pipeline keeps an
             * animated rotation within its limit, and a limit tighter than
             * the motion bends the swing legs away from the animation */
            l->limit[0] = limit_swing_twist(down, -0.9f, 0.9f, 2.0f);
            l->limit[1] = limit_hinge(knee_axis, 0.0f, 2.7f);
            l->limit[2] = limit_swing_twist(down, -0.7f, 0.7f, 1.1f);
            tr->tip[s] = vec3_scale(vec3_sub(bvh_toe_position(c, &legs[s], pos, end), pos[legs[s].ankle]), sc);
            tr->has_ball[s] = legs[s].toe >= 0;
            tr->ball[s] = tr->has_ball[s] ? vec3_scale(vec3_sub(pos[legs[s].toe], pos[legs[s].ankle]), sc) : tr->tip[s];
        }
        for (int f = 0; f < nf; ++f) {
            bvh_pose(c, f + 1, pos, rot, end);
            pose *p = &ca->poses[f];
            cik_quat wr = quat_mul(rot[R], c0[R]);
            tr->root[f] = vec3_scale(pos[R], sc);
            p->pelvis = tr->root[f];
            p->pelvis_q = quat_normalize(wr);
            for (int s = 0; s < 2; ++s) {
                cik_quat wh = quat_mul(rot[legs[s].hip], c0[legs[s].hip]);
                cik_quat wk = quat_mul(rot[legs[s].knee], c0[legs[s].knee]);
                cik_quat wa = quat_mul(rot[legs[s].ankle], c0[legs[s].ankle]);
                p->q[s][0] = quat_normalize(quat_mul(quat_conj(wr), wh));
                p->q[s][1] = quat_normalize(quat_mul(quat_conj(wh), wk));
                p->q[s][2] = quat_normalize(quat_mul(quat_conj(wk), wa));
                tr->ankle[2 * f + s] = vec3_scale(pos[legs[s].ankle], sc);
                tr->soleup[2 * f + s] = quat_rotate(quat_conj(wa), vec3(0, 1, 0));
            }
        }
    }
    free(pos);
    free(end);
    free(rot);
    free(c0);
    return ok ? 0 : -1;
}

/* The rule that puts heel, ball and toe on a clip's sole (docs/foot.md):
 * the sole is the plane ankle_height below the ankle along sole_normal; the
 * toe is the toe tip (the toe joint's End Site, or the ankle's) dropped onto
 * it, the ball the toe joint dropped onto it (without a toe joint: 0.7 of
 * the way from under the ankle to the toe, as in the procedural rig), the
 * heel behind the point under the ankle by 0.3 of the way to the toe. */
static void clip_points(cik_foot_leg *l, const clip_tracks *tr, int s)
{
    cik_vec3 n = l->sole_normal, under = vec3_scale(n, -l->ankle_height);
    cik_vec3 toe = vec3_sub(tr->tip[s], vec3_scale(n, vec3_dot(tr->tip[s], n) + l->ankle_height));
    cik_vec3 fwd = vec3_sub(toe, under);
    cik_vec3 ball = vec3_sub(tr->ball[s], vec3_scale(n, vec3_dot(tr->ball[s], n) + l->ankle_height));
    l->point[CIK_FOOT_HEEL] = vec3_sub(under, vec3_scale(fwd, 0.3f));
    l->point[CIK_FOOT_BALL] = tr->has_ball[s] ? ball : vec3_add(under, vec3_scale(fwd, 0.7f));
    l->point[CIK_FOOT_TOE] = toe;
}

/* Side s's stance (the ankle slow and low): the sole's up and the ankle
 * height are what the stance frames show (the foot's calibration); the
 * weights, used only with --contacts weights (by default the pipeline finds
 * the contacts itself): 1 in stance, eased to 0 over the RAMP_S seconds of
 * swing next to it (before the landing and after the lift-off), so that a
 * landing on ground lower than the clip's floor does not ask the pelvis to
 * drop at once. `hs` and `w` hold ca->frames floats each. */
static void clip_stance(clip_anim *ca, const clip_tracks *tr, int s, float *hs, float *w)
{
    const int nf = ca->frames;
    rig *rg = &ca->rig;
    float lo = 1e9f;
    for (int f = 0; f < nf; ++f) lo = fminf(lo, tr->ankle[2 * f + s].y);
    cik_vec3 up = vec3(0, 0, 0);
    int n = 0;
    for (int f = 0; f < nf; ++f) {
        int a = f > 0 ? f - 1 : f, b = f < nf - 1 ? f + 1 : f;
        cik_vec3 d = vec3_sub(tr->ankle[2 * b + s], tr->ankle[2 * a + s]);
        float speed = sqrtf(d.x * d.x + d.z * d.z) / ((float)(b - a) * ca->dt);
        int st = speed < 0.3f && tr->ankle[2 * f + s].y < lo + 0.06f;
        w[f] = st ? 1.0f : 0.0f;
        if (st) {
            up = vec3_add(up, tr->soleup[2 * f + s]);
            hs[n++] = tr->ankle[2 * f + s].y;
        }
    }
    qsort(hs, (size_t)n, sizeof(float), demo_cmp_float);
    rg->leg[s].sole_normal = n ? vec3_normalize(up) : vec3(0, 1, 0);
    rg->leg[s].ankle_height = n ? demo_percentile(hs, (size_t)n, 0.5f) : lo;
    const float RAMP_S = 0.12f;
    int ramp = (int)(RAMP_S / ca->dt + 0.5f);
    if (ramp < 1) ramp = 1;
    for (int f = 0; f < nf; ++f) {
        int d = ramp + 1;
        for (int k = 0; k <= ramp && d > ramp; ++k)
            if ((f - k >= 0 && w[f - k] > 0) || (f + k < nf && w[f + k] > 0)) d = k;
        ca->poses[f].weight[s] = d > ramp ? 0.0f : 1.0f - smooth01((float)d / (float)(ramp + 1));
    }
    clip_points(&rg->leg[s], tr, s);
}

/* The capture floor's tilt taken out: a clip whose stance ankles sink or
 * rise along the clip (12_01's fall from 9.5 to 6.2 cm over 3.9 m: a floor
 * or calibration tilt) would stand its feet below or above the ground the
 * character controller puts it on. A straight line fitted to the stance
 * ankle heights over the frames (both feet; stance as clip_stance finds
 * it) is subtracted from the pelvis height, about its mean, so the median
 * stance ankle height (the rig's ankle_height) stays what it was. */
static void clip_level_floor(clip_anim *ca, const clip_tracks *tr)
{
    double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int f = 0; f < ca->frames; ++f)
        for (int s = 0; s < 2; ++s)
            if (ca->poses[f].weight[s] >= 1.0f) {
                double x = f, y = tr->ankle[2 * f + s].y;
                n += 1;
                sx += x;
                sy += y;
                sxx += x * x;
                sxy += x * y;
            }
    double den = n * sxx - sx * sx;
    if (n < 2 || !(den > 0)) return;
    double slope = (n * sxy - sx * sy) / den, mean = sx / n;
    for (int f = 0; f < ca->frames; ++f) ca->poses[f].pelvis.y -= (float)(slope * ((double)f - mean));
}

/* ---------------------------------------------------------------- loop */

/* The rotation from q[f] to q[f + 1] in q[f]'s frame: a joint's one-frame
 * velocity. */
static cik_quat quat_step(cik_quat a, cik_quat b) { return quat_normalize(quat_mul(quat_conj(a), b)); }

/* How far poses i and j are apart for a loop that plays into j and goes on
 * from i (the gait's phase, not only its pose): the squared sum of both
 * legs' hip, knee and ankle and the pelvis's rotation angles (radians) and
 * the pelvis height (LOOP_HEIGHT_W per metre), and of the same quantities'
 * one-frame velocities (LOOP_VELOCITY_S seconds of the difference in
 * rad/s or m/s). i + 1 and j + 1 are poses. */
#define LOOP_HEIGHT_W 10.0
#define LOOP_VELOCITY_S 0.1
static double loop_distance(const clip_anim *ca, int i, int j)
{
    const pose *a = &ca->poses[i], *a1 = &ca->poses[i + 1], *b = &ca->poses[j], *b1 = &ca->poses[j + 1];
    const double v = LOOP_VELOCITY_S / (double)ca->dt;
    double d = 0, x;
    for (int s = 0; s < 2; ++s)
        for (int k = 0; k < 3; ++k) {
            x = quat_angle_between(a->q[s][k], b->q[s][k]);
            d += x * x;
            x = v * quat_angle_between(quat_step(a->q[s][k], a1->q[s][k]), quat_step(b->q[s][k], b1->q[s][k]));
            d += x * x;
        }
    x = quat_angle_between(a->pelvis_q, b->pelvis_q);
    d += x * x;
    x = v * quat_angle_between(quat_step(a->pelvis_q, a1->pelvis_q), quat_step(b->pelvis_q, b1->pelvis_q));
    d += x * x;
    x = LOOP_HEIGHT_W * ((double)a->pelvis.y - b->pelvis.y);
    d += x * x;
    x = LOOP_HEIGHT_W * v * (((double)a1->pelvis.y - a->pelvis.y) - ((double)b1->pelvis.y - b->pelvis.y));
    d += x * x;
    return d;
}

/* --loop blend: the start among the first LOOP_FADE_S seconds (and the
 * first quarter) of the clip, the end in its second half, where
 * loop_distance is least; then the cross-fade, LOOP_FADE_S seconds or the
 * frames there are past the end or in the loop, whichever is fewest. A
 * clip of fewer than 8 poses loops raw. */
#define LOOP_FADE_S 0.25f
static void clip_pick_loop(clip_anim *ca)
{
    const int nf = ca->frames;
    ca->loop_start = 0;
    ca->loop_end = nf - 1;
    ca->fade = 0;
    if (nf < 8) return;
    int k0 = (int)(LOOP_FADE_S / ca->dt + 0.5f);
    if (k0 < 1) k0 = 1;
    int smax = k0 < nf / 4 ? k0 : nf / 4;
    double best = -1;
    for (int s = 0; s <= smax; ++s)
        for (int e = nf / 2; e <= nf - 2; ++e) {
            double d = loop_distance(ca, s, e);
            if (best < 0 || d < best) {
                best = d;
                ca->loop_start = s;
                ca->loop_end = e;
            }
        }
    int k = k0, past = nf - 1 - ca->loop_end, len = ca->loop_end - ca->loop_start;
    if (k > past) k = past;
    if (k > len) k = len;
    ca->fade = k;
}

int clip_load(const char *path, const char *legs_spec, float scale_opt, int loop, clip_anim *ca, char *err,
              size_t errsz)
{
    memset(ca, 0, sizeof *ca);
    bvh_clip c;
    if (bvh_load(path, &c, err, errsz)) return -1;
    bvh_leg legs[2];
    clip_tracks tr;
    memset(&tr, 0, sizeof tr);
    float *hs = NULL, *w = NULL;
    int rc = -1;
    if (c.frame_count < 3) {
        snprintf(err, errsz, "%s: needs at least 3 frames (frame 0 is the reference pose)", path);
        goto done;
    }
    if (clip_legs(&c, legs_spec, legs, err, errsz)) goto done;
    ca->scale = scale_opt > 0 ? scale_opt : bvh_detect_scale(&c, &legs[0]);
    snprintf(ca->legs_desc, sizeof ca->legs_desc, "%.24s/%.24s/%.24s, %.24s/%.24s/%.24s", c.joints[legs[0].hip].name,
             c.joints[legs[0].knee].name, c.joints[legs[0].ankle].name, c.joints[legs[1].hip].name,
             c.joints[legs[1].knee].name, c.joints[legs[1].ankle].name);
    const int nf = c.frame_count - 1;
    ca->frames = nf;
    ca->dt = (float)c.frame_time;
    ca->poses = calloc((size_t)nf, sizeof(pose));
    tr.ankle = malloc(sizeof(cik_vec3) * 2 * (size_t)nf);
    tr.soleup = malloc(sizeof(cik_vec3) * 2 * (size_t)nf);
    tr.root = malloc(sizeof(cik_vec3) * (size_t)nf);
    hs = malloc(sizeof(float) * (size_t)nf);
    w = malloc(sizeof(float) * (size_t)nf);
    if (!ca->poses || !tr.ankle || !tr.soleup || !tr.root || !hs || !w || clip_poses(&c, legs, ca, &tr)) {
        snprintf(err, errsz, "%s: out of memory", path);
        goto done;
    }
    for (int s = 0; s < 2; ++s) clip_stance(ca, &tr, s, hs, w);
    clip_level_floor(ca, &tr);
    /* character space: pelvis xz relative to the first frame's, y as is */
    cik_vec3 r0 = tr.root[0];
    for (int f = 0; f < nf; ++f) {
        ca->poses[f].pelvis.x -= r0.x;
        ca->poses[f].pelvis.z -= r0.z;
    }
    ca->loop_start = 0;
    ca->loop_end = nf - 1;
    if (loop == LOOP_BLEND) clip_pick_loop(ca);
    ca->travel = vec3_sub(tr.root[ca->loop_end], tr.root[ca->loop_start]);
    ca->travel.y = 0;
    ca->speed = vec3_length(ca->travel) / ((float)(ca->loop_end - ca->loop_start) * ca->dt);
    rc = 0;
done:
    free(hs);
    free(w);
    free(tr.ankle);
    free(tr.soleup);
    free(tr.root);
    bvh_free(&c);
    if (rc) clip_free(ca);
    return rc;
}

void clip_free(clip_anim *ca)
{
    free(ca->poses);
    memset(ca, 0, sizeof *ca);
}

/* Pose b mixed into pose a by u: joint and pelvis rotations slerped, the
 * pelvis position and the IK weights lerped. `out` (may be NULL) gets the
 * pose; returns the pelvis position. */
static cik_vec3 pose_mix(const pose *a, const pose *b, float u, pose *out)
{
    cik_vec3 p = vec3_lerp(a->pelvis, b->pelvis, u);
    if (out) {
        out->pelvis = p;
        out->pelvis_q = quat_slerp(a->pelvis_q, b->pelvis_q, u);
        for (int s = 0; s < 2; ++s) {
            for (int j = 0; j < 3; ++j) out->q[s][j] = quat_slerp(a->q[s][j], b->q[s][j], u);
            out->weight[s] = a->weight[s] + (b->weight[s] - a->weight[s]) * u;
        }
    }
    return p;
}

/* The clip at frame x (poses, 0 .. frames - 1), between its frames
 * (pose_mix). */
static cik_vec3 clip_at(const clip_anim *ca, float x, pose *out)
{
    int f0 = (int)floorf(x);
    if (f0 < 0) f0 = 0;
    if (f0 > ca->frames - 2) f0 = ca->frames - 2;
    float u = clampf(x - (float)f0, 0.0f, 1.0f);
    return pose_mix(&ca->poses[f0], &ca->poses[f0 + 1], u, out);
}

/* The clip at time t (seconds), looped with its travel carried on,
 * resampled between its frames (clip_at). The demo runs at 60 Hz and a
 * clip at its own rate (120 Hz for the CMU clips); picking the nearest
 * frame would make the motion step whenever the rates do not divide.
 *
 * LOOP_RAW plays poses 0 .. frames - 1 and starts again at 0. With a
 * cross-fade (LOOP_BLEND), u frames into a loop (0 <= u < loop_end -
 * loop_start) the pose is that of frame loop_start + u, except over the
 * first `fade` frames: there it goes from frame loop_end + u (the clip
 * going on past the loop's end, its pelvis moved back by the loop's travel)
 * to loop_start + u, weight smoothstep(u / fade), rotations slerped, the
 * pelvis position and the weights lerped. At u = 0 that is the pose the
 * last loop ended on, at u = fade the clip's own, and the blend's weight
 * is flat at both ends: the pose and its velocity are continuous. */
cik_vec3 clip_sample(const clip_anim *ca, float t, pose *out)
{
    const float len = (float)(ca->loop_end - ca->loop_start);
    const float loop = len * ca->dt;
    float loops = floorf(t / loop);
    float u = clampf((t - loops * loop) / ca->dt, 0.0f, len);
    cik_vec3 p;
    if (u >= (float)ca->fade) {
        p = clip_at(ca, (float)ca->loop_start + u, out);
    } else {
        pose tail, head;
        clip_at(ca, (float)ca->loop_end + u, &tail);
        clip_at(ca, (float)ca->loop_start + u, &head);
        tail.pelvis = vec3_sub(tail.pelvis, ca->travel);
        p = pose_mix(&tail, &head, smooth01(u / (float)ca->fade), out);
    }
    return vec3_add(vec3_scale(ca->travel, loops), vec3(p.x, 0, p.z));
}
