/*
 * simload.c — loading TYPES.csv, NODES.csv, PROFILES.csv and TRACE.csv into
 * a sim_world (sim.h), each file by a description of its columns
 * (csvload.h) and a function that checks and keeps one row. Every malformed
 * value is an error naming file, line and column; the caller exits with
 * status 2.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "csvload.h"
#include "profile.h"
#include "sim.h"

static int	fail(char *err, size_t errlen, const char *fmt,...) __attribute__((format(printf, 3, 4)));

static int
fail(char *err, size_t errlen, const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

#define OFF(type, field) offsetof(type, field)
#define lengthof(a) ((int) (sizeof(a) / sizeof((a)[0])))

/* "FILE:LINE: " and the rest, for a row's own checks. */
static int	row_fail(const csv_reader *r, char *err, size_t errlen, const char *fmt,...)
			__attribute__((format(printf, 4, 5)));

static int
row_fail(const csv_reader *r, char *err, size_t errlen, const char *fmt,...)
{
	va_list		ap;
	int			n = snprintf(err, errlen, "%s:%d: ", r->path, r->line);

	if (n < 0 || (size_t) n >= errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - n, fmt, ap);
	va_end(ap);
	return -1;
}

/* ---------- TYPES.csv: gpu_type[, speed] ---------- */

typedef struct type_row
{
	char		gpu_type[CSV_NAME_LEN];
	double		speed;			/* 0: not given, 1.0 */
} type_row;

static const csv_column type_columns[] = {
	{"gpu_type", 1, CSV_IDENT, OFF(type_row, gpu_type)},	/* mixdnn.gpu_types' name rule */
	{"speed", 0, CSV_FLOAT8, OFF(type_row, speed), 0, 1000, 1},	/* mixdnn.gpu_types' range */
};

typedef struct load_ctx
{
	sim_world  *w;
	int			cap;
} load_ctx;

static int
keep_type(void *ctx, void *row, const csv_reader *r, char *err, size_t errlen)
{
	load_ctx   *lc = ctx;
	const type_row *tr = row;
	mx_snapshot *s = &lc->w->cluster;
	mx_gpu_type t;

	/*
	 * an empty speed is NULL in \copy, which mixdnn.gpu_types.speed (NOT
	 * NULL) refuses (23502): the default 1.0 is for a file without the column
	 */
	if (tr->speed == 0 && csv_col(r, "speed") >= 0)
		return row_fail(r, err, errlen, "speed must not be empty (NULL in \\copy, which mixdnn.gpu_types.speed refuses); "
						"leave the column out for speed 1.0");
	memset(&t, 0, sizeof(t));
	memcpy(t.name, tr->gpu_type, sizeof(t.name));
	t.speed = tr->speed > 0 ? tr->speed : 1.0;
	if (mx_type_index(s, t.name) >= 0)
		return row_fail(r, err, errlen, "duplicate gpu_type \"%s\"", t.name);
	if (s->ntypes >= MX_MAX_TYPES)
		return row_fail(r, err, errlen, "more than %d GPU types", MX_MAX_TYPES);
	if (csv_reserve((void **) &s->types, &lc->cap, s->ntypes, sizeof(*s->types), 8) < 0)
		return fail(err, errlen, "out of memory");
	s->types[s->ntypes++] = t;
	return 0;
}

int
sim_load_types(sim_world *w, const char *path, char *err, size_t errlen)
{
	load_ctx	lc = {w, 0};
	type_row	row;

	if (csv_load_copy(path, type_columns, lengthof(type_columns), &row, sizeof(row), keep_type, &lc,
				 err, errlen) < 0)
		return -1;
	if (w->cluster.ntypes == 0)
		return fail(err, errlen, "%s: no GPU types", path);
	return 0;
}

/* ---------- NODES.csv: node, gpu_type, gpus[, status] ---------- */

typedef struct node_row
{
	char		node[CSV_NAME_LEN];
	char		gpu_type[CSV_NAME_LEN];
	int			gpus;
	char		status[CSV_NAME_LEN];	/* empty: up */
} node_row;

static const csv_column node_columns[] = {
	{"node", 1, CSV_IDENT, OFF(node_row, node)},	/* mixdnn.gpu_nodes' name rule */
	{"gpu_type", 1, CSV_TEXT, OFF(node_row, gpu_type)},
	{"gpus", 1, CSV_INT, OFF(node_row, gpus), 1, MX_MAX_NODE_GPUS},
	{"status", 0, CSV_TEXT, OFF(node_row, status)},
};

