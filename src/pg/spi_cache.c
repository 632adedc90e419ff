/*
 * spi_cache.c — prepared SPI plans for fixed queries (see spi_cache.h).
 */
#include "postgres.h"

#include "executor/spi.h"
#include "utils/guc.h"

#include "privilege.h"
#include "spi_cache.h"

#define MX_SPI_CACHE_SIZE 32

typedef struct cached_plan
{
	const char *sql;
	SPIPlanPtr	plan;
} cached_plan;

static cached_plan cache[MX_SPI_CACHE_SIZE];
static int	ncached = 0;

static SPIPlanPtr
cached_plan_opts(const char *sql, int nargs, Oid *argtypes, int cursor_options)
{
	SPIPlanPtr	plan;
	int			i;

	/*
	 * Every caller pins search_path (privilege.c); one that did not would
	 * resolve these queries' types and operators through its caller's path.
	 */
	if (strcmp(GetConfigOption("search_path", false, false), MX_PINNED_SEARCH_PATH) != 0)
		elog(ERROR, "mixdnn: internal query run without the pinned search_path: %s", sql);

	for (i = 0; i < ncached; i++)
		if (cache[i].sql == sql)
			return cache[i].plan;

	plan = SPI_prepare_cursor(sql, nargs, argtypes, cursor_options);
	if (plan == NULL)
		elog(ERROR, "mixdnn: could not prepare a query (%s): %s",
			 SPI_result_code_string(SPI_result), sql);
	/* A full cache still works, only without keeping the plan. */
	if (ncached == MX_SPI_CACHE_SIZE)
		return plan;
	if (SPI_keepplan(plan) != 0)
		elog(ERROR, "mixdnn: could not keep a prepared query: %s", sql);
	cache[ncached].sql = sql;
	cache[ncached].plan = plan;
	ncached++;
	return plan;
}

SPIPlanPtr
mx_spi_cached_plan(const char *sql, int nargs, Oid *argtypes)
{
	return cached_plan_opts(sql, nargs, argtypes, 0);
}

Portal
mx_spi_open_fast_cursor(const char *sql, int nargs, Oid *argtypes, Datum *values, const char *nulls)
{
	return SPI_cursor_open(NULL, cached_plan_opts(sql, nargs, argtypes, CURSOR_OPT_FAST_PLAN),
						   values, nulls, false);
}

int
mx_spi_execute(const char *sql, int nargs, Oid *argtypes, Datum *values,
			   const char *nulls, bool read_only, long count)
{
	return SPI_execute_plan(mx_spi_cached_plan(sql, nargs, argtypes), values, nulls, read_only, count);
}

void
mx_spi_run(const char *sql, int nargs, Oid *argtypes, Datum *values, int expect, const char *what)
{
	int			rc = mx_spi_execute(sql, nargs, argtypes, values, NULL, false, 0);

	if (rc != expect)
		elog(ERROR, "mixdnn: %s failed (%s): %s", what, SPI_result_code_string(rc), sql);
}

Datum
mx_spi_value(const char *sql, int nargs, Oid *argtypes, Datum *values, bool *isnull, const char *what)
{
	int			rc = mx_spi_execute(sql, nargs, argtypes, values, NULL, false, 1);

	if (rc != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "mixdnn: %s failed (%s, %d rows): %s", what, SPI_result_code_string(rc),
			 (int) SPI_processed, sql);
	return SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, isnull);
}
