/*
 * gen.c — seeded scheduling instances for bin/mixdnn-bench (gen.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "placement.h"

/* ------------------------------------------------------------------ RNG */

static uint64_t
splitmix64(uint64_t *x)
{
	uint64_t	z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void
bench_rng_seed(bench_rng *r, uint64_t seed)
{
	uint64_t	x = seed;
	int			i;

	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

static uint64_t
rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t
bench_rng_next(bench_rng *r)
{
	uint64_t   *s = r->s;
	uint64_t	out = rotl(s[1] * 5, 7) * 9;
	uint64_t	t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

double
bench_rng_unif(bench_rng *r)
{
	return (bench_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

double
bench_rng_normal(bench_rng *r)
{
	double		u1 = bench_rng_unif(r),
				u2 = bench_rng_unif(r);

	if (u1 < 1e-300)
		u1 = 1e-300;
	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

/* ------------------------------------------------------------ parameters */

void
bench_params_default(bench_params *p)
{
	memset(p, 0, sizeof(*p));
	p->waiting = 50;
	p->gpus = 64;
	p->types = 3;
	p->node_gpus = 8;
	p->seed = 1;
	p->busy = 0.5;
	p->soft_share = 0.5;
	p->running_span_s = 6 * 3600.0;
	/* ln(duration) of the 82,247 Philly jobs in pollux/philly.csv: mean 6.79, sd 2.16 */
	p->dur_mu = 6.79;
	p->dur_sigma = 2.16;
	p->dur_min_s = 60.0;
	p->dur_max_s = 7 * 86400.0;
	p->wait_max_s = 4 * 3600.0;
	p->prio_share = 0.2;
	p->dist = BENCH_DIST_PHILLY;
	p->now = 1704067200.0;		/* 2024-01-01T00:00:00Z */
}

/* GPU type names and speeds, first T used (speeds roughly relative to a V100) */
static const struct
{
	const char *name;
	double		speed;
}			type_table[] = {
	{"v100", 1.0},
	{"a100", 2.0},
	{"p100", 0.6},
	{"k80", 0.3},
	{"h100", 3.5},
	{"t4", 0.5},
	{"a10", 0.8},
	{"l4", 0.7},
};

/*
 * GPU-count distributions. Philly: the job counts of pollux/philly.csv
 * (1: 93.17%, 2: 2.21%, 4: 2.27%, 8: 2.00%, 12/16: 0.25%, 24/32: 0.09%,
 * 64/128: 0.01%), with the rare sizes folded into 16 and 32.
 */
static const int dist_gpus[] = {1, 2, 4, 8, 16, 32};
static const double dist_philly[] = {0.9317, 0.0221, 0.0227, 0.0200, 0.0025, 0.0010};
static const double dist_heavy[] = {0.50, 0.15, 0.15, 0.12, 0.05, 0.03};

static int
draw_gpus(bench_rng *r, bench_gpu_dist d)
{
	const double *w = d == BENCH_DIST_HEAVY ? dist_heavy : dist_philly;
	double		tot = 0,
				u,
				acc = 0;
	int			i,
				n = (int) (sizeof(dist_gpus) / sizeof(dist_gpus[0]));

	for (i = 0; i < n; i++)
		tot += w[i];
	u = bench_rng_unif(r) * tot;
	for (i = 0; i < n; i++)
	{
		acc += w[i];
		if (u < acc)
			return dist_gpus[i];
	}
	return dist_gpus[n - 1];
}

/* largest power of two <= n (n >= 1) */
static int
pow2_floor(int n)
{
	int			p = 1;

	while (p * 2 <= n)
		p *= 2;
	return p;
}

/* What the phases of bench_generate share. */
typedef struct gen_state
{
	const bench_params *p;
	mx_snapshot *s;
	bench_rng	r;
	int		   *tot;			/* GPUs per type */
	int			maxtot;			/* of the largest type */
} gen_state;

/* Types: the table's, then copies a little faster. */
static int
gen_types(gen_state *g)
{
	mx_snapshot *s = g->s;
	int			nt = (int) (sizeof(type_table) / sizeof(type_table[0])),
				k;

	s->ntypes = g->p->types;
	s->types = calloc((size_t) s->ntypes, sizeof(mx_gpu_type));
	if (s->types == NULL)
		return -1;
	for (k = 0; k < s->ntypes; k++)
	{
		if (k < nt)
		{
			snprintf(s->types[k].name, MX_NAME_LEN, "%s", type_table[k].name);
			s->types[k].speed = type_table[k].speed;
		}
		else
		{
			snprintf(s->types[k].name, MX_NAME_LEN, "type%d", k);
			s->types[k].speed = type_table[k % nt].speed * (1.0 + 0.05 * (k / nt));
		}
	}
	return 0;
}

/* Nodes: G / node_gpus full nodes, a smaller last one; types round-robin. */
static int
gen_nodes(gen_state *g)
{
	const bench_params *p = g->p;
	mx_snapshot *s = g->s;
	int			T = s->ntypes,
				ng = p->node_gpus,
				nnodes = (p->gpus + ng - 1) / ng,
				i,
				k;

	s->nnodes = nnodes;
	s->nodes = calloc((size_t) nnodes, sizeof(mx_node));
	g->tot = calloc((size_t) T, sizeof(int));
	if (s->nodes == NULL || g->tot == NULL)
		return -1;
	for (i = 0; i < nnodes; i++)
	{
		mx_node    *nd = &s->nodes[i];
		int			gpus = (i == nnodes - 1) ? p->gpus - ng * (nnodes - 1) : ng;

		nd->type = i % T;
		nd->gpus = gpus;
		nd->status = MX_NODE_UP;
		nd->busy = 0;
		snprintf(nd->name, MX_NAME_LEN, "%s-%d", s->types[nd->type].name, i / T);
		g->tot[nd->type] += gpus;
	}
	for (k = 0; k < T; k++)
		if (g->tot[k] > g->maxtot)
			g->maxtot = g->tot[k];
	return 0;
}

/* Appends the np parts of running job id, ending at end. */
static int
add_running_parts(mx_snapshot *s, int *pcap, const mx_part *parts, int np, int64_t id, double end)
{
	int			i;

	for (i = 0; i < np; i++)
	{
		if (s->nparts >= *pcap)
		{
			int			nc = *pcap ? *pcap * 2 : 64;
			mx_running_part *nparts = realloc(s->parts, (size_t) nc * sizeof(mx_running_part));

			if (nparts == NULL)
				return -1;
			s->parts = nparts;
			*pcap = nc;
		}
		s->parts[s->nparts].job_id = id;
		s->parts[s->nparts].node = parts[i].node;
		s->parts[s->nparts].gpus = parts[i].gpus;
		s->parts[s->nparts].expected_end = end;
		s->nparts++;
	}
	return 0;
}

/* Running jobs: gang-placed with the core's placement, until busy * G are held. */
static int
gen_running(gen_state *g)
{
	const bench_params *p = g->p;
	mx_snapshot *s = g->s;
	mx_part    *parts = malloc((size_t) MX_MAX_NODE_GPUS * 64 * sizeof(mx_part));
	int			busy_target = (int) floor(p->busy * p->gpus + 0.5),
				busy = 0,
				fails = 0,
				pcap = 0;
	int64_t		next_id = 1;

	if (parts == NULL)
		return -1;
	while (busy < busy_target && fails < 1000)
	{
		int			gpus = draw_gpus(&g->r, p->dist),
					t = (int) (bench_rng_unif(&g->r) * s->ntypes),
					np;
		double		end = s->now + 60.0 + bench_rng_unif(&g->r) * (p->running_span_s - 60.0);

		if (gpus > busy_target - busy)
			gpus = busy_target - busy;
		if (gpus > g->tot[t])
			gpus = g->tot[t];
		np = mx_place(s->nodes, s->nnodes, t, gpus, parts, MX_MAX_NODE_GPUS * 64);
		if (np <= 0)
		{
			fails++;
			continue;
		}
		mx_place_commit(s->nodes, parts, np);
		if (add_running_parts(s, &pcap, parts, np, next_id, end) < 0)
		{
			free(parts);
			return -1;
		}
		next_id++;
		busy += gpus;
	}
	free(parts);
	return 0;
}

/* A soft job's range and allowed types, drawn after its common fields. */
static void
gen_soft(gen_state *g, mx_job *j, int gpus, int t)
{
	int			T = g->s->ntypes,
				lo,
				hi;

	if (gpus > g->maxtot)
		gpus = pow2_floor(g->maxtot);
	j->cls = MX_SOFT;
	/* half state their duration for speed-1.0 GPUs (no gpu_type) */
	j->ref_type = bench_rng_unif(&g->r) < 0.5 ? -1 : t;
	j->ref_gpus = gpus;
	/* the SQL defaults: min = max(1, gpus / 2), max = gpus; 30% may grow to 2 * gpus */
	lo = gpus / 2 > 1 ? gpus / 2 : 1;
	hi = bench_rng_unif(&g->r) < 0.3 ? 2 * gpus : gpus;
	if (hi > g->maxtot)
		hi = g->maxtot;
	if (hi < gpus)
		hi = gpus;
	j->min_gpus = lo;
	j->max_gpus = hi;
	/* 70% any type, 30% a random subset of at least two (when T >= 2) */
	if (T >= 2 && bench_rng_unif(&g->r) < 0.3)
	{
		uint64_t	m = 0;

		while (__builtin_popcountll(m) < 2)
			m |= (uint64_t) 1 << (int) (bench_rng_unif(&g->r) * T);
		if (j->ref_type >= 0)
			m |= (uint64_t) 1 << j->ref_type;
		j->allowed = m;
	}
	else
		j->allowed = 0;			/* every type */
}

/* Waiting jobs. */
static int
gen_waiting(gen_state *g)
{
	const bench_params *p = g->p;
	mx_snapshot *s = g->s;
	int			i;

	s->njobs = p->waiting;
	s->jobs = calloc((size_t) (p->waiting > 0 ? p->waiting : 1), sizeof(mx_job));
	if (s->jobs == NULL)
		return -1;
	for (i = 0; i < p->waiting; i++)
	{
		mx_job	   *j = &s->jobs[i];
		int			gpus = draw_gpus(&g->r, p->dist);
		double		u;
		int			soft = bench_rng_unif(&g->r) < p->soft_share;
		int			t = (int) (bench_rng_unif(&g->r) * s->ntypes);
		double		d = exp(p->dur_mu + p->dur_sigma * bench_rng_normal(&g->r));

		if (d < p->dur_min_s)
			d = p->dur_min_s;
		if (d > p->dur_max_s)
			d = p->dur_max_s;
		j->job_id = 1000000 + i;
		j->duration = d;
		j->submitted = s->now - bench_rng_unif(&g->r) * p->wait_max_s;
		u = bench_rng_unif(&g->r);
		j->priority = u >= p->prio_share ? 0 : (u < p->prio_share * 2.0 / 3.0 ? 10 : 20);
		j->profile = -1;
		j->prev_type = -1;
		j->prev_gpus = 0;
		j->prev_start = 0;
		if (soft)
		{
			gen_soft(g, j, gpus, t);
			continue;
		}
		if (gpus > g->tot[t])
			gpus = pow2_floor(g->tot[t]);
		j->cls = MX_HARD;
		j->ref_type = t;
		j->ref_gpus = gpus;
		j->min_gpus = j->max_gpus = gpus;
		j->allowed = (uint64_t) 1 << t;
	}
	return 0;
}

int
bench_generate(const bench_params *p, mx_snapshot *s)
{
	gen_state	g;
	int			rc;

	memset(s, 0, sizeof(*s));
	if (p->types < 1 || p->types > MX_MAX_TYPES || p->node_gpus < 1 || p->node_gpus > MX_MAX_NODE_GPUS ||
		p->gpus < p->types || p->waiting < 0)
		return -1;
	memset(&g, 0, sizeof(g));
	g.p = p;
	g.s = s;
	bench_rng_seed(&g.r, p->seed);
	s->now = p->now;
	rc = gen_types(&g) < 0 || gen_nodes(&g) < 0 || gen_running(&g) < 0 || gen_waiting(&g) < 0 ? -1 : 0;
	free(g.tot);
	if (rc < 0)
		mx_snapshot_free(s);
	return rc;
}
