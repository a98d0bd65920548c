/* Heightfield sampling: bilinear heights, interpolated per-sample normals. */
#include "crowdik/foot.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <stddef.h>

#include "foot_internal.h"
#include "../scalar_math.h"

cik_status cik_heightfield_validate(const cik_heightfield *hf)
{
    if (!hf || !hf->heights || hf->count_x < 2 || hf->count_z < 2) return CIK_ERROR_ARGUMENT;
    /* the sampling works in float grid coordinates: up to 2^24 every
     * integer, count - 1 included, is a float, so a coordinate clamped to
     * [0, count - 1] truncates to an index inside the grid (beyond it
     * count - 1 rounds up to a sample that does not exist) */
    if (hf->count_x > CIK_HEIGHTFIELD_MAX_COUNT || hf->count_z > CIK_HEIGHTFIELD_MAX_COUNT)
        return CIK_ERROR_ARGUMENT;
    /* a normal float spacing: 1 / (2 spacing), the gradients' factor, is
     * finite */
    if (!(hf->spacing_x >= FLT_MIN) || !(hf->spacing_z >= FLT_MIN) || !isfinite(hf->spacing_x) ||
        !isfinite(hf->spacing_z) || !isfinite(hf->origin_x) || !isfinite(hf->origin_z))
        return CIK_ERROR_ARGUMENT;
    if ((size_t)hf->count_x > ((size_t)-1 / sizeof(float)) / (size_t)hf->count_z)
        return CIK_ERROR_ARGUMENT;
    return CIK_OK;
}

/* A slope clamped to +-CIK__HF_MAX_SLOPE, as the kernels' min then max
 * (which take the bound for NaN, from non-finite heights). */
static inline float hf_slope(float g)
{
    g = g < CIK__HF_MAX_SLOPE ? g : CIK__HF_MAX_SLOPE;
    return g > -CIK__HF_MAX_SLOPE ? g : -CIK__HF_MAX_SLOPE;
}

static inline float hf_at(const cik_heightfield *hf, int ix, int iz)
{
    return hf->heights[(size_t)iz * (size_t)hf->count_x + (size_t)ix];
}

/* Gradient (dh/dx, dh/dz) at a sample from central differences, one-sided
 * at the border, each within +-CIK__HF_MAX_SLOPE (foot_internal.h). */
static inline void hf_grad(const cik_heightfield *hf, int ix, int iz, float *gx, float *gz)
{
    int x0 = ix > 0 ? ix - 1 : ix, x1 = ix < hf->count_x - 1 ? ix + 1 : ix;
    int z0 = iz > 0 ? iz - 1 : iz, z1 = iz < hf->count_z - 1 ? iz + 1 : iz;
    *gx = hf_slope((hf_at(hf, x1, iz) - hf_at(hf, x0, iz)) / ((float)(x1 - x0) * hf->spacing_x));
    *gz = hf_slope((hf_at(hf, ix, z1) - hf_at(hf, ix, z0)) / ((float)(z1 - z0) * hf->spacing_z));
}

/* The bilinear height in the cell whose sample (ix, iz) `p` points at, row
 * the samples per row: every sampler's (the same bits on every path). */
static inline float hf_bilinear(const float *p, ptrdiff_t row, float fu, float fv)
{
    float w00 = (1.0f - fu) * (1.0f - fv), w10 = fu * (1.0f - fv);
    float w01 = (1.0f - fu) * fv, w11 = fu * fv;
    const float *p1 = p + row;
    return w00 * p[0] + w10 * p[1] + w01 * p1[0] + w11 * p1[1];
}

