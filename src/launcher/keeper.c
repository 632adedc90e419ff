/*
 * keeper.c — one job part's supervisor: runs it, ends all of it, and tells
 * whichever launcher is connected how it ended.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "command.h"
#include "keeper.h"
#include "log.h"
#include "relay.h"
#include "tree.h"

/* How long a new keeper waits for its launcher's first connection. */
#define FIRST_CONNECT_S 10.0

/* Checks in a row (one per turn, 50 ms apart while killing) that must find the part empty. */
#define EMPTY_CHECKS 3

/* How long, at the part's end, the keeper waits for the log to take the part's last lines. */
#define RELAY_DRAIN_S 1.0

/* lx_fork_backoff's first and longest wait (s). */
#define FORK_RETRY_FIRST_S 0.25
#define FORK_RETRY_MAX_S 8.0

typedef struct keeper
{
	const lx_keeper_args *args;
	lx_tree		tree;
	pid_t		cmd;
	int			sigfd;
	int			listen_fd;		/* where launchers connect, until the keeper leaves */
	int			conn;			/* the launcher's connection, -1 if none */
	int			errfd;			/* the command's set-up errors until it execs, -1 after */
	lx_relay	relay;			/* the part's output without an output file; in = -1 if none */
	bool		cmd_done;		/* the command exited */
	bool		part_done;		/* ... and nothing of the part is alive */
	bool		killing;		/* SIGKILL sent to the part, and sent again each turn */
	bool		reap_more;		/* reap() stopped at its batch: the next turn does not wait */
	int			empty_seen;		/* checks in a row that found the part empty */
	bool		leaving;		/* no launcher: exit once the part is done */
	int			code;
	char		why[512];
	double		term_at;		/* when 'T' came, 0 if not */
	double		orphan_until;	/* no launcher: kill the part then; 0 if connected */
	double		lease_until;	/* kill the part then unless renewed; 0: no lease known */
	bool		lease_lost;		/* killed for want of a launcher or lease, or the command could not
								 * be forked: the node's failure, not the job's result */
	double		fork_at;		/* the command's fork failed: tried again then; 0: not waiting */
	double		fork_until;		/* ... at the latest then, and given up if it fails */
	double		fork_gap;		/* the last wait between two tries */
	int			fork_errno;		/* why the last try failed */
	char		renewal[32];	/* digits of an "R<deadline>\n" being read */
	int			renewal_len;	/* -1: not reading one */
} keeper;

static void
send_line(keeper *k, const char *line)
{
	if (k->conn >= 0 && send(k->conn, line, strlen(line), MSG_NOSIGNAL) < 0)
	{
		close(k->conn);
		k->conn = -1;
	}
}

static void
send_state(keeper *k)
{
	char		line[PATH_MAX + 600];

	/* the GPUs too: a launcher that adopts the part must not start another on them */
	snprintf(line, sizeof(line), "H %d %s %s\n", (int) getpid(), k->tree.cgroup[0] ? k->tree.cgroup : "-",
			 k->args->job->gpus && k->args->job->gpus[0] ? k->args->job->gpus : "-");
	send_line(k, line);
	if (k->part_done && k->lease_lost)
		send_line(k, "L\n");
	if (k->part_done)
	{
		int			n = snprintf(line, sizeof(line), "X %d ", k->code);
		size_t		i;

		/* one line: a newline in the reason (a path, say) would cut it short */
		for (i = 0; k->why[i] && (size_t) n + 2 < sizeof(line); i++)
			line[n++] = (unsigned char) k->why[i] < 0x20 || k->why[i] == 0x7f ? ' ' : k->why[i];
		line[n++] = '\n';
		line[n] = '\0';
		send_line(k, line);
	}
}

static void
kill_part(keeper *k)
{
	k->killing = true;
	lx_tree_signal(&k->tree, SIGKILL);
}

/*
 * Kills a running part for a reason of the node's, not the job's (no
 * launcher, no lease): whichever launcher hears how it ended gives it up
 * to be re-queued instead of reporting the SIGKILL as the job's exit. A
 * part whose command had exited keeps that exit as its result (the
 * callers have reaped it: check_part after the loop's reap, read_launcher
 * itself).
 */
static void
give_up_part(keeper *k, const char *why)
{
	if (!k->cmd_done && !k->lease_lost)
	{
		k->lease_lost = true;
		snprintf(k->why, sizeof(k->why), "%s", why);
	}
	if (!k->killing)
		kill_part(k);
}

