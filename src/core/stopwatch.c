/*
 * stopwatch.c — elapsed-time measurement (see stopwatch.h).
 */
#include <time.h>

#include "stopwatch.h"

static double
ms_of(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

double		mx_stopwatch_test_wall_step_ms = 0;
static double wall_offset_ms = 0;

double
mx_wall_ms(void)
{
	wall_offset_ms += mx_stopwatch_test_wall_step_ms;
	return ms_of(CLOCK_MONOTONIC) + wall_offset_ms;
}

double
mx_cpu_ms(void)
{
	return ms_of(CLOCK_PROCESS_CPUTIME_ID);
}

double
mx_thread_cpu_ms(void)
{
	return ms_of(CLOCK_THREAD_CPUTIME_ID);
}
