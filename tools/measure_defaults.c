/*
 * measure_defaults.c — the measurements behind mx_options_default()
 * (docs/model.md, "Defaults"). Not a unit test; build and run by hand:
 *
 *   make unitcheck   (builds the core objects)
 *   cc -O2 -Isrc/core -Itest/unit -o build/measure_defaults \
 *      tools/measure_defaults.c src/core/[a-z]*.o -lglpk -lm
 *   build/measure_defaults rounds|sim [matrix.csv]
 *
 * rounds: loaded random snapshots (Gavel throughputs as profiles); the
 *         weighted completion time (WCT) gain of the MILP over the heuristic
 *         and the round's wall time, per time limit, window and grid size.
 * sim:    a small event-driven replay (Poisson arrivals, run times that
 *         deviate from the estimate) to compare aging_s and overrun_s.
 */
#include <time.h>

#include "unit.h"
#include "fixtures.h"
#include "value.h"
#include "placement.h"

#define MAXJT 32
static char jt_name[MAXJT][64];
static double jt_thr[MAXJT][3][4];	/* [job type][k80,p100,v100][1,2,4,8] */
static int	njt;

static void
load_matrix(const char *path)
{
	FILE	   *f = fopen(path, "r");
	char		line[1024];

	if (!f)
	{
		fprintf(stderr, "cannot open %s\n", path);
		exit(1);
	}
	if (!fgets(line, sizeof(line), f))
		exit(1);
	while (fgets(line, sizeof(line), f))
	{
		char		name[64];
		int			n, i, gi;
		double		v[3];

		if (sscanf(line, "%63[^,],%d,%lf,%lf,%lf", name, &n, &v[0], &v[1], &v[2]) != 5)
			continue;
		for (i = 0; i < njt; i++)
			if (strcmp(jt_name[i], name) == 0)
				break;
		if (i == njt)
		{
			if (njt == MAXJT)
				continue;
			snprintf(jt_name[njt++], 64, "%s", name);
		}
		gi = n == 1 ? 0 : n == 2 ? 1 : n == 4 ? 2 : n == 8 ? 3 : -1;
		if (gi >= 0)
		{
			jt_thr[i][0][gi] = v[0];
			jt_thr[i][1][gi] = v[1];
			jt_thr[i][2][gi] = v[2];
		}
	}
	fclose(f);
}

/* types k80, p100, v100 (speeds: Gavel's median single-GPU ratios), nodes of 4 GPUs, profiles */
static void
base_cluster(mx_snapshot *s, int nodes_per_type)
{
	int			t, i, k, g;
	static const double sp[3] = {1.0, 3.3, 4.1};
	static const char *nm[3] = {"k80", "p100", "v100"};

	fx_init(s, NOW);
	for (t = 0; t < 3; t++)
		fx_type(s, nm[t], sp[t]);
	for (t = 0; t < 3; t++)
		for (i = 0; i < nodes_per_type; i++)
		{
			char		n[32];

			snprintf(n, sizeof(n), "%s-%d", nm[t], i);
			fx_node(s, n, t, 4, MX_NODE_UP);
		}
	for (k = 0; k < njt; k++)
	{
		int			p = fx_profile(s, jt_name[k]);

		for (t = 0; t < 3; t++)
			for (g = 0; g < 4; g++)
				fx_point(s, p, t, 1 << g, jt_thr[k][t][g]);
	}
}

/* a random job (not added): Philly-like counts, lognormal durations */
static void
random_job(mx_snapshot *s, int64_t id, double submitted)
{
	int			prof = fx_int(0, njt - 1);
	int			ty = fx_int(0, 2);
	int			r = fx_int(0, 99);
	int			g = r < 70 ? 1 : r < 85 ? 2 : r < 95 ? 4 : 8;
	double		u1 = fx_unif() + 1e-12, u2 = fx_unif();
	double		z = sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
	double		d = 1800.0 * exp(1.0 * z);
	mx_job	   *j;

	if (d < 60)
		d = 60;
	if (d > 86400)
		d = 86400;
	while (g > 1 && jt_thr[prof][ty][g == 2 ? 1 : g == 4 ? 2 : 3] <= 0)
		g /= 2;
	if (jt_thr[prof][ty][0] <= 0)
		ty = 2;
	if (fx_int(0, 9) < 3)
		j = fx_hard(s, id, ty, g, d);
	else
		j = fx_soft(s, id, ty, g, 1, g * 2 > 8 ? 8 : g * 2, 0, d);
	j->profile = prof;
	j->submitted = submitted;
	j->priority = fx_int(0, 9) == 0 ? 10 : 0;
}

