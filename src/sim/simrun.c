/*
 * simrun.c — the simulator's event loop and its metrics (sim.h).
 *
 * Event semantics (docs/simulator.md): the clock jumps to the earliest of
 * the next submission, the next completion and the next planned start that
 * lies in the future. At that instant, in this order:
 *   1. every running job whose finish <= now completes and frees its GPUs;
 *   2. every job whose submit <= now arrives (joins the waiting jobs);
 *   3. one round: a snapshot of the cluster (up nodes with busy masks,
 *      running parts with expected_end = start + run time under the job's
 *      estimate (a job may outlive it: it runs its true duration), waiting
 *      jobs in submit order with their previous plan) goes to mx_plan_round;
 *   4. every waiting job planned to start at or before now is placed
 *      (mx_place / mx_place_commit) in order of planned start, then submit
 *      order, and starts now; it runs for duration / utility of the planned
 *      configuration and is never preempted.
 * Times closer than SIM_EPS count as equal.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "baselines.h"
#include "sim.h"
#include "tenancy.h"
#include "stopwatch.h"

void
sim_options_default(sim_options *o)
{
	memset(o, 0, sizeof(*o));
	mx_options_default(&o->planner);
	o->epoch = SIM_DEFAULT_EPOCH;
}

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted v[0..n): the smallest value with >= q of the values at or below it. */
static double
percentile(const double *v, int n, double q)
{
	int			k;

	if (n <= 0)
		return 0;
	k = (int) ceil(q * n) - 1;
	if (k < 0)
		k = 0;
	if (k >= n)
		k = n - 1;
	return v[k];
}

typedef struct launch
{
	int			ji;				/* index into w->jobs */
	int			ai;				/* index into the plan */
	double		start;
} launch;

static int
cmp_launch(const void *a, const void *b)
{
	const launch *x = a,
			   *y = b;

	if (x->start < y->start)
		return -1;
	if (x->start > y->start)
		return 1;
	return (x->ji > y->ji) - (x->ji < y->ji);
}

static void
write_util(const sim_world *w, const mx_node *nodes, double t, FILE *f)
{
	int			busy[MX_MAX_TYPES] = {0};
	int			i,
				total = 0;

	for (i = 0; i < w->cluster.nnodes; i++)
	{
		int			b = __builtin_popcountll(nodes[i].busy);

		busy[nodes[i].type] += b;
		total += b;
	}
	fprintf(f, "%.3f,%d", t, total);
	for (i = 0; i < w->cluster.ntypes; i++)
		fprintf(f, ",%d", busy[i]);
	fputc('\n', f);
}

/* The simulation's state between events. */
typedef struct sim_state
{
	sim_world  *w;
	const sim_options *o;
	sim_result *r;
	mx_node    *nodes;			/* the cluster's nodes with their busy masks */
	mx_running_part *parts;		/* a round's running parts */
	mx_part    *place;			/* one job's placement: at most one part per node */
	mx_job	   *sjobs;			/* a round's waiting jobs */
	int		   *sjob_of;		/* snapshot job -> world job */
	int		   *running;		/* world jobs that run */
	int			nrunning;
	launch	   *launches;		/* a round's jobs due now */
	double	   *solve;			/* wall time of every round */
	int		   *waiting_of;		/* per owner: its waiting jobs */
	mx_owner   *round_owners;	/* the owners with their usage, per round */
	int			nsolve,
				solve_cap;
	int			next_arrival;	/* the next world job to arrive */
	int			nwaiting;
	int			done;
	int			total_gpus;		/* of the nodes that are up */
	double		now,
				next_due;		/* the earliest planned start in the future */
	double		last_progress;	/* wall ms of the last progress line */
	int			idle_round;		/* the last round started and rejected nothing */
	long long	idle_rounds;	/* such rounds in a row while every running job overran (skip_idle_rounds) */
} sim_state;

