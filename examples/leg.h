/*
 * The leg the examples solve (minimal.c builds one field by field): hip,
 * knee and ankle, metres and radians, -Y down the leg, +X the knee's hinge
 * axis, +Z forward. The thigh 0.45 m, the shin 0.42 m, the toe tip (the
 * effector) 6 cm below and 14 cm ahead of the ankle; the hip a ball joint
 * (twist +-0.6 rad, swing up to 1.5), the knee a hinge in [0, 2.6], the
 * ankle a ball joint (twist +-0.35, swing up to 0.7). Every rotation the
 * identity, the root at the origin, the hip at the root (offset[0] zero:
 * each example places its hips), no target yet. An engine reads its rig
 * from the skeleton.
 */
#ifndef CROWDIK_EXAMPLE_LEG_H
#define CROWDIK_EXAMPLE_LEG_H

#include <crowdik/crowdik.h>

static inline cik_chain example_leg(void)
{
    cik_chain c = {0};
    c.joint_count = 3;
    c.root_rotation = (cik_quat){0, 0, 0, 1};
    for (int j = 0; j < 3; ++j) c.rotation[j] = (cik_quat){0, 0, 0, 1};
    c.offset[1] = (cik_vec3){0.0f, -0.45f, 0.0f};
    c.offset[2] = (cik_vec3){0.0f, -0.42f, 0.0f};
    c.effector = (cik_vec3){0.0f, -0.06f, 0.14f};
    c.limit[0] = (cik_limit){CIK_LIMIT_SWING_TWIST, {0, -1, 0}, -0.6f, 0.6f, 1.5f};
    c.limit[1] = (cik_limit){CIK_LIMIT_HINGE, {1, 0, 0}, 0.0f, 2.6f, 0.0f};
    c.limit[2] = (cik_limit){CIK_LIMIT_SWING_TWIST, {0, -1, 0}, -0.35f, 0.35f, 0.7f};
    return c;
}

#endif