static double
wct(const mx_snapshot *s, const mx_options *o, const mx_plan *p)
{
	double		v = 0;
	int			i;

	for (i = 0; i < p->n; i++)
		if (p->a[i].status == MX_PLANNED)
			v += mx_job_weight(s, &s->jobs[i], o) * (p->a[i].end - s->now);
	return v;
}

static int
cmpd(const void *a, const void *b)
{
	double		x = *(const double *) a, y = *(const double *) b;

	return x < y ? -1 : x > y;
}

/* loaded snapshot: every node partly busy, nq waiting jobs */
static void
loaded_snapshot(mx_snapshot *s, uint64_t seed, int nq)
{
	int			i;

	fx_seed(seed);
	base_cluster(s, 9);			/* 36 + 36 + 36 GPUs, as in Gavel */
	for (i = 0; i < s->nnodes; i++)
		if (fx_int(0, 3) > 0)
			fx_part(s, 100000 + i, i, fx_int(1, 4), NOW + fx_int(60, 5400));
	for (i = 0; i < nq; i++)
		random_job(s, i + 1, NOW - fx_int(0, 3600));
}

static void
rounds(void)
{
	static const double tl[] = {0, 25, 50, 100, 200, 500, 1000};
	static const int wins[] = {10, 20, 40, 80};
	static const int grids[] = {12, 24, 48};
	const int	N = 40;
	int			a, b, i, a0 = 0, basewin = 20;

	if (getenv("ONLY_GAP"))
		a0 = 3;
	if (getenv("BASEWIN"))
		basewin = atoi(getenv("BASEWIN"));
	printf("# rounds: %d loaded snapshots (108 GPUs, 60-150 waiting jobs)\n", N);
	printf("%-6s %-10s %-6s %-5s %10s %10s %8s %8s %8s  %s\n", "gap", "limit_ms", "window", "grid", "wct_gain%",
		   "gain_p90%", "ms_p50", "ms_p95", "improved", "solvers");
	for (a = a0; a < 4; a++)
		for (b = 0; b < (int) (sizeof(tl) / sizeof(tl[0])); b++)
		{
			/* sweep the time limit, the window (at 200 ms), the grid and the gap (at the base window, 200 ms) */
			double		limit;
			double		gap = 0.01;
			int			win, grid;
			double		gains[64], ms[64], gsum = 0;
			int			improved = 0, nopt = 0, ntl = 0, nproven = 0;

			if (a == 0)
			{
				limit = tl[b];
				win = basewin;
				grid = 24;
			}
			else if (a == 1)
			{
				if (b >= 4)
					continue;
				limit = 200;
				win = wins[b];
				grid = 24;
			}
			else if (a == 2)
			{
				if (b >= 3)
					continue;
				limit = 200;
				win = basewin;
				grid = grids[b];
			}
			else
			{
				static const double gaps[] = {0.0, 0.001, 0.01, 0.05};

				if (b >= 4)
					continue;
				limit = 200;
				win = basewin;
				grid = 24;
				gap = gaps[b];
			}
			for (i = 0; i < N; i++)
			{
				mx_snapshot s;
				mx_options	o;
				mx_plan		p, h;
				double		wh, wm;

				loaded_snapshot(&s, 1000 + i, 60 + (i * 7) % 91);
				mx_options_default(&o);
				o.use_milp = 0;
				mx_plan_round(&s, &o, &h);
				o.use_milp = limit > 0;
				o.time_limit_ms = limit;
				o.window_jobs = win;
				o.grid_points = grid;
				o.mip_gap = gap;
				mx_plan_round(&s, &o, &p);
				wh = wct(&s, &o, &h);
				wm = wct(&s, &o, &p);
				gains[i] = 100.0 * (wh - wm) / wh;
				gsum += gains[i];
				ms[i] = p.solve_ms;
				improved += gains[i] > 1e-9;
				nopt += strncmp(p.solver, "glpk", 4) == 0;
				ntl += strstr(p.solver, "time limit") != NULL;
				nproven += strstr(p.solver, "proven") != NULL;
				mx_plan_free(&p);
				mx_plan_free(&h);
				mx_snapshot_free(&s);
			}
			qsort(gains, N, sizeof(double), cmpd);
			qsort(ms, N, sizeof(double), cmpd);
			printf("%-6.3f %-10.0f %-6d %-5d %10.3f %10.3f %8.1f %8.1f %5d/%d  glpk %d (heuristic proven %d), time-limit %d\n",
				   gap, limit, win, grid, gsum / N, gains[(int) (0.9 * N)], ms[N / 2], ms[(int) (0.95 * N)],
				   improved, N, nopt, nproven, ntl);
			fflush(stdout);
		}
}

