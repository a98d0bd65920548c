/*
 * crowdik: inverse kinematics for whole crowds.
 *
 * The public face of the library. Many IK chains (the legs, spines or tails of
 * hundreds to tens of thousands of characters) live side by side in a
 * structure-of-arrays batch and are solved together with Cyclic Coordinate
 * Descent (CCD), joint limits applied after every step. The exact solver
 * semantics are documented in docs/solver.md; the batch layout and the bulk
 * path in docs/layout.md.
 *
 * Conventions: single precision, metres (or any consistent unit), radians.
 * Quaternions are Hamilton quaternions stored (x, y, z, w), unit length,
 * rotating vectors actively (v' = q v q*); a * b applies b first.
 *
 * Thread safety: every function is re-entrant. Functions that take a
 * `const cik_batch *` may run concurrently on the same batch; a function that
 * takes a non-const batch needs exclusive access to that batch. Different
 * batches are independent. The library keeps no global mutable state except
 * the kernel dispatch table, which is chosen once, thread-safely.
 *
 * Errors are values: every function that can fail returns a cik_status and
 * changes nothing when it refuses its input.
 *
 * The header compiles as C99, C11 and C++.
 */
#ifndef CROWDIK_CROWDIK_H
#define CROWDIK_CROWDIK_H

#include <stddef.h>

#define CIK_VERSION_MAJOR 0
#define CIK_VERSION_MINOR 37
#define CIK_VERSION_PATCH 0

/* CIK_API marks the exported functions: the shared library is built with
 * hidden visibility and exports these alone. */
#if defined(_WIN32) && defined(CIK_SHARED)
#if defined(CIK_BUILDING)
#define CIK_API __declspec(dllexport)
#else
#define CIK_API __declspec(dllimport)
#endif
#elif defined(__GNUC__)
#define CIK_API __attribute__((visibility("default")))
#else
#define CIK_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** A point or direction. */
typedef struct cik_vec3 {
    float x, y, z;
} cik_vec3;

/** A unit quaternion, (x, y, z) the vector part, w the scalar part. */
typedef struct cik_quat {
    float x, y, z, w;
} cik_quat;

/** What a function reports. CIK_OK is 0; every other value is a refusal or a
 *  failure, and the call changed nothing. */
typedef enum cik_status {
    CIK_OK = 0,
    /** A null pointer, an index or count out of range, a joint count that
     *  does not match the batch's. */
    CIK_ERROR_ARGUMENT = 1,
    /** A NaN or infinite value. */
    CIK_ERROR_NON_FINITE = 2,
    /** An unknown limit type, a zero axis, min_angle > max_angle, an angle
     *  outside [-pi, pi] or swing_max outside [0, pi]. */
    CIK_ERROR_LIMIT = 3,
    /** The storage could not be allocated (or its size would overflow). */
    CIK_ERROR_OUT_OF_MEMORY = 4,
    /** The requested backend is not built in or not supported by this CPU. */
    CIK_ERROR_BACKEND_UNAVAILABLE = 5,
    /** Bad solver options: threshold <= 0 or non-finite, max_iterations < 0,
     *  threads < 0, or a convergence option outside its documented range. */
    CIK_ERROR_OPTIONS = 6,
    /** A quaternion whose length is far from 1 (more than 1e-2 off). */
    CIK_ERROR_NOT_UNIT = 7,
    /** A finite value out of its range: a coordinate beyond
     *  CIK_MAX_COORDINATE, or a pole_weight outside [0, 1]. */
    CIK_ERROR_RANGE = 8
} cik_status;

/** The largest coordinate magnitude (positions, offsets, effectors,
 *  targets) the solver accepts, in world units. Squares of larger values
 *  overflow float; far below that, float resolution is useless for IK
 *  anyway (at 1e8 a float step is 8 units), so engines with large worlds
 *  solve relative to a nearby origin. */
#define CIK_MAX_COORDINATE 1e8f

/** At solve time a rotation (root or joint) counts as valid when its squared
 *  length is within this of 1 (the setters normalise; the bulk path does
 *  not). */
