/* Creatures for the herd: bodies, standing poses, procedural gaits
 * (creatures.h). */
#include "creatures.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "legs.h"
#include "scalar_math.h"

#define GAIT_HZ 60

const char *creature_name(creature_kind kind)
{
    switch (kind) {
    case CREATURE_BIPED: return "biped";
    case CREATURE_QUADRUPED: return "quadruped";
    case CREATURE_HEXAPOD: return "hexapod";
    }
    return NULL;
}

int creature_parse(const char *name)
{
    for (int k = 0; k < 3; ++k)
        if (name && strcmp(name, creature_name((creature_kind)k)) == 0) return k;
    return -1;
}

/* The standing angles about each hinge (and the hip's flexion about +X, or
 * the coxa's yaw about +Y), per leg and joint. */
typedef struct stance_angles {
    float a[CIK_HERD_MAX_SEGMENTS];
} stance_angles;

static void quadruped(float s, cik_herd_body *b)
{
    b->leg_count = 4;
    for (int side = 0; side < 2; ++side) {
        float x = side == 0 ? 1.0f : -1.0f;
        /* hind legs 0, 1: hip, stifle (tibia back: +), hock (cannon
         * forward: -), fetlock (pastern forward: -) */
        cik_herd_leg *h = &b->leg[side];
        h->root = CIK_HERD_PELVIS;
        h->segment_count = 4;
        h->hip = vec3(0.2f * s * x, -0.05f * s, 0.0f);
        h->segment[0] = vec3(0, -0.42f * s, 0);
        h->segment[1] = vec3(0, -0.45f * s, 0);
        h->segment[2] = vec3(0, -0.32f * s, 0);
        h->segment[3] = vec3(0, -0.12f * s, 0.03f * s);
        h->limit[0] = limit_swing_twist(vec3(0, -1, 0), -0.3f, 0.3f, 1.4f);
        h->limit[1] = limit_hinge(vec3(1, 0, 0), 0.2f, 2.0f);
        h->limit[2] = limit_hinge(vec3(1, 0, 0), -2.2f, -0.3f);
        h->limit[3] = limit_hinge(vec3(1, 0, 0), -1.2f, 0.3f);
        /* front legs 2, 3: shoulder, elbow (forearm forward: -), carpus
         * (cannon back: +) */
        cik_herd_leg *f = &b->leg[2 + side];
        f->root = CIK_HERD_CHEST;
        f->segment_count = 3;
        f->hip = vec3(0.18f * s * x, -0.15f * s, 0.0f);
        f->segment[0] = vec3(0, -0.33f * s, 0);
        f->segment[1] = vec3(0, -0.42f * s, 0);
        f->segment[2] = vec3(0, -0.42f * s, 0.03f * s);
        f->limit[0] = limit_swing_twist(vec3(0, -1, 0), -0.3f, 0.3f, 1.4f);
        f->limit[1] = limit_hinge(vec3(1, 0, 0), -2.0f, 0.0f);
        f->limit[2] = limit_hinge(vec3(1, 0, 0), -0.1f, 2.0f);
    }
}

static void hexapod(float s, cik_herd_body *b)
{
    b->leg_count = 6;
    for (int i = 0; i < 3; ++i) {
        for (int side = 0; side < 2; ++side) {
            float x = side == 0 ? 1.0f : -1.0f;
            cik_herd_leg *l = &b->leg[2 * i + side];
            l->root = CIK_HERD_PELVIS;
            l->segment_count = 3;
            l->hip = vec3(0.1f * s * x, 0.0f, (0.18f - 0.18f * (float)i) * s);
            l->segment[0] = vec3(0.06f * s * x, 0, 0);
            l->segment[1] = vec3(0.18f * s * x, 0, 0);
            l->segment[2] = vec3(0, -0.28f * s, 0);
            /* the coxa mostly yaws; femur and tibia hinge about the body's
             * long axis, positive up for the femur, out for the tibia */
            l->limit[0] = limit_swing_twist(vec3(0, 1, 0), -0.9f, 0.9f, 1.0f);
            l->limit[1] = limit_hinge(vec3(0, 0, x), -0.6f, 1.2f);
            l->limit[2] = limit_hinge(vec3(0, 0, x), -1.5f, 0.8f);
        }
    }
}

