/*
 * crowdik_flops_W: the CCD kernel's arithmetic counted (docs/roofline.md).
 * The kernel source (src/kernels/ccd_kernel.h) is compiled here once more
 * over a counting vector layer (vec_count.h) with groups of W lanes
 * (CIK_IL = W, one float a native lane): W = 1 counts the work a chain
 * needs, W = 8, 16, 32 the lane operations the SSE4.1, AVX2 and AVX-512
 * builds execute (4, 8, 16 native lanes, two vectors interleaved), lanes
 * that ride along included. Built with -finstrument-functions, whose hooks
 * tell which kernel function each operation runs in (inlined functions
 * included): each count goes to the innermost of the regions below.
 *
 *   crowdik_flops_W default|plain CHAINS
 *
 * prints, per leg, the lane operations by kind and region. Flops: add, sub,
 * mul, min/max count 1, fma 2, div, sqrt and rsqrt 1 each (the SIMD builds'
 * rsqrt is an estimate plus a Newton step: 4 multiplies and a subtract
 * more, added to the total as rsqrt_newton).
 */
#define _POSIX_C_SOURCE 200809L
#include "vec_count.h"
#include "crowdik/crowdik.h"

#ifndef COUNT_LANES
#error "define COUNT_LANES (lanes per group)"
#endif
#define CIK_IL COUNT_LANES
#define CIK_KERNEL_SYMBOL cik__kernel_count
#define CIK_KERNEL_BACKEND CIK_BACKEND_SCALAR
#include "../src/kernels/ccd_kernel.h"

#include "workloads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NO_HOOK __attribute__((no_instrument_function))

/* The regions: each count goes to the innermost one it runs in. */
typedef struct region {
    const char *name;
    const void *fn;
} region;

static region regions[] = {
    {"solve_group (loads, validation, convergence, stores)", NULL},
    {"forward_from (forward kinematics)", NULL},
    {"step (CCD step: arc, cap)", NULL},
    {"rotate_joint (local rotation, normalise)", NULL},
    {"apply_limit + limit_clamp (joint limits)", NULL},
    {"limb_step (limb primitive: share, pole)", NULL},
    {"circle_rotation + half_angle_pair (limb hinge solve)", NULL},
    {"hinge_pair", NULL},
    {"unstick", NULL},
    {"dls_step", NULL},
    {"regroup (copies)", NULL},
    {"other", NULL},
};
#define REGIONS (int)(sizeof regions / sizeof regions[0])
#define R_OTHER (REGIONS - 1)

static const void *fn_of[64];
static int region_of[64], fn_count;

static void NO_HOOK add_fn(const void *fn, int r)
{
    fn_of[fn_count] = fn;
    region_of[fn_count++] = r;
}

static void NO_HOOK setup_regions(void)
{
    add_fn((const void *)solve_group, 0);
    add_fn((const void *)forward_from, 1);
    add_fn((const void *)step, 2);
    add_fn((const void *)rotate_joint, 3);
    add_fn((const void *)apply_limit, 4);
    add_fn((const void *)limit_clamp, 4);
    add_fn((const void *)limb_step, 5);
    add_fn((const void *)circle_rotation, 6);
    add_fn((const void *)half_angle_pair, 6);
    add_fn((const void *)hinge_pair, 7);
    add_fn((const void *)unstick, 8);
    add_fn((const void *)dls_step, 9);
#if CIK_LANES >= 4
    add_fn((const void *)regroup_run, 10);
#endif
}

#define MAX_DEPTH 256
static int depth;
static int stack_region[MAX_DEPTH];
static uint64_t counts[REGIONS][OP_KINDS];

void NO_HOOK __cyg_profile_func_enter(void *fn, void *site);
void NO_HOOK __cyg_profile_func_exit(void *fn, void *site);

