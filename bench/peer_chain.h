/*
 * Forward kinematics of one cik_chain, for the engine baselines
 * (peer_threejs.c, peer_godot.c, two_bone.c). An engine keeps each bone's
 * world transform and refreshes a bone's children after changing it; these
 * helpers are that, on crowdik's chain description: joint j's world rotation
 * and origin, and the effector's world position.
 */
#ifndef CROWDIK_BENCH_PEER_CHAIN_H
#define CROWDIK_BENCH_PEER_CHAIN_H

#include "crowdik/crowdik.h"
#include "scalar_math.h"

/* World transforms of a chain's joints: q[j], p[j] for joint j, and the
 * effector's world position. */
typedef struct peer_pose {
    cik_quat q[CIK_MAX_JOINTS];
    cik_vec3 p[CIK_MAX_JOINTS];
    cik_vec3 effector;
} peer_pose;

/* Recomputes joints `first`..J-1 and the effector from the local rotations,
 * the joints before `first` being current (first = 0: the whole chain). */
static inline void peer_pose_update(const cik_chain *c, peer_pose *w, int first)
{
    for (int j = first; j < c->joint_count; ++j) {
        cik_quat pq = j == 0 ? c->root_rotation : w->q[j - 1];
        cik_vec3 pp = j == 0 ? c->root_position : w->p[j - 1];
        w->p[j] = vec3_add(pp, quat_rotate(pq, c->offset[j]));
        w->q[j] = quat_mul(pq, c->rotation[j]);
    }
    int last = c->joint_count - 1;
    w->effector = vec3_add(w->p[last], quat_rotate(w->q[last], c->effector));
}

/* The parent's world rotation of joint j (the root frame's for joint 0). */
static inline cik_quat peer_parent_rotation(const cik_chain *c, const peer_pose *w, int j)
{
    return j == 0 ? c->root_rotation : w->q[j - 1];
}

/* Component k (0, 1, 2: x, y, z) of v. */
static inline float peer_component(cik_vec3 v, int k) { return k == 0 ? v.x : (k == 1 ? v.y : v.z); }

static inline void peer_set_component(cik_vec3 *v, int k, float x)
{
    if (k == 0)
        v->x = x;
    else if (k == 1)
        v->y = x;
    else
        v->z = x;
}

/* Which coordinate axis a unit vector lies along: 0, 1 or 2 for X, Y, Z, and
 * its sign in *sign; -1 when it lies along none (within 1e-3). */
static inline int peer_coordinate_axis(cik_vec3 a, float *sign)
{
    const float v[3] = {a.x, a.y, a.z};
    for (int k = 0; k < 3; ++k) {
        if (fabsf(fabsf(v[k]) - 1.0f) < 1e-3f) {
            *sign = v[k] > 0 ? 1.0f : -1.0f;
            return k;
        }
    }
    *sign = 1.0f;
    return -1;
}

#endif
