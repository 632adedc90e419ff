/*
 * worker.c — the launch background worker (contract §5, docs/launcher.md).
 *
 * One worker per database that has the extension, started by the
 * supervisor (supervisor.c; they find each other through registry.c). A
 * worker that finds no extension, or mixdnn.launch_worker off, exits at
 * once; one whose extension is dropped exits at its next cycle, unless it
 * has been created again meanwhile, which it then serves. It sleeps on its
 * latch until a transaction that ran a round commits
 * (mx_worker_wake_at_commit), the next planned start or lease end comes, or
 * the poll interval passes. Each cycle, in short transactions of its own, it
 * expires lost leases (mixdnn.expire_leases()) and re-queues the jobs a node
 * set down left because their rows were held (mixdnn.requeue_down_nodes();
 * a re-queue runs a round at commit), runs the round that plan_mode worker
 * leaves to it for every event committed since its last, and launches the
 * due jobs (mx_launch_due()).
 * At start-up, and after a data load (restore.c), it repairs what a crash
 * or the load may have left half-done (mixdnn._repair()).
 *
 * An error in a cycle is logged and the cycle is retried after a delay: the
 * worker never takes the server down, and the supervisor restarts it if it
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
#include "storage/proc.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#include "clock.h"
#include "guc.h"
#include "notices.h"
#include "events.h"
#include "due.h"
#include "registry.h"
#include "restore.h"
#include "round.h"
#include "spi_cache.h"
#include "wake.h"
#include "worker.h"

PGDLLEXPORT void mixdnn_worker_main(Datum main_arg);

/* How long to wait before retrying a cycle that failed, at most. */
#define RETRY_DELAY_MS 5000

/*
 * A planned start already past after a launch pass means its job could not
 * start and a round has re-planned it; this keeps a planner that plans it
 * at "now" again from spinning the worker.
 */
#define PAST_DUE_DELAY_MS 1000

static int	worker_poll_interval_s = 10;

/* In the worker: events taken from shared memory by a round that has not committed yet. */
static uint32 events_in_flight = 0;

/* In the worker: the name of its database, for messages. */
static char database_name[NAMEDATALEN];

/* In the worker: DROP EXTENSION removed what it served. */
static bool extension_gone = false;

/* ---------- registration ---------- */

void
mx_worker_init(void)
{
	DefineCustomIntVariable("mixdnn.worker_poll_interval",
							"Longest sleep of the launch worker between two looks at the tables.",
							"The worker also wakes when a round commits, at the next planned start "
							"and at the next lease end.",
							&worker_poll_interval_s, 10, 1, 3600,
							PGC_SIGHUP, GUC_UNIT_S, NULL, NULL, NULL);
}

/* ---------- the worker ---------- */

/* A statement of the worker's that returns one int, or NULL for 0. */
static int
spi_int(const char *sql, const char *what)
{
	bool		isnull;
	Datum		v = mx_spi_value(sql, 0, NULL, NULL, &isnull, what);

	return isnull ? 0 : DatumGetInt32(v);
}

typedef enum cycle_step
{
	STEP_REPAIR,
	STEP_EXPIRE,
	STEP_DOWN,
	STEP_PLAN,
	STEP_LAUNCH,
	STEP_NOTIFY,
	STEP_PURGE
} cycle_step;

static const char *const step_names[] = {"repair", "lease expiry", "down nodes", "plan", "launch", "notify", "purge"};

/* How often the worker purges history older than mixdnn.history_retention. */
#define PURGE_INTERVAL_MS (3600 * 1000)

/*
 * Jobs active without their GPUs or parts: re-queued or failed, but for
 * those whose row another transaction holds; while any is left, the next
 * cycle's lease expiry looks again (a repair runs only at the worker's
 * start and after a load). What a step found counts once it commits
 * (run_step): a step rolled back after re-queueing them all must not
 * stop the looking.
 */
static bool half_launched_held = false;
static int	half_launched_found = -1;	/* this step's finding: -1 none, else 0/1 */

/* Whether the database's extension has this function (one still at 0.1.0 lacks the newer ones). */
static bool
has_function(const char *signature)
{
	char		sql[256];

	snprintf(sql, sizeof(sql), "SELECT (pg_catalog.to_regprocedure('%s') IS NOT NULL)::int", signature);
	return spi_int(sql, "function lookup") != 0;
}

