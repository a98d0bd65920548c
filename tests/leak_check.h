/*
 * Forced into every Criterion test in the sanitizer build (CROWDIK_SANITIZE):
 * Criterion's workers leave without LeakSanitizer's exit check, so each test
 * gets a .fini that runs the check and aborts on a leak, failing the test.
 * A test's own .fini, given later in its Test(...), takes precedence.
 */
#ifndef CROWDIK_TEST_LEAK_CHECK_H
#define CROWDIK_TEST_LEAK_CHECK_H

#include <criterion/criterion.h>
#include <sanitizer/lsan_interface.h>
#include <stdlib.h>

static inline void cik_test_leak_fini(void)
{
    if (__lsan_do_recoverable_leak_check()) abort();
}

#undef Test
#define Test(Suite, Name, ...) \
    CR_EXPAND(CR_TEST_BASE(Suite, Name, .fini = cik_test_leak_fini, ##__VA_ARGS__, .sentinel_ = 0))

#endif
