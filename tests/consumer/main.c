/*
 * crowdik's consumer test: a program that knows crowdik only through its
 * public header and its build interface (add_subdirectory, the installed CMake
 * package or pkg-config). It solves one leg, checks the answer and the
 * library's version, and exits non-zero on any failure.
 */
#include <crowdik/crowdik.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond)                                                         \
    do {                                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, "consumer: %s:%d: check failed: %s\n", __FILE__, \
                    __LINE__, #cond);                                       \
            ++failures;                                                     \
        }                                                                   \
    } while (0)

static cik_quat angle_axis(float angle, float x, float y, float z)
{
    float s = sinf(0.5f * angle);
    cik_quat q = {x * s, y * s, z * s, cosf(0.5f * angle)};
    return q;
}

static cik_vec3 vec3(float x, float y, float z)
{
    cik_vec3 v = {x, y, z};
    return v;
}

int main(void)
{
    /* The header and the library agree on the version. */
    char expected[32];
    snprintf(expected, sizeof expected, "%d.%d.%d", CIK_VERSION_MAJOR, CIK_VERSION_MINOR,
             CIK_VERSION_PATCH);
    CHECK(strcmp(cik_version(), expected) == 0);
    CHECK(strcmp(cik_status_string(CIK_OK), "") != 0);
    CHECK(cik_backend_available(cik_backend_best()) == 1);

    /* A leg: hip (swing-twist), knee (hinge), ankle (swing-twist), toe. */
    cik_chain leg;
    memset(&leg, 0, sizeof leg);
    leg.joint_count = 3;
    leg.root_position = vec3(0.0f, 0.95f, 0.0f);
    leg.root_rotation = angle_axis(0.0f, 0, 1, 0);
    leg.offset[0] = vec3(0.1f, -0.05f, 0.0f);
    leg.offset[1] = vec3(0.0f, -0.45f, 0.0f);
    leg.offset[2] = vec3(0.0f, -0.42f, 0.0f);
    leg.effector = vec3(0.0f, -0.06f, 0.14f);
    for (int j = 0; j < 3; ++j) leg.rotation[j] = angle_axis(0.0f, 1, 0, 0);
    leg.rotation[1] = angle_axis(0.3f, 1, 0, 0);
    leg.limit[0] = (cik_limit){CIK_LIMIT_SWING_TWIST, {0, -1, 0}, -0.6f, 0.6f, 1.5f};
    leg.limit[1] = (cik_limit){CIK_LIMIT_HINGE, {1, 0, 0}, 0.0f, 2.6f, 0.0f};
    leg.limit[2] = (cik_limit){CIK_LIMIT_SWING_TWIST, {0, -1, 0}, -0.35f, 0.35f, 0.7f};
    /* The target: where the toe is in a nearby pose (the hip flexed a little
     * more, the knee bent more), so it is reachable within the limits. */
    cik_chain step = leg;
    step.rotation[0] = angle_axis(-0.25f, 1, 0, 0);
    step.rotation[1] = angle_axis(0.6f, 1, 0, 0);
    CHECK(cik_chain_forward(&step, NULL, &leg.target) == CIK_OK);

    cik_batch *batch = NULL;
    CHECK(cik_batch_create(1, 3, &batch) == CIK_OK);
    if (!batch) return 1;
    CHECK(cik_batch_set_chain(batch, 0, &leg) == CIK_OK);

    cik_options options = cik_default_options();
    CHECK(cik_solve(batch, &options) == CIK_OK);

    cik_result result;
    CHECK(cik_batch_result(batch, 0, &result) == CIK_OK);
    CHECK(result.flags & CIK_RESULT_CONVERGED);
    CHECK(!(result.flags & (CIK_RESULT_SKIPPED | CIK_RESULT_UNREACHABLE)));
    CHECK(result.error < options.threshold);
    cik_result solved = result;

    /* Forward kinematics of the solved pose puts the toe on the target. */
    cik_vec3 toe;
    CHECK(cik_batch_forward(batch, 0, NULL, &toe) == CIK_OK);
    float dx = toe.x - leg.target.x, dy = toe.y - leg.target.y, dz = toe.z - leg.target.z;
    CHECK(sqrtf(dx * dx + dy * dy + dz * dz) < 2.0f * options.threshold);

    /* The solution respects the knee hinge: a rotation about +X only, by an
     * angle in [0, 2.6]. */
    cik_quat knee;
    CHECK(cik_batch_get_rotation(batch, 0, 1, &knee) == CIK_OK);
    CHECK(fabsf(knee.y) < 1e-3f && fabsf(knee.z) < 1e-3f);
    float knee_angle = 2.0f * atan2f(knee.x, knee.w);
    CHECK(knee_angle > -1e-3f && knee_angle < 2.6f + 1e-3f);

    /* The bulk path: a non-finite target is skipped, not an error. */
    cik_streams s;
    CHECK(cik_batch_streams(batch, &s) == CIK_OK);
    CHECK(s.chain_count == 1 && s.joint_count == 3 && s.target_x != NULL);
    s.target_x[0] = NAN;
    CHECK(cik_solve(batch, NULL) == CIK_OK);
    CHECK(cik_batch_result(batch, 0, &result) == CIK_OK);
    CHECK(result.flags & CIK_RESULT_SKIPPED);

    /* Errors are values. */
    CHECK(cik_batch_set_target(batch, 5, leg.target) == CIK_ERROR_ARGUMENT);

    cik_batch_destroy(batch);

    if (failures) {
        fprintf(stderr, "consumer: %d check(s) failed\n", failures);
        return 1;
    }
    printf("consumer: crowdik %s (%s backend): leg solved in %d passes, error %.2e m\n",
           cik_version(), cik_backend_name(cik_backend_best()), solved.iterations, (double)solved.error);
    return 0;
}
