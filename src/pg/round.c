/*
 * round.c — one scheduling round: snapshot, plan, write-back, record.
 */
#include "postgres.h"

#include "access/xact.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/resowner.h"

#include "clock.h"
#include "guc.h"
#include "lock.h"
#include "planner.h"
#include "privilege.h"
#include "round.h"
#include "snapshot_read.h"
#include "worker.h"
#include "writeback.h"

PG_FUNCTION_INFO_V1(mixdnn_run_round);

int64
mx_run_round(const char *event)
{
	mx_saved_user saved;
	MemoryContext roundcxt,
				oldcxt;
	TimestampTz now;
	mx_db_snapshot d;
	mx_options	o;
	mx_plan		plan;
	volatile int64 round_id = 0;
	int			skipped = 0;

	mx_lock_scheduler();

	/* Everything a round allocates goes when it ends. */
	roundcxt = AllocSetContextCreate(CurrentMemoryContext, "mixdnn round", ALLOCSET_DEFAULT_SIZES);
	oldcxt = MemoryContextSwitchTo(roundcxt);

	mx_become_owner(&saved);

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "mixdnn: SPI_connect failed");

	now = mx_clock_now();
	mx_read_snapshot(&d, now, mx_guc_planning_horizon);
	mx_guc_options(&o);

	memset(&plan, 0, sizeof(plan));
	if (mx_plan_round(&d.snap, &o, &plan) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory in the mixdnn planner")));

	/* The core's plan is malloc'd: free it on every path. */
	PG_TRY();
	{
		round_id = mx_record_round(&d, &plan, now, event);
		mx_write_plan(&d, &plan, round_id, mx_guc_replan_tolerance, &skipped);
		mx_write_queue(&d, round_id, mx_guc_planning_horizon);
	}
	PG_FINALLY();
	{
		mx_plan_free(&plan);
	}
	PG_END_TRY();

	SPI_finish();
	mx_restore_user(&saved);
	MemoryContextSwitchTo(oldcxt);
	MemoryContextDelete(roundcxt);

	/* New plans may start jobs now or sooner than the worker's next wake-up. */
	mx_worker_wake_at_commit();
	/* Jobs skipped because another transaction held them: planned again shortly. */
	if (skipped > 0)
	{
		ereport(DEBUG1,
				(errmsg_internal("mixdnn round %lld left %d locked jobs for a retry",
								 (long long) round_id, skipped)));
		mx_worker_retry_round();
	}
	return round_id;
}

int64
mx_run_round_protected(const char *event)
{
	MemoryContext oldcxt = CurrentMemoryContext;
	ResourceOwner oldowner = CurrentResourceOwner;
	volatile int64 round_id = 0;

	/* Taken outside the subtransaction, so a failed round keeps it. */
	mx_lock_scheduler();

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(oldcxt);
	PG_TRY();
	{
		round_id = mx_run_round(event);
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(oldcxt);
		CurrentResourceOwner = oldowner;
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(oldcxt);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(oldcxt);
		CurrentResourceOwner = oldowner;

		/* A cancel or shutdown is the user's or the server's wish, not ours to swallow. */
		if (edata->sqlerrcode == ERRCODE_QUERY_CANCELED || edata->sqlerrcode == ERRCODE_ADMIN_SHUTDOWN)
			ReThrowError(edata);

		ereport(WARNING,
				(errcode(edata->sqlerrcode),
				 errmsg("mixdnn scheduling round for \"%s\" failed: %s", event, edata->message),
				 errdetail("The jobs keep their previous plans; the next round plans them again.")));
		FreeErrorData(edata);
		mx_worker_wake_at_commit();
	}
	PG_END_TRY();
	return round_id;
}

Datum
mixdnn_run_round(PG_FUNCTION_ARGS)
{
	char	   *event = text_to_cstring(PG_GETARG_TEXT_PP(0));

	if (strlen(event) == 0 || strlen(event) > 63)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("event name must have 1 to 63 characters")));
	PG_RETURN_INT64(mx_run_round(event));
}
