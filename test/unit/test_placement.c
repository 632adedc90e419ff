/* test_placement.c — nodes and GPU indices for a starting job (placement.c). */
#include "unit.h"
#include "fixtures.h"
#include "placement.h"

/*
 * The placement rule stated as directly as it reads (docs/model.md,
 * "Placement"), quadratic in the nodes: while a part is missing, the
 * fullest unused node that holds the rest takes it (lowest index among
 * equals); otherwise the unused node with the most free GPUs gives all of
 * them. mx_place must choose exactly these parts.
 */
static int
oracle_place(const mx_node *nd, int nn, int type, int gpus, mx_part *out, int max)
{
	int			freeg[64], used[64] = {0}, np = 0, need = gpus, total = 0;

	for (int i = 0; i < nn; i++)
	{
		uint64_t	f = (nd[i].gpus >= 64 ? ~(uint64_t) 0 : (((uint64_t) 1 << nd[i].gpus) - 1)) & ~nd[i].busy;

		freeg[i] = 0;
		for (; nd[i].status == MX_NODE_UP && nd[i].type == type && f; f &= f - 1)
			freeg[i]++;
		total += freeg[i];
	}
	if (gpus <= 0 || total < gpus)
		return 0;
	while (need > 0)
	{
		int			fit = -1, big = -1, take;

		for (int i = 0; i < nn; i++)
		{
			if (used[i] || freeg[i] <= 0)
				continue;
			if (freeg[i] >= need && (fit < 0 || freeg[i] < freeg[fit]))
				fit = i;
			if (big < 0 || freeg[i] > freeg[big])
				big = i;
		}
		if (np >= max)
			return 0;
		if (fit < 0)
			fit = big;
		take = freeg[fit] < need ? freeg[fit] : need;
		out[np].node = fit;
		out[np].gpus = take;
		out[np].indices = 0;
		for (uint64_t f = ~nd[fit].busy; take > 0; f &= f - 1, take--)
			out[np].indices |= f & (~f + 1);
		used[fit] = 1;
		need -= out[np].gpus;
		np++;
	}
	return np;
}

/* Random clusters of up to 64 nodes against the oracle: every part equal. */
static void
check_against_oracle(void)
{
	mx_node		nd[64];
	mx_part		a[64], b[64];
	int			bad = 0, placed = 0;

	for (int t = 0; t < 4000 && !bad; t++)
	{
		int			nn, type, gpus, max, na, nb;

		fx_seed((uint64_t) t + 1);
		nn = fx_int(1, 64);
		type = fx_int(0, 1);
		gpus = fx_int(1, 120);
		max = fx_int(1, 64);
		memset(nd, 0, sizeof(nd));
		for (int i = 0; i < nn; i++)
		{
			int			g = fx_int(0, 3) == 0 ? 64 : (int) (1 << fx_int(0, 3));

			nd[i].type = fx_int(0, 1);
			nd[i].gpus = g;
			nd[i].status = fx_int(0, 9) == 0 ? MX_NODE_DOWN : fx_int(0, 9) == 0 ? MX_NODE_DRAINING : MX_NODE_UP;
			nd[i].busy = fx_next() & fx_next();
		}
		na = mx_place(nd, nn, type, gpus, a, max);
		nb = oracle_place(nd, nn, type, gpus, b, max);
		placed += na > 0;
		if (na != nb)
			bad = 1;
		for (int k = 0; k < na && !bad; k++)
			bad = a[k].node != b[k].node || a[k].gpus != b[k].gpus || a[k].indices != b[k].indices;
		if (bad)
			printf("# case %d: %d nodes, type %d, %d GPUs, max %d: %d parts, oracle %d\n",
				   t, nn, type, gpus, max, na, nb);
	}
	CHECK(!bad && placed > 1000, "4000 random clusters: the parts of the placement rule (%d placed)", placed);
}

/* A gang on many one-GPU nodes: one part per node, fast. */
static void
check_wide_gang(void)
{
	int			nn = 20000;
	mx_node    *nd = calloc((size_t) nn, sizeof(mx_node));
	mx_part    *out = malloc((size_t) nn * sizeof(mx_part));
	int			n, ok = 1;

	for (int i = 0; i < nn && nd; i++)
	{
		nd[i].gpus = 1;
		nd[i].status = MX_NODE_UP;
		nd[i].busy = (i % 5 == 0);	/* every fifth node busy */
	}
	n = nd && out ? mx_place(nd, nn, 0, 4096, out, nn) : -1;
	for (int k = 0; k < n && ok; k++)
		ok = out[k].gpus == 1 && out[k].node == k + k / 4 + 1;
	CHECK(n == 4096 && ok, "4096 GPUs on 20000 one-GPU nodes: the 4096 free nodes of lowest index (%d parts)", n);
	free(nd);
	free(out);
}

