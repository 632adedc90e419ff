/*
 * capacity.c — free GPUs of each type over time as a step function
 * (capacity.h).
 *
 * Only MX_NODE_UP nodes give capacity. GPUs of running parts on up nodes are
 * busy until the part's expected end (past it, the overrun rule of overrun.h).
 * Busy bits of a node that no running part explains are treated like a part
 * that ends at now + overrun_s. Steps are kept sorted by time, so lookups
 * are binary searches; a reservation splits at most two steps.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "capacity.h"
#include "overrun.h"

typedef struct cap_event
{
	double		t;
	int			delta;			/* GPUs freed at t */
} cap_event;

static int
cmp_event(const void *a, const void *b)
{
	const cap_event *x = a;
	const cap_event *y = b;

	if (x->t < y->t)
		return -1;
	if (x->t > y->t)
		return 1;
	return 0;
}

static int
popcount64(uint64_t v)
{
	int			n = 0;

	while (v)
	{
		v &= v - 1;
		n++;
	}
	return n;
}

static int
ensure_cap(mx_capacity *c, int k, int need)
{
	mx_step    *ns;
	int			nc;

	if (need <= c->cap[k])
		return 0;
	nc = c->cap[k] > 0 ? c->cap[k] : 8;
	while (nc < need)
		nc *= 2;
	ns = realloc(c->steps[k], (size_t) nc * sizeof(mx_step));
	if (ns == NULL)
		return -1;
	c->steps[k] = ns;
	c->cap[k] = nc;
	return 0;
}

/* What mx_capacity_init's phases share. */
typedef struct cap_build
{
	const mx_snapshot *s;
	double		now;
	double		overrun_s;
	double		overrun_factor;
	int		   *busy0;			/* busy GPUs of each type at now */
	cap_event  *ev;				/* decreases of busy, the type in delta's high bits */
	int			nev;
	cap_event  *local;			/* one node's releases */
	int		   *first,
			   *next;			/* the parts of each node, as lists */
} cap_build;

static int
node_counts(const mx_node *nd, int ntypes)
{
	int			g = nd->gpus > MX_MAX_NODE_GPUS ? MX_MAX_NODE_GPUS : nd->gpus;

	if (nd->status != MX_NODE_UP || nd->type < 0 || nd->type >= ntypes || g <= 0)
		return 0;
	return g;
}

/* The parts of each node, as linked lists in part order. */
static int
link_parts(cap_build *b)
{
	const mx_snapshot *s = b->s;
	int			i;

	b->local = malloc(((size_t) s->nparts + 1) * sizeof(cap_event));
	b->first = malloc((size_t) (s->nnodes > 0 ? s->nnodes : 1) * sizeof(int));
	b->next = malloc((size_t) (s->nparts > 0 ? s->nparts : 1) * sizeof(int));
	if (b->local == NULL || b->first == NULL || b->next == NULL)
		return -1;
	for (i = 0; i < s->nnodes; i++)
		b->first[i] = -1;
	for (i = s->nparts - 1; i >= 0; i--)
	{
		int			nd = s->parts[i].node;

		if (nd < 0 || nd >= s->nnodes)
			continue;
		b->next[i] = b->first[nd];
		b->first[nd] = i;
	}
	return 0;
}

/*
 * Node i's releases: its parts sorted by end; the node's busy count at time
 * t is min(gpus, held(t)) where held(t) = sum of parts ending after t plus
 * unexplained busy bits (ending at now + overrun_s). Emits the decreases of
 * busy into b->ev.
 */
