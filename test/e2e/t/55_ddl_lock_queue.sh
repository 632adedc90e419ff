#!/usr/bin/env bash
# A plain user's DDL on mixdnn's relations queues no lock (ddlguard.c).
# CREATE RULE, CREATE TRIGGER, CREATE [FOREIGN] TABLE ... PARTITION OF,
# ALTER TABLE ... ATTACH / DETACH PARTITION, ALTER INDEX ... DEPENDS ON
# EXTENSION and a foreign key referencing a mixdnn table lock the table (or
# its index) before PostgreSQL refuses them with 42501. While one of them waited
# behind the user's own open transaction, every later request on the table
# queued behind it: other users' submissions, reads of the queue, claims
# and heartbeats, for as long as she kept that transaction open (a review:
# 16 s; heartbeats failing past the lease). Each command below, sent while
# a transaction of hers holds a lock it conflicts with, must fail with
# 42501 at once instead of waiting out its lock_timeout (3 s) with 55P03.
. "$(dirname "$0")/../lib.sh"

reset_cluster
user_roles e2e_alice e2e_bob
q "CREATE SCHEMA IF NOT EXISTS e2e_alice AUTHORIZATION e2e_alice" >/dev/null
PGUSER=e2e_alice psql -X -q -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
CREATE TABLE e2e_alice.d (x bigint);
CREATE TABLE e2e_alice.p (job_id bigint) PARTITION BY LIST (job_id);
CREATE FUNCTION e2e_alice.tf() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$;
SQL
ok $? "(setup) alice owns a schema with a table, a partitioned table and a trigger function"

# Alice's open transaction: a submission (ROW EXCLUSIVE on jobs) and a read
# of the cluster and the queue (ACCESS SHARE), open 120 s unless released.
PGUSER=e2e_alice psql -X -q -c "BEGIN;
	INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration, command) VALUES ('held', 'v100', 1, '1 hour', 'true');
	SELECT count(*) FROM mixdnn.gpu_nodes, mixdnn.queue; SELECT pg_sleep(120); COMMIT" >"$T/holder.log" 2>&1 &
holder=$!
wait_until 5 "[ \"\$(q \"SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep' AND usename = 'e2e_alice'\")\" = 1 ]"
ok $? "(setup) alice holds a submission and a read of the queue open"

# [who=ROLE] refused_at_once SQL: as alice (or ROLE), SQLSTATE 42501 within 1.5 s (lock_timeout 3 s)
refused_at_once() {
	local t0 ms out
	t0=$(date +%s%N)
	out=$(PGUSER=${who:-e2e_alice} psql -X -q -v ON_ERROR_STOP=1 -v VERBOSITY=verbose \
		-c "SET lock_timeout = '3s'" -c "$1" 2>&1)
	ms=$((($(date +%s%N) - t0) / 1000000))
	echo "$out" | grep -q "ERROR: *42501" && [ "$ms" -lt 1500 ] || { diag "$ms ms: $out"; return 1; }
}
# bob_at_once NAME [-c SQL...]: bob's new session submits job NAME (and runs
# SQL) within 1.5 s; the time in $ms, the output in $T/NAME.log
bob_at_once() {
	local name=$1 t0 rc
	shift
	t0=$(date +%s%N)
	PGUSER=e2e_bob psql -X -q -v ON_ERROR_STOP=1 -c "SET lock_timeout = '5s'" \
		-c "INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration, command) VALUES ('$name', 'v100', 1, '1 hour', 'true')" \
		"$@" >"$T/$name.log" 2>&1
	rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	[ "$rc" = 0 ] && [ "$ms" -lt 1500 ]
}
while IFS='|' read -r what sql; do
	refused_at_once "$sql"
	ok $? "$what: refused with 42501 at once"
