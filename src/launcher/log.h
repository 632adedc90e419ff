/*
 * log.h — one line per event on stderr, with a timestamp and the node.
 */
#ifndef LX_LOG_H
#define LX_LOG_H

void		lx_log_init(const char *node);
void		lx_log(const char *fmt,...) __attribute__((format(printf, 1, 2)));

/* Monotonic seconds, for timers. */
double		lx_now(void);

#endif
