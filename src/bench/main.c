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
#include "milp.h"
#include "planner.h"
#include "plan.h"
#include "snapshot.h"
#include "stopwatch.h"
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
			"  --load DIR           instead: the snapshot of test/bench/export_snapshot.sql\n"
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
			"planner (mx_options):\n"
			"  --time-limit-ms MS --window N --grid-points N --mip-gap F --no-milp\n"
			"  --value-horizon-s S --alpha A\n"
			"  --starve-factor X --critical-margin MU --drain-margin NU --reserve-all\n"
			"                       (the guards, docs/model.md)\n");
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

	if (mx_capacity_init(&c, s, o->overrun_s) < 0)
		return 0;
	for (i = 0; i < p->n && ok; i++)
	{
		const mx_assignment *a = &p->a[i];

		if (a->status != MX_PLANNED)
			continue;
		if (a->start < s->now - 1e-6 ||
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
	mx_capacity_init(&cap, s, o.overrun_s);
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

static void
json_num(FILE *f, const char *k, double v, int last)
{
	if (isfinite(v))
		fprintf(f, "\"%s\": %.6g%s", k, v, last ? "" : ", ");
	else
		fprintf(f, "\"%s\": null%s", k, last ? "" : ", ");
}

int
main(int argc, char **argv)
{
	bench_params bp;
	mx_options	o;
	mx_snapshot s;
	mx_plan		plan,
				hplan;
	int			rounds = 20,
				json = 0,
				quiet = 0,
				cold = 0,
				phases = 0,
				bound_mode = -1;	/* -1 auto, 0 none, 1 lp */
	double		bound_ratio = 1.05,
				bound_time_s = 300;
	double	   *ms,
			   *cms;
	int			r,
				i,
				ch,
				feasible_all = 1,
				glpk_rounds = 0;
	double		phase_ms[5] = {0};
	const char *load_dir = NULL;
	static struct option longopts[] = {
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
		{"time-limit-ms", required_argument, 0, 't'},
		{"window", required_argument, 0, 'w'},
		{"grid-points", required_argument, 0, 'g'},
		{"mip-gap", required_argument, 0, 'm'},
		{"no-milp", no_argument, 0, 'n'},
		{"value-horizon-s", required_argument, 0, 'H'},
		{"alpha", required_argument, 0, 'a'},
		{"starve-factor", required_argument, 0, 'X'},
		{"critical-margin", required_argument, 0, 'U'},
		{"reserve-all", no_argument, 0, 'A'},
		{"drain-margin", required_argument, 0, 'D'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0}
	};

	bench_params_default(&bp);
	mx_options_default(&o);
	while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1)
	{
		switch (ch)
		{
			case 'W':
				bp.waiting = atoi(optarg);
				break;
			case 'G':
				bp.gpus = atoi(optarg);
				break;
			case 'T':
				bp.types = atoi(optarg);
				break;
			case 'N':
				bp.node_gpus = atoi(optarg);
				break;
			case 'S':
				bp.seed = strtoull(optarg, NULL, 10);
				break;
			case 'b':
				bp.busy = atof(optarg);
				break;
			case 's':
				bp.soft_share = atof(optarg);
				break;
			case 'd':
				if (strcmp(optarg, "philly") == 0)
					bp.dist = BENCH_DIST_PHILLY;
				else if (strcmp(optarg, "heavy") == 0)
					bp.dist = BENCH_DIST_HEAVY;
				else
				{
					fprintf(stderr, "mixdnn-bench: --dist must be philly or heavy\n");
					return 2;
				}
				break;
			case 'x':
				bp.wait_max_s = atof(optarg);
				break;
			case 'p':
				bp.prio_share = atof(optarg);
				break;
			case 'L':
				load_dir = optarg;
				break;
			case 'R':
				rounds = atoi(optarg);
				break;
			case 'c':
				cold = 1;
				break;
			case 'B':
				if (strcmp(optarg, "none") == 0)
					bound_mode = 0;
				else if (strcmp(optarg, "lp") == 0)
					bound_mode = 1;
				else
				{
					fprintf(stderr, "mixdnn-bench: --bound must be lp or none\n");
					return 2;
				}
				break;
			case 'r':
				bound_ratio = atof(optarg);
				break;
			case 'l':
				bound_time_s = atof(optarg);
				break;
			case 'P':
				phases = 1;
				break;
			case 'j':
				json = 1;
				break;
			case 'q':
				quiet = 1;
				break;
			case 't':
				o.time_limit_ms = atof(optarg);
				break;
			case 'w':
				o.window_jobs = atoi(optarg);
				break;
			case 'g':
				o.grid_points = atoi(optarg);
				break;
			case 'm':
				o.mip_gap = atof(optarg);
				break;
			case 'n':
				o.use_milp = 0;
				break;
			case 'H':
				o.value_horizon_s = atof(optarg);
				break;
			case 'a':
				o.scaling_alpha = atof(optarg);
				break;
			case 'X':
				o.starve_factor = atof(optarg);
				break;
			case 'U':
				o.critical_margin = atof(optarg);
				break;
			case 'A':
				o.reserve_all = 1;
				break;
			case 'D':
				o.drain_margin = atof(optarg);
				break;
			case 'h':
				usage(stdout);
				return 0;
			default:
				usage(stderr);
				return 2;
		}
	}
	if (optind < argc || rounds < 1 || bp.waiting < 0 || bp.gpus < 1 || bp.types < 1 ||
		(bp.node_gpus != 4 && bp.node_gpus != 8) || !(bp.busy >= 0 && bp.busy <= 0.95) ||
		!(bp.soft_share >= 0 && bp.soft_share <= 1))
	{
		usage(stderr);
		return 2;
	}
	if (bound_mode < 0)
		bound_mode = bp.waiting <= 500;

	if (load_dir != NULL)
	{
		char		err[512];
		int			k;

		if (bench_load(load_dir, bp.now, &s, err, sizeof(err)) != 0)
		{
			fprintf(stderr, "mixdnn-bench: %s\n", err);
			return 1;
		}
		bp.waiting = s.njobs;
		bp.types = s.ntypes;
		bp.gpus = 0;
		for (k = 0; k < s.nnodes; k++)
			bp.gpus += s.nodes[k].gpus;
	}
	else if (bench_generate(&bp, &s) != 0)
	{
		fprintf(stderr, "mixdnn-bench: cannot build the instance (bad parameters or out of memory)\n");
		return 1;
	}
	ms = malloc((size_t) rounds * sizeof(double));
	cms = malloc((size_t) rounds * sizeof(double));
	if (ms == NULL || cms == NULL)
		return 1;
	{
		int			busy = 0,
					k;
		mx_capacity c;

		for (i = 0; i < s.nparts; i++)
			busy += s.parts[i].gpus;
		mx_capacity_init(&c, &s, o.overrun_s);
		if (!json || !quiet)
		{
			printf("instance: W=%d G=%d T=%d node_gpus=%d seed=%llu busy=%d/%d soft=%.2f dist=%s nodes=%d running_parts=%d\n",
				   bp.waiting, bp.gpus, bp.types, bp.node_gpus, (unsigned long long) bp.seed,
				   busy, bp.gpus, bp.soft_share, bp.dist == BENCH_DIST_HEAVY ? "heavy" : "philly",
				   s.nnodes, s.nparts);
			for (k = 0; k < s.ntypes; k++)
				printf("  type %-5s speed %.2f: %d GPUs, %d free now, %d capacity steps\n",
					   s.types[k].name, s.types[k].speed, c.total[k], c.steps[k][0].free, c.nsteps[k]);
		}
		mx_capacity_free(&c);
	}

	memset(&plan, 0, sizeof(plan));
	for (r = 0; r < rounds; r++)
	{
		double		t0,
					t1,
					c0;

		if (r > 0)
		{
			if (!cold)
				for (i = 0; i < s.njobs; i++)
				{
					const mx_assignment *a = &plan.a[i];

					s.jobs[i].prev_type = a->status == MX_PLANNED ? a->type : -1;
					s.jobs[i].prev_gpus = a->status == MX_PLANNED ? a->gpus : 0;
					s.jobs[i].prev_start = a->status == MX_PLANNED ? a->start : 0;
				}
			mx_plan_free(&plan);
		}
		c0 = mx_cpu_ms();
		t0 = mx_wall_ms();
		if (mx_plan_round(&s, &o, &plan) != 0)
		{
			fprintf(stderr, "mixdnn-bench: mx_plan_round failed (out of memory)\n");
			return 1;
		}
		t1 = mx_wall_ms();
		ms[r] = t1 - t0;
		cms[r] = mx_cpu_ms() - c0;
		if (!plan_feasible(&s, &o, &plan))
			feasible_all = 0;
		if (strncmp(plan.solver, "glpk", 4) == 0)
			glpk_rounds++;
		if (!quiet)
			printf("round %3d: %9.3f ms (cpu %9.3f)  solver=%-40s objective=%.6f bound=%.6f milp_jobs=%d milp_vars=%d\n",
				   r + 1, ms[r], cms[r], plan.solver, plan.objective, plan.bound, plan.milp_jobs, plan.milp_vars);
	}

	/* the heuristic alone on the same (last) state */
	{
		mx_options	oh = o;

		oh.use_milp = 0;
		if (mx_plan_round(&s, &oh, &hplan) != 0)
			return 1;
	}
	if (phases)
		time_phases(&s, &o, json && quiet ? NULL : stdout, phase_ms);

	{
		double	   *sorted = malloc((size_t) rounds * sizeof(double));
		double		p50,
					p95,
					pmax,
					cp50,
					cp95,
					mean = 0,
					gap,
					H,
					whole_bound = NAN,
					whole_gap = NAN,
					wct_gap = NAN,
					heur_wct_gap = NAN;
		wct_info	wm = plan_wct(&s, &o, &plan),
					wh = plan_wct(&s, &o, &hplan);
		bench_bound bb;

		memcpy(sorted, ms, (size_t) rounds * sizeof(double));
		qsort(sorted, rounds, sizeof(double), cmp_double);
		p50 = pct(sorted, rounds, 0.50);
		p95 = pct(sorted, rounds, 0.95);
		pmax = sorted[rounds - 1];
		memcpy(sorted, cms, (size_t) rounds * sizeof(double));
		qsort(sorted, rounds, sizeof(double), cmp_double);
		cp50 = pct(sorted, rounds, 0.50);
		cp95 = pct(sorted, rounds, 0.95);
		for (r = 0; r < rounds; r++)
			mean += ms[r] / rounds;
		gap = (isfinite(plan.bound) && plan.bound != 0) ?
			(plan.bound - plan.objective) / fabs(plan.bound) : NAN;
		/* the round's H, backed out of objective = sum w - wct / H */
		H = o.value_horizon_s > 0 ? o.value_horizon_s :
			((wm.sum_w - plan.objective) > 0 ? wm.wct / (wm.sum_w - plan.objective) : NAN);

		memset(&bb, 0, sizeof(bb));
		if (bound_mode == 1)
		{
			double		hend = wm.max_end > wh.max_end ? wm.max_end : wh.max_end;

			bench_energy_bound(&s, &o, bound_ratio, hend, bound_time_s, &bb);
			if (bb.ok)
			{
				wct_gap = wm.wct > 0 ? (wm.wct - bb.lb_wct) / wm.wct : 0;
				heur_wct_gap = wh.wct > 0 ? (wh.wct - bb.lb_wct) / wh.wct : 0;
				if (isfinite(H))
				{
					whole_bound = bb.sum_w - bb.lb_wct / H;
					whole_gap = whole_bound != 0 ? (whole_bound - plan.objective) / fabs(whole_bound) : NAN;
				}
			}
		}

		if (!json || !quiet)
		{
			printf("solve_ms: p50 %.3f  p95 %.3f  max %.3f  mean %.3f  (cpu p50 %.3f p95 %.3f; rounds %d, glpk rounds %d)\n",
				   p50, p95, pmax, mean, cp50, cp95, rounds, glpk_rounds);
			printf("objective %.6f  heuristic %.6f  core bound %.6f  core gap %.4f%%  (H = %.0f s)\n",
				   plan.objective, plan.heuristic_objective, plan.bound, gap * 100, H);
			printf("weighted completion time: plan %.6g  heuristic %.6g", wm.wct, wh.wct);
			if (bb.ok)
				printf("  LP lower bound %.6g  -> plan within %.2f%%, heuristic within %.2f%%\n"
					   "whole-instance objective bound %.6f  whole gap %.4f%%  (LP %d rows x %d cols, %d buckets, ratio %.3f, %.0f ms)\n",
					   bb.lb_wct, wct_gap * 100, heur_wct_gap * 100, whole_bound, whole_gap * 100,
					   bb.rows, bb.cols, bb.buckets, bound_ratio, bb.ms);
			else
				printf("  (no whole-instance bound: %s)\n", bound_mode ? bb.status : "--bound none");
			printf("planned %d, unplannable %d, all plans feasible: %s\n",
				   wm.planned, wm.unplannable, feasible_all ? "yes" : "NO");
		}
		if (json)
		{
			printf("{");
			printf("\"waiting\": %d, \"gpus\": %d, \"types\": %d, \"node_gpus\": %d, \"seed\": %llu, ",
				   bp.waiting, bp.gpus, bp.types, bp.node_gpus, (unsigned long long) bp.seed);
			printf("\"dist\": \"%s\", \"busy\": %.3g, \"soft_share\": %.3g, \"rounds\": %d, ",
				   bp.dist == BENCH_DIST_HEAVY ? "heavy" : "philly", bp.busy, bp.soft_share, rounds);
			printf("\"use_milp\": %s, \"time_limit_ms\": %.6g, \"window\": %d, \"grid_points\": %d, \"mip_gap\": %.6g, ",
				   o.use_milp ? "true" : "false", o.time_limit_ms, o.window_jobs, o.grid_points, o.mip_gap);
			json_num(stdout, "solve_ms_p50", p50, 0);
			json_num(stdout, "solve_ms_p95", p95, 0);
			json_num(stdout, "solve_ms_max", pmax, 0);
			json_num(stdout, "solve_ms_mean", mean, 0);
			json_num(stdout, "cpu_ms_p50", cp50, 0);
			json_num(stdout, "cpu_ms_p95", cp95, 0);
			json_num(stdout, "objective", plan.objective, 0);
			json_num(stdout, "bound", plan.bound, 0);
			json_num(stdout, "gap", gap, 0);
			json_num(stdout, "heuristic_objective", plan.heuristic_objective, 0);
			json_num(stdout, "horizon_s", H, 0);
			json_num(stdout, "whole_bound", whole_bound, 0);
			json_num(stdout, "whole_gap", whole_gap, 0);
			json_num(stdout, "wct", wm.wct, 0);
			json_num(stdout, "heuristic_wct", wh.wct, 0);
			json_num(stdout, "wct_lb", bb.ok ? bb.lb_wct : NAN, 0);
			json_num(stdout, "sum_w", wm.sum_w, 0);
			json_num(stdout, "wct_gap", wct_gap, 0);
			json_num(stdout, "heuristic_wct_gap", heur_wct_gap, 0);
			json_num(stdout, "bound_ms", bound_mode ? bb.ms : NAN, 0);
			json_num(stdout, "bound_ratio", bound_ratio, 0);
			if (phases)
			{
				json_num(stdout, "phase_capacity_ms", phase_ms[0], 0);
				json_num(stdout, "phase_order_ms", phase_ms[1], 0);
				json_num(stdout, "phase_heuristic_ms", phase_ms[2], 0);
				json_num(stdout, "phase_milp_ms", phase_ms[3], 0);
			}
			printf("\"solver\": \"%s\", \"glpk_rounds\": %d, \"milp_jobs\": %d, \"milp_vars\": %d, "
				   "\"planned\": %d, \"unplannable\": %d, \"feasible\": %s, \"round_ms\": [",
				   plan.solver, glpk_rounds, plan.milp_jobs, plan.milp_vars, wm.planned, wm.unplannable,
				   feasible_all ? "true" : "false");
			for (r = 0; r < rounds; r++)
				printf("%s%.3f", r ? ", " : "", ms[r]);
			printf("]}\n");
		}
		free(sorted);
	}

	mx_plan_free(&plan);
	mx_plan_free(&hplan);
	mx_snapshot_free(&s);
	free(ms);
	free(cms);
	return feasible_all ? 0 : 3;
}
