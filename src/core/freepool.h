/*
 * freepool.h — free GPUs of each type now, and when the held ones are
 * expected back: the view of the cluster that the non-preemptive
 * comparators of contract §6 (comparators.h) decide on.
 *
 * A held GPU is expected back at its job's expected end; a job that has
 * outlived its expected end counts as ending now, but its GPUs stay held
 * (they are not free now). Busy GPUs that no running part explains count
 * the same way.
 */
#ifndef MIXDNN_FREEPOOL_H
#define MIXDNN_FREEPOOL_H

#include "snapshot.h"

typedef struct mx_release
{
	double		t;				/* expected back at t (>= now) */
	int			gpus;
} mx_release;

typedef struct mx_freepool
{
	double		now;
	int			ntypes;
	int			total[MX_MAX_TYPES];	/* GPUs of each type on up nodes */
	int			free_now[MX_MAX_TYPES];
	int			nrel[MX_MAX_TYPES];
	int			caprel[MX_MAX_TYPES];
	mx_release *rel[MX_MAX_TYPES];	/* per type, sorted by t */
} mx_freepool;

/* 0, or -1 when out of memory (nothing to free then). */
int			mx_freepool_init(mx_freepool *p, const mx_snapshot *s);
void		mx_freepool_free(mx_freepool *p);

/* Earliest expected time >= now with gpus of type free; INFINITY if never. */
double		mx_freepool_earliest(const mx_freepool *p, int type, int gpus);

/* A job starts now on gpus of type, expected to end at end: 0, or -1 (not free now, or out of memory). */
int			mx_freepool_take(mx_freepool *p, int type, int gpus, double end);

#endif
