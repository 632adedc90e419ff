/*
 * simout.c — per-job CSV, the JSON line and the readable summary (sim.h).
 */
#include <math.h>
#include <string.h>
#include <stdlib.h>

#include "sim.h"
#include "utility.h"

/* A CSV field, quoted when it holds a comma, quote or newline. */
static void
csv_field(FILE *f, const char *v)
{
	if (strpbrk(v, ",\"\n\r") == NULL)
	{
		fputs(v, f);
		return;
	}
	fputc('"', f);
	for (; *v; v++)
	{
		if (*v == '"')
			fputc('"', f);
		fputc(*v, f);
	}
	fputc('"', f);
}

static void
csv_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.3f", v);
}

static const char *
state_name(sim_job_state s)
{
	switch (s)
	{
		case SJ_DONE:
			return "completed";
		case SJ_REJECTED:
			return "rejected";
		case SJ_RUNNING:
			return "running";
		case SJ_WAITING:
		case SJ_FUTURE:
		case SJ_UNFINISHED:
			return "unfinished";
	}
	return "unfinished";
}

/* The nodes column, node:gpus parts joined by '|': one part per node of a gang, however many. -1: out of memory. */
static int
parts_field(FILE *f, const sim_world *w, const sim_job *j)
{
	size_t		len = 1,
				off = 0;
	char	   *s;
	int			k;

	for (k = 0; k < j->nparts; k++)
		len += strlen(w->cluster.nodes[j->parts[k].node].name) + 14;
	s = malloc(len);
	if (s == NULL)
		return -1;
	s[0] = '\0';
	for (k = 0; k < j->nparts; k++)
		off += snprintf(s + off, len - off, "%s%s:%d", k ? "|" : "",
						w->cluster.nodes[j->parts[k].node].name, j->parts[k].gpus);
	csv_field(f, s);
	free(s);
	return 0;
}

int
sim_write_jobs_csv(const sim_world *w, FILE *f)
{
	int			i;

	fprintf(f, "name,job_id,submit_s,start_s,finish_s,gpu_type,gpus,wait_s,jct_s,runtime_s,utility,"
			"model,model_class,ref_type,ref_gpus,min_gpus,max_gpus,duration_s,first_planned_start_s,"
			"rounds_waited,nodes,status,reason,estimate_s\n");
	for (i = 0; i < w->njobs; i++)
	{
		const sim_job *j = &w->jobs[i];
		int			ran = j->state == SJ_DONE;

		csv_field(f, j->name);
		fprintf(f, ",%lld,", (long long) j->job.job_id);
		csv_num(f, j->submit);
		fputc(',', f);
		if (ran)
			csv_num(f, j->start);
		fputc(',', f);
		if (ran)
			csv_num(f, j->finish);
		fputc(',', f);
		if (ran && j->type >= 0)
			csv_field(f, w->cluster.types[j->type].name);
		fputc(',', f);
		if (ran)
			fprintf(f, "%d", j->gpus);
		fputc(',', f);
		if (ran)
			csv_num(f, j->start - j->submit);
		fputc(',', f);
		if (ran)
			csv_num(f, j->finish - j->submit);
		fputc(',', f);
		if (ran)
			csv_num(f, j->finish - j->start);
		fputc(',', f);
		if (ran)
			fprintf(f, "%.6f", j->utility);
		fputc(',', f);
		csv_field(f, j->model);
		fprintf(f, ",%s,", j->job.cls == MX_HARD ? "hard" : "soft");
		if (j->job.ref_type >= 0)
			csv_field(f, w->cluster.types[j->job.ref_type].name);
		fprintf(f, ",%d,%d,%d,", j->job.ref_gpus, j->job.min_gpus, j->job.max_gpus);
		csv_num(f, j->true_duration);
		fputc(',', f);
		csv_num(f, j->first_planned_start);
		fprintf(f, ",%lld,", j->replans);
		if (ran && parts_field(f, w, j) < 0)
			return -1;
		fprintf(f, ",%s,", state_name(j->state));
		csv_field(f, ran ? "" : j->reason);
		fputc(',', f);
		csv_num(f, j->job.duration);
		fputc('\n', f);
	}
	return 0;
}

