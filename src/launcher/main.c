/*
 * main.c — bin/mixdnn-launcher: the reference launcher of one GPU node
 * (contract §5, docs/launcher.md).
 *
 * One loop polls the database socket and a self-pipe for signals. It claims
 * the node's parts when a mixdnn_launch notice names the node, at connect
 * and every poll interval; runs each under a keeper in its own process
 * group; reports exit codes with mixdnn.finish(job, code, node, attempt);
 * heartbeats; and stops any part the database no longer lists for the node
 * (cancelled, failed on another node, lost). Results it cannot report while
 * disconnected wait until it is connected again.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db.h"
#include "log.h"
#include "proc.h"
#include "signals.h"

#define BACKOFF_MIN_S 0.25
#define BACKOFF_MAX_S 5.0
#define HEARTBEAT_MAX_S 10.0
#define MAX_REPORT_ERRORS 3

typedef struct lx_config
{
	const char *node;
	const char *dsn;
	const char *output_dir;
	double		poll_s;
	double		heartbeat_s;	/* 0: a third of mixdnn.lease_timeout */
	double		grace_s;
} lx_config;

static lx_config cfg = {NULL, NULL, NULL, 5.0, 0.0, 10.0};

static struct
{
	PGconn	   *conn;
	bool		reset_done;		/* this process gave up its node's old parts */
	double		reconnect_at;
	double		backoff;
	double		next_heartbeat;
	double		next_poll;
	double		lease_s;
	bool		want_claim;
	bool		want_reconcile;
	bool		stopping;
	double		stop_deadline;
} st;

static void
usage(FILE *out)
{
	fprintf(out,
			"Usage: mixdnn-launcher --node NAME [OPTION]...\n"
			"Runs the MixDNN jobs placed on GPU node NAME (see docs/launcher.md).\n"
			"\n"
			"  --node NAME               node name as registered in mixdnn.gpu_nodes (required)\n"
			"  --dsn CONNINFO            libpq connection string or URI; PGHOST, PGPORT,\n"
			"                            PGDATABASE, PGUSER, ... apply to what it leaves out\n"
			"  --poll-interval S         claim even without a notification every S seconds (5)\n"
			"  --heartbeat-interval S    heartbeat every S seconds (a third of\n"
			"                            mixdnn.lease_timeout, at most 10)\n"
			"  --kill-grace S            SIGKILL a stopped job's processes S seconds after\n"
			"                            SIGTERM (10)\n"
			"  --output-dir DIR          write each job's stdout and stderr to\n"
			"                            DIR/job-ID-ATTEMPT-rankR.log (default: inherit)\n"
			"  --help                    show this help and exit\n"
			"\n"
			"On SIGTERM or SIGINT it stops its jobs (SIGTERM, then SIGKILL after the grace\n"
			"period), reports their exit codes, and exits; a second signal kills them at once.\n");
}

static double
seconds_arg(const char *name, const char *value, double min)
{
	char	   *end;
	double		v = strtod(value, &end);

	if (end == value || *end != '\0' || !isfinite(v) || v < min || v > 86400)
	{
		fprintf(stderr, "mixdnn-launcher: invalid %s \"%s\": seconds between %g and 86400 expected\n",
				name, value, min);
		exit(2);
	}
	return v;
}

static void
parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
		{"node", required_argument, NULL, 'n'},
		{"dsn", required_argument, NULL, 'd'},
		{"poll-interval", required_argument, NULL, 'p'},
		{"heartbeat-interval", required_argument, NULL, 'b'},
		{"kill-grace", required_argument, NULL, 'g'},
		{"output-dir", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}
	};
	int			c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1)
	{
		switch (c)
		{
			case 'n':
				cfg.node = optarg;
				break;
			case 'd':
				cfg.dsn = optarg;
				break;
			case 'p':
				cfg.poll_s = seconds_arg("--poll-interval", optarg, 0.05);
				break;
			case 'b':
				cfg.heartbeat_s = seconds_arg("--heartbeat-interval", optarg, 0.05);
				break;
			case 'g':
				cfg.grace_s = seconds_arg("--kill-grace", optarg, 0);
				break;
			case 'o':
				cfg.output_dir = optarg;
				break;
			case 'h':
				usage(stdout);
				exit(0);
			default:
				usage(stderr);
				exit(2);
		}
	}
	if (optind < argc)
	{
		fprintf(stderr, "mixdnn-launcher: unexpected argument \"%s\"\n", argv[optind]);
		usage(stderr);
		exit(2);
	}
	if (cfg.node == NULL || cfg.node[0] == '\0')
	{
		fprintf(stderr, "mixdnn-launcher: --node is required\n");
		usage(stderr);
		exit(2);
	}
}

static double
heartbeat_interval(void)
{
	double		s;

	if (cfg.heartbeat_s > 0)
		return cfg.heartbeat_s;
	s = st.lease_s > 0 ? st.lease_s / 3 : HEARTBEAT_MAX_S;
	return s < 0.2 ? 0.2 : (s > HEARTBEAT_MAX_S ? HEARTBEAT_MAX_S : s);
}