/* How long a leaving keeper listens for a connect that found its socket's name just before it went. */
#define LAST_CALL_MS 50

/*
 * Leaves. A launcher whose connection is still in the backlog counts on
 * an answer (its connect succeeded): with the socket's name gone no other
 * can come, and each waiting one hears how the part ended, as a launcher
 * connected earlier did; dropped, it would take the keeper for killed.
 * A connect that looked the name up before it went is queued within
 * microseconds: the keeper answers until LAST_CALL_MS pass without one.
 */
static void __attribute__((noreturn))
finish(keeper *k)
{
	struct pollfd p;
	int			fd;

	unlink(k->args->socket_path);
	lx_tree_remove(&k->tree);
	p.fd = k->listen_fd;
	p.events = POLLIN;
	if (k->part_done && k->listen_fd >= 0 && fcntl(k->listen_fd, F_SETFL, O_NONBLOCK) == 0)
		while ((fd = accept4(k->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK)) >= 0 ||
			   ((errno == EAGAIN || errno == EWOULDBLOCK) && poll(&p, 1, LAST_CALL_MS) > 0))
		{
			if (fd < 0)
				continue;
			if (k->conn >= 0)
				close(k->conn);
			k->conn = fd;
			send_state(k);
		}
	_exit(0);
}

/* The part's stdout and stderr, when they go to the log: the write end for the command, or -1. */
static int
open_relay(keeper *k)
{
	const lx_job *job = k->args->job;
	char		prefix[96];
	int			p[2];

	/* the part's end stays blocking: a program writing to it expects that */
	if (pipe2(p, O_CLOEXEC) != 0)
		return -1;
	snprintf(prefix, sizeof(prefix), "job %lld attempt %d rank %d output: ", job->job_id, job->attempt, job->node_rank);
	lx_relay_init(&k->relay, p[0], prefix);
	return p[1];
}

static void
cannot_start(keeper *k, const char *what)
{
	k->cmd_done = true;
	k->code = 126;
	snprintf(k->why, sizeof(k->why), "cannot %s: %s", what, strerror(errno));
}

double
lx_fork_backoff(double gap)
{
	double		next = gap > 0 ? 2 * gap : FORK_RETRY_FIRST_S;

	return next < FORK_RETRY_MAX_S ? next : FORK_RETRY_MAX_S;
}

/*
 * The command's fork failed (errno e): whether it is tried again later,
 * after lx_fork_backoff's wait,
 * for at most fork_retry_s from the first failure: the node short of
 * processes or memory for a moment (the keeper's own fork took the last
 * one) costs the part that wait, not an attempt of its job.
 */
static bool
fork_later(keeper *k, int e)
{
	const lx_job *job = k->args->job;
	double		now = lx_now();

	if (k->fork_until == 0)
		k->fork_until = now + k->args->fork_retry_s;
	if (now >= k->fork_until)
		return false;
	k->fork_gap = lx_fork_backoff(k->fork_gap);
	/* the last try at the deadline: never a wait past --fork-retry */
	k->fork_at = now + k->fork_gap < k->fork_until ? now + k->fork_gap : k->fork_until;
	k->fork_errno = e;
	lx_log("job %lld attempt %d: its keeper cannot fork the command: %s; it waits, the next try in %.2f s "
		   "(for at most %.0f s in all)", job->job_id, job->attempt, strerror(e), k->fork_at - now,
		   k->args->fork_retry_s);
	return true;
}

/*
 * A part waiting to fork its command that is stopped, killed or given up
 * meanwhile (its lease, its launcher): it ends as a fork that failed at
 * once does, given up to be re-queued, and no command is forked.
 */
static void
end_fork_wait(keeper *k)
{
	k->fork_at = 0;
	if (!k->lease_lost)
	{
		errno = k->fork_errno;
		cannot_start(k, "fork the command");
		k->lease_lost = true;
	}
	else
	{
		/* the reason is give_up_part's; 126: no command ran */
		k->cmd_done = true;
		k->code = 126;
	}
}

