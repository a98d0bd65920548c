/*
 * The foot frame in an engine: ranges of characters from the engine's own
 * threads (bitwise the frame, whatever the split, on every backend), the
 * crowd's memory from the engine's allocator, the engine's units, the frame
 * time per call, and stages that take their threads and backend as
 * arguments (no state kept from an earlier call).
 */
#include "common.h"
#include "foot_common.h"
#include "legs.h"

#include <crowdik/foot.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

/* ------------------------------------------------------------ the scene */

/* Characters in the threaded scenes: 2,200 feet (the frame's OpenMP split
 * starts at 2,048), and a count that is no multiple of
 * CIK_FOOT_RANGE_ALIGNMENT, so that the last range ends mid-vector. */
enum { CHARS = 1100 };


/* A rolling ground, `scale` units a metre. */
enum { HN = 65 };
static float heights_m[HN * HN], heights_cm[HN * HN];
static cik_heightfield ground(float scale)
{
    float *h = scale == 1.0f ? heights_m : heights_cm;
    for (int iz = 0; iz < HN; ++iz)
        for (int ix = 0; ix < HN; ++ix) {
            float x = -16.0f + 0.5f * (float)ix, z = -16.0f + 0.5f * (float)iz;
            h[iz * HN + ix] = scale * (0.12f * sinf(0.7f * x) + 0.08f * cosf(0.9f * z + 0.3f * x));
        }
    cik_heightfield hf = {-16.0f * scale, -16.0f * scale, 0.5f * scale, 0.5f * scale, HN, HN, h};
    return hf;
}

static void scene_init(scene *sc, int characters, float scale, const cik_allocator *a)
{
    legs_adult(1.0f, sc->legs);
    for (int side = 0; side < 2; ++side) {
        cik_foot_leg *l = &sc->legs[side];
        l->hip = t_v3(l->hip.x * scale, l->hip.y * scale, l->hip.z * scale);
        l->thigh = t_v3(l->thigh.x * scale, l->thigh.y * scale, l->thigh.z * scale);
        l->shin = t_v3(l->shin.x * scale, l->shin.y * scale, l->shin.z * scale);
        l->ankle_height *= scale;
    }
    cr_assert_eq(cik_foot_crowd_create_with(characters, sc->legs, a, &sc->crowd), CIK_OK);
    cr_assert_eq(cik_foot_crowd_streams(sc->crowd, &sc->s), CIK_OK);
}

/* Frame `t`'s animated pose: characters on a grid, walking, knees bent,
 * some feet swinging. */
static void pose(scene *sc, int t, float scale)
{
    const int n = sc->s.character_count;
    for (int c = 0; c < n; ++c) {
        float ph = 0.37f * (float)c + 0.21f * (float)t;
        set_pelvis_pose(sc, c, scale * (-14.0f + 0.8f * (float)(c % 36) + 0.02f * (float)t),
                        scale * (0.93f + 0.03f * sinf(ph)), scale * (-14.0f + 0.9f * (float)(c / 36)),
                        t_angle_axis(0.3 * c + 0.05 * t, 0, 1, 0));
        for (int side = 0; side < 2; ++side) {
            int f = 2 * c + side;
            float hip = 0.25f * sinf(ph + 3.1f * (float)side), knee = 0.2f + 0.15f * (1.0f + sinf(ph + 1.0f));
            const cik_quat q[3] = {t_angle_axis(-hip, 1, 0, 0), t_angle_axis(knee, 1, 0, 0),
                                   t_angle_axis(hip - knee, 1, 0, 0)};
            set_joints(sc, f, q);
            sc->s.weight[f] = (f + t) % 5 == 0 ? 0.0f : ((f + t) % 7 == 0 ? 0.5f : 1.0f);
        }
    }
}

