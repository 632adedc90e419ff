/*
 * plan.c — allocation and release of mx_plan (plan.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plan.h"

int
mx_plan_init(mx_plan *p, int njobs)
{
	int			i;

	memset(p, 0, sizeof(*p));
	p->n = njobs > 0 ? njobs : 0;
	p->a = calloc(p->n > 0 ? (size_t) p->n : 1, sizeof(mx_assignment));
	if (p->a == NULL)
		return -1;
	for (i = 0; i < p->n; i++)
	{
		p->a[i].job = i;
		p->a[i].status = MX_WAITING;
		p->a[i].type = -1;
		p->a[i].gpus = 0;
		p->a[i].start = NAN;
		p->a[i].end = NAN;
		p->a[i].utility = 0.0;
		p->a[i].reason[0] = '\0';
	}
	p->bound = NAN;
	return 0;
}

void
mx_plan_free(mx_plan *p)
{
	if (p == NULL)
		return;
	free(p->a);
	p->a = NULL;
	p->n = 0;
}

void
mx_plan_set_reason(mx_assignment *a, const char *reason)
{
	size_t		len;

	if (reason == NULL)
		reason = "";
	len = strlen(reason);
	if (len >= MX_REASON_LEN)
		len = MX_REASON_LEN - 1;
	memcpy(a->reason, reason, len);
	a->reason[len] = '\0';
}

int
mx_format_utc(double t, char *buf, size_t size)
{
	time_t		tt;
	struct tm	tm;
	char		tmp[32];

	if (!isfinite(t))
		return -1;
	tt = (time_t) floor(t + 0.5);
	if (gmtime_r(&tt, &tm) == NULL || strftime(tmp, sizeof(tmp), "%Y-%m-%d %H:%M:%S UTC", &tm) == 0 ||
		strlen(tmp) >= size)
		return -1;
	memcpy(buf, tmp, strlen(tmp) + 1);
	return 0;
}
