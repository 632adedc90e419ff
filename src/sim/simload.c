/*
 * simload.c — loading TYPES.csv, NODES.csv, PROFILES.csv and TRACE.csv into
 * a sim_world (sim.h). Every malformed value is an error naming file, line
 * and column; the caller exits with status 2.
 */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "sim.h"

/* Largest GPU count a trace may request; larger is a malformed row. */
#define SIM_MAX_JOB_GPUS 4096

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

/*
 * Room for one more element in a growing array: doubles *cap (from first)
 * when n has reached it. 0, or -1 when out of memory (*arr unchanged).
 */
static int
reserve_one(void **arr, int *cap, int n, size_t elem, int first)
{
	void	   *grown;
	int			newcap;

	if (n < *cap)
		return 0;
	newcap = *cap ? *cap * 2 : first;
	grown = realloc(*arr, (size_t) newcap * elem);
	if (grown == NULL)
		return -1;
	*arr = grown;
	*cap = newcap;
	return 0;
}

/* Copy a trimmed field into dst (MX_NAME_LEN); -1 when too long. */
static int
copy_name(char *dst, const char *src)
{
	size_t		l;

	while (isspace((unsigned char) *src))
		src++;
	l = strlen(src);
	while (l > 0 && isspace((unsigned char) src[l - 1]))
		l--;
	if (l >= MX_NAME_LEN)
		return -1;
	memcpy(dst, src, l);
	dst[l] = '\0';
	return 0;
}

static int
need_cols(csv_reader *r, const char *const *names, int *cols, char *err, size_t errlen)
{
	int			i;

	for (i = 0; names[i]; i++)
	{
		cols[i] = csv_col(r, names[i]);
		if (cols[i] < 0)
			return fail(err, errlen, "%s: missing column \"%s\" in the header", r->path, names[i]);
	}
	return 0;
}

int
sim_load_types(sim_world *w, const char *path, char *err, size_t errlen)
{
	csv_reader	r;
	static const char *const names[] = {"gpu_type", NULL};
	int			cols[1],
				cspeed,
				rc,
				cap = 0;
	mx_snapshot *s = &w->cluster;

	if (csv_open(&r, path) < 0)
		return fail(err, errlen, "%s", r.err);
	if (need_cols(&r, names, cols, err, errlen) < 0)
		goto bad;
	cspeed = csv_col(&r, "speed");
	while ((rc = csv_next(&r)) > 0)
	{
		mx_gpu_type t;
		const char *sp = csv_get(&r, cspeed);

		memset(&t, 0, sizeof(t));
		if (copy_name(t.name, csv_get(&r, cols[0])) < 0 || t.name[0] == '\0')
		{
			fail(err, errlen, "%s:%d: gpu_type must be 1..%d characters", path, r.line, MX_NAME_LEN - 1);
			goto bad;
		}
		t.speed = 1.0;
		if (cspeed >= 0 && sp[0] != '\0' && (csv_parse_double(sp, &t.speed) < 0 || !(t.speed > 0)))
		{
			fail(err, errlen, "%s:%d: speed \"%s\" is not a positive number", path, r.line, sp);
			goto bad;
		}
		if (mx_type_index(s, t.name) >= 0)
		{
			fail(err, errlen, "%s:%d: duplicate gpu_type \"%s\"", path, r.line, t.name);
			goto bad;
		}
		if (s->ntypes >= MX_MAX_TYPES)
		{
			fail(err, errlen, "%s:%d: more than %d GPU types", path, r.line, MX_MAX_TYPES);
			goto bad;
		}
		if (reserve_one((void **) &s->types, &cap, s->ntypes, sizeof(*s->types), 8) < 0)
		{
			fail(err, errlen, "out of memory");
			goto bad;
		}
		s->types[s->ntypes++] = t;
	}
	if (rc < 0)
	{
		fail(err, errlen, "%s", r.err);
		goto bad;
	}
	if (s->ntypes == 0)
	{
		fail(err, errlen, "%s: no GPU types", path);
		goto bad;
	}
	csv_close(&r);
	return 0;
bad:
	csv_close(&r);
	return -1;
}