done <<'EOF'
CREATE RULE on mixdnn.jobs|CREATE RULE r AS ON INSERT TO mixdnn.jobs DO ALSO NOTHING
CREATE RULE on mixdnn.gpu_nodes|CREATE RULE r AS ON UPDATE TO mixdnn.gpu_nodes DO ALSO NOTHING
CREATE RULE on the view mixdnn.queue|CREATE RULE r AS ON INSERT TO mixdnn.queue DO INSTEAD NOTHING
CREATE RULE on jobs found through search_path|SET search_path = mixdnn, public; CREATE RULE r AS ON INSERT TO jobs DO ALSO NOTHING
CREATE TRIGGER on mixdnn.jobs|CREATE TRIGGER t BEFORE INSERT ON mixdnn.jobs FOR EACH ROW EXECUTE FUNCTION e2e_alice.tf()
CREATE TABLE ... PARTITION OF mixdnn.jobs|CREATE TABLE e2e_alice.c PARTITION OF mixdnn.jobs FOR VALUES IN (1)
a column REFERENCES mixdnn.jobs|CREATE TABLE e2e_alice.fk1 (j bigint REFERENCES mixdnn.jobs)
a table FOREIGN KEY to mixdnn.jobs|CREATE TABLE e2e_alice.fk2 (j bigint, FOREIGN KEY (j) REFERENCES mixdnn.jobs)
ALTER TABLE ADD FOREIGN KEY to mixdnn.jobs|ALTER TABLE e2e_alice.d ADD FOREIGN KEY (x) REFERENCES mixdnn.jobs
ALTER TABLE ADD COLUMN REFERENCES mixdnn.jobs|ALTER TABLE e2e_alice.d ADD COLUMN y bigint REFERENCES mixdnn.jobs
ATTACH PARTITION mixdnn.jobs|ALTER TABLE e2e_alice.p ATTACH PARTITION mixdnn.jobs FOR VALUES IN (1)
DETACH PARTITION mixdnn.jobs|ALTER TABLE e2e_alice.p DETACH PARTITION mixdnn.jobs
DETACH PARTITION mixdnn.jobs FINALIZE|ALTER TABLE e2e_alice.p DETACH PARTITION mixdnn.jobs FINALIZE
ALTER INDEX on mixdnn.jobs DEPENDS ON EXTENSION|ALTER INDEX mixdnn.jobs_pkey DEPENDS ON EXTENSION mixdnn
CREATE FOREIGN TABLE ... PARTITION OF mixdnn.jobs|CREATE FOREIGN TABLE e2e_alice.ft PARTITION OF mixdnn.jobs FOR VALUES IN (1) SERVER nosuch
EOF

# The victims: with her DDL sent in the background (it waited 6 s before),
# bob's submission and a read of the queue go through at once.
PGUSER=e2e_alice psql -X -q -c "SET lock_timeout = '6s'" \
	-c "CREATE RULE r AS ON INSERT TO mixdnn.jobs DO ALSO NOTHING" >"$T/rule.log" 2>&1 &
rule=$!
# refused, or (without the guard) queued behind alice's open transaction
wait_until 5 "! kill -0 $rule 2>/dev/null || [ \"\$(q \"SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND usename = 'e2e_alice'\")\" = 1 ]"
bob_at_once bob -c "SELECT count(*) FROM mixdnn.queue"
ok $? "bob submits and reads the queue at once beside it ($ms ms)" || diag "$(cat "$T/bob.log")"
wait "$rule"

