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

int
sim_run(sim_world *w, const sim_options *o, sim_result *r, char *err, size_t errlen)
{
	mx_snapshot s;
	mx_node    *nodes = NULL;
	mx_running_part *parts = NULL;
	mx_job	   *sjobs = NULL;
	int		   *sjob_of = NULL;		/* snapshot job -> world job */
	int		   *running = NULL;
	int			nrunning = 0;
	launch	   *launches = NULL;
	double	   *solve = NULL;
	int		   *waiting_of = NULL;	/* per owner: its waiting jobs */
	mx_owner   *round_owners = NULL;	/* the owners with their usage, per round */
	int			nsolve = 0,
				solve_cap = 0;
	int			next_arrival = 0;
	int			nwaiting = 0;
	double		now = 0,
				next_due = INFINITY;
	double		last_progress = 0;
	double		t_wall0 = mx_wall_ms();
	int			i,
				k,
				rc = 0,
				done = 0;
	int			total_gpus = 0;
	int			nparts_max = 0;
	const double eps = SIM_EPS;

	memset(r, 0, sizeof(*r));
	r->policy = mx_policy_name(o->planner.policy);
	r->jobs = w->njobs;
	r->soft_jobs = w->nsoft;

	nodes = malloc((size_t) w->cluster.nnodes * sizeof(mx_node));
	running = malloc((size_t) w->njobs * sizeof(int));
	sjobs = malloc((size_t) w->njobs * sizeof(mx_job));
	sjob_of = malloc((size_t) w->njobs * sizeof(int));
	launches = malloc((size_t) w->njobs * sizeof(launch));
	for (i = 0; i < w->cluster.nnodes; i++)
		nparts_max += w->cluster.nodes[i].gpus;
	parts = malloc((size_t) (nparts_max + 1) * sizeof(mx_running_part));
	if (w->nowners > 0)
	{
		waiting_of = calloc((size_t) w->nowners, sizeof(int));
		round_owners = malloc((size_t) w->nowners * sizeof(mx_owner));
	}
	if (!nodes || !running || !sjobs || !sjob_of || !launches || !parts ||
		(w->nowners > 0 && (!waiting_of || !round_owners)))
	{
		snprintf(err, errlen, "out of memory");
		rc = -1;
		goto out;
	}
	memcpy(nodes, w->cluster.nodes, (size_t) w->cluster.nnodes * sizeof(mx_node));
	for (i = 0; i < w->cluster.nnodes; i++)
	{
		nodes[i].busy = 0;
		if (nodes[i].status == MX_NODE_UP)
			total_gpus += nodes[i].gpus;
	}
	r->cluster_gpus = total_gpus;

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
		j->nparts = 0;
		j->reason[0] = '\0';
		j->job.submitted = o->epoch + j->submit;
		j->job.prev_type = -1;
		j->job.prev_gpus = 0;
		j->job.prev_start = 0;
	}

	if (o->util_out)
	{
		fprintf(o->util_out, "t_s,busy_gpus");
		for (i = 0; i < w->cluster.ntypes; i++)
			fprintf(o->util_out, ",busy_%s", w->cluster.types[i].name);
		fprintf(o->util_out, "\n");
		write_util(w, nodes, 0, o->util_out);
	}
	if (o->rounds_out)
		fprintf(o->rounds_out, "t_s,waiting,running,launched,solve_ms,solver,milp_jobs,milp_vars,objective\n");

	for (;;)
	{
		double		t = INFINITY;
		mx_plan		plan;
		int			nj = 0,
					np = 0,
					nl = 0;

		if (next_arrival < w->njobs)
			t = w->jobs[next_arrival].submit;
		for (k = 0; k < nrunning; k++)
			if (w->jobs[running[k]].finish < t)
				t = w->jobs[running[k]].finish;
		if (next_due < t)
			t = next_due;
		if (!isfinite(t))
			break;
		if (t > now)
			now = t;
		r->events++;

		/* 1. completions */
		for (k = 0; k < nrunning;)
		{
			sim_job    *j = &w->jobs[running[k]];

			if (j->finish <= now + eps)
			{
				for (i = 0; i < j->nparts; i++)
					nodes[j->parts[i].node].busy &= ~j->parts[i].indices;
				j->state = SJ_DONE;
				done++;
				running[k] = running[--nrunning];
			}
			else
				k++;
		}
		/* 2. arrivals; a job beyond its owner's waiting-jobs limit is rejected */
		for (k = 0; k < w->nowners; k++)
			waiting_of[k] = 0;
		for (i = 0; w->nowners > 0 && i < next_arrival; i++)
			if (w->jobs[i].state == SJ_WAITING && w->jobs[i].job.owner >= 0)
				waiting_of[w->jobs[i].job.owner]++;
		while (next_arrival < w->njobs && w->jobs[next_arrival].submit <= now + eps)
		{
			sim_job    *aj = &w->jobs[next_arrival++];

			if (!sim_tenancy_admit(w, waiting_of, next_arrival - 1))
			{
				aj->state = SJ_REJECTED;
				snprintf(aj->reason, MX_REASON_LEN, "role %s would have more than %d waiting jobs",
						 w->owners[aj->job.owner].name, w->max_waiting[aj->job.owner]);
				continue;
			}
			aj->state = SJ_WAITING;
			if (w->nowners > 0 && aj->job.owner >= 0)
				waiting_of[aj->job.owner]++;
			nwaiting++;
		}

		/* 3. one round */
		next_due = INFINITY;
		if (nwaiting > 0)
		{
			double		t0,
						ms;

			for (i = 0; i < w->njobs && nj < nwaiting; i++)
				if (w->jobs[i].state == SJ_WAITING)
				{
					sjobs[nj] = w->jobs[i].job;
					sjob_of[nj] = i;
					nj++;
				}
			/* running parts, sorted by job start (stable in job order) */
			for (k = 0; k < nrunning; k++)
			{
				sim_job    *j = &w->jobs[running[k]];

				for (i = 0; i < j->nparts; i++)
				{
					parts[np].job_id = j->job.job_id;
					parts[np].node = j->parts[i].node;
					parts[np].gpus = j->parts[i].gpus;
					parts[np].expected_end = o->epoch + j->expected_finish;
					parts[np].owner = j->job.owner;
					np++;
				}
			}
			s = w->cluster;
			s.now = o->epoch + now;
			s.nodes = nodes;
			s.nparts = np;
			s.parts = parts;
			s.njobs = nj;
			s.jobs = sjobs;
			if (w->nowners > 0)
			{
				sim_tenancy_usage(w, o, now, round_owners);
				s.nowners = w->nowners;
				s.owners = round_owners;
			}

			memset(&plan, 0, sizeof(plan));
			t0 = mx_wall_ms();
			if (mx_tenancy_plan_round(&s, &o->planner, &plan) != 0)
			{
				snprintf(err, errlen, "mx_plan_round failed at t=%.3f s (out of memory)", now);
				rc = -1;
				goto out;
			}
			ms = mx_wall_ms() - t0;
			if (nsolve >= solve_cap)
			{
				double	   *ns;

				solve_cap = solve_cap ? solve_cap * 2 : 1024;
				ns = realloc(solve, (size_t) solve_cap * sizeof(double));
				if (ns == NULL)
				{
					mx_plan_free(&plan);
					snprintf(err, errlen, "out of memory");
					rc = -1;
					goto out;
				}
				solve = ns;
			}
			solve[nsolve++] = ms;
			r->rounds++;
			if (strncmp(plan.solver, "glpk", 4) == 0)
				r->milp_rounds++;
			if (strstr(plan.solver, "fallback") || strstr(plan.solver, "limit") ||
				strstr(plan.solver, "error"))
				r->fallback_rounds++;

			/* 4. the plan: remember it, reject the impossible, launch what is due */
			for (i = 0; i < plan.n && i < nj; i++)
			{
				const mx_assignment *a = &plan.a[i];
				int			ai = a->job >= 0 && a->job < nj ? a->job : i;
				sim_job    *j = &w->jobs[sjob_of[ai]];
				double		st = a->start - o->epoch;

				snprintf(j->reason, MX_REASON_LEN, "%s", a->reason);
				if (o->watch && strcmp(o->watch, j->name) == 0)
					fprintf(stderr, "watch %s t=%.3f round %d: %s %s x%d start %.3f end %.3f utility %.3f (%d waiting) %s\n",
							j->name, now, r->rounds,
							a->status == MX_PLANNED ? "planned" : a->status == MX_WAITING ? "waiting" : "unplannable",
							a->type >= 0 ? w->cluster.types[a->type].name : "-", a->gpus,
							a->start - o->epoch, a->end - o->epoch, a->utility, nj, a->reason);
				if (a->status == MX_UNPLANNABLE)
				{
					j->state = SJ_REJECTED;
					j->type = a->type;
					j->gpus = a->gpus;
					nwaiting--;
					continue;
				}
				if (a->status == MX_PLANNED && isnan(j->first_planned_start))
					j->first_planned_start = st < now ? now : st;
				if (a->status == MX_PLANNED && st <= now + eps && a->type >= 0 && a->gpus > 0)
				{
					launches[nl].ji = sjob_of[ai];
					launches[nl].ai = i;
					launches[nl].start = st;
					nl++;
					continue;
				}
				j->replans++;
				j->job.prev_type = a->status == MX_PLANNED ? a->type : -1;
				j->job.prev_gpus = a->status == MX_PLANNED ? a->gpus : 0;
				j->job.prev_start = a->status == MX_PLANNED ? a->start : 0;
				if (a->status == MX_PLANNED && st > now + eps && st < next_due)
					next_due = st;
			}
			qsort(launches, nl, sizeof(launch), cmp_launch);
			{
				int			launched = 0;

				for (k = 0; k < nl; k++)
				{
					const mx_assignment *a = &plan.a[launches[k].ai];
					sim_job    *j = &w->jobs[launches[k].ji];
					int			npart;
					double		util = a->utility,
								run,
								est;

					npart = mx_place(nodes, w->cluster.nnodes, a->type, a->gpus, j->parts, SIM_MAX_PARTS);
					if (npart <= 0)
					{
						r->place_failures++;
						j->replans++;
						snprintf(j->reason, MX_REASON_LEN, "placement failed: %d %s GPUs not free on the nodes",
								 a->gpus, w->cluster.types[a->type].name);
						j->job.prev_type = -1;
						j->job.prev_gpus = 0;
						j->job.prev_start = 0;
						continue;
					}
					mx_place_commit(nodes, j->parts, npart);
					j->nparts = npart;
					/* planned with the estimate, runs its true duration on that configuration */
					if (!(util > 0) || !isfinite(util))
						est = (a->end > a->start) ? a->end - a->start : j->job.duration;
					else
						est = j->job.duration / util;
					run = est * (j->true_duration / j->job.duration);
					j->state = SJ_RUNNING;
					j->type = a->type;
					j->gpus = a->gpus;
					j->utility = (util > 0 && isfinite(util)) ? util : j->job.duration / est;
					j->start = now;
					j->finish = now + run;
					j->expected_finish = now + est;
					running[nrunning++] = launches[k].ji;
					nwaiting--;
					launched++;
				}
				if (o->rounds_out)
					fprintf(o->rounds_out, "%.3f,%d,%d,%d,%.3f,\"%s\",%d,%d,%.6g\n",
							now, nj, nrunning, launched, ms, plan.solver, plan.milp_jobs,
							plan.milp_vars, plan.objective);
			}
			mx_plan_free(&plan);
		}
		if (o->util_out)
			write_util(w, nodes, now, o->util_out);

		if (o->progress)
		{
			double		wnow = mx_wall_ms();

			if (wnow - last_progress > 250)
			{
				last_progress = wnow;
				fprintf(stderr, "\r%s: t=%.0fs  %d/%d done  %d waiting  %d running  %d rounds   ",
						r->policy, now, done, w->njobs, nwaiting, nrunning, r->rounds);
				fflush(stderr);
			}
		}
		if (o->max_rounds > 0 && r->rounds >= o->max_rounds)
			break;

		/* stalled: waiting jobs, nothing will ever happen again */
		if (nwaiting > 0 && nrunning == 0 && next_arrival >= w->njobs && !isfinite(next_due))
			break;
	}
	if (o->progress)
		fprintf(stderr, "\r%*s\r", 78, "");

	/* metrics */
	{
		double	   *jct = malloc((size_t) w->njobs * sizeof(double) + 1);
		double	   *wait = malloc((size_t) w->njobs * sizeof(double) + 1);
		double	   *ftf = malloc((size_t) w->njobs * sizeof(double) + 1);
		double		sum_ftf = 0,
					sum_hard = 0;
		double		first_submit = INFINITY,
					last_finish = -INFINITY,
					sum_jct = 0,
					sum_wait = 0,
					sum_util = 0;
		int			n = 0;

		if (jct == NULL || wait == NULL || ftf == NULL)
		{
			free(jct);
			free(wait);
			free(ftf);
			snprintf(err, errlen, "out of memory");
			rc = -1;
			goto out;
		}
		for (i = 0; i < w->njobs; i++)
		{
			sim_job    *j = &w->jobs[i];

			if (j->state == SJ_WAITING || j->state == SJ_FUTURE || j->state == SJ_RUNNING)
			{
				j->state = SJ_UNFINISHED;
				r->unfinished++;
				continue;
			}
			if (j->state == SJ_REJECTED)
			{
				r->rejected++;
				continue;
			}
			if (j->submit < first_submit)
				first_submit = j->submit;
			if (j->finish > last_finish)
				last_finish = j->finish;
			jct[n] = j->finish - j->submit;
			wait[n] = j->start - j->submit;
			sum_jct += jct[n];
			sum_wait += wait[n];
			sum_util += j->utility;
			ftf[n] = jct[n] / j->true_duration;
			sum_ftf += ftf[n];
			if (j->job.cls == MX_HARD)
			{
				r->hard_finished++;
				sum_hard += jct[n];
			}
			if (j->finish > j->expected_finish + SIM_EPS)
				r->overran++;
			r->gpu_seconds += (double) j->gpus * (j->finish - j->start);
			if (j->type != j->job.ref_type || j->gpus != j->job.ref_gpus)
				r->moved++;
			n++;
		}
		r->finished = n;
		if (n > 0)
		{
			qsort(jct, n, sizeof(double), cmp_double);
			qsort(wait, n, sizeof(double), cmp_double);
			r->avg_jct = sum_jct / n;
			r->p50_jct = percentile(jct, n, 0.50);
			r->p99_jct = percentile(jct, n, 0.99);
			r->max_jct = jct[n - 1];
			r->avg_wait = sum_wait / n;
			r->p99_wait = percentile(wait, n, 0.99);
			r->avg_utility = sum_util / n;
			qsort(ftf, n, sizeof(double), cmp_double);
			r->ftf_mean = sum_ftf / n;
			r->ftf_p99 = percentile(ftf, n, 0.99);
			r->ftf_max = ftf[n - 1];
			r->avg_jct_hard = r->hard_finished > 0 ? sum_hard / r->hard_finished : NAN;
			r->makespan = last_finish - first_submit;
			if (r->makespan > 0 && total_gpus > 0)
				r->gpu_util = r->gpu_seconds / ((double) total_gpus * r->makespan);
		}
		free(jct);
		free(wait);
		free(ftf);
		if (nsolve > 0)
		{
			for (i = 0; i < nsolve; i++)
				r->solve_ms_total += solve[i];
			qsort(solve, nsolve, sizeof(double), cmp_double);
			r->solve_ms_p50 = percentile(solve, nsolve, 0.50);
			r->solve_ms_p95 = percentile(solve, nsolve, 0.95);
			r->solve_ms_max = solve[nsolve - 1];
		}
	}
	if (sim_tenancy_metrics(w, r) < 0)
	{
		snprintf(err, errlen, "out of memory");
		rc = -1;
		goto out;
	}
	if (r->unfinished > 0)
	{
		snprintf(err, errlen, "simulation stalled at t=%.3f s: %d jobs never started", now, r->unfinished);
		rc = 1;
	}
	r->wall_s = (mx_wall_ms() - t_wall0) / 1e3;

out:
	free(nodes);
	free(parts);
	free(sjobs);
	free(sjob_of);
	free(running);
	free(launches);
	free(solve);
	free(waiting_of);
	free(round_owners);
	return rc;
}
