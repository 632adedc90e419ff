/*
 * dbguard.c — gets the launch worker out of a database's way.
 *
 * DROP DATABASE, ALTER DATABASE ... RENAME and CREATE DATABASE ... TEMPLATE
 * refuse to run while another process is connected to the database, and a
 * launch worker always is. Before such a command the database's worker is
 * paused (the supervisor does not restart it for PAUSE_S) and stopped; the
 * command then finds the database free. TimescaleDB's loader does the same
 * for its schedulers. ALTER DATABASE ... SET restarts the worker as well
 * (after RESTART_PAUSE_S), since a process reads its database's settings
 * only when it connects: mixdnn.launch_worker = off takes effect at once.
 */
#include "postgres.h"

#include <signal.h>

#include "access/htup_details.h"
#include "catalog/pg_database.h"
#include "commands/dbcommands.h"
#include "commands/defrem.h"
#include "commands/tablespace.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "pgstat.h"
#include "storage/latch.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "dbguard.h"
#include "registry.h"

/* How long a paused database stays without its worker. */
#define PAUSE_S 10

/* After ALTER DATABASE ... SET: long enough for the command to commit. */
#define RESTART_PAUSE_S 1

/* How long the command waits for the worker to exit (it exits at its next interrupt check). */
#define STOP_WAIT_MS 5000

static ProcessUtility_hook_type prev_process_utility = NULL;

/*
 * The database whose worker must stop for the command, or NULL; *pause_s
 * is how long it stays stopped.
 */
static const char *
database_needed(Node *stmt, int *pause_s)
{
	ListCell   *lc;

	*pause_s = PAUSE_S;
	switch (nodeTag(stmt))
	{
		case T_AlterDatabaseSetStmt:
			*pause_s = RESTART_PAUSE_S;
			return ((AlterDatabaseSetStmt *) stmt)->dbname;
		case T_DropdbStmt:
			return ((DropdbStmt *) stmt)->dbname;
		case T_RenameStmt:
			if (((RenameStmt *) stmt)->renameType == OBJECT_DATABASE)
				return ((RenameStmt *) stmt)->subname;
			return NULL;
		case T_CreatedbStmt:
			foreach(lc, ((CreatedbStmt *) stmt)->options)
			{
				DefElem    *opt = lfirst_node(DefElem, lc);

				if (strcmp(opt->defname, "template") == 0 && opt->arg != NULL)
					return defGetString(opt);
			}
			return NULL;
		case T_AlterDatabaseStmt:
			foreach(lc, ((AlterDatabaseStmt *) stmt)->options)
				if (strcmp(lfirst_node(DefElem, lc)->defname, "tablespace") == 0)
					return ((AlterDatabaseStmt *) stmt)->dbname;
			return NULL;
		default:
			return NULL;
	}
}

static bool
is_template(Oid db)
{
	HeapTuple	tup = SearchSysCache1(DATABASEOID, ObjectIdGetDatum(db));
	bool		t;

	if (!HeapTupleIsValid(tup))
		return false;
	t = ((Form_pg_database) GETSTRUCT(tup))->datistemplate;
	ReleaseSysCache(tup);
	return t;
}

/*
 * Whether the caller passes the command's own permission check on the
 * database (dbcommands.c), so that a command about to fail with 42501
 * stops no worker: stopping one before that check would let any role
 * that can connect keep a database without launches.
 */
static bool
may_run(Node *stmt, Oid db)
{
	ListCell   *lc;
	List	   *options = NIL;

	if (IsA(stmt, CreatedbStmt))
	{
		if (!have_createdb_privilege() || !(is_template(db) || pg_database_ownercheck(db, GetUserId())))
			return false;
		options = ((CreatedbStmt *) stmt)->options;
	}
	else if (IsA(stmt, RenameStmt) && !have_createdb_privilege())
		return false;
	else if (!pg_database_ownercheck(db, GetUserId()))
		return false;
	else if (IsA(stmt, AlterDatabaseStmt))
		options = ((AlterDatabaseStmt *) stmt)->options;
	/* the options the command checks next: a new owner, a tablespace to create in */
	foreach(lc, options)
	{
		DefElem    *opt = lfirst_node(DefElem, lc);

		if (opt->arg == NULL)
			continue;
		if (strcmp(opt->defname, "owner") == 0 && !superuser() &&
			!is_member_of_role(GetUserId(), get_role_oid(defGetString(opt), true)))
			return false;
		if (strcmp(opt->defname, "tablespace") == 0)
		{
			Oid			spc = get_tablespace_oid(defGetString(opt), true);

			if (!OidIsValid(spc) || pg_tablespace_aclcheck(spc, GetUserId(), ACL_CREATE) != ACLCHECK_OK)
				return false;
		}
	}
	return true;
}

static void
stop_worker(Node *stmt, const char *dbname, int pause_s)
{
	Oid			db = get_database_oid(dbname, true);
	pid_t		pid;
	TimestampTz deadline;

	if (!OidIsValid(db) || !may_run(stmt, db))
		return;
	pid = mx_registry_pause(db, pause_s);
	if (pid == 0)
		return;
	(void) kill(pid, SIGTERM);
	deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), STOP_WAIT_MS);
	while (mx_registry_worker_pid(db) == pid && GetCurrentTimestamp() < deadline)
	{
		CHECK_FOR_INTERRUPTS();
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 20, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}

static void
dbguard_process_utility(PlannedStmt *pstmt, const char *queryString, bool readOnlyTree,
						ProcessUtilityContext context, ParamListInfo params,
						QueryEnvironment *queryEnv, DestReceiver *dest, QueryCompletion *qc)
{
	int			pause_s;
	const char *dbname = database_needed(pstmt->utilityStmt, &pause_s);

	if (dbname != NULL)
		stop_worker(pstmt->utilityStmt, dbname, pause_s);
	if (prev_process_utility)
		prev_process_utility(pstmt, queryString, readOnlyTree, context, params, queryEnv, dest, qc);
	else
		standard_ProcessUtility(pstmt, queryString, readOnlyTree, context, params, queryEnv, dest, qc);
}

void
mx_dbguard_init(void)
{
	prev_process_utility = ProcessUtility_hook;
	ProcessUtility_hook = dbguard_process_utility;
}
