/*
 * supervisor.c — the background worker that gives every database of the
 * cluster its launch worker (docs/operations.md, "Every database").
 *
 * Which databases have the extension is written in each database's own
 * pg_extension, out of reach of a process connected to none. So the
 * supervisor, connected to no database, reads the shared catalog
 * pg_database and starts one dynamic worker (worker.c) per database that
 * accepts connections; a worker that finds no extension marks its slot idle
 * and exits. An idle database is looked at again when a backend there asks
 * for its worker (a commit that ran a round, i.e. the extension exists) or
 * after IDLE_RECHECK_S. A worker that exits otherwise is restarted after
 * MX_RESTART_S, as the postmaster restarts static workers.
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_database.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "tcop/tcopprot.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#include "registry.h"
#include "supervisor.h"

PGDLLEXPORT void mixdnn_supervisor_main(Datum main_arg);

/* An idle database (no extension when last looked) is looked at again this often. */
#define IDLE_RECHECK_S 30

/*
 * An opted-out database is wanted only for events handed to a worker that
 * had stopped (registry.c, opted_out_events): its worker plans them and
 * exits. At most one such start a second: one whose round keeps failing,
 * or keeps finding rows locked, leaves its events behind for the next.
 */
#define OPTED_OUT_WANTED_MS 1000

/* Longest sleep between two scans of pg_database. */
#define SCAN_INTERVAL_S 10

/* The workers this supervisor started, by database. */
typedef struct started_worker
{
	Oid			dboid;
	BackgroundWorkerHandle *handle;
} started_worker;

typedef struct supervisor_state
{
	started_worker workers[MX_MAX_DATABASES];
	int			nworkers;
	Oid			dbs[MX_MAX_DATABASES];	/* databases that accept connections */
	int			ndbs;
	bool		warned_full;
} supervisor_state;

/* A standby's tables are read-only: workers start at promotion. */
static void
describe_worker(BackgroundWorker *w, const char *function, const char *type, int restart_s)
{
	memset(w, 0, sizeof(*w));
	w->bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	w->bgw_start_time = BgWorkerStart_RecoveryFinished;
	w->bgw_restart_time = restart_s;
	snprintf(w->bgw_library_name, BGW_MAXLEN, "mixdnn");
	snprintf(w->bgw_function_name, BGW_MAXLEN, "%s", function);
	snprintf(w->bgw_name, BGW_MAXLEN, "%s", type);
	snprintf(w->bgw_type, BGW_MAXLEN, "%s", type);
}

void
mx_supervisor_init(void)
{
	BackgroundWorker w;

	describe_worker(&w, "mixdnn_supervisor_main", "mixdnn supervisor", MX_RESTART_S);
	RegisterBackgroundWorker(&w);
}

typedef struct listed_db
{
	Oid			oid;
	NameData	name;
} listed_db;

static int
listed_db_cmp(const void *a, const void *b)
{
	Oid			x = ((const listed_db *) a)->oid;
	Oid			y = ((const listed_db *) b)->oid;

	return x < y ? -1 : x > y;
}

/* Said at most once an hour: the databases past the limit get no worker; names the first few. */
static void
warn_skipped(const listed_db *skipped, int n)
{
	static TimestampTz last_warning = 0;
	StringInfoData names;
	int			i;

	if (n <= 0 || !TimestampDifferenceExceeds(last_warning, GetCurrentTimestamp(), 3600 * 1000))
		return;
	initStringInfo(&names);
	for (i = 0; i < n && i < 5; i++)
		appendStringInfo(&names, "%s\"%s\"", i > 0 ? ", " : "", NameStr(skipped[i].name));
	if (n > 5)
		appendStringInfo(&names, " and %d more", n - 5);
	ereport(WARNING,
			(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
			 errmsg("mixdnn supervisor looks at only the %d oldest databases that accept connections; %d more get no launch worker: %s",
					MX_MAX_DATABASES, n, names.data),
			 errhint("Databases with mixdnn beyond the %d oldest are not served: their jobs are launched only by mixdnn.launch_due().",
					 MX_MAX_DATABASES)));
	last_warning = GetCurrentTimestamp();
	pfree(names.data);
}

/* pg_database's databases that accept connections, templates excepted. */
static void
scan_databases(supervisor_state *st)
{
	Relation	rel;
	TableScanDesc scan;
	HeapTuple	tup;
	listed_db  *all;
	int			nall = 0,
				cap = MX_MAX_DATABASES,
				i;

	StartTransactionCommand();
	(void) GetTransactionSnapshot();
	all = palloc(sizeof(listed_db) * cap);
	rel = table_open(DatabaseRelationId, AccessShareLock);
	scan = table_beginscan_catalog(rel, 0, NULL);
	while ((tup = heap_getnext(scan, ForwardScanDirection)) != NULL)
	{
		Form_pg_database d = (Form_pg_database) GETSTRUCT(tup);

		if (!d->datallowconn || d->datistemplate)
			continue;
		if (nall == cap)
			all = repalloc(all, sizeof(listed_db) * (cap *= 2));
		all[nall].oid = d->oid;
		all[nall].name = d->datname;
		nall++;
	}
	table_endscan(scan);
	table_close(rel, AccessShareLock);
	/* The oldest first: an ALTER DATABASE moves a row in the scan's order, not its oid. */
	qsort(all, nall, sizeof(listed_db), listed_db_cmp);
	st->ndbs = Min(nall, MX_MAX_DATABASES);
	for (i = 0; i < st->ndbs; i++)
		st->dbs[i] = all[i].oid;
	warn_skipped(all + st->ndbs, nall - st->ndbs);
	pfree(all);
	CommitTransactionCommand();
}

