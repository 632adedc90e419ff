/*
 * main.c — bin/mixdnn-bench: how fast and how good is one scheduling round?
 *
 * Builds a seeded instance (gen.h), runs the core planner mx_plan_round()
 * R times on it (what the extension runs at every event), and prints the
 * per-round wall times, the plan's objective, the core's bound and gap, the
 * heuristic-only objective and, unless --bound none, a whole-instance bound
 * from an offline LP (bound.h). docs/performance.md explains every
 * number and how to reproduce the tables.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bound.h"
#include "capacity.h"
#include "gen.h"
#include "load.h"
#include "heuristic.h"
#include "passes.h"
#include "value.h"
#include "milp.h"
#include "planner.h"
#include "plan.h"
#include "plannerflags.h"
#include "sim.h"
#include "snapshot.h"
#include "stopwatch.h"
#include "tolerance.h"
#include "utility.h"

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return x < y ? -1 : (x > y ? 1 : 0);
}

/* nearest-rank percentile of sorted v[0..n) */
static double
pct(const double *v, int n, double q)
{
	int			r;

	if (n <= 0)
		return NAN;
	r = (int) ceil(q * n);
	if (r < 1)
		r = 1;
	if (r > n)
		r = n;
	return v[r - 1];
}

static void
usage(FILE *f)
{
	fprintf(f,
			"usage: mixdnn-bench [options]\n"
			"instance:\n"
			"  --waiting W          waiting jobs (50)\n"
			"  --gpus G             GPUs in the cluster (64)\n"
			"  --types T            GPU types (3)\n"
			"  --node-gpus N        GPUs per node, 8 or 4 (8)\n"
			"  --seed S             RNG seed (1)\n"
			"  --busy F             share of GPUs held by running jobs (0.5)\n"
			"  --soft F             share of soft-model waiting jobs (0.5)\n"
			"  --dist philly|heavy  GPU-count distribution (philly)\n"
			"  --wait-max-s S       waiting jobs were submitted U(0, S) ago (14400)\n"
			"  --prio-share F       share of waiting jobs with priority 10 or 20 (0.2)\n"
			"  --load DIR           instead: the snapshot of bench/export_snapshot.sql\n"
			"run:\n"
			"  --rounds R           rounds on the same instance (20)\n"
			"  --cold               do not carry each round's plan into the next as prev_*\n"
			"  --bound lp|none      whole-instance LP bound (default: lp when W <= 500; ~40 s at W=2000)\n"
			"  --bound-ratio r      bucket ratio of that LP (1.05)\n"
			"  --bound-time-s s     its GLPK time limit (300)\n"
			"  --phases             also time the core's public phases separately (approximate:\n"
			"                       the MILP there uses the default H, not the round's)\n"
			"  --json               one JSON object on the last line\n"
			"  --quiet              no per-round lines\n"
			"planner (mx_options, docs/model.md):\n");
	planner_flags_usage(f);
}

typedef struct wct_info
{
	double		sum_w;			/* over planned jobs */
	double		wct;			/* sum w (end - now) */
	double		max_end;
	int			planned;
	int			unplannable;
} wct_info;

static wct_info
plan_wct(const mx_snapshot *s, const mx_options *o, const mx_plan *p)
{
	wct_info	r;
	int			i;

	memset(&r, 0, sizeof(r));
	r.max_end = s->now;
	for (i = 0; i < p->n; i++)
	{
		const mx_assignment *a = &p->a[i];
		double		w = mx_job_weight(s, &s->jobs[i], o);

		if (a->status == MX_PLANNED)
		{
			r.planned++;
			r.sum_w += w;
			r.wct += w * (a->end - s->now);
			if (a->end > r.max_end)
				r.max_end = a->end;
		}
		else if (a->status == MX_UNPLANNABLE)
			r.unplannable++;
	}
	return r;
}

