/*
 * job.c — a claimed job part's memory.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job.h"
#include "log.h"

static char *
dup_or_die(const char *s)
{
	char	   *d;

	if (s == NULL)
		return NULL;
	d = strdup(s);
	if (d == NULL)
	{
		lx_log("out of memory");
		exit(1);
	}
	return d;
}

bool
lx_token_parse(const char *in, char *out)
{
	int			n = 0;

	out[0] = '\0';
	if (in == NULL)
		return false;
	for (; *in; in++)
	{
		/* the dashes of 8-4-4-4-12 are left out, wherever they are */
		if (*in == '-')
			continue;
		if (!isxdigit((unsigned char) *in) || n == LX_TOKEN_LEN)
			break;
		out[n++] = (char) tolower((unsigned char) *in);
	}
	if (*in != '\0' || n != LX_TOKEN_LEN)
	{
		out[0] = '\0';
		return false;
	}
	out[n] = '\0';
	return true;
}

void
lx_job_free(lx_job *job)
{
	int			i;

	free(job->name);
	free(job->command);
	free(job->gpus);
	free(job->workdir);
	free(job->owner);
	for (i = 0; i < job->nenv; i++)
	{
		free(job->env[i].key);
		free(job->env[i].value);
	}
	free(job->env);
	memset(job, 0, sizeof(*job));
}

lx_job *
lx_job_copy(const lx_job *job)
{
	lx_job	   *c = calloc(1, sizeof(lx_job));
	int			i;

	if (c == NULL || (job->nenv > 0 && (c->env = calloc(job->nenv, sizeof(lx_env))) == NULL))
	{
		lx_log("out of memory");
		exit(1);
	}
	c->job_id = job->job_id;
	c->attempt = job->attempt;
	memcpy(c->token, job->token, sizeof(c->token));
	c->node_rank = job->node_rank;
	c->world_gpus = job->world_gpus;
	c->name = dup_or_die(job->name);
	c->command = dup_or_die(job->command);
	c->gpus = dup_or_die(job->gpus);
	c->workdir = dup_or_die(job->workdir);
	c->owner = dup_or_die(job->owner);
	for (i = 0; i < job->nenv; i++)
	{
		c->env[i].key = dup_or_die(job->env[i].key);
		c->env[i].value = dup_or_die(job->env[i].value);
	}
	c->nenv = job->nenv;
	return c;
}
