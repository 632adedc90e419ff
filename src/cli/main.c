/*
 * main.c — bin/mixdnn: command line, connection, errors and exit codes
 * (docs/cli.md). The commands are in commands.c.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "output.h"

static void
usage(FILE *out)
{
	fprintf(out,
			"Usage: mixdnn [--json] [--dsn CONNINFO] COMMAND [OPTION]... [ARG]...\n"
			"A MixDNN user's client; PGHOST, PGPORT, PGDATABASE, PGUSER, ... apply.\n"
			"\n"
			"Commands:\n"
			"  submit JOB-OPTIONS      submit a job; prints its id and plan\n"
			"  when JOB-OPTIONS        when and on what such a job would run now (nothing is submitted)\n"
			"  queue [--all | --user U]  unfinished jobs in queue order (default: yours)\n"
			"  cancel JOB_ID...        cancel jobs\n"
			"  why JOB_ID              each configuration of a waiting job and what blocks it\n"
			"  history [--all | --user U] [--limit N]  finished jobs: wait, JCT, estimate error\n"
			"  top [--interval S] [--iterations N]  GPUs, jobs and the queue, refreshed\n"
			"\n"
			"Job options (the columns of mixdnn.jobs):\n"
			"  --file FILE             a JSON object of columns, e.g. {\"name\": \"r50\", \"gpus\": 4};\n"
			"                          options given as well override it\n"
			"  --name N  --class hard|soft  --gpu-type T  --gpus N  --min-gpus N  --max-gpus N\n"
			"  --allowed-types T1,T2  --duration INTERVAL  --priority P  --model M  --command CMD\n"
			"\n"
			"  --json                  JSON instead of tables, for scripts\n"
			"  --help                  show this help and exit\n"
			"\n"
			"Exit codes: 0 ok, 1 refused by the server, 2 bad usage or job file,\n"
			"3 no such job (or not yours), 4 cannot connect.\n");
}

/* The job options as a JSON object of strings (allowed_types: an array). */
typedef struct spec_buf
{
	char	   *buf;
	size_t		len;
	FILE	   *f;
	int			n;
} spec_buf;

/*
 * value as a JSON string of the job's spec: only what JSON requires is
 * escaped, every other byte goes as it is, so that the server checks the
 * text the user typed (a byte that is not in its encoding is refused, as
 * a submission in SQL would be) instead of output.c's display escapes.
 */