static void biped(float s, cik_herd_body *b)
{
    b->leg_count = 2;
    for (int side = 0; side < 2; ++side) {
        float x = side == 0 ? 1.0f : -1.0f;
        cik_herd_leg *l = &b->leg[side];
        l->root = CIK_HERD_PELVIS;
        l->segment_count = 3;
        l->hip = vec3(0.1f * s * x, -0.05f * s, 0.0f);
        l->segment[0] = vec3(0, -0.45f * s, 0);
        l->segment[1] = vec3(0, -0.42f * s, 0);
        l->segment[2] = vec3(0, -0.06f * s, 0.05f * s); /* the ankle to the ball */
        l->limit[0] = limit_swing_twist(vec3(0, -1, 0), -0.6f, 0.6f, 1.5f);
        l->limit[1] = limit_hinge(vec3(1, 0, 0), 0.0f, 2.6f);
        l->limit[2] = limit_swing_twist(vec3(0, -1, 0), -0.35f, 0.35f, 0.7f);
    }
}

void creature_body(creature_kind kind, float size, cik_herd_body *b)
{
    memset(b, 0, sizeof *b);
    b->forward = vec3(0, 0, 1);
    if (kind == CREATURE_QUADRUPED)
        quadruped(size, b);
    else if (kind == CREATURE_HEXAPOD)
        hexapod(size, b);
    else
        biped(size, b);
}

static stance_angles stance_of(creature_kind kind, int leg)
{
    stance_angles s;
    memset(&s, 0, sizeof s);
    if (kind == CREATURE_QUADRUPED) {
        static const float hind[4] = {-0.5f, 1.1f, -0.7f, -0.5f}, front[3] = {0.6f, -1.0f, 0.3f};
        for (int j = 0; j < 4; ++j) s.a[j] = leg < 2 ? hind[j] : (j < 3 ? front[j] : 0.0f);
    } else if (kind == CREATURE_HEXAPOD) {
        int i = leg / 2, side = leg % 2;
        float yaw = (i == 0 ? -0.35f : (i == 2 ? 0.35f : 0.0f)) * (side == 0 ? 1.0f : -1.0f);
        s.a[0] = yaw;
        s.a[1] = 0.5f;
        s.a[2] = -0.35f;
    } else {
        s.a[0] = -0.3f;
        s.a[1] = 0.6f;
        s.a[2] = -0.3f;
    }
    return s;
}

static cik_quat joint_rotation(creature_kind kind, const cik_herd_leg *leg, int j, float a)
{
    if (j == 0) return kind == CREATURE_HEXAPOD ? quat_axis_angle(a, 0, 1, 0) : quat_axis_angle(a, 1, 0, 0);
    if (leg->limit[j].type == CIK_LIMIT_HINGE)
        return quat_axis_angle(a, leg->limit[j].axis.x, leg->limit[j].axis.y, leg->limit[j].axis.z);
    return quat_axis_angle(a, 1, 0, 0);
}

/* The foot point of leg `leg` in its root's frame for rotations q. */
static cik_vec3 foot_in_root(const cik_herd_leg *leg, const cik_quat *q)
{
    cik_quat w = quat_identity();
    cik_vec3 x = leg->hip;
    for (int s = 0; s < leg->segment_count; ++s) {
        w = quat_mul(w, q[s]);
        x = vec3_add(x, quat_rotate(w, leg->segment[s]));
    }
    return x;
}

void creature_stance(creature_kind kind, const cik_herd_body *b, creature_pose *p)
{
    memset(p, 0, sizeof *p);
    float lowest[CIK_HERD_ROOTS] = {0, 0};
    for (int l = 0; l < b->leg_count; ++l) {
        const cik_herd_leg *leg = &b->leg[l];
        stance_angles s = stance_of(kind, l);
        for (int j = 0; j < CIK_HERD_MAX_SEGMENTS; ++j)
            p->q[l][j] = j < leg->segment_count ? joint_rotation(kind, leg, j, s.a[j]) : quat_identity();
        cik_vec3 foot = foot_in_root(leg, p->q[l]);
        if (foot.y < lowest[leg->root]) lowest[leg->root] = foot.y;
        p->stance[l] = 1.0f;
    }
    /* roots at the height that puts their feet on the floor; the chest
     * ahead of the pelvis by the body's length (a quadruped) */
    int chest = 0;
    for (int l = 0; l < b->leg_count; ++l) chest |= b->leg[l].root == CIK_HERD_CHEST;
    float half = kind == CREATURE_QUADRUPED ? 0.55f * vec3_length(b->leg[0].segment[1]) / 0.45f : 0.0f;
    p->root_p[CIK_HERD_PELVIS] = vec3(0, -lowest[CIK_HERD_PELVIS], -half);
    p->root_p[CIK_HERD_CHEST] = chest ? vec3(0, -lowest[CIK_HERD_CHEST], half) : p->root_p[CIK_HERD_PELVIS];
    p->root_q[0] = p->root_q[1] = quat_identity();
}

