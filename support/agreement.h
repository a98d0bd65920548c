/*
 * The agreement rule's count of allowed exceptions (docs/solver.md,
 * "Agreement between backends"), one copy for crowdik_validate and the
 * tests.
 *
 * The rule allows a small rate of exceptions (0.1 percent of chains, 0.5
 * for capped tails). A row of n chains counts them, and a count over
 * rate * n does not prove the rate is exceeded when n is small: one
 * exception in 926 chains is 0.108 percent from a rate of 0.1. A row fails
 * only when its count is one that a backend with exactly the allowed rate
 * would reach with probability below 1e-3 (a one-sided binomial test):
 * agreement_allowed returns the largest count that passes. Large rows keep
 * close to the rate (4000 chains at 0.1 percent: 11 allowed; 10,000: 21;
 * 100,000: 132).
 */
#ifndef CROWDIK_SUPPORT_AGREEMENT_H
#define CROWDIK_SUPPORT_AGREEMENT_H

#include <math.h>

static inline long agreement_allowed(long n, double rate)
{
    const double alpha = 1e-3;
    /* P(X = k) for X ~ Binomial(n, rate), summed up from k = 0 until the
     * tail beyond k is below alpha; the terms from the log of the first so
     * that (1 - rate)^n does not underflow for large n */
    double term = exp((double)n * log1p(-rate)), cdf = term;
    long k = 0;
    while (1.0 - cdf >= alpha && k < n) {
        term *= (double)(n - k) / (double)(k + 1) * rate / (1.0 - rate);
        cdf += term;
        ++k;
    }
    return k;
}

#endif
