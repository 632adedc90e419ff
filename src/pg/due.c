/*
 * due.c — mixdnn.launch_due(): launch what is due, then re-plan what could
 * not start. Kept apart from launch.c so that the launch pass never runs a
 * round itself: the modules that run rounds sit above both (docs/design.md,
 * "Module order").
 */
#include "postgres.h"

#include "fmgr.h"

#include "due.h"
#include "launch.h"
#include "round.h"

PG_FUNCTION_INFO_V1(mixdnn_launch_due);

int
mx_launch_due_and_replan(void)
{
	int			unplaced = 0;
	int			launched = mx_launch_due(&unplaced);

	if (unplaced > 0)
		(void) mx_run_round("due");
	return launched;
}

Datum
mixdnn_launch_due(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(mx_launch_due_and_replan());
}
