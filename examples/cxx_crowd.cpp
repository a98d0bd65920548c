/*
 * A crowd's frame from C++ through <crowdik/crowdik.hpp>, built with
 * -fno-exceptions -fno-rtti.
 *
 * cik::crowd owns the characters' legs, cik::batch their arms; both go
 * away with their scope. Each frame the engine writes the animation through
 * spans, starts a foot frame plan and an arm solve plan, and a few
 * std::threads take ranges of both from one counter. The example checks
 * every frame against a second crowd run with one cik_foot_crowd_frame call
 * and a second batch solved with one cik_solve: the bits must be equal. It
 * exits non-zero when they are not.
 *
 *   cxx_crowd [characters] [frames] [threads]
 */
#include <crowdik/crowdik.hpp>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace {

const int grid = 65;

cik_heightfield make_ground(std::vector<float> &heights)
{
    heights.resize(grid * grid);
    for (int iz = 0; iz < grid; ++iz)
        for (int ix = 0; ix < grid; ++ix)
            heights[iz * grid + ix] = 0.12f * std::sin(0.5f * (float)ix) * std::cos(0.35f * (float)iz);
    cik_heightfield hf = {-16.0f, -16.0f, 0.5f, 0.5f, grid, grid, heights.data()};
    return hf;
}

cik_limit swing_twist(float twist, float swing)
{
    cik_limit l = {CIK_LIMIT_SWING_TWIST, {0, -1, 0}, -twist, twist, swing};
    return l;
}

void make_legs(cik_foot_leg legs[2])
{
    for (int side = 0; side < 2; ++side) {
        cik_foot_leg &l = legs[side];
        std::memset(&l, 0, sizeof l);
        l.hip = cik_vec3{side ? -0.1f : 0.1f, -0.05f, 0.0f};
        l.thigh = cik_vec3{0.0f, -0.45f, 0.0f};
        l.shin = cik_vec3{0.0f, -0.42f, 0.0f};
        l.limit[0] = swing_twist(0.6f, 1.5f);
        l.limit[1] = cik_limit{CIK_LIMIT_HINGE, {1, 0, 0}, 0.0f, 2.6f, 0.0f};
        l.limit[2] = swing_twist(0.35f, 0.7f);
        l.sole_normal = cik_vec3{0.0f, 1.0f, 0.0f};
        l.ankle_height = 0.06f;
    }
}

cik_chain make_arm()
{
    cik_chain c;
    std::memset(&c, 0, sizeof c);
    c.joint_count = 3;
    c.root_rotation = cik_quat{0, 0, 0, 1};
    for (int j = 0; j < 3; ++j) c.rotation[j] = cik_quat{0, 0, 0, 1};
    c.offset[0] = cik_vec3{0.2f, 0.0f, 0.0f};
    c.offset[1] = cik_vec3{0.0f, -0.3f, 0.0f};
    c.offset[2] = cik_vec3{0.0f, -0.28f, 0.0f};
    c.effector = cik_vec3{0.0f, -0.08f, 0.0f};
    c.limit[0] = swing_twist(0.8f, 2.0f);
    c.limit[1] = cik_limit{CIK_LIMIT_HINGE, {1, 0, 0}, -2.5f, 0.0f, 0.0f};
    return c;
}

cik::span<float> of(float *p, int n) { return cik::span<float>(p, (std::size_t)n); }

void animate(const cik::crowd &crowd, const cik::batch &arms, int frame)
{
    cik_foot_streams s = crowd.streams();
    const int n = s.character_count;
    cik::span<float> px = of(s.pelvis_x, n), py = of(s.pelvis_y, n), pz = of(s.pelvis_z, n);
    for (int c = 0; c < n; ++c) {
        float phase = 0.3f * (float)c + 0.2f * (float)frame;
        px[c] = -15.0f + 0.8f * (float)(c % 38) + 0.012f * (float)frame;
        py[c] = 0.92f;
        pz[c] = -15.0f + 0.8f * (float)(c / 38);
        for (int side = 0; side < 2; ++side) {
            int f = 2 * c + side;
            float swing = std::sin(phase + 3.14159265f * (float)side);
            float angle[3] = {-0.3f * swing, 0.25f, 0.3f * swing - 0.25f};
            for (int j = 0; j < 3; ++j) {
                s.pose_x[j][f] = std::sin(0.5f * angle[j]);
                s.pose_y[j][f] = s.pose_z[j][f] = 0.0f;
                s.pose_w[j][f] = std::cos(0.5f * angle[j]);
            }
            s.weight[f] = swing > 0.5f ? 0.0f : 1.0f;
        }
    }
    cik::streams a = arms.streams();
    cik::span<float> rx = a.root_position_x(), ry = a.root_position_y(), rz = a.root_position_z();
    cik::span<float> tx = a.target_x(), ty = a.target_y(), tz = a.target_z();
    for (std::size_t c = 0; c < rx.size(); ++c) {
        float reach = 0.15f * std::sin(0.1f * (float)frame + 0.7f * (float)c);
        rx[c] = px[c];
        ry[c] = py[c] + 0.5f;
        rz[c] = pz[c];
        tx[c] = rx[c] + 0.25f;
        ty[c] = ry[c] - 0.2f + reach;
        tz[c] = rz[c] + 0.3f - reach;
    }
    for (int j = 0; j < a.joint_count(); ++j) {
        for (float &v : a.rotation_x(j)) v = 0.0f;
        for (float &v : a.rotation_y(j)) v = 0.0f;
        for (float &v : a.rotation_z(j)) v = 0.0f;
        for (float &v : a.rotation_w(j)) v = 1.0f;
    }
}

bool same(const float *a, const float *b, int n) { return std::memcmp(a, b, sizeof(float) * (std::size_t)n) == 0; }

