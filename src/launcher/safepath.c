/*
 * safepath.c — directories and files no other OS account can swap
 * (safepath.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "safepath.h"

#define MAX_LINKS 40			/* as the kernel's own limit on a lookup */
#define FUSE_MAGIC 0x65735546	/* FUSE_SUPER_MAGIC of linux/magic.h */

/* One walk from "/" to the last directory of a path. */
typedef struct walk
{
	char		remaining[2 * PATH_MAX];	/* the components not walked yet */
	char		done[PATH_MAX];	/* the directory reached, as a path (messages) */
	int			fd;				/* that directory, checked; O_PATH */
	int			links;			/* symbolic links followed */
	uid_t		me;
	char	   *why;
	size_t		why_size;
} walk;

static int __attribute__((format(printf, 2, 3)))
fail(walk *w, const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(w->why, w->why_size, fmt, ap);
	va_end(ap);
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	return -1;
}

/*
 * Directory fd (at w->done) may lead on: root's or ours and writable by
 * no one else, unless sticky; the last one under LX_DIR_OURS is ours and
 * never writable by others, under LX_DIR_TRUSTED never writable by others
 * either, under LX_DIR_PASSAGE as the others.
 */
static int
check_dir(walk *w, int fd, bool last, lx_dir_rule rule)
{
	struct stat st;
	bool		ours_only = last && rule == LX_DIR_OURS;
	bool		sticky_ok = !last || rule == LX_DIR_PASSAGE;

	struct statfs fs;

	if (fstat(fd, &st) != 0)
		return fail(w, "cannot be checked: %s: %s", w->done, strerror(errno));
	/* its mounter, maybe another account, decides the owners and modes it shows */
	if (fstatfs(fd, &fs) == 0 && fs.f_type == FUSE_MAGIC)
		return fail(w, "is not safe: %s is on a FUSE file system", w->done);
	if (!S_ISDIR(st.st_mode))
		return fail(w, "is not a directory: %s", w->done);
	if (st.st_uid != w->me && (ours_only || st.st_uid != 0))
		return fail(w, "is not safe: %s belongs to uid %d, not to %sthis launcher (uid %d)",
					w->done, (int) st.st_uid, ours_only ? "" : "root or ", (int) w->me);
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 && !(sticky_ok && (st.st_mode & S_ISVTX)))
		return fail(w, "is not safe: other accounts may write to %s (mode %04o)",
					w->done, (unsigned) (st.st_mode & 07777));
	return 0;
}

/* Begin at "/" with path (made absolute against the working directory). */
static int
walk_start(walk *w, const char *path)
{
	char		cwd[PATH_MAX];

	int			n;

	if (path[0] == '\0')
		return fail(w, "cannot be resolved: an empty path");
	if (path[0] == '/')
		n = snprintf(w->remaining, sizeof(w->remaining), "%s", path);
	else if (getcwd(cwd, sizeof(cwd)) == NULL)
		return fail(w, "cannot be resolved without a working directory: %s", strerror(errno));
	else
		n = snprintf(w->remaining, sizeof(w->remaining), "%s/%s", cwd, path);
	/* a path cut short would end somewhere else */
	if (n < 0 || (size_t) n >= sizeof(w->remaining) || n >= PATH_MAX)
		return fail(w, "cannot be resolved: the path is too long");
	snprintf(w->done, sizeof(w->done), "/");
	w->fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (w->fd < 0)
		return fail(w, "cannot be opened: /: %s", strerror(errno));
	return check_dir(w, w->fd, false, LX_DIR_TRUSTED);
}

/* Whether s names anything but "/" and ".". */
static bool
has_component(const char *s)
{
	for (;;)
	{
		size_t		n;

		while (*s == '/')
			s++;
		n = strcspn(s, "/");
		if (n == 0)
			return false;
		if (!(n == 1 && s[0] == '.'))
			return true;
		s += n;
	}
}

/* The next component of w->remaining into comp: 1, 0 when none is left, -1 when too long. */
static int
next_component(walk *w, char *comp, size_t size, bool *last)
{
	char	   *s = w->remaining;
	size_t		n;

	for (;;)
	{
		while (*s == '/')
			s++;
		n = strcspn(s, "/");
		if (n == 0)
			return 0;
		if (!(n == 1 && s[0] == '.'))
			break;
		s += n;
	}
	if (n >= size)
		return -1;
	snprintf(comp, size, "%.*s", (int) n, s);
	memmove(w->remaining, s + n, strlen(s + n) + 1);
	*last = !has_component(w->remaining);
	return 1;
}

/* Record comp as walked: w->done gains it, or loses its last part for "..". */
static void
done_append(walk *w, const char *comp)
{
	size_t		n = strlen(w->done);

	if (strcmp(comp, "..") == 0)
	{
		char	   *slash = strrchr(w->done, '/');

		if (slash != NULL && slash != w->done)
			*slash = '\0';
		else
			snprintf(w->done, sizeof(w->done), "/");
		return;
	}
	snprintf(w->done + n, sizeof(w->done) - n, "%s%s", n > 1 ? "/" : "", comp);
}

