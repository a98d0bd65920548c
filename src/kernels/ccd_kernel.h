/*
 * The CCD kernel, written once against the vector layer (vec_<isa>.h and
 * vec_wide.h) and compiled once per instruction set by isa.c (with the foot
 * kernels), which defines CIK_KERNEL_SYMBOL, CIK_KERNEL_BACKEND and CIK_IL
 * first.
 *
 * Every lane is one chain; a group of CIK_LANES chains runs through the
 * solver semantics (docs/solver.md) together. Nothing is per-lane scalar:
 * the shortest arc needs no acos, joint limits are clamped by half-angle
 * sign tests against sines and cosines the batch derived when the limit was
 * set, and reciprocal square roots are refined estimates.
 *
 * Masks carry the per-lane control flow:
 *   valid   the lane's data is finite, within CIK_MAX_COORDINATE, rotations
 *           near unit length (otherwise it is SKIPPED, never written)
 *   active  valid and not yet converged at the start of this pass
 *   moved   this pass rotated the lane at least once
 * A lane that leaves `active` is frozen: every later update is a select that
 * keeps its old value, so its pose, error and pass count are what it would
 * be alone. Forward kinematics is recomputed for every lane, converged or
 * not; unchanged inputs give bitwise unchanged outputs, so that is safe.
 */
#include "../internal.h"
#include "vec_wide.h"
#include "vec_math.h"

#include <float.h>
#include <math.h>
#include <stdint.h>

/* SPEC epsilons, squared: |v| < 1e-6 <=> |v|^2 < 1e-12. */
#define K_EPS2 1e-12f
/* sin and cos of half the stall breaker's 0.25 rad bend. */
#define K_UNSTICK_S 0.12467473338522769f
#define K_UNSTICK_C 0.99219766722932900f
/* Ties (perp's smallest component, a hinge at the middle of its range) are
 * decided with the reference's tolerance, 1e-5 relative (radians for an
 * angle; half of it for a half-angle's sine), so that rounding noise does
 * not pick a different side on different backends. */
#define K_TIE 1e-5f
#define K_TIE_HALF 0.5e-5f
/* Pass counts run in float lanes (the vector layer has no integer lanes)
 * only within chunks of this many passes, exact in float; the chunks add up
 * in int32 (solve_group), so every count up to INT_MAX is exact. */
#define K_PASS_CHUNK (1 << 20)
_Static_assert(K_PASS_CHUNK <= (1 << 24), "a chunk's pass count must be exact in float");

/* a / |a|; junk (but finite) where a is zero: callers mask those lanes. */
CIK_INLINE v3 v3_normalize(v3 a) { return v3_scale(a, v_rsqrt(v_max(v3_dot(a, a), v_set1(K_TINY)))); }

/* conj(a) * b without building conj(a). */
CIK_INLINE vq q_conj_mul(vq a, vq b)
{
    vq na = {v_neg(a.x), v_neg(a.y), v_neg(a.z), a.w};
    return q_mul(na, b);
}
/* A half turn about a unit axis. */
CIK_INLINE vq q_half_turn(v3 axis)
{
    vq r = {axis.x, axis.y, axis.z, v_set1(0.0f)};
    return r;
}

/* The shortest arc from unit a to unit b, given d = a.b, x = a x b and
 * lx2 = |x|^2: normalize(x, 1 + d), no acos needed; beyond a quarter turn
 * 1 + d as |a + b|^2 / 2, free of the cancellation 1 + d suffers near a
 * half turn (callers handle the half turn itself). */
CIK_INLINE vq q_arc(v3 a, v3 b, vf d, v3 x, vf lx2)
{
    v3 ab = v3_add(a, b);
    vf rw = v_sel(v_lt(d, v_set1(0.0f)), v_mul(v_set1(0.5f), v3_dot(ab, ab)), v_add(v_set1(1.0f), d));
    vf inv = v_rsqrt(v_max(v_fma(rw, rw, lx2), v_set1(K_TINY)));
    vq r = {v_mul(x.x, inv), v_mul(x.y, inv), v_mul(x.z, inv), v_mul(rw, inv)};
    return r;
}

/* normalize(k r + (1 - k) identity): the step factor (gain, weight) and
 * the pole weight. */
CIK_INLINE vq q_toward(vq r, vf k)
{
    vq t = {v_mul(k, r.x), v_mul(k, r.y), v_mul(k, r.z), v_fma(k, r.w, v_sub(v_set1(1.0f), k))};
    return q_normalize(t);
}

/* SPEC perp(a): cross a with the basis axis along which |a| is smallest
 * (ties x, then y, then z; components within K_TIE of the largest one tie,
 * as in the reference), normalised. */
CIK_INLINE v3 perp(v3 a)
{
    vf ax = v_abs(a.x), ay = v_abs(a.y), az = v_abs(a.z);
    vf tie = v_mul(v_set1(K_TIE), v_max(ax, v_max(ay, az)));
    vm use_x = w_and(v_le(ax, v_add(ay, tie)), v_le(ax, v_add(az, tie)));
    vm use_y = w_andnot(v_le(ay, v_add(az, tie)), use_x);
    vf zero = v_set1(0.0f);
    /* a x ex = (0, az, -ay), a x ey = (-az, 0, ax), a x ez = (ay, -ax, 0) */
    v3 cz = {a.y, v_neg(a.x), zero};
    v3 cy = {v_neg(a.z), zero, a.x};
    v3 cx = {zero, a.z, v_neg(a.y)};
    return v3_normalize(v3_sel(use_x, cx, v3_sel(use_y, cy, cz)));
}

/* The per-group working set. */
typedef struct group {
    vq q[CIK_MAX_JOINTS]; /* local rotations */
    vq W[CIK_MAX_JOINTS]; /* world rotations */
    v3 P[CIK_MAX_JOINTS]; /* world positions */
    v3 off[CIK_MAX_JOINTS];
    vq root_q;
    v3 root_p, eff, T, E;
    int joints;
    int lane0;
    const cik_batch *batch;
} group;

CIK_INLINE vf jload(const group *g, int j, int s) { return v_load(cik__joint_stream(g->batch, j, s) + g->lane0); }

CIK_INLINE vq parent_world(const group *g, int j) { return j == 0 ? g->root_q : g->W[j - 1]; }

/* Forward kinematics after joint j's local rotation changed (j = 0 with
 * `all` recomputes P[0] too, for the first evaluation). */
CIK_INLINE void forward_from(group *g, int j, int all)
{
    if (all) g->P[0] = v3_add(g->root_p, q_rotate(g->root_q, g->off[0]));
    for (int k = j; k < g->joints; ++k) {
        if (k > 0 && (k > j || all)) g->P[k] = v3_add(g->P[k - 1], q_rotate(g->W[k - 1], g->off[k]));
        g->W[k] = q_mul(parent_world(g, k), g->q[k]);
    }
    g->E = v3_add(g->P[g->joints - 1], q_rotate(g->W[g->joints - 1], g->eff));
}

/* SPEC joint limits on a local rotation, per lane by the lane's limit type:
 * the batch's prepared limit of joint j through vec_math.h's clamp. */
