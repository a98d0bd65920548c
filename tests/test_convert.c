/*
 * The conversion helpers: strided writes and reads land in exactly the
 * stream entries cik_batch_get_chain reports (bitwise), for packed arrays,
 * per-character structs and [chain][joint] pose arrays; the world pose of
 * every joint is cik_chain_forward's (positions, effector) and the product
 * of the root and local rotations, for random chains of every workload
 * length, before and after a solve; bad spans are refused with nothing
 * changed.
 */
#include "common.h"

#define CHAINS 300
#define SEED 77u

typedef struct character {
    int id;
    cik_vec3 pelvis;
    float pad;
    cik_quat pelvis_rotation;
    cik_vec3 foot_target;
    cik_quat hip;
} character;

static cik_quat qmul_d(cik_quat a, cik_quat b)
{
    double x = (double)a.w * b.x + (double)a.x * b.w + (double)a.y * b.z - (double)a.z * b.y;
    double y = (double)a.w * b.y - (double)a.x * b.z + (double)a.y * b.w + (double)a.z * b.x;
    double z = (double)a.w * b.z + (double)a.x * b.y - (double)a.y * b.x + (double)a.z * b.w;
    double w = (double)a.w * b.w - (double)a.x * b.x - (double)a.y * b.y - (double)a.z * b.z;
    return t_q((float)x, (float)y, (float)z, (float)w);
}

Test(convert, strided_writes_and_reads_are_the_streams)
{
    cik_batch *b = t_workload_batch(WL_LEGS, SEED, CHAINS, 3);
    static character ch[CHAINS];
    static cik_quat pose[CHAINS][3], back[CHAINS][3];
    wl_rng rng;
    wl_seed(&rng, SEED);
    for (int i = 0; i < CHAINS; ++i) {
        ch[i].id = i;
        ch[i].pelvis = t_v3(wl_uniform(&rng, -50, 50), wl_uniform(&rng, 0.8f, 1.0f), wl_uniform(&rng, -50, 50));
        ch[i].pelvis_rotation = t_angle_axis(wl_uniform(&rng, -3, 3), 0, 1, 0);
        ch[i].foot_target = t_v3(ch[i].pelvis.x, 0.05f, ch[i].pelvis.z + 0.1f);
        for (int j = 0; j < 3; ++j) pose[i][j] = t_angle_axis(wl_uniform(&rng, -1, 1), 1, 0.1 * j, 0);
        ch[i].hip = pose[i][0];
    }
    cr_assert_eq(cik_batch_write_roots(b, 0, CHAINS, &ch[0].pelvis, sizeof(character), &ch[0].pelvis_rotation,
                                       sizeof(character)),
                 CIK_OK);
    cr_assert_eq(cik_batch_write_targets(b, 0, CHAINS, &ch[0].foot_target, sizeof(character)), CIK_OK);
    /* joint 0 from the structs, joints 1 and 2 from the pose array */
    cr_assert_eq(cik_batch_write_rotations(b, 0, 0, CHAINS, &ch[0].hip, sizeof(character)), CIK_OK);
    for (int j = 1; j < 3; ++j)
        cr_assert_eq(cik_batch_write_rotations(b, j, 0, CHAINS, &pose[0][j], sizeof pose[0]), CIK_OK);
    for (int i = 0; i < CHAINS; ++i) {
        cik_chain c;
        cr_assert_eq(cik_batch_get_chain(b, i, &c), CIK_OK);
        cr_expect(memcmp(&c.root_position, &ch[i].pelvis, sizeof(cik_vec3)) == 0, "chain %d root", i);
        cr_expect(memcmp(&c.root_rotation, &ch[i].pelvis_rotation, sizeof(cik_quat)) == 0, "chain %d root q", i);
        cr_expect(memcmp(&c.target, &ch[i].foot_target, sizeof(cik_vec3)) == 0, "chain %d target", i);
        cr_expect(memcmp(c.rotation, pose[i], sizeof pose[i]) == 0, "chain %d rotations", i);
    }
    /* a packed read of a part, then strided reads of all */
    static cik_quat part[CHAINS];
    cr_assert_eq(cik_batch_read_rotations(b, 1, 10, 50, part, 0), CIK_OK);
    for (int i = 0; i < 50; ++i) cr_expect(memcmp(&part[i], &pose[10 + i][1], sizeof(cik_quat)) == 0);
    for (int j = 0; j < 3; ++j)
        cr_assert_eq(cik_batch_read_rotations(b, j, 0, CHAINS, &back[0][j], sizeof back[0]), CIK_OK);
    cr_expect(memcmp(back, pose, sizeof pose) == 0, "read back what was written");

    /* refusals change nothing */
    cik_quat junk[4] = {{9, 9, 9, 9}, {9, 9, 9, 9}, {9, 9, 9, 9}, {9, 9, 9, 9}};
    cr_expect_eq(cik_batch_write_rotations(b, 3, 0, 1, junk, 0), CIK_ERROR_ARGUMENT, "joint out of range");
    cr_expect_eq(cik_batch_write_rotations(b, 0, CHAINS - 2, 4, junk, 0), CIK_ERROR_ARGUMENT, "past the end");
    cr_expect_eq(cik_batch_write_rotations(b, 0, -1, 2, junk, 0), CIK_ERROR_ARGUMENT);
    cr_expect_eq(cik_batch_write_rotations(b, 0, 0, -1, junk, 0), CIK_ERROR_ARGUMENT);
    cr_expect_eq(cik_batch_write_rotations(NULL, 0, 0, 1, junk, 0), CIK_ERROR_ARGUMENT);
    cr_expect_eq(cik_batch_write_targets(b, 0, 1, NULL, 0), CIK_ERROR_ARGUMENT);
    cr_expect_eq(cik_batch_write_roots(b, 0, 1, &ch[0].pelvis, 0, NULL, 0), CIK_ERROR_ARGUMENT);
    cr_expect_eq(cik_batch_read_rotations(b, 0, CHAINS, 1, junk, 0), CIK_ERROR_ARGUMENT);
    cr_expect_eq(cik_batch_write_rotations(b, 0, CHAINS, 0, junk, 0), CIK_OK, "an empty span at the end");
    for (int j = 0; j < 3; ++j)
        cr_assert_eq(cik_batch_read_rotations(b, j, 0, CHAINS, &back[0][j], sizeof back[0]), CIK_OK);
    cr_expect(memcmp(back, pose, sizeof pose) == 0, "refused calls changed nothing");
    cik_batch_destroy(b);
}

