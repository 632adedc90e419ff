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
 *
 * The triggers see a load only if they fire: pg_restore --disable-triggers
 * (ALTER TABLE ... DISABLE TRIGGER ALL around each COPY) and a session with
 * session_replication_role = replica load with none of them. So, where the
 * library is preloaded (as the worker needs), the same COPY is also
 * recognised when it starts, into a table of schema mixdnn, before its rows
 * come: the worker then waits for that session too, and repairs, renews the
 * leases and plans after it as after any load. So is the ALTER TABLE that
 * disables a table's triggers: it takes the table's lock, which a load in
 * one transaction (pg_restore -1) keeps until its COPY, and the worker
 * takes the load lock before any table's; taken at the COPY only, the
 * load lock would be waited for in the other order (a deadlock), and the
 * worker would see the triggers off before the load began.
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "nodes/plannodes.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "tcop/pquery.h"
#include "tcop/utility.h"
#include "utils/lsyscache.h"
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

static ProcessUtility_hook_type prev_utility = NULL;

/* Whether this session may load as a dump does: a superuser with row_security off. */
static bool
session_loads(void)
{
	return !row_security && superuser_arg(GetOuterUserId());
}

/* Takes the load lock for the rest of the session, the first time. */
static void
begin_load(void)
{
	LOCKTAG		tag;

	if (holds_load_lock)
		return;
	load_tag(&tag);
	(void) LockAcquire(&tag, ShareLock, true, false);
	holds_load_lock = true;
	/* for the worker, even if the load ends between two of its cycles: repair, then plan */
	mx_registry_add_events(MyDatabaseId, MX_EV_RESTORE);
}

bool
mx_restore_loading(void)
{
	if (!session_loads() || !statement_is_copy_from())
		return false;
	begin_load();
	return true;
}

/* Whether a statement's table is in schema mixdnn; a hint only: the statement resolves and locks it itself. */
static bool
in_mixdnn(RangeVar *relation)
{
	Oid			nsp = get_namespace_oid("mixdnn", true);
	Oid			rel;

	if (relation == NULL || !OidIsValid(nsp))
		return false;
	rel = RangeVarGetRelid(relation, NoLock, true);
	return OidIsValid(rel) && get_rel_namespace(rel) == nsp;
}

static bool
disables_triggers(AlterTableStmt *alter)
{
	ListCell   *lc;

	foreach(lc, alter->cmds)
	{
		AlterTableCmd *cmd = lfirst_node(AlterTableCmd, lc);

		if (cmd->subtype == AT_DisableTrig || cmd->subtype == AT_DisableTrigAll ||
			cmd->subtype == AT_DisableTrigUser)
			return true;
	}
	return false;
}

/*
 * A load's statement on a table of schema mixdnn, by a session that loads:
 * COPY ... FROM, or ALTER TABLE ... DISABLE TRIGGER.
 */
static bool
loads_into_mixdnn(Node *stmt)
{
	if (stmt == NULL)
		return false;
	if (IsA(stmt, CopyStmt))
	{
		CopyStmt   *copy = (CopyStmt *) stmt;

		return copy->is_from && session_loads() && in_mixdnn(copy->relation);
	}
	if (IsA(stmt, AlterTableStmt))
	{
		AlterTableStmt *alter = (AlterTableStmt *) stmt;

		return disables_triggers(alter) && session_loads() && in_mixdnn(alter->relation);
	}
	return false;
}

static void
restore_utility(PlannedStmt *pstmt, const char *queryString, bool readOnlyTree,
				ProcessUtilityContext context, ParamListInfo params,
				QueryEnvironment *queryEnv, DestReceiver *dest, QueryCompletion *qc)
{
	if (!holds_load_lock && loads_into_mixdnn(pstmt->utilityStmt))
		begin_load();
	if (prev_utility)
		prev_utility(pstmt, queryString, readOnlyTree, context, params, queryEnv, dest, qc);
	else
		standard_ProcessUtility(pstmt, queryString, readOnlyTree, context, params, queryEnv, dest, qc);
}

void
mx_restore_init(void)
{
	prev_utility = ProcessUtility_hook;
	ProcessUtility_hook = restore_utility;
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