int
sim_load_nodes(sim_world *w, const char *path, char *err, size_t errlen)
{
	csv_reader	r;
	static const char *const names[] = {"node", "gpu_type", "gpus", NULL};
	int			cols[3],
				cstatus,
				rc,
				cap = 0,
				i;
	mx_snapshot *s = &w->cluster;

	if (csv_open(&r, path) < 0)
		return fail(err, errlen, "%s", r.err);
	if (need_cols(&r, names, cols, err, errlen) < 0)
		goto bad;
	cstatus = csv_col(&r, "status");
	while ((rc = csv_next(&r)) > 0)
	{
		mx_node		n;
		char		tname[MX_NAME_LEN];
		const char *g = csv_get(&r, cols[2]);
		const char *st = csv_get(&r, cstatus);

		memset(&n, 0, sizeof(n));
		if (copy_name(n.name, csv_get(&r, cols[0])) < 0 || n.name[0] == '\0')
		{
			fail(err, errlen, "%s:%d: node must be 1..%d characters", path, r.line, MX_NAME_LEN - 1);
			goto bad;
		}
		if (copy_name(tname, csv_get(&r, cols[1])) < 0 || (n.type = mx_type_index(s, tname)) < 0)
		{
			fail(err, errlen, "%s:%d: unknown gpu_type \"%s\" (not in the types file)",
				 path, r.line, csv_get(&r, cols[1]));
			goto bad;
		}
		if (csv_parse_int(g, &n.gpus) < 0 || n.gpus < 1 || n.gpus > MX_MAX_NODE_GPUS)
		{
			fail(err, errlen, "%s:%d: gpus \"%s\" must be an integer 1..%d", path, r.line, g, MX_MAX_NODE_GPUS);
			goto bad;
		}
		n.status = MX_NODE_UP;
		if (st[0] != '\0')
		{
			if (strcmp(st, "up") == 0)
				n.status = MX_NODE_UP;
			else if (strcmp(st, "draining") == 0)
				n.status = MX_NODE_DRAINING;
			else if (strcmp(st, "down") == 0)
				n.status = MX_NODE_DOWN;
			else
			{
				fail(err, errlen, "%s:%d: status \"%s\" must be up, draining or down", path, r.line, st);
				goto bad;
			}
		}
		for (i = 0; i < s->nnodes; i++)
			if (strcmp(s->nodes[i].name, n.name) == 0)
			{
				fail(err, errlen, "%s:%d: duplicate node \"%s\"", path, r.line, n.name);
				goto bad;
			}
		if (reserve_one((void **) &s->nodes, &cap, s->nnodes, sizeof(*s->nodes), 16) < 0)
		{
			fail(err, errlen, "out of memory");
			goto bad;
		}
		s->nodes[s->nnodes++] = n;
	}
	if (rc < 0)
	{
		fail(err, errlen, "%s", r.err);
		goto bad;
	}
	if (s->nnodes == 0)
	{
		fail(err, errlen, "%s: no nodes", path);
		goto bad;
	}
	csv_close(&r);
	return 0;
bad:
	csv_close(&r);
	return -1;
}

