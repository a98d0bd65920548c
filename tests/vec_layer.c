/*
 * The vector layer of one instruction set, checked lane by lane against
 * plain float arithmetic, as ozz-animation tests its SIMD math: built once
 * per row of CMakeLists.txt's CROWDIK_ISAS with that row's flags (the
 * definitions CIK_ISA_BACKEND and CIK_ISA_HEADER are isa.c's), one CTest
 * test per instruction set (vec_layer_<isa>). A self-checking program, not
 * a Criterion suite, so that the NEON build runs under qemu too. Exit 0:
 * every check held; 77: this CPU does not run the instruction set; 1: a
 * check failed (printed).
 */
#include <crowdik/crowdik.h>

#include CIK_ISA_HEADER
#define CIK_IL 2 /* the wide layer too, as the kernels use it */
#include "vec_wide.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define L CIK_NATIVE_LANES
#define STR2(x) #x
#define STR(x) STR2(x)

static int failures;

#define CHECK(cond, ...)                                     \
    do {                                                     \
        if (!(cond)) {                                       \
            ++failures;                                      \
            fprintf(stderr, "vec_layer " STR(CIK_ISA_BACKEND) ": "); \
            fprintf(stderr, __VA_ARGS__);                    \
            fputc('\n', stderr);                             \
        }                                                    \
    } while (0)

