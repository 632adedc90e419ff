/*
 * overrun.h — when a running job's GPUs are expected to free once it has
 * outlived its estimate (docs/model.md, "Time and running jobs").
 */
#ifndef MIXDNN_OVERRUN_H
#define MIXDNN_OVERRUN_H

/*
 * The end the planner assumes for a running part expected to end at
 * expected_end: expected_end while that is ahead of now; past it, now plus
 * the larger of grace_s and factor x the time already overrun (a job that
 * has outlived its estimate by d is assumed to need about factor x d more).
 * An unknown expected_end (NaN or -inf) counts as just reached: now +
 * grace_s. A grace or factor that is not a positive finite number counts
 * as 0.
 */
double		mx_overrun_end(double expected_end, double now, double grace_s, double factor);

#endif
