/*
 * simtenancy.c — owners in the simulator (sim.h, docs/simulator.md): the
 * trace's owner column, --shares and --quotas files, the owners' usage
 * history for fair share, the waiting-jobs limit at arrival, and the
 * per-owner metrics with Jain's fairness index.
 *
 * The simulator has no group roles: a quota row binds the owner it names.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "csvload.h"
#include "sim.h"
#include "fairshare.h"
#include "tenancy.h"

/* Every loader here has err and errlen: the message, then -1. */
#define fail(err, errlen, ...) (snprintf((err), (errlen), __VA_ARGS__), -1)

static void
owner_init(mx_owner *w, const char *name)
{
	int			k;

	memset(w, 0, sizeof(*w));
	snprintf(w->name, MX_NAME_LEN, "%s", name);
	w->shares = 1.0;
	w->quota_all = -1;
	for (k = 0; k < MX_MAX_TYPES; k++)
		w->quota[k] = -1;
}

int
sim_owner_index(sim_world *w, const char *name)
{
	int			i;

	for (i = 0; i < w->nowners; i++)
		if (strcmp(w->owners[i].name, name) == 0)
			return i;
	if (strlen(name) >= MX_NAME_LEN)
		return -1;
	if (w->nowners % 16 == 0)
	{
		mx_owner   *no = realloc(w->owners, (size_t) (w->nowners + 16) * sizeof(mx_owner));
		int		   *nm = realloc(w->max_waiting, (size_t) (w->nowners + 16) * sizeof(int));

		if (no)
			w->owners = no;
		if (nm)
			w->max_waiting = nm;
		if (no == NULL || nm == NULL)
			return -1;
	}
	owner_init(&w->owners[w->nowners], name);
	w->max_waiting[w->nowners] = -1;
	return w->nowners++;
}

/*
 * An optional limit field: empty (NULL in \copy) = none, else an integer
 * 0 .. hi (mixdnn.quotas' CHECK), blanks around it ignored whatever their
 * length, as int4in ignores them. A quoted empty one ("") is '' in \copy,
 * which int4in refuses (22P02).
 */
static int
parse_limit(const char *v, int quoted, int hi, int *out)
{
	if (*v == '\0' && !quoted)
	{
		*out = -1;
		return 0;
	}
	return (csv_parse_int(v, out) < 0 || *out < 0 || *out > hi) ? -1 : 0;
}

/*
 * The keys a file has named so far: mixdnn.shares' role and mixdnn.quotas'
 * (role, gpu_type) are unique, so a second row for one is refused there
 * (23505), not read as a stricter or a later one.
 */
typedef struct tenancy_ctx
{
	sim_world  *w;
	int		   *keys;
	int			nkeys,
				cap;
} tenancy_ctx;

/* 1 if key was named before, 0 after noting it, -1 when out of memory. */
static int
key_seen(tenancy_ctx *tc, int key)
{
	for (int i = 0; i < tc->nkeys; i++)
		if (tc->keys[i] == key)
			return 1;
	if (csv_reserve((void **) &tc->keys, &tc->cap, tc->nkeys, sizeof(int), 16) < 0)
		return -1;
	tc->keys[tc->nkeys++] = key;
	return 0;
}

#define OFF(type, field) offsetof(type, field)
#define lengthof(a) ((int) (sizeof(a) / sizeof((a)[0])))

typedef struct shares_row
{
	char		role[CSV_NAME_LEN];
	int			shares;
} shares_row;

static const csv_column shares_columns[] = {
	{"role", 1, CSV_ROLE, OFF(shares_row, role), 1},	/* mixdnn.shares.role, of type name */
	{"shares", 1, CSV_INT, OFF(shares_row, shares), 1, 1000000},	/* mixdnn.shares.shares: int 1..1000000 */
};

static int
keep_shares(void *ctx, void *row, const csv_reader *r, char *err, size_t errlen)
{
	tenancy_ctx *tc = ctx;
	shares_row *sr = row;
	int			ow = sim_owner_index(tc->w, sr->role),
				seen = ow < 0 ? -1 : key_seen(tc, ow);

	if (seen < 0)
		return fail(err, errlen, "out of memory");
	if (seen)
		return fail(err, errlen, "%s:%d: role \"%s\" has shares on an earlier line (mixdnn.shares.role is its key)",
					r->path, r->line, sr->role);
	tc->w->owners[ow].shares = sr->shares;
	return 0;
}

