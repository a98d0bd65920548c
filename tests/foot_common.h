/*
 * What the foot-placement test files share: a crowd with its streams and
 * the legs it was made with, and writing a character's animated pose into
 * those streams.
 */
#ifndef CROWDIK_TESTS_FOOT_COMMON_H
#define CROWDIK_TESTS_FOOT_COMMON_H

#include <crowdik/foot.h>

typedef struct scene {
    cik_foot_crowd *crowd;
    cik_foot_streams s;
    cik_foot_leg legs[2];
} scene;

/* The pelvis of character c at (x, y, z), turned by r. */
static inline void set_pelvis_pose(scene *sc, int c, float x, float y, float z, cik_quat r)
{
    sc->s.pelvis_x[c] = x;
    sc->s.pelvis_y[c] = y;
    sc->s.pelvis_z[c] = z;
    sc->s.pelvis_qx[c] = r.x;
    sc->s.pelvis_qy[c] = r.y;
    sc->s.pelvis_qz[c] = r.z;
    sc->s.pelvis_qw[c] = r.w;
}

/* The animated hip, knee and ankle rotations of foot f. */
static inline void set_joints(scene *sc, int f, const cik_quat q[3])
{
    for (int j = 0; j < 3; ++j) {
        sc->s.pose_x[j][f] = q[j].x;
        sc->s.pose_y[j][f] = q[j].y;
        sc->s.pose_z[j][f] = q[j].z;
        sc->s.pose_w[j][f] = q[j].w;
    }
}

#endif
