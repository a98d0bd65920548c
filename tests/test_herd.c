/*
 * Herds (crowdik/herd.h): creatures with 1 to 8 legs of 2 to 4 segments.
 * Bad bodies and options are refused and change nothing; a quadruped on a
 * 20-degree slope pitches with it and plants every foot; a four-segment leg
 * over a step edge reaches the lower ground; a hexapod on flat ground keeps
 * its animation; every backend agrees with the reference; the bits do not
 * depend on the threads or on staged calls.
 */
#include "common.h"

#include <crowdik/herd.h>
#include <float.h>
#include <math.h>

#include "agreement.h"
#include "creatures.h"
#include "legs.h"

#define DEG (3.14159265f / 180.0f)

typedef struct herd_scene {
    cik_herd *h;
    cik_herd_streams s;
    cik_herd_body body;
    creature_kind kind;
} herd_scene;

static herd_scene make(creature_kind kind, int characters)
{
    herd_scene sc;
    memset(&sc, 0, sizeof sc);
    sc.kind = kind;
    creature_body(kind, 1.0f, &sc.body);
    cr_assert_eq(cik_herd_create(characters, &sc.body, &sc.h), CIK_OK);
    cik_herd_streams_get(sc.h, &sc.s);
    return sc;
}

/* A plane heightfield: height = y0 + gx x + gz z over [-20, 20]^2. */
typedef struct plane_field {
    float heights[81 * 81];
    cik_heightfield hf;
} plane_field;

static void plane(plane_field *p, float y0, float gx, float gz)
{
    for (int iz = 0; iz < 81; ++iz)
        for (int ix = 0; ix < 81; ++ix)
            p->heights[iz * 81 + ix] = y0 + gx * (-20.0f + 0.5f * (float)ix) + gz * (-20.0f + 0.5f * (float)iz);
    cik_heightfield hf = {-20.0f, -20.0f, 0.5f, 0.5f, 81, 81, p->heights};
    p->hf = hf;
}

static float limit_excess_max(const herd_scene *sc, int c)
{
    float worst = 0.0f;
    for (int l = 0; l < sc->body.leg_count; ++l) {
        const int f = c * sc->body.leg_count + l;
        for (int j = 0; j < sc->body.leg[l].segment_count; ++j) {
            cik_quat q = {sc->s.solved_x[j][f], sc->s.solved_y[j][f], sc->s.solved_z[j][f], sc->s.solved_w[j][f]};
            float e = cik_limit_excess(&sc->body.leg[l].limit[j], q);
            if (e > worst) worst = e;
        }
    }
    return worst;
}

/* The herd's outputs as bytes, to compare runs bit for bit. */
static void outputs(const herd_scene *sc, float *out)
{
    const cik_herd_streams *s = &sc->s;
    size_t k = 0;
    for (int f = 0; f < s->foot_count; ++f) {
        for (int j = 0; j < CIK_HERD_MAX_SEGMENTS; ++j) {
            out[k++] = s->solved_x[j][f];
            out[k++] = s->solved_y[j][f];
            out[k++] = s->solved_z[j][f];
            out[k++] = s->solved_w[j][f];
        }
        out[k++] = s->foot_x[f];
        out[k++] = s->foot_y[f];
        out[k++] = s->foot_z[f];
        out[k++] = s->target_y[f];
        out[k++] = s->weight[f];
        out[k++] = s->locked[f];
    }
    for (int c = 0; c < s->character_count; ++c) {
        out[k++] = s->body_height[c];
        out[k++] = s->body_pitch[c];
        out[k++] = s->body_roll[c];
        for (int r = 0; r < CIK_HERD_ROOTS; ++r) out[k++] = s->solved_root_y[r][c];
    }
}
#define OUTPUT_FLOATS(s) ((size_t)(s).foot_count * 22 + (size_t)(s).character_count * 5)

/* ------------------------------------------------------------------------ */

Test(herd, bad_bodies_are_refused)
{
    cik_herd_body good;
    creature_body(CREATURE_QUADRUPED, 1.0f, &good);
    cik_herd *sentinel = (cik_herd *)&good, *h = sentinel;
    cik_herd_body b = good;
    b.leg_count = 0;
    cr_expect_eq(cik_herd_create(4, &b, &h), CIK_ERROR_ARGUMENT);
    b.leg_count = CIK_HERD_MAX_LEGS + 1;
    cr_expect_eq(cik_herd_create(4, &b, &h), CIK_ERROR_ARGUMENT);
    b = good;
    b.leg[1].segment_count = 1;
    cr_expect_eq(cik_herd_create(4, &b, &h), CIK_ERROR_ARGUMENT);
    b.leg[1].segment_count = CIK_HERD_MAX_SEGMENTS + 1;
    cr_expect_eq(cik_herd_create(4, &b, &h), CIK_ERROR_ARGUMENT);
    b = good;
    b.leg[2].root = 2;
    cr_expect_eq(cik_herd_create(4, &b, &h), CIK_ERROR_ARGUMENT);
    b = good;
    b.leg[0].segment[2].y = NAN;
    cr_expect_eq(cik_herd_create(4, &b, &h), CIK_ERROR_NON_FINITE);
    b = good;
    b.leg[3].hip.x = INFINITY;
    cr_expect_eq(cik_herd_create(4, &b, &h), CIK_ERROR_NON_FINITE);
    b = good;
    for (int s = 0; s < b.leg[0].segment_count; ++s) b.leg[0].segment[s] = (cik_vec3){0.0f, 0.0f, 0.0f};
    cr_expect_eq(cik_herd_create(4, &b, &h), CIK_ERROR_ARGUMENT);
    b = good;
    b.leg[1].limit[1].min_angle = 1.0f;
    b.leg[1].limit[1].max_angle = 0.5f;
    cr_expect_eq(cik_herd_create(4, &b, &h), CIK_ERROR_LIMIT);
    b = good;
    b.forward = (cik_vec3){0.0f, 1.0f, 0.0f};
    cr_expect_eq(cik_herd_create(4, &b, &h), CIK_ERROR_ARGUMENT);
    cr_expect_eq(cik_herd_create(0, &good, &h), CIK_ERROR_ARGUMENT);
    cr_expect_eq(cik_herd_create(4, NULL, &h), CIK_ERROR_ARGUMENT);
    cr_expect_eq(h, sentinel, "a refused create leaves *out alone");
}

