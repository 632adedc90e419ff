/*
 * registry.c — the launch workers' shared memory (see registry.h).
 *
 * One spinlock guards the slot table: every operation is a handful of
 * loads and stores, and backends touch it at most once per commit.
 * Events are an atomic per slot so that a worker takes them without
 * racing a committing backend.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "utils/timestamp.h"

#include "events.h"
#include "registry.h"

typedef struct mx_db_slot
{
	Oid			dboid;			/* InvalidOid: free */
	mx_db_state state;
	bool		wanted;
	bool		opted_out;		/* idle because of mixdnn.launch_worker = off */
	TimestampTz since;
	pid_t		pid;
	Latch	   *latch;
	pg_atomic_uint32 events;	/* plan_mode worker: committed, not yet planned */
	bool		leases_renewed;	/* a worker has renewed the parts' leases since the server started */
	bool		load_told;		/* opted out, a worker has logged the load left to a serving one */
} mx_db_slot;

typedef struct mx_registry_shared
{
	slock_t		mutex;
	Latch	   *supervisor_latch;
	mx_db_slot	slots[MX_MAX_DATABASES];
} mx_registry_shared;

static mx_registry_shared *reg = NULL;

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

static void
registry_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(MAXALIGN(sizeof(mx_registry_shared)));
}

static void
registry_shmem_startup(void)
{
	bool		found;
	int			i;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	reg = ShmemInitStruct("mixdnn workers", sizeof(mx_registry_shared), &found);
	if (!found)
	{
		memset(reg, 0, sizeof(*reg));
		SpinLockInit(&reg->mutex);
		for (i = 0; i < MX_MAX_DATABASES; i++)
			pg_atomic_init_u32(&reg->slots[i].events, 0);
	}
	LWLockRelease(AddinShmemInitLock);
}

void
mx_registry_init(void)
{
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = registry_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = registry_shmem_startup;
}

bool
mx_registry_loaded(void)
{
	return reg != NULL;
}

/* Caller holds the mutex. NULL when absent and not created, or the table is full. */
static mx_db_slot *
find_slot(Oid db, bool create)
{
	mx_db_slot *free_slot = NULL;
	int			i;

	for (i = 0; i < MX_MAX_DATABASES; i++)
	{
		if (reg->slots[i].dboid == db)
			return &reg->slots[i];
		if (free_slot == NULL && reg->slots[i].dboid == InvalidOid)
			free_slot = &reg->slots[i];
	}
	if (!create || free_slot == NULL)
		return NULL;
	free_slot->dboid = db;
	free_slot->state = MX_DB_NONE;
	free_slot->wanted = false;
	free_slot->opted_out = false;
	free_slot->since = GetCurrentTimestamp();
	free_slot->pid = 0;
	free_slot->latch = NULL;
	free_slot->leases_renewed = false;
	free_slot->load_told = false;
	pg_atomic_write_u32(&free_slot->events, 0);
	return free_slot;
}

/* ---------- backends ---------- */

bool
mx_registry_serves(Oid db)
{
	mx_db_slot *s;
	bool		serves;

	if (reg == NULL)
		return false;
	SpinLockAcquire(&reg->mutex);
	s = find_slot(db, false);
	/* not a database that opted out, whose worker only starts to exit again */
	serves = s != NULL && (s->state == MX_DB_STARTING || s->state == MX_DB_RUNNING) && !s->opted_out;
	SpinLockRelease(&reg->mutex);
	return serves;
}

void
mx_registry_add_events(Oid db, uint32 events)
{
	mx_db_slot *s;

	if (reg == NULL || events == 0)
		return;
	SpinLockAcquire(&reg->mutex);
	s = find_slot(db, true);
	/*
	 * Under the lock: the supervisor frees the slots of databases it does
	 * not serve, and a slot freed and taken by another database between
	 * the two would get this one's events.
	 */
	if (s != NULL)
		pg_atomic_fetch_or_u32(&s->events, events);
	SpinLockRelease(&reg->mutex);
}

/*
 * Events handed to an opted-out database's worker, which a worker started
 * now would plan on its way out (worker.c, exit_opted_out): a transaction
 * that found the worker serving, and so left its round to it, committed
 * after the worker stopped (mixdnn.launch_worker turned off and reloaded).
 * Left, they waited for the supervisor's next look, up to 30 s. Not a
 * load's: that worker leaves its round to a serving one, and each commit
 * would start a worker for nothing. Caller holds the mutex.
 */
static bool
opted_out_events(mx_db_slot *s)
{
	uint32		events = pg_atomic_read_u32(&s->events);

	return events != 0 && (events & MX_EV_RESTORE) == 0;
}

/*
 * The database's worker when it runs; else the supervisor, which starts
 * one (a database where the extension was just created has none yet).
 */
