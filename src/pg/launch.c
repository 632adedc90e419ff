/*
 * launch.c — gang allocation of GPUs to the jobs whose planned start has
 * come, written back as launches (the caller re-plans what could not start:
 * due.c). The gpu_holds primary key rejects any double
 * booking, so a bug here fails the launch instead of oversubscribing a GPU.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "commands/async.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "clock.h"
#include "guc.h"
#include "launch.h"
#include "lock.h"
#include "placement.h"
#include "privilege.h"
#include "snapshot_read.h"
#include "spi_cache.h"

/* A growable column of Datums, one per row of an unnest() write. */
typedef struct dvec
{
	int			n;
	int			cap;
	Datum	   *v;
} dvec;

static void
dvec_push(dvec *d, Datum x)
{
	if (d->n == d->cap)
	{
		d->cap = d->cap ? 2 * d->cap : 16;
		d->v = d->v ? repalloc(d->v, sizeof(Datum) * d->cap) : palloc(sizeof(Datum) * d->cap);
	}
	d->v[d->n++] = x;
}

/* What one launch_due() call writes: jobs, their parts, their GPUs. */
typedef struct launch_batch
{
	dvec		job_id,
				attempt,
				end_at;
	dvec		part_job,
				part_attempt,
				part_node,
				part_rank,
				part_gpus;
	dvec		hold_node,
				hold_index,
				hold_job;
} launch_batch;

static Datum
array_of(const dvec *d, Oid elemtype)
{
	int16		typlen;
	bool		typbyval;
	char		typalign;

	get_typlenbyvalalign(elemtype, &typlen, &typbyval, &typalign);
	return PointerGetDatum(construct_array(d->v, d->n, elemtype, typlen, typbyval, typalign));
}

static void
spi_write(const char *sql, int nargs, Oid *types, Datum *values, int expect)
{
	int			rc = mx_spi_execute(sql, nargs, types, values, NULL, false, 0);

	if (rc != expect)
		elog(ERROR, "mixdnn: launch write failed (%s): %s", SPI_result_code_string(rc), sql);
}

static void
write_batch(launch_batch *b, TimestampTz now)
{
	Oid			jobtypes[4] = {INT8ARRAYOID, INT4ARRAYOID, TIMESTAMPTZARRAYOID, TIMESTAMPTZOID};
	Datum		jobvals[4];
	Oid			parttypes[6] = {INT8ARRAYOID, INT4ARRAYOID, TEXTARRAYOID, INT4ARRAYOID, INT4ARRAYOID,
								TIMESTAMPTZOID};
	Datum		partvals[6];
	Oid			holdtypes[3] = {TEXTARRAYOID, INT4ARRAYOID, INT8ARRAYOID};
	Datum		holdvals[3];

	jobvals[0] = array_of(&b->job_id, INT8OID);
	jobvals[1] = array_of(&b->attempt, INT4OID);
	jobvals[2] = array_of(&b->end_at, TIMESTAMPTZOID);
	jobvals[3] = TimestampTzGetDatum(now);
	spi_write("UPDATE mixdnn.jobs j SET status = 'launching', attempt = u.attempt, started_at = $4, "
			  "       planned_end = u.end_at, reason = NULL "
			  "FROM unnest($1, $2, $3) AS u(job_id, attempt, end_at) WHERE j.job_id = u.job_id",
			  4, jobtypes, jobvals, SPI_OK_UPDATE);

	partvals[0] = array_of(&b->part_job, INT8OID);
	partvals[1] = array_of(&b->part_attempt, INT4OID);
	partvals[2] = array_of(&b->part_node, TEXTOID);
	partvals[3] = array_of(&b->part_rank, INT4OID);
	partvals[4] = array_of(&b->part_gpus, INT4OID);
	partvals[5] = TimestampTzGetDatum(now + (int64) mx_guc_lease_timeout_s * USECS_PER_SEC);
	spi_write("INSERT INTO mixdnn.job_parts (job_id, attempt, node, node_rank, gpus, lease_until) "
			  "SELECT u.*, $6 FROM unnest($1, $2, $3, $4, $5) AS u",
			  6, parttypes, partvals, SPI_OK_INSERT);

	holdvals[0] = array_of(&b->hold_node, TEXTOID);
	holdvals[1] = array_of(&b->hold_index, INT4OID);
	holdvals[2] = array_of(&b->hold_job, INT8OID);
	spi_write("INSERT INTO mixdnn.gpu_holds (node, gpu_index, job_id) SELECT * FROM unnest($1, $2, $3)",
			  3, holdtypes, holdvals, SPI_OK_INSERT);

	spi_write("UPDATE mixdnn.rounds SET launched = launched + $1 "
			  "WHERE round_id = (SELECT max(round_id) FROM mixdnn.rounds)",
			  1, (Oid[]) {INT4OID}, (Datum[]) {Int32GetDatum(b->job_id.n)}, SPI_OK_UPDATE);
}

/*
 * One server-log line per launch_due() that launched or had to leave due
 * jobs behind: how many, when, which (the first few ids).
 */
