/*
 * snapshot_read.c — reads the cluster, running and waiting jobs into the
 * core's mx_snapshot. Names are sorted in "C" collation so that look-ups can
 * use strcmp.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"

#include "clock.h"
#include "profile_read.h"
#include "snapshot_read.h"
#include "spi_cache.h"

/*
 * Not read-only: each query then sees the writes made earlier in this
 * transaction, even by the statement whose trigger runs the round, and
 * other transactions' commits (no writer can commit while we hold the
 * scheduler lock, so the reads agree with each other).
 */
static void
spi_run(const char *sql)
{
	mx_spi_run(sql, 0, NULL, NULL, SPI_OK_SELECT, "snapshot query");
}

static bool
col_isnull(HeapTuple t, int col)
{
	bool		isnull;

	(void) SPI_getbinval(t, SPI_tuptable->tupdesc, col, &isnull);
	return isnull;
}

static Datum
col(HeapTuple t, int col)
{
	bool		isnull;

	return SPI_getbinval(t, SPI_tuptable->tupdesc, col, &isnull);
}

/* Copy a text column into a fixed-size name buffer. */
static void
col_name(HeapTuple t, int c, char *dst)
{
	char	   *v = TextDatumGetCString(col(t, c));

	strlcpy(dst, v, MX_NAME_LEN);
}

/*
 * Binary search by name over an array whose elements start with their
 * name (mx_node, mx_gpu_type), sorted with strcmp.
 */