CIK_INLINE vq apply_limit(const group *g, int j, vq q)
{
    vf type = jload(g, j, CIK__LTYPE);
    vm hinge = v_eq(type, v_set1((float)CIK_LIMIT_HINGE));
    vm swing_twist = v_eq(type, v_set1((float)CIK_LIMIT_SWING_TWIST));
    if (!w_any(w_or(hinge, swing_twist))) return q;
    lane_limit l = {{jload(g, j, CIK__AX), jload(g, j, CIK__AY), jload(g, j, CIK__AZ)},
                    jload(g, j, CIK__SMIN), jload(g, j, CIK__CMIN), jload(g, j, CIK__SMAX),
                    jload(g, j, CIK__CMAX), jload(g, j, CIK__SSWING), jload(g, j, CIK__CSWING)};
    return limit_clamp(hinge, swing_twist, &l, q);
}

/* The sanitizer build keeps the joint update out of line: inlined at its
 * eight call sites, AddressSanitizer and UBSan instrumentation make the
 * kernel take minutes to compile. */
#ifdef CIK_SANITIZE_BUILD
#define CIK_JOINT_UPDATE static __attribute__((noinline))
#else
#define CIK_JOINT_UPDATE CIK_INLINE
#endif

/* SPEC steps 4 to 6 on the lanes of `m`: world rotation r * W[j]. */
CIK_JOINT_UPDATE void rotate_joint(group *g, int j, vq r, vm m)
{
    vq local = q_normalize(q_conj_mul(parent_world(g, j), q_mul(r, g->W[j])));
    g->q[j] = q_sel(m, apply_limit(g, j, local), g->q[j]);
    forward_from(g, j, 0);
}

/* The hinge axis of joint j in world space (its parent's frame rotated). */
CIK_INLINE v3 world_hinge_axis(const group *g, int j)
{
    v3 axis = {jload(g, j, CIK__AX), jload(g, j, CIK__AY), jload(g, j, CIK__AZ)};
    return q_rotate(parent_world(g, j), axis);
}

/* One CCD step at joint j on the lanes of `active` (SPEC step 1-6), with
 * the convergence options unless `plain` (docs/solver.md, "Options").
 * Returns the lanes that were not skipped. */
CIK_INLINE vm step(group *g, int j, vm active, const cik__kernel_job *job, int plain)
{
    v3 a = v3_sub(g->E, g->P[j]);
    v3 b = v3_sub(g->T, g->P[j]);
    vf la2 = v3_dot(a, a), lb2 = v3_dot(b, b);
    vm go = w_and(active, w_and(v_ge(la2, v_set1(K_EPS2)), v_ge(lb2, v_set1(K_EPS2))));
    if (!w_any(go)) return go;
    a = v3_scale(a, v_rsqrt(v_max(la2, v_set1(K_TINY))));
    b = v3_scale(b, v_rsqrt(v_max(lb2, v_set1(K_TINY))));
    vf d = v3_dot(a, b);
    v3 x = v3_cross(a, b);
    vf lx2 = v3_dot(x, x);
    vm parallel = v_lt(lx2, v_set1(K_EPS2));
    go = w_andnot(go, w_and(parallel, v_gt(d, v_set1(0.0f)))); /* aligned: skip */
    if (!w_any(go)) return go;
    vm noop = w_false();
    if (!plain && job->hinge_aware) {
        /* hinge-aware: align the projections onto the hinge plane; lanes
         * whose projections are aligned already step by the identity (a
         * no-op, not a skip), as in the reference */
        vm hinge = w_and(go, v_eq(jload(g, j, CIK__LTYPE), v_set1((float)CIK_LIMIT_HINGE)));
        if (w_any(hinge)) {
            v3 h = world_hinge_axis(g, j);
            v3 ap = v3_sub(a, v3_scale(h, v3_dot(h, a)));
            v3 bp = v3_sub(b, v3_scale(h, v3_dot(h, b)));
            vf lap = v3_dot(ap, ap), lbp = v3_dot(bp, bp);
            vm use = w_and(hinge, w_and(v_ge(lap, v_set1(K_EPS2)), v_ge(lbp, v_set1(K_EPS2))));
            a = v3_sel(use, v3_scale(ap, v_rsqrt(v_max(lap, v_set1(K_TINY)))), a);
            b = v3_sel(use, v3_scale(bp, v_rsqrt(v_max(lbp, v_set1(K_TINY)))), b);
            vf dp = v3_dot(a, b);
            v3 xp = v3_cross(a, b);
            vf lxp2 = v3_dot(xp, xp);
            d = v_sel(use, dp, d);
            x = v3_sel(use, xp, x);
            lx2 = v_sel(use, lxp2, lx2);
            parallel = v_lt(lx2, v_set1(K_EPS2));
            noop = w_and(use, w_and(parallel, v_gt(d, v_set1(0.0f))));
        }
    }

    vq r = q_arc(a, b, d, x, lx2);

    vm anti = w_andnot(w_and(go, parallel), noop);
    if (w_any(anti)) {
        /* half a turn about the world hinge axis made perpendicular to a,
         * or about perp(a) when there is no usable hinge axis */
        vm hinge = v_eq(jload(g, j, CIK__LTYPE), v_set1((float)CIK_LIMIT_HINGE));
        v3 h = world_hinge_axis(g, j);
        vf hd = v3_dot(h, a);
        vm use_h = w_and(hinge, v_lt(v_abs(hd), v_set1(0.5f)));
        v3 axis = v3_sel(use_h, v3_normalize(v3_sub(h, v3_scale(a, hd))), perp(a));
        r = q_sel(anti, q_half_turn(axis), r);
    }
    if (w_any(noop)) {
        vq id = {v_set1(0.0f), v_set1(0.0f), v_set1(0.0f), v_set1(1.0f)};
        r = q_sel(noop, id, r);
    }
    if (!plain && job->factor[j] != 1.0f) r = q_toward(r, v_set1(job->factor[j]));
    if (!plain && job->max_step > 0.0f) {
        /* cap the angle: half-angle atan2(|r.xyz|, r.w) > max_step / 2 */
        v3 u = {r.x, r.y, r.z};
        vf n2 = v3_dot(u, u);
        vf ninv = v_rsqrt(v_max(n2, v_set1(K_TINY)));
        vf n = v_mul(n2, ninv);
        vf cs = v_set1(job->cap_s), cc = v_set1(job->cap_c);
        vm over = w_and(v_gt(v_fnma(r.w, cs, v_mul(n, cc)), v_set1(0.0f)), v_gt(n2, v_set1(0.0f)));
        vf k = v_mul(ninv, cs);
        vq capped = {v_mul(u.x, k), v_mul(u.y, k), v_mul(u.z, k), cc};
        r = q_sel(over, capped, r);
    }
    rotate_joint(g, j, r, go);
    return go;
}

/* The damped least-squares step on the lanes of `m` (docs/solver.md,
 * "Damped least-squares steps"; the reference's dls_step): every joint at
 * once by the smallest rotations that move E onto T to first order, damped
 * by `lambda2` (the squared damping times the reach). M y = T - E is solved
 * by the adjugate of the symmetric 3x3 M; each joint turns, tip first, by
 * normalize(w / 2, 1) with w = r x y (a free joint) or h ((h x r) . y) (a
 * hinge about its world axis h). */