/* Forks the command; its setup errors come back through a pipe. */
static void
start_command(keeper *k)
{
	const lx_keeper_args *a = k->args;
	lx_command	c = {a->job, a->owner, a->rules, NULL, &k->tree, a->output, -1, -1, false};
	int			p[2],
				e;

	if (a->output == NULL && (c.relay_fd = open_relay(k)) < 0)
	{
		cannot_start(k, "create the output pipe");
		return;
	}
	/* non-blocking at both ends: fail()'s one write of < 512 bytes fits an empty pipe */
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0)
	{
		cannot_start(k, "create a pipe");
		if (c.relay_fd >= 0)
			close(c.relay_fd);
		return;
	}
	c.error_fd = p[1];
	k->cmd = lx_tree_fork(&k->tree, &c.in_cgroup);
	e = errno;
	/*
	 * A root launcher's cgroups are root's, and its jobs run as other
	 * accounts, which cannot write a cgroup.procs there to leave. Not one
	 * that runs jobs as its own account (--allow-same-user, its delegated
	 * cgroups that account's), nor one that may run jobs as root
	 * (--allow-root-jobs): their processes may leave, and the keeper's
	 * descendants are walked too.
	 */
	k->tree.born_in_cgroup = k->cmd > 0 && c.in_cgroup && geteuid() == 0 && !(a->rules != NULL && a->rules->allow_root);
	if (k->cmd == 0)
	{
		close(p[0]);
		lx_command_exec(&c);
	}
	close(p[1]);
	/* from here only the part holds the write end: EOF once all of it is gone */
	if (c.relay_fd >= 0)
		close(c.relay_fd);
	if (k->cmd < 0)
	{
		close(p[0]);
		/*
		 * For want of processes or memory (EAGAIN, ENOMEM): the node's
		 * failure, not the job's. Tried again for --fork-retry; then given
		 * up ('L' before 'X'), and the launcher has the job re-queued
		 * instead of failed with 126.
		 */
		if (fork_later(k, e))
		{
			/* the next try opens another */
			lx_relay_close(&k->relay);
			return;
		}
		k->fork_at = 0;
		errno = e;
		cannot_start(k, "fork the command");
		k->lease_lost = true;
		return;
	}
	k->fork_at = 0;
	/*
	 * Read in the loop, not here: until it execs, the command may block as
	 * root (an output file, a home on a hung file system), and the keeper
	 * must still hear the launcher, stop and kill it.
	 */
	k->errfd = p[0];
}

