/*
 * The batch: creation, validation of everything that enters through a
 * setter, array-of-structs <-> structure-of-arrays conversion and the bulk
 * path. Layout in internal.h.
 */
#include "internal.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Largest angle a limit may name: pi rounded to float is a hair above pi, so
 * (float)M_PI itself is accepted. */
#define CIK__PI_F 3.14159265358979f

/* A quaternion whose length is within this of 1 is normalised when set;
 * farther ones are refused (they are a caller's bug, not rounding). */
#define CIK__UNIT_TOLERANCE 1e-2f

const char *cik_status_string(cik_status status)
{
    switch (status) {
    case CIK_OK: return "ok";
    case CIK_ERROR_ARGUMENT: return "bad argument (null pointer, index or count out of range, or joint count mismatch)";
    case CIK_ERROR_NON_FINITE: return "non-finite value (NaN or infinity)";
    case CIK_ERROR_LIMIT: return "bad joint limit (unknown type, zero axis, min > max, or angle out of range)";
    case CIK_ERROR_OUT_OF_MEMORY: return "out of memory (or size overflow)";
    case CIK_ERROR_BACKEND_UNAVAILABLE: return "backend unavailable on this build or CPU";
    case CIK_ERROR_OPTIONS: return "bad options (threshold <= 0 or non-finite, max_iterations < 0, threads < 0, or a convergence option out of range)";
    case CIK_ERROR_NOT_UNIT: return "quaternion far from unit length";
    case CIK_ERROR_RANGE: return "value out of range (coordinate beyond CIK_MAX_COORDINATE, or pole_weight outside [0, 1])";
    }
    return "unknown status";
}

/* The result streams are int32_t and uint32_t; cik_streams shows them as
 * int and unsigned. */
typedef char cik__int_is_32_bits[sizeof(int) == sizeof(int32_t) && sizeof(unsigned) == sizeof(uint32_t) ? 1 : -1];

static size_t stream_count(int joint_count)
{
    /* + 1: the enable stream (bytes, in a float stream's room) */
    return (size_t)CIK__CHAIN_STREAMS + (size_t)joint_count * CIK__JS + CIK__RESULT_STREAMS + 1;
}

static void fill(float *p, size_t n, float v)
{
    for (size_t i = 0; i < n; ++i) p[i] = v;
}

/* Puts lanes [begin, end) into the default state: a valid chain at the origin
 * with identity rotations, zero offsets, no limits, target at the origin. */
static void reset_lanes(cik_batch *b, size_t begin, size_t end)
{
    size_t n = end - begin;
    for (int s = 0; s < CIK__CHAIN_STREAMS; ++s)
        fill(cik__chain_stream(b, s) + begin, n, s == CIK__RQW ? 1.0f : 0.0f);
    for (int j = 0; j < b->joint_count; ++j) {
        for (int s = 0; s < CIK__JS; ++s) {
            float v = (s == CIK__QW || s == CIK__CMIN || s == CIK__CMAX || s == CIK__CSWING) ? 1.0f : 0.0f;
            fill(cik__joint_stream(b, j, s) + begin, n, v);
        }
    }
    memset((float *)cik__result_stream(b, CIK__ERR) + begin, 0, n * sizeof(float));
    memset((int32_t *)cik__result_stream(b, CIK__ITER) + begin, 0, n * sizeof(int32_t));
    memset((uint32_t *)cik__result_stream(b, CIK__FLAGS) + begin, 0, n * sizeof(uint32_t));
    memset(cik__enable_stream(b) + begin, 1, n);
}

static void *allocate(const cik_allocator *a, size_t size, size_t alignment)
{
    return a->allocate ? a->allocate(a->user, size, alignment) : malloc(size);
}

static void release(const cik_allocator *a, void *p, size_t size)
{
    if (a->allocate)
        a->free(a->user, p, size);
    else
        free(p);
}