static int
keep_node(void *ctx, void *row, const csv_reader *r, char *err, size_t errlen)
{
	load_ctx   *lc = ctx;
	const node_row *nr = row;
	mx_snapshot *s = &lc->w->cluster;
	mx_node		n;
	int			i;

	memset(&n, 0, sizeof(n));
	memcpy(n.name, nr->node, sizeof(n.name));
	if ((n.type = mx_type_index(s, nr->gpu_type)) < 0)
		return row_fail(r, err, errlen, "unknown gpu_type \"%s\" (not in the types file)", nr->gpu_type);
	n.gpus = nr->gpus;
	n.status = MX_NODE_UP;
	/*
	 * an empty status is NULL in \copy, which mixdnn.gpu_nodes.status (NOT
	 * NULL) refuses (23502): up is for a file without the column
	 */
	if (nr->status[0] == '\0' && csv_col(r, "status") >= 0)
		return row_fail(r, err, errlen, "status must not be empty (NULL in \\copy, which mixdnn.gpu_nodes.status "
						"refuses); leave the column out for up");
	if (nr->status[0] != '\0' && mx_node_status_parse(nr->status, &n.status) < 0)
		return row_fail(r, err, errlen, "status \"%s\" must be up, draining or down", nr->status);
	for (i = 0; i < s->nnodes; i++)
		if (strcmp(s->nodes[i].name, n.name) == 0)
			return row_fail(r, err, errlen, "duplicate node \"%s\"", n.name);
	if (csv_reserve((void **) &s->nodes, &lc->cap, s->nnodes, sizeof(*s->nodes), 16) < 0)
		return fail(err, errlen, "out of memory");
	s->nodes[s->nnodes++] = n;
	return 0;
}

int
sim_load_nodes(sim_world *w, const char *path, char *err, size_t errlen)
{
	load_ctx	lc = {w, 0};
	node_row	row;

	if (csv_load_copy(path, node_columns, lengthof(node_columns), &row, sizeof(row), keep_node, &lc,
				 err, errlen) < 0)
		return -1;
	if (w->cluster.nnodes == 0)
		return fail(err, errlen, "%s: no nodes", path);
	return 0;
}

/* ---------- PROFILES.csv: model, gpu_type, gpus, throughput ---------- */

typedef struct profile_row
{
	char		model[CSV_MODEL_LEN];
	char		gpu_type[CSV_NAME_LEN];
	int			gpus;
	double		throughput;
} profile_row;

static const csv_column profile_columns[] = {
	{"model", 1, CSV_MODEL, OFF(profile_row, model), 1},	/* mixdnn.profiles.model: 1..63 characters */
	{"gpu_type", 1, CSV_TEXT, OFF(profile_row, gpu_type)},
	{"gpus", 1, CSV_INT, OFF(profile_row, gpus), 1, CSV_JOB_MAX_GPUS},
	{"throughput", 1, CSV_FLOAT8, OFF(profile_row, throughput), 0, INFINITY},
};

/* The model's profile, added when new; NULL when out of memory. */
static mx_profile *
profile_of(load_ctx *lc, const char *model)
{
	mx_snapshot *s = &lc->w->cluster;
	int			pi = mx_profile_index(s, model);

	if (pi < 0)
	{
		if (csv_reserve((void **) &s->profiles, &lc->cap, s->nprofiles, sizeof(*s->profiles), 16) < 0)
			return NULL;
		pi = s->nprofiles++;
		memset(&s->profiles[pi], 0, sizeof(mx_profile));
		snprintf(s->profiles[pi].model, sizeof(s->profiles[pi].model), "%s", model);
	}
	return &s->profiles[pi];
}

static int
keep_profile(void *ctx, void *row, const csv_reader *r, char *err, size_t errlen)
{
	load_ctx   *lc = ctx;
	const profile_row *pr = row;
	mx_profile_point pt,
			   *np;
	mx_profile *p;
	int			i;

	if ((pt.type = mx_type_index(&lc->w->cluster, pr->gpu_type)) < 0)
		return row_fail(r, err, errlen, "unknown gpu_type \"%s\" (not in the types file)", pr->gpu_type);
	pt.gpus = pr->gpus;
	pt.thr = pr->throughput;
	if ((p = profile_of(lc, pr->model)) == NULL)
		return fail(err, errlen, "out of memory");
	for (i = 0; i < p->npoints; i++)
		if (p->points[i].type == pt.type && p->points[i].gpus == pt.gpus)
			return row_fail(r, err, errlen, "duplicate profile (%s, %s, %d)", pr->model, pr->gpu_type, pt.gpus);
	np = realloc(p->points, (size_t) (p->npoints + 1) * sizeof(*np));
	if (np == NULL)
		return fail(err, errlen, "out of memory");
	p->points = np;
	p->points[p->npoints++] = pt;
	return 0;
}