CIK_INLINE void dls_step(group *g, vm m, vf lambda2)
{
    const int J = g->joints;
    v3 r[CIK_MAX_JOINTS];
    const vf zero = v_set1(0.0f);
    v3 m0 = {lambda2, zero, zero}, m1 = {zero, lambda2, zero}, m2 = {zero, zero, lambda2};
    for (int j = 0; j < J; ++j) {
        r[j] = v3_sub(g->E, g->P[j]);
        vm hinge = v_eq(jload(g, j, CIK__LTYPE), v_set1((float)CIK_LIMIT_HINGE));
        vf rr = v3_dot(r[j], r[j]);
        /* a free joint adds |r|^2 I - r r^T */
        v3 f0 = {v_fnma(r[j].x, r[j].x, rr), v_neg(v_mul(r[j].y, r[j].x)), v_neg(v_mul(r[j].z, r[j].x))};
        v3 f1 = {v_neg(v_mul(r[j].x, r[j].y)), v_fnma(r[j].y, r[j].y, rr), v_neg(v_mul(r[j].z, r[j].y))};
        v3 f2 = {v_neg(v_mul(r[j].x, r[j].z)), v_neg(v_mul(r[j].y, r[j].z)), v_fnma(r[j].z, r[j].z, rr)};
        if (w_any(hinge)) {
            /* a hinge adds k k^T, k = h x r */
            v3 k = v3_cross(world_hinge_axis(g, j), r[j]);
            f0 = v3_sel(hinge, v3_scale(k, k.x), f0);
            f1 = v3_sel(hinge, v3_scale(k, k.y), f1);
            f2 = v3_sel(hinge, v3_scale(k, k.z), f2);
        }
        m0 = v3_add(m0, f0);
        m1 = v3_add(m1, f1);
        m2 = v3_add(m2, f2);
    }
    v3 a0 = v3_cross(m1, m2), a1 = v3_cross(m2, m0), a2 = v3_cross(m0, m1);
    vf det = v3_dot(m0, a0);
    m = w_and(m, v_gt(det, zero)); /* a chain with no length: nothing to move */
    if (!w_any(m)) return;
    v3 e = v3_sub(g->T, g->E);
    vf inv = v_div(v_set1(1.0f), v_sel(m, det, v_set1(1.0f)));
    v3 y = {v_mul(v3_dot(a0, e), inv), v_mul(v3_dot(a1, e), inv), v_mul(v3_dot(a2, e), inv)};
    /* huge coordinates overflow M or its solve: no step where y is not
     * finite (NaN fails the comparison), nor at a joint whose w is not */
    m = w_and(m, v_lt(v3_dot(y, y), v_set1(FLT_MAX)));
    if (!w_any(m)) return;
    for (int j = J - 1; j >= 0; --j) {
        v3 w = v3_cross(r[j], y);
        vm hinge = v_eq(jload(g, j, CIK__LTYPE), v_set1((float)CIK_LIMIT_HINGE));
        if (w_any(hinge)) {
            /* the parents have not turned yet: the world axis is the one M used */
            v3 h = world_hinge_axis(g, j);
            w = v3_sel(hinge, v3_scale(h, v3_dot(v3_cross(h, r[j]), y)), w);
        }
        vq q = {v_mul(v_set1(0.5f), w.x), v_mul(v_set1(0.5f), w.y), v_mul(v_set1(0.5f), w.z), v_set1(1.0f)};
        rotate_joint(g, j, q_normalize(q), w_and(m, v_lt(v3_dot(w, w), v_set1(FLT_MAX))));
    }
}

/* The half-angle pair (sin, cos) of phi/2, phi in [-pi, pi], from
 * (sin phi, cos phi): normalize(sin phi, 1 + cos phi), which is
 * proportional to it, loses everything near a half turn, where 1 + cos phi
 * cancels (a cos phi 6e-8 off -1 turned a knee 0.2 rad short of its half
 * turn). Beyond a quarter turn (1 - cos phi, sin phi), proportional to the
 * pair times sin(phi/2), signed by sin phi so that cos(phi/2) >= 0: no
 * cancellation there. */
CIK_INLINE void half_angle_pair(vf sin_phi, vf cos_phi, vf *s, vf *c)
{
    vf zero = v_set1(0.0f), one = v_set1(1.0f);
    vm far = v_lt(cos_phi, zero);
    vf one_minus = v_sub(one, cos_phi);
    *s = v_sel(far, v_sel(v_lt(sin_phi, zero), v_neg(one_minus), one_minus), sin_phi);
    *c = v_sel(far, v_abs(sin_phi), v_add(one, cos_phi));
    normalize_pair(s, c);
}

/* The rotation about the unit axis h through `center` that moves the
 * effector to squared distance `goal` from P0 (the nearest reachable one
 * when none does), as in the reference's circle_angle, without angles:
 * cos(phi - phi0) = cc with (cos phi0, sin phi0) = (A, B) / R gives the two
 * candidates' (cos, sin) directly, and their half-angle rotations follow
 * from them (half_angle_pair). With `limited`, a candidate that
 * keeps the hinge (current half-angle pair s1, c1 and the range's) in
 * range is preferred; then the smaller rotation; then phi0 + alpha. */
CIK_INLINE vq circle_rotation(const group *g, v3 P0, v3 center, v3 h, vf goal, int limited, vf s1,
                              vf c1, int j)
{
    v3 u = v3_sub(g->E, center);
    v3 up = v3_sub(u, v3_scale(h, v3_dot(h, u)));
    v3 d = v3_sub(center, P0);
    vf A = v3_dot(d, up), B = v3_dot(d, v3_cross(h, up));
    vf R2 = v_fma(A, A, v_mul(B, B));
    vm degenerate = v_lt(R2, v_set1(K_EPS2));
    vf invR = v_rsqrt(v_max(R2, v_set1(K_TINY)));
    v3 e0 = v3_sub(g->E, P0);
    vf cc = v_mul(v_fma(v_set1(0.5f), v_sub(goal, v3_dot(e0, e0)), A), invR);
    cc = v_min(v_max(cc, v_set1(-1.0f)), v_set1(1.0f));
    vf sa = v_sqrt(v_max(v_fnma(cc, cc, v_set1(1.0f)), v_set1(0.0f)));
    vf c0 = v_mul(A, invR), s0 = v_mul(B, invR);
    /* phi0 + alpha and phi0 - alpha */
    vf cos_p = v_fnma(s0, sa, v_mul(c0, cc)), sin_p = v_fma(c0, sa, v_mul(s0, cc));
    vf cos_m = v_fma(s0, sa, v_mul(c0, cc)), sin_m = v_fnma(c0, sa, v_mul(s0, cc));
    vf sh_p, ch_p, sh_m, ch_m;
    half_angle_pair(sin_p, cos_p, &sh_p, &ch_p);
    half_angle_pair(sin_m, cos_m, &sh_m, &ch_m);
    vm pick_m = v_gt(cos_m, cos_p);
    if (limited) {
        vf smin = jload(g, j, CIK__SMIN), cmin = jload(g, j, CIK__CMIN);
        vf smax = jload(g, j, CIK__SMAX), cmax = jload(g, j, CIK__CMAX);
        vf zero = v_set1(0.0f);
        /* the hinge's half-angle after each candidate, w >= 0 */
        vf sp = v_fma(s1, ch_p, v_mul(c1, sh_p)), cp = v_fnma(s1, sh_p, v_mul(c1, ch_p));
        vf sm = v_fma(s1, ch_m, v_mul(c1, sh_m)), cm = v_fnma(s1, sh_m, v_mul(c1, ch_m));
        vm fp = v_lt(cp, zero), fm = v_lt(cm, zero);
        sp = v_sel(fp, v_neg(sp), sp);
        cp = v_sel(fp, v_neg(cp), cp);
        sm = v_sel(fm, v_neg(sm), sm);
        cm = v_sel(fm, v_neg(cm), cm);
        vm ok_p = w_not(w_or(v_gt(v_fnma(cp, smax, v_mul(sp, cmax)), zero),
                             v_lt(v_fnma(cp, smin, v_mul(sp, cmin)), zero)));
        vm ok_m = w_not(w_or(v_gt(v_fnma(cm, smax, v_mul(sm, cmax)), zero),
                             v_lt(v_fnma(cm, smin, v_mul(sm, cmin)), zero)));
        vm differ = w_or(w_andnot(ok_p, ok_m), w_andnot(ok_m, ok_p));
        pick_m = w_or(w_and(differ, ok_m), w_andnot(pick_m, differ));
    }
    vf sh = v_sel(pick_m, sh_m, sh_p), ch = v_sel(pick_m, ch_m, ch_p);
    sh = v_sel(degenerate, v_set1(0.0f), sh);
    ch = v_sel(degenerate, v_set1(1.0f), ch);
    vq r = {v_mul(h.x, sh), v_mul(h.y, sh), v_mul(h.z, sh), ch};
    return r;
}