/* Independent check: every planned job fits the running-only capacity in turn. */
static int
plan_feasible(const mx_snapshot *s, const mx_options *o, const mx_plan *p)
{
	mx_capacity c;
	int			i,
				ok = 1;

	if (mx_capacity_init(&c, s, o->overrun_s, mx_overrun_factor(o)) < 0)
		return 0;
	for (i = 0; i < p->n && ok; i++)
	{
		const mx_assignment *a = &p->a[i];

		if (a->status != MX_PLANNED)
			continue;
		if (a->start < s->now - MX_TIME_EPS ||
			mx_capacity_reserve(&c, a->type, a->gpus, a->start, a->end - a->start) < 0)
			ok = 0;
	}
	mx_capacity_free(&c);
	return ok;
}

/* Time the public phases of a round separately (approximately what mx_plan_round does). */
static void
time_phases(const mx_snapshot *s, const mx_options *o_in, FILE *f, double *out)
{
	mx_options	o = *o_in;
	mx_capacity cap,
				work;
	int		   *order = malloc((size_t) (s->njobs > 0 ? s->njobs : 1) * sizeof(int));
	mx_plan		p;
	double		t0,
				t1,
				t2,
				t3,
				t4,
				bound = NAN;
	int			nw,
				nvars = 0;
	mx_milp_result r = MX_MILP_NO_SOLUTION;

	memset(out, 0, 5 * sizeof(double));
	if (order == NULL || mx_plan_init(&p, s->njobs) < 0)
	{
		free(order);
		return;
	}
	t0 = mx_wall_ms();
	mx_capacity_init(&cap, s, o.overrun_s, mx_overrun_factor(&o));
	t1 = mx_wall_ms();
	mx_heuristic_order(s, &o, order);
	t2 = mx_wall_ms();
	mx_capacity_copy(&work, &cap);
	mx_heuristic_plan(s, &o, &work, order, s->njobs, &p);
	mx_capacity_free(&work);
	t3 = mx_wall_ms();
	nw = o.use_milp ? (s->njobs < o.window_jobs ? s->njobs : o.window_jobs) : 0;
	if (!(o.value_horizon_s > 0))
		o.value_horizon_s = MX_DEFAULT_HORIZON_S;
	if (nw > 0)
		r = mx_milp_plan(s, &o, &cap, order, nw, &p, &bound, &nvars);
	t4 = mx_wall_ms();
	out[0] = t1 - t0;
	out[1] = t2 - t1;
	out[2] = t3 - t2;
	out[3] = t4 - t3;
	out[4] = nvars;
	if (f)
		fprintf(f, "phases: capacity_init %.3f ms, heuristic_order %.3f ms, heuristic_plan %.3f ms, "
				"milp_plan(window %d) %.3f ms [result %d, %d columns]\n",
				out[0], out[1], out[2], nw, out[3], (int) r, nvars);
	mx_capacity_free(&cap);
	mx_plan_free(&p);
	free(order);
}

/* What the command line asks for. */
typedef struct bench_cli
{
	bench_params bp;
	mx_options	o;
	int			rounds;
	int			json;
	int			quiet;
	int			cold;			/* do not carry a round's plan into the next */
	int			phases;
	int			bound_mode;		/* -1 auto, 0 none, 1 lp */
	double		bound_ratio;
	double		bound_time_s;
	const char *load_dir;
} bench_cli;

/* What the rounds produced. */
typedef struct bench_rounds
{
	double	   *ms;				/* wall time of each round */
	double	   *cms;			/* CPU time of each round */
	int			feasible_all;
	int			glpk_rounds;
	mx_plan		plan;			/* the last round's */
	mx_plan		hplan;			/* the heuristic alone on the last state */
	double		phase_ms[5];
} bench_rounds;

/* The figures reported. */
typedef struct bench_summary
{
	double		p50,
				p95,
				pmax,
				mean,
				cp50,
				cp95;
	double		gap;			/* the core's gap of the last round */
	double		H;				/* the round's value horizon */
	double		whole_bound,
				whole_gap,
				wct_gap,
				heur_wct_gap;
	wct_info	wm,
				wh;
	bench_bound bb;
} bench_summary;