static void
drop_connection(const char *why)
{
	if (st.conn == NULL)
		return;
	lx_log("disconnected (%s); reconnecting in %.2f s", why, st.backoff);
	PQfinish(st.conn);
	st.conn = NULL;
	st.reconnect_at = lx_now() + st.backoff;
	st.backoff = st.backoff * 2 > BACKOFF_MAX_S ? BACKOFF_MAX_S : st.backoff * 2;
}

/* A call's result: false when the connection went and the caller must stop. */
static bool
still_connected(lx_rc rc)
{
	if (rc == LX_LOST)
		drop_connection("connection lost");
	return st.conn != NULL;
}

static void
connect_db(void)
{
	int			lost;

	st.conn = lx_db_connect(cfg.dsn, cfg.node);
	if (st.conn == NULL
		|| lx_db_lock_node(st.conn, cfg.node) != LX_OK
		|| lx_db_listen(st.conn) != LX_OK)
		goto retry;

	/* A new process runs nothing: what its node had claimed before is lost. */
	if (!st.reset_done)
	{
		if (lx_db_reset_node(st.conn, cfg.node, -1, &lost) != LX_OK)
			goto retry;
		if (lost > 0)
			lx_log("gave up %d jobs an earlier launcher of this node had claimed", lost);
		st.reset_done = true;
	}
	lx_log("connected to database \"%s\" as %s; listening", PQdb(st.conn), PQuser(st.conn));
	st.backoff = BACKOFF_MIN_S;
	st.want_claim = true;
	st.want_reconcile = true;
	st.next_heartbeat = 0;
	return;

retry:
	if (st.conn)
		PQfinish(st.conn);
	st.conn = NULL;
	st.reconnect_at = lx_now() + st.backoff;
	lx_log("retrying in %.2f s", st.backoff);
	st.backoff = st.backoff * 2 > BACKOFF_MAX_S ? BACKOFF_MAX_S : st.backoff * 2;
}

/* Exit codes of finished parts; kept while disconnected, reported once connected. */
static void
report_results(void)
{
	int			i;

	for (i = lx_nchildren() - 1; i >= 0 && st.conn; i--)
	{
		lx_child   *c = lx_child_at(i);
		bool		counted;
		lx_rc		rc;

		if (!c->exited || lx_now() < c->report_after)
			continue;
		rc = lx_db_finish(st.conn, cfg.node, c->job_id, c->attempt, c->code, &counted);
		if (!still_connected(rc))
			return;
		if (rc == LX_OK)
			lx_log("job %lld attempt %d: reported exit code %d%s", c->job_id, c->attempt, c->code,
				   counted ? "" : " (stale: the part was no longer running; ignored)");
		else if (rc == LX_BUSY || ++c->report_errors < MAX_REPORT_ERRORS)
		{
			/* An SQL error: try again a heartbeat later, a few times. */
			c->report_after = lx_now() + heartbeat_interval();
			continue;
		}
		else
			lx_log("job %lld attempt %d: giving up reporting exit code %d", c->job_id, c->attempt, c->code);
		lx_forget(c);
	}
}

/*
 * Makes the node's processes match the database: stops parts it no longer
 * lists, and gives up parts claimed here that nothing runs (a claim whose
 * answer was lost with the connection).
 */
static void
reconcile(void)
{
	lx_part    *parts;
	int			nparts,
				i,
				k;
	lx_rc		rc;

	/* Cleared first: a failing call is retried at the next heartbeat, not in a loop. */
	st.want_reconcile = false;
	rc = lx_db_node_parts(st.conn, cfg.node, &parts, &nparts);
	if (!still_connected(rc) || rc != LX_OK)
		return;

	for (i = 0; i < lx_nchildren(); i++)
	{
		lx_child   *c = lx_child_at(i);
		bool		listed = false;

		if (c->exited)
			continue;
		for (k = 0; k < nparts && !listed; k++)
			listed = parts[k].job_id == c->job_id && parts[k].attempt == c->attempt && parts[k].running;
		if (!listed)
			lx_stop(c, "the job was cancelled, failed on another node or lost its lease");
	}
	for (k = 0; k < nparts && st.conn; k++)
	{
		int			lost;

		if (!parts[k].running || lx_find(parts[k].job_id, parts[k].attempt) != NULL)
			continue;
		lx_log("job %lld attempt %d is claimed by this node but not running here; giving it up",
			   parts[k].job_id, parts[k].attempt);
		rc = lx_db_reset_node(st.conn, cfg.node, parts[k].job_id, &lost);
		(void) still_connected(rc);
	}
	free(parts);
}

