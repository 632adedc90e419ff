/*
 * pidsig.c — signalling a process found by its pid, and no other
 * (pidsig.h says why and how).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pidsig.h"

bool		lx_pid_use_pidfd = true;

bool
lx_pid_stat_of(pid_t pid, lx_pid_stat *st)
{
	char		path[64],
				buf[1024];
	char	   *close_paren;
	int			fd,
				ppid;
	ssize_t		n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int) pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	/* The command name may hold spaces and parentheses: parse after the last ')'. */
	close_paren = strrchr(buf, ')');
	if (close_paren == NULL)
		return false;
	/* fields 3 and 4, then 5 to 21 skipped, then 22 */
	if (sscanf(close_paren + 1, " %c %d %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %llu",
			   &st->state, &ppid, &st->start) != 3)
		return false;
	st->ppid = (pid_t) ppid;
	return true;
}

/* Whether /proc/PID/cgroup puts pid in the cgroup v2 path want. */
static bool
in_cgroup(pid_t pid, const char *want)
{
	char		path[64],
				line[4096];
	FILE	   *f;
	bool		in = false;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int) pid);
	if ((f = fopen(path, "re")) == NULL)
		return false;
	while (fgets(line, sizeof(line), f))
	{
		if (strncmp(line, "0::", 3) != 0)
			continue;
		line[strcspn(line, "\n")] = '\0';
		in = strcmp(line + 3, want) == 0;
		break;
	}
	fclose(f);
	return in;
}

/* Whether the process now behind pid, whose stat is st, is the one wanted. */
static bool
is_wanted(pid_t pid, const lx_pid_stat *st, const lx_pid_want *want)
{
	bool		parent_set = want->parent != 0 || want->or_parent != 0;

	if (want->start == 0 && want->cgroup == NULL && !parent_set)
		return false;			/* nothing to know it by: leave it */
	if (want->start != 0 && st->start != want->start)
		return false;
	if (parent_set && st->ppid != want->parent && (want->or_parent == 0 || st->ppid != want->or_parent))
		return false;
	return want->cgroup == NULL || in_cgroup(pid, want->cgroup);
}

static int
pidfd_open_(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int) syscall(SYS_pidfd_open, pid, 0);
#else
	errno = ENOSYS;
	return -1;
#endif
}

static int
pidfd_send_signal_(int fd, int sig)
{
#ifdef SYS_pidfd_send_signal
	return (int) syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0);
#else
	errno = ENOSYS;
	return -1;
#endif
}

bool
lx_pid_pin(pid_t pid, const lx_pid_want *want, lx_pinned *p, lx_pid_stat *st)
{
	p->pid = pid;
	p->fd = -1;
	if (pid <= 0)
		return false;
	if (lx_pid_use_pidfd && (p->fd = pidfd_open_(pid)) < 0)
	{
		if (errno == ESRCH)
			return false;		/* gone (reaped): nothing to signal */
		if (errno == ENOSYS)
			lx_pid_use_pidfd = false;	/* before 5.3: the fallback, from now on */
		/* EMFILE, ENOMEM, EINVAL (a thread): no pin this time, the check right before kill() */
	}
	/* read after the pidfd is open: the check holds for the process it pins */
	if (lx_pid_stat_of(pid, st) && is_wanted(pid, st, want))
		return true;
	lx_pid_unpin(p);
	return false;
}

bool
lx_pid_send(const lx_pinned *p, int sig)
{
	/* a pinned process that has gone meanwhile fails with ESRCH: its pid's next owner gets nothing */
	if (p->fd >= 0)
		return pidfd_send_signal_(p->fd, sig) == 0;
	return kill(p->pid, sig) == 0;
}

void
lx_pid_unpin(lx_pinned *p)
{
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
}

bool
lx_pid_signal(pid_t pid, const lx_pid_want *want, int sig)
{
	lx_pinned	p;
	lx_pid_stat st;
	bool		sent;

	if (!lx_pid_pin(pid, want, &p, &st))
		return false;
	sent = lx_pid_send(&p, sig);
	lx_pid_unpin(&p);
	return sent;
}
