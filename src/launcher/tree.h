/*
 * tree.h — every process of a job part, wherever it moved.
 *
 * A part's processes live in a cgroup v2 directory of their own when the
 * launcher may create one under its own cgroup (a delegated subtree): no
 * process can leave it, and cgroup.kill ends them all at once. Elsewhere the
 * keeper is a child subreaper and finds the part's processes as its
 * descendants in /proc; docs/launcher.md says what that fallback misses.
 */
#ifndef LX_TREE_H
#define LX_TREE_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

typedef struct lx_tree
{
	pid_t		keeper;			/* the subreaper whose descendants are the part */
	char		cgroup[PATH_MAX];	/* the part's cgroup directory; "" = none */
	bool		born_in_cgroup; /* the command was forked into it (clone3) as an account that cannot
								 * leave it, so all of the part is in it */
} lx_tree;

/*
 * The directory under which parts' cgroups go: the launcher's own cgroup on
 * the cgroup v2 mount, if it may create children there; else "" and why.
 */
void		lx_tree_cgroup_base(char *base, size_t size, char *why, size_t why_size);

/* In the keeper: its cgroup NAME under base (if any), subreaper mode. */
void		lx_tree_init(lx_tree *t, const char *base, const char *name);

/*
 * Forks the part's first process, born in the cgroup where the kernel can
 * do that (clone3 with CLONE_INTO_CGROUP: moving a running process costs
 * about 12 ms more per launch). *entered: whether it is in the cgroup yet.
 */
pid_t		lx_tree_fork(const lx_tree *t, bool *entered);

/* In the command's process before exec: joins the cgroup. 0 or errno. */
int			lx_tree_enter(const lx_tree *t);

/* Sends sig to every process of the part. */
void		lx_tree_signal(const lx_tree *t, int sig);

/* True once no process of the part is alive. */
bool		lx_tree_empty(const lx_tree *t);

/*
 * Tests only: called when a walk of the keeper's descendants has read the
 * keeper's children, before it walks them; NULL (the default): nothing.
 */
extern void (*lx_tree_walk_hook) (pid_t keeper);

/*
 * Tests only: a look for the keeper's descendants scans all of /proc, as
 * on a kernel without the children files (false, the default: it walks
 * them where it can); and, if not NULL, the scan calls lx_tree_scan_hook
 * for each process once it has read its /proc/PID/stat.
 */
extern bool lx_tree_scan_only;
extern void (*lx_tree_scan_hook) (pid_t listed);

/* Removes the (empty) cgroup. */
void		lx_tree_remove(const lx_tree *t);

#endif