cik_status cik_batch_create_with(int chain_count, int joint_count, const cik_allocator *allocator,
                                 cik_batch **out)
{
    if (!out || chain_count < 0 || joint_count < 1 || joint_count > CIK_MAX_JOINTS)
        return CIK_ERROR_ARGUMENT;
    cik_allocator a = {NULL, NULL, NULL};
    if (allocator) {
        if (!allocator->allocate || !allocator->free) return CIK_ERROR_ARGUMENT;
        a = *allocator;
    }

    size_t padded = ((size_t)chain_count + CIK__PAD - 1) / CIK__PAD * CIK__PAD;
    if (padded == 0) padded = CIK__PAD; /* kernels always have one group to run */
    if (padded > (size_t)INT_MAX) return CIK_ERROR_OUT_OF_MEMORY; /* lanes are indexed by int */
    size_t stride = padded;
    if ((stride * sizeof(float)) % 4096 == 0) stride += 16;
    size_t streams = stream_count(joint_count);
    if (stride > SIZE_MAX / sizeof(float) / streams) return CIK_ERROR_OUT_OF_MEMORY;
    size_t bytes = stride * sizeof(float) * streams;
    if (bytes > SIZE_MAX - 64 - sizeof(cik_batch)) return CIK_ERROR_OUT_OF_MEMORY;
    /* malloc's memory is aligned for any type but not to 64 bytes: 64 more
     * to align it by hand; an allocator is asked for 64-byte alignment */
    size_t memory_bytes = a.allocate ? bytes : bytes + 64;

    cik_batch *b = (cik_batch *)allocate(&a, sizeof(cik_batch), _Alignof(cik_batch));
    if (!b) return CIK_ERROR_OUT_OF_MEMORY;
    if ((uintptr_t)b % _Alignof(cik_batch) != 0) {
        release(&a, b, sizeof(cik_batch));
        return CIK_ERROR_ARGUMENT;
    }
    void *mem = allocate(&a, memory_bytes, 64);
    if (!mem) {
        release(&a, b, sizeof(cik_batch));
        return CIK_ERROR_OUT_OF_MEMORY;
    }
    if (a.allocate && (uintptr_t)mem % 64 != 0) {
        release(&a, mem, memory_bytes);
        release(&a, b, sizeof(cik_batch));
        return CIK_ERROR_ARGUMENT;
    }
    b->chain_count = chain_count;
    b->joint_count = joint_count;
    b->padded = (int)padded;
    b->stride = stride;
    b->bytes = memory_bytes + sizeof(cik_batch);
    b->memory = mem;
    b->memory_bytes = memory_bytes;
    b->allocator = a;
    b->team.solo_left = b->team.backoff = 0;
    b->base = (float *)(((uintptr_t)mem + 63) & ~(uintptr_t)63);
    reset_lanes(b, 0, padded);
    *out = b;
    return CIK_OK;
}

cik_status cik_batch_create(int chain_count, int joint_count, cik_batch **out)
{
    return cik_batch_create_with(chain_count, joint_count, NULL, out);
}

void cik_batch_destroy(cik_batch *batch)
{
    if (!batch) return;
    cik_allocator a = batch->allocator;
    release(&a, batch->memory, batch->memory_bytes);
    release(&a, batch, sizeof(cik_batch));
}

int cik_batch_chain_count(const cik_batch *batch) { return batch ? batch->chain_count : 0; }
int cik_batch_joint_count(const cik_batch *batch) { return batch ? batch->joint_count : 0; }
size_t cik_batch_memory_bytes(const cik_batch *batch) { return batch ? batch->bytes : 0; }

static int finite3(cik_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }
static int in_range3(cik_vec3 v)
{
    return fabsf(v.x) <= CIK_MAX_COORDINATE && fabsf(v.y) <= CIK_MAX_COORDINATE && fabsf(v.z) <= CIK_MAX_COORDINATE;
}
static int finite4(cik_quat q) { return isfinite(q.x) && isfinite(q.y) && isfinite(q.z) && isfinite(q.w); }

