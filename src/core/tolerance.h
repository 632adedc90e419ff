/*
 * tolerance.h — the named tolerances of the core's floating-point
 * comparisons, one set for the planner, the baselines, the simulator and
 * the benchmark, so that a time "now" means the same to all of them.
 */
#ifndef MIXDNN_TOLERANCE_H
#define MIXDNN_TOLERANCE_H

/*
 * Seconds: two times closer than this are the same instant. Times are
 * epoch seconds (about 1.7e9), whose doubles resolve about 2.4e-7 s, so a
 * microsecond is the finest difference that is not rounding noise.
 */
#define MX_TIME_EPS 1e-6

/* Relative: two objectives within this share of their size are equal. */
#define MX_REL_EPS 1e-9

/* Absolute: two ratios (run-time shares, speeds) closer than this tie. */
#define MX_TINY 1e-12

#endif