/* The half-angle pair (sin, cos) of a hinge rotation q about its unit axis,
 * w >= 0, as 2 atan2(dot(q.xyz, axis), q.w) would give it. */
CIK_INLINE void hinge_pair(vq q, v3 axis, vf *s, vf *c)
{
    vm flip = v_lt(q.w, v_set1(0.0f));
    v3 u = {q.x, q.y, q.z};
    vf sv = v3_dot(u, axis), cv = q.w;
    *s = v_sel(flip, v_neg(sv), sv);
    *c = v_sel(flip, v_neg(cv), cv);
    normalize_pair(s, c);
}

/* The limb step on the lanes of `m` (docs/solver.md, "Limb mode"): the
 * middle hinge and the end joint set the root-to-effector distance, the root
 * aims, the pole twists the bend plane. */
CIK_INLINE void limb_step(group *g, vm m, vm unreachable, const cik__kernel_job *job)
{
    const int J = g->joints;
    const v3 P0 = g->P[0];
    v3 axis1 = {jload(g, 1, CIK__AX), jload(g, 1, CIK__AY), jload(g, 1, CIK__AZ)};
    v3 h = q_rotate(g->W[0], axis1);
    v3 t0 = v3_sub(g->T, P0), e0 = v3_sub(g->E, P0);
    vf goal = v3_dot(t0, t0), now = v3_dot(e0, e0);

    /* the middle joints' shares (joints 1 .. J - 2), as in the reference */
    vf share[3] = {v_set1(1.0f), v_set1(0.0f), v_set1(0.0f)};
    if (J > 2) {
        vf gj[3], den = v_set1(0.0f);
        for (int j = 1; j < J; ++j) {
            gj[j - 1] = v3_dot(e0, v3_cross(h, v3_sub(g->E, g->P[j])));
            den = j == 1 ? v_mul(gj[0], gj[0]) : v_fma(gj[j - 1], gj[j - 1], den);
        }
        vm some = v_gt(den, v_set1(K_TINY));
        for (int j = 1; j < J - 1; ++j)
            share[j - 1] = v_sel(some, v_div(v_mul(gj[j - 1], gj[j - 1]), v_max(den, v_set1(K_TINY))), share[j - 1]);
    }
    vf s1, c1, part = v_set1(0.0f);
    for (int j = 1; j < (J > 2 ? J - 1 : 2); ++j) {
        v3 axis = {jload(g, j, CIK__AX), jload(g, j, CIK__AY), jload(g, j, CIK__AZ)};
        part = j == 1 ? share[0] : v_add(part, share[j - 1]);
        hinge_pair(g->q[j], axis, &s1, &c1);
        vf mid_goal = v_fma(part, v_sub(goal, now), now);
        rotate_joint(g, j, circle_rotation(g, P0, g->P[j], h, mid_goal, 1, s1, c1, j), m);
    }
    {
        if (J > 2) rotate_joint(g, J - 1, circle_rotation(g, P0, g->P[J - 1], h, goal, 0, s1, c1, J - 1), m);
        /* the middle joints close what the end joint's limit left, the
         * nearest to the end first, on the lanes where that is more than a
         * tenth of the threshold; on two joints the hinge closes what its
         * own rotation left (its closed form in float), within reach and
         * off the root (a target on the root is met by the fold) */
        const vf tol = v_set1(0.04f * job->threshold * job->threshold);
        vm fix = m;
        if (J == 3) fix = w_andnot(fix, w_and(unreachable, v_le(v3_dot(g->eff, g->eff), v_set1(0.0f))));
        if (J == 2) fix = w_andnot(fix, w_or(unreachable, v_le(goal, tol)));
        for (int j = J > 2 ? J - 2 : 1; j >= 1; --j) {
            v3 e1 = v3_sub(g->E, P0);
            vf res = v_sub(v3_dot(e1, e1), goal);
            fix = w_and(fix, v_gt(v_mul(res, res), v_mul(tol, goal)));
            if (!w_any(fix)) break;
            v3 axis = {jload(g, j, CIK__AX), jload(g, j, CIK__AY), jload(g, j, CIK__AZ)};
            hinge_pair(g->q[j], axis, &s1, &c1);
            rotate_joint(g, j, circle_rotation(g, P0, g->P[j], h, goal, 1, s1, c1, j), fix);
        }
    }
    step(g, 0, m, job, 1); /* aim the root, a plain step */

    vf pw = v_load(cik__chain_stream(g->batch, CIK__PLW) + g->lane0);
    vm pm = w_and(m, v_gt(pw, v_set1(0.0f)));
    if (!w_any(pm)) return;
    /* twist about the root-to-target line until the middle hinge's axis is
     * normal to the plane through the root, the target and the pole, the
     * usual bend towards the pole (as in the reference) */
    v3 pole = v3_load(cik__chain_stream(g->batch, CIK__PLX), cik__chain_stream(g->batch, CIK__PLY),
                      cik__chain_stream(g->batch, CIK__PLZ), g->lane0);
    v3 n = v3_normalize(t0);
    v3 hp = q_rotate(g->W[0], axis1), pv = v3_sub(pole, P0);
    hp = v3_sub(hp, v3_scale(n, v3_dot(n, hp)));
    pv = v3_sub(pv, v3_scale(n, v3_dot(n, pv)));
    vf lh2 = v3_dot(hp, hp), lp2 = v3_dot(pv, pv);
    vm ok = w_and(pm, w_and(v_ge(goal, v_set1(K_EPS2)),
                            w_and(v_ge(lh2, v_set1(K_EPS2)), v_ge(lp2, v_set1(K_EPS2)))));
    hp = v3_scale(hp, v_rsqrt(v_max(lh2, v_set1(K_TINY))));
    v3 pn = v3_normalize(v3_cross(pv, n));
    vm neg = v_lt(v_add(jload(g, 1, CIK__LMIN), jload(g, 1, CIK__LMAX)), v_set1(0.0f));
    pn = v3_sel(neg, v3_scale(pn, v_set1(-1.0f)), pn);
    vf d = v3_dot(hp, pn);
    v3 x = v3_cross(hp, pn);
    vf lx2 = v3_dot(x, x);
    vm parallel = v_lt(lx2, v_set1(K_EPS2));
    ok = w_andnot(ok, w_and(parallel, v_gt(d, v_set1(0.0f))));
    if (!w_any(ok)) return;
    vq r = q_arc(hp, pn, d, x, lx2);
    r = q_sel(parallel, q_half_turn(n), r);
    r = q_sel(v_eq(pw, v_set1(1.0f)), r, q_toward(r, pw));
    rotate_joint(g, 0, r, ok);
}

