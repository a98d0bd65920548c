/*
 * What the libFuzzer targets share: failing loudly on a violated property,
 * and reading the input bytes. Each target defines FUZZ_NAME (the name that
 * starts its messages) before including this header.
 *
 * The value tables and how a byte picks a float stay in each target: they
 * are tuned to what each API accepts, so they differ on purpose.
 */
#ifndef CROWDIK_FUZZ_COMMON_H
#define CROWDIK_FUZZ_COMMON_H

#include "crowdik/crowdik.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FUZZ_NAME
#error "define FUZZ_NAME (the target's name, a string) before including fuzz_common.h"
#endif

/* A violated property aborts, so that libFuzzer keeps the input. */
#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, FUZZ_NAME ": property violated at %s:%d: %s\n  ", __FILE__,    \
                    __LINE__, #cond);                                                      \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fprintf(stderr, "\n");                                                         \
            abort();                                                                       \
        }                                                                                  \
    } while (0)

/* The input, consumed from the front; past its end every read is zero, so
 * that any input is a whole program. */
typedef struct reader {
    const uint8_t *p;
    size_t n;
} reader;

static inline uint8_t rd_u8(reader *r)
{
    if (r->n == 0) return 0;
    r->n--;
    return *r->p++;
}

static inline uint32_t rd_u32(reader *r)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= (uint32_t)rd_u8(r) << (8 * i);
    return v;
}

static inline float bits_to_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Entry k (mod the total) of two tables taken as one: the special bit
 * patterns, then the plain values. */
static inline float pick_value(unsigned k, const uint32_t *special_bits, size_t ns, const float *plain,
                               size_t np)
{
    k %= (unsigned)(ns + np);
    return k < ns ? bits_to_float(special_bits[k]) : plain[k - ns];
}

/* (x, y, z, w) normalised in double; the identity where it has no length. */
static inline cik_quat unit_from(double x, double y, double z, double w)
{
    double n = sqrt(x * x + y * y + z * z + w * w);
    cik_quat q = {0.0f, 0.0f, 0.0f, 1.0f};
    if (n > 1e-6 && isfinite(n)) {
        q.x = (float)(x / n);
        q.y = (float)(y / n);
        q.z = (float)(z / n);
        q.w = (float)(w / n);
    }
    return q;
}

#endif
