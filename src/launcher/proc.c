/*
 * proc.c — running job parts: keeper, command, reaping, stopping.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "log.h"
#include "proc.h"
#include "signals.h"

static lx_child *children = NULL;
static int	nchildren = 0;
static int	cap = 0;

static int
exit_code_of(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 255;
}

/* In the command's process, after fork: environment, files, exec. */
static void
exec_command(const lx_job *job, const char *output_dir)
{
	sigset_t	none;
	int			i,
				fd;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);

	/* The launcher's database password is not the job's business. */
	unsetenv("PGPASSWORD");
	for (i = 0; i < job->nenv; i++)
		setenv(job->env[i].key, job->env[i].value, 1);

	fd = open("/dev/null", O_RDONLY);
	if (fd >= 0)
	{
		dup2(fd, STDIN_FILENO);
		if (fd != STDIN_FILENO)
			close(fd);
	}
	if (output_dir != NULL)
	{
		char		path[4096];

		snprintf(path, sizeof(path), "%s/job-%lld-%d-rank%d.log",
				 output_dir, job->job_id, job->attempt, job->node_rank);
		fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (fd >= 0)
		{
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
			if (fd > STDERR_FILENO)
				close(fd);
		}
	}
	execl("/bin/sh", "sh", "-c", job->command, (char *) NULL);
	_exit(127);
}

/*
 * The keeper: leads the part's process group, runs the command in it and
 * exits with its code. Group signals from the launcher (SIGTERM, SIGINT)
 * reach the command too; the keeper only waits for it. If the launcher
 * dies, the keeper kills the group.
 */
static void
run_keeper(const lx_job *job, const char *output_dir, pid_t launcher)
{
	sigset_t	wait_set;
	pid_t		cmd;

	sigemptyset(&wait_set);
	sigaddset(&wait_set, SIGCHLD);
	sigaddset(&wait_set, SIGTERM);
	sigaddset(&wait_set, SIGINT);
	sigaddset(&wait_set, SIGHUP);
	sigaddset(&wait_set, SIGQUIT);
	sigaddset(&wait_set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &wait_set, NULL);

#ifdef __linux__
	prctl(PR_SET_PDEATHSIG, SIGUSR1);
	prctl(PR_SET_NAME, "mixdnn-keeper");
#endif
	if (getppid() != launcher)
		kill(-getpid(), SIGKILL);

	cmd = fork();
	if (cmd < 0)
		_exit(127);
	if (cmd == 0)
		exec_command(job, output_dir);

	for (;;)
	{
		siginfo_t	info;
		int			status;
		int			sig = sigwaitinfo(&wait_set, &info);

		if (sig == SIGCHLD)
		{
			if (waitpid(cmd, &status, WNOHANG) == cmd)
				_exit(exit_code_of(status));
		}
		else if (sig == SIGUSR1 || (sig < 0 && getppid() != launcher))
			kill(-getpid(), SIGKILL);
		/* SIGTERM and the like: the command got them as well. */
	}
}

static lx_child *
new_slot(void)
{
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
	memset(&children[nchildren], 0, sizeof(lx_child));
	return &children[nchildren++];
}

lx_child *
lx_spawn(const lx_job *job, const char *output_dir, int close_fd)
{
	lx_child   *c = new_slot();
	pid_t		launcher = getpid();
	pid_t		pid;

	c->job_id = job->job_id;
	c->attempt = job->attempt;
	c->started = lx_now();

	if (job->command == NULL)
	{
		lx_log("job %lld attempt %d has no command; reporting exit code 127", job->job_id, job->attempt);
		c->exited = true;
		c->code = 127;
		return c;
	}

	fflush(NULL);
	pid = fork();
	if (pid < 0)
	{
		lx_log("job %lld attempt %d: fork failed: %s; reporting exit code 127",
			   job->job_id, job->attempt, strerror(errno));
		c->exited = true;
		c->code = 127;
		return c;
	}
	if (pid == 0)
	{
		/* A copy of the launcher: it must leave the launcher's connection alone. */
		if (close_fd >= 0)
			close(close_fd);
		lx_signals_forget();
		setpgid(0, 0);
		run_keeper(job, output_dir, launcher);
		_exit(127);
	}
	/* Both sides set the group, so that it exists before either goes on. */
	if (setpgid(pid, pid) != 0 && errno != EACCES && errno != ESRCH)
		lx_log("setpgid(%d): %s", (int) pid, strerror(errno));
	c->pid = pid;
	lx_log("job %lld attempt %d started: pid %d, rank %d, CUDA_VISIBLE_DEVICES=%s, world %d GPUs (%s)",
		   job->job_id, job->attempt, (int) pid, job->node_rank, job->gpus ? job->gpus : "",
		   job->world_gpus, job->name ? job->name : "");
	return c;
}

void
lx_reap(void)
{
	int			status;
	pid_t		pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
	{
		int			i;

		for (i = 0; i < nchildren; i++)
		{
			lx_child   *c = &children[i];

			if (c->pid != pid || c->exited)
				continue;
			c->exited = true;
			c->code = exit_code_of(status);
			/* Whatever the command left in its group must not hold the GPUs. */
			kill(-pid, SIGKILL);
			lx_log("job %lld attempt %d exited with code %d after %.1f s",
				   c->job_id, c->attempt, c->code, lx_now() - c->started);
			break;
		}
	}
}

void
lx_stop(lx_child *c, const char *why)
{
	if (c->exited || c->term_sent > 0 || c->pid <= 0)
		return;
	lx_log("job %lld attempt %d: stopping process group %d (%s)", c->job_id, c->attempt, (int) c->pid, why);
	kill(-c->pid, SIGTERM);
	c->term_sent = lx_now();
}

void
lx_escalate(double grace)
{
	double		now = lx_now();
	int			i;

	for (i = 0; i < nchildren; i++)
	{
		lx_child   *c = &children[i];

		if (c->exited || c->term_sent == 0 || c->kill_sent || now < c->term_sent + grace)
			continue;
		lx_log("job %lld attempt %d: still running %.1f s after SIGTERM; sending SIGKILL",
			   c->job_id, c->attempt, now - c->term_sent);
		kill(-c->pid, SIGKILL);
		c->kill_sent = true;
	}
}

void
lx_kill_all(void)
{
	int			i;

	for (i = 0; i < nchildren; i++)
	{
		lx_child   *c = &children[i];

		if (c->exited || c->pid <= 0 || c->kill_sent)
			continue;
		lx_log("job %lld attempt %d: sending SIGKILL", c->job_id, c->attempt);
		kill(-c->pid, SIGKILL);
		c->kill_sent = true;
	}
}

double
lx_next_escalation(double grace)
{
	double		next = 0;
	int			i;

	for (i = 0; i < nchildren; i++)
	{
		lx_child   *c = &children[i];

		if (c->exited || c->term_sent == 0 || c->kill_sent)
			continue;
		if (next == 0 || c->term_sent + grace < next)
			next = c->term_sent + grace;
	}
	return next;
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
lx_find(long long job_id, int attempt)
{
	int			i;

	for (i = 0; i < nchildren; i++)
		if (children[i].job_id == job_id && children[i].attempt == attempt)
			return &children[i];
	return NULL;
}

void
lx_forget(lx_child *c)
{
	int			i = (int) (c - children);

	if (i < 0 || i >= nchildren)
		return;
	children[i] = children[nchildren - 1];
	nchildren--;
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
