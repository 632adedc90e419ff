/*
 * privilege.c — switching to the scheduler's owner and back. An error in
 * between needs no cleanup here: transaction and subtransaction abort
 * restore the user and the settings themselves.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "miscadmin.h"
#include "utils/guc.h"
#include "utils/guc_tables.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "catalog.h"
#include "lock.h"
#include "privilege.h"

static Oid
scheduler_owner(void)
{
	Oid			rel = mx_relation("jobs");
	HeapTuple	tup;
	Oid			owner;

	if (!OidIsValid(rel))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("mixdnn.jobs does not exist"),
				 errhint("Run CREATE EXTENSION mixdnn in this database.")));
	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(rel));
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for relation %u", rel);
	owner = ((Form_pg_class) GETSTRUCT(tup))->relowner;
	ReleaseSysCache(tup);
	return owner;
}

/*
 * Only pg_catalog, then the session's temporary schema, which is never
 * searched for functions and operators and, listed last, cannot shadow a
 * type or relation of pg_catalog; everything of the extension is named with
 * its schema. The plan cache re-analyzes a saved plan whose search_path
 * differs, so a plan prepared under the caller's path is never reused here.
 */
int
mx_pin_search_path(void)
{
	int			nest = NewGUCNestLevel();

	(void) set_config_option("search_path", MX_PINNED_SEARCH_PATH, PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	return nest;
}

void
mx_unpin_search_path(int nest)
{
	AtEOXact_GUC(false, nest);
}

/*
 * Every planner setting a user changed (for the session, the client, its
 * role with ALTER ROLE, or a database it owns), back to its built-in
 * default for the round: a round runs in the submitting user's backend,
 * holding the scheduler lock, and its queries must not take the user's
 * jit_above_cost = 0, enable_hashjoin = off or geqo_threshold = 2 with
 * huge pools with them (reviews: 3.4 ms -> 370 ms, and 91 s, while
 * everyone waits). What the server's configuration set stays; a setting
 * nobody changed costs nothing. The planner's groups of settings, and
 * work_mem.
 */
static bool
planner_setting(const struct config_generic *g)
{
	return g->context == PGC_USERSET && g->source >= PGC_S_DATABASE &&
		(g->group == QUERY_TUNING_METHOD || g->group == QUERY_TUNING_COST ||
		 g->group == QUERY_TUNING_GEQO || g->group == QUERY_TUNING_OTHER ||
		 strcmp(g->name, "work_mem") == 0 || strcmp(g->name, "hash_mem_multiplier") == 0 ||
		 strcmp(g->name, "force_parallel_mode") == 0);
}

/* The built-in default of a setting as text, or NULL (a string without one). */
static const char *
boot_value(struct config_generic *g, char *buf, size_t len)
{
	switch (g->vartype)
	{
		case PGC_BOOL:
			return ((struct config_bool *) g)->boot_val ? "on" : "off";
		case PGC_INT:
			snprintf(buf, len, "%d", ((struct config_int *) g)->boot_val);
			return buf;
		case PGC_REAL:
			snprintf(buf, len, "%.17g", ((struct config_real *) g)->boot_val);
			return buf;
		case PGC_STRING:
			return ((struct config_string *) g)->boot_val;
		case PGC_ENUM:
			return config_enum_lookup_by_value((struct config_enum *) g, ((struct config_enum *) g)->boot_val);
	}
	return NULL;
}

static void
pin_planner(void)
{
	struct config_generic **vars = get_guc_variables();
	int			n = GetNumConfigOptions();
	char		buf[64];

	for (int i = 0; i < n; i++)
	{
		const char *v;

		if (!planner_setting(vars[i]) || (v = boot_value(vars[i], buf, sizeof(buf))) == NULL)
			continue;
		/* DEBUG1 on a refusal: the round goes on with the session's value */
		(void) set_config_option(vars[i]->name, v, PGC_SUSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, DEBUG1, false);
	}
}

void
mx_become_owner(mx_saved_user *saved)
{
	GetUserIdAndSecContext(&saved->user, &saved->sec);
	saved->nest = mx_pin_search_path();
	pin_planner();
	mx_bound_lock_waits();
	SetUserIdAndSecContext(scheduler_owner(), saved->sec | SECURITY_LOCAL_USERID_CHANGE);
}

void
mx_restore_user(const mx_saved_user *saved)
{
	mx_unpin_search_path(saved->nest);
	SetUserIdAndSecContext(saved->user, saved->sec);
}
