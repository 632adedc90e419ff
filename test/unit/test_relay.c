/*
 * test_relay.c — the keeper's relay of a part's output into the log
 * (src/launcher/relay.c): every line marked and escaped, long lines split,
 * a last line without a newline kept, and never a blocking write.
 *
 * fd 2, where lx_log() writes, is a pipe this test reads back; TAP goes to
 * stdout.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "relay.h"
#include "unit.h"

#define PREFIX "job 7 attempt 2 rank 1 output: "

static int	log_read = -1;		/* the read end of what fd 2 now is */

/* Steps while the relay's descriptor is ready; what a keeper's loop does. */
static void
pump(lx_relay *r)
{
	int			i;

	for (i = 0; i < 10000; i++)
	{
		short		ev;
		struct pollfd p;

		p.fd = lx_relay_poll_fd(r, &ev);
		p.events = ev;
		if (p.fd < 0 || poll(&p, 1, 0) != 1)
			return;
		lx_relay_step(r);
	}
}

/* Everything logged since the last call, NUL-terminated. */
static const char *
logged(void)
{
	static char buf[65536];
	size_t		len = 0;
	ssize_t		n;

	while (len < sizeof(buf) - 1 && (n = read(log_read, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t) n;
	buf[len] = '\0';
	return buf;
}

static int
count_lines(const char *s, const char *needle)
{
	int			n = 0;

	for (; (s = strstr(s, needle)) != NULL; s++)
		n++;
	return n;
}

/* A relay reading from a fresh pipe; *writer is the part's end. */
static void
new_relay(lx_relay *r, int *writer)
{
	int			p[2];

	if (pipe(p) != 0)
		abort();
	lx_relay_init(r, p[0], PREFIX);
	*writer = p[1];
}

static void
put(int fd, const char *s)
{
	if (write(fd, s, strlen(s)) != (ssize_t) strlen(s))
		abort();
}

static void
test_lines(void)
{
	lx_relay	r;
	int			w;
	const char *out;

	new_relay(&r, &w);
	put(w, "plain line\n\ttab and \xc3\xa9\n\n");
	pump(&r);
	out = logged();
	CHECK(strstr(out, "mixdnn-launcher[") != NULL && strstr(out, " relay-test: " PREFIX "plain line\n") != NULL,
		  "a line is logged with the time, pid and node, then the part's prefix");
	CHECK(strstr(out, PREFIX "\ttab and \xc3\xa9\n") != NULL, "tabs and UTF-8 pass as they are");
	CHECK(strstr(out, PREFIX "\n") != NULL && count_lines(out, PREFIX) == 3, "an empty line is a line of its own");

	put(w, "2026-12-02T00:00:00.000Z mixdnn-launcher[1] n1: job 9 ended\rfake\x1b[2K\\z\x7f\x01\n");
	pump(&r);
	out = logged();
	CHECK(strcmp(strstr(out, PREFIX), PREFIX "2026-12-02T00:00:00.000Z mixdnn-launcher[1] n1: job 9 ended"
				 "\\x0dfake\\x1b[2K\\\\z\\x7f\\x01\n") == 0,
		  "a forged launcher line stays behind the prefix; CR, ESC, DEL and controls as \\xNN, \\ as \\\\");
	CHECK(strchr(strstr(out, PREFIX), '\r') == NULL && strchr(out, 0x1b) == NULL, "no raw CR or escape reaches the log");

	put(w, "no newline at the end");
	pump(&r);
	CHECK(logged()[0] == '\0', "an unfinished line waits for its end");
	close(w);
	pump(&r);
	out = logged();
	CHECK(strstr(out, PREFIX "no newline at the end\n") != NULL, "at EOF the unfinished line is logged");
	CHECK(r.in < 0 && lx_relay_poll_fd(&r, &(short) {0}) < 0, "and the relay is done");
}

static int
text_bytes(const char *out, char c)
{
	const char *p;
	int			n = 0;

	for (p = out; (p = strstr(p, PREFIX)) != NULL; p++)
	{
		const char *q;

		for (q = p + strlen(PREFIX); *q && *q != '\n'; q++)
			n += *q == c;
	}
	return n;
}

static void
test_long_line(void)
{
	lx_relay	r;
	int			w;
	char		big[3001];
	const char *out,
			   *p;

	memset(big, 'a', 3000);
	big[3000] = '\0';
	new_relay(&r, &w);
	put(w, big);
	put(w, "\n");
	close(w);
	pump(&r);
	out = logged();
	CHECK(count_lines(out, PREFIX) == 4, "a 3000-byte line is split into lines of %d (%d lines)", LX_RELAY_LINE,
		  count_lines(out, PREFIX));
	CHECK(text_bytes(out, 'a') == 3000, "that together hold all of it (%d bytes)", text_bytes(out, 'a'));
	for (p = out; (p = strchr(p, '\n')) != NULL && p[1]; p++)
		CHECK(strncmp(p + 1, "20", 2) == 0, "every line starts with the stamp");

	memset(big, 'a', LX_RELAY_LINE);
	big[LX_RELAY_LINE] = '\0';
	new_relay(&r, &w);
	put(w, big);
	put(w, "\nnext\n");
	close(w);
	pump(&r);
	out = logged();
	CHECK(count_lines(out, PREFIX) == 2 && strstr(out, PREFIX "next\n") != NULL,
		  "a line of exactly %d bytes is one line, no empty one after it (%d lines)", LX_RELAY_LINE,
		  count_lines(out, PREFIX));

	/* escapes never straddle the split, and stay within one write */
	memset(big, '\x01', 1000);
	big[1000] = '\0';
	new_relay(&r, &w);
	put(w, big);
	close(w);
	pump(&r);
	out = logged();
	CHECK(count_lines(out, "\\x01") == 1000 && count_lines(out, PREFIX) == 2,
		  "1000 control bytes: 1000 whole escapes over 2 lines (%d, %d)", count_lines(out, "\\x01"),
		  count_lines(out, PREFIX));
	for (p = out; (p = strstr(p, PREFIX)) != NULL; p++)
		CHECK(strcspn(p, "\n") < LX_LOG_MAX, "each line within LX_LOG_MAX (%zu)", strcspn(p, "\n"));
}

static void
test_unicode(void)
{
	lx_relay	r;
	int			w;
	char		big[LX_RELAY_LINE + 8];
	const char *out;

	new_relay(&r, &w);
	put(w, "c1 \xc2\x9b[31m ls \xe2\x80\xa8 ps \xe2\x80\xa9 bidi \xe2\x80\xae nel \xc2\x85 bad \xff\xfe"
		" overlong \xc0\xaf cut \xe2\x80 ok \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\n");
	pump(&r);
	out = logged();
	CHECK(strstr(out, PREFIX "c1 \\xc2\\x9b[31m ls \\xe2\\x80\\xa8 ps \\xe2\\x80\\xa9 bidi \\xe2\\x80\\xae"
				 " nel \\xc2\\x85 bad \\xff\\xfe overlong \\xc0\\xaf cut \\xe2\\x80 ok \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\n") != NULL,
		  "C1 controls, line and paragraph separators, bidi overrides and invalid UTF-8 as \\xNN; the rest of UTF-8 as it is");
	{
		/* U+061C ARABIC LETTER MARK is a bidi mark like U+200F (Bidi_Control): it reorders a line as shown */
		char		esc[64];

		lx_log_escape(esc, sizeof(esc), "alm \xd8\x9c end", 10, "");
		CHECK(strcmp(esc, "alm \\xd8\\x9c end") == 0, "U+061C (arabic letter mark) as \\xNN, not as it is (%s)", esc);
	}

	/* a two-byte character across the split goes whole into the next line */
	memset(big, 'a', LX_RELAY_LINE - 1);
	memcpy(big + LX_RELAY_LINE - 1, "\xc3\xa9\n", 4);
	put(w, big);
	close(w);
	pump(&r);
	out = logged();
	CHECK(count_lines(out, PREFIX) == 2 && strstr(out, PREFIX "\xc3\xa9\n") != NULL && strstr(out, "\\xc3") == NULL,
		  "a character the split would cut starts the next line whole");
}

static void
test_drain(void)
{
	lx_relay	r;
	int			w;
	const char *out;

	new_relay(&r, &w);
	put(w, "first\nsecond\nlast, unfinished");
	close(w);
	lx_relay_drain(&r, 1.0);
	out = logged();
	CHECK(count_lines(out, PREFIX) == 3 && strstr(out, PREFIX "last, unfinished\n") != NULL,
		  "drain logs what the pipe holds, the unfinished line ended");
	CHECK(r.in < 0 && r.out < 0, "and closes the pipe and its own log descriptor");
}

/* Fills fd 2 (a pipe here) through a description of its own, so fd 2 stays blocking. */
static void
fill_log(void)
{
	char		fill[4096];
	int			fd = open("/proc/self/fd/2", O_WRONLY | O_NONBLOCK);

	memset(fill, 'f', sizeof(fill));
	while (write(fd, fill, sizeof(fill)) > 0)
		;
	close(fd);
}

/* A log that cannot take a line: the relay must wait, not block. */
static void
test_full_log(void)
{
	lx_relay	r;
	int			w;
	struct pollfd p;
	short		ev;
	const char *out;

	fill_log();
	new_relay(&r, &w);
	put(w, "one\ntwo\n");
	alarm(10);					/* a step that blocks is killed here: the test fails */
	lx_relay_step(&r);
	lx_relay_step(&r);
	lx_relay_step(&r);
	alarm(0);
	p.fd = lx_relay_poll_fd(&r, &ev);
	p.events = ev;
	CHECK(ev == POLLOUT && poll(&p, 1, 0) == 0 && r.text_len > 0,
		  "with the log full, a step returns at once and the line waits for room");
	(void) logged();
	pump(&r);
	out = logged();
	CHECK(strstr(out, PREFIX "one\n") != NULL && strstr(out, PREFIX "two\n") != NULL,
		  "once the log has room, the lines go out");

	fill_log();
	put(w, "three\n");
	close(w);
	alarm(10);
	lx_relay_drain(&r, 0.2);
	alarm(0);
	CHECK(r.dropped == 6 && r.in < 0, "drain gives up on a full log after its wait, counting what it lost (%lld)",
		  r.dropped);
	(void) logged();
}

/* Past its budget a part's lines are dropped, counted and said so; the job is never held up. */
static void
test_budget(void)
{
	lx_relay	r;
	int			w,
				i;
	char		line[101];
	const char *out;
	char		want[128];
	size_t		cost;

	new_relay(&r, &w);
	CHECK(r.budget == LX_RELAY_BUDGET && r.window_s == LX_RELAY_WINDOW_S, "the default budget is %d bytes per %.0f s",
		  LX_RELAY_BUDGET, LX_RELAY_WINDOW_S);
	memset(line, 'b', 99);
	line[99] = '\n';
	line[100] = '\0';
	/* what one such line takes in the log: stamp, prefix, its bytes */
	(void) logged();
	put(w, line);
	pump(&r);
	cost = strlen(logged());
	CHECK(r.window_bytes == cost && cost > 100, "a line is charged what it takes in the log (%zu bytes, %zu charged)", cost, r.window_bytes);
	r.window_bytes = 0;
	r.budget = 10 * cost;
	for (i = 0; i < 50; i++)
		put(w, line);
	pump(&r);
	out = logged();
	CHECK(count_lines(out, PREFIX "bbb") == 10, "100-byte lines: 10 fit in a budget of ten lines' log bytes (%d logged)",
		  count_lines(out, PREFIX "bbb"));
	snprintf(want, sizeof(want), PREFIX "(over %zu bytes in 30 s: lines dropped until 30 s have passed)\n", r.budget);
	CHECK(count_lines(out, want) == 1, "one notice says the rest is dropped");
	CHECK(r.in >= 0 && r.raw_pos == r.raw_len && r.text_len == 0, "the dropped lines are read all the same: the part's pipe stays empty");

	r.window_start -= 31;		/* the next window */
	put(w, "after\n");
	pump(&r);
	out = logged();
	CHECK(strstr(out, PREFIX "(4000 bytes not logged) after\n") != NULL,
		  "the first line of the next window says how many bytes the part wrote that were dropped");
	for (i = 0; i < 20; i++)
		put(w, line);
	close(w);
	lx_relay_drain(&r, 1.0);
	out = logged();
	/* "after" with its note took less than a line of the window: 9 lines fit, 11 do not */
	snprintf(want, sizeof(want), PREFIX "(%d bytes not logged: over the part's output budget)\n", 11 * 100);
	CHECK(strstr(out, want) != NULL, "at the part's end a last line counts what was dropped since");
	CHECK(r.suppressed_all == 4000 + 11 * 100, "in all %lld bytes were dropped", r.suppressed_all);
}

/*
 * Lines that cost the log far more than the part wrote (empty lines: a
 * byte each against a stamp and prefix; control bytes, escaped to four)
 * are charged what they take: whatever the part writes, a window's log
 * grows by at most the budget and one notice. (Charged by the part's
 * bytes, `yes ''` wrote 86 times the budget into the log.)
 */
static void
test_budget_costly_lines(void)
{
	static const char *kinds[2] = {"empty lines", "control bytes"};
	int			k;

	for (k = 0; k < 2; k++)
	{
		lx_relay	r;
		int			w,
					i;
		char		line[41];
		size_t		grew;

		new_relay(&r, &w);
		(void) logged();
		r.budget = 4000;
		memset(line, k == 0 ? '\n' : '\x01', 40);
		line[40] = '\0';
		if (k == 1)
			line[39] = '\n';
		for (i = 0; i < 100; i++)
		{
			put(w, line);
			pump(&r);
		}
		grew = strlen(logged());
		CHECK(grew <= r.budget + 200, "%s: the log grew by %zu bytes, within the budget of %zu and a notice",
			  kinds[k], grew, r.budget);
		CHECK(r.suppressed > 0, "%s: the rest was dropped (%lld bytes of the part's)", kinds[k], r.suppressed);
		close(w);
		lx_relay_close(&r);
	}
}

/*
 * Over the budget, the rest of the window is counted in bulk: a line of
 * any length counts what the part wrote, newline included (cut into
 * pieces and charged a newline each, it counted more), and a part that
 * prints without end costs its keeper little: 64 MB through the relay at
 * over 300 MB/s of its CPU time (wall-clock, byte by byte with every
 * dropped line formatted: 54 MB/s with 512-byte reads and 112 MB/s with
 * 16 kB ones, a whole core busy; in bulk 1300-1800 MB/s wall-clock on an
 * idle 2-core machine, about 1000 MB/s of CPU time with both cores busy).
 */
static void
test_budget_bulk(void)
{
	lx_relay	r;
	int			w,
				i,
				p[2];
	char		line[101];
	long long	before;
	const long	total = 64L << 20;
	double		t0,
				s,
				cpu;
	struct timespec c0,
				c1;
	pid_t		pid;
	static char big[10001];

	new_relay(&r, &w);
	r.budget = 1000;
	memset(line, 'b', 99);
	line[99] = '\n';
	line[100] = '\0';
	for (i = 0; i < 20; i++)
		put(w, line);
	pump(&r);
	(void) logged();
	CHECK(r.dropping, "past the budget the window's lines are dropped");
	before = r.suppressed_all;
	memset(big, 'c', 10000);
	big[10000] = '\0';
	put(w, big);
	put(w, "\n");
	pump(&r);
	CHECK(r.suppressed_all - before == 10001 && r.len == 0,
		  "a dropped line of 10000 bytes counts 10001 (%lld), none of it kept", r.suppressed_all - before);
	close(w);
	lx_relay_close(&r);

	if (pipe(p) != 0)
		abort();
	pid = fork();
	if (pid == 0)
	{
		static char buf[65536];
		long		done = 0;

		close(p[0]);
		for (i = 0; i < (int) sizeof(buf); i++)
			buf[i] = i % 80 == 79 ? '\n' : 'y';
		while (done < total && write(p[1], buf, sizeof(buf)) > 0)
			done += (long) sizeof(buf);
		_exit(0);
	}
	close(p[1]);
	lx_relay_init(&r, p[0], PREFIX);
	r.budget = 1000;
	t0 = lx_now();
	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0) != 0)
		abort();
	while (r.in >= 0)
	{
		short		ev;
		struct pollfd q;

		q.fd = lx_relay_poll_fd(&r, &ev);
		q.events = ev;
		if (poll(&q, 1, 5000) <= 0)
			break;
		lx_relay_step(&r);
		(void) logged();
	}
	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1) != 0)
		abort();
	s = lx_now() - t0;
	waitpid(pid, NULL, 0);
	CHECK(r.in < 0 && r.suppressed_all > total - 2000, "a flood of %ld MB is read to its end", total >> 20);

	/*
	 * The bound is on the relay's own CPU time, which other load on the
	 * machine does not stretch. The wall-clock floor is loose (load on
	 * both cores read 250-630 MB/s): it catches a relay that is slow
	 * because it waits rather than computes.
	 */
	cpu = (c1.tv_sec - c0.tv_sec) + (c1.tv_nsec - c0.tv_nsec) / 1e9 + 1e-9;
	CHECK(total / 1e6 / cpu > 300, "... at %.0f MB/s of the relay's CPU time (at least 300)", total / 1e6 / cpu);
	CHECK(total / 1e6 / s > 30, "... and %.0f MB/s wall-clock (at least 30)", total / 1e6 / s);
	lx_relay_close(&r);
}

