/*
 * freepool.c — free GPUs now and their expected releases (freepool.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "freepool.h"

/* Insert (t, gpus) into type k's releases, keeping them sorted by t (stable). */
static int
add_release(mx_freepool *p, int k, double t, int gpus)
{
	int			i;

	if (gpus <= 0)
		return 0;
	if (p->nrel[k] >= p->caprel[k])
	{
		int			nc = p->caprel[k] > 0 ? 2 * p->caprel[k] : 8;
		mx_release *nr = realloc(p->rel[k], (size_t) nc * sizeof(mx_release));

		if (nr == NULL)
			return -1;
		p->rel[k] = nr;
		p->caprel[k] = nc;
	}
	for (i = p->nrel[k]; i > 0 && p->rel[k][i - 1].t > t; i--)
		p->rel[k][i] = p->rel[k][i - 1];
	p->rel[k][i].t = t;
	p->rel[k][i].gpus = gpus;
	p->nrel[k]++;
	return 0;
}

/* One up node: its free GPUs now, and its held GPUs' releases (at most its busy count). */
static int
add_node(mx_freepool *p, const mx_snapshot *s, int ni)
{
	const mx_node *nd = &s->nodes[ni];
	int			g = nd->gpus > MX_MAX_NODE_GPUS ? MX_MAX_NODE_GPUS : nd->gpus;
	uint64_t	mask = g >= 64 ? ~(uint64_t) 0 : (((uint64_t) 1 << g) - 1);
	int			busy = __builtin_popcountll(nd->busy & mask),
				left,
				i;

	p->total[nd->type] += g;
	p->free_now[nd->type] += g - busy;
	left = busy;
	for (i = 0; i < s->nparts && left > 0; i++)
	{
		const mx_running_part *rp = &s->parts[i];
		int			n = rp->gpus < left ? rp->gpus : left;
		double		t = rp->expected_end;

		if (rp->node != ni || n <= 0)
			continue;
		if (!(t > p->now))
			t = p->now;			/* outlived its expected end (or none): ending now */
		if (add_release(p, nd->type, t, n) < 0)
			return -1;
		left -= n;
	}
	return add_release(p, nd->type, p->now, left);
}

int
mx_freepool_init(mx_freepool *p, const mx_snapshot *s)
{
	int			i;

	memset(p, 0, sizeof(*p));
	p->now = s->now;
	p->ntypes = s->ntypes < MX_MAX_TYPES ? s->ntypes : MX_MAX_TYPES;
	for (i = 0; i < s->nnodes; i++)
	{
		const mx_node *nd = &s->nodes[i];

		if (nd->status != MX_NODE_UP || nd->type < 0 || nd->type >= p->ntypes || nd->gpus <= 0)
			continue;
		if (add_node(p, s, i) < 0)
		{
			mx_freepool_free(p);
			return -1;
		}
	}
	return 0;
}

void
mx_freepool_free(mx_freepool *p)
{
	int			k;

	for (k = 0; k < MX_MAX_TYPES; k++)
		free(p->rel[k]);
	memset(p, 0, sizeof(*p));
}

double
mx_freepool_earliest(const mx_freepool *p, int type, int gpus)
{
	int			have,
				i;

	if (type < 0 || type >= p->ntypes || gpus > p->total[type])
		return INFINITY;
	have = p->free_now[type];
	if (have >= gpus)
		return p->now;
	for (i = 0; i < p->nrel[type]; i++)
	{
		have += p->rel[type][i].gpus;
		if (have >= gpus)
			return p->rel[type][i].t;
	}
	return INFINITY;
}

int
mx_freepool_take(mx_freepool *p, int type, int gpus, double end)
{
	if (type < 0 || type >= p->ntypes || gpus <= 0 || p->free_now[type] < gpus)
		return -1;
	if (add_release(p, type, end > p->now ? end : p->now, gpus) < 0)
		return -1;
	p->free_now[type] -= gpus;
	return 0;
}