/* Every output stream, the batch's rotations and results: bitwise equal. */
static void assert_same(const scene *a, const scene *b, const char *what)
{
    const cik_foot_streams *x = &a->s, *y = &b->s;
    const size_t nc = (size_t)x->character_count * sizeof(float), nf = (size_t)x->foot_count * sizeof(float);
    cr_assert(memcmp(x->pelvis_drop, y->pelvis_drop, nc) == 0, "%s: pelvis drop", what);
    const float *fa[] = {x->weight,  x->planted,  x->locked,  x->pivot,   x->anim_ankle_x, x->anim_ankle_y,
                         x->anim_ankle_z, x->target_x, x->target_y, x->target_z, x->ankle_x, x->ankle_y,
                         x->ankle_z, x->foot_qx, x->foot_qy, x->foot_qz, x->foot_qw};
    const float *fb[] = {y->weight,  y->planted,  y->locked,  y->pivot,   y->anim_ankle_x, y->anim_ankle_y,
                         y->anim_ankle_z, y->target_x, y->target_y, y->target_z, y->ankle_x, y->ankle_y,
                         y->ankle_z, y->foot_qx, y->foot_qy, y->foot_qz, y->foot_qw};
    for (size_t i = 0; i < sizeof fa / sizeof fa[0]; ++i)
        cr_assert(memcmp(fa[i], fb[i], nf) == 0, "%s: foot stream %zu", what, i);
    for (int p = 0; p < CIK_FOOT_POINTS; ++p) {
        const float *pa[] = {x->probe_x[p],    x->probe_z[p], x->contact_y[p], x->contact_nx[p], x->contact_ny[p],
                             x->contact_nz[p], x->point_x[p], x->point_y[p],   x->point_z[p]};
        const float *pb[] = {y->probe_x[p],    y->probe_z[p], y->contact_y[p], y->contact_nx[p], y->contact_ny[p],
                             y->contact_nz[p], y->point_x[p], y->point_y[p],   y->point_z[p]};
        for (size_t i = 0; i < sizeof pa / sizeof pa[0]; ++i)
            cr_assert(memcmp(pa[i], pb[i], nf) == 0, "%s: point %d, stream %zu", what, p, i);
    }
    for (int j = 0; j < 3; ++j)
        cr_assert(memcmp(x->solved_x[j], y->solved_x[j], nf) == 0 && memcmp(x->solved_y[j], y->solved_y[j], nf) == 0 &&
                      memcmp(x->solved_z[j], y->solved_z[j], nf) == 0 && memcmp(x->solved_w[j], y->solved_w[j], nf) == 0,
                  "%s: solved rotations of joint %d", what, j);
    for (int f = 0; f < x->foot_count; ++f) {
        cik_result ra, rb;
        cr_assert_eq(cik_batch_result(cik_foot_crowd_batch(a->crowd), f, &ra), CIK_OK);
        cr_assert_eq(cik_batch_result(cik_foot_crowd_batch(b->crowd), f, &rb), CIK_OK);
        cr_assert(memcmp(&ra.error, &rb.error, sizeof ra.error) == 0 && ra.iterations == rb.iterations &&
                      ra.flags == rb.flags,
                  "%s: leg %d's result", what, f);
    }
}

/* ----------------------------------------------------- ranges from threads */

/* A tiny job queue over one plan: each worker takes the next `grain`
 * characters until none are left. */
typedef struct jobs {
    const cik_foot_frame_plan *plan;
    atomic_int next;
    int count, grain;
    atomic_int failed;
} jobs;

static void *worker(void *arg)
{
    jobs *j = (jobs *)arg;
    for (;;) {
        int b = atomic_fetch_add(&j->next, j->grain);
        if (b >= j->count) break;
        int e = b + j->grain < j->count ? b + j->grain : j->count;
        if (cik_foot_crowd_frame_range(j->plan, b, e) != CIK_OK) atomic_store(&j->failed, 1);
    }
    return NULL;
}

T_BACKEND_TEST(foot_engine, ranges_from_threads_equal_the_frame)
{
    enum { THREADS = 4 };
    scene a, b;
    scene_init(&a, CHARS, 1.0f, NULL);
    scene_init(&b, CHARS, 1.0f, NULL);
    cik_heightfield hf = ground(1.0f);
    cik_foot_options o = cik_foot_default_options();
    o.solver.backend = be;
    const int grains[] = {32, 64, 160, 1024, CHARS};
    for (int t = 0; t < 10; ++t) {
        pose(&a, t, 1.0f);
        pose(&b, t, 1.0f);
        /* a variable frame rate, so that the smoothing state matters */
        const float dt = t % 3 == 0 ? 1.0f / 30.0f : 1.0f / 60.0f;
        cr_assert_eq(cik_foot_crowd_frame_dt(a.crowd, &hf, &o, dt), CIK_OK);
        cik_foot_frame_plan plan;
        cr_assert_eq(cik_foot_crowd_frame_plan_init(&plan, b.crowd, &hf, &o, dt), CIK_OK);
        jobs j;
        j.plan = &plan;
        atomic_init(&j.next, 0);
        atomic_init(&j.failed, 0);
        j.count = CHARS;
        j.grain = grains[t % 5];
        pthread_t th[THREADS];
        for (int i = 0; i < THREADS; ++i) cr_assert_eq(pthread_create(&th[i], NULL, worker, &j), 0);
        for (int i = 0; i < THREADS; ++i) pthread_join(th[i], NULL);
        cr_assert_eq(atomic_load(&j.failed), 0, "a range was refused");
        char what[64];
        snprintf(what, sizeof what, "%s, frame %d, ranges of %d", cik_backend_name(be), t, j.grain);
        assert_same(&a, &b, what);
    }
    cik_foot_crowd_destroy(a.crowd);
    cik_foot_crowd_destroy(b.crowd);
}

