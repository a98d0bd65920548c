/*
 * crowdik's C++ face: a thin header-only layer over <crowdik/crowdik.h>.
 *
 * RAII for batches (cik::batch owns a cik_batch and destroys it) and foot
 * crowds (cik::crowd, <crowdik/foot.h>), spans (pointer + size) over the
 * bulk streams, the range-solve plan and the foot frame's plan. Nothing
 * throws and nothing needs the C++ library: it compiles with
 * -fno-exceptions -fno-rtti, C++11 and later. Errors stay cik_status values,
 * as in C; every C function remains callable on batch::get().
 *
 *   cik::batch legs;
 *   if (cik::batch::create(2000, 3, legs) != CIK_OK) { ... }
 *   cik::streams s = legs.streams();
 *   for (std::size_t i = 0; i < s.target_y().size(); ++i) s.target_y()[i] = ground(i);
 *   legs.solve();
 */
#ifndef CROWDIK_CROWDIK_HPP
#define CROWDIK_CROWDIK_HPP

#include "crowdik.h"
#include "foot.h"
#include "herd.h"

#include <stddef.h>

namespace cik {

/** A view of `size()` contiguous values (no ownership), as std::span. */
template <class T>
class span {
public:
    span() noexcept : data_(nullptr), size_(0) {}
    span(T *data, size_t size) noexcept : data_(data), size_(size) {}
    T *data() const noexcept { return data_; }
    size_t size() const noexcept { return size_; }
    bool empty() const noexcept { return size_ == 0; }
    T &operator[](size_t i) const noexcept { return data_[i]; }
    T *begin() const noexcept { return data_; }
    T *end() const noexcept { return data_ + size_; }

private:
    T *data_;
    size_t size_;
};

/** The batch's streams as spans of chain_count values (cik_streams). */
class streams {
public:
    streams() noexcept : s_(), n_(0) {}
    explicit streams(const cik_streams &s) noexcept : s_(s), n_(s.chain_count > 0 ? (size_t)s.chain_count : 0) {}
    const cik_streams &raw() const noexcept { return s_; }
    int chain_count() const noexcept { return s_.chain_count; }
    int joint_count() const noexcept { return s_.joint_count; }
#define CIK__HPP_STREAM(name) \
    span<float> name() const noexcept { return span<float>(s_.name, s_.name ? n_ : 0); }
    CIK__HPP_STREAM(target_x)
    CIK__HPP_STREAM(target_y)
    CIK__HPP_STREAM(target_z)
    CIK__HPP_STREAM(root_position_x)
    CIK__HPP_STREAM(root_position_y)
    CIK__HPP_STREAM(root_position_z)
    CIK__HPP_STREAM(root_rotation_x)
    CIK__HPP_STREAM(root_rotation_y)
    CIK__HPP_STREAM(root_rotation_z)
    CIK__HPP_STREAM(root_rotation_w)
    CIK__HPP_STREAM(pole_x)
    CIK__HPP_STREAM(pole_y)
    CIK__HPP_STREAM(pole_z)
    CIK__HPP_STREAM(pole_weight)
#undef CIK__HPP_STREAM
    /** Joint j's rotation component streams (empty for j out of range). */
    span<float> rotation_x(int j) const noexcept { return joint(s_.rotation_x, j); }
    span<float> rotation_y(int j) const noexcept { return joint(s_.rotation_y, j); }
    span<float> rotation_z(int j) const noexcept { return joint(s_.rotation_z, j); }
    span<float> rotation_w(int j) const noexcept { return joint(s_.rotation_w, j); }
    span<const float> result_error() const noexcept { return span<const float>(s_.result_error, n_); }
    span<const int> result_iterations() const noexcept { return span<const int>(s_.result_iterations, n_); }
    span<const unsigned> result_flags() const noexcept { return span<const unsigned>(s_.result_flags, n_); }
    span<unsigned char> enabled() const noexcept { return span<unsigned char>(s_.enabled, n_); }

private:
    span<float> joint(float *const *p, int j) const noexcept
    {
        return j >= 0 && j < s_.joint_count ? span<float>(p[j], n_) : span<float>();
    }
    cik_streams s_;
    size_t n_;
};

/** Owns one cik_batch; movable, not copyable. An empty batch (default
 *  constructed, moved from, or a failed create) holds NULL, which every C
 *  function refuses with CIK_ERROR_ARGUMENT. */
class batch {
public:
    batch() noexcept : b_(nullptr) {}
    ~batch() { cik_batch_destroy(b_); }
    batch(batch &&o) noexcept : b_(o.b_) { o.b_ = nullptr; }
    batch &operator=(batch &&o) noexcept
    {
        if (this != &o) {
            cik_batch_destroy(b_);
            b_ = o.b_;
            o.b_ = nullptr;
        }
        return *this;
    }
    batch(const batch &) = delete;
    batch &operator=(const batch &) = delete;

