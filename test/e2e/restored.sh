# test/e2e/restored.sh — the scenario of t/58_restored_job_ids.sh and
# t/60_tokenless_restored.sh, sourced after lib.sh and ops.sh: a base
# backup, two old jobs, the copy restored from the backup, new jobs of the
# same ids. RESTORED_TOKENLESS=1: old job a's keeper is made one of a
# launcher before launch tokens (its socket renamed to jJOB-aATTEMPT.sock
# while no launcher runs).
[ -n "${MIXDNN_E2E_PGDATA:-}" ] || skip_all "MIXDNN_E2E_PGDATA is not set: cannot stop the server"

reset_cluster
S2=$T/restored
mkdir -p "$S2" "$T/old" "$T/joblogs" && chmod 777 "$S2" && chmod 1777 "$T/old" && chmod 755 "$T/joblogs"
# -c fast: the default spread checkpoint took 30 s alone (44_failover)
as_postgres pg_basebackup -D "$S2/data" -h "$PGHOST" -p "$PGPORT" -U postgres -X stream -c fast >"$T/basebackup.log" 2>&1
ok $? "a base backup of the cluster before any job" || diag "$(cat "$T/basebackup.log")"
trap 'server2_stop; stop_all_launchers; server_ctl start 2>/dev/null' EXIT

dsn="host=$PGHOST,$S2 port=$PGPORT,$PGPORT dbname=$PGDATABASE target_session_attrs=read-write"
start_launcher n3 --dsn "$dsn" --output-dir "$T/joblogs"
start_launcher n1 --dsn "$dsn" --output-dir "$T/joblogs"
# the old jobs write their environment to $T/old: the new ones, of the same ids, to $T/out
a=$(submit old-a hard v100 1 "echo old job; sh $E2E_DIR/job.sh $T/old 600" '10 min')
b=$(submit old-b hard a100 1 "sh $E2E_DIR/job.sh $T/old 600" '10 min')
wait_until 20 "[ -f '$T/old/$a-1-0.env' ] && [ -f '$T/old/$b-1-0.env' ]"
ok $? "(setup) old job $a runs on n3 and old job $b on n1"
apid=$(sed -n 's/^PID=//p' "$T/old/$a-1-0.env")
bpid=$(sed -n 's/^PID=//p' "$T/old/$b-1-0.env")

# n3's launcher leaves its part for the next one; n1's stays, and reconnects
lpid=$(launcher_pid n3)
kill -USR2 "$lpid"
wait "$lpid"
rm -f "$T/launcher-n3.pid"
if [ "$RESTORED_TOKENLESS" = 1 ]; then
	# old job a's keeper becomes one of a launcher before tokens
	sock=$(ls "$T"/state-n3/*/j$a-a1-t*.sock 2>/dev/null)
	[ -S "$sock" ] && mv "$sock" "$(dirname "$sock")/j$a-a1.sock"
	ok $? "(setup) old job $a's keeper's socket is renamed to name no token"
fi
server_ctl stop -m fast
ok $? "(setup) the cluster stops"
server2_conf
server2_ctl start
ok $? "(setup) the copy restored from the backup starts, with the same system identifier"
export PGHOST=$S2
is "$(q "SELECT count(*) FROM mixdnn.jobs")" 0 "the restored copy knows neither job"
wait_until 20 '[ "$(workers_in $PGDATABASE)" = 1 ]'
ok $? "(setup) its launch worker runs"
q "UPDATE mixdnn.gpu_nodes SET status = 'down' WHERE node = 'n2'" >/dev/null	# the new job b goes to n1

# The restarted launcher: its predecessor's keeper of old job a is not the new job a.
new_a=$(submit new-a hard v100 1 "echo new job; $(job_cmd 3)" '3 s')
is "$new_a" "$a" "a new job takes the old one's id ($a), attempt 1, on n3"
wait_until 10 "[ \"\$(status_of $new_a)\" = launching ]"
ok $? "(setup) it is launching"
start_launcher n3 --dsn "$dsn" --output-dir "$T/joblogs"
wait_until 15 "grep -q 'adopted 1 running job parts' '$T/launcher-n3.log'"
ok $? "the next launcher of n3 adopts old job $a's keeper" || diag "$(tail -5 "$T/launcher-n3.log")"
wait_until 20 "! alive $apid"
ok $? "and stops it: the database does not list its launch"
wait_until 30 "[ \"\$(status_of $new_a)\" = completed ]"
ok $? "the new job $a runs and completes" || diag "$(q "SELECT status, exit_code, reason FROM mixdnn.jobs WHERE job_id = $new_a")"
is "$(q "SELECT attempt || ' ' || exit_code FROM mixdnn.jobs WHERE job_id = $new_a")" "1 0" \
	"in its first attempt, with its own exit code 0"
[ -f "$T/out/$new_a-1-0.env" ]
ok $? "its own command ran"
# each launch of job a attempt 1 on n3 has an output file of its own
logs=$(ls "$T"/joblogs/*-j$a-a1-n3-r0-t*.log 2>/dev/null | wc -l)
is "$logs" 2 "the new job's output file is not the forgotten launch's" || diag "$(ls -l "$T/joblogs")"
is "$(cat "$T"/joblogs/*-j$a-a1-n3-r0-t*.log 2>/dev/null | sort | tr '\n' ' ')" "new job old job " \
	"each holds its own launch's output once" || diag "$(head "$T"/joblogs/*)"
if [ "$RESTORED_TOKENLESS" = 1 ]; then
	# a report without a token would count for the new launch
	grep -q "job $a attempt 1: exit code 143 of a keeper of an earlier launcher version not reported" "$T/launcher-n3.log" &&
		! grep -q "job $a attempt 1: reported exit code 143" "$T/launcher-n3.log"
	ok $? "the old process's exit 143 was not reported: it names no launch" ||
		diag "$(grep "job $a attempt 1" "$T/launcher-n3.log" | tail -6)"
else
	grep -q "job $a attempt 1: reported exit code 143 (stale" "$T/launcher-n3.log"
	ok $? "the old process's exit 143 was reported and not counted" ||
		diag "$(grep "job $a attempt 1" "$T/launcher-n3.log" | tail -4)"
fi

# The launcher that stayed connected: the old part is stopped, its report not counted, not retried for ever.
wait_until 30 "! alive $bpid"
ok $? "n1's launcher, connected to the copy, stops old job $b's process" || diag "$(tail -5 "$T/launcher-n1.log")"
wait_until 20 "grep -q 'job $b attempt 1: reported exit code 143 (stale' '$T/launcher-n1.log'"
ok $? "... and its exit 143 is reported once and not counted (there is no job $b), not retried" ||
	diag "$(grep "job $b attempt 1" "$T/launcher-n1.log" | tail -4)"

new_b=$(submit new-b hard a100 1 "$(job_cmd 2)" '2 s')
is "$new_b" "$b" "a new job takes old job $b's id on n1"
wait_until 30 "[ \"\$(status_of $new_b)\" = completed ]"
ok $? "and completes" || diag "$(q "SELECT status, exit_code, reason FROM mixdnn.jobs WHERE job_id = $new_b")"
is "$(q "SELECT attempt || ' ' || exit_code FROM mixdnn.jobs WHERE job_id = $new_b")" "1 0" \
	"in its first attempt, exit code 0"
is "$(q "SELECT count(*) FROM mixdnn.job_events WHERE new_status = 'failed'")" 0 "no job of the copy failed"

stop_all_launchers
server2_stop
server_ctl start
done_testing
