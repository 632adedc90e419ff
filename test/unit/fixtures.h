/*
 * fixtures.h — snapshot builders, a seeded generator and an independent
 * capacity checker for the core's unit tests (test_*.c).
 */
#ifndef MIXDNN_TEST_FIXTURES_H
#define MIXDNN_TEST_FIXTURES_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot.h"
#include "plan.h"
#include "planner.h"

#define NOW 1700000000.0

static inline void
fx_init(mx_snapshot *s, double now)
{
	memset(s, 0, sizeof(*s));
	s->now = now;
}

#define FX_GROW(arr, n) ((arr) = realloc((arr), ((size_t) (n) + 1) * sizeof(*(arr))))

static inline int
fx_type(mx_snapshot *s, const char *name, double speed)
{
	FX_GROW(s->types, s->ntypes);
	memset(&s->types[s->ntypes], 0, sizeof(mx_gpu_type));
	snprintf(s->types[s->ntypes].name, MX_NAME_LEN, "%s", name);
	s->types[s->ntypes].speed = speed;
	return s->ntypes++;
}

/* an owner without quotas; its index */
static inline int
fx_owner(mx_snapshot *s, const char *name, double shares)
{
	mx_owner   *w;

	FX_GROW(s->owners, s->nowners);
	w = &s->owners[s->nowners];
	memset(w, 0, sizeof(*w));
	snprintf(w->name, MX_NAME_LEN, "%s", name);
	w->shares = shares;
	w->quota_all = -1;
	for (int k = 0; k < MX_MAX_TYPES; k++)
		w->quota[k] = -1;
	return s->nowners++;
}

static inline int
fx_node(mx_snapshot *s, const char *name, int type, int gpus, mx_node_status st)
{
	FX_GROW(s->nodes, s->nnodes);
	memset(&s->nodes[s->nnodes], 0, sizeof(mx_node));
	snprintf(s->nodes[s->nnodes].name, MX_NAME_LEN, "%s", name);
	s->nodes[s->nnodes].type = type;
	s->nodes[s->nnodes].gpus = gpus;
	s->nodes[s->nnodes].status = st;
	return s->nnodes++;
}

/* a running part; marks the node's lowest free GPUs busy */
static inline void
fx_part(mx_snapshot *s, int64_t job_id, int node, int gpus, double end)
{
	int			i,
				k = gpus;

	FX_GROW(s->parts, s->nparts);
	s->parts[s->nparts].job_id = job_id;
	s->parts[s->nparts].node = node;
	s->parts[s->nparts].gpus = gpus;
	s->parts[s->nparts].expected_end = end;
	s->nparts++;
	for (i = 0; i < s->nodes[node].gpus && k > 0; i++)
		if (!(s->nodes[node].busy & ((uint64_t) 1 << i)))
		{
			s->nodes[node].busy |= (uint64_t) 1 << i;
			k--;
		}
}

static inline mx_job *
fx_hard(mx_snapshot *s, int64_t id, int type, int gpus, double duration)
{
	mx_job	   *j;

	FX_GROW(s->jobs, s->njobs);
	j = &s->jobs[s->njobs++];
	memset(j, 0, sizeof(*j));
	j->job_id = id;
	j->cls = MX_HARD;
	j->ref_type = type;
	j->ref_gpus = gpus;
	j->min_gpus = j->max_gpus = gpus;
	j->allowed = type >= 0 ? ((uint64_t) 1 << type) : 0;
	j->duration = duration;
	j->submitted = s->now;
	j->profile = -1;
	j->prev_type = -1;
	return j;
}

static inline mx_job *
fx_soft(mx_snapshot *s, int64_t id, int type, int gpus, int mn, int mx, uint64_t allowed,
		double duration)
{
	mx_job	   *j = fx_hard(s, id, type, gpus, duration);

	j->cls = MX_SOFT;
	j->min_gpus = mn;
	j->max_gpus = mx;
	j->allowed = allowed;
	return j;
}

