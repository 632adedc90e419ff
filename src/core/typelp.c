/*
 * typelp.c — the configuration LP (typelp.h). See docs/model.md,
 * "Configuration LP".
 *
 * Variables x[j,c,s] >= 0: the share of window job j that runs on
 * configuration c and starts in slot s. Slots are geometric in time after
 * now (short slots first, where the decisions of this round matter), plus
 * a catch-all slot without capacity so that the LP is always feasible. A
 * share exists only in slots that end after e_c, the earliest time c's
 * GPUs are free at once for its whole run (the catch-all always).
 *
 *   min  sum w_j (max(mid_s, e_c) + p_c) x[j,c,s]
 *   s.t. sum_{c,s} x[j,c,s] = 1                                for every job
 *        sum_{s' <= s} g_c min(p_c, b_{s+1} - a_{c,s'})+ x[j,c,s']
 *             <= free GPU-seconds of type k on [now, now + b_{s+1}]   for every type k, slot s
 *        where a_{c,s'} = max(b_{s'}, e_c)
 *
 * The capacity rows are cumulative: a job started in slot s' has done at
 * most min(p, b_{s+1} - a_{c,s'}) of its run by the end of slot s. They
 * count GPU-seconds, not GPUs: without e_c a wide job could start at once
 * on seconds scattered over busy GPUs. max(mid_s, e_c) + p_c is the job's
 * completion if it starts mid-slot, or when it fits (the mean busy time
 * mid_s + p_c / 2 measured 0.4 points worse, docs/model.md).
 *
 * This runs inside the PostgreSQL server: GLPK must never print, exit or
 * abort, so it is hosted as in milp.c (terminal off, an error hook that
 * longjmp()s back, the environment freed after every solve), and only
 * GLPK calls happen between setjmp() and the end of the protected region.
 */
#include <math.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <glpk.h>

/* glp_smcp.shift (solve()) came in 2017, undocumented; 4.65 has it, Debian 12 ships 5.0 */
#if GLP_MAJOR_VERSION < 4 || (GLP_MAJOR_VERSION == 4 && GLP_MINOR_VERSION < 65)
#error "MixDNN needs GLPK 4.65 or later"
#endif

#include "glpkhost.h"
#include "typelp.h"
#include "value.h"
#include "stopwatch.h"

#define TLP_SLOTS 16			/* finite slots; one catch-all slot follows */
#define TLP_MIN_SLOT_S 60.0		/* the first slot is at least this long */
#define TLP_MAX_COLS 10000		/* the window is cut before a job that would exceed this (docs/model.md, table T) */
#define TLP_ITER_PER_ROW 40		/* simplex iteration limit per row (determinism, docs/model.md) */
/*
 * The simplex runs in chunks of about this many iterations x columns
 * (about 30 ms on the 2-core machine of docs/model.md), the CPU budget
 * checked between two: GLPK's own time limit is wall time, which a busy
 * machine stretches (docs/model.md, "Determinism and budget").
 */
#define TLP_CHUNK_WORK 1.5e6
#define TLP_MIN_CHUNK 50

/* LP masses (shares of a job, 0..1) this close are a tie for the majority rule. */
#define TLP_TIE 1e-6

int			mx_typelp_test_force_error = 0;
int			mx_typelp_test_slack_basis = 0;
int			mx_typelp_test_first_iterations = 0;
int			mx_typelp_test_force_fail = 0;
int			mx_typelp_test_iterations = 0;
int			mx_typelp_test_chunk = 0;
double		mx_typelp_test_chunk_cpu_ms = 0;
int			mx_typelp_test_count_starts = 0;
int			mx_typelp_test_infeasible_starts = 0;

/* Tests: the CPU time the chunks of this solve are said to have taken. */
static double test_charged_ms = 0;

/* The thread's CPU time, the scale of every budget check of a solve. */
static double
cpu_spent_ms(void)
{
	return mx_thread_cpu_ms() + test_charged_ms;
}

