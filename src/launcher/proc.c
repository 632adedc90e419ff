/*
 * proc.c — starting, adopting, stopping and hearing from job parts' keepers.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "account.h"
#include "gpulist.h"
#include "keeper.h"
#include "log.h"
#include "proc.h"
#include "signals.h"
#include "tree.h"

static lx_child *children = NULL;
static int	nchildren = 0;
static int	cap = 0;
static int	installation = 0;

static lx_child *
new_slot(long long job_id, int attempt, const char *token)
{
	lx_child   *c;

	if (nchildren == cap)
	{
		int			ncap = cap ? cap * 2 : 16;
		lx_child   *n = realloc(children, sizeof(lx_child) * ncap);

		if (n == NULL)
		{
			lx_log("out of memory");
			exit(1);
		}
		children = n;
		cap = ncap;
	}
	c = &children[nchildren++];
	memset(c, 0, sizeof(*c));
	c->job_id = job_id;
	c->attempt = attempt;
	snprintf(c->token, sizeof(c->token), "%s", token);
	c->fd = -1;
	c->started = lx_now();
	c->installation = installation;
	return c;
}

void
lx_new_installation(void)
{
	installation++;
}

bool
lx_old_installation(const lx_child *c)
{
	return c->installation != installation;
}

static void
exited_now(lx_child *c, int code, const char *why)
{
	c->exited = true;
	c->code = code;
	snprintf(c->why, sizeof(c->why), "%s", why ? why : "");
}

/* A waiting part starts with at least this much of its lease left (s). */
#define START_MIN_LEASE_S 0.5

/*
 * The back-off of keepers' forks (lx_fork_backoff), shared by the node's
 * parts: a fork fails for want of the node's processes or memory, which
 * every part's next fork would meet too.
 */
static double fork_retry_gap;	/* 0: the last fork of a keeper worked */
static double fork_next_try;	/* no keeper is forked before then */

/*
 * What names this launcher's parts, from the spawn context: its cgroup,
 * under which its keepers create the parts' ("": none), and the prefix of
 * a part's name (installation and node).
 */
static char part_cgroup_base[PATH_MAX];
static char part_prefix[512];
static size_t part_prefix_len;	/* untruncated */
static unsigned long long part_prefix_hash;

/* FNV-1a, 64 bits, of s, from h (a prefix's hash, or the offset basis) */
static unsigned long long
fnv1a(unsigned long long h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char) *s) * 1099511628211ULL;
	return h;
}

static void
remember_ctx(const lx_spawn_ctx *ctx)
{
	snprintf(part_cgroup_base, sizeof(part_cgroup_base), "%s", ctx->cgroup_base);
	part_prefix_len = (size_t) snprintf(part_prefix, sizeof(part_prefix), "mixdnn-%s-%s", ctx->output_prefix, ctx->node);
	part_prefix_hash = fnv1a(fnv1a(fnv1a(fnv1a(14695981039346656037ULL, "mixdnn-"), ctx->output_prefix), "-"), ctx->node);
}

/*
 * A part's name: its cgroup's, under part_cgroup_base. With the launch's
 * token: another launch of the same job, attempt and node (a copy of the
 * database restored to before this one) gets another cgroup, and another
 * socket below. Without one: a keeper of an earlier version's.
 */
void
lx_part_name(char *buf, size_t size, long long job_id, int attempt, const char *token)
{
	char		ids[128];

	snprintf(ids, sizeof(ids), "-j%lld-a%d%s%s", job_id, attempt, token[0] ? "-t" : "", token);

	/*
	 * A cgroup's name is a directory's: at most NAME_MAX (255) bytes. A long
	 * database name, percent-encoded, with the node's and the token could
	 * make it longer, and the part would run without a cgroup: then the
	 * prefix (database, installation and node) is replaced by its hash,
	 * "mixdnn-hHASH". A name that fits is as it was, so that a keeper of an
	 * earlier version keeps its cgroup's.
	 */
	if (part_prefix_len + strlen(ids) <= LX_PART_NAME_MAX)
		snprintf(buf, size, "%s%s", part_prefix, ids);
	else
		snprintf(buf, size, "mixdnn-h%016llx%s", part_prefix_hash, ids);
}

