/*
 * Level of detail: solve only the chains that matter this frame.
 *
 * Far and hidden characters need no foot IK. Their chains are switched off
 * in the batch's enable stream (one byte per chain, cik_streams.enabled):
 * the solve leaves them bitwise alone and spends close to nothing on them,
 * because the enabled chains of partly enabled vector groups are gathered
 * into full groups. The example times one thread's solve of a crowd's legs
 * with every chain on, and with a tenth of them on, scattered at random
 * (the worst case) and in one block (characters sorted by distance).
 *
 *   level_of_detail [legs] [repeats]
 */
#define _POSIX_C_SOURCE 199309L
#include <crowdik/crowdik.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "leg.h"

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median time of `repeats` solves, each from the same start pose. */
static double time_solve(cik_batch *b, const cik_options *o, int repeats)
{
    cik_streams s;
    cik_batch_streams(b, &s);
    double *t = (double *)malloc(sizeof(double) * (size_t)repeats);
    if (!t) return -1.0;
    for (int r = 0; r < repeats; ++r) {
        for (int j = 0; j < s.joint_count; ++j)
            for (int i = 0; i < s.chain_count; ++i) {
                s.rotation_x[j][i] = s.rotation_y[j][i] = s.rotation_z[j][i] = 0.0f;
                s.rotation_w[j][i] = 1.0f;
            }
        double t0 = now_ms();
        cik_solve(b, o);
        t[r] = now_ms() - t0;
    }
    qsort(t, (size_t)repeats, sizeof(double), cmp_double);
    double m = t[repeats / 2];
    free(t);
    return m;
}

int main(int argc, char **argv)
{
    int legs = argc > 1 ? atoi(argv[1]) : 20000;
    int repeats = argc > 2 ? atoi(argv[2]) : 21;
    if (legs < 10 || repeats < 1) {
        fprintf(stderr, "usage: level_of_detail [legs >= 10] [repeats]\n");
        return 2;
    }
    cik_batch *b = NULL;
    if (cik_batch_create(legs, 3, &b) != CIK_OK) return 1;
    cik_chain c = example_leg(); /* leg.h: the leg, its limits */
    for (int i = 0; i < legs; ++i) {
        float a = 0.001f * (float)i;
        c.target = (cik_vec3){0.2f * sinf(a), -0.78f + 0.05f * cosf(3.0f * a), 0.25f * cosf(a)};
        c.pole = (cik_vec3){0, -0.4f, 1.0f};
        c.pole_weight = 1.0f;
        if (cik_batch_set_chain(b, i, &c) != CIK_OK) return 1;
    }
    cik_options o = cik_default_options();
    o.threads = 1;
    cik_streams s;
    cik_batch_streams(b, &s);

    memset(s.enabled, 1, (size_t)legs);
    double all = time_solve(b, &o, repeats);

    srand(17);
    int on = 0;
    for (int i = 0; i < legs; ++i) on += s.enabled[i] = (unsigned char)(rand() % 10 == 0);
    double scattered = time_solve(b, &o, repeats);

    memset(s.enabled, 0, (size_t)legs);
    memset(s.enabled, 1, (size_t)(legs / 10));
    double block = time_solve(b, &o, repeats);

    memset(s.enabled, 0, (size_t)legs);
    double none = time_solve(b, &o, repeats);

    printf("%d legs, backend %s, one thread, median of %d solves:\n", legs, cik_backend_name(cik_backend_best()),
           repeats);
    printf("  all enabled              %8.3f ms\n", all);
    printf("  10%% scattered (%5d on) %8.3f ms  (%.2f of all)\n", on, scattered, scattered / all);
    printf("  10%% in one block        %8.3f ms  (%.2f of all)\n", block, block / all);
    printf("  none enabled             %8.3f ms  (%.3f of all)\n", none, none / all);
    cik_batch_destroy(b);
    return 0;
}
