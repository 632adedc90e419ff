/*
 * log.c — timestamped log lines on stderr, each one line whatever it holds.
 *
 * Log lines carry text others chose: job names, role names, working
 * directories, server messages and, through the relay (relay.h), a job's
 * own output. None of it may start a line of its own or reach a terminal
 * as a control: a control character (C0, DEL, and the C1 range, U+0080 to
 * U+009F), a line or paragraph separator (U+2028, U+2029), a bidirectional
 * mark or override (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to
 * U+2069: Unicode's Bidi_Control characters) and a byte
 * that is not valid UTF-8 are written as \xNN per byte, a backslash as \\,
 * so that the log reads back unambiguously. Tabs and the rest of UTF-8
 * pass as they are.
 */
#include <stdarg.h>
#include <stdbool.h>
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

size_t
lx_log_header(char *buf, size_t size)
{
	struct timespec ts;
	struct tm	tm;
	char		stamp[32];
	int			n;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
	n = snprintf(buf, size, "%s.%03ldZ mixdnn-launcher[%d] ", stamp, ts.tv_nsec / 1000000, (int) getpid());
	if (n < 0 || (size_t) n >= size)
		return 0;
	/* the node is an operator's argument, but goes through the same rule */
	return (size_t) n + lx_log_escape(buf + n, size - n, log_node, strlen(log_node), ": ");
}

/* The length of the valid UTF-8 sequence at s (1-4), or 0 if it is not one. */
static size_t
utf8_length(const unsigned char *s, size_t len, unsigned *cp)
{
	size_t		n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
	size_t		i;

	if (s[0] > 0xf4 || n == 0 || n > len)
		return 0;
	*cp = s[0] & (0x7f >> n);
	for (i = 1; i < n; i++)
	{
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		*cp = (*cp << 6) | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates, beyond U+10FFFF */
	if ((n == 3 && *cp < 0x800) || (n == 4 && (*cp < 0x10000 || *cp > 0x10ffff))
		|| (*cp >= 0xd800 && *cp <= 0xdfff))
		return 0;
	return n;
}

/* Code points that move or break lines, or steer a terminal, in a valid sequence. */
static bool
unsafe_code_point(unsigned cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029 || cp == 0x061c || cp == 0x200e || cp == 0x200f
		|| (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

size_t
lx_log_escape(char *dst, size_t size, const char *text, size_t len, const char *tail)
{
	const unsigned char *s = (const unsigned char *) text;
	size_t		out = 0,
				i = 0,
				tail_len = strlen(tail);

	if (size == 0)
		return 0;
	while (i < len)
	{
		unsigned	cp = s[i];
		size_t		n = s[i] < 0x80 ? 1 : utf8_length(s + i, len - i, &cp),
					need;
		bool		escape = n == 0 || (n == 1 && ((cp < 0x20 && cp != '\t') || cp == 0x7f)) || unsafe_code_point(cp);

		if (n == 0)
			n = 1;
		need = escape ? 4 * n : cp == '\\' ? 2 : n;
		/* whole sequences only: a cut one would be one of the bytes escaped above */
		if (out + need + tail_len >= size)
			break;
		if (escape)
			for (size_t k = 0; k < n; k++)
				out += (size_t) snprintf(dst + out, size - out, "\\x%02x", s[i + k]);
		else if (cp == '\\')
			out += (size_t) snprintf(dst + out, size - out, "\\\\");
		else
			memcpy(dst + out, s + i, n), out += n;
		i += n;
	}
	if (out + tail_len < size)
		memcpy(dst + out, tail, tail_len), out += tail_len;
	dst[out] = '\0';
	return out;
}

size_t
lx_log_format(char *buf, size_t size, const char *prefix, const char *text, size_t len)
{
	size_t		n = lx_log_header(buf, size),
				p = strlen(prefix);

	if (n + p + 1 >= size)
		return 0;
	memcpy(buf + n, prefix, p);
	/* the newline always fits: a line cut short still ends */
	return n + p + lx_log_escape(buf + n + p, size - n - p, text, len, "\n");
}

void
lx_log(const char *fmt,...)
{
	char		msg[LX_LOG_MAX];
	char		line[LX_LOG_MAX];
	size_t		len;
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	len = strlen(msg);
	while (len > 0 && msg[len - 1] == '\n')
		len--;
	/* One write per line, so lines of concurrent processes do not interleave. */
	len = lx_log_format(line, sizeof(line), "", msg, len);
	(void) !write(STDERR_FILENO, line, len);
}

double
lx_now(void)
{
	struct timespec ts;

	/* counts a suspend, as the database's clock does: a lease must not outlast one */
	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}