int
sim_load_profiles(sim_world *w, const char *path, char *err, size_t errlen)
{
	load_ctx	lc = {w, 0};
	profile_row row;

	if (csv_load_copy(path, profile_columns, lengthof(profile_columns), &row, sizeof(row), keep_profile, &lc,
				 err, errlen) < 0)
		return -1;
	/* looked up in O(log points) by every round (profile.h) */
	for (int i = 0; i < w->cluster.nprofiles; i++)
		if (mx_profile_sort(&w->cluster.profiles[i]) < 0)
			return fail(err, errlen, "out of memory");
	return 0;
}

/* ---------- TRACE.csv ---------- */

typedef struct trace_row
{
	char		name[CSV_LONG_NAME_LEN];
	double		submit_s;
	char		model[CSV_MODEL_LEN];	/* empty: the scaling model */
	char		model_class[CSV_NAME_LEN];	/* empty: soft */
	char		gpu_type[CSV_NAME_LEN]; /* empty: none (soft jobs only) */
	int			gpus;
	double		duration_s;
	double		estimate_s;		/* 0: not given, duration_s */
	int			min_gpus,		/* 0: not given */
				max_gpus;
	char		allowed_types[CSV_LIST_LEN];	/* "a|b|c"; empty: every type */
	int			priority;
	char		owner[CSV_NAME_LEN];	/* empty: no owner */
} trace_row;

static const csv_column trace_columns[] = {
	{"name", 1, CSV_LONG_NAME, OFF(trace_row, name)},	/* mixdnn.jobs.name: 1..200 characters */
	{"submit_s", 1, CSV_REAL, OFF(trace_row, submit_s), 0, INFINITY},
	{"model", 1, CSV_MODEL, OFF(trace_row, model), 0},	/* mixdnn.jobs.model: at most 63 characters */
	{"model_class", 1, CSV_TEXT, OFF(trace_row, model_class)},
	{"gpu_type", 1, CSV_TEXT, OFF(trace_row, gpu_type)},
	{"gpus", 1, CSV_INT, OFF(trace_row, gpus), 1, CSV_JOB_MAX_GPUS},
	{"duration_s", 1, CSV_REAL, OFF(trace_row, duration_s), 0, INFINITY, 1},
	{"estimate_s", 0, CSV_REAL, OFF(trace_row, estimate_s), 0, INFINITY, 1},
	{"min_gpus", 0, CSV_INT, OFF(trace_row, min_gpus), 1, CSV_JOB_MAX_GPUS},
	{"max_gpus", 0, CSV_INT, OFF(trace_row, max_gpus), 1, CSV_JOB_MAX_GPUS},
	{"allowed_types", 0, CSV_LIST, OFF(trace_row, allowed_types)},
	{"priority", 0, CSV_INT, OFF(trace_row, priority), CSV_JOB_PRIORITY_MIN, CSV_JOB_PRIORITY_MAX},	/* mixdnn.jobs.priority's range */
	{"owner", 0, CSV_ROLE, OFF(trace_row, owner)},	/* mixdnn.jobs.owner, of type name */
};

/*
 * allowed_types "a|b|c" as a type mask; 0, or -1 with err set. As the
 * database's text[] (mixdnn._check_job_shape): every element names a known
 * type, none is empty, none is named twice.
 */
static int
parse_allowed(const mx_snapshot *s, const char *v, uint64_t *mask, const csv_reader *r, char *err, size_t errlen)
{
	char		tname[CSV_NAME_LEN];
	const char *p = v;

	*mask = 0;
	for (;;)
	{
		size_t		l = strcspn(p, "|");
		char		tok[CSV_LIST_LEN];
		int			t;

		memcpy(tok, p, l);
		tok[l] = '\0';
		if (csv_copy_name(tname, tok) == 0 && tname[0] == '\0')
			return row_fail(r, err, errlen, "allowed_types \"%s\" has an empty type name", v);
		if (csv_copy_name(tname, tok) < 0 || (t = mx_type_index(s, tname)) < 0)
			return row_fail(r, err, errlen, "unknown type \"%s\" in allowed_types", tok);
		if (*mask & ((uint64_t) 1 << t))
			return row_fail(r, err, errlen, "allowed_types names \"%s\" more than once", tname);
		*mask |= (uint64_t) 1 << t;
		if (p[l] == '\0')
			return 0;
		p += l + 1;
	}
}