static void
socket_name(char *buf, size_t size, long long job_id, int attempt, const char *token)
{
	snprintf(buf, size, "j%lld-a%d%s%s.sock", job_id, attempt, token[0] ? "-t" : "", token);
}

/*
 * A number as socket_name() writes it, at most max: digits, no sign, no
 * space, no leading zero. *p moves past it.
 */
static bool
parse_number(const char **p, long long max, long long *out)
{
	const char *s = *p;
	long long	v = 0;

	if (!isdigit((unsigned char) *s) || (s[0] == '0' && isdigit((unsigned char) s[1])))
		return false;
	for (; isdigit((unsigned char) *s); s++)
	{
		if (v > (max - (*s - '0')) / 10)
			return false;
		v = v * 10 + (*s - '0');
	}
	*out = v;
	*p = s;
	return true;
}

/*
 * A keeper's socket name, exactly as socket_name() writes it: job, attempt
 * and token, or (a keeper of an earlier version) job and attempt alone,
 * token "". sscanf() took a sign, a space, leading zeros and numbers past
 * the type's range too, for names no keeper has.
 */
static bool
parse_socket_name(const char *name, long long *job_id, int *attempt, char *token)
{
	const char *p = name;
	long long	a;

	token[0] = '\0';
	if (*p++ != 'j' || !parse_number(&p, LLONG_MAX, job_id) || strncmp(p, "-a", 2) != 0)
		return false;
	p += 2;
	if (!parse_number(&p, INT_MAX, &a))
		return false;
	*attempt = (int) a;
	if (strncmp(p, "-t", 2) == 0)
	{
		char		hex[LX_TOKEN_LEN + 1];

		p += 2;
		if (strspn(p, "0123456789abcdef") != LX_TOKEN_LEN)
			return false;
		memcpy(hex, p, LX_TOKEN_LEN);
		hex[LX_TOKEN_LEN] = '\0';
		p += LX_TOKEN_LEN;
		if (!lx_token_parse(hex, token))
			return false;
	}
	if (strcmp(p, ".sock") != 0)
	{
		token[0] = '\0';
		return false;
	}
	return true;
}

static int
unix_socket(const char *name, struct sockaddr_un *addr)
{
	memset(addr, 0, sizeof(*addr));
	addr->sun_family = AF_UNIX;
	snprintf(addr->sun_path, sizeof(addr->sun_path), "%s", name);
	return socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
}

/*
 * The keeper's socket name, connected: -1 when no one listens (errno
 * ECONNREFUSED or ENOENT: its keeper is gone), -2 when the process
 * listening is not of this launcher's account (a keeper is a fork of the
 * launcher; anyone else's would report exit codes and cgroups of its
 * choosing), -3 when no socket could be made.
 */