int
sim_load_shares(sim_world *w, const char *path, char *err, size_t errlen)
{
	shares_row	row;
	tenancy_ctx tc = {w, NULL, 0, 0};
	int			rc = csv_load_copy(path, shares_columns, lengthof(shares_columns), &row, sizeof(row), keep_shares, &tc,
							  err, errlen);

	free(tc.keys);
	return rc;
}

/*
 * The limits and borrow are the fields themselves: an empty limit means no
 * limit, which a number column of csvload.h cannot tell from 0, and the
 * database ignores the blanks around them, however many (a fixed-size
 * copy refused "true" and 60 blanks).
 */
typedef struct quota_row
{
	char		role[CSV_NAME_LEN];
	char		gpu_type[CSV_NAME_LEN]; /* empty: all types */
	const char *max_gpus;
	const char *max_waiting_jobs;
	const char *borrow;
} quota_row;

static const csv_column quota_columns[] = {
	{"role", 1, CSV_ROLE, OFF(quota_row, role), 1},	/* mixdnn.quotas.role, of type name */
	{"gpu_type", 1, CSV_TEXT, OFF(quota_row, gpu_type)},
	{"max_gpus", 1, CSV_RAW, OFF(quota_row, max_gpus)},
	{"max_waiting_jobs", 1, CSV_RAW, OFF(quota_row, max_waiting_jobs)},
	{"borrow", 1, CSV_RAW, OFF(quota_row, borrow)},
};

/*
 * borrow as 1 or 0, as PostgreSQL's boolean reads it (parse_bool: blanks
 * around it ignored, any case, a prefix of true, false, yes, no, at least
 * two letters of on or off, 1 or 0); -1 for anything else, and for an
 * empty one: NULL in \copy, which mixdnn.quotas refuses (23502).
 */
static int
parse_borrow(const char *b)
{
	size_t		l;

	while (isspace((unsigned char) *b))
		b++;
	l = strlen(b);
	while (l > 0 && isspace((unsigned char) b[l - 1]))
		l--;
	if (l == 0)
		return -1;
	switch (tolower((unsigned char) b[0]))
	{
		case 't':
			return strncasecmp(b, "true", l) == 0 && l <= 4 ? 1 : -1;
		case 'f':
			return strncasecmp(b, "false", l) == 0 && l <= 5 ? 0 : -1;
		case 'y':
			return strncasecmp(b, "yes", l) == 0 && l <= 3 ? 1 : -1;
		case 'n':
			return strncasecmp(b, "no", l) == 0 && l <= 2 ? 0 : -1;
		case 'o':
			if (l == 2 && strncasecmp(b, "on", 2) == 0)
				return 1;
			if (l >= 2 && l <= 3 && strncasecmp(b, "off", l) == 0)
				return 0;
			return -1;
		case '1':
			return l == 1 ? 1 : -1;
		case '0':
			return l == 1 ? 0 : -1;
	}
	return -1;
}

/* max_gpus of owner o on type t (-1: all types); the strictest row binds. */
static void
bind_quota(mx_owner *o, int t, int max, int borrow)
{
	if (t < 0)
	{
		o->borrow_all = (o->quota_all < 0 || max < o->quota_all) ? borrow : (o->borrow_all && borrow);
		if (o->quota_all < 0 || max < o->quota_all)
			o->quota_all = max;
		return;
	}
	if (o->quota[t] < 0 || max < o->quota[t] || !borrow)
		o->borrow = borrow ? (o->borrow | ((uint64_t) 1 << t)) : (o->borrow & ~((uint64_t) 1 << t));
	if (o->quota[t] < 0 || max < o->quota[t])
		o->quota[t] = max;
}

