/*
 * sim.h — the reusable part of bin/mixdnn-sim: loading the CSV inputs into a
 * world and replaying it with a virtual clock (docs/simulator.md).
 *
 * bin/mixdnn-bench links these objects too (everything in src/sim except
 * main.o), so nothing here exits or prints except through the explicit
 * progress / error hooks.
 */
#ifndef MIXDNN_SIM_H
#define MIXDNN_SIM_H

#include <stdint.h>
#include <stdio.h>

#include "snapshot.h"
#include "plan.h"
#include "planner.h"
#include "placement.h"
#include "tolerance.h"

/* Snapshot times are epoch seconds; trace time 0 is this instant (2024-01-01T00:00:00Z). */
#define SIM_DEFAULT_EPOCH 1704067200.0
/* Two event times closer than this are the same instant. */
#define SIM_EPS MX_TIME_EPS

typedef enum sim_job_state
{
	SJ_FUTURE = 0,				/* not submitted yet */
	SJ_WAITING,					/* submitted, not started */
	SJ_RUNNING,
	SJ_DONE,
	SJ_REJECTED,				/* no configuration of the cluster could ever run it */
	SJ_UNFINISHED				/* still waiting when the simulation stalled */
} sim_job_state;

typedef struct sim_job
{
	/* from the trace */
	char	   *name;			/* 1..200 characters, as mixdnn.jobs.name (malloc'd) */
	char		model[MX_MODEL_LEN];	/* 0..63 characters, as mixdnn.jobs.model */
	int			line;			/* trace line, for messages */
	double		submit;			/* seconds from trace start */
	double		true_duration;	/* duration_s: how long it really runs on the reference configuration */
	mx_job		job;			/* duration = estimate_s (what every policy plans with); submitted = epoch + submit; prev_* = last plan */

	/* simulation state */
	sim_job_state state;
	int			type;			/* configuration it ran on */
	int			gpus;
	double		utility;
	double		start;			/* seconds from trace start */
	double		finish;
	double		expected_finish;	/* start + run time under the estimate: what the planner is told */
	double		first_planned_start;	/* first round's planned start (NAN if none) */
	long long	replans;		/* rounds in which it waited */
	int			nparts;
	mx_part    *parts;			/* nparts, allocated at its start: a gang may span every node */
	char		reason[MX_REASON_LEN];
} sim_job;

typedef struct sim_world
{
	mx_snapshot cluster;		/* types, nodes (busy = 0), profiles; no jobs, no parts */
	int			njobs;
	sim_job    *jobs;			/* sorted by submit, then trace order */
	int			nsoft;
	/* Owners (trace column owner, --shares, --quotas; simtenancy.c); job.owner indexes them. */
	int			nowners;
	mx_owner   *owners;
	int		   *max_waiting;	/* per owner, -1: no limit */
} sim_world;

/* Loaders: 0, or -1 with a message in err (size errlen). Load types first. */
int			sim_load_types(sim_world *w, const char *path, char *err, size_t errlen);
int			sim_load_nodes(sim_world *w, const char *path, char *err, size_t errlen);
int			sim_load_profiles(sim_world *w, const char *path, char *err, size_t errlen);
int			sim_load_trace(sim_world *w, const char *path, char *err, size_t errlen);
void		sim_world_free(sim_world *w);

/* Owners (simtenancy.c). Index of an owner by name, added when new; -1 when too long or out of memory. */
int			sim_owner_index(sim_world *w, const char *name);
/* --shares FILE (role,shares) and --quotas FILE (role,gpu_type,max_gpus,max_waiting_jobs,borrow). */
int			sim_load_shares(sim_world *w, const char *path, char *err, size_t errlen);
int			sim_load_quotas(sim_world *w, const char *path, char *err, size_t errlen);

typedef struct sim_options
{
	mx_options	planner;
	double		epoch;			/* snapshot time of trace time 0 */
	int			progress;		/* 1: progress line on stderr */
	FILE	   *util_out;		/* if set: "t_s,busy_gpus,busy_<type>..." at every change */
	FILE	   *rounds_out;		/* if set: one CSV line per round */
	int			max_rounds;		/* 0: unlimited */
	const char *watch;			/* if set: this job's plan in every round, on stderr */
} sim_options;

