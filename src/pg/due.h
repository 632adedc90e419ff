/*
 * due.h — a launch pass followed by the round it may need: what
 * mixdnn.launch_due() and the worker's launch step do.
 */
#ifndef MIXDNN_DUE_H
#define MIXDNN_DUE_H

/*
 * Launch what is due (launch.h); a due job whose GPUs are still held (a job
 * ran over) gets a new plan from a round. Returns how many jobs launched.
 */
int			mx_launch_due_and_replan(void);

#endif
