/*
 * launch_quota.c — GPU quotas at launch (launch_quota.h). The rule is the
 * round's (tenancy.c, mx_tenancy_over_quota), applied to what the owners
 * hold now rather than to what the plan expected them to hold.
 */
#include "postgres.h"

#include "utils/builtins.h"

#include "launch_quota.h"
#include "options.h"
#include "tenancy.h"
#include "tenancy_read.h"

/* The tenancy verdict that refuses a start: beyond a quota that does not lend. */
#define OVER_WITHOUT_BORROWING 2

void
mx_launch_quota_read(mx_launch_quota *q, const mx_snapshot *cluster, SPITupleTable *due, int owner_col)
{
	mx_snapshot *s = &q->d.snap;
	mx_options	o;
	uint64		i;

	memset(q, 0, sizeof(*q));
	if (due == NULL || due->numvals == 0 || !mx_any_gpu_quota())
		return;
	*s = *cluster;
	s->njobs = (int) due->numvals;
	s->jobs = palloc0(sizeof(mx_job) * Max(s->njobs, 1));
	q->d.rows = palloc0(sizeof(mx_job_row) * Max(s->njobs, 1));
	for (i = 0; i < due->numvals; i++)
	{
		bool		isnull;
		Datum		owner = SPI_getbinval(due->vals[i], due->tupdesc, owner_col, &isnull);

		q->d.rows[i].owner = isnull ? NULL : TextDatumGetCString(owner);
	}
	mx_read_running(&q->d);
	/* room for one part per due job: what this launch_due() starts */
	s->parts = repalloc(s->parts, sizeof(mx_running_part) * (s->nparts + s->njobs + 1));
	mx_options_default(&o);
	o.fair_share = 0;			/* quotas only: no usage history */
	mx_read_owners(&q->d, &o);
	q->on = s->nowners > 0;
}

bool
mx_launch_quota_allows(const mx_launch_quota *q, int i, int type, int gpus)
{
	if (!q->on || type < 0)
		return true;
	return mx_tenancy_over_quota(&q->d.snap, NULL, i, type, gpus, NULL, 0) != OVER_WITHOUT_BORROWING;
}

void
mx_launch_quota_take(mx_launch_quota *q, int i, int node, int gpus)
{
	mx_snapshot *s = &q->d.snap;
	mx_running_part *rp;

	if (!q->on)
		return;
	rp = &s->parts[s->nparts++];
	memset(rp, 0, sizeof(*rp));
	rp->node = node;			/* of its type: what the count needs */
	rp->gpus = gpus;
	rp->expected_end = s->now;
	rp->owner = s->jobs[i].owner;
}