Test(convert, world_pose_is_forward_kinematics)
{
    static const wl_kind kinds[] = {WL_LEGS, WL_SPINE, WL_TAIL, WL_RANDOM};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k)
        for (int solved = 0; solved < 2; ++solved) {
            cik_batch *b = t_workload_batch(kinds[k], SEED, CHAINS, 16);
            if (solved) cr_assert_eq(cik_solve(b, NULL), CIK_OK);
            const int J = cik_batch_joint_count(b), first = 37, count = CHAINS - 37 - 5;
            cik_quat *W = (cik_quat *)calloc((size_t)count * (size_t)J, sizeof(cik_quat));
            cik_vec3 *P = (cik_vec3 *)calloc((size_t)count * (size_t)J, sizeof(cik_vec3));
            cik_vec3 *E = (cik_vec3 *)calloc((size_t)count, sizeof(cik_vec3));
            cr_assert(W && P && E);
            cr_assert_eq(cik_batch_world_pose(b, first, count, W, P, E), CIK_OK);
            double worst_p = 0.0, worst_q = 0.0;
            int exact = 1;
            for (int i = 0; i < count; ++i) {
                cik_chain c;
                cik_vec3 jp[CIK_MAX_JOINTS], e;
                cr_assert_eq(cik_batch_get_chain(b, first + i, &c), CIK_OK);
                cr_assert_eq(cik_chain_forward(&c, jp, &e), CIK_OK);
                cik_quat w = c.root_rotation;
                for (int j = 0; j < J; ++j) {
                    w = qmul_d(w, c.rotation[j]);
                    const cik_quat got = W[(size_t)i * J + j];
                    double dq = fabs((double)got.x - w.x) + fabs((double)got.y - w.y) + fabs((double)got.z - w.z) +
                                fabs((double)got.w - w.w);
                    double dp = t_dist(P[(size_t)i * J + j], jp[j]);
                    worst_q = dq > worst_q ? dq : worst_q;
                    worst_p = dp > worst_p ? dp : worst_p;
                    exact &= memcmp(&P[(size_t)i * J + j], &jp[j], sizeof(cik_vec3)) == 0;
                }
                double de = t_dist(E[i], e);
                worst_p = de > worst_p ? de : worst_p;
                exact &= memcmp(&E[i], &e, sizeof e) == 0;
            }
            /* float products of J + 1 unit quaternions: a few ulps per joint;
             * positions within a few ulps of the chain's extent */
            cr_expect_leq(worst_q, 4e-6 * (J + 1), "%s: world rotation off by %g", wl_name(kinds[k]), worst_q);
            cr_expect_leq(worst_p, 1e-5 * (J + 1), "%s: position off by %g", wl_name(kinds[k]), worst_p);
            cr_log_info("%s%s: world pose %s cik_chain_forward's bits", wl_name(kinds[k]), solved ? " solved" : "",
                        exact ? "has" : "differs from");
            /* NULL outputs are fine; a bad span is refused */
            cr_expect_eq(cik_batch_world_pose(b, first, count, NULL, NULL, E), CIK_OK);
            cr_expect_eq(cik_batch_world_pose(b, 1, CHAINS, W, P, E), CIK_ERROR_ARGUMENT);
            cr_expect_eq(cik_batch_world_pose(NULL, 0, 1, W, P, E), CIK_ERROR_ARGUMENT);
            free(W);
            free(P);
            free(E);
            cik_batch_destroy(b);
        }
}