/* NON_FINITE, NOT_UNIT or OK; on OK `*unit` is q normalised. */
static cik_status check_quat(cik_quat q, cik_quat *unit)
{
    if (!finite4(q)) return CIK_ERROR_NON_FINITE;
    double n = sqrt((double)q.x * q.x + (double)q.y * q.y + (double)q.z * q.z + (double)q.w * q.w);
    if (!(fabs(n - 1.0) <= CIK__UNIT_TOLERANCE)) return CIK_ERROR_NOT_UNIT;
    unit->x = (float)(q.x / n);
    unit->y = (float)(q.y / n);
    unit->z = (float)(q.z / n);
    unit->w = (float)(q.w / n);
    return CIK_OK;
}

static int angle_ok(float a) { return a >= -CIK__PI_F && a <= CIK__PI_F; }

/* LIMIT or OK; on OK `*norm` has a unit axis (zero for NONE). */
static cik_status check_limit(const cik_limit *l, cik_limit *norm)
{
    if (!finite3(l->axis) || !isfinite(l->min_angle) || !isfinite(l->max_angle) ||
        !isfinite(l->swing_max))
        return CIK_ERROR_NON_FINITE;
    *norm = *l;
    switch (l->type) {
    case CIK_LIMIT_NONE:
        norm->axis.x = norm->axis.y = norm->axis.z = 0.0f;
        norm->min_angle = norm->max_angle = norm->swing_max = 0.0f;
        return CIK_OK;
    case CIK_LIMIT_HINGE:
    case CIK_LIMIT_SWING_TWIST: {
        double n = sqrt((double)l->axis.x * l->axis.x + (double)l->axis.y * l->axis.y +
                        (double)l->axis.z * l->axis.z);
        if (!(n > 1e-12) || !isfinite(n)) return CIK_ERROR_LIMIT;
        if (!angle_ok(l->min_angle) || !angle_ok(l->max_angle) || l->min_angle > l->max_angle)
            return CIK_ERROR_LIMIT;
        if (l->type == CIK_LIMIT_SWING_TWIST) {
            if (!(l->swing_max >= 0.0f && l->swing_max <= CIK__PI_F)) return CIK_ERROR_LIMIT;
        } else {
            norm->swing_max = 0.0f;
        }
        norm->axis.x = (float)(l->axis.x / n);
        norm->axis.y = (float)(l->axis.y / n);
        norm->axis.z = (float)(l->axis.z / n);
        return CIK_OK;
    }
    }
    return CIK_ERROR_LIMIT;
}

static cik_status check_index(const cik_batch *b, int index)
{
    if (!b || index < 0 || index >= b->chain_count) return CIK_ERROR_ARGUMENT;
    return CIK_OK;
}

static void write_limit(cik_batch *b, int index, int j, const cik_limit *l)
{
    cik__joint_stream(b, j, CIK__LTYPE)[index] = (float)l->type;
    cik__joint_stream(b, j, CIK__AX)[index] = l->axis.x;
    cik__joint_stream(b, j, CIK__AY)[index] = l->axis.y;
    cik__joint_stream(b, j, CIK__AZ)[index] = l->axis.z;
    cik__joint_stream(b, j, CIK__LMIN)[index] = l->min_angle;
    cik__joint_stream(b, j, CIK__LMAX)[index] = l->max_angle;
    cik__joint_stream(b, j, CIK__LSWING)[index] = l->swing_max;
    cik__joint_stream(b, j, CIK__SMIN)[index] = (float)sin(0.5 * l->min_angle);
    cik__joint_stream(b, j, CIK__CMIN)[index] = (float)cos(0.5 * l->min_angle);
    cik__joint_stream(b, j, CIK__SMAX)[index] = (float)sin(0.5 * l->max_angle);
    cik__joint_stream(b, j, CIK__CMAX)[index] = (float)cos(0.5 * l->max_angle);
    cik__joint_stream(b, j, CIK__SSWING)[index] = (float)sin(0.5 * l->swing_max);
    cik__joint_stream(b, j, CIK__CSWING)[index] = (float)cos(0.5 * l->swing_max);
}

static void write_quat(float *x, float *y, float *z, float *w, int i, cik_quat q)
{
    x[i] = q.x;
    y[i] = q.y;
    z[i] = q.z;
    w[i] = q.w;
}