/* set_body refuses what create refuses and a body of another layout, and a
 * refused call changes nothing: the next frames give the bits of a herd
 * that never saw it. */
Test(herd, refused_set_body_and_options_change_nothing)
{
    herd_scene a = make(CREATURE_QUADRUPED, 40), b = make(CREATURE_QUADRUPED, 40);
    plane_field pf;
    plane(&pf, 0.0f, 0.05f, -0.1f);
    creature_pose pose;
    creature_stance(CREATURE_QUADRUPED, &a.body, &pose);
    cik_herd_options o = cik_herd_default_options();
    o.foot.solver.threads = 1;
    for (int frame = 0; frame < 6; ++frame) {
        for (int c = 0; c < 40; ++c) {
            cik_vec3 at = {(float)(c % 8) - 4.0f, 0.0f, (float)(c / 8) - 2.0f + 0.01f * (float)frame};
            float y;
            cik_heightfield_sample(&pf.hf, at.x, at.z, &y, NULL);
            at.y = y;
            creature_pose_write(&pose, &a.s, c, at, 0.1f * (float)c, 0);
            creature_pose_write(&pose, &b.s, c, at, 0.1f * (float)c, 0);
        }
        if (frame == 3) {
            cik_herd_body bad = a.body, before;
            cik_herd_get_body(a.h, 7, &before);
            bad.leg[2].limit[0].swing_max = -1.0f;
            cr_expect_eq(cik_herd_set_body(a.h, 7, &bad), CIK_ERROR_LIMIT);
            bad = a.body;
            bad.leg[0].segment_count = 3; /* another layout */
            cr_expect_eq(cik_herd_set_body(a.h, 7, &bad), CIK_ERROR_ARGUMENT);
            bad = a.body;
            bad.leg_count = 3;
            cr_expect_eq(cik_herd_set_body(a.h, 7, &bad), CIK_ERROR_ARGUMENT);
            cr_expect_eq(cik_herd_set_body(a.h, 40, &a.body), CIK_ERROR_ARGUMENT);
            cik_herd_body after;
            cik_herd_get_body(a.h, 7, &after);
            cr_expect(memcmp(&before, &after, sizeof before) == 0);
            cik_herd_options bo = o;
            bo.pitch_weight = 1.5f;
            cr_expect_eq(cik_herd_frame(a.h, &pf.hf, &bo, 0.0f), CIK_ERROR_OPTIONS);
            bo = o;
            bo.max_tilt = -0.1f;
            cr_expect_eq(cik_herd_place(a.h, &bo, 0.0f), CIK_ERROR_OPTIONS);
            bo = o;
            bo.foot.dt = 0.0f;
            cr_expect_eq(cik_herd_probe(a.h, &bo, 0.0f), CIK_ERROR_OPTIONS);
            bo = o;
            bo.foot.solver.threshold = -1.0f;
            cr_expect_eq(cik_herd_solve(a.h, &bo), CIK_ERROR_OPTIONS);
            cr_expect_eq(cik_herd_frame(a.h, &pf.hf, &o, -1.0f), CIK_ERROR_ARGUMENT);
            bo = o; /* a frame time whose speed distances overflow, as the options' dt */
            bo.foot.release_speed = 2.0f;
            cr_expect_eq(cik_herd_frame(a.h, &pf.hf, &bo, FLT_MAX), CIK_ERROR_ARGUMENT);
            cr_expect_eq(cik_herd_probe(a.h, &bo, FLT_MAX), CIK_ERROR_ARGUMENT);
            cik_heightfield bad_hf = pf.hf;
            bad_hf.count_x = 1;
            cr_expect_eq(cik_herd_frame(a.h, &bad_hf, &o, 0.0f), CIK_ERROR_ARGUMENT);
        }
        cr_assert_eq(cik_herd_frame(a.h, &pf.hf, &o, 0.0f), CIK_OK);
        cr_assert_eq(cik_herd_frame(b.h, &pf.hf, &o, 0.0f), CIK_OK);
    }
    size_t n = OUTPUT_FLOATS(a.s);
    float *oa = malloc(n * sizeof(float)), *ob = malloc(n * sizeof(float));
    outputs(&a, oa);
    outputs(&b, ob);
    cr_expect(memcmp(oa, ob, n * sizeof(float)) == 0, "the refused calls changed the herd");
    /* a huge frame time the default speeds allow: accepted, every output
     * finite (the body's springs land on their goals, not on 0 * inf) */
    cr_assert_eq(cik_herd_frame(a.h, &pf.hf, &o, FLT_MAX), CIK_OK);
    outputs(&a, oa);
    for (size_t k = 0; k < n; ++k) cr_assert(isfinite(oa[k]), "output %zu is %g after dt FLT_MAX", k, oa[k]);
    free(oa);
    free(ob);
    cik_herd_destroy(a.h);
    cik_herd_destroy(b.h);
}

