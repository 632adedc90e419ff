/*
 * tree.c — a job part's processes: its cgroup v2 directory, else the
 * keeper's descendants found in /proc.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "pidsig.h"
#include "tree.h"

/* The cgroup2 mount point, from /proc/self/mountinfo (hybrid hosts mount it aside). */
static bool
cgroup2_mount(char *mnt, size_t size)
{
	FILE	   *f = fopen("/proc/self/mountinfo", "r");
	char		line[4096];
	bool		found = false;

	if (f == NULL)
		return false;
	while (!found && fgets(line, sizeof(line), f))
	{
		char		point[PATH_MAX];
		char	   *sep = strstr(line, " - ");

		if (sep == NULL || strncmp(sep + 3, "cgroup2 ", 8) != 0)
			continue;
		if (sscanf(line, "%*s %*s %*s %*s %4095s", point) == 1)
		{
			snprintf(mnt, size, "%s", point);
			found = true;
		}
	}
	fclose(f);
	return found;
}

/* This process's cgroup v2 path, the "0::" line of /proc/self/cgroup. */
static bool
own_cgroup(char *path, size_t size)
{
	FILE	   *f = fopen("/proc/self/cgroup", "r");
	char		line[4096];
	bool		found = false;

	if (f == NULL)
		return false;
	while (!found && fgets(line, sizeof(line), f))
	{
		if (strncmp(line, "0::", 3) != 0)
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(path, size, "%s", line + 3);
		found = true;
	}
	fclose(f);
	return found;
}

/*
 * Whether the cgroup base and every cgroup above it up to the mount mnt
 * belong to root or this launcher: the owner of any of them could move,
 * freeze or kill the parts (a root launcher started inside a user's
 * session, say).
 */
static bool
cgroups_ours(const char *mnt, const char *base, char *why, size_t why_size)
{
	char		path[PATH_MAX];
	size_t		root = strlen(mnt);

	snprintf(path, sizeof(path), "%s", base);
	for (;;)
	{
		struct stat st = {0};
		char	   *slash;

		if (stat(path, &st) != 0)
		{
			snprintf(why, why_size, "cannot check the cgroup %s: %s", path, strerror(errno));
			return false;
		}
		if (st.st_uid != 0 && st.st_uid != geteuid())
		{
			snprintf(why, why_size, "the cgroup %s belongs to uid %d, not to root or this launcher",
					 path, (int) st.st_uid);
			return false;
		}
		slash = strrchr(path, '/');
		if (strlen(path) <= root || slash == NULL || (size_t) (slash - path) < root)
			return true;
		*slash = '\0';
	}
}

void
lx_tree_cgroup_base(char *base, size_t size, char *why, size_t why_size)
{
	char		mnt[PATH_MAX],
				own[PATH_MAX],
				probe[PATH_MAX + 64];

	base[0] = '\0';
	if (!cgroup2_mount(mnt, sizeof(mnt)))
	{
		snprintf(why, why_size, "no cgroup v2 mount");
		return;
	}
	if (!own_cgroup(own, sizeof(own)))
	{
		snprintf(why, why_size, "no cgroup v2 entry in /proc/self/cgroup");
		return;
	}
	/* The root cgroup's path is "/": no doubled slash. */
	snprintf(base, size, "%s%s", mnt, strcmp(own, "/") == 0 ? "" : own);
	/*
	 * A cgroup another account owns (a root launcher started inside a
	 * user's session) lets that account move, freeze or kill the parts.
	 */
	if (!cgroups_ours(mnt, base, why, why_size))
	{
		base[0] = '\0';
		return;
	}
	snprintf(probe, sizeof(probe), "%s/mixdnn-probe-%d", base, (int) getpid());
	if (mkdir(probe, 0755) != 0 || access(base, W_OK) != 0)
	{
		snprintf(why, why_size, "cannot create a cgroup under %s: %s", base, strerror(errno));
		base[0] = '\0';
		return;
	}
	rmdir(probe);
	why[0] = '\0';
}

