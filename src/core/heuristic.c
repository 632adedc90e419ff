/*
 * heuristic.c — job weights, plan values and greedy list scheduling
 * (heuristic.h). See docs/model.md, "Objective" and "Heuristic".
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "heuristic.h"
#include "utility.h"

#define TIE_EPS 1e-6			/* seconds: completions closer than this tie */

double
mx_job_weight(const mx_snapshot *s, const mx_job *j, const mx_options *o)
{
	double		waited = s->now - j->submitted;
	double		aging = o->aging_s > 0 ? o->aging_s : INFINITY;
	int			prio = j->priority;

	if (!(waited > 0) || !isfinite(waited))
		waited = 0;
	/* keep 2^(p/10) finite and positive for absurd priorities */
	if (prio > 1000)
		prio = 1000;
	if (prio < -1000)
		prio = -1000;
	return pow(2.0, prio / 10.0) * (1.0 + (isfinite(aging) ? waited / aging : 0.0));
}

double
mx_value_horizon(const mx_options *o)
{
	return (o->value_horizon_s > 0 && isfinite(o->value_horizon_s)) ?
		o->value_horizon_s : MX_DEFAULT_HORIZON_S;
}

double
mx_value(const mx_snapshot *s, const mx_job *j, const mx_options *o, double start, double end)
{
	return mx_job_weight(s, j, o) * (1.0 - (end - s->now) / mx_value_horizon(o));
}

double
mx_plan_value(const mx_snapshot *s, const mx_options *o, const mx_plan *p)
{
	double		v = 0;
	int			i;

	for (i = 0; i < p->n && i < s->njobs; i++)
		if (p->a[i].status == MX_PLANNED)
			v += mx_value(s, &s->jobs[i], o, p->a[i].start, p->a[i].end);
	return v;
}

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

/* configs of job j into a growing buffer; returns count, -1 out of memory */
static int
configs_of(const mx_snapshot *s, const mx_job *j, double alpha, mx_config **buf, int *cap)
{
	int			mx = mx_job_configs_max(s, j);

	if (mx <= 0)
		return 0;
	if (mx > *cap)
	{
		mx_config  *nb = realloc(*buf, (size_t) mx * sizeof(mx_config));

		if (nb == NULL)
			return -1;
		*buf = nb;
		*cap = mx;
	}
	return mx_job_configs(s, j, alpha, *buf, mx);
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
		int			n = configs_of(s, j, o->scaling_alpha, &cf, &cap);
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

void
mx_heuristic_plan(const mx_snapshot *s, const mx_options *o, mx_capacity *cap,
				  const int *order, int n, mx_plan *p)
{
	mx_config  *cf = NULL;
	int			ccap = 0,
				i;

	for (i = 0; i < n; i++)
	{
		int			ji = order[i];
		const mx_job *j = &s->jobs[ji];
		mx_assignment *a = &p->a[ji];
		int			nc = configs_of(s, j, o->scaling_alpha, &cf, &ccap);
		int			c;
		double		t;

		a->job = ji;
		a->job_id = j->job_id;
		if (nc <= 0)
		{
			char		why[MX_REASON_LEN];

			a->status = MX_UNPLANNABLE;
			a->type = -1;
			a->gpus = 0;
			a->start = a->end = NAN;
			a->utility = 0;
			if (nc < 0)
				mx_plan_set_reason(a, "out of memory while planning");
			else
			{
				if (!mx_job_explain(s, j, o->scaling_alpha, why, sizeof(why)))
					strcpy(why, "no configuration fits the cluster");
				mx_plan_set_reason(a, why);
			}
			continue;
		}
		c = mx_heuristic_choose(s, o, cap, j, cf, nc, &t);
		if (c < 0 || mx_capacity_reserve(cap, cf[c].type, cf[c].gpus, t, cf[c].runtime) < 0)
		{
			a->status = MX_UNPLANNABLE;
			a->type = -1;
			a->gpus = 0;
			a->start = a->end = NAN;
			a->utility = 0;
			mx_plan_set_reason(a, "no configuration ever fits the cluster's capacity");
			continue;
		}
		a->status = MX_PLANNED;
		a->type = cf[c].type;
		a->gpus = cf[c].gpus;
		a->start = t;
		a->end = t + cf[c].runtime;
		a->utility = cf[c].utility;
		a->reason[0] = '\0';
	}
	free(cf);
}
