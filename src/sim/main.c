/*
 * main.c — bin/mixdnn-sim: replay a job trace against a cluster with a
 * virtual clock, using the extension's planner (contract §6, docs/simulator.md).
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
#include <sys/stat.h>
#include <unistd.h>

#include "plannerflags.h"
#include "sim.h"
#include "utility.h"

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
			"                         (of stderr when an output below is -, stdout)\n"
			"  --out FILE             per-job CSV (times in seconds from the trace start)\n"
			"  --util-out FILE        busy GPUs over time (CSV, one row per event)\n"
			"  --rounds-out FILE      one CSV row per scheduling round\n"
			"  --configs-out FILE     every job's candidate configurations and true run times (CSV)\n"
			"  --soft-share P         make each job soft with probability P (0..1), else hard;\n"
			"                         jobs without gpu_type stay soft (default: as in the trace)\n"
			"  --seed N               seed of --soft-share (default 1)\n"
			"  --epoch T              epoch seconds of trace time 0 (default %.0f)\n"
			"  --max-rounds N         stop after N rounds (unfinished jobs are reported)\n"
			"  --watch NAME           print job NAME's plan of every round on stderr\n"
			"  --shares FILE          role,shares: fair-share weights of the trace's owners (default 1)\n"
			"  --quotas FILE          role,gpu_type,max_gpus,max_waiting_jobs,borrow: limits per owner\n"
			"  --quiet                no progress line on stderr\n"
			"  --help\n"
			"planner options:\n",
			SIM_DEFAULT_EPOCH);
	planner_flags_usage(f);
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
	OPT_UTIL_OUT, OPT_ROUNDS_OUT, OPT_CONFIGS_OUT, OPT_SOFT_SHARE, OPT_SEED, OPT_EPOCH,
	OPT_MAX_ROUNDS, OPT_QUIET, OPT_HELP, OPT_WATCH, OPT_SHARES, OPT_QUOTAS
};

/* What the command line asks for. */
typedef struct sim_cli
{
	const char *types,
			   *nodes,
			   *profiles,
			   *trace,
			   *policy,
			   *out,
			   *util_out,
			   *rounds_out,
			   *configs_out,	/* --configs-out FILE, or NULL */
			   *shares,			/* --shares FILE, or NULL */
			   *quotas;			/* --quotas FILE, or NULL */
	int			json,
				quiet;
	double		soft_share;		/* < 0: as in the trace */
	double		seed;
	sim_options o;
} sim_cli;

#define MAX_LONGOPTS 64

static void
fill_longopts(struct option *longopts)
{
	static const struct option own[] = {
		{"types", required_argument, NULL, OPT_TYPES},
		{"nodes", required_argument, NULL, OPT_NODES},
		{"profiles", required_argument, NULL, OPT_PROFILES},
		{"trace", required_argument, NULL, OPT_TRACE},
		{"policy", required_argument, NULL, OPT_POLICY},
		{"json", no_argument, NULL, OPT_JSON},
		{"out", required_argument, NULL, OPT_OUT},
		{"util-out", required_argument, NULL, OPT_UTIL_OUT},
		{"rounds-out", required_argument, NULL, OPT_ROUNDS_OUT},
		{"configs-out", required_argument, NULL, OPT_CONFIGS_OUT},
		{"soft-share", required_argument, NULL, OPT_SOFT_SHARE},
		{"seed", required_argument, NULL, OPT_SEED},
		{"epoch", required_argument, NULL, OPT_EPOCH},
		{"max-rounds", required_argument, NULL, OPT_MAX_ROUNDS},
		{"quiet", no_argument, NULL, OPT_QUIET},
		{"watch", required_argument, NULL, OPT_WATCH},
		{"shares", required_argument, NULL, OPT_SHARES},
		{"quotas", required_argument, NULL, OPT_QUOTAS},
		{"help", no_argument, NULL, OPT_HELP},
	};
	int			n = (int) (sizeof(own) / sizeof(own[0]));

	memcpy(longopts, own, sizeof(own));
	(void) planner_flags_add(longopts, n, MAX_LONGOPTS);
}

