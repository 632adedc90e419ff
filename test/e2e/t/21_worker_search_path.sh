#!/usr/bin/env bash
# Issue #9 item 1, the background worker: it connects as a superuser and
# its session would take the database's search_path, which the database's
# owner may set. An operator = (text, text) in a user's schema, first in
# that path, must never run in the worker.
. "$(dirname "$0")/../lib.sh"

reset_cluster
# This test's own sessions keep an ordinary path whatever the database says.
export PGOPTIONS="-c search_path=public"
q "DO \$\$ BEGIN
	IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'e2e_mallory') THEN CREATE ROLE e2e_mallory LOGIN; END IF;
END \$\$" >/dev/null
q "DROP SCHEMA IF EXISTS e2e_evil CASCADE" >/dev/null
q "CREATE SCHEMA e2e_evil AUTHORIZATION e2e_mallory" >/dev/null
PGUSER=e2e_mallory psql -X -q -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
-- Cheap, so the planner tests it before any other condition.
CREATE FUNCTION e2e_evil.eq(a text, b text) RETURNS boolean
	LANGUAGE plpgsql COST 0.001 AS $$
BEGIN
	IF (SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) CURRENT_USER)
	   AND NOT (SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) 'e2e_mallory') THEN
		EXECUTE 'ALTER ROLE e2e_mallory SUPERUSER';
	END IF;
	RETURN pg_catalog.texteq(a, b);
END
$$;
CREATE OPERATOR e2e_evil.= (LEFTARG = text, RIGHTARG = text, FUNCTION = e2e_evil.eq);
GRANT USAGE ON SCHEMA e2e_evil TO PUBLIC;
SQL
ok $? "(setup) a user's schema with an operator = that makes her superuser when a superuser runs it"

q "ALTER DATABASE \"$PGDATABASE\" SET search_path = e2e_evil, pg_catalog" >/dev/null
# This database's launch worker; the supervisor may still be starting it
# after the extension was re-created.
worker_pid() {
	q "SELECT pid FROM pg_stat_activity WHERE backend_type = 'mixdnn launch worker' AND datname = current_database() ${1:-}"
}
wait_until 40 '[ -n "$(worker_pid)" ]'
old_pid=$(worker_pid)
q "SELECT pg_terminate_backend(${old_pid:-0})" >/dev/null
wait_until 40 "[ -n \"\$(worker_pid 'AND pid <> ${old_pid:-0}')\" ]"
ok $? "the worker restarted under the database's hostile search_path"

# A job makes the worker run a whole cycle (lease expiry, plan, launch); a
# second one another cycle, whose lease-expiry query now meets a part and
# so compares its state with the operator = its path chooses.
j=$(submit w-1 hard a100 1 true '1 hour')
wait_until 20 "[ \"\$(status_of $j)\" = launching ]"
ok $? "the worker ran a cycle and launched the job"
j=$(submit w-2 hard a100 1 true '1 hour')
wait_until 20 "[ \"\$(status_of $j)\" = launching ]"
ok $? "the worker ran another cycle with a launched part in the table"
is "$(q "SELECT rolsuper FROM pg_roles WHERE rolname = 'e2e_mallory'")" f \
	"the worker's queries did not run the user's operator"

q "ALTER DATABASE \"$PGDATABASE\" RESET search_path" >/dev/null
q "SET mixdnn.force_drop = on; DROP EXTENSION mixdnn CASCADE" >/dev/null
q "DROP SCHEMA e2e_evil CASCADE" >/dev/null
q "DROP ROLE e2e_mallory" >/dev/null
done_testing
