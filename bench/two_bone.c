/*
 * ozz-animation's IKTwoBoneJob in C (see two_bone.h).
 *
 * Followed: src/animation/runtime/ik_two_bone_job.cc (guillaumeblanc/ozz-animation,
 * as of commit 3d3af48): IKConstantSetup (the start and mid joints'
 * inverses; bone vectors and squared lengths in start and mid joint spaces),
 * SoftenTarget (past soften x chain length, the target is pulled in along
 * 1 - 3^4 / (alpha + 3)^4; reached = within the softened reach and farther
 * than |d1 - d2|), ComputeMidJoint (law of cosines for the corrected and the
 * initial angle at the mid joint, the initial one negative when the mid-end
 * bone is bent against mid_axis; the difference about mid_axis),
 * ComputeStartJoint (the shortest arc from the corrected start-end vector to
 * the start-target vector, then the rotation about the start-target axis
 * that brings the chain's plane onto the plane of the target and the pole,
 * its direction from the sign of dot(plane normal, pole); an optional twist
 * about that axis) and WeightOutput (w made positive, nlerp with identity
 * below weight 1). SimdQuaternion::FromVectors, FromAxisAngle and
 * FromAxisCosAngle as in ozz/base/maths/simd_quaternion.h.
 *
 * Where we had to choose:
 * - Scalar float math in place of ozz's SIMD layer (ozz ships a scalar
 *   `ref` backend too); its estimates (RcpEst, RSqrtEstNR) are exact
 *   divisions and square roots here.
 * - Joint transforms as a quaternion and a position; ozz's Invert of a 4x4
 *   matrix becomes the conjugate (the chains have no scale).
 * - The leg (two_bone_solve_leg): crowdik's knee hinge axis in the knee's
 *   frame, negated, as mid_axis: ozz counts the mid angle positive when the
 *   bone bends to the side of cross(start-mid, mid_axis), and a crowdik knee
 *   bends backwards for positive angles about +X. The pole is the
 *   character's forward direction, where a knee points. Soften 1: ozz's
 *   default, so that a reachable target is reached exactly (its sample uses
 *   0.97, which stops short of targets near full extension). No joint
 *   limits: the job has none.
 */
#include "two_bone.h"

#include "peer_chain.h"

static cik_vec3 inv_point(cik_quat q, cik_vec3 p, cik_vec3 x) { return quat_rotate(quat_conj(q), vec3_sub(x, p)); }
static cik_vec3 inv_vector(cik_quat q, cik_vec3 v) { return quat_rotate(quat_conj(q), v); }

static cik_quat from_axis_angle(cik_vec3 axis, float angle)
{
    float s = sinf(0.5f * angle);
    return quat(axis.x * s, axis.y * s, axis.z * s, cosf(0.5f * angle));
}

static cik_quat from_axis_cos_angle(cik_vec3 axis, float cos_angle)
{
    float half_cos2 = (1.0f + cos_angle) * 0.5f;
    float half_sin = sqrtf(1.0f - half_cos2);
    return quat(axis.x * half_sin, axis.y * half_sin, axis.z * half_sin, sqrtf(half_cos2));
}

/* The shortest arc from `from` to `to` (neither need be unit). */
static cik_quat from_vectors(cik_vec3 from, cik_vec3 to)
{
    float norm_u_norm_v = sqrtf(vec3_dot(from, from) * vec3_dot(to, to));
    float real_part = norm_u_norm_v + vec3_dot(from, to);
    cik_quat q;
    if (real_part < 1e-6f * norm_u_norm_v) {
        /* opposite vectors: half a turn about any orthogonal axis */
        q = fabsf(from.x) > fabsf(from.z) ? quat(-from.y, from.x, 0.0f, 0.0f) : quat(0.0f, -from.z, from.y, 0.0f);
    } else {
        cik_vec3 c = vec3_cross(from, to);
        q = quat(c.x, c.y, c.z, real_part);
    }
    return quat_normalize(q);
}