/* SPEC unstick on the lanes of `m`: bend every joint, root first; a hinge
 * toward the middle of its range (as in the reference, an angle within
 * K_TIE above the middle counts as the middle). */
CIK_INLINE void unstick(group *g, vm m)
{
    for (int j = 0; j < g->joints; ++j) {
        vm hinge = v_eq(jload(g, j, CIK__LTYPE), v_set1((float)CIK_LIMIT_HINGE));
        v3 bone = q_rotate(g->W[j], j + 1 < g->joints ? g->off[j + 1] : g->eff);
        vm lanes = w_and(m, w_or(hinge, v_gt(v3_dot(bone, bone), v_set1(0.0f))));
        if (!w_any(lanes)) continue;
        v3 axis = v3_sel(hinge, world_hinge_axis(g, j), perp(bone));
        vf s = v_set1(K_UNSTICK_S);
        vm hinges = w_and(lanes, hinge);
        if (w_any(hinges)) {
            /* the middle's half-angle is the bisector of the range's ends'
             * half-angles (cos >= 0: both lie in [-pi/2, pi/2], though a
             * range end at -pi as a float rounds just past it); the angle
             * is above it when sin(half - middle) > 0 */
            v3 laxis = {jload(g, j, CIK__AX), jload(g, j, CIK__AY), jload(g, j, CIK__AZ)};
            vf hs, hc;
            hinge_pair(g->q[j], laxis, &hs, &hc);
            vf ms = v_add(jload(g, j, CIK__SMIN), jload(g, j, CIK__SMAX));
            vf mc = v_add(jload(g, j, CIK__CMIN), jload(g, j, CIK__CMAX));
            vm back = v_lt(mc, v_set1(0.0f));
            ms = v_sel(back, v_neg(ms), ms);
            mc = v_sel(back, v_neg(mc), mc);
            normalize_pair(&ms, &mc);
            vm above = v_gt(v_fnma(hc, ms, v_mul(hs, mc)), v_set1(K_TIE_HALF));
            s = v_sel(w_and(hinges, above), v_set1(-K_UNSTICK_S), s);
        }
        vq r = {v_mul(axis.x, s), v_mul(axis.y, s), v_mul(axis.z, s), v_set1(K_UNSTICK_C)};
        rotate_joint(g, j, r, lanes);
    }
}

/* Comparisons with NaN are false, so these also reject NaN and infinity. */
CIK_INLINE vm valid3(v3 v)
{
    vf m = v_set1(CIK_MAX_COORDINATE);
    return w_and(v_le(v_abs(v.x), m), w_and(v_le(v_abs(v.y), m), v_le(v_abs(v.z), m)));
}
CIK_INLINE vm valid4(vq q)
{
    vf n2 = v_fma(q.x, q.x, v_fma(q.y, q.y, v_fma(q.z, q.z, v_mul(q.w, q.w))));
    return v_le(v_abs(v_sub(n2, v_set1(1.0f))), v_set1(CIK_UNIT_SQUARED_TOLERANCE));
}

CIK_INLINE vf distance(v3 a, v3 b)
{
    v3 d = v3_sub(a, b);
    return v_sqrt(v3_dot(d, d));
}

/* SPEC aimed_out_of_reach on the lanes of `unreachable`: the effector on
 * the ray from the root joint through the target (unit directions, cross
 * product below 1e-6, positive dot product; a zero vector has no
 * direction), as in the reference. */
CIK_INLINE vm aimed_out_of_reach(const group *g, vm unreachable)
{
    v3 e = v3_sub(g->E, g->P[0]), t = v3_sub(g->T, g->P[0]);
    vf le2 = v3_dot(e, e), lt2 = v3_dot(t, t);
    e = v3_scale(e, v_rsqrt(v_max(le2, v_set1(K_TINY))));
    t = v3_scale(t, v_rsqrt(v_max(lt2, v_set1(K_TINY))));
    v3 x = v3_cross(e, t);
    vm aimed = w_and(v_lt(v3_dot(x, x), v_set1(K_EPS2)), v_gt(v3_dot(e, t), v_set1(0.0f)));
    vm long_enough = w_and(v_ge(le2, v_set1(K_EPS2)), v_ge(lt2, v_set1(K_EPS2)));
    return w_and(unreachable, w_and(aimed, long_enough));
}

/* Adds each lane's passes of the current chunk (exact float) to its int32
 * count and starts a new chunk. */
CIK_INLINE void flush_passes(vf *chunk, int32_t *count)
{
    _Alignas(64) float c[CIK_LANES];
    v_store(c, *chunk);
    for (int i = 0; i < CIK_LANES; ++i) count[i] += (int32_t)c[i];
    *chunk = v_set1(0.0f);
}

/* Per lane, the passes it may still run in a new chunk: the rest to
 * max_iterations, at most a chunk (exact in float). */
CIK_INLINE vf chunk_limit(const int32_t *count, int max_iterations)
{
    _Alignas(64) float l[CIK_LANES];
    for (int i = 0; i < CIK_LANES; ++i) {
        int32_t left = max_iterations - count[i];
        l[i] = (float)(left < K_PASS_CHUNK ? left : K_PASS_CHUNK);
    }
    return v_load(l);
}

/* A group stops early for regrouping (kernel_solve) only with at least this
 * many passes left. */
#define REGROUP_MIN_PASSES 3

/* keep_best: a lane's best pose so far, handed from a group that stops
 * early to the group that resumes it (regroup), rows of CIK_LANES floats:
 * the pose's error, 1 where the pose is carried (else the best pose is the
 * one the lane stops in, the resumed group's start), then the rotations of
 * joint j in rows BEST_Q + 4 j to BEST_Q + 4 j + 3 (x, y, z, w). */
enum { BEST_ERR, BEST_CARRY, BEST_Q };
#define BEST_ROWS(J) (BEST_Q + 4 * (J))

/* Solves the group of lanes [lane0, lane0 + CIK_LANES) of `b` (the batch,
 * or a regrouped copy of some of its lanes): each lane from the pass count
 * in `start_passes` (NULL: from the start) on. With `suspend` (CIK_LANES
 * floats, else NULL) the group may stop early at a pass boundary where at
 * most half its lanes still run and at least REGROUP_MIN_PASSES passes are
 * left: it stores every lane as at the end (the unfinished ones with their
 * pass counts so far and their current pose) and marks the unfinished lanes
 * 1 in `suspend`. With job->keep_best, `best` (BEST_ROWS rows, NULL where the
 * group cannot stop early or resume) receives every lane's best pose where
 * the group stops early, and a resumed group (start_passes) starts from the
 * best poses it holds. */
