/*
 * what_if.c — mixdnn._what_if(), the core of mixdnn.what_if(): when and on
 * what a job would run if it were submitted now, from a plan made exactly
 * as a round makes it, with the job added. Nothing is written. The SQL
 * wrapper (sql/install/70_surface.sql) validates the arguments and applies
 * the submission defaults first.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

#include "clock.h"
#include "explain.h"
#include "preview.h"

PG_FUNCTION_INFO_V1(mixdnn_what_if);

#define WHAT_IF_COLS 7

static void
what_if_plan(const mx_preview *pv, void *arg)
{
	ReturnSetInfo *rsinfo = arg;
	const mx_assignment *a = &pv->plan.a[pv->extra];
	const mx_snapshot *s = &pv->d.snap;
	Datum		v[WHAT_IF_COLS];
	bool		n[WHAT_IF_COLS] = {false};
	int			i;

	if (a->status == MX_PLANNED)
	{
		v[0] = CStringGetTextDatum(s->types[a->type].name);
		v[1] = Int32GetDatum(a->gpus);
		v[2] = TimestampTzGetDatum(mx_epoch_to_ts(a->start));
		v[3] = TimestampTzGetDatum(mx_epoch_to_ts(a->end));
		v[4] = DirectFunctionCall2(timestamp_mi, v[2], TimestampTzGetDatum(mx_epoch_to_ts(s->now)));
		v[5] = Int32GetDatum(mx_plan_position(&pv->plan, pv->extra));
	}
	else
		for (i = 0; i < 6; i++)
			n[i] = true;
	n[6] = a->reason[0] == '\0';
	v[6] = n[6] ? (Datum) 0 : CStringGetTextDatum(a->reason);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, n);
}

static int
text_array(ArrayType *arr, char ***out)
{
	Datum	   *elems;
	bool	   *nulls;
	int			n,
				i;

	deconstruct_array(arr, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
	*out = palloc0(sizeof(char *) * Max(n, 1));
	for (i = 0; i < n; i++)
		(*out)[i] = nulls[i] ? "" : TextDatumGetCString(elems[i]);
	return n;
}

/* (hard bool, gpu_type text, gpus int, min_gpus int, max_gpus int, allowed_types text[], duration_s float8, priority int, model text) */
Datum
mixdnn_what_if(PG_FUNCTION_ARGS)
{
	mx_hypothetical h;
	int			i;

	for (i = 0; i < 9; i++)
		if (PG_ARGISNULL(i) && i != 1 && i != 5 && i != 8)
			elog(ERROR, "mixdnn._what_if: argument %d is NULL", i + 1);
	memset(&h, 0, sizeof(h));
	h.hard = PG_GETARG_BOOL(0);
	h.gpu_type = PG_ARGISNULL(1) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(1));
	h.gpus = PG_GETARG_INT32(2);
	h.min_gpus = PG_GETARG_INT32(3);
	h.max_gpus = PG_GETARG_INT32(4);
	h.nallowed = PG_ARGISNULL(5) ? -1 : text_array(PG_GETARG_ARRAYTYPE_P(5), &h.allowed);
	h.duration = PG_GETARG_FLOAT8(6);
	h.priority = PG_GETARG_INT32(7);
	h.model = PG_ARGISNULL(8) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(8));
	if (h.gpus < 1 || h.min_gpus < 1 || h.max_gpus < h.min_gpus || !(h.duration > 0))
		elog(ERROR, "mixdnn._what_if: arguments not validated");

	InitMaterializedSRF(fcinfo, 0);
	mx_preview_run(&h, what_if_plan, fcinfo->resultinfo);
	return (Datum) 0;
}
