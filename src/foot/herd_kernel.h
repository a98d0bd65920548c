/*
 * The herd's per-foot passes (herd.c, docs/foot.md "Herds"), written once
 * against the vector layer and compiled per instruction set with the foot
 * kernels (foot_kernel.h includes this file before its table). A lane is a
 * foot; every leg runs as four segments (a shorter leg's last offsets are
 * zero, its last rotations the identity, its last limits none), so that
 * the legs of one character, whatever their shapes, share vectors. The
 * per-character body (the plane fit, the tilt, the springs) is herd.c's
 * scalar code between the probe and the place passes.
 */

CIK_INLINE vq h_rot(const float *const *F, int k, int s, int i)
{
    return q_ld(F, k + s, k + CIK__HERD_SEGMENTS + s, k + 2 * CIK__HERD_SEGMENTS + s, k + 3 * CIK__HERD_SEGMENTS + s, i);
}
/* Every store into the herd's streams: with level of detail in the pass
 * (job->live set) a foot whose character is off keeps the memory's bits. */
CIK_INLINE void h_st(const cik__herd_job *job, float *const *F, int k, int i, vf v)
{
    if (job->live) v = v_sel(v_gt(v_load(job->live + i), v_set1(0.0f)), v, v_load(F[k] + i));
    v_store(F[k] + i, v);
}
CIK_INLINE void h_st3(const cik__herd_job *job, float *const *F, int k, int i, v3 a)
{
    h_st(job, F, k, i, a.x);
    h_st(job, F, k + 1, i, a.y);
    h_st(job, F, k + 2, i, a.z);
}
CIK_INLINE vf h_smooth01(vf x)
{
    x = v_max(v_min(x, v_set1(1.0f)), v_set1(0.0f));
    return v_mul(v_mul(x, x), v_fnma(v_set1(2.0f), x, v_set1(3.0f)));
}

/* Whether unit rotation r is within its joint's limit widened by the
 * tolerance, in twist and in swing (the animation's rotation is then kept
 * as it is). With s = r.xyz . axis and tn = |(s, r.w)| (r.w >= 0) the
 * twist's half angle has sine s / tn and the swing's quaternion w = tn, so
 * the widened bounds are sines and cosines of half angles by the angle
 * sums: sin((min - tol) / 2), sin((max + tol) / 2), cos((swing_max + tol)
 * / 2); a bound whose half angle passes a quarter turn bounds nothing. */
CIK_INLINE vm h_within(const cik__herd_job *job, const float *const *F, int base, int i, vq r)
{
    const vf z = v_set1(0.0f), ct = v_set1(job->tol_c), st = v_set1(job->tol_s);
    vm none = v_eq(ld(F, base + LIMIT_TYPE, i), v_set1((float)CIK_LIMIT_NONE));
    vm neg = v_lt(r.w, z);
    r = q_sel(neg, q_neg(r), r);
    v3 axis = v3_ld(F, base + LIMIT_AX, i);
    vf s = v3_dot(v3_of(r.x, r.y, r.z), axis);
    vf tn = v_sqrt(v_fma(s, s, v_mul(r.w, r.w)));
    vf smin = ld(F, base + LIMIT_SMIN, i), cmin = ld(F, base + LIMIT_CMIN, i);
    vf smax = ld(F, base + LIMIT_SMAX, i), cmax = ld(F, base + LIMIT_CMAX, i);
    vf lo = v_sel(v_ge(v_fma(cmin, ct, v_mul(smin, st)), z), v_fnma(cmin, st, v_mul(smin, ct)), v_set1(-2.0f));
    vf hi = v_sel(v_ge(v_fnma(smax, st, v_mul(cmax, ct)), z), v_fma(cmax, st, v_mul(smax, ct)), v_set1(2.0f));
    vf sw = v_fnma(ld(F, base + LIMIT_SSWING, i), st, v_mul(ld(F, base + LIMIT_CSWING, i), ct));
    vm in = w_and(v_ge(tn, sw), w_and(v_ge(s, v_mul(lo, tn)), v_le(s, v_mul(hi, tn))));
    return w_or(none, in);
}

/* The limit clamp (vec_math.h's limit_clamp) of the prepared limit at
 * F[base + LIMIT_*]. */
CIK_INLINE vq h_limit(const float *const *F, int base, int i, vq q)
{
    vf type = ld(F, base + LIMIT_TYPE, i);
    vm hinge = v_eq(type, v_set1((float)CIK_LIMIT_HINGE));
    vm swing_twist = v_eq(type, v_set1((float)CIK_LIMIT_SWING_TWIST));
    lane_limit l = {v3_ld(F, base + LIMIT_AX, i),
                    ld(F, base + LIMIT_SMIN, i), ld(F, base + LIMIT_CMIN, i),
                    ld(F, base + LIMIT_SMAX, i), ld(F, base + LIMIT_CMAX, i),
                    ld(F, base + LIMIT_SSWING, i), ld(F, base + LIMIT_CSWING, i)};
    return limit_clamp(hinge, swing_twist, &l, q);
}