static int same_bits(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

/* One native vector's lanes. */
typedef struct lanes {
    _Alignas(64) float f[16];
} lanes;

static lanes out(cik_nf v)
{
    lanes r;
    n_store(r.f, v);
    return r;
}

/* Lane i of a mask: selects 1 or 0. */
static lanes mask_lanes(cik_nm m) { return out(n_sel(m, n_set1(1.0f), n_set1(0.0f))); }

/* A mask with lanes [0, k) set. */
static cik_nm first_lanes(int k)
{
    lanes idx;
    for (int i = 0; i < L; ++i) idx.f[i] = (float)i;
    return n_lt(n_load(idx.f), n_set1((float)k));
}

/* A reproducible spread of floats: signs, magnitudes from 1e-6 to 1e6. */
static float sample(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    float m = (float)((*s >> 8) & 0xFFFF) / 65536.0f; /* [0, 1) */
    *s = *s * 1664525u + 1013904223u;
    float e = (float)((int)((*s >> 8) % 13) - 6);
    return ((*s >> 30) & 1 ? -1.0f : 1.0f) * (1.0f + m) * powf(10.0f, e);
}

static void check_arithmetic(void)
{
    uint32_t seed = 12345;
    for (int rep = 0; rep < 2000; ++rep) {
        lanes a, b, c;
        for (int i = 0; i < L; ++i) {
            a.f[i] = sample(&seed);
            b.f[i] = sample(&seed);
            c.f[i] = sample(&seed);
        }
        cik_nf va = n_load(a.f), vb = n_load(b.f), vc = n_load(c.f);
        lanes add = out(n_add(va, vb)), sub = out(n_sub(va, vb)), mul = out(n_mul(va, vb)), div = out(n_div(va, vb));
        lanes mn = out(n_min(va, vb)), mx = out(n_max(va, vb)), ab = out(n_abs(va)), ng = out(n_neg(va));
        lanes fm = out(n_fma(va, vb, vc)), fn = out(n_fnma(va, vb, vc));
        lanes sq = out(n_sqrt(n_abs(va))), fl = out(n_floor(va));
        for (int i = 0; i < L; ++i) {
            float x = a.f[i], y = b.f[i], z = c.f[i];
            CHECK(same_bits(add.f[i], x + y), "add lane %d", i);
            CHECK(same_bits(sub.f[i], x - y), "sub lane %d", i);
            CHECK(same_bits(mul.f[i], x * y), "mul lane %d", i);
            CHECK(same_bits(div.f[i], x / y), "div lane %d", i);
            CHECK(same_bits(mn.f[i], x < y ? x : y), "min lane %d", i);
            CHECK(same_bits(mx.f[i], x > y ? x : y), "max lane %d", i);
            CHECK(same_bits(ab.f[i], fabsf(x)), "abs lane %d", i);
            CHECK(same_bits(ng.f[i], -x), "neg lane %d", i);
            /* correctly rounded square root on every ISA */
            CHECK(same_bits(sq.f[i], sqrtf(fabsf(x))), "sqrt lane %d: %.9g", i, (double)sq.f[i]);
            CHECK(same_bits(fl.f[i], floorf(x)), "floor lane %d: floor(%.9g) = %.9g", i, (double)x,
                  (double)fl.f[i]);
            /* fma: fused (one rounding) where the ISA has it, a product and
             * a sum (two roundings) on SSE4.1; the one-lane build may be
             * either, as its compiler contracts or not */
            float fused = fmaf(x, y, z), split = (float)(x * y) + z;
            float nfused = fmaf(-x, y, z), nsplit = z - (float)(x * y);
#if defined(__FMA__) || defined(__aarch64__)
            int want_fused = CIK_NATIVE_LANES > 1;
#else
            int want_fused = 0;
#endif
            if (CIK_NATIVE_LANES == 1) {
                CHECK(same_bits(fm.f[i], fused) || same_bits(fm.f[i], split), "fma lane %d", i);
                CHECK(same_bits(fn.f[i], nfused) || same_bits(fn.f[i], nsplit), "fnma lane %d", i);
            } else {
                CHECK(same_bits(fm.f[i], want_fused ? fused : split), "fma lane %d: %.9g, fused %.9g, split %.9g",
                      i, (double)fm.f[i], (double)fused, (double)split);
                CHECK(same_bits(fn.f[i], want_fused ? nfused : nsplit), "fnma lane %d", i);
            }
        }
    }
    /* floor at the edges: integers, halves, -0, beyond 2^23 (already whole) */
    const float edges[] = {0.0f, -0.0f, 0.5f, -0.5f, 1.0f, -1.0f, 2.5f, -2.5f, 8388607.5f, -8388607.5f,
                           16777216.0f, -16777217.0f, 1e-30f, -1e-30f, 3.0f, -3.0f};
    for (size_t k = 0; k < sizeof edges / sizeof edges[0]; ++k) {
        lanes f = out(n_floor(n_set1(edges[k])));
        for (int i = 0; i < L; ++i)
            CHECK(same_bits(f.f[i], floorf(edges[k])), "floor(%.9g) = %.9g", (double)edges[k], (double)f.f[i]);
    }
    /* truncation toward zero into int32 */
    const float conv[] = {-1.5f, -0.5f, 0.5f, 2.7f, -2.7f, 1e6f, -1e6f, 0.0f};
    for (size_t k = 0; k < sizeof conv / sizeof conv[0]; ++k) {
        _Alignas(64) int32_t iv[16];
        n_store_i32(iv, n_set1(conv[k]));
        for (int i = 0; i < L; ++i) CHECK(iv[i] == (int32_t)conv[k], "store_i32(%g) = %d", (double)conv[k], iv[i]);
    }
}

/* rsqrt with its Newton step(s): within 3 ulp of 1 / sqrt in double over
 * 1e-6 .. 1e6 (the kernels normalise with it; measured worst printed). */
static void check_rsqrt(void)
{
    double worst = 0;
    for (int k = 0; k <= 24000; ++k) {
        float x = (float)pow(10.0, -6.0 + 12.0 * k / 24000.0);
        lanes r = out(n_rsqrt(n_set1(x)));
        double want = 1.0 / sqrt((double)x);
        for (int i = 0; i < L; ++i) {
            double rel = fabs(r.f[i] - want) / want;
            if (rel > worst) worst = rel;
        }
    }
    /* one float ulp relative is 2^-23 at most; 3 ulp */
    CHECK(worst <= 3.0 * 0x1p-23, "rsqrt worst relative error %.3g (> 3 ulp)", worst);
#if CIK_EXACT_RSQRT
    /* CROWDIK_EXACT_RSQRT: 1 / sqrtf, both correctly rounded, bit for bit
     * (the same bits on every CPU maker) over every float of [1, 4), where
     * sqrt's mantissa takes each of its values, and a sweep of magnitudes */
    long differ = 0;
    for (uint32_t u = 0x3f800000u; u < 0x40800000u; u += 7) {
        float x;
        memcpy(&x, &u, sizeof x);
        lanes r = out(n_rsqrt(n_set1(x)));
        float want = 1.0f / sqrtf(x);
        for (int i = 0; i < L; ++i) differ += memcmp(&r.f[i], &want, sizeof want) != 0;
    }
    for (int k = 0; k <= 24000; ++k) {
        float x = (float)pow(10.0, -30.0 + 60.0 * k / 24000.0);
        lanes r = out(n_rsqrt(n_set1(x)));
        float want = 1.0f / sqrtf(x);
        for (int i = 0; i < L; ++i) differ += memcmp(&r.f[i], &want, sizeof want) != 0;
    }
    CHECK(differ == 0, "exact rsqrt: %ld lanes differ from 1 / sqrtf", differ);
    printf("vec_layer %s: exact rsqrt (CROWDIK_EXACT_RSQRT): 1 / sqrtf bit for bit\n", STR(CIK_ISA_BACKEND));
#endif
    printf("vec_layer %s: rsqrt worst relative error %.3g (%.2f ulp of 2^-23)\n", STR(CIK_ISA_BACKEND), worst,
           worst / 0x1p-23);
}

static void check_masks(void)
{
    float nan = NAN;
    for (int k = 0; k <= L; ++k) {
        cik_nm m = first_lanes(k);
        CHECK(m_any(m) == (k > 0), "any of %d lanes", k);
        CHECK(m_all(m) == (k == L), "all of %d lanes", k);
        lanes sel = out(n_sel(m, n_set1(2.0f), n_set1(-3.0f)));
        lanes nm = mask_lanes(m_not(m)), an = mask_lanes(m_and(m, first_lanes(k / 2))),
              orr = mask_lanes(m_or(m, first_lanes(L - k))), anot = mask_lanes(m_andnot(m, first_lanes(k / 2)));
        for (int i = 0; i < L; ++i) {
            CHECK(sel.f[i] == (i < k ? 2.0f : -3.0f), "select lane %d of %d", i, k);
            CHECK(nm.f[i] == (i < k ? 0.0f : 1.0f), "not lane %d of %d", i, k);
            CHECK(an.f[i] == (i < k / 2 ? 1.0f : 0.0f), "and lane %d of %d", i, k);
            CHECK(orr.f[i] == (i < k || i < L - k ? 1.0f : 0.0f), "or lane %d of %d", i, k);
            CHECK(anot.f[i] == (i < k && i >= k / 2 ? 1.0f : 0.0f), "andnot lane %d of %d", i, k);
        }
    }
    CHECK(!m_any(m_false()), "m_false has a lane set");
    /* comparisons are ordered: NaN compares false, so a NaN lane is never
     * selected by a comparison that passes for numbers */
    cik_nf one = n_set1(1.0f), vn = n_set1(nan);
    CHECK(!m_any(n_lt(vn, one)) && !m_any(n_le(vn, one)) && !m_any(n_gt(vn, one)) && !m_any(n_ge(vn, one)) &&
              !m_any(n_eq(vn, vn)),
          "a comparison with NaN is true");
    CHECK(m_all(n_le(one, one)) && m_all(n_ge(one, one)) && m_all(n_eq(one, one)) && !m_any(n_lt(one, one)) &&
              !m_any(n_gt(one, one)),
          "comparisons of equal values");
    /* the wide layer: CIK_IL native vectors, any/all across all of them */
    _Alignas(64) float w[CIK_LANES];
    for (int k = 0; k <= CIK_LANES; ++k) {
        for (int i = 0; i < CIK_LANES; ++i) w[i] = (float)i;
        vm m = v_lt(v_load(w), v_set1((float)k));
        CHECK(w_any(m) == (k > 0), "wide any of %d lanes", k);
        CHECK(w_all(m) == (k == CIK_LANES), "wide all of %d lanes", k);
        v_store(w, v_sel(m, v_fma(v_set1(2.0f), v_set1(3.0f), v_set1(1.0f)), v_sqrt(v_set1(0.25f))));
        for (int i = 0; i < CIK_LANES; ++i)
            CHECK(w[i] == (i < k ? 7.0f : 0.5f), "wide select lane %d of %d: %g", i, k, (double)w[i]);
    }
}

/* Cell indices and gathers: lane i's row * stride + column, and the
 * float at that index plus an offset, against plain int arithmetic and
 * loads, native and wide; indices near the int32 limit. */
static void check_gather(void)
{
    enum { N = 4096 };
    static float table[N];
    for (int k = 0; k < N; ++k) table[k] = 0.5f * (float)k - 7.0f;
    uint32_t seed = 777;
    for (int rep = 0; rep < 500; ++rep) {
        const int32_t stride = 1 + (int32_t)(rep % 63);
        lanes col, row;
        int32_t want[16];
        for (int i = 0; i < L; ++i) {
            seed = seed * 1664525u + 1013904223u;
            int32_t r = (int32_t)((seed >> 8) % (uint32_t)(N / 64 - 2)) + 1, c = (int32_t)((seed >> 20) % (uint32_t)stride);
            row.f[i] = (float)r;
            col.f[i] = (float)c;
            want[i] = r * stride + c;
        }
        cik_ni idx = n_cell(n_load(col.f), n_load(row.f), stride);
        _Alignas(64) int32_t got[16];
        n_store_ni(got, idx);
        const int32_t off = (int32_t)(rep % 5) - 2, off2 = (int32_t)(rep % 7) * stride - 3;
        cik_nf g4[4], g22[4];
        n_gather4(table, n_load_ni(got), off, g4);
        n_gather22(table, n_load_ni(got), off, off2, g22);
        for (int i = 0; i < L; ++i) {
            CHECK(got[i] == want[i], "cell lane %d: %d, not %d", i, (int)got[i], (int)want[i]);
            for (int k = 0; k < 4; ++k) {
                lanes a = out(g4[k]), b = out(g22[k]);
                const int32_t at = want[i] + off + k, at2 = want[i] + (k < 2 ? off + k : off2 + k - 2);
                CHECK(same_bits(a.f[i], table[at]), "gather4 lane %d float %d (index %d + %d)", i, k, (int)want[i],
                      (int)off);
                CHECK(same_bits(b.f[i], table[at2]), "gather22 lane %d float %d (index %d + %d, %d)", i, k,
                      (int)want[i], (int)off, (int)off2);
            }
        }
    }
    /* the largest index a heightfield row may reach */
    lanes col, row;
    for (int i = 0; i < L; ++i) {
        col.f[i] = (float)(46339 - i);
        row.f[i] = 46339.0f;
    }
    _Alignas(64) int32_t big[16];
    n_store_ni(big, n_cell(n_load(col.f), n_load(row.f), 46340));
    for (int i = 0; i < L; ++i)
        CHECK(big[i] == 46339 * 46340 + 46339 - i, "large cell lane %d: %d", i, (int)big[i]);
    /* the wide layer */
    _Alignas(64) float wc[CIK_LANES], wr[CIK_LANES];
    _Alignas(64) int32_t wi[CIK_LANES];
    for (int i = 0; i < CIK_LANES; ++i) {
        wc[i] = (float)(i % 7);
        wr[i] = (float)(1 + i);
    }
    vi c = v_cell(v_load(wc), v_load(wr), 9);
    v_store_ni(wi, c);
    _Alignas(64) float wg[4][CIK_LANES], wp[4][CIK_LANES];
    vf g4[4], g22[4];
    v_gather4(table, v_load_ni(wi), -9, g4);
    v_gather22(table, v_load_ni(wi), -9, 40, g22);
    for (int k = 0; k < 4; ++k) {
        v_store(wg[k], g4[k]);
        v_store(wp[k], g22[k]);
    }
    for (int i = 0; i < CIK_LANES; ++i) {
        CHECK(wi[i] == (1 + i) * 9 + i % 7, "wide cell lane %d", i);
        for (int k = 0; k < 4; ++k) {
            CHECK(same_bits(wg[k][i], table[i * 9 + i % 7 + k]), "wide gather4 lane %d float %d", i, k);
            CHECK(same_bits(wp[k][i], table[wi[i] + (k < 2 ? -9 + k : 40 + k - 2)]), "wide gather22 lane %d float %d", i, k);
        }
    }
}

int main(void)
{
    if (!cik_backend_available(CAT(CIK_BACKEND_, CIK_ISA_BACKEND))) {
        printf("vec_layer %s: this CPU does not run it, skipped\n", STR(CIK_ISA_BACKEND));
        return 77;
    }
    check_arithmetic();
    check_rsqrt();
    check_masks();
    check_gather();
    if (failures) {
        fprintf(stderr, "vec_layer %s: %d checks failed\n", STR(CIK_ISA_BACKEND), failures);
        return 1;
    }
    printf("vec_layer %s: %d lanes, every check held\n", STR(CIK_ISA_BACKEND), L);
    return 0;
}