static void
spec_string(FILE *f, const char *value)
{
	fputc('"', f);
	for (; *value; value++)
	{
		unsigned char c = (unsigned char) *value;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void
spec_add(spec_buf *s, const char *key, const char *value)
{
	if (s->f == NULL)
	{
		s->f = open_memstream(&s->buf, &s->len);
		if (s->f == NULL)
			exit(MC_EXIT_USAGE);
	}
	fputs(s->n++ ? ", " : "{", s->f);
	spec_string(s->f, key);
	fputs(": ", s->f);
	if (strcmp(key, "allowed_types") == 0)
	{
		char	   *copy = strdup(value),
				   *save = NULL,
				   *t;
		int			i = 0;

		fputc('[', s->f);
		for (t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
		{
			fputs(i++ ? ", " : "", s->f);
			spec_string(s->f, t);
		}
		fputc(']', s->f);
		free(copy);
	}
	else
		spec_string(s->f, value);
}

static char *
read_file(const char *path)
{
	FILE	   *f = fopen(path, "r");
	char	   *buf = NULL;
	size_t		len = 0;
	FILE	   *m;
	int			ch;

	if (f == NULL)
	{
		fprintf(stderr, "mixdnn: cannot read job file \"%s\"\n", path);
		exit(MC_EXIT_USAGE);
	}
	m = open_memstream(&buf, &len);
	while (m && (ch = fgetc(f)) != EOF)
		fputc(ch, m);
	if (m)
		fclose(m);
	fclose(f);
	/* a NUL would end the text early: what follows it would be dropped unseen */
	if (buf != NULL && strlen(buf) != len)
	{
		fprintf(stderr, "mixdnn: job file \"%s\" holds a NUL byte\n", path);
		exit(MC_EXIT_USAGE);
	}
	return buf;
}

/*
 * A whole number within lo..hi, else exit 2. The job's counts and priority
 * pass INT_MIN..INT_MAX: their range is the server's to check, with its
 * SQLSTATE; that they are numbers is the command line's.
 */
static long
number_arg(const char *name, const char *v, long lo, long hi)
{
	char	   *end;
	long		n;

	errno = 0;
	n = strtol(v, &end, 10);
	if (end != v && *end == '\0' && errno == 0 && n >= lo && n <= hi)
		return n;
	fprintf(stderr, "mixdnn: %s must be a whole number from %ld to %ld, not \"%s\"\n", name, lo, hi, v);
	exit(MC_EXIT_USAGE);
}

/* A count or the priority (option o of opts): a whole number, its range the server's. */
static void
job_number_arg(const struct option *opts, int o, const char *v)
{
	char		flag[32];

	while (opts->val != o)
		opts++;
	snprintf(flag, sizeof(flag), "--%s", opts->name);
	(void) number_arg(flag, v, INT_MIN, INT_MAX);
}

/* The options only some commands take, as bits of cli_args.given. */
#define OPT_ALL 1				/* --all */
#define OPT_USER 2				/* --user */
#define OPT_LIMIT 4				/* --limit */
#define OPT_INTERVAL 8			/* --interval */
#define OPT_ITERATIONS 16		/* --iterations */

typedef struct cli_args
{
	const char *dsn;
	const char *file;
	spec_buf	spec;
	unsigned	given;			/* OPT_* given */
} cli_args;

static bool names_ids_command(int argc, char **argv);

/*
 * What getopt refused, said in the command line's terms, then usage, exit 2.
 * A negative number is not an option the user meant: "why -1" is a bad job
 * id, not an unknown option '1'. first is optind before the getopt_long
 * call that refused: the element it read is at or after it.
 */
static void
bad_option(int argc, char **argv, const struct option *opts, int first)
{
	const char *arg = argv[optind - 1];

	/*
	 * No short option is valid, so getopt refuses a "-xyz" element at its
	 * first character and stays on it when more follow (optind not moved):
	 * the element it read is argv[optind - 1] only when that one was read
	 * in this call (at or after first) and is an option, not a non-option
	 * the permutation skipped; else argv[optind]. optopt is a char: a
	 * UTF-8 byte of "-é" is negative.
	 */
	if (optind < argc && !(optind - 1 >= first && argv[optind - 1][0] == '-' && argv[optind - 1][1] != '\0'))
		arg = argv[optind];
	while (opts->name != NULL && opts->val != optopt)
		opts++;
	if (optopt >= '0' && optopt <= '9' && names_ids_command(argc, argv))
		fprintf(stderr, "mixdnn: \"%s\" is not a job id\n", arg);
	else if (optopt >= '0' && optopt <= '9')
		fprintf(stderr, "mixdnn: \"%s\" is not an option\n", arg);
	else if (optopt == 0 || opts->name == NULL || strncmp(arg, "--", 2) != 0)
		fprintf(stderr, "mixdnn: unknown or ambiguous option \"%s\"\n", arg);
	else if (opts->has_arg == no_argument)
		fprintf(stderr, "mixdnn: --%s takes no value\n", opts->name);
	else
		fprintf(stderr, "mixdnn: --%s needs a value\n", opts->name);
	usage(stderr);
	exit(MC_EXIT_USAGE);
}

static void
parse_args(int argc, char **argv, mc_ctx *c, cli_args *a)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'}, {"dsn", required_argument, NULL, 'd'},
		{"help", no_argument, NULL, 'h'}, {"all", no_argument, NULL, 'a'},
		{"user", required_argument, NULL, 'u'}, {"limit", required_argument, NULL, 'l'},
		{"interval", required_argument, NULL, 'i'}, {"iterations", required_argument, NULL, 'n'},
		{"file", required_argument, NULL, 'f'},
		{"name", required_argument, NULL, 1}, {"class", required_argument, NULL, 2},
		{"gpu-type", required_argument, NULL, 3}, {"gpus", required_argument, NULL, 4},
		{"min-gpus", required_argument, NULL, 5}, {"max-gpus", required_argument, NULL, 6},
		{"allowed-types", required_argument, NULL, 7}, {"duration", required_argument, NULL, 8},
		{"priority", required_argument, NULL, 9}, {"model", required_argument, NULL, 10},
		{"command", required_argument, NULL, 11},
		{NULL, 0, NULL, 0}
	};
	static const char *const keys[] = {NULL, "name", "model_class", "gpu_type", "gpus", "min_gpus",
		"max_gpus", "allowed_types", "duration", "priority", "model", "command"};
	int			o,
				first;

	opterr = 0;					/* bad_option says what was wrong */
	while (first = optind, (o = getopt_long(argc, argv, "", opts, NULL)) != -1)
	{
		if (o >= 1 && o <= 11)
		{
			if (o == 4 || o == 5 || o == 6 || o == 9)
				job_number_arg(opts, o, optarg);
			spec_add(&a->spec, keys[o], optarg);
			continue;
		}
		switch (o)
		{
			case 'j':
				c->json = true;
				break;
			case 'd':
				a->dsn = optarg;
				break;
			case 'a':
				a->given |= OPT_ALL;
				c->all = true;
				break;
			case 'u':
				a->given |= OPT_USER;
				c->user = optarg;
				break;
			case 'l':
				a->given |= OPT_LIMIT;
				c->limit = (int) number_arg("--limit", optarg, 1, 100000);
				break;
			case 'i':
				a->given |= OPT_INTERVAL;
				c->interval_s = number_arg("--interval", optarg, 1, 3600);
				break;
			case 'n':
				a->given |= OPT_ITERATIONS;
				c->iterations = (int) number_arg("--iterations", optarg, 0, 1000000);
				break;
			case 'f':
				a->file = optarg;
				break;
			case 'h':
				usage(stdout);
				exit(MC_EXIT_OK);
			default:
				bad_option(argc, argv, opts, first);
		}
	}
	if (a->spec.f)
	{
		fputc('}', a->spec.f);
		fclose(a->spec.f);
	}
	if (c->all && c->user)
	{
		fprintf(stderr, "mixdnn: --all and --user exclude each other\n");
		exit(MC_EXIT_USAGE);
	}
}

int
mc_query(mc_ctx *c, const char *sql, int n, const char *const *params, PGresult **res)
{
	const char *state;

	*res = PQexecParams(c->conn, sql, n, NULL, params, NULL, NULL, 0);
	if (PQresultStatus(*res) == PGRES_TUPLES_OK || PQresultStatus(*res) == PGRES_COMMAND_OK)
		return 0;
	state = PQresultErrorField(*res, PG_DIAG_SQLSTATE);
	fprintf(stderr, "mixdnn: %s", PQresultErrorMessage(*res));
	PQclear(*res);
	*res = NULL;
	if (PQstatus(c->conn) != CONNECTION_OK)
		return MC_EXIT_CONNECT;
	return state && strcmp(state, "P0002") == 0 ? MC_EXIT_NOT_FOUND : MC_EXIT_SQL;
}

void
mc_print(const mc_ctx *c, const PGresult *res)
{
	if (c->json)
	{
		mc_print_json(stdout, res);
		fputc('\n', stdout);
	}
	else
		mc_print_table(stdout, res);
}

/* The job file's object with the options over it, as c->spec. */
static int
merge_spec(mc_ctx *c, cli_args *a)
{
	const char *p[2] = {a->file ? read_file(a->file) : "{}", a->spec.buf ? a->spec.buf : "{}"};
	PGresult   *res;

	int			rc = mc_query(c, "SELECT CASE WHEN pg_catalog.jsonb_typeof($1::jsonb) = 'object' "
							  "THEN ($1::jsonb || $2::jsonb)::text END", 2, p, &res);

	/* the server's refusal is the file's fault (not JSON); a lost connection is not */
	if (rc != 0)
		return rc == MC_EXIT_SQL ? MC_EXIT_USAGE : rc;
	if (PQgetisnull(res, 0, 0))
	{
		fprintf(stderr, "mixdnn: the job file must hold one JSON object\n");
		PQclear(res);
		return MC_EXIT_USAGE;
	}
	c->spec = strdup(PQgetvalue(res, 0, 0));
	PQclear(res);
	return 0;
}

/*
 * The commands' queries name the extension's objects with their schema but
 * their operators and functions as written (||, =, coalesce, ...), resolved
 * through the session's search_path. A schema of it another role may create
 * in (public, where CREATE is granted to PUBLIC, as before PostgreSQL 15)
 * could hold that role's operator matching the arguments more exactly than
 * pg_catalog's, say ||(text, integer): run by an admin, `mixdnn queue` ran
 * it with the admin's rights, reading every job's command and env. As
 * pg_dump does, the session resolves in pg_catalog only (and pg_temp, the
 * caller's own, for relations and types).
 */
static int
pin_search_path(mc_ctx *c)
{
	PGresult   *res;
	int			rc = mc_query(c, "SELECT pg_catalog.set_config('search_path', '', false)", 0, NULL, &res);

	if (rc == 0)
		PQclear(res);
	return rc;
}

/*
 * A cancel behind a row lock that another open transaction holds (the
 * user's own in another session, an admin's) would wait for as long as
 * that transaction stays open; a script should get an answer. A
 * lock_timeout set anywhere but the server's default (PGOPTIONS, ALTER
 * ROLE, 0 included) is kept. Rounds set their own (mixdnn.lock_timeout)
 * for their duration. Not for top, a display that waits out maintenance.
 */
static int
bound_lock_waits(mc_ctx *c)
{
	const char *p[1] = {MC_LOCK_TIMEOUT};
	PGresult   *res;
	int			rc = mc_query(c, "SELECT pg_catalog.set_config('lock_timeout', $1, false) "
						  "WHERE (SELECT s.source FROM pg_catalog.pg_settings s "
						  "WHERE s.name OPERATOR(pg_catalog.=) 'lock_timeout') OPERATOR(pg_catalog.=) 'default'",
						  1, p, &res);

	if (rc == 0)
		PQclear(res);
	return rc;
}

static const struct
{
	const char *name;
	int			(*run) (mc_ctx *c);
	bool		spec;
	bool		ids;			/* takes job ids as arguments; the others take none */
	unsigned	opts;			/* the OPT_* it takes */
}			commands[] = {
	{"submit", mc_submit, true, false, 0}, {"when", mc_when, true, false, 0},
	{"queue", mc_queue, false, false, OPT_ALL | OPT_USER},
	{"cancel", mc_cancel, false, true, 0}, {"why", mc_why, false, true, 0},
	{"history", mc_history, false, false, OPT_ALL | OPT_USER | OPT_LIMIT},
	{"top", mc_top, false, false, OPT_INTERVAL | OPT_ITERATIONS}
};

/* Whether an argument names a command that takes job ids ("why -1": a bad id, "history -5": no option). */
static bool
names_ids_command(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		for (size_t k = 0; k < sizeof(commands) / sizeof(commands[0]); k++)
			if (commands[k].ids && strcmp(argv[i], commands[k].name) == 0)
				return true;
	return false;
}

/*
 * An argument or option the command does not take is refused (exit 2),
 * not ignored: "submit --duration 2 hours python train.py" would submit a
 * job of 2 seconds without a command.
 */
static int
check_command_line(int cmd, const mc_ctx *c, const cli_args *a)
{
	static const char *const names[] = {"--all", "--user", "--limit", "--interval", "--iterations"};
	unsigned	extra = a->given & ~commands[cmd].opts;

	if (!commands[cmd].ids && c->nargs > 0)
	{
		fprintf(stderr, "mixdnn: %s takes no argument, not \"%s\" (quote an option's value that has spaces)\n",
				commands[cmd].name, c->args[0]);
		return MC_EXIT_USAGE;
	}
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
		if (extra & (1u << k))
		{
			fprintf(stderr, "mixdnn: %s is not an option of %s\n", names[k], commands[cmd].name);
			return MC_EXIT_USAGE;
		}
	return 0;
}

/*
 * Past a string libpq could not parse, it quotes a piece of what follows
 * ('missing "=" after "ter2"'): every word after "password=" in the --dsn
 * is masked in msg wherever it shows.
 */
static void
mask_password_words(char *msg, const char *dsn)
{
	const char *pw = dsn ? strstr(dsn, "password=") : NULL;
	char	   *tokens = pw ? strdup(pw + 9) : NULL,
			   *save = NULL,
			   *t;

	if (tokens == NULL)
		return;
	for (t = strtok_r(tokens, " \t\n'\"=&\\", &save); t; t = strtok_r(NULL, " \t\n'\"=&\\", &save))
	{
		char	   *hit;
		size_t		n = strlen(t);

		/* a word of stars would be found again in its own mask */
		while (n >= 3 && strspn(t, "*") < n && (hit = strstr(msg, t)) != NULL)
			memset(hit, '*', n);
	}
	free(tokens);
}

/*
 * libpq's connection error, with any password in it masked: a --dsn it
 * cannot parse comes back whole ("postgresql://u:secret@host", or
 * "password=secret" in a key/value string).
 */
static void
print_masked(const char *libpq_msg, const char *dsn)
{
	char	   *msg = strdup(libpq_msg);
	const char *p = msg;

	if (msg == NULL)
		return;
	mask_password_words(msg, dsn);

	fputs("mixdnn: ", stderr);
	while (*p)
	{
		const char *scheme = strstr(p, "://"),
				   *key = strstr(p, "password="),
				   *next = scheme && (!key || scheme < key) ? scheme : key;

		if (next == NULL)
			break;
		if (next == scheme)
		{
			/* userinfo: up to '@' before any '/', its password after the first ':' */
			const char *start = scheme + 3,
					   *at = start + strcspn(start, "@/ \n"),
					   *colon = memchr(start, ':', (size_t) (at - start));

			fwrite(p, 1, (size_t) (start - p), stderr);
			if (*at == '@' && colon != NULL)
			{
				fwrite(start, 1, (size_t) (colon - start), stderr);
				fputs(":***", stderr);
				p = at;
			}
			else
				p = start;
			continue;
		}
		fwrite(p, 1, (size_t) (key + 9 - p), stderr);
		fputs("***", stderr);
		p = key + 9;
		if (*p == '\'')
		{
			for (p++; *p && *p != '\''; p++)
			{
				if (*p == '\\' && p[1])
					p++;
			}
			if (*p == '\'')
				p++;
		}
		else
			p += strcspn(p, " \n\"");
	}
	fputs(p, stderr);
	free(msg);
}

int
main(int argc, char **argv)
{
	mc_ctx		c = {.limit = 20, .interval_s = 2};
	cli_args	a = {0};
	/* after dbname, so that a --dsn cannot set another encoding (output.c escapes UTF-8; SQL_ASCII below) */
	const char *keys[] = {"dbname", "fallback_application_name", "client_encoding", NULL};
	const char *vals[4];
	size_t		i;
	int			rc;

	/* widths of wide and combining characters (output.c); without the locale, one column each */
	(void) setlocale(LC_CTYPE, "C.UTF-8");
	parse_args(argc, argv, &c, &a);
	if (optind >= argc)
	{
		usage(stderr);
		return MC_EXIT_USAGE;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[optind], commands[i].name) == 0)
			break;
	if (i == sizeof(commands) / sizeof(commands[0]))
	{
		fprintf(stderr, "mixdnn: unknown command \"%s\"\n", argv[optind]);
		usage(stderr);
		return MC_EXIT_USAGE;
	}
	c.nargs = argc - optind - 1;
	c.args = argv + optind + 1;
	if ((rc = check_command_line((int) i, &c, &a)) != 0)
		return rc;
	if (!commands[i].spec && (a.file || a.spec.buf))
	{
		fprintf(stderr, "mixdnn: job options are for submit and when only\n");
		return MC_EXIT_USAGE;
	}
	vals[0] = a.dsn ? a.dsn : "";
	vals[1] = "mixdnn";
	vals[2] = "UTF8";
	vals[3] = NULL;
	c.conn = PQconnectdbParams(keys, vals, 1);
	if (PQstatus(c.conn) != CONNECTION_OK)
	{
		print_masked(PQerrorMessage(c.conn), a.dsn);
		PQfinish(c.conn);
		return MC_EXIT_CONNECT;
	}
	/* DETAIL and HINT are the user's; CONTEXT names internal functions */
	PQsetErrorContextVisibility(c.conn, PQSHOW_CONTEXT_NEVER);
	/* a SQL_ASCII database passes any byte: taken as they come, output.c escapes what is not UTF-8 */
	if (strcmp(PQparameterStatus(c.conn, "server_encoding") ? PQparameterStatus(c.conn, "server_encoding") : "",
			   "SQL_ASCII") == 0 && PQsetClientEncoding(c.conn, "SQL_ASCII") != 0)
	{
		fprintf(stderr, "mixdnn: %s", PQerrorMessage(c.conn));
		PQfinish(c.conn);
		return MC_EXIT_CONNECT;
	}
	rc = pin_search_path(&c);
	if (rc == 0 && commands[i].run != mc_top)
		rc = bound_lock_waits(&c);
	if (rc == 0 && commands[i].spec)
		rc = merge_spec(&c, &a);
	if (rc == 0)
		rc = commands[i].run(&c);
	PQfinish(c.conn);
	return rc;
}
