#!/usr/bin/env bash
# test/upgrade/run.sh — every released version of the extension upgrades to
# the current one, and the result is the current version's fresh install:
#   1. for each frozen script sql/versions/mixdnn--V.sql: CREATE EXTENSION
#      mixdnn VERSION 'V'; ALTER EXTENSION mixdnn UPDATE; the catalog
#      (test/upgrade/catalog.sql: members, tables, columns in order,
#      constraints, indexes, triggers, functions with their bodies and
#      settings, grants, policies, comments, roles, seed rows) must equal a
#      fresh CREATE EXTENSION mixdnn's;
#   2. a database with jobs in several statuses keeps its rows through the
#      upgrade and goes on scheduling.
# Runs against the server of PGHOST/PGPORT (PGUSER a superuser), as
# test/run_tests.sh starts it. Prints TAP.
set -u
cd "$(dirname "$0")/../.." || exit 2
export PGUSER=${PGUSER:-postgres}
PSQL="psql -X -q -v ON_ERROR_STOP=1"
OUT=$(mktemp -d /tmp/mixdnn-upgrade.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
current=$(sed -n "s/^default_version = '\(.*\)'/\1/p" mixdnn.control)
n=0
failed=0
ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
	[ "$1" = 0 ]	# so that "ok $? ... || cat LOG" shows the log of a failure
}
fresh_db() {
	# The launch worker (real clock) stays out of the test's virtual time.
	$PSQL -d postgres -c "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1" \
		-c "ALTER DATABASE $1 SET mixdnn.launch_worker = off" >/dev/null 2>&1
}
describe() {
	$PSQL -d "$1" -f test/upgrade/catalog.sql 2>&1 | sed 's/^psql:[^ ]* NOTICE: *//'
}

fresh_db mx_up_fresh
$PSQL -d mx_up_fresh -c "SET client_min_messages = error; CREATE EXTENSION mixdnn" >/dev/null
ok $? "a fresh install of $current"
describe mx_up_fresh >"$OUT/fresh.txt"
[ -s "$OUT/fresh.txt" ] && grep -q '^member|table mixdnn.jobs$' "$OUT/fresh.txt"
ok $? "the catalog description of $current lists the extension's objects"
grep -q '^requires|plpgsql$' "$OUT/fresh.txt"
ok $? "$current requires plpgsql, in which its functions are written"
fresh_db mx_up_noplpgsql
out=$($PSQL -At -d mx_up_noplpgsql -c "DROP EXTENSION plpgsql" -c "SET client_min_messages = error" \
	-c "CREATE EXTENSION mixdnn CASCADE" -c "SELECT extname FROM pg_extension ORDER BY 1" 2>&1)
[ "$(echo "$out" | tail -2 | tr '\n' ' ')" = "mixdnn plpgsql " ]
ok $? "where plpgsql was dropped, CREATE EXTENSION mixdnn CASCADE installs it" || echo "$out" | tail -3 | sed 's/^/# /'
$PSQL -d postgres -c "DROP DATABASE mx_up_noplpgsql" >/dev/null 2>&1

meta=$(python3 -c 'import json; print(json.load(open("META.json"))["version"])' 2>/dev/null)
[ "$meta" = "$current" ] && grep -q "^EXTVERSION *= *$current\$" Makefile
ok $? "META.json ($meta) and the Makefile release the control file's $current"

versions=$(ls sql/versions/ | sed -n 's/^mixdnn--\([0-9.]*\)\.sql$/\1/p' | grep -vx "$current")
[ -n "$versions" ]
ok $? "there are released versions to upgrade from ($(echo $versions))"
for v in $versions; do
	fresh_db mx_up_old
	$PSQL -d mx_up_old -c "SET client_min_messages = error; CREATE EXTENSION mixdnn VERSION '$v'" >/dev/null
	ok $? "install $v"
	$PSQL -d mx_up_old -c "SET client_min_messages = error; ALTER EXTENSION mixdnn UPDATE" >"$OUT/update-$v.log" 2>&1
	ok $? "ALTER EXTENSION mixdnn UPDATE from $v" || cat "$OUT/update-$v.log"
	got=$($PSQL -d mx_up_old -tA -c "SELECT extversion FROM pg_catalog.pg_extension WHERE extname = 'mixdnn'")
	[ "$got" = "$current" ]
	ok $? "$v is now $current (got $got)"
	describe mx_up_old >"$OUT/upgraded-$v.txt"
	diff -u "$OUT/fresh.txt" "$OUT/upgraded-$v.txt" >"$OUT/diff-$v.txt"
	ok $? "$v upgraded has the catalog of a fresh $current"
	[ -s "$OUT/diff-$v.txt" ] && sed 's/^/#   /' "$OUT/diff-$v.txt" | head -60
