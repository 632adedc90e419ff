/*
 * guc.c — the mixdnn.* settings (docs/reference.md lists them).
 */
#include "postgres.h"

#include <limits.h>

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/guc.h"
#include "utils/timestamp.h"

#include "guc.h"

/* Values come from mx_guc_init(); the planner's from mx_options_default(). */
int			mx_guc_plan_mode;
int			mx_guc_policy;
bool		mx_guc_use_milp;
bool		mx_guc_launch_worker;
bool		mx_guc_force_drop;
int			mx_guc_history_retention_s;
int			mx_guc_time_limit_ms;
double		mx_guc_mip_gap;
int			mx_guc_window_jobs;
int			mx_guc_grid_points;
double		mx_guc_scaling_alpha;
int			mx_guc_overrun_s;
double		mx_guc_overrun_factor;
int			mx_guc_aging_s;
double		mx_guc_starve_factor;
double		mx_guc_critical_margin;
double		mx_guc_critical_wait;
double		mx_guc_critical_trade;
double		mx_guc_drain_margin;
bool		mx_guc_reserve_all;
bool		mx_guc_lp_configs;
int			mx_guc_lp_window;
bool		mx_guc_lp_backfill;
int			mx_guc_lease_timeout_s;
int			mx_guc_max_retries;
int			mx_guc_lock_timeout_ms;
int			mx_guc_planning_horizon;
int			mx_guc_max_waiting_jobs;
/* read by the submission trigger (46_submission_limits.sql) only */
static int	max_submissions_per_hour;
static int	max_submission_kb_per_hour;
/* read by mixdnn._check_job_terms (30b_job_terms.sql) only */
static int	max_user_priority;
bool		mx_guc_fair_share;
int			mx_guc_fair_share_half_life_s;
double		mx_guc_replan_tolerance;

bool		mx_virtual_now_set = false;
TimestampTz mx_virtual_now = 0;
static char *virtual_now_text = NULL;

static const struct config_enum_entry plan_mode_options[] = {
	{"commit", MX_PLAN_MODE_COMMIT, false},
	{"worker", MX_PLAN_MODE_WORKER, false},
	{NULL, 0, false}
};

static const struct config_enum_entry policy_options[] = {
	{"mixdnn", MX_POLICY_MIXDNN, false},
	{"k8s", MX_POLICY_K8S, false},
	{"static", MX_POLICY_STATIC, false},
	{"backfill", MX_POLICY_BACKFILL, false},
	{"sjf", MX_POLICY_SJF, false},
	{"hgreedy", MX_POLICY_HGREEDY, false},
	{"hsjf", MX_POLICY_HSJF, false},
	{"k8s-any", MX_POLICY_K8S_ANY, false},
	{NULL, 0, false}
};

/*
 * Whether a time names the moment it is read ('now', 'today 12:00', ...):
 * each session that sets it, and each reload, would pin a clock of its own,
 * shown as the same word. PostgreSQL refuses them in recovery_target_time.
 */
static bool
relative_time(const char *value)
{
	char		workbuf[MAXDATELEN + MAXDATEFIELDS];
	char	   *field[MAXDATEFIELDS];
	int			ftype[MAXDATEFIELDS];
	int			nf,
				i;

	if (ParseDateTime(value, workbuf, sizeof(workbuf), field, ftype, MAXDATEFIELDS, &nf) != 0)
		return false;			/* malformed: timestamptz_in says so */
	for (i = 0; i < nf; i++)
		if (strcmp(field[i], "now") == 0 || strcmp(field[i], "today") == 0 ||
			strcmp(field[i], "tomorrow") == 0 || strcmp(field[i], "yesterday") == 0)
			return true;
	return false;
}

