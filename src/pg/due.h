/*
 * due.h — a launch pass and the round it may need: what
 * mixdnn.launch_due() and the worker's launch step do.
 */
#ifndef MIXDNN_DUE_H
#define MIXDNN_DUE_H

/*
 * Launch what is due (launch.h). When a due job cannot be placed (its GPUs
 * are still held, its owner's quota is full), nothing starts before a round
 * has re-planned; then what the new plan makes due starts. Returns how many
 * jobs launched.
 */
int			mx_launch_due_and_replan(void);

#endif