/* Standing on a plane that rises 20 degrees ahead, every foot planted (the
 * first frame plants feet at the animation's floor): the plane fit is exact,
 * so the body pitches by atan(tan 20 deg) = 20 deg (pitch weight 1) and does
 * not roll; every foot reaches the ground in at most 3 passes, within
 * limits. Across the slope the body rolls by half of it (roll weight 0.5). */
Test(herd, quadruped_on_a_20_degree_slope)
{
    for (int across = 0; across < 2; ++across) {
        herd_scene sc = make(CREATURE_QUADRUPED, 16);
        plane_field pf;
        const float g = tanf(20.0f * DEG);
        plane(&pf, 0.0f, across ? g : 0.0f, across ? 0.0f : g);
        creature_pose pose;
        creature_stance(CREATURE_QUADRUPED, &sc.body, &pose);
        cik_herd_options o = cik_herd_default_options();
        for (int frame = 0; frame < 30; ++frame) {
            for (int c = 0; c < 16; ++c) {
                cik_vec3 at = {(float)(c % 4) * 3.0f - 5.0f, 0.0f, (float)(c / 4) * 3.0f - 5.0f};
                cik_heightfield_sample(&pf.hf, at.x, at.z, &at.y, NULL);
                creature_pose_write(&pose, &sc.s, c, at, 0.0f, 0);
            }
            cr_assert_eq(cik_herd_frame(sc.h, &pf.hf, &o, 0.0f), CIK_OK);
        }
        for (int c = 0; c < 16; ++c) {
            float pitch = sc.s.body_pitch[c] / DEG, roll = sc.s.body_roll[c] / DEG;
            if (across) {
                /* +X is the body's left: the ground rises to the left */
                cr_expect_float_eq(roll, 0.5f * 20.0f, 0.05f, "character %d roll %.3f", c, roll);
                cr_expect_float_eq(pitch, 0.0f, 0.05f, "character %d pitch %.3f", c, pitch);
            } else {
                cr_expect_float_eq(pitch, 20.0f, 0.05f, "character %d pitch %.3f", c, pitch);
                cr_expect_float_eq(roll, 0.0f, 0.05f, "character %d roll %.3f", c, roll);
            }
            for (int l = 0; l < 4; ++l) {
                const int f = 4 * c + l;
                float y;
                cik_heightfield_sample(&pf.hf, sc.s.foot_x[f], sc.s.foot_z[f], &y, NULL);
                cr_expect(sc.s.planted[f] == 1.0f && sc.s.weight[f] == 1.0f, "foot %d not planted", f);
                cr_expect(fabsf(sc.s.foot_y[f] - y) < 4e-4f, "foot %d %.5f off its ground", f, sc.s.foot_y[f] - y);
                cr_expect(sc.s.passes[f] <= 3.0f, "foot %d took %g passes", f, sc.s.passes[f]);
            }
            cr_expect(limit_excess_max(&sc, c) < 1e-3f, "character %d beyond a limit", c);
        }
        cik_herd_destroy(sc.h);
    }
}

/* The caller's own ground (stage 2 by hand): a 10 cm step down just behind
 * the left hind hoof's edge... the hoof 2 cm past the edge, on the low
 * side. The four-segment leg reaches the lower ground in at most 3 passes,
 * within its limits; the body comes down; every other foot stays on its
 * ground. */
Test(herd, four_segment_leg_over_a_step_edge)
{
    herd_scene sc = make(CREATURE_QUADRUPED, 1);
    creature_pose pose;
    creature_stance(CREATURE_QUADRUPED, &sc.body, &pose);
    cik_herd_options o = cik_herd_default_options();
    cr_assert_eq(sc.body.leg[0].segment_count, 4);
    cik_vec3 at = {0.0f, 0.0f, 0.0f};
    float edge_z = 0.0f;
    for (int frame = 0; frame < 40; ++frame) {
        creature_pose_write(&pose, &sc.s, 0, at, 0.0f, 0);
        cr_assert_eq(cik_herd_probe(sc.h, &o, 0.0f), CIK_OK);
        if (frame == 0) edge_z = sc.s.anim_foot_z[0] + 0.02f; /* the hoof 2 cm behind the edge */
        for (int f = 0; f < 4; ++f) {
            int low = sc.s.probe_x[f] > 0.0f && sc.s.probe_z[f] < edge_z;
            sc.s.contact_y[f] = low ? -0.1f : 0.0f;
        }
        cr_assert_eq(cik_herd_place(sc.h, &o, 0.0f), CIK_OK);
        cr_assert_eq(cik_herd_solve(sc.h, &o), CIK_OK);
    }
    cr_expect(sc.s.probe_z[0] < edge_z && sc.s.probe_x[0] > 0.0f, "the hoof is over the step");
    cr_expect(fabsf(sc.s.foot_y[0] + 0.1f) < 4e-4f, "hind hoof at %.4f, not on the lower ground", sc.s.foot_y[0]);
    cr_expect(sc.s.passes[0] <= 3.0f, "%g passes", sc.s.passes[0]);
    for (int f = 1; f < 4; ++f)
        cr_expect(fabsf(sc.s.foot_y[f]) < 4e-4f, "foot %d at %.4f, off its ground", f, sc.s.foot_y[f]);
    cr_expect(sc.s.body_height[0] < -0.01f, "the body did not come down (%.4f)", sc.s.body_height[0]);
    cr_expect(limit_excess_max(&sc, 0) < 1e-3f);
    /* the leg bent at every hinge, none turned past the others: each hinge
     * moved less than 25 degrees from the standing pose */
    for (int j = 1; j < 4; ++j) {
        cik_quat a = pose.q[0][j], s = {sc.s.solved_x[j][0], sc.s.solved_y[j][0], sc.s.solved_z[j][0], sc.s.solved_w[j][0]};
        float d = fabsf(a.x * s.x + a.y * s.y + a.z * s.z + a.w * s.w);
        float turn = 2.0f * acosf(d > 1.0f ? 1.0f : d) / DEG;
        cr_expect(turn < 25.0f, "joint %d turned %.1f deg", j, turn);
    }
    cik_herd_destroy(sc.h);
}

