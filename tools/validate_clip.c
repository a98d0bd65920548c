/*
 * crowdik_validate --bvh: the legs of a motion-capture clip as rows of
 * chains (validate_clip.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "validate_clip.h"

#include "bvh.h"
#include "crowdik/foot.h"
#include "scalar_math.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where chain `c`'s effector is with local rotations `q` (forward
 * kinematics as docs/solver.md defines it). */
static cik_vec3 chain_effector(const cik_chain *c, const cik_quat *q)
{
    cik_vec3 p = c->root_position;
    cik_quat w = c->root_rotation;
    for (int j = 0; j < c->joint_count; ++j) {
        p = vec3_add(p, quat_rotate(w, c->offset[j]));
        w = quat_normalize(quat_mul(w, q[j]));
    }
    return vec3_add(p, quat_rotate(w, c->effector));
}

int clip_set_load(const char *path, clip_set *cs)
{
    char err[512];
    bvh_clip c;
    memset(cs, 0, sizeof *cs);
    if (bvh_load(path, &c, err, sizeof err)) {
        fprintf(stderr, "crowdik_validate: %s\n", err);
        return 2;
    }
    bvh_leg legs[2];
    if (c.frame_count < 3) {
        fprintf(stderr, "crowdik_validate: %s: needs at least 3 frames (frame 0 is the reference pose)\n", path);
        bvh_free(&c);
        return 2;
    }
    if (bvh_find_legs(&c, legs, err, sizeof err)) {
        fprintf(stderr, "crowdik_validate: %s: %s\n", path, err);
        bvh_free(&c);
        return 2;
    }
    int nj = c.joint_count;
    cik_vec3 *pos = malloc(sizeof(cik_vec3) * (size_t)nj), *end = malloc(sizeof(cik_vec3) * (size_t)nj);
    cik_quat *rot = malloc(sizeof(cik_quat) * (size_t)nj), *c0 = malloc(sizeof(cik_quat) * (size_t)nj);
    cs->frames = c.frame_count - 1;
    cs->leg = malloc(sizeof(clip_leg) * 2 * (size_t)cs->frames);
    if (!pos || !end || !rot || !c0 || !cs->leg) {
        fprintf(stderr, "crowdik_validate: loading the clip: %s\n", cik_status_string(CIK_ERROR_OUT_OF_MEMORY));
        free(pos);
        free(end);
        free(rot);
        free(c0);
        free(cs->leg);
        cs->leg = NULL;
        bvh_free(&c);
        return 3;
    }
    float sc = bvh_detect_scale(&c, &legs[0]);
    cs->scale = sc;
    cs->fps = (float)(1.0 / c.frame_time);
    cs->has_toe = legs[0].toe >= 0 || c.joints[legs[0].ankle].has_end;
    snprintf(cs->legs, sizeof cs->legs, "%.24s/%.24s/%.24s/%.24s, %.24s/%.24s/%.24s/%.24s",
             c.joints[legs[0].hip].name, c.joints[legs[0].knee].name, c.joints[legs[0].ankle].name,
             legs[0].toe >= 0 ? c.joints[legs[0].toe].name : "end", c.joints[legs[1].hip].name,
             c.joints[legs[1].knee].name, c.joints[legs[1].ankle].name,
             legs[1].toe >= 0 ? c.joints[legs[1].toe].name : "end");
    bvh_pose(&c, 0, pos, rot, end);
    for (int j = 0; j < nj; ++j) c0[j] = quat_conj(rot[j]);
    for (int s = 0; s < 2; ++s) {
        int P = c.joints[legs[s].hip].parent;
        cs->offset[s][0] = vec3_scale(vec3_sub(pos[legs[s].hip], pos[P]), sc);
        cs->offset[s][1] = vec3_scale(vec3_sub(pos[legs[s].knee], pos[legs[s].hip]), sc);
        cs->offset[s][2] = vec3_scale(vec3_sub(pos[legs[s].ankle], pos[legs[s].knee]), sc);
    }
    for (int f = 0; f < cs->frames; ++f) {
        bvh_pose(&c, f + 1, pos, rot, end);
        for (int s = 0; s < 2; ++s) {
            const bvh_leg *l = &legs[s];
            int P = c.joints[l->hip].parent;
            cik_quat wp = quat_normalize(quat_mul(rot[P], c0[P])), wh = quat_normalize(quat_mul(rot[l->hip], c0[l->hip]));
            cik_quat wk = quat_normalize(quat_mul(rot[l->knee], c0[l->knee])), wa = quat_normalize(quat_mul(rot[l->ankle], c0[l->ankle]));
            clip_leg *o = &cs->leg[2 * f + s];
            o->root_position = vec3_scale(pos[P], sc);
            o->root_rotation = wp;
            o->q[0] = quat_normalize(quat_mul(quat_conj(wp), wh));
            o->q[1] = quat_normalize(quat_mul(quat_conj(wh), wk));
            o->q[2] = quat_normalize(quat_mul(quat_conj(wk), wa));
            o->effector = quat_rotate(quat_conj(wa), vec3_scale(vec3_sub(bvh_toe_position(&c, l, pos, end), pos[l->ankle]), sc));
        }
    }
    free(pos);
    free(end);
    free(rot);
    free(c0);
    bvh_free(&c);
    return 0;
}