CIK_INLINE void solve_group(const cik__kernel_job *job, const cik_batch *b, int lane0,
                            const int32_t *start_passes, float *suspend, float *best, const int limb_possible)
{
    group g;
    g.batch = b;
    g.lane0 = lane0;
    g.joints = b->joint_count;
    const int J = g.joints;

#define CS(s) cik__chain_stream(b, s)
#define JS(j, s) cik__joint_stream(b, j, s)
    g.T = v3_load(CS(CIK__TX), CS(CIK__TY), CS(CIK__TZ), lane0);
    g.root_p = v3_load(CS(CIK__RPX), CS(CIK__RPY), CS(CIK__RPZ), lane0);
    g.root_q = q_load(CS(CIK__RQX), CS(CIK__RQY), CS(CIK__RQZ), CS(CIK__RQW), lane0);
    g.eff = v3_load(CS(CIK__EX), CS(CIK__EY), CS(CIK__EZ), lane0);
    vm valid = w_and(w_and(valid3(g.T), valid3(g.root_p)), w_and(valid4(g.root_q), valid3(g.eff)));
    {
        v3 pole = v3_load(CS(CIK__PLX), CS(CIK__PLY), CS(CIK__PLZ), lane0);
        vf pw = v_load(CS(CIK__PLW) + lane0);
        valid = w_and(valid, w_and(valid3(pole), w_and(v_ge(pw, v_set1(0.0f)), v_le(pw, v_set1(1.0f)))));
    }
    for (int j = 0; j < J; ++j) {
        g.q[j] = q_load(JS(j, CIK__QX), JS(j, CIK__QY), JS(j, CIK__QZ), JS(j, CIK__QW), lane0);
        g.off[j] = v3_load(JS(j, CIK__OX), JS(j, CIK__OY), JS(j, CIK__OZ), lane0);
        valid = w_and(valid, w_and(valid4(g.q[j]), valid3(g.off[j])));
    }
    forward_from(&g, 0, 1);

    /* reach = sum_{j>=1} |o[j]| + |e| */
    vf reach = v_sqrt(v3_dot(g.eff, g.eff));
    for (int j = 1; j < J; ++j) reach = v_add(reach, v_sqrt(v3_dot(g.off[j], g.off[j])));
    const vf span = distance(g.T, g.P[0]);
    vm unreachable = v_gt(span, reach);
    /* stop_unreachable: the nearest the effector can come, |T - P0| less
     * the reach, on the lanes out of reach */
    const vf gap = v_sub(span, reach);

    /* Limb mode's lanes: 2 or 3 joints, joint 1 a hinge, joint 0 not; or 4
     * joints, joints 1 and 2 hinges, joint 0 not. */
    vm limb = w_false();
    if (limb_possible && job->limb == CIK_LIMB_AUTO && J >= 2 && J <= 4) {
        limb = w_and(v_eq(jload(&g, 1, CIK__LTYPE), v_set1((float)CIK_LIMIT_HINGE)),
                     w_not(v_eq(jload(&g, 0, CIK__LTYPE), v_set1((float)CIK_LIMIT_HINGE))));
        if (J == 4) limb = w_and(limb, v_eq(jload(&g, 2, CIK__LTYPE), v_set1((float)CIK_LIMIT_HINGE)));
    }

    const vf threshold = v_set1(job->threshold);
    /* damped least-squares steps, on chains of job->dls_min_joints joints
     * or more (3, or the foot crowd's 2; as in the reference), lambda^2 =
     * (damping * reach)^2 */
    const int dls = job->dls_damping > 0.0f && J >= job->dls_min_joints;
    const vf lambda2 = v_mul(v_mul(v_set1(job->dls_damping), reach), v_mul(v_set1(job->dls_damping), reach));
    /* passes per lane: `count` (int32) before the current chunk plus
     * `chunk` (float, exact below K_PASS_CHUNK) in it; the same for every
     * lane of a fresh group, not of a regrouped one */
    _Alignas(64) int32_t count[CIK_LANES];
    int most = 0; /* the most passes any lane had run at the start */
    for (int i = 0; i < CIK_LANES; ++i) {
        count[i] = start_passes ? start_passes[i] : 0;
        most = count[i] > most ? count[i] : most;
    }
    vf chunk = v_set1(0.0f), limit = v_set1(0.0f);
    if (start_passes) limit = chunk_limit(count, job->max_iterations);
    vm active = valid, suspended = w_false();
    /* keep_best: the pose with the least error at any pass boundary (the
     * start, after each pass), the earliest of equals. A fresh group's
     * start pose stays in the batch's streams until the end, so it is not
     * copied: `at_start` marks the lanes whose best is still it, and best_q
     * is filled the first time a lane does better after a pass (`saved`).
     * A resumed lane's best comes from the group it left (`best`). A lane
     * that converges ends on that pose, its best: not recorded. */
    const int keep = job->keep_best;
    vq best_q[CIK_MAX_JOINTS];
    vf best_err = v_set1(INFINITY);
    vm at_start = valid, best_now = w_false(); /* best_now: recorded at the last pass boundary */
    int saved = 0;
    if (keep && start_passes) {
        const float *bq = best + BEST_Q * CIK_LANES;
        best_err = v_load(best + BEST_ERR * CIK_LANES);
        at_start = w_not(v_gt(v_load(best + BEST_CARRY * CIK_LANES), v_set1(0.0f)));
        if (!w_all(at_start)) {
            for (int j = 0; j < J; ++j)
                best_q[j] = q_load(bq + (4 * j) * CIK_LANES, bq + (4 * j + 1) * CIK_LANES, bq + (4 * j + 2) * CIK_LANES,
                                   bq + (4 * j + 3) * CIK_LANES, 0);
            saved = 1;
        }
    }
    /* a fresh group counts its passes; a regrouped one stops each lane at
     * the pass limit */
    for (int pass = 0; start_passes || pass < job->max_iterations; ++pass) {
        if (pass > 0 && pass % K_PASS_CHUNK == 0) {
            flush_passes(&chunk, count);
            if (start_passes) limit = chunk_limit(count, job->max_iterations);
        }
        {
            const vf err = distance(g.E, g.T);
            if (keep) {
                /* (a lane that has stopped keeps its pose and error: no change) */
                if (pass == 0 && !start_passes) {
                    best_err = v_sel(active, err, best_err);
                    best_now = active;
                } else {
                    const vm better = w_andnot(w_and(active, v_lt(err, best_err)), v_lt(err, threshold));
                    best_now = better;
                    if (w_any(better)) {
                        for (int j = 0; j < J; ++j) best_q[j] = saved ? q_sel(better, g.q[j], best_q[j]) : g.q[j];
                        saved = 1;
                        best_err = v_sel(better, err, best_err);
                        at_start = w_andnot(at_start, better);
                    }
                }
            }
            active = w_andnot(active, v_lt(err, threshold));
            if (job->stop_unreachable) active = w_andnot(active, w_and(unreachable, v_lt(v_sub(err, gap), threshold)));
        }
        if (start_passes) active = w_and(active, v_lt(chunk, limit));
        if (!w_any(active)) break;
        if (suspend && pass > 0 && (int64_t)job->max_iterations - most - pass >= REGROUP_MIN_PASSES) {
            _Alignas(64) float on[CIK_LANES];
            v_store(on, v_sel(active, v_set1(1.0f), v_set1(0.0f)));
            int running = 0;
            for (int i = 0; i < CIK_LANES; ++i) running += on[i] != 0.0f;
            if (2 * running <= CIK_LANES) {
                suspended = active;
                break;
            }
        }
        chunk = v_sel(active, v_add(chunk, v_set1(1.0f)), chunk);
        vm sweep = active;
        if (limb_possible && pass == 0 && !start_passes) {
            /* a lane's first pass (regrouped lanes have run one already) */
            vm limbs = w_and(active, limb);
            if (w_any(limbs)) limb_step(&g, limbs, unreachable, job);
            sweep = w_andnot(active, limb);
        }
        if (!w_any(sweep)) continue;
        if (dls) {
            /* a damped least-squares step before the sweep; a lane it
             * brings within the threshold ends its pass there */
            dls_step(&g, sweep, lambda2);
            sweep = w_andnot(sweep, v_lt(distance(g.E, g.T), threshold));
            if (!w_any(sweep)) continue;
        }
        vm moved = w_false();
        for (int j = J - 1; j >= 0; --j) moved = w_or(moved, step(&g, j, sweep, job, 0));
        if (dls) {
            /* and one after it, where the sweep left the lane short; a lane
             * it brings within the threshold is not stuck */
            vm dls_after = w_andnot(sweep, v_lt(distance(g.E, g.T), threshold));
            if (w_any(dls_after)) dls_step(&g, dls_after, lambda2);
            moved = w_or(moved, v_lt(distance(g.E, g.T), threshold));
        }
        /* nothing moved: E is where it was at the pass start (or the step
         * after the sweep left it short), still >= threshold; a chain
         * aimed at a target out of its reach stays */
        vm stuck = w_andnot(sweep, moved);
        if (w_any(stuck)) {
            stuck = w_andnot(stuck, aimed_out_of_reach(&g, unreachable));
            if (w_any(stuck)) unstick(&g, stuck);
        }
    }
    flush_passes(&chunk, count);

    vf error = distance(g.E, g.T);
    if (keep) {
        /* a finished lane ends on its best pose where the last is worse;
         * a lane that resumes elsewhere takes its best pose along, unless
         * it is the one it stops in (recorded at this boundary) */
        const vm back = w_andnot(v_lt(best_err, error), suspended);
        const vm carry = best && w_any(suspended) ? w_andnot(suspended, best_now) : w_false();
        if (best && w_any(suspended)) {
            v_store(best + BEST_ERR * CIK_LANES, best_err);
            v_store(best + BEST_CARRY * CIK_LANES, v_sel(carry, v_set1(1.0f), v_set1(0.0f)));
        }
        const vm need = w_or(back, carry);
        if (w_any(need)) {
            const vm from_start = w_and(at_start, need);
            float *bq = best ? best + BEST_Q * CIK_LANES : NULL;
            for (int j = 0; j < J; ++j) {
                vq q = saved ? best_q[j] : g.q[j];
                if (w_any(from_start))
                    q = q_sel(from_start, q_load(JS(j, CIK__QX), JS(j, CIK__QY), JS(j, CIK__QZ), JS(j, CIK__QW), lane0), q);
                if (w_any(carry)) {
                    v_store(bq + (4 * j) * CIK_LANES, q.x);
                    v_store(bq + (4 * j + 1) * CIK_LANES, q.y);
                    v_store(bq + (4 * j + 2) * CIK_LANES, q.z);
                    v_store(bq + (4 * j + 3) * CIK_LANES, q.w);
                }
                g.q[j] = q_sel(back, q, g.q[j]);
            }
            error = v_sel(back, best_err, error);
        }
    }
    vm converged = v_lt(error, threshold);
    vf flags = v_add(v_sel(converged, v_set1((float)CIK_RESULT_CONVERGED), v_set1(0.0f)),
                     v_sel(unreachable, v_set1((float)CIK_RESULT_UNREACHABLE), v_set1(0.0f)));
    flags = v_sel(valid, flags, v_set1((float)CIK_RESULT_SKIPPED));
    error = v_sel(valid, error, v_set1(NAN));

    /* Skipped lanes store back the bits they were loaded with. */
    for (int j = 0; j < J; ++j) {
        v_store(JS(j, CIK__QX) + lane0, g.q[j].x);
        v_store(JS(j, CIK__QY) + lane0, g.q[j].y);
        v_store(JS(j, CIK__QZ) + lane0, g.q[j].z);
        v_store(JS(j, CIK__QW) + lane0, g.q[j].w);
    }
    v_store((float *)cik__result_stream(b, CIK__ERR) + lane0, error);
    /* skipped lanes never run a pass: their count is 0 */
    int32_t *iter = (int32_t *)cik__result_stream(b, CIK__ITER) + lane0;
    for (int i = 0; i < CIK_LANES; ++i) iter[i] = count[i];
    v_store_i32((int32_t *)cik__result_stream(b, CIK__FLAGS) + lane0, flags);
    if (suspend) v_store(suspend, v_sel(suspended, v_set1(1.0f), v_set1(0.0f)));
#undef CS
#undef JS
}