int
sim_load_profiles(sim_world *w, const char *path, char *err, size_t errlen)
{
	csv_reader	r;
	static const char *const names[] = {"model", "gpu_type", "gpus", "throughput", NULL};
	int			cols[4],
				rc,
				cap = 0,
				i;
	mx_snapshot *s = &w->cluster;

	if (csv_open(&r, path) < 0)
		return fail(err, errlen, "%s", r.err);
	if (need_cols(&r, names, cols, err, errlen) < 0)
		goto bad;
	while ((rc = csv_next(&r)) > 0)
	{
		char		model[MX_NAME_LEN],
					tname[MX_NAME_LEN];
		mx_profile_point pt;
		mx_profile *pr;
		int			pi;
		const char *g = csv_get(&r, cols[2]);
		const char *th = csv_get(&r, cols[3]);

		if (copy_name(model, csv_get(&r, cols[0])) < 0 || model[0] == '\0')
		{
			fail(err, errlen, "%s:%d: model must be 1..%d characters", path, r.line, MX_NAME_LEN - 1);
			goto bad;
		}
		if (copy_name(tname, csv_get(&r, cols[1])) < 0 || (pt.type = mx_type_index(s, tname)) < 0)
		{
			fail(err, errlen, "%s:%d: unknown gpu_type \"%s\" (not in the types file)",
				 path, r.line, csv_get(&r, cols[1]));
			goto bad;
		}
		if (csv_parse_int(g, &pt.gpus) < 0 || pt.gpus < 1 || pt.gpus > SIM_MAX_JOB_GPUS)
		{
			fail(err, errlen, "%s:%d: gpus \"%s\" must be an integer 1..%d", path, r.line, g, SIM_MAX_JOB_GPUS);
			goto bad;
		}
		if (csv_parse_double(th, &pt.thr) < 0 || pt.thr < 0)
		{
			fail(err, errlen, "%s:%d: throughput \"%s\" must be a number >= 0", path, r.line, th);
			goto bad;
		}
		pi = mx_profile_index(s, model);
		if (pi < 0)
		{
			if (reserve_one((void **) &s->profiles, &cap, s->nprofiles, sizeof(*s->profiles), 16) < 0)
			{
				fail(err, errlen, "out of memory");
				goto bad;
			}
			pi = s->nprofiles++;
			memset(&s->profiles[pi], 0, sizeof(mx_profile));
			memcpy(s->profiles[pi].model, model, sizeof(model));
		}
		pr = &s->profiles[pi];
		for (i = 0; i < pr->npoints; i++)
			if (pr->points[i].type == pt.type && pr->points[i].gpus == pt.gpus)
			{
				fail(err, errlen, "%s:%d: duplicate profile (%s, %s, %d)", path, r.line, model, tname, pt.gpus);
				goto bad;
			}
		{
			mx_profile_point *np = realloc(pr->points, (size_t) (pr->npoints + 1) * sizeof(*np));

			if (np == NULL)
			{
				fail(err, errlen, "out of memory");
				goto bad;
			}
			pr->points = np;
			pr->points[pr->npoints++] = pt;
		}
	}
	if (rc < 0)
	{
		fail(err, errlen, "%s", r.err);
		goto bad;
	}
	csv_close(&r);
	return 0;
bad:
	csv_close(&r);
	return -1;
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
	csv_reader	r;
	static const char *const names[] = {"name", "submit_s", "model", "model_class", "gpu_type", "gpus",
	"duration_s", NULL};
	int			cols[7],
				cmin,
				cmax,
				callowed,
				cprio,
				cowner,
				cest,
				rc,
				cap = 0;
	mx_snapshot *s = &w->cluster;
	uint64_t	all = s->ntypes >= 64 ? ~(uint64_t) 0 : (((uint64_t) 1 << s->ntypes) - 1);

	if (csv_open(&r, path) < 0)
		return fail(err, errlen, "%s", r.err);
	if (need_cols(&r, names, cols, err, errlen) < 0)
		goto bad;
	cmin = csv_col(&r, "min_gpus");
	cmax = csv_col(&r, "max_gpus");
	callowed = csv_col(&r, "allowed_types");
	cprio = csv_col(&r, "priority");
	cowner = csv_col(&r, "owner");
	cest = csv_col(&r, "estimate_s");
	while ((rc = csv_next(&r)) > 0)
	{
		sim_job		j;
		mx_job	   *mj = &j.job;
		char		tname[MX_NAME_LEN];
		const char *v;

		memset(&j, 0, sizeof(j));
		j.line = r.line;
		mj->job_id = w->njobs + 1;
		if (copy_name(j.name, csv_get(&r, cols[0])) < 0 || j.name[0] == '\0')
		{
			fail(err, errlen, "%s:%d: name must be 1..%d characters", path, r.line, MX_NAME_LEN - 1);
			goto bad;
		}
		v = csv_get(&r, cols[1]);
		if (csv_parse_double(v, &j.submit) < 0 || j.submit < 0)
		{
			fail(err, errlen, "%s:%d: submit_s \"%s\" must be a number >= 0", path, r.line, v);
			goto bad;
		}
		if (copy_name(j.model, csv_get(&r, cols[2])) < 0)
		{
			fail(err, errlen, "%s:%d: model longer than %d characters", path, r.line, MX_NAME_LEN - 1);
			goto bad;
		}
		/* an unknown model falls back to the scaling model (SPEC §7) */
		mj->profile = j.model[0] ? mx_profile_index(s, j.model) : -1;
		v = csv_get(&r, cols[3]);
		if (v[0] == '\0' || strcmp(v, "soft") == 0)
			mj->cls = MX_SOFT;
		else if (strcmp(v, "hard") == 0)
			mj->cls = MX_HARD;
		else
		{
			fail(err, errlen, "%s:%d: model_class \"%s\" must be hard or soft", path, r.line, v);
			goto bad;
		}
		v = csv_get(&r, cols[4]);
		if (copy_name(tname, v) < 0)
		{
			fail(err, errlen, "%s:%d: unknown gpu_type \"%s\"", path, r.line, v);
			goto bad;
		}
		if (tname[0] == '\0')
		{
			if (mj->cls == MX_HARD)
			{
				fail(err, errlen, "%s:%d: hard job \"%s\" needs a gpu_type", path, r.line, j.name);
				goto bad;
			}
			mj->ref_type = -1;
		}
		else if ((mj->ref_type = mx_type_index(s, tname)) < 0)
		{
			fail(err, errlen, "%s:%d: unknown gpu_type \"%s\" (not in the types file)", path, r.line, tname);
			goto bad;
		}
		v = csv_get(&r, cols[5]);
		if (csv_parse_int(v, &mj->ref_gpus) < 0 || mj->ref_gpus < 1 || mj->ref_gpus > SIM_MAX_JOB_GPUS)
		{
			fail(err, errlen, "%s:%d: gpus \"%s\" must be an integer 1..%d", path, r.line, v, SIM_MAX_JOB_GPUS);
			goto bad;
		}
		v = csv_get(&r, cols[6]);
		if (csv_parse_double(v, &mj->duration) < 0 || !(mj->duration > 0))
		{
			fail(err, errlen, "%s:%d: duration_s \"%s\" must be a positive number", path, r.line, v);
			goto bad;
		}
		/* every policy plans with the estimate; the job runs for duration_s */
		j.true_duration = mj->duration;
		v = csv_get(&r, cest);
		if (v[0] != '\0' && (csv_parse_double(v, &mj->duration) < 0 || !(mj->duration > 0) ||
							 !isfinite(mj->duration)))
		{
			fail(err, errlen, "%s:%d: estimate_s \"%s\" must be a positive number", path, r.line, v);
			goto bad;
		}
		if (mj->cls == MX_HARD)
		{
			mj->min_gpus = mj->max_gpus = mj->ref_gpus;
			mj->allowed = (uint64_t) 1 << mj->ref_type;
		}
		else
		{
			/* defaults shared with the extension: min = max(1, gpus / 2), max = gpus */
			mj->min_gpus = mj->ref_gpus / 2 > 1 ? mj->ref_gpus / 2 : 1;
			mj->max_gpus = mj->ref_gpus;
			v = csv_get(&r, cmin);
			if (v[0] != '\0' && (csv_parse_int(v, &mj->min_gpus) < 0 || mj->min_gpus < 1 ||
								 mj->min_gpus > SIM_MAX_JOB_GPUS))
			{
				fail(err, errlen, "%s:%d: min_gpus \"%s\" must be an integer 1..%d", path, r.line, v, SIM_MAX_JOB_GPUS);
				goto bad;
			}
			v = csv_get(&r, cmax);
			if (v[0] != '\0' && (csv_parse_int(v, &mj->max_gpus) < 0 || mj->max_gpus < 1 ||
								 mj->max_gpus > SIM_MAX_JOB_GPUS))
			{
				fail(err, errlen, "%s:%d: max_gpus \"%s\" must be an integer 1..%d", path, r.line, v, SIM_MAX_JOB_GPUS);
				goto bad;
			}
			if (mj->min_gpus > mj->max_gpus)
			{
				fail(err, errlen, "%s:%d: min_gpus %d > max_gpus %d", path, r.line, mj->min_gpus, mj->max_gpus);
				goto bad;
			}
			v = csv_get(&r, callowed);
			mj->allowed = 0;
			if (v[0] == '\0')
				mj->allowed = all;
			else
			{
				char		buf[1024];
				char	   *tok,
						   *save;

				snprintf(buf, sizeof(buf), "%s", v);
				for (tok = strtok_r(buf, "|", &save); tok; tok = strtok_r(NULL, "|", &save))
				{
					int			t;

					if (copy_name(tname, tok) < 0 || (t = mx_type_index(s, tname)) < 0)
					{
						fail(err, errlen, "%s:%d: unknown type \"%s\" in allowed_types", path, r.line, tok);
						goto bad;
					}
					mj->allowed |= (uint64_t) 1 << t;
				}
				if (mj->allowed == 0)
				{
					fail(err, errlen, "%s:%d: allowed_types \"%s\" names no type", path, r.line, v);
					goto bad;
				}
			}
		}
		v = csv_get(&r, cprio);
		if (v[0] != '\0' && csv_parse_int(v, &mj->priority) < 0)
		{
			fail(err, errlen, "%s:%d: priority \"%s\" must be an integer", path, r.line, v);
			goto bad;
		}
		mj->prev_type = -1;
		v = csv_get(&r, cowner);
		mj->owner = v[0] ? sim_owner_index(w, v) : -1;
		if (v[0] && mj->owner < 0)
		{
			fail(err, errlen, "%s:%d: owner \"%s\" must have at most %d characters", path, r.line, v, MX_NAME_LEN - 1);
			goto bad;
		}
		if (mj->cls == MX_SOFT)
			w->nsoft++;
		if (reserve_one((void **) &w->jobs, &cap, w->njobs, sizeof(*w->jobs), 256) < 0)
		{
			fail(err, errlen, "out of memory");
			goto bad;
		}
		w->jobs[w->njobs++] = j;
	}
	if (rc < 0)
	{
		fail(err, errlen, "%s", r.err);
		goto bad;
	}
	if (w->njobs == 0)
	{
		fail(err, errlen, "%s: no jobs", path);
		goto bad;
	}
	qsort(w->jobs, w->njobs, sizeof(sim_job), cmp_submit);
	csv_close(&r);
	return 0;
bad:
	csv_close(&r);
	return -1;
}

void
sim_world_free(sim_world *w)
{
	mx_snapshot_free(&w->cluster);
	free(w->jobs);
	free(w->owners);
	free(w->max_waiting);
	memset(w, 0, sizeof(*w));
}
