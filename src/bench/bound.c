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
#include "heuristic.h"
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

int
bench_energy_bound(const mx_snapshot *s, const mx_options *o, double ratio,
				   double horizon_end, double time_limit_s, bench_bound *b)
{
	double		t0 = mx_wall_ms();
	mx_capacity cap;
	double	   *tb = NULL;		/* boundaries, tb[0] = now .. tb[B-1] = horizon_end */
	int			B = 0,
				K = s->ntypes,
				i,
				c,
				k,
				bb;
	double		dmin = INFINITY;
	bcol	   *cols = NULL;
	int			ncol = 0,
				colcap = 0,
				njobs = 0;
	double	   *jw = NULL;
	double	   *ecache = NULL;
	int		   *ncf = NULL,
			   *cfoff = NULL;
	mx_config  *allcf = NULL;
	int			nall = 0;
	int			rc = -1;

	memset(b, 0, sizeof(*b));
	snprintf(b->status, sizeof(b->status), "not solved");
	if (!(ratio > 1.0))
		ratio = 1.1;
	if (mx_capacity_init(&cap, s, o->overrun_s) < 0)
		return -1;

	/* configurations and their earliest possible ends beside the running jobs */
	ncf = calloc((size_t) s->njobs + 1, sizeof(int));
	cfoff = calloc((size_t) s->njobs + 1, sizeof(int));
	jw = calloc((size_t) s->njobs + 1, sizeof(double));
	if (!ncf || !cfoff || !jw)
		goto done;
	{
		int			tot = 0;

		for (i = 0; i < s->njobs; i++)
			tot += mx_job_configs_max(s, &s->jobs[i]);
		allcf = malloc((size_t) (tot > 0 ? tot : 1) * sizeof(mx_config));
		ecache = malloc((size_t) (tot > 0 ? tot : 1) * sizeof(double));
		if (!allcf || !ecache)
			goto done;
	}
	for (i = 0; i < s->njobs; i++)
	{
		const mx_job *j = &s->jobs[i];
		int			mx = mx_job_configs_max(s, j),
					n = 0;

		cfoff[i] = nall;
		if (mx > 0)
			n = mx_job_configs(s, j, o->scaling_alpha, allcf + nall, mx);
		for (c = 0; c < n; c++)
		{
			mx_config  *f = &allcf[nall + c];
			double		st = mx_capacity_earliest(&cap, f->type, f->gpus, f->runtime, s->now);

			ecache[nall + c] = isfinite(st) ? st + f->runtime : INFINITY;
			if (isfinite(st) && ecache[nall + c] - s->now < dmin)
				dmin = ecache[nall + c] - s->now;
		}
		ncf[i] = n;
		nall += n;
		jw[i] = mx_job_weight(s, j, o);
	}
	if (!isfinite(dmin))
	{
		b->ok = 1;
		snprintf(b->status, sizeof(b->status), "no plannable job");
		rc = 0;
		goto done;
	}
	if (dmin < 1.0)
		dmin = 1.0;
	if (!(horizon_end > s->now + dmin))
		horizon_end = s->now + dmin * ratio;

	/* boundaries */
	{
		int			mb = 2 + (int) ceil(log((horizon_end - s->now) / dmin) / log(ratio));

		tb = malloc((size_t) (mb + 2) * sizeof(double));
		if (!tb)
			goto done;
		tb[0] = s->now;
		B = 1;
		{
			double		d = dmin;

			while (s->now + d < horizon_end && B < mb)
			{
				tb[B++] = s->now + d;
				d *= ratio;
			}
		}
		tb[B++] = horizon_end;
		/* buckets 1 .. B-1 are bounded, bucket B is (tb[B-1], inf) */
	}

	/* columns */
	for (i = 0; i < s->njobs; i++)
	{
		if (ncf[i] == 0)
			continue;
		njobs++;
		for (c = 0; c < ncf[i]; c++)
		{
			const mx_config *f = &allcf[cfoff[i] + c];
			double		e = ecache[cfoff[i] + c];

			if (!isfinite(e))
				continue;
			for (bb = 1; bb <= B; bb++)
			{
				double		lo = tb[bb - 1],
							hi = bb < B ? tb[bb] : INFINITY;

				if (hi < e)
					continue;
				if (ncol >= colcap)
				{
					int			nc = colcap ? colcap * 2 : 1024;
					bcol	   *n2 = realloc(cols, (size_t) nc * sizeof(bcol));

					if (!n2)
						goto done;
					cols = n2;
					colcap = nc;
				}
				cols[ncol].job = njobs;
				cols[ncol].k = f->type;
				cols[ncol].b = bb;
				cols[ncol].e = jw[i] * ((lo > e ? lo : e) - s->now);
				cols[ncol].energy = (double) f->gpus * f->runtime;
				ncol++;
			}
		}
		b->sum_w += jw[i];
	}
	b->jobs = njobs;
	b->buckets = B;

	/* GLPK: rows = jobs, then (k, b) balance rows for b = 1 .. B-1 */
	{
		int			nbal = K * (B - 1),
					nrow = njobs + nbal,
					nycol = K * (B - 1),
					ntot = ncol + nycol,
					nnz = 0,
					ret;
		int		   *ia = malloc(((size_t) 2 * ncol + 2 * (size_t) nycol + 1) * sizeof(int));
		int		   *ja = malloc(((size_t) 2 * ncol + 2 * (size_t) nycol + 1) * sizeof(int));
		double	   *ar = malloc(((size_t) 2 * ncol + 2 * (size_t) nycol + 1) * sizeof(double));
		glp_prob   *P;
		glp_smcp	sm;

		if (!ia || !ja || !ar)
		{
			free(ia);
			free(ja);
			free(ar);
			goto done;
		}
		glp_term_hook(quiet_term, NULL);
		glp_term_out(GLP_OFF);
		P = glp_create_prob();
		glp_set_obj_dir(P, GLP_MIN);
		glp_add_rows(P, nrow);
		for (i = 1; i <= njobs; i++)
			glp_set_row_bnds(P, i, GLP_FX, 1.0, 1.0);
		for (i = njobs + 1; i <= nrow; i++)
			glp_set_row_bnds(P, i, GLP_FX, 0.0, 0.0);
		glp_add_cols(P, ntot);
		for (i = 0; i < ncol; i++)
		{
			glp_set_col_bnds(P, i + 1, GLP_LO, 0.0, 0.0);
			glp_set_obj_coef(P, i + 1, cols[i].e);
			nnz++;
			ia[nnz] = cols[i].job;
			ja[nnz] = i + 1;
			ar[nnz] = 1.0;
			if (cols[i].b < B)
			{
				/* scaled to hours so the matrix stays well conditioned */
				nnz++;
				ia[nnz] = njobs + cols[i].k * (B - 1) + cols[i].b;
				ja[nnz] = i + 1;
				ar[nnz] = cols[i].energy / 3600.0;
			}
		}
		/* y[k,b]: -y in row (k,b), +y in row (k,b+1) */
		for (k = 0; k < K; k++)
			for (bb = 1; bb < B; bb++)
			{
				int			col = ncol + k * (B - 1) + bb;
				double		a = area(&cap, k, s->now, tb[bb]) / 3600.0;

				glp_set_col_bnds(P, col, a > 0 ? GLP_DB : GLP_FX, 0.0, a > 0 ? a : 0.0);
				nnz++;
				ia[nnz] = njobs + k * (B - 1) + bb;
				ja[nnz] = col;
				ar[nnz] = -1.0;
				if (bb + 1 < B)
				{
					nnz++;
					ia[nnz] = njobs + k * (B - 1) + bb + 1;
					ja[nnz] = col;
					ar[nnz] = 1.0;
				}
			}
		glp_load_matrix(P, nnz, ia, ja, ar);
		free(ia);
		free(ja);
		free(ar);
		b->cols = ntot;
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
	}
	rc = 0;

done:
	free(tb);
	free(cols);
	free(jw);
	free(ecache);
	free(ncf);
	free(cfoff);
	free(allcf);
	mx_capacity_free(&cap);
	b->ms = mx_wall_ms() - t0;
	return rc;
}