#define CIK_UNIT_SQUARED_TOLERANCE 0.021f

/** A static, human-readable description of a status ("ok", "bad argument..."). */
CIK_API const char *cik_status_string(cik_status status);

/** The library's version as "MAJOR.MINOR.PATCH" (the built library's, which
 *  may differ from the header's CIK_VERSION_* macros). */
CIK_API const char *cik_version(void);

/** Joint limit types. */
typedef enum cik_limit_type {
    CIK_LIMIT_NONE = 0,
    /** A hinge about `axis`: the joint keeps only the rotation about the axis,
     *  its angle clamped to [min_angle, max_angle] (an angle outside goes to
     *  the bound nearer round the circle: a knee of [-pi, 0] turned a little
     *  past -pi stays at -pi; docs/solver.md). */
    CIK_LIMIT_HINGE = 1,
    /** Ball and socket: the rotation is split into a twist about `axis`
     *  (clamped to [min_angle, max_angle] as a hinge's angle) and a swing whose angle is clamped
     *  to swing_max. */
    CIK_LIMIT_SWING_TWIST = 2
} cik_limit_type;

/** A joint limit, in the joint's local (parent-relative) frame; the identity
 *  rotation is the bind pose. Angles in radians. */
typedef struct cik_limit {
    cik_limit_type type;
    /** Hinge or twist axis in the joint's parent frame. Any non-zero length;
     *  it is normalised when set. */
    cik_vec3 axis;
    /** Hinge or twist range, -pi <= min_angle <= max_angle <= pi. */
    float min_angle, max_angle;
    /** Swing cone half-angle in [0, pi] (swing-twist only). */
    float swing_max;
} cik_limit;

/** The most joints a chain may have. */
#define CIK_MAX_JOINTS 16

/** One chain in array-of-structs form, for setting up and reading back.
 *  Joint j's origin is `offset[j]` in its parent's frame (joint 0's parent is
 *  the root frame: `root_position`, `root_rotation` in world space).
 *  `rotation[j]` is joint j's local rotation: the start pose going in, the
 *  solution coming out. `effector` is the end effector's offset in the last
 *  joint's frame; `target` is where it should go, in world space. */
typedef struct cik_chain {
    int joint_count;
    cik_vec3 root_position;
    cik_quat root_rotation;
    cik_vec3 offset[CIK_MAX_JOINTS];
    cik_quat rotation[CIK_MAX_JOINTS];
    cik_limit limit[CIK_MAX_JOINTS];
    cik_vec3 effector;
    cik_vec3 target;
    /** Pole (bend direction), used by limb mode (cik_options.ccd.limb): a world
     *  point on the side the middle joint (the knee) should bend towards.
     *  After aiming, the root joint twists about the root-to-target line so
     *  that the middle joint lies in the plane through the root, the target
     *  and the pole, by `pole_weight` (0 = no pole, 1 = fully; in [0, 1]).
     *  With a pole the bend plane stays where the caller put it (for a leg,
     *  a point ahead of the animated knee keeps the animation's bend plane)
     *  instead of drifting between frames, and a straight start has a
     *  defined bend plane. Ignored by chains that are not solved as limbs. */
    cik_vec3 pole;
    float pole_weight;
} cik_chain;

/** Solver implementations. REFERENCE is the plain one-chain-at-a-time oracle;
 *  SCALAR is the vector kernel built for one lane; the others are the vector
 *  kernel for that instruction set. AUTO picks the best the CPU supports. */
typedef enum cik_backend {
    CIK_BACKEND_AUTO = 0,
    CIK_BACKEND_REFERENCE = 1,
    CIK_BACKEND_SCALAR = 2,
    CIK_BACKEND_SSE = 3,
    CIK_BACKEND_AVX2 = 4,
    CIK_BACKEND_AVX512 = 5,
    CIK_BACKEND_NEON = 6
} cik_backend;

#define CIK_BACKEND_COUNT 7

