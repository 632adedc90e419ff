/*
 * snapshot.h — the cluster as one scheduling round sees it.
 *
 * Plain C, no PostgreSQL headers: the extension fills a snapshot from its
 * tables, the simulator and the benchmark fill it from CSV files or a seeded
 * generator, and all of them hand it to mx_plan_round() (planner.h).
 *
 * Times are seconds since the Unix epoch as doubles; durations are seconds.
 * Indices (type, node, profile) refer to the arrays of the same snapshot.
 */
#ifndef MIXDNN_SNAPSHOT_H
#define MIXDNN_SNAPSHOT_H

#include <stdint.h>

#define MX_NAME_LEN 64
/*
 * A model's name: mixdnn.profiles.model and mixdnn.jobs.model have at most
 * 63 characters, of up to 4 UTF-8 bytes each.
 */
#define MX_MODEL_CHARS 63
#define MX_MODEL_LEN (4 * MX_MODEL_CHARS + 1)
/* Bitmasks keep type sets and per-node GPU sets cheap to copy and test. */
#define MX_MAX_TYPES 64
#define MX_MAX_NODE_GPUS 64

typedef struct mx_gpu_type
{
	char		name[MX_NAME_LEN];
	double		speed;			/* relative to a speed-1.0 GPU */
} mx_gpu_type;

typedef enum mx_node_status
{
	MX_NODE_UP = 0,				/* takes new jobs */
	MX_NODE_DRAINING,			/* keeps its running jobs, takes no new ones */
	MX_NODE_DOWN				/* holds nothing */
} mx_node_status;

typedef struct mx_node
{
	char		name[MX_NAME_LEN];
	int			type;			/* index into snapshot.types */
	int			gpus;			/* 1 .. MX_MAX_NODE_GPUS */
	mx_node_status status;
	uint64_t	busy;			/* bit i set: GPU index i held by a launching/running job */
} mx_node;

/* One node's share of a launching or running job. */
typedef struct mx_running_part
{
	int64_t		job_id;
	int			node;			/* index into snapshot.nodes */
	int			gpus;
	double		expected_end;	/* when its GPUs are expected to be free */
	int			owner;			/* index into snapshot.owners; meaningful only when nowners > 0 */
} mx_running_part;

typedef enum mx_job_class
{
	MX_HARD = 0,				/* exactly (ref_type, ref_gpus) */
	MX_SOFT						/* any allowed type, min_gpus .. max_gpus */
} mx_job_class;

/* A waiting (pending or planned) job. */
typedef struct mx_job
{
	int64_t		job_id;
	mx_job_class cls;
	int			ref_type;		/* -1: soft job stated for speed-1.0 GPUs */
	int			ref_gpus;
	int			min_gpus;		/* soft only; hard: = ref_gpus */
	int			max_gpus;		/* soft only; hard: = ref_gpus */
	uint64_t	allowed;		/* bit t set: type t allowed; hard: only ref_type */
	double		duration;		/* seconds on the reference configuration */
	int			priority;
	double		submitted;		/* epoch seconds */
	int			profile;		/* index into snapshot.profiles, -1: scaling model */
	/* The previous round's plan, -1/0 when none: a warm start, and a tie-breaker for stable plans. */
	int			prev_type;
	int			prev_gpus;
	double		prev_start;
	/*
	 * Not NULL: whoever built the snapshot found the job unplannable (e.g.
	 * every type in its allowed_types was deleted) and says why; the round
	 * plans nothing for it and reports this reason. Owned by the caller.
	 */
	const char *refuse;
	/* Index into snapshot.owners; meaningful only when nowners > 0 (tenancy.h). */
	int			owner;
	/* Multiplies the job's weight; 0 means 1. Set by the tenancy pass only. */
	double		weight_factor;
} mx_job;

/* One measured throughput: model runs at thr on gpus GPUs of type. */
typedef struct mx_profile_point
{
	int			type;
	int			gpus;
	double		thr;			/* 0 = this configuration cannot run the model */
} mx_profile_point;

typedef struct mx_profile
{
	char		model[MX_MODEL_LEN];
	int			npoints;
	mx_profile_point *points;
	int			sorted;			/* points by type, then gpus (mx_profile_sort): looked up in O(log n) */
} mx_profile;

/*
 * A submitting role with its limits, resolved by whoever builds the
 * snapshot (the strictest matching quota row binds), and its fair-share
 * inputs (docs/model.md, "Quotas and fair share").
 */
typedef struct mx_owner
{
	char		name[MX_NAME_LEN];
	double		shares;			/* > 0 */
	double		usage_s;		/* decayed speed-weighted GPU-seconds of its finished and running parts */
	int			quota_all;		/* most GPUs of all types held at once; -1: none */
	int			borrow_all;		/* 1: may exceed quota_all on GPUs no one else can use now */
	int			quota[MX_MAX_TYPES];	/* per type, -1: none */
	uint64_t	borrow;			/* bit t: may exceed quota[t] likewise */

	/*
	 * With borrowing: the most GPUs a row that does not lend allows beyond
	 * the lending row that binds (a group's row above a member's own);
	 * borrowing stops there. 0: no such row, borrowing is bounded by idle
	 * GPUs only.
	 */
	int			borrow_limit_all;
	int			borrow_limit[MX_MAX_TYPES];
} mx_owner;

typedef struct mx_snapshot
{
	double		now;
	int			ntypes;
	mx_gpu_type *types;
	int			nnodes;
	mx_node    *nodes;
	int			nparts;
	mx_running_part *parts;
	int			njobs;
	mx_job	   *jobs;
	int			nprofiles;
	mx_profile *profiles;
	/* 0: no tenancy (every job's and part's owner is ignored). */
	int			nowners;
	mx_owner   *owners;
} mx_snapshot;

/* Free every array of a snapshot built with malloc (simulator, benchmark, tests). */
void		mx_snapshot_free(mx_snapshot *s);

/* Index of a type or profile by name, -1 when absent. */
int			mx_type_index(const mx_snapshot *s, const char *name);

/*
 * A node status by its name in mixdnn.gpu_nodes.status ("up", "draining",
 * "down"): 0, or -1 for any other text (*out unchanged; each reader decides
 * what an unknown status means for it).
 */
int			mx_node_status_parse(const char *name, mx_node_status *out);
int			mx_profile_index(const mx_snapshot *s, const char *model);

#endif
