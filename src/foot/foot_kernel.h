/*
 * The foot stages' kernels, written once against the vector layer
 * (src/kernels/vec_<isa>.h and vec_wide.h) and compiled once per instruction
 * set by src/kernels/isa.c (with the CCD kernel), which includes a
 * vec_<isa>.h and defines CIK_FOOT_SYMBOL and CIK_IL first. The feet that
 * do not fill a vector at the end of a crowd or a herd run in one more
 * vector, its lanes past the end computed and never stored (pstore,
 * h_st).
 *
 * A lane is a foot; the passes are the stages' per-foot math (docs/foot.md)
 * with every branch turned into selects: both sides are computed and the
 * lane keeps the one its condition picks. Lanes masked out may compute
 * junk; it is never selected, and the floors (K_TINY) keep it finite. A select on a mask that no lane of the
 * vector sets is skipped (limit types, the seeding), which changes nothing.
 */
#include "foot_internal.h"

/* Interleaved native vectors, as the CCD kernel: measured best (docs/foot.md).
 * The one-lane build sets CIK_IL itself. */
#ifndef CIK_IL
#ifndef CIK_FOOT_IL
#define CIK_FOOT_IL 2
#endif
#define CIK_IL CIK_FOOT_IL
#endif

#include "../kernels/vec_wide.h"
#include "../kernels/vec_math.h"

#include <math.h>
#include <stdint.h>

/* Loads and stores of the crowd's streams, the leg constants and the
 * block's scratch; the arithmetic is vec_math.h's. */
CIK_INLINE vf ld(const float *const *s, int k, int i) { return v_load(s[k] + i); }
/* Leg constant k at foot i (a vector starts at an even foot, so a pattern
 * is read from its start). */
CIK_INLINE vf kld(const cik__foot_consts *K, int k, int i) { return v_load(K->p[k] + (i & K->mask[k])); }
CIK_INLINE v3 kv3(const cik__foot_consts *K, int k, int i)
{
    v3 r = {kld(K, k, i), kld(K, k + 1, i), kld(K, k + 2, i)};
    return r;
}
/* The block's scratch stream k at foot i. */
CIK_INLINE vf sld(const cik__foot_job *job, int k, int i) { return v_load(job->s[k] + (i - job->s0)); }
CIK_INLINE void sst(const cik__foot_job *job, int k, int i, vf a) { v_store(job->s[k] + (i - job->s0), a); }
CIK_INLINE v3 v3_sld(const cik__foot_job *job, int k, int i)
{
    v3 r = {sld(job, k, i), sld(job, k + 1, i), sld(job, k + 2, i)};
    return r;
}
CIK_INLINE vq q_sld(const cik__foot_job *job, int k, int i)
{
    vq r = {sld(job, k, i), sld(job, k + 1, i), sld(job, k + 2, i), sld(job, k + 3, i)};
    return r;
}
CIK_INLINE v3 v3_ld(const float *const *s, int k, int i) { return v3_load(s[k], s[k + 1], s[k + 2], i); }
/* Every store into the crowd's streams and the batch's (what outlives the
 * block) goes through pstore: with level of detail in a group (job->on
 * set) a lane whose character is off keeps the memory's bits (the block's
 * SCRATCH_LIVE is 1 for a foot whose character is on). */
CIK_INLINE void pstore(const cik__foot_job *job, float *s, int i, vf v)
{
    if (job->on) v = v_sel(v_gt(sld(job, SCRATCH_LIVE, i), v_set1(0.0f)), v, v_load(s + i));
    v_store(s + i, v);
}
/* Stream k at foot i becomes v where m is set, keeps its value elsewhere. */
CIK_INLINE void st_sel(const cik__foot_job *job, float *const *s, int k, int i, vm m, vf v)
{
    pstore(job, s[k], i, v_sel(m, v, v_load(s[k] + i)));
}
CIK_INLINE void v3_st(const cik__foot_job *job, float *const *s, int k, int i, v3 a)
{
    pstore(job, s[k], i, a.x);
    pstore(job, s[k + 1], i, a.y);
    pstore(job, s[k + 2], i, a.z);
}
CIK_INLINE v3 v3_of(vf x, vf y, vf z)
{
    v3 r = {x, y, z};
    return r;
}
CIK_INLINE vq q4(vf x, vf y, vf z, vf w)
{
    vq r = {x, y, z, w};
    return r;
}
CIK_INLINE vq q_ld(const float *const *s, int kx, int ky, int kz, int kw, int i)
{
    return q_load(s[kx], s[ky], s[kz], s[kw], i);
}
CIK_INLINE void q_st(const cik__foot_job *job, float *const *s, int kx, int ky, int kz, int kw, int i, vq q)
{
    pstore(job, s[kx], i, q.x);
    pstore(job, s[ky], i, q.y);
    pstore(job, s[kz], i, q.z);
    pstore(job, s[kw], i, q.w);
}
CIK_INLINE vq q_neg(vq a) { return q4(v_neg(a.x), v_neg(a.y), v_neg(a.z), v_neg(a.w)); }
CIK_INLINE vq q_conj(vq a) { return q4(v_neg(a.x), v_neg(a.y), v_neg(a.z), a.w); }
CIK_INLINE vf q_dot(vq a, vq b) { return v_fma(a.x, b.x, v_fma(a.y, b.y, v_fma(a.z, b.z, v_mul(a.w, b.w)))); }
/* fm_qnorm: the identity where the length is not positive. */
CIK_INLINE vq q_norm(vq q)
{
    vf n2 = q_dot(q, q), k = v_rsqrt(v_max(n2, v_set1(K_TINY)));
    vm ok = v_gt(n2, v_set1(0.0f));
    vf z = v_set1(0.0f);
    return q4(v_sel(ok, v_mul(q.x, k), z), v_sel(ok, v_mul(q.y, k), z), v_sel(ok, v_mul(q.z, k), z),
              v_sel(ok, v_mul(q.w, k), v_set1(1.0f)));
}
/* The shortest arc taking unit a onto unit b, any pair: a half turn about a
 * perpendicular axis (a x X, or a x Y when a is near X) when opposite
 * (unlike the CCD kernel's q_arc, whose callers handle the half turn). */
CIK_INLINE vq q_arc_any(v3 a, v3 b)
{
    vf d = v3_dot(a, b);
    v3 x = v3_cross(a, b);
    vq r = q_norm(q4(x.x, x.y, x.z, v_add(v_set1(1.0f), d)));
    vm opposite = v_lt(d, v_set1(-0.999999f));
    if (w_any(opposite)) {
        vf z = v_set1(0.0f);
        vm use_x = v_lt(v_abs(a.x), v_set1(0.9f));
        v3 p = v3_sel(use_x, v3_of(z, a.z, v_neg(a.y)), v3_of(v_neg(a.z), z, a.x));
        vf n2 = v3_dot(p, p);
        p = v3_sel(v_gt(n2, z), v3_scale(p, v_rsqrt(v_max(n2, v_set1(K_TINY)))), p);
        r = q_sel(opposite, q4(p.x, p.y, p.z, z), r);
    }
    return r;
}
/* Normalised linear interpolation along the shorter way. */
CIK_INLINE vq q_nlerp(vq a, vq b, vf t)
{
    vf s = v_sel(v_lt(q_dot(a, b), v_set1(0.0f)), v_neg(t), t);
    return q_norm(q4(v_add(a.x, v_fnma(a.x, t, v_mul(b.x, s))), v_add(a.y, v_fnma(a.y, t, v_mul(b.y, s))),
                     v_add(a.z, v_fnma(a.z, t, v_mul(b.z, s))), v_add(a.w, v_fnma(a.w, t, v_mul(b.w, s)))));
}

/* SPEC joint limits (vec_math.h's limit_clamp, the CCD kernel's) for the
 * prepared limit at k[base + LIMIT_*], none, hinge or swing-twist per lane. */
CIK_INLINE vq apply_limit(const cik__foot_consts *k, int base, int i, vq q)
{
    vf type = kld(k, base + LIMIT_TYPE, i);
    vm hinge = v_eq(type, v_set1((float)CIK_LIMIT_HINGE));
    vm swing_twist = v_eq(type, v_set1((float)CIK_LIMIT_SWING_TWIST));
    if (!w_any(w_or(hinge, swing_twist))) return q;
    lane_limit l = {kv3(k, base + LIMIT_AX, i),
                    kld(k, base + LIMIT_SMIN, i), kld(k, base + LIMIT_CMIN, i),
                    kld(k, base + LIMIT_SMAX, i), kld(k, base + LIMIT_CMAX, i),
                    kld(k, base + LIMIT_SSWING, i), kld(k, base + LIMIT_CSWING, i)};
    return limit_clamp(hinge, swing_twist, &l, q);
}

/* smoothstep(x) for x clamped into [0, 1]. */
CIK_INLINE vf smooth01(vf x)
{
    x = v_max(v_min(x, v_set1(1.0f)), v_set1(0.0f));
    return v_mul(v_mul(x, x), v_fnma(v_set1(2.0f), x, v_set1(3.0f)));
}
/* (x, z) turned about +Y by the angle whose half-angle sine and cosine are
 * (s, c): cos = c^2 - s^2, sin = 2 s c. */
CIK_INLINE void yaw_xz(vf s, vf c, vf x, vf z, vf *ox, vf *oz)
{
    vf co = v_fnma(s, s, v_mul(c, c)), si = v_mul(v_add(s, s), c);
    *ox = v_fma(co, x, v_mul(si, z));
    *oz = v_fnma(si, x, v_mul(co, z));
}
/* The turn about +Y taking the horizontal direction (ux, uz) onto (vx, vz)
 * as half-angle (sine, cosine), the shortest arc: normalize(u x v . y,
 * |u| |v| + u . v). None (0, 1) where either has no length or they are
 * opposite. */
CIK_INLINE void yaw_between(vf ux, vf uz, vf vx, vf vz, vf *s, vf *c)
{
    vf uu = v_fma(ux, ux, v_mul(uz, uz)), vv = v_fma(vx, vx, v_mul(vz, vz));
    vf hs = v_fnma(ux, vz, v_mul(uz, vx));
    vf hc = v_add(v_sqrt(v_mul(uu, vv)), v_fma(ux, vx, v_mul(uz, vz)));
    vf n2 = v_fma(hs, hs, v_mul(hc, hc));
    vm ok = v_gt(n2, v_mul(v_set1(1e-12f), v_mul(uu, vv)));
    vf k = v_rsqrt(v_max(n2, v_set1(K_TINY)));
    *s = v_sel(ok, v_mul(hs, k), v_set1(0.0f));
    *c = v_sel(ok, v_mul(hc, k), v_set1(1.0f));
}
/* Of three per-point values, the one at index `idx` (0, 1 or 2 as floats). */
CIK_INLINE vf pick3(vf idx, vf a, vf b, vf c)
{
    return v_sel(v_lt(idx, v_set1(0.5f)), a, v_sel(v_lt(idx, v_set1(1.5f)), b, c));
}
CIK_INLINE v3 pick3v(vf idx, const v3 p[3])
{
    return v3_of(pick3(idx, p[0].x, p[1].x, p[2].x), pick3(idx, p[0].y, p[1].y, p[2].y),
                 pick3(idx, p[0].z, p[1].z, p[2].z));
}
/* The least of three per-point values and its index (0, 1 or 2 as a
 * float; the first on a tie). */
CIK_INLINE vf least3(const vf v[3], vf *idx)
{
    vf lo = v[0], at = v_set1(0.0f);
    for (int k = 1; k < 3; ++k) {
        vm lower = v_lt(v[k], lo);
        lo = v_sel(lower, v[k], lo);
        at = v_sel(lower, v_set1((float)k), at);
    }
    *idx = at;
    return lo;
}
/* How near a swing foot is to its floor, 1 at it (or below) down to 0 at
 * `span` above it: the share of the ground's own height a swing foot takes
 * as the animation brings it down (the biped's swing lift, the herd's
 * swing foot coming to its own ground). */
CIK_INLINE vf near_floor(vf clear, vf span)
{
    const vf z = v_set1(0.0f);
    return v_max(v_sub(v_set1(1.0f), v_div(v_max(clear, z), v_max(span, v_set1(K_TINY)))), z);
}
/* A foot's point k in the ankle frame. */
CIK_INLINE v3 leg_point(const cik__foot_consts *K, int k, int i)
{
    return v3_of(kld(K, LEG_PTX + k, i), kld(K, LEG_PTY + k, i), kld(K, LEG_PTZ + k, i));
}
/* The foot's point `pv` (0 heel, 1 ball, 2 toe, per lane) in the ankle frame. */
CIK_INLINE v3 leg_pick(const cik__foot_consts *K, vf pv, int i)
{
    const v3 pts[3] = {leg_point(K, 0, i), leg_point(K, 1, i), leg_point(K, 2, i)};
    return pick3v(pv, pts);
}

/* The farthest a swing foot's look-ahead point is from its toe, in
 * reaches. A run's toe covers 0.6 m in the default 0.1 s: over a hill the
 * ground that far ahead lifted a swing foot kicked up behind the hip out of
 * its leg's reach (the run/leap on the terrain: 21 legs solved straight,
 * their feet through the ground); at 0.25 the step-edge lifts came later
 * (knee pops 6.49 / 6.02 / 1.80 / 5.33 per 1000 on the terrain, walk /
 * 12_01 / jog / run-leap, against 6.40 / 5.79 / 1.68 / 5.23 at 0.4, both
 * measured with the lift ahead taken at once, before its growth over the
 * frames ahead and the landing horizon). */
#define AHEAD_REACH 0.4f

/* Stage 1: forward kinematics of the animation (the animated ankle, foot
 * orientation, heel, ball and toe); the contacts (docs/foot.md: a foot is
 * planted while its slowest point is slow, its weight eased); the foot
 * locks (the pivot's x, z held where the foot planted, the foot's heading
 * held, the pivot rolling to a point that comes lower, released into a
 * blend back to the animation); the probe points under the planned foot. */