/** 1 when `backend` is built in and this CPU runs it, else 0. AUTO is always
 *  available. */
CIK_API int cik_backend_available(cik_backend backend);

/** A static name ("reference", "avx512", ...); "unknown" for bad values. */
CIK_API const char *cik_backend_name(cik_backend backend);

/** The backend AUTO resolves to on this CPU. */
CIK_API cik_backend cik_backend_best(void);

/** Solver options. Start from cik_default_options(). */
/** Tuning of the CCD solver (docs/solver.md, "Options"). Each option
 *  whose value is 0 means "as before": plain CCD exactly as the solver
 *  semantics describe it, so a zero-initialised group is plain CCD
 *  (cik_plain_options()); cik_default_options() returns the best measured
 *  settings. Grouped so that another solving method can later have its own
 *  group beside it without touching these. */
typedef struct cik_ccd_options {
    /** Step gain (over-relaxation), in [0, 2]; 0 means 1. Every plain CCD
     *  step rotation r is replaced by normalize(k r + (1 - k) identity) with
     *  k = gain * weight[j]: k > 1 overshoots the aligning rotation (about
     *  k times its angle for small angles), k < 1 undershoots. */
    float gain;
    /** Largest rotation angle one plain CCD step may apply at a joint,
     *  radians, in [0, pi]; 0 = no cap. Applied after the gain. */
    float max_step;
    /** Per-joint step weight by joint index (joint 0 = the root), each in
     *  [0, 2]; 0 means 1. Weights below 1 on the joints near the tip counter
     *  CCD's end-effector bias (the tip joint doing most of the bending). */
    float weight[CIK_MAX_JOINTS];
    /** 1: a hinge joint's step rotates about its own axis by the angle that
     *  best aligns the effector and target directions projected onto the
     *  hinge plane (instead of the shortest arc, which the hinge limit then
     *  projects). 0: off. */
    int hinge_aware;
    /** Damped least-squares steps, in [0, 1]; 0 = off. Each CCD sweep is
     *  framed by a step that turns every joint at once (a hinge about its
     *  axis, any other joint freely) by the smallest rotations that move
     *  the effector onto the target to first order, damped by this value
     *  times the chain's reach (larger: shorter, safer steps). It bends a
     *  nearly straight chain along its whole length, which single-joint CCD
     *  steps do only over many passes (docs/solver.md, "Damped
     *  least-squares steps"). Not applied in the limb step. */
    float dls_damping;
    /** CIK_LIMB_AUTO: chains shaped like a limb (2 or 3 joints, joint 1 a
     *  hinge, joint 0 not a hinge, e.g. hip-knee-ankle or shoulder-elbow-
     *  wrist) start their first pass with the limb step: the middle hinge
     *  (and the end joint, for 3 joints) set in closed form so that the
     *  root-to-effector distance equals the root-to-target distance, then
     *  the root aims at the target and, with a pole, twists the bend plane
     *  to it. Later passes are plain CCD sweeps. CIK_LIMB_OFF (0): plain
     *  CCD for every chain. */
    int limb;
    /** 1: a chain whose target is out of its reach (UNREACHABLE) stops
     *  once its effector is within the threshold of the nearest point it
     *  can reach (|target - root joint| less the reach): it is straight and
     *  aimed at the target, and no later pass brings it nearer. 0: it runs
     *  every pass, as plain CCD does. */
    int stop_unreachable;
    /** 1: a chain whose last pose is farther from its target than an
     *  earlier pass boundary left it (its start pose included) ends on the
     *  earliest pose with the least error instead, with that pose's error
     *  and flags; the pass count is the passes it ran. Steps clamped by joint limits, the gain
     *  and the damped steps can take a chain farther from its target than
     *  an earlier pass left it (docs/solver.md, "Keeping the best pose").
     *  0: it ends on its last pose, as plain CCD does. Since 0.19. */
    int keep_best;
} cik_ccd_options;