typedef struct sim_result
{
	const char *policy;
	int			jobs;			/* in the trace */
	int			finished;
	int			rejected;
	int			unfinished;
	int			unfinished_running;	/* of those, running when the simulation stopped (--max-rounds) */
	long long	rounds;			/* rounds with at least one waiting job (mx_plan_round calls, and those skip_idle_rounds skipped) */
	long long	events;			/* distinct event times */
	double		avg_jct;
	double		p50_jct;
	double		p99_jct;
	double		max_jct;
	double		makespan;
	double		avg_wait;
	double		p99_wait;
	double		gpu_util;
	double		gpu_seconds;	/* used */
	int			cluster_gpus;
	double		solve_ms_p50;
	double		solve_ms_p95;
	double		solve_ms_max;
	double		solve_ms_total;
	double		avg_utility;	/* mean utility of the configurations jobs ran on */
	int			hard_finished;
	double		avg_jct_hard;	/* over the finished hard jobs */
	/*
	 * Finish-time fairness: a job's JCT over its run time alone on its
	 * requested configuration (duration_s); mean, p99 and max over jobs.
	 */
	double		ftf_mean;
	double		ftf_p99;
	double		ftf_max;
	int			overran;		/* jobs that ran longer than their estimate */
	int			moved;			/* jobs run on another configuration than requested */
	int			soft_jobs;
	int			place_failures;	/* due jobs the nodes could not hold (should be 0) */
	int			milp_rounds;	/* rounds whose solver name starts with "glpk" */
	int			fallback_rounds;	/* rounds whose solver mentions a fallback */
	double		wall_s;
	/* With owners: Jain's index over their finish-time fairness (NAN without), and each one's figures. */
	double		fairness_jain;
	int			nowners;
	struct sim_owner_result *owners;	/* malloc'd; sim_result_free */
} sim_result;

typedef struct sim_owner_result
{
	const char *owner;			/* the world's name */
	double		gpu_seconds;
	double		entitlement;	/* shares over all owners' shares */
	double		avg_slowdown;	/* JCT / duration over its finished jobs; NAN: none */
	double		finish_time_fairness;	/* its JCTs over those alone on its entitlement (simtenancy.c) */
} sim_owner_result;

void		sim_result_free(sim_result *r);

/* 1 when job ji may join the waiting jobs given each owner's waiting count. */
int			sim_tenancy_admit(const sim_world *w, const int *waiting_of, int ji);
/* The world's owners with usage_s at now (fair share) into out (nowners entries). */
void		sim_tenancy_usage(const sim_world *w, const sim_options *o, double now, mx_owner *out);
/* Per-owner figures and fairness_jain into r. 0, or -1 when out of memory. */
int			sim_tenancy_metrics(const sim_world *w, sim_result *r);

void		sim_options_default(sim_options *o);

/*
 * Replay the world's trace (the world's job states are reset first).
 * Returns 0; 1 when the simulation stalled (waiting jobs, nothing left to
 * happen); -1 when out of memory or the planner failed (err set).
 */
int			sim_run(sim_world *w, const sim_options *o, sim_result *r, char *err, size_t errlen);

/* Output helpers. */
/* The per-job CSV of --out: 0, or -1 when out of memory (the file is then incomplete). */
int			sim_write_jobs_csv(const sim_world *w, FILE *f);
/* Every job's candidate configurations (mx_job_configs) with its true run time on each: 0, or -1 when out of memory. */
int			sim_write_configs_csv(const sim_world *w, const sim_options *o, FILE *f);
void		sim_print_json(const sim_result *r, const sim_options *o, FILE *f);
void		sim_print_summary(const sim_result *r, const sim_options *o, FILE *f);

/* "key": v, as JSON (null when v is not finite), then ", " unless last. */
void		sim_json_num(FILE *f, const char *key, double v, int last);

#endif
