/*
 * The baselines users would otherwise call, in crowdik_bench beside
 * crowdik's solvers: three.js's CCDIKSolver (peer_threejs.c) and Godot's
 * CCDIK modification (peer_godot.c) on the CCD workloads, and ozz-animation's
 * two-bone IK (two_bone.c) on legs with the ankle as effector, where crowdik
 * solves the same legs too.
 *
 * Names as in bench_ccd.c: WORKLOAD/SOLVER/chains:N/threads:1/manual_time,
 * SOLVER "threejs", "godot" or "two-bone"; the workload "legs-ankle" is
 * `legs` (seed 1) with the effector at the ankle and, as its target, the
 * ankle under the toe target with the foot kept as the start pose holds it
 * (what a foot-placement caller asks of a two-bone solve); crowdik's best
 * backend solves it as "BACKEND" (defaults) and "BACKEND-plain".
 *
 * The engines solve one chain at a time, each chain its own copy (the
 * engines' per-character skeletons); only the solves are timed, the start
 * pose is copied back outside the measured time. Counters as bench_ccd.c's;
 * `converged` is measured by forward kinematics after the solve (error
 * under 1 mm), `mean_passes` counts the engine's iterations (three.js),
 * executions (Godot) or 1 (the analytic solve).
 */
#define _POSIX_C_SOURCE 200809L
#include "bench_peers.h"

#include "crowdik/crowdik.h"
#include "peer_chain.h"
#include "peer_godot.h"
#include "peer_threejs.h"
#include "bench_timing.h"
#include "shim.h"
#include "two_bone.h"
#include "workloads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SEED 1u
#define THRESHOLD 1e-3f
#define PASSES 10
/* As in bench_ccd.c: from this many chains on, the calling thread's CPU
 * clock is read around each solve too (cpu_ns_per_chain), which a busy
 * machine's preemption does not inflate. */
#define CPU_CLOCK_MIN_CHAINS 4096

typedef enum peer_solver { PEER_THREEJS, PEER_GODOT, PEER_TWO_BONE, PEER_CROWDIK, PEER_CROWDIK_PLAIN } peer_solver;

/* WL_LEGS with the ankle as effector (not a wl_kind: built here). */
#define LEGS_ANKLE (-1)

typedef struct peer_case {
    int kind; /* a wl_kind or LEGS_ANKLE */
    peer_solver solver;
} peer_case;

typedef struct peer_fixture {
    int kind, chains;
    cik_chain *start, *work;
    threejs_ik *threejs;
    godot_ccdik *godot;
    int *passes;
    cikb_posed ankle; /* crowdik on legs-ankle */
} peer_fixture;

static peer_fixture pf = {0, -1, NULL, NULL, NULL, NULL, NULL, {NULL, {0}, NULL, NULL}};

void bench_peers_cleanup(void)
{
    free(pf.start);
    free(pf.work);
    free(pf.threejs);
    free(pf.godot);
    free(pf.passes);
    cikb_posed_free(&pf.ankle);
    memset(&pf, 0, sizeof pf);
    pf.chains = -1;
}

/* The ankle target: the toe target less the toe's offset, turned by the
 * ankle's world rotation in the start pose. */
static void to_ankle_effector(cik_chain *c)
{
    peer_pose w;
    peer_pose_update(c, &w, 0);
    c->target = vec3_sub(c->target, quat_rotate(w.q[2], c->effector));
    c->effector = vec3(0, 0, 0);
}

static void batch_restore(void) { cikb_posed_restore(&pf.ankle); }

static const char *fixture_build(int kind, int chains)
{
    if (pf.kind == kind && pf.chains == chains) return NULL;
    bench_peers_cleanup();
    wl_kind source = kind == LEGS_ANKLE ? WL_LEGS : (wl_kind)kind;
    int J = wl_joint_count(source, 0);
    /* the chains as the batch holds them (normalised limits and rotations),
     * as the textbook baseline reads them */
    cik_batch *b = NULL;
    if (cik_batch_create(chains, J, &b) != CIK_OK) return "cik_batch_create failed";
    if (wl_fill(b, source, SEED, 0) != CIK_OK) {
        cik_batch_destroy(b);
        return "generating the workload failed";
    }
    pf.start = malloc(sizeof(cik_chain) * (size_t)chains);
    pf.work = malloc(sizeof(cik_chain) * (size_t)chains);
    pf.threejs = malloc(sizeof(threejs_ik) * (size_t)chains);
    pf.godot = malloc(sizeof(godot_ccdik) * (size_t)chains);
    pf.passes = calloc((size_t)chains, sizeof(int));
    if (!pf.start || !pf.work || !pf.threejs || !pf.godot || !pf.passes) {
        cik_batch_destroy(b);
        bench_peers_cleanup();
        return "out of memory";
    }
    for (int i = 0; i < chains; ++i) {
        cik_batch_get_chain(b, i, &pf.start[i]);
        if (kind == LEGS_ANKLE) to_ankle_effector(&pf.start[i]);
        threejs_ik_from_chain(&pf.start[i], PASSES, &pf.threejs[i]);
        godot_ccdik_from_chain(&pf.start[i], &pf.godot[i]);
    }
    if (kind == LEGS_ANKLE) {
        for (int i = 0; i < chains; ++i) {
            if (cik_batch_set_chain(b, i, &pf.start[i]) != CIK_OK) {
                cik_batch_destroy(b);
                bench_peers_cleanup();
                return "an ankle chain was refused";
            }
        }
        const char *why = cikb_posed_init(&pf.ankle, b);
        if (why) {
            bench_peers_cleanup();
            return why;
        }
    } else {
        cik_batch_destroy(b);
    }
    pf.kind = kind;
    pf.chains = chains;
    return NULL;
}

