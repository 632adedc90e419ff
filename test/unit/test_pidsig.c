/*
 * test_pidsig.c — the launcher signals a pid only while it is the process
 * it found (src/launcher/pidsig.c): not once its start time, parent or
 * cgroup says it is another, not through a pidfd whose process has gone
 * and whose pid another process has now (made so with ns_last_pid, as
 * root), with and without pidfds; and a part's stop still ends its whole
 * process tree (src/launcher/tree.c, the keeper's descendants walked).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pidsig.h"
#include "tree.h"
#include "unit.h"

/* A child that waits to be signalled. */
static pid_t
sleeper(void)
{
	pid_t		pid = fork();

	if (pid == 0)
	{
		for (;;)
			pause();
	}
	return pid;
}

/* Whether pid, our child, is alive (not exited, reaped or not). */
static bool
alive_child(pid_t pid)
{
	siginfo_t	si;

	memset(&si, 0, sizeof(si));
	return waitid(P_PID, (id_t) pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == 0;
}

/* How our child pid ended: the signal that killed it, or -1. */
static int
killed_by(pid_t pid)
{
	int			status;

	if (waitpid(pid, &status, 0) != pid || !WIFSIGNALED(status))
		return -1;
	return WTERMSIG(status);
}

static void
sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long) (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

/* This process's cgroup v2 path, or "" without one. */
static void
own_cgroup(char *buf, size_t size)
{
	char		line[4096];
	FILE	   *f = fopen("/proc/self/cgroup", "r");

	buf[0] = '\0';
	while (f != NULL && fgets(line, sizeof(line), f))
		if (strncmp(line, "0::", 3) == 0)
		{
			line[strcspn(line, "\n")] = '\0';
			snprintf(buf, size, "%s", line + 3);
		}
	if (f != NULL)
		fclose(f);
}

/* Checks against start time, parent and cgroup; with pidfds or without (what). */
static void
test_checks(const char *what)
{
	pid_t		pid = sleeper();
	lx_pid_stat st;
	char		cg[4096];
	lx_pid_want nothing = {0, NULL, 0, 0},
				later = {0, NULL, 0, 0},
				right = {0, NULL, 0, 0},
				parent = {0, NULL, getpid() + 1, 0},
				cgroup = {0, "/mixdnn-no-such-cgroup", 0, 0};

	CHECK(lx_pid_stat_of(pid, &st) && st.ppid == getpid() && st.start > 0,
		  "%s: /proc/PID/stat gives its parent and start time", what);
	later.start = st.start + 1;
	right.start = st.start;
	CHECK(!lx_pid_signal(pid, &later, SIGTERM) && alive_child(pid),
		  "%s: a pid whose start time is not the one found is not signalled", what);
	CHECK(!lx_pid_signal(pid, &parent, SIGTERM) && alive_child(pid),
		  "%s: ... nor one whose parent is another", what);
	CHECK(!lx_pid_signal(pid, &cgroup, SIGTERM) && alive_child(pid),
		  "%s: ... nor one in another cgroup", what);
	CHECK(!lx_pid_signal(pid, &nothing, SIGTERM) && alive_child(pid),
		  "%s: ... nor one there is nothing to know by", what);
	own_cgroup(cg, sizeof(cg));
	cgroup.cgroup = cg;
	parent.parent = getpid();
	if (cg[0] != '\0')
		CHECK(lx_pid_signal(pid, &cgroup, 0), "%s: a process in the cgroup wanted is", what);
	else
		SKIP("no cgroup v2 here");
	CHECK(lx_pid_signal(pid, &parent, 0), "%s: a child of the parent wanted is", what);
	CHECK(lx_pid_signal(pid, &right, SIGTERM) && killed_by(pid) == SIGTERM,
		  "%s: the process found, by its start time, is signalled", what);
	CHECK(!lx_pid_signal(pid, &right, SIGTERM), "%s: a pid gone (reaped) is not", what);
}

/* Makes the next fork's pid want (as root: ns_last_pid); whether it could be written. */
static bool
next_pid(pid_t want)
{
	int			fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY);
	char		buf[32];
	int			len = snprintf(buf, sizeof(buf), "%d", (int) want - 1);
	bool		ok;

	if (fd < 0)
		return false;
	ok = write(fd, buf, (size_t) len) == len;
	close(fd);
	return ok;
}

