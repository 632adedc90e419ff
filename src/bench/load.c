/*
 * load.c — a snapshot dumped from a database by bench/export_snapshot.sql
 * (types.csv, nodes.csv, running.csv, waiting.csv; times relative to the
 * export), for `mixdnn-bench --load DIR` (load.h). Each file is read by the
 * simulator's column-driven loader (csvload.h), so a number that cannot be
 * read is an error naming file, line and column. Unlike the simulator the
 * benchmark takes what the database held as it is: an unknown GPU type or
 * node status, or a running part on a node not in nodes.csv, is not an
 * error (the type is none, the node up, the part left out).
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "csvload.h"
#include "load.h"
#include "placement.h"
#include "tolerance.h"

#define OFF(type, field) offsetof(type, field)
#define lengthof(a) ((int) (sizeof(a) / sizeof((a)[0])))
#define NUMBER(name, required, type, field) \
	{name, required, CSV_REAL, OFF(type, field), -INFINITY, INFINITY}

/* The snapshot being filled and the room of the array the current file grows. */
typedef struct load_ctx
{
	mx_snapshot *s;
	int			cap;
} load_ctx;

/*
 * A zeroed new element at the end of the array *arr of *n elements (the
 * current file's lc->cap of room), counted in *n; NULL with err set when
 * out of memory.
 */
