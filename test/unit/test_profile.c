/* test_profile.c — a sorted profile answers as the same points read one by one (profile.c). */
#include <string.h>
#include <time.h>

#include "unit.h"
#include "fixtures.h"
#include "profile.h"

/* Random points: 1..3 types, GPU counts clustered so that ties and duplicates occur. */
static void
random_points(mx_profile_point *pt, int n)
{
	static const double odd[] = {0.0, -1.0, NAN, INFINITY};

	for (int i = 0; i < n; i++)
	{
		pt[i].type = fx_int(0, 2);
		pt[i].gpus = fx_int(0, 9) == 0 ? fx_int(-2, 0) : (fx_int(0, 1) ? 1 << fx_int(0, 6) : fx_int(1, 70));
		pt[i].thr = fx_int(0, 9) == 0 ? odd[fx_int(0, 3)] : 1 + 100 * fx_unif();
	}
}

static int
same(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

static void
check_against_scan(void)
{
	mx_profile_point a[80], b[80];
	mx_profile	scan, sorted;
	int			bad = 0, asked = 0;

	for (int t = 0; t < 3000 && !bad; t++)
	{
		int			n;

		fx_seed((uint64_t) t + 7);
		n = fx_int(0, 80);
		random_points(a, n);
		memcpy(b, a, sizeof(a));
		memset(&scan, 0, sizeof(scan));
		scan.points = a;
		scan.npoints = n;
		sorted = scan;
		sorted.points = b;
		if (mx_profile_sort(&sorted) != 0 || !sorted.sorted)
		{
			bad = 1;
			break;
		}
		for (int type = -1; type <= 3 && !bad; type++)
		{
			bad |= mx_profile_has_positive(&scan, type) != mx_profile_has_positive(&sorted, type);
			for (int g = 1; g <= 140 && !bad; g++, asked++)
				if (!same(mx_profile_thr(&scan, type, g, 0.8), mx_profile_thr(&sorted, type, g, 0.8)))
				{
					printf("# case %d: type %d, %d GPUs: scan %g, sorted %g\n", t, type, g,
						   mx_profile_thr(&scan, type, g, 0.8), mx_profile_thr(&sorted, type, g, 0.8));
					bad = 1;
				}
		}
	}
	CHECK(!bad && asked > 1000000, "3000 random profiles: sorted and scanned answers equal (%d lookups)", asked);
}

/* 3 types x 4096 counts: every count of every type looked up, fast. */
static void
check_large(void)
{
	int			n = 3 * 4096;
	mx_profile_point *pt = malloc((size_t) n * sizeof(mx_profile_point));
	mx_profile	p;
	clock_t		t0;
	double		sum = 0,
				ms;
	int			ok = pt != NULL;

	for (int i = 0; ok && i < n; i++)
	{
		pt[i].type = i % 3;
		pt[i].gpus = 4096 - i / 3;	/* descending: the sort has work to do */
		pt[i].thr = 10.0 * pt[i].gpus;
	}
	memset(&p, 0, sizeof(p));
	p.points = pt;
	p.npoints = ok ? n : 0;
	ok = ok && mx_profile_sort(&p) == 0;
	t0 = clock();
	for (int r = 0; ok && r < 20; r++)
		for (int type = 0; type < 3; type++)
			for (int g = 1; g <= 4096; g++)
				sum += mx_profile_thr(&p, type, g, 1.0);
	ms = 1000.0 * (double) (clock() - t0) / CLOCKS_PER_SEC;
	CHECK(ok && fabs(sum - 20 * 3 * 10.0 * 4096 * 4097 / 2) < 1e-3 * sum,
		  "a profile of 12 288 points: 245 760 exact lookups, right (%.0f ms)", ms);
	/* 245 760 scans of 12 288 points would take seconds; this bound only catches the scan */
	CHECK(ms < 2000, "and in well under a scan's time (%.0f ms; bound 2000 ms)", ms);
	free(pt);
}

int
main(void)
{
	check_against_scan();
	check_large();
	return unit_done("test_profile");
}
