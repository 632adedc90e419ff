/*
 * utility.h — candidate configurations of a job and their utility
 * (throughput relative to the job's reference configuration).
 */
#ifndef MIXDNN_UTILITY_H
#define MIXDNN_UTILITY_H

#include <stddef.h>

#include "snapshot.h"

typedef struct mx_config
{
	int			type;
	int			gpus;
	double		utility;		/* thr(type, gpus) / thr(reference) */
	double		runtime;		/* duration / utility, seconds */
} mx_config;

/*
 * Throughput of job j on (type, gpus): the job's profile where measured,
 * else scaled from the nearest measured count of that type by n^alpha, else
 * speed(type) * gpus^alpha. 0 means the configuration cannot run the model.
 */
double		mx_throughput(const mx_snapshot *s, const mx_job *j, int type, int gpus, double alpha);

/*
 * Candidate configurations of job j that the cluster's up nodes could ever
 * hold, non-dominated (no other candidate of the same type has fewer GPUs and
 * at least the same utility), written to out (capacity max). Returns how many.
 */
int			mx_job_configs(const mx_snapshot *s, const mx_job *j, double alpha,
						   mx_config *out, int max);

/*
 * 1 if job j has a candidate configuration when run times are not limited:
 * whether the cluster could ever run it at all, which submission checks
 * (an absurd run time is the round's to report, with a reason).
 */
int			mx_job_fits_ever(const mx_snapshot *s, const mx_job *j, double alpha);

/* Upper bound on mx_job_configs()'s result for sizing arrays. */
int			mx_job_configs_max(const mx_snapshot *s, const mx_job *j);

/*
 * mx_job_configs() into *buf, grown with realloc() to *cap entries as the
 * job needs (the caller frees *buf; NULL and 0 to start). How many, -1
 * when out of memory.
 */
int			mx_job_configs_buf(const mx_snapshot *s, const mx_job *j, double alpha,
							   mx_config **buf, int *cap);

/*
 * Throughput of job j's reference configuration (ref_type, ref_gpus); for a
 * soft job without a type (ref_type = -1), ref_gpus GPUs of speed 1.0
 * (docs/model.md). Utility = mx_throughput() / this.
 */
double		mx_ref_throughput(const mx_snapshot *s, const mx_job *j, double alpha);

/*
 * The types job j may run on, bit t for type t: a hard job its own, a soft
 * job its allowed types, every type when none are given.
 */
uint64_t	mx_job_types(const mx_snapshot *s, const mx_job *j);

/*
 * When job j has no candidate configuration on the current up nodes, write
 * the reason in plain words to buf ("no up node has a v100", "needs 16 GPUs
 * of type v100, the cluster has 8 up") and return 1; otherwise buf = "" and 0.
 */
int			mx_job_explain(const mx_snapshot *s, const mx_job *j, double alpha,
						   char *buf, size_t len);

#endif