static int
lose_half_launched(void)
{
	bool		isnull;
	int			lost;
	Datum		held;

	/* 0.1.0's _repair() did this itself */
	if (!has_function("mixdnn._lose_half_launched()"))
		return 0;
	lost = spi_int("SELECT h.lost, h.held FROM mixdnn._lose_half_launched() h", "repair");
	held = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull);
	half_launched_found = !isnull && DatumGetInt32(held) > 0;
	return lost;
}

/*
 * Launchers could not renew their leases while the server was down, or
 * before a promotion, or for the rows a data load wrote: the first repair
 * after a start, and the repair after a load, give every active part one
 * more lease. Not a worker's restart while the server ran (a terminated
 * worker, ALTER DATABASE SET): renewing then kept a lost launcher's parts
 * alive for as long as the restarts went on.
 */
static void
step_repair(void)
{
	int			fixed = spi_int("SELECT mixdnn._repair()", "repair");

	/* 0.1.0's _repair() renewed them itself */
	if ((!mx_registry_leases_renewed(MyDatabaseId) ||
		 (mx_registry_peek_events(MyDatabaseId) & MX_EV_RESTORE)) &&
		has_function("mixdnn._renew_leases()"))
		(void) spi_int("SELECT mixdnn._renew_leases()", "repair");
	fixed += lose_half_launched();
	if (fixed > 0)
		ereport(LOG,
				(errmsg("mixdnn worker repaired %d half-done launch records", fixed)));
	if (half_launched_found == 1)
		ereport(LOG,
				(errmsg("mixdnn worker left half-launched jobs whose rows another transaction holds; it looks again at each cycle")));
}

static void
step_expire(void)
{
	int			lost;

	if (half_launched_held && (lost = lose_half_launched()) > 0)
		ereport(LOG,
				(errmsg("mixdnn worker repaired %d half-done launch records", lost)));

	/* The unlocked look first: most cycles have nothing to expire. */
	lost = spi_int("SELECT CASE WHEN EXISTS (SELECT FROM mixdnn.job_parts p "
				   "WHERE p.state IN ('launching', 'running') "
				   "AND p.lease_until < mixdnn.now()) "
				   "THEN mixdnn.expire_leases() ELSE 0 END", "lease expiry");

	if (lost > 0)
		ereport(LOG,
				(errmsg_plural("mixdnn worker found %d job whose launcher lease expired",
							   "mixdnn worker found %d jobs whose launcher lease expired", lost, lost)));
}

/*
 * A node set down re-queues its jobs but skips those whose rows another
 * transaction held then (39b_node_down.sql): they are this step's, once
 * free. A step of its own, so that its failure (the scheduler lock busy)
 * takes back no repair or expiry. The function looks without a lock first.
 */
static void
step_down(void)
{
	int			lost;

	if (!has_function("mixdnn.requeue_down_nodes()"))
		return;
	lost = spi_int("SELECT mixdnn.requeue_down_nodes()", "down nodes");
	if (lost > 0)
		ereport(LOG,
				(errmsg_plural("mixdnn worker re-queued or failed %d job of a node that is down, held by another transaction when the node went down",
							   "mixdnn worker re-queued or failed %d jobs of nodes that are down, held by another transaction when the node went down",
							   lost, lost)));
}

/* Every event committed since the last round, in one round. */
static void
step_plan(void)
{
	events_in_flight = mx_registry_take_events(MyDatabaseId);
	if (events_in_flight != 0)
	{
		char		event[128];

		mx_events_name((int) events_in_flight, event, sizeof(event));
		(void) mx_run_round(event);
	}
}

/* Launches what is due and lowers *wait_ms to the next planned start or lease end. */
static void
step_launch(long *wait_ms)
{
	bool		isnull;
	Datum		next;
	TimestampTz now,
				at;
	long		ms;

	(void) mx_launch_due_and_replan();
	next = mx_spi_value("SELECT mixdnn._next_wakeup()", 0, NULL, NULL, &isnull, "next wake-up");
	if (isnull)
		return;
	now = mx_clock_now();
	at = DatumGetTimestampTz(next);
	/* Rounded up, so the worker never wakes just before the time. */
	if (at <= now)
		ms = PAST_DUE_DELAY_MS;
	else if (at - now >= (TimestampTz) *wait_ms * 1000)
		ms = *wait_ms;
	else
		ms = (long) ((at - now + 999) / 1000) + 1;
	*wait_ms = Min(*wait_ms, ms);
}