# A name checked, then looked up again after a wait: with search_path =
# e2e_alice, mixdnn, "jobs" is her own table when the statement is checked;
# it then waits for her own lock on p (the gate), she drops her "jobs",
# and PostgreSQL's lookup would find mixdnn.jobs. The checked name is
# pinned to her schema, so the statement fails (42P01) instead of queueing
# on mixdnn.jobs.
PGUSER=e2e_alice q "CREATE TABLE e2e_alice.jobs (job_id bigint)" >/dev/null
PGAPPNAME=gate PGUSER=e2e_alice psql -X -q -c "BEGIN; LOCK TABLE e2e_alice.p; SELECT pg_sleep(120); COMMIT" >/dev/null 2>&1 &
gate=$!
wait_until 5 "[ \"\$(q \"SELECT count(*) FROM pg_stat_activity WHERE application_name = 'gate' AND wait_event = 'PgSleep'\")\" = 1 ]"
ok $? "(setup) alice's gate holds her own partitioned table"
PGAPPNAME=swap PGUSER=e2e_alice psql -X -q -v VERBOSITY=verbose -c "SET search_path = e2e_alice, mixdnn" -c "SET lock_timeout = '6s'" \
	-c "ALTER TABLE e2e_alice.p ATTACH PARTITION jobs FOR VALUES IN (1)" >"$T/swap.log" 2>&1 &
swap=$!
wait_until 5 "[ \"\$(q \"SELECT count(*) FROM pg_stat_activity WHERE application_name = 'swap' AND wait_event_type = 'Lock'\")\" = 1 ]"
ok $? "(setup) her ATTACH PARTITION of her own jobs waits for the gate"
PGUSER=e2e_alice q "DROP TABLE e2e_alice.jobs" >/dev/null
q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'gate'" >/dev/null
wait "$gate" 2>/dev/null
bob_at_once bob2
rc=$?
wait "$swap"
grep -q "ERROR: *42P01" "$T/swap.log"
ok $? "the swapped name does not reach mixdnn.jobs: 42P01" || diag "$(cat "$T/swap.log")"
[ "$rc" = 0 ]
ok $? "... and bob submits at once beside it ($ms ms)" || diag "$(cat "$T/bob2.log")"

# The catalogs are anyone's to name: an outsider's CREATE RULE on
# pg_catalog.pg_class, queued behind her own read of it, stalled every new
# session's catalog lookups (a new session's submission waited 12 s).
login_roles e2e_outsider
PGAPPNAME=oread PGUSER=e2e_outsider psql -X -q -c "BEGIN; SELECT count(*) FROM pg_catalog.pg_class; SELECT pg_sleep(120); COMMIT" >/dev/null 2>&1 &
oread=$!
wait_until 5 "[ \"\$(q \"SELECT count(*) FROM pg_stat_activity WHERE application_name = 'oread' AND wait_event = 'PgSleep'\")\" = 1 ]"
ok $? "(setup) an outsider holds a read of pg_class"
who=e2e_outsider refused_at_once "CREATE RULE r AS ON INSERT TO pg_catalog.pg_class DO ALSO NOTHING"
ok $? "an outsider's CREATE RULE on pg_class: refused with 42501 at once"
who=e2e_outsider refused_at_once "CREATE TEMP TABLE pp PARTITION OF pg_catalog.pg_class FOR VALUES IN (1)"
ok $? "an outsider's PARTITION OF pg_class: refused with 42501 at once"
who=e2e_outsider refused_at_once "ALTER INDEX pg_catalog.pg_class_oid_index DEPENDS ON EXTENSION plpgsql"
ok $? "an outsider's ALTER INDEX on a catalog index: refused with 42501 at once"
PGUSER=e2e_outsider psql -X -q -c "SET lock_timeout = '6s'" \
	-c "CREATE RULE r AS ON INSERT TO pg_catalog.pg_class DO ALSO NOTHING" >/dev/null 2>&1 &
orule=$!
wait_until 5 "! kill -0 $orule 2>/dev/null || [ \"\$(q \"SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND usename = 'e2e_outsider'\")\" = 1 ]"
bob_at_once bob3
ok $? "bob's new session submits at once beside it ($ms ms)" || diag "$(cat "$T/bob3.log")"
wait "$orule"
q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'oread'" >/dev/null
wait "$oread" 2>/dev/null