/* One option of the simulator's own: 0, or the exit status on bad input. */
static int
own_option(sim_cli *cli, int c, const char *arg)
{
	double		d;

	switch (c)
	{
		case OPT_TYPES:
			cli->types = arg;
			break;
		case OPT_NODES:
			cli->nodes = arg;
			break;
		case OPT_PROFILES:
			cli->profiles = arg;
			break;
		case OPT_TRACE:
			cli->trace = arg;
			break;
		case OPT_POLICY:
			cli->policy = arg;
			break;
		case OPT_JSON:
			cli->json = 1;
			break;
		case OPT_OUT:
			cli->out = arg;
			break;
		case OPT_UTIL_OUT:
			cli->util_out = arg;
			break;
		case OPT_ROUNDS_OUT:
			cli->rounds_out = arg;
			break;
		case OPT_CONFIGS_OUT:
			cli->configs_out = arg;
			break;
		case OPT_SOFT_SHARE:
			return parse_num("--soft-share", arg, 0, 1, &cli->soft_share) < 0 ? 2 : 0;
		case OPT_SEED:
			return parse_num("--seed", arg, 0, 1e15, &cli->seed) < 0 ? 2 : 0;
		case OPT_EPOCH:
			return parse_num("--epoch", arg, 0, 1e11, &cli->o.epoch) < 0 ? 2 : 0;
		case OPT_MAX_ROUNDS:
			if (parse_num("--max-rounds", arg, 0, 1e9, &d) < 0)
				return 2;
			cli->o.max_rounds = (int) d;
			break;
		case OPT_QUIET:
			cli->quiet = 1;
			break;
		case OPT_WATCH:
			cli->o.watch = arg;
			break;
		case OPT_SHARES:
			cli->shares = arg;
			break;
		case OPT_QUOTAS:
			cli->quotas = arg;
			break;
	}
	return 0;
}

/*
 * Reads the command line into *cli. Returns -1 to go on, else the exit
 * status (0 after --help).
 */
static int
parse_args(int argc, char **argv, sim_cli *cli)
{
	struct option longopts[MAX_LONGOPTS];
	int			c,
				rc;

	fill_longopts(longopts);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1)
	{
		if (c == OPT_HELP)
		{
			usage(stdout);
			return 0;
		}
		if (c == '?' || c == ':')
		{
			if (optopt >= OPT_TYPES)
				fprintf(stderr, "mixdnn-sim: option %s needs a value\n", argv[optind - 1]);
			else
				fprintf(stderr, "mixdnn-sim: unknown option %s\n", argv[optind - 1]);
			usage(stderr);
			return 2;
		}
		rc = planner_flag_apply(&cli->o.planner, c, optarg, "mixdnn-sim");
		if (rc < 0)
			return 2;
		if (rc == 0 && (rc = own_option(cli, c, optarg)) != 0)
			return rc;
	}
	if (optind < argc)
		return bad("unexpected argument \"%s\" (see --help)", argv[optind]);
	if (!cli->types)
		return bad("%s", "--types TYPES.csv is required");
	if (!cli->nodes)
		return bad("%s", "--nodes NODES.csv is required");
	if (!cli->trace)
		return bad("%s", "--trace TRACE.csv is required");
	if (!cli->policy)
		return bad("%s", "--policy mixdnn|k8s|static|backfill|sjf|hgreedy|hsjf|k8s-any is required");
	/* quotas narrow a job's GPU counts per round (tenancy.c): counts the file would not list */
	if (cli->configs_out && cli->quotas)
		return bad("%s", "--configs-out cannot be used with --quotas: quotas change the configurations per round");
	if (mx_policy_parse(cli->policy, &cli->o.planner.policy) < 0)
		return bad("unknown policy \"%s\" (mixdnn, k8s, static, backfill, sjf, hgreedy, hsjf or k8s-any)",
				   cli->policy);
	return -1;
}

/*
 * Overrun rounds under mixdnn with --overrun-factor 0: a job past its
 * expected end is assumed to end --overrun-s from each round, so a job
 * waiting for its GPUs is planned that far ahead, and the round at that
 * start plans it as far ahead again, until the job really ends: one round
 * per --overrun-s of overrun. mixdnn's rounds read absolute time (aging,
 * the starvation and critical-wait guards), so such a round is not the one
 * before moved in time and cannot be skipped as skip_idle_rounds
 * (simrun.c) skips those of static and backfill. A job that could overrun
 * by more than SIM_MAX_OVERRUN_ROUNDS x --overrun-s, on the slowest of its
 * configurations, is refused instead (unless --max-rounds bounds the run):
 * the estimate 1 s, true duration 1e12 s of a job made a round every 60 s
 * for 1.7e10 rounds. 0, or 2 after a message (docs/simulator.md).
 */
#define SIM_MAX_OVERRUN_ROUNDS 1e6

