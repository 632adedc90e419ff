/*
 * events.h — the events of contract §4 that ask for a round, as bits, so a
 * transaction (or, in plan_mode worker, many transactions) can collect them
 * and a round can say in mixdnn.rounds.event what it answered.
 */
#ifndef MIXDNN_EVENTS_H
#define MIXDNN_EVENTS_H

#include <stddef.h>

typedef enum mx_event
{
	MX_EV_ARRIVAL = 1 << 0,
	MX_EV_COMPLETION = 1 << 1,
	MX_EV_CANCEL = 1 << 2,
	MX_EV_REQUEUE = 1 << 3,
	MX_EV_UPDATE = 1 << 4,
	MX_EV_DELETE = 1 << 5,
	MX_EV_NODE = 1 << 6,
	MX_EV_PROFILE = 1 << 7,
	MX_EV_RETRY = 1 << 8,		/* rows a worker round skipped (locked by a user) */
	MX_EV_RESTORE = 1 << 9,		/* a data load (pg_restore) ended; its jobs need plans */
	MX_EV_QUOTA = 1 << 10,		/* mixdnn.quotas or mixdnn.shares changed */
	MX_EV_START = 1 << 11		/* the worker started: what committed before a stop or crash may wait for a round */
} mx_event;

/* "arrival,cancel" for MX_EV_ARRIVAL | MX_EV_CANCEL. */
void		mx_events_name(int events, char *buf, size_t len);

#endif