/* Parse once here so that mixdnn.now() never fails on a bad value. */
static bool
check_virtual_now(char **newval, void **extra, GucSource source)
{
	TimestampTz *parsed;
	MemoryContext oldcxt = CurrentMemoryContext;

	if (*newval == NULL || (*newval)[0] == '\0')
		return true;

	/* GUC releases extra with free(). */
	parsed = (TimestampTz *) malloc(sizeof(TimestampTz));
	if (parsed == NULL)
		return false;

	PG_TRY();
	{
		*parsed = DatumGetTimestampTz(DirectFunctionCall3(timestamptz_in,
														  CStringGetDatum(*newval),
														  ObjectIdGetDatum(InvalidOid),
														  Int32GetDatum(-1)));
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(oldcxt);
		FlushErrorState();
		free(parsed);
		GUC_check_errmsg("invalid value for mixdnn.virtual_now: \"%s\"", *newval);
		GUC_check_errdetail("The value must be a timestamp with time zone, or empty for the real clock.");
		return false;
	}
	PG_END_TRY();

	if (TIMESTAMP_NOT_FINITE(*parsed))
	{
		free(parsed);
		GUC_check_errmsg("mixdnn.virtual_now must be a finite timestamp");
		return false;
	}
	if (relative_time(*newval))
	{
		free(parsed);
		GUC_check_errmsg("mixdnn.virtual_now must be a fixed time, not \"%s\"", *newval);
		GUC_check_errdetail("now, today, tomorrow and yesterday are read when the setting is: each session, and each reload, would pin a clock of its own.");
		return false;
	}
	*extra = parsed;
	return true;
}

static void
assign_virtual_now(const char *newval, void *extra)
{
	mx_virtual_now_set = (extra != NULL);
	mx_virtual_now = extra ? *(TimestampTz *) extra : 0;
}

/* The worker, the launchers and operations (docs/operations.md). */
static void
define_operation_gucs(void)
{
	DefineCustomBoolVariable("mixdnn.launch_worker",
							 "Whether the launch worker serves this database; off for ALTER DATABASE ... SET.",
							 "With it off, rounds still run at commit and mixdnn.launch_due() launches when called.",
							 &mx_guc_launch_worker, true,
							 PGC_SUSET, 0, NULL, NULL, NULL);

	DefineCustomBoolVariable("mixdnn.force_drop",
							 "Lets DROP EXTENSION mixdnn go ahead while jobs are launching or running.",
							 "The launchers are then told to stop those jobs.",
							 &mx_guc_force_drop, false,
							 PGC_SUSET, 0, NULL, NULL, NULL);

	DefineCustomIntVariable("mixdnn.history_retention",
							"Rounds, plan revisions and events of jobs finished longer ago are purged; 0 keeps them.",
							"The launch worker runs mixdnn.purge_history() hourly (docs/operations.md).",
							&mx_guc_history_retention_s, 90 * 86400, 0, INT_MAX,
							PGC_SIGHUP, GUC_UNIT_S, NULL, NULL, NULL);

	DefineCustomStringVariable("mixdnn.virtual_now",
							   "Pins the scheduler clock mixdnn.now() to this timestamp; empty uses the real clock.",
							   "For tests and trace replays.",
							   &virtual_now_text, "",
							   PGC_SUSET, 0, check_virtual_now, assign_virtual_now, NULL);

	DefineCustomEnumVariable("mixdnn.plan_mode",
							 "Who runs the rounds: each committing transaction, or the background worker.",
							 "worker lets submitters commit without waiting for a round; the worker plans "
							 "everything committed since its last round (docs/performance.md).",
							 &mx_guc_plan_mode, MX_PLAN_MODE_COMMIT, plan_mode_options,
							 PGC_SIGHUP, 0, NULL, NULL, NULL);

	DefineCustomIntVariable("mixdnn.lease_timeout",
							"A launcher silent for longer loses its jobs.",
							NULL, &mx_guc_lease_timeout_s, 60, 1, 86400,
							PGC_SIGHUP, GUC_UNIT_S, NULL, NULL, NULL);

	DefineCustomIntVariable("mixdnn.max_retries",
							"Times a job whose launcher was lost is re-queued before it fails.",
							NULL, &mx_guc_max_retries, 3, 0, 100,
							PGC_SIGHUP, 0, NULL, NULL, NULL);

	DefineCustomIntVariable("mixdnn.lock_timeout",
							"Longest wait of the scheduler, its launcher functions and a round at commit for a lock.",
							"A submission that cannot get the scheduler in time commits pending; a launcher call "
							"fails with SQLSTATE 55P03 and is retried (docs/design.md, Security).",
							&mx_guc_lock_timeout_ms, 2000, 10, 600000,
							PGC_SUSET, GUC_UNIT_MS, NULL, NULL, NULL);
}