/* Forward kinematics of the leg from the root (p, q) with rotations from
 * F[rot ...] (HF_POSE: normalised; HF_SOLVED: as they are): the hip and
 * the foot point. */
CIK_INLINE v3 h_fk(const float *const *F, int rot, int i, v3 p, vq q, v3 *hip)
{
    v3 x = v3_add(p, q_rotate(q, v3_ld(F, HF_HIP, i)));
    *hip = x;
    for (int s = 0; s < CIK__HERD_SEGMENTS; ++s) {
        vq r = h_rot(F, rot, s, i);
        if (rot == HF_POSE) {
            r = q_norm(r);
            /* past the leg's last joint the pose stream is the caller's,
             * not the leg's (herd.h): a NaN left there would reach the
             * foot through the zero offset, so the identity stands in */
            if (s >= 2) {
                const vq id = {v_set1(0.0f), v_set1(0.0f), v_set1(0.0f), v_set1(1.0f)};
                r = q_sel(v_lt(v_set1((float)s), ld(F, HF_NSEG, i)), r, id);
            }
        }
        q = q_mul(q, r);
        x = v3_add(x, q_rotate(q, v3_ld(F, HF_SEG + 3 * s, i)));
    }
    return x;
}

/* Stage 1: the animated foot and hip; the contact from the foot point's
 * speed (the biped's rules for one point: planted below plant speed,
 * released above release speed after the shortest contact, the weight
 * eased; on a foot's first frame, planted when within first_plant of its
 * floor); the lock (the anchor held while planted, released when the foot
 * lifts, when the animation drifts lock_radius away or when the anchor is
 * beyond the animated hip's reach, into a blend back over unlock_time);
 * the probe under the planned foot. */
