/*
 * wake.c — the backends' side of the launch worker: what a transaction asks
 * of the worker that serves its database (wake it, hand it events to plan),
 * published through the registry's shared memory when the transaction
 * commits. The worker process itself is worker.c; this file never runs a
 * round or a launch, so every module may depend on it.
 */
#include "postgres.h"

#include "access/xact.h"
#include "miscadmin.h"
#include "storage/proc.h"

#include "events.h"
#include "registry.h"
#include "wake.h"

/* Per backend: the current transaction asked to wake the worker, and to plan for these events. */
static bool wake_requested = false;
static uint32 requested_events = 0;

/* Whether this process is the worker; there, a round of the current transaction skipped locked rows. */
static bool in_worker = false;
static uint32 retry_events = 0;
static bool xact_callback_registered = false;

/* After commit, so that the worker's next snapshot sees what was committed. */
static void
worker_xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PARALLEL_COMMIT:
			/* Published only now: the worker must find the rows committed. */
			if (requested_events != 0)
				mx_registry_add_events(MyDatabaseId, requested_events);
			if (wake_requested)
				mx_registry_wake(MyDatabaseId);
			wake_requested = false;
			requested_events = 0;
			break;
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
			wake_requested = false;
			requested_events = 0;
			break;
		case XACT_EVENT_PREPARE:
			/* A prepared transaction's events are planned at its COMMIT PREPARED's next event or poll. */
			if (requested_events != 0)
				mx_registry_add_events(MyDatabaseId, requested_events);
			wake_requested = false;
			requested_events = 0;
			break;
		default:
			break;
	}
}

void
mx_worker_wake_at_commit(void)
{
	if (!xact_callback_registered)
	{
		RegisterXactCallback(worker_xact_callback, NULL);
		xact_callback_registered = true;
	}
	wake_requested = true;
}

/*
 * The worker plans for this backend only if it is loaded and serves this
 * database. The answer holds for a whole transaction: one that skipped the
 * scheduler lock because the worker plans must not run a round at commit.
 * (A worker that is restarting still counts: the events wait for it in
 * shared memory.)
 */
bool
mx_worker_plans_here(void)
{
	static LocalTransactionId cached_lxid = InvalidLocalTransactionId;
	static bool serves_here = false;

	if (!mx_registry_loaded())
		return false;
	if (cached_lxid != MyProc->lxid)
	{
		serves_here = mx_registry_serves(MyDatabaseId);
		cached_lxid = MyProc->lxid;
	}
	return serves_here;
}

const char *
mx_worker_missing(void)
{
	/* A database opted out with mixdnn.launch_worker = off chose so; no word needed. */
	if (!mx_registry_loaded())
		return "no launch worker runs: mixdnn is not in shared_preload_libraries, "
			"so the job starts only when mixdnn.launch_due() is called";
	return NULL;
}

void
mx_worker_retry_round(void)
{
	if (in_worker)
		retry_events |= MX_EV_RETRY;
	else
		(void) mx_worker_request_round(MX_EV_RETRY);
}

bool
mx_worker_request_round(int events)
{
	if (!mx_worker_plans_here())
		return false;
	mx_worker_wake_at_commit();
	requested_events |= (uint32) events;
	return true;
}

void
mx_wake_in_worker(void)
{
	in_worker = true;
}

bool
mx_wake_is_worker(void)
{
	return in_worker;
}

uint32
mx_wake_take_retry(void)
{
	uint32		events = retry_events;

	retry_events = 0;
	return events;
}