/* One row of --quotas. */
static int
keep_quota(void *ctx, void *row, const csv_reader *r, char *err, size_t errlen)
{
	tenancy_ctx *tc = ctx;
	sim_world  *w = tc->w;
	quota_row  *qr = row;
	int			ow = sim_owner_index(w, qr->role);
	int			t = qr->gpu_type[0] ? mx_type_index(&w->cluster, qr->gpu_type) : -1;
	int			borrow = parse_borrow(qr->borrow);
	int			max,
				wait,
				seen;

	if (ow < 0)
		return fail(err, errlen, "out of memory");
	/* a quoted empty one ("") is '' in \copy, no registered type (23503), not NULL */
	if ((qr->gpu_type[0] && t < 0) || (!qr->gpu_type[0] && csv_quoted(r, csv_col(r, "gpu_type"))))
		return fail(err, errlen, "%s:%d: gpu_type \"%s\" is not in the types file (empty = all types%s)",
					r->path, r->line, qr->gpu_type,
					qr->gpu_type[0] ? "" : "; a quoted empty field is an empty string in \\copy, not NULL");
	if (parse_limit(qr->max_gpus, csv_quoted(r, csv_col(r, "max_gpus")), 1000000, &max) < 0 ||
		parse_limit(qr->max_waiting_jobs, csv_quoted(r, csv_col(r, "max_waiting_jobs")), 10000000, &wait) < 0)
		return fail(err, errlen, "%s:%d: %s%s", r->path, r->line,
					"max_gpus must be an integer 0..1000000 and max_waiting_jobs 0..10000000, or empty (no limit)",
					(!qr->max_gpus[0] && csv_quoted(r, csv_col(r, "max_gpus"))) ||
					(!qr->max_waiting_jobs[0] && csv_quoted(r, csv_col(r, "max_waiting_jobs"))) ?
					"; a quoted empty field is an empty string in \\copy, which int refuses, not NULL" : "");
	if (borrow < 0)
		return fail(err, errlen, "%s:%d: borrow \"%s\" must be true or false%s", r->path, r->line, qr->borrow,
					qr->borrow[0] ? "" : csv_quoted(r, csv_col(r, "borrow")) ?
					" (a quoted empty field is an empty string in \\copy, which boolean refuses)" :
					" (empty is NULL in \\copy, which mixdnn.quotas.borrow refuses)");
	if ((seen = key_seen(tc, ow * (MX_MAX_TYPES + 1) + t + 1)) < 0)
		return fail(err, errlen, "out of memory");
	if (seen)
		return fail(err, errlen, "%s:%d: role \"%s\" has a quota for %s%s on an earlier line ((role, gpu_type) is "
					"mixdnn.quotas' key)", r->path, r->line, qr->role, t < 0 ? "all GPU types" : "gpu_type ",
					t < 0 ? "" : qr->gpu_type);
	if (wait >= 0 && (w->max_waiting[ow] < 0 || wait < w->max_waiting[ow]))
		w->max_waiting[ow] = wait;
	if (max >= 0)
		bind_quota(&w->owners[ow], t, max, borrow);
	return 0;
}

int
sim_load_quotas(sim_world *w, const char *path, char *err, size_t errlen)
{
	quota_row	row;
	tenancy_ctx tc = {w, NULL, 0, 0};
	int			rc = csv_load_copy(path, quota_columns, lengthof(quota_columns), &row, sizeof(row), keep_quota, &tc,
							  err, errlen);

	free(tc.keys);
	return rc;
}

int
sim_tenancy_admit(const sim_world *w, const int *waiting_of, int ji)
{
	int			ow = w->jobs[ji].job.owner;

	if (w->nowners == 0 || ow < 0 || ow >= w->nowners || w->max_waiting[ow] < 0)
		return 1;
	return waiting_of[ow] < w->max_waiting[ow];
}

void
sim_tenancy_usage(const sim_world *w, const sim_options *o, double now, mx_owner *out)
{
	int			i;

	memcpy(out, w->owners, (size_t) w->nowners * sizeof(mx_owner));
	if (!o->planner.fair_share)
		return;
	for (i = 0; i < w->njobs; i++)
	{
		const sim_job *j = &w->jobs[i];
		int			ow = j->job.owner;

		if ((j->state != SJ_RUNNING && j->state != SJ_DONE) || ow < 0 || ow >= w->nowners || j->type < 0)
			continue;
		out[ow].usage_s += mx_decayed_usage(j->gpus * w->cluster.types[j->type].speed,
											o->epoch + j->start, o->epoch + j->finish,
											o->epoch + now, o->planner.fair_share_half_life_s);
	}
}

