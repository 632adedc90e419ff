/*
 * utility.c — throughput, utility and candidate configurations of a job
 * (utility.h). See docs/model.md, "Utility".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_limits.h"
#include "profile.h"
#include "utility.h"

static const mx_profile *
job_profile(const mx_snapshot *s, const mx_job *j)
{
	if (j->profile < 0 || j->profile >= s->nprofiles)
		return NULL;
	return &s->profiles[j->profile];
}

static double
type_speed(const mx_snapshot *s, int type)
{
	double		sp;

	if (type < 0 || type >= s->ntypes)
		return 1.0;
	sp = s->types[type].speed;
	return (sp > 0 && isfinite(sp)) ? sp : 1.0;
}

/*
 * The measured type a type without points is converted from: the job's
 * reference type if measured, else the lowest-index type with a positive
 * point; -1 when the profile has no positive point at all.
 */
static int
anchor_type(const mx_snapshot *s, const mx_profile *p, int ref_type)
{
	int			k;

	if (ref_type >= 0 && mx_profile_has_positive(p, ref_type))
		return ref_type;
	for (k = 0; k < s->ntypes; k++)
		if (mx_profile_has_positive(p, k))
			return k;
	return -1;
}

double
mx_throughput(const mx_snapshot *s, const mx_job *j, int type, int gpus, double alpha)
{
	const mx_profile *p = job_profile(s, j);
	double		thr;
	int			a;

	if (gpus <= 0 || type < 0 || type >= s->ntypes)
		return 0.0;
	if (!(alpha >= 0) || !isfinite(alpha))
		alpha = 1.0;
	if (p != NULL && p->npoints > 0)
	{
		thr = mx_profile_thr(p, type, gpus, alpha);
		if (thr >= 0)
			return thr;
		a = anchor_type(s, p, j->ref_type);
		if (a >= 0)
		{
			thr = mx_profile_thr(p, a, gpus, alpha);
			if (thr > 0)
				return thr * type_speed(s, type) / type_speed(s, a);
			/* the anchor cannot run n GPUs: try the other measured types */
			for (a = 0; a < s->ntypes; a++)
			{
				if (!mx_profile_has_positive(p, a))
					continue;
				thr = mx_profile_thr(p, a, gpus, alpha);
				if (thr > 0)
					return thr * type_speed(s, type) / type_speed(s, a);
			}
			return 0.0;
		}
		/* only zero points: fall through to the scaling model */
	}
	return type_speed(s, type) * pow((double) gpus, alpha);
}

double
mx_ref_throughput(const mx_snapshot *s, const mx_job *j, double alpha)
{
	const mx_profile *p = job_profile(s, j);
	int			n = j->ref_gpus > 0 ? j->ref_gpus : 1;
	double		thr;

	if (!(alpha >= 0) || !isfinite(alpha))
		alpha = 1.0;
	if (j->ref_type >= 0 && j->ref_type < s->ntypes)
		return mx_throughput(s, j, j->ref_type, n, alpha);
	/* stated for n GPUs of speed 1.0: a registered speed-1.0 type when one can run it */
	if (p != NULL && p->npoints > 0)
	{
		int			t;

		for (t = 0; t < s->ntypes; t++)
			if (s->types[t].speed == 1.0)
			{
				thr = mx_throughput(s, j, t, n, alpha);
				if (thr > 0)
					return thr;
			}
	}
	/* else converted from a measured type by its speed */
	if (p != NULL && p->npoints > 0)
	{
		int			a = anchor_type(s, p, -1);

		if (a >= 0)
		{
			thr = mx_profile_thr(p, a, n, alpha);
			if (thr > 0)
				return thr / type_speed(s, a);
		}
	}
	return pow((double) n, alpha);
}

/* GPUs of each type on up nodes */
static void
up_totals(const mx_snapshot *s, int *tot)
{
	int			i;

	for (i = 0; i < s->ntypes; i++)
		tot[i] = 0;
	for (i = 0; i < s->nnodes; i++)
	{
		const mx_node *nd = &s->nodes[i];

		if (nd->status == MX_NODE_UP && nd->type >= 0 && nd->type < s->ntypes && nd->gpus > 0)
			tot[nd->type] += nd->gpus > MX_MAX_NODE_GPUS ? MX_MAX_NODE_GPUS : nd->gpus;
	}
}