static void k_probe(const cik__foot_job *job, int begin, int end)
{
    float *const *F = job->f;
    const cik__foot_consts *K = job->k;
    const float *const *cF = (const float *const *)F;
    const vf z = v_set1(0.0f), one = v_set1(1.0f), dt = v_set1(job->dt), never = v_set1(1e30f);
    const vf plant2 = v_set1(job->plant_speed * job->plant_speed * job->dt * job->dt);
    const vf release2 = v_set1(job->release_speed * job->release_speed * job->dt * job->dt);
    const vf roll_margin = v_set1(job->lock_radius * (3e-3f / 0.12f));
    const vf radius2 = v_set1(job->lock_radius * job->lock_radius);
    for (int i = begin; i < end; i += CIK_LANES) {
        vq r = q_norm(q_sld(job, SCRATCH_EQX, i));
        v3 p = v3_sld(job, SCRATCH_EPX, i);
        vq w0 = q_mul(r, q_ld(cF, FOOT_POSE + 0, FOOT_POSE + 3, FOOT_POSE + 6, FOOT_POSE + 9, i));
        vq w1 = q_mul(w0, q_ld(cF, FOOT_POSE + 1, FOOT_POSE + 4, FOOT_POSE + 7, FOOT_POSE + 10, i));
        vq w2 = q_norm(q_mul(w1, q_ld(cF, FOOT_POSE + 2, FOOT_POSE + 5, FOOT_POSE + 8, FOOT_POSE + 11, i)));
        v3 hip = v3_add(p, q_rotate(r, kv3(K, LEG_HIPX, i)));
        v3 a = v3_add(v3_add(hip, q_rotate(w0, kv3(K, LEG_THX, i))), q_rotate(w1, kv3(K, LEG_SHX, i)));
        v3_st(job, F, FOOT_AAX, i, a);
        q_st(job, F, FOOT_AFX, FOOT_AFY, FOOT_AFZ, FOOT_AFW, i, w2);
        /* the points' motion since the last frame: the speed in the world
         * (plant, release), the rise over the animation's floor (lifting
         * off): a stance foot that the character's floor carries up a
         * slope is not lifting off (a run uphill raised its planted feet
         * faster than lift_speed, and 22 percent of the run/leap's still
         * foot-frames on a rising floor did not plant) */
        const vf floor = sld(job, SCRATCH_EFLOOR, i), floor_rise = v_sub(floor, ld(cF, FOOT_PREVF, i));
        v3 P[3], d;
        vf moved2 = never, rise = never, land = never;
        for (int k = 0; k < 3; ++k) {
            P[k] = v3_add(a, q_rotate(w2, leg_point(K, k, i)));
            const vf over = v_sub(P[k].y, floor);
            d = v3_sub(v3_of(P[k].x, over, P[k].z), v3_of(ld(cF, FOOT_PREVX + k, i), ld(cF, FOOT_PREVY + k, i), ld(cF, FOOT_PREVZ + k, i)));
            rise = v_min(rise, d.y); /* the least any point rose over the floor */
            /* the frames until the first point coming down reaches the
             * floor at this frame's speed (the look-ahead's horizon, the
             * pre-tilt's) */
            land = v_min(land, v_sel(v_lt(d.y, z), v_div(v_max(over, z), v_sub(z, d.y)), never));
            d.y = v_add(d.y, floor_rise);
            moved2 = v_min(moved2, v3_dot(d, d));
            pstore(job, F[FOOT_PREVX + k], i, P[k].x);
            pstore(job, F[FOOT_PREVY + k], i, over);
            pstore(job, F[FOOT_PREVZ + k], i, P[k].z);
        }
        pstore(job, F[FOOT_PREVF], i, floor);
        /* no last frame, no speed: the first frame plants the feet whose
         * lowest point is within first_plant (2 cm) of the animation's floor, at
         * full weight */
        vm first_planted = v_lt(v_min(v_min(P[0].y, P[1].y), P[2].y), v_add(floor, v_set1(job->first_plant)));
        /* a foot without a last frame: the crowd's first, or one reset */
        const vf cstate = ld(cF, FOOT_COLD, i);
        vm cold = job->primed ? v_gt(cstate, v_set1(0.5f * (COLD_AFRESH + COLD_UNSEEN))) : v_ge(one, z);
        vm unseen = job->primed ? w_and(v_gt(cstate, v_set1(0.5f * COLD_UNSEEN)),
                                        v_lt(cstate, v_set1(0.5f * (COLD_AFRESH + COLD_UNSEEN))))
                                : w_false();
        moved2 = v_sel(w_andnot(v_lt(moved2, never), cold), moved2, never); /* NaN (a bad last frame) or cold: as if fast */
        pstore(job, F[FOOT_LAND], i, v_sel(cold, never, land)); /* cold: no last frame, not coming down */
        /* nor a last target (place_a's rise of the ankle above its rest
         * reads it): a character reset, or switched back on, took the one
         * it had before as its own, and its pelvis parted from the same
         * character's in a crowd that had run on a frame later */
        st_sel(job, F, FOOT_TY, i, cold, v_set1(NAN));
        /* contacts */
        vm was = v_gt(ld(cF, FOOT_PLANTED, i), z);
        vf age = v_add(ld(cF, FOOT_CTIME, i), dt);
        vm planted, plant_event;
        vm guessed = w_false(); /* planted by its height alone, in its first frame */
        vf cnext = z; /* FOOT_COLD for the next probe */
        if (job->contacts == CIK_FOOT_CONTACTS_ANIMATION) {
            vm slow = v_lt(moved2, plant2), fast = v_gt(moved2, release2);
            /* planted by its height alone and not seen slow since */
            vm unseen_next = w_andnot(unseen, slow);
            /* skating: heel and toe within skate_height of the floor, so
             * that speed alone does not release it (the CMU jog skates its
             * stance feet at up to 3.6 m/s; released, the foot caught up
             * with the animation and planted again: stance toe slide 19.08
             * mm a frame p99 on flat ground against the animation's 16.93) */
            if (job->skate > 0.0f) {
                vm low = v_lt(v_max(P[CIK_FOOT_HEEL].y, P[CIK_FOOT_TOE].y), v_add(floor, v_set1(job->skate)));
                fast = w_andnot(fast, w_andnot(low, unseen));
            }
            /* lifting off: every point rose more than lift (NaN: no; a cold
             * foot has no last frame) */
            vm lifting = job->lift > 0.0f ? w_andnot(v_gt(rise, v_set1(job->lift)), cold) : w_false();
            slow = w_or(w_and(cold, first_planted), w_andnot(w_andnot(slow, lifting), cold));
            plant_event = w_andnot(slow, was);
            vm release = w_and(w_and(was, w_or(fast, lifting)), v_ge(age, v_set1(job->min_contact)));
            planted = w_or(plant_event, w_andnot(was, release));
            guessed = w_and(cold, planted);
            age = v_sel(w_or(plant_event, release), z, age);
            /* a foot planted without a last frame (by its height alone) has
             * not been seen slow: the next frame may release it at once */
            age = v_sel(w_and(cold, plant_event), v_set1(job->min_contact), age);
            cnext = v_sel(w_and(planted, w_or(w_and(cold, plant_event), unseen_next)), v_set1(COLD_UNSEEN), z);
            vf ease = ld(cF, FOOT_EASE, i);
            ease = v_sel(v_lt(v_abs(ease), v_set1(2.0f)), ease, z); /* NaN: afresh */
            ease = v_sel(planted, v_min(v_add(ease, v_set1(job->ease_in)), one), v_max(v_sub(ease, v_set1(job->ease_out)), z));
            ease = v_sel(cold, v_sel(planted, one, z), ease);
            pstore(job, F[FOOT_EASE], i, ease);
            pstore(job, F[FOOT_WEIGHT], i, smooth01(ease));
        } else {
            vf w = ld(cF, FOOT_WEIGHT, i);
            planted = v_ge(w, v_set1(0.999f));
            plant_event = w_andnot(planted, was);
            age = v_sel(w_or(plant_event, w_andnot(was, planted)), z, age);
        }
        pstore(job, F[FOOT_PLANTED], i, v_sel(planted, one, z));
        pstore(job, F[FOOT_CTIME], i, age);
        pstore(job, F[FOOT_COLD], i, cnext);
        /* the lowest animated point, and the foot's heading (heel to toe) */
        const vf py[3] = {P[0].y, P[1].y, P[2].y};
        vf lo_i, lo_y = least3(py, &lo_i);
        /* the lowest point is the first of heel, ball and toe within 0.1
         * mm of the lowest height (the pivot of a foot without a last
         * frame, and of a lock that starts): a foot flat within rounding
         * pivots on its heel, whatever an instruction set's last bits make
         * lowest (the FMA builds' toe tip, the one-lane build's ball, a
         * flat foot in tests/test_foot.c) */
        {
            const vf near_lo = v_add(lo_y, v_set1(0.02f * job->lift_contact));
            lo_i = v_sel(v_le(py[1], near_lo), v_min(lo_i, one), lo_i);
            lo_i = v_sel(v_le(py[0], near_lo), z, lo_i);
        }
        vf fax = v_sub(P[2].x, P[0].x), faz = v_sub(P[2].z, P[0].z);
        /* the release blend so far: offset and heading turn fading out */
        vf bt = v_add(ld(cF, FOOT_BTIME, i), dt);
        vf b = job->unlock_time > 0.0f ? v_sub(one, smooth01(v_div(bt, v_set1(job->unlock_time)))) : z;
        vf bys = ld(cF, FOOT_BYS, i), byc = ld(cF, FOOT_BYC, i);
        vf sx = v_mul(b, ld(cF, FOOT_BOFX, i)), sz = v_mul(b, ld(cF, FOOT_BOFZ, i));
        {
            vf ts = v_mul(b, bys), tc = v_fma(b, v_sub(byc, one), one);
            vf k = v_rsqrt(v_max(v_fma(ts, ts, v_mul(tc, tc)), v_set1(K_TINY)));
            bys = v_mul(ts, k);
            byc = v_mul(tc, k);
        }
        /* the lock; the foot's points in the ankle frame, and the foot as
         * the last frame placed it (the animation's on the first frame) */
        v3 pts[3] = {leg_point(K, 0, i), leg_point(K, 1, i), leg_point(K, 2, i)};
        vq last = q_ld(cF, FOOT_DFX, FOOT_DFY, FOOT_DFZ, FOOT_DFW, i);
        {
            /* a placed foot that a bad frame left non-finite: the animation's */
            vf chk = v_add(v_add(v_abs(last.x), v_abs(last.y)), v_add(v_abs(last.z), v_abs(last.w)));
            last = q_sel(w_or(cold, w_not(v_lt(chk, v_set1(1e30f)))), w2, last);
        }
        vm locked = v_gt(ld(cF, FOOT_HOLD, i), z);
        /* a foot without a last frame pivots on its lowest animated point
         * (the lock that starts a frame later takes that point too): on the
         * heel, where the stream starts, a foot tilted onto a slope had its
         * toe placed off the animation's by the tilt, and its toe moved up
         * to 17 mm from the crowd's first frame to its second as the lock
         * took the toe (the 12_01 walk on the terrain) */
        vf pv = v_sel(cold, lo_i, ld(cF, FOOT_PIVOT, i));
        v3 ppv = pick3v(pv, P);
        vf ax = ld(cF, FOOT_ANCX, i), az = ld(cF, FOOT_ANCZ, i);
        /* a lock or blend that a bad frame left non-finite, or farther
         * from the animation than a leg could ever hold it (the lock
         * radius and twice the reach: a character teleported, a frame of
         * absurd input), is dropped: the foot starts afresh at its
         * animation instead of flying back, and one bad frame never lasts */
        const vf far_off = v_fma(v_set1(2.0f), kld(K, LEG_REACH, i), v_sqrt(radius2)), far2 = v_mul(far_off, far_off);
        {
            vf chk = v_add(v_add(bys, byc), v_add(ld(cF, FOOT_ANCFX, i), ld(cF, FOOT_ANCFZ, i)));
            vm bad = w_not(v_lt(v_abs(chk), v_set1(1e30f)));
            vf hx = ld(cF, FOOT_ANCFX, i), hz = ld(cF, FOOT_ANCFZ, i), lx = v_sub(ax, ppv.x), lz = v_sub(az, ppv.z);
            bad = w_or(bad, w_not(v_ge(far2, v_fma(hx, hx, v_mul(hz, hz)))));
            bad = w_or(bad, w_not(v_ge(far2, v_fma(sx, sx, v_mul(sz, sz)))));
            bad = w_or(bad, w_and(locked, w_not(v_ge(far2, v_fma(lx, lx, v_mul(lz, lz))))));
            if (w_any(bad)) {
                locked = w_andnot(locked, bad);
                ax = v_sel(bad, z, ax);
                az = v_sel(bad, z, az);
                sx = v_sel(bad, z, sx);
                sz = v_sel(bad, z, sz);
                bys = v_sel(bad, z, bys);
                byc = v_sel(bad, one, byc);
                bt = v_sel(bad, never, bt);
                st_sel(job, F, FOOT_ANCFX, i, bad, z);
                st_sel(job, F, FOOT_ANCFZ, i, bad, z);
                st_sel(job, F, FOOT_BOFX, i, bad, z);
                st_sel(job, F, FOOT_BOFZ, i, bad, z);
                st_sel(job, F, FOOT_BYS, i, bad, z);
                st_sel(job, F, FOOT_BYC, i, bad, one);
            }
        }
        vf ys, yc;
        yaw_between(fax, faz, ld(cF, FOOT_ANCFX, i), ld(cF, FOOT_ANCFZ, i), &ys, &yc);
        vm released = v_lt(one, z); /* none */
        if (w_any(locked)) {
            /* the foot rolls: a point that comes lower than the pivot takes
             * over, anchored where the planned foot has it (no jump) */
            vm roll = w_and(locked, w_and(v_gt(v_abs(v_sub(lo_i, pv)), v_set1(0.5f)), v_lt(lo_y, v_sub(ppv.y, roll_margin))));
            /* on uneven ground the animation's lowest point may hang in
             * the air (a foot over a step's edge): a pivot on its ground
             * does not roll onto a point that hung more than twice
             * lift_contact above its own in the last frame, and a pivot
             * that hung so hands over to the point nearest its ground when
             * that one rested on it (within lift_contact) */
            vf clr[3], gi;
            for (int k = 0; k < 3; ++k) clr[k] = v_sub(ld(cF, FOOT_PTY + k, i), ld(cF, FOOT_CY + k, i));
            const vf gmin = least3(clr, &gi);
            const vf rests = v_set1(job->lift_contact), hangs = v_set1(2.0f * job->lift_contact);
            vf cpv = pick3(pv, clr[0], clr[1], clr[2]);
            vm down = v_gt(ld(cF, FOOT_LOCKED, i), z); /* locked in full in the last frame: the foot was down */
            vm hung = w_and(down, v_gt(cpv, hangs));
            vm block = w_and(w_and(down, v_lt(cpv, rests)), v_gt(pick3(lo_i, clr[0], clr[1], clr[2]), hangs));
            roll = w_andnot(roll, block);
            /* a foot held on its toe tip whose heel place lifted in the
             * last frame stays on it: rolled back onto the heel that the
             * animation has lower, anchored under the lifted heel, it was
             * handed to its toe again by the lift a few millimetres off,
             * frame after frame (the jog on the heightfield: locked
             * pivots 0.26 -> 0.66 mm a frame, p99, with held heels lifting) */
            roll = w_andnot(roll, w_and(v_eq(pv, v_set1((float)CIK_FOOT_TOE)), v_gt(ld(cF, FOOT_LIFT, i), z)));
            roll = w_or(roll, w_and(w_and(locked, v_gt(v_abs(v_sub(gi, pv)), v_set1(0.5f))), w_and(hung, v_lt(gmin, rests))));
            vf to = v_sel(hung, gi, lo_i);
            if (w_any(roll)) {
                /* where the new pivot was in the last frame's placed foot
                 * (its desired orientation, FOOT_DF*), so the hand-over
                 * moves nothing */
                v3 plo = pick3v(to, P);
                v3 o = q_rotate(last, v3_sub(pick3v(to, pts), pick3v(pv, pts)));
                ax = v_sel(roll, v_add(ax, o.x), ax);
                az = v_sel(roll, v_add(az, o.z), az);
                pv = v_sel(roll, to, pv);
                ppv = v3_sel(roll, plo, ppv);
            }
            /* released when the foot lifts, drifts lock_radius off the
             * animation, or the held ankle is beyond the leg's reach */
            vf dx = v_sub(ax, ppv.x), dz = v_sub(az, ppv.z);
            /* beyond reach: the held pivot farther from the animated hip
             * than the leg and the foot (ankle to pivot) reach together;
             * nearer, the pelvis drop and the heel lift (place) hold it */
            v3 lp = v3_sub(v3_of(ax, ppv.y, az), hip);
            v3 pvl = pick3v(pv, pts);
            vf hold = v_add(kld(K, LEG_REACH, i), v_sqrt(v3_dot(pvl, pvl)));
            vm far = w_or(v_gt(v_fma(dx, dx, v_mul(dz, dz)), radius2), v_gt(v3_dot(lp, lp), v_mul(hold, hold)));
            far = w_or(far, v_gt(ld(cF, FOOT_SLIP, i), z));
            vm release = w_and(locked, w_or(w_not(planted), far));
            if (!job->lock) release = locked; /* locking turned off: let go, blending */
            if (w_any(release)) {
                /* an offset beyond far_off (above) is not blended out but
                 * dropped: the foot goes back to the animation at once */
                vm jump = w_not(v_ge(far2, v_fma(dx, dx, v_mul(dz, dz))));
                dx = v_sel(jump, z, dx);
                dz = v_sel(jump, z, dz);
                ys = v_sel(jump, z, ys);
                yc = v_sel(jump, one, yc);
                st_sel(job, F, FOOT_BOFX, i, release, dx);
                st_sel(job, F, FOOT_BOFZ, i, release, dz);
                st_sel(job, F, FOOT_BYS, i, release, ys);
                st_sel(job, F, FOOT_BYC, i, release, yc);
                bt = v_sel(release, z, bt);
                /* this frame is the blend's first: all of the offset */
                sx = v_sel(release, dx, sx);
                sz = v_sel(release, dz, sz);
                bys = v_sel(release, ys, bys);
                byc = v_sel(release, yc, byc);
                locked = w_andnot(locked, release);
                released = release;
            }
        }
        /* a lock starts where the foot plants (or, planted after a release,
         * once the blend is over) at the planned pivot and heading; not on
         * a foot that its first frame planted by its height alone
         * (`guessed`): it starts in the next if the foot is still planted
         * there (a foot that the next frame found moving and let go was
         * blended back from where its lock held it, and its knee turned
         * up to 11 degrees in that frame beyond the animation's: 18 of the
         * 12_01 walk's 19 knee pops on flat ground, docs/foot.md, Since
         * 0.25.1) */
        if (job->lock) {
            vm start = w_andnot(w_and(planted, w_or(plant_event, v_ge(bt, v_set1(job->unlock_time)))),
                                w_or(w_or(locked, released), guessed));
            if (w_any(start)) {
                /* the new pivot where this frame's planned foot has it:
                 * the animation's, plus the fading offset, turned about
                 * the old pivot by the fading heading (the animation's
                 * own on a fresh plant; anchored from the last frame's
                 * placed foot instead, a heel landing with its toes up was
                 * anchored up to 4 mm off where the animation put it) */
                v3 plo = pick3v(lo_i, P);
                vf hx, hz, ox, oz;
                yaw_xz(bys, byc, fax, faz, &hx, &hz);
                yaw_xz(bys, byc, v_sub(plo.x, ppv.x), v_sub(plo.z, ppv.z), &ox, &oz);
                ax = v_sel(start, v_add(v_add(ppv.x, sx), ox), ax);
                az = v_sel(start, v_add(v_add(ppv.z, sz), oz), az);
                st_sel(job, F, FOOT_ANCFX, i, start, hx);
                st_sel(job, F, FOOT_ANCFZ, i, start, hz);
                ys = v_sel(start, bys, ys);
                yc = v_sel(start, byc, yc);
                pv = v_sel(start, lo_i, pv);
                ppv = v3_sel(start, plo, ppv);
                bt = v_sel(start, never, bt);
                locked = w_or(locked, start);
            }
        }
        pstore(job, F[FOOT_ANCX], i, ax);
        pstore(job, F[FOOT_ANCZ], i, az);
        pstore(job, F[FOOT_BTIME], i, v_min(bt, never));
        pstore(job, F[FOOT_HOLD], i, v_sel(locked, one, z));
        /* reported locked once the weight is in: while it eases in the
         * held foot still comes down to the ground */
        pstore(job, F[FOOT_LOCKED], i, v_sel(w_and(locked, v_ge(ld(cF, FOOT_WEIGHT, i), v_set1(0.999f))), one, z));
        pstore(job, F[FOOT_PIVOT], i, pv);
        /* the planned foot: the pivot at the anchor (locked) or at the
         * animation plus the fading offset, the foot turned about it */
        ys = v_sel(locked, ys, bys);
        yc = v_sel(locked, yc, byc);
        vf bx = v_sel(locked, ax, v_add(ppv.x, sx)), bz = v_sel(locked, az, v_add(ppv.z, sz));
        pstore(job, F[FOOT_PLX], i, bx);
        pstore(job, F[FOOT_PLZ], i, bz);
        pstore(job, F[FOOT_YAWS], i, ys);
        pstore(job, F[FOOT_YAWC], i, yc);
        /* a held foot's probes (and a planted one's that let go and
         * blends back) where the last frame solved its points, moved with
         * its pivot onto the planned one (a lock that starts: the foot's
         * shape as it came down; a cold foot: the animation's): on a step's
         * edge or a slope the ground is looked at where the foot is, not
         * where the animation's pitch would put it (up to 2 cm off, across
         * an edge; a foot the ankle's limit turned and let go sank 6.8 mm
         * at step edges, p99) */
        vf lx[3], lz[3];
        for (int k = 0; k < 3; ++k) {
            lx[k] = ld(cF, FOOT_PTX + k, i);
            lz[k] = ld(cF, FOOT_PTZ + k, i);
        }
        vf lpx = pick3(pv, lx[0], lx[1], lx[2]), lpz = pick3(pv, lz[0], lz[1], lz[2]);
        for (int k = 0; k < 3; ++k) {
            vf ox, oz;
            yaw_xz(ys, yc, v_sub(P[k].x, ppv.x), v_sub(P[k].z, ppv.z), &ox, &oz);
            vf hx = v_sub(lx[k], lpx), hz = v_sub(lz[k], lpz);
            vm use = w_andnot(w_and(w_or(locked, planted), v_lt(v_add(v_abs(hx), v_abs(hz)), never)), cold); /* NaN or cold: the animation's */
            ox = v_sel(use, hx, ox);
            oz = v_sel(use, hz, oz);
            pstore(job, F[FOOT_PROBEX + k], i, v_add(bx, ox));
            pstore(job, F[FOOT_PROBEZ + k], i, v_add(bz, oz));
        }
        if (job->ahead > 0.0f) {
            /* the swing foot's look-ahead point (swing_lookahead): the
             * toe's probe moved on by the toe's motion in the last frame
             * (d, the last point's) times the frames ahead or, where
             * fewer, the frames until the foot lands (land: a foot landing
             * before a step up was held up by it and dropped onto its
             * ground as it planted), but at least 2 (a landing foot slides
             * on by 2 to 4 cm: one whose toe came onto a step as it landed
             * rose 10 cm in that frame), by at most AHEAD_REACH of the leg's
             * reach; under the toe where the foot
             * is held or planted, cold or its motion not finite. With it
             * the floor's rise by then (FOOT_AHRISE), which place takes
             * off the ground ahead: on a hill the floor comes up too */
            vf n = v_min(v_set1(job->ahead), v_max(land, v_set1(2.0f)));
            vf dl = v_sqrt(v_fma(d.x, d.x, v_mul(d.z, d.z)));
            vf cap = v_mul(kld(K, LEG_REACH, i), v_set1(AHEAD_REACH));
            n = v_sel(v_gt(v_mul(dl, n), cap), v_div(cap, v_max(dl, v_set1(K_TINY))), n);
            vm go = w_andnot(v_lt(v_add(v_abs(d.x), v_abs(d.z)), never), w_or(w_or(locked, planted), cold));
            pstore(job, F[FOOT_PROBEX + FOOT_AHEAD], i,
                   v_add(ld(cF, FOOT_PROBEX + CIK_FOOT_TOE, i), v_sel(go, v_mul(d.x, n), z)));
            pstore(job, F[FOOT_PROBEZ + FOOT_AHEAD], i,
                   v_add(ld(cF, FOOT_PROBEZ + CIK_FOOT_TOE, i), v_sel(go, v_mul(d.z, n), z)));
            pstore(job, F[FOOT_AHRISE], i, v_sel(w_and(go, v_lt(v_abs(floor_rise), never)), v_mul(floor_rise, n), z));
            pstore(job, F[FOOT_AHINV], i, v_sel(w_and(go, v_gt(n, one)), v_div(one, n), one));
        }
    }
}