Test(foot_engine, range_refusals_change_nothing)
{
    scene a, b;
    scene_init(&a, 100, 1.0f, NULL);
    scene_init(&b, 100, 1.0f, NULL);
    cik_heightfield hf = ground(1.0f);
    pose(&a, 0, 1.0f);
    pose(&b, 0, 1.0f);
    cik_foot_frame_plan plan, zero;
    memset(&zero, 0, sizeof zero);
    cik_foot_options bad = cik_foot_default_options();
    bad.max_pelvis_drop = -1.0f;
    /* refused inits: bad options, dt, heightfield, null arguments */
    cr_assert_eq(cik_foot_crowd_frame_plan_init(&plan, b.crowd, &hf, &bad, 0.0f), CIK_ERROR_OPTIONS);
    cr_assert_eq(cik_foot_crowd_frame_plan_init(&plan, b.crowd, &hf, NULL, -0.01f), CIK_ERROR_ARGUMENT);
    cr_assert_eq(cik_foot_crowd_frame_plan_init(&plan, b.crowd, &hf, NULL, NAN), CIK_ERROR_ARGUMENT);
    cr_assert_eq(cik_foot_crowd_frame_plan_init(&plan, b.crowd, NULL, NULL, 0.0f), CIK_ERROR_ARGUMENT);
    cr_assert_eq(cik_foot_crowd_frame_plan_init(NULL, b.crowd, &hf, NULL, 0.0f), CIK_ERROR_ARGUMENT);
    cr_assert_eq(cik_foot_crowd_frame_plan_init(&plan, NULL, &hf, NULL, 0.0f), CIK_ERROR_ARGUMENT);
    cr_assert_eq(cik_foot_crowd_frame_range(&zero, 0, 32), CIK_ERROR_ARGUMENT);
    cr_assert_eq(cik_foot_crowd_frame_range(NULL, 0, 32), CIK_ERROR_ARGUMENT);
    cr_assert_eq(cik_foot_crowd_frame_plan_init(&plan, b.crowd, &hf, NULL, 0.0f), CIK_OK);
    /* refused ranges: out of bounds, reversed, a bound inside a vector */
    const int bad_ranges[][2] = {{-32, 0}, {0, 101}, {64, 32}, {16, 64}, {0, 48}, {33, 100}, {96, 99}};
    for (size_t i = 0; i < sizeof bad_ranges / sizeof bad_ranges[0]; ++i)
        cr_assert_eq(cik_foot_crowd_frame_range(&plan, bad_ranges[i][0], bad_ranges[i][1]), CIK_ERROR_ARGUMENT,
                     "[%d, %d)", bad_ranges[i][0], bad_ranges[i][1]);
    /* the accepted ranges, in any order, one of them empty: the frame */
    cr_assert_eq(cik_foot_crowd_frame_range(&plan, 96, 100), CIK_OK);
    cr_assert_eq(cik_foot_crowd_frame_range(&plan, 32, 96), CIK_OK);
    cr_assert_eq(cik_foot_crowd_frame_range(&plan, 100, 100), CIK_OK);
    cr_assert_eq(cik_foot_crowd_frame_range(&plan, 0, 32), CIK_OK);
    cr_assert_eq(cik_foot_crowd_frame(a.crowd, &hf, NULL), CIK_OK);
    assert_same(&a, &b, "ranges after refusals");
    cik_foot_crowd_destroy(a.crowd);
    cik_foot_crowd_destroy(b.crowd);
}

/* ------------------------------------------------------------- allocator */

typedef struct counter {
    long live, calls;
    size_t live_bytes;
    int fail_after; /* refuse the call after this many (-1: never) */
    int misalign;   /* hand out memory 16 bytes off its alignment */
} counter;

static void *count_allocate(void *user, size_t size, size_t alignment)
{
    counter *c = (counter *)user;
    if (c->fail_after >= 0 && c->calls >= c->fail_after) return NULL;
    ++c->calls;
    size_t al = alignment < 64 ? 64 : alignment;
    unsigned char *p = (unsigned char *)aligned_alloc(al, (size + 16 + al - 1) / al * al + al);
    if (!p) return NULL;
    ++c->live;
    c->live_bytes += size;
    return c->misalign ? p + 16 : p;
}

static void count_free(void *user, void *p, size_t size)
{
    counter *c = (counter *)user;
    --c->live;
    c->live_bytes -= size;
    free(c->misalign ? (unsigned char *)p - 16 : p);
}