static int
state_alloc(sim_state *st)
{
	sim_world  *w = st->w;
	int			i,
				nparts_max = 0;

	st->nodes = malloc((size_t) w->cluster.nnodes * sizeof(mx_node));
	st->running = malloc((size_t) w->njobs * sizeof(int));
	st->sjobs = malloc((size_t) w->njobs * sizeof(mx_job));
	st->sjob_of = malloc((size_t) w->njobs * sizeof(int));
	st->launches = malloc((size_t) w->njobs * sizeof(launch));
	for (i = 0; i < w->cluster.nnodes; i++)
		nparts_max += w->cluster.nodes[i].gpus;
	st->parts = malloc((size_t) (nparts_max + 1) * sizeof(mx_running_part));
	st->place = malloc((size_t) (w->cluster.nnodes + 1) * sizeof(mx_part));
	if (w->nowners > 0)
	{
		st->waiting_of = calloc((size_t) w->nowners, sizeof(int));
		st->round_owners = malloc((size_t) w->nowners * sizeof(mx_owner));
	}
	if (!st->nodes || !st->running || !st->sjobs || !st->sjob_of || !st->launches || !st->parts || !st->place ||
		(w->nowners > 0 && (!st->waiting_of || !st->round_owners)))
		return -1;
	memcpy(st->nodes, w->cluster.nodes, (size_t) w->cluster.nnodes * sizeof(mx_node));
	for (i = 0; i < w->cluster.nnodes; i++)
	{
		st->nodes[i].busy = 0;
		if (st->nodes[i].status == MX_NODE_UP)
			st->total_gpus += st->nodes[i].gpus;
	}
	return 0;
}

static void
state_free(sim_state *st)
{
	free(st->nodes);
	free(st->parts);
	free(st->place);
	free(st->sjobs);
	free(st->sjob_of);
	free(st->running);
	free(st->launches);
	free(st->solve);
	free(st->waiting_of);
	free(st->round_owners);
}

/* Every job back to "not submitted yet", so a world can be run again. */
static void
reset_jobs(sim_world *w, const sim_options *o)
{
	int			i;

	for (i = 0; i < w->njobs; i++)
	{
		sim_job    *j = &w->jobs[i];

		j->state = SJ_FUTURE;
		j->type = -1;
		j->gpus = 0;
		j->utility = 0;
		j->start = j->finish = j->expected_finish = NAN;
		j->first_planned_start = NAN;
		j->replans = 0;
		free(j->parts);
		j->parts = NULL;
		j->nparts = 0;
		j->reason[0] = '\0';
		j->job.submitted = o->epoch + j->submit;
		j->job.prev_type = -1;
		j->job.prev_gpus = 0;
		j->job.prev_start = 0;
	}
}

static void
write_headers(const sim_state *st)
{
	const sim_world *w = st->w;
	int			i;

	if (st->o->util_out)
	{
		fprintf(st->o->util_out, "t_s,busy_gpus");
		for (i = 0; i < w->cluster.ntypes; i++)
			fprintf(st->o->util_out, ",busy_%s", w->cluster.types[i].name);
		fprintf(st->o->util_out, "\n");
		write_util(w, st->nodes, 0, st->o->util_out);
	}
	if (st->o->rounds_out)
		fprintf(st->o->rounds_out, "t_s,waiting,running,launched,solve_ms,solver,milp_jobs,milp_vars,objective\n");
}

/* The next submission or completion; INFINITY when none. */
static double
next_real_event(const sim_state *st)
{
	double		t = INFINITY;
	int			k;

	if (st->next_arrival < st->w->njobs)
		t = st->w->jobs[st->next_arrival].submit;
	for (k = 0; k < st->nrunning; k++)
		if (st->w->jobs[st->running[k]].finish < t)
			t = st->w->jobs[st->running[k]].finish;
	return t;
}

/* The next submission, completion or planned start; INFINITY when none. */
static double
next_event(const sim_state *st)
{
	double		t = next_real_event(st);

	return st->next_due < t ? st->next_due : t;
}