/* Stage 2, first pass (for the job's point of every foot): each probe
 * point's cell, as the index of its sample in the heights, and its
 * position in it, as heightfield.c's interior test and formula have them
 * (the same division, floor(u) = (int)u for u >= 1); a point outside the
 * interior is marked for the border-aware scalar sample and gets cell (1,
 * 1), whose twelve heights are in any grid that has an interior point
 * (k_ground reads them only then). */
static void k_ground_cells(const cik__foot_job *job, int begin, int end)
{
    const float *const *cF = (const float *const *)job->f;
    const vf ox = v_set1(job->ox), oz = v_set1(job->oz), sx = v_set1(job->sx), sz = v_set1(job->sz);
    const vf one = v_set1(1.0f), umax = v_set1(job->umax - 2.0f), vmax = v_set1(job->vmax - 2.0f);
    for (int i = begin; i < end; i += CIK_LANES) {
        vf u = v_div(v_sub(ld(cF, FOOT_PROBEX + job->point, i), ox), sx), v = v_div(v_sub(ld(cF, FOOT_PROBEZ + job->point, i), oz), sz);
        vm inside = w_and(w_and(v_ge(u, one), v_lt(u, umax)), w_and(v_ge(v, one), v_lt(v, vmax)));
        /* border lanes (NaN included) get cell (1, 1) */
        u = v_sel(inside, u, one);
        v = v_sel(inside, v, one);
        vf fu = v_floor(u), fv = v_floor(v);
        sst(job, SCRATCH_GU, i, v_sub(u, fu));
        sst(job, SCRATCH_GV, i, v_sub(v, fv));
        sst(job, SCRATCH_GBORDER, i, v_sel(inside, v_set1(0.0f), one));
        v_store_ni((int32_t *)job->s[SCRATCH_GIDX] + (i - job->s0), v_cell(fu, fv, job->row));
    }
}

/* heightfield.c's hf_slope: a slope within +-CIK__HF_MAX_SLOPE. */
CIK_INLINE vf slope(vf g) { return v_max(v_min(g, v_set1(CIK__HF_MAX_SLOPE)), v_set1(-CIK__HF_MAX_SLOPE)); }

/* The twelve heights k_ground gathers around a point's cell, p its sample
 * and q the one below it: p[-1], p[0], p[1], p[2], q[-1], q[0], q[1],
 * q[2], p[-row], p[1 - row], q[row], q[row + 1]. */
enum {
    GATHER_PM1, GATHER_P0, GATHER_P1, GATHER_P2, GATHER_QM1, GATHER_Q0, GATHER_Q1, GATHER_Q2,
    GATHER_PUP0, GATHER_PUP1, GATHER_QDN0, GATHER_QDN1
};

/* Points ahead whose rows k_ground prefetches: a large heightfield is
 * mostly not in the cache, and the four rows a point reads are four
 * misses, which then overlap. The vector step after the next: 16 points
 * (before 0.25.1) was half of the current step on AVX-512 (32 lanes), and
 * 64 there was about 2 percent faster on the benchmark's scene (10,000
 * characters, frames of five crowds side by side); the rows of a block's
 * first two steps, which the loop never reached, are asked for before it
 * (about 1.5 percent, two crowds side by side). */
#define GROUND_AHEAD (2 * CIK_LANES)

/* Prefetches the four rows that k_ground reads for the interior points
 * [a0, a1), into L2 (`prefetcht1`, as the crowd's prefetch_block): the
 * rows of a large heightfield are misses one after the other, and asked
 * for into L1 (`prefetcht0`, before 0.34.0) each waits for one of the few
 * buffers of L1's misses, which then bound how many are under way (the
 * benchmark's 10,000 characters, one thread, ten rounds alternating: 491
 * -> 443 and 574 -> 453 ns a character, two threads 312 -> 289; 1,000
 * characters, whose heights are in the cache, 271 either way). */
CIK_INLINE void ground_prefetch(const float *hs, const int32_t *cell, const float *border, int32_t row, int a0, int a1)
{
    for (int a = a0; a < a1; ++a) {
        if (border[a] != 0.0f) continue;
        const float *p = hs + cell[a];
        __builtin_prefetch(p - row, 0, 2);
        __builtin_prefetch(p, 0, 2);
        __builtin_prefetch(p + row, 0, 2);
        __builtin_prefetch(p + 2 * row, 0, 2);
    }
}

/* Stage 2 after k_ground_cells: heightfield.c's formula for a point away
 * from the border (bilinear height; the per-sample normals from central
 * differences, interpolated, renormalised) on the twelve heights around
 * its cell (GATHER_*), gathered from the heights; points near the border
 * (SCRATCH_GBORDER) get what cik__foot_ground_border writes after it. */