/* Eight characters of `pose` standing in a row along x, 2 m apart from
 * x = dx - 8 at z, character c turned by c yaw_step. */
static void stand_in_a_row(herd_scene *sc, const creature_pose *pose, float dx, float z, float yaw_step)
{
    for (int c = 0; c < 8; ++c) {
        cik_vec3 at = {(float)(2 * c) - 8.0f + dx, 0.0f, z};
        creature_pose_write(pose, &sc->s, c, at, yaw_step * (float)c, 0);
    }
}

/* Legs that all ease in (the caller's weight 0.5 on every foot) on flat
 * ground need no height: the body stays at the animation's, whatever
 * max_raise allows (a leg's need used to ease in from max_raise, so that
 * legs all easing lifted the body by half of it: 5e19 m with max_raise
 * 1e20, found by fuzz_herd). */
Test(herd, easing_legs_do_not_lift_the_body)
{
    herd_scene sc = make(CREATURE_QUADRUPED, 8);
    plane_field pf;
    plane(&pf, 0.0f, 0.0f, 0.0f);
    creature_pose pose;
    creature_stance(CREATURE_QUADRUPED, &sc.body, &pose);
    const float raises[] = {0.1f, 1e20f};
    for (int k = 0; k < 2; ++k) {
        cik_herd_options o = cik_herd_default_options();
        o.foot.contacts = CIK_FOOT_CONTACTS_WEIGHTS;
        o.max_raise = raises[k];
        cr_assert_eq(cik_herd_reset(sc.h), CIK_OK);
        for (int frame = 0; frame < 20; ++frame) {
            stand_in_a_row(&sc, &pose, 0.0f, 0.0f, 0.2f);
            for (int f = 0; f < sc.s.foot_count; ++f) sc.s.weight[f] = 0.5f;
            cr_assert_eq(cik_herd_frame(sc.h, &pf.hf, &o, 0.0f), CIK_OK);
            for (int c = 0; c < 8; ++c)
                cr_assert(fabsf(sc.s.body_height[c]) < 1e-3f, "max_raise %g, frame %d, character %d: height %g",
                          raises[k], frame, c, sc.s.body_height[c]);
        }
    }
    cik_herd_destroy(sc.h);
}

/* A standing quadruped herd, its feet locked, teleported 50 m: the locks
 * release and the feet are on the animation (x, z) at once instead of
 * blending back from 50 m away over unlock_time. */
Test(herd, a_teleported_herd_does_not_drag_its_feet)
{
    herd_scene sc = make(CREATURE_QUADRUPED, 8);
    plane_field pf;
    plane(&pf, 0.0f, 0.0f, 0.0f);
    creature_pose pose;
    creature_stance(CREATURE_QUADRUPED, &sc.body, &pose);
    cik_herd_options o = cik_herd_default_options();
    for (int frame = 0; frame < 12; ++frame) {
        if (frame < 6)
            stand_in_a_row(&sc, &pose, 0.0f, -5.0f, 0.3f);
        else
            stand_in_a_row(&sc, &pose, 15.0f, 15.0f, 0.3f);
        cr_assert_eq(cik_herd_frame(sc.h, &pf.hf, &o, 0.0f), CIK_OK);
        for (int f = 0; f < sc.s.foot_count; ++f) {
            float dx = sc.s.foot_x[f] - sc.s.anim_foot_x[f], dz = sc.s.foot_z[f] - sc.s.anim_foot_z[f];
            float off = sqrtf(dx * dx + dz * dz);
            cr_assert_lt(off, 5e-3f, "frame %d foot %d: %g m from its animation", frame, f, off);
            if (frame == 5 || frame == 11) cr_assert_eq(sc.s.locked[f], 1.0f, "frame %d foot %d", frame, f);
        }
    }
    cik_herd_destroy(sc.h);
}

/* The hexapod's tripod gait on flat ground with the gait's own contacts
 * (weights): nothing to correct, so the solved legs are the animated ones
 * (no pass runs: every foot is within the threshold at its start) and the
 * body neither moves nor tilts. */
Test(herd, hexapod_on_flat_ground_keeps_its_animation)
{
    herd_scene sc = make(CREATURE_HEXAPOD, 24);
    creature_gait gait;
    cr_assert_eq(creature_gait_build(CREATURE_HEXAPOD, &sc.body, &gait), 0);
    plane_field pf;
    plane(&pf, 0.0f, 0.0f, 0.0f);
    cik_herd_options o = cik_herd_default_options();
    o.foot.contacts = CIK_FOOT_CONTACTS_WEIGHTS;
    float worst = 0.0f;
    for (int frame = 0; frame < 120; ++frame) {
        float t = (float)frame / 60.0f;
        for (int c = 0; c < 24; ++c) {
            float tc = t + (float)(7 * c) / 60.0f; /* whole frames of the gait: no interpolation */
            creature_pose p;
            creature_gait_sample(&gait, tc, &p);
            float yaw = 0.25f * (float)c;
            cik_vec3 at = {(float)(c % 6) - 3.0f + gait.speed * tc * sinf(yaw), 0.0f,
                           (float)(c / 6) - 2.0f + gait.speed * tc * cosf(yaw)};
            creature_pose_write(&p, &sc.s, c, at, yaw, 1);
        }
        cr_assert_eq(cik_herd_frame(sc.h, &pf.hf, &o, 0.0f), CIK_OK);
        for (int c = 0; c < 24; ++c) {
            cr_expect(sc.s.body_height[c] == 0.0f && sc.s.body_pitch[c] == 0.0f && sc.s.body_roll[c] == 0.0f,
                      "frame %d character %d: the body moved", frame, c);
        }
        for (int f = 0; f < sc.s.foot_count; ++f) {
            cr_expect(sc.s.passes[f] == 0.0f, "frame %d foot %d: %g passes", frame, f, sc.s.passes[f]);
            for (int j = 0; j < 3; ++j) {
                float d = fabsf(sc.s.pose_x[j][f] * sc.s.solved_x[j][f] + sc.s.pose_y[j][f] * sc.s.solved_y[j][f] +
                                sc.s.pose_z[j][f] * sc.s.solved_z[j][f] + sc.s.pose_w[j][f] * sc.s.solved_w[j][f]);
                float turn = 2.0f * acosf(d > 1.0f ? 1.0f : d);
                if (turn > worst) worst = turn;
            }
        }
    }
    cr_expect(worst < 1e-3f, "a joint turned %.5f rad from its animation", worst);
    creature_gait_free(&gait);
    cik_herd_destroy(sc.h);
}

