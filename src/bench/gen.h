/*
 * gen.h — seeded, reproducible scheduling instances for bin/mixdnn-bench
 * (docs/performance.md, "Instances").
 *
 * An instance is a complete mx_snapshot: T GPU types, G GPUs on nodes of
 * node_gpus GPUs (types assigned to nodes round-robin), running jobs that
 * hold about busy * G GPUs with expected ends spread over the next
 * running_span_s seconds, and W waiting jobs (hard or soft) whose GPU counts
 * follow a Philly-derived distribution and whose durations are log-normal.
 * The same (parameters, seed) always gives the same snapshot, on every
 * machine: the generator has its own RNG and uses no libc randomness.
 */
#ifndef MIXDNN_BENCH_GEN_H
#define MIXDNN_BENCH_GEN_H

#include <stdint.h>

#include "snapshot.h"

typedef enum bench_gpu_dist
{
	BENCH_DIST_PHILLY = 0,		/* Philly job counts (pollux/philly.csv): 93% 1 GPU */
	BENCH_DIST_HEAVY			/* more multi-GPU jobs: 50% 1, 15% 2, 15% 4, 12% 8, 5% 16, 3% 32 */
} bench_gpu_dist;

typedef struct bench_params
{
	int			waiting;		/* W */
	int			gpus;			/* G */
	int			types;			/* T, 1 .. 8 named types, more are "typeN" */
	int			node_gpus;		/* 8 (default) or 4 */
	uint64_t	seed;
	double		busy;			/* fraction of GPUs held by running jobs, 0 .. 0.95 */
	double		soft_share;		/* fraction of waiting jobs that are soft */
	double		running_span_s; /* running jobs end uniformly in (60 s, this) */
	double		dur_mu;			/* log-normal duration: ln(seconds) mean */
	double		dur_sigma;		/* and standard deviation */
	double		dur_min_s;		/* clamp */
	double		dur_max_s;
	double		wait_max_s;		/* waiting jobs were submitted U(0, this) ago */
	double		prio_share;		/* share of waiting jobs with priority 10 (2/3) or 20 (1/3) */
	bench_gpu_dist dist;
	double		now;			/* snapshot time, epoch seconds */
} bench_params;

void		bench_params_default(bench_params *p);

/* Build the instance into s (malloc'd; mx_snapshot_free releases it). 0, or -1 out of memory / bad params. */
int			bench_generate(const bench_params *p, mx_snapshot *s);

/* Small deterministic RNG (xoshiro256**, seeded by splitmix64). */
typedef struct bench_rng
{
	uint64_t	s[4];
} bench_rng;

void		bench_rng_seed(bench_rng *r, uint64_t seed);
uint64_t	bench_rng_next(bench_rng *r);
double		bench_rng_unif(bench_rng *r);	/* [0, 1) */
double		bench_rng_normal(bench_rng *r);

#endif