Test(foot_engine, allocator_gets_everything_back)
{
    counter c = {0, 0, 0, -1, 0};
    cik_allocator a = {count_allocate, count_free, &c};
    scene sc, ref;
    scene_init(&sc, 300, 1.0f, &a);
    scene_init(&ref, 300, 1.0f, NULL);
    const long made = c.calls;
    /* the crowd, its streams, its legs, and both batches (the crowd's and
     * the one-chain trial batch, two allocations each, crowdik.h) */
    cr_assert_eq(made, 7, "%ld allocations, not the crowd's 7", made);
    cr_assert_eq(c.live, made);
    /* frames allocate nothing, and give the bits of a malloc'd crowd */
    cik_heightfield hf = ground(1.0f);
    for (int t = 0; t < 3; ++t) {
        pose(&sc, t, 1.0f);
        pose(&ref, t, 1.0f);
        cr_assert_eq(cik_foot_crowd_frame(sc.crowd, &hf, NULL), CIK_OK);
        cr_assert_eq(cik_foot_crowd_frame(ref.crowd, &hf, NULL), CIK_OK);
    }
    cr_assert_eq(c.calls, made, "a frame called the allocator");
    assert_same(&sc, &ref, "allocator");
    cik_foot_crowd_destroy(sc.crowd);
    cik_foot_crowd_destroy(ref.crowd);
    cr_assert_eq(c.live, 0, "%ld allocations not freed", c.live);
    cr_assert_eq(c.live_bytes, 0, "free was given other sizes than allocate");

    /* every allocation failing in turn: OUT_OF_MEMORY, all given back, *out kept */
    cik_foot_leg legs[2];
    legs_adult(1.0f, legs);
    for (int k = 0; k < made; ++k) {
        counter f = {0, 0, 0, k, 0};
        cik_allocator fa = {count_allocate, count_free, &f};
        cik_foot_crowd *keep = (cik_foot_crowd *)&f;
        cr_assert_eq(cik_foot_crowd_create_with(300, legs, &fa, &keep), CIK_ERROR_OUT_OF_MEMORY, "failing call %d", k);
        cr_assert(keep == (cik_foot_crowd *)&f, "a refused create wrote *out");
        cr_assert_eq(f.live, 0, "failing call %d: %ld allocations kept", k, f.live);
    }
    /* memory less aligned than asked for, or an allocator without free */
    counter m = {0, 0, 0, -1, 1};
    cik_allocator ma = {count_allocate, count_free, &m};
    cik_foot_crowd *cr = NULL;
    cr_assert_eq(cik_foot_crowd_create_with(10, legs, &ma, &cr), CIK_ERROR_ARGUMENT);
    cr_assert_eq(m.live, 0);
    cik_allocator half = {count_allocate, NULL, &m};
    cr_assert_eq(cik_foot_crowd_create_with(10, legs, &half, &cr), CIK_ERROR_ARGUMENT);
    cr_assert_null(cr);
}

/* ----------------------------------------------------------------- units */

Test(foot_engine, centimetres_give_the_poses_of_metres)
{
    enum { N = 200 };
    scene m, cm, raw;
    scene_init(&m, N, 1.0f, NULL);
    scene_init(&cm, N, 100.0f, NULL);
    scene_init(&raw, N, 100.0f, NULL);
    cik_heightfield hm = ground(1.0f), hc = ground(100.0f);
    cik_foot_options om = cik_foot_default_options(), oc = om;
    oc.units_per_metre = 100.0f;
    float worst_pos = 0.0f, worst_rot = 0.0f, worst_drop = 0.0f, raw_drop = 0.0f;
    for (int t = 0; t < 12; ++t) {
        pose(&m, t, 1.0f);
        pose(&cm, t, 100.0f);
        pose(&raw, t, 100.0f);
        cr_assert_eq(cik_foot_crowd_frame(m.crowd, &hm, &om), CIK_OK);
        cr_assert_eq(cik_foot_crowd_frame(cm.crowd, &hc, &oc), CIK_OK);
        cr_assert_eq(cik_foot_crowd_frame(raw.crowd, &hc, &om), CIK_OK); /* units forgotten */
        for (int c = 0; c < N; ++c) {
            worst_drop = fmaxf(worst_drop, fabsf(cm.s.pelvis_drop[c] / 100.0f - m.s.pelvis_drop[c]));
            raw_drop = fmaxf(raw_drop, fabsf(raw.s.pelvis_drop[c] / 100.0f - m.s.pelvis_drop[c]));
        }
        for (int f = 0; f < 2 * N; ++f) {
            float d[3] = {cm.s.ankle_x[f] / 100.0f - m.s.ankle_x[f], cm.s.ankle_y[f] / 100.0f - m.s.ankle_y[f],
                          cm.s.ankle_z[f] / 100.0f - m.s.ankle_z[f]};
            worst_pos = fmaxf(worst_pos, sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]));
            for (int j = 0; j < 3; ++j) {
                float dot = cm.s.solved_x[j][f] * m.s.solved_x[j][f] + cm.s.solved_y[j][f] * m.s.solved_y[j][f] +
                            cm.s.solved_z[j][f] * m.s.solved_z[j][f] + cm.s.solved_w[j][f] * m.s.solved_w[j][f];
                worst_rot = fmaxf(worst_rot, 2.0f * acosf(fminf(1.0f, fabsf(dot))));
            }
        }
    }
    cr_log_info("cm vs m: ankle %g m, rotation %g rad, pelvis drop %g m; without units: drop %g m", worst_pos,
                worst_rot, worst_drop, raw_drop);
    /* the threshold is 0.2 mm: poses agree far within it */
    cr_assert_lt(worst_pos, 5e-5f, "ankles differ by %g m", worst_pos);
    cr_assert_lt(worst_rot, 4e-3f, "rotations differ by %g rad", worst_rot);
    cr_assert_lt(worst_drop, 5e-5f, "pelvis drops differ by %g m", worst_drop);
    /* and the scale is what makes them agree: the same crowd with the
     * metre options drops its pelvis by at most 0.3 cm */
    cr_assert_gt(raw_drop, 1e-2f, "the units did not matter (%g m)", raw_drop);
    cik_foot_options bad = oc;
    /* the last two: the scaled plant speed per frame underflows to 0, and
     * with a 10 m drop allowed the scaled drop overflows */
    const float bad_units[] = {0.0f, -1.0f, NAN, INFINITY, 1e-45f, 1e38f};
    for (size_t i = 0; i < sizeof bad_units / sizeof bad_units[0]; ++i) {
        bad.units_per_metre = bad_units[i];
        bad.max_pelvis_drop = i == 5 ? 10.0f : oc.max_pelvis_drop;
        cr_assert_eq(cik_foot_crowd_frame(cm.crowd, &hc, &bad), CIK_ERROR_OPTIONS, "units %g", bad_units[i]);
    }
    cik_foot_crowd_destroy(m.crowd);
    cik_foot_crowd_destroy(cm.crowd);
    cik_foot_crowd_destroy(raw.crowd);
}