/* Step 1: running jobs whose finish has come free their GPUs. */
static void
complete_jobs(sim_state *st)
{
	int			i,
				k;

	for (k = 0; k < st->nrunning;)
	{
		sim_job    *j = &st->w->jobs[st->running[k]];

		if (j->finish <= st->now + SIM_EPS)
		{
			for (i = 0; i < j->nparts; i++)
				st->nodes[j->parts[i].node].busy &= ~j->parts[i].indices;
			j->state = SJ_DONE;
			st->done++;
			st->running[k] = st->running[--st->nrunning];
		}
		else
			k++;
	}
}

/* Each owner's waiting jobs among those that have arrived. */
static void
count_waiting(sim_state *st)
{
	sim_world  *w = st->w;
	int			i;

	for (i = 0; i < w->nowners; i++)
		st->waiting_of[i] = 0;
	for (i = 0; w->nowners > 0 && i < st->next_arrival; i++)
		if (w->jobs[i].state == SJ_WAITING && w->jobs[i].job.owner >= 0)
			st->waiting_of[w->jobs[i].job.owner]++;
}

/*
 * Step 2: submitted jobs join the waiting ones; a job beyond its owner's
 * waiting-jobs limit is rejected.
 */
static void
admit_arrivals(sim_state *st)
{
	sim_world  *w = st->w;

	count_waiting(st);
	while (st->next_arrival < w->njobs && w->jobs[st->next_arrival].submit <= st->now + SIM_EPS)
	{
		sim_job    *aj = &w->jobs[st->next_arrival++];

		if (!sim_tenancy_admit(w, st->waiting_of, st->next_arrival - 1))
		{
			aj->state = SJ_REJECTED;
			snprintf(aj->reason, MX_REASON_LEN, "role %s would have more than %d waiting jobs",
					 w->owners[aj->job.owner].name, w->max_waiting[aj->job.owner]);
			continue;
		}
		aj->state = SJ_WAITING;
		if (w->nowners > 0 && aj->job.owner >= 0)
			st->waiting_of[aj->job.owner]++;
		st->nwaiting++;
	}
}

/* Step 3's snapshot: the waiting jobs in submit order and the running parts. */
static void
build_snapshot(sim_state *st, mx_snapshot *s)
{
	sim_world  *w = st->w;
	int			i,
				k,
				nj = 0,
				np = 0;

	for (i = 0; i < w->njobs && nj < st->nwaiting; i++)
		if (w->jobs[i].state == SJ_WAITING)
		{
			st->sjobs[nj] = w->jobs[i].job;
			st->sjob_of[nj] = i;
			nj++;
		}
	for (k = 0; k < st->nrunning; k++)
	{
		sim_job    *j = &w->jobs[st->running[k]];

		for (i = 0; i < j->nparts; i++)
		{
			st->parts[np].job_id = j->job.job_id;
			st->parts[np].node = j->parts[i].node;
			st->parts[np].gpus = j->parts[i].gpus;
			st->parts[np].expected_end = st->o->epoch + j->expected_finish;
			st->parts[np].owner = j->job.owner;
			np++;
		}
	}
	*s = w->cluster;
	s->now = st->o->epoch + st->now;
	s->nodes = st->nodes;
	s->nparts = np;
	s->parts = st->parts;
	s->njobs = nj;
	s->jobs = st->sjobs;
	if (w->nowners > 0)
	{
		sim_tenancy_usage(w, st->o, st->now, st->round_owners);
		s->nowners = w->nowners;
		s->owners = st->round_owners;
	}
}

/* Counts a round and keeps its solve time; -1 when out of memory. */
static int
record_round(sim_state *st, const mx_plan *plan, double ms)
{
	sim_result *r = st->r;

	if (st->nsolve >= st->solve_cap)
	{
		double	   *ns;

		st->solve_cap = st->solve_cap ? st->solve_cap * 2 : 1024;
		ns = realloc(st->solve, (size_t) st->solve_cap * sizeof(double));
		if (ns == NULL)
			return -1;
		st->solve = ns;
	}
	st->solve[st->nsolve++] = ms;
	r->rounds++;
	if (strncmp(plan->solver, "glpk", 4) == 0)
		r->milp_rounds++;
	if (strstr(plan->solver, "fallback") || strstr(plan->solver, "limit") ||
		strstr(plan->solver, "error"))
		r->fallback_rounds++;
	return 0;
}

