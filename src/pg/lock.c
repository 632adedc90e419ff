/*
 * lock.c — the scheduler lock and bounded lock waits (see lock.h).
 */
#include "postgres.h"

#include <poll.h>

#include "access/xact.h"
#include "commands/trigger.h"
#include "common/hashfn.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "storage/lwlock.h"
#include "storage/proc.h"
#include "tcop/tcopprot.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/resowner.h"

#include "guc.h"
#include "lock.h"
#include "restore.h"
#include "wake.h"

PG_FUNCTION_INFO_V1(mixdnn_lock_scheduler);
PG_FUNCTION_INFO_V1(mixdnn_lock_scheduler_trigger);
PG_FUNCTION_INFO_V1(mixdnn_bound_lock_waits);
PG_FUNCTION_INFO_V1(mixdnn_lock_node);

/*
 * An advisory lock tag no SQL function can build: pg_advisory_lock() and
 * its kin set field4 to 1 (one bigint key) or 2 (two int4 keys), never to
 * MX_LOCK_SPACE, so no role can take, wait for or block this lock except
 * through the extension's C code.
 */
#define MX_LOCK_KEY1 0x4d495844	/* "MIXD" */
#define MX_LOCK_KEY2 0x4e4e3031	/* "NN01" */
#define MX_LOCK_SPACE 0x4d58	/* "MX" */
#define MX_NODE_LOCK_SPACE 0x4d59	/* "MY": one launcher per node */

static void
scheduler_tag(LOCKTAG *tag)
{
	SET_LOCKTAG_ADVISORY(*tag, MyDatabaseId, MX_LOCK_KEY1, MX_LOCK_KEY2, MX_LOCK_SPACE);
}

static void
set_lock_timeout(GucAction action)
{
	char		value[32];

	snprintf(value, sizeof(value), "%d", mx_guc_lock_timeout_ms);
	(void) set_config_option("lock_timeout", value, PGC_SUSET, PGC_S_SESSION, action, true, 0, false);
}

void
mx_bound_lock_waits(void)
{
	set_lock_timeout(GUC_ACTION_SAVE);
}

void
mx_bound_lock_waits_to_end(void)
{
	set_lock_timeout(GUC_ACTION_LOCAL);
}

/* The wait itself, with PostgreSQL's lock_timeout set to ours for its duration. */
static void
wait_for_scheduler(LOCKTAG *tag)
{
	int			nest = NewGUCNestLevel();
	MemoryContext cxt = CurrentMemoryContext;

	mx_bound_lock_waits();
	PG_TRY();
	{
		(void) LockAcquire(tag, ExclusiveLock, false, false);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		if (edata->sqlerrcode != ERRCODE_LOCK_NOT_AVAILABLE)
			PG_RE_THROW();
		FlushErrorState();
		ereport(ERROR,
				(errcode(ERRCODE_LOCK_NOT_AVAILABLE),
				 errmsg("the mixdnn scheduler is busy"),
				 errdetail("Another transaction held the scheduler lock for longer than mixdnn.lock_timeout (%d ms).",
						   mx_guc_lock_timeout_ms),
				 errhint("Retry the call; nothing was changed.")));
	}
	PG_END_TRY();
	AtEOXact_GUC(true, nest);
}

/*
 * Whether a message of elevel reaches the server log at log_min_messages
 * level, which ranks LOG between ERROR and FATAL (PostgreSQL's rule, elog.c).
 */
static bool
logged_at(int elevel, int level)
{
	if (elevel == LOG || elevel == LOG_SERVER_ONLY)
		return level == LOG || level <= ERROR;
	if (level == LOG)
		return elevel >= FATAL;
	return elevel >= level;
}

/*
 * The log_min_messages that quiet_client() overrode in this session's
 * current transaction (local transaction id lxid), so that the error hook
 * keeps out of the log what that level would have kept out.
 */
static struct
{
	LocalTransactionId lxid;
	int			level;
}			log_override = {InvalidLocalTransactionId, 0};

/*
 * Holding the lock, a session must send its client nothing it could refuse
 * to read. PostgreSQL flushes every message to the client at once, and a
 * client that stops reading its socket keeps the backend waiting in
 * ClientWrite, beyond every timeout: a user's COMMIT with its round's
 * DEBUG lines, a NOTICE, or PostgreSQL's own commit-time messages would
 * hold the lock, and stop every submission, launch and launcher, for as
 * long as the user liked. So until the transaction ends (as
 * SET LOCAL; PostgreSQL restores it after the commit released the lock)
 * only errors go to the client, and an error at the top level, which
 * aborts the transaction, first gives the lock up (hold_off_error_hook).
 * A superuser's session (its login role) keeps its messages: it could
 * hold the lock in an open transaction anyway, and an operator reads the
 * rounds' and launches' lines in psql. The error hook runs only for a
 * message that is logged, so a level that logs no ERROR is lowered too
 * (the hook keeps out of the log what it would have kept out).
 */
