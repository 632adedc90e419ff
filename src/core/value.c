/*
 * value.c — job weights and the objective value of a plan (value.h). See
 * docs/model.md, "Objective".
 */
#include <math.h>

#include "value.h"

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
	return pow(2.0, prio / 10.0) * (1.0 + (isfinite(aging) ? waited / aging : 0.0)) *
		(j->weight_factor > 0 ? j->weight_factor : 1.0);
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
