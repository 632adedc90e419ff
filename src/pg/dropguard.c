/*
 * dropguard.c — DROP EXTENSION mixdnn (or DROP SCHEMA mixdnn CASCADE,
 * DROP OWNED BY the role that owns them, or a DROP EXTENSION ... CASCADE
 * that reaches one of its members) with
 * jobs launching or running would leave their processes running on the
 * nodes with nobody to report to. The event trigger mixdnn._guard_drop()
 * refuses such a drop; a superuser forces it with SET mixdnn.force_drop =
 * on, and then every launcher is told to stop those jobs (the mixdnn_cancel
 * notices of a cancel, sent at commit). Written in C because only the
 * parse tree tells which extension or schema a DROP names; an event
 * trigger works without shared_preload_libraries.
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "commands/event_trigger.h"
#include "commands/extension.h"
#include "miscadmin.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "nodes/parsenodes.h"
#include "nodes/value.h"
#include "catalog/pg_type.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"

#include "guc.h"

PG_FUNCTION_INFO_V1(mixdnn_guard_drop);

/* Whether the DROP names extension or schema mixdnn. */
static bool
drops_mixdnn(DropStmt *stmt)
{
	ListCell   *lc;

	if (stmt->removeType != OBJECT_EXTENSION && stmt->removeType != OBJECT_SCHEMA)
		return false;
	foreach(lc, stmt->objects)
	{
		Node	   *name = lfirst(lc);

		if (IsA(name, String) && strcmp(strVal(name), "mixdnn") == 0)
			return true;
	}
	return false;
}

/*
 * Whether the user may run this drop at all, as far as PostgreSQL checks
 * after this trigger: the owner of what a DROP names, privileges of the
 * roles of a DROP OWNED BY. The guard runs first, with the dropper's
 * rights: for one who may not drop mixdnn it would answer with the active
 * jobs she can see, or fail on a table she may not read, where PostgreSQL
 * says "must be owner". Not for a cascade from another object: PostgreSQL
 * drops dependents whoever owns them.
 */
static bool
dropper_may(Node *parsetree)
{
	if (IsA(parsetree, DropStmt) && drops_mixdnn((DropStmt *) parsetree))
	{
		DropStmt   *stmt = (DropStmt *) parsetree;
		Oid			oid;

		if (stmt->removeType == OBJECT_EXTENSION)
			return !OidIsValid(oid = get_extension_oid("mixdnn", true)) ||
				pg_extension_ownercheck(oid, GetUserId());
		return !OidIsValid(oid = get_namespace_oid("mixdnn", true)) ||
			pg_namespace_ownercheck(oid, GetUserId());
	}
	if (IsA(parsetree, DropOwnedStmt))
	{
		ListCell   *lc;

		foreach(lc, ((DropOwnedStmt *) parsetree)->roles)
		{
			Oid			role = get_rolespec_oid(lfirst(lc), true);

			if (OidIsValid(role) && !has_privs_of_role(GetUserId(), role))
				return false;
		}
	}
	return true;
}

/*
 * Whether DROP OWNED BY names the role that owns the extension or its
 * schema: it drops them, and the jobs' history, as DROP EXTENSION does.
 * Connected to SPI.
 */
static bool
drop_owned_takes_mixdnn(DropOwnedStmt *stmt)
{
	ListCell   *lc;
	Datum	   *roles = palloc(sizeof(Datum) * (list_length(stmt->roles) + 1));
	int			n = 0;

	foreach(lc, stmt->roles)
	{
		Oid			role = get_rolespec_oid(lfirst_node(RoleSpec, lc), true);

		if (OidIsValid(role))
			roles[n++] = ObjectIdGetDatum(role);
	}
	if (n == 0)
		return false;
	if (SPI_execute_with_args("SELECT EXISTS (SELECT FROM pg_catalog.pg_extension e "
							  "  WHERE e.extname = 'mixdnn' AND e.extowner = ANY ($1)) "
							  "OR EXISTS (SELECT FROM pg_catalog.pg_namespace s "
							  "  WHERE s.nspname = 'mixdnn' AND s.nspowner = ANY ($1))",
							  1, (Oid[]) {OIDARRAYOID},
							  (Datum[]) {PointerGetDatum(construct_array(roles, n, OIDOID, sizeof(Oid), true, TYPALIGN_INT))},
							  NULL, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "mixdnn: could not read the extension's owner");
	return DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &(bool) {false}));
}

/*
 * Whether DROP EXTENSION ... CASCADE reaches mixdnn: one of its members
 * depends on the extension or one of its members (DROP EXTENSION plpgsql
 * CASCADE takes the language, every function written in it, and so the
 * extension: "drop cascades to extension mixdnn"). One step of pg_depend:
 * a longer chain, or DROP OWNED BY the owner of such an object, is not
 * seen. (DROP LANGUAGE plpgsql is refused by PostgreSQL: the extension
 * plpgsql requires it.) Connected to SPI.
 */