typedef struct tlp_col
{
	int			job;			/* window position */
	int			cfg;			/* index into cf[] */
	int			slot;
} tlp_col;

/* The model's state: slots, configurations, columns and the sparse matrix. */
typedef struct tlp_model
{
	int			n,				/* window jobs in the model (may be cut) */
				K,				/* GPU types */
				S;				/* slots, the last one the catch-all */
	double		b[TLP_SLOTS + 2];	/* slot s = [b[s], b[s+1]) seconds after now */
	double	   *capk;			/* free GPU-seconds of type k on [0, b[s+1]): capk[k * (S - 1) + s] */
	int		   *cfoff;			/* configs of job i: cf[cfoff[i] .. cfoff[i + 1]) */
	mx_config  *cf;
	double	   *est;			/* earliest start of cf[c] in the capacity, seconds after now */
	double	   *w;				/* weight of job i */
	int			ncol,
				nrow,
				nnz;
	tlp_col    *col;			/* 1-based */
	double	   *obj;			/* 1-based */
	int		   *ia,
			   *ja;
	double	   *ar;				/* 1-based */
	double	   *x;				/* LP solution, 1-based */
	int		   *start;			/* job i's basic column in the starting basis (0: none) */
	int		   *cheap;			/* job i's catch-all column of least cost */
	int		   *prev;			/* job i's column of its previous plan (0: none) */
	int		   *prevc;			/* job i's previous plan's configuration, index into cf[] (-1: none) */
	double	   *prevt;			/* and its planned start, seconds after now (at least 0) */
	unsigned char *hinted;		/* 1: prevc/prevt are the heuristic's plan, not a previous round's */
	int		   *colbeg;			/* column j's entries: ia/ja/ar[colbeg[j] .. colbeg[j + 1]) */
	int			prev_kept;		/* jobs whose starting column is their previous (or hinted) plan's */
	int			rescued;		/* the first solve was repeated (simplex_with_rescue) */
	int			iterations;
	double		lp_obj;
} tlp_model;

static void
tlp_free(tlp_model *m)
{
	free(m->capk);
	free(m->cfoff);
	free(m->cf);
	free(m->est);
	free(m->w);
	free(m->col);
	free(m->obj);
	free(m->ia);
	free(m->ja);
	free(m->ar);
	free(m->x);
	free(m->start);
	free(m->cheap);
	free(m->prev);
	free(m->colbeg);
	free(m->prevc);
	free(m->prevt);
	free(m->hinted);
}

/* Job i's configuration of type and gpus, index into cf[] (-1: not a candidate). */
static int
find_config(const tlp_model *m, int i, int type, int gpus)
{
	if (type < 0 || gpus <= 0)
		return -1;
	for (int c = m->cfoff[i]; c < m->cfoff[i + 1]; c++)
		if (m->cf[c].type == type && m->cf[c].gpus == gpus)
			return c;
	return -1;
}

/*
 * Job j (window position i, its configurations loaded): which of them the
 * previous round's plan gave it, and when it was to start. A job the
 * previous round did not plan (every job in the first round of a batch),
 * or planned on a configuration that is no longer a candidate, takes the
 * heuristic's plan of this round instead: it starts the simplex nearer
 * the optimum than the catch-all slot, but is no tie-breaker.
 */
static void
set_previous(tlp_model *m, const mx_snapshot *s, const mx_job *j, int i,
			 const mx_assignment *hint)
{
	m->prevc[i] = find_config(m, i, j->prev_type, j->prev_gpus);
	m->prevt[i] = fmax(0.0, j->prev_start - s->now);
	m->hinted[i] = 0;
	if (m->prevc[i] >= 0 || hint == NULL || hint->status != MX_PLANNED)
		return;
	m->prevc[i] = find_config(m, i, hint->type, hint->gpus);
	m->prevt[i] = fmax(0.0, hint->start - s->now);
	m->hinted[i] = 1;
}

/*
 * Configurations and weights of the window jobs; the window is cut before
 * the job that would take the model past TLP_MAX_COLS columns.
 */
