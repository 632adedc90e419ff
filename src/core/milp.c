/*
 * milp.c — the GLPK mixed-integer utility model over a non-uniform time grid
 * (milp.h). See docs/model.md, "MILP".
 *
 * This runs inside the PostgreSQL server, so GLPK must never print, exit or
 * abort: terminal output is off and swallowed by a hook, and GLPK errors go
 * to an error hook that longjmp()s back here, after which the whole GLPK
 * environment is freed and MX_MILP_ERROR is returned. Only GLPK calls happen
 * between setjmp() and the end of the protected region; everything of ours
 * is allocated before it and released after it.
 */
#include <math.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <glpk.h>

#include "glpkhost.h"
#include "milp.h"
#include "heuristic.h"
#include "stopwatch.h"
#include "utility.h"

#define T_EPS 1e-6				/* seconds: grid points closer than this are one point */
#define MX_MILP_MAX_COLS 200000	/* larger models cannot be solved within any sensible budget */
#define MX_BUILD_SHARE 0.4		/* share of the budget after which no more window jobs are added */
#define MX_NODE_FACTOR 1.5		/* branch and bound only with this many root-LP times left */
/*
 * Model size the budget allows: loading and solving the LP grows faster
 * than linearly in the constraint matrix's nonzeros (measured: ~50k
 * nonzeros load in ~1 ms and solve in 10-20 ms; ~180k take 60 ms to load);
 * the window is cut before the job that takes the model past this many
 * nonzeros per millisecond of budget (docs/model.md, "Budget").
 */
#define MX_MILP_NNZ_PER_MS 500.0
/*
 * GLPK checks our deadline only between its steps (a node's LP, cut or
 * heuristic round): it is told to stop this share of the budget early
 * (at least 1 ms) so that it has stopped by the budget (docs/model.md, "Budget").
 */
#define MX_STOP_SHARE 0.15

int			mx_milp_test_force_error = 0;

/* ---------------------------------------------------------------- grid */

typedef struct gpoint
{
	double		t;
	int			keep;			/* now or a heuristic start: never dropped */
} gpoint;

static int
cmp_gpoint(const void *a, const void *b)
{
	const gpoint *x = a;
	const gpoint *y = b;

	if (x->t < y->t)
		return -1;
	if (x->t > y->t)
		return 1;
	return y->keep - x->keep;	/* kept points first among equal times */
}

/*
 * Sort, merge points within T_EPS (a kept point keeps its exact time), then
 * drop unkept points nearest to their predecessor until at most target
 * remain (or only kept points are left). Returns the new count.
 */
static int
build_grid(gpoint *g, int n, int target)
{
	int			i,
				w;

	qsort(g, n, sizeof(gpoint), cmp_gpoint);
	w = 0;
	for (i = 0; i < n; i++)
	{
		if (w > 0 && g[i].t - g[w - 1].t <= T_EPS)
		{
			if (g[i].keep && !g[w - 1].keep)
				g[w - 1] = g[i];
			continue;
		}
		g[w++] = g[i];
	}
	n = w;
	while (n > target)
	{
		int			best = -1;
		double		bgap = INFINITY;

		for (i = 1; i < n; i++)
		{
			double		gap;

			if (g[i].keep)
				continue;
			gap = g[i].t - g[i - 1].t;
			if (gap < bgap)
			{
				bgap = gap;
				best = i;
			}
		}
		if (best < 0)
			break;
		memmove(&g[best], &g[best + 1], (size_t) (n - best - 1) * sizeof(gpoint));
		n--;
	}
	return n;
}

/* ------------------------------------------------------------- GLPK guard */

typedef struct heur_info
{
	const double *x;			/* incumbent, 1-based, or NULL */
	int			given;
	double		deadline_ms;
	int			terminated;		/* stopped by our deadline */
	double		wsum;			/* value if every window job finished now */
	double		gap;			/* stop when (bound - best) <= gap * (wsum - best) */
	int			gap_reached;
} heur_info;