#define MAX_LONGOPTS 64

static void
fill_longopts(struct option *longopts)
{
	static const struct option own[] = {
		{"waiting", required_argument, 0, 'W'},
		{"gpus", required_argument, 0, 'G'},
		{"types", required_argument, 0, 'T'},
		{"node-gpus", required_argument, 0, 'N'},
		{"seed", required_argument, 0, 'S'},
		{"busy", required_argument, 0, 'b'},
		{"soft", required_argument, 0, 's'},
		{"dist", required_argument, 0, 'd'},
		{"wait-max-s", required_argument, 0, 'x'},
		{"prio-share", required_argument, 0, 'p'},
		{"load", required_argument, 0, 'L'},
		{"rounds", required_argument, 0, 'R'},
		{"cold", no_argument, 0, 'c'},
		{"bound", required_argument, 0, 'B'},
		{"bound-ratio", required_argument, 0, 'r'},
		{"bound-time-s", required_argument, 0, 'l'},
		{"phases", no_argument, 0, 'P'},
		{"json", no_argument, 0, 'j'},
		{"quiet", no_argument, 0, 'q'},
		{"help", no_argument, 0, 'h'},
	};
	int			n = (int) (sizeof(own) / sizeof(own[0]));

	memcpy(longopts, own, sizeof(own));
	(void) planner_flags_add(longopts, n, MAX_LONGOPTS);
}

/* An option of the instance: 0, 1 for one it does not know, or 2 after a message. */
static int
instance_option(bench_params *bp, int ch, const char *arg)
{
	switch (ch)
	{
		case 'W':
			bp->waiting = atoi(arg);
			break;
		case 'G':
			bp->gpus = atoi(arg);
			break;
		case 'T':
			bp->types = atoi(arg);
			break;
		case 'N':
			bp->node_gpus = atoi(arg);
			break;
		case 'S':
			bp->seed = strtoull(arg, NULL, 10);
			break;
		case 'b':
			bp->busy = atof(arg);
			break;
		case 's':
			bp->soft_share = atof(arg);
			break;
		case 'd':
			if (strcmp(arg, "philly") == 0)
				bp->dist = BENCH_DIST_PHILLY;
			else if (strcmp(arg, "heavy") == 0)
				bp->dist = BENCH_DIST_HEAVY;
			else
			{
				fprintf(stderr, "mixdnn-bench: --dist must be philly or heavy\n");
				return 2;
			}
			break;
		case 'x':
			bp->wait_max_s = atof(arg);
			break;
		case 'p':
			bp->prio_share = atof(arg);
			break;
		default:
			return 1;
	}
	return 0;
}

/* An option of the run: 0, 1 for one it does not know, or 2 after a message. */
static int
run_option(bench_cli *cli, int ch, const char *arg)
{
	switch (ch)
	{
		case 'L':
			cli->load_dir = arg;
			break;
		case 'R':
			cli->rounds = atoi(arg);
			break;
		case 'c':
			cli->cold = 1;
			break;
		case 'B':
			if (strcmp(arg, "none") == 0)
				cli->bound_mode = 0;
			else if (strcmp(arg, "lp") == 0)
				cli->bound_mode = 1;
			else
			{
				fprintf(stderr, "mixdnn-bench: --bound must be lp or none\n");
				return 2;
			}
			break;
		case 'r':
			cli->bound_ratio = atof(arg);
			break;
		case 'l':
			cli->bound_time_s = atof(arg);
			break;
		case 'P':
			cli->phases = 1;
			break;
		case 'j':
			cli->json = 1;
			break;
		case 'q':
			cli->quiet = 1;
			break;
		default:
			return instance_option(&cli->bp, ch, arg);
	}
	return 0;
}