/*
 * Each owner's finish-time fairness rho (Themis): the sum of its jobs' JCTs
 * over their sum had it had its entitlement e of the cluster's G GPUs to
 * itself, served in submission order as a fluid (a job takes at least its
 * true duration, duration_s, not the estimate it was planned with): finish_i = max(submit_i, finish_i-1) + max(duration_i,
 * gpus_i x duration_i / (e G)). rho = 1: as if alone on its share.
 */
static void
finish_time_fairness(const sim_world *w, const sim_result *r, double *rho)
{
	double	   *last = calloc((size_t) (w->nowners > 0 ? w->nowners : 1), sizeof(double));
	double	   *ideal = calloc((size_t) (w->nowners > 0 ? w->nowners : 1), sizeof(double));
	double	   *real = calloc((size_t) (w->nowners > 0 ? w->nowners : 1), sizeof(double));
	int			i;

	for (i = 0; i < w->nowners; i++)
		rho[i] = NAN;
	if (last == NULL || ideal == NULL || real == NULL || r->cluster_gpus <= 0)
		goto out;
	for (i = 0; i < w->njobs; i++)
	{
		const sim_job *j = &w->jobs[i];
		int			ow = j->job.owner;
		double		rate,
					fin;

		if (j->state != SJ_DONE || ow < 0 || ow >= w->nowners || !(r->owners[ow].entitlement > 0))
			continue;
		rate = r->owners[ow].entitlement * r->cluster_gpus;
		fin = (j->submit > last[ow] ? j->submit : last[ow]) +
			fmax(j->true_duration, j->job.ref_gpus * j->true_duration / rate);
		last[ow] = fin;
		ideal[ow] += fin - j->submit;
		real[ow] += j->finish - j->submit;
	}
	for (i = 0; i < w->nowners; i++)
		if (ideal[i] > 0)
			rho[i] = real[i] / ideal[i];
out:
	free(last);
	free(ideal);
	free(real);
}

/*
 * Per owner: GPU-seconds used, entitlement (shares over all owners'
 * shares) and average slowdown (JCT over the job's true duration on its
 * requested configuration, duration_s: the estimate is what it was planned
 * with, not what it needed); fairness_jain is Jain's index over the
 * owners' finish-time fairness (finish_time_fairness()).
 */
int
sim_tenancy_metrics(const sim_world *w, sim_result *r)
{
	double		total_s = 0,
				sx = 0,
				sxx = 0;
	double	   *rho;
	int		   *n;
	int			i,
				m = 0;

	r->nowners = w->nowners;
	r->fairness_jain = NAN;
	if (w->nowners <= 0)
		return 0;
	r->owners = calloc((size_t) w->nowners, sizeof(sim_owner_result));
	n = calloc((size_t) w->nowners, sizeof(int));
	rho = calloc((size_t) w->nowners, sizeof(double));
	if (r->owners == NULL || n == NULL || rho == NULL)
	{
		free(n);
		free(rho);
		return -1;
	}
	for (i = 0; i < w->nowners; i++)
		total_s += w->owners[i].shares;
	for (i = 0; i < w->njobs; i++)
	{
		const sim_job *j = &w->jobs[i];
		int			ow = j->job.owner;

		if (j->state != SJ_DONE || ow < 0 || ow >= w->nowners)
			continue;
		r->owners[ow].gpu_seconds += (double) j->gpus * (j->finish - j->start);
		r->owners[ow].avg_slowdown += (j->finish - j->submit) / j->true_duration;
		n[ow]++;
	}
	for (i = 0; i < w->nowners; i++)
	{
		sim_owner_result *x = &r->owners[i];

		x->owner = w->owners[i].name;
		x->entitlement = total_s > 0 ? w->owners[i].shares / total_s : 0;
		x->avg_slowdown = n[i] > 0 ? x->avg_slowdown / n[i] : NAN;
	}
	finish_time_fairness(w, r, rho);
	for (i = 0; i < w->nowners; i++)
	{
		r->owners[i].finish_time_fairness = rho[i];
		if (isfinite(rho[i]))
		{
			sx += rho[i];
			sxx += rho[i] * rho[i];
			m++;
		}
	}
	if (m > 0 && sxx > 0)
		r->fairness_jain = sx * sx / (m * sxx);
	free(n);
	free(rho);
	return 0;
}

void
sim_result_free(sim_result *r)
{
	free(r->owners);
	r->owners = NULL;
	r->nowners = 0;
}
