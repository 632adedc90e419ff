/*
 * job.h — a job part as mixdnn.claim() hands it to the launcher.
 */
#ifndef LX_JOB_H
#define LX_JOB_H

typedef struct lx_env
{
	char	   *key;
	char	   *value;
} lx_env;

typedef struct lx_job
{
	long long	job_id;
	int			attempt;		/* fences reports of older launches */
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

void		lx_job_free(lx_job *job);
lx_job	   *lx_job_copy(const lx_job *job);

#endif
