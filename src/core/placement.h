/*
 * placement.h — concrete nodes and GPU indices for a job starting now.
 *
 * Gang start: all GPUs or none. Fewest nodes first, then best fit (the
 * fullest node that still holds the part), so whole nodes stay free for
 * large jobs.
 */
#ifndef MIXDNN_PLACEMENT_H
#define MIXDNN_PLACEMENT_H

#include <stdint.h>
#include "snapshot.h"

typedef struct mx_part
{
	int			node;			/* index into the nodes array */
	int			gpus;
	uint64_t	indices;		/* bit i: GPU index i of that node */
} mx_part;

/*
 * Choose GPUs for gpus GPUs of type on up nodes (their busy masks are not
 * changed). Returns the number of parts written to out (at most max), or 0
 * when the free GPUs of that type do not suffice.
 */
int			mx_place(const mx_node *nodes, int nnodes, int type, int gpus,
					 mx_part *out, int max);

/* Mark the parts busy in nodes[]. */
void		mx_place_commit(mx_node *nodes, const mx_part *parts, int nparts);

#endif
