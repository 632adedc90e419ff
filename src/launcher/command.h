/*
 * command.h — the process that becomes a job part's command: its cgroup,
 * output (a file, or the keeper's relay to the log), OS account, directory and an environment built from scratch
 * (nothing of the launcher's, so no credential passes down).
 */
#ifndef LX_COMMAND_H
#define LX_COMMAND_H

#include <stdbool.h>

#include "account.h"
#include "job.h"
#include "tree.h"

typedef struct lx_command
{
	const lx_job *job;
	const char *owner;			/* the job's role */
	const lx_account_rules *rules;
	const lx_account *account;	/* whom it runs as: looked up by lx_command_exec */
	const lx_tree *tree;
	const char *output;			/* file for stdout and stderr; NULL: relay_fd */
	int			relay_fd;		/* write end of the keeper's relay pipe (relay.h) */
	int			error_fd;		/* close-on-exec pipe: why the exec did not happen */
	bool		in_cgroup;		/* born in the part's cgroup already */
} lx_command;

/*
 * Never returns: looks up the owner's OS account, then execs /bin/sh -c
 * COMMAND as it, or writes why to error_fd and exits 126.
 */
void		lx_command_exec(const lx_command *c) __attribute__((noreturn));

#endif
