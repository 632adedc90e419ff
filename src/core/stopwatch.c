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

double
mx_wall_ms(void)
{
	return ms_of(CLOCK_MONOTONIC);
}

double
mx_cpu_ms(void)
{
	return ms_of(CLOCK_PROCESS_CPUTIME_ID);
}
