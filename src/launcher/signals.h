/*
 * signals.h — signals as events of the main loop (the self-pipe trick).
 */
#ifndef LX_SIGNALS_H
#define LX_SIGNALS_H

#include <stdbool.h>

/* Installs the handlers; returns the fd that becomes readable on a signal. */
int			lx_signals_init(void);

/* Empties the pipe; returns how many SIGTERM/SIGINT arrived so far. */
int			lx_signals_drain(void);

/* Whether SIGUSR2 asked the launcher to leave its jobs running and exit. */
bool		lx_signals_detach(void);

/* In a forked child: default handlers, no pipe. */
void		lx_signals_forget(void);

#endif
