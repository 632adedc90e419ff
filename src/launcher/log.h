/*
 * log.h — one line per event on stderr, with a timestamp and the node;
 * whatever text a line carries, it stays one line (log.c).
 */
#ifndef LX_LOG_H
#define LX_LOG_H

#include <stddef.h>

/* The longest line written, newline included: PIPE_BUF, so that a write to a pipe is never cut. */
#define LX_LOG_MAX 4096

void		lx_log_init(const char *node);
void		lx_log(const char *fmt,...) __attribute__((format(printf, 1, 2)));

/* "TIME mixdnn-launcher[PID] NODE: " into buf; its length. */
size_t		lx_log_header(char *buf, size_t size);

/*
 * text[0..len) escaped (log.c) into dst, then tail, NUL-terminated; stops
 * before a sequence that would not fit with tail. Returns the length.
 */
size_t		lx_log_escape(char *dst, size_t size, const char *text, size_t len, const char *tail);

/* A whole line: header, prefix (as it is), text escaped, newline. Its length. */
size_t		lx_log_format(char *buf, size_t size, const char *prefix, const char *text, size_t len);

/* Seconds on CLOCK_BOOTTIME (monotonic, suspend included), for timers and leases. */
double		lx_now(void);

#endif
