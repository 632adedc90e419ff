/*
 * options.c — command line, credentials, directories and accounts, checked
 * before the first connection.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "account.h"
#include "log.h"
#include "options.h"
#include "safepath.h"
#include "tree.h"

static void
usage(FILE *out)
{
	fprintf(out,
			"Usage: mixdnn-launcher --node NAME [OPTION]...\n"
			"Runs the MixDNN jobs placed on GPU node NAME (see docs/launcher.md).\n"
			"\n"
			"  --node NAME               node name as registered in mixdnn.gpu_nodes (required)\n"
			"  --dsn CONNINFO            libpq connection string or URI, without a password;\n"
			"                            PGHOST, PGPORT, PGDATABASE, PGUSER, ... apply to what it leaves out\n"
			"  --password-file FILE      the role's password, in a file only this account can read\n"
			"                            (or use a libpq passfile, PGPASSFILE)\n"
			"  --poll-interval S         claim even without a notification every S seconds (5)\n"
			"  --heartbeat-interval S    heartbeat every S seconds (a third of\n"
			"                            mixdnn.lease_timeout, at most 10)\n"
			"  --kill-grace S            SIGKILL a stopped job's processes S seconds after\n"
			"                            SIGTERM (10)\n"
			"  --fork-retry S            a job part whose keeper process, or whose command, cannot\n"
			"                            be forked (the node out of processes or memory) is tried\n"
			"                            again for S seconds, then handed back to be re-queued\n"
			"                            (60; 0: at once)\n"
			"  --output-dir DIR          write each job part's stdout and stderr to a file of\n"
			"                            its own in DIR, owned by the job's user (default: each\n"
			"                            line into this log, marked as the job's)\n"
			"  --state-dir DIR           the keepers' sockets (default /run/mixdnn-launcher/NODE,\n"
			"                            or /tmp/mixdnn-launcher-UID/NODE when not root)\n"
			"  --user-map FILE           lines \"ROLE OS_USER\": the OS account of a role's jobs\n"
			"                            (default: the account named like the role)\n"
			"  --allow-root-jobs         run jobs whose role maps to uid 0 (refused by default)\n"
			"  --min-uid N               run no job as an account below uid N, uid 0 aside:\n"
			"                            system accounts such as postgres (1000)\n"
			"  --allow-same-user         not root: run jobs as the launcher's own account,\n"
			"                            accepting that they can read its credentials\n"
			"  --no-cgroups              track job processes as a child subreaper only, even\n"
			"                            where a cgroup per job part could be created\n"
			"  --help                    show this help and exit\n"
			"\n"
			"SIGTERM or SIGINT: stop every job's processes, report, exit; a second one kills them.\n"
			"SIGUSR2: exit and leave the jobs running for the next launcher of the node.\n");
}

static void __attribute__((noreturn, format(printf, 1, 2)))
config_error(const char *fmt,...)
{
	char		msg[2048];
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	lx_log("configuration error: %s", msg);
	exit(2);
}

static double
seconds_arg(const char *name, const char *value, double min)
{
	char	   *end;
	double		v = strtod(value, &end);

	if (end == value || *end != '\0' || !isfinite(v) || v < min || v > 86400)
		config_error("invalid %s \"%s\": seconds between %g and 86400 expected", name, value, min);
	return v;
}

static long
uid_arg(const char *name, const char *value)
{
	char	   *end;
	long		v;

	errno = 0;
	v = strtol(value, &end, 10);
	if (end == value || *end != '\0' || errno != 0 || v < 0 || v > INT_MAX)
		config_error("invalid %s \"%s\": a uid between 0 and %d expected", name, value, INT_MAX);
	return v;
}

static void
parse_args(lx_config *cfg, int argc, char **argv, const char **pwfile)
{
	static const struct option opts[] = {
		{"node", required_argument, NULL, 'n'}, {"dsn", required_argument, NULL, 'd'},
		{"poll-interval", required_argument, NULL, 'p'}, {"heartbeat-interval", required_argument, NULL, 'b'},
		{"kill-grace", required_argument, NULL, 'g'}, {"output-dir", required_argument, NULL, 'o'},
		{"state-dir", required_argument, NULL, 's'}, {"password-file", required_argument, NULL, 'w'},
		{"user-map", required_argument, NULL, 'u'}, {"allow-root-jobs", no_argument, NULL, 'r'},
		{"min-uid", required_argument, NULL, 'm'}, {"fork-retry", required_argument, NULL, 'f'},
		{"allow-same-user", no_argument, NULL, 'S'}, {"no-cgroups", no_argument, NULL, 'C'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}
	};
	int			c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1)
	{
		switch (c)
		{
			case 'n': cfg->node = optarg; break;
			case 'd': cfg->dsn = optarg; break;
			case 'p': cfg->poll_s = seconds_arg("--poll-interval", optarg, 0.05); break;
			case 'b': cfg->heartbeat_s = seconds_arg("--heartbeat-interval", optarg, 0.05); break;
			case 'g': cfg->grace_s = seconds_arg("--kill-grace", optarg, 0); break;
			case 'f': cfg->fork_retry_s = seconds_arg("--fork-retry", optarg, 0); break;
			case 'o': cfg->output_dir = optarg; break;
			case 's': cfg->state_dir = optarg; break;
			case 'w': *pwfile = optarg; break;
			case 'u': cfg->user_map = optarg; break;
			case 'r': cfg->allow_root_jobs = true; break;
			case 'm': cfg->min_uid = uid_arg("--min-uid", optarg); break;
			case 'S': cfg->allow_same_user = true; break;
			case 'C': cfg->no_cgroups = true; break;
			case 'h': usage(stdout); exit(0);
			default: usage(stderr); exit(2);
		}
	}
	if (optind < argc)
		config_error("unexpected argument \"%s\" (see --help)", argv[optind]);
	if (cfg->node == NULL || cfg->node[0] == '\0')
		config_error("--node is required (see --help)");
}

/* Like libpq's passfile rule: a secret others can read is refused. */
static char *
read_password(const char *path)
{
	struct stat st;
	char		buf[1024],
				why[PATH_MAX + 256];
	FILE	   *f = lx_safe_fopen(path, why, sizeof(why));
	size_t		n;

	if (f == NULL)
		config_error("--password-file \"%s\" %s", path, why);
	if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()
		|| (st.st_mode & (S_IRWXG | S_IRWXO)) != 0)
		config_error("--password-file \"%s\" must be a regular file of this account (uid %d) "
					 "that no one else can read (chmod 600)", path, (int) geteuid());
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	return strdup(buf);
}