/* ------------------------------------------------------------------ sim */

typedef struct simjob
{
	mx_job		j;
	double		actual_factor;	/* actual run time = planned run time * factor */
	int			state;			/* 0 waiting, 1 running, 2 done */
	double		start, end, finish;
	int			node_parts[4], nparts_used;
} simjob;

static void
sim(const mx_options *base, double aging, double overrun, int milp, double noise, uint64_t seed,
	double *avg_jct, double *p99_jct, double *max_wait, double *avg_wait_hi, double *ms_p95)
{
	enum { NJ = 400 };
	static simjob J[NJ];
	mx_snapshot cl;
	double		now = NOW, t_arr = NOW;
	int			i, done = 0, nround = 0;
	double		jct[NJ], msv[4096];
	double		whi = 0;
	int			nhi = 0;

	fx_seed(seed);
	base_cluster(&cl, 3);		/* 12 + 12 + 12 GPUs */
	{
		mx_snapshot tmp = cl;

		tmp.njobs = 0;
		tmp.jobs = NULL;
		for (i = 0; i < NJ; i++)
		{
			double		u1 = fx_unif() + 1e-12, u2, z;

			t_arr += -log(fx_unif() + 1e-12) * 170.0;	/* ~ 0.9 load */
			random_job(&tmp, i + 1, t_arr);
			J[i].j = tmp.jobs[i];
			u2 = fx_unif();
			z = sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
			J[i].actual_factor = exp(noise * z);
			J[i].state = 0;
			J[i].nparts_used = 0;
		}
		free(tmp.jobs);
	}
	/* nodes' busy masks are rebuilt each round from the running jobs */
	while (done < NJ)
	{
		mx_snapshot s = cl;
		mx_options	o = *base;
		mx_plan		p;
		int		   *idx = malloc(sizeof(int) * NJ);
		double		next = INFINITY;
		int			nw = 0, np = 0;

		o.aging_s = aging;
		o.overrun_s = overrun;
		o.overrun_factor = 0;	/* table B replays a fixed rest */
		o.use_milp = milp;
		s.now = now;
		s.nodes = malloc(sizeof(mx_node) * cl.nnodes);
		memcpy(s.nodes, cl.nodes, sizeof(mx_node) * cl.nnodes);
		for (i = 0; i < cl.nnodes; i++)
			s.nodes[i].busy = 0;
		s.jobs = malloc(sizeof(mx_job) * NJ);
		s.parts = malloc(sizeof(mx_running_part) * NJ * 4);
		s.nparts = 0;
		s.njobs = 0;
		for (i = 0; i < NJ; i++)
		{
			if (J[i].state == 1)
			{
				int			q;

				for (q = 0; q < J[i].nparts_used; q++)
				{
					int			nd = J[i].node_parts[q] >> 8, g = J[i].node_parts[q] & 0xff, b;

					s.parts[np].job_id = J[i].j.job_id;
					s.parts[np].node = nd;
					s.parts[np].gpus = g;
					s.parts[np].expected_end = J[i].end;	/* the planned end */
					np++;
					for (b = 0; b < 64 && g > 0; b++)
						if (!(s.nodes[nd].busy & ((uint64_t) 1 << b)))
						{
							s.nodes[nd].busy |= (uint64_t) 1 << b;
							g--;
						}
				}
				if (J[i].finish < next)
					next = J[i].finish;
			}
			else if (J[i].state == 0 && J[i].j.submitted <= now)
			{
				s.jobs[nw] = J[i].j;
				idx[nw++] = i;
			}
			else if (J[i].state == 0 && J[i].j.submitted < next)
				next = J[i].j.submitted;
		}
		s.nparts = np;
		s.njobs = nw;
		mx_plan_round(&s, &o, &p);
		if (nround < 4096)
			msv[nround] = p.solve_ms;
		nround++;
		/* start what is planned now, placing it on nodes */
		for (i = 0; i < nw; i++)
		{
			mx_assignment *a = &p.a[i];
			simjob	   *sj = &J[idx[i]];

			if (a->status == MX_PLANNED && a->start <= now + 1e-6)
			{
				mx_part		parts[16];
				int			n = mx_place(s.nodes, s.nnodes, a->type, a->gpus, parts, 16), q;

				if (n == 0)
					continue;
				mx_place_commit(s.nodes, parts, n);
				sj->state = 1;
				sj->start = now;
				sj->end = a->end;
				sj->finish = now + (a->end - a->start) * sj->actual_factor;
				sj->nparts_used = n < 4 ? n : 4;
				for (q = 0; q < sj->nparts_used; q++)
					sj->node_parts[q] = (parts[q].node << 8) | parts[q].gpus;
				if (sj->finish < next)
					next = sj->finish;
				if (sj->j.priority > 0)
				{
					whi += now - sj->j.submitted;
					nhi++;
				}
			}
			else if (a->status == MX_PLANNED && a->start < next)
				next = a->start;
		}
		/* also wake at the expected end of running jobs past due (overrun) */
		mx_plan_free(&p);
		free(s.nodes);
		free(s.jobs);
		free(s.parts);
		free(idx);
		if (!isfinite(next))
			break;
		now = next;
		for (i = 0; i < NJ; i++)
			if (J[i].state == 1 && J[i].finish <= now)
			{
				J[i].state = 2;
				jct[done++] = J[i].finish - J[i].j.submitted;
			}
	}
	{
		double		sum = 0, mw = 0;

		for (i = 0; i < done; i++)
			sum += jct[i];
		for (i = 0; i < NJ; i++)
			if (J[i].state == 2 && J[i].start - J[i].j.submitted > mw)
				mw = J[i].start - J[i].j.submitted;
		qsort(jct, done, sizeof(double), cmpd);
		*avg_jct = done ? sum / done : NAN;
		*p99_jct = done ? jct[(int) (0.99 * (done - 1))] : NAN;
		*max_wait = mw;
		*avg_wait_hi = nhi ? whi / nhi : 0;
		{
			int			n = nround < 4096 ? nround : 4096;

			qsort(msv, n, sizeof(double), cmpd);
			*ms_p95 = msv[(int) (0.95 * (n - 1))];
		}
	}
	mx_snapshot_free(&cl);
}

