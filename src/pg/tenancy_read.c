/*
 * tenancy_read.c — owners, shares, quotas and usage history into the
 * snapshot (tenancy_read.h; the rule that uses them is src/core/tenancy.c).
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "clock.h"
#include "spi_cache.h"
#include "fairshare.h"
#include "tenancy.h"
#include "tenancy_read.h"

/* History older than this many half-lives weighs under 0.1 %: not read. */
#define HISTORY_HALF_LIVES 10.0

static int
cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

static int
find_owner(const mx_snapshot *s, const char *name)
{
	int			lo = 0,
				hi = s->nowners - 1;

	while (name != NULL && lo <= hi)
	{
		int			mid = (lo + hi) / 2;
		int			c = strcmp(s->owners[mid].name, name);

		if (c == 0)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

/* The distinct owner names of the jobs and parts, sorted with strcmp. */
static void
collect_owners(mx_db_snapshot *d)
{
	mx_snapshot *s = &d->snap;
	char	  **names = palloc(sizeof(char *) * Max(s->njobs + s->nparts, 1));
	int			n = 0,
				i,
				k;

	for (i = 0; i < s->njobs; i++)
		if (d->rows[i].owner)
			names[n++] = d->rows[i].owner;
	for (i = 0; i < s->nparts; i++)
		if (d->part_owners && d->part_owners[i])
			names[n++] = d->part_owners[i];
	qsort(names, n, sizeof(char *), cmp_name);
	s->owners = palloc0(sizeof(mx_owner) * Max(n, 1));
	s->nowners = 0;
	for (i = 0; i < n; i++)
	{
		mx_owner   *w;

		if (s->nowners > 0 && strcmp(s->owners[s->nowners - 1].name, names[i]) == 0)
			continue;
		w = &s->owners[s->nowners++];
		strlcpy(w->name, names[i], MX_NAME_LEN);
		w->shares = 1.0;
		w->quota_all = -1;
		for (k = 0; k < MX_MAX_TYPES; k++)
			w->quota[k] = -1;
	}
	for (i = 0; i < s->njobs; i++)
		s->jobs[i].owner = find_owner(s, d->rows[i].owner);
	for (i = 0; i < s->nparts; i++)
		s->parts[i].owner = find_owner(s, d->part_owners ? d->part_owners[i] : NULL);
}

static Datum
owner_array(const mx_snapshot *s)
{
	Datum	   *v = palloc(sizeof(Datum) * Max(s->nowners, 1));
	int			i;

	for (i = 0; i < s->nowners; i++)
		v[i] = CStringGetTextDatum(s->owners[i].name);
	return PointerGetDatum(construct_array(v, s->nowners, TEXTOID, -1, false, TYPALIGN_INT));
}

static void
run(const char *sql, int nargs, Oid *types, Datum *args)
{
	int			rc = mx_spi_execute(sql, nargs, types, args, NULL, false, 0);

	if (rc != SPI_OK_SELECT)
		elog(ERROR, "mixdnn: tenancy query failed (%s): %s", SPI_result_code_string(rc), sql);
}

static Datum
col(int row, int c, bool *isnull)
{
	return SPI_getbinval(SPI_tuptable->vals[row], SPI_tuptable->tupdesc, c, isnull);
}

static void
read_shares(mx_snapshot *s, Datum owners)
{
	uint64		i;
	bool		isnull;

	run("SELECT role::text, shares FROM mixdnn.shares WHERE role::text = ANY ($1)",
		1, (Oid[]) {TEXTARRAYOID}, &owners);
	for (i = 0; i < SPI_processed; i++)
	{
		int			ow = find_owner(s, TextDatumGetCString(col(i, 1, &isnull)));

		if (ow >= 0)
			s->owners[ow].shares = DatumGetInt32(col(i, 2, &isnull));
	}
}

/*
 * Every quota row binding each owner (its own or a group's); the strictest
 * wins, and when it lends, the strictest row that does not lend bounds the
 * borrowing. pg_has_role() is true of a superuser for every role, so a
 * superuser is bound only by the rows naming it.
 */
static void
read_quotas(mx_snapshot *s, Datum owners)
{
	uint64		i;
	bool		isnull;

	run("SELECT u.rolname::text, q.gpu_type, q.max_gpus, q.borrow "
		"FROM pg_catalog.pg_roles u "
		"JOIN mixdnn.quotas q ON q.max_gpus IS NOT NULL "
		"JOIN pg_catalog.pg_roles g ON g.rolname = q.role "
		"WHERE u.rolname::text = ANY ($1) "
		"  AND (u.oid = g.oid OR (NOT u.rolsuper AND pg_catalog.pg_has_role(u.oid, g.oid, 'MEMBER')))",
		1, (Oid[]) {TEXTARRAYOID}, &owners);
	for (i = 0; i < SPI_processed; i++)
	{
		int			ow = find_owner(s, TextDatumGetCString(col(i, 1, &isnull)));
		bool		all_types;
		Datum		type = col(i, 2, &all_types);
		int			t = all_types ? -1 : mx_type_index(s, TextDatumGetCString(type));
		int			max = DatumGetInt32(col(i, 3, &isnull));
		bool		borrow = DatumGetBool(col(i, 4, &isnull));
		mx_owner   *w;

		/* A row naming a type deleted since binds nothing. */
		if (ow < 0 || (!all_types && t < 0))
			continue;
		w = &s->owners[ow];
		/* The strictest row that does not lend stops borrowing (0: none). */
		if (!borrow && max > 0)
		{
			int		   *limit = t < 0 ? &w->borrow_limit_all : &w->borrow_limit[t];

			if (*limit == 0 || max < *limit)
				*limit = max;
		}
		if (t < 0)
		{
			if (w->quota_all < 0 || max < w->quota_all)
				w->borrow_all = borrow;
			else if (max == w->quota_all)
				w->borrow_all = w->borrow_all && borrow;
			if (w->quota_all < 0 || max <= w->quota_all)
				w->quota_all = max;
			continue;
		}
		if (w->quota[t] < 0 || max < w->quota[t] || (max == w->quota[t] && !borrow))
			w->borrow = borrow ? (w->borrow | ((uint64_t) 1 << t)) : (w->borrow & ~((uint64_t) 1 << t));
		if (w->quota[t] < 0 || max < w->quota[t])
			w->quota[t] = max;
	}
}

/*
 * Speed-weighted GPU-seconds of each owner's parts since they were claimed,
 * decayed (mx_decayed_usage). A part lost without a finish counts until its
 * lease ran out. A part counts at the type it launched on, whatever became
 * of its node since, at that type's speed now; one whose type is unknown
 * (NULL) or deleted since counts nothing.
 */
static void
read_usage(mx_snapshot *s, Datum owners, double half_life_s)
{
	uint64		i;
	bool		isnull;
	Datum		args[2];

	args[0] = owners;
	args[1] = Float8GetDatum(s->now - HISTORY_HALF_LIVES * half_life_s);
	run("SELECT j.owner::text, p.gpus * t.speed, extract(epoch FROM p.claimed_at)::float8, "
		"       extract(epoch FROM coalesce(p.finished_at, CASE WHEN p.state IN ('launching', 'running') "
		"                                   THEN NULL ELSE p.lease_until END))::float8 "
		"FROM mixdnn.job_parts p JOIN mixdnn.jobs j ON j.job_id = p.job_id "
		"JOIN mixdnn.gpu_types t ON t.gpu_type = p.gpu_type "
		"WHERE j.owner::text = ANY ($1) AND p.claimed_at IS NOT NULL "
		"  AND (p.finished_at IS NULL OR extract(epoch FROM p.finished_at) > $2)",
		2, (Oid[]) {TEXTARRAYOID, FLOAT8OID}, args);
	for (i = 0; i < SPI_processed; i++)
	{
		int			ow = find_owner(s, TextDatumGetCString(col(i, 1, &isnull)));
		double		rate = DatumGetFloat8(col(i, 2, &isnull));
		double		from = DatumGetFloat8(col(i, 3, &isnull));
		Datum		to = col(i, 4, &isnull);

		if (ow >= 0)
			s->owners[ow].usage_s += mx_decayed_usage(rate, from, isnull ? s->now : DatumGetFloat8(to),
													  s->now, half_life_s);
	}
}

/*
 * The library is upgraded before the schema (ALTER EXTENSION ... UPDATE
 * comes later): a 0.1.0 schema has no quotas and no shares, so no owners.
 */
static bool
tables_exist(void)
{
	bool		isnull;

	run("SELECT pg_catalog.to_regclass('mixdnn.quotas') IS NOT NULL "
		"AND pg_catalog.to_regclass('mixdnn.shares') IS NOT NULL", 0, NULL, NULL);
	return SPI_processed == 1 && DatumGetBool(col(0, 1, &isnull));
}

bool
mx_any_gpu_quota(void)
{
	bool		isnull;

	if (!tables_exist())
		return false;
	run("SELECT EXISTS (SELECT FROM mixdnn.quotas WHERE max_gpus IS NOT NULL)", 0, NULL, NULL);
	return SPI_processed == 1 && DatumGetBool(col(0, 1, &isnull));
}

void
mx_read_owners(mx_db_snapshot *d, const mx_options *o)
{
	mx_snapshot *s = &d->snap;
	Datum		owners;

	s->nowners = 0;
	s->owners = NULL;
	if (!tables_exist())
		return;
	collect_owners(d);
	if (s->nowners == 0)
		return;
	owners = owner_array(s);
	read_shares(s, owners);
	read_quotas(s, owners);
	/* Only fair share weighs usage: without it a round reads no history. */
	if (o->fair_share)
		read_usage(s, owners, o->fair_share_half_life_s);
}
