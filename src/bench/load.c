/*
 * load.c — a snapshot dumped from a database by bench/export_snapshot.sql
 * (types.csv, nodes.csv, running.csv, waiting.csv; times relative to the
 * export), for `mixdnn-bench --load DIR` (load.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "load.h"
#include "placement.h"

static int
open_dir(csv_reader *r, const char *dir, const char *file, char *err, size_t errlen)
{
	char		path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (csv_open(r, path) < 0)
	{
		snprintf(err, errlen, "%s", r->err);
		return -1;
	}
	return 0;
}

static const char *
field(csv_reader *r, const char *name)
{
	return csv_get(r, csv_col(r, name));
}

static double
num(csv_reader *r, const char *name, int *bad)
{
	double		v;

	if (csv_parse_double(field(r, name), &v) < 0)
	{
		*bad = 1;
		return 0;
	}
	return v;
}

#define GROW(arr, n, cap) \
	do { \
		if ((n) >= (cap)) \
		{ \
			int			nc_ = (cap) ? (cap) * 2 : 16; \
			void	   *p_ = realloc((arr), (size_t) nc_ * sizeof(*(arr))); \
			if (!p_) \
				return -1; \
			(arr) = p_; \
			(cap) = nc_; \
		} \
	} while (0)

/* One file's rows into s: 0, or -1 when out of memory. *bad is set for a number that could not be read. */
typedef int (*load_fn) (csv_reader *r, mx_snapshot *s, int *bad);

static int
load_types(csv_reader *r, mx_snapshot *s, int *bad)
{
	int			cap = 0;

	while (csv_next(r) > 0)
	{
		GROW(s->types, s->ntypes, cap);
		memset(&s->types[s->ntypes], 0, sizeof(mx_gpu_type));
		snprintf(s->types[s->ntypes].name, MX_NAME_LEN, "%s", field(r, "gpu_type"));
		s->types[s->ntypes].speed = num(r, "speed", bad);
		s->ntypes++;
	}
	return 0;
}

static int
load_nodes(csv_reader *r, mx_snapshot *s, int *bad)
{
	int			cap = 0;

	while (csv_next(r) > 0)
	{
		mx_node    *nd;
		const char *st = field(r, "status");

		GROW(s->nodes, s->nnodes, cap);
		nd = &s->nodes[s->nnodes];
		memset(nd, 0, sizeof(*nd));
		snprintf(nd->name, MX_NAME_LEN, "%s", field(r, "node"));
		nd->type = mx_type_index(s, field(r, "gpu_type"));
		nd->gpus = (int) num(r, "gpus", bad);
		if (mx_node_status_parse(st, &nd->status) < 0)
			nd->status = MX_NODE_UP;
		s->nnodes++;
	}
	return 0;
}

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
load_running(csv_reader *r, mx_snapshot *s, int *bad)
{
	int			cap = 0;

	while (csv_next(r) > 0)
	{
		mx_running_part *p;
		const char *node = field(r, "node");
		int			nd = -1,
					i;

		for (i = 0; i < s->nnodes; i++)
			if (strcmp(s->nodes[i].name, node) == 0)
				nd = i;
		if (nd < 0)
			continue;
		GROW(s->parts, s->nparts, cap);
		p = &s->parts[s->nparts++];
		p->job_id = (int64_t) num(r, "job_id", bad);
		p->node = nd;
		p->gpus = (int) num(r, "gpus", bad);
		p->expected_end = s->now + num(r, "end_s", bad);
		hold_lowest(&s->nodes[nd], p->gpus);
	}
	return 0;
}

/* A job's allowed types: its own for a hard job, "a|b" or every type for a soft one. */
static uint64_t
allowed_mask(const mx_snapshot *s, const mx_job *j, const char *allowed)
{
	char		buf[1024];
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
load_waiting(csv_reader *r, mx_snapshot *s, int *bad)
{
	int			cap = 0;

	while (csv_next(r) > 0)
	{
		mx_job	   *j;
		const char *pt = field(r, "prev_type");

		GROW(s->jobs, s->njobs, cap);
		j = &s->jobs[s->njobs++];
		memset(j, 0, sizeof(*j));
		j->job_id = (int64_t) num(r, "job_id", bad);
		j->cls = strcmp(field(r, "model_class"), "hard") == 0 ? MX_HARD : MX_SOFT;
		j->ref_type = field(r, "gpu_type")[0] ? mx_type_index(s, field(r, "gpu_type")) : -1;
		j->ref_gpus = (int) num(r, "gpus", bad);
		j->min_gpus = (int) num(r, "min_gpus", bad);
		j->max_gpus = (int) num(r, "max_gpus", bad);
		j->allowed = allowed_mask(s, j, field(r, "allowed_types"));
		j->duration = num(r, "duration_s", bad);
		j->priority = (int) num(r, "priority", bad);
		j->submitted = s->now - num(r, "age_s", bad);
		j->profile = -1;
		j->prev_type = pt[0] ? mx_type_index(s, pt) : -1;
		j->prev_gpus = (int) num(r, "prev_gpus", bad);
		j->prev_start = j->prev_type >= 0 ? s->now + num(r, "prev_start_s", bad) : 0;
	}
	return 0;
}

int
bench_load(const char *dir, double now, mx_snapshot *s, char *err, size_t errlen)
{
	static const char *const files[] = {"types.csv", "nodes.csv", "running.csv", "waiting.csv"};
	static const load_fn loaders[] = {load_types, load_nodes, load_running, load_waiting};
	csv_reader	r;
	int			bad = 0,
				i;

	memset(s, 0, sizeof(*s));
	s->now = now;
	for (i = 0; i < 4; i++)
	{
		if (open_dir(&r, dir, files[i], err, errlen) < 0)
		{
			mx_snapshot_free(s);
			return -1;
		}
		if (loaders[i] (&r, s, &bad) < 0)
		{
			csv_close(&r);
			snprintf(err, errlen, "out of memory");
			mx_snapshot_free(s);
			return -1;
		}
		csv_close(&r);
	}
	if (bad)
	{
		snprintf(err, errlen, "%s: a number could not be read", dir);
		mx_snapshot_free(s);
		return -1;
	}
	return 0;
}