/* The walk over rolling ground: every backend's feet agree with the
 * reference's (both converged: within twice the threshold; one converged
 * and not the other: an exception, at most what the agreement rule allows),
 * and the body, which does not depend on the solve, is the same to within
 * 0.1 mm and 1e-4 rad (the kernels' own float operations differ between
 * instruction sets: fused multiply-adds, reciprocal square roots, and the
 * body's fit and its lowest leg amplify a last bit). */
static float rolling(float x, float z) { return 0.15f * sinf(0.9f * x) * cosf(0.7f * z) + 0.05f * sinf(2.1f * z + 0.3f); }

static void walk_frames(herd_scene *sc, const creature_gait *gait, const cik_heightfield *hf, cik_backend be,
                        int threads, int frames, int staged, float *out_per_frame)
{
    cik_herd_options o = cik_herd_default_options();
    o.foot.solver.backend = be;
    o.foot.solver.threads = threads;
    const int n = sc->s.character_count;
    for (int frame = 0; frame < frames; ++frame) {
        float t = (float)frame / 60.0f;
        for (int c = 0; c < n; ++c) {
            float tc = t + 0.061f * (float)c, yaw = 0.4f * (float)c;
            creature_pose p;
            creature_gait_sample(gait, tc, &p);
            cik_vec3 at = {(float)(c % 16) * 2.0f - 16.0f + gait->speed * tc * sinf(yaw), 0.0f,
                           (float)(c / 16) * 2.5f - 16.0f + gait->speed * tc * cosf(yaw)};
            cik_heightfield_sample(hf, at.x, at.z, &at.y, NULL);
            creature_pose_write(&p, &sc->s, c, at, yaw, 0);
        }
        if (staged == 2) {
            /* the engine's job system: a plan, then ranges, last first */
            cik_herd_frame_plan plan;
            cr_assert_eq(cik_herd_frame_plan_init(&plan, sc->h, hf, &o, 0.0f), CIK_OK);
            for (int e = n; e > 0;) {
                int b = (e - 1) / CIK_HERD_RANGE_ALIGNMENT * CIK_HERD_RANGE_ALIGNMENT;
                cr_assert_eq(cik_herd_frame_range(&plan, b, e), CIK_OK);
                e = b;
            }
        } else if (staged) {
            cr_assert_eq(cik_herd_probe(sc->h, &o, 0.0f), CIK_OK);
            cr_assert_eq(cik_herd_ground_heightfield(sc->h, hf, &o), CIK_OK);
            cr_assert_eq(cik_herd_place(sc->h, &o, 0.0f), CIK_OK);
            cr_assert_eq(cik_herd_solve(sc->h, &o), CIK_OK);
        } else {
            cr_assert_eq(cik_herd_frame(sc->h, hf, &o, 0.0f), CIK_OK);
        }
        if (out_per_frame) outputs(sc, out_per_frame + (size_t)frame * OUTPUT_FLOATS(sc->s));
    }
}

typedef struct rolling_field {
    float heights[161 * 161];
    cik_heightfield hf;
} rolling_field;

static void make_rolling(rolling_field *r)
{
    for (int iz = 0; iz < 161; ++iz)
        for (int ix = 0; ix < 161; ++ix)
            r->heights[iz * 161 + ix] = rolling(-40.0f + 0.5f * (float)ix, -40.0f + 0.5f * (float)iz);
    cik_heightfield hf = {-40.0f, -40.0f, 0.5f, 0.5f, 161, 161, r->heights};
    r->hf = hf;
}