static void k_ground(const cik__foot_job *job, int begin, int end)
{
    float *const *F = job->f;
    const int pt = job->point;
    const vf ix2 = v_set1(job->ix2), iz2 = v_set1(job->iz2), one = v_set1(1.0f), z = v_set1(0.0f);
    const float *hs = job->heights;
    const int32_t row = job->row;
    const int32_t *cell = (const int32_t *)job->s[SCRATCH_GIDX] - job->s0;
    const float *border = job->s[SCRATCH_GBORDER] - job->s0;
    /* the first steps' rows, which the loop's look-ahead does not reach */
    ground_prefetch(hs, cell, border, row, begin, begin + GROUND_AHEAD < end ? begin + GROUND_AHEAD : end);
    for (int i = begin; i < end; i += CIK_LANES) {
        const int a0 = i + GROUND_AHEAD, a1 = a0 + CIK_LANES;
        ground_prefetch(hs, cell, border, row, a0, a1 < end ? a1 : end);
        vf fu = sld(job, SCRATCH_GU, i), fv = sld(job, SCRATCH_GV, i);
        vf h[12];
        if (w_all(v_gt(sld(job, SCRATCH_GBORDER, i), z))) { /* no interior point: maybe no interior */
            for (int g = 0; g < 12; ++g) h[g] = z;
        } else {
            /* p[-1..2], q[-1..2], then p[-row], p[1 - row], q[row], q[row + 1] */
            const vi c = v_load_ni(cell + i);
            v_gather4(hs, c, -1, h + GATHER_PM1);
            v_gather4(hs, c, row - 1, h + GATHER_QM1);
            v_gather22(hs, c, -row, 2 * row, h + GATHER_PUP0);
        }
        vf gu = v_sub(one, fu), gv = v_sub(one, fv);
        vf w00 = v_mul(gu, gv), w10 = v_mul(fu, gv), w01 = v_mul(gu, fv), w11 = v_mul(fu, fv);
        vf height = v_fma(w00, h[GATHER_P0], v_fma(w10, h[GATHER_P1], v_fma(w01, h[GATHER_Q0], v_mul(w11, h[GATHER_Q1]))));
        pstore(job, F[FOOT_CY + pt], i, height);
        if (pt == FOOT_AHEAD) continue; /* the look-ahead point's height alone is read */
        vf gx00 = slope(v_mul(v_sub(h[GATHER_P1], h[GATHER_PM1]), ix2)), gz00 = slope(v_mul(v_sub(h[GATHER_Q0], h[GATHER_PUP0]), iz2));
        vf gx10 = slope(v_mul(v_sub(h[GATHER_P2], h[GATHER_P0]), ix2)), gz10 = slope(v_mul(v_sub(h[GATHER_Q1], h[GATHER_PUP1]), iz2));
        vf gx01 = slope(v_mul(v_sub(h[GATHER_Q1], h[GATHER_QM1]), ix2)), gz01 = slope(v_mul(v_sub(h[GATHER_QDN0], h[GATHER_P0]), iz2));
        vf gx11 = slope(v_mul(v_sub(h[GATHER_Q2], h[GATHER_Q0]), ix2)), gz11 = slope(v_mul(v_sub(h[GATHER_QDN1], h[GATHER_P1]), iz2));
        vf a = v_mul(w00, v_rsqrt(v_fma(gx00, gx00, v_fma(gz00, gz00, one))));
        vf b = v_mul(w10, v_rsqrt(v_fma(gx10, gx10, v_fma(gz10, gz10, one))));
        vf c = v_mul(w01, v_rsqrt(v_fma(gx01, gx01, v_fma(gz01, gz01, one))));
        vf d = v_mul(w11, v_rsqrt(v_fma(gx11, gx11, v_fma(gz11, gz11, one))));
        vf nx = v_neg(v_fma(a, gx00, v_fma(b, gx10, v_fma(c, gx01, v_mul(d, gx11)))));
        vf ny = v_add(v_add(a, b), v_add(c, d));
        vf nz = v_neg(v_fma(a, gz00, v_fma(b, gz10, v_fma(c, gz01, v_mul(d, gz11)))));
        vf n2 = v_fma(nx, nx, v_fma(ny, ny, v_mul(nz, nz)));
        vf k = v_sel(v_gt(n2, z), v_rsqrt(v_max(n2, v_set1(K_TINY))), one);
        pstore(job, F[FOOT_CNX + pt], i, v_mul(nx, k));
        pstore(job, F[FOOT_CNY + pt], i, v_mul(ny, k));
        pstore(job, F[FOOT_CNZ + pt], i, v_mul(nz, k));
    }
}

/* The most of a planted foot's angle to the ground that place takes out:
 * 10 degrees (sin of half of it). */
#define FLAT_TURN_SIN 0.08715574f
#define FLAT_TURN2_SIN 0.17364818f /* 20 degrees */

CIK_INLINE vf clamp11(vf x) { return v_max(v_min(x, v_set1(1.0f)), v_set1(-1.0f)); }
CIK_INLINE vf v_fms(vf a, vf b, vf c) { return v_sub(v_mul(a, b), c); }

/* Angles as (cos, sin) pairs: a - b and a + b. */
CIK_INLINE void angle_sub(vf ca, vf sa, vf cb, vf sb, vf *c, vf *s)
{
    *c = v_fma(ca, cb, v_mul(sa, sb));
    *s = v_fms(sa, cb, v_mul(ca, sb));
}

CIK_INLINE void angle_add(vf ca, vf sa, vf cb, vf sb, vf *c, vf *s)
{
    *c = v_fms(ca, cb, v_mul(sa, sb));
    *s = v_fma(sa, cb, v_mul(ca, sb));
}

/* A knee's bend (cos, sin; 0 straight) for a hip-ankle distance squared d2:
 * cos = (d2 - a^2 - b^2) / 2ab, `sum` = a^2 + b^2, `iab` = 1 / 2ab, a and b
 * the thigh's and the shin's lengths. */
CIK_INLINE void bend_of(vf d2, vf sum, vf iab, vf *c, vf *s)
{
    *c = clamp11(v_mul(v_sub(d2, sum), iab));
    *s = v_sqrt(v_max(v_fnma(*c, *c, v_set1(1.0f)), v_set1(0.0f)));
}

/* How far the hip must come down so that a target at v from it (h2 = its
 * horizontal part squared) is sqrt(d2) away: the hip level with it when it
 * is that far sideways; below 0 (a rise) where it is nearer. */
CIK_INLINE vf drop_to(v3 v, vf h2, vf d2)
{
    const vf z = v_set1(0.0f);
    return v_sel(v_ge(h2, d2), v_neg(v.y), v_sub(v_neg(v_sqrt(v_max(v_sub(d2, h2), z))), v.y));
}

/* A leg's thigh and shin for bend_of: a^2 + b^2 and 2ab (and its inverse). */
CIK_INLINE void knee_lengths(const cik__foot_consts *K, int i, vf *sum, vf *ab2, vf *iab)
{
    v3 th = kv3(K, LEG_THX, i), sh = kv3(K, LEG_SHX, i);
    vf a2 = v3_dot(th, th), b2 = v3_dot(sh, sh);
    *sum = v_add(a2, b2);
    *ab2 = v_mul(v_set1(2.0f), v_sqrt(v_mul(a2, b2)));
    *iab = v_div(v_set1(1.0f), v_max(*ab2, v_set1(K_TINY)));
}

/* The held knee's rate (held_knee_speed): the least and the most bend it
 * allows foot i's knee this frame (the animation's bend, lim2 its hip-ankle
 * distance squared, plus the last frame's bend off it (pc, ps), less and
 * plus the frame's angle) as the hip-ankle distances squared that give
 * them, *least2 and *most2, and in *least_s and *most_s the bends' sines
 * (not above 0: straight or beyond, no such distance). The leg's lengths
 * and the animation's bend are worked out once for both. */
CIK_INLINE void held_bends(const cik__foot_job *job, int i, vf lim2, vf pc, vf ps, vf *least2, vf *least_s, vf *most2,
                           vf *most_s)
{
    vf sum, ab2, iab, ca, sa, nc, ns, tc;
    knee_lengths(job->k, i, &sum, &ab2, &iab);
    bend_of(lim2, sum, iab, &ca, &sa); /* the animation's */
    angle_add(pc, ps, v_set1(job->hold_c), v_set1(-job->hold_s), &nc, &ns);
    angle_add(ca, sa, nc, ns, &tc, least_s);
    *least2 = v_fma(ab2, tc, sum);
    angle_add(pc, ps, v_set1(job->hold_c), v_set1(job->hold_s), &nc, &ns);
    angle_add(ca, sa, nc, ns, &tc, most_s);
    *most2 = v_fma(ab2, tc, sum);
}

/* The share of the drop below the floor of the ground ahead of a swing
 * foot (swing_lookahead) that the foot asks of the pelvis (measured on the
 * eight runs of docs/foot.md's figures, Since 0.25.1: 0.3, 0.5 and 0.7
 * gave the procedural walk's knee pops on terrain 2.99, 2.78 and 2.17 per
 * 1000, its sole beyond its own angle 6.75, 5.56 and 4.38 degrees, and
 * the 12_01 walk's pops 3.80, 3.82 and 4.21, the jog's 1.19, 1.31 and
 * 1.55: a pelvis down early holds the other knee bent at its push-off;
 * 0.8 since 0.32, with the spring's lead and the pre-tilt: 0.5 left that
 * sole at 5.08 degrees, docs/foot.md, Since 0.32.0). */
#define SWING_NEED_AHEAD 0.8f

/* The weight of the ball's ground normal in the foot's ground normal (heel
 * and toe 1 each): 2 from 0.16 to 0.31; 4 since 0.32 (docs/foot.md,
 * Since 0.32.0: a foot across a ridge's crease lay up to 5 degrees off the
 * ground under its ball; 6 held the run/leap's locked pivots 0.53 mm a
 * frame p99 on terrain, over their target). */
#define BALL_NORMAL_WEIGHT 4.0f
/* The pre-tilt's time (place_a), seconds before the foot comes down onto its
 * floor: 0.05 and 0.1 measured alike (docs/foot.md, Since 0.32.0). */
#define PRE_TILT_TIME 0.1f

/* The ground's tilt as a foot takes it (place_a; `fy` the foot, `ht` its
 * heel-to-toe axis in the ankle frame, `n` the unit ground normal). A foot
 * level from heel to toe gets the shortest arc from up onto n. One that the
 * animation pitches (a heel strike, its toes up; a push-off, its heel up)
 * gets the slope's pitch along its heading, about the horizontal axis
 * across it, then the slope's roll about its own pitched heel-to-toe axis,
 * blended in from TILT_ROLL0 to TILT_ROLL1 of the pitch's sine (7 and 17
 * degrees, smoothstep): its heel-to-toe line keeps the animation's
 * heading. By the arc, a raised toe was turned about a horizontal axis and
 * swung sideways by its height times the slope's sine, and back as the
 * animation brought it down: the CMU 12_01 walk on the terrain's flanks,
 * a heel strike's heading 7.6 degrees off the animation's within 3 frames
 * and its toe 3.4 cm sideways, stance toe slide 9.79 mm a frame p99
 * against the animation's 9.04 (docs/foot.md, Since 0.28.0; blended in
 * from 5 degrees instead, the locked pivots of the jog on the terrain moved
 * 0.38 mm a frame p99, 0.19 with the arc). Where n has no part across the
 * heading (flat ground), the pitch is below TILT_ROLL0 or the foot points
 * within about 8 degrees of vertical: the arc, bit for bit. */
#define TILT_ROLL0 0.12186934f
#define TILT_ROLL1 0.29237170f
CIK_INLINE vq ground_tilt(vq fy, v3 ht, v3 n)
{
    const vf z = v_set1(0.0f), one = v_set1(1.0f);
    const v3 up = {z, one, z};
    const vq arc = q_arc_any(up, n);
    const v3 u = q_rotate(fy, ht);
    const vf h2 = v_fma(u.x, u.x, v_mul(u.z, u.z)), uu = v3_dot(u, u);
    /* blended in as the foot pitches from TILT_ROLL0 to TILT_ROLL1 */
    const vf sp = v_mul(v_abs(u.y), v_rsqrt(v_max(uu, v_set1(K_TINY))));
    const vf t = smooth01(v_mul(v_sub(sp, v_set1(TILT_ROLL0)), v_set1(1.0f / (TILT_ROLL1 - TILT_ROLL0))));
    const vf ih = v_rsqrt(v_max(h2, v_set1(K_TINY)));
    const vf hx = v_mul(u.x, ih), hz = v_mul(u.z, ih);
    /* n's part across the heading (along (-hz, 0, hx)) */
    const vf ns = v_fnma(n.x, hz, v_mul(n.z, hx));
    /* the arc where n has none, the foot is level or it points within
     * about 8 degrees of vertical */
    const vm own = w_and(w_and(v_gt(t, z), w_not(v_eq(ns, z))), v_gt(h2, v_mul(v_set1(0.02f), uu)));
    if (!w_any(own)) return arc;
    /* the pitch: n with that part taken out */
    v3 np = v3_of(v_fma(ns, hz, n.x), n.y, v_fnma(ns, hx, n.z));
    np = v3_scale(np, v_rsqrt(v_max(v3_dot(np, np), v_set1(K_TINY))));
    const vq p = q_arc_any(up, np);
    /* the roll: about the pitched heel-to-toe axis, np's part across it onto n's */
    const v3 u2 = q_rotate(p, u);
    const vf iu = v_div(one, v_max(v3_dot(u2, u2), v_set1(K_TINY)));
    const v3 a = v3_sub(np, v3_scale(u2, v_mul(v3_dot(np, u2), iu)));
    const v3 b = v3_sub(n, v3_scale(u2, v_mul(v3_dot(n, u2), iu)));
    const v3 x = v3_cross(a, b);
    const vq r = q_norm(q4(x.x, x.y, x.z, v_add(v_sqrt(v_mul(v3_dot(a, a), v3_dot(b, b))), v3_dot(a, b))));
    return q_sel(own, q_nlerp(arc, q_mul(r, p), t), arc);
}

/* Stage 3, first pass: the foot's orientation (the animated foot with its
 * locked heading, tilted with the ground, its sole turned onto the ground
 * by at most FLAT_TURN, blended by the weight); the
 * ankle height at which it rests on the ground (no point below it); the
 * target (planted: resting at the planned place; place_b blends it with
 * the swing target, never below resting); the hip's world offset, the
 * animation's own hip-ankle extension and what the foot needs of the
 * pelvis drop to keep it. */