/*
 * The race itself: a process is found and pinned, exits and is reaped,
 * and its pid goes to a new process. The new one gets nothing.
 */
static void
test_reused(void)
{
	pid_t		old = sleeper(),
				reuse = -1;
	lx_pid_stat st;
	lx_pid_want want = {0, NULL, getpid(), 0};
	lx_pinned	pin;

	lx_pid_use_pidfd = true;
	if (!lx_pid_pin(old, &want, &pin, &st) || pin.fd < 0)
	{
		SKIP("no pidfd here (Linux before 5.3)");
		kill(old, SIGKILL);
		waitpid(old, NULL, 0);
		return;
	}
	want.start = st.start;
	kill(old, SIGKILL);
	waitpid(old, NULL, 0);
	sleep_ms(30);				/* the next process starts in a later clock tick */
	if (!next_pid(old) || (reuse = sleeper()) != old)
	{
		SKIP("cannot have a pid reused here (needs root for ns_last_pid, and no fork in between)");
		if (reuse > 0)
		{
			kill(reuse, SIGKILL);
			waitpid(reuse, NULL, 0);
		}
		lx_pid_unpin(&pin);
		return;
	}
	CHECK(!lx_pid_send(&pin, SIGTERM) && alive_child(reuse),
		  "a pinned process that has gone: its pid's new owner gets nothing");
	CHECK(!lx_pid_signal(old, &want, SIGTERM) && alive_child(reuse),
		  "a pid found with one start time and now another's is not signalled");
	lx_pid_unpin(&pin);
	kill(reuse, SIGKILL);
	waitpid(reuse, NULL, 0);
}

/* A part's tree: a child, its child, and a daemon of that one (setsid, double fork). */
static void
fork_tree(int ready)
{
	if (fork() == 0)
	{
		if (fork() == 0)
		{
			setsid();
			if (fork() == 0)
			{
				(void) write(ready, "d", 1);
				for (;;)
					pause();
			}
			(void) write(ready, "g", 1);
			for (;;)
				pause();
		}
		(void) write(ready, "c", 1);
		for (;;)
			pause();
	}
}

/* Stopping a part still ends its whole tree, walked from the keeper (here this process). */
static void
test_tree(void)
{
	lx_tree		t;
	int			p[2],
				i,
				got = 0;
	char		c;

	lx_tree_init(&t, NULL, "unit");
	if (pipe(p) != 0)
		return;
	fork_tree(p[1]);
	for (i = 0; i < 3 && read(p[0], &c, 1) == 1; i++)
		got++;
	close(p[0]);
	close(p[1]);
	CHECK(got == 3 && !lx_tree_empty(&t), "(setup) a tree of three processes, one a daemon");
	/*
	 * One pass: it signals all three. (Before, in 2 runs of 1 500 with
	 * both cores busy, a look took the part for empty while the daemon's
	 * parent was ending: the daemon went to the keeper after the walk had
	 * read the keeper's children; test_reparented makes that happen.)
	 */
	lx_tree_signal(&t, SIGTERM);
	for (i = 0; i < 200 && !lx_tree_empty(&t); i++)
	{
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		sleep_ms(10);
	}
	CHECK(lx_tree_empty(&t), "one SIGTERM pass to the part ends all of it, its daemon too");
	/* a failed run leaves nothing behind */
	for (i = 0; i < 200 && !lx_tree_empty(&t); i++)
	{
		lx_tree_signal(&t, SIGKILL);
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		sleep_ms(10);
	}
}

/* The process lx_tree_walk_hook kills, 0 once done. */
static pid_t walk_victim;

/*
 * Called once a walk has read the keeper's children: kills one of them
 * and waits until it is a zombie, which is when its own child goes to the
 * keeper (its subreaper), after the walk read the keeper's children.
 */
static void
kill_during_walk(pid_t keeper)
{
	siginfo_t	si;

	if (walk_victim <= 0)
		return;
	kill(walk_victim, SIGKILL);
	memset(&si, 0, sizeof(si));
	(void) waitid(P_PID, (id_t) walk_victim, &si, WEXITED | WNOWAIT);
	walk_victim = 0;
}

