/*
 * Conversions between an engine's arrays of structs and the batch's
 * streams, and the world pose of every joint of many chains at once.
 *
 * The engine's side is strided: element i lies `stride` bytes after element
 * i - 1 (0: packed), so an array of cik_quat, an array of per-character
 * structs holding one, or a character's pose [chain][joint] are all read
 * and written in place. The world pose runs over blocks of chains, stream
 * by stream, as loops over lanes that the compiler vectorises; its
 * arithmetic is the reference's forward kinematics, term by term, so it
 * gives cik_chain_forward's values.
 */
#include "internal.h"

#include <string.h>

/* The engine side's element i. */
#define AT(type, base, i, stride) ((type *)(void *)((char *)(base) + (size_t)(i) * (stride)))
#define AT_CONST(type, base, i, stride) ((const type *)(const void *)((const char *)(base) + (size_t)(i) * (stride)))

static cik_status check_span(const cik_batch *b, int first, int count, const void *p)
{
    if (!b || !p || first < 0 || count < 0 || first > b->chain_count - count) return CIK_ERROR_ARGUMENT;
    return CIK_OK;
}

/* Strided quaternions into four streams (a joint's rotations or the roots'). */
static void write_quats(float *x, float *y, float *z, float *w, int count, const cik_quat *src, size_t stride)
{
    for (int i = 0; i < count; ++i) {
        const cik_quat *q = AT_CONST(cik_quat, src, i, stride);
        x[i] = q->x;
        y[i] = q->y;
        z[i] = q->z;
        w[i] = q->w;
    }
}

cik_status cik_batch_write_rotations(cik_batch *b, int joint, int first, int count, const cik_quat *src,
                                     size_t stride)
{
    cik_status st = check_span(b, first, count, src);
    if (st != CIK_OK) return st;
    if (joint < 0 || joint >= b->joint_count) return CIK_ERROR_ARGUMENT;
    write_quats(cik__joint_stream(b, joint, CIK__QX) + first, cik__joint_stream(b, joint, CIK__QY) + first,
                cik__joint_stream(b, joint, CIK__QZ) + first, cik__joint_stream(b, joint, CIK__QW) + first, count,
                src, stride ? stride : sizeof(cik_quat));
    return CIK_OK;
}

cik_status cik_batch_read_rotations(const cik_batch *b, int joint, int first, int count, cik_quat *dst,
                                    size_t stride)
{
    cik_status st = check_span(b, first, count, dst);
    if (st != CIK_OK) return st;
    if (joint < 0 || joint >= b->joint_count) return CIK_ERROR_ARGUMENT;
    if (stride == 0) stride = sizeof(cik_quat);
    const float *x = cik__joint_stream(b, joint, CIK__QX) + first, *y = cik__joint_stream(b, joint, CIK__QY) + first;
    const float *z = cik__joint_stream(b, joint, CIK__QZ) + first, *w = cik__joint_stream(b, joint, CIK__QW) + first;
    for (int i = 0; i < count; ++i) {
        cik_quat *q = AT(cik_quat, dst, i, stride);
        q->x = x[i];
        q->y = y[i];
        q->z = z[i];
        q->w = w[i];
    }
    return CIK_OK;
}

static void write_vecs(cik_batch *b, int sx, int first, int count, const cik_vec3 *src, size_t stride)
{
    float *x = cik__chain_stream(b, sx) + first, *y = cik__chain_stream(b, sx + 1) + first;
    float *z = cik__chain_stream(b, sx + 2) + first;
    for (int i = 0; i < count; ++i) {
        const cik_vec3 *v = AT_CONST(cik_vec3, src, i, stride);
        x[i] = v->x;
        y[i] = v->y;
        z[i] = v->z;
    }
}

cik_status cik_batch_write_targets(cik_batch *b, int first, int count, const cik_vec3 *targets, size_t stride)
{
    cik_status st = check_span(b, first, count, targets);
    if (st != CIK_OK) return st;
    write_vecs(b, CIK__TX, first, count, targets, stride ? stride : sizeof(cik_vec3));
    return CIK_OK;
}

cik_status cik_batch_write_roots(cik_batch *b, int first, int count, const cik_vec3 *positions,
                                 size_t position_stride, const cik_quat *rotations, size_t rotation_stride)
{
    cik_status st = check_span(b, first, count, positions);
    if (st != CIK_OK) return st;
    if (!rotations) return CIK_ERROR_ARGUMENT;
    write_vecs(b, CIK__RPX, first, count, positions, position_stride ? position_stride : sizeof(cik_vec3));
    write_quats(cik__chain_stream(b, CIK__RQX) + first, cik__chain_stream(b, CIK__RQY) + first,
                cik__chain_stream(b, CIK__RQZ) + first, cik__chain_stream(b, CIK__RQW) + first, count, rotations,
                rotation_stride ? rotation_stride : sizeof(cik_quat));
    return CIK_OK;
}