static int
connect_keeper(const char *name)
{
	struct sockaddr_un addr;
	struct ucred cr;
	socklen_t	len = sizeof(cr);
	int			fd = unix_socket(name, &addr),
				err;

	if (fd < 0)
		return -3;
	if (connect(fd, (struct sockaddr *) &addr, sizeof(addr)) != 0)
	{
		err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0 || cr.uid != geteuid())
	{
		close(fd);
		errno = EPERM;
		return -2;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	return fd;
}

/*
 * With the token: a copy of the database restored to an earlier time reuses
 * job ids, and its new job must neither append to the file of the forgotten
 * launch with the same ids nor fail because that file is another user's.
 * A name too long for a directory entry (a long database name,
 * percent-encoded) has the database and installation replaced by their
 * hash, as a part's cgroup has.
 */
void
lx_output_name(char *buf, size_t size, const lx_spawn_ctx *ctx, long long job_id, int attempt, int rank,
			   const char *token)
{
	char		tail[256];

	snprintf(tail, sizeof(tail), "-j%lld-a%d-%s-r%d%s%s.log", job_id, attempt, ctx->node, rank,
			 token[0] ? "-t" : "", token);
	if (strlen(ctx->output_prefix) + strlen(tail) <= LX_PART_NAME_MAX)
		snprintf(buf, size, "%s%s", ctx->output_prefix, tail);
	else
		snprintf(buf, size, "h%016llx%s", fnv1a(14695981039346656037ULL, ctx->output_prefix), tail);
}

static void
output_path(char *buf, size_t size, const lx_job *job, const lx_spawn_ctx *ctx)
{
	char		name[512];

	lx_output_name(name, sizeof(name), ctx, job->job_id, job->attempt, job->node_rank, job->token);
	snprintf(buf, size, "%s/%s", ctx->output_dir, name);
}

/* The keeper, in the fork: nothing of the launcher but the listening socket. */
static void __attribute__((noreturn))
become_keeper(const lx_job *job, const lx_spawn_ctx *ctx, const char *sock, int listen_fd)
{
	char		out[PATH_MAX + 256];
	char		part[512];
	lx_keeper_args a;

	lx_signals_forget();
	if (listen_fd > 3)
		close_range(3, listen_fd - 1, 0);
	close_range(listen_fd + 1, ~0U, 0);
	if (ctx->output_dir)
		output_path(out, sizeof(out), job, ctx);
	lx_part_name(part, sizeof(part), job->job_id, job->attempt, job->token);
	a.job = job;
	a.owner = job->owner ? job->owner : "";
	a.rules = &ctx->accounts;
	a.cgroup_base = ctx->cgroup_base;
	a.part_name = part;
	a.socket_path = sock;
	a.output = ctx->output_dir ? out : NULL;
	a.grace_s = ctx->grace_s;
	a.adopt_s = ctx->adopt_s;
	a.fork_retry_s = ctx->fork_retry_s;
	a.lease_until = ctx->lease_until;
	a.listen_fd = listen_fd;
	lx_keeper_main(&a);
}

/*
 * A part whose keeper is gone: kill what its cgroup runs, wait for it to
 * empty (2 s at most) and remove it. Whether it held anything.
 */
static bool
kill_part_cgroup(const char *cgroup)
{
	lx_tree		t;
	bool		held;
	int			i;

	memset(&t, 0, sizeof(t));
	snprintf(t.cgroup, sizeof(t.cgroup), "%s", cgroup);
	held = !lx_tree_empty(&t);
	if (held)
		lx_tree_signal(&t, SIGKILL);
	for (i = 0; i < 100 && !lx_tree_empty(&t); i++)
		usleep(20000);
	lx_tree_remove(&t);
	return held;
}

/* A part whose keeper was killed while no launcher ran: its cgroup, if it has one. */
static void
kill_orphaned_cgroup(long long job_id, int attempt, const char *token)
{
	char		name[512],
				path[PATH_MAX + 512];

	if (part_cgroup_base[0] == '\0')
		return;
	lx_part_name(name, sizeof(name), job_id, attempt, token);
	snprintf(path, sizeof(path), "%s/%s", part_cgroup_base, name);
	if (kill_part_cgroup(path))
		lx_log("job %lld attempt %d: its keeper was gone; killed what its cgroup %s still ran",
			   job_id, attempt, path);
}

/* The live part (other than self) holding one of these GPUs, if any. */
static lx_child *
gpu_holder(const char *gpus, const lx_child *self)
{
	int			i;

	for (i = 0; gpus != NULL && i < nchildren; i++)
	{
		lx_child   *o = &children[i];

		if (o != self && !o->exited && o->waiting == NULL
			&& (lx_gpus_overlap(gpus, o->gpus) || (o->gpus_unknown && gpus[0] != '\0')))
			return o;
	}
	return NULL;
}

static void start_part(lx_child *c, const lx_job *job, const lx_spawn_ctx *ctx);

lx_child *
lx_spawn(const lx_job *job, const lx_spawn_ctx *ctx)
{
	lx_child   *c = new_slot(job->job_id, job->attempt, job->token);
	lx_child   *holder;

	remember_ctx(ctx);
	c->lease_until = ctx->lease_until;
	snprintf(c->gpus, sizeof(c->gpus), "%s", job->gpus ? job->gpus : "");
	if (lx_now() < fork_next_try)
	{
		lx_log("job %lld attempt %d waits: the node could fork no keeper %.2f s ago",
			   job->job_id, job->attempt, fork_retry_gap - (fork_next_try - lx_now()));
		/* its --fork-retry counts from now: a pass tries one waiting part at a time */
		c->fork_failing_since = lx_now();
		c->waiting = lx_job_copy(job);
		return c;
	}
	holder = gpu_holder(c->gpus, c);
	if (holder != NULL)
	{
		lx_log("job %lld attempt %d waits: GPUs %s still run processes of job %lld attempt %d%s%s%s",
			   job->job_id, job->attempt, c->gpus, holder->job_id, holder->attempt,
			   lx_launch_token(holder) ? " (launch " : "", lx_launch_token(holder) ? lx_launch_token(holder) : "",
			   lx_launch_token(holder) ? ")" : "");
		c->waiting = lx_job_copy(job);
		return c;
	}
	start_part(c, job, ctx);
	return c;
}

void
lx_start_waiting(const lx_spawn_ctx *ctx)
{
	int			i;

	for (i = 0; i < nchildren; i++)
	{
		lx_child   *c = &children[i];
		lx_job	   *job = c->waiting;
		lx_spawn_ctx own = *ctx;

		/* checked for each part: a fork that failed on this pass holds back the rest */
		if (lx_now() < fork_next_try)
			return;
		if (job == NULL || gpu_holder(c->gpus, c) != NULL)
			continue;
		/* too little lease left, its keeper would kill it at once: a renewal or reconciliation decides */
		if (c->lease_until - lx_now() < START_MIN_LEASE_S)
		{
			if (!c->lease_noted)
				lx_log("job %lld attempt %d: its GPUs are free, but its lease has run out; it waits for a renewal",
					   c->job_id, c->attempt);
			c->lease_noted = true;
			continue;
		}
		c->waiting = NULL;
		c->started = lx_now();
		own.lease_until = c->lease_until;
		start_part(c, job, &own);
		lx_job_free(job);
		free(job);
	}
}

const char *
lx_waits_for(const lx_child *c)
{
	if (gpu_holder(c->gpus, c) != NULL)
		return "for its GPUs";
	return c->fork_failing_since > 0 ? "to fork its keeper" : "to start";
}

double
lx_fork_retry_at(void)
{
	if (fork_next_try > lx_now())
		for (int i = 0; i < nchildren; i++)
			if (children[i].waiting != NULL)
				return fork_next_try;
	return 1e300;
}

/*
 * A keeper that could not be forked: the node is out of processes or
 * memory for now. The part waits, its lease renewed as any waiting part's,
 * and is tried again after the back-off, until it has waited
 * ctx->fork_retry_s; then false: it is given up and its job re-queued,
 * perhaps onto another node (a retry spent on each failed fork would
 * spend mixdnn.max_retries within a second).
 */
static bool
fork_wait(lx_child *c, const lx_job *job, const lx_spawn_ctx *ctx, const char *why)
{
	double		now = lx_now();

	fork_retry_gap = lx_fork_backoff(fork_retry_gap);
	fork_next_try = now + fork_retry_gap;
	if (c->fork_failing_since == 0)
		c->fork_failing_since = now;
	if (now - c->fork_failing_since >= ctx->fork_retry_s)
		return false;
	lx_log("job %lld attempt %d: %s; it waits, the next try in %.2f s (for at most %.0f s in all)",
		   job->job_id, job->attempt, why, fork_retry_gap, ctx->fork_retry_s);
	c->waiting = lx_job_copy(job);
	return true;
}

static void
start_part(lx_child *c, const lx_job *job, const lx_spawn_ctx *ctx)
{
	char		why[512],
				sock[128];
	struct sockaddr_un addr;
	int			lfd;
	pid_t		pid;

	if (job->command == NULL)
	{
		lx_log("job %lld attempt %d has no command; reporting exit code 127", job->job_id, job->attempt);
		exited_now(c, 127, "the job has no command");
		return;
	}
	socket_name(sock, sizeof(sock), job->job_id, job->attempt, job->token);
	unlink(sock);
	lfd = unix_socket(sock, &addr);
	if (lfd < 0 || bind(lfd, (struct sockaddr *) &addr, sizeof(addr)) != 0 || listen(lfd, 4) != 0)
	{
		snprintf(why, sizeof(why), "cannot create the keeper's socket %s: %s", sock, strerror(errno));
		lx_log("job %lld attempt %d: %s", job->job_id, job->attempt, why);
		if (lfd >= 0)
			close(lfd);
		exited_now(c, 126, why);
		return;
	}
	/*
	 * Connected before the fork (the connection waits in the listening
	 * socket's backlog): once forked, the keeper runs the command, and a
	 * connection failing then would report the part ended while it runs
	 * on the GPUs the report frees.
	 */
	if ((c->fd = connect_keeper(sock)) < 0)
	{
		snprintf(why, sizeof(why), "cannot connect to the keeper's socket: %s", strerror(errno));
		close(lfd);
		unlink(sock);
		c->fd = -1;
		lx_log("job %lld attempt %d: %s", job->job_id, job->attempt, why);
		exited_now(c, 126, why);
		return;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		become_keeper(job, ctx, sock, lfd);
	close(lfd);
	if (pid < 0)
	{
		snprintf(why, sizeof(why), "cannot start the keeper: %s", strerror(errno));
		close(c->fd);
		c->fd = -1;
		unlink(sock);
		/*
		 * fork() fails only for want of processes or memory (EAGAIN: the
		 * node's PIDs taken, RLIMIT_NPROC; ENOMEM): the node's failure, not
		 * the job's. Tried again for a while; then given up, as a part that
		 * lost its lease is, and the job is re-queued (reset_node) instead
		 * of failed with 126.
		 */
		if (fork_wait(c, job, ctx, why))
			return;
		/* how long it waited, for the job's reason (reset_node's cause) */
		if (lx_now() - c->fork_failing_since >= 1)
			snprintf(why + strlen(why), sizeof(why) - strlen(why), " (after waiting %.0f s)",
					 lx_now() - c->fork_failing_since);
		lx_log("job %lld attempt %d: %s", job->job_id, job->attempt, why);
		c->lease_lost = true;
		exited_now(c, 126, why);
		return;
	}
	fork_retry_gap = 0;
	c->pid = pid;
	lx_log("job %lld attempt %d started: keeper %d, owner %s, rank %d, CUDA_VISIBLE_DEVICES=%s, world %d GPUs (%s)",
		   job->job_id, job->attempt, (int) pid, job->owner ? job->owner : "", job->node_rank, job->gpus ? job->gpus : "",
		   job->world_gpus, job->name ? job->name : "");
	return;
}

/* Whether a part of the current installation has this socket name: adopted, or started, already. */
static bool
known_socket(const char *name)
{
	char		own[128];
	int			i;

	for (i = 0; i < nchildren; i++)
	{
		if (children[i].installation != installation)
			continue;
		socket_name(own, sizeof(own), children[i].job_id, children[i].attempt, children[i].token);
		if (strcmp(own, name) == 0)
			return true;
	}
	return false;
}

int
lx_adopt(const lx_spawn_ctx *ctx)
{
	DIR		   *d = opendir(".");
	struct dirent *e;
	int			n = 0;

	remember_ctx(ctx);
	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL)
	{
		long long	job_id;
		int			attempt,
					fd;
		char		token[LX_TOKEN_LEN + 1];
		lx_child   *c;

		if (!parse_socket_name(e->d_name, &job_id, &attempt, token) || known_socket(e->d_name))
			continue;
		fd = connect_keeper(e->d_name);
		if (fd == -2)
			lx_log("job %lld attempt %d: the process behind %s is not this launcher's: not adopted",
				   job_id, attempt, e->d_name);
		if (fd == -3)
			continue;			/* no socket to ask with (out of descriptors): next time */
		if (fd < 0)
		{
			/*
			 * Its keeper is gone (it unlinks its socket unless killed). A
			 * keeper killed while no launcher was connected leaves its part
			 * running in its cgroup: end it before reconcile gives the part
			 * up, or its next attempt would share the GPUs with it.
			 */
			if (fd == -1 && (errno == ECONNREFUSED || errno == ENOENT))
				kill_orphaned_cgroup(job_id, attempt, token);
			unlink(e->d_name);
			continue;
		}
		c = new_slot(job_id, attempt, token);
		c->fd = fd;
		c->gpus_unknown = true;
		if (token[0] != '\0')
			lx_log("job %lld attempt %d: adopted its keeper (launch %s)", job_id, attempt, token);
		else
			lx_log("job %lld attempt %d: adopted its keeper, of an earlier launcher version (no launch token): "
				   "taken for the launch the database lists for the job, attempt and node", job_id, attempt);
		n++;
	}
	closedir(d);
	return n;
}

const char *
lx_launch_token(const lx_child *c)
{
	if (c->token[0] != '\0')
		return c->token;
	return c->learned[0] != '\0' ? c->learned : NULL;
}

/* Whether c knows a launch, and it is this token's. */
static bool
knows_launch(const lx_child *c, const char *token)
{
	const char *own = lx_launch_token(c);

	return own != NULL && strcmp(own, token) == 0;
}

bool
lx_is_launch(const lx_child *c, const char *token)
{
	const char *own = lx_launch_token(c);

	/* an earlier installation's part: never looked for by lx_find(), which would not return it */
	if (lx_old_installation(c))
		return own == NULL || token[0] == '\0' || strcmp(own, token) == 0;
	return lx_find(c->job_id, c->attempt, token) == c;
}

void
lx_learn_token(lx_child *c, const char *token)
{
	if (lx_launch_token(c) != NULL || c->disowned || token[0] == '\0')
		return;
	snprintf(c->learned, sizeof(c->learned), "%s", token);
	lx_log("job %lld attempt %d: its keeper, of an earlier launcher version, is taken for launch %s",
		   c->job_id, c->attempt, token);
}

void
lx_disown(lx_child *c, const char *why)
{
	if (lx_launch_token(c) == NULL && !c->disowned)
	{
		c->disowned = true;
		lx_log("job %lld attempt %d: its keeper, of an earlier launcher version, is not the launch "
			   "the database lists: its exit, which names no launch, will not be reported",
			   c->job_id, c->attempt);
	}
	lx_stop(c, why);
}

void
lx_learn_gpus(lx_child *c, const char *gpus)
{
	if (!c->gpus_unknown || !lx_gpu_list_valid(gpus))
		return;
	snprintf(c->gpus, sizeof(c->gpus), "%s", gpus);
	c->gpus_unknown = false;
}

/*
 * The keeper is gone without saying how the part ended (killed, or it
 * crashed): end the part through its cgroup if it has one. Without one,
 * what the part left running cannot be found; say so.
 */
static void
keeper_lost(lx_child *c)
{
	if (c->cgroup[0] != '\0')
		(void) kill_part_cgroup(c->cgroup);
	else
		lx_log("job %lld attempt %d: its keeper died and it had no cgroup: processes it left cannot be found",
			   c->job_id, c->attempt);
	lx_log("job %lld attempt %d: its keeper %d died; reporting exit code 137", c->job_id, c->attempt, (int) c->pid);
	exited_now(c, 137, "its keeper process died");
}

/*
 * An adopted keeper that closed the connection before its hello: killed
 * or crashed as this launcher connected (one that leaves answers first),
 * and it said nothing of the part. As for a socket that refuses: end what
 * the part's cgroup still runs, and give the part up (reconcile re-queues
 * it if the database still lists it) rather than fail the job with a
 * made-up 137.
 */
static void
keeper_left_unheard(lx_child *c)
{
	if (part_cgroup_base[0] == '\0')
		lx_log("job %lld attempt %d: its keeper died and it had no cgroup: processes it left cannot be found",
			   c->job_id, c->attempt);
	kill_orphaned_cgroup(c->job_id, c->attempt, c->token);
	lx_log("job %lld attempt %d: its keeper left before it said how the part ended; giving the part up",
		   c->job_id, c->attempt);
	c->lease_lost = true;
	exited_now(c, 137, "its keeper left before it said how the part ended");
}

/*
 * Whether c->cgroup is the one this launcher's keeper of c creates: the
 * part's name under the launcher's cgroup, nothing else. Root writes
 * cgroup.kill there and signals what cgroup.procs lists.
 */
static bool
own_part_cgroup(const lx_child *c)
{
	char		name[512],
				want[PATH_MAX + 512];

	if (part_cgroup_base[0] == '\0')
		return false;
	lx_part_name(name, sizeof(name), c->job_id, c->attempt, c->token);
	snprintf(want, sizeof(want), "%s/%s", part_cgroup_base, name);
	return strcmp(c->cgroup, want) == 0;
}

static void
keeper_line(lx_child *c, const char *line)
{
	int			pid,
				code,
				fields,
				n = 0;
	char		path[PATH_MAX],
				gpus[256];

	if ((fields = sscanf(line, "H %d %4095s %255s", &pid, path, gpus)) >= 2)
	{
		c->pid = pid;
		/* a keeper of an earlier version says no GPUs: its part may hold any */
		if (fields == 3 && (strcmp(gpus, "-") == 0 || lx_gpu_list_valid(gpus)))
		{
			snprintf(c->gpus, sizeof(c->gpus), "%s", strcmp(gpus, "-") == 0 ? "" : gpus);
			c->gpus_unknown = false;
		}
		snprintf(c->cgroup, sizeof(c->cgroup), "%s", strcmp(path, "-") == 0 ? "" : path);
		if (c->cgroup[0] != '\0' && !own_part_cgroup(c))
		{
			lx_log("job %lld attempt %d: its keeper names cgroup %s, not this launcher's: not used",
				   c->job_id, c->attempt, c->cgroup);
			c->cgroup[0] = '\0';
		}
	}
	else if (strcmp(line, "L") == 0)
		c->lease_lost = true;
	else if (sscanf(line, "X %d %n", &code, &n) == 1 && !c->exited)
	{
		exited_now(c, code, line + n);
		lx_log("job %lld attempt %d exited with code %d after %.1f s%s%s", c->job_id, c->attempt, code,
			   lx_now() - c->started, c->why[0] ? ": " : "", c->why);
	}
}

static void
read_keeper(lx_child *c)
{
	for (;;)
	{
		ssize_t		n = recv(c->fd, c->in + c->inlen, sizeof(c->in) - 1 - c->inlen, 0);
		char	   *nl;

		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n <= 0)
		{
			close(c->fd);
			c->fd = -1;
			if (!c->exited && c->pid == 0)
				keeper_left_unheard(c);
			else if (!c->exited)
				keeper_lost(c);
			return;
		}
		c->inlen += (int) n;
		c->in[c->inlen] = '\0';
		while ((nl = strchr(c->in, '\n')) != NULL)
		{
			*nl = '\0';
			keeper_line(c, c->in);
			c->inlen -= (int) (nl + 1 - c->in);
			memmove(c->in, nl + 1, c->inlen + 1);
		}
		if (c->inlen >= (int) sizeof(c->in) - 1)
			c->inlen = 0;
	}
}

