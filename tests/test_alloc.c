/*
 * cik_solve and the foot-placement frame allocate nothing: the C allocator
 * is interposed in this executable (forwarding to glibc's own entry points)
 * and every call made while counting is on is counted, from any thread.
 * Both are checked on every backend this CPU runs, with one and two threads.
 */
#include "common.h"
#include "legs.h"

#include <crowdik/foot.h>

#if defined(__SANITIZE_ADDRESS__)
#define T_NO_INTERPOSE 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) || __has_feature(thread_sanitizer)
#define T_NO_INTERPOSE 1
#endif
#endif
#if !defined(__GLIBC__)
#define T_NO_INTERPOSE 1
#endif

#ifndef T_NO_INTERPOSE
#include <errno.h>
#include <stdatomic.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);

static atomic_int counting;
static atomic_long calls;

static void note(void)
{
    if (atomic_load_explicit(&counting, memory_order_relaxed)) atomic_fetch_add(&calls, 1);
}

void *malloc(size_t n)
{
    note();
    return __libc_malloc(n);
}
void *calloc(size_t a, size_t b)
{
    note();
    return __libc_calloc(a, b);
}
void *realloc(void *p, size_t n)
{
    note();
    return __libc_realloc(p, n);
}
void free(void *p)
{
    if (p) note();
    __libc_free(p);
}
void *memalign(size_t align, size_t n)
{
    note();
    return __libc_memalign(align, n);
}
void *aligned_alloc(size_t align, size_t n)
{
    note();
    return __libc_memalign(align, n);
}
int posix_memalign(void **out, size_t align, size_t n)
{
    note();
    if (align < sizeof(void *) || (align & (align - 1)) != 0) return EINVAL;
    void *p = __libc_memalign(align, n);
    if (!p && n) return ENOMEM;
    *out = p;
    return 0;
}

static long counted(cik_batch *b, const cik_options *o)
{
    atomic_store(&calls, 0);
    atomic_store(&counting, 1);
    cik_status st = cik_solve(b, o);
    atomic_store(&counting, 0);
    cr_assert_eq(st, CIK_OK);
    return atomic_load(&calls);
}

Test(alloc, interposition_works)
{
    /* the counter sees this file's own allocations */
    atomic_store(&calls, 0);
    atomic_store(&counting, 1);
    void *volatile p = malloc(64);
    free(p);
    atomic_store(&counting, 0);
    cr_assert_eq(atomic_load(&calls), 2);
}

T_BACKEND_TEST(alloc, solve_allocates_nothing)
{
    const int n = 1000, J = 5;
    cik_batch *b = t_workload_batch(WL_RANDOM, 9, n, J);
    /* the very first solves: OpenMP may build its thread pool here */
    cik_options first = t_options(CIK_BACKEND_AUTO, 2);
    long first_calls = counted(b, &first);
    cr_log_info("alloc: the first solve (auto, 2 threads) made %ld allocator calls (thread pool set-up)",
                first_calls);
    const int threads[] = {1, 2};
    for (int t = 0; t < 2; ++t) {
        cik_options o = t_options(be, threads[t]);
        cr_assert_eq(wl_fill(b, WL_RANDOM, 9, 0), CIK_OK);
        long c = counted(b, &o);
        cr_assert_eq(c, 0, "%s with %d threads: %ld allocator calls during cik_solve", cik_backend_name(be),
                     threads[t], c);
        /* and a second solve, from the solved pose */
        c = counted(b, &o);
        cr_assert_eq(c, 0, "%s with %d threads (second solve): %ld allocator calls", cik_backend_name(be),
                     threads[t], c);
    }
    /* refusals allocate nothing either */
    cik_options bad = t_options(CIK_BACKEND_AUTO, 1);
    bad.threshold = -1.0f;
    atomic_store(&calls, 0);
    atomic_store(&counting, 1);
    cik_status st = cik_solve(b, &bad);
    atomic_store(&counting, 0);
    cr_assert_eq(st, CIK_ERROR_OPTIONS);
    cr_assert_eq(atomic_load(&calls), 0);
    cik_batch_destroy(b);
}

/* Heights of a 5 cm bump field, 33 x 33 samples, 0.5 m apart. */
enum { HF_N = 33 };
static float hf_heights[HF_N * HF_N];

/* Frames of a crowd on backend `be`, one and two threads; returns the
 * frames checked. */
