/*
 * A million legs in one batch: created, filled the way an engine fills it
 * every frame (set up once with cik_batch_set_chain, then targets, roots and
 * start poses through the bulk streams), solved, and the memory it takes
 * per chain reported (docs/layout.md quotes the figure).
 */
#include "common.h"

#define MILLION 1000000

Test(large, million_leg_batch_bulk_fill_and_solve, .timeout = 300)
{
    const int n = MILLION, J = 3;
    cik_batch *b = NULL;
    double t0 = wl_now();
    cr_assert_eq(cik_batch_create(n, J, &b), CIK_OK);
    size_t bytes = cik_batch_memory_bytes(b);
    cr_assert_eq(cik_batch_chain_count(b), n);

    /* set-up: one leg skeleton (hip swing-twist, knee hinge, ankle
     * swing-twist), as support/workloads.c's WL_LEGS */
    cik_chain leg;
    wl_chain(WL_LEGS, 7, 0, J, &leg);
    for (int i = 0; i < n; ++i) cr_assert_eq(cik_batch_set_chain(b, i, &leg), CIK_OK);
    double t_setup = wl_now() - t0;

    /* the frame: every chain gets its own root, start pose and target
     * through the bulk path; the target is the leg's own toe in a pose of
     * hip flexion a and knee bend k, so it is reachable within the limits */
    cik_streams s;
    cr_assert_eq(cik_batch_streams(b, &s), CIK_OK);
    cik_vec3 toe0;
    cr_assert_eq(cik_chain_forward(&leg, NULL, &toe0), CIK_OK);
    t0 = wl_now();
    for (int i = 0; i < n; ++i) {
        float u = (float)(i % 1000) / 1000.0f, v = (float)(i / 1000) / 1000.0f;
        s.root_position_x[i] = 100.0f * (u - 0.5f);
        s.root_position_y[i] = leg.root_position.y;
        s.root_position_z[i] = 100.0f * (v - 0.5f);
        s.root_rotation_x[i] = leg.root_rotation.x;
        s.root_rotation_y[i] = leg.root_rotation.y;
        s.root_rotation_z[i] = leg.root_rotation.z;
        s.root_rotation_w[i] = leg.root_rotation.w;
        for (int j = 0; j < J; ++j) {
            s.rotation_x[j][i] = leg.rotation[j].x;
            s.rotation_y[j][i] = leg.rotation[j].y;
            s.rotation_z[j][i] = leg.rotation[j].z;
            s.rotation_w[j][i] = leg.rotation[j].w;
        }
        cik_chain posed = leg;
        posed.root_position = t_v3(s.root_position_x[i], s.root_position_y[i], s.root_position_z[i]);
        posed.rotation[0] = t_angle_axis(-0.5 * u, 1, 0, 0);
        posed.rotation[1] = t_angle_axis(0.2 + 0.8 * v, 1, 0, 0);
        cik_vec3 toe;
        if (i % 97 == 0) { /* the forward kinematics is the expensive part: a sample suffices */
            cr_assert_eq(cik_chain_forward(&posed, NULL, &toe), CIK_OK);
        } else {
            /* near the start pose's toe, moved a little */
            toe = toe0;
            toe.x += posed.root_position.x - leg.root_position.x + 0.05f * (u - 0.5f);
            toe.y += 0.04f * (v - 0.5f);
            toe.z += posed.root_position.z - leg.root_position.z;
        }
        s.target_x[i] = toe.x;
        s.target_y[i] = toe.y;
        s.target_z[i] = toe.z;
    }
    double t_fill = wl_now() - t0;

    cik_options o = cik_default_options();
    t0 = wl_now();
    cr_assert_eq(cik_solve(b, &o), CIK_OK);
    double t_solve = wl_now() - t0;

    long converged = 0, skipped = 0;
    for (int i = 0; i < n; ++i) {
        cik_result r;
        cr_assert_eq(cik_batch_result(b, i, &r), CIK_OK);
        converged += (r.flags & CIK_RESULT_CONVERGED) != 0;
        skipped += (r.flags & CIK_RESULT_SKIPPED) != 0;
    }
    double per_chain = (double)bytes / n;
    cr_log_info("large: %d three-joint legs: cik_batch_memory_bytes %zu = %.1f bytes per chain; set-up %.2f s, "
                "bulk fill %.2f s, solve (%s, all threads) %.2f s; %ld converged, %ld skipped",
                n, bytes, per_chain, t_setup, t_fill, cik_backend_name(cik_backend_best()), t_solve, converged,
                skipped);
    cr_assert_eq(skipped, 0);
    cr_assert_geq(converged, (long)(0.95 * n), "only %ld of %d legs converged", converged, n);
    /* docs/layout.md: 4 * (17 + 20 J + 4) bytes per chain (17 chain streams,
     * 20 per joint, 3 result streams, the enable bytes); a million is a multiple of the 64-lane
     * padding, so only the fixed 64 + sizeof(cik_batch) bytes come on top */
    const double streams_bytes = 4.0 * (17 + 20 * J + 4);
    cr_assert(per_chain >= streams_bytes && per_chain <= streams_bytes + 0.01,
              "%.3f bytes per three-joint chain, the layout gives %.0f", per_chain, streams_bytes);
    cik_batch_destroy(b);
}
