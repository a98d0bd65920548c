/*
 * Interleaving: the kernel's vector `vf` is CIK_IL native vectors side by
 * side, every operation applied to each. A CCD joint step is one long
 * dependency chain, so one native vector leaves the FMA pipes idle while it
 * waits on latency; running CIK_IL independent blocks through the same
 * instructions fills them. Include after a vec_<isa>.h, with CIK_IL defined.
 */
#ifndef CIK_VEC_WIDE_H
#define CIK_VEC_WIDE_H

#ifndef CIK_IL
#error "define CIK_IL (native vectors interleaved per kernel vector)"
#endif

#define CIK_LANES (CIK_NATIVE_LANES * CIK_IL)

typedef struct { cik_nf v[CIK_IL]; } vf;
typedef struct { cik_nm m[CIK_IL]; } vm;
typedef struct { cik_ni v[CIK_IL]; } vi;

#define CIK_EACH for (int i_ = 0; i_ < CIK_IL; ++i_)

CIK_INLINE vf v_load(const float *p) { vf r; CIK_EACH r.v[i_] = n_load(p + i_ * CIK_NATIVE_LANES); return r; }
CIK_INLINE void v_store(float *p, vf a) { CIK_EACH n_store(p + i_ * CIK_NATIVE_LANES, a.v[i_]); }
CIK_INLINE void v_store_i32(int32_t *p, vf a) { CIK_EACH n_store_i32(p + i_ * CIK_NATIVE_LANES, a.v[i_]); }
CIK_INLINE vf v_set1(float x) { vf r; CIK_EACH r.v[i_] = n_set1(x); return r; }

#define CIK_WIDE1(name) \
    CIK_INLINE vf v_##name(vf a) { vf r; CIK_EACH r.v[i_] = n_##name(a.v[i_]); return r; }
#define CIK_WIDE2(name) \
    CIK_INLINE vf v_##name(vf a, vf b) { vf r; CIK_EACH r.v[i_] = n_##name(a.v[i_], b.v[i_]); return r; }
#define CIK_WIDE3(name) \
    CIK_INLINE vf v_##name(vf a, vf b, vf c) \
    { vf r; CIK_EACH r.v[i_] = n_##name(a.v[i_], b.v[i_], c.v[i_]); return r; }
#define CIK_WIDE_CMP(name) \
    CIK_INLINE vm v_##name(vf a, vf b) { vm r; CIK_EACH r.m[i_] = n_##name(a.v[i_], b.v[i_]); return r; }

CIK_WIDE2(add) CIK_WIDE2(sub) CIK_WIDE2(mul) CIK_WIDE2(div) CIK_WIDE2(min) CIK_WIDE2(max)
CIK_WIDE3(fma) CIK_WIDE3(fnma)
CIK_WIDE1(abs) CIK_WIDE1(neg) CIK_WIDE1(sqrt) CIK_WIDE1(rsqrt) CIK_WIDE1(floor)
CIK_WIDE_CMP(lt) CIK_WIDE_CMP(le) CIK_WIDE_CMP(gt) CIK_WIDE_CMP(ge) CIK_WIDE_CMP(eq)

CIK_INLINE vf v_sel(vm m, vf a, vf b) { vf r; CIK_EACH r.v[i_] = n_sel(m.m[i_], a.v[i_], b.v[i_]); return r; }
CIK_INLINE vm w_and(vm a, vm b) { vm r; CIK_EACH r.m[i_] = m_and(a.m[i_], b.m[i_]); return r; }
CIK_INLINE vm w_or(vm a, vm b) { vm r; CIK_EACH r.m[i_] = m_or(a.m[i_], b.m[i_]); return r; }
CIK_INLINE vm w_andnot(vm a, vm b) { vm r; CIK_EACH r.m[i_] = m_andnot(a.m[i_], b.m[i_]); return r; }
CIK_INLINE vm w_not(vm a) { vm r; CIK_EACH r.m[i_] = m_not(a.m[i_]); return r; }
CIK_INLINE vm w_false(void) { vm r; CIK_EACH r.m[i_] = m_false(); return r; }
CIK_INLINE int w_any(vm a) { int r = 0; CIK_EACH r |= m_any(a.m[i_]); return r; }
CIK_INLINE int w_all(vm a) { int r = 1; CIK_EACH r &= m_all(a.m[i_]); return r; }

CIK_INLINE vi v_cell(vf col, vf row, int32_t stride) { vi r; CIK_EACH r.v[i_] = n_cell(col.v[i_], row.v[i_], stride); return r; }
CIK_INLINE vi v_load_ni(const int32_t *p) { vi r; CIK_EACH r.v[i_] = n_load_ni(p + i_ * CIK_NATIVE_LANES); return r; }
CIK_INLINE void v_store_ni(int32_t *p, vi a) { CIK_EACH n_store_ni(p + i_ * CIK_NATIVE_LANES, a.v[i_]); }
/* n_gather4 and n_gather22 on each native vector. */
CIK_INLINE void v_gather4(const float *base, vi idx, int32_t off, vf out[4])
{
    CIK_EACH {
        cik_nf o[4];
        n_gather4(base, idx.v[i_], off, o);
        for (int k = 0; k < 4; ++k) out[k].v[i_] = o[k];
    }
}
CIK_INLINE void v_gather22(const float *base, vi idx, int32_t a, int32_t b, vf out[4])
{
    CIK_EACH {
        cik_nf o[4];
        n_gather22(base, idx.v[i_], a, b, o);
        for (int k = 0; k < 4; ++k) out[k].v[i_] = o[k];
    }
}

#endif