int
main(void)
{
	mx_node		nd[6];
	mx_part		out[8];
	int			n;

	memset(nd, 0, sizeof(nd));
	/* type 0: nodes with 8, 3 and 5 free GPUs, one down and one draining */
	nd[0].type = 0; nd[0].gpus = 8; nd[0].status = MX_NODE_UP; nd[0].busy = 0;
	nd[1].type = 0; nd[1].gpus = 8; nd[1].status = MX_NODE_UP; nd[1].busy = 0x1f;	/* 3 free: 5,6,7 */
	nd[2].type = 0; nd[2].gpus = 8; nd[2].status = MX_NODE_UP; nd[2].busy = 0x15;	/* 5 free: 1,3,5,6,7 */
	nd[3].type = 1; nd[3].gpus = 8; nd[3].status = MX_NODE_UP; nd[3].busy = 0;
	nd[4].type = 0; nd[4].gpus = 8; nd[4].status = MX_NODE_DOWN; nd[4].busy = 0;
	nd[5].type = 0; nd[5].gpus = 8; nd[5].status = MX_NODE_DRAINING; nd[5].busy = 0;

	n = mx_place(nd, 6, 0, 3, out, 8);
	CHECK(n == 1 && out[0].node == 1 && out[0].gpus == 3 && out[0].indices == 0xe0,
		  "3 GPUs: the fullest node that holds them (node 1, GPUs 5-7)");
	n = mx_place(nd, 6, 0, 4, out, 8);
	CHECK(n == 1 && out[0].node == 2 && out[0].indices == 0x6a,
		  "4 GPUs: best fit node 2, lowest free indices 1,3,5,6 (got node %d mask %#llx)",
		  out[0].node, (unsigned long long) out[0].indices);
	n = mx_place(nd, 6, 0, 8, out, 8);
	CHECK(n == 1 && out[0].node == 0 && out[0].indices == 0xff, "8 GPUs: the empty node");
	n = mx_place(nd, 6, 0, 10, out, 8);
	CHECK(n == 2 && out[0].node == 0 && out[0].gpus == 8 && out[1].node == 1 && out[1].gpus == 2 &&
		  out[1].indices == 0x60,
		  "10 GPUs: largest node whole, then best fit for the last 2 (node 1, GPUs 5,6)");
	n = mx_place(nd, 6, 0, 16, out, 8);
	CHECK(n == 3 && out[0].node == 0 && out[1].node == 2 && out[1].gpus == 5 && out[2].node == 1 &&
		  out[2].gpus == 3, "16 GPUs: all three up nodes, largest first");
	n = mx_place(nd, 6, 0, 17, out, 8);
	CHECK(n == 0, "17 GPUs: impossible (down and draining nodes do not count)");
	n = mx_place(nd, 6, 0, 16, out, 2);
	CHECK(n == 0, "more parts than max: 0");
	n = mx_place(nd, 6, 1, 8, out, 8);
	CHECK(n == 1 && out[0].node == 3, "type filter");
	n = mx_place(nd, 6, 2, 1, out, 8);
	CHECK(n == 0, "no node of the type");
	n = mx_place(nd, 6, 0, 0, out, 8);
	CHECK(n == 0, "0 GPUs: nothing");

	n = mx_place(nd, 6, 0, 10, out, 8);
	mx_place_commit(nd, out, n);
	CHECK(nd[0].busy == 0xff && nd[1].busy == 0x7f && nd[2].busy == 0x15, "commit marks the GPUs busy");
	n = mx_place(nd, 6, 0, 6, out, 8);
	CHECK(n == 2 && out[0].node == 2 && out[0].gpus == 5 && out[1].node == 1 && out[1].indices == 0x80,
		  "after commit 6 GPUs span node 2 (5) and node 1 (GPU 7)");
	check_against_oracle();
	check_wide_gang();
	return unit_done("test_placement");
}
