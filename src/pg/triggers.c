/*
 * triggers.c — which writes need a round, and one round per transaction.
 *
 * A BEFORE row trigger notes the events of contract §4 (arrival, completion,
 * cancel, node change, ...) in backend memory; the transaction's commit
 * plans everything noted, so a statement or transaction that inserts many
 * jobs costs one round. A round's own writes (pending -> planned) are no
 * events, so it never triggers itself.
 *
 * The round runs from the pre-commit callback, after the transaction's
 * deferred triggers and WITH HOLD cursors: a round run before them, in a
 * trigger, would hold the scheduler lock while the user's code runs, for as
 * long as it likes. The deferred constraint trigger on the same rows plans
 * early only in a superuser's session that fires it before commit (SET
 * CONSTRAINTS ... IMMEDIATE, commitpoint.c); the BEFORE trigger has noted
 * every row of the statement by then, so that mode costs one round per
 * statement. A transaction with a round to run, or holding the scheduler
 * lock, cannot be prepared, for the same reason.
 *
 * When the scheduler lock is not free within mixdnn.lock_timeout the
 * transaction commits all the same: its new jobs stay pending with a reason
 * and the background worker (or, without one, the next round) plans them.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "libpq/be-fsstubs.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "nodes/pg_list.h"
#include "replication/syncrep.h"
#include "replication/walsender.h"
#include "storage/proc.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/guc_tables.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "commitpoint.h"
#include "events.h"
#include "guc.h"
#include "lock.h"
#include "privilege.h"
#include "round.h"
#include "wake.h"
#include "triggers.h"

PG_FUNCTION_INFO_V1(mixdnn_note_event);
PG_FUNCTION_INFO_V1(mixdnn_round_at_commit);

/* Events noted in this transaction and not yet planned for. */
static int	pending_events = 0;

/* The jobs this transaction submitted, for the reason they get if no round plans them at commit. */
static Datum *new_jobs = NULL;
static int	nnew_jobs = 0;
static int	new_jobs_cap = 0;

static void
note_new_job(Relation rel, HeapTuple tup)
{
	int			attnum = SPI_fnumber(RelationGetDescr(rel), "job_id");
	bool		isnull;
	Datum		id;

	if (attnum <= 0)
		return;
	id = heap_getattr(tup, attnum, RelationGetDescr(rel), &isnull);
	if (isnull)
		return;
	if (nnew_jobs == new_jobs_cap)
	{
		new_jobs_cap = new_jobs_cap ? 2 * new_jobs_cap : 64;
		new_jobs = new_jobs
			? repalloc_huge(new_jobs, sizeof(Datum) * new_jobs_cap)
			: MemoryContextAlloc(TopTransactionContext, sizeof(Datum) * new_jobs_cap);
	}
	new_jobs[nnew_jobs++] = id;
}

/* Request columns: changing one of them changes what the job may run on. */
static const char *const request_columns[] = {
	"model_class", "gpu_type", "gpus", "min_gpus", "max_gpus", "allowed_types",
	"duration", "priority", "model"
};

static bool
column_changed(Relation rel, HeapTuple oldtup, HeapTuple newtup, const char *name)
{
	TupleDesc	desc = RelationGetDescr(rel);
	int			attnum = SPI_fnumber(desc, name);
	Form_pg_attribute att;
	bool		oldnull,
				newnull;
	Datum		oldval,
				newval;

	if (attnum <= 0)
		return false;
	att = TupleDescAttr(desc, attnum - 1);
	oldval = heap_getattr(oldtup, attnum, desc, &oldnull);
	newval = heap_getattr(newtup, attnum, desc, &newnull);
	if (oldnull || newnull)
		return oldnull != newnull;
	return !datum_image_eq(oldval, newval, att->attbyval, att->attlen);
}

static char *
text_column(Relation rel, HeapTuple tup, const char *name)
{
	TupleDesc	desc = RelationGetDescr(rel);
	int			attnum = SPI_fnumber(desc, name);
	bool		isnull;
	Datum		v;

	if (attnum <= 0)
		return NULL;
	v = heap_getattr(tup, attnum, desc, &isnull);
	return isnull ? NULL : TextDatumGetCString(v);
}

/* Node columns that change capacity; heartbeats touch only last_heartbeat. */
static const char *const node_columns[] = {"gpu_type", "gpus", "status", "unreachable_since"};

static int
classify_node_update(Relation rel, HeapTuple oldtup, HeapTuple newtup)
{
	size_t		i;

	for (i = 0; i < lengthof(node_columns); i++)
		if (column_changed(rel, oldtup, newtup, node_columns[i]))
			return MX_EV_NODE;
	return 0;
}

