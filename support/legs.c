/* Joint limits and the adult leg (legs.h). */
#include "legs.h"

#include <string.h>

cik_limit limit_none(void)
{
    cik_limit l;
    memset(&l, 0, sizeof l);
    return l;
}

cik_limit limit_hinge(cik_vec3 axis, float min_rad, float max_rad)
{
    cik_limit l = limit_none();
    l.type = CIK_LIMIT_HINGE;
    l.axis = axis;
    l.min_angle = min_rad;
    l.max_angle = max_rad;
    return l;
}

cik_limit limit_swing_twist(cik_vec3 axis, float min_rad, float max_rad, float swing_max_rad)
{
    cik_limit l = limit_hinge(axis, min_rad, max_rad);
    l.type = CIK_LIMIT_SWING_TWIST;
    l.swing_max = swing_max_rad;
    return l;
}

void legs_adult(float size, cik_foot_leg legs[2])
{
    const cik_vec3 down = {0, -1, 0}, knee_axis = {1, 0, 0};
    memset(legs, 0, 2 * sizeof *legs);
    for (int side = 0; side < 2; ++side) {
        cik_foot_leg *l = &legs[side];
        l->hip.x = side == 0 ? 0.1f * size : -0.1f * size;
        l->hip.y = -0.05f * size;
        l->thigh.y = -0.45f * size;
        l->shin.y = -0.42f * size;
        l->limit[0] = limit_swing_twist(down, -0.6f, 0.6f, 1.5f);
        l->limit[1] = limit_hinge(knee_axis, 0.0f, 2.6f);
        l->limit[2] = limit_swing_twist(down, -0.35f, 0.35f, 0.7f);
        l->sole_normal.y = 1;
        l->ankle_height = 0.06f * size;
    }
}