static void
watch_job(const sim_state *st, const sim_job *j, const mx_assignment *a, int nj)
{
	const sim_world *w = st->w;
	double		epoch = st->o->epoch;

	fprintf(stderr, "watch %s t=%.3f round %lld: %s %s x%d start %.3f end %.3f utility %.3f (%d waiting) %s\n",
			j->name, st->now, st->r->rounds,
			a->status == MX_PLANNED ? "planned" : a->status == MX_WAITING ? "waiting" : "unplannable",
			a->type >= 0 ? w->cluster.types[a->type].name : "-", a->gpus,
			a->start - epoch, a->end - epoch, a->utility, nj, a->reason);
}

/*
 * Step 4's first half: remember each job's plan, reject what can never run,
 * and collect the jobs planned to start now. Returns how many are due.
 */
static int
apply_plan(sim_state *st, const mx_plan *plan, int nj)
{
	int			i,
				nl = 0;

	for (i = 0; i < plan->n && i < nj; i++)
	{
		const mx_assignment *a = &plan->a[i];
		int			ai = a->job >= 0 && a->job < nj ? a->job : i;
		sim_job    *j = &st->w->jobs[st->sjob_of[ai]];
		double		st_s = a->start - st->o->epoch;

		snprintf(j->reason, MX_REASON_LEN, "%s", a->reason);
		if (st->o->watch && strcmp(st->o->watch, j->name) == 0)
			watch_job(st, j, a, nj);
		if (a->status == MX_UNPLANNABLE)
		{
			j->state = SJ_REJECTED;
			j->type = a->type;
			j->gpus = a->gpus;
			st->nwaiting--;
			continue;
		}
		if (a->status == MX_PLANNED && isnan(j->first_planned_start))
			j->first_planned_start = st_s < st->now ? st->now : st_s;
		if (a->status == MX_PLANNED && st_s <= st->now + SIM_EPS && a->type >= 0 && a->gpus > 0)
		{
			st->launches[nl].ji = st->sjob_of[ai];
			st->launches[nl].ai = i;
			st->launches[nl].start = st_s;
			nl++;
			continue;
		}
		j->replans++;
		j->job.prev_type = a->status == MX_PLANNED ? a->type : -1;
		j->job.prev_gpus = a->status == MX_PLANNED ? a->gpus : 0;
		j->job.prev_start = a->status == MX_PLANNED ? a->start : 0;
		if (a->status == MX_PLANNED && st_s > st->now + SIM_EPS && st_s < st->next_due)
			st->next_due = st_s;
	}
	return nl;
}

/* Starts job j on a's configuration, placed on parts it already holds. */
static void
start_job(sim_state *st, sim_job *j, const mx_assignment *a, int ji)
{
	double		util = a->utility,
				run,
				est;

	/* planned with the estimate, runs its true duration on that configuration */
	if (!(util > 0) || !isfinite(util))
		est = (a->end > a->start) ? a->end - a->start : j->job.duration;
	else
		est = j->job.duration / util;
	run = est * (j->true_duration / j->job.duration);
	/* a tiny estimate of a long run: their ratio overflows, the run time need not */
	if (!isfinite(run))
		run = est / j->job.duration * j->true_duration;
	j->state = SJ_RUNNING;
	j->type = a->type;
	j->gpus = a->gpus;
	j->utility = (util > 0 && isfinite(util)) ? util : j->job.duration / est;
	j->start = st->now;
	j->finish = st->now + run;
	j->expected_finish = st->now + est;
	st->running[st->nrunning++] = ji;
	st->nwaiting--;
}

/*
 * Step 4's second half: the due jobs in order of planned start, then submit
 * order, placed and started. Returns how many started, -1 out of memory.
 */