static void
claim(void)
{
	lx_job	   *jobs;
	int			njobs,
				i;
	lx_rc		rc;

	st.want_claim = false;
	rc = lx_db_claim(st.conn, cfg.node, &jobs, &njobs);
	if (!still_connected(rc) || rc != LX_OK)
		return;
	for (i = 0; i < njobs; i++)
	{
		lx_log("claimed job %lld attempt %d", jobs[i].job_id, jobs[i].attempt);
		if (lx_find(jobs[i].job_id, jobs[i].attempt) == NULL)
			(void) lx_spawn(&jobs[i], cfg.output_dir, PQsocket(st.conn));
		lx_job_free(&jobs[i]);
	}
	free(jobs);
}

static void
heartbeat(void)
{
	int			held;
	double		lease;
	lx_rc		rc = lx_db_heartbeat(st.conn, cfg.node, &held, &lease);

	if (!still_connected(rc))
		return;
	if (rc == LX_OK)
	{
		st.lease_s = lease;
		if (held != lx_nlive())
			st.want_reconcile = true;
	}
	/* Busy: again soon, well before the lease runs out. */
	st.next_heartbeat = lx_now() + (rc == LX_BUSY && heartbeat_interval() > 1.0 ? 1.0 : heartbeat_interval());
}

static void
take_notifies(void)
{
	bool		launch = false,
				cancel = false;

	if (st.conn == NULL)
		return;
	if (still_connected(lx_db_notifies(st.conn, cfg.node, &launch, &cancel)))
	{
		st.want_claim |= launch;
		st.want_reconcile |= cancel;
	}
}

static void
begin_stop(void)
{
	int			i;

	st.stopping = true;
	st.stop_deadline = lx_now() + cfg.grace_s + 10;
	lx_log("stopping: terminating %d running jobs", lx_nlive());
	for (i = 0; i < lx_nchildren(); i++)
		lx_stop(lx_child_at(i), "the launcher is stopping");
}

static int
next_timeout_ms(void)
{
	double		now = lx_now();
	double		next = now + 60;
	double		esc = lx_next_escalation(cfg.grace_s);

	if (st.conn)
	{
		if (st.next_heartbeat < next)
			next = st.next_heartbeat;
		if (!st.stopping && st.next_poll < next)
			next = st.next_poll;
		if (st.want_claim || st.want_reconcile)
			next = now;
	}
	else if (st.reconnect_at < next)
		next = st.reconnect_at;
	if (esc > 0 && esc < next)
		next = esc;
	if (st.stopping && st.stop_deadline < next)
		next = st.stop_deadline;
	return next <= now ? 0 : (int) ((next - now) * 1000) + 1;
}

int
main(int argc, char **argv)
{
	int			sigfd;
	int			stops_seen = 0;

	parse_args(argc, argv);
	lx_log_init(cfg.node);
	sigfd = lx_signals_init();
	if (sigfd < 0)
	{
		lx_log("cannot create the signal pipe: %s", strerror(errno));
		return 1;
	}
	st.backoff = BACKOFF_MIN_S;
	lx_log("starting (poll every %.2f s, kill grace %.2f s)", cfg.poll_s, cfg.grace_s);

	for (;;)
	{
		struct pollfd fds[2];
		int			nfds = 1;
		int			stops = lx_signals_drain();
		double		now;

		lx_reap();
		if (stops > stops_seen)
		{
			if (!st.stopping)
				begin_stop();
			else
				lx_kill_all();
			stops_seen = stops;
		}

		now = lx_now();
		if (st.conn == NULL && now >= st.reconnect_at)
			connect_db();
		take_notifies();
		if (st.conn)
			report_results();
		if (st.conn && st.want_reconcile)
			reconcile();
		if (st.conn && !st.stopping && (st.want_claim || lx_now() >= st.next_poll))
		{
			claim();
			st.next_poll = lx_now() + cfg.poll_s;
		}
		if (st.conn && lx_now() >= st.next_heartbeat)
			heartbeat();
		lx_escalate(cfg.grace_s);

		if (st.stopping && lx_nlive() == 0)
		{
			if (lx_nchildren() == 0)
				break;
			if (lx_now() >= st.stop_deadline)
			{
				lx_log("could not report %d results; their leases will expire", lx_nchildren());
				break;
			}
		}
		if (st.stopping && lx_now() >= st.stop_deadline + cfg.grace_s + 10)
		{
			lx_log("%d jobs did not exit; leaving", lx_nlive());
			break;
		}

		/* Queries may have read notices off the socket: poll() would not see them. */
		take_notifies();
		fds[0].fd = sigfd;
		fds[0].events = POLLIN;
		if (st.conn)
		{
			fds[1].fd = PQsocket(st.conn);
			fds[1].events = POLLIN;
			nfds = 2;
		}
		if (poll(fds, nfds, next_timeout_ms()) < 0 && errno != EINTR)
		{
			lx_log("poll: %s", strerror(errno));
			sleep(1);
		}
	}

	if (st.conn)
		PQfinish(st.conn);
	lx_log("stopped");
	return 0;
}