static void
step_purge(void)
{
	int			purged;

	/* A database still at 0.1.0 (not yet updated) has none: nothing to purge. */
	if (!has_function("mixdnn.purge_history(interval)"))
		return;
	purged = spi_int("SELECT (rounds + plan_revisions + events)::int FROM mixdnn.purge_history()", "purge");

	if (purged > 0)
		ereport(LOG,
				(errmsg("mixdnn worker purged %d history rows older than mixdnn.history_retention",
						purged)));
}

/*
 * One step in a transaction of its own; nothing to do until CREATE EXTENSION
 * has run in the database. The launch step lowers *wait_ms to the next
 * planned start or lease end.
 */
static void
run_step(cycle_step step, long *wait_ms)
{
	bool		installed;
	uint32		retry;

	half_launched_found = -1;
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	pgstat_report_activity(STATE_RUNNING, step_names[step]);

	installed = OidIsValid(get_extension_oid("mixdnn", true));
	extension_gone = !installed;
	if (installed)
	{
		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "mixdnn worker: SPI_connect failed");

		switch (step)
		{
			case STEP_REPAIR:
				step_repair();
				break;
			case STEP_EXPIRE:
				step_expire();
				break;
			case STEP_DOWN:
				step_down();
				break;
			case STEP_PLAN:
				step_plan();
				break;
			case STEP_LAUNCH:
				step_launch(wait_ms);
				break;
			case STEP_NOTIFY:
				mx_notices_deliver();
				break;
			case STEP_PURGE:
				step_purge();
				break;
		}
		SPI_finish();
	}

	PopActiveSnapshot();
	CommitTransactionCommand();
	events_in_flight = 0;
	if (half_launched_found >= 0)
		half_launched_held = half_launched_found == 1;
	/*
	 * Not at once: the locker may hold its rows a while, and its commit is an
	 * event anyway. The round's own wake-up at commit has set our latch;
	 * left set, it would start the retry now, and again after that, as long
	 * as a user keeps the row locked. A wake-up from another backend in
	 * the meantime waits with it, its events kept in shared memory.
	 */
	retry = mx_wake_take_retry();
	if (retry != 0)
	{
		mx_registry_add_events(MyDatabaseId, retry);
		*wait_ms = Min(*wait_ms, PAST_DUE_DELAY_MS);
		ResetLatch(MyLatch);
	}
	pgstat_report_activity(STATE_IDLE, NULL);
}

/* A failure that repeats is logged once a minute, with how often it came. */
#define REPEAT_LOG_MS (60 * 1000)

static void
report_failure(cycle_step step, const ErrorData *edata)
{
	static char last[256];
	static TimestampTz last_at = 0;
	static int	repeats = 0;
	char		this[256];

	snprintf(this, sizeof(this), "%d %s %s", (int) step, unpack_sql_state(edata->sqlerrcode), edata->message);
	if (strcmp(this, last) == 0 &&
		!TimestampDifferenceExceeds(last_at, GetCurrentTimestamp(), REPEAT_LOG_MS))
	{
		repeats++;
		return;
	}
	ereport(WARNING,
			(errcode(edata->sqlerrcode),
			 errmsg("mixdnn worker %s step failed: %s", step_names[step], edata->message),
			 edata->detail ? errdetail_internal("%s", edata->detail) : 0,
			 repeats > 0 ? errhint("The same failure came %d more times since it was last logged.", repeats) : 0,
			 errcontext("retrying in %d ms", RETRY_DELAY_MS)));
	strlcpy(last, this, sizeof(last));
	last_at = GetCurrentTimestamp();
	repeats = 0;
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
			mx_registry_add_events(MyDatabaseId, events_in_flight);
		events_in_flight = 0;
		(void) mx_wake_take_retry();
		/*
		 * A DROP EXTENSION that committed while the step ran (it began
		 * with the extension there, then met a table dropped meanwhile)
		 * is no failure: the next cycle finds the extension gone.
		 */
		StartTransactionCommand();
		extension_gone = !OidIsValid(get_extension_oid("mixdnn", true));
		CommitTransactionCommand();
		if (!extension_gone)
			report_failure(step, edata);
		FreeErrorData(edata);
		*wait_ms = Min(*wait_ms, RETRY_DELAY_MS);
	}
	PG_END_TRY();
	MemoryContextSwitchTo(cxt);
	return ok;
}

/*
 * Whether the database has something to serve: the extension, and
 * mixdnn.launch_worker not turned off for it (ALTER DATABASE ... SET).
 */
