/*
 * ddlguard.c — refuses, before PostgreSQL locks anything, DDL that names a
 * relation (mixdnn's tables, or the catalogs) and that the caller has no
 * right to run.
 *
 * A handful of commands lock the relation they name before they check the
 * caller's rights: CREATE RULE (ACCESS EXCLUSIVE), CREATE TRIGGER (SHARE
 * ROW EXCLUSIVE), CREATE [FOREIGN] TABLE ... PARTITION OF, ALTER TABLE ...
 * ATTACH or DETACH PARTITION and ALTER INDEX ... DEPENDS ON EXTENSION
 * (ACCESS EXCLUSIVE; a query plans with its table's indexes locked), and a
 * foreign key that references the relation (SHARE ROW EXCLUSIVE). The
 * command then fails with 42501, but only once it has the lock, and PostgreSQL queues every later request
 * that conflicts with a waiting one: a plain user who keeps a read of
 * mixdnn.jobs open in one session and sends CREATE RULE ... TO mixdnn.jobs
 * from another holds every submission, every read of the queue and every
 * launcher call up for as long as she likes (16 s measured, with
 * heartbeats failing past the lease). So these statements are checked
 * here first, by the same rule PostgreSQL applies afterwards, with the
 * names looked up without a lock; what passes goes on to PostgreSQL's own
 * checks with each name it checked pinned to the schema it found: looked
 * up again after a wait on a lock of her own, an unqualified name could
 * otherwise mean mixdnn's table once she has dropped hers from earlier in
 * her search_path. Every relation is checked, not only mixdnn's: the
 * catalogs are anyone's to name, and an outsider's CREATE RULE ... TO
 * pg_catalog.pg_class, queued behind her own read of it, stalled every new
 * session's catalog lookups, submissions among them. See
 * docs/design.md, "Locks and who can take them".
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/objectaddress.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"

#include "ddlguard.h"

static ProcessUtility_hook_type prev_process_utility = NULL;

typedef enum
{
	NEED_OWNER,
	NEED_TRIGGER,
	NEED_REFERENCES
} ddl_right;

/*
 * Refuses (42501) when the caller lacks right on the relation rv names;
 * then pins rv to the schema its name was found in.
 */
static void
check_relation(RangeVar *rv, ddl_right right)
{
	Oid			rel;
	AclResult	acl = ACLCHECK_OK;

	if (rv == NULL)
		return;
	rel = RangeVarGetRelid(rv, NoLock, true);
	if (!OidIsValid(rel))
		return;
	if (right == NEED_OWNER)
		acl = pg_class_ownercheck(rel, GetUserId()) ? ACLCHECK_OK : ACLCHECK_NOT_OWNER;
	else if (right == NEED_TRIGGER)
		acl = pg_class_aclcheck(rel, GetUserId(), ACL_TRIGGER);
	/* REFERENCES on the table, or on some of its columns (PostgreSQL checks which after) */
	else if (pg_class_aclcheck(rel, GetUserId(), ACL_REFERENCES) != ACLCHECK_OK)
		acl = pg_attribute_aclcheck_all(rel, GetUserId(), ACL_REFERENCES, ACLMASK_ANY);
	if (acl != ACLCHECK_OK)
		aclcheck_error(acl, get_relkind_objtype(get_rel_relkind(rel)), rv->relname);
	rv->schemaname = get_namespace_name(get_rel_namespace(rel));
}

/* A foreign key among a column's or a table's constraints: REFERENCES on the table it references. */
static void
check_constraints(List *constraints)
{
	ListCell   *lc;

	foreach(lc, constraints)
	{
		Node	   *n = lfirst(lc);

		if (IsA(n, Constraint) && ((Constraint *) n)->contype == CONSTR_FOREIGN)
			check_relation(((Constraint *) n)->pktable, NEED_REFERENCES);
	}
}

/*
 * CREATE TABLE: its parents (PARTITION OF, INHERITS). Its foreign keys are
 * not looked at here: PostgreSQL adds them after the table exists, as an
 * ALTER TABLE ... ADD CONSTRAINT of its own that comes through this hook
 * (check_alter) before it locks the table referenced; looked up now, a
 * key to the table being created would find another of its name.
 */