static void k_place_a(const cik__foot_job *job, int begin, int end)
{
    float *const *F = job->f;
    const cik__foot_consts *K = job->k;
    const float *const *cF = (const float *const *)F;
    const vf z = v_set1(0.0f), one = v_set1(1.0f);
    const v3 up = {z, one, z};
    for (int i = begin; i < end; i += CIK_LANES) {
        vf w = ld(cF, FOOT_WEIGHT, i);
        w = v_sel(v_gt(w, z), v_min(w, one), z);
        v3 a = v3_ld(cF, FOOT_AAX, i);
        const vf last_ty = ld(cF, FOOT_TY, i); /* the last frame's target (place_b's, settling's raise included) */
        /* the ground: the points' normals averaged, the ball's counted
         * BALL_NORMAL_WEIGHT times (where the foot bears its weight in
         * stance: with the three alike, on uneven ground the sole lay up
         * to 5 degrees off the ground under the ball, the 12_01 walk's on
         * terrain 3.25 degrees p99; docs/foot.md, Since 0.15.0), the
         * heights */
        v3 n = v3_of(z, z, z);
        vf g[3], gmax = v_set1(-1e30f);
        for (int k = 0; k < 3; ++k) {
            v3 nk = v3_of(ld(cF, FOOT_CNX + k, i), ld(cF, FOOT_CNY + k, i), ld(cF, FOOT_CNZ + k, i));
            n = v3_add(n, k == CIK_FOOT_BALL ? v3_scale(nk, v_set1(BALL_NORMAL_WEIGHT)) : nk);
            g[k] = ld(cF, FOOT_CY + k, i);
            gmax = v_max(gmax, g[k]);
        }
        vf nl2 = v3_dot(n, n);
        n = v3_sel(v_gt(nl2, v_set1(1e-12f)), v3_scale(n, v_rsqrt(v_max(nl2, v_set1(K_TINY)))), up);
        /* the orientation */
        vq yaw = q4(z, ld(cF, FOOT_YAWS, i), z, ld(cF, FOOT_YAWC, i));
        vq fy = q_mul(yaw, q_ld(cF, FOOT_AFX, FOOT_AFY, FOOT_AFZ, FOOT_AFW, i));
        const vq fa = fy;
        /* the ground's tilt added to the animated foot (its own roll and
         * pitch kept, relative to the ground instead of the animation's
         * floor), then up to FLAT_TURN of what is left between its sole
         * and the ground taken out: a foot the animation holds flat within
         * that lies on the ground, one it rolls keeps its roll beyond it
         * and turns no faster than the animation does. A foot with its
         * toes up (a heel strike) keeps all of its pitch beyond
         * FLAT_TURN2, the turn taken out growing to FLAT_TURN as the
         * animation brings its toes down to FLAT_TURN (smoothstep, the
         * `flat` below): taken out in full as the weight eased in, the
         * extra 10 degrees swung the toe forward in the two or three
         * frames of the easing (CMU 12_01 on flat ground: toe slide 9.13
         * mm a frame p99 in the animation, 10.76 solved). A foot on its
         * toes (heel up, a push-off) keeps the full turn: its heel comes
         * up 10 degrees behind the animation's, and fading that out made
         * the knees straighten faster than the animation's (knee pops on
         * flat ground 6.44 to 29.07 per 1000 on 12_01, 2.94 to 16.53 on
         * the run/leap) */
        const v3 ht = v3_sub(leg_point(K, CIK_FOOT_TOE, i), leg_point(K, CIK_FOOT_HEEL, i));
        vq ft = q_mul(ground_tilt(fy, ht, n), fy);
        /* the pre-tilt: a foot coming down takes the ground's tilt (not the
         * turn onto it, below) as it nears its floor, over the last
         * PRE_TILT_TIME before it gets there at its speed (FOOT_LAND,
         * smoothstep), and a planted one all of it; a foot easing out
         * keeps it by its weight. Taken by the weight alone, a foot landing
         * on a slope stood a quarter of the slope off the ground in its
         * first planted frame (docs/foot.md, Since 0.32.0) */
        {
            const vf land = ld(cF, FOOT_LAND, i);
            vf pre = v_sub(one, smooth01(v_mul(v_sub(land, one), v_set1(job->dt / PRE_TILT_TIME))));
            pre = v_sel(v_lt(land, v_set1(1e29f)), pre, z);
            pre = v_max(pre, v_sel(v_gt(ld(cF, FOOT_PLANTED, i), z), one, w));
            const vm part = w_and(v_gt(pre, z), v_lt(pre, one));
            fy = q_sel(v_ge(pre, one), ft, w_any(part) ? q_sel(part, q_nlerp(fy, ft, pre), fy) : fy);
        }
        vq rt = q_arc_any(q_rotate(ft, kv3(K, LEG_SOLEX, i)), n);
        vf rs2 = v_fma(rt.x, rt.x, v_fma(rt.y, rt.y, v_mul(rt.z, rt.z)));
        vf sh = v_sqrt(rs2), flat = v_sub(one, smooth01(v_mul(v_sub(sh, v_set1(FLAT_TURN_SIN)), v_set1(1.0f / (FLAT_TURN2_SIN - FLAT_TURN_SIN)))));
        vf part = v_min(one, v_mul(v_set1(FLAT_TURN_SIN), v_rsqrt(v_max(rs2, v_set1(K_TINY)))));
        vm toes_up = v_gt(v3_dot(q_rotate(ft, ht), n), z);
        part = v_sel(toes_up, v_mul(part, flat), part);
        rt = q_norm(q4(v_mul(rt.x, part), v_mul(rt.y, part), v_mul(rt.z, part), v_fma(part, v_sub(rt.w, one), one)));
        vq dp = q_mul(rt, ft);
        /* the sole comes onto the ground in half the weight's easing: a
         * foot down on the ground lies on it (with the weight's own curve
         * a landing foot stood up to 7 degrees off the ground for a frame);
         * the caller's weights are its own curve */
        vf wo = w;
        if (job->contacts == CIK_FOOT_CONTACTS_ANIMATION) {
            vf e = ld(cF, FOOT_EASE, i);
            vf fast = v_sel(v_lt(v_abs(e), v_set1(2.0f)), smooth01(v_add(e, e)), w); /* NaN: the weight */
            /* only where the animation holds the sole flat on the ground
             * (within FLAT_TURN, smoothstep to twice it): a heel landing
             * with its toes up eases its turn with the weight, or its toe
             * slid forward by up to 2 cm in the frame it planted */
            wo = v_max(w, v_mul(fast, flat));
        }
        vq df = q_sel(v_lt(wo, one), q_nlerp(fy, dp, wo), dp);
        q_st(job, F, FOOT_DFX, FOOT_DFY, FOOT_DFZ, FOOT_DFW, i, df);
        /* resting: the ankle height that puts the lowest point on its ground */
        v3 d[3];
        vf rest = v_set1(-1e30f);
        for (int k = 0; k < 3; ++k) {
            d[k] = q_rotate(df, leg_point(K, k, i));
            rest = v_max(rest, v_sub(g[k], d[k].y));
        }
        /* the swing target's shift (place_b) that keeps the animated
         * foot's lowest point where the animation has it in x and z under
         * df: a foot turned about its ankle (pre-tilted, easing in) moved
         * its toe by up to 2.4 cm, and the lock, which anchors the
         * animation's point on a fresh plant, took it back in one frame */
        {
            /* the lowest animated point (FOOT_PREVY: the probe's heights
             * of this frame's animated points over the floor) */
            const vf ay[3] = {ld(cF, FOOT_PREVY, i), ld(cF, FOOT_PREVY + 1, i), ld(cF, FOOT_PREVY + 2, i)};
            vf lo;
            least3(ay, &lo);
            const v3 p0 = q_rotate(fa, leg_pick(K, lo, i)), p1 = pick3v(lo, d);
            sst(job, SCRATCH_SHX, i, v_sub(p0.x, p1.x));
            sst(job, SCRATCH_SHZ, i, v_sub(p0.z, p1.z));
        }
        v3 dpv = pick3v(ld(cF, FOOT_PIVOT, i), d);
        vf tx = v_sub(ld(cF, FOOT_PLX, i), dpv.x), tz = v_sub(ld(cF, FOOT_PLZ, i), dpv.z);
        /* the planted target (place_b blends it with the swing target once
         * the pelvis drop is known) and its resting height */
        v3_st(job, F, FOOT_TX, i, v3_of(tx, rest, tz));
        sst(job, SCRATCH_REST, i, rest);
        /* the toe tip's offset from the ankle, for the heel lift: it turns
         * the foot about the toe tip where that rests on its ground (within
         * 5 mm), else not at all (a lift about a point in the air, or about
         * the heel, would put the rest of the foot below the ground) */
        sst(job, SCRATCH_PVX, i, d[CIK_FOOT_TOE].x);
        sst(job, SCRATCH_PVY, i, d[CIK_FOOT_TOE].y);
        sst(job, SCRATCH_PVZ, i, d[CIK_FOOT_TOE].z);
        /* pelvis: the drop that keeps the animation's hip-ankle extension */
        vq r = q_norm(q_sld(job, SCRATCH_EQX, i));
        v3 hip_off = q_rotate(r, kv3(K, LEG_HIPX, i));
        sst(job, SCRATCH_HOX, i, hip_off.x);
        sst(job, SCRATCH_HOY, i, hip_off.y);
        sst(job, SCRATCH_HOZ, i, hip_off.z);
        v3 hip = v3_add(v3_sld(job, SCRATCH_EPX, i), hip_off);
        v3 ah_v = v3_sub(a, hip);
        vf lim = v_sqrt(v3_dot(ah_v, ah_v));
        sst(job, SCRATCH_LIM, i, lim);
        /* how far the hip must come down so that the planted target is lim
         * away; nothing when nearer (or NaN) or above the hip, the hip level
         * when it is that far sideways. A swing foot needs the ground's
         * drop below the animation's floor under it, so that it keeps its
         * clearance with the animation's angles; blended by the weight */
        v3 v = v3_sub(v3_of(tx, rest, tz), hip);
        vf lim2 = v_mul(lim, lim), h2 = v_fma(v.x, v.x, v_mul(v.z, v.z));
        vm none = w_or(w_not(v_gt(v3_dot(v, v), lim2)), v_ge(v.y, z));
        vf need = v_sel(none, z, drop_to(v, h2, lim2));
        const vf fl = sld(job, SCRATCH_EFLOOR, i);
        vf swing_need = v_max(v_sub(fl, gmax), z);
        if (job->ahead > 0.0f) {
            /* and SWING_NEED_AHEAD of the drop below the floor (as it
             * will be by then) of the ground at its look-ahead point
             * (swing_lookahead; none: -FLT_MAX or NaN, not taken): the
             * pelvis starts down for a foot that will land on lower
             * ground before it is over it */
            vf below = v_sub(fl, v_sub(ld(cF, FOOT_CY + FOOT_AHEAD, i), ld(cF, FOOT_AHRISE, i)));
            below = v_sel(v_lt(below, v_set1(1e30f)), v_mul(below, v_set1(SWING_NEED_AHEAD)), z);
            swing_need = v_max(swing_need, below);
        }
        need = v_fma(w, v_sub(need, swing_need), swing_need);
        sst(job, SCRATCH_NEED, i, need);
        /* a held foot at full weight on ground above the animation's
         * floor, level with it or at most hold_below under it: the least
         * drop that keeps its knee from straightening, beyond the
         * animation's, faster than held_knee_speed from the last frame's bend
         * (FOOT_KDC, FOOT_KDS); the floor catching up with a foot that
         * landed on a step straightened the held knee at up to 8.5 degrees
         * a frame, and on level ground a locked foot's knee straightened
         * ahead of the animation's at push-off (pelvis_drop); where the
         * ground falls away the pelvis comes down for the lower foot
         * anyway (docs/foot.md, Since 0.13.0) */
        vf dmin = v_set1(-1e30f), dmax = v_set1(1e30f);
        /* how far the last frame's target put the ankle above its resting
         * height (NaN: not), and that rise once more where it grew since
         * the frame before (FOOT_LIFTED, carried): a heel that peels goes
         * on peeling, and the bound below that took the ankle only as high
         * as it was let the knee bend up to 6 degrees a frame beyond the
         * animation's (the procedural walk on terrain, the trailing foot
         * on the upper level as the pelvis comes down for the other:
         * knee pops 4.26 -> 3.24 per 1000, docs/foot.md, Since 0.25.1) */
        vf lifted = v_sub(v_sub(last_ty, hip.y), v.y);
        lifted = v_sel(v_gt(lifted, z), lifted, z); /* NaN (no last target): 0 on every backend */
        {
            const vf grew = v_sub(lifted, ld(cF, FOOT_LIFTED, i));
            pstore(job, F[FOOT_LIFTED], i, lifted);
            lifted = v_add(lifted, v_sel(v_gt(grew, z), grew, z));
        }
        if (job->hold_on) {
            vf pc = ld(cF, FOOT_KDC, i), ps = ld(cF, FOOT_KDS, i);
            vm kd_ok = w_and(v_gt(v_fma(pc, pc, v_mul(ps, ps)), v_set1(0.25f)), v_ge(w, one));
            vm held = w_and(w_and(kd_ok, v_gt(ld(cF, FOOT_HOLD, i), z)), v_gt(v_sub(gmax, fl), v_set1(-job->hold_below)));
            vm bound = w_and(kd_ok, w_or(v_gt(ld(cF, FOOT_HOLD, i), z), v_gt(ld(cF, FOOT_PLANTED, i), z)));
            if (w_any(bound)) {
                vf ls, da2, ms, dm2;
                held_bends(job, i, lim2, pc, ps, &da2, &ls, &dm2, &ms);
                /* short of straight, and only where the target is farther */
                dmin = v_sel(w_and(w_and(held, v_gt(ls, z)), v_gt(v3_dot(v, v), da2)), drop_to(v, h2, da2), dmin);
                /* any held or planted foot at full weight, on any ground:
                 * the most drop that keeps its knee from bending, beyond
                 * the animation's, faster than held_knee_speed (the pelvis
                 * coming down for the other foot bent it; 12_01's walk on
                 * terrain: docs/foot.md, Since 0.15.0), never less than its
                 * own need; none where the hip cannot come that near. The
                 * ankle as high as the last frame's target put it above its
                 * resting height (by at most the toe's distance from it;
                 * NaN: not; the target, not the solved ankle): a planted
                 * foot whose lock the ankle's limit let go pivots on its
                 * toe, and its rising heel bent the knee beyond what the
                 * resting foot gives (the walk on terrain, the trailing
                 * foot as the pelvis comes down a slope: docs/foot.md,
                 * Since 0.24.0) */
                lifted = v_min(lifted, v_sqrt(v3_dot(d[CIK_FOOT_TOE], d[CIK_FOOT_TOE])));
                v3 vl = v3_of(v.x, v_add(v.y, lifted), v.z);
                vm b = w_and(w_and(bound, v_gt(ms, z)), v_lt(h2, dm2));
                dmax = v_sel(b, v_max(drop_to(vl, h2, dm2), need), dmax);
            }
        }
        sst(job, SCRATCH_DMIN, i, dmin);
        sst(job, SCRATCH_DMAX, i, dmax);
    }
}

/* The swing lift fades in over this share of the leg's reach above the
 * floor (0.3 and 0.8 measured: knee pops on terrain 31.35 / 18.93 / 17.58
 * and 30.45 / 16.08 / 15.73 for the walk, jog and run/leap, 99.58 percent
 * of the run/leap's solves converged at 0.8; 0.5: 30.68 / 16.84 / 16.48,
 * 99.91 percent). */
#define SWING_LIFT_SPAN 0.5f
/* and over this share of the lift's full height more: a foot that the
 * ground far above its floor lifts (a run uphill: 30 cm above the run/
 * leap's floor) starts rising earlier in its way down, its knee bending
 * over more frames (the run/leap's knee pops on terrain 2.18 -> 1.89 per
 * 1000 at 0.5, 1.92 at 0.75, 2.01 at 1, 2.99 at 2; its leg solves
 * converged 99.84 -> 99.72 percent at 0.5, the lifted foot nearer the hip
 * than the folded leg reaches; docs/foot.md, Since 0.25.1) */
#define SWING_LIFT_GROW 0.5f