void
mx_registry_wake(Oid db)
{
	mx_db_slot *s;
	Latch	   *latch = NULL;

	if (reg == NULL)
		return;
	SpinLockAcquire(&reg->mutex);
	s = find_slot(db, true);
	if (s != NULL && s->state == MX_DB_RUNNING)
		latch = s->latch;
	else if (s != NULL && s->state == MX_DB_STARTING)
	{
		/* its worker may look before this commit's extension exists, and go idle */
		if (!s->opted_out)
			s->wanted = true;
	}
	else if (s != NULL && (!s->opted_out || opted_out_events(s)))
	{
		s->wanted = true;
		latch = reg->supervisor_latch;
	}
	SpinLockRelease(&reg->mutex);
	/* A latch set just after its owner exited only wakes the successor early. */
	if (latch != NULL)
		SetLatch(latch);
}

/*
 * No worker in db for the next seconds; returns the pid of the one running
 * now (0 if none), which the caller stops.
 */
pid_t
mx_registry_pause(Oid db, int seconds)
{
	mx_db_slot *s;
	pid_t		pid = 0;

	if (reg == NULL)
		return 0;
	SpinLockAcquire(&reg->mutex);
	s = find_slot(db, true);
	if (s != NULL)
	{
		pid = s->pid;
		s->state = MX_DB_PAUSED;
		s->since = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), seconds * 1000);
	}
	SpinLockRelease(&reg->mutex);
	return pid;
}

pid_t
mx_registry_worker_pid(Oid db)
{
	mx_db_slot *s;
	pid_t		pid;

	if (reg == NULL)
		return 0;
	SpinLockAcquire(&reg->mutex);
	s = find_slot(db, false);
	pid = s != NULL ? s->pid : 0;
	SpinLockRelease(&reg->mutex);
	return pid;
}

/* ---------- the per-database worker ---------- */

static void
detach(int code, Datum arg)
{
	mx_db_slot *s;

	SpinLockAcquire(&reg->mutex);
	s = find_slot(DatumGetObjectId(arg), false);
	if (s != NULL && s->pid == MyProcPid)
	{
		s->pid = 0;
		s->latch = NULL;
		if (s->state == MX_DB_RUNNING)
		{
			s->state = MX_DB_NONE;
			s->since = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), MX_RESTART_S * 1000);
		}
	}
	SpinLockRelease(&reg->mutex);
}

bool
mx_registry_attach(Oid db)
{
	mx_db_slot *s;
	bool		taken = false;

	SpinLockAcquire(&reg->mutex);
	s = find_slot(db, true);
	/*
	 * Another worker may hold the slot: one a supervisor that died started
	 * (its successor no longer knows it and may have started this one).
	 * The first to attach serves; detach() clears only its own pid.
	 */
	if (s != NULL && s->pid == 0)
	{
		s->pid = MyProcPid;
		s->latch = MyLatch;
		if (s->state != MX_DB_PAUSED)
			s->state = MX_DB_RUNNING;
		/* opted_out stays until the worker has read the setting (mx_registry_served) */
		s->since = GetCurrentTimestamp();
	}
	else
		taken = s != NULL;
	SpinLockRelease(&reg->mutex);
	if (s == NULL)
		ereport(FATAL,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("mixdnn serves at most %d databases", MX_MAX_DATABASES)));
	if (taken)
		return false;
	on_shmem_exit(detach, ObjectIdGetDatum(db));
	return true;
}

bool
mx_registry_leases_renewed(Oid db)
{
	mx_db_slot *s;
	bool		done;

	SpinLockAcquire(&reg->mutex);
	s = find_slot(db, false);
	done = s != NULL && s->leases_renewed;
	SpinLockRelease(&reg->mutex);
	return done;
}

void
mx_registry_mark_leases_renewed(Oid db)
{
	mx_db_slot *s;

	SpinLockAcquire(&reg->mutex);
	s = find_slot(db, false);
	if (s != NULL)
		s->leases_renewed = true;
	SpinLockRelease(&reg->mutex);
}

void
mx_registry_served(Oid db)
{
	mx_db_slot *s;

	SpinLockAcquire(&reg->mutex);
	s = find_slot(db, false);
	if (s != NULL)
	{
		s->opted_out = false;
		/* a wake while it started is answered: not a reason to restart it when it goes idle later */
		s->wanted = false;
		s->load_told = false;
	}
	SpinLockRelease(&reg->mutex);
}

/*
 * Whether this is the first look, since the database was last served, of
 * an opted-out worker at a load left to a serving one: the supervisor
 * looks every 30 s, and each look logged it again.
 */
bool
mx_registry_first_load_notice(Oid db)
{
	mx_db_slot *s;
	bool		first = false;

	SpinLockAcquire(&reg->mutex);
	s = find_slot(db, false);
	if (s != NULL && !s->load_told)
		first = s->load_told = true;
	SpinLockRelease(&reg->mutex);
	return first;
}

