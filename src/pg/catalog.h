/*
 * catalog.h — the extension's own relations found by name, without a lock:
 * the library may run against a schema not yet updated (ALTER EXTENSION
 * ... UPDATE comes after the new library), so callers ask first whether a
 * newer relation or column is there.
 */
#ifndef MIXDNN_CATALOG_H
#define MIXDNN_CATALOG_H

#include "postgres.h"

/* mixdnn.<name>'s OID, InvalidOid when there is no such relation (or no schema). */
extern Oid	mx_relation(const char *name);

/* Whether mixdnn.<rel> exists and has column col. */
extern bool mx_has_column(const char *rel, const char *col);

#endif