static void
quiet_client(void)
{
	/* Nothing to lower: no catalog lookup for it. */
	if (whereToSendOutput != DestRemote ||
		(client_min_messages >= ERROR && logged_at(ERROR, log_min_messages)) ||
		superuser_arg(GetSessionUserId()))
		return;
	if (client_min_messages < ERROR)
		(void) set_config_option("client_min_messages", "error", PGC_SUSET, PGC_S_SESSION,
								 GUC_ACTION_LOCAL, true, 0, false);
	/* log_min_messages at fatal, panic or log: a superuser's, for the server or the role */
	if (!logged_at(ERROR, log_min_messages))
	{
		log_override.lxid = MyProc->lxid;
		log_override.level = log_min_messages;
		(void) set_config_option("log_min_messages", "error", PGC_SUSET, PGC_S_SESSION,
								 GUC_ACTION_LOCAL, true, 0, false);
	}
}

/* Whether elevel reaches the log only because quiet_client() overrode the level. */
static bool
logged_by_override(int elevel)
{
	/* The hook runs in every process, the postmaster (no MyProc) too. */
	return MyProc != NULL && log_override.lxid != InvalidLocalTransactionId &&
		log_override.lxid == MyProc->lxid && log_min_messages == ERROR &&
		!logged_at(elevel, log_override.level);
}

/*
 * Transaction-scoped: released at commit or abort, never leaked. Held by
 * the top transaction's resource owner whoever takes it (a statement's
 * portal, a subtransaction), so that the error hook below can give it up
 * whatever resource owner is current when an error is reported. So a
 * savepoint rolled back keeps it, as a subtransaction that failed after
 * taking it did before (run_in_subtransaction in round.c).
 */
void
mx_lock_scheduler(void)
{
	LOCKTAG		tag;
	ResourceOwner saved = CurrentResourceOwner;

	/* First: the wait itself may report (log_lock_waits) */
	quiet_client();
	scheduler_tag(&tag);
	CurrentResourceOwner = TopTransactionResourceOwner;
	PG_TRY();
	{
		/* Most of the time it is free: no GUC work then. */
		if (LockAcquire(&tag, ExclusiveLock, false, true) == LOCKACQUIRE_NOT_AVAIL)
			wait_for_scheduler(&tag);
	}
	PG_FINALLY();
	{
		CurrentResourceOwner = saved;
	}
	PG_END_TRY();
}

static emit_log_hook_type prev_emit_log_hook = NULL;

/* Whether the lock manager's partition locks are all free here (an error inside it holds one). */
static bool
lock_manager_free(void)
{
	for (int i = 0; i < NUM_LOCK_PARTITIONS; i++)
		if (LWLockHeldByMe(&MainLWLockArray[LOCK_MANAGER_LWLOCK_OFFSET + i].lock))
			return false;
	return true;
}

/* Gives the scheduler lock up, every time it was taken; whether it was held. */
static bool
release_scheduler_lock(void)
{
	LOCKTAG		tag;
	ResourceOwner saved = CurrentResourceOwner;
	bool		held;

	scheduler_tag(&tag);
	held = LockHeldByMe(&tag, ExclusiveLock);
	if (!held || TopTransactionResourceOwner == NULL)
		return false;
	CurrentResourceOwner = TopTransactionResourceOwner;
	for (int i = 0; i < 1000 && LockHeldByMe(&tag, ExclusiveLock); i++)
		if (!LockRelease(&tag, ExclusiveLock, false))
			break;
	CurrentResourceOwner = saved;
	return true;
}

/*
 * The client's socket: struct Port's first member (libpq/libpq-be.h, which
 * cannot be included without the GSSAPI headers; the member has been first
 * since PostgreSQL 7).
 */
static pgsocket
client_socket(void)
{
	return MyProcPort ? *(const pgsocket *) MyProcPort : PGINVALID_SOCKET;
}

