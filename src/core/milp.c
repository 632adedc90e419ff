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
#include "value.h"
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

/* The rows' bounds, the binary columns with their objective, the matrix. */
static void
glpk_load(glp_prob *P, const glpk_job *gj)
{
	int			i;

	glp_set_obj_dir(P, GLP_MAX);
	glp_add_rows(P, gj->nrow);
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
	if (mx_milp_test_force_error)
		glp_set_obj_coef(P, gj->ncol + 7, 1.0);	/* invalid: GLPK calls the error hook */
	glp_load_matrix(P, gj->nnz, gj->ia, gj->ja, gj->ar);
}

/*
 * The LP relaxation, in at most half of the budget: its bound, and whether
 * it already settles the round. 1 when branch and bound is to run, with
 * the milliseconds left for it in *left; 0 with gj->result set otherwise.
 */
static int
glpk_relax(glp_prob *P, glpk_job *gj, double *left)
{
	glp_smcp	sm;
	int			ret;
	double		lp,
				lp_ms;

	glp_init_smcp(&sm);
	sm.msg_lev = GLP_MSG_OFF;
	sm.presolve = GLP_OFF;
	*left = gj->solve_end - mx_wall_ms();
	sm.tm_lim = (int) fmax(1.0, fmin(*left, gj->budget * 0.5));
	lp_ms = mx_wall_ms();
	ret = glp_simplex(P, &sm);
	lp_ms = mx_wall_ms() - lp_ms;
	if (ret == GLP_ETMLIM)
	{
		gj->result = MX_MILP_TIME_LIMIT;
		return 0;
	}
	if (ret != 0 || glp_get_status(P) != GLP_OPT)
	{
		gj->result = MX_MILP_NO_SOLUTION;
		return 0;
	}
	lp = glp_get_obj_val(P);
	gj->bound = lp;
	if (gj->inc_ok &&
		(lp <= gj->inc_obj + 1e-9 * fmax(1.0, fabs(gj->inc_obj)) ||
		 lp - gj->inc_obj <= gj->mip_gap * fmax(gj->wsum - gj->inc_obj, 1e-12)))
	{
		/* the heuristic plan is within the gap of the LP bound */
		gj->result = MX_MILP_OPTIMAL;
		gj->solved = 2;
		gj->proven = 1;
		return 0;
	}
	if ((*left = gj->solve_end - mx_wall_ms()) < 1.0 || *left < MX_NODE_FACTOR * lp_ms)
	{
		/*
		 * Branch and bound stops only between nodes, and a node's LP can
		 * take about as long as the root's: without time for a few of them
		 * it would overrun the budget.
		 */
		gj->result = MX_MILP_TIME_LIMIT;
		return 0;
	}
	return 1;
}

/*
 * Branch and bound from the relaxation, with the heuristic's plan as the
 * incumbent and our gap and deadline in the callback; the solution into
 * gj->xsol when there is one.
 */