void
lx_read_keepers(void)
{
	int			i,
				status;

	/* The launcher's own keepers become zombies when they exit. */
	while (waitpid(-1, &status, WNOHANG) > 0)
		;
	for (i = 0; i < nchildren; i++)
		if (children[i].fd >= 0)
			read_keeper(&children[i]);
}

int
lx_keeper_fds(struct pollfd *fds, int max)
{
	int			i,
				n = 0;

	for (i = 0; i < nchildren && n < max; i++)
	{
		if (children[i].fd < 0)
			continue;
		fds[n].fd = children[i].fd;
		fds[n].events = POLLIN;
		fds[n++].revents = 0;
	}
	return n;
}

static void
tell(lx_child *c, char what)
{
	if (c->fd >= 0 && send(c->fd, &what, 1, MSG_NOSIGNAL) != 1)
		lx_log("job %lld attempt %d: cannot reach its keeper: %s", c->job_id, c->attempt, strerror(errno));
}

void
lx_stop(lx_child *c, const char *why)
{
	if (c->exited || c->stop_sent)
		return;
	if (c->waiting != NULL)
	{
		lx_log("job %lld attempt %d: never started (%s)", c->job_id, c->attempt, why);
		lx_job_free(c->waiting);
		free(c->waiting);
		c->waiting = NULL;
		exited_now(c, 143, "stopped before it started");
		return;
	}
	lx_log("job %lld attempt %d: stopping all its processes (%s)", c->job_id, c->attempt, why);
	tell(c, 'T');
	c->stop_sent = true;
}