static void
on_glpk_callback(glp_tree *T, void *info)
{
	heur_info  *h = info;

	if (glp_ios_reason(T) == GLP_IHEUR && h->x != NULL && !h->given)
	{
		h->given = 1;
		glp_ios_heur_sol(T, h->x);
	}
	/*
	 * Our gap: relative to the window's weighted completion time (wsum -
	 * objective), not to the objective, whose constant part would make
	 * GLPK's relative gap meaningless (docs/model.md).
	 */
	if (glp_ios_reason(T) == GLP_ISELECT || glp_ios_reason(T) == GLP_IBINGO)
	{
		glp_prob   *P = glp_ios_get_prob(T);
		int			node = glp_ios_best_node(T);

		if (node > 0 && glp_mip_status(P) == GLP_FEAS)
		{
			double		best = glp_mip_obj_val(P);
			double		bnd = glp_ios_node_bound(T, node);

			if (bnd - best <= h->gap * fmax(h->wsum - best, 1e-12))
			{
				h->gap_reached = 1;
				glp_ios_terminate(T);
				return;
			}
		}
	}
	if (mx_wall_ms() > h->deadline_ms)
	{
		h->terminated = 1;
		glp_ios_terminate(T);
	}
}

/* Everything GLPK needs, and what it gives back (1-based arrays). */
typedef struct glpk_job
{
	int			nrow,
				njobrow,
				ncol,
				nnz;
	const double *rowcap;		/* upper bound of capacity row i (0-based after the job rows) */
	const char *mustnow;		/* job row i (0-based) must be 1: the job starts now */
	const double *obj;			/* objective coefficient of column j, 1-based */
	const int  *ia,
			   *ja;
	const double *ar;
	const double *xinc;
	double		inc_obj;
	int			inc_ok;
	double		mip_gap;
	double		wsum;
	double		t0,
				budget,
				solve_end;		/* GLPK must stop by then (t0 + budget - its stop latency) */
	/* out */
	double	   *xsol;
	mx_milp_result result;
	double		bound,
				mip_obj;
	int			solved;			/* 1: xsol holds a MILP solution; 2: incumbent proven optimal */
	int			proven;
} glpk_job;

/*
 * Build and solve the model. Returns 0, or -1 when GLPK reported an error
 * (caught by the error hook); in both cases the GLPK environment is freed.
 * Only GLPK calls and writes through gj happen after setjmp(), so no local
 * variable is live across the longjmp().
 */