void
mx_registry_set_idle(Oid db, bool opted_out)
{
	mx_db_slot *s;

	SpinLockAcquire(&reg->mutex);
	s = find_slot(db, false);
	if (s != NULL && s->state != MX_DB_PAUSED)
	{
		s->state = MX_DB_IDLE;
		s->opted_out = opted_out;
		s->since = GetCurrentTimestamp();
	}
	SpinLockRelease(&reg->mutex);
}

bool
mx_registry_paused(Oid db)
{
	mx_db_slot *s;
	bool		paused;

	SpinLockAcquire(&reg->mutex);
	s = find_slot(db, false);
	paused = s != NULL && s->state == MX_DB_PAUSED;
	SpinLockRelease(&reg->mutex);
	return paused;
}

uint32
mx_registry_take_events(Oid db)
{
	mx_db_slot *s;

	SpinLockAcquire(&reg->mutex);
	s = find_slot(db, false);
	SpinLockRelease(&reg->mutex);
	return s != NULL ? pg_atomic_exchange_u32(&s->events, 0) : 0;
}

uint32
mx_registry_peek_events(Oid db)
{
	mx_db_slot *s;

	if (reg == NULL)
		return 0;
	SpinLockAcquire(&reg->mutex);
	s = find_slot(db, false);
	SpinLockRelease(&reg->mutex);
	return s != NULL ? pg_atomic_read_u32(&s->events) : 0;
}

/* ---------- the supervisor ---------- */

static void
detach_supervisor(int code, Datum arg)
{
	SpinLockAcquire(&reg->mutex);
	if (reg->supervisor_latch == MyLatch)
		reg->supervisor_latch = NULL;
	SpinLockRelease(&reg->mutex);
}

void
mx_registry_attach_supervisor(void)
{
	int			i;

	SpinLockAcquire(&reg->mutex);
	reg->supervisor_latch = MyLatch;
	/*
	 * A worker the last supervisor started and that has not attached: that
	 * supervisor exited (SIGTERM, an error) and took the worker's handle
	 * with it, so no one would learn if the worker failed, and the slot
	 * stayed STARTING: no worker for that database until a server restart.
	 * It may still attach within MX_RESTART_S; else another is started.
	 */
	for (i = 0; i < MX_MAX_DATABASES; i++)
	{
		mx_db_slot *s = &reg->slots[i];

		if (s->dboid != InvalidOid && s->state == MX_DB_STARTING && s->pid == 0)
		{
			s->state = MX_DB_NONE;
			s->since = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), MX_RESTART_S * 1000);
		}
	}
	SpinLockRelease(&reg->mutex);
	on_shmem_exit(detach_supervisor, (Datum) 0);
}

int
mx_registry_views(mx_db_view *out, int max)
{
	int			i,
				n = 0;

	SpinLockAcquire(&reg->mutex);
	for (i = 0; i < MX_MAX_DATABASES && n < max; i++)
	{
		mx_db_slot *s = &reg->slots[i];

		if (s->dboid == InvalidOid)
			continue;
		out[n].dboid = s->dboid;
		out[n].state = s->state;
		out[n].wanted = s->wanted;
		out[n].opted_out = s->opted_out;
		out[n].since = s->since;
		out[n].pid = s->pid;
		n++;
	}
	SpinLockRelease(&reg->mutex);
	return n;
}

/* False when the database is paused or the table is full. */
bool
mx_registry_mark_starting(Oid db)
{
	mx_db_slot *s;
	bool		ok = false;

	SpinLockAcquire(&reg->mutex);
	s = find_slot(db, true);
	if (s != NULL && s->pid == 0
		&& (s->state != MX_DB_PAUSED || s->since <= GetCurrentTimestamp()))
	{
		s->state = MX_DB_STARTING;
		s->wanted = false;
		s->since = GetCurrentTimestamp();
		ok = true;
	}
	SpinLockRelease(&reg->mutex);
	return ok;
}

/* The worker it started exited before it attached (e.g. the database went away). */
void
mx_registry_start_failed(Oid db)
{
	mx_db_slot *s;

	SpinLockAcquire(&reg->mutex);
	s = find_slot(db, false);
	if (s != NULL && s->state == MX_DB_STARTING && s->pid == 0)
	{
		s->state = MX_DB_NONE;
		s->since = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), MX_RESTART_S * 1000);
	}
	SpinLockRelease(&reg->mutex);
}

/* The database no longer exists. */
void
mx_registry_forget(Oid db)
{
	mx_db_slot *s;

	SpinLockAcquire(&reg->mutex);
	s = find_slot(db, false);
	if (s != NULL && s->pid == 0)
		s->dboid = InvalidOid;
	SpinLockRelease(&reg->mutex);
}