static void write_vec(float *x, float *y, float *z, int i, cik_vec3 v)
{
    x[i] = v.x;
    y[i] = v.y;
    z[i] = v.z;
}

static void clear_result(cik_batch *b, int index)
{
    ((float *)cik__result_stream(b, CIK__ERR))[index] = 0.0f;
    ((int32_t *)cik__result_stream(b, CIK__ITER))[index] = 0;
    ((uint32_t *)cik__result_stream(b, CIK__FLAGS))[index] = 0;
}

cik_status cik_batch_set_chain(cik_batch *b, int index, const cik_chain *c)
{
    cik_status st = check_index(b, index);
    if (st != CIK_OK) return st;
    if (!c || c->joint_count != b->joint_count) return CIK_ERROR_ARGUMENT;

    /* Validate everything into a local copy first: a refusal changes nothing. */
    cik_chain v = *c;
    if (!finite3(c->root_position) || !finite3(c->effector) || !finite3(c->target) ||
        !finite3(c->pole) || !isfinite(c->pole_weight))
        return CIK_ERROR_NON_FINITE;
    if ((st = check_quat(c->root_rotation, &v.root_rotation)) != CIK_OK) return st;
    for (int j = 0; j < b->joint_count; ++j) {
        if (!finite3(c->offset[j])) return CIK_ERROR_NON_FINITE;
        if ((st = check_quat(c->rotation[j], &v.rotation[j])) != CIK_OK) return st;
    }
    if (!in_range3(c->root_position) || !in_range3(c->effector) || !in_range3(c->target) ||
        !in_range3(c->pole) || !(c->pole_weight >= 0.0f && c->pole_weight <= 1.0f))
        return CIK_ERROR_RANGE;
    for (int j = 0; j < b->joint_count; ++j)
        if (!in_range3(c->offset[j])) return CIK_ERROR_RANGE;
    for (int j = 0; j < b->joint_count; ++j)
        if ((st = check_limit(&c->limit[j], &v.limit[j])) != CIK_OK) return st;

    write_vec(cik__chain_stream(b, CIK__TX), cik__chain_stream(b, CIK__TY),
              cik__chain_stream(b, CIK__TZ), index, v.target);
    write_vec(cik__chain_stream(b, CIK__RPX), cik__chain_stream(b, CIK__RPY),
              cik__chain_stream(b, CIK__RPZ), index, v.root_position);
    write_quat(cik__chain_stream(b, CIK__RQX), cik__chain_stream(b, CIK__RQY),
               cik__chain_stream(b, CIK__RQZ), cik__chain_stream(b, CIK__RQW), index,
               v.root_rotation);
    write_vec(cik__chain_stream(b, CIK__EX), cik__chain_stream(b, CIK__EY),
              cik__chain_stream(b, CIK__EZ), index, v.effector);
    write_vec(cik__chain_stream(b, CIK__PLX), cik__chain_stream(b, CIK__PLY),
              cik__chain_stream(b, CIK__PLZ), index, v.pole);
    cik__chain_stream(b, CIK__PLW)[index] = v.pole_weight;
    for (int j = 0; j < b->joint_count; ++j) {
        write_vec(cik__joint_stream(b, j, CIK__OX), cik__joint_stream(b, j, CIK__OY),
                  cik__joint_stream(b, j, CIK__OZ), index, v.offset[j]);
        write_limit(b, index, j, &v.limit[j]);
    }
    cik__write_rotations(b, index, &v);
    clear_result(b, index);
    return CIK_OK;
}

void cik__write_rotations(cik_batch *b, int index, const cik_chain *c)
{
    for (int j = 0; j < b->joint_count; ++j)
        write_quat(cik__joint_stream(b, j, CIK__QX), cik__joint_stream(b, j, CIK__QY),
                   cik__joint_stream(b, j, CIK__QZ), cik__joint_stream(b, j, CIK__QW), index,
                   c->rotation[j]);
}

static cik_quat read_quat(const float *x, const float *y, const float *z, const float *w, int i)
{
    cik_quat q = {x[i], y[i], z[i], w[i]};
    return q;
}