static int
run_glpk(glpk_job *gj)
{
	jmp_buf		jb;
	heur_info	hi;
	glp_prob   *volatile P = NULL;

	gj->result = MX_MILP_NO_SOLUTION;
	gj->bound = NAN;
	gj->mip_obj = NAN;
	gj->solved = 0;
	gj->proven = 0;

	/* a failure elsewhere may have left the environment in error */
	mx_glpk_reset();
	if (setjmp(jb) != 0)
	{
		/* GLPK's state is unusable now: free all of it (and P with it) */
		glp_free_env();
		return -1;
	}
	mx_glpk_enter(&jb);

	P = glp_create_prob();
	glp_set_obj_dir(P, GLP_MAX);
	glp_add_rows(P, gj->nrow);
	{
		int			i;

		for (i = 1; i <= gj->njobrow; i++)
			if (gj->mustnow && gj->mustnow[i - 1])
				glp_set_row_bnds(P, i, GLP_FX, 1.0, 1.0);
			else
				glp_set_row_bnds(P, i, GLP_UP, 0.0, 1.0);
		for (i = gj->njobrow + 1; i <= gj->nrow; i++)
			glp_set_row_bnds(P, i, GLP_UP, 0.0, gj->rowcap[i - gj->njobrow - 1]);
		glp_add_cols(P, gj->ncol);
		for (i = 1; i <= gj->ncol; i++)
		{
			glp_set_col_kind(P, i, GLP_BV);
			glp_set_obj_coef(P, i, gj->obj[i]);
		}
	}
	if (mx_milp_test_force_error)
		glp_set_obj_coef(P, gj->ncol + 7, 1.0);	/* invalid: GLPK calls the error hook */
	glp_load_matrix(P, gj->nnz, gj->ia, gj->ja, gj->ar);

	{
		glp_smcp	sm;
		int			ret;
		double		left,
					lp_ms;

		/* LP relaxation: at most half of the budget */
		glp_init_smcp(&sm);
		sm.msg_lev = GLP_MSG_OFF;
		sm.presolve = GLP_OFF;
		left = gj->solve_end - mx_wall_ms();
		sm.tm_lim = (int) fmax(1.0, fmin(left, gj->budget * 0.5));
		lp_ms = mx_wall_ms();
		ret = glp_simplex(P, &sm);
		lp_ms = mx_wall_ms() - lp_ms;
		if (ret == GLP_ETMLIM)
			gj->result = MX_MILP_TIME_LIMIT;
		else if (ret != 0 || glp_get_status(P) != GLP_OPT)
			gj->result = MX_MILP_NO_SOLUTION;
		else
		{
			double		lp = glp_get_obj_val(P);

			gj->bound = lp;
			if (gj->inc_ok &&
				(lp <= gj->inc_obj + 1e-9 * fmax(1.0, fabs(gj->inc_obj)) ||
				 lp - gj->inc_obj <= gj->mip_gap * fmax(gj->wsum - gj->inc_obj, 1e-12)))
			{
				/* the heuristic plan is within the gap of the LP bound */
				gj->result = MX_MILP_OPTIMAL;
				gj->solved = 2;
				gj->proven = 1;
			}
			else if ((left = gj->solve_end - mx_wall_ms()) < 1.0 || left < MX_NODE_FACTOR * lp_ms)
			{
				/*
				 * Branch and bound stops only between nodes, and a node's LP
				 * can take about as long as the root's: without time for a
				 * few of them it would overrun the budget.
				 */
				gj->result = MX_MILP_TIME_LIMIT;
			}
			else
			{
				glp_iocp	io;
				int			st,
							j;

				glp_init_iocp(&io);
				io.msg_lev = GLP_MSG_OFF;
				io.presolve = GLP_OFF;
				io.mip_gap = 0.0;	/* our own gap, in the callback */
				io.tm_lim = (int) fmax(1.0, left);
				hi.x = gj->xinc;
				hi.given = 0;
				hi.deadline_ms = gj->solve_end;
				hi.terminated = 0;
				hi.wsum = gj->wsum;
				hi.gap = gj->mip_gap;
				hi.gap_reached = 0;
				io.cb_func = on_glpk_callback;
				io.cb_info = &hi;
				ret = glp_intopt(P, &io);
				st = glp_mip_status(P);
				if (st == GLP_OPT || (st == GLP_FEAS && (ret == 0 || ret == GLP_EMIPGAP || hi.gap_reached)))
				{
					gj->result = MX_MILP_OPTIMAL;
					gj->proven = 1;
				}
				else if (st == GLP_FEAS)
					gj->result = MX_MILP_FEASIBLE;
				else if (ret == GLP_ETMLIM || ret == GLP_ESTOP || hi.terminated)
					gj->result = MX_MILP_TIME_LIMIT;
				else
					gj->result = MX_MILP_NO_SOLUTION;
				if (st == GLP_OPT || st == GLP_FEAS)
				{
					gj->mip_obj = glp_mip_obj_val(P);
					for (j = 1; j <= gj->ncol; j++)
						gj->xsol[j] = glp_mip_col_val(P, j);
					gj->solved = 1;
				}
			}
		}
	}
	glp_delete_prob(P);
	P = NULL;
	/* leave no GLPK state behind: hooks, problems, memory */
	glp_free_env();
	return 0;
}

/* ---------------------------------------------------------------- model */

typedef struct column
{
	int			w;				/* window position */
	int			c;				/* config index (global in cf[]) */
	int			m;				/* grid point */
	double		v;				/* objective coefficient */
} column;

