/*
 * Forward kinematics of known poses (SPEC "Forward kinematics"), through
 * cik_chain_forward and through a batch with cik_batch_forward.
 */
#include "common.h"

#define TOL 1e-6

static void expect_near(cik_vec3 got, double x, double y, double z, const char *what, int j)
{
    cr_assert(fabs(got.x - x) <= TOL && fabs(got.y - y) <= TOL && fabs(got.z - z) <= TOL,
              "%s %d: got (%.9g, %.9g, %.9g), expected (%.9g, %.9g, %.9g)", what, j, got.x, got.y, got.z,
              x, y, z);
}

/* Checks a chain's joints and effector both ways: as a struct and from a batch. */
static void check_chain(const cik_chain *c, const double (*P)[3], const double *E)
{
    cik_vec3 pos[CIK_MAX_JOINTS], eff;
    cr_assert_eq(cik_chain_forward(c, pos, &eff), CIK_OK);
    for (int j = 0; j < c->joint_count; ++j) expect_near(pos[j], P[j][0], P[j][1], P[j][2], "chain joint", j);
    expect_near(eff, E[0], E[1], E[2], "chain effector", -1);

    /* the effector alone, and positions alone */
    cik_vec3 eff2;
    cr_assert_eq(cik_chain_forward(c, NULL, &eff2), CIK_OK);
    cr_assert_eq(memcmp(&eff, &eff2, sizeof eff), 0);
    cr_assert_eq(cik_chain_forward(c, pos, NULL), CIK_OK);

    cik_batch *b = NULL;
    cr_assert_eq(cik_batch_create(3, c->joint_count, &b), CIK_OK);
    cr_assert_eq(cik_batch_set_chain(b, 1, c), CIK_OK);
    cr_assert_eq(cik_batch_forward(b, 1, pos, &eff), CIK_OK);
    for (int j = 0; j < c->joint_count; ++j) expect_near(pos[j], P[j][0], P[j][1], P[j][2], "batch joint", j);
    expect_near(eff, E[0], E[1], E[2], "batch effector", -1);
    /* the untouched default chains sit at the origin */
    cr_assert_eq(cik_batch_forward(b, 0, pos, &eff), CIK_OK);
    expect_near(eff, 0, 0, 0, "default effector", -1);
    cr_assert_eq(cik_batch_forward(b, -1, pos, &eff), CIK_ERROR_ARGUMENT);
    cr_assert_eq(cik_batch_forward(b, 3, pos, &eff), CIK_ERROR_ARGUMENT);
    cr_assert_eq(cik_batch_forward(NULL, 0, pos, &eff), CIK_ERROR_ARGUMENT);
    cik_batch_destroy(b);
}

Test(forward, identity_chain_sums_offsets)
{
    cik_chain c = t_chain(4);
    c.root_position = t_v3(0.5f, -1.25f, 2.0f);
    c.offset[0] = t_v3(0.25f, 0.0f, 0.0f);
    c.offset[1] = t_v3(0.0f, 1.0f, 0.0f);
    c.offset[2] = t_v3(0.0f, 0.0f, -0.75f);
    c.offset[3] = t_v3(1.0f, 0.5f, 0.25f);
    c.effector = t_v3(-0.5f, 0.0f, 0.125f);
    const double P[4][3] = {{0.75, -1.25, 2.0}, {0.75, -0.25, 2.0}, {0.75, -0.25, 1.25}, {1.75, 0.25, 1.5}};
    const double E[3] = {1.25, 0.25, 1.625};
    check_chain(&c, P, E);
}

Test(forward, rotation_about_z_maps_offsets)
{
    /* joint 0 turns 90 degrees about +Z: +X -> +Y, +Y -> -X */
    cik_chain c = t_chain(2);
    c.offset[0] = t_v3(0.0f, 0.0f, 0.5f);
    c.offset[1] = t_v3(1.0f, 0.0f, 0.0f);
    c.effector = t_v3(0.0f, 2.0f, 0.0f);
    c.rotation[0] = t_angle_axis(M_PI / 2, 0, 0, 1);
    {
        const double P[2][3] = {{0, 0, 0.5}, {0, 1, 0.5}};
        const double E[3] = {-2, 1, 0.5};
        check_chain(&c, P, E);
    }
    /* joint 1 turns another 90 degrees about Z: the effector offset turns 180 */
    c.rotation[1] = t_angle_axis(M_PI / 2, 0, 0, 1);
    {
        const double P[2][3] = {{0, 0, 0.5}, {0, 1, 0.5}};
        const double E[3] = {0, -1, 0.5};
        check_chain(&c, P, E);
    }
    /* -90 degrees at joint 1 undoes joint 0 for the effector */
    c.rotation[1] = t_angle_axis(-M_PI / 2, 0, 0, 1);
    {
        const double P[2][3] = {{0, 0, 0.5}, {0, 1, 0.5}};
        const double E[3] = {0, 3, 0.5};
        check_chain(&c, P, E);
    }
}

