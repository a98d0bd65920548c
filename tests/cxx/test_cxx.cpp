// The C++ face (crowdik.hpp), built with -fno-exceptions -fno-rtti: RAII
// (every batch made through a counting allocator goes back to it, moves
// transfer ownership), spans over the streams of the right sizes, a solve
// through the wrapper that equals the C API's bitwise, and range solves
// through the plan; the foot crowd likewise (RAII through the allocator, a
// frame and a range plan equal to the C API's). Self-checking: exits non-zero
// on the first failure.
#include <crowdik/crowdik.hpp>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
#define CHECK(cond)                                                      \
    do {                                                                 \
        if (!(cond)) {                                                   \
            fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #cond); \
            ++failures;                                                  \
        }                                                                \
    } while (0)

static int live = 0;
static void *count_allocate(void *, size_t size, size_t alignment)
{
    void *p = aligned_alloc(alignment < 16 ? 16 : alignment, (size + 63) / 64 * 64);
    if (p) ++live;
    return p;
}
static void count_free(void *, void *p, size_t)
{
    free(p);
    --live;
}

static cik_chain leg(int i)
{
    cik_chain c;
    memset(&c, 0, sizeof c);
    c.joint_count = 3;
    c.root_rotation = cik_quat{0, 0, 0, 1};
    for (int j = 0; j < 3; ++j) c.rotation[j] = cik_quat{0, 0, 0, 1};
    c.offset[1] = cik_vec3{0, -0.45f, 0};
    c.offset[2] = cik_vec3{0, -0.42f, 0};
    c.effector = cik_vec3{0, -0.06f, 0.14f};
    c.limit[1].type = CIK_LIMIT_HINGE;
    c.limit[1].axis = cik_vec3{1, 0, 0};
    c.limit[1].max_angle = 2.6f;
    c.target = cik_vec3{0.1f, -0.8f + 0.001f * (float)(i % 50), 0.2f};
    return c;
}