static bool
cascade_reaches_mixdnn(DropStmt *stmt)
{
	ListCell   *lc;
	Datum	   *names;
	int			n = 0;

	if (stmt->behavior != DROP_CASCADE || stmt->removeType != OBJECT_EXTENSION)
		return false;
	names = palloc(sizeof(Datum) * (list_length(stmt->objects) + 1));
	foreach(lc, stmt->objects)
		if (IsA(lfirst(lc), String))
			names[n++] = CStringGetTextDatum(strVal(lfirst(lc)));
	if (n == 0)
		return false;
	if (SPI_execute_with_args("WITH dropped AS ("
							  "  SELECT 'pg_catalog.pg_extension'::pg_catalog.regclass AS classid, e.oid AS objid "
							  "  FROM pg_catalog.pg_extension e WHERE e.extname = ANY ($1) "
							  "  UNION ALL SELECT x.classid, x.objid FROM pg_catalog.pg_depend x "
							  "  JOIN pg_catalog.pg_extension e ON x.refobjid = e.oid "
							  "  WHERE e.extname = ANY ($1) AND x.deptype = 'e' "
							  "    AND x.refclassid = 'pg_catalog.pg_extension'::pg_catalog.regclass) "
							  "SELECT EXISTS (SELECT FROM pg_catalog.pg_depend m "
							  "  JOIN pg_catalog.pg_extension me ON me.oid = m.refobjid AND me.extname = 'mixdnn' "
							  "  JOIN pg_catalog.pg_depend d ON d.classid = m.classid AND d.objid = m.objid "
							  "  JOIN dropped ON dropped.classid = d.refclassid AND dropped.objid = d.refobjid "
							  "  WHERE m.deptype = 'e' AND m.refclassid = 'pg_catalog.pg_extension'::pg_catalog.regclass)",
							  1, (Oid[]) {TEXTARRAYOID},
							  (Datum[]) {PointerGetDatum(construct_array(names, n, TEXTOID, -1, false, TYPALIGN_INT))},
							  NULL, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "mixdnn: could not read what the drop cascades to");
	return DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &(bool) {false}));
}

/* The active jobs, as "3, 5, 8" (NULL when none); count in *n. */
static char *
active_jobs(int *n)
{
	bool		isnull;
	Datum		v;
	char	   *ids = NULL;

	if (SPI_execute("SELECT count(*)::int, string_agg(job_id::text, ', ' ORDER BY job_id) "
					"FROM mixdnn.jobs WHERE status IN ('launching', 'running')",
					true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "mixdnn: could not count the active jobs");
	*n = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	v = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull);
	if (!isnull)
		ids = TextDatumGetCString(v);
	return ids;
}

/* A forced drop: the launchers stop every active part, as for a cancel. */
static void
notify_launchers(void)
{
	if (SPI_execute("SELECT pg_catalog.pg_notify('mixdnn_cancel', "
					"pg_catalog.json_build_object('job_id', p.job_id, 'node', p.node)::text) "
					"FROM mixdnn.job_parts p JOIN mixdnn.jobs j ON j.job_id = p.job_id AND j.attempt = p.attempt "
					"WHERE p.state IN ('launching', 'running') AND j.status IN ('launching', 'running') "
					/* a full queue would fail the DROP; the launchers' heartbeats find out anyway */
					"AND pg_catalog.pg_notification_queue_usage() < 0.5",
					false, 0) != SPI_OK_SELECT)
		elog(ERROR, "mixdnn: could not notify the launchers");
}

Datum
mixdnn_guard_drop(PG_FUNCTION_ARGS)
{
	EventTriggerData *trig;
	int			n;
	char	   *ids;
	int			save_nestlevel;

	if (!CALLED_AS_EVENT_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("mixdnn._guard_drop() must be called as an event trigger")));
	trig = (EventTriggerData *) fcinfo->context;
	if (trig->parsetree == NULL || !(IsA(trig->parsetree, DropOwnedStmt) || IsA(trig->parsetree, DropStmt)))
		PG_RETURN_NULL();
	/* the common drops of other objects leave at once, before any query */
	if (IsA(trig->parsetree, DropStmt) && !drops_mixdnn((DropStmt *) trig->parsetree)
		&& ((DropStmt *) trig->parsetree)->behavior != DROP_CASCADE)
		PG_RETURN_NULL();
	/* PostgreSQL refuses it next, in its own words */
	if (!dropper_may(trig->parsetree))
		PG_RETURN_NULL();

	/* The queries below run with the dropper's rights: resolve names in pg_catalog only. */
	save_nestlevel = NewGUCNestLevel();
	(void) set_config_option("search_path", "pg_catalog, pg_temp", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "mixdnn: SPI_connect failed");
	/* The schema is gone already when only the extension's entry is left. */
	if ((IsA(trig->parsetree, DropOwnedStmt) && !drop_owned_takes_mixdnn((DropOwnedStmt *) trig->parsetree))
		|| (IsA(trig->parsetree, DropStmt) && !drops_mixdnn((DropStmt *) trig->parsetree)
			&& !cascade_reaches_mixdnn((DropStmt *) trig->parsetree))
		|| SPI_execute("SELECT FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace s ON s.oid = c.relnamespace "
					"WHERE s.nspname = 'mixdnn' AND c.relname = 'jobs'", true, 1) != SPI_OK_SELECT
		|| SPI_processed == 0)
	{
		SPI_finish();
		AtEOXact_GUC(true, save_nestlevel);
		PG_RETURN_NULL();
	}
	ids = active_jobs(&n);
	if (n > 0 && !mx_guc_force_drop)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_IN_USE),
				 errmsg("cannot drop mixdnn: %d job%s launching or running", n, n == 1 ? " is" : "s are"),
				 errdetail("Active jobs: %s. Their processes would go on running on the GPU nodes with nobody to report to.", ids),
				 errhint("Cancel them first (UPDATE mixdnn.jobs SET status = 'cancelled' WHERE status IN ('launching', 'running')), "
						 "or, as a superuser, SET mixdnn.force_drop = on to drop anyway: the launchers then stop them.")));
	if (n > 0)
	{
		notify_launchers();
		ereport(WARNING,
				(errmsg("dropping mixdnn with %d active job%s: %s", n, n == 1 ? "" : "s", ids),
				 errdetail("mixdnn.force_drop is on; the launchers are told to stop them when this transaction commits.")));
	}
	SPI_finish();
	AtEOXact_GUC(true, save_nestlevel);
	PG_RETURN_NULL();
}
