/*
 * signals.c — SIGCHLD, SIGTERM, SIGINT and SIGUSR2 write a byte to a pipe that the
 * main loop polls along with the database socket; handlers do nothing else.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "signals.h"

static int	pipe_fds[2] = {-1, -1};
static volatile sig_atomic_t stop_requests = 0;
static volatile sig_atomic_t detach_requests = 0;

static void
on_signal(int sig)
{
	int			saved = errno;

	if (sig == SIGTERM || sig == SIGINT)
		stop_requests++;
	else if (sig == SIGUSR2)
		detach_requests++;
	/* A full pipe already wakes the loop: the byte may be dropped. */
	(void) !write(pipe_fds[1], "x", 1);
	errno = saved;
}

int
lx_signals_init(void)
{
	struct sigaction sa;
	int			i;

	if (pipe(pipe_fds) != 0)
		return -1;
	for (i = 0; i < 2; i++)
	{
		fcntl(pipe_fds[i], F_SETFL, fcntl(pipe_fds[i], F_GETFL) | O_NONBLOCK);
		fcntl(pipe_fds[i], F_SETFD, FD_CLOEXEC);
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGCHLD, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);

	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	return pipe_fds[0];
}

int
lx_signals_drain(void)
{
	char		buf[64];

	while (read(pipe_fds[0], buf, sizeof(buf)) > 0)
		;
	return (int) stop_requests;
}

bool
lx_signals_detach(void)
{
	return detach_requests > 0;
}

void
lx_signals_forget(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	sigaction(SIGPIPE, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	close(pipe_fds[0]);
	close(pipe_fds[1]);
	pipe_fds[0] = pipe_fds[1] = -1;
}
