/*
 * heuristic.c — greedy list scheduling's steps (heuristic.h): the order of
 * the jobs, each job's earliest-completion configuration, and placing one
 * job into the capacity. The passes that use them are in passes.c. See
 * docs/model.md, "Heuristic".
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "heuristic.h"
#include "utility.h"
#include "value.h"

#define TIE_EPS 1e-6			/* seconds: completions closer than this tie */

typedef struct order_key
{
	int			job;
	double		key;			/* weight / best run time; -1 without configs */
	double		submitted;
	int64_t		job_id;
} order_key;

static int
cmp_key(const void *a, const void *b)
{
	const order_key *x = a;
	const order_key *y = b;

	if (x->key > y->key)
		return -1;
	if (x->key < y->key)
		return 1;
	if (x->submitted < y->submitted)
		return -1;
	if (x->submitted > y->submitted)
		return 1;
	if (x->job_id < y->job_id)
		return -1;
	if (x->job_id > y->job_id)
		return 1;
	return x->job - y->job;
}

void
mx_heuristic_order(const mx_snapshot *s, const mx_options *o, int *order)
{
	order_key  *k = malloc((size_t) (s->njobs > 0 ? s->njobs : 1) * sizeof(order_key));
	mx_config  *cf = NULL;
	int			cap = 0,
				i,
				c;

	if (k == NULL)
	{
		for (i = 0; i < s->njobs; i++)
			order[i] = i;
		return;
	}
	for (i = 0; i < s->njobs; i++)
	{
		const mx_job *j = &s->jobs[i];
		int			n = mx_job_configs_buf(s, j, o->scaling_alpha, &cf, &cap);
		double		best = INFINITY;

		for (c = 0; c < n; c++)
			if (cf[c].runtime < best)
				best = cf[c].runtime;
		k[i].job = i;
		k[i].key = (n > 0 && best > 0 && isfinite(best)) ? mx_job_weight(s, j, o) / best : -1.0;
		k[i].submitted = j->submitted;
		k[i].job_id = j->job_id;
	}
	qsort(k, s->njobs, sizeof(order_key), cmp_key);
	for (i = 0; i < s->njobs; i++)
		order[i] = k[i].job;
	free(k);
	free(cf);
}

int
mx_heuristic_choose(const mx_snapshot *s, const mx_options *o, const mx_capacity *cap,
					const mx_job *j, const mx_config *cf, int n, double *start)
{
	int			c,
				best = -1;
	double		bstart = INFINITY,
				bend = INFINITY;

	for (c = 0; c < n; c++)
	{
		double		t = mx_capacity_earliest(cap, cf[c].type, cf[c].gpus, cf[c].runtime, s->now);
		double		e;
		int			better;

		if (!isfinite(t))
			continue;
		e = t + cf[c].runtime;
		if (best < 0 || e < bend - TIE_EPS)
			better = 1;
		else if (e > bend + TIE_EPS)
			better = 0;
		else if (cf[c].gpus != cf[best].gpus)
			better = cf[c].gpus < cf[best].gpus;
		else if ((cf[c].type == j->prev_type) != (cf[best].type == j->prev_type))
			better = cf[c].type == j->prev_type;
		else
			better = cf[c].type < cf[best].type;
		if (better)
		{
			best = c;
			bstart = t;
			bend = e;
		}
	}
	*start = bstart;
	return best;
}

static void
set_unplannable(mx_assignment *a, const char *why)
{
	a->status = MX_UNPLANNABLE;
	a->type = -1;
	a->gpus = 0;
	a->start = a->end = NAN;
	a->utility = 0;
	mx_plan_set_reason(a, why);
}

int
mx_heuristic_place(const mx_snapshot *s, const mx_options *o, mx_capacity *cap, int ji, mx_plan *p,
				   mx_config **cf, int *ccap, int now_only)
{
	const mx_job *j = &s->jobs[ji];
	mx_assignment *a = &p->a[ji];
	int			nc = mx_job_configs_buf(s, j, o->scaling_alpha, cf, ccap);
	int			c;
	double		t;

	a->job = ji;
	a->job_id = j->job_id;
	if (nc <= 0)
	{
		char		why[MX_REASON_LEN];

		if (nc < 0)
			set_unplannable(a, "out of memory while planning");
		else
		{
			if (!mx_job_explain(s, j, o->scaling_alpha, why, sizeof(why)))
				strcpy(why, "no configuration fits the cluster");
			set_unplannable(a, why);
		}
		return MX_PLACE_UNPLANNABLE;
	}
	c = mx_heuristic_choose(s, o, cap, j, *cf, nc, &t);
	if (c >= 0 && now_only && t > s->now + TIE_EPS)
		return MX_PLACE_DEFERRED;
	if (c < 0 || mx_capacity_reserve(cap, (*cf)[c].type, (*cf)[c].gpus, t, (*cf)[c].runtime) < 0)
	{
		set_unplannable(a, "no configuration ever fits the cluster's capacity");
		return MX_PLACE_UNPLANNABLE;
	}
	a->status = MX_PLANNED;
	a->type = (*cf)[c].type;
	a->gpus = (*cf)[c].gpus;
	a->start = t;
	a->end = t + (*cf)[c].runtime;
	a->utility = (*cf)[c].utility;
	a->reason[0] = '\0';
	return MX_PLACE_PLANNED;
}
