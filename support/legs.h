/*
 * Joint limits and legs for the tools, tests and benchmarks: the limit
 * constructors every one of them needs, and the adult leg that the
 * workloads (workloads.h, WL_LEGS), the demo's procedural walk and the
 * foot benchmarks share. Not part of libcrowdik.
 */
#ifndef CROWDIK_SUPPORT_LEGS_H
#define CROWDIK_SUPPORT_LEGS_H

#include "crowdik/crowdik.h"
#include "crowdik/foot.h"

#ifdef __cplusplus
extern "C" {
#endif

/* No limit (every field zero). */
cik_limit limit_none(void);
/* A hinge about `axis` (need not be unit), angles in radians. */
cik_limit limit_hinge(cik_vec3 axis, float min_rad, float max_rad);
/* Swing-twist: twist about `axis` in [min_rad, max_rad], swing off it at
 * most swing_max_rad. */
cik_limit limit_swing_twist(cik_vec3 axis, float min_rad, float max_rad, float swing_max_rad);

/* The adult leg at body size `size` (1: thigh 0.45 m, shin 0.42 m, hip
 * 0.1 m to the side and 0.05 m below the pelvis, ankle 0.06 m above the
 * sole; -Y is down the leg, +X the knee's hinge axis, +Z forward): legs[0]
 * the left (+X side), legs[1] the right. Limits: hip swing-twist about -Y
 * (twist +-0.6, swing 1.5), knee hinge about +X in [0, 2.6], ankle
 * swing-twist about -Y (twist +-0.35, swing 0.7). */
void legs_adult(float size, cik_foot_leg legs[2]);

#ifdef __cplusplus
}
#endif

#endif