typedef struct cik_options {
    /** A chain has converged when |effector - target| < threshold (world
     *  units; > 0). Default 1e-3 (1 mm for metre units). */
    float threshold;
    /** The most CCD passes (tip to root over every joint); >= 0, any value
     *  up to INT_MAX (pass counts are exact on every backend). Default 10. */
    int max_iterations;
    /** Which implementation solves. Default AUTO. */
    cik_backend backend;
    /** Most OpenMP threads to use; 0 = OpenMP's default, 1 = the calling
     *  thread only. Small batches always run on the calling thread. The
     *  threads take chunks of the batch as they come, so work that a
     *  descheduled thread has not started is done by the others; when a
     *  team gave no help (a thread arrived after all the work was taken:
     *  its core was busy), the batch's next 16 solves (then 64, 256, up to
     *  1024 while it keeps happening) run on the calling thread. Results
     *  are bitwise the same whatever the threads. */
    int threads;

    /** CCD tuning. */
    cik_ccd_options ccd;
} cik_options;

/** Limb mode values for cik_options.ccd.limb. */
#define CIK_LIMB_OFF 0
#define CIK_LIMB_AUTO 1

/** The best measured settings: threshold 1e-3, 10 passes, AUTO backend,
 *  threads 0, limb mode on, hinge-aware steps on, and the gain, cap and
 *  weights documented in docs/solver.md. */
CIK_API cik_options cik_default_options(void);

/** Plain CCD, exactly the solver semantics (docs/solver.md): threshold 1e-3,
 *  10 passes, AUTO backend, threads 0, every convergence option zero. */
CIK_API cik_options cik_plain_options(void);

/** A batch of chains sharing one joint count, stored as structure of arrays.
 *  Opaque; see docs/layout.md for the streams that cik_batch_streams exposes. */
typedef struct cik_batch cik_batch;

/** Creates a batch of `chain_count` chains (>= 0) of `joint_count` joints
 *  (1..CIK_MAX_JOINTS). Every chain starts as a valid chain: root at the
 *  origin, identity rotations, zero offsets, no limits, target at the origin.
 *  Returns CIK_ERROR_ARGUMENT for a null `out` or counts out of range and
 *  CIK_ERROR_OUT_OF_MEMORY when the storage cannot be allocated. The batch
 *  owns all its memory; free it with cik_batch_destroy. */
CIK_API cik_status cik_batch_create(int chain_count, int joint_count, cik_batch **out);

/** An engine's allocator, for the memory a batch owns. `allocate` returns
 *  at least `size` bytes aligned to `alignment` (a power of two, at most
 *  64) or NULL; `free` releases what `allocate` returned, given the same
 *  size; `user` is passed to both. Called only by cik_batch_create_with and
 *  cik_batch_destroy (twice each: the batch's header and its streams),
 *  never by a solve. */
typedef struct cik_allocator {
    void *(*allocate)(void *user, size_t size, size_t alignment);
    void (*free)(void *user, void *pointer, size_t size);
    void *user;
} cik_allocator;

/** cik_batch_create with the batch's memory from `allocator` (copied; NULL
 *  means malloc and free, as cik_batch_create). Also refuses an allocator
 *  without both functions, or one that returns memory less aligned than it
 *  was asked for (ARGUMENT; the memory goes back to it); when `allocate`
 *  fails, OUT_OF_MEMORY, and whatever it gave is freed through it. */
CIK_API cik_status cik_batch_create_with(int chain_count, int joint_count, const cik_allocator *allocator,
                                         cik_batch **out);

/** Frees a batch and everything it owns (through its allocator). NULL is
 *  accepted. */
CIK_API void cik_batch_destroy(cik_batch *batch);

/** Number of chains, joint count (0 for a null batch). */
CIK_API int cik_batch_chain_count(const cik_batch *batch);
CIK_API int cik_batch_joint_count(const cik_batch *batch);

