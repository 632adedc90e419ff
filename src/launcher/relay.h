/*
 * relay.h — a job part's output when the launcher has no --output-dir:
 * read by the keeper from a pipe and written to the log, each line marked
 * as the part's and escaped (log.c).
 *
 * The part never holds the launcher's stderr. Given it, a job could write
 * lines that read as the launcher's, and where stderr is a file, cut it
 * short (ftruncate) or overwrite it: the log would be the job's to edit.
 * Through the relay every line it writes starts with the launcher's stamp
 * and "job J attempt A rank R output: ", and nothing in it starts a line.
 *
 * The keeper must never block on the log (it would no longer hear a
 * cancel). It writes through a descriptor of its own that does not block
 * (stderr opened again with O_NONBLOCK, MSG_DONTWAIT on a socket; a
 * regular file, whose writes do not wait on a reader, is written as it is),
 * holds at most one line, and reads the part's next bytes only once that
 * line is out; while the log takes nothing, the part's writes wait in its
 * pipe. A line the log took only in part goes on behind a newline and the
 * prefix again, so no other writer's line can leave the rest of it at the
 * start of a line.
 *
 * A part's share of the log is bounded: at most LX_RELAY_BUDGET bytes of
 * the log (its lines as written: stamp, prefix, escapes) in each
 * LX_RELAY_WINDOW_S (a job printing without end filled a disk at 35 MB/s);
 * after the first line dropped, the window's others are counted in bulk. Past that its lines are read and dropped, so the job
 * is not slowed; one notice says so, the first line logged again starts
 * with how many bytes were lost, and so does a last line at the part's end.
 */
#ifndef LX_RELAY_H
#define LX_RELAY_H

#include <stdbool.h>
#include <stddef.h>

#include "log.h"

/*
 * The most bytes of the part's output in one line: escaped (at most 4
 * bytes each), with the stamp, a node name of 64 characters and the
 * prefix, a line stays within LX_LOG_MAX; a longer one goes on in the next.
 */
#define LX_RELAY_LINE 900

/* 1 MiB per 30 s (35 kB/s, 3 GB a day): far above what training prints. */
#define LX_RELAY_BUDGET (1 << 20)
#define LX_RELAY_WINDOW_S 30.0

typedef struct lx_relay
{
	int			in;				/* read end of the part's pipe, -1 after EOF */
	int			out;			/* the log, -1 if there is none */
	bool		sock;			/* out is a socket: send() with MSG_DONTWAIT */
	bool		own_out;		/* out was opened here */
	char		prefix[96];
	char		line[LX_RELAY_LINE];	/* the part's bytes of the current line */
	size_t		len;
	bool		split;			/* the last line was cut at LX_RELAY_LINE */
	char		text[LX_LOG_MAX];	/* the formatted line being written */
	size_t		text_len,
				text_pos,
				text_start;		/* where its escaped part begins */
	char		raw[16384];		/* bytes read and not yet taken into line */
	size_t		raw_len,
				raw_pos;
	long long	dropped;		/* bytes lost at the end (the log took nothing) */
	size_t		budget;			/* bytes of the log per window; init sets the defaults */
	double		window_s;
	double		window_start;
	size_t		window_bytes;
	long long	suppressed;		/* the part's bytes dropped over budget, not yet said in a line */
	long long	suppressed_all; /* ... in all */
	bool		notice_sent;	/* this window's notice is out */
	bool		dropping;		/* a line of this window was dropped: so are the rest, read in bulk */
	bool		in_dropped;		/* in the middle of a line being dropped */
	bool		cut_dropped;	/* the line cut last was dropped: a newline right after it is not logged either */
	int			skip_cont;		/* bytes still owed to a character begun in a dropped line: dropped too */
} lx_relay;

void		lx_relay_init(lx_relay *r, int in, const char *prefix);

/* The descriptor and events to poll() for, so that a step will not block; -1 when done. */
int			lx_relay_poll_fd(const lx_relay *r, short *events);

/* One non-blocking step: write the pending line, or read and take in more. */
void		lx_relay_step(lx_relay *r);

/*
 * At the part's end (no writer is left): what is still in the pipe, waiting
 * at most wait_s in all for the log to take it; an unfinished last line is
 * ended, and what the log would not take is counted in one last line.
 */
void		lx_relay_drain(lx_relay *r, double wait_s);

void		lx_relay_close(lx_relay *r);

#endif