/* ------------------------------------------------------ frame time per call */

Test(foot_engine, frame_time_per_call)
{
    enum { N = 64 };
    scene a, b, c;
    scene_init(&a, N, 1.0f, NULL);
    scene_init(&b, N, 1.0f, NULL);
    scene_init(&c, N, 1.0f, NULL);
    cik_heightfield hf = ground(1.0f);
    const float dts[] = {1.0f / 60.0f, 1.0f / 20.0f, 1.0f / 144.0f, 0.1f, 1.0f / 30.0f, 0.0f};
    cik_foot_options fixed = cik_foot_default_options();
    for (int t = 0; t < 6; ++t) {
        pose(&a, t, 1.0f);
        pose(&b, t, 1.0f);
        pose(&c, t, 1.0f);
        /* the frame time given per call equals options rewritten per frame */
        cik_foot_options rewritten = fixed;
        if (dts[t] > 0.0f) rewritten.dt = dts[t];
        cr_assert_eq(cik_foot_crowd_frame_dt(a.crowd, &hf, &fixed, dts[t]), CIK_OK);
        cr_assert_eq(cik_foot_crowd_frame(b.crowd, &hf, &rewritten), CIK_OK);
        /* and probe_dt and place_dt in the staged calls too (the contacts'
         * speeds and timers and the spring take the frame time) */
        cr_assert_eq(cik_foot_crowd_probe_dt(c.crowd, &fixed, dts[t]), CIK_OK);
        cr_assert_eq(cik_foot_crowd_ground_heightfield(c.crowd, &hf, &fixed), CIK_OK);
        cr_assert_eq(cik_foot_crowd_place_dt(c.crowd, &fixed, dts[t]), CIK_OK);
        cr_assert_eq(cik_foot_crowd_solve(c.crowd, &fixed), CIK_OK);
        cr_assert_eq(cik_foot_crowd_align(c.crowd, &fixed), CIK_OK);
        assert_same(&a, &b, "frame_dt against rewritten options");
        assert_same(&a, &c, "probe_dt and place_dt against frame_dt");
    }
    /* the frame time is used: a different one gives another pelvis */
    pose(&a, 9, 1.0f);
    pose(&b, 9, 1.0f);
    cr_assert_eq(cik_foot_crowd_frame_dt(a.crowd, &hf, &fixed, 0.001f), CIK_OK);
    cr_assert_eq(cik_foot_crowd_frame_dt(b.crowd, &hf, &fixed, 0.2f), CIK_OK);
    int moved = 0;
    for (int i = 0; i < N; ++i) moved += a.s.pelvis_drop[i] != b.s.pelvis_drop[i];
    cr_assert_gt(moved, 0, "dt changed no pelvis");
    /* a bad frame time is refused and changes nothing */
    const float bad[] = {-1.0f / 60.0f, NAN, INFINITY, -INFINITY};
    cik_foot_options o = cik_foot_default_options();
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        float before = a.s.target_y[0], drop = a.s.pelvis_drop[0];
        cr_assert_eq(cik_foot_crowd_frame_dt(a.crowd, &hf, &o, bad[i]), CIK_ERROR_ARGUMENT, "dt %g", bad[i]);
        cr_assert_eq(cik_foot_crowd_place_dt(a.crowd, &o, bad[i]), CIK_ERROR_ARGUMENT, "dt %g", bad[i]);
        cr_assert(memcmp(&before, &a.s.target_y[0], sizeof before) == 0 &&
                      memcmp(&drop, &a.s.pelvis_drop[0], sizeof drop) == 0,
                  "a refused dt changed the crowd");
    }
    /* a frame time whose speed distances overflow is refused as the
     * options' own dt would be (release speed 2 m/s: 2 * FLT_MAX) */
    cik_foot_options fast = o;
    fast.plant_speed = 1.0f;
    fast.release_speed = 2.0f;
    cr_assert_eq(cik_foot_crowd_frame_dt(a.crowd, &hf, &fast, FLT_MAX), CIK_ERROR_ARGUMENT);
    cr_assert_eq(cik_foot_crowd_probe_dt(a.crowd, &fast, FLT_MAX), CIK_ERROR_ARGUMENT);
    fast.dt = FLT_MAX;
    cr_assert_eq(cik_foot_crowd_frame(a.crowd, &hf, &fast), CIK_ERROR_OPTIONS);
    /* a huge frame time the speeds allow (defaults: 0.45 * FLT_MAX is
     * finite) is accepted, and the pelvis spring lands on its goal instead
     * of 0 * inf (a NaN drop, found by fuzz_foot) */
    cr_assert_eq(cik_foot_crowd_reset(a.crowd), CIK_OK);
    cr_assert_eq(cik_foot_crowd_reset(b.crowd), CIK_OK);
    for (int t = 0; t < 3; ++t) {
        pose(&a, 10 + t, 1.0f);
        pose(&b, 10 + t, 1.0f);
        cr_assert_eq(cik_foot_crowd_frame_dt(a.crowd, &hf, &o, t == 1 ? FLT_MAX : 1.0f / 60.0f), CIK_OK);
        cr_assert_eq(cik_foot_crowd_frame_dt(b.crowd, &hf, &o, t == 1 ? 1e30f : 1.0f / 60.0f), CIK_OK);
        for (int i = 0; i < N; ++i) {
            cr_assert(isfinite(a.s.pelvis_drop[i]), "character %d: drop %g after dt %g", i, a.s.pelvis_drop[i],
                      t == 1 ? FLT_MAX : 1.0f / 60.0f);
            if (t == 1) /* both at the goal: a frame of 1e30 s or more settles the spring */
                cr_assert(memcmp(&a.s.pelvis_drop[i], &b.s.pelvis_drop[i], sizeof(float)) == 0,
                          "character %d: drop %g after FLT_MAX, %g after 1e30 s", i, a.s.pelvis_drop[i],
                          b.s.pelvis_drop[i]);
            for (int f = 2 * i; f < 2 * i + 2; ++f)
                cr_assert(isfinite(a.s.ankle_y[f]) && isfinite(a.s.target_y[f]) && isfinite(a.s.weight[f]),
                          "foot %d not finite after a huge frame time", f);
        }
    }
    cik_foot_crowd_destroy(a.crowd);
    cik_foot_crowd_destroy(b.crowd);
    cik_foot_crowd_destroy(c.crowd);
}