/** Validates `chain` and writes it into slot `index`. Refuses, changing
 *  nothing: null pointers or an index out of range (ARGUMENT), a joint_count
 *  different from the batch's (ARGUMENT), any NaN or infinity (NON_FINITE), a
 *  quaternion whose length is off 1 by more than 1e-2 (NOT_UNIT; nearer ones
 *  are normalised), a coordinate (the pole's too) beyond CIK_MAX_COORDINATE
 *  or a pole_weight outside [0, 1] (RANGE), a bad limit (LIMIT). Clears the
 *  chain's last result. */
CIK_API cik_status cik_batch_set_chain(cik_batch *batch, int index, const cik_chain *chain);

/** Reads slot `index` back (rotations are the last solution). */
CIK_API cik_status cik_batch_get_chain(const cik_batch *batch, int index, cik_chain *out);

/** Sets one chain's target (world space). */
CIK_API cik_status cik_batch_set_target(cik_batch *batch, int index, cik_vec3 target);

/** Sets one chain's root transform (world space). */
CIK_API cik_status cik_batch_set_root(cik_batch *batch, int index, cik_vec3 position,
                                      cik_quat rotation);

/** Sets one joint's local rotation (the start pose of the next solve). */
CIK_API cik_status cik_batch_set_rotation(cik_batch *batch, int index, int joint,
                                          cik_quat rotation);

/** Reads one joint's local rotation. */
CIK_API cik_status cik_batch_get_rotation(const cik_batch *batch, int index, int joint,
                                          cik_quat *out);

/** The bulk path: pointers straight into the batch's streams, one float per
 *  chain, indexed by chain (stream[i] is chain i; valid for
 *  i < cik_batch_chain_count). Write targets, roots and start rotations for a
 *  whole frame, solve, read rotations back, without a call per chain.
 *  Streams are 64-byte aligned. Values written here are not validated: a
 *  chain whose data at solve time is non-finite, has a coordinate beyond
 *  CIK_MAX_COORDINATE or a rotation whose squared length is off 1 by more
 *  than CIK_UNIT_SQUARED_TOLERANCE is SKIPPED (pose untouched, error NaN)
 *  and no other chain is affected. Rotations written here should
 *  be unit quaternions. Offsets, effectors and limits are set through
 *  cik_batch_set_chain (limits carry derived data). The pointers stay valid
 *  until the batch is destroyed. */
typedef struct cik_streams {
    int chain_count;
    int joint_count;
    float *target_x, *target_y, *target_z;
    float *root_position_x, *root_position_y, *root_position_z;
    float *root_rotation_x, *root_rotation_y, *root_rotation_z, *root_rotation_w;
    float *rotation_x[CIK_MAX_JOINTS];
    float *rotation_y[CIK_MAX_JOINTS];
    float *rotation_z[CIK_MAX_JOINTS];
    float *rotation_w[CIK_MAX_JOINTS];
    /** Pole point (world) and weight per chain (see cik_chain.pole). A
     *  weight outside [0, 1] or a bad pole coordinate makes the chain
     *  SKIPPED at solve time. */
    float *pole_x, *pole_y, *pole_z, *pole_weight;
    /** The last solve's results per chain, read-only (the same values as
     *  cik_batch_result: error, passes, CIK_RESULT_* flags). */
    const float *result_error;
    const int *result_iterations;
    const unsigned *result_flags;
    /** Level of detail: one byte per chain, 1 (solve) when the batch is
     *  created. A chain whose byte is 0 is left alone by cik_solve and
     *  cik_solve_range: its rotations and its last results keep their bits,
     *  and it costs about what reading its byte costs (the enabled chains of
     *  partly enabled vector groups are gathered into full groups). */
    unsigned char *enabled;
} cik_streams;

/** Fills `out` with the batch's stream pointers (unused joints get NULL). */
CIK_API cik_status cik_batch_streams(cik_batch *batch, cik_streams *out);

/** Solves every chain of the batch in place (rotations are read as the start
 *  pose and overwritten with the solution) and records a result per chain.
 *  Joint limits are applied to every joint a step rotates: a start pose that
 *  already meets the threshold is returned untouched (0 passes, CONVERGED),
 *  even where it lies outside a joint's limits; clamp such a pose first if
 *  the limits must hold on every output.
 *  Refuses bad options (OPTIONS) or an unavailable backend
 *  (BACKEND_UNAVAILABLE) before touching anything. Allocates nothing and
 *  takes no lock. A null `options` means cik_default_options(). */