/* Reads the command line; -1 to go on, else the exit status. */
static int
parse_args(int argc, char **argv, bench_cli *cli)
{
	struct option longopts[MAX_LONGOPTS];
	int			ch,
				rc;

	fill_longopts(longopts);
	while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1)
	{
		if (ch == 'h')
		{
			usage(stdout);
			return 0;
		}
		rc = planner_flag_apply(&cli->o, ch, optarg, "mixdnn-bench");
		if (rc < 0)
			return 2;
		if (rc == 1)
			continue;
		rc = run_option(cli, ch, optarg);
		if (rc == 2)
			return 2;
		if (rc == 1)
		{
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc || cli->rounds < 1 || cli->bp.waiting < 0 || cli->bp.gpus < 1 || cli->bp.types < 1 ||
		(cli->bp.node_gpus != 4 && cli->bp.node_gpus != 8) || !(cli->bp.busy >= 0 && cli->bp.busy <= 0.95) ||
		!(cli->bp.soft_share >= 0 && cli->bp.soft_share <= 1))
	{
		usage(stderr);
		return 2;
	}
	if (cli->bound_mode < 0)
		cli->bound_mode = cli->bp.waiting <= 500;
	return -1;
}

/* The instance: loaded (--load) or generated. 0, or 1 after a message. */
static int
build_instance(bench_cli *cli, mx_snapshot *s)
{
	char		err[512];
	int			k;

	if (cli->load_dir == NULL)
	{
		if (bench_generate(&cli->bp, s) == 0)
			return 0;
		fprintf(stderr, "mixdnn-bench: cannot build the instance (bad parameters or out of memory)\n");
		return 1;
	}
	if (bench_load(cli->load_dir, cli->bp.now, s, err, sizeof(err)) != 0)
	{
		fprintf(stderr, "mixdnn-bench: %s\n", err);
		return 1;
	}
	cli->bp.waiting = s->njobs;
	cli->bp.types = s->ntypes;
	cli->bp.gpus = 0;
	for (k = 0; k < s->nnodes; k++)
		cli->bp.gpus += s->nodes[k].gpus;
	return 0;
}

static void
print_instance(const bench_cli *cli, const mx_snapshot *s)
{
	const bench_params *bp = &cli->bp;
	int			busy = 0,
				i,
				k;
	mx_capacity c;

	for (i = 0; i < s->nparts; i++)
		busy += s->parts[i].gpus;
	mx_capacity_init(&c, s, cli->o.overrun_s, mx_overrun_factor(&cli->o));
	printf("instance: W=%d G=%d T=%d node_gpus=%d seed=%llu busy=%d/%d soft=%.2f dist=%s nodes=%d running_parts=%d\n",
		   bp->waiting, bp->gpus, bp->types, bp->node_gpus, (unsigned long long) bp->seed,
		   busy, bp->gpus, bp->soft_share, bp->dist == BENCH_DIST_HEAVY ? "heavy" : "philly",
		   s->nnodes, s->nparts);
	for (k = 0; k < s->ntypes; k++)
		printf("  type %-5s speed %.2f: %d GPUs, %d free now, %d capacity steps\n",
			   s->types[k].name, s->types[k].speed, c.total[k], c.steps[k][0].free, c.nsteps[k]);
	mx_capacity_free(&c);
}

/* Carries the last plan into the jobs, as the extension's prev_* columns do. */
static void
carry_plan(mx_snapshot *s, const mx_plan *plan)
{
	int			i;

	for (i = 0; i < s->njobs; i++)
	{
		const mx_assignment *a = &plan->a[i];

		s->jobs[i].prev_type = a->status == MX_PLANNED ? a->type : -1;
		s->jobs[i].prev_gpus = a->status == MX_PLANNED ? a->gpus : 0;
		s->jobs[i].prev_start = a->status == MX_PLANNED ? a->start : 0;
	}
}