bool same_feet(const cik::crowd &x, const cik::crowd &y)
{
    cik_foot_streams a = x.streams(), b = y.streams();
    const int n = a.foot_count;
    bool ok = same(a.pelvis_drop, b.pelvis_drop, a.character_count);
    for (int j = 0; j < 3; ++j)
        ok = ok && same(a.solved_x[j], b.solved_x[j], n) && same(a.solved_y[j], b.solved_y[j], n) &&
             same(a.solved_z[j], b.solved_z[j], n) && same(a.solved_w[j], b.solved_w[j], n);
    return ok && same(a.ankle_x, b.ankle_x, n) && same(a.ankle_y, b.ankle_y, n) && same(a.ankle_z, b.ankle_z, n) &&
           same(a.foot_qx, b.foot_qx, n) && same(a.foot_qy, b.foot_qy, n) && same(a.foot_qz, b.foot_qz, n) &&
           same(a.foot_qw, b.foot_qw, n);
}

bool same_arms(const cik::batch &x, const cik::batch &y)
{
    cik::streams a = x.streams(), b = y.streams();
    const int n = a.chain_count();
    bool ok = same(a.result_error().data(), b.result_error().data(), n);
    for (int j = 0; j < a.joint_count(); ++j)
        ok = ok && same(a.rotation_x(j).data(), b.rotation_x(j).data(), n) &&
             same(a.rotation_y(j).data(), b.rotation_y(j).data(), n) &&
             same(a.rotation_z(j).data(), b.rotation_z(j).data(), n) &&
             same(a.rotation_w(j).data(), b.rotation_w(j).data(), n);
    return ok;
}

} // namespace

int main(int argc, char **argv)
{
    const int characters = argc > 1 ? std::atoi(argv[1]) : 2500;
    const int frames = argc > 2 ? std::atoi(argv[2]) : 20;
    const int threads = argc > 3 ? std::atoi(argv[3]) : 4;
    if (characters < 1 || frames < 1 || threads < 1) {
        std::fprintf(stderr, "usage: cxx_crowd [characters] [frames] [threads]\n");
        return 2;
    }
    cik_foot_leg legs[2];
    make_legs(legs);
    cik::crowd crowd, reference;
    cik::batch arms, reference_arms;
    if (cik::crowd::create(characters, legs, crowd) != CIK_OK ||
        cik::crowd::create(characters, legs, reference) != CIK_OK ||
        cik::batch::create(characters, 3, arms) != CIK_OK ||
        cik::batch::create(characters, 3, reference_arms) != CIK_OK) {
        std::fprintf(stderr, "cxx_crowd: could not create the crowds\n");
        return 1;
    }
    const cik_chain arm = make_arm();
    for (int c = 0; c < characters; ++c)
        if (arms.set_chain(c, arm) != CIK_OK || reference_arms.set_chain(c, arm) != CIK_OK) return 1;

    std::vector<float> heights;
    const cik_heightfield ground = make_ground(heights);
    const cik_foot_options options = cik_foot_default_options();
    cik_options arm_options = cik_default_options();
    arm_options.threshold = 2e-3f;

    cik::solve_plan arm_plan;
    if (arm_plan.init(arms, &arm_options) != CIK_OK) return 1;
    const int foot_grain = 2 * CIK_FOOT_RANGE_ALIGNMENT;
    const int arm_grain = 4 * arm_plan.alignment();
    const int foot_jobs = (characters + foot_grain - 1) / foot_grain;
    const int arm_jobs = (characters + arm_grain - 1) / arm_grain;

    bool equal = true;
    std::atomic<int> refused(0);
    for (int frame = 0; frame < frames; ++frame) {
        animate(crowd, arms, frame);
        animate(reference, reference_arms, frame);

        cik::foot_frame_plan feet;
        if (feet.init(crowd, ground, &options) != CIK_OK) return 1;
        std::atomic<int> next(0);
        auto work = [&]() {
            for (int job; (job = next.fetch_add(1)) < foot_jobs + arm_jobs;) {
                cik_status st;
                if (job < foot_jobs) {
                    int begin = job * foot_grain, end = begin + foot_grain < characters ? begin + foot_grain : characters;
                    st = feet.run_range(begin, end);
                } else {
                    int begin = (job - foot_jobs) * arm_grain;
                    int end = begin + arm_grain < characters ? begin + arm_grain : characters;
                    st = arm_plan.solve_range(begin, end);
                }
                if (st != CIK_OK) ++refused;
            }
        };
        std::vector<std::thread> pool;
        for (int t = 1; t < threads; ++t) pool.emplace_back(work);
        work();
        for (std::thread &t : pool) t.join();

        if (cik_foot_crowd_frame(reference.get(), &ground, &options) != CIK_OK ||
            reference_arms.solve(arm_options) != CIK_OK)
            return 1;
        equal = equal && same_feet(crowd, reference) && same_arms(arms, reference_arms);
    }

    cik_foot_streams s = crowd.streams();
    float deepest = 0.0f;
    for (float d : of(s.pelvis_drop, characters)) deepest = d > deepest ? d : deepest;
    cik_result r;
    int reached = 0;
    for (int c = 0; c < characters; ++c) reached += arms.result(c, r) == CIK_OK && (r.flags & CIK_RESULT_CONVERGED);
    std::printf("%d characters, %d frames on %d std::threads: deepest pelvis drop %.3f m, %d of %d hands on target\n",
                characters, frames, threads, (double)deepest, reached, characters);
    std::printf("ranges refused: %d; bitwise equal to one cik_foot_crowd_frame and one cik_solve: %s\n",
                refused.load(), equal ? "yes" : "NO");
    return equal && refused.load() == 0 ? 0 : 1;
}