static int
launch_due(sim_state *st, const mx_plan *plan, int nl)
{
	const sim_world *w = st->w;
	int			k,
				launched = 0;

	qsort(st->launches, nl, sizeof(launch), cmp_launch);
	for (k = 0; k < nl; k++)
	{
		const mx_assignment *a = &plan->a[st->launches[k].ai];
		sim_job    *j = &st->w->jobs[st->launches[k].ji];
		int			npart;

		npart = mx_place(st->nodes, w->cluster.nnodes, a->type, a->gpus, st->place, w->cluster.nnodes);
		if (npart <= 0)
		{
			st->r->place_failures++;
			j->replans++;
			snprintf(j->reason, MX_REASON_LEN, "placement failed: %d %s GPUs not free on the nodes",
					 a->gpus, w->cluster.types[a->type].name);
			j->job.prev_type = -1;
			j->job.prev_gpus = 0;
			j->job.prev_start = 0;
			continue;
		}
		/* a job starts once, so it has no parts yet (reset_jobs frees them) */
		j->parts = malloc((size_t) npart * sizeof(mx_part));
		if (j->parts == NULL)
			return -1;
		memcpy(j->parts, st->place, (size_t) npart * sizeof(mx_part));
		mx_place_commit(st->nodes, j->parts, npart);
		j->nparts = npart;
		start_job(st, j, a, st->launches[k].ji);
		launched++;
	}
	return launched;
}

