/*
 * fair_share_usage.c — mixdnn.fair_share_usage(): each owner with waiting
 * or running jobs, its shares, entitlement, usage share and fair-share
 * factor, as the next round computes them (src/core/tenancy.c), without
 * planning anything.
 */
#include "postgres.h"

#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

#include "clock.h"
#include "guc.h"
#include "privilege.h"
#include "snapshot_read.h"
#include "fairshare.h"
#include "tenancy.h"
#include "tenancy_read.h"

PG_FUNCTION_INFO_V1(mixdnn_fair_share_usage);

#define USAGE_COLS 6

/* GPUs each owner's launching and running parts hold now. */
static int *
gpus_held(const mx_snapshot *s)
{
	int		   *held = palloc0(sizeof(int) * Max(s->nowners, 1));
	int			i;

	for (i = 0; i < s->nparts; i++)
		if (s->parts[i].owner >= 0 && s->parts[i].owner < s->nowners)
			held[s->parts[i].owner] += s->parts[i].gpus;
	return held;
}

static void
emit(ReturnSetInfo *rsinfo, const mx_snapshot *s, const mx_options *o)
{
	double	   *factor = palloc(sizeof(double) * Max(s->nowners, 1));
	double	   *ent = palloc(sizeof(double) * Max(s->nowners, 1));
	double	   *use = palloc(sizeof(double) * Max(s->nowners, 1));
	int		   *held = gpus_held(s);
	int			i;

	if (mx_tenancy_factors(s, o, factor, ent, use) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory in the mixdnn planner")));
	for (i = 0; i < s->nowners; i++)
	{
		Datum		v[USAGE_COLS];
		bool		n[USAGE_COLS] = {false};

		v[0] = DirectFunctionCall1(namein, CStringGetDatum(s->owners[i].name));
		v[1] = Int32GetDatum((int32) s->owners[i].shares);
		v[2] = Float8GetDatum(ent[i]);
		v[3] = Float8GetDatum(use[i]);
		v[4] = Int32GetDatum(held[i]);
		v[5] = Float8GetDatum(factor[i]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, n);
	}
}

Datum
mixdnn_fair_share_usage(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo;
	mx_saved_user saved;
	mx_db_snapshot d;
	mx_options	o;

	InitMaterializedSRF(fcinfo, 0);
	rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "mixdnn: SPI_connect failed");
	/* Usage comes from every role's jobs, which only the owner reads. */
	mx_become_owner(&saved);
	mx_read_snapshot(&d, mx_clock_now(), mx_guc_planning_horizon);
	mx_guc_options(&o);
	/* The usage whether fair share is on or not: this is what it would weigh. */
	o.fair_share = 1;
	mx_read_owners(&d, &o);
	emit(rsinfo, &d.snap, &o);
	mx_restore_user(&saved);
	SPI_finish();
	return (Datum) 0;
}