void
sim_json_num(FILE *f, const char *key, double v, int last)
{
	if (isfinite(v))
		fprintf(f, "\"%s\": %.12g%s", key, v, last ? "" : ", ");
	else
		fprintf(f, "\"%s\": null%s", key, last ? "" : ", ");
}

static void
json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++)
	{
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char) *s < 0x20)
			fprintf(f, "\\u%04x", (unsigned char) *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

/* Per owner (trace column owner): "owners": [{owner, gpu_seconds, entitlement, avg_slowdown}, ...] */
static void
json_owners(const sim_result *r, FILE *f)
{
	int			i;

	sim_json_num(f, "fairness_jain", r->fairness_jain, 0);
	fprintf(f, "\"owners\": [");
	for (i = 0; i < r->nowners; i++)
	{
		fprintf(f, "%s{\"owner\": ", i ? ", " : "");
		json_str(f, r->owners[i].owner);
		fprintf(f, ", ");
		sim_json_num(f, "gpu_seconds", r->owners[i].gpu_seconds, 0);
		sim_json_num(f, "entitlement", r->owners[i].entitlement, 0);
		sim_json_num(f, "avg_slowdown", r->owners[i].avg_slowdown, 0);
		sim_json_num(f, "finish_time_fairness", r->owners[i].finish_time_fairness, 1);
		fputc('}', f);
	}
	fprintf(f, "], ");
}

void
sim_print_json(const sim_result *r, const sim_options *o, FILE *f)
{
	fprintf(f, "{\"policy\": \"%s\", ", r->policy);
	fprintf(f, "\"jobs\": %d, \"finished\": %d, \"rejected\": %d, \"unfinished\": %d, ",
			r->jobs, r->finished, r->rejected, r->unfinished);
	sim_json_num(f, "avg_jct_s", r->avg_jct, 0);
	sim_json_num(f, "p50_jct_s", r->p50_jct, 0);
	sim_json_num(f, "p99_jct_s", r->p99_jct, 0);
	sim_json_num(f, "max_jct_s", r->max_jct, 0);
	sim_json_num(f, "makespan_s", r->makespan, 0);
	sim_json_num(f, "avg_wait_s", r->avg_wait, 0);
	sim_json_num(f, "p99_wait_s", r->p99_wait, 0);
	sim_json_num(f, "gpu_util", r->gpu_util, 0);
	sim_json_num(f, "gpu_seconds", r->gpu_seconds, 0);
	fprintf(f, "\"cluster_gpus\": %d, ", r->cluster_gpus);
	sim_json_num(f, "solve_ms_p50", r->solve_ms_p50, 0);
	sim_json_num(f, "solve_ms_p95", r->solve_ms_p95, 0);
	sim_json_num(f, "solve_ms_max", r->solve_ms_max, 0);
	sim_json_num(f, "solve_ms_total", r->solve_ms_total, 0);
	fprintf(f, "\"rounds\": %lld, \"events\": %lld, \"milp_rounds\": %d, \"fallback_rounds\": %d, ",
			r->rounds, r->events, r->milp_rounds, r->fallback_rounds);
	fprintf(f, "\"soft_jobs\": %d, \"moved\": %d, ", r->soft_jobs, r->moved);
	sim_json_num(f, "avg_utility", r->avg_utility, 0);
	fprintf(f, "\"hard_finished\": %d, ", r->hard_finished);
	sim_json_num(f, "avg_jct_hard_s", r->avg_jct_hard, 0);
	sim_json_num(f, "ftf_mean", r->ftf_mean, 0);
	sim_json_num(f, "ftf_p99", r->ftf_p99, 0);
	sim_json_num(f, "ftf_max", r->ftf_max, 0);
	fprintf(f, "\"overran\": %d, ", r->overran);
	fprintf(f, "\"place_failures\": %d, ", r->place_failures);
	fprintf(f, "\"use_milp\": %s, ", o->planner.use_milp ? "true" : "false");
	sim_json_num(f, "time_limit_ms", o->planner.time_limit_ms, 0);
	fprintf(f, "\"window_jobs\": %d, ", o->planner.window_jobs);
	fprintf(f, "\"fair_share\": %s, ", o->planner.fair_share ? "true" : "false");
	json_owners(r, f);
	sim_json_num(f, "wall_s", r->wall_s, 1);
	fprintf(f, "}\n");
}

static void
dur(FILE *f, const char *label, double s)
{
	if (!isfinite(s))
		fprintf(f, "  %-22s %12s\n", label, "-");
	else if (s >= 3600)
		fprintf(f, "  %-22s %12.1f s  (%.2f h)\n", label, s, s / 3600);
	else
		fprintf(f, "  %-22s %12.1f s\n", label, s);
}

void
sim_print_summary(const sim_result *r, const sim_options *o, FILE *f)
{
	fprintf(f, "policy %s: %d jobs, %d finished, %d rejected, %d unfinished on %d GPUs\n",
			r->policy, r->jobs, r->finished, r->rejected, r->unfinished, r->cluster_gpus);
	dur(f, "average JCT", r->avg_jct);
	dur(f, "median JCT", r->p50_jct);
	dur(f, "p99 JCT", r->p99_jct);
	dur(f, "makespan", r->makespan);
	dur(f, "average wait", r->avg_wait);
	if (isfinite(r->gpu_util))
		fprintf(f, "  %-22s %12.1f %%\n", "GPU utilisation", 100 * r->gpu_util);
	else
		fprintf(f, "  %-22s %12s\n", "GPU utilisation", "-");
	fprintf(f, "  %-22s %12d of %d (%d soft jobs)", "other configuration", r->moved, r->finished, r->soft_jobs);
	if (isfinite(r->avg_utility))
		fprintf(f, ", mean utility %.3f", r->avg_utility);
	fputc('\n', f);
	fprintf(f, "  %-22s %12lld (%lld events), solve p50 %.2f ms, p95 %.2f ms, max %.2f ms\n",
			"rounds", r->rounds, r->events, r->solve_ms_p50, r->solve_ms_p95, r->solve_ms_max);
	if (o->planner.policy == MX_POLICY_MIXDNN)
		fprintf(f, "  %-22s %12d MILP rounds, %d fallbacks\n", "solver", r->milp_rounds, r->fallback_rounds);
	if (r->place_failures)
		fprintf(f, "  %-22s %12d\n", "placement failures", r->place_failures);
	fprintf(f, "  %-22s %12.2f s\n", "simulation wall time", r->wall_s);
}

/*
 * The non-dominated configurations of every job (mx_job_configs, on the
 * cluster with no job running) and its true run time on each: the input of
 * a clairvoyant bound (tools/opt_lpbound.py) that must cover every choice
 * the planner and the comparators could make. A policy on the requested
 * configuration may run a dominated one; a listed configuration of the
 * same type with no more GPUs and no longer run could replace it. The same
 * code as the planner's, not a copy of the model.
 */
int
sim_write_configs_csv(const sim_world *w, const sim_options *o, FILE *f)
{
	double		alpha = o->planner.scaling_alpha;
	int			i,
				c;

	if (!(alpha >= 0) || !isfinite(alpha))
		alpha = MX_FITTED_ALPHA;
	fprintf(f, "name,submit_s,model_class,gpu_type,gpus,runtime_s\n");
	for (i = 0; i < w->njobs; i++)
	{
		const sim_job *sj = &w->jobs[i];
		mx_job		j = sj->job;
		int			mx = mx_job_configs_max(&w->cluster, &j),
					n;
		mx_config  *cf = malloc((size_t) (mx > 0 ? mx : 1) * sizeof(mx_config));

		if (cf == NULL)
			return -1;
		/* run times scale with the duration: the true one, not the estimate */
		j.duration = sj->true_duration;
		n = mx > 0 ? mx_job_configs(&w->cluster, &j, alpha, cf, mx) : 0;
		for (c = 0; c < n; c++)
		{
			csv_field(f, sj->name);
			fputc(',', f);
			csv_num(f, sj->submit);
			fprintf(f, ",%s,", j.cls == MX_HARD ? "hard" : "soft");
			csv_field(f, w->cluster.types[cf[c].type].name);
			fprintf(f, ",%d,", cf[c].gpus);
			csv_num(f, cf[c].runtime);
			fputc('\n', f);
		}
		free(cf);
	}
	return 0;
}