Test(forward, root_rotation_and_position_applied)
{
    /* root turns 90 degrees about +Y: +X -> -Z, +Z -> +X */
    cik_chain c = t_chain(2);
    c.root_position = t_v3(1.0f, 2.0f, 3.0f);
    c.root_rotation = t_angle_axis(M_PI / 2, 0, 1, 0);
    c.offset[0] = t_v3(1.0f, 0.0f, 0.0f);
    c.offset[1] = t_v3(0.0f, 0.0f, 1.0f);
    c.effector = t_v3(0.0f, 1.0f, 0.0f);
    const double P[2][3] = {{1, 2, 2}, {2, 2, 2}};
    const double E[3] = {2, 3, 2};
    check_chain(&c, P, E);
}

Test(forward, composition_order_parent_first)
{
    /* W[0] = R_q * q[0]: q[0] (90 about X) applies first, then the root (90
     * about Z). (0,1,0) -> (0,0,1) -> (0,0,1); the other order would give
     * (-1,0,0). */
    cik_chain c = t_chain(1);
    c.root_rotation = t_angle_axis(M_PI / 2, 0, 0, 1);
    c.rotation[0] = t_angle_axis(M_PI / 2, 1, 0, 0);
    c.offset[0] = t_v3(1.0f, 0.0f, 0.0f); /* rotated by the root only: (0,1,0) */
    c.effector = t_v3(0.0f, 1.0f, 0.0f);
    const double P[1][3] = {{0, 1, 0}};
    const double E[3] = {0, 1, 1};
    check_chain(&c, P, E);
}

Test(forward, sixteen_joints_turning_square)
{
    /* every joint turns 90 degrees about Z, unit bones along X: the joints
     * walk round a unit square */
    cik_chain c = t_chain(CIK_MAX_JOINTS);
    for (int j = 0; j < CIK_MAX_JOINTS; ++j) {
        c.offset[j] = t_v3(j == 0 ? 0.0f : 1.0f, 0.0f, 0.0f);
        c.rotation[j] = t_angle_axis(M_PI / 2, 0, 0, 1);
    }
    c.effector = t_v3(1.0f, 0.0f, 0.0f);
    static const double dir[4][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
    double P[CIK_MAX_JOINTS][3], E[3];
    double x = 0, y = 0;
    for (int j = 0; j < CIK_MAX_JOINTS; ++j) {
        if (j > 0) {
            /* offset[j] is rotated by W[j-1] = 90 * j degrees */
            x += dir[j % 4][0];
            y += dir[j % 4][1];
        }
        P[j][0] = x;
        P[j][1] = y;
        P[j][2] = 0;
    }
    E[0] = x + dir[CIK_MAX_JOINTS % 4][0];
    E[1] = y + dir[CIK_MAX_JOINTS % 4][1];
    E[2] = 0;
    /* The float quaternion of 90 degrees is not exact and sixteen products
     * of it drift by a few 1e-6 from the ideal square: 1e-5 here. */
    cik_vec3 pos[CIK_MAX_JOINTS], eff;
    cr_assert_eq(cik_chain_forward(&c, pos, &eff), CIK_OK);
    for (int j = 0; j < CIK_MAX_JOINTS; ++j)
        cr_assert(t_dist(pos[j], t_v3((float)P[j][0], (float)P[j][1], 0)) < 1e-5, "joint %d: (%.9g, %.9g, %.9g)",
                  j, pos[j].x, pos[j].y, pos[j].z);
    cr_assert(t_dist(eff, t_v3((float)E[0], (float)E[1], 0)) < 1e-5);
    cik_batch *b = NULL;
    cr_assert_eq(cik_batch_create(1, CIK_MAX_JOINTS, &b), CIK_OK);
    cr_assert_eq(cik_batch_set_chain(b, 0, &c), CIK_OK);
    cik_vec3 bpos[CIK_MAX_JOINTS], beff;
    cr_assert_eq(cik_batch_forward(b, 0, bpos, &beff), CIK_OK);
    /* the batch path evaluates the same chain to the same bits */
    cr_assert_eq(memcmp(bpos, pos, sizeof pos), 0);
    cr_assert_eq(memcmp(&beff, &eff, sizeof eff), 0);
    cik_batch_destroy(b);
}

Test(forward, refuses_bad_chains)
{
    cik_vec3 pos[CIK_MAX_JOINTS + 1], eff;
    cr_assert_eq(cik_chain_forward(NULL, pos, &eff), CIK_ERROR_ARGUMENT);
    cik_chain c = t_chain(0);
    cr_assert_eq(cik_chain_forward(&c, pos, &eff), CIK_ERROR_ARGUMENT);
    c.joint_count = CIK_MAX_JOINTS + 1;
    cr_assert_eq(cik_chain_forward(&c, pos, &eff), CIK_ERROR_ARGUMENT);
    c.joint_count = -3;
    cr_assert_eq(cik_chain_forward(&c, pos, &eff), CIK_ERROR_ARGUMENT);
}
