/*
 * commitpoint.c — whether a deferred trigger fires at the transaction's
 * commit, or earlier.
 *
 * The round runs in a deferred constraint trigger so that it runs once, at
 * commit, and its locks (the scheduler lock, the rows of other users' jobs
 * it re-plans) end a moment later with the transaction. Any role may run
 * SET CONSTRAINTS ALL IMMEDIATE, and then the trigger fires at the end of
 * each statement, inside a transaction that may stay open for as long as
 * its owner likes, holding those locks: every launcher call and every other
 * user's round would wait for it. So the round trigger asks here first.
 *
 * PostgreSQL fires a deferred trigger early only from within a statement:
 * from ExecutorFinish (the end of a query, also one run through SPI by a
 * function, whatever protocol called it) or from a utility command (SET
 * CONSTRAINTS, COPY, TRUNCATE, CALL). At commit or PREPARE it fires from
 * the transaction's end, outside every statement. Counting the calls of
 * those two hooks that are under way therefore tells the two apart: at
 * commit the count is 0. The count errs only on the safe side: a COMMIT
 * inside a procedure is a real commit under CALL, counted as early (its
 * round goes to the background worker); a library loaded in the middle of
 * a statement has not counted that statement, but a deferred trigger
 * cannot fire early in it before the library is loaded (the events it
 * would plan are noted by the library's own BEFORE trigger), and every
 * ExecutorFinish and utility call from then on is counted.
 */
#include "postgres.h"

#include "executor/executor.h"
#include "tcop/utility.h"

#include "commitpoint.h"

static ExecutorFinish_hook_type prev_finish = NULL;
static ProcessUtility_hook_type prev_utility = NULL;

/* Calls of the two hooks under way in this backend. */
static int	statement_depth = 0;

static void
count_finish(QueryDesc *queryDesc)
{
	statement_depth++;
	PG_TRY();
	{
		if (prev_finish)
			prev_finish(queryDesc);
		else
			standard_ExecutorFinish(queryDesc);
	}
	PG_FINALLY();
	{
		statement_depth--;
	}
	PG_END_TRY();
}

static void
count_utility(PlannedStmt *pstmt, const char *queryString, bool readOnlyTree,
			  ProcessUtilityContext context, ParamListInfo params,
			  QueryEnvironment *queryEnv, DestReceiver *dest, QueryCompletion *qc)
{
	statement_depth++;
	PG_TRY();
	{
		if (prev_utility)
			prev_utility(pstmt, queryString, readOnlyTree, context, params, queryEnv, dest, qc);
		else
			standard_ProcessUtility(pstmt, queryString, readOnlyTree, context, params, queryEnv, dest, qc);
	}
	PG_FINALLY();
	{
		statement_depth--;
	}
	PG_END_TRY();
}

bool
mx_at_commit_point(void)
{
	return statement_depth == 0;
}

void
mx_commitpoint_init(void)
{
	prev_finish = ExecutorFinish_hook;
	ExecutorFinish_hook = count_finish;
	prev_utility = ProcessUtility_hook;
	ProcessUtility_hook = count_utility;
}