static int foot_frames(int characters, cik_backend be)
{
    cik_foot_leg legs[2];
    legs_adult(1.0f, legs);
    for (int iz = 0; iz < HF_N; ++iz)
        for (int ix = 0; ix < HF_N; ++ix)
            hf_heights[iz * HF_N + ix] = 0.05f * sinf(0.7f * (float)ix) * cosf(0.9f * (float)iz);
    cik_heightfield hf = {-8.0f, -8.0f, 0.5f, 0.5f, HF_N, HF_N, hf_heights};

    cik_foot_crowd *crowd = NULL;
    cr_assert_eq(cik_foot_crowd_create(characters, legs, &crowd), CIK_OK);
    cik_foot_streams st;
    cr_assert_eq(cik_foot_crowd_streams(crowd, &st), CIK_OK);
    /* characters on a grid, a slight stance: hips and knees bent */
    cik_quat hip = t_angle_axis(-0.3, 1, 0, 0), knee = t_angle_axis(0.5, 1, 0, 0),
             ankle = t_angle_axis(-0.2, 1, 0, 0);
    for (int c = 0; c < characters; ++c) {
        st.pelvis_x[c] = -7.0f + 0.8f * (float)(c % 18);
        st.pelvis_y[c] = 0.93f;
        st.pelvis_z[c] = -7.0f + 0.8f * (float)(c / 18);
        st.pelvis_qx[c] = st.pelvis_qy[c] = st.pelvis_qz[c] = 0.0f;
        st.pelvis_qw[c] = 1.0f;
        for (int side = 0; side < 2; ++side) {
            int f = 2 * c + side;
            const cik_quat q[3] = {hip, knee, ankle};
            for (int j = 0; j < 3; ++j) {
                st.pose_x[j][f] = q[j].x;
                st.pose_y[j][f] = q[j].y;
                st.pose_z[j][f] = q[j].z;
                st.pose_w[j][f] = q[j].w;
            }
            st.weight[f] = side ? 1.0f : 0.5f;
        }
    }
    /* the first frame and the first staged solve may set up OpenMP's
     * thread pool (below 2,048 feet the frame's stages run on one thread,
     * the solve alone may still use two) */
    cik_foot_options o = cik_foot_default_options();
    o.solver.threads = 2;
    cr_assert_eq(cik_foot_crowd_frame(crowd, &hf, &o), CIK_OK);
    cr_assert_eq(cik_foot_crowd_solve(crowd, &o), CIK_OK);
    int checked = 0;
    for (int threads = 1; threads <= 2; ++threads) {
        o = cik_foot_default_options();
        o.solver.backend = be;
        o.solver.threads = threads;
        for (int frame = 0; frame < 2; ++frame) {
            atomic_store(&calls, 0);
            atomic_store(&counting, 1);
            cik_status s = cik_foot_crowd_frame(crowd, &hf, &o);
            atomic_store(&counting, 0);
            cr_assert_eq(s, CIK_OK, "%s: frame refused", cik_backend_name(be));
            long c = atomic_load(&calls);
            cr_assert_eq(c, 0, "%s with %d threads, frame %d: %ld allocator calls during cik_foot_crowd_frame",
                         cik_backend_name(be), threads, frame, c);
            ++checked;
        }
    }
    /* the stages one by one, and a refused frame */
    atomic_store(&calls, 0);
    atomic_store(&counting, 1);
    cik_status s1 = cik_foot_crowd_probe(crowd, &o), s2 = cik_foot_crowd_ground_heightfield(crowd, &hf, &o),
               s3 = cik_foot_crowd_place(crowd, &o), s4 = cik_foot_crowd_solve(crowd, &o),
               s5 = cik_foot_crowd_align(crowd, &o);
    cik_foot_options bad = o;
    bad.dt = -1.0f;
    cik_status s6 = cik_foot_crowd_frame(crowd, &hf, &bad);
    atomic_store(&counting, 0);
    cr_assert(s1 == CIK_OK && s2 == CIK_OK && s3 == CIK_OK && s4 == CIK_OK && s5 == CIK_OK);
    cr_assert_neq(s6, CIK_OK, "a negative dt was accepted");
    cr_assert_eq(atomic_load(&calls), 0, "%ld allocator calls in the separate stages", atomic_load(&calls));
    cik_foot_crowd_destroy(crowd);
    return checked;
}

T_BACKEND_TEST(alloc, foot_frame_allocates_nothing)
{
    /* 600 feet: the frame runs on the calling thread (a staged solve on
     * two); 2200 feet: the frame runs on two threads */
    const int sizes[] = {300, 1100};
    for (int k = 0; k < 2; ++k) {
        int checked = foot_frames(sizes[k], be);
        cr_log_info("alloc: %s: %d foot-placement frames of %d characters made no allocator call",
                    cik_backend_name(be), checked, sizes[k]);
    }
}

#else

Test(alloc, solve_allocates_nothing)
{
    cr_skip_test("the allocator cannot be interposed in this build (sanitizer or not glibc)");
}

Test(alloc, foot_frame_allocates_nothing)
{
    cr_skip_test("the allocator cannot be interposed in this build (sanitizer or not glibc)");
}

#endif