CIK_API cik_status cik_solve(cik_batch *batch, const cik_options *options);

/** A solve checked and resolved once (options, backend, kernel), for an
 *  engine's own job system: fill it with cik_solve_plan_init, then call
 *  cik_solve_range from any threads. Caller-owned storage, no allocation;
 *  its contents are private. A plan refers to its batch: it stays usable
 *  until the batch is destroyed, and is reusable frame after frame. */
typedef struct cik_solve_plan {
    union {
        void *align_pointer;
        double align_double;
        unsigned char bytes[256];
    } opaque;
} cik_solve_plan;

/** Checks `options` (NULL: cik_default_options()) and the backend as
 *  cik_solve does and fills `plan` for `batch`. Refuses a null plan or
 *  batch (ARGUMENT), bad options (OPTIONS), an unavailable backend
 *  (BACKEND_UNAVAILABLE), leaving `plan` unchanged. The options' `threads`
 *  is not used by cik_solve_range (the caller's threads solve). */
CIK_API cik_status cik_solve_plan_init(cik_solve_plan *plan, cik_batch *batch,
                                       const cik_options *options);

/** Solves exactly the chains [begin, end) of the plan's batch, as cik_solve
 *  would: every chain gets the same bits whatever the split, the caller and
 *  the thread. Chains outside the range are neither read nor written, so
 *  calls on DISJOINT ranges of one batch may run at the same time on any
 *  threads (nothing else may touch the batch meanwhile). Ranges need not be
 *  aligned: whole vector groups inside the range are solved in place; the
 *  chains of a group that the range splits are copied into a group on the
 *  stack (the rest of that group filled with copies of them), solved there
 *  and copied back, which gives the same bits because a lane's result never
 *  depends on the lanes beside it. Bounds that are multiples of
 *  cik_solve_plan_alignment (64 always is) avoid that copy. Refuses a null
 *  or uninitialised plan or 0 <= begin <= end <= chain count not holding
 *  (ARGUMENT), changing nothing. Allocates nothing, takes no lock. */
CIK_API cik_status cik_solve_range(const cik_solve_plan *plan, int begin, int end);

/** Chains per vector group of the plan's kernel (1 for the reference, 32
 *  for AVX-512): range bounds that are multiples of it are solved in place.
 *  0 for a null or uninitialised plan. */
CIK_API int cik_solve_plan_alignment(const cik_solve_plan *plan);

/** Result flags. */
#define CIK_RESULT_CONVERGED 1u   /**< error < threshold */
/** The target is farther from joint 0 than the chain's reach, the sum of its
 *  bone lengths and effector offset (|o[j]| for j >= 1, plus |e|). The chain
 *  stretches toward it: where the limits allow, it ends straight and pointing
 *  at the target (a straight chain already pointing at it stays as it is;
 *  plain CCD approaches that pose over its passes). Joint limits are not
 *  considered for the flag: a target that only the limits keep out of
 *  reach ends with neither CONVERGED nor UNREACHABLE, and an error that more
 *  passes do not reduce; treat a large `error` as a gap in either case. */
#define CIK_RESULT_UNREACHABLE 2u
#define CIK_RESULT_SKIPPED 4u     /**< invalid data (non-finite, out of range, not unit): pose untouched, error NaN */

/** One chain's outcome of the last solve. */
typedef struct cik_result {
    /** |effector - target| after the solve (NaN when skipped). */
    float error;
    /** CCD passes run, min(passes needed, max_iterations), exact (0 when the
     *  start pose already met the threshold). */
    int iterations;
    /** CIK_RESULT_* bits. */
    unsigned flags;
} cik_result;

/** Reads chain `index`'s result of the last solve (error 0, iterations 0,
 *  flags 0 before any solve or after the chain was set). */