uint64_t
mx_job_types(const mx_snapshot *s, const mx_job *j)
{
	uint64_t	all = s->ntypes >= 64 ? ~(uint64_t) 0 : (((uint64_t) 1 << s->ntypes) - 1);

	if (j->cls == MX_HARD)
		return (j->ref_type >= 0 && j->ref_type < s->ntypes) ? ((uint64_t) 1 << j->ref_type) : 0;
	if (j->allowed == 0)
		return all;				/* no restriction given: every type */
	return j->allowed & all;
}

static void
soft_range(const mx_job *j, int *lo, int *hi)
{
	int			a = j->min_gpus > 0 ? j->min_gpus : (j->ref_gpus > 0 ? j->ref_gpus : 1);
	int			b = j->max_gpus > 0 ? j->max_gpus : (j->ref_gpus > 0 ? j->ref_gpus : a);

	if (b < a)
		b = a;
	*lo = a;
	*hi = b;
}

/* Candidate GPU counts of a soft job: min, max, ref (if inside), powers of two between; sorted. */
static int
soft_counts(const mx_job *j, int *out)
{
	int			lo,
				hi,
				n = 0,
				i,
				k;
	long		p2;

	soft_range(j, &lo, &hi);
	out[n++] = lo;
	for (p2 = 1; p2 < hi; p2 *= 2)
		if (p2 > lo)
			out[n++] = (int) p2;
	if (hi != lo)
		out[n++] = hi;
	if (j->ref_gpus > lo && j->ref_gpus < hi)
	{
		for (i = 0; i < n && out[i] < j->ref_gpus; i++)
			;
		if (i >= n || out[i] != j->ref_gpus)
		{
			for (k = n; k > i; k--)
				out[k] = out[k - 1];
			out[i] = j->ref_gpus;
			n++;
		}
	}
	return n;
}

int
mx_job_configs_max(const mx_snapshot *s, const mx_job *j)
{
	int			counts[40];
	uint64_t	m;
	int			nt = 0,
				k;

	if (j->cls == MX_HARD)
		return 1;
	m = mx_job_types(s, j);
	for (k = 0; k < s->ntypes && k < 64; k++)
		if (m & ((uint64_t) 1 << k))
			nt++;
	return nt * soft_counts(j, counts);
}

int
mx_job_configs_buf(const mx_snapshot *s, const mx_job *j, double alpha, mx_config **buf, int *cap)
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

/*
 * mx_job_configs() with or without the run-time limit; without it only to
 * tell a job whose every configuration runs too long from one that fits
 * nowhere (mx_job_explain).
 */
static int	job_configs(const mx_snapshot *s, const mx_job *j, double alpha, mx_config *out,
						int max, int limited);

int
mx_job_configs(const mx_snapshot *s, const mx_job *j, double alpha, mx_config *out, int max)
{
	return job_configs(s, j, alpha, out, max, 1);
}

int
mx_job_fits_ever(const mx_snapshot *s, const mx_job *j, double alpha)
{
	int			mx = mx_job_configs_max(s, j),
				n;
	mx_config  *cf;

	if (mx <= 0 || (cf = malloc((size_t) mx * sizeof(mx_config))) == NULL)
		return 0;
	n = job_configs(s, j, alpha, cf, mx, 0);
	free(cf);
	return n > 0;
}

/* The hard job's one configuration, as it asked: 1, or 0 when it cannot run. */
static int
hard_config(const mx_job *j, int ntypes, const int *tot, mx_config *out, int limited)
{
	int			t = j->ref_type;

	if (t < 0 || t >= ntypes || j->ref_gpus <= 0 || tot[t] < j->ref_gpus ||
		(limited && !mx_runtime_ok(j->duration)))
		return 0;
	out[0].type = t;
	out[0].gpus = j->ref_gpus;
	out[0].utility = 1.0;
	out[0].runtime = j->duration;
	return 1;
}

/*
 * A soft job's utility on count GPUs of type k: its throughput there over
 * the reference's (ref > 0); when the reference cannot run the model
 * (ref = -1), in the speed model's units, still honouring measured zero
 * points. Not positive and finite when it cannot run there.
 */
static double
soft_utility(const mx_snapshot *s, const mx_job *j, int k, int count, double ref, double alpha)
{
	double		thr = mx_throughput(s, j, k, count, alpha);
	mx_job		j2;

	if (ref > 0)
		return thr / ref;
	if (!(thr > 0))
		return 0.0;
	j2 = *j;
	j2.profile = -1;
	return mx_throughput(s, &j2, k, count, alpha) / mx_ref_throughput(s, &j2, alpha);
}