static inline void hf_sample(const cik_heightfield *hf, float x, float z, float *height,
                             cik_vec3 *normal)
{
    float u = (x - hf->origin_x) / hf->spacing_x;
    float v = (z - hf->origin_z) / hf->spacing_z;
    float umax = (float)(hf->count_x - 1), vmax = (float)(hf->count_z - 1);
    /* clamp (NaN goes to 0 so indices stay in range) */
    u = u > 0.0f ? (u < umax ? u : umax) : 0.0f;
    v = v > 0.0f ? (v < vmax ? v : vmax) : 0.0f;
    int ix = (int)u, iz = (int)v;
    if (ix > hf->count_x - 2) ix = hf->count_x - 2;
    if (iz > hf->count_z - 2) iz = hf->count_z - 2;
    float fu = u - (float)ix, fv = v - (float)iz;
    float w00 = (1.0f - fu) * (1.0f - fv), w10 = fu * (1.0f - fv);
    float w01 = (1.0f - fu) * fv, w11 = fu * fv;
    if (height) *height = hf_bilinear(hf->heights + (size_t)iz * (size_t)hf->count_x + (size_t)ix, hf->count_x, fu, fv);
    if (normal) {
        float gx00, gz00, gx10, gz10, gx01, gz01, gx11, gz11;
        hf_grad(hf, ix, iz, &gx00, &gz00);
        hf_grad(hf, ix + 1, iz, &gx10, &gz10);
        hf_grad(hf, ix, iz + 1, &gx01, &gz01);
        hf_grad(hf, ix + 1, iz + 1, &gx11, &gz11);
        /* interpolate unit normals (-gx, 1, -gz)/|.| */
        float n00 = 1.0f / sqrtf(gx00 * gx00 + 1.0f + gz00 * gz00);
        float n10 = 1.0f / sqrtf(gx10 * gx10 + 1.0f + gz10 * gz10);
        float n01 = 1.0f / sqrtf(gx01 * gx01 + 1.0f + gz01 * gz01);
        float n11 = 1.0f / sqrtf(gx11 * gx11 + 1.0f + gz11 * gz11);
        float a = w00 * n00, b = w10 * n10, c = w01 * n01, d = w11 * n11;
        cik_vec3 n = vec3(-(a * gx00 + b * gx10 + c * gx01 + d * gx11), a + b + c + d,
                          -(a * gz00 + b * gz10 + c * gz01 + d * gz11));
        *normal = vec3_normalize(n);
    }
}

cik_status cik_heightfield_sample(const cik_heightfield *hf, float x, float z, float *height,
                                  cik_vec3 *normal)
{
    cik_status s = cik_heightfield_validate(hf);
    if (s != CIK_OK) return s;
    hf_sample(hf, x, z, height, normal);
    return CIK_OK;
}

/* hf_sample for a point whose four cells' gradient stencils lie inside the
 * grid (1 <= ix, ix + 2 <= count_x - 1, likewise z): central differences
 * everywhere, read straight from the rows, no border cases. `p` points at
 * sample (ix, iz); `ix2`, `iz2` are 1 / (2 spacing). */
static inline void hf_sample_interior(const float *p, ptrdiff_t row, float fu, float fv, float ix2, float iz2,
                                      float *height, float *nx, float *ny, float *nz)
{
    float w00 = (1.0f - fu) * (1.0f - fv), w10 = fu * (1.0f - fv);
    float w01 = (1.0f - fu) * fv, w11 = fu * fv;
    const float *p1 = p + row;
    *height = hf_bilinear(p, row, fu, fv);
    float gx00 = hf_slope((p[1] - p[-1]) * ix2), gz00 = hf_slope((p1[0] - p[-row]) * iz2);
    float gx10 = hf_slope((p[2] - p[0]) * ix2), gz10 = hf_slope((p1[1] - p[1 - row]) * iz2);
    float gx01 = hf_slope((p1[1] - p1[-1]) * ix2), gz01 = hf_slope((p1[row] - p[0]) * iz2);
    float gx11 = hf_slope((p1[2] - p1[0]) * ix2), gz11 = hf_slope((p1[row + 1] - p[1]) * iz2);
    float a = w00 / sqrtf(gx00 * gx00 + 1.0f + gz00 * gz00);
    float b = w10 / sqrtf(gx10 * gx10 + 1.0f + gz10 * gz10);
    float c = w01 / sqrtf(gx01 * gx01 + 1.0f + gz01 * gz01);
    float d = w11 / sqrtf(gx11 * gx11 + 1.0f + gz11 * gz11);
    float x = -(a * gx00 + b * gx10 + c * gx01 + d * gx11), y = a + b + c + d;
    float z = -(a * gz00 + b * gz10 + c * gz01 + d * gz11);
    float n = sqrtf(x * x + y * y + z * z);
    float k = n > 0.0f ? 1.0f / n : 1.0f;
    *nx = x * k;
    *ny = y * k;
    *nz = z * k;
}