/* cli->rounds rounds on the same instance, then the heuristic alone. 0, or 1. */
static int
run_rounds(const bench_cli *cli, mx_snapshot *s, bench_rounds *br)
{
	mx_options	oh = cli->o;
	int			r;

	for (r = 0; r < cli->rounds; r++)
	{
		double		t0,
					c0;

		if (r > 0)
		{
			if (!cli->cold)
				carry_plan(s, &br->plan);
			mx_plan_free(&br->plan);
		}
		c0 = mx_cpu_ms();
		t0 = mx_wall_ms();
		if (mx_plan_round(s, &cli->o, &br->plan) != 0)
		{
			fprintf(stderr, "mixdnn-bench: mx_plan_round failed (out of memory)\n");
			return 1;
		}
		br->ms[r] = mx_wall_ms() - t0;
		br->cms[r] = mx_cpu_ms() - c0;
		if (!plan_feasible(s, &cli->o, &br->plan))
			br->feasible_all = 0;
		if (strncmp(br->plan.solver, "glpk", 4) == 0)
			br->glpk_rounds++;
		if (!cli->quiet)
			printf("round %3d: %9.3f ms (cpu %9.3f)  solver=%-40s objective=%.6f bound=%.6f milp_jobs=%d milp_vars=%d\n",
				   r + 1, br->ms[r], br->cms[r], br->plan.solver, br->plan.objective, br->plan.bound,
				   br->plan.milp_jobs, br->plan.milp_vars);
	}
	oh.use_milp = 0;
	if (mx_plan_round(s, &oh, &br->hplan) != 0)
		return 1;
	if (cli->phases)
		time_phases(s, &cli->o, cli->json && cli->quiet ? NULL : stdout, br->phase_ms);
	return 0;
}

/* Percentiles of the rounds' wall and CPU times. */
static void
summarize_times(const bench_cli *cli, const bench_rounds *br, bench_summary *sm)
{
	int			n = cli->rounds,
				r;
	double	   *sorted = malloc((size_t) n * sizeof(double));

	memcpy(sorted, br->ms, (size_t) n * sizeof(double));
	qsort(sorted, n, sizeof(double), cmp_double);
	sm->p50 = pct(sorted, n, 0.50);
	sm->p95 = pct(sorted, n, 0.95);
	sm->pmax = sorted[n - 1];
	memcpy(sorted, br->cms, (size_t) n * sizeof(double));
	qsort(sorted, n, sizeof(double), cmp_double);
	sm->cp50 = pct(sorted, n, 0.50);
	sm->cp95 = pct(sorted, n, 0.95);
	sm->mean = 0;
	for (r = 0; r < n; r++)
		sm->mean += br->ms[r] / n;
	free(sorted);
}

/* The plan's quality: the core's gap, and the whole-instance LP bound when asked for. */
static void
summarize_quality(const bench_cli *cli, const mx_snapshot *s, const bench_rounds *br, bench_summary *sm)
{
	const mx_plan *plan = &br->plan;

	sm->whole_bound = sm->whole_gap = sm->wct_gap = sm->heur_wct_gap = NAN;
	sm->wm = plan_wct(s, &cli->o, plan);
	sm->wh = plan_wct(s, &cli->o, &br->hplan);
	sm->gap = (isfinite(plan->bound) && plan->bound != 0) ?
		(plan->bound - plan->objective) / fabs(plan->bound) : NAN;
	/* the round's H, backed out of objective = sum w - wct / H */
	sm->H = cli->o.value_horizon_s > 0 ? cli->o.value_horizon_s :
		((sm->wm.sum_w - plan->objective) > 0 ? sm->wm.wct / (sm->wm.sum_w - plan->objective) : NAN);

	memset(&sm->bb, 0, sizeof(sm->bb));
	if (cli->bound_mode != 1)
		return;
	bench_energy_bound(s, &cli->o, cli->bound_ratio,
					   sm->wm.max_end > sm->wh.max_end ? sm->wm.max_end : sm->wh.max_end,
					   cli->bound_time_s, &sm->bb);
	if (!sm->bb.ok)
		return;
	sm->wct_gap = sm->wm.wct > 0 ? (sm->wm.wct - sm->bb.lb_wct) / sm->wm.wct : 0;
	sm->heur_wct_gap = sm->wh.wct > 0 ? (sm->wh.wct - sm->bb.lb_wct) / sm->wh.wct : 0;
	if (isfinite(sm->H))
	{
		sm->whole_bound = sm->bb.sum_w - sm->bb.lb_wct / sm->H;
		sm->whole_gap = sm->whole_bound != 0 ? (sm->whole_bound - plan->objective) / fabs(sm->whole_bound) : NAN;
	}
}

