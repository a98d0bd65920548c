/*
 * Two-bone chains: the geometry of ozz-animation's two-bone IK tests
 * (ik_two_bone_job_tests.cc) replayed as crowdik 2-joint chains, the start
 * joint free, joint 1 a hinge (the knee) and the end joint the effector,
 * plus the edge cases that once failed (named after what they test), the
 * stall breaker's hinge direction and exact pass counts.
 *
 * ozz's base pose: start joint at the origin, mid joint at (0, 1, 0), end
 * joint at (1, 1, 0), the knee bent a quarter turn about z. Here: offset[1]
 * (0, 1, 0), rotation[1] -90 degrees about z, effector (0, 1, 0), the knee a
 * hinge about z with range [-pi, 0] (bent -pi/2, inside it). ozz's pole
 * vector is a direction from the start joint; crowdik's pole is the point
 * the start joint plus that direction. ozz's corrections are rotations in the
 * start joint's and mid joint's frames: with an identity start joint the
 * start correction is crowdik's rotation[0], and no mid correction means
 * rotation[1] as it started. Like ozz, rotations are checked within 2e-3;
 * reach is checked by forward kinematics in double precision from the
 * solved rotations, independent of the library's.
 *
 * Every case runs on every backend (a Criterion parameterized test over the
 * backends, skipped where a backend is not built in or the CPU lacks it),
 * with cik_default_options(), and with cik_plain_options() where the case
 * is about plain CCD. Cases ozz has that crowdik cannot express (scaled
 * parents other than uniform, soften, twist angle, job weight) are left out.
 */
#include "common.h"
#include "legs.h"

#include <criterion/parameterized.h>

#include <limits.h>

/* A test run once per backend of the dispatch table (tests/common.h). */
#define BACKEND_TEST(suite, name) T_BACKEND_TEST(suite, name)

static void tb_require(cik_backend be)
{
    if (!cik_backend_available(be)) cr_skip_test("backend %s not available here", cik_backend_name(be));
}

static cik_options tb_defaults(cik_backend be)
{
    cik_options o = cik_default_options();
    o.backend = be;
    o.threads = 1;
    return o;
}

static cik_options tb_plain(cik_backend be)
{
    cik_options o = cik_plain_options();
    o.backend = be;
    o.threads = 1;
    return o;
}

/* ozz's base pose (see the top of the file). */
static cik_chain tb_base(void)
{
    cik_chain c = t_chain(2);
    c.offset[1] = t_v3(0, 1, 0);
    c.rotation[1] = t_angle_axis(-M_PI / 2, 0, 0, 1);
    c.effector = t_v3(0, 1, 0);
    c.limit[1] = limit_hinge(t_v3(0, 0, 1), (float)-M_PI, 0.0f);
    c.pole = t_v3(0, 1, 0);
    c.pole_weight = 1.0f;
    return c;
}

/* ozz's AlignedJointsAndTarget pose: both bones along x, knee about z. */
static cik_chain tb_aligned(void)
{
    cik_chain c = tb_base();
    c.offset[1] = t_v3(1, 0, 0);
    c.rotation[1] = t_qid();
    c.effector = t_v3(1, 0, 0);
    return c;
}

/* The solved chain, its result and its forward kinematics in double. */
typedef struct tb_solved {
    cik_chain c;
    cik_result r;
    double P1[3], E[3];
} tb_solved;

static void tb_rotate(const double q[4], const double v[3], double out[3])
{
    /* v + 2w (u x v) + 2 u x (u x v) */
    double t[3] = {2 * (q[1] * v[2] - q[2] * v[1]), 2 * (q[2] * v[0] - q[0] * v[2]), 2 * (q[0] * v[1] - q[1] * v[0])};
    out[0] = v[0] + q[3] * t[0] + (q[1] * t[2] - q[2] * t[1]);
    out[1] = v[1] + q[3] * t[1] + (q[2] * t[0] - q[0] * t[2]);
    out[2] = v[2] + q[3] * t[2] + (q[0] * t[1] - q[1] * t[0]);
}

