#!/usr/bin/env bash
# Issue #9 items 2 and 3: nobody outside the scheduler can hold it up.
#  * An outsider (no mixdnn role) holding every advisory lock it can reach
#    with the scheduler's keys blocks no submission and no launcher call.
#  * A user's open transaction (the issue's own example, and one cancelling
#    its running job) blocks no heartbeat, claim or other user's submission.
#  * When the scheduler lock really is busy (an admin's open transaction on
#    the cluster), a submission still commits within mixdnn.lock_timeout, its
#    job pending with a reason, and the worker plans it afterwards; claim()
#    gives up with SQLSTATE 55P03 within the bound; heartbeat() never waits.
#  * Nor can an outsider keep a launcher from starting on its node.
#  * Nor can a user keep an admin from setting her job's node down.
# Every "returns within" bound below is far below the holders' 8 s.
. "$(dirname "$0")/../lib.sh"

launcher_q() {	# as the launcher role; errors to stdout with their SQLSTATE
	PGUSER=$E2E_LAUNCHER_ROLE psql -X -q -A -t -v ON_ERROR_STOP=1 -v VERBOSITY=verbose -c "$1" 2>&1
}

# timed OUTFILE CMD...: runs CMD, prints "STATUS MILLISECONDS"
timed() {
	local out=$1 t0 rc
	shift
	t0=$(date +%s%N)
	"$@" >"$out" 2>&1
	rc=$?
	echo "$rc $((($(date +%s%N) - t0) / 1000000))"
}

# sleeping ROLE: waits (5 s at most) until a session of ROLE sleeps in pg_sleep
sleeping() {
	wait_until 5 "[ \"\$(q \"SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep' AND usename = '$1'\")\" = 1 ]"
}

# hold ROLE SQL: runs SQL in a transaction that stays open 8 s; waits until it sleeps
hold() {
	PGUSER=$1 psql -X -q -c "BEGIN; $2; SELECT pg_sleep(8); COMMIT" >"$T/holder.log" 2>&1 &
	holder=$!
	sleeping "$1"
}

release() {
	q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE wait_event = 'PgSleep'" >/dev/null
	wait "$holder" 2>/dev/null
}