/*
 * The first option of opts that libpq marks secret ('*': password, and
 * sslpassword, the client key's passphrase) and that is set; NULL if none.
 */
static const PQconninfoOption *
secret_option(const PQconninfoOption *opts)
{
	const PQconninfoOption *o;

	for (o = opts; o != NULL && o->keyword != NULL; o++)
		if (o->dispchar != NULL && strchr(o->dispchar, '*') != NULL && o->val != NULL && o->val[0] != '\0')
			return o;
	return NULL;
}

/* What to use instead of a secret where others may read it. */
static const char *
secret_advice(const char *keyword)
{
	if (strcmp(keyword, "password") == 0)
		return "use --password-file or a passfile (PGPASSFILE) instead";
	if (strcmp(keyword, "sslpassword") == 0)
		return "use a client key (sslkey) without a passphrase, that only this account can read";
	return "keep it in a file only this account can read";
}

/*
 * A secret in the libpq service the DSN (or PGSERVICE) names: libpq reads a
 * service file whoever else may read it, and it is not among the files the
 * launcher checks, so its jobs might read the secret. Refused even where
 * --password-file's password takes its place: the file still holds it.
 * libpq expands a service only when it starts a connection: one is started
 * without a password and closed before any is sent.
 */
static void
refuse_service_secret(const char *dsn, const PQconninfoOption *dsn_opts)
{
	const char *keys[] = {"dbname", NULL};
	const char *values[] = {dsn, NULL};
	const PQconninfoOption *o;
	PQconninfoOption *opts;
	PGconn	   *conn;
	char		keyword[64] = "";
	const char *env = getenv("PGSERVICE");
	bool		named = env != NULL && env[0] != '\0';

	for (o = dsn_opts; !named && o != NULL && o->keyword != NULL; o++)
		named = strcmp(o->keyword, "service") == 0 && o->val != NULL && o->val[0] != '\0';
	if (!named)
		return;
	conn = PQconnectStartParams(keys, values, 1);
	opts = conn != NULL ? PQconninfo(conn) : NULL;
	if ((o = secret_option(opts)) != NULL)
		snprintf(keyword, sizeof(keyword), "%s", o->keyword);
	PQconninfoFree(opts);
	PQfinish(conn);
	if (keyword[0] != '\0')
		config_error("the libpq service of --dsn holds a %s; a service file is not checked "
					 "and the jobs may be able to read it: %s", keyword, secret_advice(keyword));
}

/*
 * A password on the command line or in the environment is readable by
 * others; so may one in a service file be. The DSN's and PGPASSWORD are
 * refused first: a secret the service expands to is then the file's.
 */
