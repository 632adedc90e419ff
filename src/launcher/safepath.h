/*
 * safepath.h — opening directories and files that no other OS account
 * can swap (docs/launcher.md, "What no other account can change").
 *
 * A path is walked from "/" one component at a time with O_NOFOLLOW, each
 * directory checked on the descriptor the next step opens from: it must
 * belong to root or to this process's account and be writable by no one
 * else unless it is sticky (as /tmp is). A symbolic link is followed only
 * from a directory that passed and only if root or this account owns it,
 * so no one else can have changed it. The
 * result is a descriptor, never a name to resolve again: checking a name
 * and using it later would leave a window in which another account could
 * rename a directory it owns and put a link in its place.
 */
#ifndef MIXDNN_LAUNCHER_SAFEPATH_H
#define MIXDNN_LAUNCHER_SAFEPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* What the last directory of a path must be, beyond the rule above. */
typedef enum lx_dir_rule
{
	LX_DIR_OURS,				/* this account's, writable by no one else (the state directory) */
	LX_DIR_TRUSTED,				/* root's or ours, writable by no one else, sticky or not (the output directory) */
	LX_DIR_PASSAGE				/* as every directory above it: writable by others only if sticky */
} lx_dir_rule;

/*
 * The directory path (absolute, or relative to the working directory) as an
 * O_PATH descriptor (close-on-exec), or -1 with why set. With create, a
 * missing last directory is created, mode 0700.
 */
int			lx_safe_dir(const char *path, lx_dir_rule rule, bool create, char *why, size_t why_size);

/*
 * The directory that holds path's last component, as lx_safe_dir() opens
 * it (never created), with *base pointing at that component in path.
 */
int			lx_safe_parent(const char *path, lx_dir_rule rule, const char **base, char *why, size_t why_size);

/*
 * A configuration file for reading, in a directory lx_safe_dir() accepts
 * as LX_DIR_PASSAGE (where no one else can rename or replace a file of
 * ours): a regular file of root or this account that no one else can
 * write. NULL with why set otherwise.
 */
FILE	   *lx_safe_fopen(const char *path, char *why, size_t why_size);

#endif