static cik_vec3 read_vec(const float *x, const float *y, const float *z, int i)
{
    cik_vec3 v = {x[i], y[i], z[i]};
    return v;
}

void cik__read_chain(const cik_batch *b, int index, cik_chain *out)
{
    memset(out, 0, sizeof *out);
    out->joint_count = b->joint_count;
    out->target = read_vec(cik__chain_stream(b, CIK__TX), cik__chain_stream(b, CIK__TY),
                           cik__chain_stream(b, CIK__TZ), index);
    out->root_position = read_vec(cik__chain_stream(b, CIK__RPX), cik__chain_stream(b, CIK__RPY),
                                  cik__chain_stream(b, CIK__RPZ), index);
    out->root_rotation = read_quat(cik__chain_stream(b, CIK__RQX), cik__chain_stream(b, CIK__RQY),
                                   cik__chain_stream(b, CIK__RQZ), cik__chain_stream(b, CIK__RQW),
                                   index);
    out->effector = read_vec(cik__chain_stream(b, CIK__EX), cik__chain_stream(b, CIK__EY),
                             cik__chain_stream(b, CIK__EZ), index);
    out->pole = read_vec(cik__chain_stream(b, CIK__PLX), cik__chain_stream(b, CIK__PLY),
                         cik__chain_stream(b, CIK__PLZ), index);
    out->pole_weight = cik__chain_stream(b, CIK__PLW)[index];
    for (int j = 0; j < b->joint_count; ++j) {
        out->offset[j] = read_vec(cik__joint_stream(b, j, CIK__OX), cik__joint_stream(b, j, CIK__OY),
                                  cik__joint_stream(b, j, CIK__OZ), index);
        out->rotation[j] = read_quat(cik__joint_stream(b, j, CIK__QX),
                                     cik__joint_stream(b, j, CIK__QY),
                                     cik__joint_stream(b, j, CIK__QZ),
                                     cik__joint_stream(b, j, CIK__QW), index);
        cik_limit *l = &out->limit[j];
        l->type = (cik_limit_type)(int)cik__joint_stream(b, j, CIK__LTYPE)[index];
        l->axis = read_vec(cik__joint_stream(b, j, CIK__AX), cik__joint_stream(b, j, CIK__AY),
                           cik__joint_stream(b, j, CIK__AZ), index);
        l->min_angle = cik__joint_stream(b, j, CIK__LMIN)[index];
        l->max_angle = cik__joint_stream(b, j, CIK__LMAX)[index];
        l->swing_max = cik__joint_stream(b, j, CIK__LSWING)[index];
    }
}

cik_status cik_batch_get_chain(const cik_batch *b, int index, cik_chain *out)
{
    cik_status st = check_index(b, index);
    if (st != CIK_OK) return st;
    if (!out) return CIK_ERROR_ARGUMENT;
    cik__read_chain(b, index, out);
    return CIK_OK;
}

cik_status cik_batch_set_target(cik_batch *b, int index, cik_vec3 target)
{
    cik_status st = check_index(b, index);
    if (st != CIK_OK) return st;
    if (!finite3(target)) return CIK_ERROR_NON_FINITE;
    if (!in_range3(target)) return CIK_ERROR_RANGE;
    write_vec(cik__chain_stream(b, CIK__TX), cik__chain_stream(b, CIK__TY),
              cik__chain_stream(b, CIK__TZ), index, target);
    return CIK_OK;
}

cik_status cik_batch_set_root(cik_batch *b, int index, cik_vec3 position, cik_quat rotation)
{
    cik_status st = check_index(b, index);
    if (st != CIK_OK) return st;
    if (!finite3(position)) return CIK_ERROR_NON_FINITE;
    if (!in_range3(position)) return CIK_ERROR_RANGE;
    cik_quat q;
    if ((st = check_quat(rotation, &q)) != CIK_OK) return st;
    write_vec(cik__chain_stream(b, CIK__RPX), cik__chain_stream(b, CIK__RPY),
              cik__chain_stream(b, CIK__RPZ), index, position);
    write_quat(cik__chain_stream(b, CIK__RQX), cik__chain_stream(b, CIK__RQY),
               cik__chain_stream(b, CIK__RQZ), cik__chain_stream(b, CIK__RQW), index, q);
    return CIK_OK;
}