static int
load_configs(tlp_model *m, const mx_snapshot *s, const mx_options *o, const int *window, int n,
			 const mx_plan *hint)
{
	int			tot = 0,
				i,
				cols = 0;

	for (i = 0; i < n; i++)
		tot += mx_job_configs_max(s, &s->jobs[window[i]]);
	m->cfoff = malloc(((size_t) n + 1) * sizeof(int));
	m->cf = malloc((size_t) (tot > 0 ? tot : 1) * sizeof(mx_config));
	m->w = malloc(((size_t) n + 1) * sizeof(double));
	m->prevc = malloc(((size_t) n + 1) * sizeof(int));
	m->prevt = malloc(((size_t) n + 1) * sizeof(double));
	m->hinted = malloc((size_t) n + 1);
	if (!m->cfoff || !m->cf || !m->w || !m->prevc || !m->prevt || !m->hinted)
		return -1;
	m->cfoff[0] = 0;
	for (i = 0; i < n; i++)
	{
		const mx_job *j = &s->jobs[window[i]];
		int			nc = mx_job_configs(s, j, o->scaling_alpha, m->cf + m->cfoff[i],
										mx_job_configs_max(s, j));

		if (cols + nc * m->S > TLP_MAX_COLS)
			break;
		cols += nc * m->S;
		m->w[i] = mx_job_weight(s, j, o);
		m->cfoff[i + 1] = m->cfoff[i] + nc;
		set_previous(m, s, j, i, hint ? &hint->a[window[i]] : NULL);
	}
	m->n = i;
	return 0;
}

/*
 * Slot boundaries: geometric from the first slot's length d0 (a quarter of
 * the shortest best run time, at least TLP_MIN_SLOT_S) to D, twice the
 * longest of the running parts' last end, the longest best run time and
 * the window's least GPU-seconds spread over every GPU — a span in which
 * the window can finish.
 */
static void
set_slots(tlp_model *m, const mx_snapshot *s, const mx_capacity *cap)
{
	double		shortest = INFINITY,
				longest = 0,
				work = 0,
				last = 0,
				d0,
				D,
				r;
	int			i,
				c,
				k,
				gpus = 0;

	for (i = 0; i < m->n; i++)
	{
		double		best = INFINITY,
					least = INFINITY;

		for (c = m->cfoff[i]; c < m->cfoff[i + 1]; c++)
		{
			best = fmin(best, m->cf[c].runtime);
			least = fmin(least, m->cf[c].runtime * m->cf[c].gpus);
		}
		if (!isfinite(best))
			continue;
		shortest = fmin(shortest, best);
		longest = fmax(longest, best);
		work += least;
	}
	for (k = 0; k < m->K; k++)
		gpus += cap->total[k];
	last = fmax(0.0, mx_capacity_last_end(cap) - s->now);
	d0 = fmax(TLP_MIN_SLOT_S, isfinite(shortest) ? shortest / 4.0 : TLP_MIN_SLOT_S);
	D = 2.0 * fmax(fmax(last, longest), gpus > 0 ? work / gpus : 0);
	if (!(D > d0 * 2))
		D = d0 * 2;
	r = pow(D / d0, 1.0 / (TLP_SLOTS - 1));
	m->b[0] = 0;
	for (i = 1; i <= TLP_SLOTS; i++)
		m->b[i] = d0 * pow(r, i - 1);
	/* the catch-all slot: twice as far again, no capacity row */
	m->b[TLP_SLOTS + 1] = 3.0 * m->b[TLP_SLOTS];
}

/* Cumulative free GPU-seconds per type and finite slot. */
static int
set_capacity(tlp_model *m, const mx_snapshot *s, const mx_capacity *cap)
{
	int			k,
				sl;

	m->capk = malloc((size_t) m->K * (m->S - 1) * sizeof(double));
	if (!m->capk)
		return -1;
	for (k = 0; k < m->K; k++)
		for (sl = 0; sl < m->S - 1; sl++)
			m->capk[k * (m->S - 1) + sl] = mx_capacity_free_seconds(cap, k, s->now, s->now + m->b[sl + 1]);
	return 0;
}