/* Class, reference configuration and the soft model's range of a trace row. */
static int
job_request(const mx_snapshot *s, const trace_row *tr, const csv_reader *r, mx_job *mj, char *err, size_t errlen)
{
	const char *cls = tr->model_class;

	if (cls[0] == '\0' || strcmp(cls, "soft") == 0)
		mj->cls = MX_SOFT;
	else if (strcmp(cls, "hard") == 0)
		mj->cls = MX_HARD;
	else
		return row_fail(r, err, errlen, "model_class \"%s\" must be hard or soft", cls);
	if (tr->gpu_type[0] == '\0')
	{
		if (mj->cls == MX_HARD)
			return row_fail(r, err, errlen, "hard job \"%s\" needs a gpu_type", tr->name);
		mj->ref_type = -1;
	}
	else if ((mj->ref_type = mx_type_index(s, tr->gpu_type)) < 0)
		return row_fail(r, err, errlen, "unknown gpu_type \"%s\" (not in the types file)", tr->gpu_type);
	mj->ref_gpus = tr->gpus;
	if (mj->cls == MX_HARD)
	{
		/*
		 * as mixdnn._check_job_shape (22023): a hard job runs on exactly
		 * (gpu_type, gpus); an empty field is no value (NULL in \copy)
		 */
		if (tr->allowed_types[0] != '\0')
			return row_fail(r, err, errlen, "allowed_types is for soft-model jobs only (hard job \"%s\")", tr->name);
		if ((tr->min_gpus && tr->min_gpus != tr->gpus) || (tr->max_gpus && tr->max_gpus != tr->gpus))
			return row_fail(r, err, errlen, "hard job \"%s\" runs on exactly gpus = %d GPUs: leave min_gpus and max_gpus "
							"empty (or equal to gpus), or make it soft", tr->name, tr->gpus);
		mj->min_gpus = mj->max_gpus = mj->ref_gpus;
		mj->allowed = (uint64_t) 1 << mj->ref_type;
		return 0;
	}
	/*
	 * the extension's defaults (mixdnn._check_job_shape): max = max(gpus,
	 * min_gpus), min = min(max(1, gpus / 2), max_gpus)
	 */
	mj->max_gpus = tr->max_gpus ? tr->max_gpus : (tr->min_gpus > mj->ref_gpus ? tr->min_gpus : mj->ref_gpus);
	mj->min_gpus = tr->min_gpus ? tr->min_gpus : (mj->ref_gpus / 2 > 1 ? mj->ref_gpus / 2 : 1);
	if (!tr->min_gpus && mj->min_gpus > mj->max_gpus)
		mj->min_gpus = mj->max_gpus;
	if (mj->min_gpus > mj->max_gpus)
		return row_fail(r, err, errlen, "min_gpus %d > max_gpus %d", mj->min_gpus, mj->max_gpus);
	if (tr->allowed_types[0] == '\0')
	{
		mj->allowed = s->ntypes >= 64 ? ~(uint64_t) 0 : (((uint64_t) 1 << s->ntypes) - 1);
		return 0;
	}
	return parse_allowed(s, tr->allowed_types, &mj->allowed, r, err, errlen);
}