static void tb_qmul(const double a[4], const double b[4], double out[4])
{
    out[0] = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    out[1] = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    out[2] = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    out[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
}

/* Forward kinematics of a 2-joint chain in double (SPEC's formulas). */
static void tb_forward(const cik_chain *c, double P1[3], double E[3])
{
    double R[4] = {c->root_rotation.x, c->root_rotation.y, c->root_rotation.z, c->root_rotation.w};
    double q0[4] = {c->rotation[0].x, c->rotation[0].y, c->rotation[0].z, c->rotation[0].w};
    double q1[4] = {c->rotation[1].x, c->rotation[1].y, c->rotation[1].z, c->rotation[1].w};
    double W0[4], W1[4], v[3];
    tb_qmul(R, q0, W0);
    tb_qmul(W0, q1, W1);
    double o0[3] = {c->offset[0].x, c->offset[0].y, c->offset[0].z};
    double o1[3] = {c->offset[1].x, c->offset[1].y, c->offset[1].z};
    double e[3] = {c->effector.x, c->effector.y, c->effector.z};
    double P0[3];
    tb_rotate(R, o0, v);
    for (int k = 0; k < 3; ++k) P0[k] = (&c->root_position.x)[k] + v[k];
    tb_rotate(W0, o1, v);
    for (int k = 0; k < 3; ++k) P1[k] = P0[k] + v[k];
    tb_rotate(W1, e, v);
    for (int k = 0; k < 3; ++k) E[k] = P1[k] + v[k];
}

static tb_solved tb_solve(const cik_chain *in, cik_options o)
{
    tb_solved s;
    t_solved solved = t_solve_chain(in, &o);
    s.c = solved.c;
    s.r = solved.r;
    if (in->joint_count == 2) tb_forward(&s.c, s.P1, s.E);
    return s;
}

static double tb_dist(const double p[3], double x, double y, double z)
{
    return sqrt((p[0] - x) * (p[0] - x) + (p[1] - y) * (p[1] - y) + (p[2] - z) * (p[2] - z));
}

/* q equals `e` as a rotation (q or -q) within `tol` per component. */
static void tb_expect_quat(cik_quat q, cik_quat e, double tol, const char *what, cik_backend be)
{
    double plus = fmax(fmax(fabs(q.x - e.x), fabs(q.y - e.y)), fmax(fabs(q.z - e.z), fabs(q.w - e.w)));
    double minus = fmax(fmax(fabs(q.x + e.x), fabs(q.y + e.y)), fmax(fabs(q.z + e.z), fabs(q.w + e.w)));
    cr_expect(fmin(plus, minus) <= tol, "%s on %s: (%.6f %.6f %.6f %.6f), expected (%.6f %.6f %.6f %.6f)", what,
              cik_backend_name(be), q.x, q.y, q.z, q.w, e.x, e.y, e.z, e.w);
}

/* The solve met the target: converged, and the effector rebuilt from the
 * solved rotations is within the threshold of it. */
static void tb_expect_reached(const tb_solved *s, const cik_chain *in, const char *what, cik_backend be)
{
    double d = tb_dist(s->E, in->target.x, in->target.y, in->target.z);
    cr_expect(s->r.flags & CIK_RESULT_CONVERGED, "%s on %s: not converged (error %.3g, %d passes)", what,
              cik_backend_name(be), s->r.error, s->r.iterations);
    cr_expect(d < 1e-3, "%s on %s: effector %.3g from the target", what, cik_backend_name(be), d);
}

/* tb_expect_reached, the start joint at `start` and the knee at `knee`. */
static void tb_expect_pose(const tb_solved *s, const cik_chain *in, cik_quat start, cik_quat knee, const char *what,
                           cik_backend be)
{
    char w[160];
    tb_expect_reached(s, in, what, be);
    snprintf(w, sizeof w, "%s, start", what);
    tb_expect_quat(s->c.rotation[0], start, 2e-3, w, be);
    snprintf(w, sizeof w, "%s, knee", what);
    tb_expect_quat(s->c.rotation[1], knee, 2e-3, w, be);
}

/* A straight chain pointing at an unreachable target: knee at 0, the
 * effector at full reach on the ray from the root joint through the target. */
static void tb_expect_straight_at(const tb_solved *s, const cik_chain *in, double reach, const char *what,
                                  cik_backend be)
{
    double t[3] = {in->target.x - in->root_position.x, in->target.y - in->root_position.y,
                   in->target.z - in->root_position.z};
    double n = sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
    double on_ray = tb_dist(s->E, in->root_position.x + reach * t[0] / n, in->root_position.y + reach * t[1] / n,
                            in->root_position.z + reach * t[2] / n);
    double knee = t_angle_about(s->c.rotation[1], in->limit[1].axis);
    cr_expect(fabs(knee) < 1e-4, "%s on %s: knee %.6f rad, not straight", what, cik_backend_name(be), knee);
    cr_expect(on_ray < 1e-4, "%s on %s: effector %.3g off the full-reach point on the target ray", what,
              cik_backend_name(be), on_ray);
    cr_expect(fabs(s->r.error - (n - reach)) < 1e-4, "%s on %s: error %.7f, straight gives %.7f", what,
              cik_backend_name(be), s->r.error, n - reach);
    cr_expect(s->r.flags & CIK_RESULT_UNREACHABLE, "%s on %s: not flagged unreachable", what, cik_backend_name(be));
    cr_expect(!(s->r.flags & CIK_RESULT_CONVERGED), "%s on %s: flagged converged", what, cik_backend_name(be));
}

static cik_quat tb_rot(double angle, double x, double y, double z) { return t_angle_axis(angle, x, y, z); }

/* ozz StartJointCorrection: the base pose under four parents (identity,
 * translated up, rotated pi/3 about y, uniformly scaled by 2: crowdik has no
 * scale, so every length is doubled), and four targets around the start
 * joint's y axis; the start joint alone turns, the knee keeps its bend. */
BACKEND_TEST(two_bone, start_joint_correction_under_parents)
{
    tb_require(be);
    struct {
        cik_vec3 p;
        cik_quat q;
        float scale;
        const char *name;
    } parents[] = {
        {{0, 0, 0}, {0, 0, 0, 1}, 1, "identity"},
        {{0, 1, 0}, {0, 0, 0, 1}, 1, "translated"},
        {{0, 0, 0}, t_angle_axis(M_PI / 3, 0, 1, 0), 1, "rotated"},
        {{0, 0, 0}, {0, 0, 0, 1}, 2, "scaled"},
    };
    struct {
        float x, y, z;
        cik_quat expect;
        const char *name;
    } targets[] = {
        {1, 1, 0, {0, 0, 0, 1}, "no correction"},
        {0, 1, 1, tb_rot(-M_PI / 2, 0, 1, 0), "90"},
        {-1, 1, 0, tb_rot(M_PI, 0, 1, 0), "180 behind"},
        {0, 1, -1, tb_rot(M_PI / 2, 0, 1, 0), "270"},
    };
    for (size_t i = 0; i < sizeof parents / sizeof parents[0]; ++i)
        for (size_t k = 0; k < sizeof targets / sizeof targets[0]; ++k) {
            cik_chain c = tb_base();
            float s = parents[i].scale;
            c.root_position = parents[i].p;
            c.root_rotation = parents[i].q;
            c.offset[1] = t_v3(0, s, 0);
            c.effector = t_v3(0, s, 0);
            /* target and pole through the parent transform */
            cik_chain probe = c;
            probe.joint_count = 1;
            probe.offset[0] = t_v3(s * targets[k].x, s * targets[k].y, s * targets[k].z);
            cik_vec3 t, pole;
            cr_assert_eq(cik_chain_forward(&probe, &t, NULL), CIK_OK);
            probe.offset[0] = t_v3(0, s, 0);
            cr_assert_eq(cik_chain_forward(&probe, &pole, NULL), CIK_OK);
            c.target = t;
            c.pole = pole;
            tb_solved r = tb_solve(&c, tb_defaults(be));
            char what[96];
            snprintf(what, sizeof what, "parent %s, target %s", parents[i].name, targets[k].name);
            tb_expect_pose(&r, &c, targets[k].expect, c.rotation[1], what, be);
            if (k == 0) cr_expect_eq(r.r.iterations, 0, "%s: the start met the target", what);
        }
}

/* ozz Pole: the pole along y, z, -z, x, -x with a target that the start
 * joint reaches by a quarter turn toward it, the knee keeping its bend. */
BACKEND_TEST(two_bone, pole_along_each_axis)
{
    tb_require(be);
    struct {
        cik_vec3 pole, target;
        cik_quat expect;
        const char *name;
    } cases[] = {
        {{0, 1, 0}, {1, 1, 0}, {0, 0, 0, 1}, "pole y"},
        {{0, 0, 1}, {1, 0, 1}, tb_rot(M_PI / 2, 1, 0, 0), "pole z"},
        {{0, 0, -1}, {1, 0, -1}, tb_rot(-M_PI / 2, 1, 0, 0), "pole -z"},
        {{1, 0, 0}, {1, -1, 0}, tb_rot(-M_PI / 2, 0, 0, 1), "pole x"},
        {{-1, 0, 0}, {-1, 1, 0}, tb_rot(M_PI / 2, 0, 0, 1), "pole -x"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        cik_chain c = tb_base();
        c.pole = cases[i].pole;
        c.target = cases[i].target;
        tb_solved r = tb_solve(&c, tb_defaults(be));
        tb_expect_pose(&r, &c, cases[i].expect, c.rotation[1], cases[i].name, be);
    }
}

/* ozz Soften/Weight "reachable": the target at exactly full reach on x; the
 * knee straightens (mid correction +90 degrees: rotation[1] the identity)
 * and the start joint turns -90 degrees about z. */
BACKEND_TEST(two_bone, target_at_full_reach)
{
    tb_require(be);
    cik_chain c = tb_base();
    c.target = t_v3(2, 0, 0);
    tb_solved r = tb_solve(&c, tb_defaults(be));
    tb_expect_pose(&r, &c, tb_rot(-M_PI / 2, 0, 0, 1), t_qid(), "full reach", be);
}

/* Defect 8 (ozz AlignedJointsAndTarget, unreachable): a straight chain
 * already pointing at a target 1 beyond its reach. Every step is skipped and
 * the target is out of reach: the stall breaker used to bend the knee
 * (-0.047 rad with the defaults, -0.037 plain), worse than the start. It is
 * aimed_out_of_reach: the pose is the answer, untouched. */
BACKEND_TEST(two_bone, aligned_joints_and_unreachable_target)
{
    tb_require(be);
    cik_chain c = tb_aligned();
    c.target = t_v3(3, 0, 0);
    for (int plain = 0; plain <= 1; ++plain) {
        const char *what = plain ? "plain CCD" : "defaults";
        tb_solved r = tb_solve(&c, plain ? tb_plain(be) : tb_defaults(be));
        tb_expect_straight_at(&r, &c, 2.0, what, be);
        tb_expect_quat(r.c.rotation[0], t_qid(), 1e-6, what, be);
        tb_expect_quat(r.c.rotation[1], t_qid(), 1e-6, what, be);
        cr_expect(fabs(r.r.error - 1.0) < 1e-6, "%s on %s: error %.9g", what, cik_backend_name(be), r.r.error);
    }
}

/* ozz AlignedJointsAndTarget, reachable: the target where the straight
 * chain's end already is: nothing to do, 0 passes. */
BACKEND_TEST(two_bone, aligned_joints_and_target)
{
    tb_require(be);
    cik_chain c = tb_aligned();
    c.target = t_v3(2, 0, 0);
    for (int plain = 0; plain <= 1; ++plain) {
        tb_solved r = tb_solve(&c, plain ? tb_plain(be) : tb_defaults(be));
        cr_expect_eq(r.r.iterations, 0);
        cr_expect(r.r.flags & CIK_RESULT_CONVERGED);
        cr_expect_eq(memcmp(r.c.rotation, c.rotation, 2 * sizeof(cik_quat)), 0, "untouched");
    }
}

/* Defect 9 (ozz PoleTargetAlignment, full extent): a target straight above
 * the start joint, 1 beyond reach, the knee bent a quarter turn (hinge about
 * -z, range [0, pi], pole on the target line). With the defaults the chain
 * ended 0.150 rad bent and aimed 0.15 rad off the target line (error 1.08
 * where straight gives 1.00). An unreachable target gets a straight chain
 * pointing at it; also with the base pose's hinge, with plain CCD, and for
 * ozz's Soften "a bit too far" target on x. */
BACKEND_TEST(two_bone, unreachable_target_straight_chain)
{
    tb_require(be);
    cik_chain d9 = tb_base();
    d9.limit[1].axis = t_v3(0, 0, -1);
    d9.limit[1].min_angle = 0.0f;
    d9.limit[1].max_angle = (float)M_PI;
    d9.target = t_v3(0, 3, 0);
    cik_chain above = tb_base();
    above.target = t_v3(0, 3, 0);
    cik_chain far_x = tb_base();
    far_x.target = t_v3(3, 0, 0);
    cik_chain far_root = tb_base(); /* and from a translated, rotated root */
    far_root.root_position = t_v3(0.5f, -2, 1);
    far_root.root_rotation = t_angle_axis(0.7, 1, 2, 3);
    far_root.target = t_v3(4, 1, -2);
    /* plain CCD approaches the straight pose only geometrically where the
     * knee's first step does not straighten it (a bit too far: still -0.11
     * rad after 10 passes): `plain` marks the cases it straightens at once */
    const struct {
        const cik_chain *c;
        const char *name;
        int plain;
    } cases[] = {{&d9, "defect 9", 1}, {&above, "base pose, target above", 1}, {&far_x, "a bit too far", 0},
                 {&far_root, "moved root", 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
        for (int plain = 0; plain <= cases[i].plain; ++plain) {
            char what[96];
            snprintf(what, sizeof what, "%s, %s", cases[i].name, plain ? "plain CCD" : "defaults");
            tb_solved r = tb_solve(cases[i].c, plain ? tb_plain(be) : tb_defaults(be));
            tb_expect_straight_at(&r, cases[i].c, 2.0, what, be);
        }
}

/* Defect 10 (ozz MidAxis, negative axis): the knee's hinge about -z with
 * range [-pi, 0], so the start's bend (+pi/2 about -z) lies outside it, and
 * a target a millimetre off the effector. The limb step flips the knee to
 * -pi/2: a rotation of almost a half turn, whose half-angle the kernels took
 * from 1 + cos(phi), which cancels there (AVX-512 then needed all 10 passes,
 * error 8.2e-4). Every backend converges in one pass, the start joint a half
 * turn about y (ozz's expectation), the knee at -pi/2 about -z. */
BACKEND_TEST(two_bone, mid_axis_negative_start_outside_limit)
{
    tb_require(be);
    cik_chain c = tb_base();
    c.rotation[1] = t_q(0, 0, -0x1.6a09e6p-1f, 0x1.6a09e6p-1f);
    c.limit[1].axis = t_v3(0, 0, -1);
    c.limit[1].min_angle = -0x1.921fb6p+1f;
    c.limit[1].max_angle = 0.0f;
    c.target = t_v3(1, 1, 0x1.0624dep-10f);
    tb_solved r = tb_solve(&c, tb_defaults(be));
    tb_expect_pose(&r, &c, tb_rot(M_PI, 0, 1, 0), tb_rot(M_PI / 2, 0, 0, 1), "negative mid axis", be);
    cr_expect_eq(r.r.iterations, 1, "on %s: %d passes", cik_backend_name(be), r.r.iterations);
}

/* The documented choice for a start outside its limits that already meets
 * the target (ozz MidAxis' negative axis with its own target): returned
 * untouched, 0 passes, CONVERGED, the knee still outside its range. */
BACKEND_TEST(two_bone, start_outside_limits_meeting_target_untouched)
{
    tb_require(be);
    cik_chain c = tb_base();
    c.limit[1].axis = t_v3(0, 0, -1);
    c.target = t_v3(1, 1, 0);
    for (int plain = 0; plain <= 1; ++plain) {
        tb_solved r = tb_solve(&c, plain ? tb_plain(be) : tb_defaults(be));
        cr_expect_eq(r.r.iterations, 0);
        cr_expect_eq(r.r.flags, CIK_RESULT_CONVERGED);
        cr_expect_eq(memcmp(r.c.rotation, c.rotation, 2 * sizeof(cik_quat)), 0, "untouched");
    }
}

/* ozz MidAxis, aligned joints: a straight start (knee at 0, the top of its
 * range) and the base target: the knee bends -pi/2 and the start joint
 * stays. */
BACKEND_TEST(two_bone, mid_axis_aligned_joints)
{
    tb_require(be);
    cik_chain c = tb_base();
    c.rotation[1] = t_qid();
    c.target = t_v3(1, 1, 0);
    tb_solved r = tb_solve(&c, tb_defaults(be));
    tb_expect_pose(&r, &c, t_qid(), tb_rot(-M_PI / 2, 0, 0, 1), "aligned joints", be);
}

/* ozz PoleTargetAlignment, reachable: the target on the pole's line (no bend
 * plane from the pole): reached, the knee keeps its bend; a millimetre off
 * the line the start joint turns an eighth about z. */
BACKEND_TEST(two_bone, pole_target_alignment)
{
    tb_require(be);
    cik_chain c = tb_base();
    c.target = t_v3(0, (float)M_SQRT2, 0);
    tb_solved r = tb_solve(&c, tb_defaults(be));
    tb_expect_reached(&r, &c, "pole on the target line", be);
    tb_expect_quat(r.c.rotation[1], c.rotation[1], 2e-3, "pole on the target line, knee", be);
    c.target = t_v3(0.001f, (float)M_SQRT2, 0);
    r = tb_solve(&c, tb_defaults(be));
    tb_expect_pose(&r, &c, tb_rot(M_PI / 4, 0, 0, 1), c.rotation[1], "pole near the target line", be);
}

/* Defect 11: plain CCD on defect 9's pose with the hinge about z, range
 * [-pi, 0], no pole, target (0, sqrt 2, 0). The first pass straightens the
 * knee to 0 and aims it; the second is stuck and the stall breaker bends
 * the root about perp((0, 1, 0)) = (0, 0, -1), a tie between x and z that
 * the kernels' rounding noise (3e-8) used to break toward z: the mid joint
 * ended at (0, 0.969, 0.247) on the kernels and at (0.247, 0.969, 0) on the
 * reference. After that, passes alternate between straightening and the
 * stall breaker (the knee, at the top of its range, bends -0.25 toward its
 * middle); the tenth ends on a stall breaker's pose: root -0.25 rad about z,
 * knee -0.25 rad, everything in the z = 0 plane. */
BACKEND_TEST(two_bone, plain_ccd_degenerate_start_tie)
{
    tb_require(be);
    cik_chain c = tb_base();
    c.pole_weight = 0.0f;
    c.pole = t_v3(0, 0, 0);
    c.target = t_v3(0, 1.41421356f, 0);
    tb_solved r = tb_solve(&c, tb_plain(be));
    double s1 = sin(0.25), c1 = cos(0.25), s2 = sin(0.5), c2 = cos(0.5);
    cr_expect(tb_dist(r.P1, s1, c1, 0) < 1e-4, "on %s: mid joint (%.6f %.6f %.6f), expected (%.6f %.6f 0)",
              cik_backend_name(be), r.P1[0], r.P1[1], r.P1[2], s1, c1);
    cr_expect(tb_dist(r.E, s1 + s2, c1 + c2, 0) < 1e-4, "on %s: effector (%.6f %.6f %.6f)", cik_backend_name(be),
              r.E[0], r.E[1], r.E[2]);
    cr_expect_eq(r.r.iterations, 10);
    /* the defaults (limb step) reach it in one pass */
    r = tb_solve(&c, tb_defaults(be));
    tb_expect_reached(&r, &c, "defaults", be);
    cr_expect_eq(r.r.iterations, 1);
}

/* ozz ZeroLengthStartTarget: the target on the start joint. The knee folds
 * to -pi (the effector onto the start joint) and the start joint stays. */
BACKEND_TEST(two_bone, target_at_start_joint)
{
    tb_require(be);
    cik_chain c = tb_base();
    c.target = t_v3(0, 0, 0);
    tb_solved r = tb_solve(&c, tb_defaults(be));
    tb_expect_pose(&r, &c, t_qid(), tb_rot(-M_PI, 0, 0, 1), "target at the start joint", be);
}

/* ozz ZeroLengthBoneChain: every joint and the effector on the start joint,
 * the target 1 away: nothing can move the effector. The solve stays finite,
 * the error is exactly 1, the target unreachable, and every backend ends in
 * the reference's pose. Plain CCD runs all its passes; the defaults
 * (stop_unreachable) run none: the effector is already as near as it can
 * come. */
BACKEND_TEST(two_bone, zero_length_bone_chain)
{
    tb_require(be);
    cik_chain c = tb_base();
    c.offset[1] = t_v3(0, 0, 0);
    c.effector = t_v3(0, 0, 0);
    c.rotation[1] = t_qid();
    c.target = t_v3(1, 0, 0);
    for (int plain = 0; plain <= 1; ++plain) {
        cik_options o = plain ? tb_plain(be) : tb_defaults(be);
        tb_solved r = tb_solve(&c, o);
        o.backend = CIK_BACKEND_REFERENCE;
        tb_solved ref = tb_solve(&c, o);
        cr_expect_eq(r.r.error, 1.0f);
        cr_expect_eq(r.r.flags, CIK_RESULT_UNREACHABLE);
        cr_expect_eq(r.r.iterations, plain ? 10 : 0);
        for (int j = 0; j < 2; ++j) {
            cr_expect(t_quat_finite(r.c.rotation[j]) && fabs(t_qlen(r.c.rotation[j]) - 1) < 1e-5);
            tb_expect_quat(r.c.rotation[j], ref.c.rotation[j], 1e-5, plain ? "plain CCD" : "defaults", be);
        }
    }
}

/* The stall breaker bends a hinge toward the middle of its range (SPEC
 * unstick). A one-joint chain pointing straight at a reachable target
 * nearer than its effector: every step is skipped, the stall breaker fires,
 * and after one pass the hinge angle is its start plus or minus 0.25, then
 * clamped. A hinge at the top of its range used to bend up and be clamped
 * back where it was; a hinge at the middle (within rounding: a range
 * [-pi, pi] as floats has its ends' half-angle cosines just below 0) bends
 * +0.25 on every backend. */
BACKEND_TEST(stall_breaker, hinge_bends_toward_middle)
{
    tb_require(be);
    const float pi = (float)M_PI;
    const struct {
        float min, max, start, expect;
    } cases[] = {
        {-1, 1, 0, 0.25f},       {-pi, pi, 0, 0.25f},   {-pi, pi, 0.1f, -0.15f},
        {-pi, pi, -0.1f, 0.15f}, {-pi, 0, 0, -0.25f},   {0, pi, 0, 0.25f},
        {-pi, 0x1.921fb4p+1f, 0, 0.25f},                {0.5f, 2, 2, 1.75f},
        {-2, -0.5f, -2, -1.75f}, {-pi, -1, -1, -1.25f},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
        for (int plain = 0; plain <= 1; ++plain) {
            cik_chain c = t_chain(1);
            c.limit[0] = limit_hinge(t_v3(0, 0, 1), cases[i].min, cases[i].max);
            c.rotation[0] = t_angle_axis(cases[i].start, 0, 0, 1);
            /* the effector straight up in world space, the target below it */
            c.effector = t_v3((float)sin(cases[i].start), (float)cos(cases[i].start), 0);
            c.target = t_v3(0, 0.5f, 0);
            cik_options o = plain ? tb_plain(be) : tb_defaults(be);
            o.max_iterations = 1;
            /* the pose the stall breaker leaves (it moves away from the
             * target: keep_best would end on the start pose after one pass) */
            o.ccd.keep_best = 0;
            tb_solved r = tb_solve(&c, o);
            double angle = t_angle_about(r.c.rotation[0], c.limit[0].axis);
            cr_expect(fabs(angle - cases[i].expect) < 1e-5,
                      "range [%g, %g] from %g, %s, on %s: %.7f, expected %.7f", cases[i].min, cases[i].max,
                      cases[i].start, plain ? "plain" : "defaults", cik_backend_name(be), angle, cases[i].expect);
        }
}

/* Defect 1: the kernels counted passes in a float, stuck at 2^24: the
 * scalar kernel reported 16,777,216 passes for more, and a regrouped vector
 * group (a chain alone among converged lanes is pooled after its first
 * pass and resumed) compared its float count with max_iterations and never
 * returned. A one-joint chain aimed at an unreachable target runs every
 * pass (aimed_out_of_reach: no stall breaker, so each pass is cheap) and
 * must report exactly max_iterations. */
BACKEND_TEST(pass_count, exact_above_2_pow_24)
{
    tb_require(be);
    cik_chain c = t_chain(1);
    c.effector = t_v3(1, 0, 0);
    c.target = t_v3(5, 0, 0);
    cik_options o = tb_plain(be);
    o.max_iterations = (1 << 24) + 3;
    tb_solved r = tb_solve(&c, o);
    cr_expect_eq(r.r.iterations, (1 << 24) + 3, "on %s: %d passes", cik_backend_name(be), r.r.iterations);
    cr_expect_eq(r.r.flags, CIK_RESULT_UNREACHABLE);
    cr_expect_eq(memcmp(&r.c.rotation[0], &c.rotation[0], sizeof(cik_quat)), 0, "untouched");
}

/* The count is min(passes needed, max_iterations) at both ends of the
 * range: 0 passes (nothing runs) and INT_MAX, with chains that provably
 * converge (one free joint, the target on its effector's sphere: one step
 * aligns it; chain 0 starts on its target), in a batch big enough for the
 * vector kernels to regroup. */
BACKEND_TEST(pass_count, zero_and_int_max)
{
    tb_require(be);
    const int n = 200;
    cik_batch *b = NULL;
    cr_assert_eq(cik_batch_create(n, 1, &b), CIK_OK);
    for (int i = 0; i < n; ++i) {
        cik_chain c = t_chain(1);
        c.effector = t_v3(0, 1, 0);
        double u = 0.61803398875 * i, v = 0.1 + 0.8 * i / n;
        c.target = i == 0 ? c.effector
                          : t_v3((float)(sin(M_PI * v) * cos(2 * M_PI * u)), (float)cos(M_PI * v),
                                 (float)(sin(M_PI * v) * sin(2 * M_PI * u)));
        cr_assert_eq(cik_batch_set_chain(b, i, &c), CIK_OK);
    }
    cik_options o = tb_plain(be);
    o.max_iterations = 0;
    cr_assert_eq(cik_solve(b, &o), CIK_OK);
    for (int i = 0; i < n; ++i) {
        cik_result r;
        cik_batch_result(b, i, &r);
        cr_expect_eq(r.iterations, 0);
        cr_expect_eq(!!(r.flags & CIK_RESULT_CONVERGED), i == 0, "chain %d", i);
    }
    o.max_iterations = INT_MAX;
    cr_assert_eq(cik_solve(b, &o), CIK_OK);
    for (int i = 0; i < n; ++i) {
        cik_result r;
        cik_batch_result(b, i, &r);
        cr_expect(r.flags & CIK_RESULT_CONVERGED, "chain %d: %d passes, error %g", i, r.iterations, r.error);
        cr_expect_eq(r.iterations, i == 0 ? 0 : 1, "chain %d", i);
    }
    cik_batch_destroy(b);
}

/* stop_unreachable (a default): 2,048 two-joint legs (hip free, knee a
 * hinge about x that may straighten, thigh 0.45, shin 0.42), each posed at
 * random and given a target 1.02 to 1.6 reaches from the hip in a random
 * direction. With the option every chain stops in the pass after it lies
 * straight toward its target: one pass (the limb step straightens and aims
 * it), its error within the threshold of |target - hip| - reach, as near as
 * any pass gets it (the same error as ten passes without the option, within
 * the threshold), on every backend the reference's passes and error. With
 * a knee that cannot straighten (its range from 0.3 rad) no chain gets
 * that near, and every one runs all ten passes either way. */
static float tb_lcg(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return (float)(*s >> 8) * (1.0f / 16777216.0f);
}

static void tb_out_of_reach_batch(cik_batch *b, float knee_min, uint32_t seed)
{
    const int n = cik_batch_chain_count(b), joints = cik_batch_joint_count(b);
    for (int i = 0; i < n; ++i) {
        cik_chain c = t_chain(joints);
        c.offset[1] = t_v3(0, -0.45f, 0);
        c.effector = t_v3(0, -0.42f, 0);
        c.limit[1] = limit_hinge(t_v3(1, 0, 0), knee_min, 2.5f);
        c.rotation[0] = t_angle_axis(tb_lcg(&seed) - 0.5f, 1, 0, 0);
        c.rotation[1] = t_angle_axis(knee_min + 0.1f + 1.5f * tb_lcg(&seed), 1, 0, 0);
        if (joints == 3) {
            /* a free ankle with the effector at its origin */
            c.offset[2] = c.effector;
            c.effector = t_v3(0, 0, 0);
            c.rotation[2] = t_angle_axis(tb_lcg(&seed) - 0.5f, 1, 0, 0);
        }
        float z = 2.0f * tb_lcg(&seed) - 1.0f, a = 6.2831853f * tb_lcg(&seed), r = sqrtf(1.0f - z * z);
        float d = 0.87f * (1.02f + 0.58f * tb_lcg(&seed));
        c.target = t_v3(d * r * cosf(a), d * z, d * r * sinf(a));
        cr_assert_eq(cik_batch_set_chain(b, i, &c), CIK_OK);
    }
}

BACKEND_TEST(two_bone, an_unreachable_target_stops_the_chain_once_it_is_straight)
{
    tb_require(be);
    enum { N = 2048 };
    for (int blocked = 0; blocked <= 1; ++blocked) {
        const float knee_min = blocked ? 0.3f : 0.0f;
        cik_batch *on = NULL, *off = NULL, *ref = NULL;
        cr_assert_eq(cik_batch_create(N, 2, &on), CIK_OK);
        cr_assert_eq(cik_batch_create(N, 2, &off), CIK_OK);
        cr_assert_eq(cik_batch_create(N, 2, &ref), CIK_OK);
        tb_out_of_reach_batch(on, knee_min, 7u);
        tb_out_of_reach_batch(off, knee_min, 7u);
        tb_out_of_reach_batch(ref, knee_min, 7u);
        cik_options o = tb_defaults(be);
        cr_assert_eq(o.ccd.stop_unreachable, 1);
        cr_assert_eq(cik_solve(on, &o), CIK_OK);
        cik_options all = o;
        all.ccd.stop_unreachable = 0;
        cr_assert_eq(cik_solve(off, &all), CIK_OK);
        cik_options r = o;
        r.backend = CIK_BACKEND_REFERENCE;
        cr_assert_eq(cik_solve(ref, &r), CIK_OK);
        long passes = 0;
        for (int i = 0; i < N; ++i) {
            cik_result a, b, c;
            cik_chain ch;
            cr_assert_eq(cik_batch_result(on, i, &a), CIK_OK);
            cr_assert_eq(cik_batch_result(off, i, &b), CIK_OK);
            cr_assert_eq(cik_batch_result(ref, i, &c), CIK_OK);
            cr_assert_eq(cik_batch_get_chain(on, i, &ch), CIK_OK);
            const float span = sqrtf(ch.target.x * ch.target.x + ch.target.y * ch.target.y + ch.target.z * ch.target.z);
            const float gap = span - 0.87f;
            cr_assert(a.flags & CIK_RESULT_UNREACHABLE, "chain %d", i);
            cr_assert_eq(b.iterations, 10, "chain %d without the option: %d passes", i, b.iterations);
            if (blocked) {
                cr_assert_eq(a.iterations, 10, "chain %d (knee from 0.3): %d passes", i, a.iterations);
                cr_assert_gt(a.error - gap, o.threshold, "chain %d", i);
            } else {
                cr_assert_eq(a.iterations, 1, "chain %d: %d passes", i, a.iterations);
                cr_assert_lt(a.error - gap, o.threshold, "chain %d: error %g, gap %g", i, a.error, gap);
                cr_assert_lt(fabsf(a.error - b.error), o.threshold, "chain %d: %g, all passes %g", i, a.error, b.error);
            }
            cr_assert_eq(a.iterations, c.iterations, "chain %d: %d passes, the reference %d", i, a.iterations, c.iterations);
            cr_assert_lt(fabsf(a.error - c.error), 1e-4f, "chain %d: error %g, the reference %g", i, a.error, c.error);
            passes += a.iterations;
        }
        cr_log_info("%s, knee from %.1f: %.2f passes a chain (10 without the option)", cik_backend_name(be), knee_min,
                    (double)passes / N);
        cik_batch_destroy(on);
        cik_batch_destroy(off);
        cik_batch_destroy(ref);
    }
}

/* The same legs with an ankle (hip, knee, a free ankle; the effector at the
 * ankle's origin, as engines and the foot pipeline solve legs): a 3-joint
 * limb, whose knee takes a second try after the ankle's step where the
 * distance is still off, except on such a limb out of reach, where the
 * ankle cannot move the effector (docs/solver.md, Limb mode). Out of
 * reach it still stops in one pass, straight toward its target (the
 * error the gap), as the reference does. */
BACKEND_TEST(two_bone, an_ankle_limb_out_of_reach_stops_straight_in_one_pass)
{
    tb_require(be);
    enum { N = 2048 };
    cik_batch *b = NULL, *ref = NULL;
    cr_assert_eq(cik_batch_create(N, 3, &b), CIK_OK);
    cr_assert_eq(cik_batch_create(N, 3, &ref), CIK_OK);
    tb_out_of_reach_batch(b, 0.0f, 11u);
    tb_out_of_reach_batch(ref, 0.0f, 11u);
    cik_options o = tb_defaults(be);
    cr_assert_eq(cik_solve(b, &o), CIK_OK);
    cik_options r = o;
    r.backend = CIK_BACKEND_REFERENCE;
    cr_assert_eq(cik_solve(ref, &r), CIK_OK);
    for (int i = 0; i < N; ++i) {
        cik_result got, want;
        cik_chain ch;
        cr_assert_eq(cik_batch_result(b, i, &got), CIK_OK);
        cr_assert_eq(cik_batch_result(ref, i, &want), CIK_OK);
        cr_assert_eq(cik_batch_get_chain(b, i, &ch), CIK_OK);
        const float span = sqrtf(ch.target.x * ch.target.x + ch.target.y * ch.target.y + ch.target.z * ch.target.z);
        const float gap = span - 0.87f;
        cr_assert_eq(got.flags, CIK_RESULT_UNREACHABLE, "chain %d: flags %u", i, got.flags);
        cr_assert_eq(got.iterations, 1, "chain %d: %d passes", i, got.iterations);
        cr_assert_lt(got.error - gap, o.threshold, "chain %d: error %g, gap %g", i, got.error, gap);
        cr_assert_eq(got.iterations, want.iterations, "chain %d: %d passes, the reference %d", i, got.iterations,
                     want.iterations);
        cr_assert_lt(fabsf(got.error - want.error), 1e-4f, "chain %d: error %g, the reference %g", i, got.error,
                     want.error);
    }
    cik_batch_destroy(b);
    cik_batch_destroy(ref);
}
