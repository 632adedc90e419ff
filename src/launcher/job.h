/*
 * job.h — a job part as mixdnn.claim() hands it to the launcher.
 */
#ifndef LX_JOB_H
#define LX_JOB_H

#include <stdbool.h>

/*
 * A launch token (mixdnn.job_parts.launch_token, a random uuid) as 32
 * lowercase hex digits: it tells this launch of a part from any other with
 * the same job id, attempt and node, such as one that a copy of the
 * database restored to an earlier time forgot (docs/launcher.md, "Launch
 * tokens"). "" where not known: a keeper of an earlier launcher version.
 */
#define LX_TOKEN_LEN 32

typedef struct lx_env
{
	char	   *key;
	char	   *value;
} lx_env;

typedef struct lx_job
{
	long long	job_id;
	int			attempt;		/* fences reports of older launches */
	char		token[LX_TOKEN_LEN + 1];	/* this launch's launch_token */
	char	   *name;
	char	   *command;		/* NULL: the job has no command */
	int			node_rank;
	int			world_gpus;
	char	   *gpus;			/* CUDA_VISIBLE_DEVICES, for the log */
	char	   *workdir;		/* NULL: the account's home directory */
	char	   *owner;			/* the role that submitted it */
	lx_env	   *env;
	int			nenv;
} lx_job;

/*
 * A uuid as PostgreSQL writes it (or its 32 hex digits alone) into out
 * (LX_TOKEN_LEN + 1 bytes); false, and out "", for anything else.
 */
bool		lx_token_parse(const char *in, char *out);

void		lx_job_free(lx_job *job);
lx_job	   *lx_job_copy(const lx_job *job);

#endif