static void
node_releases(cap_build *b, int i)
{
	const mx_node *nd = &b->s->nodes[i];
	int			g = node_counts(nd, b->s->ntypes),
				nl = 0,
				held = 0,
				bits,
				p,
				m,
				prev;
	uint64_t	mask;

	if (g == 0)
		return;
	for (p = b->first[i]; p >= 0; p = b->next[p])
	{
		const mx_running_part *rp = &b->s->parts[p];
		double		end = mx_overrun_end(rp->expected_end, b->now, b->overrun_s, b->overrun_factor);

		if (rp->gpus <= 0)
			continue;
		b->local[nl].t = end;
		b->local[nl].delta = rp->gpus;
		held += rp->gpus;
		nl++;
	}
	mask = g >= 64 ? ~(uint64_t) 0 : (((uint64_t) 1 << g) - 1);
	bits = popcount64(nd->busy & mask);
	if (bits > held)
	{
		b->local[nl].t = b->now + b->overrun_s;
		b->local[nl].delta = bits - held;
		held = bits;
		nl++;
	}
	if (nl == 0)
		return;
	qsort(b->local, nl, sizeof(cap_event), cmp_event);
	/* busy(t) = min(g, held(t)); emit the decreases of busy */
	prev = held < g ? held : g;
	b->busy0[nd->type] += prev;
	for (m = 0; m < nl; m++)
	{
		int			cur;

		held -= b->local[m].delta;
		cur = held < g ? held : g;
		if (cur < 0)
			cur = 0;
		if (cur != prev)
		{
			b->ev[b->nev].t = b->local[m].t;
			b->ev[b->nev].delta = (prev - cur) | (nd->type << 16);
			b->nev++;
			prev = cur;
		}
	}
}

/* The step functions from the events: free now, then each release in time order. */
static int
build_steps(mx_capacity *c, cap_build *b)
{
	int			k,
				i,
				j;

	/* events encode type in the high bits of delta; split them per type */
	qsort(b->ev, b->nev, sizeof(cap_event), cmp_event);
	for (k = 0; k < b->s->ntypes; k++)
	{
		int			free_now = c->total[k] - b->busy0[k];

		if (ensure_cap(c, k, 4) < 0)
			return -1;
		c->steps[k][0].t = b->now;
		c->steps[k][0].free = free_now < 0 ? 0 : free_now;
		c->nsteps[k] = 1;
	}
	for (i = 0; i < b->nev; i++)
	{
		int			k2 = b->ev[i].delta >> 16;
		int			d = b->ev[i].delta & 0xffff;
		int			ns = c->nsteps[k2];
		mx_step    *last = &c->steps[k2][ns - 1];

		if (b->ev[i].t <= last->t)
			last->free += d;
		else
		{
			if (ensure_cap(c, k2, ns + 1) < 0)
				return -1;
			c->steps[k2][ns].t = b->ev[i].t;
			c->steps[k2][ns].free = c->steps[k2][ns - 1].free + d;
			c->nsteps[k2] = ns + 1;
		}
	}
	for (k = 0; k < b->s->ntypes; k++)
		for (j = 0; j < c->nsteps[k]; j++)
			if (c->steps[k][j].free > c->total[k])
				c->steps[k][j].free = c->total[k];
	return 0;
}

int
mx_capacity_init(mx_capacity *c, const mx_snapshot *s, double overrun_s, double overrun_factor)
{
	cap_build	b;
	int			i,
				n,
				rc = -1;

	memset(c, 0, sizeof(*c));
	memset(&b, 0, sizeof(b));
	b.s = s;
	b.now = s->now;
	b.overrun_s = overrun_s < 0 || !isfinite(overrun_s) ? 0 : overrun_s;
	b.overrun_factor = overrun_factor;	/* mx_overrun_end cleans it */
	c->ntypes = s->ntypes;
	n = s->ntypes > 0 ? s->ntypes : 1;
	c->nsteps = calloc(n, sizeof(int));
	c->cap = calloc(n, sizeof(int));
	c->steps = calloc(n, sizeof(mx_step *));
	c->total = calloc(n, sizeof(int));
	b.busy0 = calloc(n, sizeof(int));
	/* per node at most (parts on it + 1) release events */
	b.ev = malloc(((size_t) s->nparts + (size_t) s->nnodes + 1) * sizeof(cap_event));
	if (c->nsteps && c->cap && c->steps && c->total && b.busy0 && b.ev && link_parts(&b) == 0)
	{
		for (i = 0; i < s->nnodes; i++)
			if (node_counts(&s->nodes[i], s->ntypes) > 0)
				c->total[s->nodes[i].type] += node_counts(&s->nodes[i], s->ntypes);
		for (i = 0; i < s->nnodes; i++)
			node_releases(&b, i);
		rc = build_steps(c, &b);
	}
	free(b.ev);
	free(b.busy0);
	free(b.local);
	free(b.first);
	free(b.next);
	if (rc < 0)
		mx_capacity_free(c);
	return rc;
}

