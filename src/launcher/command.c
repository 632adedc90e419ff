/*
 * command.c — from the keeper's fork to the job's /bin/sh -c COMMAND.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/keyctl.h>

#include "command.h"
#include "log.h"
#include "safepath.h"

#define ENV_BASE 7

static void __attribute__((noreturn))
fail(const lx_command *c, const char *fmt, const char *arg)
{
	char		why[512];
	int			n = snprintf(why, sizeof(why), fmt, arg, strerror(errno));

	if (n > 0)
		(void) !write(c->error_fd, why, n < (int) sizeof(why) ? n : (int) sizeof(why) - 1);
	_exit(126);
}

/*
 * The directory of c->output, walked again now (safepath.h): what was
 * checked at start may have been swapped since, and root must not create
 * a file where another account chose. The file's name into *base.
 */
static int
output_dir_fd(const lx_command *c, const char **base)
{
	char		why[PATH_MAX + 256];
	int			dfd = lx_safe_parent(c->output, LX_DIR_TRUSTED, base, why, sizeof(why));

	if (dfd < 0)
	{
		errno = EPERM;
		fail(c, "the output directory %s: %s", why);
	}
	return dfd;
}

/*
 * The output file is created by root and handed to the job's user. A name
 * someone planted before (a symbolic or hard link, another user's file, a
 * FIFO, whose open would wait for a writer) is refused: handing it over
 * would give away whatever it points to. Mode 0600: the directory is
 * open to every job user, and the group is the user's primary one, which
 * many sites share among all accounts (users); the user may widen it.
 */
static void
open_output(const lx_command *c)
{
	struct stat st;
	const int	flags = O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
	bool		created = true;
	const char *base;
	int			dfd = output_dir_fd(c, &base),
				fd = openat(dfd, base, flags | O_CREAT | O_EXCL, 0600);

	if (fd < 0 && errno == EEXIST)
	{
		created = false;
		fd = openat(dfd, base, flags);
	}
	close(dfd);
	if (fd < 0)
		fail(c, "cannot open output file %s: %s", c->output);
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1
		|| (!created && st.st_uid != c->account->uid))
	{
		errno = EPERM;
		fail(c, "output file %s exists and is not the job user's own: %s", c->output);
	}
	if (created && geteuid() == 0 && fchown(fd, c->account->uid, c->account->gid) != 0)
		fail(c, "cannot give output file %s to the job's user: %s", c->output);
	if (fcntl(fd, F_SETFL, O_WRONLY | O_APPEND) != 0)
		fail(c, "cannot use output file %s: %s", c->output);
	if (dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0)
		fail(c, "cannot redirect output to %s: %s", c->output);
	close(fd);
}

static char *
env_pair(const char *key, const char *value)
{
	size_t		n = strlen(key) + strlen(value) + 2;
	char	   *s = malloc(n);

	if (s != NULL)
		snprintf(s, n, "%s=%s", key, value);
	return s;
}

/*
 * A session keyring of the job's own, as pam_keyinit gives a login. The
 * forked child still possesses the launcher's session keyring, and with it
 * every key in it (a Kerberos KEYRING: cache, a token a tool stored there)
 * and whatever an earlier job of another user added to it. Joined after
 * the change of account, so the new keyring belongs to the job's user.
 * A kernel without keyrings (ENOSYS), or a sandbox that forbids the call
 * (EPERM: the job cannot call it either), has no keyring to share.
 */
static int
own_session_keyring(void)
{
	if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, (char *) NULL) >= 0)
		return 0;
	return errno == ENOSYS || errno == EPERM ? 0 : -1;
}

/*
 * The kernel's OOM preference back to neutral. A launcher's unit often
 * protects it (systemd's OOMScoreAdjust=-900): inherited, that would make
 * the jobs the last processes the OOM killer picks, and the launcher and
 * other users' jobs die first when a job runs the node out of memory.
 * Lowering the value needs root, which the caller still is; a launcher
 * that is not root, or a kernel without the file, leaves it as it is.
 */
static void
neutral_oom_score(void)
{
	int			fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	(void) !write(fd, "0", 1);
	close(fd);
}

/*
 * The job's audit login uid (/proc/self/loginuid) is its account's, as
 * pam_loginuid sets it at a login. The launcher's is unset under systemd,
 * and an unset one may be set once by the process itself, without any
 * privilege: a job could then set its own to root's or another user's, and
 * the kernel's audit log would name that user for what it does. Started by
 * hand, the launcher has its starter's, which the job would carry. Set as
 * root (once set, changing it needs CAP_AUDIT_CONTROL); a kernel without
 * audit (no file) or a container that forbids it leaves it as it is.
 */