/* Steps 3 and 4. 0, or -1 with err set. */
static int
run_round(sim_state *st, char *err, size_t errlen)
{
	mx_snapshot s;
	mx_plan		plan;
	double		t0,
				ms;
	int			nl,
				launched;

	build_snapshot(st, &s);
	memset(&plan, 0, sizeof(plan));
	t0 = mx_wall_ms();
	if (mx_tenancy_plan_round(&s, &st->o->planner, &plan) != 0)
	{
		snprintf(err, errlen, "mx_plan_round failed at t=%.3f s (out of memory)", st->now);
		return -1;
	}
	ms = mx_wall_ms() - t0;
	if (record_round(st, &plan, ms) < 0)
	{
		mx_plan_free(&plan);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	nl = apply_plan(st, &plan, s.njobs);
	launched = launch_due(st, &plan, nl);
	st->idle_round = nl == 0 && st->nwaiting == s.njobs;
	if (launched < 0)
	{
		mx_plan_free(&plan);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (st->o->rounds_out)
		fprintf(st->o->rounds_out, "%.3f,%d,%d,%d,%.3f,\"%s\",%d,%d,%.6g\n",
				st->now, s.njobs, st->nrunning, launched, ms, plan.solver, plan.milp_jobs,
				plan.milp_vars, plan.objective);
	mx_plan_free(&plan);
	return 0;
}

static void
show_progress(sim_state *st)
{
	double		wnow = mx_wall_ms();

	if (wnow - st->last_progress > 250)
	{
		st->last_progress = wnow;
		fprintf(stderr, "\r%s: t=%.0fs  %d/%d done  %d waiting  %d running  %lld rounds   ",
				st->r->policy, st->now, st->done, st->w->njobs, st->nwaiting, st->nrunning, st->r->rounds);
		fflush(stderr);
	}
}

/*
 * Whether a round at tau, on the state as it is now, would start or reject
 * nothing (a trial: nothing is changed, nothing counted). 0 when out of
 * memory.
 */
static int
idle_at(sim_state *st, double tau)
{
	mx_snapshot s;
	mx_plan		plan;
	double		saved = st->now;
	int			idle = 1,
				i;

	st->now = tau;
	build_snapshot(st, &s);
	memset(&plan, 0, sizeof(plan));
	if (mx_tenancy_plan_round(&s, &st->o->planner, &plan) != 0)
		idle = 0;
	for (i = 0; idle && i < plan.n; i++)
		if (plan.a[i].status == MX_UNPLANNABLE ||
			(plan.a[i].status == MX_PLANNED && plan.a[i].start - st->o->epoch <= tau + SIM_EPS))
			idle = 0;
	mx_plan_free(&plan);
	st->now = saved;
	return idle;
}

/* Rounds run in a row before skip_idle_rounds skips any. */
#define SIM_IDLE_ROUNDS_RUN 1000

/*
 * Rounds while every running job has outlived its estimate (static;
 * backfill counts such a job as ending now and plans its head no later
 * start, contract §6). static assumes such a job ends overrun_s from now
 * (mx_overrun_factor is 0 for it), so a job waiting behind it is planned
 * overrun_s ahead, and that start comes due, is re-planned overrun_s ahead,
 * and so on until the job really ends: a job estimated at 1 s that ran
 * 1e12 s made 1.7e10 rounds. Nothing else changes between those rounds:
 * the same jobs wait and run, every running job is assumed to end
 * overrun_s after the round, and static reads no time but relative
 * ones (no aging, no previous plan) except the calendar's end
 * (mx_ends_in_calendar), so each round is the one before moved in time and
 * starts nothing. Only the calendar can change that, and once a round
 * rejects a job for it every later one does (its plan ends later still).
 * So, after SIM_IDLE_ROUNDS_RUN of them in a row, the clock skips to the
 * last such round before the next submission or completion at which a
 * trial round still starts and rejects nothing (a bisection over the
 * rounds, for the calendar), and that round is run (docs/simulator.md,
 * "Event semantics"). The schedule is the one every round would have made.
 */
static void
skip_idle_rounds(sim_state *st)
{
	const mx_options *po = &st->o->planner;
	double		step = st->next_due - st->now,
				real = next_real_event(st),
				kmax,
				lo,
				hi;
	int			k;

	if (!st->idle_round || st->nwaiting == 0 || st->nrunning == 0 ||
		po->policy != MX_POLICY_STATIC ||
		!(step > SIM_EPS) || !isfinite(step))
	{
		st->idle_rounds = 0;
		return;
	}
	for (k = 0; k < st->nrunning; k++)
		if (st->o->epoch + st->w->jobs[st->running[k]].expected_finish > st->o->epoch + st->now)
		{
			st->idle_rounds = 0;
			return;
		}
	/*
	 * The first SIM_IDLE_ROUNDS_RUN are run, as the database runs them:
	 * an overrun of minutes keeps its rounds in --rounds-out (the
	 * differential test compares them); only a long one is cut short.
	 */
	if (++st->idle_rounds < SIM_IDLE_ROUNDS_RUN)
		return;
	/* the rounds now + i * step, i = 1 .. kmax, come before the next real event */
	kmax = isfinite(real) ? floor((real - SIM_EPS - st->now) / step) : 1e15;
	if (kmax > 1e15)
		kmax = 1e15;
	/* --max-rounds: the round it stops after is one that is run */
	if (st->o->max_rounds > 0 && kmax > st->o->max_rounds - st->r->rounds)
		kmax = st->o->max_rounds - st->r->rounds;
	if (kmax < 2)
		return;
	if (idle_at(st, st->now + kmax * step))
		lo = kmax;
	else
	{
		/* idle at 1 (the round just run, moved by one step), not at hi */
		for (lo = 1, hi = kmax; hi - lo > 1;)
		{
			double		mid = floor((lo + hi) / 2);

			if (idle_at(st, st->now + mid * step))
				lo = mid;
			else
				hi = mid;
		}
	}
	if (lo < 2)
		return;
	/*
	 * The rounds now + step .. now + (lo - 1) * step are counted as held
	 * (rounds, events, each waiting job's rounds_waited: every one of them
	 * waited in each), as the database holds them; their solve times and
	 * --rounds-out, --util-out and --watch lines are not written.
	 */
	st->next_due = st->now + lo * step;
	st->r->rounds += (long long) (lo - 1);
	st->r->events += (long long) (lo - 1);
	for (k = 0; k < st->w->njobs; k++)
		if (st->w->jobs[k].state == SJ_WAITING)
			st->w->jobs[k].replans += (long long) (lo - 1);
}

/* The event loop. 0, or -1 with err set. */
static int
run_events(sim_state *st, char *err, size_t errlen)
{
	const sim_options *o = st->o;

	for (;;)
	{
		double		t = next_event(st);

		if (!isfinite(t))
			break;
		if (t > st->now)
			st->now = t;
		st->r->events++;

		complete_jobs(st);
		admit_arrivals(st);
		st->next_due = INFINITY;
		st->idle_round = 0;
		if (st->nwaiting > 0 && run_round(st, err, errlen) < 0)
			return -1;
		skip_idle_rounds(st);
		if (o->util_out)
			write_util(st->w, st->nodes, st->now, o->util_out);
		if (o->progress)
			show_progress(st);
		if (o->max_rounds > 0 && st->r->rounds >= o->max_rounds)
			break;
		/* stalled: waiting jobs, nothing will ever happen again */
		if (st->nwaiting > 0 && st->nrunning == 0 && st->next_arrival >= st->w->njobs && !isfinite(st->next_due))
			break;
	}
	if (o->progress)
		fprintf(stderr, "\r%*s\r", 78, "");
	return 0;
}

/* Per finished job: completion, wait and finish-time fairness; sorted. */
typedef struct job_stats
{
	double	   *jct,
			   *wait,
			   *ftf;
	double		sum_jct,
				sum_wait,
				sum_util,
				sum_ftf,
				sum_hard;
	double		first_submit,
				last_finish;
	int			n;
} job_stats;

/*
 * Whether a finished job ran on a configuration other than its requested one
 * (docs/simulator.md, "Policies"): a soft job without gpu_type asked for
 * the type the baselines take for it, not for "no type".
 */
static int
moved(const sim_world *w, const int *total, const sim_job *j)
{
	int			type = j->job.ref_type,
				gpus = j->job.ref_gpus;
	double		util;
	char		why[8];

	if (type < 0 &&
		mx_requested_config(&w->cluster, &j->job, total, MX_FITTED_ALPHA /* sets only util, unused */ , &type, &gpus, &util, why, sizeof(why)) < 0)
		return 1;
	return j->type != type || j->gpus != gpus;
}

/* Counts every job by its end state and collects the finished ones' figures. */
static void
collect_jobs(sim_world *w, sim_result *r, job_stats *js)
{
	int			i,
				total[MX_MAX_TYPES] = {0};

	/* as the baselines count them: the up nodes' GPUs */
	for (i = 0; i < w->cluster.nnodes; i++)
		if (w->cluster.nodes[i].status == MX_NODE_UP)
			total[w->cluster.nodes[i].type] += w->cluster.nodes[i].gpus;

	js->first_submit = INFINITY;
	js->last_finish = -INFINITY;
	for (i = 0; i < w->njobs; i++)
	{
		sim_job    *j = &w->jobs[i];
		int			n = js->n;

		if (j->state == SJ_WAITING || j->state == SJ_FUTURE || j->state == SJ_RUNNING)
		{
			r->unfinished_running += j->state == SJ_RUNNING;
			j->state = SJ_UNFINISHED;
			r->unfinished++;
			continue;
		}
		if (j->state == SJ_REJECTED)
		{
			r->rejected++;
			continue;
		}
		if (j->submit < js->first_submit)
			js->first_submit = j->submit;
		if (j->finish > js->last_finish)
			js->last_finish = j->finish;
		js->jct[n] = j->finish - j->submit;
		js->wait[n] = j->start - j->submit;
		js->sum_jct += js->jct[n];
		js->sum_wait += js->wait[n];
		js->sum_util += j->utility;
		js->ftf[n] = js->jct[n] / j->true_duration;
		js->sum_ftf += js->ftf[n];
		if (j->job.cls == MX_HARD)
		{
			r->hard_finished++;
			js->sum_hard += js->jct[n];
		}
		if (j->finish > j->expected_finish + SIM_EPS)
			r->overran++;
		r->gpu_seconds += (double) j->gpus * (j->finish - j->start);
		r->moved += moved(w, total, j);
		js->n++;
	}
}

static void
summarize_jobs(job_stats *js, int total_gpus, sim_result *r)
{
	int			n = js->n;

	r->finished = n;
	if (n == 0)
	{
		/* null in --json: no job finished, so nothing to average (0 would read as perfect) */
		r->avg_jct = r->p50_jct = r->p99_jct = r->max_jct = r->avg_wait = r->p99_wait = NAN;
		r->avg_utility = r->ftf_mean = r->ftf_p99 = r->ftf_max = r->avg_jct_hard = NAN;
		r->makespan = r->gpu_util = NAN;
		return;
	}
	qsort(js->jct, n, sizeof(double), cmp_double);
	qsort(js->wait, n, sizeof(double), cmp_double);
	r->avg_jct = js->sum_jct / n;
	r->p50_jct = percentile(js->jct, n, 0.50);
	r->p99_jct = percentile(js->jct, n, 0.99);
	r->max_jct = js->jct[n - 1];
	r->avg_wait = js->sum_wait / n;
	r->p99_wait = percentile(js->wait, n, 0.99);
	r->avg_utility = js->sum_util / n;
	qsort(js->ftf, n, sizeof(double), cmp_double);
	r->ftf_mean = js->sum_ftf / n;
	r->ftf_p99 = percentile(js->ftf, n, 0.99);
	r->ftf_max = js->ftf[n - 1];
	r->avg_jct_hard = r->hard_finished > 0 ? js->sum_hard / r->hard_finished : NAN;
	r->makespan = js->last_finish - js->first_submit;
	if (r->makespan > 0 && total_gpus > 0)
		r->gpu_util = r->gpu_seconds / ((double) total_gpus * r->makespan);
}

static void
summarize_solves(sim_state *st)
{
	sim_result *r = st->r;
	int			i;

	if (st->nsolve == 0)
		return;
	for (i = 0; i < st->nsolve; i++)
		r->solve_ms_total += st->solve[i];
	qsort(st->solve, st->nsolve, sizeof(double), cmp_double);
	r->solve_ms_p50 = percentile(st->solve, st->nsolve, 0.50);
	r->solve_ms_p95 = percentile(st->solve, st->nsolve, 0.95);
	r->solve_ms_max = st->solve[st->nsolve - 1];
}

/* The metrics of the run. 0, or -1 when out of memory. */
static int
compute_metrics(sim_state *st)
{
	size_t		size = (size_t) st->w->njobs * sizeof(double) + 1;
	job_stats	js;
	int			rc = 0;

	memset(&js, 0, sizeof(js));
	js.jct = malloc(size);
	js.wait = malloc(size);
	js.ftf = malloc(size);
	if (js.jct == NULL || js.wait == NULL || js.ftf == NULL)
		rc = -1;
	else
	{
		collect_jobs(st->w, st->r, &js);
		summarize_jobs(&js, st->total_gpus, st->r);
		summarize_solves(st);
		rc = sim_tenancy_metrics(st->w, st->r);
	}
	free(js.jct);
	free(js.wait);
	free(js.ftf);
	return rc;
}

int
sim_run(sim_world *w, const sim_options *o, sim_result *r, char *err, size_t errlen)
{
	sim_state	st;
	double		t_wall0 = mx_wall_ms();
	int			rc = 0;

	memset(r, 0, sizeof(*r));
	r->policy = mx_policy_name(o->planner.policy);
	r->jobs = w->njobs;
	r->soft_jobs = w->nsoft;

	memset(&st, 0, sizeof(st));
	st.w = w;
	st.o = o;
	st.r = r;
	st.next_due = INFINITY;
	if (state_alloc(&st) < 0)
	{
		snprintf(err, errlen, "out of memory");
		state_free(&st);
		return -1;
	}
	r->cluster_gpus = st.total_gpus;
	reset_jobs(w, o);
	write_headers(&st);

	if (run_events(&st, err, errlen) < 0)
		rc = -1;
	else if (compute_metrics(&st) < 0)
	{
		snprintf(err, errlen, "out of memory");
		rc = -1;
	}
	else if (r->unfinished > 0)
	{
		snprintf(err, errlen, "simulation stopped at t=%.3f s with %d jobs unfinished: %d running, %d never started",
				 st.now, r->unfinished, r->unfinished_running, r->unfinished - r->unfinished_running);
		rc = 1;
	}
	if (rc >= 0)
		r->wall_s = (mx_wall_ms() - t_wall0) / 1e3;
	state_free(&st);
	return rc;
}