/* ------------------------------------------- stages without hidden state */

/* The probe and ground stages run with the backend and threads they are
 * given, whatever ran before: after a place on another backend, a probe
 * gives what a probe on a fresh crowd gives. */
T_BACKEND_TEST(foot_engine, probe_takes_its_own_backend)
{
    scene a, b;
    scene_init(&a, CHARS, 1.0f, NULL);
    scene_init(&b, CHARS, 1.0f, NULL);
    cik_heightfield hf = ground(1.0f);
    pose(&a, 3, 1.0f);
    pose(&b, 3, 1.0f);
    cik_foot_options other = cik_foot_default_options(), mine = other;
    other.solver.backend = be == CIK_BACKEND_REFERENCE ? CIK_BACKEND_AUTO : CIK_BACKEND_REFERENCE;
    other.solver.threads = 1;
    mine.solver.backend = be;
    /* the same place on both (a place counts as a frame: the contacts
     * after it are a second frame's), on another backend and thread count
     * for a */
    cr_assert_eq(cik_foot_crowd_place(a.crowd, &other), CIK_OK);
    cr_assert_eq(cik_foot_crowd_place(b.crowd, &mine), CIK_OK);
    cr_assert_eq(cik_foot_crowd_probe(a.crowd, &mine), CIK_OK);
    cr_assert_eq(cik_foot_crowd_ground_heightfield(a.crowd, &hf, &mine), CIK_OK);
    cr_assert_eq(cik_foot_crowd_probe(b.crowd, &mine), CIK_OK);
    cr_assert_eq(cik_foot_crowd_ground_heightfield(b.crowd, &hf, &mine), CIK_OK);
    const size_t nf = (size_t)a.s.foot_count * sizeof(float);
    const float *x[] = {a.s.anim_ankle_x, a.s.anim_ankle_y, a.s.anim_ankle_z, a.s.planted,     a.s.locked,
                        a.s.weight,       a.s.probe_x[0],   a.s.probe_z[1],   a.s.contact_y[2], a.s.contact_ny[0]};
    const float *y[] = {b.s.anim_ankle_x, b.s.anim_ankle_y, b.s.anim_ankle_z, b.s.planted,     b.s.locked,
                        b.s.weight,       b.s.probe_x[0],   b.s.probe_z[1],   b.s.contact_y[2], b.s.contact_ny[0]};
    for (size_t i = 0; i < sizeof x / sizeof x[0]; ++i)
        cr_assert(memcmp(x[i], y[i], nf) == 0, "%s: stream %zu depends on the earlier call", cik_backend_name(be), i);
    /* bad options are refused before anything changes */
    cik_foot_options bad = mine;
    bad.solver.threads = -1;
    float before = a.s.probe_x[0][0];
    a.s.pelvis_x[0] += 1.0f;
    cr_assert_eq(cik_foot_crowd_probe(a.crowd, &bad), CIK_ERROR_OPTIONS);
    cr_assert_eq(cik_foot_crowd_probe_dt(a.crowd, &bad, 0.01f), CIK_ERROR_OPTIONS);
    cr_assert_eq(cik_foot_crowd_ground_heightfield(a.crowd, &hf, &bad), CIK_ERROR_OPTIONS);
    cr_assert(memcmp(&before, &a.s.probe_x[0][0], sizeof before) == 0, "a refused probe ran");
    cik_foot_crowd_destroy(a.crowd);
    cik_foot_crowd_destroy(b.crowd);
}