/* solve_group compiled three times, its fixed arguments folded away: for
 * chains that are not regrouped (too long, or a one-lane build), for a
 * fresh group that may stop early, and for a regrouped one. Only the copies
 * that can meet a limb-shaped chain in its first pass carry the limb step
 * (`limb_possible`: limbs have 2 to 4 joints, regrouped lanes have run a
 * pass). */
static void solve_fresh(const cik__kernel_job *job, int lane0)
{
    solve_group(job, job->batch, lane0, NULL, NULL, NULL, CIK_LANES < 4);
}
#if CIK_LANES >= 4
static void solve_first(const cik__kernel_job *job, int lane0, float *suspend, float *best)
{
    solve_group(job, job->batch, lane0, NULL, suspend, best, 1);
}
static void solve_resumed(const cik__kernel_job *job, const cik_batch *b, const int32_t *start_passes,
                          float *suspend, float *best)
{
    solve_group(job, b, 0, start_passes, suspend, best, 0);
}
#endif

/*
 * Regrouping. A group runs until its slowest lane is done; where passes per
 * chain spread (plain CCD on legs: 1 to 10, a quarter at 10; spines with the
 * defaults: 40 % in one pass, half at 10) most lanes of a group idle through
 * its last passes. So a group with at most half its lanes still running and
 * at least REGROUP_MIN_PASSES passes left stops at the pass boundary and
 * hands its unfinished lanes to a pool; full groups of pooled lanes are
 * copied side by side into a scratch batch on the stack, solved on from
 * each lane's pass count, and copied back. A lane's result does not depend
 * on the lanes beside it (forward kinematics is recomputed from the
 * rotations, which is what the pass boundary keeps), so the results are
 * the same bits as without regrouping.
 */
/* Chains with more joints are not regrouped: the scratch batch stays small
 * (and long chains mostly run every pass anyway). */
#define REGROUP_MAX_JOINTS 6
#define REGROUP_STREAMS (CIK__CHAIN_STREAMS + REGROUP_MAX_JOINTS * CIK__JS + CIK__RESULT_STREAMS)

#if CIK_LANES >= 4 /* one-lane builds have nothing to regroup */
#define BEST_MAX_ROWS BEST_ROWS(REGROUP_MAX_JOINTS)
typedef struct regroup {
    int lane[2 * CIK_LANES]; /* the pool: batch lanes waiting to be solved on */
    /* keep_best: each pooled lane's best pose (BEST_ROWS values) */
    float best[2 * CIK_LANES][BEST_MAX_ROWS];
    int count;
    cik_batch scratch;       /* CIK_LANES lanes, stride CIK_LANES */
} regroup;

/* Pools lane `lane` of a group that stopped early, group lane k, with its
 * best pose (keep_best) from the group's rows. */
static void pool_add(const cik__kernel_job *job, regroup *r, int lane, const float *best, int k)
{
    if (job->keep_best) {
        float *to = r->best[r->count];
        const int rows = best[BEST_CARRY * CIK_LANES + k] > 0.0f ? BEST_ROWS(job->batch->joint_count) : BEST_Q;
        for (int row = 0; row < rows; ++row) to[row] = best[row * CIK_LANES + k];
    }
    r->lane[r->count++] = lane;
}