static bool
database_served(bool *opted_out)
{
	bool		installed;
	char	   *name;

	StartTransactionCommand();
	installed = OidIsValid(get_extension_oid("mixdnn", true));
	name = get_database_name(MyDatabaseId);
	strlcpy(database_name, name ? name : "?", sizeof(database_name));
	CommitTransactionCommand();
	*opted_out = !mx_guc_launch_worker;
	return installed && !*opted_out;
}

/* Nothing to serve: the supervisor looks again when someone asks. */
static void
exit_idle(bool opted_out)
{
	mx_registry_set_idle(MyDatabaseId, opted_out);
	proc_exit(0);
}

/*
 * The database is opted out (mixdnn.launch_worker = off): marked not served
 * first, then what backends handed the worker meanwhile (events to plan,
 * notices to send) is done, not left behind. Not a load's: its round may
 * not run while the load does (round ids taken then collide with the
 * rounds still to load), and it is for a worker that serves the database,
 * which repairs and renews the leases first.
 */
static void
exit_opted_out(MemoryContext cxt)
{
	long		ms = 0;
	bool		no_load;

	mx_registry_set_idle(MyDatabaseId, true);

	/*
	 * The load lock, as a serving cycle takes it, before the check: a load
	 * takes its own lock before it hands over its event, so one that begins
	 * after the check waits for this round rather than having its event
	 * taken by it.
	 */
	no_load = mx_restore_begin_cycle();
	if (!no_load || (mx_registry_peek_events(MyDatabaseId) & MX_EV_RESTORE))
	{
		if (mx_registry_first_load_notice(MyDatabaseId))
			ereport(LOG,
					(errmsg("mixdnn launch worker is off for database \"%s\": a data load there is repaired and planned once a worker serves it",
							database_name)));
	}
	else
		(void) run_step_protected(STEP_PLAN, &ms, cxt);
	if (no_load)
		mx_restore_end_cycle();
	(void) run_step_protected(STEP_NOTIFY, &ms, cxt);
	proc_exit(0);
}

/*
 * One cycle. A data load (pg_restore, psql -f of a dump) in progress holds
 * the tables half-written: the worker waits for it to end, then repairs
 * and plans as after a start.
 */
static void
run_cycle(bool *repaired, bool *loading, long *wait_ms, MemoryContext cxt)
{
	static TimestampTz last_purge = 0;
	static bool restore_repaired = false;	/* the pending restore event's repair is done */

	if (!mx_restore_begin_cycle())
	{
		if (!*loading)
			ereport(LOG,
					(errmsg("mixdnn launch worker waits for a data load into database \"%s\" to end",
							database_name)));
		*loading = true;
		*repaired = false;
		return;
	}
	if (*loading)
		mx_registry_add_events(MyDatabaseId, MX_EV_RESTORE);
	*loading = false;
	/*
	 * A load repairs, also one that ended between two cycles (restore.c
	 * adds the event); once: a failed round keeps the event for its retry,
	 * and repairing again each cycle would renew every part's lease.
	 */
	if ((mx_registry_peek_events(MyDatabaseId) & MX_EV_RESTORE) && !restore_repaired)
		*repaired = false;
	if (!*repaired)
	{
		*repaired = run_step_protected(STEP_REPAIR, wait_ms, cxt);
		restore_repaired = *repaired && (mx_registry_peek_events(MyDatabaseId) & MX_EV_RESTORE);
		if (*repaired)
			mx_registry_mark_leases_renewed(MyDatabaseId);
	}
	if (*repaired)
	{
		(void) run_step_protected(STEP_EXPIRE, wait_ms, cxt);
		(void) run_step_protected(STEP_DOWN, wait_ms, cxt);
		if (run_step_protected(STEP_PLAN, wait_ms, cxt))
			restore_repaired = false;
		(void) run_step_protected(STEP_LAUNCH, wait_ms, cxt);
		/* In a transaction of its own: the launchers' notices (notices.c) */
		(void) run_step_protected(STEP_NOTIFY, wait_ms, cxt);
		if (TimestampDifferenceExceeds(last_purge, GetCurrentTimestamp(), PURGE_INTERVAL_MS))
		{
			(void) run_step_protected(STEP_PURGE, wait_ms, cxt);
			last_purge = GetCurrentTimestamp();
		}
	}
	mx_restore_end_cycle();
}

