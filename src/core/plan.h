/*
 * plan.h — what a round decides: for every waiting job of the snapshot, one
 * configuration and one planned start, or the reason it has none.
 */
#ifndef MIXDNN_PLAN_H
#define MIXDNN_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A reason's room, with its terminating NUL: the longest wording, a quota
 * refused at a later start with a 63-byte role and type name ("over quota:
 * role R would hold N of the N T GPUs its quota allows at TIME UTC and
 * needs N; it may borrow idle GPUs"), is about 255 bytes.
 */
#define MX_REASON_LEN 320
#define MX_SOLVER_LEN 48

typedef enum mx_assign_status
{
	MX_PLANNED = 0,				/* type, gpus, start, end are set */
	MX_WAITING,					/* no start planned yet (baseline policies that do not plan ahead) */
	MX_UNPLANNABLE				/* no configuration fits the cluster as it is; see reason */
} mx_assign_status;

typedef struct mx_assignment
{
	int64_t		job_id;
	int			job;			/* index into snapshot.jobs */
	mx_assign_status status;
	int			type;
	int			gpus;
	double		start;
	double		end;
	double		utility;		/* relative throughput of (type, gpus) */
	bool		by_quota;		/* MX_UNPLANNABLE because its owner's quotas could never let it run,
								 * or MX_WAITING because one refused its start this round */
	char		reason[MX_REASON_LEN];	/* why it waits or cannot run; "" when it starts now */
} mx_assignment;

typedef struct mx_plan
{
	int			n;				/* = snapshot.njobs; a[i].job == i */
	mx_assignment *a;
	char		policy[16];		/* mx_policy_name(): "mixdnn", "k8s", "hgreedy", ... */
	char		solver[MX_SOLVER_LEN];	/* e.g. "glpk", "heuristic", "heuristic (glpk time limit)" */
	double		objective;		/* value of the plan under the utility model */
	double		heuristic_objective;	/* value of the heuristic's plan alone */
	double		bound;			/* upper bound on the objective (LP relaxation), NAN when unknown */
	double		solve_ms;
	int			milp_jobs;		/* jobs inside the MILP's planning window */
	int			milp_vars;		/* binary variables of the MILP, 0 when not solved */
} mx_plan;

/*
 * Allocate p->a for njobs jobs (a[i].job = i, status MX_WAITING, type -1,
 * start/end NAN) and zero everything else (bound = NAN). 0, or -1 when out
 * of memory. job_id is left 0 for the caller to fill.
 */
int			mx_plan_init(mx_plan *p, int njobs);

void		mx_plan_free(mx_plan *p);

/* Copy reason into a->reason, truncated to MX_REASON_LEN - 1 bytes. */
void		mx_plan_set_reason(mx_assignment *a, const char *reason);

/*
 * t (seconds since the Unix epoch) as "YYYY-MM-DD HH:MM:SS UTC", the form
 * reasons and explanations give times in. 0, or -1 (buf unchanged) when t
 * cannot be shown.
 */
int			mx_format_utc(double t, char *buf, size_t size);

#endif
