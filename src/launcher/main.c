/*
 * main.c — bin/mixdnn-launcher: the reference launcher of one GPU node
 * (contract §5, docs/launcher.md).
 *
 * One loop polls the database socket, its keepers' sockets and a self-pipe
 * for signals. It claims the node's parts when a mixdnn_launch notice names
 * the node, at connect and every poll interval; runs each under a keeper
 * (keeper.h) as the job owner's OS account; reports exit codes with
 * mixdnn.finish(job, code, node, attempt, why, launch token); heartbeats;
 * and stops any part the database no longer lists for the node
 * (cancelled, failed on another node, lost), each part the launch of its
 * token (docs/launcher.md, "Launch tokens"). Results it cannot report
 * while disconnected wait until it is connected again. At start it adopts
 * the keepers a launcher that left with SIGUSR2 left behind.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db.h"
#include "log.h"
#include "options.h"
#include "proc.h"
#include "signals.h"

#define BACKOFF_MIN_S 0.25
#define BACKOFF_MAX_S 5.0

/*
 * Claims a notification asks for come at most this often: anyone who can
 * connect may NOTIFY mixdnn_launch (PostgreSQL has no privilege on
 * channels), and each claim takes the scheduler lock and writes the node's
 * row: a flood of bare notifications would make a launcher claim thousands
 * of times a second.
 */
#define CLAIM_MIN_GAP_S 0.05
/* Likewise reconciliations, which mixdnn_cancel asks for: each reads the node's parts (node_parts). */
#define RECONCILE_MIN_GAP_S 0.05
#define HEARTBEAT_MAX_S 10.0
/*
 * A failed report (an SQL error: disk full, a statement timeout) is retried
 * for as long as it fails, each wait twice the last, up to this. It is never
 * dropped: while the database lists the part as running, a dropped result
 * makes reconcile give the part up, and the job runs again.
 */
#define REPORT_BACKOFF_MAX_S 60.0

#define MAX_KEEPERS 1024

static lx_config cfg = {.poll_s = 5.0, .grace_s = 10.0, .fork_retry_s = 60.0, .min_uid = LX_DEFAULT_MIN_UID};

static struct
{
	PGconn	   *conn;
	double		reconnect_at;
	double		backoff;
	double		next_heartbeat;
	bool		reconcile_failed;	/* the last reconciliation's call failed: again at the next heartbeat */
	double		next_poll;
	double		lease_s;
	bool		warned_interval;
	bool		want_claim;
	double		last_claim;		/* when the last claim() ran (CLAIM_MIN_GAP_S) */
	bool		want_reconcile;
	double		last_reconcile;	/* when the last reconcile() ran (RECONCILE_MIN_GAP_S) */
	bool		reconciled;		/* a reconcile() has run to its end since the launcher started */
	bool		claim_unanswered;	/* a claim's connection was lost before its answer, since */
	bool		stopping;
	double		stop_deadline;
	bool		started;		/* connected and checked once: errors are no longer fatal */
	int			dir_lock_fd;	/* the state directory, flock()ed by connect_db; -1 before */
	char		installation[128];
	char		prefix[256];	/* of output files and cgroups: database and installation */
	double		lock_wait_s;	/* the session's mixdnn.lock_timeout in s, read at connect and each heartbeat; <= 0 unknown */
} st;

static double
heartbeat_interval(void)
{
	double		s;

	if (cfg.heartbeat_s > 0)
		return cfg.heartbeat_s;
	s = st.lease_s > 0 ? st.lease_s / 3 : HEARTBEAT_MAX_S;
	return s < 0.2 ? 0.2 : (s > HEARTBEAT_MAX_S ? HEARTBEAT_MAX_S : s);
}

/*
 * The longest a call waits for the server's answer (lx_db_set_answer_wait):
 * two heartbeat intervals, and at least connect_timeout's 10 s plus three
 * of the session's lock waits (mixdnn.lock_timeout, read at connect and
 * again after each heartbeat, as a reload may change it; a call takes a
 * few locks, each waited for at most that long, then it is refused with
 * 55P03 and retried): a call slow only because the scheduler
 * is busy is not taken for lost. A call that waits longer has missed its
 * heartbeat; its connection is taken for lost.
 */