/*
 * A fresh relay with a budget of 10 bytes given the part's bytes
 * (what[0..len)), which it drops; then its window ends and the budget is
 * the default again. What was logged before (the notice) is read away.
 */
static void
dropped_then_new_window(lx_relay *r, int *w, const char *what, size_t len)
{
	new_relay(r, w);
	(void) logged();
	r->budget = 10;
	if (write(*w, what, len) != (ssize_t) len)
		abort();
	pump(r);
	(void) logged();
	r->window_start -= 31;
	r->budget = LX_RELAY_BUDGET;
}

/* The part writes s, the relay takes it; what was logged. */
static const char *
then(lx_relay *r, int w, const char *s)
{
	put(w, s);
	pump(r);
	return logged();
}

static void
end_relay(lx_relay *r, int w)
{
	close(w);
	lx_relay_close(r);
}

/*
 * A window that ends inside a line being dropped: the rest of the line is
 * logged, as a cut line, from its next whole character, behind the count
 * of what was dropped (before, nothing was logged until the line's
 * newline, however many windows later). A newline right after a dropped
 * cut line is counted with it.
 */
static void
test_budget_window_ends_in_a_line(void)
{
	lx_relay	r;
	int			w;
	const char *out;
	static char chunk[3001];

	memset(chunk, 'a', 3000);
	dropped_then_new_window(&r, &w, chunk, 2000);
	CHECK(r.dropping && r.in_dropped, "a line without a newline, past the budget, was being dropped");
	chunk[3000] = '\0';
	out = then(&r, w, chunk);
	CHECK(strstr(out, PREFIX "(2000 bytes not logged) aaa") != NULL,
		  "the next window logs the rest of the line behind what was dropped");
	CHECK(count_lines(out, PREFIX) == 3 && r.len == 300, "in cut lines: %d logged, %zu bytes held", count_lines(out, PREFIX), r.len);
	end_relay(&r, w);

	memset(chunk, 'c', LX_RELAY_LINE);
	dropped_then_new_window(&r, &w, chunk, LX_RELAY_LINE);
	CHECK(strstr(then(&r, w, "\nnext\n"), PREFIX "(901 bytes not logged) next\n") != NULL,
		  "a dropped cut line and the newline after it count %d bytes", LX_RELAY_LINE + 1);
	end_relay(&r, w);
}