/* The solver and its budget (docs/model.md, "Configuration LP", "MILP"). */
static void
define_solver_gucs(const mx_options *d)
{
	DefineCustomEnumVariable("mixdnn.policy",
							 "Scheduling policy of the rounds.",
							 "mixdnn is the utility model; k8s, static and backfill are the baselines of the evaluation.",
							 &mx_guc_policy, MX_POLICY_MIXDNN, policy_options,
							 PGC_SUSET, 0, NULL, NULL, NULL);

	DefineCustomBoolVariable("mixdnn.use_milp",
							 "Solve the GLPK utility model; off plans with the greedy heuristic only.",
							 NULL, &mx_guc_use_milp, d->use_milp != 0,
							 PGC_SUSET, 0, NULL, NULL, NULL);

	DefineCustomIntVariable("mixdnn.solver_time_limit",
							"Budget of the GLPK solve in a round: CPU time for the configuration LP, wall time for the MILP.",
							"When it runs out the round keeps the heuristic's plan (the MILP: the best plan found, at worst the heuristic's).",
							&mx_guc_time_limit_ms, (int) d->time_limit_ms, 1, 60000,
							PGC_SUSET, GUC_UNIT_MS, NULL, NULL, NULL);

	DefineCustomRealVariable("mixdnn.mip_gap",
							 "Relative MIP gap at which GLPK stops.",
							 NULL, &mx_guc_mip_gap, d->mip_gap, 0.0, 1.0,
							 PGC_SUSET, 0, NULL, NULL, NULL);

	DefineCustomIntVariable("mixdnn.planning_window",
							"Waiting jobs inside the MILP; later jobs are planned by the heuristic.",
							NULL, &mx_guc_window_jobs, d->window_jobs, 0, 10000,
							PGC_SUSET, 0, NULL, NULL, NULL);

	DefineCustomIntVariable("mixdnn.grid_points",
							"Start-time points of the MILP's time grid.",
							NULL, &mx_guc_grid_points, d->grid_points, 2, 1000,
							PGC_SUSET, 0, NULL, NULL, NULL);

	DefineCustomBoolVariable("mixdnn.lp_configs",
							 "A GLPK LP over the waiting jobs chooses their GPU types and counts.",
							 "Off: the start-now MILP instead (docs/model.md, \"Configuration LP\"); for comparison.",
							 &mx_guc_lp_configs, d->lp_configs != 0,
							 PGC_SUSET, 0, NULL, NULL, NULL);

	DefineCustomIntVariable("mixdnn.lp_window",
							"Waiting jobs inside the configuration LP.",
							NULL, &mx_guc_lp_window, d->lp_window, 1, 10000,
							PGC_SUSET, 0, NULL, NULL, NULL);

	DefineCustomBoolVariable("mixdnn.lp_backfill",
							 "A job the configuration LP makes wait starts now on a free configuration that ends it sooner.",
							 "Only when no other plan moves (docs/model.md, \"The LP's backfill\"); off for comparison.",
							 &mx_guc_lp_backfill, d->lp_backfill != 0,
							 PGC_SUSET, 0, NULL, NULL, NULL);
}