/* Chains per block of the world pose: its running transforms stay in L1. */
#define BLOCK 64

cik_status cik_batch_world_pose(const cik_batch *b, int first, int count, cik_quat *world_rotations,
                                cik_vec3 *world_positions, cik_vec3 *effectors)
{
    if (!b || first < 0 || count < 0 || first > b->chain_count - count) return CIK_ERROR_ARGUMENT;
    const int J = b->joint_count;
    /* the running world transform of each lane of the block: the parent's,
     * then the joint's */
    float wx[BLOCK], wy[BLOCK], wz[BLOCK], ww[BLOCK], px[BLOCK], py[BLOCK], pz[BLOCK];
    for (int c0 = first; c0 < first + count; c0 += BLOCK) {
        const int n = first + count - c0 < BLOCK ? first + count - c0 : BLOCK;
        memcpy(wx, cik__chain_stream(b, CIK__RQX) + c0, sizeof(float) * (size_t)n);
        memcpy(wy, cik__chain_stream(b, CIK__RQY) + c0, sizeof(float) * (size_t)n);
        memcpy(wz, cik__chain_stream(b, CIK__RQZ) + c0, sizeof(float) * (size_t)n);
        memcpy(ww, cik__chain_stream(b, CIK__RQW) + c0, sizeof(float) * (size_t)n);
        memcpy(px, cik__chain_stream(b, CIK__RPX) + c0, sizeof(float) * (size_t)n);
        memcpy(py, cik__chain_stream(b, CIK__RPY) + c0, sizeof(float) * (size_t)n);
        memcpy(pz, cik__chain_stream(b, CIK__RPZ) + c0, sizeof(float) * (size_t)n);
        for (int j = 0; j <= J; ++j) {
            /* joint j: P = parent P + rotate(parent W, offset), W = parent W * q;
             * j == J: the effector, P only */
            const int eff = j == J;
            const float *ox = eff ? cik__chain_stream(b, CIK__EX) + c0 : cik__joint_stream(b, j, CIK__OX) + c0;
            const float *oy = eff ? cik__chain_stream(b, CIK__EY) + c0 : cik__joint_stream(b, j, CIK__OY) + c0;
            const float *oz = eff ? cik__chain_stream(b, CIK__EZ) + c0 : cik__joint_stream(b, j, CIK__OZ) + c0;
            for (int i = 0; i < n; ++i) {
                /* rotate(q, v) = v + 2w (u x v) + u x (2 u x v), as the reference */
                float tx = (wy[i] * oz[i] - wz[i] * oy[i]) * 2.0f;
                float ty = (wz[i] * ox[i] - wx[i] * oz[i]) * 2.0f;
                float tz = (wx[i] * oy[i] - wy[i] * ox[i]) * 2.0f;
                float rx = (ox[i] + tx * ww[i]) + (wy[i] * tz - wz[i] * ty);
                float ry = (oy[i] + ty * ww[i]) + (wz[i] * tx - wx[i] * tz);
                float rz = (oz[i] + tz * ww[i]) + (wx[i] * ty - wy[i] * tx);
                px[i] = px[i] + rx;
                py[i] = py[i] + ry;
                pz[i] = pz[i] + rz;
            }
            if (eff) break;
            const float *qx = cik__joint_stream(b, j, CIK__QX) + c0, *qy = cik__joint_stream(b, j, CIK__QY) + c0;
            const float *qz = cik__joint_stream(b, j, CIK__QZ) + c0, *qw = cik__joint_stream(b, j, CIK__QW) + c0;
            for (int i = 0; i < n; ++i) {
                float ax = wx[i], ay = wy[i], az = wz[i], aw = ww[i];
                wx[i] = aw * qx[i] + ax * qw[i] + ay * qz[i] - az * qy[i];
                wy[i] = aw * qy[i] - ax * qz[i] + ay * qw[i] + az * qx[i];
                wz[i] = aw * qz[i] + ax * qy[i] - ay * qx[i] + az * qw[i];
                ww[i] = aw * qw[i] - ax * qx[i] - ay * qy[i] - az * qz[i];
            }
            for (int i = 0; i < n; ++i) {
                const size_t k = (size_t)(c0 - first + i) * (size_t)J + (size_t)j;
                if (world_rotations) {
                    world_rotations[k].x = wx[i];
                    world_rotations[k].y = wy[i];
                    world_rotations[k].z = wz[i];
                    world_rotations[k].w = ww[i];
                }
                if (world_positions) {
                    world_positions[k].x = px[i];
                    world_positions[k].y = py[i];
                    world_positions[k].z = pz[i];
                }
            }
        }
        if (effectors)
            for (int i = 0; i < n; ++i) {
                effectors[c0 - first + i].x = px[i];
                effectors[c0 - first + i].y = py[i];
                effectors[c0 - first + i].z = pz[i];
            }
    }
    return CIK_OK;
}