static inline int
fx_profile(mx_snapshot *s, const char *model)
{
	FX_GROW(s->profiles, s->nprofiles);
	memset(&s->profiles[s->nprofiles], 0, sizeof(mx_profile));
	snprintf(s->profiles[s->nprofiles].model, MX_NAME_LEN, "%s", model);
	return s->nprofiles++;
}

static inline void
fx_point(mx_snapshot *s, int prof, int type, int gpus, double thr)
{
	mx_profile *p = &s->profiles[prof];

	FX_GROW(p->points, p->npoints);
	p->points[p->npoints].type = type;
	p->points[p->npoints].gpus = gpus;
	p->points[p->npoints].thr = thr;
	p->npoints++;
}

/* A hand-made plan: job i on (type, gpus) from start for len seconds. */
static inline void
fx_put(mx_plan *p, int i, int type, int gpus, double start, double len)
{
	p->a[i].job = i;
	p->a[i].status = MX_PLANNED;
	p->a[i].type = type;
	p->a[i].gpus = gpus;
	p->a[i].start = start;
	p->a[i].end = start + len;
}

/* ------------------------------------------------------------- random */

static uint64_t fx_rng = 88172645463325252ULL;

static inline void
fx_seed(uint64_t s)
{
	fx_rng = s * 2654435761ULL + 1;
}

static inline uint64_t
fx_next(void)
{
	fx_rng ^= fx_rng << 13;
	fx_rng ^= fx_rng >> 7;
	fx_rng ^= fx_rng << 17;
	return fx_rng;
}

static inline int
fx_int(int lo, int hi)			/* [lo, hi] */
{
	return lo + (int) (fx_next() % (uint64_t) (hi - lo + 1));
}

static inline double
fx_unif(void)
{
	return (fx_next() >> 11) * (1.0 / 9007199254740992.0);
}

/*
 * A random heterogeneous cluster (3 types, up/draining/down nodes, running
 * parts, some past their end) and njobs random hard/soft jobs, some with
 * profiles holding zero points.
 */
static inline void
fx_random(mx_snapshot *s, uint64_t seed, int nnodes, int njobs)
{
	int			i,
				t;
	static const double speeds[3] = {1.0, 3.3, 4.1};
	static const char *names[3] = {"k80", "p100", "v100"};
	int			prof;

	fx_seed(seed);
	fx_init(s, NOW);
	for (t = 0; t < 3; t++)
		fx_type(s, names[t], speeds[t]);
	for (i = 0; i < nnodes; i++)
	{
		char		nm[32];
		int			st = fx_int(0, 9);
		int			n;

		snprintf(nm, sizeof(nm), "n%d", i);
		n = fx_node(s, nm, i % 3, fx_int(0, 1) ? 8 : 4,
					st == 0 ? MX_NODE_DOWN : st == 1 ? MX_NODE_DRAINING : MX_NODE_UP);
		if (s->nodes[n].status != MX_NODE_DOWN && fx_int(0, 2) > 0)
		{
			int			g = fx_int(1, s->nodes[n].gpus);

			fx_part(s, 100000 + i, n, g, NOW + fx_int(-3000, 7200));	/* a third overdue, by up to 50 min */
			if (g < s->nodes[n].gpus && fx_int(0, 1))
				fx_part(s, 200000 + i, n, fx_int(1, s->nodes[n].gpus - g), NOW + fx_int(1, 3600));
		}
	}
	prof = fx_profile(s, "m0");
	fx_point(s, prof, 0, 1, 10);
	fx_point(s, prof, 0, 2, 0);		/* cannot run on 2 k80 */
	fx_point(s, prof, 2, 1, 45);
	fx_point(s, prof, 2, 4, 150);
	for (i = 0; i < njobs; i++)
	{
		mx_job	   *j;
		int			ty = fx_int(0, 2);
		int			g = 1 << fx_int(0, 3);
		double		d = 60.0 * fx_int(1, 120);

		if (fx_int(0, 3) == 0)
			j = fx_hard(s, i + 1, ty, g, d);
		else
		{
			int			mn = fx_int(1, g);
			int			mx = g * fx_int(1, 2);

			j = fx_soft(s, i + 1, fx_int(0, 4) == 0 ? -1 : ty, g, mn, mx,
						fx_int(0, 2) == 0 ? 0 : (uint64_t) fx_int(1, 7), d);
		}
		j->priority = fx_int(0, 3) == 0 ? fx_int(-10, 20) : 0;
		j->submitted = NOW - fx_int(0, 7200);
		if (fx_int(0, 4) == 0)
			j->profile = prof;
	}
}