static int
check_overruns(const sim_cli *cli, const sim_world *w)
{
	const mx_options *po = &cli->o.planner;
	double		alpha = po->scaling_alpha;
	mx_config  *cf = NULL;
	int			cap = 0;

	if (po->policy != MX_POLICY_MIXDNN || mx_overrun_factor(po) > 0 || !(po->overrun_s > 0) ||
		cli->o.max_rounds > 0)
		return 0;
	if (!(alpha >= 0) || !isfinite(alpha))
		alpha = MX_FITTED_ALPHA;
	for (int i = 0; i < w->njobs; i++)
	{
		const sim_job *sj = &w->jobs[i];
		double		over = sj->true_duration - sj->job.duration,
					umin = INFINITY;
		int			n;

		if (!(over > 0))
			continue;
		/* on a configuration of utility u it runs (duration_s - estimate_s) / u past its expected end */
		if ((n = mx_job_configs_buf(&w->cluster, &sj->job, alpha, &cf, &cap)) < 0)
		{
			free(cf);
			fprintf(stderr, "mixdnn-sim: out of memory\n");
			return 2;
		}
		for (int c = 0; c < n; c++)
			if (cf[c].utility > 0 && cf[c].utility < umin)
				umin = cf[c].utility;
		if (isfinite(umin))
			over /= umin;
		if (!(over > po->overrun_s * SIM_MAX_OVERRUN_ROUNDS))
			continue;
		free(cf);
		fprintf(stderr, "mixdnn-sim: %s:%d: job \"%s\" can run %.6g s past its estimate (duration_s %.15g, estimate_s %.15g): "
				"under --policy mixdnn with --overrun-factor 0 that is a round every --overrun-s (%g s), more than %.0f; "
				"give --overrun-factor above 0, a larger --overrun-s, an estimate_s nearer duration_s, or --max-rounds\n",
				cli->trace, sj->line, sj->name, over, sj->true_duration, sj->job.duration, po->overrun_s,
				SIM_MAX_OVERRUN_ROUNDS);
		return 2;
	}
	free(cf);
	return 0;
}

/*
 * The first instant PostgreSQL's timestamptz cannot hold, in epoch seconds
 * (294277-01-01 00:00:00 UTC): to_timestamp() refuses it and later ones
 * (22008), so a job submitted there has no submitted_at.
 */
#define SIM_PG_TIMESTAMP_END 9224318016000.0

/* Every job's submission, epoch + submit_s, as a timestamptz; 0, or 2 after a message. */
static int
check_submissions(const sim_cli *cli, const sim_world *w)
{
	for (int i = 0; i < w->njobs; i++)
		if (!(cli->o.epoch + w->jobs[i].submit < SIM_PG_TIMESTAMP_END))
		{
			fprintf(stderr, "mixdnn-sim: %s:%d: submit_s %.15g is after the last time mixdnn.jobs.submitted_at "
					"can hold (294276-12-31, %.0f s after --epoch %.0f)\n", cli->trace, w->jobs[i].line,
					w->jobs[i].submit, SIM_PG_TIMESTAMP_END - cli->o.epoch, cli->o.epoch);
			return 2;
		}
	return 0;
}

/* The input files into *w; 0, or the exit status after a message. */
static int
load_world(const sim_cli *cli, sim_world *w)
{
	char		err[512];

	if (sim_load_types(w, cli->types, err, sizeof(err)) < 0 ||
		sim_load_nodes(w, cli->nodes, err, sizeof(err)) < 0 ||
		(cli->profiles && sim_load_profiles(w, cli->profiles, err, sizeof(err)) < 0) ||
		sim_load_trace(w, cli->trace, err, sizeof(err)) < 0 ||
		(cli->shares && sim_load_shares(w, cli->shares, err, sizeof(err)) < 0) ||
		(cli->quotas && sim_load_quotas(w, cli->quotas, err, sizeof(err)) < 0))
	{
		fprintf(stderr, "mixdnn-sim: %s\n", err);
		return 2;
	}
	if (cli->soft_share >= 0)
		apply_soft_share(w, cli->soft_share, (uint64_t) cli->seed);
	if (check_submissions(cli, w) != 0 || check_overruns(cli, w) != 0)
		return 2;
	if (cli->o.watch)
	{
		int			i;

		for (i = 0; i < w->njobs && strcmp(w->jobs[i].name, cli->o.watch) != 0; i++)
			;
		if (i == w->njobs)
		{
			fprintf(stderr, "mixdnn-sim: --watch: no job of %s is named \"%s\"\n", cli->trace, cli->o.watch);
			return 2;
		}
	}
	return 0;
}

/* The first few jobs no configuration of the cluster can run, on stderr. */
static void
warn_rejected(const sim_world *w, const sim_result *r)
{
	int			i,
				shown = 0;

	fprintf(stderr, "mixdnn-sim: warning: %d jobs can never run on this cluster and were rejected\n",
			r->rejected);
	for (i = 0; i < w->njobs && shown < 5; i++)
		if (w->jobs[i].state == SJ_REJECTED)
		{
			fprintf(stderr, "  %s (trace line %d): %s\n", w->jobs[i].name, w->jobs[i].line,
					w->jobs[i].reason);
			shown++;
		}
}