static void
print_text(const bench_cli *cli, const bench_rounds *br, const bench_summary *sm)
{
	const mx_plan *plan = &br->plan;

	printf("solve_ms: p50 %.3f  p95 %.3f  max %.3f  mean %.3f  (cpu p50 %.3f p95 %.3f; rounds %d, glpk rounds %d)\n",
		   sm->p50, sm->p95, sm->pmax, sm->mean, sm->cp50, sm->cp95, cli->rounds, br->glpk_rounds);
	printf("objective %.6f  heuristic %.6f  core bound %.6f  core gap %.4f%%  (H = %.0f s)\n",
		   plan->objective, plan->heuristic_objective, plan->bound, sm->gap * 100, sm->H);
	printf("weighted completion time: plan %.6g  heuristic %.6g", sm->wm.wct, sm->wh.wct);
	if (sm->bb.ok)
		printf("  LP lower bound %.6g  -> plan within %.2f%%, heuristic within %.2f%%\n"
			   "whole-instance objective bound %.6f  whole gap %.4f%%  (LP %d rows x %d cols, %d buckets, ratio %.3f, %.0f ms)\n",
			   sm->bb.lb_wct, sm->wct_gap * 100, sm->heur_wct_gap * 100, sm->whole_bound, sm->whole_gap * 100,
			   sm->bb.rows, sm->bb.cols, sm->bb.buckets, cli->bound_ratio, sm->bb.ms);
	else
		printf("  (no whole-instance bound: %s)\n", cli->bound_mode ? sm->bb.status : "--bound none");
	printf("planned %d, unplannable %d, all plans feasible: %s\n",
		   sm->wm.planned, sm->wm.unplannable, br->feasible_all ? "yes" : "NO");
}

