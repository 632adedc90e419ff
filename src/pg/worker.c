/*
 * worker.c — the launch background worker (SPEC §5, docs/launcher.md).
 *
 * One worker serves the database named by mixdnn.database. It sleeps on its
 * latch until a transaction that ran a round commits
 * (mx_worker_wake_at_commit), the next planned start or lease end comes, or
 * the poll interval passes. Each cycle, in short transactions of its own, it
 * expires lost leases (mixdnn.expire_leases(); the re-queue runs a round at
 * commit), runs the round that plan_mode worker leaves to it for every event
 * committed since its last, and launches the due jobs (mx_launch_due()).
 * At start-up it
 * repairs what a crash may have left half-done (mixdnn._repair()).
 *
 * An error in a cycle is logged and the cycle is retried after a delay: the
 * worker never takes the server down, and the postmaster restarts it if it
 * exits.
 */
#include "postgres.h"

#include "access/xact.h"
#include "access/xlog.h"
#include "commands/dbcommands.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "port/atomics.h"
#include "storage/spin.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#include "clock.h"
#include "guc.h"
#include "events.h"
#include "launch.h"
#include "round.h"
#include "worker.h"

PGDLLEXPORT void mixdnn_worker_main(Datum main_arg);

/* Restart delay after the worker exits with an error (seconds). */
#define WORKER_RESTART_S 5

/* How long to wait before retrying a cycle that failed, at most. */
#define RETRY_DELAY_MS 5000

/*
 * A planned start already past after a launch pass means its job could not
 * start and a round has re-planned it; this keeps a planner that plans it
 * at "now" again from spinning the worker.
 */
#define PAST_DUE_DELAY_MS 1000

/* Shared state: how backends find the worker's latch, and what to plan for. */
typedef struct mx_worker_shared
{
	slock_t		mutex;
	Latch	   *latch;			/* the running worker's, else NULL */
	pid_t		pid;
	pg_atomic_uint32 events;	/* plan_mode worker: events committed and not yet planned */
} mx_worker_shared;

static mx_worker_shared *worker_shared = NULL;

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

static int	worker_poll_interval_s = 10;

/* Per backend: the current transaction asked to wake the worker, and to plan for these events. */
static bool wake_requested = false;
static uint32 requested_events = 0;

/* In the worker: events taken from shared memory by a round that has not committed yet. */
static uint32 events_in_flight = 0;

/* Whether this process is the worker; there, a round of the current transaction skipped locked rows. */
static bool in_worker = false;
static uint32 retry_events = 0;
static bool xact_callback_registered = false;

/* ---------- shared memory ---------- */

static void
worker_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(MAXALIGN(sizeof(mx_worker_shared)));
}

static void
worker_shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	worker_shared = ShmemInitStruct("mixdnn worker", sizeof(mx_worker_shared), &found);
	if (!found)
	{
		SpinLockInit(&worker_shared->mutex);
		worker_shared->latch = NULL;
		worker_shared->pid = 0;
		pg_atomic_init_u32(&worker_shared->events, 0);
	}
	LWLockRelease(AddinShmemInitLock);
}

/* ---------- waking the worker ---------- */

static void
wake_worker(void)
{
	Latch	   *latch;

	if (worker_shared == NULL)
		return;
	SpinLockAcquire(&worker_shared->mutex);
	latch = worker_shared->latch;
	SpinLockRelease(&worker_shared->mutex);
	/* A latch set just after the worker exited only wakes its successor early. */
	if (latch != NULL)
		SetLatch(latch);
}

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
				pg_atomic_fetch_or_u32(&worker_shared->events, requested_events);
			if (wake_requested)
				wake_worker();
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
				pg_atomic_fetch_or_u32(&worker_shared->events, requested_events);
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
 * database; both are fixed for the backend's life. (A worker that is
 * restarting still counts: the events wait for it in shared memory.)
 */
