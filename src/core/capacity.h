/*
 * capacity.h — free GPUs of each type over time, as a step function.
 *
 * Built from the up nodes and the running jobs' expected ends; planned jobs
 * are reserved into it one by one. Placement onto nodes comes later
 * (placement.h): a job may span nodes, so per-type totals decide feasibility.
 */
#ifndef MIXDNN_CAPACITY_H
#define MIXDNN_CAPACITY_H

#include "snapshot.h"

typedef struct mx_step
{
	double		t;				/* from t until the next step's t */
	int			free;
} mx_step;

typedef struct mx_capacity
{
	int			ntypes;
	int		   *nsteps;
	int		   *cap;			/* allocated steps per type */
	mx_step   **steps;			/* per type, t strictly increasing, steps[k][0].t = now */
	int		   *total;			/* GPUs of each type on up nodes */
} mx_capacity;

int			mx_capacity_init(mx_capacity *c, const mx_snapshot *s, double overrun_s,
							 double overrun_factor);
void		mx_capacity_free(mx_capacity *c);
int			mx_capacity_copy(mx_capacity *dst, const mx_capacity *src);

/* When the last reservation or running part of any type ends (now when none): a known makespan. */
double		mx_capacity_last_end(const mx_capacity *c);

/* Free GPUs of type at time t. */
int			mx_capacity_free_at(const mx_capacity *c, int type, double t);

/* GPU-seconds of type free on [from, to): the integral of mx_capacity_free_at. */
double		mx_capacity_free_seconds(const mx_capacity *c, int type, double from, double to);

/* Earliest t >= from with at least gpus free on [t, t + len); INFINITY if never. */
double		mx_capacity_earliest(const mx_capacity *c, int type, int gpus, double len, double from);

/* Take gpus of type on [t, t + len). Returns 0, or -1 if that would go negative (nothing changed). */
int			mx_capacity_reserve(mx_capacity *c, int type, int gpus, double t, double len);

/*
 * Give back what a successful mx_capacity_reserve(c, type, gpus, t, len)
 * took; only that, since a release cannot tell a reservation from free
 * GPUs. Returns 0, or -1 if a step would exceed the type's total (nothing
 * changed).
 */
int			mx_capacity_release(mx_capacity *c, int type, int gpus, double t, double len);

#endif