/* The command's set-up error, if it wrote one; the pipe closes at its exec or exit. */
static void
read_errors(keeper *k)
{
	size_t		len = strlen(k->why);
	ssize_t		n = 0;

	while (len < sizeof(k->why) - 1 && (n = read(k->errfd, k->why + len, sizeof(k->why) - 1 - len)) > 0)
		len += (size_t) n;
	k->why[len] = '\0';
	if (len < sizeof(k->why) - 1 && n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	close(k->errfd);
	k->errfd = -1;
}

static int
exit_code_of(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 255;
}

/*
 * Reaps the command and the orphans of the part that came to the keeper,
 * REAP_BATCH at most per turn. A part may orphan processes faster than
 * they are reaped (each waitpid goes through all of the keeper's
 * children): a loop until none is left would then not end while the part
 * runs, and the keeper would read no stop and run no timer (e2e
 * 82_stop_fork_storm).
 */
#define REAP_BATCH 256

static void
command_exited(keeper *k, int status)
{
	/* what it wrote before it exited is all in the pipe now */
	if (k->errfd >= 0)
		read_errors(k);
	k->cmd_done = true;
	k->code = exit_code_of(status);
}

static void
reap(keeper *k)
{
	struct signalfd_siginfo si;
	int			status,
				n = 0;
	pid_t		pid;

	while (read(k->sigfd, &si, sizeof(si)) > 0)
		;
	/* the command first, whatever the batch: its exit is the part's result */
	if (k->cmd > 0 && !k->cmd_done && waitpid(k->cmd, &status, WNOHANG) == k->cmd)
		command_exited(k, status);
	while (n < REAP_BATCH && (pid = waitpid(-1, &status, WNOHANG)) > 0)
	{
		n++;
		if (pid == k->cmd && !k->cmd_done)
			command_exited(k, status);
	}
	/* the SIGCHLDs of what is left were read above: poll() would not wake for it */
	k->reap_more = n == REAP_BATCH;
}

/*
 * One byte of an "R<deadline>\n" renewal; false if the byte is not part of
 * one. A renewal cut short by another message is dropped, never misread:
 * a wrong deadline would kill a healthy part.
 */
static bool
renewal_byte(keeper *k, char b)
{
	char	   *end;
	double		until;

	if (b == 'R')
	{
		k->renewal_len = 0;
		return true;
	}
	if (k->renewal_len < 0)
		return false;
	if (b == '\n')
	{
		k->renewal[k->renewal_len] = '\0';
		until = strtod(k->renewal, &end);
		if (k->renewal_len > 0 && *end == '\0' && until > 0)
			k->lease_until = until;
		k->renewal_len = -1;
		return true;
	}
	if ((isdigit((unsigned char) b) || b == '.') && k->renewal_len < (int) sizeof(k->renewal) - 1)
	{
		k->renewal[k->renewal_len++] = b;
		return true;
	}
	k->renewal_len = -1;
	return false;
}

/* The launcher's bytes; false once the connection is gone. */
static bool
read_launcher(keeper *k)
{
	char		buf[64];
	ssize_t		n = recv(k->conn, buf, sizeof(buf), 0);
	bool		detached = false;
	ssize_t		i;

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	for (i = 0; i < n; i++)
	{
		if (renewal_byte(k, buf[i]))
			continue;
		if (buf[i] == 'T' && k->term_at == 0)
		{
			k->term_at = lx_now();
			lx_tree_signal(&k->tree, SIGTERM);
			/* a stopped process (SIGSTOP, ^Z) would not run its SIGTERM handler before the grace's SIGKILL */
			lx_tree_signal(&k->tree, SIGCONT);
		}
		else if (buf[i] == 'K')
			kill_part(k);
		else if (buf[i] == 'D')
			detached = true;
		else if (buf[i] == 'A' && k->part_done)
			finish(k);
	}
	if (n > 0 && !detached)
		return true;
	close(k->conn);
	k->conn = -1;
	reap(k);					/* a command that exited in this very turn has a result to keep */
	if (detached || k->cmd_done)
	{
		/*
		 * Detached, or the launcher died after the command had exited: wait
		 * for a launcher to adopt the part. A finished part has a result
		 * the database has not had (the launcher may have died retrying
		 * it); dropped, the part would be given up and the job run again.
		 */
		k->orphan_until = lx_now() + k->args->adopt_s;
	}
	else
	{
		/*
		 * The launcher died while the command ran: nobody renews the lease
		 * any more, and the part is given up to be re-queued. Until it is
		 * gone the keeper still answers: a launcher that connects meanwhile
		 * holds its GPUs until it hears the part ended, then gives it up
		 * (refused, it could only guess how long a process slow to die,
		 * say in the GPU driver's teardown, still holds them). A part still
		 * waiting to fork its command (fork_later) ran none: its cause
		 * says so.
		 */
		give_up_part(k, k->fork_at > 0 ? "its launcher died while it waited to fork the command"
					 : "its launcher died while it ran");
		k->leaving = true;
	}
	return false;
}

static void
accept_launcher(keeper *k)
{
	int			fd = accept4(k->listen_fd, NULL, NULL, SOCK_CLOEXEC);

	if (fd < 0)
		return;
	if (k->conn >= 0)
		close(k->conn);
	k->conn = fd;
	k->orphan_until = 0;
	k->leaving = false;
	send_state(k);
}

/*
 * Past its lease the database may start the job elsewhere: the part must
 * be gone by then, whatever its launcher is doing. A command that already
 * exited has a result to report; only a running one is given up. What it
 * left in a stop's grace (check_part) is killed all the same.
 */
static void
check_lease(keeper *k, double now)
{
	if (k->lease_until <= 0 || now < k->lease_until || k->lease_lost
		|| (k->cmd_done && (k->killing || k->part_done)))
		return;
	give_up_part(k, "its lease ran out: no launcher renewed it in time");
}

/* Timers: SIGKILL after the grace period, an orphan's deadline, the lease, the part's end. */
static void
check_part(keeper *k)
{
	double		now = lx_now();

	check_lease(k, now);

	/* Waiting to fork the command: stopped or given up meanwhile, it is not forked. */
	if (k->fork_at > 0 && (k->term_at > 0 || k->killing))
		end_fork_wait(k);
	else if (k->fork_at > 0 && now >= k->fork_at)
		start_command(k);

	if (k->term_at > 0 && !k->killing && now >= k->term_at + k->args->grace_s)
		kill_part(k);
	/* No launcher came back: end the part (if it still runs) and leave. */
	if (k->orphan_until > 0 && now >= k->orphan_until)
	{
		give_up_part(k, "no launcher adopted it in time");
		k->leaving = true;
	}
	/*
	 * Whatever the command left behind must not hold the GPUs: killed at
	 * once when the command ended on its own. A part being stopped keeps
	 * its grace (SIGKILL above, at term_at + grace): a shell that does not
	 * exec its last command ("cd DIR && train", "train | tee LOG") dies at
	 * the SIGTERM while its children still run their handlers (a
	 * checkpoint).
	 */
	if (k->cmd_done && !k->killing && k->term_at == 0)
		kill_part(k);
	/*
	 * Again each turn until it is gone: without a cgroup the part's
	 * processes are found by walking /proc, and one that forks and exits
	 * fast enough can be missed by one walk (or be forked after it).
	 */
	else if (k->killing && !k->part_done)
		kill_part(k);
	if (k->cmd_done && !k->part_done)
		k->empty_seen = lx_tree_empty(&k->tree) ? k->empty_seen + 1 : 0;
	if (k->cmd_done && !k->part_done && k->empty_seen >= EMPTY_CHECKS)
	{
		/* its last lines in the log before the launcher logs its end */
		lx_relay_drain(&k->relay, RELAY_DRAIN_S);
		k->part_done = true;
		send_state(k);
	}
	if (k->part_done && k->leaving)
		finish(k);
}

static int	part_timeout(const keeper *k);

static int
poll_timeout(const keeper *k)
{
	int			ms = k->reap_more ? 0 : part_timeout(k);

	/* woken for the next try of the command's fork */
	if (k->fork_at > 0)
	{
		double		left = k->fork_at - lx_now();
		int			w = left > 0 ? (int) (left * 1000) + 1 : 0;

		if (w < ms)
			ms = w;
	}
	return ms;
}

static int
part_timeout(const keeper *k)
{
	double		left = k->lease_until - lx_now();

	if (k->killing && !k->part_done)
		return 50;
	if (k->term_at > 0 || k->orphan_until > 0)
		return 100;
	if (k->cmd_done)
		return 50;
	/* woken at the lease's end, not up to a second after it */
	if (k->lease_until > 0 && !k->lease_lost && left < 1.0)
		return left > 0 ? (int) (left * 1000) + 1 : 0;
	return 1000;
}

void
lx_keeper_main(const lx_keeper_args *a)
{
	keeper		k;
	sigset_t	set;

	memset(&k, 0, sizeof(k));
	k.args = a;
	k.conn = -1;
	k.errfd = -1;
	lx_relay_init(&k.relay, -1, "");
	k.listen_fd = a->listen_fd;
	k.orphan_until = lx_now() + FIRST_CONNECT_S;
	k.lease_until = a->lease_until;
	k.renewal_len = -1;
	setsid();
	prctl(PR_SET_NAME, "mixdnn-keeper");
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	k.sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	signal(SIGTERM, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	lx_tree_init(&k.tree, a->cgroup_base, a->part_name);
	start_command(&k);

	for (;;)
	{
		struct pollfd fds[5];
		short		relay_events;

		reap(&k);
		check_part(&k);
		/* after those, which may close errfd or conn; poll() skips negative ones */
		fds[0] = (struct pollfd) {k.sigfd, POLLIN, 0};
		fds[1] = (struct pollfd) {k.listen_fd, POLLIN, 0};
		fds[2] = (struct pollfd) {k.conn, POLLIN, 0};
		fds[3] = (struct pollfd) {k.errfd, POLLIN, 0};
		fds[4].fd = lx_relay_poll_fd(&k.relay, &relay_events);
		fds[4].events = relay_events;
		fds[4].revents = 0;
		if (poll(fds, 5, poll_timeout(&k)) < 0 && errno != EINTR)
			_exit(1);
		if (fds[4].fd >= 0 && fds[4].revents != 0)
			lx_relay_step(&k.relay);
		if (k.errfd >= 0 && (fds[3].revents & (POLLIN | POLLHUP | POLLERR)))
			read_errors(&k);
		if (k.listen_fd >= 0 && (fds[1].revents & POLLIN))
			accept_launcher(&k);
		else if (k.conn >= 0 && (fds[2].revents & (POLLIN | POLLHUP | POLLERR)))
			read_launcher(&k);
	}
}