/* The utility model and the guards (docs/model.md). */
static void
define_model_gucs(const mx_options *d)
{
	DefineCustomRealVariable("mixdnn.scaling_alpha",
							 "Exponent of the scaling model: throughput grows as gpus^alpha.",
							 NULL, &mx_guc_scaling_alpha, d->scaling_alpha, 0.0, 1.0,
							 PGC_SUSET, 0, NULL, NULL, NULL);

	DefineCustomIntVariable("mixdnn.overrun_grace",
							"A job past its planned end is assumed to hold its GPUs at least this much longer.",
							NULL, &mx_guc_overrun_s, (int) d->overrun_s, 1, 86400,
							PGC_SUSET, GUC_UNIT_S, NULL, NULL, NULL);

	DefineCustomRealVariable("mixdnn.overrun_factor",
							 "A job d seconds past its planned end is assumed to hold its GPUs at least this times d longer.",
							 "0 assumes mixdnn.overrun_grace alone.",
							 &mx_guc_overrun_factor, d->overrun_factor, 0.0, 100.0,
							 PGC_SUSET, 0, NULL, NULL, NULL);

	DefineCustomIntVariable("mixdnn.aging",
							"A waiting job's weight grows by its own weight every this many seconds of waiting.",
							NULL, &mx_guc_aging_s, (int) d->aging_s, 1, 365 * 86400,
							PGC_SUSET, GUC_UNIT_S, NULL, NULL, NULL);

	DefineCustomRealVariable("mixdnn.starve_factor",
							 "A job waiting this many times its best run time is starving and gets a reservation.",
							 "0 never reserves for a starving job.",
							 &mx_guc_starve_factor, d->starve_factor, 0.0, 1000000.0,
							 PGC_SUSET, 0, NULL, NULL, NULL);

	DefineCustomRealVariable("mixdnn.critical_margin",
							 "Slack, as a share of its best run time, at which a long job becomes makespan-critical.",
							 "A critical job is served first whenever it fits now; -1 turns the guard off.",
							 &mx_guc_critical_margin, d->critical_margin, -1.0, 100.0,
							 PGC_SUSET, 0, NULL, NULL, NULL);

	DefineCustomRealVariable("mixdnn.critical_wait",
							 "A long job can be makespan-critical or draining only once it has waited this many times its best run time.",
							 "Lets the short jobs queued with a long one go first for a moment; 0 makes a job critical on arrival.",
							 &mx_guc_critical_wait, d->critical_wait, 0.0, 100.0,
							 PGC_SUSET, 0, NULL, NULL, NULL);

	DefineCustomRealVariable("mixdnn.critical_trade",
							 "A critical job is served first only if its share of makespan gained is at least this many times the share of completion time it costs the other jobs.",
							 "Both shares are forecast by planning the round with and without the job first; 0 always serves it first.",
							 &mx_guc_critical_trade, d->critical_trade, 0.0, 1000.0,
							 PGC_SUSET, 0, NULL, NULL, NULL);

	DefineCustomRealVariable("mixdnn.drain_margin",
							 "Slack, as a share of its best run time, below which a critical job reserves GPUs.",
							 "Makespan first: GPUs are drained for the job at the cost of average JCT; -1 (the default) never.",
							 &mx_guc_drain_margin, d->drain_margin, -1.0, 100.0,
							 PGC_SUSET, 0, NULL, NULL, NULL);

	DefineCustomBoolVariable("mixdnn.reserve_all",
							 "Every waiting job reserves GPUs in its turn, and the MILP plans on a time grid.",
							 "The ablation of the guards (every job may hold GPUs ahead of time); kept for comparison (docs/model.md).",
							 &mx_guc_reserve_all, d->reserve_all != 0,
							 PGC_SUSET, 0, NULL, NULL, NULL);

	DefineCustomIntVariable("mixdnn.planning_horizon",
							"Waiting jobs a round plans: the first ones by priority, then submission time.",
							"The rest stay pending, queued, so a round's cost is bounded whatever the queue "
							"(docs/design.md, \"The waiting queue\").",
							&mx_guc_planning_horizon, 2000, 1, 100000,
							PGC_SUSET, 0, NULL, NULL, NULL);

	DefineCustomRealVariable("mixdnn.replan_tolerance",
							 "A planned start that moves later by less than this share of its distance from now is not rewritten.",
							 "Starts that move earlier, configurations and statuses are always written; 0 writes every change.",
							 &mx_guc_replan_tolerance, 0.1, 0.0, 1.0,
							 PGC_SUSET, 0, NULL, NULL, NULL);
}

