/*
 * Forward kinematics for callers (cik_chain_forward, cik_batch_forward):
 * SPEC's forward pass, world positions of the joints and the effector. The
 * arithmetic is the reference solver's, operation for operation, so that
 * what a caller recomputes from a solved chain is what the reference saw.
 * It is kept out of src/reference.c, the oracle, which serves the solver
 * alone.
 */
#include "internal.h"

static cik_vec3 add(cik_vec3 a, cik_vec3 b)
{
    cik_vec3 r = {a.x + b.x, a.y + b.y, a.z + b.z};
    return r;
}

static cik_vec3 scale(cik_vec3 a, float s)
{
    cik_vec3 r = {a.x * s, a.y * s, a.z * s};
    return r;
}

static cik_vec3 cross(cik_vec3 a, cik_vec3 b)
{
    cik_vec3 r = {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
    return r;
}

static cik_quat qmul(cik_quat a, cik_quat b)
{
    cik_quat r = {a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                  a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
    return r;
}

/* v' = q v q*, expanded: v + 2w (u x v) + 2 u x (u x v), u = q.xyz. */
static cik_vec3 rotate(cik_quat q, cik_vec3 v)
{
    cik_vec3 u = {q.x, q.y, q.z};
    cik_vec3 t = scale(cross(u, v), 2.0f);
    return add(add(v, scale(t, q.w)), cross(u, t));
}

cik_status cik_chain_forward(const cik_chain *c, cik_vec3 *joint_positions, cik_vec3 *effector)
{
    if (!c || c->joint_count < 1 || c->joint_count > CIK_MAX_JOINTS) return CIK_ERROR_ARGUMENT;
    cik_quat w = c->root_rotation;
    cik_vec3 p = c->root_position;
    for (int j = 0; j < c->joint_count; ++j) {
        /* the joint's position from its parent's frame, then its own frame */
        p = add(p, rotate(w, c->offset[j]));
        w = qmul(w, c->rotation[j]);
        if (joint_positions) joint_positions[j] = p;
    }
    if (effector) *effector = add(p, rotate(w, c->effector));
    return CIK_OK;
}

cik_status cik_batch_forward(const cik_batch *b, int index, cik_vec3 *joint_positions,
                             cik_vec3 *effector)
{
    if (!b || index < 0 || index >= b->chain_count) return CIK_ERROR_ARGUMENT;
    cik_chain c;
    cik__read_chain(b, index, &c);
    return cik_chain_forward(&c, joint_positions, effector);
}