/* ------------------------------------------------------- plan checking */

/*
 * Independent check of the capacity invariant over time: for every type and
 * every instant at which something starts, the GPUs of running parts on up
 * nodes (held until their end; past it, now + the larger of overrun and
 * factor x the time past it, written out here apart from overrun.c) plus those of the
 * planned jobs active then never exceed the type's GPUs on up nodes.
 * Returns the number of violations (0 = fine); also counts planned jobs
 * starting before now or with end <= start.
 */
static inline int
fx_plan_violations(const mx_snapshot *s, const mx_plan *p, double overrun, double factor)
{
	int			k,
				i,
				q,
				bad = 0;

	for (i = 0; i < p->n; i++)
		if (p->a[i].status == MX_PLANNED &&
			(p->a[i].start < s->now - 1e-6 || !(p->a[i].end > p->a[i].start)))
			bad++;
	for (k = 0; k < s->ntypes; k++)
	{
		int			total = 0;

		for (i = 0; i < s->nnodes; i++)
			if (s->nodes[i].status == MX_NODE_UP && s->nodes[i].type == k)
				total += s->nodes[i].gpus;
		/* instants: now and every planned start of this type */
		for (q = -1; q < p->n; q++)
		{
			double		t;
			int			used = 0;

			if (q >= 0 && (p->a[q].status != MX_PLANNED || p->a[q].type != k))
				continue;
			t = q < 0 ? s->now : p->a[q].start;
			for (i = 0; i < s->nparts; i++)
			{
				const mx_running_part *rp = &s->parts[i];
				double		late = s->now - rp->expected_end;
				double		end = rp->expected_end > s->now ? rp->expected_end :
					s->now + (factor * late > overrun ? factor * late : overrun);

				if (s->nodes[rp->node].status == MX_NODE_UP && s->nodes[rp->node].type == k &&
					end > t)
					used += rp->gpus;
			}
			for (i = 0; i < p->n; i++)
				if (p->a[i].status == MX_PLANNED && p->a[i].type == k &&
					p->a[i].start <= t && t < p->a[i].end)
					used += p->a[i].gpus;
			if (used > total)
				bad++;
		}
	}
	return bad;
}

static inline int
fx_same_assignments(const mx_plan *a, const mx_plan *b)
{
	int			i;

	if (a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++)
	{
		const mx_assignment *x = &a->a[i],
				   *y = &b->a[i];

		if (x->status != y->status || x->type != y->type || x->gpus != y->gpus)
			return 0;
		if (x->status == MX_PLANNED && (x->start != y->start || x->end != y->end))
			return 0;
		if (strcmp(x->reason, y->reason) != 0)
			return 0;
	}
	return 1;
}

/* Every job of s takes its configuration and start in plan p as the previous plan. */
static inline void
fx_set_previous_plan(mx_snapshot *s, const mx_plan *p)
{
	for (int k = 0; k < p->n; k++)
	{
		const mx_assignment *a = &p->a[k];
		mx_job	   *j = &s->jobs[a->job];

		j->prev_type = a->status == MX_PLANNED ? a->type : -1;
		j->prev_gpus = a->status == MX_PLANNED ? a->gpus : 0;
		j->prev_start = a->status == MX_PLANNED ? a->start : 0;
	}
}

#endif