/* A swing foot takes the pelvis drop back over the last DROP_BACK_SPAN
 * drops of its way down to its floor (smoothstep). The knee pops on the
 * terrain per 1000 foot-frames (walk, 12_01, jog, run/leap) were 7.74,
 * 5.62, 8.69, 10.00 without it; 6.64, 5.94, 1.82, 5.22 over 4 drops
 * linearly, 6.66, 5.94, 2.04, 5.45 over 3; smoothstep over 4: 6.65, 5.90,
 * 1.95, 5.50, with the swing legs off the animation less where the foot
 * is still more than two drops above its floor (docs/foot.md) */
#define DROP_BACK_SPAN 4.0f

/* A swing foot's raise over its animated height: the lift, and the drop
 * given back (its share nd of the drop beyond the resting height's rise
 * over the animation's, less what the lift already gives). */
CIK_INLINE vf swing_raise(vf nd, vf rise, vf drop, vf lift)
{
    const vf z = v_set1(0.0f);
    return v_fma(nd, v_max(v_sub(v_max(v_add(rise, drop), z), lift), z), lift);
}

/* The least turn (its sine: 1 degree) the ankle's limit must ask of a
 * planted foot for its heel to peel (place_b); the peel grows to the
 * full turn by twice that. */
#define PEEL_MIN 0.017452406f

/* The most a heel lift turns a foot: 40 degrees (cos, sin). */
#define LIFT_MAX_COS 0.76604444f
#define LIFT_MAX_SIN 0.64278761f

/* The target t (at v = t - hip, |v|^2 = d2 from the hip) on the lanes of
 * `far` brought in softly toward `lmax` from `d0`: d0 + s x / (1 + x),
 * x = (d - d0) / s, s = lmax - d0, which leaves d0 with slope 1 and never
 * reaches lmax (clamped where there is no span); the biped's and the
 * herd's soft reach. */
CIK_INLINE v3 soft_pull(vm far, v3 t, v3 hip, v3 v, vf d2, vf d0, vf lmax, vf reach)
{
    const vf one = v_set1(1.0f);
    vf d = v_sqrt(v_max(d2, v_set1(K_TINY)));
    vf span = v_sub(lmax, d0);
    vm has_span = v_gt(span, v_mul(reach, v_set1(1e-6f)));
    vf x = v_div(v_sub(d, d0), v_sel(has_span, span, one));
    vf ds = v_sel(has_span, v_fma(span, v_div(x, v_add(one, x)), d0), v_min(d, lmax));
    return v3_sel(far, v3_add(hip, v3_scale(v, v_div(ds, d))), t);
}

/* The point straight over t (its x and z) at distance sqrt(d2) from the
 * hip, below the hip, h2 being t's horizontal distance squared from the
 * hip (meaningful where h2 < d2): where a foot's shortened leg puts it
 * without sliding it (a held foot out of reach, a planted foot the knee's
 * rate holds up). */
CIK_INLINE v3 straight_over(v3 t, v3 hip, vf h2, vf d2)
{
    return v3_of(t.x, v_sub(hip.y, v_sqrt(v_max(v_sub(d2, h2), v_set1(0.0f)))), t.z);
}

/* The most the knee's rate moves a target along its line from the hip, in
 * reaches. */
#define KNEE_SHIFT 0.08f

/* The knee's rate (cik_foot_options.knee_speed): the target t of a foot on
 * the lanes of `free` moved along its line from the hip so that its knee's
 * bend, off the animation's by dev, differs from the last frame's dev
 * (FOOT_KDC, FOOT_KDS) by at most the frame's angle, no farther than lmax
 * and by at most KNEE_SHIFT of the reach; every foot's target dev kept,
 * which k_align then replaces with the solved leg's (the next frame starts
 * from that; the target's stays only where align is not run). Angles as
 * (cos, sin) pairs: no trigonometry. */
CIK_INLINE v3 knee_rate(const cik__foot_job *job, int i, vm free, vm upright, v3 t, v3 hip, vf lmax)
{
    const cik__foot_consts *K = job->k;
    float *const *F = job->f;
    const float *const *cF = (const float *const *)F;
    const vf z = v_set1(0.0f);
    vf sum, ab2, iab;
    knee_lengths(K, i, &sum, &ab2, &iab);
    vf lim = sld(job, SCRATCH_LIM, i), ca, sa, ct, st, cd, sd, cx, sx;
    bend_of(v_mul(lim, lim), sum, iab, &ca, &sa); /* the animation's */
    v3 v = v3_sub(t, hip);
    vf d2 = v3_dot(v, v);
    bend_of(d2, sum, iab, &ct, &st); /* the target's */
    angle_sub(ct, st, ca, sa, &cd, &sd);
    vf pc = ld(cF, FOOT_KDC, i), ps = ld(cF, FOOT_KDS, i);
    vm valid = v_gt(v_fma(pc, pc, v_mul(ps, ps)), v_set1(0.25f));
    angle_sub(cd, sd, pc, ps, &cx, &sx); /* the change of dev */
    vm over = w_and(w_and(valid, free), v_lt(cx, v_set1(job->knee_c)));
    if (w_any(over)) {
        /* the allowed dev, then the bend it gives */
        vf ks = v_sel(v_ge(sx, z), v_set1(job->knee_s), v_set1(-job->knee_s)), nc, ns, tc, ts;
        angle_add(pc, ps, v_set1(job->knee_c), ks, &nc, &ns);
        angle_add(ca, sa, nc, ns, &tc, &ts);
        /* beyond straight or fully folded: there */
        tc = v_sel(v_lt(ts, z), v_sel(v_gt(tc, z), v_set1(1.0f), v_set1(-1.0f)), tc);
        vf dn = v_min(v_sqrt(v_max(v_fma(ab2, tc, sum), z)), lmax);
        vf dc = v_sqrt(v_max(d2, v_set1(K_TINY)));
        /* by at most KNEE_SHIFT of the reach: a foot that lets go for a
         * frame and plants again is not flicked toward its hip; twice
         * that on a swing foot (weight 0), which the lift and the drop
         * given back can raise by more than that in a frame (a run's foot
         * coming down fast over ground above its floor) */
        vf cap = v_mul(kld(K, LEG_REACH, i),
                       v_sel(v_gt(ld(cF, FOOT_WEIGHT, i), z), v_set1(KNEE_SHIFT), v_set1(2.0f * KNEE_SHIFT)));
        dn = v_max(v_min(dn, v_add(dc, cap)), v_sub(dc, cap));
        v3 tn = v3_add(hip, v3_scale(v, v_div(dn, dc)));
        /* a shortened leg of an `upright` foot (planted: the ground's
         * place found) raises its target straight up, where that reaches
         * dn: it does not slide */
        vf h2 = v_fma(v.x, v.x, v_mul(v.z, v.z));
        vf dn2 = v_mul(dn, dn);
        vm rise = w_and(w_and(upright, v_lt(v.y, z)), w_and(v_lt(dn, dc), v_gt(dn2, h2)));
        tn = v3_sel(rise, straight_over(t, hip, h2, dn2), tn);
        /* a lengthened leg puts the foot lower and farther out: only where
         * it is off the ground (not planted) and stays clear of its
         * resting height, which is the ground under the animated foot,
         * not under the moved one (a swing foot brought up onto a step
         * must get there); by knee_clear on a swing foot (weight 0), by
         * nothing on one easing out, which has just left that ground
         * (with knee_clear its knee took its target's bend near the
         * ground: CMU 12_01 on the terrain at push-off, docs/foot.md,
         * Since 0.24.0) */
        const vf margin = v_sel(v_gt(ld(cF, FOOT_WEIGHT, i), z), z, v_set1(job->knee_clear));
        vm clear = w_and(v_gt(tn.y, v_add(sld(job, SCRATCH_REST, i), margin)),
                         w_not(v_gt(ld(cF, FOOT_PLANTED, i), z)));
        over = w_and(over, w_or(v_lt(dn, dc), clear));
        t = v3_sel(over, tn, t);
        v = v3_sub(t, hip);
        bend_of(v3_dot(v, v), sum, iab, &ct, &st);
        angle_sub(ct, st, ca, sa, &nc, &ns);
        cd = v_sel(over, nc, cd);
        sd = v_sel(over, ns, sd);
    }
    pstore(job, F[FOOT_KDC], i, cd);
    pstore(job, F[FOOT_KDS], i, sd);
    return t;
}

/* The heel lift's turn: by the angle (cos c, sin s) about the unit axis ax. */
CIK_INLINE vq lift_turn(v3 ax, vf c, vf s)
{
    vf ch = v_sqrt(v_mul(v_set1(0.5f), v_add(v_set1(1.0f), c)));
    vf sh = v_div(s, v_add(ch, ch));
    return q4(v_mul(ax.x, sh), v_mul(ax.y, sh), v_mul(ax.z, sh), ch);
}

/* How far the ankle's limit would turn foot i about the world axis n (a
 * unit vector) with the foot at the world orientation df and the ankle at
 * t (hip at hip): the shin where a two-bone solve in the animation's knee
 * plane puts it (the animated thigh and shin, world rotations w0 and w1,
 * turned so that the leg reaches t), the ankle's rotation under it
 * clamped by its limit; the turn's component about n as the sine and
 * cosine of its angle (positive: the limit turns the foot about +n). */
CIK_INLINE void ankle_excess(const cik__foot_consts *K, int i, v3 hip, v3 t, vq w0, vq w1, vq df, v3 n, vf *c, vf *s)
{
    const vf z = v_set1(0.0f), one = v_set1(1.0f), tiny = v_set1(K_TINY);
    v3 th = q_rotate(w0, kv3(K, LEG_THX, i)), sh = q_rotate(w1, kv3(K, LEG_SHX, i));
    vf a2 = v3_dot(th, th), b2 = v3_dot(sh, sh), a = v_sqrt(a2);
    v3 v = v3_sub(t, hip);
    vf d2 = v_max(v3_dot(v, v), tiny), d = v_sqrt(d2);
    v3 u = v3_scale(v, v_div(one, d));
    v3 p = v3_sub(th, v3_scale(u, v3_dot(th, u)));
    p = v3_scale(p, v_rsqrt(v_max(v3_dot(p, p), tiny)));
    vf ca = clamp11(v_div(v_sub(v_add(a2, d2), b2), v_max(v_mul(v_set1(2.0f), v_mul(a, d)), tiny)));
    vf sa = v_sqrt(v_max(v_fnma(ca, ca, one), z));
    v3 shn = v3_sub(v, v3_add(v3_scale(u, v_mul(a, ca)), v3_scale(p, v_mul(a, sa))));
    shn = v3_scale(shn, v_rsqrt(v_max(v3_dot(shn, shn), tiny)));
    vq w1n = q_mul(q_arc_any(v3_scale(sh, v_rsqrt(v_max(b2, tiny))), shn), w1);
    vq lq = q_norm(q_mul(q_conj(w1n), df));
    vq lc = apply_limit(K, LEG_LIMIT + 2 * LIMIT_COUNT, i, lq);
    /* the limit's turn lq -> lc in the ankle's frame (its vector part is 0
     * where the limit left lq alone, whatever the rounding of lq's norm),
     * in the world df * e * conj(df): its axis is df's rotation of e's */
    vq e = q_mul(q_conj(lq), lc);
    e = q_sel(v_lt(e.w, z), q_neg(e), e);
    vf k = v_rsqrt(v_max(q_dot(e, e), tiny));
    v3 ew = q_rotate(df, v3_of(e.x, e.y, e.z));
    *s = clamp11(v_mul(v_mul(v_set1(2.0f), v_mul(e.w, v3_dot(ew, n))), v_mul(k, k)));
    *c = v_sqrt(v_max(v_fnma(*s, *s, one), z));
}

/* Stage 3, second pass (after the per-character drop is in SCRATCH_DROP):
 * the roots; a target farther than the animation's extension (and than
 * soft of the reach) brought in softly toward (1 - margin) of the reach:
 * d0 + s x / (1 + x), x = (d - d0) / s, s = limit - d0, which leaves d0
 * with slope 1 and never reaches the limit; the start poses (the
 * animation, a rotation beyond its limit by more than the tolerance
 * clamped into it). */
