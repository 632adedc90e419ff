/*
 * main.c — bin/mixdnn-sim: replay a job trace against a cluster with a
 * virtual clock, using the extension's planner (SPEC §6, docs/simulator.md).
 *
 * Exit status: 0 done; 1 the simulation stalled or the planner failed;
 * 2 bad usage or bad input.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim.h"

static void
usage(FILE *f)
{
	fprintf(f,
			"usage: mixdnn-sim --types TYPES.csv --nodes NODES.csv [--profiles PROFILES.csv]\n"
			"                  --trace TRACE.csv --policy mixdnn|k8s|static|backfill|sjf|hgreedy|hsjf|k8s-any\n"
			"                  [--json] [--out JOBS.csv] [options]\n"
			"\n"
			"options:\n"
			"  --json                 print one JSON object with the metrics on the last line\n"
			"  --out FILE             per-job CSV (times in seconds from the trace start)\n"
			"  --util-out FILE        busy GPUs over time (CSV, one row per event)\n"
			"  --rounds-out FILE      one CSV row per scheduling round\n"
			"  --soft-share P         make each job soft with probability P (0..1), else hard;\n"
			"                         jobs without gpu_type stay soft (default: as in the trace)\n"
			"  --seed N               seed of --soft-share (default 1)\n"
			"  --no-milp              mixdnn: heuristic only\n"
			"  --time-limit-ms MS     mixdnn: MILP wall-clock budget per round\n"
			"  --window N             mixdnn: waiting jobs inside the MILP\n"
			"  --mip-gap G            mixdnn: relative MIP gap\n"
			"  --grid-points N        mixdnn: start-time points of the MILP grid\n"
			"  --alpha A              scaling exponent for unprofiled configurations\n"
			"  --aging-s S            mixdnn: a job's weight grows by its base weight every S s of waiting\n"
			"  --starve-factor X      mixdnn: waiting X times its best run time earns a reservation (0: never)\n"
			"  --critical-margin MU   mixdnn: slack share at which a long job is critical (<0: never)\n"
			"  --drain-margin NU      mixdnn: slack share below which a critical job reserves (<0: never)\n"
			"  --reserve-all          mixdnn: every job reserves in its turn (the planner before the guards)\n"
			"  --start-now-milp       mixdnn: the start-now MILP instead of the configuration LP (ablation)\n"
			"  --lp-window N          mixdnn: waiting jobs inside the configuration LP (default 60)\n"
			"  --overrun-s S          assumed extra time of a job past its expected end\n"
			"  --epoch T              epoch seconds of trace time 0 (default %.0f)\n"
			"  --max-rounds N         stop after N rounds (unfinished jobs are reported)\n"
			"  --watch NAME           print job NAME's plan of every round on stderr\n"
			"  --shares FILE          role,shares: fair-share weights of the trace's owners (default 1)\n"
			"  --quotas FILE          role,gpu_type,max_gpus,max_waiting_jobs,borrow: limits per owner\n"
			"  --fair-share           weigh each job by its owner's fair-share factor (docs/model.md)\n"
			"  --fair-share-half-life-s S  half-life of the usage history (default 86400)\n"
			"  --quiet                no progress line on stderr\n"
			"  --help\n",
			SIM_DEFAULT_EPOCH);
}

static int
bad(const char *fmt, const char *arg)
{
	fprintf(stderr, "mixdnn-sim: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	return 2;
}

static int
parse_num(const char *opt, const char *v, double lo, double hi, double *out)
{
	char	   *end;
	double		d;

	errno = 0;
	d = strtod(v, &end);
	if (errno || end == v || *end != '\0' || !isfinite(d) || d < lo || d > hi)
	{
		fprintf(stderr, "mixdnn-sim: %s: \"%s\" is not a number in [%g, %g]\n", opt, v, lo, hi);
		return -1;
	}
	*out = d;
	return 0;
}

/* splitmix64: a job's soft/hard draw depends only on seed and job_id. */
static double
unit_hash(uint64_t seed, uint64_t id)
{
	uint64_t	z = seed * 0x9E3779B97F4A7C15ULL + id * 0xBF58476D1CE4E5B9ULL + 0x94D049BB133111EBULL;

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	z ^= z >> 31;
	return (double) (z >> 11) / 9007199254740992.0;
}

