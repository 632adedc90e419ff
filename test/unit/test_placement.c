/* test_placement.c — nodes and GPU indices for a starting job (placement.c). */
#include "unit.h"
#include "fixtures.h"
#include "placement.h"

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
	return unit_done("test_placement");
}
