/*
 * notices.c — the launchers' notifications (mixdnn_launch, mixdnn_cancel)
 * leave the transactions that hold the scheduler lock.
 *
 * PostgreSQL adds a transaction's NOTIFYs to its queue at commit, under one
 * lock for the whole server (PreCommit_Notify), before the transaction
 * releases any lock it holds. Any role of any database that commits a large
 * NOTIFY holds that lock for seconds, and a full queue fails every commit
 * that notifies. A notice sent inside a launch, a round at commit, a cancel
 * or a launcher's report would make them wait, or fail, with the scheduler
 * lock held: every submission, claim and launch behind them. So where a
 * launch worker serves the database, a notice is a row of mixdnn.notices,
 * committed with the change it announces, and the worker sends it from a
 * transaction that holds no other lock (mx_notices_deliver, worker.c).
 * Notices only hurry the launchers, which poll (docs/launcher.md): without
 * a worker one is sent at once, and none is sent while the queue is half
 * full.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "commands/async.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"

#include "catalog.h"
#include "guc.h"
#include "notices.h"
#include "spi_cache.h"
#include "wake.h"

PG_FUNCTION_INFO_V1(mixdnn_queue_notice);

/* At most this many notices per delivery: a bounded transaction. */
#define DELIVER_BATCH 10000

/*
 * Past this share of PostgreSQL's 8 GB queue a notice is dropped: the
 * launchers find the work at their next poll, and a notice that would fill
 * the queue would fail the commit that sends it.
 */
#define QUEUE_SHARE_MAX 0.5

static bool
queue_has_room(void)
{
	return DatumGetFloat8(DirectFunctionCall1(pg_notification_queue_usage, (Datum) 0)) < QUEUE_SHARE_MAX;
}

void
mx_notice_send(const char *channel, const char *payload)
{
	/* a database still at 0.1.0 (not yet updated) has no mixdnn.notices */
	if (!mx_worker_plans_here() || !OidIsValid(mx_relation("notices")))
	{
		if (queue_has_room())
			Async_Notify(channel, payload);
		return;
	}
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "mixdnn: SPI_connect failed");
	mx_spi_run("INSERT INTO mixdnn.notices (channel, payload) VALUES ($1, $2)",
			   2, (Oid[]) {TEXTOID, TEXTOID},
			   (Datum[]) {CStringGetTextDatum(channel), CStringGetTextDatum(payload)},
			   SPI_OK_INSERT, "notice");
	SPI_finish();
	/* The worker sends it once this transaction has committed (its own, in this cycle). */
	if (!mx_wake_is_worker())
		mx_worker_wake_at_commit();
}

/*
 * mixdnn._queue_notice(channel, payload): called as the extension's owner
 * by the functions that cancel, lose or fail a job's parts.
 */
Datum
mixdnn_queue_notice(PG_FUNCTION_ARGS)
{
	mx_notice_send(text_to_cstring(PG_GETARG_TEXT_PP(0)), text_to_cstring(PG_GETARG_TEXT_PP(1)));
	PG_RETURN_VOID();
}

void
mx_notices_deliver(void)
{
	char		ms[32];
	uint64		i;
	bool		room;

	if (!OidIsValid(mx_relation("notices")))
		return;
	/* The unlocked look first: most cycles have nothing to send. */
	if (SPI_execute("SELECT FROM mixdnn.notices LIMIT 1", true, 1) != SPI_OK_SELECT || SPI_processed == 0)
		return;
	/* Bounds the wait for the NOTIFY lock at this transaction's commit. */
	snprintf(ms, sizeof(ms), "%d", mx_guc_lock_timeout_ms);
	(void) set_config_option("lock_timeout", ms, PGC_SUSET, PGC_S_SESSION, GUC_ACTION_LOCAL, true, 0, false);
	mx_spi_run("WITH sent AS (DELETE FROM mixdnn.notices n WHERE n.notice_id IN "
			   "    (SELECT m.notice_id FROM mixdnn.notices m ORDER BY m.notice_id LIMIT $1) "
			   "  RETURNING n.notice_id, n.channel, n.payload) "
			   "SELECT s.channel, s.payload FROM sent s ORDER BY s.notice_id",
			   1, (Oid[]) {INT4OID}, (Datum[]) {Int32GetDatum(DELIVER_BATCH)}, SPI_OK_SELECT, "notice delivery");
	room = queue_has_room();
	for (i = 0; room && i < SPI_processed; i++)
		Async_Notify(SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1),
					 SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2));
	if (!room)
		ereport(LOG,
				(errmsg("mixdnn worker dropped %d launcher notices: PostgreSQL's NOTIFY queue is more than half full",
						(int) SPI_processed),
				 errdetail("The launchers find their work at their next poll.")));
}
