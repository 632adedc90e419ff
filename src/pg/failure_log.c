/*
 * failure_log.c — mixdnn._log_job_failure(), an AFTER UPDATE trigger on
 * mixdnn.jobs: one server-log line when a job fails, whoever failed it
 * (a launcher's exit code, an expired lease without retries, an admin).
 */
#include "postgres.h"

#include "commands/trigger.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

PG_FUNCTION_INFO_V1(mixdnn_log_job_failure);

/* Column name's value as text, "-" when NULL. */
static char *
column_text(HeapTuple t, TupleDesc d, const char *name)
{
	int			k = SPI_fnumber(d, name);
	char	   *v = k > 0 ? SPI_getvalue(t, d, k) : NULL;

	return v ? v : "-";
}

Datum
mixdnn_log_job_failure(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	HeapTuple	t;
	TupleDesc	d;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_BY_UPDATE(td->tg_event))
		elog(ERROR, "mixdnn._log_job_failure: not called as an UPDATE trigger");
	t = td->tg_newtuple;
	d = td->tg_relation->rd_att;
	ereport(LOG,
			(errmsg("mixdnn job %s of %s failed at %s (started %s, attempt %s, exit code %s): %s",
					column_text(t, d, "job_id"), column_text(t, d, "owner"),
					column_text(t, d, "finished_at"), column_text(t, d, "started_at"),
					column_text(t, d, "attempt"), column_text(t, d, "exit_code"),
					column_text(t, d, "reason")),
			 errhidestmt(true), errhidecontext(true)));
	return PointerGetDatum(NULL);
}