static void
log_launches(const launch_batch *b, TimestampTz now, int unplaced)
{
	StringInfoData ids;
	int			i;

	if (b->job_id.n == 0 && unplaced == 0)
		return;
	if (b->job_id.n == 0)
	{
		ereport(LOG,
				(errmsg("mixdnn could not launch %d due job(s) at %s: their GPUs are still held; a round re-plans them",
						unplaced, timestamptz_to_str(now)),
				 errhidestmt(true)));
		return;
	}
	initStringInfo(&ids);
	for (i = 0; i < b->job_id.n && i < 10; i++)
		appendStringInfo(&ids, "%s" INT64_FORMAT, i ? ", " : "", DatumGetInt64(b->job_id.v[i]));
	if (b->job_id.n > 10)
		appendStringInfo(&ids, ", ... %d more", b->job_id.n - 10);
	ereport(LOG,
			(errmsg("mixdnn launched %d job(s) on %d node part(s) at %s (job %s)",
					b->job_id.n, b->part_job.n, timestamptz_to_str(now), ids.data),
			 unplaced > 0 ? errdetail("%d due job(s) wait for GPUs still held; a round re-plans them.", unplaced) : 0,
			 errhidestmt(true)));
	pfree(ids.data);
}

int
mx_launch_due(int *unplaced_out)
{
	mx_saved_user saved;
	MemoryContext cxt,
				oldcxt;
	TimestampTz now;
	mx_snapshot cluster;
	launch_batch b;
	int			unplaced = 0;
	uint64		i;
	int			launched;
	SPITupleTable *due;
	uint64		ndue;

	mx_lock_scheduler();
	cxt = AllocSetContextCreate(CurrentMemoryContext, "mixdnn launch", ALLOCSET_DEFAULT_SIZES);
	oldcxt = MemoryContextSwitchTo(cxt);
	mx_become_owner(&saved);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "mixdnn: SPI_connect failed");

	now = mx_clock_now();
	mx_read_cluster(&cluster, now);

	/*
	 * In plan_mode worker a user's cancel does not take the scheduler lock,
	 * so lock the due rows (as strongly as the UPDATE below will): one
	 * cancelled meanwhile fails the re-checked status test, one being
	 * cancelled right now is left for the next call.
	 */
	if (mx_spi_execute("SELECT job_id, attempt + 1, planned_gpu_type, planned_gpus, "
							  "       planned_end - planned_start "
							  "FROM mixdnn.jobs WHERE status = 'planned' AND planned_start <= $1 "
							  "ORDER BY planned_start, job_id FOR NO KEY UPDATE SKIP LOCKED",
							  1, (Oid[]) {TIMESTAMPTZOID}, (Datum[]) {TimestampTzGetDatum(now)},
							  NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "mixdnn: could not read due jobs");
	due = SPI_tuptable;
	ndue = SPI_processed;

	memset(&b, 0, sizeof(b));
	for (i = 0; i < ndue; i++)
	{
		HeapTuple	t = due->vals[i];
		bool		isnull;
		int64		job_id = DatumGetInt64(SPI_getbinval(t, due->tupdesc, 1, &isnull));
		int32		attempt = DatumGetInt32(SPI_getbinval(t, due->tupdesc, 2, &isnull));
		char	   *type_name = TextDatumGetCString(SPI_getbinval(t, due->tupdesc, 3, &isnull));
		int			gpus = DatumGetInt32(SPI_getbinval(t, due->tupdesc, 4, &isnull));
		Interval   *runtime = DatumGetIntervalP(SPI_getbinval(t, due->tupdesc, 5, &isnull));
		int			type = mx_type_index(&cluster, type_name);
		mx_part		parts[MX_MAX_NODE_GPUS];
		int			nparts,
					p;

		nparts = type < 0 ? 0 : mx_place(cluster.nodes, cluster.nnodes, type, gpus, parts, lengthof(parts));
		if (nparts == 0)
		{
			unplaced++;
			continue;
		}
		mx_place_commit(cluster.nodes, parts, nparts);

		dvec_push(&b.job_id, Int64GetDatum(job_id));
		dvec_push(&b.attempt, Int32GetDatum(attempt));
		dvec_push(&b.end_at, DirectFunctionCall2(timestamptz_pl_interval, TimestampTzGetDatum(now),
												 IntervalPGetDatum(runtime)));

		for (p = 0; p < nparts; p++)
		{
			Datum		node = CStringGetTextDatum(cluster.nodes[parts[p].node].name);
			int			g;

			dvec_push(&b.part_job, Int64GetDatum(job_id));
			dvec_push(&b.part_attempt, Int32GetDatum(attempt));
			dvec_push(&b.part_node, node);
			dvec_push(&b.part_rank, Int32GetDatum(p));
			dvec_push(&b.part_gpus, Int32GetDatum(parts[p].gpus));

			for (g = 0; g < MX_MAX_NODE_GPUS; g++)
				if (parts[p].indices & (UINT64CONST(1) << g))
				{
					dvec_push(&b.hold_node, node);
					dvec_push(&b.hold_index, Int32GetDatum(g));
					dvec_push(&b.hold_job, Int64GetDatum(job_id));
				}

			/* Delivered at commit, and only then: a rolled-back launch notifies nobody. */
			Async_Notify("mixdnn_launch",
						 psprintf("{\"job_id\": " INT64_FORMAT ", \"node\": \"%s\"}", job_id,
								  cluster.nodes[parts[p].node].name));
		}
	}

	if (b.job_id.n > 0)
		write_batch(&b, now);
	launched = b.job_id.n;
	log_launches(&b, now, unplaced);

	SPI_finish();
	mx_restore_user(&saved);
	MemoryContextSwitchTo(oldcxt);
	MemoryContextDelete(cxt);

	*unplaced_out = unplaced;
	return launched;
}