    /** cik_batch_create_with into `out` (whose old batch is destroyed on
     *  success; on failure `out` is unchanged). */
    static cik_status create(int chain_count, int joint_count, batch &out,
                             const cik_allocator *allocator = nullptr) noexcept
    {
        cik_batch *b = nullptr;
        cik_status st = cik_batch_create_with(chain_count, joint_count, allocator, &b);
        if (st == CIK_OK) out = batch(b);
        return st;
    }
    /** Takes ownership of a batch made by the C API. */
    explicit batch(cik_batch *owned) noexcept : b_(owned) {}
    /** Gives up ownership. */
    cik_batch *release() noexcept
    {
        cik_batch *b = b_;
        b_ = nullptr;
        return b;
    }

    cik_batch *get() const noexcept { return b_; }
    explicit operator bool() const noexcept { return b_ != nullptr; }
    int chain_count() const noexcept { return cik_batch_chain_count(b_); }
    int joint_count() const noexcept { return cik_batch_joint_count(b_); }

    cik_status set_chain(int index, const cik_chain &c) noexcept { return cik_batch_set_chain(b_, index, &c); }
    cik_status get_chain(int index, cik_chain &out) const noexcept { return cik_batch_get_chain(b_, index, &out); }
    cik_status result(int index, cik_result &out) const noexcept { return cik_batch_result(b_, index, &out); }
    /** The streams (empty spans for an empty batch). */
    cik::streams streams() const noexcept
    {
        cik_streams s;
        if (cik_batch_streams(b_, &s) != CIK_OK) return cik::streams();
        return cik::streams(s);
    }
    /** cik_solve; a null `options` means cik_default_options(). */
    cik_status solve(const cik_options *options = nullptr) noexcept { return cik_solve(b_, options); }
    cik_status solve(const cik_options &options) noexcept { return cik_solve(b_, &options); }

    /** World pose of chains [first, first + count) (cik_batch_world_pose):
     *  spans of count * joint_count, count * joint_count and count values,
     *  any of them empty to skip it; too short a span is refused. */
    cik_status world_pose(int first, int count, span<cik_quat> world_rotations, span<cik_vec3> world_positions,
                          span<cik_vec3> effectors) const noexcept
    {
        const size_t per = count > 0 ? (size_t)count * (size_t)joint_count() : 0;
        if ((!world_rotations.empty() && world_rotations.size() < per) ||
            (!world_positions.empty() && world_positions.size() < per) ||
            (!effectors.empty() && effectors.size() < (count > 0 ? (size_t)count : 0)))
            return CIK_ERROR_ARGUMENT;
        return cik_batch_world_pose(b_, first, count, world_rotations.empty() ? nullptr : world_rotations.data(),
                                    world_positions.empty() ? nullptr : world_positions.data(),
                                    effectors.empty() ? nullptr : effectors.data());
    }

private:
    cik_batch *b_;
};

/** A range-solve plan (cik_solve_plan) for an engine's job system. */
class solve_plan {
public:
    solve_plan() noexcept : p_() {}
    /** cik_solve_plan_init for `b`, which must outlive the plan's use. */
    cik_status init(batch &b, const cik_options *options = nullptr) noexcept
    {
        return cik_solve_plan_init(&p_, b.get(), options);
    }
    /** cik_solve_range: safe from any thread for disjoint ranges. */
    cik_status solve_range(int begin, int end) const noexcept { return cik_solve_range(&p_, begin, end); }
    int alignment() const noexcept { return cik_solve_plan_alignment(&p_); }
    const cik_solve_plan *get() const noexcept { return &p_; }

private:
    cik_solve_plan p_;
};

/** Owns one cik_foot_crowd; movable, not copyable. An empty crowd holds
 *  NULL, which every C function refuses with CIK_ERROR_ARGUMENT. */
class crowd {
public:
    crowd() noexcept : c_(nullptr) {}
    ~crowd() { cik_foot_crowd_destroy(c_); }
    crowd(crowd &&o) noexcept : c_(o.c_) { o.c_ = nullptr; }
    crowd &operator=(crowd &&o) noexcept
    {
        if (this != &o) {
            cik_foot_crowd_destroy(c_);
            c_ = o.c_;
            o.c_ = nullptr;
        }
        return *this;
    }
    crowd(const crowd &) = delete;
    crowd &operator=(const crowd &) = delete;