/* What a soft job's configurations are drawn from. */
typedef struct soft_query
{
	int			counts[40];		/* GPU counts it may take, ascending */
	int			ncounts;
	const int  *tot;			/* up GPUs per type */
	double		ref;			/* reference throughput, -1: speed units */
	double		alpha;
	int			limited;		/* apply the run-time limit */
	int			max;			/* room in out */
} soft_query;

/*
 * Append a soft job's configurations on type k to out[0..n): each count
 * that fits, unless a smaller count of the type has at least its utility.
 * The new n (at most q->max).
 */
static int
type_configs(const mx_snapshot *s, const mx_job *j, int k, const soft_query *q, mx_config *out, int n)
{
	int			first = n;

	for (int i = 0; i < q->ncounts && q->counts[i] <= q->tot[k]; i++)
	{
		double		u = soft_utility(s, j, k, q->counts[i], q->ref, q->alpha);
		int			dominated = 0;

		if (!(u > 0) || !isfinite(u) || (q->limited && !mx_runtime_ok(j->duration / u)))
			continue;
		for (int c = first; c < n && !dominated; c++)
			dominated = out[c].utility >= u;
		if (dominated)
			continue;
		if (n >= q->max)
			return n;
		out[n].type = k;
		out[n].gpus = q->counts[i];
		out[n].utility = u;
		out[n].runtime = j->duration / u;
		n++;
	}
	return n;
}

static int
job_configs(const mx_snapshot *s, const mx_job *j, double alpha, mx_config *out, int max, int limited)
{
	int			tot[MX_MAX_TYPES];
	soft_query	q = {.tot = tot, .alpha = alpha, .limited = limited, .max = max};
	uint64_t	m;
	int			n = 0;

	if (s->ntypes <= 0 || s->ntypes > MX_MAX_TYPES || max <= 0 || !(j->duration > 0) ||
		!isfinite(j->duration) || j->refuse != NULL)
		return 0;
	up_totals(s, tot);
	q.ref = mx_ref_throughput(s, j, alpha);
	if (!(q.ref > 0) || !isfinite(q.ref))
	{
		if (j->cls == MX_HARD)
			return 0;
		/* the reference cannot run the model: measure soft configs in speed units */
		q.ref = -1;
	}
	if (j->cls == MX_HARD)
		return hard_config(j, s->ntypes, tot, out, limited);
	m = mx_job_types(s, j);
	q.ncounts = soft_counts(j, q.counts);
	for (int k = 0; k < s->ntypes && n < max; k++)
		if (m & ((uint64_t) 1 << k))
			n = type_configs(s, j, k, &q, out, n);
	return n;
}

static void
append(char *buf, size_t len, const char *fmt, const char *a)
{
	size_t		l = strlen(buf);

	if (l + 1 < len)
		snprintf(buf + l, len - l, fmt, a);
}

/*
 * 1 with the reason in buf when j has configurations, but each would run
 * longer than MX_MAX_RUNTIME_S (an absurd duration on a very slow type or a
 * tiny measured throughput).
 */
static int
explain_runtime(const mx_snapshot *s, const mx_job *j, double alpha, char *buf, size_t len)
{
	int			mx = mx_job_configs_max(s, j),
				n,
				c,
				best = 0;
	mx_config  *cf;

	if (mx <= 0 || (cf = malloc((size_t) mx * sizeof(mx_config))) == NULL)
		return 0;
	n = job_configs(s, j, alpha, cf, mx, 0);
	for (c = 1; c < n; c++)
		if (cf[c].runtime < cf[best].runtime)
			best = c;
	if (n > 0)
		snprintf(buf, len, "its shortest run time (%.3g days on %d %s GPU%s) exceeds the limit of %.0f days",
				 cf[best].runtime / 86400.0, cf[best].gpus, s->types[cf[best].type].name,
				 cf[best].gpus == 1 ? "" : "s", MX_MAX_RUNTIME_S / 86400.0);
	free(cf);
	return n > 0;
}