/*
 * When each configuration could start at the earliest: when its GPUs are
 * free at once for its whole run in the capacity (running parts and
 * holds). Other window jobs only take more, so no schedule starts it
 * sooner; without this the cumulative rows let a wide job start on
 * GPU-seconds scattered over busy GPUs (docs/model.md).
 */
static int
set_earliest(tlp_model *m, const mx_snapshot *s, const mx_capacity *cap)
{
	int			c;

	m->est = malloc((size_t) (m->cfoff[m->n] > 0 ? m->cfoff[m->n] : 1) * sizeof(double));
	if (!m->est)
		return -1;
	for (c = 0; c < m->cfoff[m->n]; c++)
		m->est[c] = mx_capacity_earliest(cap, m->cf[c].type, m->cf[c].gpus, m->cf[c].runtime, s->now) - s->now;
	return 0;
}

/* Capacity row (1-based) of type k and finite slot sl. */
static int
cap_row(const tlp_model *m, int k, int sl)
{
	return m->n + 1 + k * (m->S - 1) + sl;
}

/*
 * Job i's candidate columns for the starting basis, as its column j is
 * built: its catch-all column of least cost, and its previous plan's
 * configuration (set_previous: else the heuristic's) in the first slot
 * that configuration can start in which ends after the planned start
 * (the catch-all if none does).
 * Columns come in slot order per configuration.
 */
static void
note_start_column(tlp_model *m, int i, int j)
{
	const tlp_col *cj = &m->col[j];
	int			last = cj->slot == m->S - 1;

	if (last && (m->cheap[i] == 0 || m->obj[j] < m->obj[m->cheap[i]]))
		m->cheap[i] = j;
	if (m->prev[i] == 0 && cj->cfg == m->prevc[i] && (last || m->prevt[i] < m->b[cj->slot + 1]))
		m->prev[i] = j;
}

/*
 * Each job's column in the starting basis: its previous plan's (or,
 * without one, the heuristic's plan's; set_previous) while, in
 * window order, that keeps every capacity row within its free
 * GPU-seconds, else its cheapest catch-all column. A slot's column
 * counts its job from the slot's start, so even a plan that fits the
 * capacity as it is can overfill the rows; an infeasible start made
 * GLPK's unscaled phase 1 report "no feasible solution" on a few rounds
 * (docs/model.md, "The previous plan in the starting basis"). The
 * catch-all slot has no capacity row, so the basis stays feasible.
 * Returns -1 when out of memory.
 */
static int
choose_start(tlp_model *m)
{
	double	   *used = calloc((size_t) m->K * (m->S - 1) + 1, sizeof(double));

	if (!used)
		return -1;
	m->prev_kept = 0;
	for (int i = 0; i < m->n; i++)
	{
		int			j = m->prev[i],
					fits = j > 0,
					p;

		m->start[i] = m->cheap[i];
		/* a column's first entry is its job row's, the others capacity rows' */
		for (p = fits ? m->colbeg[j] + 1 : 0; fits && p < m->colbeg[j + 1]; p++)
			fits = used[m->ia[p] - m->n - 1] + m->ar[p] <= m->capk[m->ia[p] - m->n - 1];
		if (!fits)
			continue;
		for (p = m->colbeg[j] + 1; p < m->colbeg[j + 1]; p++)
			used[m->ia[p] - m->n - 1] += m->ar[p];
		m->start[i] = j;
		m->prev_kept++;
	}
	free(used);
	return 0;
}