static void
sims(void)
{
	mx_options	o;
	static const double agings[] = {600, 1800, 3600, 14400, 1e12};
	static const double overruns[] = {0, 60, 300, 1800};
	int			i, sd;

	mx_options_default(&o);
	o.time_limit_ms = 50;
	printf("# sim: 400 jobs, 36 GPUs (12 k80/p100/v100), load ~0.9; mean of 3 seeds\n");
	printf("%-8s %-8s %-5s %-6s %10s %10s %10s %12s %8s\n", "aging_s", "overrun", "milp", "noise",
		   "avg_jct_s", "p99_jct_s", "max_wait_s", "wait_prio10", "ms_p95");
	for (i = 0; i < 5 + 4 + 2; i++)
	{
		double		ag = 3600, ov = 60, noise = 0.3;
		int			milp = 0;
		double		a = 0, b = 0, c = 0, d = 0, e = 0;

		if (i < 5)
			ag = agings[i];
		else if (i < 9)
			ov = overruns[i - 5];
		else
			milp = i - 9;
		for (sd = 0; sd < 3; sd++)
		{
			double		x1, x2, x3, x4, x5;

			sim(&o, ag, ov, milp, noise, 11 + sd, &x1, &x2, &x3, &x4, &x5);
			a += x1 / 3;
			b += x2 / 3;
			c += x3 / 3;
			d += x4 / 3;
			e += x5 / 3;
		}
		printf("%-8.0f %-8.0f %-5d %-6.2f %10.0f %10.0f %10.0f %12.0f %8.1f\n", ag > 1e11 ? -1 : ag, ov, milp,
			   noise, a, b, c, d, e);
		fflush(stdout);
	}
}

int
main(int argc, char **argv)
{
	const char *m = argc > 2 ? argv[2] : "../shared/data/gavel/throughput_matrix.csv";

	load_matrix(m);
	if (argc > 1 && strcmp(argv[1], "sim") == 0)
		sims();
	else
		rounds();
	return 0;
}
