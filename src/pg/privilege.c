/*
 * privilege.c — switching to the scheduler's owner and back. An error in
 * between needs no cleanup here: transaction and subtransaction abort
 * restore the user themselves.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "miscadmin.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

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

void
mx_become_owner(mx_saved_user *saved)
{
	GetUserIdAndSecContext(&saved->user, &saved->sec);
	SetUserIdAndSecContext(scheduler_owner(), saved->sec | SECURITY_LOCAL_USERID_CHANGE);
}

void
mx_restore_user(const mx_saved_user *saved)
{
	SetUserIdAndSecContext(saved->user, saved->sec);
}