/* Columns, objective and the constraint matrix. */
static int
build_matrix(tlp_model *m)
{
	int			i,
				c,
				sl,
				s2,
				nz = 0;
	size_t		maxcol = 0;

	for (i = 0; i < m->n; i++)
		maxcol += (size_t) (m->cfoff[i + 1] - m->cfoff[i]) * m->S;
	m->col = malloc((maxcol + 1) * sizeof(tlp_col));
	m->obj = malloc((maxcol + 1) * sizeof(double));
	m->x = calloc(maxcol + 1, sizeof(double));
	m->start = calloc((size_t) m->n + 1, sizeof(int));
	m->cheap = calloc((size_t) m->n + 1, sizeof(int));
	m->prev = calloc((size_t) m->n + 1, sizeof(int));
	m->colbeg = malloc((maxcol + 2) * sizeof(int));
	/* each column: its job row and at most S - 1 capacity rows */
	m->ia = malloc((maxcol * m->S + 1) * sizeof(int));
	m->ja = malloc((maxcol * m->S + 1) * sizeof(int));
	m->ar = malloc((maxcol * m->S + 1) * sizeof(double));
	if (!m->col || !m->obj || !m->x || !m->start || !m->cheap || !m->prev || !m->colbeg ||
		!m->ia || !m->ja || !m->ar)
		return -1;
	m->ncol = 0;
	for (i = 0; i < m->n; i++)
		for (c = m->cfoff[i]; c < m->cfoff[i + 1]; c++)
			for (sl = 0; sl < m->S; sl++)
			{
				const mx_config *cf = &m->cf[c];
				double		e = m->est[c],
							from = fmax(m->b[sl], e),
							mid = 0.5 * (m->b[sl] + m->b[sl + 1]);
				int			j;

				/* no start before the configuration fits; the catch-all always stays */
				if (sl < m->S - 1 && !(e < m->b[sl + 1]))
					continue;
				if (!isfinite(from))
					from = m->b[sl];
				j = ++m->ncol;
				m->col[j].job = i;
				m->col[j].cfg = c;
				m->col[j].slot = sl;
				m->obj[j] = m->w[i] * (fmax(mid, from) + cf->runtime);
				note_start_column(m, i, j);
				nz++;
				m->colbeg[j] = nz;
				m->ia[nz] = i + 1;
				m->ja[nz] = j;
				m->ar[nz] = 1.0;
				for (s2 = sl; s2 < m->S - 1; s2++)
				{
					nz++;
					m->ia[nz] = cap_row(m, cf->type, s2);
					m->ja[nz] = j;
					m->ar[nz] = cf->gpus * fmax(0.0, fmin(cf->runtime, m->b[s2 + 1] - from));
				}
			}
	m->nnz = nz;
	m->colbeg[m->ncol + 1] = nz + 1;
	m->nrow = m->n + m->K * (m->S - 1);
	return choose_start(m);
}

/*
 * glp_simplex from P's basis in chunks of chunk iterations: until it ends
 * (optimum, infeasibility, an error), it_total iterations have run in all,
 * or, between two chunks, the thread's CPU time has passed deadline_ms
 * (returns GLP_ETMLIM then). Otherwise glp_simplex's last return code.
 */
static int
simplex_chunks(glp_prob *P, glp_smcp *sm, int it_total, int chunk, double deadline_ms)
{
	int			first = glp_get_it_cnt(P),
				ret;

	for (;;)
	{
		int			used = glp_get_it_cnt(P) - first;

		sm->it_lim = it_total - used < chunk ? it_total - used : chunk;
		ret = glp_simplex(P, sm);
		test_charged_ms += mx_typelp_test_chunk_cpu_ms;
		if (ret != GLP_EITLIM || glp_get_it_cnt(P) - first >= it_total)
			return ret;
		if (cpu_spent_ms() >= deadline_ms)
			return GLP_ETMLIM;
	}
}

