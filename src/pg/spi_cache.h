/*
 * spi_cache.h — prepared SPI plans for the fixed queries of rounds and
 * launches, kept for the life of the backend, so a round does not parse and
 * plan the same statements again every time (docs/performance.md).
 */
#ifndef MIXDNN_SPI_CACHE_H
#define MIXDNN_SPI_CACHE_H

#include "postgres.h"
#include "executor/spi.h"

/*
 * The saved plan of sql (a string literal: its address is the key) with
 * these argument types; prepared on first use. The caller is connected to
 * SPI and has pinned search_path (privilege.c), else this fails. Plans are
 * revalidated by PostgreSQL's plan cache after DDL, e.g. a DROP and CREATE
 * EXTENSION in the same backend.
 */
SPIPlanPtr	mx_spi_cached_plan(const char *sql, int nargs, Oid *argtypes);

/* SPI_execute_with_args() through the cache: same arguments, same result. */
int			mx_spi_execute(const char *sql, int nargs, Oid *argtypes, Datum *values,
						   const char *nulls, bool read_only, long count);

/*
 * A cursor over sql (a string literal, as above), planned for its first
 * rows: an ORDER BY that an index delivers is read in index order and
 * stops where the caller stops fetching, even when the table's statistics
 * are stale (e.g. right after a bulk INSERT). Close it with
 * SPI_cursor_close().
 */
Portal		mx_spi_open_fast_cursor(const char *sql, int nargs, Oid *argtypes, Datum *values,
									const char *nulls);

#endif
