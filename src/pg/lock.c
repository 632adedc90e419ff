/*
 * lock.c — the scheduler lock (see lock.h).
 */
#include "postgres.h"

#include "commands/trigger.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "storage/lock.h"

#include "guc.h"
#include "lock.h"
#include "worker.h"

PG_FUNCTION_INFO_V1(mixdnn_lock_scheduler);
PG_FUNCTION_INFO_V1(mixdnn_lock_scheduler_trigger);

/* An advisory lock key of our own ("MIXD" "NN01"). */
#define MX_LOCK_KEY1 0x4d495844
#define MX_LOCK_KEY2 0x4e4e3031

/* Transaction-scoped: released at commit or abort, never leaked. */
void
mx_lock_scheduler(void)
{
	LOCKTAG		tag;

	SET_LOCKTAG_ADVISORY(tag, MyDatabaseId, MX_LOCK_KEY1, MX_LOCK_KEY2, 2);
	(void) LockAcquire(&tag, ExclusiveLock, false, false);
}

Datum
mixdnn_lock_scheduler(PG_FUNCTION_ARGS)
{
	mx_lock_scheduler();
	PG_RETURN_VOID();
}

Datum
mixdnn_lock_scheduler_trigger(PG_FUNCTION_ARGS)
{
	if (!CALLED_AS_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("mixdnn._lock_scheduler() must be called as a trigger")));
	/*
	 * Without a round at commit a writer never waits for the lock while
	 * holding rows, so it need not queue behind rounds (plan_mode worker).
	 */
	if (mx_guc_plan_mode != MX_PLAN_MODE_WORKER || !mx_worker_plans_here())
		mx_lock_scheduler();
	return PointerGetDatum(NULL);
}
