/*
 * placement.c — concrete nodes and GPU indices for a starting job
 * (placement.h). See docs/model.md, "Placement".
 */
#include <stdlib.h>

#include "placement.h"

static uint64_t
node_mask(const mx_node *nd)
{
	int			g = nd->gpus;

	if (g <= 0)
		return 0;
	if (g >= 64)
		return ~(uint64_t) 0;
	return ((uint64_t) 1 << g) - 1;
}

static int
node_free(const mx_node *nd)
{
	uint64_t	f = node_mask(nd) & ~nd->busy;
	int			n = 0;

	while (f)
	{
		f &= f - 1;
		n++;
	}
	return n;
}

/* the lowest k free GPU indices of nd */
static uint64_t
lowest_free(const mx_node *nd, int k)
{
	uint64_t	f = node_mask(nd) & ~nd->busy;
	uint64_t	out = 0;

	while (k > 0 && f)
	{
		uint64_t	b = f & (~f + 1);

		out |= b;
		f &= f - 1;
		k--;
	}
	return out;
}

/* A node that can take part of the job: its free GPUs of the type. */
typedef struct free_node
{
	int			free;
	int			node;
} free_node;

/* Most free GPUs first; among equals the lowest node index. */
static int
cmp_free_node(const void *a, const void *b)
{
	const free_node *x = a,
			   *y = b;

	if (x->free != y->free)
		return x->free > y->free ? -1 : 1;
	return (x->node > y->node) - (x->node < y->node);
}

/* Up nodes of the type with a free GPU, sorted; returns their count (-1: no memory). */
static int
free_nodes(const mx_node *nodes, int nnodes, int type, free_node *fn, long *total)
{
	int			m = 0;

	*total = 0;
	for (int i = 0; i < nnodes; i++)
	{
		int			f = (nodes[i].status == MX_NODE_UP && nodes[i].type == type) ? node_free(&nodes[i]) : 0;

		if (f <= 0)
			continue;
		fn[m].free = f;
		fn[m].node = i;
		*total += f;
		m++;
	}
	qsort(fn, (size_t) m, sizeof(free_node), cmp_free_node);
	return m;
}

/*
 * Best fit for the last need GPUs among fn[p..m), where fn[p] holds them:
 * the node with the fewest free GPUs that still holds them, the lowest
 * index among equals. The nodes that hold them are a prefix of fn[p..m);
 * the fit is the first of that prefix's last run of equal counts.
 */
static int
best_fit(const free_node *fn, int p, int m, int need)
{
	int			lo = p,
				hi = m;

	while (hi - lo > 1)			/* fn[lo].free >= need, fn[hi] (if any) < need */
	{
		int			mid = lo + (hi - lo) / 2;

		if (fn[mid].free >= need)
			lo = mid;
		else
			hi = mid;
	}
	hi = lo;
	lo = p;
	while (hi > lo)				/* first position with fn[].free == fn[hi].free */
	{
		int			mid = lo + (hi - lo) / 2;

		if (fn[mid].free > fn[hi].free)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Whole nodes, most free GPUs first, until one node holds the rest; that
 * rest goes to its best fit. O(n log n) in the nodes, so that a gang of
 * thousands of GPUs on one-GPU nodes is placed in milliseconds.
 */
int
mx_place(const mx_node *nodes, int nnodes, int type, int gpus, mx_part *out, int max)
{
	free_node  *fn;
	long		total;
	int			m,
				p = 0,
				np = 0,
				need = gpus;

	if (gpus <= 0 || max <= 0 || nnodes <= 0)
		return 0;
	fn = malloc((size_t) nnodes * sizeof(free_node));
	if (fn == NULL)
		return 0;
	m = free_nodes(nodes, nnodes, type, fn, &total);
	if (total < gpus)
	{
		free(fn);
		return 0;
	}
	while (need > 0 && p < m)
	{
		int			i = fn[p].free >= need ? best_fit(fn, p, m, need) : p;
		int			take = fn[i].free >= need ? need : fn[i].free;

		if (np >= max)
			break;
		out[np].node = fn[i].node;
		out[np].gpus = take;
		out[np].indices = lowest_free(&nodes[fn[i].node], take);
		np++;
		need -= take;
		p++;					/* i == p unless need is now 0 */
	}
	free(fn);
	return need > 0 ? 0 : np;
}

void
mx_place_commit(mx_node *nodes, const mx_part *parts, int nparts)
{
	int			i;

	for (i = 0; i < nparts; i++)
		nodes[parts[i].node].busy |= parts[i].indices;
}