static void
own_login_uid(uid_t uid)
{
	char		text[16];
	int			n = snprintf(text, sizeof(text), "%u", (unsigned) uid),
				fd = open("/proc/self/loginuid", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	(void) !write(fd, text, n);
	close(fd);
}

/*
 * The kernel's CPU preference back to a login's: a unit that favours the
 * launcher (systemd's Nice=-5, CPUSchedulingPolicy=rr) would otherwise
 * favour its jobs too, which their accounts could not ask for: a job as a
 * real-time task can starve the node, the launcher included. Only what
 * favours it is undone (a negative nice value, a real-time policy or I/O
 * class): a launcher run at a lower priority (Nice=10, SCHED_BATCH) passes
 * that on as it did. Where root cannot (a sandbox), the job keeps the
 * launcher's.
 */
static void
neutral_scheduling(void)
{
	struct sched_param none = {0};
	int			policy = sched_getscheduler(0);

	if (policy == SCHED_FIFO || policy == SCHED_RR || policy == 6 /* SCHED_DEADLINE */)
		(void) sched_setscheduler(0, SCHED_OTHER, &none);
	errno = 0;
	if (getpriority(PRIO_PROCESS, 0) < 0 && errno == 0)
		(void) setpriority(PRIO_PROCESS, 0, 0);
#ifdef SYS_ioprio_get
	/* the real-time I/O class (IOSchedulingClass=realtime, class 1): back to none, from the nice value */
	if (syscall(SYS_ioprio_get, 1 /* IOPRIO_WHO_PROCESS */, 0) >> 13 == 1)
		(void) syscall(SYS_ioprio_set, 1, 0, 0);
#endif
}

/* What a login sets, then the job's variables (the launcher's included). */
static char **
build_env(const lx_command *c, const char *dir)
{
	const lx_account *a = c->account;
	char	  **env = calloc(ENV_BASE + c->job->nenv + 1, sizeof(char *));
	int			n = 0,
				i;

	if (env == NULL)
		return NULL;
	env[n++] = env_pair("HOME", a->home);
	env[n++] = env_pair("USER", a->name);
	env[n++] = env_pair("LOGNAME", a->name);
	env[n++] = env_pair("SHELL", a->shell);
	env[n++] = env_pair("PATH", a->uid == 0
						? "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
						: "/usr/local/bin:/usr/bin:/bin");
	env[n++] = env_pair("PWD", dir);
	for (i = 0; i < c->job->nenv; i++)
		env[n++] = env_pair(c->job->env[i].key, c->job->env[i].value);
	for (i = 0; i < n; i++)
		if (env[i] == NULL)
			return NULL;
	return env;
}

/*
 * The owner's account into *account and c->account, looked up here, in the
 * part: a lookup goes through NSS (LDAP, sssd) and may take seconds, which
 * neither the launcher (its other parts, claims, heartbeats) nor the keeper
 * (the launcher's connection, renewals, a cancel) may wait for.
 */
static void
look_up_account(lx_command *c, lx_account *account)
{
	char		why[512];

	if (lx_account_for(c->owner, c->rules, account, why, sizeof(why)) != 0)
	{
		errno = 0;
		fail(c, "%s%.0s", why);
	}
	c->account = account;
	/* into the launcher's log, which is still this process's stderr (this process's pid in it) */
	lx_log("job %lld attempt %d rank %d: owner %s is OS user %s (uid %ld)", c->job->job_id, c->job->attempt,
		   c->job->node_rank, c->owner, account->name, (long) account->uid);
}

void
lx_command_exec(const lx_command *in)
{
	char		why[512];
	lx_command	self = *in;
	const lx_command *c = &self;
	lx_account	account;
	const char *dir;
	char	  **env;
	sigset_t	none;
	int			fd;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/*
	 * Ignored signals stay ignored across exec: the keeper's must not, nor
	 * what the launcher's own starter ignored (a shell ignores SIGQUIT and
	 * SIGINT in a command it starts with &, nohup SIGHUP), as a login's
	 * are not. SIGPIPE only at the exec: the log line below goes to the
	 * launcher's stderr, and a log whose reader went away must not kill
	 * every part.
	 */
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP && sig != SIGPIPE)
			signal(sig, SIG_DFL);
	setpgid(0, 0);
#ifdef LX_TEST_SLOW_SETUP
	/* the test build only (Makefile): a set-up step that hangs as root, deaf to SIGTERM */
	signal(SIGTERM, SIG_IGN);
	sleep(300);
	signal(SIGTERM, SIG_DFL);
#endif
	errno = c->in_cgroup ? 0 : lx_tree_enter(c->tree);
	if (errno != 0)
		fail(c, "cannot join the part's cgroup %s: %s", c->tree->cgroup);
	look_up_account(&self, &account);
	dir = c->job->workdir ? c->job->workdir : account.home;

	fd = open("/dev/null", O_RDONLY);
	if (fd < 0 || dup2(fd, STDIN_FILENO) < 0)
		fail(c, "cannot open %s: %s", "/dev/null");
	if (fd != STDIN_FILENO)
		close(fd);
	if (c->output != NULL)
		open_output(c);
	else if (dup2(c->relay_fd, STDOUT_FILENO) < 0 || dup2(c->relay_fd, STDERR_FILENO) < 0)
		fail(c, "cannot redirect output to %s: %s", "the keeper");

	neutral_oom_score();
	neutral_scheduling();
	if (geteuid() == 0)
		own_login_uid(c->account->uid);
	if (lx_account_become(c->account, why, sizeof(why)) != 0)
	{
		errno = 0;
		fail(c, "%s%.0s", why);
	}
	if (own_session_keyring() != 0)
		fail(c, "%s: %s", "cannot give the job a session keyring of its own");
	/* Like login: an account without a home directory starts in /. */
	if (chdir(dir) != 0 && (c->job->workdir != NULL || chdir(dir = "/") != 0))
		fail(c, "cannot change to working directory %s: %s", dir);
	env = build_env(c, dir);
	if (env == NULL)
		fail(c, "%s: %s", "building the environment");

	/* Nothing of the launcher's (its database socket, other parts) goes along. */
	close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
	signal(SIGPIPE, SIG_DFL);
	execve("/bin/sh", (char *const[]) {"sh", "-c", c->job->command, NULL}, env);
	fail(c, "cannot run %s: %s", "/bin/sh");
}