static void *
append(load_ctx *lc, void **arr, int *n, size_t elem, char *err, size_t errlen)
{
	char	   *e;

	if (csv_reserve(arr, &lc->cap, *n, elem, 16) < 0)
	{
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	e = (char *) *arr + (size_t) (*n)++ * elem;
	memset(e, 0, elem);
	return e;
}

/* ---------- types.csv: gpu_type, speed ---------- */

typedef struct type_row
{
	char		gpu_type[CSV_NAME_LEN];
	double		speed;
} type_row;

static const csv_column type_columns[] = {
	{"gpu_type", 1, CSV_NAME, OFF(type_row, gpu_type)},
	{"speed", 1, CSV_REAL, OFF(type_row, speed), 0, 1000, 1},	/* mixdnn.gpu_types' range */
};

static int
keep_type(void *ctx, void *row, const csv_reader *r, char *err, size_t errlen)
{
	load_ctx   *lc = ctx;
	const type_row *tr = row;
	mx_snapshot *s = lc->s;
	mx_gpu_type *t;

	if ((t = append(lc, (void **) &s->types, &s->ntypes, sizeof(*s->types), err, errlen)) == NULL)
		return -1;
	memcpy(t->name, tr->gpu_type, sizeof(t->name));
	t->speed = tr->speed;
	return 0;
}

/* ---------- nodes.csv: node, gpu_type, gpus, status ---------- */

typedef struct node_row
{
	char		node[CSV_NAME_LEN];
	char		gpu_type[CSV_NAME_LEN];
	int			gpus;
	char		status[CSV_NAME_LEN];
} node_row;

static const csv_column node_columns[] = {
	{"node", 1, CSV_NAME, OFF(node_row, node)},
	{"gpu_type", 0, CSV_TEXT, OFF(node_row, gpu_type)},
	{"gpus", 1, CSV_INT, OFF(node_row, gpus), 1, MX_MAX_NODE_GPUS},
	{"status", 0, CSV_TEXT, OFF(node_row, status)},
};

static int
keep_node(void *ctx, void *row, const csv_reader *r, char *err, size_t errlen)
{
	load_ctx   *lc = ctx;
	const node_row *nr = row;
	mx_snapshot *s = lc->s;
	mx_node    *nd;

	if ((nd = append(lc, (void **) &s->nodes, &s->nnodes, sizeof(*s->nodes), err, errlen)) == NULL)
		return -1;
	memcpy(nd->name, nr->node, sizeof(nd->name));
	nd->type = mx_type_index(s, nr->gpu_type);
	nd->gpus = nr->gpus;
	if (mx_node_status_parse(nr->status, &nd->status) < 0)
		nd->status = MX_NODE_UP;
	return 0;
}

/* ---------- running.csv: job_id, node, gpus, end_s ---------- */

typedef struct part_row
{
	double		job_id;
	char		node[CSV_NAME_LEN];
	int			gpus;
	double		end_s;
} part_row;

static const csv_column part_columns[] = {
	{"job_id", 1, CSV_REAL, OFF(part_row, job_id), 1, 9007199254740992.0},
	{"node", 0, CSV_TEXT, OFF(part_row, node)},
	{"gpus", 1, CSV_INT, OFF(part_row, gpus), 1, MX_MAX_NODE_GPUS},
	NUMBER("end_s", 1, part_row, end_s),
};

/* Marks the node's lowest free GPUs busy (the database has the real indices). */
static void
hold_lowest(mx_node *nd, int gpus)
{
	int			i;

	for (i = 0; i < nd->gpus && gpus > 0; i++)
		if (!(nd->busy & ((uint64_t) 1 << i)))
		{
			nd->busy |= (uint64_t) 1 << i;
			gpus--;
		}
}

static int
keep_part(void *ctx, void *row, const csv_reader *r, char *err, size_t errlen)
{
	load_ctx   *lc = ctx;
	const part_row *pr = row;
	mx_snapshot *s = lc->s;
	mx_running_part *p;
	int			nd = -1,
				i;

	for (i = 0; i < s->nnodes; i++)
		if (strcmp(s->nodes[i].name, pr->node) == 0)
			nd = i;
	if (nd < 0)
		return 0;
	if ((p = append(lc, (void **) &s->parts, &s->nparts, sizeof(*s->parts), err, errlen)) == NULL)
		return -1;
	p->job_id = (int64_t) pr->job_id;
	p->node = nd;
	p->gpus = pr->gpus;
	p->expected_end = s->now + pr->end_s;
	hold_lowest(&s->nodes[nd], p->gpus);
	return 0;
}

/* ---------- waiting.csv: the waiting jobs ---------- */

typedef struct wait_row
{
	double		job_id;
	char		model_class[CSV_NAME_LEN];
	char		gpu_type[CSV_NAME_LEN];
	int			gpus,
				min_gpus,
				max_gpus;
	char		allowed_types[CSV_LIST_LEN];	/* "a|b"; empty: every type */
	double		duration_s;
	int			priority;
	double		age_s;
	char		prev_type[CSV_NAME_LEN];	/* empty: not planned before */
	int			prev_gpus;
	double		prev_start_s;	/* read only with a prev_type */
} wait_row;

static const csv_column wait_columns[] = {
	{"job_id", 1, CSV_REAL, OFF(wait_row, job_id), 1, 9007199254740992.0},
	{"model_class", 0, CSV_TEXT, OFF(wait_row, model_class)},
	{"gpu_type", 0, CSV_TEXT, OFF(wait_row, gpu_type)},
	{"gpus", 1, CSV_INT, OFF(wait_row, gpus), 1, CSV_JOB_MAX_GPUS},
	{"min_gpus", 1, CSV_INT, OFF(wait_row, min_gpus), 1, CSV_JOB_MAX_GPUS},
	{"max_gpus", 1, CSV_INT, OFF(wait_row, max_gpus), 1, CSV_JOB_MAX_GPUS},
	{"allowed_types", 0, CSV_LIST, OFF(wait_row, allowed_types)},
	{"duration_s", 1, CSV_REAL, OFF(wait_row, duration_s), MX_TIME_EPS, CSV_JOB_MAX_DURATION_S},
	{"priority", 1, CSV_INT, OFF(wait_row, priority), CSV_JOB_PRIORITY_MIN, CSV_JOB_PRIORITY_MAX},
	NUMBER("age_s", 1, wait_row, age_s),
	{"prev_type", 0, CSV_TEXT, OFF(wait_row, prev_type)},
	{"prev_gpus", 1, CSV_INT, OFF(wait_row, prev_gpus), 0, CSV_JOB_MAX_GPUS},
	NUMBER("prev_start_s", 0, wait_row, prev_start_s),
};

/* A job's allowed types: its own for a hard job, "a|b" or every type for a soft one. */
static uint64_t
allowed_mask(const mx_snapshot *s, const mx_job *j, const char *allowed)
{
	char		buf[CSV_LIST_LEN];
	char	   *tok,
			   *save = NULL;
	uint64_t	mask = 0;

	if (j->cls == MX_HARD)
		return j->ref_type >= 0 ? (uint64_t) 1 << j->ref_type : 0;
	if (allowed[0] == '\0')
		return s->ntypes >= 64 ? ~(uint64_t) 0 : (((uint64_t) 1 << s->ntypes) - 1);
	snprintf(buf, sizeof(buf), "%s", allowed);
	for (tok = strtok_r(buf, "|", &save); tok; tok = strtok_r(NULL, "|", &save))
	{
		int			k = mx_type_index(s, tok);

		if (k >= 0)
			mask |= (uint64_t) 1 << k;
	}
	return mask;
}

static int
keep_job(void *ctx, void *row, const csv_reader *r, char *err, size_t errlen)
{
	load_ctx   *lc = ctx;
	const wait_row *wr = row;
	mx_snapshot *s = lc->s;
	mx_job	   *j;

	if ((j = append(lc, (void **) &s->jobs, &s->njobs, sizeof(*s->jobs), err, errlen)) == NULL)
		return -1;
	j->job_id = (int64_t) wr->job_id;
	j->cls = strcmp(wr->model_class, "hard") == 0 ? MX_HARD : MX_SOFT;
	j->ref_type = wr->gpu_type[0] ? mx_type_index(s, wr->gpu_type) : -1;
	if (wr->min_gpus > wr->max_gpus)
	{
		snprintf(err, errlen, "%s:%d: min_gpus %d > max_gpus %d", r->path, r->line, wr->min_gpus, wr->max_gpus);
		s->njobs--;
		return -1;
	}
	j->ref_gpus = wr->gpus;
	j->min_gpus = wr->min_gpus;
	j->max_gpus = wr->max_gpus;
	j->allowed = allowed_mask(s, j, wr->allowed_types);
	j->duration = wr->duration_s;
	j->priority = wr->priority;
	j->submitted = s->now - wr->age_s;
	j->profile = -1;
	j->prev_type = wr->prev_type[0] ? mx_type_index(s, wr->prev_type) : -1;
	j->prev_gpus = wr->prev_gpus;
	j->prev_start = j->prev_type >= 0 ? s->now + wr->prev_start_s : 0;
	return 0;
}

/* One file of dir by its columns and row function. */
typedef struct load_file
{
	const char *name;
	const csv_column *cols;
	int			ncols;
	size_t		rowsize;
	csv_row_fn	keep;
} load_file;

static const load_file files[] = {
	{"types.csv", type_columns, lengthof(type_columns), sizeof(type_row), keep_type},
	{"nodes.csv", node_columns, lengthof(node_columns), sizeof(node_row), keep_node},
	{"running.csv", part_columns, lengthof(part_columns), sizeof(part_row), keep_part},
	{"waiting.csv", wait_columns, lengthof(wait_columns), sizeof(wait_row), keep_job},
};

int
bench_load(const char *dir, double now, mx_snapshot *s, char *err, size_t errlen)
{
	union
	{
		type_row	t;
		node_row	n;
		part_row	p;
		wait_row	w;
	}			row;
	char		path[4096];
	int			i;

	memset(s, 0, sizeof(*s));
	s->now = now;
	for (i = 0; i < lengthof(files); i++)
	{
		load_ctx	lc = {s, 0};

		snprintf(path, sizeof(path), "%s/%s", dir, files[i].name);
		if (csv_load(path, files[i].cols, files[i].ncols, &row, files[i].rowsize, files[i].keep, &lc,
					 err, errlen) < 0)
		{
			mx_snapshot_free(s);
			return -1;
		}
	}
	return 0;
}
