/*
 * bound.c — the whole-instance energy LP bound (bound.h).
 *
 * Formulated with cumulative energy variables so that every job column
 * has two nonzeros: y[k,b] = GPU-seconds of type k used by jobs finishing
 * by t_b, y[k,b] = y[k,b-1] + sum_{columns of (k,b)} g p x, 0 <= y[k,b] <= A_k(t_b).
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <glpk.h>

#include "bound.h"
#include "capacity.h"
#include "value.h"
#include "stopwatch.h"
#include "utility.h"

static int
quiet_term(void *info, const char *s)
{
	(void) info;
	(void) s;
	return 1;
}

/* integral of free GPUs of type k over [now, t] */
static double
area(const mx_capacity *c, int k, double now, double t)
{
	double		a = 0;
	int			i,
				n = c->nsteps[k];

	for (i = 0; i < n; i++)
	{
		double		lo = c->steps[k][i].t,
					hi = i + 1 < n ? c->steps[k][i + 1].t : INFINITY;

		if (lo < now)
			lo = now;
		if (hi > t)
			hi = t;
		if (hi > lo)
			a += (hi - lo) * c->steps[k][i].free;
	}
	return a;
}

typedef struct bcol
{
	int			job;			/* row 1-based */
	int			k;
	int			b;				/* bucket 1 .. B */
	double		e;				/* coefficient: w * (max(t_{b-1}, e_c) - now) */
	double		energy;			/* g * p */
} bcol;

/* The LP's inputs and columns while it is built. */
typedef struct energy_lp
{
	const mx_snapshot *s;
	const mx_options *o;
	mx_capacity cap;
	int			K;				/* GPU types */
	/* per job: its configurations allcf[cfoff[i] .. + ncf[i]) and weight */
	int		   *ncf,
			   *cfoff;
	double	   *jw;
	mx_config  *allcf;
	double	   *ecache;			/* each configuration's earliest end beside the running jobs */
	int			nall;
	double		dmin;			/* the shortest earliest end from now */
	double	   *tb;				/* boundaries, tb[0] = now .. tb[B-1] = horizon_end */
	int			B;
	bcol	   *cols;
	int			ncol,
				colcap;
	int			njobs;			/* jobs with a configuration (rows) */
} energy_lp;

static void
lp_free(energy_lp *lp)
{
	free(lp->tb);
	free(lp->cols);
	free(lp->jw);
	free(lp->ecache);
	free(lp->ncf);
	free(lp->cfoff);
	free(lp->allcf);
}

/* Every job's configurations and their earliest possible ends beside the running jobs. */
static int
lp_configs(energy_lp *lp)
{
	const mx_snapshot *s = lp->s;
	int			i,
				c,
				tot = 0;

	lp->ncf = calloc((size_t) s->njobs + 1, sizeof(int));
	lp->cfoff = calloc((size_t) s->njobs + 1, sizeof(int));
	lp->jw = calloc((size_t) s->njobs + 1, sizeof(double));
	if (!lp->ncf || !lp->cfoff || !lp->jw)
		return -1;
	for (i = 0; i < s->njobs; i++)
		tot += mx_job_configs_max(s, &s->jobs[i]);
	lp->allcf = malloc((size_t) (tot > 0 ? tot : 1) * sizeof(mx_config));
	lp->ecache = malloc((size_t) (tot > 0 ? tot : 1) * sizeof(double));
	if (!lp->allcf || !lp->ecache)
		return -1;
	for (i = 0; i < s->njobs; i++)
	{
		const mx_job *j = &s->jobs[i];
		int			mx = mx_job_configs_max(s, j),
					n = 0;

		lp->cfoff[i] = lp->nall;
		if (mx > 0)
			n = mx_job_configs(s, j, lp->o->scaling_alpha, lp->allcf + lp->nall, mx);
		for (c = 0; c < n; c++)
		{
			mx_config  *f = &lp->allcf[lp->nall + c];
			double		st = mx_capacity_earliest(&lp->cap, f->type, f->gpus, f->runtime, s->now);
			double	   *e = &lp->ecache[lp->nall + c];

			*e = isfinite(st) ? st + f->runtime : INFINITY;
			if (isfinite(st) && *e - s->now < lp->dmin)
				lp->dmin = *e - s->now;
		}
		lp->ncf[i] = n;
		lp->nall += n;
		lp->jw[i] = mx_job_weight(s, j, lp->o);
	}
	return 0;
}