# A table's keys to itself: PostgreSQL adds a CREATE TABLE's keys after the
# table exists; checked before, "jobs" below was mixdnn's (refused) and a
# temporary table's key to itself found alice's table of that name.
PGUSER=e2e_alice psql -X -q -v ON_ERROR_STOP=1 -c "SET search_path = e2e_alice, mixdnn" \
	-c "CREATE TABLE jobs (job_id bigint PRIMARY KEY, parent bigint REFERENCES jobs)" >"$T/self.log" 2>&1 &&
	[ "$(q "SELECT confrelid::regclass FROM pg_constraint WHERE conrelid = 'e2e_alice.jobs'::regclass AND contype = 'f'")" = e2e_alice.jobs ]
ok $? "alice's table that references itself, named like mixdnn's, is created and references itself" || diag "$(cat "$T/self.log")"
PGUSER=e2e_alice psql -X -q -v ON_ERROR_STOP=1 -c "CREATE TABLE e2e_alice.t (id int PRIMARY KEY)" \
	-c "SET search_path = e2e_alice" -c "CREATE TEMP TABLE t (id int PRIMARY KEY, r int REFERENCES t)" >"$T/tself.log" 2>&1
ok $? "a temporary table that references itself, beside her table of that name, is created" || diag "$(cat "$T/tself.log")"

# What alice may do is unchanged: her own tables, keys and triggers.
PGUSER=e2e_alice psql -X -q -v ON_ERROR_STOP=1 >"$T/own.log" 2>&1 <<'SQL'
CREATE TABLE e2e_alice.k (id bigint PRIMARY KEY);
CREATE TABLE e2e_alice.r (k bigint REFERENCES e2e_alice.k);
CREATE TRIGGER t BEFORE INSERT ON e2e_alice.r FOR EACH ROW EXECUTE FUNCTION e2e_alice.tf();
CREATE RULE n AS ON UPDATE TO e2e_alice.k DO ALSO NOTHING;
CREATE TABLE e2e_alice.c PARTITION OF e2e_alice.p FOR VALUES IN (1);
SQL
ok $? "alice's DDL on her own tables still works" || diag "$(cat "$T/own.log")"
q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE wait_event = 'PgSleep' AND usename = 'e2e_alice'" >/dev/null
wait "$holder" 2>/dev/null
# A column's REFERENCES privilege, granted by an admin, is enough for a key
# to that column (PostgreSQL's own rule: the table's, or every column's).
# (Alice's transaction is gone: the key's lock would wait for it.)
q "CREATE SCHEMA IF NOT EXISTS e2e_bob AUTHORIZATION e2e_bob" >/dev/null
q "GRANT REFERENCES (job_id) ON mixdnn.jobs TO e2e_bob" >/dev/null
PGUSER=e2e_bob q "CREATE TABLE e2e_bob.r (j bigint REFERENCES mixdnn.jobs (job_id))" >/dev/null 2>"$T/colref.log"
ok $? "a key to a column bob was granted REFERENCES on is not refused" || diag "$(cat "$T/colref.log")"
q "DROP SCHEMA e2e_bob CASCADE" >/dev/null 2>&1
q "REVOKE REFERENCES (job_id) ON mixdnn.jobs FROM e2e_bob" >/dev/null
# The owner's DDL (a superuser's here) on mixdnn's tables is not refused.
q "BEGIN; CREATE RULE r AS ON UPDATE TO mixdnn.gpu_types DO ALSO NOTHING; ROLLBACK" >"$T/su.log" 2>&1
ok $? "a superuser's CREATE RULE on a mixdnn table is not refused" || diag "$(cat "$T/su.log")"

psql -X -q -c "SET mixdnn.force_drop = on" -c "DROP EXTENSION mixdnn CASCADE" >/dev/null
q "DROP SCHEMA e2e_alice CASCADE" >/dev/null 2>&1
q "DROP ROLE e2e_alice, e2e_bob, e2e_outsider" >/dev/null
done_testing
