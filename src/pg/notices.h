/*
 * notices.h — the launchers' notifications, sent outside the transactions
 * that hold the scheduler lock (notices.c).
 */
#ifndef MIXDNN_NOTICES_H
#define MIXDNN_NOTICES_H

#include "postgres.h"

/*
 * A notification for the launchers, as the extension's owner: queued in
 * mixdnn.notices for the worker to send after this transaction commits, or
 * sent at commit where no worker serves the database (or it is at 0.1.0);
 * dropped while PostgreSQL's queue is more than half full.
 */
void		mx_notice_send(const char *channel, const char *payload);

/*
 * In the worker, in a transaction of its own connected to SPI: sends the
 * notices of mixdnn.notices committed so far and deletes them. Waits at
 * most mixdnn.lock_timeout for PostgreSQL's NOTIFY lock (an error then:
 * they are sent at the next cycle).
 */
void		mx_notices_deliver(void);

#endif
