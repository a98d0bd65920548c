/*
 * The smallest crowdik program: one leg, one target, one solve.
 *
 *   hip (ball joint) -> knee (hinge) -> ankle -> toe, metres and radians.
 */
#include <crowdik/crowdik.h>

#include <stdio.h>

int main(void)
{
    cik_chain leg = {0};
    leg.joint_count = 3;
    leg.root_position = (cik_vec3){0.0f, 0.95f, 0.0f}; /* the pelvis */
    leg.root_rotation = (cik_quat){0, 0, 0, 1};
    leg.offset[0] = (cik_vec3){0.1f, -0.05f, 0.0f};  /* hip, from the pelvis */
    leg.offset[1] = (cik_vec3){0.0f, -0.45f, 0.0f};  /* knee, from the hip */
    leg.offset[2] = (cik_vec3){0.0f, -0.42f, 0.0f};  /* ankle, from the knee */
    leg.effector = (cik_vec3){0.0f, -0.06f, 0.14f}; /* toe, from the ankle */
    for (int j = 0; j < 3; ++j) leg.rotation[j] = (cik_quat){0, 0, 0, 1};
    leg.rotation[1] = (cik_quat){0.15f, 0, 0, 0.9887f}; /* start with the knee a bit bent */
    /* The knee bends one way only, up to 2.6 rad. */
    leg.limit[1] = (cik_limit){CIK_LIMIT_HINGE, {1, 0, 0}, 0.0f, 2.6f, 0.0f};
    leg.target = (cik_vec3){0.1f, 0.15f, 0.3f}; /* the toe on a 15 cm step */

    cik_batch *batch;
    cik_status st = cik_batch_create(1, 3, &batch);
    if (st == CIK_OK) st = cik_batch_set_chain(batch, 0, &leg);
    if (st == CIK_OK) st = cik_solve(batch, NULL); /* default options */
    if (st != CIK_OK) {
        fprintf(stderr, "crowdik: %s\n", cik_status_string(st));
        return 1;
    }

    cik_result r;
    cik_batch_result(batch, 0, &r);
    cik_batch_get_chain(batch, 0, &leg); /* leg.rotation[] is the solution */
    printf("crowdik %s: %s after %d passes, toe %.4f m from the target\n", cik_version(),
           (r.flags & CIK_RESULT_CONVERGED) ? "converged" : "not converged", r.iterations,
           (double)r.error);
    printf("knee rotation (x y z w): %.4f %.4f %.4f %.4f\n", (double)leg.rotation[1].x,
           (double)leg.rotation[1].y, (double)leg.rotation[1].z, (double)leg.rotation[1].w);
    cik_batch_destroy(batch);
    return (r.flags & CIK_RESULT_CONVERGED) ? 0 : 1;
}