/*
 * Closes an output of open_out(); -1 after a message when a write to it
 * failed (a full disk, an I/O error): a regular file is then removed, so
 * that no half-written output is left to be read as a whole one.
 */
static int
close_out(FILE *f, const char *path)
{
	int			bad;
	struct stat st;
	int			regular;

	if (f == NULL)
		return 0;
	regular = f != stdout && fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode);
	errno = 0;
	bad = ferror(f) != 0;
	bad |= (f == stdout ? fflush(f) : fclose(f)) != 0;
	if (!bad)
		return 0;
	fprintf(stderr, "mixdnn-sim: cannot write %s: %s\n", f == stdout ? "stdout" : path,
			errno ? strerror(errno) : "write error");
	if (regular)
		unlink(path);
	return -1;
}

/* How many of the CSV outputs are - (stdout). */
static int
stdout_outputs(const sim_cli *cli)
{
	const char *paths[4] = {cli->out, cli->util_out, cli->rounds_out, cli->configs_out};
	int			n = 0;

	for (int i = 0; i < 4; i++)
		n += paths[i] != NULL && strcmp(paths[i], "-") == 0;
	return n;
}

/* Runs the simulation and writes what was asked for; returns the exit status. */
static int
run_and_report(sim_cli *cli, sim_world *w)
{
	sim_result	r;
	char		err[512];
	FILE	   *fout = NULL;
	int			rc;

	cli->o.progress = !cli->quiet && isatty(STDERR_FILENO);
	if (stdout_outputs(cli) > 1)
	{
		fprintf(stderr, "mixdnn-sim: only one of --out, --util-out, --rounds-out and --configs-out may be - (stdout)\n");
		return 2;
	}
	if (cli->util_out && (cli->o.util_out = open_out(cli->util_out)) == NULL)
		return 2;
	if (cli->rounds_out && (cli->o.rounds_out = open_out(cli->rounds_out)) == NULL)
		return 2;
	if (cli->out && (fout = open_out(cli->out)) == NULL)
		return 2;
	if (cli->configs_out)
	{
		FILE	   *fc = open_out(cli->configs_out);

		if (fc == NULL)
			return 2;
		rc = sim_write_configs_csv(w, &cli->o, fc);
		if (close_out(fc, cli->configs_out) < 0)
			return 2;
		if (rc < 0)
		{
			fprintf(stderr, "mixdnn-sim: out of memory writing %s\n", cli->configs_out);
			return 1;
		}
	}

	rc = sim_run(w, &cli->o, &r, err, sizeof(err));
	if (rc < 0)
	{
		fprintf(stderr, "mixdnn-sim: %s\n", err);
		return 1;
	}
	if (rc > 0)
		fprintf(stderr, "mixdnn-sim: warning: %s\n", err);
	if (r.rejected > 0 && !cli->quiet)
		warn_rejected(w, &r);
	if (fout)
	{
		int			werr = sim_write_jobs_csv(w, fout);

		if (close_out(fout, cli->out) < 0)
			werr = 2;
		if (werr != 0)
		{
			if (werr < 0)
				fprintf(stderr, "mixdnn-sim: out of memory writing --out\n");
			sim_result_free(&r);
			return werr < 0 ? 1 : 2;
		}
	}
	if ((close_out(cli->o.util_out, cli->util_out) | close_out(cli->o.rounds_out, cli->rounds_out)) != 0)
	{
		sim_result_free(&r);
		return 2;
	}
	/* a CSV on stdout keeps it to itself: the summary or JSON goes to stderr */
	if (cli->json)
		sim_print_json(&r, &cli->o, stdout_outputs(cli) ? stderr : stdout);
	else
		sim_print_summary(&r, &cli->o, stdout_outputs(cli) ? stderr : stdout);
	sim_result_free(&r);
	if (close_out(stdout, "stdout") < 0)
		return 2;
	return rc > 0 ? 1 : 0;
}

int
main(int argc, char **argv)
{
	sim_cli		cli;
	sim_world	w;
	int			rc;

	memset(&cli, 0, sizeof(cli));
	cli.soft_share = -1;
	cli.seed = 1;
	sim_options_default(&cli.o);
	memset(&w, 0, sizeof(w));

	rc = parse_args(argc, argv, &cli);
	if (rc >= 0)
		return rc;
	rc = load_world(&cli, &w);
	if (rc == 0)
		rc = run_and_report(&cli, &w);
	sim_world_free(&w);
	return rc;
}