done

# Data kept through the upgrade. The virtual clock is years ahead, so the
# background worker (real clock) neither launches nor expires anything here.
oldest=$(echo "$versions" | sort -V | head -1)
# The oldest version on one node of four V100s, on the virtual clock.
old_v100="SET client_min_messages = error;
CREATE EXTENSION mixdnn VERSION '$oldest';
SET mixdnn.virtual_now = '2031-01-01 00:00+00';
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('v0', 'v100', 4);"
fresh_db mx_up_data
$PSQL -d mx_up_data >"$OUT/data.log" 2>&1 <<SQL
SET client_min_messages = error;
CREATE EXTENSION mixdnn VERSION '$oldest';
SET mixdnn.virtual_now = '2031-01-01 00:00+00';
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('k80', 0.35), ('v100', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('k0', 'k80', 4), ('v0', 'v100', 4);
INSERT INTO mixdnn.profiles (model, gpu_type, gpus, throughput) VALUES ('m', 'v100', 1, 10), ('m', 'k80', 1, 3);
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command)
SELECT 'j' || i, CASE WHEN i % 2 = 0 THEN 'hard' ELSE 'soft' END, 'v100', 2, '1 hour', 'true'
FROM generate_series(1, 6) i;
SELECT mixdnn.launch_due();
UPDATE mixdnn.jobs SET status = 'cancelled' WHERE name = 'j6';
-- j7 runs on p0's p100, then 0.1.0 lets p0 become a v100 node: the
-- update must give j7's part p100, the type it ran on
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('p100', 0.6);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('p0', 'p100', 1);
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command) VALUES ('j7', 'hard', 'p100', 1, '1 hour', 'true');
SELECT mixdnn.launch_due();
UPDATE mixdnn.jobs SET status = 'completed' WHERE name = 'j7';
UPDATE mixdnn.gpu_nodes SET gpu_type = 'v100' WHERE node = 'p0';
-- j8 runs on q0's p100; then it is re-queued (0.1.0 kept its attempt),
-- planned again on a v100 and cancelled, written here directly: its part
-- ran on a p100 all the same
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('q0', 'p100', 1);
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command) VALUES ('j8', 'hard', 'p100', 1, '1 hour', 'true');
SELECT mixdnn.launch_due();
SET session_replication_role = replica;
UPDATE mixdnn.jobs SET status = 'cancelled', planned_gpu_type = 'v100' WHERE name = 'j8';
UPDATE mixdnn.job_parts SET state = 'cancelled' WHERE job_id = (SELECT job_id FROM mixdnn.jobs WHERE name = 'j8');
DELETE FROM mixdnn.gpu_holds WHERE job_id = (SELECT job_id FROM mixdnn.jobs WHERE name = 'j8');
INSERT INTO mixdnn.job_events (job_id, at, old_status, new_status)
SELECT job_id, mixdnn.now(), s.o, s.n FROM mixdnn.jobs, (VALUES ('launching', 'planned'), ('planned', 'cancelled')) s(o, n)
WHERE name = 'j8';
SET session_replication_role = origin;
CREATE TABLE public.before AS
SELECT job_id, name, status, planned_gpu_type, planned_gpus, planned_start, attempt FROM mixdnn.jobs;
CREATE TABLE public.counts_before AS
SELECT (SELECT count(*) FROM mixdnn.jobs) jobs, (SELECT count(*) FROM mixdnn.plan_history) plans,
       (SELECT count(*) FROM mixdnn.job_events) events, (SELECT count(*) FROM mixdnn.rounds) rounds,
       (SELECT count(*) FROM mixdnn.gpu_holds) holds, (SELECT count(*) FROM mixdnn.job_parts) parts;