/*
 * The starting basis: each job's start column (choose_start) basic in
 * place of its row, every capacity row's slack basic. A column has its
 * job row's entry and others only in capacity rows, so the basis matrix
 * is triangular with a nonzero diagonal: never singular. The start
 * columns keep the capacity rows within their bounds, so the basis is
 * feasible and the simplex starts in phase 2; from GLPK's standard basis
 * (every slack basic) phase 1 must first make the job rows' "= 1" hold,
 * a quarter to a third more iterations than from every job in the
 * catch-all slot. A job the previous round planned starts, where it fits,
 * where that plan put it: a round follows the last by one arrival or
 * completion, so most of the window starts near where the optimum puts
 * it (about a third less planning time over the evaluation's rounds,
 * docs/model.md). A job without a previous plan starts where the
 * round's heuristic plan put it (a third fewer iterations, the first
 * round of a batch the one that gains).
 */
static void
set_start_basis(glp_prob *P, const tlp_model *m)
{
	int			i;

	if (mx_typelp_test_slack_basis)
		return;
	for (i = 0; i < m->n; i++)
		if (m->start[i] > 0)
		{
			glp_set_row_stat(P, i + 1, GLP_NS);
			glp_set_col_stat(P, m->start[i], GLP_BS);
		}
}

/*
 * The problem in GLPK, from the model: the first solve's with the
 * starting basis; the rescue's scaled (GLPK's automatic scaling), from
 * GLPK's standard basis. Only GLPK calls: solve()'s protected region.
 */
static glp_prob *
load_problem(const tlp_model *m, int rescue)
{
	glp_prob   *P = glp_create_prob();
	int			i;

	glp_set_obj_dir(P, GLP_MIN);
	glp_add_rows(P, m->nrow);
	for (i = 1; i <= m->n; i++)
		if (m->cfoff[i] > m->cfoff[i - 1])
			glp_set_row_bnds(P, i, GLP_FX, 1.0, 1.0);
	for (i = m->n + 1; i <= m->nrow; i++)
		glp_set_row_bnds(P, i, GLP_UP, 0.0, m->capk[i - m->n - 1]);
	glp_add_cols(P, m->ncol);
	for (i = 1; i <= m->ncol; i++)
	{
		glp_set_col_bnds(P, i, GLP_LO, 0.0, 0.0);
		glp_set_obj_coef(P, i, m->obj[i]);
	}
	if (mx_typelp_test_force_error)
		glp_set_obj_coef(P, m->ncol + 7, 1.0);	/* invalid: GLPK calls the error hook */
	glp_load_matrix(P, m->nnz, m->ia, m->ja, m->ar);
	if (rescue)
		glp_scale_prob(P, GLP_SF_AUTO);
	else
		set_start_basis(P, m);
	return P;
}

/*
 * A solve that ended for a reason other than a limit without a solution:
 * GLPK's "basis matrix singular" or "ill-conditioned" (GLP_EFAIL), or a
 * status of no feasible or unbounded solution, none of which this LP has
 * (every job fits in the catch-all slot; costs are positive), though
 * GLPK's unscaled simplex reports them. A starting basis GLPK refuses
 * (GLP_EBADB, GLP_ESING, GLP_ECOND) cannot be built here (it is
 * triangular, set_start_basis) but would count too: the rescue starts
 * from GLPK's own.
 */
static int
failed(int ret, int st)
{
	if (ret == GLP_ETMLIM || ret == GLP_EITLIM)
		return 0;
	return ret != 0 || (st != GLP_OPT && st != GLP_FEAS);
}

/* Tests: the status of solve number nth (1, 2), as forced or as it is. */
static int
status_of(glp_prob *P, int nth)
{
	return mx_typelp_test_force_fail >= nth ? GLP_NOFEAS : glp_get_status(P);
}

/*
 * The first solve is unscaled, from the starting basis. Capacity rows
 * carry GPU-seconds (up to about 10^9 for jobs of weeks on many GPUs)
 * beside the job rows' 1, and on such a matrix GLPK's unscaled simplex
 * can fail (docs/model.md, "A failed solve"); and from the starting basis
 * a few small degenerate LPs stall past the iteration limit. Either way
 * once more, scaled and from GLPK's standard basis, on a new problem
 * object (GLPK 5.0 does not recover on the one that failed), with an
 * iteration limit of its own and the rest of the budget. *pp is the
 * problem to read; *its counts both solves' iterations; *rescued is set
 * when the second solve ran.
 */