bool
mx_worker_plans_here(void)
{
	static int	serves_here = -1;

	if (worker_shared == NULL)
		return false;
	if (serves_here < 0)
	{
		char	   *db = get_database_name(MyDatabaseId);

		serves_here = db != NULL && mx_guc_database != NULL && strcmp(db, mx_guc_database) == 0;
	}
	return serves_here == 1;
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

/* ---------- registration ---------- */

void
mx_worker_init(void)
{
	BackgroundWorker w;

	DefineCustomIntVariable("mixdnn.worker_poll_interval",
							"Longest sleep of the launch worker between two looks at the tables.",
							"The worker also wakes when a round commits, at the next planned start "
							"and at the next lease end.",
							&worker_poll_interval_s, 10, 1, 3600,
							PGC_SIGHUP, GUC_UNIT_S, NULL, NULL, NULL);

	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = worker_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = worker_shmem_startup;

	memset(&w, 0, sizeof(w));
	w.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	w.bgw_start_time = BgWorkerStart_RecoveryFinished;
	w.bgw_restart_time = WORKER_RESTART_S;
	snprintf(w.bgw_library_name, BGW_MAXLEN, "mixdnn");
	snprintf(w.bgw_function_name, BGW_MAXLEN, "mixdnn_worker_main");
	snprintf(w.bgw_name, BGW_MAXLEN, "mixdnn launch worker");
	snprintf(w.bgw_type, BGW_MAXLEN, "mixdnn launch worker");
	w.bgw_main_arg = (Datum) 0;
	w.bgw_notify_pid = 0;
	RegisterBackgroundWorker(&w);
}

/* ---------- the worker ---------- */

static void
unpublish_latch(int code, Datum arg)
{
	SpinLockAcquire(&worker_shared->mutex);
	if (worker_shared->pid == MyProcPid)
	{
		worker_shared->latch = NULL;
		worker_shared->pid = 0;
	}
	SpinLockRelease(&worker_shared->mutex);
}

static void
publish_latch(void)
{
	SpinLockAcquire(&worker_shared->mutex);
	worker_shared->latch = MyLatch;
	worker_shared->pid = MyProcPid;
	SpinLockRelease(&worker_shared->mutex);
	on_shmem_exit(unpublish_latch, (Datum) 0);
}

/* Runs sql, which returns one value of type int or timestamptz, or NULL. */
static Datum
spi_value(const char *sql, bool *isnull)
{
	Datum		value;

	if (SPI_execute(sql, false, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "mixdnn worker: unexpected result from %s", sql);
	value = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, isnull);
	return value;
}

static int
spi_int(const char *sql)
{
	bool		isnull;
	Datum		v = spi_value(sql, &isnull);

	return isnull ? 0 : DatumGetInt32(v);
}

typedef enum cycle_step
{
	STEP_REPAIR,
	STEP_EXPIRE,
	STEP_PLAN,
	STEP_LAUNCH
} cycle_step;

static const char *const step_names[] = {"repair", "lease expiry", "plan", "launch"};

/*
 * One step in a transaction of its own; nothing to do until CREATE EXTENSION
 * has run in the database. The launch step lowers *wait_ms to the next
 * planned start or lease end.
 */
static void
run_step(cycle_step step, long *wait_ms)
{
	bool		installed;

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	pgstat_report_activity(STATE_RUNNING, step_names[step]);

	installed = OidIsValid(get_extension_oid("mixdnn", true));
	if (installed)
	{
		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "mixdnn worker: SPI_connect failed");

		switch (step)
		{
			case STEP_REPAIR:
				{
					int			fixed = spi_int("SELECT mixdnn._repair()");

					if (fixed > 0)
						ereport(LOG,
								(errmsg("mixdnn worker repaired %d half-done launch records", fixed)));
					break;
				}
			case STEP_EXPIRE:
				{
					/* The unlocked look first: most cycles have nothing to expire. */
					int			lost = spi_int("SELECT CASE WHEN EXISTS (SELECT FROM mixdnn.job_parts p "
											   "WHERE p.state IN ('launching', 'running') "
											   "AND p.lease_until < mixdnn.now()) "
											   "THEN mixdnn.expire_leases() ELSE 0 END");

					if (lost > 0)
						ereport(LOG,
								(errmsg("mixdnn worker found %d jobs whose launcher lease expired", lost)));
					break;
				}
			case STEP_PLAN:
				{
					/* Every event committed since the last round, in one round. */
					events_in_flight = pg_atomic_exchange_u32(&worker_shared->events, 0);
					if (events_in_flight != 0)
					{
						char		event[128];

						mx_events_name((int) events_in_flight, event, sizeof(event));
						(void) mx_run_round(event);
					}
					break;
				}
			case STEP_LAUNCH:
				{
					bool		isnull;
					Datum		next;

					(void) mx_launch_due();
					next = spi_value("SELECT mixdnn._next_wakeup()", &isnull);
					if (!isnull)
					{
						TimestampTz now = mx_clock_now();
						TimestampTz at = DatumGetTimestampTz(next);
						long		ms;

						/* Rounded up, so the worker never wakes just before the time. */
						if (at <= now)
							ms = PAST_DUE_DELAY_MS;
						else if (at - now >= (TimestampTz) *wait_ms * 1000)
							ms = *wait_ms;
						else
							ms = (long) ((at - now + 999) / 1000) + 1;
						*wait_ms = Min(*wait_ms, ms);
					}
					break;
				}
		}
		SPI_finish();
	}

	PopActiveSnapshot();
	CommitTransactionCommand();
	events_in_flight = 0;
	/* Not at once: the locker may hold its rows a while, and its commit is an event anyway. */
	if (retry_events != 0)
	{
		pg_atomic_fetch_or_u32(&worker_shared->events, retry_events);
		retry_events = 0;
		*wait_ms = Min(*wait_ms, PAST_DUE_DELAY_MS);
	}
	pgstat_report_activity(STATE_IDLE, NULL);
}