/* The gait's pattern: period, share of it on the ground, stride and
 * clearance (at size 1), each leg's phase offset. */
typedef struct gait_pattern {
    float period, duty, stride, clearance;
    float offset[CIK_HERD_MAX_LEGS];
} gait_pattern;

static gait_pattern pattern_of(creature_kind kind, float size)
{
    gait_pattern g;
    memset(&g, 0, sizeof g);
    if (kind == CREATURE_QUADRUPED) {
        /* a lateral-sequence walk: left hind, left fore, right hind, right fore */
        g.period = 1.2f;
        g.duty = 0.65f;
        g.stride = 0.45f * size;
        g.clearance = 0.1f * size;
        g.offset[0] = 0.0f;
        g.offset[2] = 0.25f;
        g.offset[1] = 0.5f;
        g.offset[3] = 0.75f;
    } else if (kind == CREATURE_HEXAPOD) {
        /* the tripod: front and hind left with middle right, then the others */
        g.period = 0.8f;
        g.duty = 0.55f;
        g.stride = 0.12f * size;
        g.clearance = 0.05f * size;
        for (int l = 0; l < 6; ++l) g.offset[l] = ((l / 2 + l % 2) % 2) ? 0.5f : 0.0f;
    } else {
        g.period = 1.0f;
        g.duty = 0.6f;
        g.stride = 0.4f * size;
        g.clearance = 0.08f * size;
        g.offset[1] = 0.5f;
    }
    return g;
}

/* Where the gait wants foot `l` at phase `ph` (in [0, 1)) relative to its
 * standing position: in stance it moves back at the body's speed (so that
 * it stands still in the world), in swing forward along a raised arc whose
 * speed and height start and end at zero. */
static cik_vec3 footfall(const gait_pattern *g, float ph, int *stance)
{
    float z, y = 0.0f;
    if (ph < g->duty) {
        z = g->stride * (0.5f - ph / g->duty);
        *stance = 1;
    } else {
        float u = (ph - g->duty) / (1.0f - g->duty);
        float e = u * u * (3.0f - 2.0f * u);
        z = g->stride * (e - 0.5f);
        y = g->clearance * 0.5f * (1.0f - cosf(6.2831853f * u));
        *stance = 0;
    }
    return vec3(0, y, z);
}

int creature_gait_build(creature_kind kind, const cik_herd_body *b, creature_gait *gait)
{
    memset(gait, 0, sizeof *gait);
    float size = vec3_length(b->leg[0].segment[1]) / (kind == CREATURE_QUADRUPED ? 0.45f : (kind == CREATURE_HEXAPOD ? 0.18f : 0.42f));
    gait_pattern g = pattern_of(kind, size);
    const int frames = (int)(g.period * GAIT_HZ + 0.5f);
    creature_pose stance;
    creature_stance(kind, b, &stance);
    gait->poses = (creature_pose *)calloc((size_t)frames, sizeof *gait->poses);
    if (!gait->poses) return -1;
    gait->frames = frames;
    gait->dt = 1.0f / GAIT_HZ;
    gait->speed = g.stride / (g.duty * g.period);
    cik_options o = cik_default_options();
    o.backend = CIK_BACKEND_REFERENCE;
    o.threshold = 5e-5f;
    o.max_iterations = 200;
    o.threads = 1;
    int status = 0;
    for (int l = 0; l < b->leg_count && status == 0; ++l) {
        const cik_herd_leg *leg = &b->leg[l];
        const int n = leg->segment_count;
        cik_batch *batch = NULL;
        if (cik_batch_create(1, n, &batch) != CIK_OK) {
            status = -1;
            break;
        }
        cik_chain c;
        memset(&c, 0, sizeof c);
        c.joint_count = n;
        c.root_position = stance.root_p[leg->root];
        c.root_rotation = quat_identity();
        c.offset[0] = leg->hip;
        for (int s = 0; s < n; ++s) {
            if (s > 0) c.offset[s] = leg->segment[s - 1];
            c.rotation[s] = stance.q[l][s];
            c.limit[s] = leg->limit[s];
        }
        c.effector = leg->segment[n - 1];
        cik_vec3 rest = vec3_add(c.root_position, foot_in_root(leg, stance.q[l]));
        rest.y = 0.0f;
        /* two loops from the standing pose, each frame from the last one's
         * solution; the second is kept (it starts where the loop ends) */
        for (int pass = 0; pass < 2 && status == 0; ++pass) {
            for (int k = 0; k < frames; ++k) {
                float ph = (float)k / (float)frames + g.offset[l];
                ph -= floorf(ph);
                int on;
                c.target = vec3_add(rest, footfall(&g, ph, &on));
                cik_vec3 pts[CIK_MAX_JOINTS + 1];
                cik_chain_forward(&c, pts, NULL);
                c.pole = vec3_add(pts[1], vec3(0, 0, 0));
                c.pole_weight = 0.0f;
                if (cik_batch_set_chain(batch, 0, &c) != CIK_OK || cik_solve(batch, &o) != CIK_OK) {
                    status = -1;
                    break;
                }
                cik_batch_get_chain(batch, 0, &c);
                cik_result r;
                cik_batch_result(batch, 0, &r);
                if (!(r.error < 1e-3f * size)) {
                    status = -1;
                    break;
                }
                if (pass == 1) {
                    creature_pose *p = &gait->poses[k];
                    for (int s = 0; s < CIK_HERD_MAX_SEGMENTS; ++s) p->q[l][s] = s < n ? c.rotation[s] : quat_identity();
                    p->stance[l] = (float)on;
                }
            }
        }
        cik_batch_destroy(batch);
    }
    if (status != 0) {
        creature_gait_free(gait);
        return -1;
    }
    for (int k = 0; k < frames; ++k) {
        for (int r = 0; r < CIK_HERD_ROOTS; ++r) {
            gait->poses[k].root_p[r] = stance.root_p[r];
            gait->poses[k].root_q[r] = quat_identity();
        }
    }
    return 0;
}

