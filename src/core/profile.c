/*
 * profile.c — a profile's points, read in order (profile.h).
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include "profile.h"
#include "tolerance.h"

typedef struct indexed_point
{
	mx_profile_point pt;
	int			at;				/* its place before the sort: equal points keep their order */
} indexed_point;

static int
cmp_point(const void *a, const void *b)
{
	const indexed_point *x = a,
			   *y = b;

	if (x->pt.type != y->pt.type)
		return x->pt.type < y->pt.type ? -1 : 1;
	if (x->pt.gpus != y->pt.gpus)
		return x->pt.gpus < y->pt.gpus ? -1 : 1;
	return (x->at > y->at) - (x->at < y->at);
}

int
mx_profile_sort(mx_profile *p)
{
	indexed_point *tmp;

	if (p->npoints <= 0 || p->points == NULL)
	{
		p->sorted = 1;
		return 0;
	}
	tmp = malloc((size_t) p->npoints * sizeof(indexed_point));
	if (tmp == NULL)
		return -1;
	for (int i = 0; i < p->npoints; i++)
	{
		tmp[i].pt = p->points[i];
		tmp[i].at = i;
	}
	qsort(tmp, (size_t) p->npoints, sizeof(indexed_point), cmp_point);
	for (int i = 0; i < p->npoints; i++)
		p->points[i] = tmp[i].pt;
	free(tmp);
	p->sorted = 1;
	return 0;
}

/* The first point of a sorted profile at or after (type, gpus). */
static int
lower_bound(const mx_profile *p, int lo, int hi, int type, int gpus)
{
	while (lo < hi)
	{
		int			mid = lo + (hi - lo) / 2;
		const mx_profile_point *m = &p->points[mid];

		if (m->type < type || (m->type == type && m->gpus < gpus))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static double
scaled(const mx_profile_point *pt, int n, double alpha)
{
	if (!(pt->thr > 0) || !isfinite(pt->thr))
		return 0.0;
	return pt->thr * pow((double) n / pt->gpus, alpha);
}

/* Point by point: any order. */
static double
thr_scan(const mx_profile *p, int type, int n, double alpha)
{
	int			best = -1;
	double		bestd = INFINITY;

	for (int i = 0; i < p->npoints; i++)
	{
		const mx_profile_point *pt = &p->points[i];
		double		d;

		if (pt->type != type || pt->gpus <= 0)
			continue;
		if (pt->gpus == n)
			return pt->thr > 0 && isfinite(pt->thr) ? pt->thr : 0.0;
		d = fabs(log((double) n / pt->gpus));
		if (d < bestd - MX_TINY ||
			(fabs(d - bestd) <= MX_TINY && pt->gpus < p->points[best].gpus))
		{
			bestd = d;
			best = i;
		}
	}
	return best < 0 ? -1.0 : scaled(&p->points[best], n, alpha);
}

/*
 * Sorted: the measured counts next to n are the only candidates (any
 * other is farther by at least log(4096/4095), far beyond MX_TINY); of
 * equal counts the first, as the scan takes it.
 */
static double
thr_sorted(const mx_profile *p, int type, int n, double alpha)
{
	int			lo = lower_bound(p, 0, p->npoints, type, 1),
				hi = lower_bound(p, lo, p->npoints, type + 1, INT_MIN),
				k = lower_bound(p, lo, hi, type, n),
				below;

	if (lo >= hi)
		return -1.0;
	if (k < hi && p->points[k].gpus == n)
		return p->points[k].thr > 0 && isfinite(p->points[k].thr) ? p->points[k].thr : 0.0;
	if (k == lo)
		return scaled(&p->points[k], n, alpha);
	below = lower_bound(p, lo, k, type, p->points[k - 1].gpus);
	if (k < hi &&
		log((double) p->points[k].gpus / n) < log((double) n / p->points[below].gpus) - MX_TINY)
		return scaled(&p->points[k], n, alpha);
	return scaled(&p->points[below], n, alpha);
}

double
mx_profile_thr(const mx_profile *p, int type, int n, double alpha)
{
	return p->sorted ? thr_sorted(p, type, n, alpha) : thr_scan(p, type, n, alpha);
}

int
mx_profile_has_positive(const mx_profile *p, int type)
{
	int			i = p->sorted ? lower_bound(p, 0, p->npoints, type, INT_MIN) : 0;

	for (; i < p->npoints; i++)
	{
		if (p->sorted && p->points[i].type != type)
			break;
		if (p->points[i].type == type && p->points[i].thr > 0)
			return 1;
	}
	return 0;
}