#define ANSWER_WAIT_MIN_S 10.0
#define ANSWER_LOCK_WAITS 3

static double
answer_wait(void)
{
	double		s = 2 * heartbeat_interval(),
				floor = ANSWER_WAIT_MIN_S + ANSWER_LOCK_WAITS * (st.lock_wait_s > 0 ? st.lock_wait_s : 0);

	return s < floor ? floor : s;
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

/*
 * The keepers' deadline for a lease the database granted in a call that
 * started at 'asked' (its now() is no earlier): a little before the
 * database can give the part up, so that it is gone before the job
 * starts anywhere else.
 */
static double
lease_deadline(double asked)
{
	double		margin = st.lease_s < 10 ? st.lease_s / 10 : 1.0;

	return asked + st.lease_s - margin;
}

/* A call's result: false when the connection went and the caller must stop. */
static bool
still_connected(lx_rc rc)
{
	if (rc == LX_LOST)
		drop_connection("connection lost");
	return st.conn != NULL;
}

/* A configuration error before the launcher ever ran: give up at once. */
static void
fatal_if_new(lx_rc rc)
{
	if (rc != LX_FATAL || st.started)
		return;
	lx_log("configuration error: giving up (see the message above)");
	exit(2);
}

/*
 * Output files are named after the database (percent-encoded) and the
 * installation as well as job, attempt, node and rank, so that no two
 * parts anywhere share one.
 */
static void
output_prefix(char *buf, size_t size)
{
	const char *db = PQdb(st.conn);
	size_t		n = 0;

	for (; *db && n + 4 < size; db++)
	{
		unsigned char ch = (unsigned char) *db;

		if (isalnum(ch) || ch == '_' || ch == '.')
			buf[n++] = (char) ch;
		else
			n += snprintf(buf + n, size - n, "%%%02X", ch);
	}
	snprintf(buf + n, size - n, "-%s", st.installation);
}

/*
 * The node's keepers live in a directory per installation of the
 * extension, so that a job id of a dropped and re-created one is never
 * taken for another's. Keepers of an installation that is gone end with
 * their lease. Checked at connect and before every claim: the extension
 * can be dropped and created again while the launcher stays connected,
 * and a part claimed from the new one must not start among the old one's
 * keepers (the next launcher, entering the new directory, would not find
 * it, give it up and start the next attempt beside it).
 */
static bool
enter_installation(void)
{
	char		id[128];
	lx_rc		rc = lx_db_installation(st.conn, id, sizeof(id));

	fatal_if_new(rc);
	if (rc != LX_OK)
		return false;
	if (strcmp(id, st.installation) == 0)
		return true;
	if (st.installation[0] != '\0')
	{
		lx_log("the extension was re-installed (%s, was %s): stopping the jobs of the old one",
			   id, st.installation);
		lx_kill_all();
		lx_new_installation();
	}
	/* the descriptor checked at start, never the name: no one can have swapped it since */
	if (fchdir(cfg.state_fd) != 0 || (mkdir(id, 0700) != 0 && errno != EEXIST) || chdir(id) != 0)
	{
		lx_log("configuration error: cannot use state directory %s/%s: %s", cfg.state_dir, id, strerror(errno));
		exit(2);
	}
	snprintf(st.installation, sizeof(st.installation), "%s", id);
	output_prefix(st.prefix, sizeof(st.prefix));
	return true;
}

static const lx_spawn_ctx *spawn_ctx(void);

static void
connect_db(void)
{
	lx_part    *parts;
	int			nparts,
				adopted;
	lx_rc		rc;

	st.conn = lx_db_connect(cfg.dsn, cfg.node, cfg.password);
	if (st.conn == NULL || !enter_installation())
		goto retry;
	st.lock_wait_s = lx_db_lock_wait_s(st.conn);
	lx_db_set_answer_wait(answer_wait());
	/* Checks the node and the role's rights before anything else. */
	rc = lx_db_node_parts(st.conn, cfg.node, &parts, &nparts);
	fatal_if_new(rc);
	if (rc != LX_OK)
		goto retry;
	free(parts);
	/*
	 * One launcher per state directory, for its whole life: the database's
	 * node lock is its session's, so when that session drops a second
	 * launcher of the node could take it and adopt the first one's keepers
	 * (which then lost their launcher and killed their parts). Held on a
	 * descriptor of the directory (cfg.state_fd is O_PATH), which keepers
	 * close, and released at exit.
	 */
	if (st.dir_lock_fd < 0)
		st.dir_lock_fd = openat(cfg.state_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (st.dir_lock_fd < 0 || flock(st.dir_lock_fd, LOCK_EX | LOCK_NB) != 0)
	{
		lx_log("another launcher uses state directory %s (%s)", cfg.state_dir, strerror(errno));
		goto retry;
	}
	if (lx_db_lock_node(st.conn, cfg.node) != LX_OK || lx_db_listen(st.conn) != LX_OK)
		goto retry;

	/* What an earlier launcher left running is adopted; reconcile gives up the rest. */
	adopted = lx_adopt(spawn_ctx());
	if (adopted > 0)
		lx_log("adopted %d running job parts of an earlier launcher", adopted);
	lx_log("connected to database \"%s\" as %s; listening", PQdb(st.conn), PQuser(st.conn));
	st.started = true;
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

/* The wait after the report's n-th SQL error: a heartbeat, doubling, at most REPORT_BACKOFF_MAX_S. */
static double
report_backoff(lx_child *c)
{
	double		wait = heartbeat_interval();

	if (c->report_errors < 30)
		c->report_errors++;
	for (int i = 1; i < c->report_errors && wait < REPORT_BACKOFF_MAX_S; i++)
		wait *= 2;
	if (wait > REPORT_BACKOFF_MAX_S)
		wait = REPORT_BACKOFF_MAX_S;
	if (c->report_errors == 1 || wait >= REPORT_BACKOFF_MAX_S)
		lx_log("job %lld attempt %d: exit code %d not reported yet; trying again in %.0f s",
			   c->job_id, c->attempt, c->code, wait);
	return wait;
}

/*
 * Parts given up (lx_child.lease_lost) and why, until reconcile() hands
 * them back with reset_node and the cause, or finds them no longer
 * claimed here: the job's reason then says why (its keeper could not be
 * forked, ...), not a guess.
 */
typedef struct given_up
{
	long long	job_id;
	int			attempt;
	char		token[LX_TOKEN_LEN + 1];	/* "" for a keeper of an earlier version */
	char		why[sizeof(((lx_child *) NULL)->why)];	/* lx_db_reset_node() cuts it to the cause's length */
} given_up;

static given_up *gave_up;
static int	ngave_up;

static void
remember_given_up(const lx_child *c)
{
	given_up   *g = realloc(gave_up, (ngave_up + 1) * sizeof(*gave_up));
	const char *token = lx_launch_token(c);

	if (g == NULL)
		return;					/* the reason then says less */
	gave_up = g;
	g = &gave_up[ngave_up++];
	g->job_id = c->job_id;
	g->attempt = c->attempt;
	snprintf(g->token, sizeof(g->token), "%s", token ? token : "");
	snprintf(g->why, sizeof(g->why), "%s", c->why);
}

/* The given-up record of a part the database lists (by its token), or -1. */
static int
find_given_up(const lx_part *part)
{
	int			i;

	for (i = 0; i < ngave_up; i++)
		if (gave_up[i].job_id == part->job_id && gave_up[i].attempt == part->attempt &&
			(gave_up[i].token[0] == '\0' || part->token[0] == '\0' || strcmp(gave_up[i].token, part->token) == 0))
			return i;
	return -1;
}

static void
drop_given_up(int i)
{
	gave_up[i] = gave_up[--ngave_up];
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
		if (lx_old_installation(c))
		{
			/* its job id may be a new job's now */
			lx_log("job %lld attempt %d of the extension's earlier installation ended; not reported",
				   c->job_id, c->attempt);
			lx_forget(c);
			continue;
		}
		if (c->disowned)
		{
			/* reported without a token, it would count for the launch the database lists */
			lx_log("job %lld attempt %d: exit code %d of a keeper of an earlier launcher version not reported: "
				   "it was not the launch the database lists", c->job_id, c->attempt, c->code);
			lx_forget(c);
			continue;
		}
		if (c->lease_lost)
		{
			/* not a result of the job's: reconcile gives the part up if the database still lists it */
			lx_log("job %lld attempt %d: given up, not reported as an exit: %s",
				   c->job_id, c->attempt, c->why);
			remember_given_up(c);
			lx_forget(c);
			st.want_reconcile = true;
			continue;
		}
		rc = lx_db_finish(st.conn, cfg.node, c->job_id, c->attempt, lx_launch_token(c), c->code, c->why, &counted);
		if (!still_connected(rc))
			return;
		if (rc == LX_OK)
			lx_log("job %lld attempt %d: reported exit code %d%s", c->job_id, c->attempt, c->code,
				   counted ? "" : " (stale: the part was no longer running; ignored)");
		else
		{
			/*
			 * Busy (the job's row held, e.g. by its owner's open cancel, or
			 * the scheduler lock not had within mixdnn.lock_timeout): again
			 * within a second, as a busy heartbeat is. An SQL error: again
			 * a heartbeat later, then backing off (REPORT_BACKOFF_MAX_S).
			 */
			c->report_after = lx_now() + (rc != LX_BUSY ? report_backoff(c) :
										   heartbeat_interval() > 1.0 ? 1.0 : heartbeat_interval());
			continue;
		}
		lx_forget(c);
	}
}

/*
 * Makes the node's processes match the database: stops parts it no longer
 * lists, and gives up parts claimed here that nothing runs (a claim whose
 * answer was lost with the connection). A part is the launch with its
 * token: one whose job, attempt and node the database lists with another
 * token is another launch's (a copy of the database restored to before
 * this one gave its job id to a new job), and is stopped too. A keeper of
 * an earlier launcher version, which knows no token, is taken for the
 * running launch of its job, attempt and node that no other part knows as
 * its own; one that is not is disowned (lx_disown()): its exit would be
 * reported without a token, and count for whichever launch is listed.
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
	st.last_reconcile = lx_now();
	rc = lx_db_node_parts(st.conn, cfg.node, &parts, &nparts);
	st.reconcile_failed = rc != LX_OK;
	if (!still_connected(rc) || rc != LX_OK)
		return;

	for (i = 0; i < lx_nchildren(); i++)
	{
		lx_child   *c = lx_child_at(i);
		bool		listed = false,
					other = false;

		if (c->exited)
			continue;
		for (k = 0; k < nparts && !listed; k++)
			if (parts[k].job_id == c->job_id && parts[k].attempt == c->attempt && parts[k].running)
			{
				listed = lx_is_launch(c, parts[k].token);
				other = !listed;
			}
		if (!listed)
			lx_disown(c, other ? "the database lists another launch of its job, attempt and node: "
					"a copy of the database restored to before this launch gave its job id to a new job"
					: "the job was cancelled, failed on another node or lost its lease");
	}
	/* given up here, and no longer claimed: nothing to hand back */
	for (i = ngave_up - 1; i >= 0; i--)
	{
		for (k = 0; k < nparts; k++)
			if (parts[k].running && find_given_up(&parts[k]) == i)
				break;
		if (k == nparts)
			drop_given_up(i);
	}
	for (k = 0; k < nparts && st.conn; k++)
	{
		int			lost,
					g;
		lx_child   *c = lx_find(parts[k].job_id, parts[k].attempt, parts[k].token);
		const char *cause;

		if (c != NULL && parts[k].gpus_known)
			lx_learn_gpus(c, parts[k].gpus);
		if (c != NULL && parts[k].running)
			lx_learn_token(c, parts[k].token);
		if (!parts[k].running || c != NULL)
			continue;
		/* why, for the job's reason: what gave it up, else what the launcher knows */
		g = find_given_up(&parts[k]);
		cause = g >= 0 ? (gave_up[g].why[0] ? gave_up[g].why : NULL)
			: st.claim_unanswered ? "its launcher lost the connection before the answer to its claim"
			: !st.reconciled ? "its launcher restarted and found no keeper of it"
			: NULL;
		lx_log("job %lld attempt %d is claimed by this node but not running here; giving it up%s%s",
			   parts[k].job_id, parts[k].attempt, cause ? ": " : "", cause ? cause : "");
		rc = lx_db_reset_node(st.conn, cfg.node, parts[k].job_id, cause, &lost);
		if (rc == LX_OK && g >= 0)
			drop_given_up(g);
		(void) still_connected(rc);
	}
	/* what it knew is said: causes found from now on are new ones */
	if (st.conn)
	{
		st.reconciled = true;
		st.claim_unanswered = false;
	}
	free(parts);
}

/* How parts start; the same for every part of this installation. */
static const lx_spawn_ctx *
spawn_ctx(void)
{
	static lx_spawn_ctx ctx;

	ctx.cgroup_base = cfg.cgroup_base;
	ctx.output_dir = cfg.output_dir;
	ctx.output_prefix = st.prefix;
	ctx.node = cfg.node;
	ctx.accounts = (lx_account_rules) {cfg.allow_root_jobs, (uid_t) cfg.min_uid};
	ctx.grace_s = cfg.grace_s;
	ctx.fork_retry_s = cfg.fork_retry_s;
	/* A detached part dies before its lease ends if no launcher adopts it. */
	ctx.adopt_s = (st.lease_s > 0 ? st.lease_s : 60) * 2 / 3;
	return &ctx;
}

static void
claim(void)
{
	lx_job	   *jobs;
	int			njobs,
				i;
	lx_rc		rc;
	double		asked = lx_now();
	lx_spawn_ctx ctx;

	st.want_claim = false;
	if (!enter_installation())
		return;
	rc = lx_db_claim(st.conn, cfg.node, &jobs, &njobs, &st.lease_s);
	/* claimed or not: reconcile() gives up what is claimed and not running */
	st.claim_unanswered |= rc == LX_LOST;
	if (!still_connected(rc) || rc != LX_OK)
		return;
	/* a shorter lease than the last heartbeat's: the next renewal comes sooner */
	if (st.next_heartbeat > lx_now() + heartbeat_interval())
		st.next_heartbeat = lx_now() + heartbeat_interval();
	/* the claim renewed these parts' leases, by the lease it read itself */
	ctx = *spawn_ctx();
	ctx.lease_until = lease_deadline(asked);
	for (i = 0; i < njobs; i++)
	{
		lx_child   *had;

		lx_log("claimed job %lld attempt %d (launch %s)", jobs[i].job_id, jobs[i].attempt,
			   jobs[i].token[0] ? jobs[i].token : "unknown");
		had = lx_find(jobs[i].job_id, jobs[i].attempt, jobs[i].token);

		/*
		 * A part claimed just now has no keeper yet: one of an earlier
		 * version (which knows no launch) is another launch's, such as one
		 * that a restored copy of the database forgot. Only a keeper that
		 * knows this token is this launch (the copy forgot its claim).
		 */
		if (had != NULL && lx_launch_token(had) == NULL && jobs[i].token[0] != '\0')
		{
			lx_disown(had, "the database has just given its job, attempt and node to a new launch");
			had = NULL;
		}
		if (had == NULL)
			(void) lx_spawn(&jobs[i], &ctx);
		lx_job_free(&jobs[i]);
	}
	free(jobs);
}

/*
 * Renews the keepers of the parts whose leases the server renewed. A part
 * it lists but did not renew (someone held its row locked) keeps its
 * keeper's deadline, which comes before the server's lease ends. Returns
 * how many of the listed parts are live here.
 */
static int
renew_keepers(const lx_part *parts, int nparts, double until)
{
	int			i,
				live = 0;

	for (i = 0; i < nparts; i++)
	{
		lx_child   *c = lx_find(parts[i].job_id, parts[i].attempt, parts[i].token);

		if (c == NULL)
			continue;
		live += !c->exited;
		if (parts[i].renewed)
			lx_renew(c, until);
		else
			lx_log("job %lld attempt %d: the server did not renew its lease (its row is locked); "
				   "its deadline stays", c->job_id, c->attempt);
	}
	return live;
}

static void
heartbeat(void)
{
	lx_part    *parts;
	int			nparts;
	double		lease;
	double		asked = lx_now();
	lx_rc		rc = lx_db_heartbeat(st.conn, cfg.node, &parts, &nparts, &lease);

	if (!still_connected(rc))
		return;
	if (rc == LX_OK)
	{
		int			listed_live;
		double		lock_wait;

		st.lease_s = lease;	/* before lease_deadline(), which reads it */
		/* and mixdnn.lock_timeout again: a reload may have changed it since connect_db read it */
		lock_wait = lx_db_lock_wait_s(st.conn);
		if (lock_wait > 0)
			st.lock_wait_s = lock_wait;
		lx_db_set_answer_wait(answer_wait());
		listed_live = renew_keepers(parts, nparts, lease_deadline(asked));

		/*
		 * Reconcile unless the listed parts are exactly the live ones.
		 * Equal counts are not enough: a part whose cancel notice was
		 * lost (alive, unlisted) and one that exited while its finish()
		 * keeps failing (listed, not alive) leave them equal, and the
		 * cancelled part would run on until its keeper's lease deadline.
		 */
		if (nparts != lx_nlive() || listed_live != lx_nlive() || st.reconcile_failed)
			st.want_reconcile = true;
		if (cfg.heartbeat_s > lease / 2 && !st.warned_interval)
			lx_log("--heartbeat-interval %.2f s is more than half of mixdnn.lease_timeout (%.0f s): "
				   "a heartbeat late by a little makes the keepers kill their parts", cfg.heartbeat_s, lease);
		st.warned_interval = cfg.heartbeat_s > lease / 2;
		free(parts);
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

/*
 * At SIGUSR2: the parts that have not started (waiting for their GPUs, or
 * to fork their keepers) have no keeper to leave running. Each the
 * database still lists as this launch is handed back now with
 * reset_node, saying why; before, the next launcher found no keeper of
 * it and gave it up with a vaguer cause, or its lease ran out. Returns
 * how many parts wait, handed back or not.
 */
static int
hand_back_waiting(void)
{
	lx_part    *parts;
	int			nparts,
				i,
				k,
				lost,
				waiting = 0;
	lx_rc		rc;

	for (i = 0; i < lx_nchildren(); i++)
		waiting += !lx_child_at(i)->exited && lx_child_at(i)->waiting != NULL;
	if (waiting == 0 || st.conn == NULL)
		return waiting;
	rc = lx_db_node_parts(st.conn, cfg.node, &parts, &nparts);
	if (!still_connected(rc) || rc != LX_OK)
		return waiting;
	for (i = 0; i < lx_nchildren() && st.conn; i++)
	{
		lx_child   *c = lx_child_at(i);
		char		cause[128];

		if (c->exited || c->waiting == NULL)
			continue;
		snprintf(cause, sizeof(cause), "its launcher left (SIGUSR2) while the part waited %s", lx_waits_for(c));
		for (k = 0; k < nparts; k++)
			if (parts[k].running && parts[k].job_id == c->job_id && parts[k].attempt == c->attempt &&
				lx_is_launch(c, parts[k].token))
				break;
		if (k == nparts)
			continue;
		lx_log("job %lld attempt %d never started; handing it back: %s", c->job_id, c->attempt, cause);
		rc = lx_db_reset_node(st.conn, cfg.node, c->job_id, cause, &lost);
		/*
		 * Refused for now (the scheduler lock not had within
		 * mixdnn.lock_timeout): the next would wait as long, each, and
		 * the launcher is leaving: the next launcher gives the rest up.
		 */
		if (!still_connected(rc) || rc == LX_BUSY)
			break;
	}
	free(parts);
	return waiting;
}

/* SIGUSR2: renew the leases once more, hand the parts to the next launcher, exit. */
static void
detach(void)
{
	int			waiting;

	if (st.conn)
		heartbeat();
	waiting = hand_back_waiting();
	lx_detach_all();
	lx_log("leaving %d job parts running for the next launcher of node %s (SIGUSR2)", lx_nlive() - waiting, cfg.node);
	if (st.conn)
		PQfinish(st.conn);
	exit(0);
}

static int
next_timeout_ms(void)
{
	double		now = lx_now();
	double		next = now + 60;

	if (st.conn)
	{
		if (st.next_heartbeat < next)
			next = st.next_heartbeat;
		if (!st.stopping && st.next_poll < next)
			next = st.next_poll;
		if (st.want_reconcile && st.last_reconcile + RECONCILE_MIN_GAP_S < next)
			next = st.last_reconcile + RECONCILE_MIN_GAP_S;
		if (st.want_claim && !st.stopping && st.last_claim + CLAIM_MIN_GAP_S < next)
			next = st.last_claim + CLAIM_MIN_GAP_S;
		if (lx_fork_retry_at() < next)
			next = lx_fork_retry_at();
		for (int i = 0; i < lx_nchildren(); i++)
			if (lx_child_at(i)->exited && lx_child_at(i)->report_after < next)
				next = lx_child_at(i)->report_after;	/* a result to report again */
	}
	else if (st.reconnect_at < next)
		next = st.reconnect_at;
	if (st.stopping && st.stop_deadline < next)
		next = st.stop_deadline;
	return next <= now ? 0 : (int) ((next - now) * 1000) + 1;
}

/* Stopping: done once every part is reported, or given up after the deadline. */
static bool
stop_done(void)
{
	if (!st.stopping)
		return false;
	if (lx_nlive() == 0)
	{
		if (lx_nchildren() == 0)
			return true;
		if (lx_now() >= st.stop_deadline)
		{
			lx_log("could not report %d results; their leases will expire", lx_nchildren());
			return true;
		}
	}
	if (lx_now() >= st.stop_deadline + cfg.grace_s + 10)
	{
		lx_log("%d jobs did not exit; leaving", lx_nlive());
		return true;
	}
	return false;
}

static void
wait_for_events(int sigfd)
{
	struct pollfd fds[MAX_KEEPERS + 2];
	int			nfds = 1;

	fds[0].fd = sigfd;
	fds[0].events = POLLIN;
	if (st.conn)
	{
		fds[1].fd = PQsocket(st.conn);
		fds[1].events = POLLIN;
		nfds = 2;
	}
	nfds += lx_keeper_fds(fds + nfds, MAX_KEEPERS);
	if (poll(fds, nfds, next_timeout_ms()) < 0 && errno != EINTR)
	{
		lx_log("poll: %s", strerror(errno));
		sleep(1);
	}
}

/*
 * Started with 0, 1 or 2 closed, the next descriptor opened would take its
 * place (a keeper's output pipe would become a job's stdin, say).
 */
static void
open_standard_fds(void)
{
	int			fd;

	for (fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY) != fd)
			_exit(2);
}

int
main(int argc, char **argv)
{
	int			sigfd;
	int			stops_seen = 0;

	/* before the first log line: a log that lost its reader must not kill the launcher */
	signal(SIGPIPE, SIG_IGN);
	open_standard_fds();
	lx_options_load(&cfg, argc, argv);
	sigfd = lx_signals_init();
	if (sigfd < 0)
	{
		lx_log("cannot create the signal pipe: %s", strerror(errno));
		return 1;
	}
	st.backoff = BACKOFF_MIN_S;
	st.dir_lock_fd = -1;
	lx_log("starting (poll every %.2f s, kill grace %.2f s, state in %s)", cfg.poll_s, cfg.grace_s, cfg.state_dir);

	for (;;)
	{
		int			stops = lx_signals_drain();

		lx_db_set_answer_wait(answer_wait());
		if (lx_signals_detach() && !st.stopping)
			detach();
		lx_read_keepers();
		if (stops > stops_seen)
		{
			if (!st.stopping)
				begin_stop();
			else
				lx_kill_all();
			stops_seen = stops;
		}

		if (st.conn == NULL && lx_now() >= st.reconnect_at)
			connect_db();
		take_notifies();
		if (st.conn)
			report_results();
		if (st.conn && st.want_reconcile && lx_now() >= st.last_reconcile + RECONCILE_MIN_GAP_S)
			reconcile();
		/* Before claiming: a part's keeper learns the lease it must not outlive. */
		if (st.conn && lx_now() >= st.next_heartbeat)
			heartbeat();
		if (st.conn && !st.stopping && st.lease_s > 0 &&
			((st.want_claim && lx_now() >= st.last_claim + CLAIM_MIN_GAP_S) || lx_now() >= st.next_poll))
		{
			claim();
			st.last_claim = lx_now();
			st.next_poll = st.last_claim + cfg.poll_s;
		}
		/* after the heartbeat: a renewed lease lets a waiting part start now */
		if (st.installation[0] != '\0')
			lx_start_waiting(spawn_ctx());
		if (stop_done())
			break;

		/* Queries may have read notices off the socket: poll() would not see them. */
		take_notifies();
		wait_for_events(sigfd);
	}

	if (st.conn)
		PQfinish(st.conn);
	lx_log("stopped");
	return 0;
}
