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

int
mx_place(const mx_node *nodes, int nnodes, int type, int gpus, mx_part *out, int max)
{
	int			i,
				total = 0,
				need = gpus,
				np = 0;
	int		   *freeg;
	char	   *used;

	if (gpus <= 0 || max <= 0 || nnodes <= 0)
		return 0;
	freeg = malloc((size_t) nnodes * sizeof(int));
	used = calloc((size_t) nnodes, 1);
	if (freeg == NULL || used == NULL)
	{
		free(freeg);
		free(used);
		return 0;
	}
	for (i = 0; i < nnodes; i++)
	{
		freeg[i] = (nodes[i].status == MX_NODE_UP && nodes[i].type == type) ? node_free(&nodes[i]) : 0;
		total += freeg[i];
	}
	if (total < gpus)
	{
		free(freeg);
		free(used);
		return 0;
	}
	while (need > 0)
	{
		int			fit = -1,
					big = -1;

		for (i = 0; i < nnodes; i++)
		{
			if (used[i] || freeg[i] <= 0)
				continue;
			if (freeg[i] >= need && (fit < 0 || freeg[i] < freeg[fit]))
				fit = i;		/* best fit: the fullest node that holds the rest */
			if (big < 0 || freeg[i] > freeg[big])
				big = i;		/* otherwise the node with the most free GPUs */
		}
		if (np >= max)
		{
			np = 0;
			break;
		}
		if (fit >= 0)
		{
			out[np].node = fit;
			out[np].gpus = need;
			out[np].indices = lowest_free(&nodes[fit], need);
			np++;
			need = 0;
		}
		else
		{
			if (big < 0)
			{
				np = 0;
				break;
			}
			out[np].node = big;
			out[np].gpus = freeg[big];
			out[np].indices = lowest_free(&nodes[big], freeg[big]);
			used[big] = 1;
			need -= freeg[big];
			np++;
		}
	}
	free(freeg);
	free(used);
	return np;
}

void
mx_place_commit(mx_node *nodes, const mx_part *parts, int nparts)
{
	int			i;

	for (i = 0; i < nparts; i++)
		nodes[parts[i].node].busy |= parts[i].indices;
}