static void
print_json(const bench_cli *cli, const bench_rounds *br, const bench_summary *sm)
{
	const bench_params *bp = &cli->bp;
	const mx_options *o = &cli->o;
	const mx_plan *plan = &br->plan;
	FILE	   *f = stdout;
	int			r;

	printf("{");
	printf("\"waiting\": %d, \"gpus\": %d, \"types\": %d, \"node_gpus\": %d, \"seed\": %llu, ",
		   bp->waiting, bp->gpus, bp->types, bp->node_gpus, (unsigned long long) bp->seed);
	printf("\"dist\": \"%s\", \"busy\": %.3g, \"soft_share\": %.3g, \"rounds\": %d, ",
		   bp->dist == BENCH_DIST_HEAVY ? "heavy" : "philly", bp->busy, bp->soft_share, cli->rounds);
	printf("\"use_milp\": %s, \"time_limit_ms\": %.6g, \"window\": %d, \"grid_points\": %d, \"mip_gap\": %.6g, ",
		   o->use_milp ? "true" : "false", o->time_limit_ms, o->window_jobs, o->grid_points, o->mip_gap);
	sim_json_num(f, "solve_ms_p50", sm->p50, 0);
	sim_json_num(f, "solve_ms_p95", sm->p95, 0);
	sim_json_num(f, "solve_ms_max", sm->pmax, 0);
	sim_json_num(f, "solve_ms_mean", sm->mean, 0);
	sim_json_num(f, "cpu_ms_p50", sm->cp50, 0);
	sim_json_num(f, "cpu_ms_p95", sm->cp95, 0);
	sim_json_num(f, "objective", plan->objective, 0);
	sim_json_num(f, "bound", plan->bound, 0);
	sim_json_num(f, "gap", sm->gap, 0);
	sim_json_num(f, "heuristic_objective", plan->heuristic_objective, 0);
	sim_json_num(f, "horizon_s", sm->H, 0);
	sim_json_num(f, "whole_bound", sm->whole_bound, 0);
	sim_json_num(f, "whole_gap", sm->whole_gap, 0);
	sim_json_num(f, "wct", sm->wm.wct, 0);
	sim_json_num(f, "heuristic_wct", sm->wh.wct, 0);
	sim_json_num(f, "wct_lb", sm->bb.ok ? sm->bb.lb_wct : NAN, 0);
	sim_json_num(f, "sum_w", sm->wm.sum_w, 0);
	sim_json_num(f, "wct_gap", sm->wct_gap, 0);
	sim_json_num(f, "heuristic_wct_gap", sm->heur_wct_gap, 0);
	sim_json_num(f, "bound_ms", cli->bound_mode ? sm->bb.ms : NAN, 0);
	sim_json_num(f, "bound_ratio", cli->bound_ratio, 0);
	if (cli->phases)
	{
		sim_json_num(f, "phase_capacity_ms", br->phase_ms[0], 0);
		sim_json_num(f, "phase_order_ms", br->phase_ms[1], 0);
		sim_json_num(f, "phase_heuristic_ms", br->phase_ms[2], 0);
		sim_json_num(f, "phase_milp_ms", br->phase_ms[3], 0);
	}
	printf("\"solver\": \"%s\", \"glpk_rounds\": %d, \"milp_jobs\": %d, \"milp_vars\": %d, "
		   "\"planned\": %d, \"unplannable\": %d, \"feasible\": %s, \"round_ms\": [",
		   plan->solver, br->glpk_rounds, plan->milp_jobs, plan->milp_vars, sm->wm.planned, sm->wm.unplannable,
		   br->feasible_all ? "true" : "false");
	for (r = 0; r < cli->rounds; r++)
		printf("%s%.3f", r ? ", " : "", br->ms[r]);
	printf("]}\n");
}

int
main(int argc, char **argv)
{
	bench_cli	cli;
	bench_rounds br;
	bench_summary sm;
	mx_snapshot s;
	int			rc;

	memset(&cli, 0, sizeof(cli));
	bench_params_default(&cli.bp);
	mx_options_default(&cli.o);
	cli.rounds = 20;
	cli.bound_mode = -1;
	cli.bound_ratio = 1.05;
	cli.bound_time_s = 300;
	rc = parse_args(argc, argv, &cli);
	if (rc >= 0)
		return rc;
	if (build_instance(&cli, &s) != 0)
		return 1;

	memset(&br, 0, sizeof(br));
	br.feasible_all = 1;
	br.ms = malloc((size_t) cli.rounds * sizeof(double));
	br.cms = malloc((size_t) cli.rounds * sizeof(double));
	if (br.ms == NULL || br.cms == NULL)
		return 1;
	if (!cli.json || !cli.quiet)
		print_instance(&cli, &s);
	if (run_rounds(&cli, &s, &br) != 0)
		return 1;

	summarize_times(&cli, &br, &sm);
	summarize_quality(&cli, &s, &br, &sm);
	if (!cli.json || !cli.quiet)
		print_text(&cli, &br, &sm);
	if (cli.json)
		print_json(&cli, &br, &sm);

	mx_plan_free(&br.plan);
	mx_plan_free(&br.hplan);
	mx_snapshot_free(&s);
	free(br.ms);
	free(br.cms);
	return br.feasible_all ? 0 : 3;
}