static void
apply_soft_share(sim_world *w, double share, uint64_t seed)
{
	int			i;
	uint64_t	all = w->cluster.ntypes >= 64 ? ~(uint64_t) 0 :
		(((uint64_t) 1 << w->cluster.ntypes) - 1);

	w->nsoft = 0;
	for (i = 0; i < w->njobs; i++)
	{
		mx_job	   *j = &w->jobs[i].job;
		int			soft = j->ref_type < 0 || unit_hash(seed, (uint64_t) j->job_id) < share;

		if (soft && j->cls == MX_HARD)
		{
			j->cls = MX_SOFT;
			j->min_gpus = j->ref_gpus / 2 > 1 ? j->ref_gpus / 2 : 1;
			j->max_gpus = j->ref_gpus;
			j->allowed = all;
		}
		else if (!soft && j->cls == MX_SOFT)
		{
			j->cls = MX_HARD;
			j->min_gpus = j->max_gpus = j->ref_gpus;
			j->allowed = (uint64_t) 1 << j->ref_type;
		}
		if (j->cls == MX_SOFT)
			w->nsoft++;
	}
}

static FILE *
open_out(const char *path)
{
	FILE	   *f;

	if (strcmp(path, "-") == 0)
		return stdout;
	f = fopen(path, "w");
	if (f == NULL)
		fprintf(stderr, "mixdnn-sim: cannot write %s: %s\n", path, strerror(errno));
	return f;
}

