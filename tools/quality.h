/*
 * The quality report of crowdik_validate (--quality): convergence and pose
 * quality of plain CCD and of the default options, per workload.
 */
#ifndef CROWDIK_TOOLS_QUALITY_H
#define CROWDIK_TOOLS_QUALITY_H

#include "crowdik/crowdik.h"

/* Runs the report; argv[0] is "--quality". Returns the exit status. */
int quality_main(int argc, char **argv);

/* Radians by which local rotation `q` lies outside limit `l` (0 inside). */
double quality_limit_violation(cik_quat q, const cik_limit *l);

#endif
