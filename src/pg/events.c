/*
 * events.c — names of event sets.
 */
#include "postgres.h"

#include "events.h"

static const char *const event_names[] = {
	"arrival", "completion", "cancel", "requeue", "update", "delete", "node", "profile", "retry", "restore",
	"quota", "start"
};

void
mx_events_name(int events, char *buf, size_t len)
{
	size_t		i;

	buf[0] = '\0';
	for (i = 0; i < lengthof(event_names); i++)
		if (events & (1 << i))
		{
			if (buf[0])
				strlcat(buf, ",", len);
			strlcat(buf, event_names[i], len);
		}
}
