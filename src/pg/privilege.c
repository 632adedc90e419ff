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
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "lock.h"
#include "privilege.h"

static Oid
scheduler_owner(void)
{
	Oid			rel = get_relname_relid("jobs", get_namespace_oid("mixdnn", false));
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
 * The planner settings a session may change for itself, at their defaults:
 * a round runs in the submitting user's backend, holding the scheduler
 * lock, and its queries must not take the user's jit_above_cost = 0 or
 * enable_hashjoin = off with them (a review: 3.4 ms -> 370 ms on a nearly
 * empty cluster, growing with the jobs table, while everyone waits).
 */
static const char *const planner_defaults[][2] = {
	{"jit", "off"},
	{"plan_cache_mode", "auto"},
	{"force_parallel_mode", "off"},
	{"enable_bitmapscan", "on"}, {"enable_gathermerge", "on"}, {"enable_hashagg", "on"},
	{"enable_hashjoin", "on"}, {"enable_incremental_sort", "on"}, {"enable_indexonlyscan", "on"},
	{"enable_indexscan", "on"}, {"enable_material", "on"}, {"enable_memoize", "on"},
	{"enable_mergejoin", "on"}, {"enable_nestloop", "on"}, {"enable_seqscan", "on"},
	{"enable_sort", "on"}, {"enable_tidscan", "on"},
	{"cursor_tuple_fraction", "0.1"}, {"from_collapse_limit", "8"}, {"join_collapse_limit", "8"},
	{"seq_page_cost", "1"}, {"random_page_cost", "4"}, {"cpu_tuple_cost", "0.01"},
	{"cpu_index_tuple_cost", "0.005"}, {"cpu_operator_cost", "0.0025"},
};

static void
pin_planner(void)
{
	for (size_t i = 0; i < lengthof(planner_defaults); i++)
		(void) set_config_option(planner_defaults[i][0], planner_defaults[i][1], PGC_SUSET, PGC_S_SESSION,
								 GUC_ACTION_SAVE, true, 0, false);
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