T_KERNEL_TEST(herd, backends_agree_with_the_reference)
{
    static rolling_field rf;
    make_rolling(&rf);
    for (int kind = CREATURE_QUADRUPED; kind <= CREATURE_HEXAPOD; ++kind) {
        herd_scene ref = make((creature_kind)kind, 256), got = make((creature_kind)kind, 256);
        creature_gait gait;
        cr_assert_eq(creature_gait_build((creature_kind)kind, &ref.body, &gait), 0);
        const float thr = cik_herd_default_options().foot.solver.threshold;
        long feet = 0, exceptions = 0;
        for (int chunk = 0; chunk < 4; ++chunk) {
            walk_frames(&ref, &gait, &rf.hf, CIK_BACKEND_REFERENCE, 1, 15, 0, NULL);
            walk_frames(&got, &gait, &rf.hf, be, 1, 15, 0, NULL);
            for (int c = 0; c < 256; ++c) {
                cr_assert(fabsf(ref.s.body_height[c] - got.s.body_height[c]) < 1e-4f &&
                              fabsf(ref.s.body_pitch[c] - got.s.body_pitch[c]) < 1e-4f &&
                              fabsf(ref.s.body_roll[c] - got.s.body_roll[c]) < 1e-4f,
                          "character %d: the body differs (%g m, %g, %g rad)", c,
                          ref.s.body_height[c] - got.s.body_height[c], ref.s.body_pitch[c] - got.s.body_pitch[c],
                          ref.s.body_roll[c] - got.s.body_roll[c]);
            }
            for (int f = 0; f < ref.s.foot_count; ++f) {
                ++feet;
                int cr_ok = ref.s.error[f] < thr, cg_ok = got.s.error[f] < thr;
                if (cr_ok != cg_ok) {
                    ++exceptions;
                    continue;
                }
                float dx = ref.s.foot_x[f] - got.s.foot_x[f], dy = ref.s.foot_y[f] - got.s.foot_y[f],
                      dz = ref.s.foot_z[f] - got.s.foot_z[f];
                if (cr_ok) cr_expect(sqrtf(dx * dx + dy * dy + dz * dz) <= 2.0f * thr, "foot %d apart", f);
            }
        }
        long allowed = agreement_allowed(feet, 1e-3);
        cr_expect(exceptions <= allowed, "%s: %ld of %ld feet converged on one backend only (allowed %ld)",
                  creature_name((creature_kind)kind), exceptions, feet, allowed);
        creature_gait_free(&gait);
        cik_herd_destroy(ref.h);
        cik_herd_destroy(got.h);
    }
}

/* The same bits on 1 and 2 threads, through the staged calls and through
 * a plan's ranges run last first. */
Test(herd, threads_stages_and_ranges_give_the_same_bits)
{
    static rolling_field rf;
    make_rolling(&rf);
    herd_scene a = make(CREATURE_QUADRUPED, 600), b = make(CREATURE_QUADRUPED, 600),
               c = make(CREATURE_QUADRUPED, 600), d = make(CREATURE_QUADRUPED, 600);
    creature_gait gait;
    cr_assert_eq(creature_gait_build(CREATURE_QUADRUPED, &a.body, &gait), 0);
    const int frames = 20;
    size_t n = OUTPUT_FLOATS(a.s) * frames;
    float *oa = malloc(n * sizeof(float)), *ob = malloc(n * sizeof(float)), *oc = malloc(n * sizeof(float)),
          *od = malloc(n * sizeof(float));
    walk_frames(&a, &gait, &rf.hf, CIK_BACKEND_AUTO, 1, frames, 0, oa);
    walk_frames(&b, &gait, &rf.hf, CIK_BACKEND_AUTO, 2, frames, 0, ob);
    walk_frames(&c, &gait, &rf.hf, CIK_BACKEND_AUTO, 2, frames, 1, oc);
    walk_frames(&d, &gait, &rf.hf, CIK_BACKEND_AUTO, 2, frames, 2, od);
    cr_expect(memcmp(oa, ob, n * sizeof(float)) == 0, "1 and 2 threads differ");
    cr_expect(memcmp(oa, oc, n * sizeof(float)) == 0, "the staged calls differ from the frame");
    cr_expect(memcmp(oa, od, n * sizeof(float)) == 0, "the ranges differ from the frame");
    free(od);
    free(oa);
    free(ob);
    free(oc);
    creature_gait_free(&gait);
    cik_herd_destroy(a.h);
    cik_herd_destroy(b.h);
    cik_herd_destroy(c.h);
    cik_herd_destroy(d.h);
}

/* A plan refuses what the frame refuses, and ranges off the alignment or
 * out of bounds, changing nothing. */
Test(herd, frame_plan_refusals)
{
    herd_scene sc = make(CREATURE_HEXAPOD, 100);
    plane_field pf;
    plane(&pf, 0.0f, 0.0f, 0.0f);
    cik_herd_frame_plan plan;
    memset(&plan, 0, sizeof plan);
    cik_herd_options o = cik_herd_default_options();
    cr_expect_eq(cik_herd_frame_range(&plan, 0, 100), CIK_ERROR_ARGUMENT, "an uninitialised plan");
    cr_expect_eq(cik_herd_frame_plan_init(NULL, sc.h, &pf.hf, &o, 0.0f), CIK_ERROR_ARGUMENT);
    cr_expect_eq(cik_herd_frame_plan_init(&plan, NULL, &pf.hf, &o, 0.0f), CIK_ERROR_ARGUMENT);
    cik_herd_options bad = o;
    bad.roll_weight = -0.5f;
    cr_expect_eq(cik_herd_frame_plan_init(&plan, sc.h, &pf.hf, &bad, 0.0f), CIK_ERROR_OPTIONS);
    cr_expect_eq(cik_herd_frame_plan_init(&plan, sc.h, &pf.hf, &o, NAN), CIK_ERROR_ARGUMENT);
    cik_heightfield bad_hf = pf.hf;
    bad_hf.heights = NULL;
    cr_expect_eq(cik_herd_frame_plan_init(&plan, sc.h, &bad_hf, &o, 0.0f), CIK_ERROR_ARGUMENT);
    cr_assert_eq(cik_herd_frame_plan_init(&plan, sc.h, &pf.hf, &o, 0.0f), CIK_OK);
    cr_expect_eq(cik_herd_frame_range(&plan, 0, 32), CIK_ERROR_ARGUMENT, "a bound off the alignment");
    cr_expect_eq(cik_herd_frame_range(&plan, 64, 32), CIK_ERROR_ARGUMENT);
    cr_expect_eq(cik_herd_frame_range(&plan, 0, 101), CIK_ERROR_ARGUMENT);
    cr_expect_eq(cik_herd_frame_range(&plan, -64, 64), CIK_ERROR_ARGUMENT);
    for (int f = 0; f < sc.s.foot_count; ++f) cr_assert(sc.s.foot_y[f] == 0.0f, "a refused range ran");
    cr_expect_eq(cik_herd_frame_range(&plan, 64, 100), CIK_OK);
    cr_expect_eq(cik_herd_frame_range(&plan, 0, 64), CIK_OK);
    cr_expect_eq(cik_herd_frame_range(&plan, 100, 100), CIK_OK);
    cik_herd_destroy(sc.h);
}