/* Whether the client's socket takes a write within ms milliseconds. */
static bool
client_reads(int ms)
{
	struct pollfd p = {.fd = client_socket(), .events = POLLOUT};
	int			r;

	if (p.fd == PGINVALID_SOCKET)
		return true;
	do
		r = poll(&p, 1, ms > 0 ? ms : 0);
	while (r < 0 && errno == EINTR);
	return r != 0;
}

/*
 * An error about to reach the client of a session that holds the lock: at
 * the top level the transaction aborts after the report, which releases
 * the lock; released first, the report cannot hold it. The transaction
 * still holds the rows its round re-planned (other users' jobs among
 * them) until the report is written, so a session that is not a
 * superuser's and whose client does not take a write within
 * mixdnn.lock_timeout is treated as lost: the error goes to the server
 * log only and the backend ends once the transaction is aborted, as for a
 * broken connection. Not inside a savepoint (only admins and launchers
 * hold the lock there, and the transaction goes on), in a critical
 * section, at PANIC, or while this backend holds a partition lock of the
 * lock manager (an error inside it).
 */
static void
hold_off_error_hook(ErrorData *edata)
{
	if (logged_by_override(edata->elevel))
		edata->output_to_server = false;
	else if (prev_emit_log_hook)
		prev_emit_log_hook(edata);
	if (edata->elevel < ERROR || edata->elevel >= PANIC || CritSectionCount > 0 ||
		!edata->output_to_client || whereToSendOutput != DestRemote ||
		IsSubTransaction() || !IsTransactionState() || !lock_manager_free())
		return;
	if (!release_scheduler_lock() || superuser_arg(GetSessionUserId()) ||
		client_reads(mx_guc_lock_timeout_ms))
		return;
	/* Logged whatever the level: the session is closed for it. */
	edata->output_to_server = true;
	edata->output_to_client = false;
	edata->detail_log = pstrdup("mixdnn: the client did not take this error within mixdnn.lock_timeout "
								"while its transaction held the rows of a scheduling round; "
								"the connection is closed.");
	ProcDiePending = true;
	InterruptPending = true;
}

void
mx_lock_init(void)
{
	prev_emit_log_hook = emit_log_hook;
	emit_log_hook = hold_off_error_hook;
}

bool
mx_scheduler_lock_held(void)
{
	LOCKTAG		tag;

	scheduler_tag(&tag);
	return LockHeldByMe(&tag, ExclusiveLock);
}

/*
 * From SQL (the launcher functions): bounds the caller's lock waits, then
 * takes the scheduler lock. The caller's SET clause scopes the bound to it.
 */
Datum
mixdnn_lock_scheduler(PG_FUNCTION_ARGS)
{
	mx_bound_lock_waits();
	mx_lock_scheduler();
	PG_RETURN_VOID();
}

Datum
mixdnn_bound_lock_waits(PG_FUNCTION_ARGS)
{
	mx_bound_lock_waits();
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
	 * A data load runs no round: it takes the load lock (restore.c) and not
	 * this one, since the worker takes them the other way round.
	 */
	if (mx_restore_loading())
		return PointerGetDatum(NULL);
	/*
	 * Without a round at commit a writer never waits for the lock while
	 * holding rows, so it need not queue behind rounds (plan_mode worker).
	 */
	if (mx_guc_plan_mode != MX_PLAN_MODE_WORKER || !mx_worker_plans_here())
	{
		mx_lock_scheduler();
		/*
		 * Holding it, the transaction must not wait long for anyone either
		 * (a user's row, say): as SET LOCAL, until the transaction ends.
		 */
		set_lock_timeout(GUC_ACTION_LOCAL);
	}
	return PointerGetDatum(NULL);
}

/*
 * mixdnn.lock_node(node): the session lock that makes a launcher the only
 * one serving its node, keyed by a 64-bit hash of the name in a space of
 * our own, so no other role can hold it to keep the launcher from starting.
 * True when this session holds it (now or already).
 */
Datum
mixdnn_lock_node(PG_FUNCTION_ARGS)
{
	text	   *node = PG_GETARG_TEXT_PP(0);
	uint64		h = hash_bytes_extended((const unsigned char *) VARDATA_ANY(node), VARSIZE_ANY_EXHDR(node), 0);
	LOCKTAG		tag;

	SET_LOCKTAG_ADVISORY(tag, MyDatabaseId, (uint32) (h >> 32), (uint32) h, MX_NODE_LOCK_SPACE);
	PG_RETURN_BOOL(LockAcquire(&tag, ExclusiveLock, true, true) != LOCKACQUIRE_NOT_AVAIL);
}