/* ------------------------------------------------------- level of detail */

/* Every public value of character c (its feet's streams, its legs'
 * rotations and results), as bits; returns the count. */
enum { CHAR_VALUES = 1 + 2 * (4 + 3 + 9 * CIK_FOOT_POINTS + 3 + 12 + 3 + 4 + 3) };
static int char_values(const scene *sc, int c, uint32_t out[CHAR_VALUES])
{
    const cik_foot_streams *s = &sc->s;
    int n = 0;
    memcpy(&out[n++], &s->pelvis_drop[c], 4);
    for (int f = 2 * c; f < 2 * c + 2; ++f) {
        const float *v[] = {s->weight,   s->planted,  s->locked,   s->pivot,   s->anim_ankle_x, s->anim_ankle_y,
                            s->anim_ankle_z, s->target_x, s->target_y, s->target_z, s->ankle_x, s->ankle_y,
                            s->ankle_z,  s->foot_qx,  s->foot_qy,  s->foot_qz, s->foot_qw};
        for (size_t i = 0; i < sizeof v / sizeof v[0]; ++i) memcpy(&out[n++], &v[i][f], 4);
        for (int p = 0; p < CIK_FOOT_POINTS; ++p) {
            const float *w[] = {s->probe_x[p],    s->probe_z[p], s->contact_y[p], s->contact_nx[p], s->contact_ny[p],
                                s->contact_nz[p], s->point_x[p], s->point_y[p],   s->point_z[p]};
            for (size_t i = 0; i < sizeof w / sizeof w[0]; ++i) memcpy(&out[n++], &w[i][f], 4);
        }
        for (int j = 0; j < 3; ++j) {
            memcpy(&out[n++], &s->solved_x[j][f], 4);
            memcpy(&out[n++], &s->solved_y[j][f], 4);
            memcpy(&out[n++], &s->solved_z[j][f], 4);
            memcpy(&out[n++], &s->solved_w[j][f], 4);
        }
        cik_result r;
        cr_assert_eq(cik_batch_result(cik_foot_crowd_batch(sc->crowd), f, &r), CIK_OK);
        memcpy(&out[n++], &r.error, 4);
        memcpy(&out[n++], &r.iterations, 4);
        memcpy(&out[n++], &r.flags, 4);
    }
    cr_assert_eq(n, CHAR_VALUES);
    return n;
}

static int same_character(const scene *a, const scene *b, int c)
{
    uint32_t x[CHAR_VALUES], y[CHAR_VALUES];
    char_values(a, c, x);
    char_values(b, c, y);
    return memcmp(x, y, sizeof x) == 0;
}

/* Off, pattern 0: scattered among on ones (groups of 16 that still run
 * in place), a run of whole groups (skipped), the first character and the
 * crowd's last ones (the tail that is no whole vector). Pattern 1, a
 * tenth on: every tenth and a run of 20 (gathered GATHER_CHARS at a
 * time), a run of 40 off and the crowd's last three on (in its last,
 * partial group of 16, which runs in place: on AVX-512 its last 4
 * characters are the one-lane tail). */
static int lod_off(int c, int pattern)
{
    if (pattern == 0) return c % 7 == 3 || (c >= 320 && c < 400) || c == 0 || c >= CHARS - 5;
    return !(c % 10 == 4 || (c >= 600 && c < 620) || c >= CHARS - 3) || (c >= 800 && c < 840);
}

/* Every third character's legs 5 % longer, so that the leg constants are
 * streams, not patterns (gathered with the rest). */
static void vary_legs(scene *sc)
{
    cik_foot_leg legs[2];
    for (int side = 0; side < 2; ++side) {
        legs[side] = sc->legs[side];
        legs[side].thigh = t_v3(legs[side].thigh.x * 1.05f, legs[side].thigh.y * 1.05f, legs[side].thigh.z * 1.05f);
        legs[side].shin = t_v3(legs[side].shin.x * 1.05f, legs[side].shin.y * 1.05f, legs[side].shin.z * 1.05f);
    }
    for (int c = 1; c < CHARS; c += 3) cr_assert_eq(cik_foot_crowd_set_legs(sc->crowd, c, legs), CIK_OK);
}

/* One frame of `sc` by way `how`: 0 the frame on one thread, 1 on two,
 * 2 the staged calls, 3 ranges of 64 characters in reverse order. */