CIK_API cik_status cik_batch_result(const cik_batch *batch, int index, cik_result *out);

/** Forward kinematics of one chain of the batch: world positions of its
 *  joints (`joint_positions`, joint_count entries, may be NULL) and of its
 *  effector (`effector`, may be NULL). */
CIK_API cik_status cik_batch_forward(const cik_batch *batch, int index, cik_vec3 *joint_positions,
                                     cik_vec3 *effector);

/** Applies a joint limit to a local rotation as the solver does
 *  (docs/solver.md): w made >= 0, a hinge keeps only its rotation about the
 *  axis with the angle clamped, a swing-twist joint its twist clamped and its
 *  swing inside the cone. A rotation within the limit comes back as the same
 *  rotation with w >= 0 (up to rounding). The axis need not be unit length;
 *  a NULL or CIK_LIMIT_NONE limit returns `q` unchanged. Plain scalar code,
 *  for tools and checks (the kernels clamp whole vectors of chains). */
CIK_API cik_quat cik_limit_apply(const cik_limit *limit, cik_quat q);

/** How far `q` lies outside `limit`, in radians (0 when within, NULL or
 *  CIK_LIMIT_NONE): the largest of the twist (or hinge angle) beyond its
 *  range and the swing beyond the cone (for a hinge, any rotation off its
 *  axis). */
CIK_API float cik_limit_excess(const cik_limit *limit, cik_quat q);

/** Forward kinematics of a chain in array-of-structs form (no batch needed). */
CIK_API cik_status cik_chain_forward(const cik_chain *chain, cik_vec3 *joint_positions,
                                     cik_vec3 *effector);

/* Conversions between an engine's arrays and the streams, for chains
 * [first, first + count). The engine side is strided: element i lies
 * `stride` bytes after element i - 1 (0 means packed, sizeof the element),
 * so a plain array, an array of per-character structs holding the value, or
 * a pose array [chain][joint] (stride joint_count * sizeof(cik_quat)) are
 * read and written in place. Like the streams, values are not validated
 * (bad ones make the chain SKIPPED at solve time). Refused, changing
 * nothing: a null batch or pointer, a joint or chain span out of range
 * (ARGUMENT). */

/** Joint `joint`'s local rotations (the start pose) from `src`. */
CIK_API cik_status cik_batch_write_rotations(cik_batch *batch, int joint, int first, int count,
                                             const cik_quat *src, size_t stride);

/** Joint `joint`'s local rotations (after a solve: the solution) into `dst`. */
CIK_API cik_status cik_batch_read_rotations(const cik_batch *batch, int joint, int first, int count,
                                            cik_quat *dst, size_t stride);

/** Targets (world) from `targets`. */
CIK_API cik_status cik_batch_write_targets(cik_batch *batch, int first, int count, const cik_vec3 *targets,
                                           size_t stride);

/** Root transforms (world) from `positions` and `rotations`. */
CIK_API cik_status cik_batch_write_roots(cik_batch *batch, int first, int count, const cik_vec3 *positions,
                                         size_t position_stride, const cik_quat *rotations,
                                         size_t rotation_stride);

/** The world pose of every joint of chains [first, first + count), from the
 *  streams as they are (after a solve: the solved pose), computed across
 *  chains at once instead of a forward-kinematics call per chain: joint j
 *  of chain first + i goes to element i * joint_count + j of
 *  `world_rotations` (joint j's world rotation: root * q[0] * ... * q[j])
 *  and `world_positions` (its origin, as cik_chain_forward gives it), the
 *  effector to `effectors[i]`. Any of the three may be NULL. */
CIK_API cik_status cik_batch_world_pose(const cik_batch *batch, int first, int count, cik_quat *world_rotations,
                                        cik_vec3 *world_positions, cik_vec3 *effectors);

/** Bytes the batch owns (for memory budgets). */
CIK_API size_t cik_batch_memory_bytes(const cik_batch *batch);

#ifdef __cplusplus
}
#endif

#endif /* CROWDIK_CROWDIK_H */