/* Herds of every leg count and segment count from 1 x 2 to 8 x 4 build, and
 * their solved feet are where the batches' own forward kinematics put them. */
Test(herd, any_leg_count_and_segment_count)
{
    for (int legs = 1; legs <= CIK_HERD_MAX_LEGS; ++legs) {
        for (int seg = 2; seg <= CIK_HERD_MAX_SEGMENTS; ++seg) {
            cik_herd_body b;
            memset(&b, 0, sizeof b);
            b.leg_count = legs;
            b.forward = (cik_vec3){0, 0, 1};
            for (int l = 0; l < legs; ++l) {
                cik_herd_leg *leg = &b.leg[l];
                leg->root = l % 2;
                leg->segment_count = seg;
                leg->hip = (cik_vec3){0.2f * (float)(l - legs / 2), 0.0f, 0.1f * (float)l};
                for (int s = 0; s < seg; ++s) {
                    leg->segment[s] = (cik_vec3){0.0f, -0.8f / (float)seg, 0.0f};
                    leg->limit[s] = s == 0 ? limit_swing_twist((cik_vec3){0, -1, 0}, -0.5f, 0.5f, 1.2f)
                                           : limit_hinge((cik_vec3){1, 0, 0}, -1.5f, 1.5f);
                }
            }
            cik_herd *h = NULL;
            cr_assert_eq(cik_herd_create(3, &b, &h), CIK_OK, "%d legs of %d segments", legs, seg);
            cik_herd_streams s;
            cik_herd_streams_get(h, &s);
            cr_expect_eq(s.foot_count, 3 * legs);
            for (int c = 0; c < 3; ++c)
                for (int r = 0; r < CIK_HERD_ROOTS; ++r) s.root_y[r][c] = 0.75f;
            plane_field pf;
            plane(&pf, 0.0f, 0.0f, 0.0f);
            cik_herd_options o = cik_herd_default_options();
            cr_assert_eq(cik_herd_frame(h, &pf.hf, &o, 0.0f), CIK_OK);
            for (int c = 0; c < 3; ++c) {
                for (int l = 0; l < legs; ++l) {
                    const int f = c * legs + l;
                    cik_vec3 e;
                    cr_assert_eq(cik_batch_forward(cik_herd_batch(h, seg), cik_herd_chain_index(h, c, l), NULL, &e),
                                 CIK_OK);
                    cr_expect(e.x == s.foot_x[f] || fabsf(e.x - s.foot_x[f]) < 1e-5f);
                    cr_expect(fabsf(e.y - s.foot_y[f]) < 1e-5f && fabsf(e.z - s.foot_z[f]) < 1e-5f);
                    /* straight legs 0.8 long under roots at 0.75: on the ground */
                    cr_expect(fabsf(s.foot_y[f]) < 4e-4f, "%d x %d: foot %d at %.5f", legs, seg, f, s.foot_y[f]);
                }
            }
            cik_herd_destroy(h);
        }
    }
}

/* The pose streams of the joints past a leg's last (a three-segment leg's
 * fourth) are not the leg's: whatever the caller leaves there (NaN, a zero
 * or huge quaternion) changes no output. A quadruped's front legs have three
 * segments. */
Test(herd, unused_pose_streams_are_not_read)
{
    herd_scene a = make(CREATURE_QUADRUPED, 4), b = make(CREATURE_QUADRUPED, 4);
    creature_pose p;
    creature_stance(CREATURE_QUADRUPED, &a.body, &p);
    plane_field pf;
    plane(&pf, 0.0f, 0.0f, 0.0f);
    const float junk[4][4] = {{NAN, NAN, NAN, NAN}, {0, 0, 0, 0}, {INFINITY, 0, 0, 1}, {1e30f, 1e30f, 0, 0}};
    int short_legs = 0;
    for (int c = 0; c < 4; ++c) {
        cik_vec3 at = {(float)c, 0.0f, 0.0f};
        creature_pose_write(&p, &a.s, c, at, 0.0f, 1);
        creature_pose_write(&p, &b.s, c, at, 0.0f, 1);
        for (int l = 0; l < a.body.leg_count; ++l) {
            const int f = c * a.body.leg_count + l;
            for (int j = a.body.leg[l].segment_count; j < CIK_HERD_MAX_SEGMENTS; ++j) {
                b.s.pose_x[j][f] = junk[c][0];
                b.s.pose_y[j][f] = junk[c][1];
                b.s.pose_z[j][f] = junk[c][2];
                b.s.pose_w[j][f] = junk[c][3];
                short_legs += c == 0;
            }
        }
    }
    cr_assert_gt(short_legs, 0, "the quadruped has no leg of fewer than four segments");
    size_t n = OUTPUT_FLOATS(a.s);
    float *oa = malloc(n * sizeof(float)), *ob = malloc(n * sizeof(float));
    for (int frame = 0; frame < 3; ++frame) {
        cr_assert_eq(cik_herd_frame(a.h, &pf.hf, NULL, 0.0f), CIK_OK);
        cr_assert_eq(cik_herd_frame(b.h, &pf.hf, NULL, 0.0f), CIK_OK);
        for (int f = 0; f < b.s.foot_count; ++f)
            cr_expect(isfinite(b.s.anim_foot_x[f]) && isfinite(b.s.anim_foot_y[f]) && isfinite(b.s.foot_y[f]),
                      "frame %d foot %d: animated (%g, %g), solved %g", frame, f, b.s.anim_foot_x[f],
                      b.s.anim_foot_y[f], b.s.foot_y[f]);
        outputs(&a, oa);
        outputs(&b, ob);
        cr_expect(memcmp(oa, ob, n * sizeof(float)) == 0, "frame %d: the unused streams changed the outputs", frame);
    }
    free(oa);
    free(ob);
    cik_herd_destroy(a.h);
    cik_herd_destroy(b.h);
}