static void k_place_b(const cik__foot_job *job, int begin, int end)
{
    float *const *F = job->f;
    const cik__foot_consts *K = job->k;
    const float *const *cF = (const float *const *)F;
    const cik_streams *bs = job->bs;
    const vf z = v_set1(0.0f), one = v_set1(1.0f), keep = v_set1(1.0f - job->margin), soft = v_set1(job->soft);
    const vf tol = v_set1(job->tol_cos);
    for (int i = begin; i < end; i += CIK_LANES) {
        vq r = q_norm(q_sld(job, SCRATCH_EQX, i));
        v3 pl = v3_sld(job, SCRATCH_EPX, i);
        pl.y = v_sub(pl.y, sld(job, SCRATCH_DROP, i));
        pstore(job, bs->root_position_x, i, pl.x);
        pstore(job, bs->root_position_y, i, pl.y);
        pstore(job, bs->root_position_z, i, pl.z);
        pstore(job, bs->root_rotation_x, i, r.x);
        pstore(job, bs->root_rotation_y, i, r.y);
        pstore(job, bs->root_rotation_z, i, r.z);
        pstore(job, bs->root_rotation_w, i, r.w);
        /* the target: the swing target (the animated ankle lowered with
         * the pelvis: the animation's angles; lifted by the ground's rise
         * above the animation's floor under it, so that the foot keeps the
         * animation's clearance over higher ground) blended into the
         * planted one by the weight, never below resting */
        vf w = ld(cF, FOOT_WEIGHT, i), drop = sld(job, SCRATCH_DROP, i);
        w = v_sel(v_gt(w, z), v_min(w, one), z);
        v3 ts = v3_ld(cF, FOOT_AAX, i);
        ts.y = v_sub(ts.y, drop);
        ts.x = v_add(ts.x, sld(job, SCRATCH_SHX, i));
        ts.z = v_add(ts.z, sld(job, SCRATCH_SHZ, i));
        if (job->swing_lift > 0.0f) {
            /* faded in as the animation brings the foot down through half
             * the leg's reach and half the lift's full height
             * (SWING_LIFT_SPAN, SWING_LIFT_GROW; FOOT_PREVY: this frame's
             * animated points over the floor, from the probe): a foot high
             * in the air needs none, and a run's swing foot kicked up behind and
             * lifted too came nearer the hip than its folded leg reaches
             * (2.3 percent of the run/leap's leg solves on the terrain did
             * not converge) */
            vf gmax = v_max(v_max(ld(cF, FOOT_CY, i), ld(cF, FOOT_CY + 1, i)), ld(cF, FOOT_CY + 2, i));
            vf clear = v_min(v_min(ld(cF, FOOT_PREVY, i), ld(cF, FOOT_PREVY + 1, i)), ld(cF, FOOT_PREVY + 2, i));
            const vf fl = sld(job, SCRATCH_EFLOOR, i);
            const vf above = v_max(v_sub(gmax, fl), z); /* the ground over the floor */
            vf near = near_floor(clear, v_fma(v_set1(SWING_LIFT_GROW), above,
                                              v_mul(kld(K, LEG_REACH, i), v_set1(SWING_LIFT_SPAN))));
            /* the drop given back as the foot comes down (DROP_BACK_SPAN):
             * lowered by the drop with the animation's angles, a landing
             * foot met its ground before the animation's did and stopped
             * there in one frame, its knee bending at the animation's
             * landing speed. Near its floor the foot keeps the animation's
             * clearance over its resting height on the ground under it
             * (SCRATCH_REST less the animated ankle's height over the
             * floor), so the drop is taken into the knee over the last of
             * the swing; only what the lift does not already give */
            vf lift = v_mul(near, above);
            vf rise = v_sub(sld(job, SCRATCH_REST, i), v_sub(ld(cF, FOOT_AAY, i), clear));
            vf nd = smooth01(near_floor(clear, v_mul(drop, v_set1(DROP_BACK_SPAN))));
            vf raise = swing_raise(nd, rise, drop, lift);
            if (job->ahead > 0.0f) {
                /* the ground ahead (swing_lookahead; none: -FLT_MAX, NaN
                 * not taken), less the floor's rise by then: the raise it
                 * will ask for beyond today's, the lift over it and the
                 * drop given back over a resting height that rises by the
                 * step up to it (the ground ahead above the plane of the
                 * toe's ground, less the floor's rise: the slope the foot
                 * is on raises its resting height as it goes). What it
                 * adds grows toward that goal by the share of a frame in
                 * the frames ahead (FOOT_AHINV), so that the foot is up
                 * as its toe gets there and its knee bends over those
                 * frames: in one, knee_speed could take back at most
                 * KNEE_SHIFT of the reach (a 10 cm step seen six frames
                 * ahead still turned the knee 5.9 degrees in that frame),
                 * and a foot just off the ground over ground below its
                 * floor, which takes none of the pelvis drop back there,
                 * took all of it back in the frame its ground rose by a
                 * step (the 12_01 walk: its knee bent 21 degrees in that
                 * frame). With the slope ahead too the run/leap's knees
                 * bent faster as they left the ground uphill
                 * (docs/foot.md, Since 0.19.0). */
                vf ga = v_sub(ld(cF, FOOT_CY + FOOT_AHEAD, i), ld(cF, FOOT_AHRISE, i));
                vf lift_a = v_mul(near, v_max(v_sub(ga, fl), z));
                const int toe = CIK_FOOT_TOE;
                /* (ny at least 0.1: a slope of at most 10, no division by 0) */
                vf ny = v_max(ld(cF, FOOT_CNY + toe, i), v_set1(0.1f));
                vf ex = v_sub(ld(cF, FOOT_PROBEX + FOOT_AHEAD, i), ld(cF, FOOT_PROBEX + toe, i));
                vf ez = v_sub(ld(cF, FOOT_PROBEZ + FOOT_AHEAD, i), ld(cF, FOOT_PROBEZ + toe, i));
                vf plane = v_sub(ld(cF, FOOT_CY + toe, i),
                                 v_div(v_fma(ld(cF, FOOT_CNX + toe, i), ex, v_mul(ld(cF, FOOT_CNZ + toe, i), ez)), ny));
                vf step = v_sub(v_sub(ld(cF, FOOT_CY + FOOT_AHEAD, i), plane), v_max(ld(cF, FOOT_AHRISE, i), z));
                vf rise_a = v_add(rise, v_sel(v_gt(step, z), step, z));
                vf raise_a = swing_raise(nd, rise_a, drop, lift_a);
                vf goal = v_sub(raise_a, raise);
                goal = v_sel(v_gt(goal, z), goal, z);
                vf prev = ld(cF, FOOT_AHLIFT, i);
                vf add = v_min(goal, v_fma(goal, ld(cF, FOOT_AHINV, i), v_max(prev, z)));
                pstore(job, F[FOOT_AHLIFT], i, add);
                raise = v_add(raise, add);
            }
            ts.y = v_fma(v_set1(job->swing_lift), raise, ts.y);
        }
        v3 t = v3_ld(cF, FOOT_TX, i);
        /* a locked foot is held where it is in x and z whatever its weight
         * (the weight eases its height only) */
        vf wxz = v_sel(v_gt(ld(cF, FOOT_HOLD, i), z), one, w);
        t = v3_of(v_fma(wxz, v_sub(t.x, ts.x), ts.x), v_fma(w, v_sub(t.y, ts.y), ts.y), v_fma(wxz, v_sub(t.z, ts.z), ts.z));
        t.y = v_max(t.y, sld(job, SCRATCH_REST, i));
        v3 hip = v3_add(pl, v3_sld(job, SCRATCH_HOX, i));
        v3 v = v3_sub(t, hip);
        vf d2 = v3_dot(v, v), reach = kld(K, LEG_REACH, i);
        /* the margin keeps the knee off straight, unless the animation's
         * own leg is straighter */
        vf lmax = v_max(v_mul(reach, keep), v_min(sld(job, SCRATCH_LIM, i), reach));
        vf d0 = v_min(v_max(sld(job, SCRATCH_LIM, i), v_mul(reach, soft)), lmax);
        vm far = v_gt(d2, v_mul(d0, d0));
        /* heel lift before the soft reach: a planted foot too far from the
         * hip turns about its toe tip (which stays on the ground) so that
         * the ankle comes up toward the hip, by at most LIFT_MAX */
        v3 pv = v3_add(t, v3_sld(job, SCRATCH_PVX, i)); /* the toe tip of the target's foot */
        /* the held knee's rate (held_knee_speed) on a planted foot at full
         * weight: where its knee would straighten, beyond the animation's,
         * faster than that from the last frame's bend, the heel lifts to
         * hold it (the lift's distance dl is the least allowed bend's; the
         * soft reach keeps d0); where it would bend faster (near), the
         * heel comes down to the most allowed bend's, by at most its
         * height over its ground less a millimetre. Also on a held heel or
         * ball, whose lift hands the lock to the toe (before 0.27 not: the
         * handovers moved the procedural walk's locks on terrain from 0.43
         * to 0.57 mm a frame, p99; since settling reports a pivot it lifts
         * off the ground unlocked, 0.11 to 0.21 mm, and that walk's knee
         * pops 2.77 to 2.14 per 1000) */
        vf dl = d0;
        vm farl = far, near = w_false();
        if (job->hold_on) {
            vf pc = ld(cF, FOOT_KDC, i), ps = ld(cF, FOOT_KDS, i);
            vm el = w_and(v_gt(v_fma(pc, pc, v_mul(ps, ps)), v_set1(0.25f)),
                          w_and(v_ge(w, one), v_gt(ld(cF, FOOT_PLANTED, i), z)));
            if (w_any(el)) {
                vf lim0 = sld(job, SCRATCH_LIM, i);
                vf ls, da2, ms, dm2; /* as in place_a (ts is the swing target here) */
                held_bends(job, i, v_mul(lim0, lim0), pc, ps, &da2, &ls, &dm2, &ms);
                vm eh = w_and(el, w_and(v_gt(ls, z), v_lt(da2, v_mul(d0, d0))));
                dl = v_sel(eh, v_sqrt(v_max(da2, z)), d0);
                farl = v_gt(d2, v_mul(dl, dl));
                near = w_and(w_and(el, w_not(farl)), w_and(v_gt(ms, z), v_lt(d2, dm2)));
                dl = v_sel(near, v_sqrt(v_max(dm2, z)), dl);
            }
        }
        vm on_toe = w_and(v_gt(w, z), v_lt(v_sub(pv.y, ld(cF, FOOT_CY + CIK_FOOT_TOE, i)), v_set1(job->lift_contact)));
        vm lift = w_and(w_or(farl, near), on_toe);
        /* a planted foot on its toe, held or not: its heel peels where
         * the ankle's limit asks for it, on top of any lift (below; a
         * peel only where no lift was asked for was a step: a foot a
         * rounding inside the lift's reach test peeled by degrees, one
         * outside it not). Before 0.27 not on a held heel or ball: once
         * the lift above could hand one to its toe tip, a foot that a
         * rounding handed over peeled and its twin in other units did
         * not (examples/units.c: ankles 3.6 mm apart) */
        vm peel = w_and(on_toe, v_gt(ld(cF, FOOT_PLANTED, i), z));
        near = w_and(near, on_toe);
        /* the last frame's heel lift (its sine; 0 none): a lifted heel
         * comes down at most lift_fade a frame, also where the rule no
         * longer lifts it, and a foot that is not planted lifts no more
         * than it did. A toe-locked jog foot released at push-off was
         * turned up to LIFT_MAX in its release frame (its leg too short for
         * the held toe) and not at all in the next, its toe off the
         * ground: the foot flicked 20 degrees and back */
        const vf last = ld(cF, FOOT_LIFT, i);
        vm turned = v_gt(last, z);
        vf lift_s = z;
        if (w_any(w_or(w_or(lift, turned), peel))) {
            v3 u = v3_sub(t, pv), h = v3_sub(hip, pv);
            vf r2 = v3_dot(u, u), r = v_sqrt(r2);
            u = v3_scale(u, v_rsqrt(v_max(r2, v_set1(K_TINY))));
            vf hu = v3_dot(h, u);
            v3 hv3 = v3_sub(h, v3_scale(u, hu));
            vf hv2 = v3_dot(hv3, hv3), hv = v_sqrt(hv2);
            v3 vv = v3_scale(hv3, v_rsqrt(v_max(hv2, v_set1(K_TINY))));
            vf rho = v_sqrt(v_fma(hu, hu, hv2)), irho = v_div(one, v_max(rho, v_set1(K_TINY)));
            vf kk = v_mul(v_mul(v_sub(v_add(r2, v3_dot(h, h)), v_mul(dl, dl)), v_div(v_set1(0.5f), v_max(r, v_set1(K_TINY)))), irho);
            vf c2 = v_min(kk, one), s2 = v_sqrt(v_max(v_fnma(c2, c2, one), z));
            vf ca = v_mul(hu, irho), sa = v_mul(hv, irho);
            vf cphi = v_fma(ca, c2, v_mul(sa, s2)), sphi = v_fnma(ca, s2, v_mul(sa, c2));
            vm cap = v_lt(cphi, v_set1(LIFT_MAX_COS));
            vf cphl = v_sel(cap, v_set1(LIFT_MAX_COS), cphi);
            vf sphl = v_sel(cap, v_set1(LIFT_MAX_SIN), sphi);
            vm okl = w_and(w_not(near), v_gt(sphl, z));
            vm okd = w_false();
            if (w_any(near)) {
                /* down: by at most the heel's height over its ground as
                 * seen from the toe tip, less a millimetre */
                vq dfq = q_ld(cF, FOOT_DFX, FOOT_DFY, FOOT_DFZ, FOOT_DFW, i);
                v3 th = v3_sub(q_rotate(dfq, leg_point(K, CIK_FOOT_HEEL, i)), v3_sld(job, SCRATCH_PVX, i));
                vf lth = v_sqrt(v_max(v3_dot(th, th), v_set1(K_TINY)));
                vf hh = v_sub(v_sub(v_add(pv.y, th.y), ld(cF, FOOT_CY + CIK_FOOT_HEEL, i)), v_set1(0.1f * job->knee_clear));
                vf sdn = v_min(v_max(v_div(hh, lth), z), v_set1(LIFT_MAX_SIN));
                vm capd = v_lt(sphi, v_neg(sdn));
                vf sphd = v_sel(capd, v_neg(sdn), sphi);
                vf cphd = v_sel(capd, v_sqrt(v_max(v_fnma(sdn, sdn, one), z)), cphi);
                okd = w_and(near, v_lt(sphd, z));
                cphl = v_sel(near, cphd, cphl);
                sphl = v_sel(near, sphd, sphl);
            }
            lift = w_and(lift, w_or(okl, okd));
            cphi = v_sel(lift, cphl, one);
            sphi = v_sel(lift, sphl, z);
            /* the lift's rate (above) */
            vf lc = v_sqrt(v_max(v_fnma(last, last, one), z));
            vf sf = v_fnma(lc, v_set1(job->lift_fade_s), v_mul(last, v_set1(job->lift_fade_c)));
            const vm loose = w_not(v_gt(ld(cF, FOOT_PLANTED, i), z));
            vm rate = w_and(w_and(turned, loose), v_gt(sf, sphi));
            sphi = v_sel(rate, sf, sphi);
            vm grow = w_and(loose, v_gt(sphi, v_max(last, z)));
            sphi = v_sel(grow, v_max(last, z), sphi);
            vm reset = w_or(rate, grow);
            cphi = v_sel(reset, v_sqrt(v_max(v_fnma(sphi, sphi, one), z)), cphi);
            /* within the ankle's limit, as far as a turn about the toe
             * tip can keep it: a lift that would turn the foot past it is
             * taken back by that much (the rest goes to the soft reach;
             * the limit turned the foot about the ankle instead, and the
             * toe the lift held slid by centimetres), and a planted foot
             * whose shin the pelvis bends past it lifts its heel by that
             * much (the limit sank its toe at a step's edge) */
            vm cand = w_or(w_and(lift, v_gt(sphi, z)), peel);
            if (w_any(cand)) {
                vq w0 = q_mul(q_norm(q_sld(job, SCRATCH_EQX, i)),
                              q_ld(cF, FOOT_POSE + 0, FOOT_POSE + 3, FOOT_POSE + 6, FOOT_POSE + 9, i));
                vq w1 = q_mul(w0, q_ld(cF, FOOT_POSE + 1, FOOT_POSE + 4, FOOT_POSE + 7, FOOT_POSE + 10, i));
                vq df = q_ld(cF, FOOT_DFX, FOOT_DFY, FOOT_DFZ, FOOT_DFW, i);
                v3 a2 = v3_add(pv, v3_scale(v3_add(v3_scale(u, cphi), v3_scale(vv, sphi)), r));
                v3 ax = v3_cross(u, vv);
                vq dfl = q_norm(q_mul(lift_turn(ax, cphi, sphi), df));
                vf ce, se, cn, sn;
                ankle_excess(K, i, hip, a2, w0, w1, dfl, ax, &ce, &se);
                /* a lift only taken back (on a foot that may peel, the
                 * peel added to it where the limit asks for more); a peel
                 * only up to LIFT_MAX and only past PEEL_MIN (the shin is
                 * estimated: a peel by its rounding handed a held heel to
                 * a toe still coming down), growing in full by twice that
                 * (no step: the same foot in other units, rounded
                 * otherwise, peels alike) */
                vf ramp = smooth01(v_sub(v_mul(se, v_set1(1.0f / PEEL_MIN)), one));
                se = v_sel(peel, v_sel(w_and(w_andnot(lift, near), v_lt(se, z)), se, v_mul(se, ramp)), v_min(se, z));
                ce = v_sqrt(v_max(v_fnma(se, se, one), z));
                angle_add(cphi, sphi, ce, se, &cn, &sn);
                vm neg = w_andnot(v_lt(sn, z), near), big = v_lt(cn, v_set1(LIFT_MAX_COS));
                cn = v_sel(neg, one, v_sel(big, v_set1(LIFT_MAX_COS), cn));
                sn = v_sel(neg, z, v_sel(big, v_set1(LIFT_MAX_SIN), sn));
                cphi = v_sel(cand, cn, cphi);
                sphi = v_sel(cand, sn, sphi);
                lift = w_or(lift, w_and(cand, v_gt(sphi, z)));
            }
            vm turn = w_and(v_gt(v_abs(sphi), z), w_and(v_gt(r, v_mul(reach, v_set1(1e-4f))),
                                                         v_gt(hv, v_mul(reach, v_set1(1e-4f)))));
            lift = w_and(lift, turn);
            lift_s = v_sel(turn, sphi, z);
            if (w_any(turn)) {
                v3 a2 = v3_add(pv, v3_scale(v3_add(v3_scale(u, cphi), v3_scale(vv, sphi)), r));
                vq ql = lift_turn(v3_cross(u, vv), cphi, sphi);
                vq df = q_ld(cF, FOOT_DFX, FOOT_DFY, FOOT_DFZ, FOOT_DFW, i);
                q_st(job, F, FOOT_DFX, FOOT_DFY, FOOT_DFZ, FOOT_DFW, i, q_sel(turn, q_norm(q_mul(ql, df)), df));
                t = v3_sel(turn, a2, t);
                /* a held foot lifted about its toe tip is held there from
                 * now on: the toe becomes the lock's pivot, anchored where
                 * it rests (the heel it turned away from rises with the
                 * lift, the toe stays) */
                vm held = w_and(lift, v_gt(ld(cF, FOOT_HOLD, i), z));
                if (w_any(held)) {
                    st_sel(job, F, FOOT_PIVOT, i, held, v_set1((float)CIK_FOOT_TOE));
                    st_sel(job, F, FOOT_ANCX, i, held, pv.x);
                    st_sel(job, F, FOOT_ANCZ, i, held, pv.z);
                }
                v = v3_sub(t, hip);
                d2 = v3_dot(v, v);
                far = v_gt(d2, v_mul(d0, d0));
            }
        }
        pstore(job, F[FOOT_LIFT], i, lift_s);
        if (w_any(far)) {
            v3 tp = soft_pull(far, t, hip, v, d2, d0, lmax, reach);
            /* a held foot beyond reach stays over its anchor: brought
             * up toward the hip, not in (where the hip is near enough
             * sideways); off its ground by more than a millimetre it
             * is not reported locked in this frame (held, not down) */
            vm held = w_and(far, v_gt(ld(cF, FOOT_HOLD, i), z));
            if (w_any(held)) {
                v3 vp = v3_sub(tp, hip);
                vf ds2 = v3_dot(vp, vp), h2 = v_fma(v.x, v.x, v_mul(v.z, v.z));
                vm over = w_and(held, v_lt(h2, ds2));
                tp = v3_sel(over, straight_over(t, hip, h2, ds2), tp);
                vm off = w_and(held, v_gt(v_sub(tp.y, t.y), v_set1(job->slide_depth)));
                st_sel(job, F, FOOT_LOCKED, i, off, z);
            }
            t = tp;
        }
        if (job->knee_on) {
            /* the knee's rate: on a foot not planted in full (swinging,
             * easing in or out) and on a planted foot not yet down on its
             * ground (landing: the rate held its target up in the last
             * frame); held up by more than slide_depth, a planted foot is
             * not down, nor reported locked */
            vm planted = v_gt(ld(cF, FOOT_PLANTED, i), z);
            vm landing = w_and(planted, w_not(v_gt(ld(cF, FOOT_DOWN, i), z)));
            v3 tk = knee_rate(job, i, w_or(v_lt(w, one), landing), planted, t, hip, lmax);
            v3 mv = v3_sub(tk, t);
            vm up = v_gt(v3_dot(mv, mv), v_set1(job->slide_depth * job->slide_depth));
            pstore(job, F[FOOT_DOWN], i, v_sel(w_andnot(planted, up), one, z));
            st_sel(job, F, FOOT_LOCKED, i, up, z);
            t = tk;
        }
        v3_st(job, F, FOOT_TX, i, t);
        pstore(job, bs->target_x, i, t.x);
        pstore(job, bs->target_y, i, t.y);
        pstore(job, bs->target_z, i, t.z);
        /* the start pose of hip and knee (the batch's chains: the ankle,
         * their effector, is turned by align) */
        for (int j = 0; j < 2; ++j) {
            vq q = q_ld(cF, FOOT_POSE + j, FOOT_POSE + 3 + j, FOOT_POSE + 6 + j, FOOT_POSE + 9 + j, i);
            vq c = apply_limit(K, LEG_LIMIT + LIMIT_COUNT * j, i, q);
            /* the clamp's turn: |dot| is cos of half of it */
            q = q_sel(v_lt(v_abs(q_dot(q, c)), tol), c, q);
            pstore(job, bs->rotation_x[j], i, q.x);
            pstore(job, bs->rotation_y[j], i, q.y);
            pstore(job, bs->rotation_z[j], i, q.z);
            pstore(job, bs->rotation_w[j], i, q.w);
        }
    }
}