/* The rows of pooled lane `from` that mean something (the pose only where
 * it is carried). */
static int pool_rows(const cik__kernel_job *job, const float *from)
{
    return from[BEST_CARRY] > 0.0f ? BEST_ROWS(job->batch->joint_count) : BEST_Q;
}

/* Solves the first CIK_LANES pooled lanes (fewer at the end: the last one
 * repeated fills the group) in the scratch batch, copies them back and,
 * with `may_suspend`, pools the ones that stop again. */
static void regroup_run(const cik__kernel_job *job, regroup *r, int may_suspend)
{
    const cik_batch *b = job->batch;
    const int n = r->count < CIK_LANES ? r->count : CIK_LANES;
    int lane[CIK_LANES];
    for (int k = 0; k < CIK_LANES; ++k) lane[k] = r->lane[k < n ? k : n - 1];
    _Alignas(64) float best[BEST_MAX_ROWS * CIK_LANES];
    if (job->keep_best)
        for (int k = 0; k < CIK_LANES; ++k) {
            const float *from = r->best[k < n ? k : n - 1];
            for (int row = 0, rows = pool_rows(job, from); row < rows; ++row) best[row * CIK_LANES + k] = from[row];
        }
    r->count -= n;
    for (int k = 0; k < r->count; ++k) {
        r->lane[k] = r->lane[k + n];
        if (job->keep_best)
            for (int row = 0, rows = pool_rows(job, r->best[k + n]); row < rows; ++row)
                r->best[k][row] = r->best[k + n][row];
    }
    /* what a regrouped group reads: the chain streams and the joints'
     * (not the raw limit angles: only the limb step, a lane's first pass,
     * reads them), and the passes so far */
    for (int s = 0; s < CIK__CHAIN_STREAMS; ++s) {
        const float *from = cik__chain_stream(b, s);
        float *to = cik__chain_stream(&r->scratch, s);
        for (int k = 0; k < CIK_LANES; ++k) to[k] = from[lane[k]];
    }
    for (int j = 0; j < b->joint_count; ++j)
        for (int s = 0; s < CIK__JS; ++s) {
            if (s == CIK__LMIN || s == CIK__LMAX || s == CIK__LSWING) continue;
            const float *from = cik__joint_stream(b, j, s);
            float *to = cik__joint_stream(&r->scratch, j, s);
            for (int k = 0; k < CIK_LANES; ++k) to[k] = from[lane[k]];
        }
    _Alignas(64) int32_t passes[CIK_LANES];
    _Alignas(64) float suspend[CIK_LANES];
    const int32_t *it = (const int32_t *)cik__result_stream(b, CIK__ITER);
    for (int k = 0; k < CIK_LANES; ++k) passes[k] = it[lane[k]];
    solve_resumed(job, &r->scratch, passes, may_suspend ? suspend : NULL, best);
    /* back: the rotations and the results */
    for (int j = 0; j < b->joint_count; ++j)
        for (int s = CIK__QX; s <= CIK__QW; ++s) {
            const float *from = cik__joint_stream(&r->scratch, j, s);
            float *to = cik__joint_stream(b, j, s);
            for (int k = 0; k < n; ++k) to[lane[k]] = from[k];
        }
    for (int s = 0; s < CIK__RESULT_STREAMS; ++s) {
        const uint32_t *from = (const uint32_t *)cik__result_stream(&r->scratch, s);
        uint32_t *to = (uint32_t *)cik__result_stream(b, s);
        for (int k = 0; k < n; ++k) to[lane[k]] = from[k];
    }
    if (may_suspend)
        for (int k = 0; k < n; ++k)
            if (suspend[k] != 0.0f) pool_add(job, r, lane[k], best, k);
}
#endif

#if CIK_LANES >= 4
/* The cache lines of the streams that the fresh group at lane0 reads, asked
 * for ahead of it (a group reads some 70 streams at once, more than a
 * core's prefetchers follow): each line once, by the group that starts on
 * it. Into L2 (`prefetcht1`): asked for into L1 (`prefetcht0`, before
 * 0.34.0) each waits for one of L1's few miss buffers, which bound how many
 * are under way (65,536 legs, one thread, three rounds alternating:
 * AVX-512 66.6, 72.1, 67.8 -> 41.3, 44.5, 37.1 ns a leg, AVX2 57.1, 54.1,
 * 66.1 -> 49.7, 50.2, 48.9; docs/roofline.md). */
CIK_INLINE void group_prefetch(const cik_batch *b, int lane0)
{
    enum { LINE_FLOATS = 64 / sizeof(float) };
    if (lane0 % LINE_FLOATS >= CIK_LANES) return; /* its line was asked for */
    const int n = CIK_LANES > LINE_FLOATS ? CIK_LANES : LINE_FLOATS;
    lane0 -= lane0 % LINE_FLOATS;
    for (int s = 0; s < CIK__CHAIN_STREAMS; ++s)
        for (int k = 0; k < n; k += LINE_FLOATS) __builtin_prefetch(cik__chain_stream(b, s) + lane0 + k, 0, 2);
    for (int j = 0; j < b->joint_count; ++j)
        for (int s = 0; s < CIK__JS; ++s) {
            if (s == CIK__LMIN || s == CIK__LMAX || s == CIK__LSWING) continue;
            for (int k = 0; k < n; k += LINE_FLOATS) __builtin_prefetch(cik__joint_stream(b, j, s) + lane0 + k, 0, 2);
        }
}

/* Lanes [begin, end) with regrouping: the fresh groups in order, a pooled
 * group as soon as the pool fills one, the pool's rest at the end. */
static void regroup_solve(const cik__kernel_job *job, int begin, int end)
{
    _Alignas(64) float scratch[REGROUP_STREAMS * CIK_LANES];
    regroup r;
    r.count = 0;
    r.scratch = *job->batch;
    r.scratch.chain_count = r.scratch.padded = CIK_LANES;
    r.scratch.stride = CIK_LANES;
    r.scratch.base = scratch;
    r.scratch.memory = NULL;
    for (int lane = begin; lane < end; lane += CIK_LANES) {
        _Alignas(64) float suspend[CIK_LANES];
        _Alignas(64) float best[BEST_MAX_ROWS * CIK_LANES];
        if (job->prefetch && lane + CIK_LANES < end) group_prefetch(job->batch, lane + CIK_LANES);
        solve_first(job, lane, suspend, best);
        for (int k = 0; k < CIK_LANES; ++k)
            if (suspend[k] != 0.0f) pool_add(job, &r, lane + k, best, k);
        while (r.count >= CIK_LANES) regroup_run(job, &r, 1);
    }
    /* the rest: no lanes will come to join them */
    while (r.count > 0) regroup_run(job, &r, 0);
}
#endif

static void kernel_solve(const cik__kernel_job *job, int begin, int end)
{
#if CIK_LANES >= 4
    /* (with fewer than 1 + REGROUP_MIN_PASSES passes no group stops early,
     * and regroup_solve is a plain loop over the groups) */
    if (job->batch->joint_count <= REGROUP_MAX_JOINTS) {
        regroup_solve(job, begin, end);
        return;
    }
#endif
    for (int lane = begin; lane < end; lane += CIK_LANES) solve_fresh(job, lane);
}

const cik__kernel CIK_KERNEL_SYMBOL = {CIK_KERNEL_BACKEND, CIK_LANES, kernel_solve};
