/*
 * clock.h — the scheduler's one clock. Everything that reads "now" for
 * scheduling goes through mx_clock_now(), so tests and replays can drive a
 * virtual clock with mixdnn.virtual_now.
 */
#ifndef MIXDNN_CLOCK_H
#define MIXDNN_CLOCK_H

#include "postgres.h"
#include "utils/timestamp.h"

TimestampTz mx_clock_now(void);

/* The core counts seconds since the Unix epoch. */
double		mx_ts_to_epoch(TimestampTz ts);
TimestampTz mx_epoch_to_ts(double epoch);
/* The same without raising: false when epoch is no storable timestamp. */
bool		mx_epoch_to_ts_ok(double epoch, TimestampTz *out);

#endif