/* Stage 5: the ankle turned to the desired foot orientation under the
 * solved shin, within its limit; the solved ankle, foot and points written
 * out. */
static void k_align(const cik__foot_job *job, int begin, int end)
{
    float *const *F = job->f;
    const cik__foot_consts *K = job->k;
    const float *const *cF = (const float *const *)F;
    const cik_streams *bs = job->bs;
    for (int i = begin; i < end; i += CIK_LANES) {
        vq r = q4(v_load(bs->root_rotation_x + i), v_load(bs->root_rotation_y + i),
                  v_load(bs->root_rotation_z + i), v_load(bs->root_rotation_w + i));
        v3 p = v3_of(v_load(bs->root_position_x + i), v_load(bs->root_position_y + i),
                   v_load(bs->root_position_z + i));
        vq q0 = q4(v_load(bs->rotation_x[0] + i), v_load(bs->rotation_y[0] + i), v_load(bs->rotation_z[0] + i),
                   v_load(bs->rotation_w[0] + i));
        vq q1 = q4(v_load(bs->rotation_x[1] + i), v_load(bs->rotation_y[1] + i), v_load(bs->rotation_z[1] + i),
                   v_load(bs->rotation_w[1] + i));
        vq w0 = q_mul(r, q0), w1 = q_mul(w0, q1);
        v3 a = v3_add(v3_add(v3_add(p, q_rotate(r, kv3(K, LEG_HIPX, i))), q_rotate(w0, kv3(K, LEG_THX, i))),
                       q_rotate(w1, kv3(K, LEG_SHX, i)));
        vq df = q_ld(cF, FOOT_DFX, FOOT_DFY, FOOT_DFZ, FOOT_DFW, i);
        vq q2 = apply_limit(K, LEG_LIMIT + 2 * LIMIT_COUNT, i, q_norm(q_mul(q_conj(w1), df)));
        {
            /* a held foot that the limit turned so that its pivot moved
             * (sideways, by more than a tenth of slide_depth) slips: the
             * next probe lets go of it */
            vm held = v_gt(ld(cF, FOOT_HOLD, i), v_set1(0.0f));
            vm slip = held;
            if (w_any(held)) {
                vf pv = ld(cF, FOOT_PIVOT, i);
                v3 pp = leg_pick(K, pv, i);
                v3 e = v3_sub(q_rotate(q_mul(w1, q2), pp), q_rotate(df, pp));
                vf lim = v_set1(0.1f * job->slide_depth);
                slip = w_and(held, v_gt(v_fma(e.x, e.x, v_mul(e.z, e.z)), v_mul(lim, lim)));
            }
            pstore(job, F[FOOT_SLIP], i, v_sel(slip, v_set1(1.0f), v_set1(0.0f)));
        }
        if (job->knee_on || job->hold_on) {
            /* the solved knee's bend off the animation's, for the next
             * frame's knee rates (knee_rate stored the target's: settling
             * raises a target after it, and a foot that lets go must start
             * from the knee it has) */
            vf sum, ab2, iab, ca, sa, cs, ss, cd, sd;
            knee_lengths(K, i, &sum, &ab2, &iab);
            v3 th = kv3(K, LEG_THX, i), sh = kv3(K, LEG_SHX, i);
            v3 la = v3_add(th, q_rotate(q_ld(cF, FOOT_POSE + 1, FOOT_POSE + 4, FOOT_POSE + 7, FOOT_POSE + 10, i), sh));
            v3 ls = v3_add(th, q_rotate(q1, sh));
            bend_of(v3_dot(la, la), sum, iab, &ca, &sa);
            bend_of(v3_dot(ls, ls), sum, iab, &cs, &ss);
            angle_sub(cs, ss, ca, sa, &cd, &sd);
            pstore(job, F[FOOT_KDC], i, cd);
            pstore(job, F[FOOT_KDS], i, sd);
        }
        q_st(job, F, FOOT_SAX, FOOT_SAY, FOOT_SAZ, FOOT_SAW, i, q2);
        vq w2 = q_norm(q_mul(w1, q2));
        v3_st(job, F, FOOT_AX, i, a);
        q_st(job, F, FOOT_FQX, FOOT_FQY, FOOT_FQZ, FOOT_FQW, i, w2);
        for (int k = 0; k < 3; ++k) {
            v3 pt = v3_add(a, q_rotate(w2, leg_point(K, k, i)));
            pstore(job, F[FOOT_PTX + k], i, pt.x);
            pstore(job, F[FOOT_PTY + k], i, pt.y);
            pstore(job, F[FOOT_PTZ + k], i, pt.z);
        }
    }
}

/* Stage 5, the settling check after align: a weighted foot with a point
 * more than 2.5 mm (settle_depth) below its ground (the ankle's limit kept
 * the sole from following a slope or a bend of the shin) has its target
 * raised by that much (a held foot: more than slide_depth, 1 mm), and a
 * held foot whose pivot the limit turned more than slide_depth in x and z
 * off where its target and desired orientation put it has its target
 * moved back by the share of it beyond slide_depth (all of it from twice
 * that), for one more solve and align of the block; returns through
 * SCRATCH_NEED whether any foot of the pass moved (1) or not (0), per
 * lane. */
static void k_settle(const cik__foot_job *job, int begin, int end)
{
    float *const *F = job->f;
    const float *const *cF = (const float *const *)F;
    const cik_streams *bs = job->bs;
    const cik__foot_consts *K = job->k;
    const vf z = v_set1(0.0f), eps = v_set1(job->settle_depth), slide2 = v_set1(job->slide_depth * job->slide_depth);
    for (int i = begin; i < end; i += CIK_LANES) {
        vf pen = v_set1(-1e30f);
        for (int k = 0; k < 3; ++k) pen = v_max(pen, v_sub(ld(cF, FOOT_CY + k, i), ld(cF, FOOT_PTY + k, i)));
        /* (a held foot: slide_depth) */
        vm held = v_gt(ld(cF, FOOT_HOLD, i), z);
        vm raise = w_and(v_gt(ld(cF, FOOT_WEIGHT, i), z), v_gt(pen, v_sel(held, v_set1(job->slide_depth), eps)));
        /* the held pivot's slide: where the solved foot has it against
         * where the target and the desired foot put it (no held foot in
         * the vector: none) */
        vf ex = z, ez = z;
        vm slid = w_false();
        if (w_any(held)) {
            vf pv = ld(cF, FOOT_PIVOT, i);
            v3 want = v3_add(v3_ld(cF, FOOT_TX, i), q_rotate(q_ld(cF, FOOT_DFX, FOOT_DFY, FOOT_DFZ, FOOT_DFW, i), leg_pick(K, pv, i)));
            ex = v_sub(want.x, pick3(pv, ld(cF, FOOT_PTX, i), ld(cF, FOOT_PTX + 1, i), ld(cF, FOOT_PTX + 2, i)));
            ez = v_sub(want.z, pick3(pv, ld(cF, FOOT_PTZ, i), ld(cF, FOOT_PTZ + 1, i), ld(cF, FOOT_PTZ + 2, i)));
            slid = w_and(held, v_gt(v_fma(ex, ex, v_mul(ez, ez)), slide2));
        }
        vm move = w_or(raise, slid);
        sst(job, SCRATCH_NEED, i, v_sel(move, v_set1(1.0f), z));
        /* a held foot whose raise puts its pivot more than slide_depth
         * above its ground is not reported locked in this frame: the
         * pivot is not on the ground (the limit turning the toe down
         * under a crouch, tests/test_foot.c: a held heel rose 2.9 mm in
         * the frame before its lock let go, reported locked) */
        vm lifted = w_and(raise, held);
        if (w_any(lifted)) {
            vf pv = ld(cF, FOOT_PIVOT, i);
            vf clear = v_sub(pick3(pv, ld(cF, FOOT_PTY, i), ld(cF, FOOT_PTY + 1, i), ld(cF, FOOT_PTY + 2, i)),
                             pick3(pv, ld(cF, FOOT_CY, i), ld(cF, FOOT_CY + 1, i), ld(cF, FOOT_CY + 2, i)));
            lifted = w_and(lifted, v_gt(v_add(clear, pen), v_set1(job->slide_depth)));
            st_sel(job, F, FOOT_LOCKED, i, lifted, z);
        }
        if (!w_any(move)) continue;
        vf ty = v_sel(raise, v_add(ld(cF, FOOT_TY, i), pen), ld(cF, FOOT_TY, i));
        /* the slide moved back by the share of it beyond slide_depth, up
         * to all of it at twice that: no step where a slide crosses
         * slide_depth (all of it or nothing, a rounding decided a 1 mm
         * move: examples/units.c's crowds in centimetres and in metres
         * parted their ankles by 1 mm) */
        vf en = v_sqrt(v_fma(ex, ex, v_mul(ez, ez)));
        vf back = v_sel(slid, v_min(v_sub(v_div(en, v_set1(job->slide_depth)), v_set1(1.0f)), v_set1(1.0f)), z);
        vf tx = v_fma(back, ex, ld(cF, FOOT_TX, i));
        vf tz = v_fma(back, ez, ld(cF, FOOT_TZ, i));
        pstore(job, F[FOOT_TX], i, tx);
        pstore(job, F[FOOT_TY], i, ty);
        pstore(job, F[FOOT_TZ], i, tz);
        pstore(job, bs->target_x, i, tx);
        pstore(job, bs->target_y, i, ty);
        pstore(job, bs->target_z, i, tz);
    }
}

#include "herd_kernel.h"

const cik__foot_kernel CIK_FOOT_SYMBOL = {CIK_LANES, k_probe, k_ground_cells, k_ground, k_place_a, k_place_b, k_align,
                                          k_settle, k_herd_probe, k_herd_place, k_herd_output};