    /** cik_foot_crowd_create_with into `out` (whose old crowd is destroyed
     *  on success; on failure `out` is unchanged). */
    static cik_status create(int character_count, const cik_foot_leg legs[2], crowd &out,
                             const cik_allocator *allocator = nullptr) noexcept
    {
        cik_foot_crowd *c = nullptr;
        cik_status st = cik_foot_crowd_create_with(character_count, legs, allocator, &c);
        if (st == CIK_OK) out = crowd(c);
        return st;
    }
    /** Takes ownership of a crowd made by the C API. */
    explicit crowd(cik_foot_crowd *owned) noexcept : c_(owned) {}
    /** Gives up ownership. */
    cik_foot_crowd *release() noexcept
    {
        cik_foot_crowd *c = c_;
        c_ = nullptr;
        return c;
    }

    cik_foot_crowd *get() const noexcept { return c_; }
    explicit operator bool() const noexcept { return c_ != nullptr; }
    int character_count() const noexcept { return cik_foot_crowd_character_count(c_); }
    /** The crowd's streams (cik_foot_crowd_streams; zeroed for an empty crowd). */
    cik_foot_streams streams() const noexcept
    {
        cik_foot_streams s = cik_foot_streams(); // a refusal leaves it zeroed
        cik_foot_crowd_streams(c_, &s);
        return s;
    }
    cik_status set_legs(int character, const cik_foot_leg legs[2]) noexcept
    {
        return cik_foot_crowd_set_legs(c_, character, legs);
    }
    cik_status reset() noexcept { return cik_foot_crowd_reset(c_); }
    cik_status reset_character(int character) noexcept { return cik_foot_crowd_reset_character(c_, character); }
    /** Level of detail: one byte per character (cik_foot_streams.enabled;
     *  empty for an empty crowd). */
    span<unsigned char> enabled() const noexcept
    {
        cik_foot_streams s = streams();
        return span<unsigned char>(s.enabled, s.enabled ? (size_t)s.character_count : 0);
    }
    /** The frame (cik_foot_crowd_frame_dt): dt 0 = options.dt; a null
     *  `options` means cik_foot_default_options(). */
    cik_status frame(const cik_heightfield &ground, const cik_foot_options *options = nullptr,
                     float dt = 0.0f) noexcept
    {
        return cik_foot_crowd_frame_dt(c_, &ground, options, dt);
    }
    /** The crowd's batch, to read results. */
    const cik_batch *batch() const noexcept { return cik_foot_crowd_batch(c_); }

private:
    cik_foot_crowd *c_;
};

/** A foot frame's plan (cik_foot_frame_plan) for an engine's job system. */
class foot_frame_plan {
public:
    foot_frame_plan() noexcept : p_() {}
    /** cik_foot_crowd_frame_plan_init for `c`, which must outlive the
     *  frame; one plan per frame. */
    cik_status init(crowd &c, const cik_heightfield &ground, const cik_foot_options *options = nullptr,
                    float dt = 0.0f) noexcept
    {
        return cik_foot_crowd_frame_plan_init(&p_, c.get(), &ground, options, dt);
    }
    /** cik_foot_crowd_frame_range: safe from any thread for disjoint
     *  ranges whose bounds are multiples of CIK_FOOT_RANGE_ALIGNMENT (or
     *  the character count). */
    cik_status run_range(int begin, int end) const noexcept { return cik_foot_crowd_frame_range(&p_, begin, end); }
    const cik_foot_frame_plan *get() const noexcept { return &p_; }

private:
    cik_foot_frame_plan p_;
};


/** A herd (crowdik/herd.h): owns a cik_herd, move-only. */
class herd {
public:
    herd() noexcept : h_(nullptr) {}
    ~herd() { cik_herd_destroy(h_); }
    herd(herd &&o) noexcept : h_(o.h_) { o.h_ = nullptr; }
    herd &operator=(herd &&o) noexcept
    {
        if (this != &o) {
            cik_herd_destroy(h_);
            h_ = o.h_;
            o.h_ = nullptr;
        }
        return *this;
    }
    herd(const herd &) = delete;
    herd &operator=(const herd &) = delete;