static void
worker_connect(Datum main_arg)
{
	bool		opted_out;

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();

	BackgroundWorkerInitializeConnectionByOid(DatumGetObjectId(main_arg), InvalidOid, 0);
	if (!mx_registry_attach(MyDatabaseId))
		proc_exit(0);
	/*
	 * Paused while it was connecting (dbguard: a DROP DATABASE or a rename
	 * found no worker to stop yet): step aside, as a running worker would
	 * have; the supervisor starts another once the pause is over. Staying
	 * would make the DROP DATABASE fail.
	 */
	if (mx_registry_paused(MyDatabaseId))
		proc_exit(0);
	/* It runs as a superuser: no database or role setting may choose the names its queries use. */
	SetConfigOption("search_path", "pg_catalog, pg_temp", PGC_SUSET, PGC_S_OVERRIDE);
	/*
	 * Nor how its transactions run: its rounds and launches read what other
	 * sessions committed up to each statement (under a serializable default
	 * its steps fail with serialization errors; under a read-only one, every
	 * step fails). mixdnn.launch_worker = off is how a database turns the
	 * worker off.
	 */
	SetConfigOption("default_transaction_isolation", "read committed", PGC_SUSET, PGC_S_OVERRIDE);
	SetConfigOption("default_transaction_read_only", "off", PGC_SUSET, PGC_S_OVERRIDE);
	mx_wake_in_worker();
	pgstat_report_appname("mixdnn launch worker");
	if (!database_served(&opted_out))
	{
		/*
		 * The database counted as served while this worker started: what
		 * backends handed it meanwhile is done by exit_opted_out(), all but
		 * a load's round (a load started the worker that found the database
		 * opted out, planned, and took the event: e2e 40 on a loaded
		 * machine).
		 */
		if (opted_out)
			exit_opted_out(CurrentMemoryContext);
		mx_registry_set_idle(MyDatabaseId, false);
		proc_exit(0);
	}
	mx_registry_served(MyDatabaseId);
}

/*
 * A reload (SIGHUP). Turned off for the whole server (postgresql.conf,
 * ALTER SYSTEM), the worker stops as a start that finds it off does: a
 * setting read only at connection would leave a serving worker launching
 * until the server restarts. ALTER DATABASE ... SET restarts the worker
 * instead (dbguard.c).
 */
static void
worker_reload(MemoryContext cxt)
{
	ConfigReloadPending = false;
	ProcessConfigFile(PGC_SIGHUP);
	if (!mx_guc_launch_worker)
	{
		ereport(LOG,
				(errmsg("mixdnn launch worker stops serving database \"%s\": mixdnn.launch_worker is now off",
						database_name)));
		exit_opted_out(cxt);
	}
}

void
mixdnn_worker_main(Datum main_arg)
{
	MemoryContext cxt;
	bool		repaired = false;
	bool		loading = false;

	worker_connect(main_arg);
	cxt = AllocSetContextCreate(TopMemoryContext, "mixdnn worker", ALLOCSET_DEFAULT_SIZES);
	MemoryContextSwitchTo(cxt);
	ereport(LOG,
			(errmsg("mixdnn launch worker started for database \"%s\"", database_name)));

	/*
	 * The events handed to the worker live in shared memory only: those of
	 * transactions that committed just before a server stop or crash (jobs
	 * left pending for the worker) are gone. The first cycle plans anyway.
	 */
	mx_registry_add_events(MyDatabaseId, MX_EV_START);
	for (;;)
	{
		long		wait_ms;

		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
			worker_reload(cxt);
		/* after the reload: it may have changed the interval */
		wait_ms = (long) worker_poll_interval_s * 1000;

		/* Workers start only after recovery; this guards a later demotion. */
		if (!RecoveryInProgress())
		{
			if (extension_gone)
			{
				bool		opted_out;

				/*
				 * Created again since the cycle that found it dropped (DROP
				 * and CREATE EXTENSION in two transactions): that commit
				 * woke this worker, not the supervisor, and an exit here
				 * left its jobs for the supervisor's 30 s recheck. The new
				 * installation is served as a starting worker serves one.
				 */
				if (!database_served(&opted_out))
				{
					if (opted_out)
						exit_opted_out(cxt);
					exit_idle(false);
				}
				extension_gone = false;
				repaired = false;
				mx_registry_add_events(MyDatabaseId, MX_EV_START);
			}
			run_cycle(&repaired, &loading, &wait_ms, cxt);
		}
		MemoryContextReset(cxt);

		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 wait_ms, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}
