/*
 * clock.c — mixdnn.now() and conversions between PostgreSQL timestamps and
 * the core's epoch seconds.
 */
#include "postgres.h"

#include <math.h>

#include "fmgr.h"
#include "utils/timestamp.h"

#include "clock.h"
#include "guc.h"

PG_FUNCTION_INFO_V1(mixdnn_now);

#define UNIX_EPOCH_OFFSET_S ((double) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY)

TimestampTz
mx_clock_now(void)
{
	return mx_virtual_now_set ? mx_virtual_now : GetCurrentTimestamp();
}

double
mx_ts_to_epoch(TimestampTz ts)
{
	return (double) ts / USECS_PER_SEC + UNIX_EPOCH_OFFSET_S;
}

/* Rounded to whole microseconds, so an epoch that came from a timestamp maps back to it exactly. */
bool
mx_epoch_to_ts_ok(double epoch, TimestampTz *out)
{
	double		us = rint((epoch - UNIX_EPOCH_OFFSET_S) * USECS_PER_SEC);

	if (!isfinite(us) || us >= (double) END_TIMESTAMP || us < (double) MIN_TIMESTAMP)
		return false;
	*out = (TimestampTz) us;
	return true;
}

TimestampTz
mx_epoch_to_ts(double epoch)
{
	TimestampTz ts;

	if (!mx_epoch_to_ts_ok(epoch, &ts))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("planned time out of range")));
	return ts;
}

Datum
mixdnn_now(PG_FUNCTION_ARGS)
{
	PG_RETURN_TIMESTAMPTZ(mx_clock_now());
}