static void solve_all(peer_solver solver)
{
    for (int i = 0; i < pf.chains; ++i) {
        cik_chain *c = &pf.work[i];
        switch (solver) {
        case PEER_THREEJS: pf.passes[i] = threejs_ccd_solve(c, &pf.threejs[i]); break;
        case PEER_GODOT: pf.passes[i] = godot_ccdik_solve(c, &pf.godot[i], PASSES); break;
        default:
            two_bone_solve_leg(c);
            pf.passes[i] = 1;
            break;
        }
    }
}

/* A peer's timed step (bench_timing.h), from the chains' start pose (ctx:
 * the peer_solver). */
static void peer_setup(void *ctx)
{
    (void)ctx;
    memcpy(pf.work, pf.start, sizeof(cik_chain) * (size_t)pf.chains);
}

static int peer_step(void *ctx)
{
    solve_all(*(const peer_solver *)ctx);
    return 0;
}

static void bm_peer(cikb_state *s)
{
    const peer_case *pc = cikb_user(s);
    int chains = (int)cikb_range(s, 0);
    const char *why = fixture_build(pc->kind, chains);
    if (why) {
        cikb_skip_with_error(s, why);
        return;
    }
    int J = pf.start[0].joint_count;
    double seconds = 0.0, cpu_seconds = 0.0, mean_passes = 0.0, converged = 0.0;
    int cpu_clock = chains >= CPU_CLOCK_MIN_CHAINS;
    if (pc->solver == PEER_CROWDIK || pc->solver == PEER_CROWDIK_PLAIN) {
        cik_options o = pc->solver == PEER_CROWDIK_PLAIN ? cik_plain_options() : cik_default_options();
        o.threshold = THRESHOLD;
        o.max_iterations = PASSES;
        o.threads = 1;
        if (cikb_run_solve(s, pf.ankle.batch, &o, batch_restore, cpu_clock, pf.ankle.scratch, &seconds, &cpu_seconds,
                           &mean_passes, &converged))
            return;
    } else {
        peer_solver solver = pc->solver;
        cikb_timed t = {peer_setup, peer_step, &solver, cpu_clock};
        cikb_run_timed(s, &t, &seconds, &cpu_seconds);
        long passes = 0, conv = 0;
        for (int i = 0; i < chains; ++i) {
            peer_pose w;
            peer_pose_update(&pf.work[i], &w, 0);
            passes += pf.passes[i];
            conv += vec3_length(vec3_sub(w.effector, pf.work[i].target)) < THRESHOLD;
        }
        mean_passes = (double)passes / chains;
        converged = (double)conv / chains;
    }
    cikb_report_chains(s, chains, J, seconds, cpu_seconds, mean_passes, converged);
}

static const wl_kind ccd_kinds[] = {WL_LEGS, WL_LEGS_NO_LIMITS, WL_SPINE, WL_TAIL};
#define NCCD ((int)(sizeof ccd_kinds / sizeof ccd_kinds[0]))
static peer_case ccd_cases[NCCD][2];
static peer_case ankle_cases[3];

static void add(peer_case *pc, int chains)
{
    char name[64];
    const char *workload = pc->kind == LEGS_ANKLE ? "legs-ankle" : wl_name((wl_kind)pc->kind);
    const char *best = cik_backend_name(cik_backend_best());
    switch (pc->solver) {
    case PEER_THREEJS: snprintf(name, sizeof name, "%s/threejs", workload); break;
    case PEER_GODOT: snprintf(name, sizeof name, "%s/godot", workload); break;
    case PEER_TWO_BONE: snprintf(name, sizeof name, "%s/two-bone", workload); break;
    case PEER_CROWDIK: snprintf(name, sizeof name, "%s/%s", workload, best); break;
    default: snprintf(name, sizeof name, "%s/%s-plain", workload, best); break;
    }
    static const char *const arg_names[] = {"chains", "threads"};
    int64_t args[2] = {chains, 1};
    cikb_bench *b = cikb_register(name, bm_peer, pc);
    cikb_arg_names(b, arg_names, 2);
    cikb_args(b, args, 2);
    cikb_use_manual_time(b);
    cikb_time_unit(b, 'u');
}

void bench_peers_register(int quick)
{
    /* The engines cost the same per chain at every size: no 65,536 (their
     * per-chain copies would take 200 MB for tails). Quick mode: 16 chains
     * only, a few milliseconds. */
    static const int full_sizes[] = {16, 256, 4096, 16384};
    static const int quick_sizes[] = {16};
    const int *sizes = quick ? quick_sizes : full_sizes;
    int nsizes = quick ? 1 : 4;
    for (int k = 0; k < NCCD; ++k) {
        ccd_cases[k][0].kind = ccd_cases[k][1].kind = (int)ccd_kinds[k];
        ccd_cases[k][0].solver = PEER_THREEJS;
        ccd_cases[k][1].solver = PEER_GODOT;
        for (int z = 0; z < nsizes; ++z) {
            add(&ccd_cases[k][0], sizes[z]);
            add(&ccd_cases[k][1], sizes[z]);
        }
    }
    static const peer_solver ankle_solvers[] = {PEER_TWO_BONE, PEER_CROWDIK, PEER_CROWDIK_PLAIN};
    for (int s = 0; s < 3; ++s) {
        ankle_cases[s].kind = LEGS_ANKLE;
        ankle_cases[s].solver = ankle_solvers[s];
    }
    for (int z = 0; z < nsizes; ++z)
        for (int s = 0; s < 3; ++s) add(&ankle_cases[s], sizes[z]);
}