cik_status cik_batch_set_rotation(cik_batch *b, int index, int joint, cik_quat rotation)
{
    cik_status st = check_index(b, index);
    if (st != CIK_OK) return st;
    if (joint < 0 || joint >= b->joint_count) return CIK_ERROR_ARGUMENT;
    cik_quat q;
    if ((st = check_quat(rotation, &q)) != CIK_OK) return st;
    write_quat(cik__joint_stream(b, joint, CIK__QX), cik__joint_stream(b, joint, CIK__QY),
               cik__joint_stream(b, joint, CIK__QZ), cik__joint_stream(b, joint, CIK__QW), index,
               q);
    return CIK_OK;
}

cik_status cik_batch_get_rotation(const cik_batch *b, int index, int joint, cik_quat *out)
{
    cik_status st = check_index(b, index);
    if (st != CIK_OK) return st;
    if (!out || joint < 0 || joint >= b->joint_count) return CIK_ERROR_ARGUMENT;
    *out = read_quat(cik__joint_stream(b, joint, CIK__QX), cik__joint_stream(b, joint, CIK__QY),
                     cik__joint_stream(b, joint, CIK__QZ), cik__joint_stream(b, joint, CIK__QW),
                     index);
    return CIK_OK;
}

cik_status cik_batch_streams(cik_batch *b, cik_streams *out)
{
    if (!b || !out) return CIK_ERROR_ARGUMENT;
    memset(out, 0, sizeof *out);
    out->chain_count = b->chain_count;
    out->joint_count = b->joint_count;
    out->target_x = cik__chain_stream(b, CIK__TX);
    out->target_y = cik__chain_stream(b, CIK__TY);
    out->target_z = cik__chain_stream(b, CIK__TZ);
    out->root_position_x = cik__chain_stream(b, CIK__RPX);
    out->root_position_y = cik__chain_stream(b, CIK__RPY);
    out->root_position_z = cik__chain_stream(b, CIK__RPZ);
    out->root_rotation_x = cik__chain_stream(b, CIK__RQX);
    out->root_rotation_y = cik__chain_stream(b, CIK__RQY);
    out->root_rotation_z = cik__chain_stream(b, CIK__RQZ);
    out->root_rotation_w = cik__chain_stream(b, CIK__RQW);
    out->pole_x = cik__chain_stream(b, CIK__PLX);
    out->pole_y = cik__chain_stream(b, CIK__PLY);
    out->pole_z = cik__chain_stream(b, CIK__PLZ);
    out->pole_weight = cik__chain_stream(b, CIK__PLW);
    out->result_error = (const float *)cik__result_stream(b, CIK__ERR);
    out->result_iterations = (const int *)cik__result_stream(b, CIK__ITER);
    out->result_flags = (const unsigned *)cik__result_stream(b, CIK__FLAGS);
    out->enabled = cik__enable_stream(b);
    for (int j = 0; j < b->joint_count; ++j) {
        out->rotation_x[j] = cik__joint_stream(b, j, CIK__QX);
        out->rotation_y[j] = cik__joint_stream(b, j, CIK__QY);
        out->rotation_z[j] = cik__joint_stream(b, j, CIK__QZ);
        out->rotation_w[j] = cik__joint_stream(b, j, CIK__QW);
    }
    return CIK_OK;
}

cik_status cik_batch_result(const cik_batch *b, int index, cik_result *out)
{
    cik_status st = check_index(b, index);
    if (st != CIK_OK) return st;
    if (!out) return CIK_ERROR_ARGUMENT;
    out->error = ((const float *)cik__result_stream(b, CIK__ERR))[index];
    out->iterations = ((const int32_t *)cik__result_stream(b, CIK__ITER))[index];
    out->flags = ((const uint32_t *)cik__result_stream(b, CIK__FLAGS))[index];
    return CIK_OK;
}