static void lod_frame(scene *sc, const cik_heightfield *hf, cik_foot_options o, float dt, int how)
{
    o.solver.threads = how == 1 ? 2 : 1;
    if (how <= 1) {
        cr_assert_eq(cik_foot_crowd_frame_dt(sc->crowd, hf, &o, dt), CIK_OK);
    } else if (how == 2) {
        cr_assert_eq(cik_foot_crowd_probe_dt(sc->crowd, &o, dt), CIK_OK);
        cr_assert_eq(cik_foot_crowd_ground_heightfield(sc->crowd, hf, &o), CIK_OK);
        cr_assert_eq(cik_foot_crowd_place_dt(sc->crowd, &o, dt), CIK_OK);
        cr_assert_eq(cik_foot_crowd_solve(sc->crowd, &o), CIK_OK);
        cr_assert_eq(cik_foot_crowd_align(sc->crowd, &o), CIK_OK);
    } else {
        cik_foot_frame_plan plan;
        cr_assert_eq(cik_foot_crowd_frame_plan_init(&plan, sc->crowd, hf, &o, dt), CIK_OK);
        for (int b = (CHARS - 1) / 64 * 64; b >= 0; b -= 64)
            cr_assert_eq(cik_foot_crowd_frame_range(&plan, b, b + 64 < CHARS ? b + 64 : CHARS), CIK_OK);
    }
}

/* Characters switched off keep every bit, whichever way the frame runs;
 * the others get the bits of a crowd with all on; switched back on, a
 * character starts afresh, bitwise as one reset with
 * cik_foot_crowd_reset_character. */
T_BACKEND_TEST(foot_engine, characters_switched_off_are_left_alone)
{
    cik_heightfield hf = ground(1.0f);
    cik_foot_options o = cik_foot_default_options();
    o.solver.backend = be;
    static uint32_t before[CHARS][CHAR_VALUES];
    for (int run = 0; run < 8; ++run) {
        const int how = run % 4, pattern = run / 4;
        scene a, b;
        scene_init(&a, CHARS, 1.0f, NULL);
        scene_init(&b, CHARS, 1.0f, NULL);
        if (pattern == 1) {
            vary_legs(&a);
            vary_legs(&b);
        }
        for (int c = 0; c < CHARS; ++c) cr_assert_eq(b.s.enabled[c], 1, "on when created");
        int off_count = 0;
        for (int t = 0; t < 10; ++t) {
            pose(&a, t, 1.0f);
            pose(&b, t, 1.0f);
            if (t == 3)
                for (int c = 0; c < CHARS; ++c) {
                    b.s.enabled[c] = lod_off(c, pattern) ? 0 : 1;
                    off_count += lod_off(c, pattern);
                }
            if (t == 7)
                for (int c = 0; c < CHARS; ++c)
                    if (!b.s.enabled[c]) {
                        b.s.enabled[c] = 2; /* any byte but 0 is on */
                        cr_assert_eq(cik_foot_crowd_reset_character(a.crowd, c), CIK_OK);
                    }
            for (int c = 0; c < CHARS; ++c) char_values(&b, c, before[c]);
            const float dt = t % 3 == 0 ? 1.0f / 30.0f : 1.0f / 60.0f;
            lod_frame(&a, &hf, o, dt, how);
            lod_frame(&b, &hf, o, dt, how);
            char what[96];
            snprintf(what, sizeof what, "%s, pattern %d, way %d, frame %d", cik_backend_name(be), pattern, how, t);
            int changed = 0;
            for (int c = 0; c < CHARS; ++c) {
                uint32_t now[CHAR_VALUES];
                char_values(&b, c, now);
                int moved = memcmp(now, before[c], sizeof now) != 0;
                changed += moved;
                if (!b.s.enabled[c]) cr_assert(!moved, "%s: character %d is off and changed", what, c);
                else
                    cr_assert(same_character(&a, &b, c), "%s: character %d differs from the crowd with all on",
                              what, c);
            }
            cr_assert_gt(changed, CHARS - off_count - 20, "%s: only %d characters moved", what, changed);
        }
        if (pattern == 0)
            cr_assert_eq(off_count, 231, "the pattern: 157 scattered, 80 in a run, the first, 4 more at the end");
        else
            cr_assert_eq(off_count, CHARS - 127, "the pattern: 106 every tenth, 18 more in a run, 3 at the end");
        cik_foot_crowd_destroy(a.crowd);
        cik_foot_crowd_destroy(b.crowd);
    }
}

Test(foot_engine, reset_character_refusals)
{
    scene sc;
    scene_init(&sc, 40, 1.0f, NULL);
    cr_assert_eq(cik_foot_crowd_reset_character(NULL, 0), CIK_ERROR_ARGUMENT);
    cr_assert_eq(cik_foot_crowd_reset_character(sc.crowd, -1), CIK_ERROR_ARGUMENT);
    cr_assert_eq(cik_foot_crowd_reset_character(sc.crowd, 40), CIK_ERROR_ARGUMENT);
    cr_assert_eq(cik_foot_crowd_reset_character(sc.crowd, 39), CIK_OK);
    cik_foot_crowd_destroy(sc.crowd);
}
