/*
 * relay.c — a job part's output, line by line, into the log (relay.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "relay.h"

/* At the part's end, at most this many bytes are read to count what is lost. */
#define DRAIN_COUNT_MAX (16 << 20)

/* The log, as a descriptor that does not block (relay.h); -1 if there is none. */
static int
open_log(bool *sock, bool *own)
{
	struct stat st;
	int			fd;

	*sock = *own = false;
	if (fstat(STDERR_FILENO, &st) != 0)
		return -1;
	if (S_ISSOCK(st.st_mode))
		*sock = true;
	/* a file shares the launcher's offset as it is; its writes wait for no reader */
	if (S_ISSOCK(st.st_mode) || S_ISREG(st.st_mode))
		return STDERR_FILENO;
	/* a pipe, FIFO or terminal: a description of our own, so O_NONBLOCK is ours alone */
	fd = open("/proc/self/fd/2", O_WRONLY | O_APPEND | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return STDERR_FILENO;	/* poll()ed before each write all the same */
	*own = true;
	return fd;
}

void
lx_relay_init(lx_relay *r, int in, const char *prefix)
{
	memset(r, 0, sizeof(*r));
	r->in = in;
	r->out = -1;
	snprintf(r->prefix, sizeof(r->prefix), "%s", prefix);
	r->budget = LX_RELAY_BUDGET;
	r->window_s = LX_RELAY_WINDOW_S;
	r->window_start = lx_now();
	if (in < 0)
		return;
	fcntl(in, F_SETFL, fcntl(in, F_GETFL) | O_NONBLOCK);
	r->out = open_log(&r->sock, &r->own_out);
}

static bool
pending(const lx_relay *r)
{
	return r->text_pos < r->text_len;
}

int
lx_relay_poll_fd(const lx_relay *r, short *events)
{
	*events = pending(r) ? POLLOUT : POLLIN;
	return pending(r) ? r->out : r->in;
}

/*
 * Stamp, prefix, the relay's own words (before: not escaped, at most 96
 * bytes) and the line's bytes escaped into text, pending; the line empty
 * again.
 */
static void
format_text(lx_relay *r, const char *before)
{
	size_t		n = lx_log_header(r->text, sizeof(r->text)),
				p = strlen(r->prefix),
				b = strlen(before);

	memcpy(r->text + n, r->prefix, p);
	memcpy(r->text + n + p, before, b);
	r->text_start = n + p + b;
	r->text_len = r->text_start + lx_log_escape(r->text + r->text_start, sizeof(r->text) - r->text_start,
												r->line, r->len, "\n");
	r->text_pos = 0;
	if (r->out < 0)
		r->text_len = 0;
	r->len = 0;
}

/* Counts n bytes the part wrote as not logged. */
static void
not_logged(lx_relay *r, size_t n)
{
	r->suppressed += (long long) n;
	r->suppressed_all += (long long) n;
}

/*
 * Whether cost more bytes of the log fit in this window's budget (relay.h);
 * if they do, they are charged.
 */
static bool
within_budget(lx_relay *r, size_t cost)
{
	double		now = lx_now();

	if (now - r->window_start >= r->window_s)
	{
		r->window_start = now;
		r->window_bytes = 0;
		r->notice_sent = false;
		r->dropping = false;
	}
	if (r->window_bytes + cost > r->budget)
		return false;
	r->window_bytes += cost;
	return true;
}

/*
 * A line of the part's output, if what it takes in the log (stamp, prefix
 * and escapes included: an empty line or control bytes cost the log far
 * more than the part wrote) fits in the budget; the first line after a
 * loss says how much the part wrote that was not logged (newline: the
 * line ended in one, not at a cut or at the end of the output). False if
 * the line was dropped.
 */
static bool
format_line(lx_relay *r, bool newline)
{
	char		before[96] = "";
	size_t		wrote = r->len + newline;

	/* once a line of the window is dropped, so are the rest (the notice says so) */
	if (r->dropping)
	{
		not_logged(r, wrote);
		r->len = 0;
		return false;
	}
	if (r->suppressed > 0)
		snprintf(before, sizeof(before), "(%lld bytes not logged) ", r->suppressed);
	format_text(r, before);
	if (r->text_len == 0 || within_budget(r, r->text_len))
	{
		r->suppressed = 0;
		return true;
	}
	r->text_len = 0;
	not_logged(r, wrote);
	r->dropping = true;
	if (r->notice_sent)
		return false;
	r->notice_sent = true;
	snprintf(before, sizeof(before), "(over %zu bytes in %.0f s: lines dropped until %.0f s have passed)",
			 r->budget, r->window_s, r->window_s);
	format_text(r, before);
	return false;
}

/* How many bytes at the end of s begin a UTF-8 sequence they do not finish (0-3). */
static size_t
utf8_unfinished(const char *s, size_t len)
{
	size_t		k;

	for (k = 1; k <= 3 && k <= len; k++)
	{
		unsigned char b = (unsigned char) s[len - k];

		if ((b & 0xc0) == 0x80)
			continue;
		if (b < 0xc0)
			return 0;
		return k < (size_t) (b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2) ? k : 0;
	}
	return 0;
}

/* How many bytes the UTF-8 sequence begun at the end of s still needs (0-3). */
static int
utf8_owed(const char *s, size_t len)
{
	size_t		k = utf8_unfinished(s, len);
	unsigned char b = k > 0 ? (unsigned char) s[len - k] : 0;

	return k == 0 ? 0 : (b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2) - (int) k;
}

/* A full line goes out; a character it would cut in half starts the next one. */
static void
cut_line(lx_relay *r)
{
	size_t		keep = utf8_unfinished(r->line, r->len);
	char		carry[4];

	memcpy(carry, r->line + r->len - keep, keep);
	r->len -= keep;
	if (!format_line(r, false))
	{
		/* dropped: so is the rest of the line, its carried character too */
		r->skip_cont = utf8_owed(carry, keep);
		not_logged(r, keep);
		r->len = 0;
		r->in_dropped = true;
		return;
	}
	memcpy(r->line, carry, keep);
	r->len = keep;
	r->split = true;
	r->cut_dropped = false;
}

static void
take_byte(lx_relay *r, char b)
{
	if (b == '\n')
	{
		/* the newline right after a cut ends the line already written, or dropped */
		if (!(r->split && r->len == 0))
			format_line(r, true);
		else if (r->cut_dropped)
			not_logged(r, 1);
		r->split = r->cut_dropped = false;
		return;
	}
	r->split = r->cut_dropped = false;
	r->line[r->len++] = b;
	if (r->len == LX_RELAY_LINE)
		cut_line(r);
}

/*
 * The window is over: lines are taken again. The rest of a line being
 * dropped goes on as a cut one (take_raw drops what is left of a
 * character begun in it, take_byte a newline right after). Always
 * false: nothing is counted here.
 */
static bool
end_dropping(lx_relay *r)
{
	r->dropping = false;
	if (r->in_dropped)
	{
		r->in_dropped = false;
		r->split = r->cut_dropped = true;
	}
	return false;
}

/*
 * Past the budget, the window's lines are counted, not taken byte by byte
 * (a job printing without end kept its keeper busy on a whole core at
 * 54 MB/s): to the end of the line or of what was read. False once the
 * window is over and nothing was counted (the byte is taken as any other).
 */
static bool
skip_dropped(lx_relay *r)
{
	const char *from = r->raw + r->raw_pos,
			   *nl;
	size_t		n;

	if (lx_now() - r->window_start >= r->window_s)
		return end_dropping(r);
	nl = memchr(from, '\n', r->raw_len - r->raw_pos);
	n = nl ? (size_t) (nl - from) + 1 : r->raw_len - r->raw_pos;
	r->raw_pos += n;
	not_logged(r, n);
	r->in_dropped = nl == NULL;
	r->split = r->cut_dropped = false;
	/* a character the read cut in two: its rest is dropped with it, after the window too */
	r->skip_cont = nl == NULL ? utf8_owed(r->raw, r->raw_len) : 0;
	return true;
}

/* Takes the bytes read until a line is pending or none are left. */
static void
take_raw(lx_relay *r)
{
	while (!pending(r) && r->raw_pos < r->raw_len)
	{
		if (r->dropping && r->len == 0 && skip_dropped(r))
			continue;
		if (r->skip_cont > 0 && ((unsigned char) r->raw[r->raw_pos] & 0xc0) == 0x80)
		{
			r->raw_pos++;
			r->skip_cont--;
			not_logged(r, 1);
			continue;
		}
		r->skip_cont = 0;
		take_byte(r, r->raw[r->raw_pos++]);
	}
}

/* Reads what the pipe holds; false if nothing came now (EAGAIN) or it ended. */
static bool
read_raw(lx_relay *r)
{
	ssize_t		n = read(r->in, r->raw, sizeof(r->raw));

	if (n > 0)
	{
		r->raw_len = (size_t) n;
		r->raw_pos = 0;
		return true;
	}
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return false;
	/* EOF or a broken pipe: an unfinished last line still goes out */
	close(r->in);
	r->in = -1;
	if (r->len > 0)
		format_line(r, false);
	return false;
}

/* Only part of the line went out: the rest behind a newline, the stamp and the prefix again. */
static void
continue_line(lx_relay *r, size_t done)
{
	char		rest[LX_LOG_MAX];
	size_t		from = done > r->text_start ? done : r->text_start,
				n = r->text_len - from,
				h;

	memcpy(rest, r->text + from, n);
	r->text[0] = '\n';
	h = 1 + lx_log_header(r->text + 1, sizeof(r->text) - 1);
	memcpy(r->text + h, r->prefix, strlen(r->prefix));
	h += strlen(r->prefix);
	if (h + n > sizeof(r->text))
	{
		n = sizeof(r->text) - h;
		rest[n - 1] = '\n';
	}
	memcpy(r->text + h, rest, n);
	r->text_start = h;
	r->text_len = h + n;
	r->text_pos = 0;
}

/* One write of what is pending; false if the log took nothing now. */
static bool
write_pending(lx_relay *r)
{
	size_t		left = r->text_len - r->text_pos;
	ssize_t		n = r->sock ? send(r->out, r->text + r->text_pos, left, MSG_DONTWAIT | MSG_NOSIGNAL)
		: write(r->out, r->text + r->text_pos, left);

	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return false;
	if (n < 0 || (size_t) n == left)
		r->text_pos = r->text_len = 0;	/* out, or the log is gone: dropped */
	else
		continue_line(r, r->text_pos + (size_t) n);
	return true;
}

void
lx_relay_step(lx_relay *r)
{
	if (pending(r) && (!write_pending(r) || pending(r)))
		return;
	/* so that bytes left over always mean a line is pending: poll() then asks for POLLOUT */
	take_raw(r);
	if (!pending(r) && r->in >= 0 && read_raw(r))
		take_raw(r);
}

/* What the log did not take at the end, counted; the pipe read to its end or the bound. */
static long long
count_lost(lx_relay *r)
{
	size_t		from = r->text_pos > r->text_start ? r->text_pos : r->text_start;
	/* the pending line's text as escaped, without its stamp and prefix */
	long long	lost = (long long) (pending(r) ? r->text_len - from : 0) + (long long) (r->raw_len - r->raw_pos)
		+ (long long) r->len;
	ssize_t		n;

	while (r->in >= 0 && lost < DRAIN_COUNT_MAX && (n = read(r->in, r->raw, sizeof(r->raw))) > 0)
		lost += n;
	r->text_pos = r->text_len = r->raw_pos = r->raw_len = r->len = 0;
	return lost;
}

void
lx_relay_drain(lx_relay *r, double wait_s)
{
	double		deadline = lx_now() + wait_s;

	while (r->out >= 0 && lx_now() < deadline)
	{
		if (pending(r))
		{
			struct pollfd p = {r->out, POLLOUT, 0};

			if (poll(&p, 1, (int) ((deadline - lx_now()) * 1000) + 1) == 1 && !write_pending(r))
				(void) poll(NULL, 0, 10);	/* room for another writer's line, not ours */
			continue;
		}
		take_raw(r);
		/* read_raw() may end the last line itself, at EOF */
		if (pending(r) || (r->in >= 0 && read_raw(r)) || pending(r))
			continue;
		if (r->len == 0)
			break;
		format_line(r, false);	/* the part is gone: its last line ends here */
	}
	r->dropped = count_lost(r);
	if ((r->dropped > 0 || r->suppressed > 0) && r->out >= 0)
	{
		char		note[96];

		if (r->dropped > 0 && r->suppressed > 0)
			snprintf(note, sizeof(note), "(%lld bytes not logged: the log took no more; %lld over the budget)",
					 r->dropped, r->suppressed);
		else if (r->dropped > 0)
			snprintf(note, sizeof(note), "(%lld bytes not logged: the log took no more)", r->dropped);
		else
			snprintf(note, sizeof(note), "(%lld bytes not logged: over the part's output budget)", r->suppressed);
		format_text(r, note);
		(void) write_pending(r);
	}
	lx_relay_close(r);
}

void
lx_relay_close(lx_relay *r)
{
	if (r->in >= 0)
		close(r->in);
	if (r->own_out)
		close(r->out);
	r->in = r->out = -1;
	r->own_out = false;
	r->text_pos = r->text_len = 0;
}