static int
simplex_with_rescue(const tlp_model *m, glp_prob **pp, glp_smcp *sm, int it_total, int chunk,
					double deadline_ms, int *st, int *its, int *rescued)
{
	int			ret;

	/*
	 * GLPK 5.0's shifting of bounds to zero, on by default, made the
	 * primal simplex stall from the starting basis on small degenerate
	 * LPs (docs/model.md, "Starting basis").
	 */
	sm->shift = GLP_OFF;
	ret = simplex_chunks(*pp, sm,
						 mx_typelp_test_first_iterations > 0 ? mx_typelp_test_first_iterations : it_total,
						 chunk, deadline_ms);
	*st = status_of(*pp, 1);
	*its = 0;
	*rescued = 0;
	if (failed(ret, *st) || ret == GLP_EITLIM)
	{
		*its = glp_get_it_cnt(*pp);
		/* the first solve may have ended on its own, past the budget */
		if (cpu_spent_ms() >= deadline_ms)
			return GLP_ETMLIM;
		glp_delete_prob(*pp);
		*pp = load_problem(m, 1);
		*rescued = 1;
		/* the rescue as it was measured: GLPK's defaults but for scaling */
		sm->shift = GLP_ON;
		ret = simplex_chunks(*pp, sm, it_total, chunk, deadline_ms);
		*st = status_of(*pp, 2);
	}
	*its += glp_get_it_cnt(*pp);
	return ret;
}

/* glp_simplex's code and status as the round's outcome. */
static mx_typelp_result
outcome(int ret, int st)
{
	/* a solve the budget stopped depends on where it struck: not used */
	if (ret == GLP_ETMLIM)
		return MX_TYPELP_LIMIT;
	/*
	 * Nor one the iteration limit stopped: it may have a solution, but
	 * that of wherever it stopped (at first, the starting basis's), not
	 * the LP's.
	 */
	if (ret == GLP_EITLIM)
		return MX_TYPELP_ITERATIONS;
	if (st == GLP_OPT || st == GLP_FEAS)
		return MX_TYPELP_OK;
	return MX_TYPELP_NUMERIC;
}

/*
 * Solve the LP. Returns MX_TYPELP_OK with m->x filled, MX_TYPELP_LIMIT
 * (the CPU budget ran out), MX_TYPELP_ITERATIONS (the iteration limit
 * before the optimum), MX_TYPELP_NUMERIC (both solves failed) or
 * MX_TYPELP_ERROR (GLPK's error hook); the GLPK environment is freed in
 * every case. After setjmp() only GLPK calls, writes through m and locals
 * that the longjmp() path does not read.
 */
static mx_typelp_result
solve(tlp_model *m, double deadline_ms)
{
	jmp_buf		jb;
	glp_prob   *P = NULL;
	glp_smcp	sm;
	int			i,
				st,
				ret,
				its,
				it_total = mx_typelp_test_iterations > 0 ? mx_typelp_test_iterations : TLP_ITER_PER_ROW * m->nrow,
				chunk = mx_typelp_test_chunk > 0 ? mx_typelp_test_chunk
				: (int) fmax(TLP_MIN_CHUNK, TLP_CHUNK_WORK / (m->ncol > 0 ? m->ncol : 1));

	/* the model's build may have used what the planner's check left */
	test_charged_ms = 0;
	if (cpu_spent_ms() >= deadline_ms)
		return MX_TYPELP_LIMIT;
	mx_glpk_reset();
	if (setjmp(jb) != 0)
	{
		/* frees every problem object too */
		glp_free_env();
		return MX_TYPELP_ERROR;
	}
	mx_glpk_enter(&jb);
	P = load_problem(m, 0);
	if (mx_typelp_test_count_starts && glp_warm_up(P) == 0 && glp_get_prim_stat(P) != GLP_FEAS)
		mx_typelp_test_infeasible_starts++;
	glp_init_smcp(&sm);
	sm.msg_lev = GLP_MSG_OFF;
	sm.presolve = GLP_OFF;
	ret = simplex_with_rescue(m, &P, &sm, it_total, chunk, deadline_ms, &st, &its, &m->rescued);
	m->iterations = its;
	if (st == GLP_OPT || st == GLP_FEAS)
	{
		m->lp_obj = glp_get_obj_val(P);
		for (i = 1; i <= m->ncol; i++)
			m->x[i] = glp_get_col_prim(P, i);
	}
	glp_delete_prob(P);
	glp_free_env();
	return outcome(ret, st);
}

