/*
 * restore.c — telling a data load from a user's statement.
 *
 * A dump restores the extension with CREATE EXTENSION, which writes no
 * rows, then loads every table registered with pg_extension_config_dump
 * with COPY. The triggers that validate submissions, record status changes
 * and run rounds must let those rows in as they are: a completed job stays
 * completed, its history is not written twice, and no round runs on a half
 * loaded database. pg_dump and pg_restore always start their session with
 * SET row_security = off and load with COPY ... FROM; loading as they do
 * also needs a superuser, since the extension (not trusted) is restored
 * with CREATE EXTENSION. A statement is a load when all three hold. It
 * opens nothing to users: only a superuser qualifies, and a superuser can
 * disable triggers anyway; a superuser's ordinary INSERT, UPDATE or COPY
 * with row_security on is validated as always.
 *
 * The session that loads holds a session-level lock (shared, so
 * pg_restore --jobs sessions load side by side) until it disconnects; the
 * launch worker holds it exclusively for each of its cycles, so a cycle
 * never starts while a load runs and a load never starts mid-cycle (it
 * waits for the cycle's end). The tag is in an advisory space no SQL
 * function reaches (lock.c), so no role can fake a load to stop the worker.
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "nodes/plannodes.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "tcop/pquery.h"
#include "utils/portal.h"
#include "utils/rls.h"

#include "events.h"
#include "registry.h"
#include "restore.h"

PG_FUNCTION_INFO_V1(mixdnn_loading);

/* Our lock key for loads ("MIXD" "LOAD"), in a space of our own ("MZ"). */
#define MX_LOAD_KEY1 0x4d495844
#define MX_LOAD_KEY2 0x4c4f4144
#define MX_LOAD_SPACE 0x4d5a

static bool holds_load_lock = false;

static void
load_tag(LOCKTAG *tag)
{
	SET_LOCKTAG_ADVISORY(*tag, MyDatabaseId, MX_LOAD_KEY1, MX_LOAD_KEY2, MX_LOAD_SPACE);
}

static bool
statement_is_copy_from(void)
{
	PlannedStmt *stmt;

	if (ActivePortal == NULL || list_length(ActivePortal->stmts) != 1)
		return false;
	stmt = linitial_node(PlannedStmt, ActivePortal->stmts);
	return stmt->utilityStmt != NULL && IsA(stmt->utilityStmt, CopyStmt)
		&& ((CopyStmt *) stmt->utilityStmt)->is_from;
}

bool
mx_restore_loading(void)
{
	LOCKTAG		tag;

	if (row_security || !superuser_arg(GetOuterUserId()) || !statement_is_copy_from())
		return false;
	if (!holds_load_lock)
	{
		load_tag(&tag);
		(void) LockAcquire(&tag, ShareLock, true, false);
		holds_load_lock = true;
		/* for the worker, even if the load ends between two of its cycles: repair, then plan */
		mx_registry_add_events(MyDatabaseId, MX_EV_RESTORE);
	}
	return true;
}

bool
mx_restore_begin_cycle(void)
{
	LOCKTAG		tag;

	load_tag(&tag);
	return LockAcquire(&tag, ExclusiveLock, true, true) != LOCKACQUIRE_NOT_AVAIL;
}

void
mx_restore_end_cycle(void)
{
	LOCKTAG		tag;

	load_tag(&tag);
	LockRelease(&tag, ExclusiveLock, true);
}

Datum
mixdnn_loading(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(mx_restore_loading());
}
