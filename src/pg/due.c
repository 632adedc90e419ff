/*
 * due.c — mixdnn.launch_due(): launch what is due, re-planning first when
 * a due job cannot start. Kept apart from launch.c so that the launch pass never runs a
 * round itself: the modules that run rounds sit above both (docs/design.md,
 * "Module order").
 */
#include "postgres.h"

#include "fmgr.h"

#include "due.h"
#include "launch.h"
#include "round.h"

PG_FUNCTION_INFO_V1(mixdnn_launch_due);

/*
 * A due job that cannot be placed means the plan's forecast was wrong (a
 * job ran past its expected end, a node went away): the other due starts
 * belong to that plan, and launching them first could break the policy's
 * order (static's FIFO, backfill's reservation) or take GPUs the new plan
 * gives another job. So nothing starts until the round has re-planned;
 * then what the new plan makes due starts, and a job still unplaced is
 * re-planned once more, as before. The simulator runs the round first at
 * such an instant too (docs/simulator.md, the event loop).
 */
int
mx_launch_due_and_replan(void)
{
	int			unplaced = 0;
	int			launched = mx_launch_due(&unplaced, true);

	if (unplaced == 0)
		return launched;
	(void) mx_run_round("due");
	launched = mx_launch_due(&unplaced, false);
	if (unplaced > 0)
		(void) mx_run_round("due");
	return launched;
}

Datum
mixdnn_launch_due(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(mx_launch_due_and_replan());
}