/* A child of the keeper that pauses, and its child that pauses: *orphan (-1 if unread). */
static pid_t
fork_pair(pid_t *orphan)
{
	int			p[2];
	pid_t		mid;

	*orphan = -1;
	if (pipe(p) != 0)
		return -1;
	mid = fork();
	if (mid == 0)
	{
		pid_t		o = fork();

		if (o == 0)
			for (;;)
				pause();
		(void) write(p[1], &o, sizeof(o));
		for (;;)
			pause();
	}
	if (mid < 0 || read(p[0], orphan, sizeof(*orphan)) != (ssize_t) sizeof(*orphan))
		*orphan = -1;
	close(p[0]);
	close(p[1]);
	return mid;
}

/* The process after whose /proc/PID/stat a scan kills walk_victim (kill_at_orphan). */
static pid_t scan_orphan;

static void
kill_at_orphan(pid_t listed)
{
	if (listed == scan_orphan)
		kill_during_walk(0);
}

/*
 * fork_pair's pair, its child's pid below its own (as after the pids
 * wrapped around): set as root with ns_last_pid. -1 if it cannot be.
 */
static pid_t
fork_pair_low(pid_t *orphan)
{
	int			go[2],
				back[2],
				pid_max = 0;
	pid_t		mid;
	FILE	   *f = fopen("/proc/sys/kernel/pid_max", "r");

	*orphan = -1;
	/* the parent half way up the pids, its child a quarter of the way */
	if (f == NULL || fscanf(f, "%d", &pid_max) != 1 || pid_max < 2000 || !next_pid(pid_max / 2))
	{
		if (f != NULL)
			fclose(f);
		return -1;
	}
	fclose(f);
	if (pipe(go) != 0)
		return -1;
	if (pipe(back) != 0)
	{
		close(go[0]);
		close(go[1]);
		return -1;
	}
	mid = fork();
	if (mid == 0)
	{
		char		c;
		pid_t		o;

		/* forks once the test has set the next pid */
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		o = fork();
		if (o == 0)
			for (;;)
				pause();
		(void) write(back[1], &o, sizeof(o));
		for (;;)
			pause();
	}
	if (mid > 0 && !next_pid(pid_max / 4))
	{
		kill(mid, SIGKILL);
		(void) killed_by(mid);
		mid = -1;
	}
	if (mid > 0 && (write(go[1], "g", 1) != 1 || read(back[0], orphan, sizeof(*orphan)) != (ssize_t) sizeof(*orphan)))
		*orphan = -1;
	close(go[0]);
	close(go[1]);
	close(back[0]);
	close(back[1]);
	return mid;
}

/*
 * fork_pair's pair for a walk, fork_pair_low's for a scan (whose race
 * needs the child's pid below its parent's); false, and nothing left
 * running, if it cannot be had.
 */
static bool
race_pair(bool scan, pid_t *mid, pid_t *orphan)
{
	*mid = scan ? fork_pair_low(orphan) : fork_pair(orphan);
	if (*mid > 0 && *orphan > 0 && (!scan || *orphan < *mid))
		return true;
	if (*orphan > 0)
		kill(*orphan, SIGKILL);
	if (*mid > 0)
	{
		kill(*mid, SIGKILL);
		(void) killed_by(*mid);
	}
	return false;
}

/* The next look kills mid once it has read the keeper's children (a walk) or orphan's stat (a scan). */
static void
arm(bool scan, pid_t mid, pid_t orphan)
{
	walk_victim = mid;
	scan_orphan = orphan;
	if (scan)
		lx_tree_scan_hook = kill_at_orphan;
	else
		lx_tree_walk_hook = kill_during_walk;
}

static void
disarm(void)
{
	lx_tree_walk_hook = NULL;
	lx_tree_scan_hook = NULL;
}

/*
 * A process whose parent exits while a walk runs goes to the keeper: if
 * that is after the walk read the keeper's children, and the parent is a
 * zombie when the walk comes to it (its children already gone), the walk
 * has passed the process by. The walk reads the keeper's children again:
 * the part is not taken for empty, and one signal pass reaches it.
 *
 * The same race where the children files are missing (kernels without
 * them; scan): a scan of all of /proc reads, in pid order, a process
 * whose pid is below its parent's, then the parent, which has exited
 * meanwhile (a zombie, not listed) and handed the process to the keeper:
 * the process's chain of parents ends at a pid the scan did not list, and
 * it was passed by; the part was taken for empty while it ran. The scan
 * reads /proc again until the keeper has no child it has not had.
 */
