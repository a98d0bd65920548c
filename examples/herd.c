/*
 * A herd of quadrupeds standing on a slope (crowdik/herd.h): the hind legs
 * of four segments hang from the pelvis, the front legs of three from the
 * chest; each frame the engine writes the animated roots and joint
 * rotations, runs cik_herd_frame, and reads back the corrected roots (to
 * pose the skeleton's body) and the solved joint rotations. Here the
 * animation is a standing pose on flat ground, and the ground rises 15
 * degrees ahead: the bodies pitch with it and every hoof lands on it.
 */
#include <crowdik/herd.h>

#include <math.h>
#include <stdio.h>

#define HERD 64
#define PI 3.14159265f

static cik_limit hinge(float lo, float hi)
{
    cik_limit l = {CIK_LIMIT_HINGE, {1.0f, 0.0f, 0.0f}, lo, hi, 0.0f};
    return l;
}

static cik_quat about_x(float a)
{
    cik_quat q = {sinf(0.5f * a), 0.0f, 0.0f, cosf(0.5f * a)};
    return q;
}

int main(void)
{
    /* the body: hind legs 0, 1 (hip, stifle, hock, fetlock), front legs 2,
     * 3 (shoulder, elbow, carpus); +Z forward, -Y down the legs */
    cik_herd_body body = {0};
    body.leg_count = 4;
    body.forward = (cik_vec3){0.0f, 0.0f, 1.0f};
    const cik_limit hip = {CIK_LIMIT_SWING_TWIST, {0.0f, -1.0f, 0.0f}, -0.3f, 0.3f, 1.4f};
    for (int side = 0; side < 2; ++side) {
        float x = side ? -1.0f : 1.0f;
        cik_herd_leg *h = &body.leg[side], *f = &body.leg[2 + side];
        h->root = CIK_HERD_PELVIS;
        h->segment_count = 4;
        h->hip = (cik_vec3){0.2f * x, -0.05f, 0.0f};
        h->segment[0] = (cik_vec3){0.0f, -0.42f, 0.0f};
        h->segment[1] = (cik_vec3){0.0f, -0.45f, 0.0f};
        h->segment[2] = (cik_vec3){0.0f, -0.32f, 0.0f};
        h->segment[3] = (cik_vec3){0.0f, -0.12f, 0.03f};
        h->limit[0] = hip;
        h->limit[1] = hinge(0.2f, 2.0f);
        h->limit[2] = hinge(-2.2f, -0.3f);
        h->limit[3] = hinge(-1.2f, 0.3f);
        f->root = CIK_HERD_CHEST;
        f->segment_count = 3;
        f->hip = (cik_vec3){0.18f * x, -0.15f, 0.0f};
        f->segment[0] = (cik_vec3){0.0f, -0.33f, 0.0f};
        f->segment[1] = (cik_vec3){0.0f, -0.42f, 0.0f};
        f->segment[2] = (cik_vec3){0.0f, -0.42f, 0.03f};
        f->limit[0] = hip;
        f->limit[1] = hinge(-2.0f, 0.0f);
        f->limit[2] = hinge(-0.1f, 2.0f);
    }
    cik_herd *herd = NULL;
    cik_status st = cik_herd_create(HERD, &body, &herd);
    if (st != CIK_OK) {
        fprintf(stderr, "cik_herd_create: %s\n", cik_status_string(st));
        return 1;
    }
    cik_herd_streams s;
    cik_herd_streams_get(herd, &s);

    /* the standing pose's joint angles about +X, and where it puts the
     * roots above a flat floor (its feet at y = 0) */
    static const float hind[4] = {-0.5f, 1.1f, -0.7f, -0.5f}, front[3] = {0.6f, -1.0f, 0.3f};
    const float pelvis_height = 1.19049f, chest_height = 1.22411f, half_length = 0.55f;

    /* the ground: 40 m square, 0.5 m cells, rising 15 degrees along +Z */
    static float heights[81 * 81];
    const float slope = tanf(15.0f * PI / 180.0f);
    for (int iz = 0; iz < 81; ++iz)
        for (int ix = 0; ix < 81; ++ix) heights[iz * 81 + ix] = slope * (-20.0f + 0.5f * (float)iz);
    const cik_heightfield ground = {-20.0f, -20.0f, 0.5f, 0.5f, 81, 81, heights};

    cik_herd_options options = cik_herd_default_options();
    for (int frame = 0; frame < 30; ++frame) {
        for (int c = 0; c < HERD; ++c) {
            /* the engine's animation: each character at its place on the
             * ground (its character controller's floor), the pose as on
             * flat ground */
            float x = -8.0f + 2.0f * (float)(c % 8), z = -8.0f + 2.5f * (float)(c / 8);
            float floor_y;
            cik_heightfield_sample(&ground, x, z, &floor_y, NULL);
            s.floor_y[c] = floor_y;
            const float root_y[CIK_HERD_ROOTS] = {pelvis_height, chest_height};
            const float root_z[CIK_HERD_ROOTS] = {-half_length, half_length};
            for (int r = 0; r < CIK_HERD_ROOTS; ++r) {
                s.root_x[r][c] = x;
                s.root_y[r][c] = floor_y + root_y[r];
                s.root_z[r][c] = z + root_z[r];
                s.root_qx[r][c] = s.root_qy[r][c] = s.root_qz[r][c] = 0.0f;
                s.root_qw[r][c] = 1.0f;
            }
            for (int l = 0; l < 4; ++l) {
                const int f = c * s.leg_count + l;
                for (int j = 0; j < body.leg[l].segment_count; ++j) {
                    cik_quat q = about_x(l < 2 ? hind[j] : front[j]);
                    s.pose_x[j][f] = q.x;
                    s.pose_y[j][f] = q.y;
                    s.pose_z[j][f] = q.z;
                    s.pose_w[j][f] = q.w;
                }
            }
        }
        st = cik_herd_frame(herd, &ground, &options, 1.0f / 60.0f);
        if (st != CIK_OK) {
            fprintf(stderr, "cik_herd_frame: %s\n", cik_status_string(st));
            cik_herd_destroy(herd);
            return 1;
        }
    }

    /* every hoof on the ground, every body pitched with it */
    float worst = 0.0f, pitch_min = 1e9f, pitch_max = -1e9f;
    for (int c = 0; c < HERD; ++c) {
        pitch_min = fminf(pitch_min, s.body_pitch[c]);
        pitch_max = fmaxf(pitch_max, s.body_pitch[c]);
        for (int l = 0; l < 4; ++l) {
            const int f = c * s.leg_count + l;
            float y;
            cik_heightfield_sample(&ground, s.foot_x[f], s.foot_z[f], &y, NULL);
            worst = fmaxf(worst, fabsf(s.foot_y[f] - y));
        }
    }
    printf("herd: %d quadrupeds on a 15-degree slope: body pitch %.2f to %.2f deg, hooves within %.3f mm of the "
           "ground; character 0's body moved %.1f mm, its chest at y %.3f\n",
           HERD, pitch_min * 180.0f / PI, pitch_max * 180.0f / PI, worst * 1000.0f, 1000.0f * s.body_height[0],
           s.solved_root_y[CIK_HERD_CHEST][0]);
    cik_herd_destroy(herd);
    return worst < 5e-4f && fabsf(pitch_min * 180.0f / PI - 15.0f) < 0.1f ? 0 : 1;
}
