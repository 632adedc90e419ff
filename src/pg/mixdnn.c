/*
 * mixdnn.c — module entry: wires the modules together, nothing else.
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"

#include "commitpoint.h"
#include "dbguard.h"
#include "ddlguard.h"
#include "guc.h"
#include "lock.h"
#include "registry.h"
#include "restore.h"
#include "supervisor.h"
#include "triggers.h"
#include "worker.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

void
_PG_init(void)
{
	mx_guc_init();
	mx_triggers_init();
	/* Every backend, preloaded or not: the round trigger asks it (commitpoint.c). */
	mx_commitpoint_init();
	/* Every backend: any session may hold the scheduler lock. */
	mx_lock_init();
	/* Every backend: DDL that would queue a lock on mixdnn's tables before its refusal. */
	mx_ddlguard_init();
	/* What needs shared memory or runs in every backend comes only with preload. */
	if (process_shared_preload_libraries_in_progress)
	{
		mx_registry_init();
		mx_worker_init();
		/*
		 * Not in pg_upgrade's servers (binary-upgrade mode, postgres -b):
		 * there the workers launched, expired leases and wrote rounds in
		 * the old cluster, and in the new one met extensions half restored.
		 */
		if (!IsBinaryUpgrade)
			mx_supervisor_init();
		mx_dbguard_init();
		mx_restore_init();
	}
	mx_guc_reserve_prefix();
}
