/* test_freepool.c — free GPUs now and their expected releases (freepool.c). */
#include <string.h>

#include "unit.h"
#include "freepool.h"

int
main(void)
{
	mx_gpu_type types[2] = {{"fast", 1.0}, {"slow", 0.5}};
	mx_node		nd[3];
	mx_running_part parts[3];
	mx_snapshot s;
	mx_freepool p;
	double		now = 1000.0;

	memset(nd, 0, sizeof(nd));
	memset(&s, 0, sizeof(s));
	/* fast: node 0 with 4 GPUs, 3 busy (a 2-GPU job ending at 1100, a 1-GPU job that outlived its end) */
	nd[0].type = 0; nd[0].gpus = 4; nd[0].status = MX_NODE_UP; nd[0].busy = 0x7;
	/* slow: node 1 up, 4 GPUs, 2 busy by no known job; node 2 down */
	nd[1].type = 1; nd[1].gpus = 4; nd[1].status = MX_NODE_UP; nd[1].busy = 0x3;
	nd[2].type = 1; nd[2].gpus = 4; nd[2].status = MX_NODE_DOWN;
	parts[0].job_id = 1; parts[0].node = 0; parts[0].gpus = 2; parts[0].expected_end = 1100.0;
	parts[1].job_id = 2; parts[1].node = 0; parts[1].gpus = 1; parts[1].expected_end = 900.0;
	s.now = now;
	s.ntypes = 2;
	s.types = types;
	s.nnodes = 3;
	s.nodes = nd;
	s.nparts = 2;
	s.parts = parts;

	CHECK(mx_freepool_init(&p, &s) == 0, "init");
	CHECK(p.total[0] == 4 && p.total[1] == 4, "totals count up nodes only (%d, %d)", p.total[0], p.total[1]);
	CHECK(p.free_now[0] == 1 && p.free_now[1] == 2, "free now: held GPUs are not free, even past their end (%d, %d)",
		  p.free_now[0], p.free_now[1]);
	CHECK(mx_freepool_earliest(&p, 0, 1) == now, "1 fast GPU: now");
	CHECK(mx_freepool_earliest(&p, 0, 2) == now,
		  "2 fast GPUs: the job past its expected end counts as ending now");
	CHECK(mx_freepool_earliest(&p, 0, 4) == 1100.0, "4 fast GPUs: when the 2-GPU job is expected to end");
	CHECK(isinf(mx_freepool_earliest(&p, 0, 5)), "5 fast GPUs: never");
	CHECK(mx_freepool_earliest(&p, 1, 4) == now, "unexplained busy slow GPUs count as ending now");
	CHECK(mx_freepool_take(&p, 0, 2, 1500.0) == -1 && p.free_now[0] == 1,
		  "taking 2 fast GPUs fails (only 1 is really free) and changes nothing");
	CHECK(mx_freepool_take(&p, 0, 1, 1050.0) == 0 && p.free_now[0] == 0, "taking 1 fast GPU");
	CHECK(mx_freepool_earliest(&p, 0, 2) == 1050.0,
		  "2 fast GPUs now: the outlived GPU and the new job's end at 1050 (got %.0f)",
		  mx_freepool_earliest(&p, 0, 2));
	CHECK(mx_freepool_earliest(&p, 0, 3) == 1100.0, "3 fast GPUs: 1100");
	mx_freepool_free(&p);
	return unit_done("test_freepool");
}