static void
check_create(CreateStmt *stmt)
{
	ListCell   *lc;

	foreach(lc, stmt->inhRelations)
		check_relation(lfirst_node(RangeVar, lc), NEED_OWNER);
}

/* ALTER TABLE: a table attached or detached as a partition or made a parent, a foreign key's referenced table. */
static void
check_alter(AlterTableStmt *stmt)
{
	ListCell   *lc;

	foreach(lc, stmt->cmds)
	{
		AlterTableCmd *cmd = lfirst_node(AlterTableCmd, lc);

		if (cmd->def == NULL)
			continue;
		if ((cmd->subtype == AT_AttachPartition || cmd->subtype == AT_DetachPartition ||
			 cmd->subtype == AT_DetachPartitionFinalize) && IsA(cmd->def, PartitionCmd))
			check_relation(((PartitionCmd *) cmd->def)->name, NEED_OWNER);
		else if (cmd->subtype == AT_AddInherit && IsA(cmd->def, RangeVar))
			check_relation((RangeVar *) cmd->def, NEED_OWNER);
		else if (cmd->subtype == AT_AddConstraint && IsA(cmd->def, Constraint))
			check_constraints(list_make1(cmd->def));
		else if (cmd->subtype == AT_AddColumn && IsA(cmd->def, ColumnDef))
			check_constraints(((ColumnDef *) cmd->def)->constraints);
	}
}

/* Whether the statement is one check_statement looks at (and may pin names in). */
static bool
checked(Node *stmt)
{
	return IsA(stmt, RuleStmt) || IsA(stmt, CreateTrigStmt) || IsA(stmt, CreateStmt) ||
		IsA(stmt, CreateForeignTableStmt) || IsA(stmt, AlterTableStmt) ||
		(IsA(stmt, AlterObjectDependsStmt) && ((AlterObjectDependsStmt *) stmt)->relation != NULL);
}

static void
check_statement(Node *stmt)
{
	if (IsA(stmt, RuleStmt))
		check_relation(((RuleStmt *) stmt)->relation, NEED_OWNER);
	else if (IsA(stmt, CreateTrigStmt))
		check_relation(((CreateTrigStmt *) stmt)->relation, NEED_TRIGGER);
	else if (IsA(stmt, CreateStmt))
		check_create((CreateStmt *) stmt);
	else if (IsA(stmt, CreateForeignTableStmt))
		check_create(&((CreateForeignTableStmt *) stmt)->base);
	else if (IsA(stmt, AlterTableStmt))
		check_alter((AlterTableStmt *) stmt);
	else if (IsA(stmt, AlterObjectDependsStmt))
		check_relation(((AlterObjectDependsStmt *) stmt)->relation, NEED_OWNER);
}

static void
ddlguard_process_utility(PlannedStmt *pstmt, const char *queryString, bool readOnlyTree,
						 ProcessUtilityContext context, ParamListInfo params,
						 QueryEnvironment *queryEnv, DestReceiver *dest, QueryCompletion *qc)
{
	/* superusers pass every check; a transaction that cannot look names up is left to PostgreSQL */
	if (!superuser() && IsTransactionState() && checked(pstmt->utilityStmt))
	{
		/* the names are pinned in place: a cached or caller's tree is not ours to change */
		if (readOnlyTree)
		{
			pstmt = copyObject(pstmt);
			readOnlyTree = false;
		}
		check_statement(pstmt->utilityStmt);
	}
	if (prev_process_utility)
		prev_process_utility(pstmt, queryString, readOnlyTree, context, params, queryEnv, dest, qc);
	else
		standard_ProcessUtility(pstmt, queryString, readOnlyTree, context, params, queryEnv, dest, qc);
}

void
mx_ddlguard_init(void)
{
	prev_process_utility = ProcessUtility_hook;
	ProcessUtility_hook = ddlguard_process_utility;
}
