/*
 * log.c — timestamped log lines on stderr.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

static char log_node[128] = "?";

void
lx_log_init(const char *node)
{
	snprintf(log_node, sizeof(log_node), "%s", node);
}

void
lx_log(const char *fmt,...)
{
	struct timespec ts;
	struct tm	tm;
	char		stamp[32];
	char		line[2048];
	int			n;
	va_list		ap;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);

	n = snprintf(line, sizeof(line), "%s.%03ldZ mixdnn-launcher[%d] %s: ",
				 stamp, ts.tv_nsec / 1000000, (int) getpid(), log_node);
	va_start(ap, fmt);
	if (n >= 0 && n < (int) sizeof(line))
		vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	va_end(ap);

	/* One write per line, so lines of concurrent processes do not interleave. */
	n = (int) strlen(line);
	while (n > 0 && line[n - 1] == '\n')
		line[--n] = '\0';
	if (n < (int) sizeof(line) - 1)
		line[n++] = '\n';
	(void) !write(STDERR_FILENO, line, n);
}

double
lx_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}