ALTER EXTENSION mixdnn UPDATE;
SQL
ok $? "a database with jobs, launches and history upgrades from $oldest" || cat "$OUT/data.log"
q() { $PSQL -d mx_up_data -tA -c "$1" 2>&1; }
same=$(q "SELECT count(*) FROM public.before b JOIN mixdnn.jobs j USING (job_id)
          WHERE (b.name, b.status, b.planned_gpu_type, b.planned_gpus, b.planned_start, b.attempt)
                IS NOT DISTINCT FROM (j.name, j.status, j.planned_gpu_type, j.planned_gpus, j.planned_start, j.attempt)")
[ "$same" = 8 ]
ok $? "every job keeps its status and plan (8 = $same)"
kept=$(q "SELECT c = (SELECT ROW((SELECT count(*) FROM mixdnn.jobs), (SELECT count(*) FROM mixdnn.plan_history),
                                (SELECT count(*) FROM mixdnn.job_events), (SELECT count(*) FROM mixdnn.rounds),
                                (SELECT count(*) FROM mixdnn.gpu_holds), (SELECT count(*) FROM mixdnn.job_parts)))
          FROM (SELECT ROW(jobs, plans, events, rounds, holds, parts) c FROM public.counts_before) x")
[ "$kept" = t ]
ok $? "history, holds and parts are all kept ($kept)"
typed=$(q "SELECT count(*) FILTER (WHERE p.gpu_type = CASE j.name WHEN 'j7' THEN 'p100' ELSE n.gpu_type END)
                  || '/' || count(*)
           FROM mixdnn.job_parts p JOIN mixdnn.gpu_nodes n ON n.node = p.node JOIN mixdnn.jobs j USING (job_id)")
case "$typed" in 0/*|*[!0-9/]*|'') ok 1 "the update gives every part the GPU type it ran on ($typed)" ;;
*) [ "${typed%/*}" = "${typed#*/}" ]; ok $? "the update gives every part the GPU type it ran on: j7's p100 where its node is a v100 now, j8's p100 though it was planned on a v100 after ($typed)" ;;
esac
running=$(q "SELECT count(*) FROM mixdnn.jobs WHERE status = 'launching'")
[ "$running" -gt 0 ] 2>/dev/null
ok $? "launched jobs still hold their GPUs after the upgrade ($running launching)"
# Separate -c options: each its own transaction, so the round runs at the
# INSERT's commit.
after=$($PSQL -d mx_up_data -tA -c "SET mixdnn.virtual_now = '2031-01-01 00:00+00'" \
	-c "INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('new', 'hard', 'k80', 4, '1h')" \
	-c "SELECT status FROM mixdnn.jobs WHERE name = 'new'" 2>&1)
[ "$after" = planned ]
ok $? "a submission after the upgrade is planned ($after)"

# A model over the 63 characters 0.2.0 allows: kept, planned, and cancelled
# by its owner; the check is of a model written, not of every update (or
# one such row fails every round after the upgrade).
fresh_db mx_up_model
out=$($PSQL -d mx_up_model -tA 2>&1 <<SQL
$old_v100
INSERT INTO mixdnn.jobs (name, model, model_class, gpu_type, gpus, duration)
	VALUES ('m1', repeat('m', 100), 'hard', 'v100', 4, '1 hour'), ('m2', repeat('m', 100), 'hard', 'v100', 4, '1 hour');
SET client_min_messages = warning;
ALTER EXTENSION mixdnn UPDATE;
SQL
)
out=$($PSQL -d mx_up_model -tA -c "SET mixdnn.virtual_now = '2031-01-01 00:00+00'" \
	-c "INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('new', 'hard', 'v100', 4, '1h')" \
	-c "UPDATE mixdnn.jobs SET status = 'cancelled' WHERE name = 'm1'" \
	-c "SELECT string_agg(name || '=' || status, ' ' ORDER BY name) FROM mixdnn.jobs" 2>&1)
case "$out" in
"m1=cancelled m2=planned new=planned") ok 0 "jobs with a model over 63 characters stay plannable after an upgrade" ;;
*) ok 1 "jobs with a model over 63 characters stay plannable after an upgrade"; echo "$out" | tail -5 | sed 's/^/# /' ;;
esac

# A command over the 64 kB that 0.2.0 sets: kept, and the upgrade says so.
fresh_db mx_up_long
out=$($PSQL -d mx_up_long -tA 2>&1 <<SQL
$old_v100
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command)
	VALUES ('long', 'hard', 'v100', 2, '1 hour', repeat('x', 70000));
