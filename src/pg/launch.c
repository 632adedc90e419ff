/*
 * launch.c — gang allocation of GPUs to the jobs whose planned start has
 * come, written back as launches (the caller re-plans what could not start:
 * due.c). The gpu_holds primary key rejects any double
 * booking, so a bug here fails the launch instead of oversubscribing a GPU.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "clock.h"
#include "catalog.h"
#include "column.h"
#include "guc.h"
#include "launch.h"
#include "launch_quota.h"
#include "lock.h"
#include "notices.h"
#include "placement.h"
#include "privilege.h"
#include "snapshot_read.h"
#include "spi_cache.h"

/* What one launch_due() call writes: jobs, their parts, their GPUs. */
typedef struct launch_batch
{
	mx_column	job_id,
				attempt,
				end_at;
	mx_column	part_job,
				part_attempt,
				part_node,
				part_rank,
				part_gpus,
				part_type;
	mx_column	hold_node,
				hold_index,
				hold_job;
} launch_batch;

/* The payloads read by write_batch, in launch order. */
static void
send_launch_notices(SPITupleTable *tt, uint64 n)
{
	uint64		i;

	for (i = 0; i < n; i++)
		mx_notice_send("mixdnn_launch", SPI_getvalue(tt->vals[i], tt->tupdesc, 1));
}

static void
write_batch(launch_batch *b, TimestampTz now)
{
	Oid			jobtypes[4] = {INT8ARRAYOID, INT4ARRAYOID, TIMESTAMPTZARRAYOID, TIMESTAMPTZOID};
	Datum		jobvals[4];
	Oid			parttypes[7] = {INT8ARRAYOID, INT4ARRAYOID, TEXTARRAYOID, INT4ARRAYOID, INT4ARRAYOID,
								TIMESTAMPTZOID, TEXTARRAYOID};
	Datum		partvals[7];
	Oid			holdtypes[3] = {TEXTARRAYOID, INT4ARRAYOID, INT8ARRAYOID};
	Datum		holdvals[3];

	jobvals[0] = mx_column_array(&b->job_id, INT8OID);
	jobvals[1] = mx_column_array(&b->attempt, INT4OID);
	jobvals[2] = mx_column_array(&b->end_at, TIMESTAMPTZOID);
	jobvals[3] = TimestampTzGetDatum(now);
	mx_spi_run("UPDATE mixdnn.jobs j SET status = 'launching', attempt = u.attempt, started_at = $4, "
			  "       planned_end = u.end_at, reason = NULL "
			  "FROM unnest($1, $2, $3) AS u(job_id, attempt, end_at) WHERE j.job_id = u.job_id",
			  4, jobtypes, jobvals, SPI_OK_UPDATE, "launch write");

	partvals[0] = mx_column_array(&b->part_job, INT8OID);
	partvals[1] = mx_column_array(&b->part_attempt, INT4OID);
	partvals[2] = mx_column_array(&b->part_node, TEXTOID);
	partvals[3] = mx_column_array(&b->part_rank, INT4OID);
	partvals[4] = mx_column_array(&b->part_gpus, INT4OID);
	partvals[5] = TimestampTzGetDatum(now + (int64) mx_guc_lease_timeout_s * USECS_PER_SEC);
	partvals[6] = mx_column_array(&b->part_type, TEXTOID);
	/* a database still at 0.1.0 (not yet updated) has no gpu_type: written as 0.1.0 wrote them */
	if (mx_has_column("job_parts", "gpu_type"))
		mx_spi_run("INSERT INTO mixdnn.job_parts (job_id, attempt, node, node_rank, gpus, lease_until, gpu_type) "
				   "SELECT u.job_id, u.attempt, u.node, u.node_rank, u.gpus, $6, u.gpu_type "
				   "FROM unnest($1, $2, $3, $4, $5, $7) AS u(job_id, attempt, node, node_rank, gpus, gpu_type)",
				   7, parttypes, partvals, SPI_OK_INSERT, "launch write");
	else
		mx_spi_run("INSERT INTO mixdnn.job_parts (job_id, attempt, node, node_rank, gpus, lease_until) "
				   "SELECT u.*, $6 FROM unnest($1, $2, $3, $4, $5) AS u",
				   6, parttypes, partvals, SPI_OK_INSERT, "launch write");

	/*
	 * One notice per node part, in launch order, its payload built by
	 * PostgreSQL's JSON functions (names quoted and escaped by the server).
	 * Queued with the launch and sent after its commit (notices.c), never
	 * while this transaction holds the scheduler lock: a rolled-back launch
	 * notifies nobody.
	 */
	mx_spi_run("SELECT pg_catalog.json_build_object('job_id', u.job_id, 'node', u.node)::pg_catalog.text "
			   "FROM unnest($1, $2) WITH ORDINALITY AS u(job_id, node, ord) ORDER BY u.ord",
			   2, (Oid[]) {INT8ARRAYOID, TEXTARRAYOID}, (Datum[]) {partvals[0], partvals[2]},
			   SPI_OK_SELECT, "launch notice");
	send_launch_notices(SPI_tuptable, SPI_processed);

	holdvals[0] = mx_column_array(&b->hold_node, TEXTOID);
	holdvals[1] = mx_column_array(&b->hold_index, INT4OID);
	holdvals[2] = mx_column_array(&b->hold_job, INT8OID);
	mx_spi_run("INSERT INTO mixdnn.gpu_holds (node, gpu_index, job_id) SELECT * FROM unnest($1, $2, $3)",
			  3, holdtypes, holdvals, SPI_OK_INSERT, "launch write");

	mx_spi_run("UPDATE mixdnn.rounds SET launched = launched + $1 "
			  "WHERE round_id = (SELECT max(round_id) FROM mixdnn.rounds)",
			  1, (Oid[]) {INT4OID}, (Datum[]) {Int32GetDatum(b->job_id.n)}, SPI_OK_UPDATE, "launch write");
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
				(errmsg("mixdnn could not launch %d due job(s) at %s: their GPUs are still held or their owners' quotas do not allow them; a round re-plans them",
						unplaced, timestamptz_to_str(now)),
				 errhidestmt(true)));
		return;
	}
	initStringInfo(&ids);
	for (i = 0; i < b->job_id.n && i < 10; i++)
		appendStringInfo(&ids, "%s" INT64_FORMAT, i ? ", " : "", DatumGetInt64(b->job_id.values[i]));
	if (b->job_id.n > 10)
		appendStringInfo(&ids, ", ... %d more", b->job_id.n - 10);
	ereport(LOG,
			(errmsg("mixdnn launched %d job(s) on %d node part(s) at %s (job %s)",
					b->job_id.n, b->part_job.n, timestamptz_to_str(now), ids.data),
			 unplaced > 0 ? errdetail("%d due job(s) wait for GPUs still held or for their owners' quotas; a round re-plans them.", unplaced) : 0,
			 errhidestmt(true)));
	pfree(ids.data);
}