/* Bucket boundaries growing geometrically by ratio from dmin to horizon_end. */
static int
lp_boundaries(energy_lp *lp, double ratio, double horizon_end)
{
	double		now = lp->s->now,
				d = lp->dmin;
	int			mb = 2 + (int) ceil(log((horizon_end - now) / lp->dmin) / log(ratio));

	lp->tb = malloc((size_t) (mb + 2) * sizeof(double));
	if (!lp->tb)
		return -1;
	lp->tb[0] = now;
	lp->B = 1;
	while (now + d < horizon_end && lp->B < mb)
	{
		lp->tb[lp->B++] = now + d;
		d *= ratio;
	}
	lp->tb[lp->B++] = horizon_end;
	/* buckets 1 .. B-1 are bounded, bucket B is (tb[B-1], inf) */
	return 0;
}

static int
lp_add_column(energy_lp *lp, int k, int bb, double e, double energy)
{
	if (lp->ncol >= lp->colcap)
	{
		int			nc = lp->colcap ? lp->colcap * 2 : 1024;
		bcol	   *n2 = realloc(lp->cols, (size_t) nc * sizeof(bcol));

		if (!n2)
			return -1;
		lp->cols = n2;
		lp->colcap = nc;
	}
	lp->cols[lp->ncol].job = lp->njobs;
	lp->cols[lp->ncol].k = k;
	lp->cols[lp->ncol].b = bb;
	lp->cols[lp->ncol].e = e;
	lp->cols[lp->ncol].energy = energy;
	lp->ncol++;
	return 0;
}

/* One column per (job, configuration, bucket its end can fall in). */
static int
lp_columns(energy_lp *lp, bench_bound *b)
{
	const mx_snapshot *s = lp->s;
	int			i,
				c,
				bb;

	for (i = 0; i < s->njobs; i++)
	{
		if (lp->ncf[i] == 0)
			continue;
		lp->njobs++;
		for (c = 0; c < lp->ncf[i]; c++)
		{
			const mx_config *f = &lp->allcf[lp->cfoff[i] + c];
			double		e = lp->ecache[lp->cfoff[i] + c];

			if (!isfinite(e))
				continue;
			for (bb = 1; bb <= lp->B; bb++)
			{
				double		lo = lp->tb[bb - 1],
							hi = bb < lp->B ? lp->tb[bb] : INFINITY;

				if (hi < e)
					continue;
				if (lp_add_column(lp, f->type, bb, lp->jw[i] * ((lo > e ? lo : e) - s->now),
								  (double) f->gpus * f->runtime) < 0)
					return -1;
			}
		}
		b->sum_w += lp->jw[i];
	}
	b->jobs = lp->njobs;
	b->buckets = lp->B;
	return 0;
}

/*
 * The matrix into P: rows = jobs, then (k, b) balance rows for b = 1 .. B-1;
 * the job columns, then y[k,b]. Returns the number of nonzeros, -1 when out
 * of memory.
 */
static int
lp_load(energy_lp *lp, glp_prob *P)
{
	int			B = lp->B,
				nycol = lp->K * (B - 1),
				nnz = 0,
				i,
				k,
				bb;
	size_t		cap = (size_t) 2 * lp->ncol + 2 * (size_t) nycol + 1;
	int		   *ia = malloc(cap * sizeof(int));
	int		   *ja = malloc(cap * sizeof(int));
	double	   *ar = malloc(cap * sizeof(double));

	if (!ia || !ja || !ar)
	{
		free(ia);
		free(ja);
		free(ar);
		return -1;
	}
	for (i = 0; i < lp->ncol; i++)
	{
		glp_set_col_bnds(P, i + 1, GLP_LO, 0.0, 0.0);
		glp_set_obj_coef(P, i + 1, lp->cols[i].e);
		nnz++;
		ia[nnz] = lp->cols[i].job;
		ja[nnz] = i + 1;
		ar[nnz] = 1.0;
		if (lp->cols[i].b < B)
		{
			/* scaled to hours so the matrix stays well conditioned */
			nnz++;
			ia[nnz] = lp->njobs + lp->cols[i].k * (B - 1) + lp->cols[i].b;
			ja[nnz] = i + 1;
			ar[nnz] = lp->cols[i].energy / 3600.0;
		}
	}
	/* y[k,b]: -y in row (k,b), +y in row (k,b+1) */
	for (k = 0; k < lp->K; k++)
		for (bb = 1; bb < B; bb++)
		{
			int			col = lp->ncol + k * (B - 1) + bb;
			double		a = area(&lp->cap, k, lp->s->now, lp->tb[bb]) / 3600.0;

			glp_set_col_bnds(P, col, a > 0 ? GLP_DB : GLP_FX, 0.0, a > 0 ? a : 0.0);
			nnz++;
			ia[nnz] = lp->njobs + k * (B - 1) + bb;
			ja[nnz] = col;
			ar[nnz] = -1.0;
			if (bb + 1 < B)
			{
				nnz++;
				ia[nnz] = lp->njobs + k * (B - 1) + bb + 1;
				ja[nnz] = col;
				ar[nnz] = 1.0;
			}
		}
	glp_load_matrix(P, nnz, ia, ja, ar);
	free(ia);
	free(ja);
	free(ar);
	return nnz;
}