void creature_gait_free(creature_gait *gait)
{
    free(gait->poses);
    memset(gait, 0, sizeof *gait);
}

static cik_quat nlerp(cik_quat a, cik_quat b, float t)
{
    if (a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w < 0) b = quat(-b.x, -b.y, -b.z, -b.w);
    return quat_normalize(quat(a.x + t * (b.x - a.x), a.y + t * (b.y - a.y), a.z + t * (b.z - a.z),
                               a.w + t * (b.w - a.w)));
}

void creature_gait_sample(const creature_gait *gait, float t, creature_pose *pose)
{
    float u = t / gait->dt;
    u -= floorf(u / (float)gait->frames) * (float)gait->frames;
    int k0 = (int)u;
    if (k0 >= gait->frames) k0 = gait->frames - 1;
    if (k0 < 0) k0 = 0;
    int k1 = (k0 + 1) % gait->frames;
    float w = u - (float)k0;
    const creature_pose *a = &gait->poses[k0], *b = &gait->poses[k1];
    *pose = *a;
    for (int r = 0; r < CIK_HERD_ROOTS; ++r) {
        pose->root_p[r] = vec3_add(a->root_p[r], vec3_scale(vec3_sub(b->root_p[r], a->root_p[r]), w));
        pose->root_q[r] = nlerp(a->root_q[r], b->root_q[r], w);
    }
    for (int l = 0; l < CIK_HERD_MAX_LEGS; ++l) {
        for (int s = 0; s < CIK_HERD_MAX_SEGMENTS; ++s) pose->q[l][s] = nlerp(a->q[l][s], b->q[l][s], w);
        pose->stance[l] = w < 0.5f ? a->stance[l] : b->stance[l];
    }
}

void creature_pose_write(const creature_pose *p, const cik_herd_streams *s, int c, cik_vec3 at, float yaw,
                         int weights)
{
    cik_quat turn = quat_axis_angle(yaw, 0, 1, 0);
    for (int r = 0; r < CIK_HERD_ROOTS; ++r) {
        cik_vec3 x = vec3_add(at, quat_rotate(turn, p->root_p[r]));
        cik_quat q = quat_mul(turn, p->root_q[r]);
        s->root_x[r][c] = x.x;
        s->root_y[r][c] = x.y;
        s->root_z[r][c] = x.z;
        s->root_qx[r][c] = q.x;
        s->root_qy[r][c] = q.y;
        s->root_qz[r][c] = q.z;
        s->root_qw[r][c] = q.w;
    }
    s->floor_y[c] = at.y;
    for (int l = 0; l < s->leg_count; ++l) {
        const int f = c * s->leg_count + l;
        for (int j = 0; j < CIK_HERD_MAX_SEGMENTS; ++j) {
            s->pose_x[j][f] = p->q[l][j].x;
            s->pose_y[j][f] = p->q[l][j].y;
            s->pose_z[j][f] = p->q[l][j].z;
            s->pose_w[j][f] = p->q[l][j].w;
        }
        if (weights) s->weight[f] = p->stance[l];
    }
}