mx_milp_result
mx_milp_plan(const mx_snapshot *s, const mx_options *o, const mx_capacity *cap,
			 const int *window, int n, mx_plan *p, double *bound, int *nvars)
{
	double		t0 = mx_wall_ms();
	double		budget = o->time_limit_ms > 0 ? o->time_limit_ms : 1.0;
	int		   *cfoff = NULL;	/* configs of window job i: cf[cfoff[i] .. cfoff[i+1]) */
	char	   *mustnow = NULL; /* window job i must start now (the incumbent starts it now) */
	double	   *vdef = NULL;	/* value of window job i's incumbent plan (its forecast) */
	int			nowonly = !o->reserve_all;	/* the start-now model (docs/model.md, "MILP") */
	mx_config  *cf = NULL;
	gpoint	   *grid = NULL;
	int		   *freek = NULL;	/* free[k * G + m] from running jobs */
	column	   *cols = NULL;
	int		   *rowk = NULL,
			   *rowm = NULL,
			   *rowidx = NULL;	/* capacity row of (k, m), 0 = redundant */
	int		   *ia = NULL,
			   *ja = NULL;
	double	   *ar = NULL;
	double	   *xinc = NULL;	/* incumbent, 1-based */
	double	   *xsol = NULL;	/* MILP solution, 1-based */
	double	   *rowcap = NULL;
	double	   *obj = NULL;
	int			ncf = 0,
				G = 0,
				ncol = 0,
				nrow,
				ncaprow = 0,
				nnz = 0,
				i,
				c,
				m,
				k,
				K = s->ntypes;
	double		inc_obj = 0;
	int			inc_ok = 0;
	mx_milp_result result = MX_MILP_NO_SOLUTION;
	double		lp_bound = NAN;
	double		mip_obj = NAN;
	int			solved = 0;		/* 1: xsol holds a MILP solution; 2: heuristic proven optimal */
	int			proven = 0;
	int			ncut = 0;		/* window jobs cut off by the build budget (after the first n) */
	long		nnzest = 0,		/* nonzeros of the columns built so far (an upper bound) */
				nnzcap = (long) (MX_MILP_NNZ_PER_MS * budget);

	if (bound)
		*bound = NAN;
	if (nvars)
		*nvars = 0;
	if (n <= 0 || K <= 0)
		return MX_MILP_NO_SOLUTION;

	/* configurations of the window jobs */
	cfoff = malloc(((size_t) n + 1) * sizeof(int));
	mustnow = calloc((size_t) n + 1, 1);
	vdef = calloc((size_t) n + 1, sizeof(double));
	if (cfoff == NULL || mustnow == NULL || vdef == NULL)
		goto out_of_memory;
	/*
	 * Start-now model (default): every column starts now. A job the
	 * incumbent starts now keeps starting now, on any configuration that
	 * fits now (its row = 1); any other job may start now instead of at its
	 * forecast, for the gain v(now) - v(forecast). The MILP thus chooses
	 * which jobs start now and on what, never keeping GPUs idle for a job it
	 * merely plans for later (docs/model.md, "Who holds GPUs"). With
	 * o->reserve_all, the full time-grid model of the planner before issue
	 * #4 (every planned start is a reservation).
	 */
	for (i = 0; i < n; i++)
	{
		const mx_assignment *a = &p->a[window[i]];

		if (!nowonly)
			continue;
		mustnow[i] = a->status == MX_PLANNED && a->start <= s->now + T_EPS;
		vdef[i] = a->status == MX_PLANNED ? mx_value(s, &s->jobs[window[i]], o, a->start, a->end) : 0;
		if (vdef[i] < 0)
			vdef[i] = 0;
	}
	{
		int			tot = 0;

		for (i = 0; i < n; i++)
			tot += mx_job_configs_max(s, &s->jobs[window[i]]);
		cf = malloc((size_t) (tot > 0 ? tot : 1) * sizeof(mx_config));
		if (cf == NULL)
			goto out_of_memory;
		for (i = 0; i < n; i++)
		{
			const mx_job *j = &s->jobs[window[i]];

			cfoff[i] = ncf;
			ncf += mx_job_configs(s, j, o->scaling_alpha, cf + ncf, mx_job_configs_max(s, j));
		}
		cfoff[n] = ncf;
	}

	/*
	 * grid: now, the steps of cap (running ends; the starts and ends of
	 * what the caller holds there) and, in the time-grid model, the
	 * heuristic's starts (kept) and ends. A step where free capacity falls
	 * (a hold starts) is kept too: the capacity rows are checked at grid
	 * points only, which is enough only if free capacity never falls
	 * between two of them. In the start-now model columns start at point
	 * 0 only and the other points carry the capacity rows.
	 */
	{
		int			cnt = 1 + 2 * n;

		for (k = 0; k < K; k++)
			cnt += cap->nsteps[k];
		grid = malloc((size_t) cnt * sizeof(gpoint));
		if (grid == NULL)
			goto out_of_memory;
		G = 0;
		grid[G].t = s->now;
		grid[G++].keep = 1;
		for (k = 0; k < K; k++)
			for (i = 0; i < cap->nsteps[k]; i++)
				if (cap->steps[k][i].t > s->now)
				{
					grid[G].t = cap->steps[k][i].t;
					grid[G++].keep = i > 0 && cap->steps[k][i].free < cap->steps[k][i - 1].free;
				}
		for (i = 0; i < n && !nowonly; i++)
		{
			const mx_assignment *a = &p->a[window[i]];

			if (a->status != MX_PLANNED || !isfinite(a->start))
				continue;
			grid[G].t = a->start < s->now ? s->now : a->start;
			grid[G++].keep = 1;
			grid[G].t = a->end;
			grid[G++].keep = 0;
		}
		G = build_grid(grid, G, o->grid_points > 1 ? o->grid_points : 2);
	}

	freek = malloc((size_t) K * G * sizeof(int));
	if (freek == NULL)
		goto out_of_memory;
	for (k = 0; k < K; k++)
		for (m = 0; m < G; m++)
			freek[k * G + m] = mx_capacity_free_at(cap, k, grid[m].t);

	/*
	 * columns: (job, config, grid point) where the config fits beside what
	 * cap holds. Build budget (docs/model.md, "Budget"): columns are added
	 * job by job in window order; once the build has used MX_BUILD_SHARE of
	 * the budget, or a job would take the model past MX_MILP_MAX_COLS
	 * binaries, the window is cut before that job. Jobs cut off are left to
	 * the caller like jobs the MILP leaves out (MX_WAITING on success).
	 */
	{
		long		maxjob = 0,
					alloc;

		for (i = 0; i < n; i++)
			if ((long) (cfoff[i + 1] - cfoff[i]) * G > maxjob)
				maxjob = (long) (cfoff[i + 1] - cfoff[i]) * G;
		if (maxjob > MX_MILP_MAX_COLS)
		{
			result = MX_MILP_TIME_LIMIT;	/* not even one job fits the model */
			goto cleanup;
		}
		alloc = (long) ncf * G;
		if (alloc > MX_MILP_MAX_COLS + maxjob)
			alloc = MX_MILP_MAX_COLS + maxjob;
		cols = malloc((size_t) (alloc > 0 ? alloc : 1) * sizeof(column));
		if (cols == NULL)
			goto out_of_memory;
	}
	for (i = 0; i < n; i++)
	{
		const mx_job *j = &s->jobs[window[i]];
		int			first = ncol;
		long		nnzfirst = nnzest;

		if (i > 0 && mx_wall_ms() - t0 >= MX_BUILD_SHARE * budget)
		{
			ncut = n - i;
			n = i;
			break;
		}
		for (c = cfoff[i]; c < cfoff[i + 1]; c++)
			for (m = 0; m < (nowonly ? 1 : G); m++)
			{
				double		v;

				if (cf[c].gpus > freek[cf[c].type * G + m])
					continue;
				if (mx_capacity_earliest(cap, cf[c].type, cf[c].gpus, cf[c].runtime, grid[m].t) != grid[m].t)
					continue;
				v = mx_value(s, j, o, grid[m].t, grid[m].t + cf[c].runtime);
				if (nowonly && !mustnow[i])
					v -= vdef[i];	/* gain over its forecast */
				if (!(v > 0))
					continue;	/* never worth choosing */
				cols[ncol].w = i;
				cols[ncol].c = c;
				cols[ncol].m = m;
				cols[ncol].v = v;
				ncol++;
				/* nonzeros: its job row and each grid point it is active at (at most) */
				{
					int			lo = m,
								hi = G;
					double		e = grid[m].t + cf[c].runtime;

					while (lo < hi)
					{
						int			mid = (lo + hi) / 2;

						if (grid[mid].t < e)
							lo = mid + 1;
						else
							hi = mid;
					}
					nnzest += 1 + (lo - m);
				}
			}
		if (ncol > MX_MILP_MAX_COLS || (i > 0 && nnzest > nnzcap))
		{
			ncol = first;		/* job i does not fit the model: cut here */
			nnzest = nnzfirst;
			ncut = n - i;
			n = i;
			break;
		}
	}
	if (n == 0)
	{
		result = MX_MILP_TIME_LIMIT;
		goto cleanup;
	}
	if (nvars)
		*nvars = ncol;
	if (ncol == 0)
	{
		result = MX_MILP_NO_SOLUTION;
		goto cleanup;
	}
	/* building the model counts against the budget too */
	if (mx_wall_ms() - t0 >= budget)
	{
		result = MX_MILP_TIME_LIMIT;
		goto cleanup;
	}

	/*
	 * capacity rows (k, m): sum of gpus of columns of type k active at grid
	 * point m (start <= t_m < start + runtime) <= free_k(t_m). A row is left
	 * out when it cannot bind: the largest use of each job fits.
	 */
	rowidx = calloc((size_t) K * G, sizeof(int));
	rowk = malloc((size_t) K * G * sizeof(int));
	rowm = malloc((size_t) K * G * sizeof(int));
	if (!rowidx || !rowk || !rowm)
		goto out_of_memory;
	{
		/*
		 * One pass over the columns (grouped by job): per (k, m) the sum
		 * over jobs of the job's largest use there.
		 */
		long	   *sum = calloc((size_t) K * G, sizeof(long));
		int		   *curw = malloc((size_t) K * G * sizeof(int));
		int		   *curmax = calloc((size_t) K * G, sizeof(int));
		int			q;

		if (!sum || !curw || !curmax)
		{
			free(sum);
			free(curw);
			free(curmax);
			goto out_of_memory;
		}
		for (q = 0; q < K * G; q++)
			curw[q] = -1;
		for (q = 0; q < ncol; q++)
		{
			const column *cl = &cols[q];
			const mx_config *f = &cf[cl->c];

			for (m = cl->m; m < G && grid[m].t < grid[cl->m].t + f->runtime; m++)
			{
				int			r = f->type * G + m;

				if (curw[r] != cl->w)
				{
					sum[r] += curmax[r];
					curw[r] = cl->w;
					curmax[r] = f->gpus;
				}
				else if (f->gpus > curmax[r])
					curmax[r] = f->gpus;
			}
		}
		for (k = 0; k < K; k++)
			for (m = 0; m < G; m++)
			{
				int			r = k * G + m;

				if (sum[r] + curmax[r] > freek[r])
				{
					rowk[ncaprow] = k;
					rowm[ncaprow] = m;
					rowidx[r] = n + 1 + ncaprow;
					ncaprow++;
				}
			}
		free(sum);
		free(curw);
		free(curmax);
	}
	nrow = n + ncaprow;

	/* nonzeros: one per column in its job row, one per capacity row it is active in */
	for (i = 0; i < ncol; i++)
	{
		const mx_config *f = &cf[cols[i].c];

		nnz++;
		for (m = cols[i].m; m < G && grid[m].t < grid[cols[i].m].t + f->runtime; m++)
			if (rowidx[f->type * G + m])
				nnz++;
	}
	ia = malloc(((size_t) nnz + 1) * sizeof(int));
	ja = malloc(((size_t) nnz + 1) * sizeof(int));
	ar = malloc(((size_t) nnz + 1) * sizeof(double));
	xinc = calloc((size_t) ncol + 1, sizeof(double));
	xsol = calloc((size_t) ncol + 1, sizeof(double));
	rowcap = malloc(((size_t) ncaprow + 1) * sizeof(double));
	obj = malloc(((size_t) ncol + 1) * sizeof(double));
	if (!ia || !ja || !ar || !xinc || !xsol || !rowcap || !obj)
		goto out_of_memory;
	for (i = 0; i < ncaprow; i++)
		rowcap[i] = (double) freek[rowk[i] * G + rowm[i]];
	obj[0] = 0;
	for (i = 0; i < ncol; i++)
		obj[i + 1] = cols[i].v;
	nnz = 0;
	for (i = 0; i < ncol; i++)
	{
		const mx_config *f = &cf[cols[i].c];

		nnz++;
		ia[nnz] = cols[i].w + 1;
		ja[nnz] = i + 1;
		ar[nnz] = 1.0;
		for (m = cols[i].m; m < G && grid[m].t < grid[cols[i].m].t + f->runtime; m++)
			if (rowidx[f->type * G + m])
			{
				nnz++;
				ia[nnz] = rowidx[f->type * G + m];
				ja[nnz] = i + 1;
				ar[nnz] = f->gpus;
			}
	}

	/* the heuristic's plan of the window as an incumbent (columns are grouped by job) */
	inc_ok = 1;
	{
		int			q = 0;

		for (i = 0; i < n; i++)
		{
			const mx_assignment *a = &p->a[window[i]];
			int			found = 0;

			for (; q < ncol && cols[q].w < i; q++)
				;
			if (a->status != MX_PLANNED)
				continue;
			for (c = q; c < ncol && cols[c].w == i && !found; c++)
			{
				const column *cl = &cols[c];

				if (cf[cl->c].type == a->type && cf[cl->c].gpus == a->gpus &&
					fabs(grid[cl->m].t - a->start) <= T_EPS)
				{
					xinc[c + 1] = 1.0;
					inc_obj += cl->v;
					found = 1;
				}
			}
			if (!found && !(nowonly && !mustnow[i]))
				inc_ok = 0;		/* still a feasible (partial) solution */
		}
	}
	if (mx_wall_ms() - t0 >= budget)
	{
		result = MX_MILP_TIME_LIMIT;
		goto cleanup;
	}

	/* -------------------------------------------------- GLPK, guarded */
	{
		glpk_job	gj;

		gj.nrow = nrow;
		gj.njobrow = n;
		gj.ncol = ncol;
		gj.nnz = nnz;
		gj.rowcap = rowcap;
		gj.mustnow = mustnow;
		gj.obj = obj;
		gj.ia = ia;
		gj.ja = ja;
		gj.ar = ar;
		gj.xinc = xinc;
		gj.inc_obj = inc_obj;
		gj.inc_ok = inc_ok;
		gj.mip_gap = o->mip_gap > 0 ? o->mip_gap : 0.0;
		/*
		 * wsum - objective = the window's weighted completion time / H (with
		 * the forecasts of the jobs the start-now model does not start)
		 */
		gj.wsum = 0;
		for (i = 0; i < n; i++)
			gj.wsum += mx_job_weight(s, &s->jobs[window[i]], o) - (nowonly && !mustnow[i] ? vdef[i] : 0);
		gj.t0 = t0;
		gj.budget = budget;
		gj.solve_end = t0 + budget - fmax(1.0, MX_STOP_SHARE * budget);
		gj.xsol = xsol;
		if (run_glpk(&gj) != 0)
		{
			result = MX_MILP_ERROR;
			goto cleanup;
		}
		result = gj.result;
		lp_bound = gj.bound;
		mip_obj = gj.mip_obj;
		solved = gj.solved;
		proven = gj.proven;
	}

	if (bound)
	{
		/* start-now model: its jobs that are not started keep their forecast */
		*bound = lp_bound;
		for (i = 0; i < n && nowonly; i++)
			if (!mustnow[i])
				*bound += vdef[i];
	}
	if (solved == 2)
		goto cleanup;			/* p already holds the (optimal) heuristic plan */
	if (solved != 1)
	{
		if (result == MX_MILP_OPTIMAL || result == MX_MILP_FEASIBLE)
			result = MX_MILP_NO_SOLUTION;
		goto cleanup;
	}
	/* worse than the incumbent (GLPK did not take it): keep p */
	if (mip_obj < inc_obj - 1e-9 * fmax(1.0, fabs(inc_obj)))
	{
		result = proven ? MX_MILP_NO_SOLUTION : MX_MILP_TIME_LIMIT;
		goto cleanup;
	}
	/*
	 * identical to the incumbent: p stays as it is — proven optimal, or the
	 * time limit found nothing better
	 */
	{
		int			same = 1;

		for (i = 1; i <= ncol && same; i++)
			if ((xsol[i] > 0.5) != (xinc[i] > 0.5))
				same = 0;
		if (same && !proven)
		{
			result = MX_MILP_TIME_LIMIT;
			goto cleanup;
		}
		if (same && inc_ok)
			goto cleanup;
	}
	/* write the window's choices; jobs left out (or cut off) are for the heuristic */
	for (i = 0; i < n + ncut; i++)
	{
		mx_assignment *a = &p->a[window[i]];

		if (a->status == MX_UNPLANNABLE)
			continue;
		a->status = MX_WAITING;
		a->type = -1;
		a->gpus = 0;
		a->start = a->end = NAN;
		a->utility = 0;
	}
	for (c = 0; c < ncol; c++)
	{
		const column *cl;
		mx_assignment *a;

		if (!(xsol[c + 1] > 0.5))
			continue;
		cl = &cols[c];
		a = &p->a[window[cl->w]];
		a->status = MX_PLANNED;
		a->type = cf[cl->c].type;
		a->gpus = cf[cl->c].gpus;
		a->start = grid[cl->m].t;
		a->end = grid[cl->m].t + cf[cl->c].runtime;
		a->utility = cf[cl->c].utility;
		a->reason[0] = '\0';
	}
	goto cleanup;

out_of_memory:
	result = MX_MILP_ERROR;
cleanup:
	free(cfoff);
	free(mustnow);
	free(vdef);
	free(cf);
	free(grid);
	free(freek);
	free(cols);
	free(rowidx);
	free(rowk);
	free(rowm);
	free(ia);
	free(ja);
	free(ar);
	free(xinc);
	free(xsol);
	free(rowcap);
	free(obj);
	return result;
}