/*
 * Each job's configuration with the largest LP mass (ties: the previous
 * plan's, else the lower index). Returns how many ties the previous plan
 * decided against the lower index.
 */
static int
majority(const tlp_model *m, mx_config *choice, int n)
{
	double	   *mass = calloc((size_t) (m->cfoff[m->n] > 0 ? m->cfoff[m->n] : 1), sizeof(double));
	int			i,
				c,
				j,
				ties = 0;

	for (i = 0; i < n; i++)
		choice[i].type = -1;
	if (mass == NULL)
		return 0;
	for (j = 1; j <= m->ncol; j++)
		mass[m->col[j].cfg] += m->x[j];
	for (i = 0; i < m->n; i++)
	{
		int			bestc = -1;

		for (c = m->cfoff[i]; c < m->cfoff[i + 1]; c++)
			if (bestc < 0 || mass[c] > mass[bestc] + 1e-9)
				bestc = c;
		/*
		 * A tie (two configurations at 0.5, say) goes to the previous plan's:
		 * which of the tied ones an optimal vertex favours depends on the
		 * starting basis, and a plan should not change without an event.
		 */
		if (bestc >= 0 && m->prevc[i] >= 0 && m->prevc[i] != bestc && !m->hinted[i] &&
			mass[m->prevc[i]] >= mass[bestc] - TLP_TIE)
		{
			bestc = m->prevc[i];
			ties++;
		}
		if (bestc >= 0 && m->cfoff[i + 1] - m->cfoff[i] > 1)
			choice[i] = m->cf[bestc];
	}
	free(mass);
	return ties;
}

mx_typelp_result
mx_typelp_configs(const mx_snapshot *s, const mx_options *o, const mx_capacity *cap,
				  const int *window, int n, const mx_plan *hint, double deadline_ms,
				  mx_config *choice, mx_typelp_stats *st)
{
	tlp_model	m;
	mx_typelp_result r = MX_TYPELP_NOTHING;
	int			i,
				multi = 0;

	memset(&m, 0, sizeof(m));
	memset(st, 0, sizeof(*st));
	for (i = 0; i < n; i++)
		choice[i].type = -1;
	m.K = s->ntypes;
	m.S = TLP_SLOTS + 1;
	if (n <= 0 || m.K <= 0)
		return MX_TYPELP_NOTHING;
	if (load_configs(&m, s, o, window, n, hint) < 0)
	{
		tlp_free(&m);
		return MX_TYPELP_ERROR;
	}
	st->njobs = m.n;
	for (i = 0; i < m.n; i++)
		multi += m.cfoff[i + 1] - m.cfoff[i] > 1;
	if (multi == 0)
	{
		tlp_free(&m);
		return MX_TYPELP_NOTHING;
	}
	set_slots(&m, s, cap);
	if (set_capacity(&m, s, cap) < 0 || set_earliest(&m, s, cap) < 0 || build_matrix(&m) < 0)
		r = MX_TYPELP_ERROR;
	else
		r = solve(&m, deadline_ms);
	st->ncols = m.ncol;
	st->nrows = m.nrow;
	st->iterations = m.iterations;
	st->lp_obj = m.lp_obj;
	st->prev_starts = m.prev_kept;
	st->rescued = m.rescued;
	if (r == MX_TYPELP_OK)
		st->prev_ties = majority(&m, choice, n);
	tlp_free(&m);
	return r;
}