int two_bone_run(const two_bone_job *job, cik_quat *start_correction, cik_quat *mid_correction)
{
    if (job->weight <= 0.0f) {
        *start_correction = *mid_correction = quat_identity();
        return 0;
    }
    const cik_quat qs = job->start_rotation, qm = job->mid_rotation;
    const cik_vec3 ps = job->start_position, pm = job->mid_position, pe = job->end_position;

    /* IKConstantSetup */
    cik_vec3 start_ms = inv_point(qm, pm, ps), end_ms = inv_point(qm, pm, pe);
    cik_vec3 mid_ss = inv_point(qs, ps, pm), end_ss = inv_point(qs, ps, pe);
    cik_vec3 start_mid_ms = vec3_scale(start_ms, -1.0f), mid_end_ms = end_ms, start_mid_ss = mid_ss;
    cik_vec3 mid_end_ss = vec3_sub(end_ss, mid_ss);
    float start_mid_ss_len2 = vec3_dot(start_mid_ss, start_mid_ss);
    float mid_end_ss_len2 = vec3_dot(mid_end_ss, mid_end_ss);
    float start_end_ss_len2 = vec3_dot(end_ss, end_ss);

    /* SoftenTarget */
    cik_vec3 start_target_original_ss = inv_point(qs, ps, job->target);
    float start_target_original_ss_len2 = vec3_dot(start_target_original_ss, start_target_original_ss);
    float start_mid_ss_len = sqrtf(start_mid_ss_len2), mid_end_ss_len = sqrtf(mid_end_ss_len2);
    float start_target_original_ss_len = sqrtf(start_target_original_ss_len2);
    float bone_len_diff_abs = fabsf(start_mid_ss_len - mid_end_ss_len);
    float bones_chain_len = start_mid_ss_len + mid_end_ss_len;
    float da = bones_chain_len * clampf(job->soften, 0.0f, 1.0f);
    float ds = bones_chain_len - da;
    int beyond_da = start_target_original_ss_len > da, not_zero = start_target_original_ss_len > 0.0f;
    int beyond_diff = start_target_original_ss_len > bone_len_diff_abs, ds_positive = ds > 0.0f;
    cik_vec3 start_target_ss = start_target_original_ss;
    float start_target_ss_len2 = start_target_original_ss_len2;
    if (beyond_da && not_zero && ds_positive) {
        float alpha = (start_target_original_ss_len - da) / ds;
        float op = alpha + 3.0f, op4 = op * op * op * op;
        float ratio = 81.0f / op4;
        float start_target_ss_len = da + ds - ds * ratio;
        start_target_ss_len2 = start_target_ss_len * start_target_ss_len;
        start_target_ss = vec3_scale(start_target_original_ss, start_target_ss_len / start_target_original_ss_len);
    }
    int reached = !beyond_da && beyond_diff;

    /* ComputeMidJoint */
    float half_rlen = 0.5f / sqrtf(start_mid_ss_len2 * mid_end_ss_len2);
    float sum_len2 = start_mid_ss_len2 + mid_end_ss_len2;
    float cos_corrected = clampf((sum_len2 - start_target_ss_len2) * half_rlen, -1.0f, 1.0f);
    float cos_initial = clampf((sum_len2 - start_end_ss_len2) * half_rlen, -1.0f, 1.0f);
    float mid_corrected_angle = acosf(cos_corrected);
    cik_vec3 bent_side_ref = vec3_cross(start_mid_ms, job->mid_axis);
    float mid_initial_angle = acosf(cos_initial);
    if (vec3_dot(bent_side_ref, mid_end_ms) < 0.0f) mid_initial_angle = -mid_initial_angle;
    cik_quat mid_rot_ms = from_axis_angle(job->mid_axis, mid_corrected_angle - mid_initial_angle);

    /* ComputeStartJoint */
    cik_vec3 pole_ss = inv_vector(qs, job->pole_vector);
    cik_vec3 mid_end_ss_final = inv_vector(qs, quat_rotate(qm, quat_rotate(mid_rot_ms, mid_end_ms)));
    cik_vec3 start_end_ss_final = vec3_add(start_mid_ss, mid_end_ss_final);
    cik_quat end_to_target_rot_ss = from_vectors(start_end_ss_final, start_target_ss);
    cik_quat start_rot_ss = end_to_target_rot_ss;
    if (start_target_ss_len2 > 0.0f) {
        cik_vec3 ref_plane_normal_ss = vec3_cross(start_target_ss, pole_ss);
        float ref_plane_normal_ss_len2 = vec3_dot(ref_plane_normal_ss, ref_plane_normal_ss);
        cik_vec3 mid_axis_ss = inv_vector(qs, quat_rotate(qm, job->mid_axis));
        cik_vec3 joint_plane_normal_ss = quat_rotate(end_to_target_rot_ss, mid_axis_ss);
        float joint_plane_normal_ss_len2 = vec3_dot(joint_plane_normal_ss, joint_plane_normal_ss);
        float r_target = 1.0f / sqrtf(start_target_ss_len2), r_ref = 1.0f / sqrtf(ref_plane_normal_ss_len2);
        float r_joint = 1.0f / sqrtf(joint_plane_normal_ss_len2);
        float rotate_plane_cos_angle =
            vec3_dot(vec3_scale(ref_plane_normal_ss, r_ref), vec3_scale(joint_plane_normal_ss, r_joint));
        cik_vec3 rotate_plane_axis_ss = vec3_scale(start_target_ss, r_target);
        cik_vec3 flipped = vec3_dot(joint_plane_normal_ss, pole_ss) < 0.0f ? vec3_scale(rotate_plane_axis_ss, -1.0f)
                                                                          : rotate_plane_axis_ss;
        cik_quat rotate_plane_ss = from_axis_cos_angle(flipped, clampf(rotate_plane_cos_angle, -1.0f, 1.0f));
        if (job->twist_angle != 0.0f) {
            cik_quat twist_ss = from_axis_angle(rotate_plane_axis_ss, job->twist_angle);
            start_rot_ss = quat_mul(twist_ss, quat_mul(rotate_plane_ss, end_to_target_rot_ss));
        } else {
            start_rot_ss = quat_mul(rotate_plane_ss, end_to_target_rot_ss);
        }
    }

    /* WeightOutput */
    cik_quat s = start_rot_ss.w < 0 ? quat(-start_rot_ss.x, -start_rot_ss.y, -start_rot_ss.z, -start_rot_ss.w)
                                    : start_rot_ss;
    cik_quat m = mid_rot_ms.w < 0 ? quat(-mid_rot_ms.x, -mid_rot_ms.y, -mid_rot_ms.z, -mid_rot_ms.w) : mid_rot_ms;
    if (job->weight < 1.0f) {
        float k = job->weight > 0.0f ? job->weight : 0.0f;
        s = quat_normalize(quat(k * s.x, k * s.y, k * s.z, 1.0f + k * (s.w - 1.0f)));
        m = quat_normalize(quat(k * m.x, k * m.y, k * m.z, 1.0f + k * (m.w - 1.0f)));
    }
    *start_correction = s;
    *mid_correction = m;
    return reached;
}

int two_bone_solve_leg(cik_chain *c)
{
    peer_pose w;
    peer_pose_update(c, &w, 0);
    two_bone_job job;
    job.target = c->target;
    /* legs without limits have the workload's knee axis, +X */
    cik_vec3 knee = c->limit[1].type == CIK_LIMIT_HINGE ? vec3_normalize(c->limit[1].axis) : vec3(1, 0, 0);
    job.mid_axis = vec3_scale(knee, -1.0f);
    job.pole_vector = quat_rotate(c->root_rotation, vec3(0, 0, 1));
    job.twist_angle = 0.0f;
    job.soften = 1.0f;
    job.weight = 1.0f;
    job.start_rotation = w.q[0];
    job.mid_rotation = w.q[1];
    job.start_position = w.p[0];
    job.mid_position = w.p[1];
    job.end_position = w.p[2];
    cik_quat start_correction, mid_correction;
    int reached = two_bone_run(&job, &start_correction, &mid_correction);
    /* ozz's sample: local rotation times the correction */
    c->rotation[0] = quat_mul(c->rotation[0], start_correction);
    c->rotation[1] = quat_mul(c->rotation[1], mid_correction);
    return reached;
}
