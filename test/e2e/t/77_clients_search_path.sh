#!/usr/bin/env bash
# SQL that MixDNN's programs and files send from outside the extension's
# functions, under a search_path that holds another role's objects
# (docs/design.md, "How names are resolved").
#
# The launcher's queries: a database's owner may set its search_path
# (ALTER DATABASE ... SET search_path), which every session of a launcher
# role takes. Domains named text and uuid in a schema
# of another role, first in that path, would be the types of the
# launcher's casts (::text, ::uuid), and their CHECK, run at each claim and
# report, would run as the launcher's role (it claims every job, reads
# every command and environment and reports for every job). The launcher
# names every type, operator and function with its schema. And
# tools/bench/export_snapshot.sql, below.
. "$(dirname "$0")/../lib.sh"

HOSTILE=mixdnn_e2e_hostile
# This test's own sessions keep an ordinary path whatever the database says.
export PGOPTIONS="-c search_path=public"
cleanup() {
	q "ALTER DATABASE \"$PGDATABASE\" RESET search_path; DROP SCHEMA IF EXISTS e2e_hostile CASCADE" >/dev/null
	drop_role "$HOSTILE"
}
cleanup
reset_cluster

psql -X -q -v ON_ERROR_STOP=1 >/dev/null <<-SQL
	CREATE ROLE $HOSTILE;
	CREATE SCHEMA e2e_hostile AUTHORIZATION $HOSTILE;
	SET ROLE $HOSTILE;
	GRANT USAGE ON SCHEMA e2e_hostile TO PUBLIC;
	CREATE TABLE e2e_hostile.ran (who text, what text);
	GRANT INSERT ON e2e_hostile.ran TO PUBLIC;
	CREATE FUNCTION e2e_hostile.note(what text) RETURNS boolean LANGUAGE sql
		AS 'INSERT INTO e2e_hostile.ran VALUES (current_user, \$1) RETURNING true';
	CREATE DOMAIN e2e_hostile.text AS pg_catalog.text CHECK (e2e_hostile.note('text'));
	CREATE DOMAIN e2e_hostile.uuid AS pg_catalog.uuid CHECK (e2e_hostile.note('uuid'));
	RESET ROLE;
	ALTER DATABASE "$PGDATABASE" SET search_path = e2e_hostile, pg_catalog;
SQL
ok $? "(setup) another role's domains text and uuid, first in the database's search_path"

# The launcher without this test's PGOPTIONS: the database's path.
PGOPTIONS= start_launcher n3
j=$(submit sp-1 hard v100 1 "$(job_cmd 0.2)")
wait_until 30 "[ \"\$(status_of $j)\" = completed ]"
ok $? "a job ran through the launcher and was reported"
# A part claimed on n3 that no keeper runs (claimed here, with the
# launcher stopped): the launcher that starts gives it up with
# reset_node(node, job, cause), and the job runs again.
stop_launcher n3
j=$(submit sp-2 hard v100 1 "$(job_cmd 0.2)")
wait_until 30 "[ \"\$(status_of $j)\" = launching ]"
is "$(PGUSER=$E2E_LAUNCHER_ROLE q "SELECT count(*) FROM mixdnn.claim_parts('n3')")" 1 "(setup) a part claimed without a launcher"
PGOPTIONS= start_launcher n3
wait_until 30 "grep -q 'giving it up' \"\$T/launcher-n3.log\" && [ \"\$(status_of $j)\" = completed ]"
ok $? "the launcher gave the part up and the job ran again"
is "$(q "SELECT coalesce(string_agg(DISTINCT who || ' ran ' || what, ', '), '') FROM e2e_hostile.ran")" "" \
	"the launcher's queries ran none of the other role's domain checks"

stop_all_launchers

# tools/bench/export_snapshot.sql, which an administrator runs against a
# real database (docs/performance.md), as a superuser under the default
# search_path ("$user", public), with CREATE on public granted to PUBLIC
# (as before PostgreSQL 15): another role's array_to_string(text[], text)
# there matches allowed_types better than pg_catalog's
# array_to_string(anyarray, text) and would run as the superuser.
q "ALTER DATABASE \"$PGDATABASE\" RESET search_path; GRANT CREATE ON SCHEMA public TO PUBLIC" >/dev/null
psql -X -q -v ON_ERROR_STOP=1 >/dev/null <<-SQL
	SET ROLE $HOSTILE;
	CREATE FUNCTION public.array_to_string(text[], text) RETURNS text LANGUAGE sql
		AS 'SELECT e2e_hostile.note(''array_to_string''); SELECT pg_catalog.array_to_string(\$1, \$2)';
SQL
ok $? "(setup) another role's array_to_string(text[], text) in public"
# A job that holds n1 and n2, and one that waits behind it.
submit snap-run hard a100 8 "$(job_cmd 0.2)" '1 hour' >/dev/null
j=$(submit snap-wait soft a100 2 "$(job_cmd 0.2)")
mkdir -p "$T/snap" && chmod 777 "$T/snap"
PGOPTIONS= psql -X -q -v dir="$T/snap" -f "$E2E_DIR/../../tools/bench/export_snapshot.sql" >"$T/snap.log" 2>&1
ok $? "export_snapshot.sql ran" || diag "$(cat "$T/snap.log")"
grep -q "^$j," "$T/snap/waiting.csv"
ok $? "it exported the waiting job"
is "$(q "SELECT coalesce(string_agg(DISTINCT who || ' ran ' || what, ', '), '') FROM e2e_hostile.ran")" "" \
	"export_snapshot.sql ran none of the other role's functions"

q "REVOKE CREATE ON SCHEMA public FROM PUBLIC" >/dev/null
cleanup
done_testing
