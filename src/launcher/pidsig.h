/*
 * pidsig.h — signalling a process found by its pid, and no other.
 *
 * A pid read from /proc or a cgroup's cgroup.procs names a process only
 * until that process exits and is reaped: then the kernel may give the
 * number to any new process, another user's too, and a root launcher's
 * kill() would signal that one. So the launcher opens a pidfd on the pid,
 * which refers to one process for good, whatever becomes of its number;
 * then checks in /proc that the process now behind the number is the one
 * it found (its start time, or its cgroup); then signals through the
 * pidfd. If the process found is gone by then, the pidfd's signal fails
 * (ESRCH) instead of reaching the number's next owner; if it is alive, the
 * check read it and nothing else. Kernels before 5.3 have no pidfd_open
 * (ENOSYS): there the check is made just before kill(), which narrows the
 * window to microseconds but cannot close it.
 */
#ifndef LX_PIDSIG_H
#define LX_PIDSIG_H

#include <stdbool.h>
#include <sys/types.h>

/* What /proc/PID/stat says of a process. */
typedef struct lx_pid_stat
{
	char		state;			/* R, S, D, Z (zombie), X (dead), ... */
	pid_t		ppid;
	unsigned long long start;	/* field 22: clock ticks after boot; never the same for two
								 * processes that had the pid one after the other, unless both
								 * started within one tick (pids wrapped around in it) */
} lx_pid_stat;

/* /proc/PID/stat of pid; false if it is gone. */
bool		lx_pid_stat_of(pid_t pid, lx_pid_stat *st);

/*
 * Who the process behind a pid must still be for the signal to go: each
 * field set is checked; at least one must be.
 */
typedef struct lx_pid_want
{
	unsigned long long start;	/* its start time, as lx_pid_stat_of() read it; 0: not checked */
	const char *cgroup;			/* its cgroup v2 path as /proc/PID/cgroup gives it (relative
								 * to the mount); NULL: not checked */
	pid_t		parent;			/* its parent is this one ... */
	pid_t		or_parent;		/* ... or this one (0: parent only); 0, 0: not checked */
} lx_pid_want;

/* A process pinned by lx_pid_pin(). */
typedef struct lx_pinned
{
	pid_t		pid;
	int			fd;				/* its pidfd; -1 where there is none (the fallback) */
} lx_pinned;

/*
 * Pins the process behind pid and checks it is the one wanted: false if
 * pid is gone or another process now (nothing is left to unpin). *st: what
 * its /proc/PID/stat said (a zombie is pinned too: see st->state).
 */
bool		lx_pid_pin(pid_t pid, const lx_pid_want *want, lx_pinned *p, lx_pid_stat *st);

/* Sends sig to the pinned process (0: whether it is still alive). */
bool		lx_pid_send(const lx_pinned *p, int sig);

void		lx_pid_unpin(lx_pinned *p);

/*
 * Sends sig to pid if the process behind it is still the one wanted;
 * whether it was sent. A pid that is gone, or is another process now, is
 * left alone.
 */
bool		lx_pid_signal(pid_t pid, const lx_pid_want *want, int sig);

/*
 * Whether lx_pid_signal() uses pidfds: true until pidfd_open() says ENOSYS
 * (then false for good). Tests set it false to check the fallback.
 */
extern bool lx_pid_use_pidfd;

#endif