/* The line of a pass that launched nothing because its plan was stale (due.c). */
static void
log_held_back(TimestampTz now, int unplaced, int ndue)
{
	ereport(LOG,
			(errmsg("mixdnn could not launch %d of %d due job(s) at %s: their GPUs are still held or their owners' quotas do not allow them; a round re-plans before any of them starts",
					unplaced, ndue, timestamptz_to_str(now)),
			 errhidestmt(true)));
}

/*
 * The due jobs, locked. In plan_mode worker a user's cancel does not take
 * the scheduler lock, so the due rows are locked as strongly as the UPDATE
 * of write_batch() will: one cancelled meanwhile fails the re-checked
 * status test, one being cancelled right now is left for the next call.
 */
static SPITupleTable *
read_due(TimestampTz now, uint64 *ndue)
{
	if (mx_spi_execute("SELECT job_id, attempt + 1, planned_gpu_type, planned_gpus, "
					   "       planned_end - planned_start, owner::text "
					   "FROM mixdnn.jobs WHERE status = 'planned' AND planned_start <= $1 "
					   "ORDER BY planned_start, job_id FOR NO KEY UPDATE SKIP LOCKED",
					   1, (Oid[]) {TIMESTAMPTZOID}, (Datum[]) {TimestampTzGetDatum(now)},
					   NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "mixdnn: could not read due jobs");
	*ndue = SPI_processed;
	return SPI_tuptable;
}

/*
 * Places due job i (row t) on free GPUs of the cluster and adds its launch
 * to b; parts has room for one part per node (a gang may span every node).
 * False when its GPUs are still held or its owner's quota no longer allows
 * the start (launch_quota.h).
 */
static bool
place_due_job(mx_snapshot *cluster, mx_launch_quota *quota, int i, HeapTuple t, TupleDesc desc,
			  TimestampTz now, mx_part *parts, launch_batch *b)
{
	bool		isnull;
	int64		job_id = DatumGetInt64(SPI_getbinval(t, desc, 1, &isnull));
	int32		attempt = DatumGetInt32(SPI_getbinval(t, desc, 2, &isnull));
	Datum		type_datum;
	char	   *type_name;
	int			gpus;
	Interval   *runtime;
	int			type;
	int			nparts,
				p,
				g;

	/*
	 * A planned row without its configuration or times (written so by hand:
	 * rounds never do) is not placed: the round before any launch re-plans it.
	 */
	type_datum = SPI_getbinval(t, desc, 3, &isnull);
	if (isnull)
		return false;
	type_name = TextDatumGetCString(type_datum);
	gpus = DatumGetInt32(SPI_getbinval(t, desc, 4, &isnull));
	if (isnull || gpus <= 0)
		return false;
	runtime = DatumGetIntervalP(SPI_getbinval(t, desc, 5, &isnull));
	if (isnull)
		return false;
	type = mx_type_index(cluster, type_name);
	if (type < 0 || !mx_launch_quota_allows(quota, i, type, gpus))
		return false;
	nparts = mx_place(cluster->nodes, cluster->nnodes, type, gpus, parts, cluster->nnodes);
	if (nparts == 0)
		return false;
	mx_place_commit(cluster->nodes, parts, nparts);
	mx_launch_quota_take(quota, i, parts[0].node, gpus);

	mx_column_push(&b->job_id, Int64GetDatum(job_id), false);
	mx_column_push(&b->attempt, Int32GetDatum(attempt), false);
	mx_column_push(&b->end_at, DirectFunctionCall2(timestamptz_pl_interval, TimestampTzGetDatum(now),
												   IntervalPGetDatum(runtime)), false);
	for (p = 0; p < nparts; p++)
	{
		Datum		node = CStringGetTextDatum(cluster->nodes[parts[p].node].name);

		mx_column_push(&b->part_job, Int64GetDatum(job_id), false);
		mx_column_push(&b->part_attempt, Int32GetDatum(attempt), false);
		mx_column_push(&b->part_node, node, false);
		mx_column_push(&b->part_rank, Int32GetDatum(p), false);
		mx_column_push(&b->part_gpus, Int32GetDatum(parts[p].gpus), false);
		/* every part is on a node of the job's planned type (mx_place) */
		mx_column_push(&b->part_type, CStringGetTextDatum(type_name), false);
		for (g = 0; g < MX_MAX_NODE_GPUS; g++)
			if (parts[p].indices & (UINT64CONST(1) << g))
			{
				mx_column_push(&b->hold_node, node, false);
				mx_column_push(&b->hold_index, Int32GetDatum(g), false);
				mx_column_push(&b->hold_job, Int64GetDatum(job_id), false);
			}
	}
	return true;
}

int
mx_launch_due(int *unplaced_out, bool all_or_none)
{
	mx_saved_user saved;
	MemoryContext cxt,
				oldcxt;
	TimestampTz now;
	mx_snapshot cluster;
	mx_launch_quota quota;
	launch_batch b;
	int			unplaced = 0;
	uint64		i;
	int			launched;
	SPITupleTable *due;
	uint64		ndue;
	mx_part    *parts;

	mx_lock_scheduler();
	cxt = AllocSetContextCreate(CurrentMemoryContext, "mixdnn launch", ALLOCSET_DEFAULT_SIZES);
	oldcxt = MemoryContextSwitchTo(cxt);
	mx_become_owner(&saved);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "mixdnn: SPI_connect failed");

	now = mx_clock_now();
	mx_read_cluster(&cluster, now);
	due = read_due(now, &ndue);
	mx_launch_quota_read(&quota, &cluster, due, 6);
	memset(&b, 0, sizeof(b));
	parts = palloc(sizeof(mx_part) * Max(cluster.nnodes, 1));
	for (i = 0; i < ndue; i++)
		if (!place_due_job(&cluster, &quota, (int) i, due->vals[i], due->tupdesc, now, parts, &b))
			unplaced++;

	if (all_or_none && unplaced > 0)
	{
		log_held_back(now, unplaced, (int) ndue);
		launched = 0;
	}
	else
	{
		if (b.job_id.n > 0)
			write_batch(&b, now);
		launched = b.job_id.n;
		log_launches(&b, now, unplaced);
	}

	SPI_finish();
	mx_restore_user(&saved);
	MemoryContextSwitchTo(oldcxt);
	MemoryContextDelete(cxt);

	*unplaced_out = unplaced;
	return launched;
}
