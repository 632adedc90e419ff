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

void
mx_become_owner(mx_saved_user *saved)
{
	GetUserIdAndSecContext(&saved->user, &saved->sec);
	saved->nest = mx_pin_search_path();
	mx_bound_lock_waits();
	SetUserIdAndSecContext(scheduler_owner(), saved->sec | SECURITY_LOCAL_USERID_CHANGE);
}

void
mx_restore_user(const mx_saved_user *saved)
{
	mx_unpin_search_path(saved->nest);
	SetUserIdAndSecContext(saved->user, saved->sec);
}