void
lx_tree_init(lx_tree *t, const char *base, const char *name)
{
	t->keeper = getpid();
	t->cgroup[0] = '\0';
	t->born_in_cgroup = false;
	/* Orphans of the part come to the keeper, not to init. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	if (base != NULL && base[0] != '\0')
	{
		struct stat st;

		snprintf(t->cgroup, sizeof(t->cgroup), "%s/%s", base, name);
		/* one left by an earlier keeper of this part is ours; another's is not used */
		if (mkdir(t->cgroup, 0755) == 0)
			return;
		if (errno != EEXIST)
		{
			lx_log("cannot create the part's cgroup %s: %s; it runs without one "
				   "(its processes are found as its keeper's descendants)", t->cgroup, strerror(errno));
			t->cgroup[0] = '\0';
		}
		else if (lstat(t->cgroup, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
		{
			lx_log("the part's cgroup %s exists and is not this launcher's; it runs without one "
				   "(its processes are found as its keeper's descendants)", t->cgroup);
			t->cgroup[0] = '\0';
		}
	}
}

static int
write_file(const char *dir, const char *file, const char *text)
{
	char		path[PATH_MAX + 32];
	int			fd,
				rc = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (write(fd, text, strlen(text)) < 0)
		rc = errno;
	close(fd);
	return rc;
}

pid_t
lx_tree_fork(const lx_tree *t, bool *entered)
{
	*entered = false;
#if defined(SYS_clone3) && defined(CLONE_INTO_CGROUP)
	if (t->cgroup[0] != '\0')
	{
		struct clone_args args;
		int			fd = open(t->cgroup, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		long		pid = -1;

		if (fd >= 0)
		{
			memset(&args, 0, sizeof(args));
			args.flags = CLONE_INTO_CGROUP;
			args.exit_signal = SIGCHLD;
			args.cgroup = (unsigned long long) fd;
			pid = syscall(SYS_clone3, &args, sizeof(args));
			close(fd);
		}
		if (pid >= 0)
		{
			*entered = true;
			return (pid_t) pid;
		}
		/* Older kernels: fork, and the child joins the cgroup itself. */
	}
#endif
	return fork();
}

int
lx_tree_enter(const lx_tree *t)
{
	if (t->cgroup[0] == '\0')
		return 0;
	return write_file(t->cgroup, "cgroup.procs", "0");
}

typedef struct proc_list
{
	pid_t	   *pid;
	lx_pid_stat *st;
	int			n;
	int			cap;
} proc_list;

static bool zombie_runs(pid_t pid);

/* Appends a process to l; false when out of memory. */
static bool
proc_list_add(proc_list *l, pid_t pid, const lx_pid_stat *st)
{
	if (l->n == l->cap)
	{
		int			cap = l->cap ? l->cap * 2 : 256;
		pid_t	   *a = realloc(l->pid, cap * sizeof(pid_t));
		lx_pid_stat *b = a ? realloc(l->st, cap * sizeof(lx_pid_stat)) : NULL;

		if (a)
			l->pid = a;
		if (b == NULL)
			return false;
		l->st = b;
		l->cap = cap;
	}
	l->pid[l->n] = pid;
	l->st[l->n++] = *st;
	return true;
}

bool		lx_tree_scan_only = false;
void		(*lx_tree_scan_hook) (pid_t listed) = NULL;

/* Every live process; one whose main thread exited while another runs on is live (zombie_runs). */
static void
list_processes(proc_list *l)
{
	DIR		   *d = opendir("/proc");
	struct dirent *e;

	l->n = 0;
	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL)
	{
		pid_t		pid;
		lx_pid_stat st;

		if (!isdigit((unsigned char) e->d_name[0]))
			continue;
		pid = (pid_t) atoi(e->d_name);
		if (!lx_pid_stat_of(pid, &st))
			continue;
		if (lx_tree_scan_hook != NULL)
			lx_tree_scan_hook(pid);
		if (st.state == 'X' || (st.state == 'Z' && !zombie_runs(pid)))
			continue;
		if (!proc_list_add(l, pid, &st))
			break;
	}
	closedir(d);
}

/* Marks every process of l whose chain of parents in l leads to the keeper. */
static void
mark_descendants(const proc_list *l, pid_t keeper, bool *mark)
{
	bool		grew = true;
	int			i,
				k;

	while (grew)
	{
		grew = false;
		for (i = 0; i < l->n; i++)
		{
			bool		parent_marked = l->st[i].ppid == keeper;

			for (k = 0; k < l->n && !parent_marked && !mark[i]; k++)
				parent_marked = mark[k] && l->pid[k] == l->st[i].ppid;
			if (!mark[i] && parent_marked)
				mark[i] = grew = true;
		}
	}
}

/* Whether had holds the process pid started at start (a pid reused is another process). */
static bool
scanned(const proc_list *had, pid_t pid, unsigned long long start)
{
	int			i;

	for (i = 0; i < had->n; i++)
		if (had->pid[i] == pid && had->st[i].start == start)
			return true;
	return false;
}

/* Rounds of a scan (below) or walk (signal_walked) before it stops and counts the part as not empty. */
#define WALK_ROUNDS 32

/*
 * Signals every live descendant of the keeper by a scan of all of /proc;
 * returns how many. For kernels without the children files (below).
 *
 * As a walk does (signal_walked), it scans again until the keeper has no
 * child it has not had: the scan reads the processes in pid order, and a
 * process read before its parent (a lower pid, the pids having wrapped
 * around) whose parent then exits is the keeper's at once, while the
 * scan, finding the parent a zombie (not listed), had no chain of
 * parents from it to the keeper: it was passed by, and the part taken for
 * empty (unit test_pidsig, test_reparented(true)). The next scan lists it
 * as the keeper's child. A process is "had" by its pid and start time,
 * which the scan reads anyway.
 */
static int
signal_scanned(pid_t keeper, int sig)
{
	proc_list	l = {NULL, NULL, 0, 0},
				had = {NULL, NULL, 0, 0};
	bool	   *mark = NULL;
	int			found = 0,
				round,
				i;
	bool		more = true;

	for (round = 0; more && round < WALK_ROUNDS; round++)
	{
		bool	   *m;

		list_processes(&l);
		if (round > 0)
		{
			/* only a child of the keeper not had before makes another round */
			more = false;
			for (i = 0; i < l.n && !more; i++)
				more = l.st[i].ppid == keeper && !scanned(&had, l.pid[i], l.st[i].start);
			if (!more)
				break;
		}
		if ((m = realloc(mark, (l.n ? l.n : 1) * sizeof(bool))) == NULL)
			break;
		mark = m;
		memset(mark, 0, (l.n ? l.n : 1) * sizeof(bool));
		mark_descendants(&l, keeper, mark);
		for (i = 0; i < l.n; i++)
		{
			/* the scan took milliseconds: each pid is signalled only if still the process it read */
			lx_pid_want want = {l.st[i].start, NULL, 0, 0};

			if (!mark[i] || scanned(&had, l.pid[i], l.st[i].start))
				continue;
			found++;
			(void) proc_list_add(&had, l.pid[i], &l.st[i]);
			if (sig != 0)
				(void) lx_pid_signal(l.pid[i], &want, sig);
		}
	}
	/* still coming after the last round: not empty, whatever the count says */
	if (more && round == WALK_ROUNDS && found == 0)
		found = 1;
	free(mark);
	free(l.pid);
	free(l.st);
	free(had.pid);
	free(had.st);
	return found;
}

/* Processes a walk found: each with the parent whose children file listed it. */
typedef struct walk_list
{
	struct
	{
		pid_t		pid;
		pid_t		parent;
	}		   *at;
	int			n;
	int			cap;
} walk_list;

/* Appends pid, listed by parent; false when out of memory. */
static bool
walk_add(walk_list *l, pid_t pid, pid_t parent)
{
	if (l->n == l->cap)
	{
		int			c = l->cap ? l->cap * 2 : 64;
		void	   *a = realloc(l->at, c * sizeof(*l->at));

		if (a == NULL)
			return false;
		l->at = a;
		l->cap = c;
	}
	l->at[l->n].pid = pid;
	l->at[l->n++].parent = parent;
	return true;
}

/* Appends the pids of /proc/PID/task/TID/children for every thread of pid; false if none can be read. */
static bool
read_children(pid_t pid, walk_list *l)
{
	char		path[64];
	DIR		   *d;
	struct dirent *e;
	bool		any = false;

	snprintf(path, sizeof(path), "/proc/%d/task", (int) pid);
	if ((d = opendir(path)) == NULL)
		return false;
	while ((e = readdir(d)) != NULL)
	{
		char		file[96];
		FILE	   *f;
		int			child;

		if (!isdigit((unsigned char) e->d_name[0]))
			continue;
		snprintf(file, sizeof(file), "/proc/%d/task/%s/children", (int) pid, e->d_name);
		if ((f = fopen(file, "re")) == NULL)
			continue;
		any = true;
		while (fscanf(f, "%d", &child) == 1 && walk_add(l, (pid_t) child, pid))
			;
		fclose(f);
	}
	closedir(d);
	return any;
}

/*
 * Whether a process whose /proc/PID/stat says 'Z' still runs: its main
 * thread has exited (pthread_exit) while another thread runs on ("Zl" in
 * ps), which /proc/PID/task still lists. Such a process can be signalled
 * and may have children (its threads').
 */
static bool
zombie_runs(pid_t pid)
{
	char		path[64];
	DIR		   *d;
	struct dirent *e;
	bool		runs = false;

	snprintf(path, sizeof(path), "/proc/%d/task", (int) pid);
	if ((d = opendir(path)) == NULL)
		return false;
	while (!runs && (e = readdir(d)) != NULL)
		runs = isdigit((unsigned char) e->d_name[0]) && (pid_t) atoi(e->d_name) != pid;
	closedir(d);
	return runs;
}

/*
 * One process a walk found: signalled if it is still a child of the
 * parent that listed it (or, that parent gone, of the keeper, which
 * inherits its orphans), and its own children listed in turn, all while a
 * pidfd pins it: a pid whose process exited since it was listed may be
 * anyone's now (pidsig.h). Whether it is alive.
 */
static bool
walk_one(pid_t keeper, pid_t pid, pid_t parent, int sig, walk_list *l)
{
	lx_pid_want want = {0, NULL, parent, keeper};
	lx_pinned	p;
	lx_pid_stat st;
	int			listed = l->n;
	bool		alive;

	if (!lx_pid_pin(pid, &want, &p, &st))
		return false;
	alive = (st.state != 'Z' && st.state != 'X') || (st.state == 'Z' && zombie_runs(pid));
	if (alive)
		(void) read_children(pid, l);
	/* gone while its children were read: they may be its pid's next owner's */
	if (l->n > listed && !lx_pid_send(&p, 0))
		l->n = listed;
	/*
	 * Signalled once its children are listed: killed first, it would hand
	 * them to the keeper before they were read, and only the next walk
	 * would find them there.
	 */
	if (alive && sig != 0)
		(void) lx_pid_send(&p, sig);
	lx_pid_unpin(&p);
	return alive;
}

void		(*lx_tree_walk_hook) (pid_t keeper) = NULL;

/*
 * Whether the walk has pid already. By pid alone, not with its start
 * time (which would mean reading each re-read child's /proc/PID/stat on
 * every walk): a pid the walk had that names another process by the
 * re-reading cannot come about. The keeper's children keep their pids
 * until the keeper, walking, reaps them; a deeper process's pid is
 * handed out again only after the kernel (which allocates pids
 * cyclically) has gone around all of pid_max, within the walk. Were it
 * to, that one walk would miss the process: the next, 50 ms later,
 * starts afresh, and a part is empty only after three in a row.
 */
static bool
walked(const walk_list *l, int n, pid_t pid)
{
	int			i;

	for (i = 0; i < n; i++)
		if (l->at[i].pid == pid)
			return true;
	return false;
}

/*
 * Signals every live descendant of the keeper, walking down from it by the
 * children files, each process signalled the moment it is found; returns
 * how many were alive, or -1 if the keeper's children cannot be read. A
 * walk reads only the part's processes, so the time between finding a
 * process and signalling it is microseconds: a process that forks and
 * exits every millisecond outran a scan of all of /proc, but not this.
 *
 * The keeper's children are read again after the walk, until they hold no
 * process it has not had. A process whose parent exits goes to the keeper
 * (its subreaper) at the instant its parent becomes a zombie: if that is
 * after the keeper's children were read, and the parent is then found a
 * zombie (a zombie has no children to read), the walk passed it by. So
 * the daemon of a part whose middle process was just ending, SIGTERM on
 * its way, was once missed and the part taken for empty. Read again, the
 * keeper's children then list it. A walk that finds nothing alive, and
 * after which the keeper has no child it has not seen dead, proves the
 * part empty: a live process of the part has a live chain of parents up
 * to a child of the keeper.
 */
static int
signal_walked(pid_t keeper, int sig)
{
	walk_list	l = {NULL, 0, 0},
				again = {NULL, 0, 0};
	int			i = 0,
				k,
				round,
				alive = 0;
	bool		more = true;

	if (!read_children(keeper, &l))
	{
		free(l.at);
		return -1;
	}
	if (lx_tree_walk_hook != NULL)
		lx_tree_walk_hook(keeper);
	for (round = 0; more && round < WALK_ROUNDS; round++)
	{
		int			had;

		for (; i < l.n; i++)
			alive += walk_one(keeper, l.at[i].pid, l.at[i].parent, sig, &l);
		again.n = 0;
		(void) read_children(keeper, &again);
		had = l.n;
		more = false;
		for (k = 0; k < again.n; k++)
		{
			if (walked(&l, had, again.at[k].pid))
				continue;
			more = true;
			if (!walk_add(&l, again.at[k].pid, again.at[k].parent))
				break;
		}
	}
	/* still coming after WALK_ROUNDS rounds: not empty, whatever the count says */
	if (more && alive == 0)
		alive = 1;
	free(l.at);
	free(again.at);
	return alive;
}

static int
signal_descendants(pid_t keeper, int sig)
{
	int			n = lx_tree_scan_only ? -1 : signal_walked(keeper, sig);

	return n >= 0 ? n : signal_scanned(keeper, sig);
}

/*
 * dir's path below the cgroup2 mount, as /proc/PID/cgroup names it, into
 * rel; false if dir is not below the mount.
 */
static bool
cgroup_rel(const char *dir, char *rel, size_t size)
{
	static char mnt[PATH_MAX];
	size_t		len;

	/* read once: a keeper or launcher keeps its mount */
	if (mnt[0] == '\0' && !cgroup2_mount(mnt, sizeof(mnt)))
		return false;
	/* the root cgroup's mount point may end in '/' (no doubled slash) */
	len = strlen(mnt);
	while (len > 0 && mnt[len - 1] == '/')
		len--;
	if (strncmp(dir, mnt, len) != 0 || dir[len] != '/')
		return false;
	snprintf(rel, size, "%s", dir + len);
	return true;
}

/*
 * Signals each pid listed in the cgroup's cgroup.procs that is still in it
 * when pinned: a process that exited since it was listed may have left
 * its pid to anyone (pidsig.h). Returns how many were listed, or -1 when
 * it could signal none of them (no check possible, or no list).
 */
static int
signal_cgroup(const char *dir, int sig)
{
	char		path[PATH_MAX + 32],
				rel[PATH_MAX];
	lx_pid_want want = {0, rel, 0, 0};
	FILE	   *f;
	int			pid,
				n = 0;
	static bool told;

	/* not if no process can be checked against it: the caller walks the keeper's descendants instead */
	if (sig != 0 && !cgroup_rel(dir, rel, sizeof(rel)))
	{
		if (!told)
			lx_log("cannot tell the cgroup v2 path of %s: its processes are not signalled one by one", dir);
		told = true;
		return -1;
	}
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "re");
	if (f == NULL)
		return errno == ENOENT ? 0 : -1;
	while (fscanf(f, "%d", &pid) == 1)
	{
		if (sig != 0)
			(void) lx_pid_signal((pid_t) pid, &want, sig);
		n++;
	}
	fclose(f);
	return n;
}