void __cyg_profile_func_enter(void *fn, void *site)
{
    (void)site;
    int r = depth > 0 ? stack_region[depth - 1] : R_OTHER;
    for (int i = 0; i < fn_count; ++i)
        if (fn_of[i] == fn) r = region_of[i];
    if (depth < MAX_DEPTH) stack_region[depth] = r;
    ++depth;
}

void __cyg_profile_func_exit(void *fn, void *site)
{
    (void)fn;
    (void)site;
    --depth;
}

void NO_HOOK count_op(int kind)
{
    int r = depth > 0 ? stack_region[depth < MAX_DEPTH ? depth - 1 : MAX_DEPTH - 1] : R_OTHER;
    ++counts[r][kind];
}

static const char *const kind_name[OP_KINDS] = {"add/sub", "mul", "fma", "div", "sqrt", "rsqrt", "min/max",
                                                "abs/neg", "compare", "select", "load", "store"};

static double NO_HOOK flops_of(const uint64_t *c)
{
    return (double)(c[OP_ADD] + c[OP_MUL] + c[OP_MINMAX] + c[OP_DIV] + c[OP_SQRT] + c[OP_RSQRT]) +
           2.0 * (double)c[OP_FMA];
}

int NO_HOOK main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "default") && strcmp(argv[1], "plain"))) {
        fprintf(stderr, "usage: %s default|plain CHAINS\n", argv[0]);
        return 2;
    }
    int plain = strcmp(argv[1], "plain") == 0;
    int chains = atoi(argv[2]);
    if (chains <= 0 || chains % 64) {
        fprintf(stderr, "CHAINS: a positive multiple of 64\n");
        return 2;
    }
    setup_regions();
    cik_options o = plain ? cik_plain_options() : cik_default_options();
    o.threshold = 1e-3f;
    o.max_iterations = 10;
    o.threads = 1;
    o.backend = CIK_BACKEND_SCALAR;
    cik_batch *b = NULL;
    if (cik_batch_create(chains, wl_joint_count(WL_LEGS, 0), &b) != CIK_OK || wl_fill(b, WL_LEGS, 1, 0) != CIK_OK)
        return 1;
    cik__solve_plan plan;
    if (cik__solve_prepare(b, &o, &plan) != CIK_OK) return 1;
    depth = 0;
    kernel_solve(&plan.job, 0, chains);
    float *scratch = malloc(sizeof(float) * (size_t)chains);
    if (!scratch) return 1;
    wl_stats ws;
    wl_collect(b, &ws, scratch);
    free(scratch);

    uint64_t total[OP_KINDS] = {0};
    for (int r = 0; r < REGIONS; ++r)
        for (int k = 0; k < OP_KINDS; ++k) total[k] += counts[r][k];
    const double n = (double)chains;
    printf("legs %s, %d chains, groups of %d lanes: mean passes %.3f, converged %d\n", argv[1], chains, CIK_LANES,
           ws.mean_passes, ws.converged);
    printf("%-56s %9s", "lane operations per leg", "flops");
    for (int k = 0; k < OP_KINDS; ++k) printf(" %8s", kind_name[k]);
    printf("\n");
    for (int r = 0; r < REGIONS; ++r) {
        if (flops_of(counts[r]) == 0.0 && counts[r][OP_LOAD] == 0 && counts[r][OP_STORE] == 0) continue;
        printf("%-56s %9.1f", regions[r].name, flops_of(counts[r]) / n);
        for (int k = 0; k < OP_KINDS; ++k) printf(" %8.1f", (double)counts[r][k] / n);
        printf("\n");
    }
    printf("%-56s %9.1f", "total", flops_of(total) / n);
    for (int k = 0; k < OP_KINDS; ++k) printf(" %8.1f", (double)total[k] / n);
    printf("\n");
    printf("total with the SIMD rsqrt's Newton step (+5 flops each): %.1f flops per leg\n",
           (flops_of(total) + 5.0 * (double)total[OP_RSQRT]) / n);
    cik_batch_destroy(b);
    return 0;
}