static void
glpk_branch(glp_prob *P, glpk_job *gj, double left)
{
	glp_iocp	io;
	heur_info	hi;
	int			ret,
				st,
				j;

	glp_init_iocp(&io);
	io.msg_lev = GLP_MSG_OFF;
	io.presolve = GLP_OFF;
	io.mip_gap = 0.0;			/* our own gap, in the callback */
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

/*
 * Build and solve the model. Returns 0, or -1 when GLPK reported an error
 * (caught by the error hook); in both cases the GLPK environment is freed.
 * Only GLPK calls and writes through gj happen after setjmp() (here and in
 * the phases it calls), so no local variable is live across the longjmp().
 */
static int
run_glpk(glpk_job *gj)
{
	jmp_buf		jb;
	glp_prob   *volatile P = NULL;
	double		left;

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
	glpk_load(P, gj);
	if (glpk_relax(P, gj, &left))
		glpk_branch(P, gj, left);
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

/* The model of one call, built phase by phase (docs/model.md, "MILP"). */
typedef struct milp_model
{
	/* the call */
	const mx_snapshot *s;
	const mx_options *o;
	const mx_capacity *cap;
	const int  *window;
	mx_plan    *p;
	int			n;				/* window jobs in the model (cut by the build budget) */
	int			ncut;			/* window jobs cut off by the build budget (after the first n) */
	int			K;
	double		t0;
	double		budget;
	int			nowonly;		/* the start-now model (docs/model.md, "MILP") */
	/* the window's configurations */
	int		   *cfoff;			/* configs of window job i: cf[cfoff[i] .. cfoff[i+1]) */
	char	   *mustnow;		/* window job i must start now (the incumbent starts it now) */
	double	   *vdef;			/* value of window job i's incumbent plan (its forecast) */
	mx_config  *cf;
	int			ncf;
	/* the time grid */
	gpoint	   *grid;
	int			G;
	int		   *freek;			/* free[k * G + m] from running jobs */
	/* columns and rows */
	column	   *cols;
	int			ncol;
	long		nnzest;			/* nonzeros of the columns built so far (an upper bound) */
	long		nnzcap;
	int		   *rowk,
			   *rowm,
			   *rowidx;			/* capacity row of (k, m), 0 = redundant */
	int			ncaprow;
	int			nrow;
	/* the matrix and the solutions, 1-based */
	int		   *ia,
			   *ja;
	double	   *ar;
	int			nnz;
	double	   *xinc;			/* incumbent */
	double	   *xsol;			/* MILP solution */
	double	   *rowcap;
	double	   *obj;
	double		inc_obj;
	int			inc_ok;
	/* the outcome */
	mx_milp_result result;
	double		lp_bound;
	double		mip_obj;
	int			solved;			/* 1: xsol holds a MILP solution; 2: heuristic proven optimal */
	int			proven;
} milp_model;

/* A phase that cannot go on: the call returns result. Always 1. */
static int
model_stop(milp_model *M, mx_milp_result result)
{
	M->result = result;
	return 1;
}

static void
model_free(milp_model *M)
{
	free(M->cfoff);
	free(M->mustnow);
	free(M->vdef);
	free(M->cf);
	free(M->grid);
	free(M->freek);
	free(M->cols);
	free(M->rowidx);
	free(M->rowk);
	free(M->rowm);
	free(M->ia);
	free(M->ja);
	free(M->ar);
	free(M->xinc);
	free(M->xsol);
	free(M->rowcap);
	free(M->obj);
}

/*
 * Configurations of the window jobs, and what the start-now model keeps of
 * the incumbent. Start-now model (default): every column starts now. A job
 * the incumbent starts now keeps starting now, on any configuration that
 * fits now (its row = 1); any other job may start now instead of at its
 * forecast, for the gain v(now) - v(forecast). The MILP thus chooses which
 * jobs start now and on what, never keeping GPUs idle for a job it merely
 * plans for later (docs/model.md, "Who holds GPUs"). With o->reserve_all,
 * the full time-grid model, in which every planned start is a reservation
 * (the ablation of the guards).
 */
static int
model_window(milp_model *M)
{
	const mx_snapshot *s = M->s;
	int			i,
				tot = 0;

	M->cfoff = malloc(((size_t) M->n + 1) * sizeof(int));
	M->mustnow = calloc((size_t) M->n + 1, 1);
	M->vdef = calloc((size_t) M->n + 1, sizeof(double));
	if (M->cfoff == NULL || M->mustnow == NULL || M->vdef == NULL)
		return model_stop(M, MX_MILP_ERROR);
	for (i = 0; i < M->n && M->nowonly; i++)
	{
		const mx_assignment *a = &M->p->a[M->window[i]];

		M->mustnow[i] = a->status == MX_PLANNED && a->start <= s->now + T_EPS;
		M->vdef[i] = a->status == MX_PLANNED ? mx_value(s, &s->jobs[M->window[i]], M->o, a->start, a->end) : 0;
		if (M->vdef[i] < 0)
			M->vdef[i] = 0;
	}
	for (i = 0; i < M->n; i++)
		tot += mx_job_configs_max(s, &s->jobs[M->window[i]]);
	M->cf = malloc((size_t) (tot > 0 ? tot : 1) * sizeof(mx_config));
	if (M->cf == NULL)
		return model_stop(M, MX_MILP_ERROR);
	for (i = 0; i < M->n; i++)
	{
		const mx_job *j = &s->jobs[M->window[i]];

		M->cfoff[i] = M->ncf;
		M->ncf += mx_job_configs(s, j, M->o->scaling_alpha, M->cf + M->ncf, mx_job_configs_max(s, j));
	}
	M->cfoff[M->n] = M->ncf;
	return 0;
}

/*
 * The grid: now, the steps of cap (running ends; the starts and ends of
 * what the caller holds there) and, in the time-grid model, the heuristic's
 * starts (kept) and ends. A step where free capacity falls (a hold starts)
 * is kept too: the capacity rows are checked at grid points only, which is
 * enough only if free capacity never falls between two of them. In the
 * start-now model columns start at point 0 only and the other points carry
 * the capacity rows.
 */
static int
model_grid(milp_model *M)
{
	const mx_capacity *cap = M->cap;
	int			cnt = 1 + 2 * M->n,
				G = 0,
				i,
				k,
				m;

	for (k = 0; k < M->K; k++)
		cnt += cap->nsteps[k];
	M->grid = malloc((size_t) cnt * sizeof(gpoint));
	if (M->grid == NULL)
		return model_stop(M, MX_MILP_ERROR);
	M->grid[G].t = M->s->now;
	M->grid[G++].keep = 1;
	for (k = 0; k < M->K; k++)
		for (i = 0; i < cap->nsteps[k]; i++)
			if (cap->steps[k][i].t > M->s->now)
			{
				M->grid[G].t = cap->steps[k][i].t;
				M->grid[G++].keep = i > 0 && cap->steps[k][i].free < cap->steps[k][i - 1].free;
			}
	for (i = 0; i < M->n && !M->nowonly; i++)
	{
		const mx_assignment *a = &M->p->a[M->window[i]];

		if (a->status != MX_PLANNED || !isfinite(a->start))
			continue;
		M->grid[G].t = a->start < M->s->now ? M->s->now : a->start;
		M->grid[G++].keep = 1;
		M->grid[G].t = a->end;
		M->grid[G++].keep = 0;
	}
	M->G = G = build_grid(M->grid, G, M->o->grid_points > 1 ? M->o->grid_points : 2);

	M->freek = malloc((size_t) M->K * G * sizeof(int));
	if (M->freek == NULL)
		return model_stop(M, MX_MILP_ERROR);
	for (k = 0; k < M->K; k++)
		for (m = 0; m < G; m++)
			M->freek[k * G + m] = mx_capacity_free_at(cap, k, M->grid[m].t);
	return 0;
}

/* Grid points a column of f starting at point m is active at: m .. the result - 1. */
static int
active_end(const milp_model *M, int m, double runtime)
{
	int			lo = m,
				hi = M->G;
	double		e = M->grid[m].t + runtime;

	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;

		if (M->grid[mid].t < e)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The columns of window job i: (config, grid point) where it fits and is worth choosing. */
static void
add_job_columns(milp_model *M, int i)
{
	const mx_job *j = &M->s->jobs[M->window[i]];
	int			c,
				m;

	for (c = M->cfoff[i]; c < M->cfoff[i + 1]; c++)
		for (m = 0; m < (M->nowonly ? 1 : M->G); m++)
		{
			const mx_config *f = &M->cf[c];
			double		v;

			if (f->gpus > M->freek[f->type * M->G + m])
				continue;
			if (mx_capacity_earliest(M->cap, f->type, f->gpus, f->runtime, M->grid[m].t) != M->grid[m].t)
				continue;
			v = mx_value(M->s, j, M->o, M->grid[m].t, M->grid[m].t + f->runtime);
			if (M->nowonly && !M->mustnow[i])
				v -= M->vdef[i];	/* gain over its forecast */
			if (!(v > 0))
				continue;		/* never worth choosing */
			M->cols[M->ncol].w = i;
			M->cols[M->ncol].c = c;
			M->cols[M->ncol].m = m;
			M->cols[M->ncol].v = v;
			M->ncol++;
			/* nonzeros: its job row and each grid point it is active at (at most) */
			M->nnzest += 1 + (active_end(M, m, f->runtime) - m);
		}
}

/*
 * Columns: (job, config, grid point) where the config fits beside what cap
 * holds. Build budget (docs/model.md, "Budget"): columns are added job by
 * job in window order; once the build has used MX_BUILD_SHARE of the
 * budget, or a job would take the model past MX_MILP_MAX_COLS binaries, the
 * window is cut before that job. Jobs cut off are left to the caller like
 * jobs the MILP leaves out (MX_WAITING on success).
 */
static int
model_columns(milp_model *M)
{
	long		maxjob = 0,
				alloc;
	int			i;

	for (i = 0; i < M->n; i++)
		if ((long) (M->cfoff[i + 1] - M->cfoff[i]) * M->G > maxjob)
			maxjob = (long) (M->cfoff[i + 1] - M->cfoff[i]) * M->G;
	if (maxjob > MX_MILP_MAX_COLS)
		return model_stop(M, MX_MILP_TIME_LIMIT);	/* not even one job fits the model */
	alloc = (long) M->ncf * M->G;
	if (alloc > MX_MILP_MAX_COLS + maxjob)
		alloc = MX_MILP_MAX_COLS + maxjob;
	M->cols = malloc((size_t) (alloc > 0 ? alloc : 1) * sizeof(column));
	if (M->cols == NULL)
		return model_stop(M, MX_MILP_ERROR);
	for (i = 0; i < M->n; i++)
	{
		int			first = M->ncol;
		long		nnzfirst = M->nnzest;

		if (i > 0 && mx_wall_ms() - M->t0 >= MX_BUILD_SHARE * M->budget)
		{
			M->ncut = M->n - i;
			M->n = i;
			break;
		}
		add_job_columns(M, i);
		if (M->ncol > MX_MILP_MAX_COLS || (i > 0 && M->nnzest > M->nnzcap))
		{
			M->ncol = first;	/* job i does not fit the model: cut here */
			M->nnzest = nnzfirst;
			M->ncut = M->n - i;
			M->n = i;
			break;
		}
	}
	return 0;
}

/*
 * Capacity rows (k, m): sum of gpus of columns of type k active at grid
 * point m (start <= t_m < start + runtime) <= free_k(t_m). A row is left
 * out when it cannot bind: the largest use of each job fits. One pass over
 * the columns (grouped by job) sums per (k, m) each job's largest use there.
 */
static int
model_cap_rows(milp_model *M)
{
	int			KG = M->K * M->G,
				q,
				m,
				r;
	long	   *sum = calloc((size_t) KG, sizeof(long));
	int		   *curw = malloc((size_t) KG * sizeof(int));
	int		   *curmax = calloc((size_t) KG, sizeof(int));

	M->rowidx = calloc((size_t) KG, sizeof(int));
	M->rowk = malloc((size_t) KG * sizeof(int));
	M->rowm = malloc((size_t) KG * sizeof(int));
	if (!M->rowidx || !M->rowk || !M->rowm || !sum || !curw || !curmax)
	{
		free(sum);
		free(curw);
		free(curmax);
		return model_stop(M, MX_MILP_ERROR);
	}
	for (q = 0; q < KG; q++)
		curw[q] = -1;
	for (q = 0; q < M->ncol; q++)
	{
		const column *cl = &M->cols[q];
		const mx_config *f = &M->cf[cl->c];

		for (m = cl->m; m < M->G && M->grid[m].t < M->grid[cl->m].t + f->runtime; m++)
		{
			r = f->type * M->G + m;
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
	for (r = 0; r < KG; r++)
		if (sum[r] + curmax[r] > M->freek[r])
		{
			M->rowk[M->ncaprow] = r / M->G;
			M->rowm[M->ncaprow] = r % M->G;
			M->rowidx[r] = M->n + 1 + M->ncaprow;
			M->ncaprow++;
		}
	free(sum);
	free(curw);
	free(curmax);
	M->nrow = M->n + M->ncaprow;
	return 0;
}

/* Nonzeros of column i: counted, and with fill written into ia, ja, ar. */
static int
column_nonzeros(milp_model *M, int i, int fill)
{
	const mx_config *f = &M->cf[M->cols[i].c];
	int			m,
				count = 1;

	if (fill)
	{
		M->nnz++;
		M->ia[M->nnz] = M->cols[i].w + 1;
		M->ja[M->nnz] = i + 1;
		M->ar[M->nnz] = 1.0;
	}
	for (m = M->cols[i].m; m < M->G && M->grid[m].t < M->grid[M->cols[i].m].t + f->runtime; m++)
		if (M->rowidx[f->type * M->G + m])
		{
			count++;
			if (fill)
			{
				M->nnz++;
				M->ia[M->nnz] = M->rowidx[f->type * M->G + m];
				M->ja[M->nnz] = i + 1;
				M->ar[M->nnz] = f->gpus;
			}
		}
	return count;
}

/* The matrix: one nonzero per column in its job row, one per capacity row it is active in. */
static int
model_matrix(milp_model *M)
{
	int			i,
				nnz = 0;

	for (i = 0; i < M->ncol; i++)
		nnz += column_nonzeros(M, i, 0);
	M->ia = malloc(((size_t) nnz + 1) * sizeof(int));
	M->ja = malloc(((size_t) nnz + 1) * sizeof(int));
	M->ar = malloc(((size_t) nnz + 1) * sizeof(double));
	M->xinc = calloc((size_t) M->ncol + 1, sizeof(double));
	M->xsol = calloc((size_t) M->ncol + 1, sizeof(double));
	M->rowcap = malloc(((size_t) M->ncaprow + 1) * sizeof(double));
	M->obj = malloc(((size_t) M->ncol + 1) * sizeof(double));
	if (!M->ia || !M->ja || !M->ar || !M->xinc || !M->xsol || !M->rowcap || !M->obj)
		return model_stop(M, MX_MILP_ERROR);
	for (i = 0; i < M->ncaprow; i++)
		M->rowcap[i] = (double) M->freek[M->rowk[i] * M->G + M->rowm[i]];
	M->obj[0] = 0;
	for (i = 0; i < M->ncol; i++)
		M->obj[i + 1] = M->cols[i].v;
	M->nnz = 0;
	for (i = 0; i < M->ncol; i++)
		(void) column_nonzeros(M, i, 1);
	return 0;
}

/* The heuristic's plan of the window as an incumbent (columns are grouped by job). */
static void
model_incumbent(milp_model *M)
{
	int			q = 0,
				i,
				c;

	M->inc_ok = 1;
	for (i = 0; i < M->n; i++)
	{
		const mx_assignment *a = &M->p->a[M->window[i]];
		int			found = 0;

		for (; q < M->ncol && M->cols[q].w < i; q++)
			;
		if (a->status != MX_PLANNED)
			continue;
		for (c = q; c < M->ncol && M->cols[c].w == i && !found; c++)
		{
			const column *cl = &M->cols[c];

			if (M->cf[cl->c].type == a->type && M->cf[cl->c].gpus == a->gpus &&
				fabs(M->grid[cl->m].t - a->start) <= T_EPS)
			{
				M->xinc[c + 1] = 1.0;
				M->inc_obj += cl->v;
				found = 1;
			}
		}
		if (!found && !(M->nowonly && !M->mustnow[i]))
			M->inc_ok = 0;		/* still a feasible (partial) solution */
	}
}

/* GLPK, guarded (run_glpk). */
static int
model_solve(milp_model *M)
{
	glpk_job	gj;
	int			i;

	gj.nrow = M->nrow;
	gj.njobrow = M->n;
	gj.ncol = M->ncol;
	gj.nnz = M->nnz;
	gj.rowcap = M->rowcap;
	gj.mustnow = M->mustnow;
	gj.obj = M->obj;
	gj.ia = M->ia;
	gj.ja = M->ja;
	gj.ar = M->ar;
	gj.xinc = M->xinc;
	gj.inc_obj = M->inc_obj;
	gj.inc_ok = M->inc_ok;
	gj.mip_gap = M->o->mip_gap > 0 ? M->o->mip_gap : 0.0;
	/*
	 * wsum - objective = the window's weighted completion time / H (with the
	 * forecasts of the jobs the start-now model does not start)
	 */
	gj.wsum = 0;
	for (i = 0; i < M->n; i++)
		gj.wsum += mx_job_weight(M->s, &M->s->jobs[M->window[i]], M->o)
			- (M->nowonly && !M->mustnow[i] ? M->vdef[i] : 0);
	gj.t0 = M->t0;
	gj.budget = M->budget;
	gj.solve_end = M->t0 + M->budget - fmax(1.0, MX_STOP_SHARE * M->budget);
	gj.xsol = M->xsol;
	if (run_glpk(&gj) != 0)
		return model_stop(M, MX_MILP_ERROR);
	M->result = gj.result;
	M->lp_bound = gj.bound;
	M->mip_obj = gj.mip_obj;
	M->solved = gj.solved;
	M->proven = gj.proven;
	return 0;
}

/*
 * Whether p keeps the heuristic's plan of the window: GLPK found nothing,
 * nothing better than the incumbent, or the incumbent itself. Sets the
 * result for the cases that are no MILP solution.
 */
static int
model_keeps_incumbent(milp_model *M)
{
	int			same = 1,
				i;

	if (M->solved == 2)
		return 1;				/* p already holds the (optimal) heuristic plan */
	if (M->solved != 1)
	{
		if (M->result == MX_MILP_OPTIMAL || M->result == MX_MILP_FEASIBLE)
			M->result = MX_MILP_NO_SOLUTION;
		return 1;
	}
	/* worse than the incumbent (GLPK did not take it): keep p */
	if (M->mip_obj < M->inc_obj - 1e-9 * fmax(1.0, fabs(M->inc_obj)))
		return model_stop(M, M->proven ? MX_MILP_NO_SOLUTION : MX_MILP_TIME_LIMIT);
	/* identical to the incumbent: proven optimal, or the time limit found nothing better */
	for (i = 1; i <= M->ncol && same; i++)
		if ((M->xsol[i] > 0.5) != (M->xinc[i] > 0.5))
			same = 0;
	if (same && !M->proven)
		return model_stop(M, MX_MILP_TIME_LIMIT);
	return same && M->inc_ok;
}

/* The window's choices into p; jobs left out (or cut off) are for the heuristic. */
static void
model_write(milp_model *M)
{
	int			i,
				c;

	for (i = 0; i < M->n + M->ncut; i++)
	{
		mx_assignment *a = &M->p->a[M->window[i]];

		if (a->status == MX_UNPLANNABLE)
			continue;
		a->status = MX_WAITING;
		a->type = -1;
		a->gpus = 0;
		a->start = a->end = NAN;
		a->utility = 0;
	}
	for (c = 0; c < M->ncol; c++)
	{
		const column *cl = &M->cols[c];
		const mx_config *f = &M->cf[cl->c];
		mx_assignment *a;

		if (!(M->xsol[c + 1] > 0.5))
			continue;
		a = &M->p->a[M->window[cl->w]];
		a->status = MX_PLANNED;
		a->type = f->type;
		a->gpus = f->gpus;
		a->start = M->grid[cl->m].t;
		a->end = M->grid[cl->m].t + f->runtime;
		a->utility = f->utility;
		a->reason[0] = '\0';
	}
}

/* Everything up to the solve; 0, or 1 when the call ends with M->result. */
static int
model_build(milp_model *M, int *nvars)
{
	if (model_window(M) || model_grid(M) || model_columns(M))
		return 1;
	if (M->n == 0)
		return model_stop(M, MX_MILP_TIME_LIMIT);
	if (nvars)
		*nvars = M->ncol;
	if (M->ncol == 0)
		return model_stop(M, MX_MILP_NO_SOLUTION);
	/* building the model counts against the budget too */
	if (mx_wall_ms() - M->t0 >= M->budget)
		return model_stop(M, MX_MILP_TIME_LIMIT);
	if (model_cap_rows(M) || model_matrix(M))
		return 1;
	model_incumbent(M);
	if (mx_wall_ms() - M->t0 >= M->budget)
		return model_stop(M, MX_MILP_TIME_LIMIT);
	return 0;
}

mx_milp_result
mx_milp_plan(const mx_snapshot *s, const mx_options *o, const mx_capacity *cap,
			 const int *window, int n, mx_plan *p, double *bound, int *nvars)
{
	milp_model	M;
	int			i;

	if (bound)
		*bound = NAN;
	if (nvars)
		*nvars = 0;
	if (n <= 0 || s->ntypes <= 0)
		return MX_MILP_NO_SOLUTION;

	memset(&M, 0, sizeof(M));
	M.t0 = mx_wall_ms();
	M.s = s;
	M.o = o;
	M.cap = cap;
	M.window = window;
	M.p = p;
	M.n = n;
	M.K = s->ntypes;
	M.budget = o->time_limit_ms > 0 ? o->time_limit_ms : 1.0;
	M.nowonly = !o->reserve_all;
	M.nnzcap = (long) (MX_MILP_NNZ_PER_MS * M.budget);
	M.result = MX_MILP_NO_SOLUTION;
	M.lp_bound = M.mip_obj = NAN;

	if (model_build(&M, nvars) == 0 && model_solve(&M) == 0)
	{
		if (bound)
		{
			/* start-now model: its jobs that are not started keep their forecast */
			*bound = M.lp_bound;
			for (i = 0; i < M.n && M.nowonly; i++)
				if (!M.mustnow[i])
					*bound += M.vdef[i];
		}
		if (!model_keeps_incumbent(&M))
			model_write(&M);
	}
	model_free(&M);
	return M.result;
}
