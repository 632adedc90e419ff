#!/usr/bin/env bash
# PostgreSQL adds a transaction's NOTIFYs to its queue at commit under one
# lock for the whole server, and any role of any database can hold that
# lock: here an outsider whose NOTIFY commit waits for a synchronous
# standby that never answers (a large NOTIFY holds it for seconds the same
# way). The scheduler's work must not wait for it: launches, submissions,
# cancels and launcher calls hold no NOTIFY, and the launchers' notices go
# out from the worker afterwards (src/pg/notices.c). Before, the worker's
# launch waited at commit with the scheduler lock held, for as long as the
# outsider held on: nothing launched and every submission came back busy.
. "$(dirname "$0")/../lib.sh"

reset_cluster
user_roles e2e_alice
login_roles e2e_outsider
echo "e2e_alice postgres" >"$T/usermap"	# as the tests' other jobs run
start_launcher n1 --user-map "$T/usermap"
wait_until 10 "grep -q 'connected to database' '$T/launcher-n1.log'"
ok $? "the launcher of n1 is connected"

alice() {	# alice SQL: as e2e_alice, with the notices she gets (a wait without end fails)
	PGUSER=e2e_alice timeout 20 psql -X -q -A -t -v ON_ERROR_STOP=1 -c "$1" 2>&1
}
ms_since() {
	echo $((($(date +%s%N) - $1) / 1000000))
}

# Only the outsider's session asks for the standby; everyone else commits locally.
release_outsider() {
	q "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE usename = 'e2e_outsider'" >/dev/null
	wait "$E2E_NOTIFY_HOLDER" 2>/dev/null
	ghost_standby off
}
trap release_outsider EXIT
ghost_standby on
hold_notify_lock e2e_outsider
ok $? "the outsider holds PostgreSQL's NOTIFY lock (its commit waits for a standby)"

t0=$(date +%s%N)
out=$(alice "INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command)
	VALUES ('during', 'hard', 'a100', 1, '30 s', \$c\$$(job_cmd 30)\$c\$) RETURNING job_id")
ms=$(ms_since "$t0")
j=$(tail -1 <<<"$out")
ok "$([ "$ms" -lt 5000 ] && ! grep -q busy <<<"$out"; echo $?)" \
	"a submission commits in $ms ms, without the busy notice"
like "$(status_of "$j")" '^(planned|launching|running)$' "its job is planned at once"
wait_until 30 "[ \"\$(status_of $j)\" = running ]"
ok $? "the worker launches it and the launcher runs it while the outsider holds on ($(status_of "$j"))"
wait_until 10 "[ -s '$T/out/$j-1-0.env' ]"
pid=$(sed -n 's/^PID=//p' "$T/out/$j-1-0.env")

t0=$(date +%s%N)
out=$(alice "UPDATE mixdnn.jobs SET status = 'cancelled' WHERE job_id = $j")
ms=$(ms_since "$t0")
ok "$([ "$ms" -lt 5000 ]; echo $?)" "alice cancels her running job in $ms ms ($out)"
wait_until 30 "! kill -0 $pid 2>/dev/null"
ok $? "the launcher stops its process (it learns of the cancel at its heartbeat)"
n=$(q "SELECT count(*) FROM mixdnn.notices")
ok "$([ "$n" -ge 1 ]; echo $?)" "the notices (launch, cancel) wait for the outsider ($n)"
# The worker's own attempts to send them wait at most mixdnn.lock_timeout
# each: it goes on launching meanwhile.
k=$(alice "INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command)
	VALUES ('second', 'hard', 'a100', 1, '1 s', \$c\$$(job_cmd 1)\$c\$) RETURNING job_id" | tail -1)
wait_until 30 "[ \"\$(status_of $k)\" = completed ]"
ok $? "a second job launches, runs and completes while the outsider still holds on ($(status_of "$k"))"
log=$(dirname "$MIXDNN_E2E_PGDATA")/server.log
wait_until 20 "grep -q 'notify step failed: canceling statement due to lock timeout' '$log'"
ok $? "the worker's notice delivery gives up at the lock timeout, and says so"

release_outsider
trap - EXIT
wait_until 20 "[ \"\$(q 'SELECT count(*) FROM mixdnn.notices')\" = 0 ]"
ok $? "once the outsider lets go, the worker sends the notices it kept"

# Without the outsider, a launch is announced at once: the launcher claims
# at the notice, not at its poll (every 2 s here; raised to 60 s).
stop_launcher n1
start_launcher n1 --user-map "$T/usermap" --poll-interval 60
wait_until 10 "[ \"\$(grep -c 'connected to database' '$T/launcher-n1.log')\" -ge 2 ]"
sleep 1
k=$(submit quick hard a100 1 "$(job_cmd 1)")
wait_until 10 "[ \"\$(status_of $k)\" = completed ]"
ok $? "with the notices flowing, a job is claimed at its notice and completes ($(status_of "$k"))"
done_testing