enum
{
	OPT_TYPES = 256, OPT_NODES, OPT_PROFILES, OPT_TRACE, OPT_POLICY, OPT_JSON, OPT_OUT,
	OPT_UTIL_OUT, OPT_ROUNDS_OUT, OPT_SOFT_SHARE, OPT_SEED, OPT_NO_MILP, OPT_TIME_LIMIT,
	OPT_WINDOW, OPT_GAP, OPT_GRID, OPT_ALPHA, OPT_AGING, OPT_OVERRUN, OPT_STARVE, OPT_CRITICAL, OPT_RESERVE_ALL, OPT_DRAIN, OPT_EPOCH,
	OPT_MAX_ROUNDS, OPT_QUIET, OPT_HELP, OPT_WATCH,
	OPT_SHARES, OPT_QUOTAS, OPT_FAIR_SHARE, OPT_HALF_LIFE,
	OPT_START_NOW_MILP, OPT_LP_WINDOW
};

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"types", required_argument, NULL, OPT_TYPES},
		{"nodes", required_argument, NULL, OPT_NODES},
		{"profiles", required_argument, NULL, OPT_PROFILES},
		{"trace", required_argument, NULL, OPT_TRACE},
		{"policy", required_argument, NULL, OPT_POLICY},
		{"json", no_argument, NULL, OPT_JSON},
		{"out", required_argument, NULL, OPT_OUT},
		{"util-out", required_argument, NULL, OPT_UTIL_OUT},
		{"rounds-out", required_argument, NULL, OPT_ROUNDS_OUT},
		{"soft-share", required_argument, NULL, OPT_SOFT_SHARE},
		{"seed", required_argument, NULL, OPT_SEED},
		{"no-milp", no_argument, NULL, OPT_NO_MILP},
		{"time-limit-ms", required_argument, NULL, OPT_TIME_LIMIT},
		{"window", required_argument, NULL, OPT_WINDOW},
		{"mip-gap", required_argument, NULL, OPT_GAP},
		{"grid-points", required_argument, NULL, OPT_GRID},
		{"alpha", required_argument, NULL, OPT_ALPHA},
		{"aging-s", required_argument, NULL, OPT_AGING},
		{"overrun-s", required_argument, NULL, OPT_OVERRUN},
		{"starve-factor", required_argument, NULL, OPT_STARVE},
		{"critical-margin", required_argument, NULL, OPT_CRITICAL},
		{"reserve-all", no_argument, NULL, OPT_RESERVE_ALL},
		{"drain-margin", required_argument, NULL, OPT_DRAIN},
		{"epoch", required_argument, NULL, OPT_EPOCH},
		{"max-rounds", required_argument, NULL, OPT_MAX_ROUNDS},
		{"quiet", no_argument, NULL, OPT_QUIET},
		{"watch", required_argument, NULL, OPT_WATCH},
		{"shares", required_argument, NULL, OPT_SHARES},
		{"quotas", required_argument, NULL, OPT_QUOTAS},
		{"fair-share", no_argument, NULL, OPT_FAIR_SHARE},
		{"fair-share-half-life-s", required_argument, NULL, OPT_HALF_LIFE},
		{"help", no_argument, NULL, OPT_HELP},
		{"start-now-milp", no_argument, NULL, OPT_START_NOW_MILP},
		{"lp-window", required_argument, NULL, OPT_LP_WINDOW},
		{NULL, 0, NULL, 0}
	};
	const char *types = NULL,
			   *nodes = NULL,
			   *profiles = NULL,
			   *trace = NULL,
			   *policy = NULL,
			   *out = NULL,
			   *util_out = NULL,
			   *rounds_out = NULL,
			   *shares = NULL,
			   *quotas = NULL;
	int			json = 0,
				quiet = 0,
				c,
				rc;
	double		soft_share = -1,
				seed = 1,
				d;
	sim_options o;
	sim_world	w;
	sim_result	r;
	char		err[512];
	FILE	   *fout = NULL;

	sim_options_default(&o);
	memset(&w, 0, sizeof(w));
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1)
	{
		switch (c)
		{
			case OPT_TYPES:
				types = optarg;
				break;
			case OPT_NODES:
				nodes = optarg;
				break;
			case OPT_PROFILES:
				profiles = optarg;
				break;
			case OPT_TRACE:
				trace = optarg;
				break;
			case OPT_POLICY:
				policy = optarg;
				break;
			case OPT_JSON:
				json = 1;
				break;
			case OPT_OUT:
				out = optarg;
				break;
			case OPT_UTIL_OUT:
				util_out = optarg;
				break;
			case OPT_ROUNDS_OUT:
				rounds_out = optarg;
				break;
			case OPT_SOFT_SHARE:
				if (parse_num("--soft-share", optarg, 0, 1, &soft_share) < 0)
					return 2;
				break;
			case OPT_SEED:
				if (parse_num("--seed", optarg, 0, 1e15, &seed) < 0)
					return 2;
				break;
			case OPT_NO_MILP:
				o.planner.use_milp = 0;
				break;
			case OPT_TIME_LIMIT:
				if (parse_num("--time-limit-ms", optarg, 1, 3.6e6, &o.planner.time_limit_ms) < 0)
					return 2;
				break;
			case OPT_WINDOW:
				if (parse_num("--window", optarg, 0, 100000, &d) < 0)
					return 2;
				o.planner.window_jobs = (int) d;
				break;
			case OPT_GAP:
				if (parse_num("--mip-gap", optarg, 0, 1, &o.planner.mip_gap) < 0)
					return 2;
				break;
			case OPT_GRID:
				if (parse_num("--grid-points", optarg, 2, 100000, &d) < 0)
					return 2;
				o.planner.grid_points = (int) d;
				break;
			case OPT_ALPHA:
				if (parse_num("--alpha", optarg, 0, 1, &o.planner.scaling_alpha) < 0)
					return 2;
				break;
			case OPT_AGING:
				if (parse_num("--aging-s", optarg, 0, 1e12, &o.planner.aging_s) < 0)
					return 2;
				break;
			case OPT_OVERRUN:
				if (parse_num("--overrun-s", optarg, 0, 1e12, &o.planner.overrun_s) < 0)
					return 2;
				break;
			case OPT_STARVE:
				if (parse_num("--starve-factor", optarg, 0, 1e6, &o.planner.starve_factor) < 0)
					return 2;
				break;
			case OPT_CRITICAL:
				if (parse_num("--critical-margin", optarg, -1, 100, &o.planner.critical_margin) < 0)
					return 2;
				break;
			case OPT_DRAIN:
				if (parse_num("--drain-margin", optarg, -1, 100, &o.planner.drain_margin) < 0)
					return 2;
				break;
			case OPT_RESERVE_ALL:
				o.planner.reserve_all = 1;
				break;
			case OPT_START_NOW_MILP:
				o.planner.lp_configs = 0;
				break;
			case OPT_LP_WINDOW:
				if (parse_num("--lp-window", optarg, 1, 100000, &d) < 0)
					return 2;
				o.planner.lp_window = (int) d;
				break;
			case OPT_EPOCH:
				if (parse_num("--epoch", optarg, 0, 1e11, &o.epoch) < 0)
					return 2;
				break;
			case OPT_MAX_ROUNDS:
				if (parse_num("--max-rounds", optarg, 0, 1e9, &d) < 0)
					return 2;
				o.max_rounds = (int) d;
				break;
			case OPT_QUIET:
				quiet = 1;
				break;
			case OPT_WATCH:
				o.watch = optarg;
				break;
			case OPT_SHARES:
				shares = optarg;
				break;
			case OPT_QUOTAS:
				quotas = optarg;
				break;
			case OPT_FAIR_SHARE:
				o.planner.fair_share = 1;
				break;
			case OPT_HALF_LIFE:
				if (parse_num("--fair-share-half-life-s", optarg, 60, 1e9, &o.planner.fair_share_half_life_s) < 0)
					return 2;
				break;
			case OPT_HELP:
				usage(stdout);
				return 0;
			default:
				if (optopt >= OPT_TYPES)
					fprintf(stderr, "mixdnn-sim: option %s needs a value\n", argv[optind - 1]);
				else
					fprintf(stderr, "mixdnn-sim: unknown option %s\n", argv[optind - 1]);
				usage(stderr);
				return 2;
		}
	}
	if (optind < argc)
		return bad("unexpected argument \"%s\" (see --help)", argv[optind]);
	if (!types)
		return bad("%s", "--types TYPES.csv is required");
	if (!nodes)
		return bad("%s", "--nodes NODES.csv is required");
	if (!trace)
		return bad("%s", "--trace TRACE.csv is required");
	if (!policy)
		return bad("%s", "--policy mixdnn|k8s|static|backfill|sjf|hgreedy|hsjf|k8s-any is required");
	if (mx_policy_parse(policy, &o.planner.policy) < 0)
		return bad("unknown policy \"%s\" (mixdnn, k8s, static, backfill, sjf, hgreedy, hsjf or k8s-any)", policy);

	if (sim_load_types(&w, types, err, sizeof(err)) < 0 ||
		sim_load_nodes(&w, nodes, err, sizeof(err)) < 0 ||
		(profiles && sim_load_profiles(&w, profiles, err, sizeof(err)) < 0) ||
		sim_load_trace(&w, trace, err, sizeof(err)) < 0 ||
		(shares && sim_load_shares(&w, shares, err, sizeof(err)) < 0) ||
		(quotas && sim_load_quotas(&w, quotas, err, sizeof(err)) < 0))
	{
		fprintf(stderr, "mixdnn-sim: %s\n", err);
		sim_world_free(&w);
		return 2;
	}
	if (soft_share >= 0)
		apply_soft_share(&w, soft_share, (uint64_t) seed);

	o.progress = !quiet && isatty(STDERR_FILENO);
	if (util_out && (o.util_out = open_out(util_out)) == NULL)
		return 2;
	if (rounds_out && (o.rounds_out = open_out(rounds_out)) == NULL)
		return 2;
	if (out && (fout = open_out(out)) == NULL)
		return 2;

	rc = sim_run(&w, &o, &r, err, sizeof(err));
	if (rc < 0)
	{
		fprintf(stderr, "mixdnn-sim: %s\n", err);
		sim_world_free(&w);
		return 1;
	}
	if (rc > 0)
		fprintf(stderr, "mixdnn-sim: warning: %s\n", err);
	if (r.rejected > 0 && !quiet)
	{
		int			i,
					shown = 0;

		fprintf(stderr, "mixdnn-sim: warning: %d jobs can never run on this cluster and were rejected\n",
				r.rejected);
		for (i = 0; i < w.njobs && shown < 5; i++)
			if (w.jobs[i].state == SJ_REJECTED)
			{
				fprintf(stderr, "  %s (trace line %d): %s\n", w.jobs[i].name, w.jobs[i].line,
						w.jobs[i].reason);
				shown++;
			}
	}
	if (fout)
	{
		sim_write_jobs_csv(&w, fout);
		if (fout != stdout)
			fclose(fout);
	}
	if (o.util_out && o.util_out != stdout)
		fclose(o.util_out);
	if (o.rounds_out && o.rounds_out != stdout)
		fclose(o.rounds_out);
	if (json)
		sim_print_json(&r, &o, stdout);
	else
		sim_print_summary(&r, &o, stdout);
	sim_result_free(&r);
	sim_world_free(&w);
	return rc > 0 ? 1 : 0;
}