static started_worker *
find_started(supervisor_state *st, Oid db)
{
	int			i;

	for (i = 0; i < st->nworkers; i++)
		if (st->workers[i].dboid == db)
			return &st->workers[i];
	return NULL;
}

/* Forgets the workers that have exited; a start that never attached failed. */
static void
reap_workers(supervisor_state *st)
{
	int			i = 0;

	while (i < st->nworkers)
	{
		pid_t		pid;

		if (GetBackgroundWorkerPid(st->workers[i].handle, &pid) == BGWH_STOPPED)
		{
			mx_registry_start_failed(st->workers[i].dboid);
			pfree(st->workers[i].handle);
			st->workers[i] = st->workers[--st->nworkers];
			continue;
		}
		i++;
	}
}

static void
start_worker(supervisor_state *st, Oid db)
{
	BackgroundWorker w;
	BackgroundWorkerHandle *handle;
	MemoryContext old;

	if (st->nworkers >= MX_MAX_DATABASES || !mx_registry_mark_starting(db))
		return;

	/* This supervisor restarts it, when the database still needs it. */
	describe_worker(&w, "mixdnn_worker_main", "mixdnn launch worker", BGW_NEVER_RESTART);
	snprintf(w.bgw_name, BGW_MAXLEN, "mixdnn launch worker for database %u", db);
	w.bgw_main_arg = ObjectIdGetDatum(db);
	w.bgw_notify_pid = MyProcPid;

	old = MemoryContextSwitchTo(TopMemoryContext);
	if (!RegisterDynamicBackgroundWorker(&w, &handle))
	{
		MemoryContextSwitchTo(old);
		mx_registry_start_failed(db);
		if (!st->warned_full)
			ereport(WARNING,
					(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
					 errmsg("mixdnn supervisor could not start a launch worker for database %u", db),
					 errhint("Raise max_worker_processes: mixdnn needs one worker per database with the extension, plus one, "
							 "besides PostgreSQL's own (the logical replication launcher, parallel query workers).")));
		st->warned_full = true;
		return;
	}
	MemoryContextSwitchTo(old);
	st->warned_full = false;
	st->workers[st->nworkers].dboid = db;
	st->workers[st->nworkers].handle = handle;
	st->nworkers++;
}

/* Whether database v needs a worker now; else lowers *wait_ms to when it may. */
static bool
needs_worker(const mx_db_view *v, const started_worker *w,
			 TimestampTz now, long *wait_ms)
{
	TimestampTz due;

	if (w != NULL || v->pid != 0 || v->state == MX_DB_STARTING || v->state == MX_DB_RUNNING)
		return false;
	if (v->state == MX_DB_PAUSED)
		due = v->since;
	else if (v->state == MX_DB_IDLE && !v->wanted)
		due = TimestampTzPlusMilliseconds(v->since, IDLE_RECHECK_S * 1000);
	else if (v->state == MX_DB_IDLE && v->opted_out)
		due = TimestampTzPlusMilliseconds(v->since, OPTED_OUT_WANTED_MS);
	else if (v->state == MX_DB_IDLE)
		due = now;
	else
		due = v->since;			/* MX_DB_NONE: the earliest restart */
	if (due <= now)
		return true;
	*wait_ms = Min(*wait_ms, (long) ((due - now) / 1000) + 1);
	return false;
}

static void
supervise(supervisor_state *st, long *wait_ms)
{
	mx_db_view	views[MX_MAX_DATABASES];
	int			nviews,
				i,
				j;
	TimestampTz now = GetCurrentTimestamp();

	reap_workers(st);
	scan_databases(st);
	nviews = mx_registry_views(views, MX_MAX_DATABASES);

	/*
	 * Slots of databases not (or no longer) listed, first: a commit in a
	 * database past the limit takes a free slot (mx_registry_wake), and
	 * freed only after the starts it kept a listed database from its slot
	 * for as long as it committed between two scans.
	 */
	for (j = 0; j < nviews; j++)
	{
		bool		exists = false;

		for (i = 0; i < st->ndbs && !exists; i++)
			exists = st->dbs[i] == views[j].dboid;
		if (!exists)
			mx_registry_forget(views[j].dboid);
	}
	for (i = 0; i < st->ndbs; i++)
	{
		mx_db_view	v = {st->dbs[i], MX_DB_NONE, false, false, 0, 0};

		for (j = 0; j < nviews; j++)
			if (views[j].dboid == st->dbs[i])
				v = views[j];
		if (needs_worker(&v, find_started(st, v.dboid), now, wait_ms))
			start_worker(st, v.dboid);
	}
}

void
mixdnn_supervisor_main(Datum main_arg)
{
	supervisor_state *st;

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnection(NULL, NULL, 0);
	pgstat_report_appname("mixdnn supervisor");
	mx_registry_attach_supervisor();

	st = MemoryContextAllocZero(TopMemoryContext, sizeof(supervisor_state));
	ereport(LOG, (errmsg("mixdnn supervisor started")));

	for (;;)
	{
		long		wait_ms = SCAN_INTERVAL_S * 1000L;

		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}
		supervise(st, &wait_ms);
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 wait_ms, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}