/*
 * A step that fails is logged with its own error and SQLSTATE, rolled back,
 * and retried at the next cycle, RETRY_DELAY_MS at most from now.
 */
static bool
run_step_protected(cycle_step step, long *wait_ms, MemoryContext cxt)
{
	volatile bool ok = false;

	PG_TRY();
	{
		run_step(step, wait_ms);
		ok = true;
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		AbortCurrentTransaction();
		pgstat_report_activity(STATE_IDLE, NULL);
		/* The events of a failed round are planned by the retry. */
		if (events_in_flight != 0)
			pg_atomic_fetch_or_u32(&worker_shared->events, events_in_flight);
		events_in_flight = 0;
		retry_events = 0;
		ereport(WARNING,
				(errcode(edata->sqlerrcode),
				 errmsg("mixdnn worker %s step failed: %s", step_names[step], edata->message),
				 edata->detail ? errdetail_internal("%s", edata->detail) : 0,
				 errcontext("retrying in %d ms", RETRY_DELAY_MS)));
		FreeErrorData(edata);
		*wait_ms = Min(*wait_ms, RETRY_DELAY_MS);
	}
	PG_END_TRY();
	MemoryContextSwitchTo(cxt);
	return ok;
}

void
mixdnn_worker_main(Datum main_arg)
{
	MemoryContext cxt;
	bool		repaired = false;

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();

	BackgroundWorkerInitializeConnection(mx_guc_database, NULL, 0);
	/* It runs as a superuser: no database or role setting may choose the names its queries use. */
	SetConfigOption("search_path", "pg_catalog, pg_temp", PGC_SUSET, PGC_S_OVERRIDE);
	in_worker = true;
	pgstat_report_appname("mixdnn launch worker");
	publish_latch();

	cxt = AllocSetContextCreate(TopMemoryContext, "mixdnn worker", ALLOCSET_DEFAULT_SIZES);
	MemoryContextSwitchTo(cxt);
	ereport(LOG,
			(errmsg("mixdnn launch worker started for database \"%s\"", mx_guc_database)));

	for (;;)
	{
		long		wait_ms = (long) worker_poll_interval_s * 1000;

		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
			wait_ms = (long) worker_poll_interval_s * 1000;
		}

		/* A standby's tables are read-only; its worker waits for promotion. */
		if (!RecoveryInProgress())
		{
			if (!repaired)
				repaired = run_step_protected(STEP_REPAIR, &wait_ms, cxt);
			if (repaired)
			{
				(void) run_step_protected(STEP_EXPIRE, &wait_ms, cxt);
				(void) run_step_protected(STEP_PLAN, &wait_ms, cxt);
				(void) run_step_protected(STEP_LAUNCH, &wait_ms, cxt);
			}
		}
		MemoryContextReset(cxt);

		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 wait_ms, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}