int main()
{
    const int n = 300;
    cik_allocator a = {count_allocate, count_free, nullptr};
    {
        cik::batch b;
        CHECK(!b);
        CHECK(b.chain_count() == 0);
        CHECK(b.streams().target_x().empty());
        CHECK(b.solve() == CIK_ERROR_ARGUMENT);
        CHECK(cik::batch::create(-1, 3, b) == CIK_ERROR_ARGUMENT);
        CHECK(cik::batch::create(n, 3, b, &a) == CIK_OK);
        CHECK(b && live == 2);
        CHECK(b.chain_count() == n && b.joint_count() == 3);
        for (int i = 0; i < n; ++i) CHECK(b.set_chain(i, leg(i)) == CIK_OK);

        cik::streams s = b.streams();
        CHECK(s.target_y().size() == (size_t)n);
        CHECK(s.rotation_w(2).size() == (size_t)n && s.rotation_w(3).empty() && s.rotation_w(-1).empty());
        CHECK(s.enabled().size() == (size_t)n && s.enabled()[n - 1] == 1);
        float sum = 0.0f;
        for (float y : s.target_y()) sum += y;
        CHECK(sum < 0.0f);

        // move: ownership goes along, nothing freed or leaked
        cik::batch moved(static_cast<cik::batch &&>(b));
        CHECK(!b && moved && live == 2);
        b = static_cast<cik::batch &&>(moved);
        CHECK(b && !moved && live == 2);

        // the same chains through the C API, solved the same way
        cik_batch *c = nullptr;
        CHECK(cik_batch_create(n, 3, &c) == CIK_OK);
        for (int i = 0; i < n; ++i) {
            cik_chain ch = leg(i);
            CHECK(cik_batch_set_chain(c, i, &ch) == CIK_OK);
        }
        cik_options o = cik_default_options();
        o.threads = 1;
        CHECK(cik_solve(c, &o) == CIK_OK);

        // half through the plan in two ranges, then all through solve()
        cik::solve_plan plan;
        CHECK(plan.alignment() == 0);
        CHECK(plan.solve_range(0, 1) == CIK_ERROR_ARGUMENT);
        CHECK(plan.init(b, &o) == CIK_OK);
        CHECK(plan.alignment() >= 1);
        CHECK(plan.solve_range(0, 123) == CIK_OK && plan.solve_range(123, n) == CIK_OK);
        int same = 1;
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < 3; ++j) {
                cik_quat x, y;
                cik_batch_get_rotation(b.get(), i, j, &x);
                cik_batch_get_rotation(c, i, j, &y);
                same &= memcmp(&x, &y, sizeof x) == 0;
            }
        CHECK(same);
        cik_result r;
        CHECK(b.result(0, r) == CIK_OK && (r.flags & CIK_RESULT_CONVERGED));
        CHECK(s.result_flags()[0] == r.flags);

        // world pose through spans: the toe lands on the target
        static cik_vec3 toes[n];
        CHECK(b.world_pose(0, n, cik::span<cik_quat>(), cik::span<cik_vec3>(), cik::span<cik_vec3>(toes, n)) ==
              CIK_OK);
        CHECK(b.world_pose(0, n, cik::span<cik_quat>(), cik::span<cik_vec3>(), cik::span<cik_vec3>(toes, n - 1)) ==
              CIK_ERROR_ARGUMENT);
        cik_chain l0 = leg(0);
        float dx = toes[0].x - l0.target.x, dy = toes[0].y - l0.target.y, dz = toes[0].z - l0.target.z;
        CHECK(dx * dx + dy * dy + dz * dz < 1e-6f);
        cik_batch_destroy(c);
    }
    CHECK(live == 0); // the destructor gave everything back

    // the foot crowd: RAII through the allocator, a frame and a range plan
    // that equal the C API's bitwise
    {
        static float heights[9 * 9];
        for (int i = 0; i < 81; ++i) heights[i] = 0.05f * (float)(i % 9) - 0.03f * (float)(i / 9);
        cik_heightfield ground = {-4.0f, -4.0f, 1.0f, 1.0f, 9, 9, heights};
        cik_foot_leg legs[2];
        memset(legs, 0, sizeof legs);
        for (int side = 0; side < 2; ++side) {
            legs[side].hip = cik_vec3{side ? -0.1f : 0.1f, -0.05f, 0.0f};
            legs[side].thigh = cik_vec3{0, -0.45f, 0};
            legs[side].shin = cik_vec3{0, -0.42f, 0};
            legs[side].limit[1].type = CIK_LIMIT_HINGE;
            legs[side].limit[1].axis = cik_vec3{1, 0, 0};
            legs[side].limit[1].max_angle = 2.6f;
            legs[side].sole_normal = cik_vec3{0, 1, 0};
            legs[side].ankle_height = 0.06f;
        }
        const int chars = 70; // two aligned ranges and a short last one
        cik::crowd empty;
        CHECK(!empty && empty.character_count() == 0 && empty.streams().foot_count == 0);
        CHECK(empty.frame(ground) == CIK_ERROR_ARGUMENT);
        cik::crowd cr, one, two;
        CHECK(cik::crowd::create(0, legs, cr, &a) == CIK_ERROR_ARGUMENT && !cr);
        CHECK(cik::crowd::create(chars, legs, cr, &a) == CIK_OK && cr && live > 0);
        const int held = live;
        cik::crowd moved(static_cast<cik::crowd &&>(cr));
        CHECK(!cr && moved && live == held);
        cr = static_cast<cik::crowd &&>(moved);
        CHECK(cr && !moved && cr.character_count() == chars);
        CHECK(cik::crowd::create(chars, legs, one) == CIK_OK && cik::crowd::create(chars, legs, two) == CIK_OK);
        cik::crowd *all[3] = {&cr, &one, &two};
        for (int k = 0; k < 3; ++k) {
            cik_foot_streams s = all[k]->streams();
            for (int c = 0; c < chars; ++c) {
                s.pelvis_x[c] = -3.0f + 0.09f * (float)c;
                s.pelvis_y[c] = 0.9f;
                s.pelvis_z[c] = 0.5f;
            }
        }
        cik_foot_options fo = cik_foot_default_options();
        CHECK(cr.frame(ground, &fo, 1.0f / 30.0f) == CIK_OK);
        CHECK(cik_foot_crowd_frame_dt(one.get(), &ground, &fo, 1.0f / 30.0f) == CIK_OK);
        cik::foot_frame_plan fp;
        CHECK(fp.run_range(0, 32) == CIK_ERROR_ARGUMENT);
        CHECK(fp.init(two, ground, &fo, 1.0f / 30.0f) == CIK_OK);
        CHECK(fp.run_range(0, 16) == CIK_ERROR_ARGUMENT);
        CHECK(fp.run_range(64, chars) == CIK_OK && fp.run_range(0, 64) == CIK_OK);
        cik_foot_streams x = cr.streams(), y = one.streams(), z = two.streams();
        const size_t bytes = sizeof(float) * (size_t)x.foot_count;
        for (int j = 0; j < 3; ++j) {
            CHECK(memcmp(x.solved_w[j], y.solved_w[j], bytes) == 0 && memcmp(x.solved_x[j], y.solved_x[j], bytes) == 0);
            CHECK(memcmp(z.solved_w[j], y.solved_w[j], bytes) == 0 && memcmp(z.solved_x[j], y.solved_x[j], bytes) == 0);
        }
        CHECK(memcmp(x.ankle_y, y.ankle_y, bytes) == 0 && memcmp(z.ankle_y, y.ankle_y, bytes) == 0);
        // a second frame of the same pose: the contacts from the animation
        // plant and lock every foot, through the face as through C
        CHECK(cr.frame(ground, &fo) == CIK_OK && cik_foot_crowd_frame(one.get(), &ground, &fo) == CIK_OK);
        CHECK(fp.init(two, ground, &fo) == CIK_OK && fp.run_range(0, chars) == CIK_OK);
        for (int f = 0; f < x.foot_count; ++f) CHECK(x.locked[f] == 1.0f && z.locked[f] == 1.0f);
        for (int p = 0; p < CIK_FOOT_POINTS; ++p)
            CHECK(memcmp(x.point_y[p], y.point_y[p], bytes) == 0 && memcmp(z.point_y[p], y.point_y[p], bytes) == 0);
        CHECK(cr.batch() == cik_foot_crowd_batch(cr.get()));
        // level of detail through the face: an off character keeps its bits
        cik::span<unsigned char> on = cr.enabled();
        CHECK(on.size() == (size_t)chars && on[3] == 1 && cik::crowd().enabled().size() == 0);
        on[3] = 0;
        const float knee = x.solved_x[1][6];
        for (int c = 0; c < chars; ++c) x.pelvis_x[c] += 0.05f;
        CHECK(cr.frame(ground, &fo) == CIK_OK && memcmp(&knee, &x.solved_x[1][6], sizeof knee) == 0);
        CHECK(cr.reset_character(3) == CIK_OK && cr.reset_character(chars) == CIK_ERROR_ARGUMENT);
    }
    CHECK(live == 0); // the crowd's destructor gave everything back
    // the herd: RAII through the allocator, a frame equal to the C API's
    // bitwise, a refused body that changes nothing
    {
        static float heights[9 * 9];
        for (int i = 0; i < 81; ++i) heights[i] = 0.04f * (float)(i % 9) + 0.02f * (float)(i / 9);
        cik_heightfield ground = {-4.0f, -4.0f, 1.0f, 1.0f, 9, 9, heights};
        cik_herd_body body;
        memset(&body, 0, sizeof body);
        body.leg_count = 4;
        body.forward = cik_vec3{0, 0, 1};
        for (int l = 0; l < 4; ++l) {
            cik_herd_leg &leg = body.leg[l];
            leg.root = l < 2 ? CIK_HERD_PELVIS : CIK_HERD_CHEST;
            leg.segment_count = l < 2 ? 4 : 3;
            leg.hip = cik_vec3{l % 2 ? -0.2f : 0.2f, 0.0f, 0.0f};
            for (int s = 0; s < leg.segment_count; ++s) leg.segment[s] = cik_vec3{0, -0.3f, s == 1 ? 0.05f : 0.0f};
            leg.limit[1].type = CIK_LIMIT_HINGE;
            leg.limit[1].axis = cik_vec3{1, 0, 0};
            leg.limit[1].min_angle = -1.0f;
            leg.limit[1].max_angle = 1.5f;
        }
        cik::herd empty, hd, ref;
        CHECK(!empty && empty.character_count() == 0 && empty.streams().foot_count == 0);
        CHECK(empty.frame(ground) == CIK_ERROR_ARGUMENT);
        CHECK(cik::herd::create(0, body, hd, &a) == CIK_ERROR_ARGUMENT && !hd);
        CHECK(cik::herd::create(40, body, hd, &a) == CIK_OK && hd && live > 0);
        CHECK(hd.leg_count() == 4 && hd.streams().foot_count == 160);
        cik::herd moved(static_cast<cik::herd &&>(hd));
        CHECK(!hd && moved);
        hd = static_cast<cik::herd &&>(moved);
        CHECK(cik::herd::create(40, body, ref) == CIK_OK); // malloc: not counted in `live`
        cik_herd_body bad = body;
        bad.leg[0].segment_count = 3;
        CHECK(hd.set_body(5, bad) == CIK_ERROR_ARGUMENT);
        cik::herd *both[2] = {&hd, &ref};
        for (int k = 0; k < 2; ++k) {
            cik_herd_streams s = both[k]->streams();
            for (int c = 0; c < 40; ++c)
                for (int r = 0; r < CIK_HERD_ROOTS; ++r) {
                    s.root_x[r][c] = -3.0f + 0.15f * (float)c;
                    s.root_y[r][c] = 1.3f;
                    s.root_z[r][c] = r ? 0.6f : -0.6f;
                }
        }
        cik_herd_options ho = cik_herd_default_options();
        CHECK(hd.frame(ground, &ho) == CIK_OK && cik_herd_frame(ref.get(), &ground, &ho, 0.0f) == CIK_OK);
        cik_herd_streams x = hd.streams(), y = ref.streams();
        const size_t bytes = sizeof(float) * (size_t)x.foot_count;
        CHECK(memcmp(x.foot_y, y.foot_y, bytes) == 0 && memcmp(x.solved_w[1], y.solved_w[1], bytes) == 0);
        // the same frame again through a plan's ranges: the same bits
        cik::herd_frame_plan hp;
        CHECK(hp.run_range(0, 40) == CIK_ERROR_ARGUMENT);
        CHECK(hp.init(hd, ground, &ho) == CIK_OK && hp.run_range(0, 40) == CIK_OK);
        CHECK(cik_herd_frame(ref.get(), &ground, &ho, 0.0f) == CIK_OK);
        CHECK(memcmp(x.foot_y, y.foot_y, bytes) == 0 && memcmp(x.solved_x[2], y.solved_x[2], bytes) == 0);
        // level of detail through the face: an off character keeps its bits
        cik::span<unsigned char> on = hd.enabled();
        CHECK(on.size() == 40 && on[5] == 1 && cik::herd().enabled().size() == 0);
        on[5] = 0;
        const float hoof = x.foot_y[5 * 4 + 2];
        for (int c = 0; c < 40; ++c) x.root_y[0][c] += 0.01f;
        CHECK(hd.frame(ground, &ho) == CIK_OK && memcmp(&hoof, &x.foot_y[5 * 4 + 2], sizeof hoof) == 0);
        CHECK(hd.reset_character(3) == CIK_OK && hd.reset() == CIK_OK);
    }
    CHECK(live == 0); // the herd's destructor gave everything back
    if (failures == 0) printf("crowdik.hpp: all checks passed\n");
    return failures == 0 ? 0 : 1;
}
