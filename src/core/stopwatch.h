/*
 * stopwatch.h — elapsed-time measurement for the core, the simulator and
 * the benchmark (solve times, time limits). Not the scheduler's clock:
 * scheduling time is the snapshot's `now`, which the caller supplies.
 */
#ifndef MIXDNN_STOPWATCH_H
#define MIXDNN_STOPWATCH_H

/* Milliseconds on the monotonic clock (wall time, never goes back). */
double		mx_wall_ms(void);

/* Milliseconds of CPU time used by this process. */
double		mx_cpu_ms(void);

#endif