static void k_herd_probe(const cik__herd_job *job, int begin, int end)
{
    float *const *F = job->f;
    const float *const *cF = (const float *const *)F;
    const vf z = v_set1(0.0f), one = v_set1(1.0f), never = v_set1(1e30f), dt = v_set1(job->dt);
    for (int i = begin; i < end; i += CIK_LANES) {
        vq rq = q_norm(q_ld(cF, HF_RP + 3, HF_RP + 4, HF_RP + 5, HF_RP + 6, i));
        v3 hip, foot = h_fk(cF, HF_POSE, i, v3_ld(cF, HF_RP, i), rq, &hip);
        h_st3(job, F, HF_AFX, i, foot);
        h_st3(job, F, HF_HIPX, i, hip);
        vm cold = job->primed ? v_gt(ld(cF, HF_COLD, i), z) : v_ge(one, z);
        h_st(job, F, HF_COLD, i, z);
        v3 prev = v3_ld(cF, HF_PREVX, i);
        v3 d = v3_sub(foot, prev);
        vf moved2 = v3_dot(d, d);
        moved2 = v_sel(w_andnot(v_lt(moved2, never), cold), moved2, never); /* NaN or cold: as if fast */
        h_st3(job, F, HF_PREVX, i, foot);
        vm was = v_gt(ld(cF, HF_PLANTED, i), z);
        vf age = v_add(ld(cF, HF_CTIME, i), dt);
        vm planted, plant_event;
        if (job->contacts == CIK_FOOT_CONTACTS_ANIMATION) {
            vm first = v_lt(foot.y, v_add(ld(cF, HF_FLOOR, i), v_set1(job->first_plant)));
            vm slow = w_or(w_and(cold, first), w_andnot(v_lt(moved2, v_set1(job->plant2)), cold));
            vm fast = v_gt(moved2, v_set1(job->release2));
            plant_event = w_andnot(slow, was);
            vm release = w_and(w_and(was, fast), v_ge(age, v_set1(job->min_contact)));
            planted = w_or(plant_event, w_andnot(was, release));
            age = v_sel(w_or(plant_event, release), z, age);
            /* planted by its height alone: the next frame may release it */
            age = v_sel(w_and(cold, plant_event), v_set1(job->min_contact), age);
            vf ease = ld(cF, HF_EASE, i);
            ease = v_sel(v_lt(v_abs(ease), v_set1(2.0f)), ease, z);
            ease = v_sel(planted, v_min(v_add(ease, v_set1(job->ease_in)), one),
                         v_max(v_sub(ease, v_set1(job->ease_out)), z));
            ease = v_sel(cold, v_sel(planted, one, z), ease);
            h_st(job, F, HF_EASE, i, ease);
            h_st(job, F, HF_WEIGHT, i, h_smooth01(ease));
        } else {
            planted = v_ge(ld(cF, HF_WEIGHT, i), v_set1(0.999f));
            plant_event = w_andnot(planted, was);
            age = v_sel(w_or(plant_event, w_andnot(was, planted)), z, age);
        }
        h_st(job, F, HF_PLANTED, i, v_sel(planted, one, z));
        h_st(job, F, HF_CTIME, i, age);
        /* the release blend fading out (a non-finite one dropped) */
        vf bt = v_add(ld(cF, HF_BTIME, i), dt);
        vf blend = job->unlock_time > 0.0f ? v_sub(one, h_smooth01(v_div(bt, v_set1(job->unlock_time)))) : z;
        vf bx = ld(cF, HF_BOFX, i), bz = ld(cF, HF_BOFZ, i);
        /* farther than a leg could hold a foot (the lock radius and twice
         * the reach: a teleport, a frame of absurd input): dropped, as a
         * non-finite offset (foot_kernel.h's rule) */
        const vf far_off = v_fma(v_set1(2.0f), ld(cF, HF_REACH, i), v_sqrt(v_set1(job->radius2)));
        const vf far2 = v_mul(far_off, far_off);
        blend = v_sel(v_ge(far2, v_fma(bx, bx, v_mul(bz, bz))), blend, z);
        vf px = v_fma(blend, bx, foot.x), pz = v_fma(blend, bz, foot.z);
        vf ax = ld(cF, HF_ANCX, i), az = ld(cF, HF_ANCZ, i);
        vm locked = w_andnot(v_gt(ld(cF, HF_LOCKED, i), z), cold);
        locked = w_and(locked, w_and(v_lt(v_abs(ax), never), v_lt(v_abs(az), never)));
        vf dx = v_sub(ax, foot.x), dz = v_sub(az, foot.z);
        v3 v = v3_sub(v3_of(ax, foot.y, az), hip);
        vf reach = v_mul(ld(cF, HF_REACH, i), v_set1(1.0f - job->margin));
        vm gone = w_or(w_not(planted), w_or(v_gt(v_fma(dx, dx, v_mul(dz, dz)), v_set1(job->radius2)),
                                            v_gt(v3_dot(v, v), v_mul(reach, reach))));
        if (!job->lock) gone = v_ge(one, z);
        vm release = w_and(locked, gone);
        /* an offset beyond far_off is dropped, not blended out */
        vm jump = w_not(v_ge(far2, v_fma(dx, dx, v_mul(dz, dz))));
        h_st(job, F, HF_BOFX, i, v_sel(release, v_sel(jump, z, dx), bx));
        h_st(job, F, HF_BOFZ, i, v_sel(release, v_sel(jump, z, dz), bz));
        bt = v_sel(release, z, bt);
        vm hold = w_andnot(locked, w_and(release, jump)); /* a dropped offset: the animation's now */
        px = v_sel(hold, ax, px);
        pz = v_sel(hold, az, pz);
        vm lock_now = job->lock ? w_andnot(planted, locked) : w_false();
        h_st(job, F, HF_ANCX, i, v_sel(lock_now, px, ax));
        h_st(job, F, HF_ANCZ, i, v_sel(lock_now, pz, az));
        h_st(job, F, HF_BTIME, i, v_sel(cold, never, bt));
        h_st(job, F, HF_BLEND, i, v_sel(w_or(release, cold), v_sel(cold, z, one), blend));
        /* what the lock held back: the animation's lift at the last frame
         * it held the foot (this frame's lift is the animation's again) */
        vf held = v_max(v_sub(prev.y, ld(cF, HF_FLOOR, i)), z);
        h_st(job, F, HF_BLIFT, i, v_sel(release, held, v_sel(cold, z, ld(cF, HF_BLIFT, i))));
        h_st(job, F, HF_LOCKED, i, v_sel(w_or(w_andnot(locked, release), lock_now), one, z));
        h_st(job, F, HF_PROBEX, i, px);
        h_st(job, F, HF_PROBEZ, i, pz);
    }
}

/* Stage 3 after the body (HF_SRP, the solved root: herd.c): the target
 * (swing: the animated foot moved up or down with its hip;
 * planted: at the probe, as high above the ground as the animation has it
 * above its floor; blended by the weight, a locked foot held in x and z;
 * never below the ground), brought in softly where it is beyond the
 * animation's extension and soft of the reach (foot.h's rule), and the
 * start pose (the animation, a rotation beyond its limit by more than the
 * tolerance clamped), which herd.c copies into the batches. */