cik_status cik_heightfield_sample_many(const cik_heightfield *hf, int count, const float *x,
                                       const float *z, float *height, float *normal_x,
                                       float *normal_y, float *normal_z)
{
    cik_status s = cik_heightfield_validate(hf);
    if (s != CIK_OK) return s;
    if (count < 0 || (count > 0 && (!x || !z || !height))) return CIK_ERROR_ARGUMENT;
    int want_normal = normal_x || normal_y || normal_z;
    if (want_normal && !(normal_x && normal_y && normal_z)) return CIK_ERROR_ARGUMENT;
    const float umax = (float)(hf->count_x - 1), vmax = (float)(hf->count_z - 1);
    const float ix2 = 0.5f / hf->spacing_x, iz2 = 0.5f / hf->spacing_z;
    const ptrdiff_t row = hf->count_x;
    for (int i = 0; i < count; ++i) {
        /* the common case, a point away from the border: no clamping */
        float u = (x[i] - hf->origin_x) / hf->spacing_x, v = (z[i] - hf->origin_z) / hf->spacing_z;
        if (u >= 1.0f && u < umax - 2.0f && v >= 1.0f && v < vmax - 2.0f) {
            int ix = (int)u, iz = (int)v;
            const float *p = hf->heights + (ptrdiff_t)iz * row + ix;
            if (want_normal)
                hf_sample_interior(p, row, u - (float)ix, v - (float)iz, ix2, iz2, &height[i], &normal_x[i],
                                   &normal_y[i], &normal_z[i]);
            else
                height[i] = hf_bilinear(p, row, u - (float)ix, v - (float)iz);
            continue;
        }
        cik_vec3 n;
        hf_sample(hf, x[i], z[i], &height[i], want_normal ? &n : NULL);
        if (want_normal) {
            normal_x[i] = n.x;
            normal_y[i] = n.y;
            normal_z[i] = n.z;
        }
    }
    return CIK_OK;
}

/* The ground stage's scalar part (foot_internal.h), after the kernel's
 * ground pass: the points near the border (and, on a heightfield larger
 * than int32 indices reach, beyond the rows they do) sampled in full. */
void cik__foot_ground_border(const cik__foot_job *job, const cik_heightfield *hf, int begin, int end)
{
    float *const *f = job->f;
    const int pt = job->point;
    const float *border = job->s[SCRATCH_GBORDER] - job->s0;
    const unsigned char *on = job->on;
    /* most blocks have no point near the border: one pass that the
     * compiler vectorizes finds that (the flags are 0.0f or 1.0f) */
    uint32_t any = 0;
    for (int i = begin; i < end; ++i) {
        uint32_t u;
        memcpy(&u, &border[i], sizeof u);
        any |= u;
    }
    if (!any) return;
    for (int i = begin; i < end; ++i) {
        if (border[i] == 0.0f || (on && !on[i >> 1])) continue;
        cik_vec3 n;
        hf_sample(hf, f[FOOT_PROBEX + pt][i], f[FOOT_PROBEZ + pt][i], &f[FOOT_CY + pt][i], &n);
        f[FOOT_CNX + pt][i] = n.x;
        f[FOOT_CNY + pt][i] = n.y;
        f[FOOT_CNZ + pt][i] = n.z;
    }
}