SET client_min_messages = warning;
ALTER EXTENSION mixdnn UPDATE;
SELECT octet_length(command) FROM mixdnn.jobs WHERE name = 'long';
SQL
)
case "$out" in
*"WARNING:  1 jobs have a command over 64 kB; they keep it"*70000) ok 0 "an upgrade keeps a command over 64 kB and warns of it" ;;
*) ok 1 "an upgrade keeps a command over 64 kB and warns of it"; echo "$out" | tail -5 | sed 's/^/# /' ;;
esac

# A job a user submitted as SET ROLE mixdnn_user, which 0.1.0 let her do
# (here a superuser names that owner): every member can read and cancel
# it; the upgrade names it.
fresh_db mx_up_group
out=$($PSQL -d mx_up_group -tA 2>&1 <<SQL
$old_v100
INSERT INTO mixdnn.jobs (name, owner, model_class, gpu_type, gpus, duration)
	VALUES ('mine', current_user, 'hard', 'v100', 2, '1 hour'), ('shared', 'mixdnn_user', 'hard', 'v100', 2, '1 hour');
SET client_min_messages = warning;
ALTER EXTENSION mixdnn UPDATE;
SELECT job_id FROM mixdnn.jobs WHERE name = 'shared';
SQL
)
id=${out##*$'\n'}
case "$out" in
*"WARNING:  jobs owned by one of mixdnn's group roles, which every member can read and cancel: $id"$'\n'*) ok 0 "an upgrade names the jobs a group role owns" ;;
*) ok 1 "an upgrade names the jobs a group role owns"; echo "$out" | tail -5 | sed 's/^/# /' ;;
esac

# An infinite submitted_at, which 0.1.0 let an admin write: the upgrade gives
# it a finite time in the same place of the queue and says so, and the
# constraint is valid, as in a fresh install (a NOT VALID one left the row,
# and a dump of it did not restore: a COPY into a fresh install refused it
# and lost the whole table). It writes no history and runs no round.
fresh_db mx_up_inf
out=$($PSQL -d mx_up_inf -tA 2>&1 <<SQL
$old_v100
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, submitted_at)
	VALUES ('early', 'hard', 'v100', 2, '1 hour', '-infinity'), ('late', 'hard', 'v100', 2, '1 hour', 'infinity'),
	       ('plain', 'hard', 'v100', 2, '1 hour', '2030-12-31 00:00+00'),
	       ('future', 'hard', 'v100', 2, '1 hour', '2031-06-01 00:00+00');
CREATE TABLE public.counts_before AS
SELECT (SELECT count(*) FROM mixdnn.job_events) events, (SELECT count(*) FROM mixdnn.rounds) rounds;
SET client_min_messages = warning;
ALTER EXTENSION mixdnn UPDATE;
SELECT string_agg(name || '=' || to_char(submitted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'), ' ' ORDER BY name)
	FROM mixdnn.jobs;
SELECT convalidated FROM pg_catalog.pg_constraint WHERE conname = 'jobs_submitted_at_check';
SELECT (SELECT count(*) FROM mixdnn.job_events) = events AND (SELECT count(*) FROM mixdnn.rounds) = rounds
	FROM public.counts_before;
SQL
)
case "$out" in
*"WARNING:  jobs 1, 2 had an infinite submitted_at"*"early=2030-12-30 23:59:59 future=2031-06-01 00:00:00 late=2031-06-01 00:00:01 plain=2030-12-31 00:00:00"?t?t)
	ok 0 "an upgrade gives an infinite submitted_at a finite time, warns, and validates the constraint" ;;
*) ok 1 "an upgrade gives an infinite submitted_at a finite time, warns, and validates the constraint"
	echo "$out" | tail -6 | sed 's/^/# /' ;;
esac
$PSQL -d mx_up_inf -tA -c "SELECT 1 FROM mixdnn.jobs" >/dev/null 2>&1 &&
	pg_dump -d mx_up_inf -f "$OUT/inf.sql" 2>"$OUT/inf-dump.log" && fresh_db mx_up_inf2 &&
	$PSQL -d mx_up_inf2 -f "$OUT/inf.sql" >"$OUT/inf-restore.log" 2>&1 &&
	[ "$($PSQL -d mx_up_inf2 -tA -c "SELECT count(*) FROM mixdnn.jobs")" = 4 ]
ok $? "and its dump restores every job" || tail -5 "$OUT/inf-restore.log" | sed 's/^/# /'