within() {	# within "STATUS MS" MAX_MS: 0 if it succeeded within MAX_MS
	local rc=${1% *} ms=${1#* }
	[ "$rc" -eq 0 ] && [ "$ms" -lt "$2" ]
}

reset_cluster
user_roles e2e_alice e2e_bob
login_roles e2e_outsider

bob_submits() {	# bob_submits NAME: a one-GPU v100 job of bob's
	PGUSER=e2e_bob psql -X -q -A -t -v ON_ERROR_STOP=1 \
		-c "INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration, command) VALUES ('$1', 'v100', 1, '1 hour', 'true')"
}
job_named() {
	q "SELECT $1 FROM mixdnn.jobs WHERE name = '$2'"
}

# Alice's job runs on n1 (claimed by hand: no launcher here).
PGUSER=e2e_alice q "INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command)
	VALUES ('a-run', 'hard', 'a100', 4, '1 hour', 'true')" >/dev/null
wait_until 10 "[ \"\$(job_named status a-run)\" = launching ]"
ok $? "(setup) alice's job is launched on one node"
node=$(q "SELECT node FROM mixdnn.job_parts WHERE job_id = (SELECT job_id FROM mixdnn.jobs WHERE name = 'a-run')")
is "$(launcher_q "SELECT count(*) FROM mixdnn.claim('$node')")" 1 "(setup) its launcher claimed it on $node"

# 1. An outsider takes the advisory locks with the scheduler's keys, both key spaces.
hold e2e_outsider "SELECT pg_advisory_xact_lock(x'4d495844'::int, x'4e4e3031'::int), pg_advisory_xact_lock(x'4d4958444e4e3031'::bigint)"
ok $? "an outsider holds the advisory locks with the scheduler's keys"
r=$(timed "$T/1b" launcher_q "SELECT mixdnn.heartbeat('$node')")
within "$r" 1500
ok $? "outsider: heartbeat returns at once ($r)"
r=$(timed "$T/1c" launcher_q "SELECT count(*) FROM mixdnn.claim('n3')")
within "$r" 1500
ok $? "outsider: claim (which takes the scheduler lock) returns at once ($r)"
r=$(timed "$T/1a" bob_submits b-1)
within "$r" 1500
ok $? "outsider: a user's submission commits at once ($r)"
is "$(job_named "status <> 'pending'" b-1)" t "outsider: ... and its round planned it at commit"
release

# 2. The issue's example: a user's write transaction left open.
hold e2e_alice "UPDATE mixdnn.jobs SET status = 'cancelled' WHERE false"
ok $? "a user leaves a transaction that wrote mixdnn.jobs open"
r=$(timed "$T/2a" launcher_q "SELECT mixdnn.heartbeat('$node')")
within "$r" 1500
ok $? "open user transaction: heartbeat returns at once ($r)"
is "$(cat "$T/2a")" 1 "open user transaction: ... and renews the one part"
r=$(timed "$T/2b" bob_submits b-2)
within "$r" 1500
ok $? "open user transaction: another user's submission commits at once ($r)"
is "$(job_named "status <> 'pending'" b-2)" t "open user transaction: ... and is planned at commit"
r=$(timed "$T/2c" launcher_q "SELECT count(*) FROM mixdnn.claim('n3')")
within "$r" 1500
ok $? "open user transaction: claim returns at once ($r)"
release

# 3. A user cancelling her running job holds its rows: the node's launcher
# calls skip them instead of waiting.
hold e2e_alice "UPDATE mixdnn.jobs SET status = 'cancelled' WHERE name = 'a-run'"
ok $? "a user's open transaction cancels her running job"
r=$(timed "$T/3a" launcher_q "SELECT mixdnn.heartbeat('$node')")
within "$r" 1500
ok $? "held job rows: heartbeat of its node returns at once ($r)"
r=$(timed "$T/3b" launcher_q "SELECT count(*) FROM mixdnn.claim('$node')")
within "$r" 1500
ok $? "held job rows: claim on its node returns at once ($r)"
# finish() waited for the row under the scheduler lock, holding every round
# and launcher call up for mixdnn.lock_timeout (2 s) at each retry
r=$(timed "$T/3c" launcher_q "SELECT mixdnn.finish($(job_named "job_id || ', 0, ''$node'', ' || attempt" a-run))")
[ "${r% *}" -ne 0 ] && [ "${r#* }" -lt 1500 ]
ok $? "held job rows: finish of the job gives up at once ($r)"
grep -q "55P03.*is locked by another transaction" "$T/3c"
ok $? "held job rows: ... with SQLSTATE 55P03, which its launcher retries" || diag "$(cat "$T/3c")"
release
is "$(job_named status a-run)" running "the terminated cancel changed nothing"

# 4. The scheduler lock really busy: an admin's open transaction on the cluster.
set_setting mixdnn.lock_timeout 500ms
hold postgres "UPDATE mixdnn.gpu_nodes SET status = 'up' WHERE node = 'n3'"
ok $? "an admin leaves a cluster change open (it holds the scheduler lock)"
r=$(timed "$T/4a" bob_submits b-3)
within "$r" 2000
ok $? "busy scheduler: a submission still commits within the bound ($r)"
is "$(job_named status b-3)" pending "busy scheduler: ... its job is pending"
is "$(job_named "reason LIKE 'the scheduler was busy at submission%'" b-3)" t "busy scheduler: ... with a reason"
grep -q "scheduler is busy" "$T/4a"
ok $? "busy scheduler: ... and the submitter was told"
r=$(timed "$T/4b" launcher_q "SELECT count(*) FROM mixdnn.claim('n3')")
[ "${r% *}" -ne 0 ] && [ "${r#* }" -lt 2000 ]
ok $? "busy scheduler: claim gives up within the bound ($r)"
grep -q "55P03" "$T/4b"
ok $? "busy scheduler: ... with SQLSTATE 55P03"
r=$(timed "$T/4c" launcher_q "SELECT mixdnn.heartbeat('$node')")
within "$r" 1500
ok $? "busy scheduler: heartbeat does not need it ($r)"
release
b3_planned() {
	[ "$(job_named "status <> 'pending'" b-3)" = t ]
}
wait_until 10 b3_planned
ok $? "busy scheduler: the worker plans the job once the admin is done"

# 5. A launcher whose finish() finds the scheduler busy keeps retrying (55P03
# is no error to give up on), so the job completes in its first attempt.
set_setting mixdnn.lock_timeout 200ms
start_launcher n2 --heartbeat-interval 0.5
c=$(submit c-1 hard a100 4 "$(job_cmd 2)" '1 min')
wait_until 10 "[ \"\$(status_of $c)\" = running ]"
ok $? "(setup) a two-second job runs on n2"
hold postgres "UPDATE mixdnn.gpu_nodes SET status = 'up' WHERE node = 'n3'"
ok $? "an admin holds the scheduler while the job ends"
sleep 4
release
wait_until 10 "[ \"\$(status_of $c)\" = completed ]"
ok $? "busy finish: the launcher reported the exit once the scheduler was free"
is "$(q "SELECT attempt FROM mixdnn.jobs WHERE job_id = $c")" 1 "busy finish: ... in the first attempt, nothing re-queued"
grep -q "SQLSTATE 55P03" "$T/launcher-n2.log"
ok $? "busy finish: ... after finish() had been refused with 55P03"
stop_launcher n2
set_setting mixdnn.lock_timeout ''

# 7. A change to the cluster holds the scheduler lock, so it waits for no
# user's row longer than mixdnn.lock_timeout either; and setting a node down
# does not wait for one at all: a job whose row its owner holds is left to
# the worker, which re-queues it once the row is free.
set_setting mixdnn.lock_timeout 500ms
launcher_q "SELECT mixdnn.heartbeat('$node')" >/dev/null	# a lease that ran out would re-queue it too
hold e2e_alice "UPDATE mixdnn.jobs SET status = 'cancelled' WHERE name = 'a-run'"
ok $? "a user's open transaction cancels her running job again"
r=$(timed "$T/7a" psql -X -q -v ON_ERROR_STOP=1 -v VERBOSITY=verbose -c "UPDATE mixdnn.gpu_nodes SET status = 'down' WHERE node = '$node'")
within "$r" 2000
ok $? "taking her node down succeeds within the bound, her row held ($r)"
is "$(q "SELECT status FROM mixdnn.gpu_nodes WHERE node = '$node'")" down "... the node is down"
grep -q "job $(job_named job_id a-run) is held by another transaction" "$T/7a"
ok $? "... and the admin is told which job waits for its row"
is "$(job_named status a-run)" running "... her job, its row held, is not re-queued yet"
release
wait_until 30 "[ \"\$(job_named status a-run)\" != running ]"
ok $? "the worker re-queues it once her transaction is gone"
is "$(q "SELECT e.reason FROM mixdnn.job_events e JOIN mixdnn.jobs j USING (job_id) WHERE j.name = 'a-run' AND e.old_status = 'running' AND e.new_status = 'planned'")" \
	"node $node went down; re-queued after attempt 1" "... with the reason the node's trigger gives"
is "$(q "SELECT count(*) FROM mixdnn.job_parts p JOIN mixdnn.jobs j USING (job_id) WHERE j.name = 'a-run' AND p.node = '$node' AND p.state IN ('launching', 'running')")" 0 \
	"... its part on the down node is no longer live"
q "UPDATE mixdnn.jobs SET status = 'cancelled' WHERE name = 'a-run'" >/dev/null
q "UPDATE mixdnn.gpu_nodes SET status = 'up' WHERE node = '$node'" >/dev/null
set_setting mixdnn.lock_timeout ''

# 6. An outsider holding the advisory lock launchers used to take per node
# cannot keep a launcher from starting; a second launcher is still refused.
hold e2e_outsider "SELECT pg_advisory_lock(hashtext('mixdnn-launcher'), hashtext('n3'))"
ok $? "an outsider holds the old per-node launcher lock of n3"
start_launcher n3
wait_until 10 "grep -q 'connected to database' '$T/launcher-n3.log'"
ok $? "outsider: the launcher of n3 starts all the same"
PGUSER=$E2E_LAUNCHER_ROLE timeout 10 "$MIXDNN_LAUNCHER" --node n3 --poll-interval 2 >"$T/second-n3.log" 2>&1 &
second=$!
wait_until 10 "grep -q 'another launcher serves node n3' '$T/second-n3.log'"
ok $? "a second launcher of n3 is still refused"
kill "$second" 2>/dev/null
wait "$second" 2>/dev/null
release

# 6b. An outsider's flood of NOTIFY mixdnn_launch (no privilege guards a
# channel) makes a launcher claim at most 20 times a second, not at every
# batch of notifications it reads: each claim takes the scheduler lock and
# writes the node's row (n_tup_upd; a backend reports its counts a second
# or more after it wrote them).
flood() {	# flood CHANNEL WHAT COUNTER: 3000 NOTIFY CHANNEL from an outsider; COUNTER's number grows 20 a second at most
	local n0 n1 t0 t1 bound
	sleep 4
	n0=$($3)
	t0=$(date +%s.%N)
	for i in $(seq 3000); do echo "NOTIFY $1;"; done | PGUSER=e2e_outsider psql -X -q >/dev/null
	t1=$(date +%s.%N)
	sleep 4
	n1=$($3)
	bound=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", (b - a) * 20 + 15 }')
	ok "$([ $((n1 - n0)) -le "$bound" ]; echo $?)" \
		"3000 notifications on $1 from an outsider: $((n1 - n0)) $2 (at most $bound)"
}
node_writes() {
	q "SELECT n_tup_upd FROM pg_stat_user_tables WHERE relid = 'mixdnn.gpu_nodes'::regclass" | tail -1
}
flood mixdnn_launch "node writes" node_writes
# 6c. Likewise NOTIFY mixdnn_cancel: at most 20 reconciliations a second,
# each a call of node_parts, counted in the server's log of statements
# (the statistics' function counts arrive late and in bursts).
if [ -n "${MIXDNN_E2E_PGDATA:-}" ]; then
	log=$(dirname "$MIXDNN_E2E_PGDATA")/server.log
	q "ALTER SYSTEM SET log_statement = 'all'" >/dev/null
	q "SELECT pg_reload_conf()" >/dev/null
	reconciliations() {
		grep -c 'FROM mixdnn\.node_parts(' "$log"
	}
	flood mixdnn_cancel "reconciliations" reconciliations
	q "ALTER SYSTEM RESET log_statement" >/dev/null
	q "SELECT pg_reload_conf()" >/dev/null
else
	skip 1 "MIXDNN_E2E_PGDATA is not set: cannot read the server log"
fi
stop_launcher n3

# 8. A user who fires the round trigger before commit (SET CONSTRAINTS ALL
# IMMEDIATE) and keeps the transaction open: her round waits for her
# commit, so she holds neither the scheduler lock nor the rows of other
# users' jobs a round re-plans while it stays open. Her round holding both
# until the transaction ended kept every claim and submission waiting.
# nobody_waits TAG: while alice sleeps, she holds no scheduler lock, and
# neither a claim nor bob's submission b-TAG waits for her
nobody_waits() {
	is "$(sched_locks_of e2e_alice)" 0 "$1: ... holding no scheduler lock"
	r=$(timed "$T/$1-claim" launcher_q "SELECT count(*) FROM mixdnn.claim('n3')")
	within "$r" 1500
	ok $? "$1: claim returns at once ($r)" || diag "$(cat "$T/$1-claim")"
	r=$(timed "$T/$1-bob" bob_submits "b-$1")
	within "$r" 1500
	ok $? "$1: another user's submission commits at once ($r)"
	is "$(job_named "status <> 'pending'" "b-$1")" t "$1: ... and is planned at commit"
}
imm_job="INSERT INTO mixdnn.jobs (name, gpu_type, gpus, priority, duration, command) VALUES"
PGUSER=e2e_alice psql -X -q -v ON_ERROR_STOP=1 -c "BEGIN; SET CONSTRAINTS ALL IMMEDIATE;
	$imm_job ('a-imm', 'v100', 1, 100, '1 hour', 'true'); SELECT pg_sleep(4); COMMIT" >"$T/8.log" 2>&1 &
holder=$!
sleeping e2e_alice
ok $? "a user submits under SET CONSTRAINTS ALL IMMEDIATE and keeps her transaction open"
nobody_waits immediate
wait "$holder"
ok $? "immediate: her transaction commits"
a_imm_planned() {
	[ "$(job_named "status <> 'pending'" a-imm)" = t ]
}
wait_until 10 a_imm_planned
ok $? "immediate: her job is planned at her commit"

# The same from inside a function (the round would fire at the end of a
# query run through SPI), in a single statement that takes its time.
PGUSER=e2e_alice psql -X -q -v ON_ERROR_STOP=1 -c "DO \$\$ BEGIN SET CONSTRAINTS ALL IMMEDIATE;
	$imm_job ('a-imm2', 'v100', 1, 100, '1 hour', 'true'); PERFORM pg_sleep(4); END \$\$" >"$T/8c.log" 2>&1 &
holder=$!
sleeping e2e_alice
ok $? "a user's DO block submits under SET CONSTRAINTS ALL IMMEDIATE, then sleeps"
is "$(sched_locks_of e2e_alice)" 0 "immediate, in a function: no scheduler lock held"
r=$(timed "$T/8d" launcher_q "SELECT count(*) FROM mixdnn.claim('n3')")
within "$r" 1500
ok $? "immediate, in a function: claim returns at once ($r)"
wait "$holder"
wait_until 10 "[ \"\$(job_named \"status <> 'pending'\" a-imm2)\" = t ]"
ok $? "immediate, in a function: planned at commit"

# 9. A prepared transaction would keep the scheduler lock past its session.
if [ "$(q "SHOW max_prepared_transactions")" -gt 0 ]; then
	PGUSER=e2e_alice psql -X -q -v VERBOSITY=verbose -c "BEGIN; $imm_job ('a-2pc', 'v100', 1, 0, '1 hour', 'true');
		PREPARE TRANSACTION 'mixdnn-e2e'" >"$T/9.log" 2>&1
	grep -q "0A000.*cannot PREPARE a transaction that changes what mixdnn schedules" "$T/9.log"
	ok $? "PREPARE TRANSACTION after a submission is refused (0A000)" || diag "$(cat "$T/9.log")"
	is "$(q "SELECT count(*) FROM pg_prepared_xacts")/$(job_named "count(*)" a-2pc)" 0/0 \
		"... and nothing is prepared or submitted"
else
	skip 2 "max_prepared_transactions is 0"
fi

# 10. What a user's transaction runs at commit after the round trigger has
# fired: her own deferred trigger, queued after it, and a WITH HOLD cursor,
# which PostgreSQL materializes after every deferred trigger. A round run
# in the trigger held the scheduler lock while they slept, so claims and
# other users' submissions waited (or failed with 55P03) behind them.
q "CREATE SCHEMA IF NOT EXISTS e2e_alice AUTHORIZATION e2e_alice" >/dev/null
PGUSER=e2e_alice psql -X -q -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
CREATE TABLE e2e_alice.audit (x int);
CREATE FUNCTION e2e_alice.slow() RETURNS trigger LANGUAGE plpgsql
	AS $$ BEGIN PERFORM pg_sleep(4); RETURN NULL; END $$;
CREATE CONSTRAINT TRIGGER slow AFTER INSERT ON e2e_alice.audit
	DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION e2e_alice.slow();
SQL
ok $? "(setup) alice has a table with a slow deferred trigger of her own"
at_commit() {	# at_commit TAG SQL: alice submits job a-TAG, then SQL runs before her COMMIT
	PGUSER=e2e_alice psql -X -q -v ON_ERROR_STOP=1 -c "BEGIN;
		$imm_job ('a-$1', 'v100', 1, 100, '1 hour', 'true'); $2; COMMIT" >"$T/10-$1.log" 2>&1 &
	holder=$!
	sleeping e2e_alice
	ok $? "$1: alice's commit runs her code after the round trigger fired"
	nobody_waits "$1"
	wait "$holder"
	ok $? "$1: her transaction commits" || diag "$(cat "$T/10-$1.log")"
	is "$(job_named "status <> 'pending'" "a-$1")" t "$1: her job is planned in her commit"
}
at_commit deferred "INSERT INTO e2e_alice.audit VALUES (1)"
at_commit cursor "DECLARE c CURSOR WITH HOLD FOR SELECT pg_sleep(4)"

# 11. A REPEATABLE READ transaction's snapshot predates what others
# committed since, bob's new job among them: a round on it would plan onto
# GPUs that job holds (both are hard: V100s only). Its round is the worker's, after its commit.
q "UPDATE mixdnn.jobs SET status = 'cancelled' WHERE status IN ('pending', 'planned')" >/dev/null
rr_job="INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, priority, duration, command) VALUES"
free_v100=$(q "SELECT sum(g.gpus) FROM mixdnn.gpu_nodes g WHERE g.gpu_type = 'v100' AND g.status = 'up'")
PGUSER=e2e_alice psql -X -q -v ON_ERROR_STOP=1 -c "BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM mixdnn.jobs;
	SELECT pg_sleep(4); $rr_job ('a-rr', 'hard', 'v100', $free_v100, 100, '1 hour', 'true'); COMMIT" >"$T/11.log" 2>&1 &
holder=$!
sleeping e2e_alice
ok $? "rr: alice's REPEATABLE READ transaction has its snapshot"
PGUSER=e2e_bob psql -X -q -A -t -v ON_ERROR_STOP=1 \
	-c "$rr_job ('b-rr', 'hard', 'v100', $free_v100, 0, '1 hour', 'true')" >/dev/null
is "$(job_named "status <> 'pending'" b-rr)" t "rr: bob's job, committed after her snapshot, takes every V100"
wait "$holder"
ok $? "rr: her transaction commits" || diag "$(cat "$T/11.log")"
is "$(job_named "status <> 'pending' OR reason LIKE 'the background worker plans it%'" a-rr)" t \
	"rr: ... her job planned, or pending with a reason, once committed"
wait_until 10 "[ \"\$(job_named \"status <> 'pending'\" a-rr)\" = t ]"
ok $? "rr: her job is planned after commit"
# every plan she ever had, against bob's plan of the same round (a later
# round's repair of an overlap would hide it in the jobs table)
r=$(q "SELECT count(*) FILTER (WHERE a.planned_start < b.planned_end AND b.planned_start < a.planned_end)
	|| '/' || count(*) FROM mixdnn.plan_history a CROSS JOIN LATERAL (
		SELECT * FROM mixdnn.plan_history b WHERE b.job_id = (SELECT job_id FROM mixdnn.jobs WHERE name = 'b-rr')
		AND b.round_id <= a.round_id ORDER BY b.round_id DESC LIMIT 1) b
	WHERE a.job_id = (SELECT job_id FROM mixdnn.jobs WHERE name = 'a-rr') AND a.planned_start IS NOT NULL")
is "${r%/*}" 0 "rr: ... never at the same time as bob's on his GPUs (overlapping plans/plans: $r)"
[ "${r%/*}" = 0 ] || diag "$(q "SELECT h.round_id, j.name, h.status, h.planned_start, h.planned_end FROM mixdnn.plan_history h
	JOIN mixdnn.jobs j USING (job_id) WHERE j.name IN ('a-rr', 'b-rr') ORDER BY h.round_id")"

# 12. A transaction that used temporary tables: after the pre-commit
# callback PostgreSQL empties its ON COMMIT DELETE ROWS tables, each by a
# scan of all the session's local buffers (a wait alice sizes with
# temp_buffers and the number of tables: a review held the scheduler lock
# 36 s so). Her round is the worker's, after her commit.
PGUSER=e2e_alice psql -X -q -v ON_ERROR_STOP=1 -c "SET client_min_messages = debug1" \
	-c "BEGIN; CREATE TEMP TABLE scratch (x int) ON COMMIT DELETE ROWS; INSERT INTO scratch VALUES (1);
	$rr_job ('a-tmp', 'hard', 'v100', 1, 0, '1 hour', 'true'); COMMIT" >"$T/12.log" 2>&1
ok $? "tmp: alice's transaction with a temporary table commits" || diag "$(tail -5 "$T/12.log")"
grep -q 'mixdnn: no round in this commit' "$T/12.log"
ok $? "tmp: ... with no round in her commit"
wait_until 10 "[ \"\$(job_named \"status <> 'pending'\" a-tmp)\" = t ]"
ok $? "tmp: her job is planned after commit"

# 13. An admin submits for alice while alice's own submission is open: the
# waiting-jobs limit counts alice's jobs under a row lock her transaction
# holds. The admin's statement waits mixdnn.lock_timeout (2 s) and fails
# with 55P03, not until her commit.
hold e2e_alice "$rr_job ('a-open', 'hard', 'v100', 1, 0, '1 hour', 'true')"
ok $? "limit: alice's submission stays open"
out=$(psql -X -q -v ON_ERROR_STOP=1 -v VERBOSITY=verbose -c "INSERT INTO mixdnn.jobs
	(owner, name, model_class, gpu_type, gpus, duration, command) VALUES ('e2e_alice', 'adm-a', 'hard', 'v100', 1, '1 hour', 'true')" 2>&1)
case $out in *55P03*) r=55P03 ;; *) r="other: $out" ;; esac
is "$r" 55P03 "limit: an admin's submission for her fails with 55P03"
is "$(q "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep' AND usename = 'e2e_alice'")" 1 \
	"limit: ... while her transaction is still open"
wait "$holder"
ok $? "limit: her transaction commits" || diag "$(cat "$T/holder.log")"
# Her own next submission, made under SET ROLE from another login (here a
# superuser's), is hers: it waits for her open one, as a role's own
# submissions must, and is accepted once that one commits.
hold e2e_alice "$rr_job ('a-open-2', 'hard', 'v100', 1, 0, '1 hour', 'true')"
ok $? "limit: alice's submission stays open again"
out=$(psql -X -q -v ON_ERROR_STOP=1 -c "SET ROLE e2e_alice" -c "$rr_job ('a-setrole', 'hard', 'v100', 1, 0, '1 hour', 'true')" 2>&1)
ok $? "limit: her own submission under SET ROLE waits for the open one and is accepted" || diag "$out"
wait "$holder"
ok $? "limit: the open one commits" || diag "$(cat "$T/holder.log")"

# 14. Large objects left open: PostgreSQL closes them after the pre-commit
# callback, in time that grows faster than their number (about 3 s for
# 100 000 here). Alice's commit closes them before its round, so while
# her COMMIT runs, the scheduler lock is hers only for the round: sampled
# during her commit, it is held in few of the samples (all of them before).
q "SELECT pg_catalog.lo_unlink(oid) FROM pg_catalog.pg_largeobject_metadata WHERE oid = 424242" >/dev/null
PGUSER=e2e_alice psql -X -q -v ON_ERROR_STOP=1 -c "BEGIN" \
	-c "SELECT pg_catalog.lo_create(424242)" \
	-c "SELECT count(pg_catalog.lo_open(424242, x'40000'::int)) FROM generate_series(1, 100000)" \
	-c "$rr_job ('a-lo', 'hard', 'v100', 1, 0, '1 hour', 'true')" -c "COMMIT" >"$T/14.log" 2>&1 &
holder=$!
samples=0
held=0
while kill -0 "$holder" 2>/dev/null; do
	s=$(q "SELECT count(*) FILTER (WHERE l.pid IS NOT NULL) || ' ' || count(*) FROM pg_stat_activity a
		LEFT JOIN pg_locks l ON l.pid = a.pid AND l.locktype = 'advisory' AND l.objsubid = 19800 AND l.granted
		WHERE a.usename = 'e2e_alice' AND a.state = 'active' AND a.query = 'COMMIT'")
	case $s in "1 1") held=$((held + 1)); samples=$((samples + 1)) ;; "0 1") samples=$((samples + 1)) ;; esac
done
wait "$holder"
ok $? "lo: alice's commit with 100 000 open large objects commits" || diag "$(tail -3 "$T/14.log")"
[ "$samples" -ge 5 ] && [ $((held * 4)) -le "$samples" ]
ok $? "lo: ... holding the scheduler lock in at most a quarter of the samples of her commit ($held of $samples)"
q "SELECT pg_catalog.lo_unlink(424242)" >/dev/null	# alice owns it: DROP ROLE below needs it gone

psql -X -q -c "SET mixdnn.force_drop = on" -c "DROP EXTENSION mixdnn CASCADE" >/dev/null
q "DROP SCHEMA e2e_alice CASCADE" >/dev/null 2>&1
q "DROP ROLE e2e_alice, e2e_bob, e2e_outsider" >/dev/null
done_testing