/* Why a hard-model job cannot run: its one type and count against the up nodes. */
static void
explain_hard(const mx_snapshot *s, const mx_job *j, const int *tot, const int *exists, char *buf, size_t len)
{
	int			t = j->ref_type;
	const char *tn;

	if (t < 0 || t >= s->ntypes)
	{
		snprintf(buf, len, "a hard-model job needs a GPU type");
		return;
	}
	tn = s->types[t].name;
	if (j->ref_gpus <= 0)
		snprintf(buf, len, "needs a positive GPU count");
	else if (tot[t] == 0 && exists[t] == 0)
		snprintf(buf, len, "no node has a %s", tn);
	else if (tot[t] == 0)
		snprintf(buf, len, "no up node has a %s (%d %s node%s draining, down or unreachable)",
				 tn, exists[t], tn, exists[t] == 1 ? "" : "s");
	else if (tot[t] < j->ref_gpus)
		snprintf(buf, len, "needs %d GPUs of type %s, the cluster has %d up",
				 j->ref_gpus, tn, tot[t]);
	else if (j->profile >= 0 && j->profile < s->nprofiles)
		snprintf(buf, len, "the profile of model %s says %d %s GPUs cannot run it",
				 s->profiles[j->profile].model, j->ref_gpus, tn);
	else
		snprintf(buf, len, "the requested configuration cannot run");
}

/* Why a soft-model job cannot run: its allowed types and range against the up nodes. */
static void
explain_soft(const mx_snapshot *s, const mx_job *j, const int *tot, const int *exists, char *buf, size_t len)
{
	uint64_t	m = mx_job_types(s, j);
	int			k,
				i = 0,
				lo,
				hi,
				best = -1;

	soft_range(j, &lo, &hi);
	for (k = 0; k < s->ntypes; k++)
		if ((m & ((uint64_t) 1 << k)) && (best < 0 || tot[k] > tot[best]))
			best = k;
	if (m == 0)
		snprintf(buf, len, "none of the allowed GPU types is registered");
	else if (tot[best] == 0)
	{
		int			nodes = 0;

		snprintf(buf, len, "no up node has an allowed GPU type (");
		for (k = 0; k < s->ntypes; k++)
			if (m & ((uint64_t) 1 << k))
			{
				append(buf, len, i ? ", %s" : "%s", s->types[k].name);
				nodes += exists[k];
				i++;
			}
		/* unreachable: status up, but its launcher's lease ran out (snapshot_read.c) */
		append(buf, len, "%s", nodes == 0 ? "; no node has any of them)"
			   : "; their nodes are draining, down or unreachable)");
	}
	else if (tot[best] < lo)
		snprintf(buf, len, "needs at least %d GPUs of one type, the cluster has at most %d up (%s)",
				 lo, tot[best], s->types[best].name);
	else if (j->profile >= 0 && j->profile < s->nprofiles)
		snprintf(buf, len, "the profile of model %s says no configuration that fits can run it",
				 s->profiles[j->profile].model);
	else
		snprintf(buf, len, "no configuration fits the cluster");
}

/* 1: j has a configuration; 0: none; -1: out of memory. */
static int
has_config(const mx_snapshot *s, const mx_job *j, double alpha)
{
	int			mx = mx_job_configs_max(s, j),
				n;
	mx_config  *tmp;

	if (mx <= 0)
		return 0;
	tmp = malloc((size_t) mx * sizeof(mx_config));
	if (tmp == NULL)
		return -1;
	n = mx_job_configs(s, j, alpha, tmp, mx);
	free(tmp);
	return n > 0;
}

int
mx_job_explain(const mx_snapshot *s, const mx_job *j, double alpha, char *buf, size_t len)
{
	int			tot[MX_MAX_TYPES];
	int			exists[MX_MAX_TYPES];
	int			k,
				i,
				has;

	if (len == 0)
		return 0;
	buf[0] = '\0';
	if (s->ntypes <= 0 || s->ntypes > MX_MAX_TYPES)
	{
		snprintf(buf, len, "no GPU types are registered");
		return 1;
	}
	if (j->refuse != NULL)
	{
		snprintf(buf, len, "%s", j->refuse);
		return 1;
	}
	if (!(j->duration > 0) || !isfinite(j->duration))
	{
		snprintf(buf, len, "duration must be a positive number of seconds");
		return 1;
	}
	has = has_config(s, j, alpha);
	if (has != 0)
		return 0;				/* it can run (or, out of memory, it is not refused) */
	if (mx_job_configs_max(s, j) > 0 && explain_runtime(s, j, alpha, buf, len))
		return 1;
	up_totals(s, tot);
	for (k = 0; k < s->ntypes; k++)
		exists[k] = 0;
	for (i = 0; i < s->nnodes; i++)
		if (s->nodes[i].type >= 0 && s->nodes[i].type < s->ntypes)
			exists[s->nodes[i].type]++;
	if (j->cls == MX_HARD)
		explain_hard(s, j, tot, exists, buf, len);
	else
		explain_soft(s, j, tot, exists, buf, len);
	return 1;
}