    /** cik_herd_create_with into `out` (whose old herd is destroyed on
     *  success; on failure `out` is unchanged). */
    static cik_status create(int character_count, const cik_herd_body &body, herd &out,
                             const cik_allocator *allocator = nullptr) noexcept
    {
        cik_herd *h = nullptr;
        cik_status st = cik_herd_create_with(character_count, &body, allocator, &h);
        if (st == CIK_OK) out = herd(h);
        return st;
    }
    /** Takes ownership of a herd made by the C API. */
    explicit herd(cik_herd *owned) noexcept : h_(owned) {}
    /** Gives up ownership. */
    cik_herd *release() noexcept
    {
        cik_herd *h = h_;
        h_ = nullptr;
        return h;
    }

    cik_herd *get() const noexcept { return h_; }
    explicit operator bool() const noexcept { return h_ != nullptr; }
    int character_count() const noexcept { return cik_herd_character_count(h_); }
    int leg_count() const noexcept { return cik_herd_leg_count(h_); }
    /** The herd's streams (cik_herd_streams_get; zeroed for an empty herd). */
    cik_herd_streams streams() const noexcept
    {
        cik_herd_streams s = cik_herd_streams(); // a refusal leaves it zeroed
        cik_herd_streams_get(h_, &s);
        return s;
    }
    cik_status set_body(int character, const cik_herd_body &body) noexcept
    {
        return cik_herd_set_body(h_, character, &body);
    }
    cik_status reset() noexcept { return cik_herd_reset(h_); }
    cik_status reset_character(int character) noexcept { return cik_herd_reset_character(h_, character); }
    /** Level of detail: one byte per character (cik_herd_streams.enabled;
     *  empty for an empty herd). */
    span<unsigned char> enabled() const noexcept
    {
        cik_herd_streams s = streams();
        return span<unsigned char>(s.enabled, s.enabled ? (size_t)s.character_count : 0);
    }
    /** The frame (cik_herd_frame): dt 0 = options.foot.dt; a null `options`
     *  means cik_herd_default_options(). */
    cik_status frame(const cik_heightfield &ground, const cik_herd_options *options = nullptr,
                     float dt = 0.0f) noexcept
    {
        return cik_herd_frame(h_, &ground, options, dt);
    }

private:
    cik_herd *h_;
};

/** A herd frame's plan (cik_herd_frame_plan) for an engine's job system. */
class herd_frame_plan {
public:
    herd_frame_plan() noexcept : p_() {}
    /** cik_herd_frame_plan_init for `h`, which must outlive the frame; one
     *  plan per frame. */
    cik_status init(herd &h, const cik_heightfield &ground, const cik_herd_options *options = nullptr,
                    float dt = 0.0f) noexcept
    {
        return cik_herd_frame_plan_init(&p_, h.get(), &ground, options, dt);
    }
    /** cik_herd_frame_range: safe from any thread for disjoint ranges whose
     *  bounds are multiples of CIK_HERD_RANGE_ALIGNMENT (or the character
     *  count). */
    cik_status run_range(int begin, int end) const noexcept { return cik_herd_frame_range(&p_, begin, end); }
    const cik_herd_frame_plan *get() const noexcept { return &p_; }

private:
    cik_herd_frame_plan p_;
};

} // namespace cik

#endif /* CROWDIK_CROWDIK_HPP */