void
lx_kill_all(void)
{
	int			i;

	for (i = 0; i < nchildren; i++)
	{
		lx_child   *c = &children[i];

		if (c->exited || c->kill_sent)
			continue;
		if (c->waiting != NULL)
		{
			lx_stop(c, "killing every part");
			continue;
		}
		lx_log("job %lld attempt %d: killing all its processes", c->job_id, c->attempt);
		tell(c, 'K');
		c->kill_sent = true;
	}
}

void
lx_renew(lx_child *c, double until)
{
	char		msg[64];
	int			len = snprintf(msg, sizeof(msg), "R%.3f\n", until);

	c->lease_until = until;
	c->lease_noted = false;
	if (!c->exited && c->fd >= 0 && send(c->fd, msg, (size_t) len, MSG_NOSIGNAL) != len)
		lx_log("job %lld attempt %d: cannot renew its keeper's lease: %s", c->job_id, c->attempt, strerror(errno));
}

void
lx_detach_all(void)
{
	int			i;

	for (i = 0; i < nchildren; i++)
		tell(&children[i], 'D');
}

void
lx_forget(lx_child *c)
{
	int			i = (int) (c - children);

	if (i < 0 || i >= nchildren)
		return;
	tell(c, 'A');
	if (c->fd >= 0)
		close(c->fd);
	children[i] = children[nchildren - 1];
	nchildren--;
}

int
lx_nchildren(void)
{
	return nchildren;
}

lx_child *
lx_child_at(int i)
{
	return &children[i];
}

lx_child *
lx_find(long long job_id, int attempt, const char *token)
{
	lx_child   *unbound = NULL;
	int			i;

	/* an earlier installation's part with the same ids is another job's; another launch's too */
	for (i = 0; i < nchildren; i++)
	{
		lx_child   *c = &children[i];

		if (c->job_id != job_id || c->attempt != attempt || c->installation != installation)
			continue;
		/* a token the database did not give ("") is no reason to tell launches apart */
		if (token[0] == '\0' || knows_launch(c, token))
			return c;

		/*
		 * A keeper of an earlier version, which knows no launch: taken for
		 * this one only if no part knows it as its own (another keeper
		 * adopted or started since, say, while this one is stopped), and
		 * never once found to be another launch's (lx_disown()).
		 */
		if (lx_launch_token(c) == NULL && !c->disowned && unbound == NULL)
			unbound = c;
	}
	return unbound;
}

int
lx_nlive(void)
{
	int			i,
				n = 0;

	for (i = 0; i < nchildren; i++)
		if (!children[i].exited)
			n++;
	return n;
}