static void
refuse_exposed_password(const char *dsn)
{
	PQconninfoOption *opts = NULL;
	const PQconninfoOption *o;

	if (getenv("PGPASSWORD") != NULL)
		config_error("PGPASSWORD is set: the environment of a process can be read by its jobs and "
					 "stays in /proc; use --password-file or a passfile (PGPASSFILE) instead");
	if (dsn != NULL && (opts = PQconninfoParse(dsn, NULL)) == NULL)
		config_error("--dsn is not a valid connection string");
	if ((o = secret_option(opts)) != NULL)
		config_error("--dsn holds a password (%s), which anyone on the node can read in the command line; %s",
					 o->keyword, secret_advice(o->keyword));
	refuse_service_secret(dsn, opts);
	PQconninfoFree(opts);
}

/*
 * dir as an absolute path and a descriptor, walked by lx_safe_dir(): no
 * other account can swap it or a directory above it (safepath.h). The
 * descriptor, not the name, is what the launcher uses from then on.
 */
static int
trusted_dir(const char *what, const char *dir, lx_dir_rule rule, bool create, char **abs)
{
	char		why[PATH_MAX + 256],
				path[64];
	int			fd = lx_safe_dir(dir, rule, create, why, sizeof(why));

	if (fd < 0)
		config_error("%s \"%s\" %s", what, dir, why);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (abs != NULL && (*abs = realpath(path, NULL)) == NULL)
		config_error("%s \"%s\": %s", what, dir, strerror(errno));
	return fd;
}

/*
 * Output and state directories exist, take files, and no other account can
 * swap them (docs/launcher.md, "What no other account can change").
 */
static void
check_dirs(lx_config *cfg)
{
	char		probe[64];
	char		def[PATH_MAX];
	int			fd;

	if (cfg->output_dir != NULL)
	{
		int			dfd = trusted_dir("--output-dir", cfg->output_dir, LX_DIR_TRUSTED, false, &cfg->output_dir);

		snprintf(probe, sizeof(probe), ".mixdnn-launcher-probe-%d", (int) getpid());
		fd = openat(dfd, probe, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0)
			config_error("--output-dir \"%s\" is not writable: %s", cfg->output_dir, strerror(errno));
		close(fd);
		unlinkat(dfd, probe, 0);
		close(dfd);
	}
	if (cfg->state_dir == NULL)
	{
		if (geteuid() == 0)
			snprintf(def, sizeof(def), "/run/mixdnn-launcher");
		else
			snprintf(def, sizeof(def), "/tmp/mixdnn-launcher-%d", (int) geteuid());
		close(trusted_dir("state directory", def, LX_DIR_OURS, true, NULL));
		snprintf(def + strlen(def), sizeof(def) - strlen(def), "/%s", cfg->node);
		cfg->state_dir = def;
	}
	cfg->state_fd = trusted_dir("--state-dir", cfg->state_dir, LX_DIR_OURS, true, &cfg->state_dir);
	fd = openat(cfg->state_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fchmod(fd, 0700) != 0)
		config_error("cannot make --state-dir \"%s\" private: %s", cfg->state_dir, strerror(errno));
	close(fd);
}

static void
check_accounts(lx_config *cfg)
{
	char		why[512];

	if (cfg->user_map != NULL && lx_usermap_load(cfg->user_map, why, sizeof(why)) != 0)
		config_error("%s", why);
	if (geteuid() == 0)
	{
		lx_log("running as root: each job runs as its owner's OS account, never one below uid %ld%s",
			   cfg->min_uid, cfg->allow_root_jobs ? " but root (--allow-root-jobs)" : " nor root");
		return;
	}
	if (!cfg->allow_same_user)
		config_error("not running as root, so jobs would run as this launcher's own account and could "
					 "read its credentials; run it as root, or accept that with --allow-same-user");
	lx_log("not root: every job runs as uid %d, the launcher's own account (--allow-same-user), "
		   "and can read the launcher's credentials", (int) geteuid());
}

void
lx_options_load(lx_config *cfg, int argc, char **argv)
{
	const char *pwfile = NULL;
	char		why[512];

	parse_args(cfg, argc, argv, &pwfile);
	lx_log_init(cfg->node);
	refuse_exposed_password(cfg->dsn);
	if (pwfile != NULL)
		cfg->password = read_password(pwfile);
	check_dirs(cfg);
	check_accounts(cfg);
	if (cfg->no_cgroups)
	{
		cfg->cgroup_base[0] = '\0';
		snprintf(why, sizeof(why), "--no-cgroups");
	}
	else
		lx_tree_cgroup_base(cfg->cgroup_base, sizeof(cfg->cgroup_base), why, sizeof(why));
	if (cfg->cgroup_base[0] != '\0')
		lx_log("each job part gets a cgroup under %s", cfg->cgroup_base);
	else
		lx_log("no cgroups (%s): keepers track job processes as a child subreaper", why);
}