/* Quotas and fair share (docs/model.md, "Quotas and fair share"). */
static void
define_tenancy_gucs(void)
{
	DefineCustomIntVariable("mixdnn.max_waiting_jobs",
							"Most pending and planned jobs one role may have; a submission beyond it fails.",
							"0 means no limit.",
							&mx_guc_max_waiting_jobs, 1000, 0, 10000000,
							PGC_SUSET, 0, NULL, NULL, NULL);

	/*
	 * One role's submission budget over a sliding hour: finished and
	 * cancelled jobs stay in mixdnn.jobs, so what a role may add to it is
	 * bounded (docs/design.md, "Submission budget").
	 */
	DefineCustomIntVariable("mixdnn.max_submissions_per_hour",
							"Most jobs one role may submit in any hour; a submission beyond it fails.",
							"Cancelled and finished jobs count too. 0 means no limit.",
							&max_submissions_per_hour, 2000, 0, 10000000,
							PGC_SUSET, 0, NULL, NULL, NULL);

	DefineCustomIntVariable("mixdnn.max_submission_bytes_per_hour",
							"Most bytes of name, model, command, env, workdir and allowed_types one role may submit in any hour.",
							"Counted as stored (pg_column_size); cancelled and finished jobs count too. 0 means no limit.",
							&max_submission_kb_per_hour, 16 * 1024, 0, INT_MAX,
							PGC_SUSET, GUC_UNIT_KB, NULL, NULL, NULL);

	/*
	 * A plain user's priority sets her jobs' order against everyone's: 0
	 * is Slurm's rule (users may only lower theirs; an admin raises a job).
	 */
	DefineCustomIntVariable("mixdnn.max_user_priority",
							"Highest priority a plain user (not an admin) may give a job.",
							"An admin may give any (-100..100); 100 means no ceiling.",
							&max_user_priority, 100, -100, 100,
							PGC_SUSET, 0, NULL, NULL, NULL);

	DefineCustomBoolVariable("mixdnn.fair_share",
							 "Weigh each job by its owner's fair-share factor (mixdnn.shares).",
							 "Owners who used less than their share of the GPUs are served first (docs/model.md).",
							 &mx_guc_fair_share, false,
							 PGC_SUSET, 0, NULL, NULL, NULL);

	DefineCustomIntVariable("mixdnn.fair_share_half_life",
							"Half-life of the GPU usage history fair share is computed from.",
							NULL, &mx_guc_fair_share_half_life_s, 86400, 60, 365 * 86400,
							PGC_SUSET, GUC_UNIT_S, NULL, NULL, NULL);
}

void
mx_guc_init(void)
{
	mx_options	d;

	/* Boot values are the core's defaults, justified in docs/model.md. */
	mx_options_default(&d);
	define_operation_gucs();
	define_solver_gucs(&d);
	define_model_gucs(&d);
	define_tenancy_gucs();
}

/* After every module has defined its settings, so none of them is refused. */
void
mx_guc_reserve_prefix(void)
{
	MarkGUCPrefixReserved("mixdnn");
}

void
mx_guc_options(mx_options *o)
{
	mx_options_default(o);
	o->policy = (mx_policy) mx_guc_policy;
	o->use_milp = mx_guc_use_milp;
	o->time_limit_ms = mx_guc_time_limit_ms;
	o->mip_gap = mx_guc_mip_gap;
	o->window_jobs = mx_guc_window_jobs;
	o->grid_points = mx_guc_grid_points;
	o->scaling_alpha = mx_guc_scaling_alpha;
	o->overrun_s = mx_guc_overrun_s;
	o->overrun_factor = mx_guc_overrun_factor;
	o->aging_s = mx_guc_aging_s;
	o->starve_factor = mx_guc_starve_factor;
	o->critical_margin = mx_guc_critical_margin;
	o->critical_wait = mx_guc_critical_wait;
	o->critical_trade = mx_guc_critical_trade;
	o->drain_margin = mx_guc_drain_margin;
	o->reserve_all = mx_guc_reserve_all;
	o->fair_share = mx_guc_fair_share;
	o->fair_share_half_life_s = mx_guc_fair_share_half_life_s;
	o->lp_configs = mx_guc_lp_configs;
	o->lp_window = mx_guc_lp_window;
	o->lp_backfill = mx_guc_lp_backfill;
}

PG_FUNCTION_INFO_V1(mixdnn_lease);

/* mixdnn._lease(): mixdnn.lease_timeout as an interval, as launch_due() grants it. */
Datum
mixdnn_lease(PG_FUNCTION_ARGS)
{
	Interval   *lease = palloc0(sizeof(Interval));

	lease->time = (int64) mx_guc_lease_timeout_s * USECS_PER_SEC;
	PG_RETURN_INTERVAL_P(lease);
}