static int
keep_job(void *ctx, void *row, const csv_reader *r, char *err, size_t errlen)
{
	load_ctx   *lc = ctx;
	sim_world  *w = lc->w;
	trace_row  *tr = row;
	sim_job		j;
	mx_job	   *mj = &j.job;
	double		est_us;

	memset(&j, 0, sizeof(j));
	j.line = r->line;
	mj->job_id = w->njobs + 1;
	memcpy(j.model, tr->model, sizeof(j.model));
	j.submit = tr->submit_s;
	/* an unknown model falls back to the scaling model (contract §7) */
	mj->profile = j.model[0] ? mx_profile_index(&w->cluster, j.model) : -1;
	if (job_request(&w->cluster, tr, r, mj, err, errlen) < 0)
		return -1;
	/*
	 * mixdnn.jobs.duration (the estimate: estimate_s, else duration_s) is an
	 * interval of whole microseconds: duration = make_interval(secs =>
	 * SECONDS) (docs/simulator.md, test/sim/diff/replay.py) keeps
	 * rint(SECONDS x 1e6) of the double SECONDS, ties to even, and
	 * mixdnn._check_job_terms then takes 1 us to 366 days of that. So the
	 * estimate is checked and planned with as the database keeps it:
	 * 31622400.0000004 s is 366 days there, 6e-07 s is 1 us and 5e-07 s
	 * 0 us.
	 */
	est_us = rint((tr->estimate_s > 0 ? tr->estimate_s : tr->duration_s) * 1e6);
	if (!(est_us >= 1))
		return row_fail(r, err, errlen, "%s %g must be at least 1e-06 (1 microsecond) once rounded to whole "
						"microseconds, as mixdnn.jobs.duration keeps it", tr->estimate_s > 0 ? "estimate_s" : "duration_s",
						tr->estimate_s > 0 ? tr->estimate_s : tr->duration_s);
	if (!(est_us <= CSV_JOB_MAX_DURATION_S * 1e6))
	{
		if (tr->estimate_s > 0)
			return row_fail(r, err, errlen, "estimate_s %.15g must be at most %.0f (366 days) once rounded to whole "
							"microseconds, as mixdnn.jobs.duration", tr->estimate_s, CSV_JOB_MAX_DURATION_S);
		return row_fail(r, err, errlen, "duration_s %.15g must be at most %.0f (366 days) once rounded to whole "
						"microseconds without an estimate_s: it is the job's mixdnn.jobs.duration",
						tr->duration_s, CSV_JOB_MAX_DURATION_S);
	}
	/*
	 * The true run time beside an estimate_s is not the database's to limit;
	 * instants closer than 1 us are one here (SIM_EPS)
	 */
	if (tr->estimate_s > 0 && tr->duration_s < MX_TIME_EPS)
		return row_fail(r, err, errlen, "duration_s %g must be at least 1e-06 (1 microsecond)", tr->duration_s);
	/* every policy plans with the estimate; the job runs for duration_s (the estimate without an estimate_s) */
	mj->duration = est_us / 1e6;
	j.true_duration = tr->estimate_s > 0 ? tr->duration_s : mj->duration;
	mj->priority = tr->priority;
	mj->prev_type = -1;
	/*
	 * a quoted empty owner ("") is the role '', which no role is
	 * (mixdnn._check_job_owner: 42704); an unquoted empty one is none
	 */
	if (tr->owner[0] == '\0' && csv_quoted(r, csv_col(r, "owner")))
		return row_fail(r, err, errlen, "owner \"\" names no role (the database refuses it, 42704); "
						"leave the field empty, unquoted, for a job without an owner");
	mj->owner = tr->owner[0] ? sim_owner_index(w, tr->owner) : -1;
	if ((tr->owner[0] && mj->owner < 0) || (j.name = strdup(tr->name)) == NULL ||
		csv_reserve((void **) &w->jobs, &lc->cap, w->njobs, sizeof(*w->jobs), 256) < 0)
	{
		free(j.name);
		return fail(err, errlen, "out of memory");
	}
	if (mj->cls == MX_SOFT)
		w->nsoft++;
	w->jobs[w->njobs++] = j;
	return 0;
}

static int
cmp_submit(const void *a, const void *b)
{
	const sim_job *x = a;
	const sim_job *y = b;

	if (x->submit < y->submit)
		return -1;
	if (x->submit > y->submit)
		return 1;
	return (x->job.job_id > y->job.job_id) - (x->job.job_id < y->job.job_id);
}

int
sim_load_trace(sim_world *w, const char *path, char *err, size_t errlen)
{
	load_ctx	lc = {w, 0};
	trace_row	row;

	if (csv_load_pycsv(path, trace_columns, lengthof(trace_columns), &row, sizeof(row), keep_job, &lc,
				 err, errlen) < 0)
		return -1;
	if (w->njobs == 0)
		return fail(err, errlen, "%s: no jobs", path);
	qsort(w->jobs, w->njobs, sizeof(sim_job), cmp_submit);
	return 0;
}

void
sim_world_free(sim_world *w)
{
	int			i;

	for (i = 0; i < w->njobs; i++)
	{
		free(w->jobs[i].parts);
		free(w->jobs[i].name);
	}
	mx_snapshot_free(&w->cluster);
	free(w->jobs);
	free(w->owners);
	free(w->max_waiting);
	memset(w, 0, sizeof(*w));
}