static void k_herd_place(const cik__herd_job *job, int begin, int end)
{
    float *const *F = job->f;
    const float *const *cF = (const float *const *)F;
    const vf z = v_set1(0.0f), one = v_set1(1.0f);
    for (int i = begin; i < end; i += CIK_LANES) {
        vf w = ld(cF, HF_WEIGHT, i);
        w = v_sel(v_gt(w, z), v_min(w, one), z);
        v3 anim = v3_ld(cF, HF_AFX, i), ahip = v3_ld(cF, HF_HIPX, i);
        v3 rp = v3_ld(cF, HF_SRP, i);
        vq rq = q_ld(cF, HF_SRP + 3, HF_SRP + 4, HF_SRP + 5, HF_SRP + 6, i);
        v3 hip = v3_add(rp, q_rotate(rq, v3_ld(cF, HF_HIP, i)));
        /* the swing foot moves up or down with its hip, not with the body's
         * turn: a hoof 1.3 m below the hips would swing 30 to 40 cm along
         * the ground at 18 degrees of pitch, below the ground probed under
         * the animated foot, and jump back at touchdown */
        v3 ts = v3_of(anim.x, v_add(anim.y, v_sub(hip.y, ahip.y)), anim.z);
        vf g = ld(cF, HF_CY, i);
        vf clear = v_max(v_sub(anim.y, ld(cF, HF_FLOOR, i)), z);
        /* a locked foot stays on the ground however the animation lifts it
         * (the lock holds the contact); released, the lift the lock held
         * back fades over the release blend */
        vm locked = v_gt(ld(cF, HF_LOCKED, i), z);
        vf lifted = v_sel(locked, z, v_max(v_fnma(ld(cF, HF_BLEND, i), ld(cF, HF_BLIFT, i), clear), z));
        vf tp = v_add(g, lifted);
        /* near the ground the swing foot comes to its own ground: its
         * height blends from the hip-carried one toward the animation's
         * clearance over the ground under it as the animation brings it
         * down through a tenth of the leg's reach, so that at touchdown it
         * is where the planted target is (no drop while it locks) */
        vf near = near_floor(clear, v_mul(ld(cF, HF_REACH, i), v_set1(0.1f)));
        ts.y = v_fma(near, v_sub(tp, ts.y), ts.y);
        vf wxz = v_sel(locked, one, w);
        v3 t = v3_of(v_fma(wxz, v_sub(ld(cF, HF_PROBEX, i), ts.x), ts.x), v_fma(w, v_sub(tp, ts.y), ts.y),
                     v_fma(wxz, v_sub(ld(cF, HF_PROBEZ, i), ts.z), ts.z));
        t.y = v_max(t.y, g);
        v3 v = v3_sub(t, hip);
        vf d2 = v3_dot(v, v), reach = ld(cF, HF_REACH, i);
        v3 e = v3_sub(anim, ahip);
        vf ext = v_sqrt(v3_dot(e, e));
        vf lmax = v_max(v_mul(reach, v_set1(1.0f - job->margin)), v_min(ext, reach));
        vf d0 = v_min(v_max(ext, v_mul(reach, v_set1(job->soft))), lmax);
        vm far = v_gt(d2, v_mul(d0, d0));
        if (w_any(far)) t = soft_pull(far, t, hip, v, d2, d0, lmax, reach);
        h_st3(job, F, HF_TX, i, t);
        vq r[CIK__HERD_SEGMENTS];
        for (int s = 0; s < CIK__HERD_SEGMENTS; ++s) {
            r[s] = q_norm(h_rot(cF, HF_POSE, s, i));
            vm in = h_within(job, cF, HF_LIM + LIMIT_COUNT * s, i, r[s]);
            if (!w_all(in)) r[s] = q_sel(in, r[s], h_limit(cF, HF_LIM + LIMIT_COUNT * s, i, r[s]));
        }
        for (int s = 0; s < CIK__HERD_SEGMENTS; ++s) {
            h_st(job, F, HF_START + s, i, r[s].x);
            h_st(job, F, HF_START + CIK__HERD_SEGMENTS + s, i, r[s].y);
            h_st(job, F, HF_START + 2 * CIK__HERD_SEGMENTS + s, i, r[s].z);
            h_st(job, F, HF_START + 3 * CIK__HERD_SEGMENTS + s, i, r[s].w);
        }
    }
}

/* Stage 4 after the solves (the solved rotations copied into HF_SOLVED by
 * herd.c): the solved foot point. */
static void k_herd_output(const cik__herd_job *job, int begin, int end)
{
    float *const *F = job->f;
    const float *const *cF = (const float *const *)F;
    for (int i = begin; i < end; i += CIK_LANES) {
        v3 hip, foot = h_fk(cF, HF_SOLVED, i, v3_ld(cF, HF_SRP, i),
                            q_ld(cF, HF_SRP + 3, HF_SRP + 4, HF_SRP + 5, HF_SRP + 6, i), &hip);
        h_st3(job, F, HF_FX, i, foot);
    }
}