static int
classify_job_update(Relation rel, HeapTuple oldtup, HeapTuple newtup)
{
	char	   *before = text_column(rel, oldtup, "status");
	char	   *after = text_column(rel, newtup, "status");
	size_t		i;

	if (before && after && strcmp(before, after) != 0)
	{
		if (strcmp(after, "completed") == 0 || strcmp(after, "failed") == 0)
			return MX_EV_COMPLETION;
		if (strcmp(after, "cancelled") == 0)
			return MX_EV_CANCEL;
		if (strcmp(after, "planned") == 0
			&& (strcmp(before, "launching") == 0 || strcmp(before, "running") == 0))
			return MX_EV_REQUEUE;
	}
	for (i = 0; i < lengthof(request_columns); i++)
		if (column_changed(rel, oldtup, newtup, request_columns[i]))
			return MX_EV_UPDATE;
	return 0;
}

Datum
mixdnn_note_event(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	const char *table;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_FOR_ROW(td->tg_event)
		|| !TRIGGER_FIRED_BEFORE(td->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("mixdnn._note_event() must be called as a BEFORE row trigger")));

	table = RelationGetRelationName(td->tg_relation);
	if (strcmp(table, "jobs") == 0)
	{
		if (TRIGGER_FIRED_BY_INSERT(td->tg_event))
		{
			pending_events |= MX_EV_ARRIVAL;
			note_new_job(td->tg_relation, td->tg_trigtuple);
		}
		else if (TRIGGER_FIRED_BY_DELETE(td->tg_event))
			pending_events |= MX_EV_DELETE;
		else
			pending_events |= classify_job_update(td->tg_relation, td->tg_trigtuple, td->tg_newtuple);
	}
	else if (strcmp(table, "gpu_nodes") == 0)
		pending_events |= TRIGGER_FIRED_BY_UPDATE(td->tg_event)
			? classify_node_update(td->tg_relation, td->tg_trigtuple, td->tg_newtuple)
			: MX_EV_NODE;
	else if (strcmp(table, "quotas") == 0 || strcmp(table, "shares") == 0)
		pending_events |= MX_EV_QUOTA;
	else
		pending_events |= MX_EV_PROFILE;

	/* The row goes ahead unchanged. */
	return PointerGetDatum(TRIGGER_FIRED_BY_UPDATE(td->tg_event) ? td->tg_newtuple : td->tg_trigtuple);
}

/*
 * Why the new jobs of this transaction wait, on their rows. They are its own
 * uncommitted rows, so nobody else holds them and this never waits.
 */
static void
record_reason(const char *reason)
{
	mx_saved_user saved;

	/* a transaction made read-only after its writes can write no reason either: the worker plans them */
	if (nnew_jobs == 0 || XactReadOnly)
		return;
	mx_become_owner(&saved);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "mixdnn: SPI_connect failed");
	if (SPI_execute_with_args("UPDATE mixdnn.jobs SET reason = $2 "
							  "WHERE job_id OPERATOR(pg_catalog.=) ANY ($1) "
							  "AND status OPERATOR(pg_catalog.=) 'pending'",
							  2, (Oid[]) {INT8ARRAYOID, TEXTOID},
							  (Datum[]) {PointerGetDatum(construct_array(new_jobs, nnew_jobs, INT8OID, 8,
																		 FLOAT8PASSBYVAL, TYPALIGN_DOUBLE)),
										 CStringGetTextDatum(reason)},
							  NULL, false, 0) != SPI_OK_UPDATE)
		elog(ERROR, "mixdnn: could not record why new jobs wait");
	SPI_finish();
	mx_restore_user(&saved);
}

/* The scheduler stayed busy: the worker plans for this transaction's events after it commits. */
static void
leave_to_later_round(int events)
{
	bool		worker = mx_worker_request_round(events);

	ereport(NOTICE,
			(errmsg(nnew_jobs > 0 ? "the mixdnn scheduler is busy: this transaction's jobs stay pending"
					: "the mixdnn scheduler is busy: this transaction's changes are planned for later"),
			 errdetail("The scheduler lock was not free within mixdnn.lock_timeout (%d ms); %s.",
					   mx_guc_lock_timeout_ms,
					   worker ? "the background worker plans shortly" : "the next round plans")));
	record_reason(worker
				  ? "the scheduler was busy at submission; the background worker plans it"
				  : "the scheduler was busy at submission; the next round plans it");
}