/* Whether cgroup.events says the cgroup has a process; a removed one has none. */
static bool
cgroup_populated(const char *dir)
{
	char		path[PATH_MAX + 32],
				line[128];
	FILE	   *f;
	bool		populated = true;

	snprintf(path, sizeof(path), "%s/cgroup.events", dir);
	f = fopen(path, "re");
	if (f != NULL)
	{
		while (fgets(line, sizeof(line), f))
			if (strncmp(line, "populated ", 10) == 0)
				populated = line[10] != '0';
		fclose(f);
	}
	else if (errno == ENOENT)
		populated = false;		/* removed: a cgroup with processes cannot be */
	return populated;
}

void
lx_tree_signal(const lx_tree *t, int sig)
{
	if (t->cgroup[0] != '\0')
	{
		/*
		 * cgroup.kill (Linux 5.14) also catches processes forked while it
		 * runs, and names no pid, so it cannot hit a process outside the
		 * cgroup; without it, one pid at a time, each checked.
		 */
		bool		reached = true;

		if (sig != SIGKILL || write_file(t->cgroup, "cgroup.kill", "1") != 0)
			reached = signal_cgroup(t->cgroup, sig) >= 0;
		/*
		 * A command born in the cgroup (and unable to leave it: see
		 * born_in_cgroup) has the part's processes in it, so the cgroup
		 * reached them. A walk of the keeper's descendants as well costs a
		 * part of thousands of processes seconds per signal, in which the
		 * keeper runs no timer (its grace's SIGKILL among them).
		 */
		if (t->born_in_cgroup && reached)
			return;
	}
	/*
	 * The descendants: without a cgroup, the part; with one it joined
	 * after the fork (no clone3), the command until it joins.
	 */
	if (t->keeper > 0)
		signal_descendants(t->keeper, sig);
}

bool
lx_tree_empty(const lx_tree *t)
{
	if (t->cgroup[0] != '\0' && cgroup_populated(t->cgroup))
		return false;
	return t->keeper <= 0 || signal_descendants(t->keeper, 0) == 0;
}

void
lx_tree_remove(const lx_tree *t)
{
	if (t->cgroup[0] != '\0')
		rmdir(t->cgroup);
}