static void
test_reparented(bool scan)
{
	const char *how = scan ? "scanning /proc" : "walking the children files";
	lx_tree		t;
	pid_t		mid,
				orphan;
	int			i;

	lx_tree_init(&t, NULL, "unit");
	lx_tree_scan_only = scan;
	if (!race_pair(scan, &mid, &orphan))
	{
		SKIP("cannot give a child a pid below its parent's here (needs root for ns_last_pid)");
		lx_tree_scan_only = false;
		return;
	}
	CHECK(!lx_tree_empty(&t), "%s: (setup) a child of the keeper and its child", how);
	arm(scan, mid, orphan);
	CHECK(!lx_tree_empty(&t),
		  "%s: a part whose middle process became a zombie during the look, its child now the keeper's, is not empty",
		  how);
	disarm();
	(void) killed_by(mid);
	CHECK(alive_child(orphan), "%s: (setup) the orphan is the keeper's child", how);
	kill(orphan, SIGKILL);
	(void) killed_by(orphan);

	if (!race_pair(scan, &mid, &orphan))
	{
		SKIP("(setup) another child of the keeper and its child");
		lx_tree_scan_only = false;
		return;
	}
	arm(scan, mid, orphan);
	lx_tree_signal(&t, SIGTERM);
	disarm();
	(void) killed_by(mid);
	for (i = 0; i < 200 && alive_child(orphan); i++)
		sleep_ms(10);
	CHECK(!alive_child(orphan) && killed_by(orphan) == SIGTERM,
		  "%s: one SIGTERM pass reaches a process that went to the keeper during it", how);
	if (alive_child(orphan))
	{
		kill(orphan, SIGKILL);
		(void) killed_by(orphan);
	}
	lx_tree_scan_only = false;
}

static void *
pause_thread(void *arg)
{
	for (;;)
		pause();
	return arg;
}

/*
 * A process whose main thread has exited while another thread runs on
 * (pthread_exit; "Zl" in ps, 'Z' in /proc/PID/stat) is alive, and so is
 * the child that thread forked: a part's SIGKILL ends both, and until then
 * the part is not empty. Each holds the write end of a pipe, so that its
 * end-of-file says both are gone.
 */
static void
test_zombie_leader(void)
{
	lx_tree		t;
	lx_pid_stat st = {0};
	pid_t		pid;
	int			p[2],
				i;
	struct pollfd pfd;
	char		c;
	bool		gone;

	lx_tree_init(&t, NULL, "unit");
	if (pipe(p) != 0)
		return;
	pid = fork();
	if (pid == 0)
	{
		pthread_t	th;

		/* its own process group, with its child: a failed run's cleanup kills both */
		setpgid(0, 0);
		close(p[0]);
		if (fork() == 0)
			for (;;)
				pause();
		if (pthread_create(&th, NULL, pause_thread, NULL) == 0)
			pthread_exit(NULL);
		_exit(1);
	}
	if (pid > 0)
		(void) setpgid(pid, pid);	/* whichever of the two comes first */
	close(p[1]);
	for (i = 0; i < 200 && !(lx_pid_stat_of(pid, &st) && st.state == 'Z'); i++)
		sleep_ms(10);
	CHECK(st.state == 'Z' && alive_child(pid),
		  "(setup) a process whose main thread has exited while another runs");
	CHECK(!lx_tree_empty(&t), "a part with such a process is not empty");
	lx_tree_signal(&t, SIGKILL);
	pfd.fd = p[0];
	pfd.events = POLLIN;
	gone = poll(&pfd, 1, 2000) == 1 && read(p[0], &c, 1) == 0;
	CHECK(gone, "a SIGKILL to the part ends it and the child its thread forked");
	if (!gone)
		kill(-pid, SIGKILL);	/* the leader's thread and the child it forked, else left running */
	(void) killed_by(pid);
	close(p[0]);
}

int
main(void)
{
	test_checks("with pidfds");
	lx_pid_use_pidfd = false;
	test_checks("without pidfds (before Linux 5.3)");
	test_reused();
	test_tree();
	test_reparented(false);
	test_reparented(true);
	test_zombie_leader();
	/* the orphans that came to this process (a subreaper), reaped: left, they would be init's zombies */
	for (int i = 0; i < 200 && waitpid(-1, NULL, WNOHANG) >= 0; i++)
		sleep_ms(10);
	return unit_done("test_pidsig");
}
