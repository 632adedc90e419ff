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

/*
 * Milliseconds of CPU time used by the calling thread: the scale of the
 * configuration LP's budget, which other processes on the machine do not
 * consume (docs/model.md, "Determinism and budget").
 */
double		mx_thread_cpu_ms(void);

/*
 * Tests only: every mx_wall_ms() call first moves the wall clock this many
 * milliseconds ahead, as on a machine so busy that the process waits that
 * long between two reads. 0 (the default): the real clock.
 */
extern double mx_stopwatch_test_wall_step_ms;

#endif