/*
 * The same when the cut falls inside a character (the line goes on in
 * the next window from ccc, the character counted, not logged in halves),
 * and when the rest of a character and the newline come in reads of their
 * own; continuation bytes that no dropped character owes are the line's.
 */
static void
test_budget_window_ends_in_a_character(void)
{
	lx_relay	r;
	int			w;
	const char *out;
	static char chunk[1200];

	memset(chunk, 'a', 999);
	memcpy(chunk + 899, "\xe2\x96\x88", 3);		/* U+2588, cut after its first byte */
	memset(chunk + 902, 'b', 200);
	dropped_then_new_window(&r, &w, chunk, 1102);
	out = then(&r, w, "ccc\nnext line\n");
	CHECK(strstr(out, PREFIX "(1102 bytes not logged) ccc\n") != NULL && strstr(out, PREFIX "next line\n") != NULL,
		  "a cut inside a character: the next window logs the rest of the line, the character counted whole");
	end_relay(&r, w);

	memset(chunk, 'a', 999);
	memcpy(chunk + 999, "\xe2\x96", 2);		/* U+2588 but its last byte */
	dropped_then_new_window(&r, &w, chunk, 1001);
	(void) then(&r, w, "\x88");
	CHECK(strstr(then(&r, w, "\nnext\n"), PREFIX "(1003 bytes not logged) next\n") != NULL,
		  "the rest of a character and the newline in reads of their own are counted, not logged");
	end_relay(&r, w);

	memset(chunk, 'a', 1000);
	dropped_then_new_window(&r, &w, chunk, 1000);
	CHECK(strstr(then(&r, w, "\x88\x88rest\n"), PREFIX "(1000 bytes not logged) \\x88\\x88rest\n") != NULL,
		  "continuation bytes no character owes are logged (escaped), not dropped");
	end_relay(&r, w);
}

int
main(void)
{
	int			p[2];

	if (pipe2(p, O_CLOEXEC) != 0 || dup2(p[1], STDERR_FILENO) < 0)
		return 2;
	close(p[1]);
	log_read = p[0];
	fcntl(log_read, F_SETFL, O_NONBLOCK);
	lx_log_init("relay-test");

	test_lines();
	test_long_line();
	test_unicode();
	test_drain();
	test_full_log();
	test_budget();
	test_budget_costly_lines();
	test_budget_bulk();
	test_budget_window_ends_in_a_line();
	test_budget_window_ends_in_a_character();
	return unit_done("test_relay");
}
