/*
 * spi_cache.h — the extension's SPI helpers: prepared plans for the fixed
 * queries of rounds, launches and the worker, kept for the life of the
 * backend, so a round does not parse and plan the same statements again
 * every time (docs/performance.md), and the checks of their results.
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
 * mx_spi_execute() of a statement that must return expect (SPI_OK_UPDATE,
 * say); anything else fails with what and the statement.
 */
void		mx_spi_run(const char *sql, int nargs, Oid *argtypes, Datum *values, int expect,
					   const char *what);

/* A query of one row: its first column, through the cache. */
Datum		mx_spi_value(const char *sql, int nargs, Oid *argtypes, Datum *values, bool *isnull,
						 const char *what);

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