void
mx_capacity_free(mx_capacity *c)
{
	int			k;

	if (c == NULL)
		return;
	if (c->steps != NULL)
		for (k = 0; k < c->ntypes; k++)
			free(c->steps[k]);
	free(c->steps);
	free(c->nsteps);
	free(c->cap);
	free(c->total);
	memset(c, 0, sizeof(*c));
}

int
mx_capacity_copy(mx_capacity *dst, const mx_capacity *src)
{
	int			k,
				n = src->ntypes > 0 ? src->ntypes : 1;

	memset(dst, 0, sizeof(*dst));
	dst->ntypes = src->ntypes;
	dst->nsteps = calloc(n, sizeof(int));
	dst->cap = calloc(n, sizeof(int));
	dst->steps = calloc(n, sizeof(mx_step *));
	dst->total = calloc(n, sizeof(int));
	if (!dst->nsteps || !dst->cap || !dst->steps || !dst->total)
		goto fail;
	for (k = 0; k < src->ntypes; k++)
	{
		if (ensure_cap(dst, k, src->nsteps[k] > 4 ? src->nsteps[k] : 4) < 0)
			goto fail;
		memcpy(dst->steps[k], src->steps[k], (size_t) src->nsteps[k] * sizeof(mx_step));
		dst->nsteps[k] = src->nsteps[k];
		dst->total[k] = src->total[k];
	}
	return 0;
fail:
	mx_capacity_free(dst);
	return -1;
}

