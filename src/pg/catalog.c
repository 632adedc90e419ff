/*
 * catalog.c — the extension's own relations found by name (catalog.h).
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "utils/lsyscache.h"

#include "catalog.h"

Oid
mx_relation(const char *name)
{
	Oid			schema = get_namespace_oid("mixdnn", true);

	return OidIsValid(schema) ? get_relname_relid(name, schema) : InvalidOid;
}

bool
mx_has_column(const char *rel, const char *col)
{
	Oid			oid = mx_relation(rel);

	return OidIsValid(oid) && get_attnum(oid, col) != InvalidAttrNumber;
}