static int
find_name(const void *array, size_t stride, int n, const char *name)
{
	int			lo = 0,
				hi = n - 1;

	while (lo <= hi)
	{
		int			mid = (lo + hi) / 2;
		int			c = strcmp((const char *) array + (size_t) mid * stride, name);

		if (c == 0)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

static int
find_node(const mx_snapshot *s, const char *name)
{
	StaticAssertStmt(offsetof(mx_node, name) == 0, "mx_node must start with its name");
	return find_name(s->nodes, sizeof(mx_node), s->nnodes, name);
}

static int
find_type(const mx_snapshot *s, const char *name)
{
	StaticAssertStmt(offsetof(mx_gpu_type, name) == 0, "mx_gpu_type must start with its name");
	return find_name(s->types, sizeof(mx_gpu_type), s->ntypes, name);
}

void
mx_read_cluster(mx_snapshot *s, TimestampTz now)
{
	uint64		i;

	memset(s, 0, sizeof(*s));
	s->now = mx_ts_to_epoch(now);

	spi_run("SELECT gpu_type, speed FROM mixdnn.gpu_types ORDER BY gpu_type COLLATE \"C\"");
	if (SPI_processed > MX_MAX_TYPES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("mixdnn supports at most %d gpu types, %llu are registered",
						MX_MAX_TYPES, (unsigned long long) SPI_processed)));
	s->ntypes = (int) SPI_processed;
	s->types = palloc0(sizeof(mx_gpu_type) * Max(s->ntypes, 1));
	for (i = 0; i < SPI_processed; i++)
	{
		HeapTuple	t = SPI_tuptable->vals[i];

		col_name(t, 1, s->types[i].name);
		s->types[i].speed = DatumGetFloat8(col(t, 2));
	}

	/* A node whose launcher lost a lease takes no new jobs, as if draining. */
	spi_run("SELECT node, gpu_type, gpus, "
			"       CASE WHEN status = 'up' AND unreachable_since IS NOT NULL THEN 'draining' ELSE status END "
			"FROM mixdnn.gpu_nodes ORDER BY node COLLATE \"C\"");
	s->nnodes = (int) SPI_processed;
	s->nodes = palloc0(sizeof(mx_node) * Max(s->nnodes, 1));
	for (i = 0; i < SPI_processed; i++)
	{
		HeapTuple	t = SPI_tuptable->vals[i];
		mx_node    *n = &s->nodes[i];
		char	   *type = TextDatumGetCString(col(t, 2));
		char	   *status = TextDatumGetCString(col(t, 4));

		col_name(t, 1, n->name);
		n->type = find_type(s, type);
		n->gpus = DatumGetInt32(col(t, 3));
		/* The table's CHECK admits no other status; were one there, the node takes nothing. */
		if (mx_node_status_parse(status, &n->status) < 0)
			n->status = MX_NODE_DOWN;
	}

	spi_run("SELECT node, gpu_index FROM mixdnn.gpu_holds");
	for (i = 0; i < SPI_processed; i++)
	{
		HeapTuple	t = SPI_tuptable->vals[i];
		int			n = find_node(s, TextDatumGetCString(col(t, 1)));
		int			idx = DatumGetInt32(col(t, 2));

		if (n >= 0 && idx >= 0 && idx < MX_MAX_NODE_GPUS)
			s->nodes[n].busy |= UINT64CONST(1) << idx;
	}
}

/* The measured profiles of the models of the jobs read. */
static void
read_profiles(mx_db_snapshot *d)
{
	mx_snapshot *s = &d->snap;
	int			i,
				nm = 0;
	Datum	   *models = palloc(sizeof(Datum) * Max(s->njobs, 1));

	for (i = 0; i < s->njobs; i++)
		if (d->rows[i].model)
			models[nm++] = CStringGetTextDatum(d->rows[i].model);
	mx_read_profiles(s, models, nm);
}

void
mx_read_running(mx_db_snapshot *d)
{
	mx_snapshot *s = &d->snap;
	uint64		i;
	int64		last_job = 0;

	spi_run("SELECT p.job_id, p.node, p.gpus, j.planned_end, j.owner::text "
			"FROM mixdnn.job_parts p JOIN mixdnn.jobs j ON j.job_id = p.job_id AND j.attempt = p.attempt "
			"WHERE j.status IN ('launching', 'running') AND p.state IN ('launching', 'running') "
			"ORDER BY p.job_id, p.node_rank");
	s->nparts = 0;
	s->parts = palloc0(sizeof(mx_running_part) * Max(SPI_processed, 1));
	d->part_owners = palloc0(sizeof(char *) * Max(SPI_processed, 1));
	d->running_jobs = 0;
	for (i = 0; i < SPI_processed; i++)
	{
		HeapTuple	t = SPI_tuptable->vals[i];
		mx_running_part *rp = &s->parts[s->nparts];

		rp->job_id = DatumGetInt64(col(t, 1));
		rp->node = find_node(s, TextDatumGetCString(col(t, 2)));
		rp->gpus = DatumGetInt32(col(t, 3));
		/* No end known: the planner's overrun rule applies. */
		rp->expected_end = col_isnull(t, 4) ? s->now : mx_ts_to_epoch(DatumGetTimestampTz(col(t, 4)));
		if (rp->job_id != last_job)
			d->running_jobs++;
		last_job = rp->job_id;
		if (rp->node >= 0)
			d->part_owners[s->nparts++] = TextDatumGetCString(col(t, 5));
	}
}

/*
 * The allowed types of a soft job as a mask. A list whose every type has
 * been deleted means none, never all (NULL alone means every type): the
 * job is refused with a reason naming them.
 */
static uint64_t
allowed_mask(const mx_snapshot *s, HeapTuple t, int c, const char **refuse)
{
	ArrayType  *arr;
	Datum	   *elems;
	bool	   *nulls;
	int			n,
				i;
	uint64_t	mask = 0;
	StringInfoData gone;

	if (col_isnull(t, c))
		return s->ntypes >= 64 ? ~UINT64CONST(0) : ((UINT64CONST(1) << s->ntypes) - 1);
	arr = DatumGetArrayTypeP(col(t, c));
	deconstruct_array(arr, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
	initStringInfo(&gone);
	for (i = 0; i < n; i++)
	{
		char	   *name;
		int			k;

		if (nulls[i])
			continue;
		name = TextDatumGetCString(elems[i]);
		k = find_type(s, name);
		/* A type deleted since submission is simply no longer allowed. */
		if (k >= 0)
			mask |= UINT64CONST(1) << k;
		else
			appendStringInfo(&gone, "%s%s", gone.len ? ", " : "", name);
	}
	if (mask == 0)
		*refuse = psprintf("none of its allowed GPU types exists any more (%s)", gone.data);
	return mask;
}

/*
 * The waiting jobs in queue order (priority, then submission, then job_id:
 * the index jobs_queue_idx). A round fetches only the first `horizon` of
 * them, so it costs the same whatever the queue behind them.
 */
#define WAITING_COLUMNS \
	"SELECT job_id, model_class, gpu_type, gpus, min_gpus, max_gpus, allowed_types, " \
	"       extract(epoch FROM duration)::float8, priority, submitted_at, model, " \
	"       status, planned_gpu_type, planned_gpus, planned_start, planned_end, reason, " \
	"       CASE WHEN attempt > 0 THEN " \
	"         (SELECT e.reason FROM mixdnn.job_events e WHERE e.job_id = j.job_id " \
	"            AND e.new_status = 'planned' AND e.old_status IN ('launching', 'running') " \
	"          ORDER BY e.event_id DESC LIMIT 1) END, " \
	"       owner::text " \
	"FROM mixdnn.jobs j WHERE status IN ('pending', 'planned') "

static const char *const waiting_sql =
	WAITING_COLUMNS "ORDER BY priority DESC, submitted_at, job_id";

static const char *const waiting_job_sql = WAITING_COLUMNS "AND job_id = $1";

static void
read_job(mx_snapshot *s, HeapTuple t, mx_job *j, mx_job_row *r)
{
	j->job_id = DatumGetInt64(col(t, 1));
	j->cls = strcmp(TextDatumGetCString(col(t, 2)), "hard") == 0 ? MX_HARD : MX_SOFT;
	j->ref_type = col_isnull(t, 3) ? -1 : find_type(s, TextDatumGetCString(col(t, 3)));
	if (!col_isnull(t, 3) && j->ref_type < 0)
		j->refuse = psprintf("its GPU type %s no longer exists", TextDatumGetCString(col(t, 3)));
	j->ref_gpus = DatumGetInt32(col(t, 4));
	j->min_gpus = col_isnull(t, 5) ? j->ref_gpus : DatumGetInt32(col(t, 5));
	j->max_gpus = col_isnull(t, 6) ? j->ref_gpus : DatumGetInt32(col(t, 6));
	if (j->cls == MX_HARD)
		j->allowed = j->ref_type >= 0 ? UINT64CONST(1) << j->ref_type : 0;
	else
		j->allowed = allowed_mask(s, t, 7, &j->refuse);
	j->duration = DatumGetFloat8(col(t, 8));
	j->priority = DatumGetInt32(col(t, 9));
	j->submitted = mx_ts_to_epoch(DatumGetTimestampTz(col(t, 10)));
	j->profile = -1;
	r->model = col_isnull(t, 11) ? NULL : TextDatumGetCString(col(t, 11));

	r->planned = strcmp(TextDatumGetCString(col(t, 12)), "planned") == 0;
	r->gpu_type = col_isnull(t, 13) ? NULL : TextDatumGetCString(col(t, 13));
	r->gpus = col_isnull(t, 14) ? 0 : DatumGetInt32(col(t, 14));
	r->has_start = !col_isnull(t, 15);
	r->start = r->has_start ? DatumGetTimestampTz(col(t, 15)) : 0;
	r->end = col_isnull(t, 16) ? 0 : DatumGetTimestampTz(col(t, 16));
	r->reason = col_isnull(t, 17) ? NULL : TextDatumGetCString(col(t, 17));
	r->requeue_reason = col_isnull(t, 18) ? NULL : TextDatumGetCString(col(t, 18));
	r->owner = TextDatumGetCString(col(t, 19));

	j->prev_type = r->gpu_type ? find_type(s, r->gpu_type) : -1;
	j->prev_gpus = r->gpus;
	j->prev_start = r->has_start ? mx_ts_to_epoch(r->start) : 0;
}

typedef struct job_key
{
	int64		job_id;
	int			index;
} job_key;

static int
cmp_job_key(const void *a, const void *b)
{
	int64		x = ((const job_key *) a)->job_id,
				y = ((const job_key *) b)->job_id;

	return x < y ? -1 : x > y;
}

/*
 * The snapshot's jobs in job_id order, as the simulator gives them (the
 * core breaks some ties by index), with their rows in step.
 */
static void
sort_by_job_id(mx_db_snapshot *d)
{
	mx_snapshot *s = &d->snap;
	job_key    *keys = palloc(sizeof(job_key) * Max(s->njobs, 1));
	mx_job	   *jobs = palloc(sizeof(mx_job) * Max(s->njobs, 1));
	mx_job_row *rows = palloc(sizeof(mx_job_row) * Max(s->njobs, 1));
	int			i;

	for (i = 0; i < s->njobs; i++)
	{
		keys[i].job_id = s->jobs[i].job_id;
		keys[i].index = i;
	}
	qsort(keys, s->njobs, sizeof(job_key), cmp_job_key);
	for (i = 0; i < s->njobs; i++)
	{
		jobs[i] = s->jobs[keys[i].index];
		rows[i] = d->rows[keys[i].index];
	}
	s->jobs = jobs;
	d->rows = rows;
}

void
mx_read_snapshot(mx_db_snapshot *d, TimestampTz now, int horizon)
{
	mx_snapshot *s = &d->snap;
	uint64		i;
	Portal		cur;
	int			nest;

	mx_read_cluster(s, now);
	mx_read_running(d);

	/*
	 * The plan's cost counts the whole queue, though only the horizon is
	 * fetched: with a long queue it would pass jit_above_cost and compile
	 * (hundreds of ms) what reads a few thousand rows.
	 */
	nest = NewGUCNestLevel();
	(void) set_config_option("jit", "off", PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
	cur = mx_spi_open_fast_cursor(waiting_sql, 0, NULL, NULL, NULL);
	SPI_cursor_fetch(cur, true, horizon);
	AtEOXact_GUC(true, nest);
	s->njobs = (int) SPI_processed;
	s->jobs = palloc0(sizeof(mx_job) * Max(s->njobs, 1));
	d->rows = palloc0(sizeof(mx_job_row) * Max(s->njobs, 1));
	d->horizon_full = s->njobs >= horizon;
	for (i = 0; i < SPI_processed; i++)
		read_job(s, SPI_tuptable->vals[i], &s->jobs[i], &d->rows[i]);
	SPI_cursor_close(cur);
	sort_by_job_id(d);

	read_profiles(d);
	for (i = 0; i < (uint64) s->njobs; i++)
		if (d->rows[i].model)
			s->jobs[i].profile = mx_profile_index(s, d->rows[i].model);
}

int
mx_read_waiting_job(mx_db_snapshot *d, int64 job_id)
{
	mx_snapshot *s = &d->snap;
	mx_job	   *j;
	mx_job_row *r;

	if (mx_spi_execute(waiting_job_sql, 1, (Oid[]) {INT8OID}, (Datum[]) {Int64GetDatum(job_id)},
					   NULL, false, 1) != SPI_OK_SELECT)
		elog(ERROR, "mixdnn: could not read job %lld", (long long) job_id);
	if (SPI_processed != 1)
		return -1;
	s->jobs = repalloc(s->jobs, sizeof(mx_job) * (s->njobs + 1));
	d->rows = repalloc(d->rows, sizeof(mx_job_row) * (s->njobs + 1));
	j = &s->jobs[s->njobs];
	r = &d->rows[s->njobs];
	memset(j, 0, sizeof(*j));
	memset(r, 0, sizeof(*r));
	read_job(s, SPI_tuptable->vals[0], j, r);
	if (r->model)
		j->profile = mx_read_model_profile(s, r->model);
	return s->njobs++;
}