/* No round in this commit (round_before_commit): the background worker plans once it has committed. */
static void
leave_to_after_commit(int events)
{
	if (mx_worker_request_round(events))
	{
		ereport(DEBUG1,
				(errmsg("mixdnn: no round in this commit; the background worker plans after it")));
		/* contract §4: a committed job is planned or has a reason */
		record_reason("the background worker plans it after its transaction's commit");
		return;
	}
	ereport(NOTICE,
			(errmsg(nnew_jobs > 0 ? "mixdnn cannot plan in this commit: this transaction's jobs stay pending"
					: "mixdnn cannot plan in this commit: the next round plans this transaction's changes"),
			 errdetail("A COMMIT inside a procedure or DO block, a REPEATABLE READ or SERIALIZABLE transaction, one made read-only, one that used temporary tables, one with more than 64 subtransactions that wrote and one that waits for a synchronous standby at a synchronous_commit level it set leave their round to the background worker, and none serves this database."),
			 errhint("Write in a READ COMMITTED transaction, without temporary tables or a synchronous_commit of your own, committed by COMMIT, or load mixdnn through shared_preload_libraries.")));
	record_reason("submitted where no round could run at commit; the next round plans it");
}

Datum
mixdnn_round_at_commit(PG_FUNCTION_ARGS)
{
	char		event[128];
	int			events = pending_events;

	if (!CALLED_AS_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("mixdnn._round_at_commit() must be called as a trigger")));

	/*
	 * At commit, the user's own deferred triggers queued after this one and
	 * her WITH HOLD cursors still run: the round waits for the pre-commit
	 * callback, after all of them (round_before_commit). Fired earlier, a
	 * plain user's events wait for it too; only a superuser's session
	 * plans here, inside its transaction (the pgTAP tests' :commit).
	 */
	/* a read-only transaction can write no plan: the pre-commit callback leaves it to the worker */
	if (events == 0 || mx_at_commit_point() || !superuser_arg(GetSessionUserId()) || XactReadOnly)
		return PointerGetDatum(NULL);

	/* Cleared first: the round's own writes queue more firings of this trigger. */
	pending_events = 0;
	if (mx_guc_plan_mode == MX_PLAN_MODE_WORKER && mx_worker_request_round(events))
		return PointerGetDatum(NULL);
	mx_events_name(events, event, sizeof(event));
	if (mx_run_round_protected(event) == MX_ROUND_BUSY)
		leave_to_later_round(events);
	/* Planned, or told why not: a later commit point of the transaction leaves them alone. */
	nnew_jobs = 0;
	return PointerGetDatum(NULL);
}

/*
 * Whether this commit will wait for a synchronous standby because the
 * session asked for it: synchronous_commit above local, set for the
 * session, by its client, for its role or its database (a plain user may
 * set all but the last), with synchronous standbys named. The wait comes
 * after the pre-commit callback, with every lock still held, and lasts
 * until a standby confirms: without end when none answers, as long as a
 * query on the standby holds up its replay for remote_apply. A server that
 * asks every commit to wait (its configuration's synchronous_commit) is
 * the administrator's to bound; a user who raises the level above it must
 * not hold the scheduler lock through that wait.
 */
static bool
commit_waits_for_standby_by_choice(void)
{
	struct config_generic **vars = get_guc_variables();
	int			n = GetNumConfigOptions();

	if (!SyncRepRequested() || SyncRepStandbyNames == NULL || SyncRepStandbyNames[0] == '\0')
		return false;
	for (int i = 0; i < n; i++)
		if (strcmp(vars[i]->name, "synchronous_commit") == 0)
			return vars[i]->source >= PGC_S_DATABASE;
	return false;
}

/*
 * The transaction's round, from the pre-commit callback: after its deferred
 * triggers and its WITH HOLD cursors, where PostgreSQL runs no more code of
 * the user's, so the scheduler lock is held only for the round itself and
 * the commit that follows. Six cases go to the background worker, which
 * plans once the transaction has committed: a COMMIT inside a procedure or
 * DO block (it ends a transaction under a statement that goes on, holding
 * the lock into the next one's work); a transaction snapshot
 * (REPEATABLE READ, SERIALIZABLE), which would not show the rounds and
 * launches other sessions committed since it began, so its round would
 * plan onto GPUs they took; a transaction made read-only after its
 * writes (SET transaction_read_only), where the round could write
 * nothing; and a transaction that used temporary
 * tables: after every pre-commit callback PostgreSQL empties its
 * ON COMMIT DELETE ROWS tables, each by a scan of all the session's local
 * buffers, a wait the user sizes (temp_buffers, the number of tables) and
 * the lock would be held through (36 s in one commit, measured).
 * And a commit that will wait for a synchronous standby at a level the
 * session chose (commit_waits_for_standby_by_choice), and one with more
 * subtransactions that wrote than PostgreSQL caches per backend (64): the
 * round's reads of the rows they wrote, and the commit's record of them,
 * cost what the user sizes (100 000 held the lock 0.7 s, 30 times a
 * plain commit's).
 * Large objects the transaction left open are closed here, before the
 * round, for the same reason: PostgreSQL closes them after this callback,
 * in time that grows with their number (2.8 s for 100 000),
 * and finds none left.
 */