/* Builds and solves the LP; b gets its size, status and bound. 0, or -1 when out of memory. */
static int
lp_solve(energy_lp *lp, double time_limit_s, bench_bound *b)
{
	int			nycol = lp->K * (lp->B - 1),
				nrow = lp->njobs + nycol,
				i,
				ret;
	glp_prob   *P;
	glp_smcp	sm;

	glp_term_hook(quiet_term, NULL);
	glp_term_out(GLP_OFF);
	P = glp_create_prob();
	glp_set_obj_dir(P, GLP_MIN);
	glp_add_rows(P, nrow);
	for (i = 1; i <= lp->njobs; i++)
		glp_set_row_bnds(P, i, GLP_FX, 1.0, 1.0);
	for (i = lp->njobs + 1; i <= nrow; i++)
		glp_set_row_bnds(P, i, GLP_FX, 0.0, 0.0);
	glp_add_cols(P, lp->ncol + nycol);
	if (lp_load(lp, P) < 0)
	{
		glp_delete_prob(P);
		return -1;
	}
	b->cols = lp->ncol + nycol;
	b->rows = nrow;

	glp_init_smcp(&sm);
	sm.msg_lev = GLP_MSG_OFF;
	sm.presolve = GLP_ON;
	sm.tm_lim = time_limit_s > 0 ? (int) (time_limit_s * 1000) : INT_MAX;
	ret = glp_simplex(P, &sm);
	if (ret == 0 && glp_get_status(P) == GLP_OPT)
	{
		b->ok = 1;
		b->lb_wct = glp_get_obj_val(P);
		snprintf(b->status, sizeof(b->status), "optimal");
	}
	else if (ret == GLP_ETMLIM)
		snprintf(b->status, sizeof(b->status), "time limit");
	else
		snprintf(b->status, sizeof(b->status), "glpk ret %d status %d", ret, glp_get_status(P));
	glp_delete_prob(P);
	glp_free_env();
	return 0;
}

int
bench_energy_bound(const mx_snapshot *s, const mx_options *o, double ratio,
				   double horizon_end, double time_limit_s, bench_bound *b)
{
	double		t0 = mx_wall_ms();
	energy_lp	lp;
	int			rc = -1;

	memset(b, 0, sizeof(*b));
	snprintf(b->status, sizeof(b->status), "not solved");
	if (!(ratio > 1.0))
		ratio = 1.1;
	memset(&lp, 0, sizeof(lp));
	lp.s = s;
	lp.o = o;
	lp.K = s->ntypes;
	lp.dmin = INFINITY;
	if (mx_capacity_init(&lp.cap, s, o->overrun_s, mx_overrun_factor(o)) < 0)
		return -1;

	if (lp_configs(&lp) < 0)
		goto done;
	if (!isfinite(lp.dmin))
	{
		b->ok = 1;
		snprintf(b->status, sizeof(b->status), "no plannable job");
		rc = 0;
		goto done;
	}
	if (lp.dmin < 1.0)
		lp.dmin = 1.0;
	if (!(horizon_end > s->now + lp.dmin))
		horizon_end = s->now + lp.dmin * ratio;
	if (lp_boundaries(&lp, ratio, horizon_end) < 0 || lp_columns(&lp, b) < 0)
		goto done;
	rc = lp_solve(&lp, time_limit_s, b);

done:
	lp_free(&lp);
	mx_capacity_free(&lp.cap);
	b->ms = mx_wall_ms() - t0;
	return rc;
}