# A role of the extension's that is not a plain group role, which 0.1.0
# adopted: the update refuses it as CREATE EXTENSION does (55000), and
# changes nothing. Roles are the cluster's, so the catalog comparison above
# cannot see this; the role is put back whatever happens.
fresh_db mx_up_role
$PSQL -d mx_up_role -c "SET client_min_messages = error; CREATE EXTENSION mixdnn VERSION '$oldest'" >/dev/null 2>&1
trap '$PSQL -d postgres -c "ALTER ROLE mixdnn_launcher NOLOGIN" >/dev/null 2>&1; rm -rf "$OUT"' EXIT
$PSQL -d postgres -c "ALTER ROLE mixdnn_launcher LOGIN" >/dev/null
out=$($PSQL -d mx_up_role -c "SET client_min_messages = error" -c "ALTER EXTENSION mixdnn UPDATE" 2>&1)
code=$?
$PSQL -d postgres -c "ALTER ROLE mixdnn_launcher NOLOGIN" >/dev/null
got=$($PSQL -d mx_up_role -tA -c "SELECT extversion FROM pg_catalog.pg_extension WHERE extname = 'mixdnn'")
case "$code:$got:$out" in
[1-9]*:"$oldest":*"role mixdnn_launcher already exists and is not a plain group role"*)
	ok 0 "the update refuses a role of the extension's that can log in, and stays at $oldest" ;;
*) ok 1 "the update refuses a role of the extension's that can log in, and stays at $oldest"
	echo "$code $got $out" | tail -4 | sed 's/^/# /' ;;
esac
$PSQL -d mx_up_role -c "SET client_min_messages = error" -c "ALTER EXTENSION mixdnn UPDATE" >/dev/null 2>&1
ok $? "made a plain group role again, the update goes through"

# A user's view over one of the extension's functions that the update
# drops (0.1.0's claim(text)) stops the update (PostgreSQL records the
# dependency without asking for EXECUTE); tools/update_blockers.sql names
# it, and the update goes through once it is dropped. A fresh install lists
# nothing.
fresh_db mx_up_dep
$PSQL -d mx_up_dep -c "SET client_min_messages = error; CREATE EXTENSION mixdnn VERSION '$oldest'" \
	-c "CREATE SCHEMA mx_up_user" -c "CREATE VIEW mx_up_user.v AS SELECT * FROM mixdnn.claim('n1')" \
	-c "CREATE TABLE mx_up_user.t (j mixdnn.jobs)" >/dev/null 2>&1
blockers=$($PSQL -d mx_up_dep -tA -F' needs ' -f tools/update_blockers.sql 2>&1)
[ "$blockers" = "table mx_up_user.t needs type mixdnn.jobs
view mx_up_user.v needs function mixdnn.claim(text)" ]
ok $? "tools/update_blockers.sql names a user's view and table that need the extension's objects" || echo "$blockers" | sed 's/^/# /'
out=$($PSQL -d mx_up_dep -c "SET client_min_messages = error" -c "ALTER EXTENSION mixdnn UPDATE" 2>&1)
[ $? != 0 ] && case $out in *"view mx_up_user.v depends on function mixdnn.claim(text)"*) true ;; *) false ;; esac
ok $? "the update stops at the view, naming it" || echo "$out" | tail -3 | sed 's/^/# /'
$PSQL -d mx_up_dep -c "DROP VIEW mx_up_user.v" -c "SET client_min_messages = error" -c "ALTER EXTENSION mixdnn UPDATE" >/dev/null 2>&1
ok $? "with the view dropped, the update goes through (the table's column of type mixdnn.jobs stays)"
[ -z "$($PSQL -d mx_up_fresh -tA -f tools/update_blockers.sql 2>&1)" ]
ok $? "a fresh install has no blockers"

$PSQL -d postgres -c "DROP DATABASE mx_up_fresh" -c "DROP DATABASE mx_up_old" -c "DROP DATABASE mx_up_data" \
	-c "DROP DATABASE mx_up_long" -c "DROP DATABASE mx_up_model" -c "DROP DATABASE mx_up_inf" \
	-c "DROP DATABASE mx_up_inf2" -c "DROP DATABASE mx_up_role" -c "DROP DATABASE mx_up_dep" >/dev/null 2>&1
echo "1..$n"
echo "upgrade: $((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
