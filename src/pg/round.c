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
#include "tenancy.h"
#include "tenancy_read.h"
#include "privilege.h"
#include "round.h"
#include "snapshot_read.h"
#include "wake.h"
#include "writeback.h"

PG_FUNCTION_INFO_V1(mixdnn_run_round);

/*
 * Plans the snapshot and writes the plan back; the round's id. No node and
 * no job: nothing to plan or record, 0. Such a database is a fresh CREATE
 * EXTENSION, maybe one a restore is about to load: a round recorded there
 * (the worker's "start") took round_id 1, and the load's own rounds, and
 * the plan history that names them, then failed.
 */
static int64
plan_and_record(mx_db_snapshot *d, TimestampTz now, const char *event, int *skipped)
{
	mx_options	o;
	mx_plan		plan;
	volatile int64 round_id = 0;

	if (d->snap.nnodes == 0 && d->snap.njobs == 0 && d->running_jobs == 0)
		return 0;
	mx_guc_options(&o);
	mx_read_owners(d, &o);

	memset(&plan, 0, sizeof(plan));
	if (mx_tenancy_plan_round(&d->snap, &o, &plan) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory in the mixdnn planner")));

	/* The core's plan is malloc'd: free it on every path. */
	PG_TRY();
	{
		round_id = mx_record_round(d, &plan, now, event);
		mx_write_plan(d, &plan, round_id, mx_guc_replan_tolerance, skipped);
		mx_write_queue(d, round_id, mx_guc_planning_horizon);
	}
	PG_FINALLY();
	{
		mx_plan_free(&plan);
	}
	PG_END_TRY();

	/* Every round, so only at DEBUG1: a default server log stays readable. */
	ereport(DEBUG1,
			(errmsg_internal("mixdnn round %lld for \"%s\": %d waiting, %d running, solver %s, %.1f ms",
							 (long long) round_id, event, d->snap.njobs, d->running_jobs,
							 plan.solver, plan.solve_ms),
			 errhidestmt(true)));
	return round_id;
}

int64
mx_run_round(const char *event)
{
	mx_saved_user saved;
	MemoryContext roundcxt,
				oldcxt;
	TimestampTz now;
	mx_db_snapshot d;
	int64		round_id;
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
	round_id = plan_and_record(&d, now, event, &skipped);
	SPI_finish();
	mx_restore_user(&saved);
	MemoryContextSwitchTo(oldcxt);
	MemoryContextDelete(roundcxt);
	if (round_id == 0)
		return 0;

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

/* What a step run in a subtransaction works on. */
typedef struct protected_step
{
	const char *event;
	int64		round_id;
} protected_step;

static void
lock_step(protected_step *step)
{
	mx_lock_scheduler();
}

static void
round_step(protected_step *step)
{
	step->round_id = mx_run_round(step->event);
}

/*
 * Runs fn in a subtransaction. Returns NULL when it succeeded (what it did
 * and the locks it took are kept), else its error, after rolling it back.
 */
static ErrorData *
run_in_subtransaction(void (*fn) (protected_step *), protected_step *step)
{
	MemoryContext oldcxt = CurrentMemoryContext;
	ResourceOwner oldowner = CurrentResourceOwner;
	ErrorData  *volatile edata = NULL;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(oldcxt);
	PG_TRY();
	{
		fn(step);
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(oldcxt);
		CurrentResourceOwner = oldowner;
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(oldcxt);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(oldcxt);
		CurrentResourceOwner = oldowner;
	}
	PG_END_TRY();
	return edata;
}

/* A cancel or shutdown is the user's or the server's wish, not ours to swallow. */
static void
rethrow_if_cancel(ErrorData *edata)
{
	if (edata->sqlerrcode == ERRCODE_QUERY_CANCELED || edata->sqlerrcode == ERRCODE_ADMIN_SHUTDOWN)
		ReThrowError(edata);
}

int64
mx_run_round_protected(const char *event)
{
	protected_step step = {event, 0};
	ErrorData  *edata;

	/*
	 * Taken in a step of its own and kept if the round fails. Not getting
	 * it within mixdnn.lock_timeout (or being a deadlock victim while
	 * waiting) is no failure of the transaction: the caller leaves its jobs
	 * to a later round.
	 */
	edata = run_in_subtransaction(lock_step, &step);
	if (edata != NULL)
	{
		rethrow_if_cancel(edata);
		if (edata->sqlerrcode != ERRCODE_LOCK_NOT_AVAILABLE && edata->sqlerrcode != ERRCODE_T_R_DEADLOCK_DETECTED)
			ReThrowError(edata);
		FreeErrorData(edata);
		return MX_ROUND_BUSY;
	}

	edata = run_in_subtransaction(round_step, &step);
	if (edata != NULL)
	{
		rethrow_if_cancel(edata);
		ereport(WARNING,
				(errcode(edata->sqlerrcode),
				 errmsg("mixdnn scheduling round for \"%s\" failed: %s", event, edata->message),
				 errdetail("The jobs keep their previous plans; the next round plans them again.")));
		FreeErrorData(edata);
		mx_worker_wake_at_commit();
		return 0;
	}
	return step.round_id;
}

Datum
mixdnn_run_round(PG_FUNCTION_ARGS)
{
	char	   *event;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("event must not be NULL"),
				 errhint("Omit it for a round recorded as \"manual\".")));
	event = text_to_cstring(PG_GETARG_TEXT_PP(0));
	if (strlen(event) == 0 || strlen(event) > 63)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("event name must have 1 to 63 characters")));
	PG_RETURN_INT64(mx_run_round(event));
}