static void
round_before_commit(void)
{
	int			events = pending_events;
	char		event[128];

	pending_events = 0;
	if (mx_guc_plan_mode == MX_PLAN_MODE_WORKER && mx_worker_request_round(events))
		return;
	/* SPI needs an active snapshot; a deferred trigger had the one PostgreSQL pushed for it. */
	PushActiveSnapshot(GetTransactionSnapshot());
	if (!mx_at_commit_point() || IsolationUsesXactSnapshot() || XactReadOnly ||
		(MyXactFlags & XACT_FLAGS_ACCESSEDTEMPNAMESPACE) || commit_waits_for_standby_by_choice() ||
		MyProc->subxidStatus.overflowed)
		leave_to_after_commit(events);
	else
	{
		AtEOXact_LargeObject(true);
		mx_events_name(events, event, sizeof(event));
		if (mx_run_round_protected(event) == MX_ROUND_BUSY)
			leave_to_later_round(events);
		/*
		 * The rest of the commit runs with the lock held, and may wait for a
		 * heavyweight lock: PreCommit_Notify takes PostgreSQL's server-wide
		 * NOTIFY lock when the transaction sent a NOTIFY, and any role holds
		 * it through its own commit (without end while that commit waits for
		 * a standby). The wait is bounded as the round's own ones are; past
		 * it the commit fails and the lock goes with it.
		 */
		if (mx_scheduler_lock_held())
			mx_bound_lock_waits_to_end();
	}
	PopActiveSnapshot();
	nnew_jobs = 0;
}

/*
 * pending_events at the start of each open subtransaction, innermost first.
 * A statement that fails after its rows were noted (a CHECK constraint
 * fires after the BEFORE triggers) is rolled back to its savepoint; its
 * events must go with it, or the next write of the transaction would run a
 * round for a job that was never stored.
 */
static List *saved_events = NIL;

static void
at_xact_event(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_PRE_COMMIT && pending_events != 0)
		round_before_commit();
	if (event == XACT_EVENT_PRE_PREPARE && (mx_scheduler_lock_held() || pending_events != 0))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot PREPARE a transaction that changes what mixdnn schedules"),
				 errdetail("Its round runs at commit, and would keep the scheduler lock and the rows it planned until COMMIT PREPARED or ROLLBACK PREPARED; so would its change to the cluster."),
				 errhint("Commit a transaction that submits, changes or cancels jobs, or changes the cluster; do not prepare it.")));
	if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT || event == XACT_EVENT_PREPARE
		|| event == XACT_EVENT_PARALLEL_COMMIT || event == XACT_EVENT_PARALLEL_ABORT)
	{
		pending_events = 0;
		/* Freed with TopTransactionContext. */
		new_jobs = NULL;
		nnew_jobs = 0;
		new_jobs_cap = 0;
		saved_events = NIL;		/* it lived in TopTransactionContext */
	}
}

static void
restore_at_subxact_abort(SubXactEvent event, SubTransactionId mySubid,
						 SubTransactionId parentSubid, void *arg)
{
	MemoryContext old;

	switch (event)
	{
		case SUBXACT_EVENT_START_SUB:
			old = MemoryContextSwitchTo(TopTransactionContext);
			saved_events = lcons_int(pending_events, saved_events);
			MemoryContextSwitchTo(old);
			break;
		case SUBXACT_EVENT_COMMIT_SUB:
			if (saved_events != NIL)
				saved_events = list_delete_first(saved_events);
			break;
		case SUBXACT_EVENT_ABORT_SUB:
			if (saved_events != NIL)
			{
				pending_events = linitial_int(saved_events);
				saved_events = list_delete_first(saved_events);
			}
			break;
		default:
			break;
	}
}

void
mx_triggers_init(void)
{
	RegisterXactCallback(at_xact_event, NULL);
	RegisterSubXactCallback(restore_at_subxact_abort, NULL);
}