/* Level of detail: characters whose enable byte is 0 keep every output's
 * bits, the others get the bits of a herd with everyone on; switched back
 * on, a character starts afresh, as one reset with cik_herd_reset_character
 * in the all-on herd. Scattered characters, a whole chunk, the first and
 * the last are off; through the frame, the staged calls and the ranges. */
static int off_pattern(int c, int n) { return c % 7 == 3 || (c >= 64 && c < 128) || c == 0 || c == n - 1; }

static float *foot_output(const cik_herd_streams *s, int k)
{
    float *const list[] = {s->foot_x, s->foot_y, s->foot_z, s->solved_w[0], s->solved_x[1], s->solved_w[3],
                           s->weight, s->planted, s->locked, s->target_x, s->target_y, s->anim_foot_y,
                           s->probe_x, s->contact_y, s->error, s->passes};
    return k < (int)(sizeof list / sizeof list[0]) ? list[k] : NULL;
}

static float *body_output(const cik_herd_streams *s, int k)
{
    float *const list[] = {s->body_height, s->body_pitch, s->body_roll, s->solved_root_y[0], s->solved_root_z[1]};
    return k < (int)(sizeof list / sizeof list[0]) ? list[k] : NULL;
}

/* Character c of x and y: the same bits in every output listed above. */
static int same_character(const cik_herd_streams *x, const cik_herd_streams *y, int c)
{
    for (int k = 0; foot_output(x, k); ++k)
        if (memcmp(foot_output(x, k) + c * x->leg_count, foot_output(y, k) + c * y->leg_count,
                   sizeof(float) * (size_t)x->leg_count) != 0)
            return 0;
    for (int k = 0; body_output(x, k); ++k)
        if (memcmp(body_output(x, k) + c, body_output(y, k) + c, sizeof(float)) != 0) return 0;
    return 1;
}

Test(herd, characters_switched_off_are_left_alone)
{
    static rolling_field rf;
    make_rolling(&rf);
    const int n = 300;
    for (int mode = 0; mode < 3; ++mode) {
        herd_scene a = make(CREATURE_QUADRUPED, n), b = make(CREATURE_QUADRUPED, n), kept = make(CREATURE_QUADRUPED, n);
        creature_gait gait;
        cr_assert_eq(creature_gait_build(CREATURE_QUADRUPED, &a.body, &gait), 0);
        walk_frames(&a, &gait, &rf.hf, CIK_BACKEND_AUTO, 2, 5, mode, NULL);
        walk_frames(&b, &gait, &rf.hf, CIK_BACKEND_AUTO, 2, 5, mode, NULL);
        for (int c = 0; c < n; ++c) cr_assert(same_character(&a.s, &b.s, c));
        /* off; what they showed, kept in a third herd's streams */
        int off = 0;
        for (int c = 0; c < n; ++c) {
            a.s.enabled[c] = (unsigned char)!off_pattern(c, n);
            off += off_pattern(c, n);
        }
        for (int k = 0; foot_output(&a.s, k); ++k)
            memcpy(foot_output(&kept.s, k), foot_output(&a.s, k), sizeof(float) * (size_t)a.s.foot_count);
        for (int k = 0; body_output(&a.s, k); ++k)
            memcpy(body_output(&kept.s, k), body_output(&a.s, k), sizeof(float) * (size_t)n);
        /* the walk goes on (walk_frames restarts its clock: both herds alike) */
        walk_frames(&a, &gait, &rf.hf, CIK_BACKEND_AUTO, 2, 5, mode, NULL);
        walk_frames(&b, &gait, &rf.hf, CIK_BACKEND_AUTO, 2, 5, mode, NULL);
        int kept_bits = 0, same_bits = 0;
        for (int c = 0; c < n; ++c) {
            if (off_pattern(c, n))
                kept_bits += same_character(&a.s, &kept.s, c);
            else
                same_bits += same_character(&a.s, &b.s, c);
        }
        cr_expect_eq(kept_bits, off, "mode %d: %d of %d off characters kept their bits", mode, kept_bits, off);
        cr_expect_eq(same_bits, n - off, "mode %d: %d of %d on characters as with everyone on", mode, same_bits,
                     n - off);
        /* back on: afresh, as a reset character of the all-on herd */
        for (int c = 0; c < n; ++c) {
            a.s.enabled[c] = 1;
            if (off_pattern(c, n)) cr_assert_eq(cik_herd_reset_character(b.h, c), CIK_OK);
        }
        walk_frames(&a, &gait, &rf.hf, CIK_BACKEND_AUTO, 2, 4, mode, NULL);
        walk_frames(&b, &gait, &rf.hf, CIK_BACKEND_AUTO, 2, 4, mode, NULL);
        int back = 0;
        for (int c = 0; c < n; ++c) back += same_character(&a.s, &b.s, c);
        cr_expect_eq(back, n, "mode %d: %d of %d characters as in the herd where they were reset", mode, back, n);
        creature_gait_free(&gait);
        cik_herd_destroy(a.h);
        cik_herd_destroy(b.h);
        cik_herd_destroy(kept.h);
    }
}
