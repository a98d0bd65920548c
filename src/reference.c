/*
 * The reference solver: the oracle every vector kernel is checked against.
 *
 * One chain at a time, array-of-structs, step by step exactly as the solver
 * semantics (docs/solver.md) describe it, with the plain transcendental
 * functions (atan2, acos) where the semantics name an angle. Never optimise
 * this file: its value is that it is obviously right. It shares no code with
 * the kernels, so that a bug there cannot hide here.
 */
#include "internal.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

typedef cik_vec3 vec3;
typedef cik_quat quat;

/* Below this a direction has no meaning (SPEC step 1 and 2). */
#define EPS 1e-6f
/* The stall breaker's bend, radians (SPEC unstick). */
#define UNSTICK_ANGLE 0.25f
/* Relative tolerance under which two numbers that decide a tie count as
 * equal (perp's smallest component, a hinge at the middle of its range):
 * far above the rounding noise of any backend, far below any angle that
 * matters. */
#define TIE 1e-5f
/* Limb step: a circle of squared radius below this has no usable angle;
 * a distance split with a squared gradient below this goes to the middle
 * joint alone. */
#define LIMB_EPS2 1e-12f
#define LIMB_TINY 1e-30f

static vec3 v3(float x, float y, float z)
{
    vec3 r = {x, y, z};
    return r;
}
static vec3 add(vec3 a, vec3 b) { return v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static vec3 sub(vec3 a, vec3 b) { return v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static vec3 scale(vec3 a, float s) { return v3(a.x * s, a.y * s, a.z * s); }
static float dot(vec3 a, vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static float length(vec3 a) { return sqrtf(dot(a, a)); }
static vec3 cross(vec3 a, vec3 b)
{
    return v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static vec3 normalize3(vec3 a) { return scale(a, 1.0f / length(a)); }

static quat qmake(float x, float y, float z, float w)
{
    quat q = {x, y, z, w};
    return q;
}
static quat qmul(quat a, quat b)
{
    return qmake(a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                 a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                 a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
                 a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z);
}
static quat qconj(quat q) { return qmake(-q.x, -q.y, -q.z, q.w); }
static quat qnormalize(quat q)
{
    float n = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    return qmake(q.x / n, q.y / n, q.z / n, q.w / n);
}
/* v' = q v q*, expanded: v + 2w (u x v) + 2 u x (u x v), u = q.xyz. */
static vec3 rotate(quat q, vec3 v)
{
    vec3 u = v3(q.x, q.y, q.z);
    vec3 t = scale(cross(u, v), 2.0f);
    return add(add(v, scale(t, q.w)), cross(u, t));
}
static quat angle_axis(float angle, vec3 axis)
{
    float s = sinf(0.5f * angle);
    return qmake(axis.x * s, axis.y * s, axis.z * s, cosf(0.5f * angle));
}

/* SPEC step 3: the shortest arc from unit a to unit b (d = a.b, x = a x b,
 * not antiparallel), normalize(1 + d, x). Beyond a quarter turn 1 + d is
 * computed as |a + b|^2 / 2: the same number without the cancellation that
 * 1 + d suffers near a half turn. */
static quat arc(vec3 a, vec3 b, float d, vec3 x)
{
    vec3 s = add(a, b);
    return qnormalize(qmake(x.x, x.y, x.z, d < 0.0f ? 0.5f * dot(s, s) : 1.0f + d));
}

/* normalize(k r + (1 - k) identity): the step factor (gain, weight) and the
 * pole weight. */
static quat toward(quat r, float k) { return qnormalize(qmake(k * r.x, k * r.y, k * r.z, 1.0f - k + k * r.w)); }

/* SPEC perp(a): the basis axis along which |a| is smallest (ties x, y, z),
 * crossed with a. Components within TIE of the largest one count as equal:
 * ties happen on exactly axis-aligned geometry, where every implementation
 * carries its own rounding noise (a kernel's 3e-8 where the reference has
 * an exact 0), and an exact comparison would let that noise pick the axis. */
static vec3 perp(vec3 a)
{
    float ax = fabsf(a.x), ay = fabsf(a.y), az = fabsf(a.z);
    float tie = TIE * fmaxf(ax, fmaxf(ay, az));
    vec3 e;
    if (ax <= ay + tie && ax <= az + tie)
        e = v3(1, 0, 0);
    else if (ay <= az + tie)
        e = v3(0, 1, 0);
    else
        e = v3(0, 0, 1);
    return normalize3(cross(a, e));
}

static float clampf(float x, float lo, float hi) { return x < lo ? lo : (x > hi ? hi : x); }

/* An angle wrapped into [-pi, pi]. */
static float wrap_angle(float a)
{
    const float pi = 3.14159265358979f;
    if (a > pi) return a - 2.0f * pi;
    if (a < -pi) return a + 2.0f * pi;
    return a;
}

/* An angle in [-pi, pi] clamped to [min, max] on the circle: one outside
 * goes to the bound it is nearer to round either way, max where it lies
 * counterclockwise of the range's middle (docs/solver.md). */
static float clamp_circular(float angle, float min_angle, float max_angle)
{
    if (angle >= min_angle && angle <= max_angle) return angle;
    return wrap_angle(angle - 0.5f * (min_angle + max_angle)) >= 0.0f ? max_angle : min_angle;
}

/* The angle of q about `axis` (q assumed to have w >= 0), and q rebuilt as a
 * rotation about the axis alone with that angle clamped to [min, max]. */
static quat clamp_about_axis(quat q, vec3 axis, float min_angle, float max_angle)
{
    float angle = 2.0f * atan2f(dot(v3(q.x, q.y, q.z), axis), q.w);
    return angle_axis(clamp_circular(angle, min_angle, max_angle), axis);
}

/* SPEC joint limits, applied to a local rotation. */
static quat apply_limit(quat q, const cik_limit *l)
{
    if (l->type == CIK_LIMIT_NONE) return q;
    if (q.w < 0.0f) q = qmake(-q.x, -q.y, -q.z, -q.w);
    if (l->type == CIK_LIMIT_HINGE) return clamp_about_axis(q, l->axis, l->min_angle, l->max_angle);

    /* swing-twist: q = swing * twist */
    float s = dot(v3(q.x, q.y, q.z), l->axis);
    quat twist = qmake(l->axis.x * s, l->axis.y * s, l->axis.z * s, q.w);
    float tn = sqrtf(twist.x * twist.x + twist.y * twist.y + twist.z * twist.z + twist.w * twist.w);
    if (tn > 0.0f)
        twist = qmake(twist.x / tn, twist.y / tn, twist.z / tn, twist.w / tn);
    else
        twist = qmake(0, 0, 0, 1);
    quat swing = qmul(q, qconj(twist));
    twist = clamp_about_axis(twist, l->axis, l->min_angle, l->max_angle);
    /* The swing angle is 2 acos(swing.w); 2 atan2(|swing.xyz|, swing.w) is
     * the same angle for a unit quaternion, and keeps its precision for
     * small swings, where acos of a number near 1 loses half its digits. */
    vec3 axis = v3(swing.x, swing.y, swing.z);
    float n = length(axis);
    float swing_angle = 2.0f * atan2f(n, swing.w);
    if (swing_angle > l->swing_max && n > 0.0f) swing = angle_axis(l->swing_max, scale(axis, 1.0f / n));
    return qnormalize(qmul(swing, twist));
}

/* World rotations W[j], positions P[j] and the effector E of a chain. */
typedef struct pose {
    quat W[CIK_MAX_JOINTS];
    vec3 P[CIK_MAX_JOINTS];
    vec3 E;
} pose;

/* SPEC forward kinematics, recomputed from joint `from` on (the joints above
 * it are unchanged). */
static void forward(const cik_chain *c, pose *p, int from)
{
    for (int j = from; j < c->joint_count; ++j) {
        quat parent_w = j == 0 ? c->root_rotation : p->W[j - 1];
        vec3 parent_p = j == 0 ? c->root_position : p->P[j - 1];
        p->W[j] = qmul(parent_w, c->rotation[j]);
        p->P[j] = add(parent_p, rotate(parent_w, c->offset[j]));
    }
    p->E = add(p->P[c->joint_count - 1], rotate(p->W[c->joint_count - 1], c->effector));
}

static quat parent_world(const cik_chain *c, const pose *p, int j)
{
    return j == 0 ? c->root_rotation : p->W[j - 1];
}

/* SPEC steps 4 to 6: joint j's world rotation becomes r * W[j]. */
static void rotate_joint(cik_chain *c, pose *p, int j, quat r)
{
    quat new_world = qmul(r, p->W[j]);
    quat local = qnormalize(qmul(qconj(parent_world(c, p, j)), new_world));
    c->rotation[j] = apply_limit(local, &c->limit[j]);
    forward(c, p, j);
}

/* One CCD step at joint j (SPEC step 1-6), with the convergence options
 * (docs/solver.md, "Options") unless `plain`. Returns 0 when skipped. */
static int step(cik_chain *c, pose *p, int j, const cik__kernel_job *o, int plain)
{
    vec3 a = sub(p->E, p->P[j]);
    vec3 b = sub(c->target, p->P[j]);
    if (length(a) < EPS || length(b) < EPS) return 0;
    a = normalize3(a);
    b = normalize3(b);
    float d = dot(a, b);
    vec3 x = cross(a, b);
    if (length(x) < EPS && d > 0.0f) return 0; /* aligned */
    if (!plain && o->hinge_aware && c->limit[j].type == CIK_LIMIT_HINGE) {
        /* hinge-aware: align the projections onto the hinge plane; when
         * they are aligned already the hinge can do no better, and the step
         * is a no-op (not a skip), as a plain step the limit cancels is */
        vec3 h = rotate(parent_world(c, p, j), c->limit[j].axis);
        vec3 ap = sub(a, scale(h, dot(h, a)));
        vec3 bp = sub(b, scale(h, dot(h, b)));
        if (length(ap) >= EPS && length(bp) >= EPS) {
            a = normalize3(ap);
            b = normalize3(bp);
            d = dot(a, b);
            x = cross(a, b);
        }
    }
    quat r;
    if (length(x) < EPS && d > 0.0f) {
        r = qmake(0.0f, 0.0f, 0.0f, 1.0f); /* projections aligned */
    } else if (length(x) < EPS) {
        /* antiparallel: half a turn about an axis perpendicular to a */
        vec3 axis;
        if (c->limit[j].type == CIK_LIMIT_HINGE) {
            vec3 h = rotate(parent_world(c, p, j), c->limit[j].axis);
            if (fabsf(dot(h, a)) < 0.5f)
                axis = normalize3(sub(h, scale(a, dot(h, a))));
            else
                axis = perp(a);
        } else {
            axis = perp(a);
        }
        r = qmake(axis.x, axis.y, axis.z, 0.0f);
    } else {
        r = arc(a, b, d, x);
    }
    if (!plain && o->factor[j] != 1.0f) {
        /* gain and weight: extrapolate (or interpolate) from the identity */
        r = toward(r, o->factor[j]);
    }
    if (!plain && o->max_step > 0.0f) {
        vec3 u = v3(r.x, r.y, r.z);
        float n = length(u);
        if (2.0f * atan2f(n, r.w) > o->max_step && n > 0.0f) r = angle_axis(o->max_step, scale(u, 1.0f / n));
    }
    rotate_joint(c, p, j, r);
    return 1;
}

/* The angle of a hinge joint's local rotation about its axis (w >= 0). */
static float hinge_angle(quat q, vec3 axis)
{
    if (q.w < 0.0f) q = qmake(-q.x, -q.y, -q.z, -q.w);
    return 2.0f * atan2f(dot(v3(q.x, q.y, q.z), axis), q.w);
}

/* The angle of a rotation about the unit axis h through the point `center`
 * that moves the effector E to squared distance `goal` from the root P0 (the
 * nearest reachable distance when none does), choosing between the two
 * solutions: first one that keeps `limit` (a hinge, or NULL) in range, then
 * the smaller rotation, then phi0 + alpha. `angle` is the joint's current
 * hinge angle. */
static float circle_angle(vec3 P0, vec3 center, vec3 h, vec3 E, float goal, const cik_limit *limit,
                          float angle)
{
    vec3 u = sub(E, center);
    vec3 up = sub(u, scale(h, dot(h, u)));
    vec3 d = sub(center, P0);
    float A = dot(d, up), B = dot(d, cross(h, up));
    float R2 = A * A + B * B;
    if (R2 < LIMB_EPS2) return 0.0f;
    float R = sqrtf(R2);
    vec3 e0 = sub(E, P0);
    float cc = clampf((A + 0.5f * (goal - dot(e0, e0))) / R, -1.0f, 1.0f);
    float phi0 = atan2f(B, A), alpha = acosf(cc);
    float cand[2] = {wrap_angle(phi0 + alpha), wrap_angle(phi0 - alpha)};
    int ok[2] = {1, 1};
    if (limit) {
        for (int i = 0; i < 2; ++i) {
            float t = wrap_angle(angle + cand[i]);
            ok[i] = t >= limit->min_angle && t <= limit->max_angle;
        }
    }
    if (ok[0] != ok[1]) return ok[0] ? cand[0] : cand[1];
    return cosf(cand[1]) > cosf(cand[0]) ? cand[1] : cand[0];
}

/* Limb mode applies to 2- and 3-joint chains whose joint 1 is a hinge and
 * whose root is not, and to 4-joint chains whose joints 1 and 2 are hinges
 * and whose root is not (a horse's hind leg: stifle, hock, fetlock). */
static int limb_shaped(const cik_chain *c)
{
    const int J = c->joint_count;
    if (J < 2 || J > 4 || c->limit[1].type != CIK_LIMIT_HINGE || c->limit[0].type == CIK_LIMIT_HINGE) return 0;
    return J < 4 || c->limit[2].type == CIK_LIMIT_HINGE;
}

/* The limb step (docs/solver.md, "Limb mode"). */
static void limb_step(cik_chain *c, pose *p, int unreachable, const cik__kernel_job *o)
{
    const int J = c->joint_count;
    vec3 P0 = p->P[0];
    vec3 h = rotate(p->W[0], c->limit[1].axis); /* the middle hinge's world axis */
    vec3 t0 = sub(c->target, P0), e0 = sub(p->E, P0);
    float goal = dot(t0, t0), now = dot(e0, e0);

    /* The middle joints' shares of the distance change (joints 1 .. J - 2):
     * the minimum-norm split of the linearised change among them and the
     * end joint, each turning about h. */
    float share[3] = {1.0f, 0.0f, 0.0f};
    if (J > 2) {
        float g[3], den = 0.0f;
        for (int j = 1; j < J; ++j) {
            g[j - 1] = dot(e0, cross(h, sub(p->E, p->P[j])));
            den += g[j - 1] * g[j - 1];
        }
        if (den > LIMB_TINY)
            for (int j = 1; j < J - 1; ++j) share[j - 1] = g[j - 1] * g[j - 1] / den;
    }
    /* each middle joint to its part of the way, in turn */
    float part = 0.0f;
    for (int j = 1; j < (J > 2 ? J - 1 : 2); ++j) {
        part += share[j - 1];
        float hinge = hinge_angle(c->rotation[j], c->limit[j].axis);
        float phi = circle_angle(P0, p->P[j], h, p->E, now + part * (goal - now), &c->limit[j], hinge);
        rotate_joint(c, p, j, angle_axis(phi, h));
    }
    {
        /* the end joint closes the rest, about the same axis */
        if (J > 2) rotate_joint(c, p, J - 1, angle_axis(circle_angle(P0, p->P[J - 1], h, p->E, goal, NULL, 0.0f), h));
        /* where the end joint's limit stopped it short (by more than a
         * tenth of the threshold), the middle joints close what is left,
         * the nearest to the end first (from a straight start the split
         * gives them almost nothing: their first-order effect on the
         * distance is zero); on two joints the hinge closes what its own
         * rotation left (its closed form in float), within reach and off
         * the root (a target on the root is met by the fold) */
        const float tol = 0.04f * o->threshold * o->threshold;
        const int end_moves = J == 2 ? !unreachable && goal > tol
                                     : J > 3 || !unreachable || dot(c->effector, c->effector) > 0.0f;
        for (int j = J > 2 ? J - 2 : 1; j >= 1 && end_moves; --j) {
            vec3 e1 = sub(p->E, P0);
            float res = dot(e1, e1) - goal;
            if (!(res * res > tol * goal)) break;
            float hinge = hinge_angle(c->rotation[j], c->limit[j].axis);
            float phi = circle_angle(P0, p->P[j], h, p->E, goal, &c->limit[j], hinge);
            rotate_joint(c, p, j, angle_axis(phi, h));
        }
    }
    step(c, p, 0, o, 1); /* aim the root, a plain step */

    if (c->pole_weight > 0.0f) {
        /* twist about the root-to-target line until the middle hinge's axis
         * is normal to the plane through the root, the target and the pole,
         * turned so that the hinge's usual bend (positive angles when its
         * range is mostly positive) goes towards the pole */
        if (length(t0) < EPS) return;
        vec3 n = normalize3(t0);
        vec3 hp = rotate(p->W[0], c->limit[1].axis), pv = sub(c->pole, P0);
        hp = sub(hp, scale(n, dot(n, hp)));
        pv = sub(pv, scale(n, dot(n, pv)));
        if (length(hp) < EPS || length(pv) < EPS) return;
        hp = normalize3(hp);
        vec3 m = normalize3(cross(pv, n));
        if (c->limit[1].min_angle + c->limit[1].max_angle < 0.0f) m = scale(m, -1.0f);
        float d = dot(hp, m);
        vec3 x = cross(hp, m);
        quat r;
        if (length(x) < EPS) {
            if (d > 0.0f) return;
            r = qmake(n.x, n.y, n.z, 0.0f);
        } else {
            r = arc(hp, m, d, x);
        }
        float w = c->pole_weight;
        if (w != 1.0f) r = toward(r, w);
        rotate_joint(c, p, 0, r);
    }
}

/* SPEC unstick: bend every joint, root first, by UNSTICK_ANGLE; a hinge
 * toward the middle of its range (one at the end of its range would
 * otherwise be clamped back where it was). An angle within TIE radians above
 * the middle counts as the middle, so that a hinge at the middle bends the
 * same way on every backend. */
static void unstick(cik_chain *c, pose *p)
{
    for (int j = 0; j < c->joint_count; ++j) {
        vec3 axis;
        float bend = UNSTICK_ANGLE;
        if (c->limit[j].type == CIK_LIMIT_HINGE) {
            const cik_limit *l = &c->limit[j];
            axis = rotate(parent_world(c, p, j), l->axis);
            if (hinge_angle(c->rotation[j], l->axis) > 0.5f * (l->min_angle + l->max_angle) + TIE)
                bend = -UNSTICK_ANGLE;
        } else {
            vec3 bone = j + 1 < c->joint_count ? rotate(p->W[j], c->offset[j + 1])
                                               : rotate(p->W[j], c->effector);
            if (length(bone) == 0.0f) continue;
            axis = perp(bone);
        }
        rotate_joint(c, p, j, angle_axis(bend, axis));
    }
}

/* SPEC aimed_out_of_reach: the target is out of reach and the effector lies
 * on the ray from the root joint through it (a chain pointing straight at a
 * target it cannot reach: bending it would only make it worse). A zero
 * root-to-effector vector has no direction and is not aimed. */
static int aimed_out_of_reach(const pose *p, vec3 target, int unreachable)
{
    if (!unreachable) return 0;
    vec3 e = sub(p->E, p->P[0]), t = sub(target, p->P[0]);
    if (length(e) < EPS || length(t) < EPS) return 0;
    e = normalize3(e);
    t = normalize3(t);
    return length(cross(e, t)) < EPS && dot(e, t) > 0.0f;
}

/* SPEC skipped, with the documented ranges: finite, coordinates within
 * CIK_MAX_COORDINATE, rotations near unit length. */
static int vec_valid(vec3 v)
{
    return fabsf(v.x) <= CIK_MAX_COORDINATE && fabsf(v.y) <= CIK_MAX_COORDINATE &&
           fabsf(v.z) <= CIK_MAX_COORDINATE; /* false for NaN */
}
static int quat_valid(quat q)
{
    float n2 = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
    return fabsf(n2 - 1.0f) <= CIK_UNIT_SQUARED_TOLERANCE; /* false for NaN and inf */
}
static int chain_valid(const cik_chain *c)
{
    int ok = vec_valid(c->root_position) && quat_valid(c->root_rotation) && vec_valid(c->effector) &&
             vec_valid(c->target) && vec_valid(c->pole) && c->pole_weight >= 0.0f &&
             c->pole_weight <= 1.0f;
    for (int j = 0; j < c->joint_count; ++j) ok = ok && vec_valid(c->offset[j]) && quat_valid(c->rotation[j]);
    return ok;
}

/* The damped least-squares step (docs/solver.md, "Damped least-squares
 * steps"): with r[j] = E - P[j] and e = T - E, a free joint's small world
 * rotation w moves E by w x r[j], a hinge's (angle t about its world axis
 * h) by t (h x r[j]). The smallest rotations (sum of |w|^2 + t^2) that
 * move E by e, damped by lambda = damping * reach, are w = r[j] x y and
 * t = (h x r[j]) . y with M y = e, where
 *   M = lambda^2 I + sum over free joints (|r|^2 I - r r^T)
 *                  + sum over hinges (h x r)(h x r)^T,
 * a symmetric positive definite 3x3 matrix solved by its adjugate. Each
 * rotation is applied tip first (its parents, not yet turned, keep the
 * world frame it was computed in) as normalize(w / 2, 1) and limited. */
static void dls_step(cik_chain *c, pose *p, float damping, float reach)
{
    const int J = c->joint_count;
    vec3 r[CIK_MAX_JOINTS], h[CIK_MAX_JOINTS];
    float lambda = damping * reach, l2 = lambda * lambda;
    /* the three columns of M */
    vec3 m0 = v3(l2, 0, 0), m1 = v3(0, l2, 0), m2 = v3(0, 0, l2);
    for (int j = 0; j < J; ++j) {
        r[j] = sub(p->E, p->P[j]);
        if (c->limit[j].type == CIK_LIMIT_HINGE) {
            h[j] = rotate(parent_world(c, p, j), c->limit[j].axis);
            vec3 k = cross(h[j], r[j]);
            m0 = add(m0, scale(k, k.x));
            m1 = add(m1, scale(k, k.y));
            m2 = add(m2, scale(k, k.z));
        } else {
            float rr = dot(r[j], r[j]);
            m0 = add(m0, sub(v3(rr, 0, 0), scale(r[j], r[j].x)));
            m1 = add(m1, sub(v3(0, rr, 0), scale(r[j], r[j].y)));
            m2 = add(m2, sub(v3(0, 0, rr), scale(r[j], r[j].z)));
        }
    }
    vec3 a0 = cross(m1, m2), a1 = cross(m2, m0), a2 = cross(m0, m1);
    float det = dot(m0, a0);
    if (!(det > 0.0f)) return; /* a chain with no length: nothing to move */
    vec3 e = sub(c->target, p->E);
    vec3 y = scale(v3(dot(a0, e), dot(a1, e), dot(a2, e)), 1.0f / det);
    /* huge coordinates overflow M or its solve: no step when y is not
     * finite (NaN fails the comparison), no turn at a joint whose w is not */
    if (!(dot(y, y) < FLT_MAX)) return;
    for (int j = J - 1; j >= 0; --j) {
        vec3 w;
        if (c->limit[j].type == CIK_LIMIT_HINGE)
            w = scale(h[j], dot(cross(h[j], r[j]), y));
        else
            w = cross(r[j], y);
        if (!(dot(w, w) < FLT_MAX)) continue;
        rotate_joint(c, p, j, qnormalize(qmake(0.5f * w.x, 0.5f * w.y, 0.5f * w.z, 1.0f)));
    }
}

/* Solves one chain in place; returns its result. */
static cik_result solve_chain(cik_chain *c, const cik__kernel_job *o)
{
    cik_result res = {0.0f, 0, 0};
    if (!chain_valid(c)) {
        res.error = NAN;
        res.flags = CIK_RESULT_SKIPPED;
        return res;
    }
    pose p;
    forward(c, &p, 0);

    float reach = length(c->effector);
    for (int j = 1; j < c->joint_count; ++j) reach += length(c->offset[j]);
    const float span = length(sub(c->target, p.P[0]));
    if (span > reach) res.flags |= CIK_RESULT_UNREACHABLE;
    /* stop_unreachable: the nearest the effector can come, |T - P0| less
     * the reach (out of reach only) */
    const int stop_out = o->stop_unreachable && (res.flags & CIK_RESULT_UNREACHABLE);
    const float gap = span - reach;

    int limb = o->limb == CIK_LIMB_AUTO && limb_shaped(c);
    /* damped least-squares steps on chains of o->dls_min_joints joints or
     * more (3: on one and two joints the step has little to spread and its
     * nearly singular solve carries rounding noise that the backends do not
     * share; the foot crowd's hip-knee legs 2, internal.h) */
    int dls = o->dls_damping > 0.0f && c->joint_count >= o->dls_min_joints;
    /* keep_best: the pose with the least error at any pass boundary (the
     * start, after each pass), the earliest of equals */
    cik_quat best[CIK_MAX_JOINTS];
    float best_err = INFINITY;
    for (int pass = 0; pass < o->max_iterations; ++pass) {
        const float err = length(sub(p.E, c->target));
        if (o->keep_best && err < best_err) {
            best_err = err;
            memcpy(best, c->rotation, sizeof(cik_quat) * (size_t)c->joint_count);
        }
        if (err < o->threshold) break;
        if (stop_out && err - gap < o->threshold) break;
        res.iterations = pass + 1;
        if (limb && pass == 0) {
            limb_step(c, &p, (res.flags & CIK_RESULT_UNREACHABLE) != 0, o);
            continue;
        }
        if (dls) {
            /* a damped least-squares step before the sweep; a chain it
             * brings within the threshold ends its pass there */
            dls_step(c, &p, o->dls_damping, reach);
            if (length(sub(p.E, c->target)) < o->threshold) continue;
        }
        int moved = 0;
        for (int j = c->joint_count - 1; j >= 0; --j) moved |= step(c, &p, j, o, 0);
        if (dls && length(sub(p.E, c->target)) >= o->threshold) {
            /* and one after it, where the sweep left the chain short */
            dls_step(c, &p, o->dls_damping, reach);
        }
        if (!moved && length(sub(p.E, c->target)) >= o->threshold &&
            !aimed_out_of_reach(&p, c->target, res.flags & CIK_RESULT_UNREACHABLE))
            unstick(c, &p);
    }
    res.error = length(sub(p.E, c->target));
    if (o->keep_best && best_err < res.error) {
        /* the last pose is worse than an earlier one: that one (a
         * converged chain's last pose is its best) */
        memcpy(c->rotation, best, sizeof(cik_quat) * (size_t)c->joint_count);
        res.error = best_err;
    }
    if (res.error < o->threshold) res.flags |= CIK_RESULT_CONVERGED;
    return res;
}

void cik__solve_reference(cik_batch *b, const cik__kernel_job *job, int begin, int end)
{
    float *err = (float *)cik__result_stream(b, CIK__ERR);
    int32_t *iter = (int32_t *)cik__result_stream(b, CIK__ITER);
    uint32_t *flags = (uint32_t *)cik__result_stream(b, CIK__FLAGS);
    for (int i = begin; i < end; ++i) {
        cik_chain c;
        cik__read_chain(b, i, &c);
        cik_result r = solve_chain(&c, job);
        if (!(r.flags & CIK_RESULT_SKIPPED)) cik__write_rotations(b, i, &c);
        err[i] = r.error;
        iter[i] = r.iterations;
        flags[i] = r.flags;
    }
}