/* Index of the step holding time t (the last step with steps[i].t <= t); 0 before the first. */
static int
step_index(const mx_capacity *c, int k, double t)
{
	const mx_step *st = c->steps[k];
	int			lo = 0,
				hi = c->nsteps[k] - 1;

	if (t <= st[0].t)
		return 0;
	while (lo < hi)
	{
		int			mid = lo + (hi - lo + 1) / 2;

		if (st[mid].t <= t)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

int
mx_capacity_free_at(const mx_capacity *c, int type, double t)
{
	if (type < 0 || type >= c->ntypes || c->nsteps[type] == 0)
		return 0;
	return c->steps[type][step_index(c, type, t)].free;
}

double
mx_capacity_free_seconds(const mx_capacity *c, int type, double from, double to)
{
	double		sum = 0;

	if (type < 0 || type >= c->ntypes)
		return 0;
	for (int i = 0; i < c->nsteps[type]; i++)
	{
		double		a = fmax(c->steps[type][i].t, from),
					z = i + 1 < c->nsteps[type] ? fmin(c->steps[type][i + 1].t, to) : to;

		if (z > a)
			sum += c->steps[type][i].free * (z - a);
	}
	return sum;
}

double
mx_capacity_earliest(const mx_capacity *c, int type, int gpus, double len, double from)
{
	const mx_step *st;
	int			n,
				i,
				j;
	double		t;

	if (type < 0 || type >= c->ntypes || c->nsteps[type] == 0)
		return INFINITY;
	if (gpus <= 0)
		return from > c->steps[type][0].t ? from : c->steps[type][0].t;
	if (gpus > c->total[type] || isnan(len) || len < 0)
		return INFINITY;
	st = c->steps[type];
	n = c->nsteps[type];
	t = from > st[0].t ? from : st[0].t;
	i = step_index(c, type, t);
	for (;;)
	{
		/* find a step at or after i with enough free GPUs */
		while (i < n && st[i].free < gpus)
			i++;
		if (i >= n)
			return INFINITY;
		if (st[i].t > t)
			t = st[i].t;
		/* check the rest of [t, t + len) */
		for (j = i + 1; j < n && st[j].t < t + len; j++)
			if (st[j].free < gpus)
				break;
		if (j < n && st[j].t < t + len)
		{
			i = j;				/* st[j] is too full: restart after it */
			continue;
		}
		return t;
	}
}

/* Make sure a step starts exactly at t (t > steps[0].t); returns its index or -1. */
static int
split_at(mx_capacity *c, int k, double t)
{
	int			i = step_index(c, k, t);
	int			n = c->nsteps[k];

	if (c->steps[k][i].t == t)
		return i;
	if (ensure_cap(c, k, n + 1) < 0)
		return -1;
	memmove(&c->steps[k][i + 2], &c->steps[k][i + 1], (size_t) (n - i - 1) * sizeof(mx_step));
	c->steps[k][i + 1].t = t;
	c->steps[k][i + 1].free = c->steps[k][i].free;
	c->nsteps[k] = n + 1;
	return i + 1;
}

/*
 * Add delta GPUs of type on [t, t + len): a reservation when negative, its
 * release when positive. Checked first, so nothing changes when a step
 * would go below zero or above the type's total.
 */
static int
adjust(mx_capacity *c, int type, int delta, double t, double len)
{
	int			i,
				a,
				b,
				n;
	double		end;
	mx_step    *st;

	if (type < 0 || type >= c->ntypes || c->nsteps[type] == 0 || isnan(t) || isnan(len))
		return -1;
	if (delta == 0 || len <= 0)
		return 0;
	if (!isfinite(t) || !isfinite(len))
		return -1;
	end = t + len;
	if (t < c->steps[type][0].t)
		t = c->steps[type][0].t;
	if (end <= t)
		return 0;
	st = c->steps[type];
	n = c->nsteps[type];
	for (i = step_index(c, type, t); i < n && st[i].t < end; i++)
		if (delta < -st[i].free || (delta > 0 && delta > c->total[type] - st[i].free))
			return -1;
	a = split_at(c, type, t);
	if (a < 0)
		return -1;
	b = split_at(c, type, end);
	if (b < 0)
		return -1;				/* the split at t changed no value */
	st = c->steps[type];
	for (i = a; i < b; i++)
		st[i].free += delta;
	/* merge equal neighbours around the reservation so steps stay few */
	n = c->nsteps[type];
	{
		int			lo = a > 0 ? a - 1 : 0;
		int			hi = b < n - 1 ? b + 1 : n - 1;
		int			w = lo + 1;

		for (i = lo + 1; i <= hi; i++)
		{
			if (st[i].free == st[w - 1].free)
				continue;
			st[w++] = st[i];
		}
		if (w <= hi)
		{
			memmove(&st[w], &st[hi + 1], (size_t) (n - hi - 1) * sizeof(mx_step));
			c->nsteps[type] = n - (hi + 1 - w);
		}
	}
	return 0;
}

int
mx_capacity_reserve(mx_capacity *c, int type, int gpus, double t, double len)
{
	return adjust(c, type, gpus > 0 ? -gpus : 0, t, len);
}

int
mx_capacity_release(mx_capacity *c, int type, int gpus, double t, double len)
{
	return adjust(c, type, gpus > 0 ? gpus : 0, t, len);
}

/*
 * Every reservation ends in a step where its GPUs come back, and equal
 * neighbours are merged, so each type's last step is its last end.
 */
double
mx_capacity_last_end(const mx_capacity *c)
{
	double		last = -INFINITY;

	for (int k = 0; k < c->ntypes; k++)
		if (c->nsteps[k] > 0 && c->steps[k][c->nsteps[k] - 1].t > last)
			last = c->steps[k][c->nsteps[k] - 1].t;
	return last;
}
