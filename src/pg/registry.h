/*
 * registry.h — shared memory of the launch workers: one slot per database
 * of the cluster, through which backends wake the worker that serves their
 * database and hand it events, and the supervisor knows which databases
 * have a worker (docs/operations.md, "Every database").
 */
#ifndef MIXDNN_REGISTRY_H
#define MIXDNN_REGISTRY_H

#include "postgres.h"

#include "storage/latch.h"
#include "utils/timestamp.h"

/* A worker that exited is restarted after this long, like a static one. */
#define MX_RESTART_S 5

/* Databases one cluster can have served at once. */
#define MX_MAX_DATABASES 128

typedef enum mx_db_state
{
	MX_DB_NONE = 0,				/* no worker; one may start at since */
	MX_DB_STARTING,				/* the supervisor started one; not connected yet */
	MX_DB_RUNNING,				/* a worker serves the database */
	MX_DB_IDLE,					/* the worker found nothing to serve (no extension, or opted out) */
	MX_DB_PAUSED				/* stopped for DROP/RENAME/copy of the database, until pause_until */
} mx_db_state;

/* What the supervisor needs to know of one slot. */
typedef struct mx_db_view
{
	Oid			dboid;
	mx_db_state state;
	bool		wanted;			/* a backend asked for a worker since the last start */
	bool		opted_out;		/* idle because of mixdnn.launch_worker = off */
	TimestampTz since;			/* when the state was entered (pause: until when) */
	pid_t		pid;			/* the worker's, 0 when none is connected */
} mx_db_view;

/* From _PG_init when preloaded: hooks for the shared memory. */
void		mx_registry_init(void);

/* Whether the shared memory exists, i.e. the library was preloaded. */
bool		mx_registry_loaded(void);

/* Backends. */
bool		mx_registry_serves(Oid db);
void		mx_registry_add_events(Oid db, uint32 events);
void		mx_registry_wake(Oid db);
pid_t		mx_registry_pause(Oid db, int seconds);
pid_t		mx_registry_worker_pid(Oid db);

/* The per-database worker. False when another worker holds the slot: this one exits. */
bool		mx_registry_attach(Oid db);
void		mx_registry_set_idle(Oid db, bool opted_out);
void		mx_registry_served(Oid db);	/* the worker serves: mixdnn.launch_worker is on */
bool		mx_registry_first_load_notice(Oid db);	/* opted out: log the pending load only once */
bool		mx_registry_paused(Oid db);
uint32		mx_registry_take_events(Oid db);
uint32		mx_registry_peek_events(Oid db);	/* without taking them */

/*
 * Whether a worker of db has renewed its parts' leases since the server
 * started (shared memory starts anew with the server, and with a promoted
 * standby's first workers); set once that repair has committed.
 */
bool		mx_registry_leases_renewed(Oid db);
void		mx_registry_mark_leases_renewed(Oid db);

/* The supervisor. */
void		mx_registry_attach_supervisor(void);
int			mx_registry_views(mx_db_view *out, int max);
bool		mx_registry_mark_starting(Oid db);
void		mx_registry_forget(Oid db);
void		mx_registry_start_failed(Oid db);

#endif