/* Joint limits that hold the whole clip: the hip and the ankle a swing-twist
 * about the thigh and the shin, the knee a hinge about its mean rotation
 * axis, each range the clip's own widened by 0.1 rad. Every frame's pose,
 * clamped into these (as the solver clamps), is then a pose the limited leg
 * can take, so targets taken from the clip stay reachable. */
void clip_set_limits(clip_set *cs)
{
    const float margin = 0.1f;
    for (int s = 0; s < 2; ++s) {
        for (int j = 0; j < 3; ++j) {
            cik_limit *l = &cs->limit[s][j];
            memset(l, 0, sizeof *l);
            cik_vec3 axis;
            if (j == 1) {
                /* the knee's mean axis, each frame's counted on the side of
                 * the running sum, weighted by its angle */
                axis = vec3(0, 0, 0);
                for (int f = 0; f < cs->frames; ++f) {
                    cik_quat q = cs->leg[2 * f + s].q[1];
                    if (q.w < 0) q = (cik_quat){-q.x, -q.y, -q.z, -q.w};
                    cik_vec3 v = vec3(q.x, q.y, q.z);
                    if (v.x * axis.x + v.y * axis.y + v.z * axis.z < 0) v = vec3_scale(v, -1.0f);
                    axis = vec3_add(axis, v);
                }
                if (!(vec3_length(axis) > 1e-6f)) axis = vec3(1, 0, 0);
                l->type = CIK_LIMIT_HINGE;
            } else {
                axis = cs->offset[s][j + 1 < 3 ? j + 1 : 2];
                l->type = CIK_LIMIT_SWING_TWIST;
            }
            axis = vec3_scale(axis, 1.0f / vec3_length(axis));
            l->axis = axis;
            float lo = 3.14159265f, hi = -3.14159265f, swing = 0.0f;
            for (int f = 0; f < cs->frames; ++f) {
                cik_quat q = cs->leg[2 * f + s].q[j];
                if (q.w < 0) q = (cik_quat){-q.x, -q.y, -q.z, -q.w};
                float d = q.x * axis.x + q.y * axis.y + q.z * axis.z;
                float twist = 2.0f * atan2f(d, q.w);
                /* the swing's angle: |swing.w| = |twist.w| of q = sqrt(w^2 + d^2) */
                float sw = 2.0f * acosf(fminf(1.0f, sqrtf(q.w * q.w + d * d)));
                lo = fminf(lo, twist);
                hi = fmaxf(hi, twist);
                swing = fmaxf(swing, sw);
            }
            l->min_angle = fmaxf(-3.14159265f, lo - margin);
            l->max_angle = fminf(3.14159265f, hi + margin);
            l->swing_max = fminf(3.14159265f, swing + margin);
        }
    }
}

int clip_row_chains(const clip_row *row) { return 2 * (row->cs->frames - row->ahead); }

/* Chain i of a row; `r` draws the perturbations, chain after chain. */
static void clip_chain(const clip_row *row, int i, wl_rng *r, cik_chain *c)
{
    const clip_set *cs = row->cs;
    int f = i / 2, s = i % 2;
    const clip_leg *a = &cs->leg[2 * f + s], *b = &cs->leg[2 * (f + row->ahead) + s];
    memset(c, 0, sizeof *c);
    c->joint_count = 3;
    c->root_position = a->root_position;
    c->root_rotation = a->root_rotation;
    c->effector = a->effector;
    cik_quat goal[3];
    for (int j = 0; j < 3; ++j) {
        c->offset[j] = cs->offset[s][j];
        c->rotation[j] = a->q[j];
        goal[j] = b->q[j];
        if (row->limits) {
            c->limit[j] = cs->limit[s][j];
            goal[j] = cik_foot_apply_limit(&c->limit[j], goal[j]);
        }
    }
    c->target = chain_effector(c, goal);
    if (row->perturb > 0) {
        cik_vec3 d;
        do d = vec3(wl_uniform(r, -1, 1), wl_uniform(r, -1, 1), wl_uniform(r, -1, 1));
        while (vec3_length(d) > 1.0f);
        c->target = vec3_add(c->target, vec3_scale(d, row->perturb));
    }
}

/* Every chain of `b` from the row, repeated when the batch is larger. */
cik_status clip_fill(cik_batch *b, const clip_row *row)
{
    const int n = clip_row_chains(row), total = cik_batch_chain_count(b);
    wl_rng r;
    cik_status st = CIK_OK;
    cik_chain c;
    for (int i = 0; st == CIK_OK && i < total; ++i) {
        if (i % n == 0) wl_seed(&r, row->seed * 7919ull + (uint64_t)row->ahead);
        clip_chain(row, i % n, &r, &c);
        st = cik_batch_set_chain(b, i, &c);
    }
    return st;
}