/* Link fd (in the checked w->fd) goes on at its target. */
static int
follow_link(walk *w, int fd)
{
	char		target[PATH_MAX],
				rest[2 * PATH_MAX];
	ssize_t		n = readlinkat(fd, "", target, sizeof(target) - 1);

	close(fd);
	if (n < 0)
		return fail(w, "cannot be resolved: %s: %s", w->done, strerror(errno));
	if ((size_t) n >= sizeof(target) - 1)
		return fail(w, "cannot be resolved: the link %s is too long", w->done);
	if (++w->links > MAX_LINKS)
		return fail(w, "cannot be resolved: too many symbolic links at %s", w->done);
	target[n] = '\0';
	if ((size_t) snprintf(rest, sizeof(rest), "%s/%s", target, w->remaining) >= PATH_MAX)
		return fail(w, "cannot be resolved: the path through the link %s is too long", w->done);
	snprintf(w->remaining, sizeof(w->remaining), "%s", rest);
	if (target[0] != '/')
	{
		done_append(w, "..");	/* the link's own name */
		return 0;
	}
	snprintf(rest, sizeof(rest), "%s", w->remaining);
	close(w->fd);
	w->fd = -1;
	return walk_start(w, rest);
}

/* One component further; a missing last one is created when asked. */
static int
walk_step(walk *w, const char *comp, bool last, lx_dir_rule rule, bool create)
{
	int			fd = openat(w->fd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;

	if (fd < 0 && errno == ENOENT && last && create)
	{
		if (mkdirat(w->fd, comp, 0700) != 0 && errno != EEXIST)
			return fail(w, "cannot be created: %s/%s: %s", w->done, comp, strerror(errno));
		fd = openat(w->fd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	}
	done_append(w, comp);
	if (fd < 0)
		return fail(w, "cannot be opened: %s: %s", w->done, strerror(errno));
	if (fstat(fd, &st) == 0 && S_ISLNK(st.st_mode))
	{
		/*
		 * In a sticky directory another account's link can be re-pointed
		 * at any time, and a second hard link to root's link can be one
		 * another account made (fs.protected_hardlinks = 0).
		 */
		if (st.st_uid != 0 && st.st_uid != w->me)
		{
			close(fd);
			return fail(w, "is not safe: the symbolic link %s belongs to uid %d, not to root or this launcher "
						"(uid %d)", w->done, (int) st.st_uid, (int) w->me);
		}
		if (st.st_nlink != 1)
		{
			close(fd);
			return fail(w, "is not safe: the symbolic link %s has %d hard links (one may be another account's)",
						w->done, (int) st.st_nlink);
		}
		return follow_link(w, fd);
	}
	if (check_dir(w, fd, last, rule) != 0)
	{
		close(fd);
		return -1;
	}
	close(w->fd);
	w->fd = fd;
	return 0;
}

int
lx_safe_dir(const char *path, lx_dir_rule rule, bool create, char *why, size_t why_size)
{
	walk		w = {.fd = -1, .me = geteuid(), .why = why, .why_size = why_size};
	char		comp[NAME_MAX + 1];
	bool		last;
	int			more;

	if (walk_start(&w, path) != 0)
		return -1;
	while ((more = next_component(&w, comp, sizeof(comp), &last)) > 0)
		if (walk_step(&w, comp, last, rule, create) != 0)
			return -1;
	if (more < 0)
		return fail(&w, "cannot be resolved: a name in it is too long");
	/*
	 * The last rule once more on where the walk ended: a path that names
	 * "/", or ends in ".." or in a link to ".", ends in a directory that
	 * was checked only as one on the way.
	 */
	if (check_dir(&w, w.fd, true, rule) != 0)
		return -1;
	return w.fd;
}

int
lx_safe_parent(const char *path, lx_dir_rule rule, const char **base, char *why, size_t why_size)
{
	char		dir[PATH_MAX];
	const char *slash = strrchr(path, '/');

	if (path[0] == '\0' || strlen(path) >= sizeof(dir))
	{
		snprintf(why, why_size, "cannot be opened: %s", path[0] ? "the path is too long" : "an empty path");
		return -1;
	}
	*base = slash ? slash + 1 : path;
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int) (slash == path ? 1 : slash - path) : 1, slash ? path : ".");
	return lx_safe_dir(dir, rule, false, why, why_size);
}

FILE *
lx_safe_fopen(const char *path, char *why, size_t why_size)
{
	const char *base;
	struct stat st;
	FILE	   *f;
	int			dfd = lx_safe_parent(path, LX_DIR_PASSAGE, &base, why, why_size),
				fd;

	if (dfd < 0)
		return NULL;
	fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	close(dfd);
	if (fd < 0)
	{
		snprintf(why, why_size, "cannot be opened: %s", errno == ELOOP ? "it is a symbolic link" : strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1
		|| (st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
	{
		snprintf(why, why_size, "is not safe: it must be a regular file with one link, of root or this "
				 "launcher (uid %d), that no one else can write", (int) geteuid());
		close(fd);
		return NULL;
	}
	f = fdopen(fd, "r");
	if (f == NULL)
	{
		snprintf(why, why_size, "cannot be read: %s", strerror(errno));
		close(fd);
	}
	return f;
}
