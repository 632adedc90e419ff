# shellcheck shell=bash
# test/soak/faults.sh — the soak's launchers and its fault injector.
# Sourced by run.sh. Each fault is logged as "KIND START TARGET RECOVERY_S"
# in $SOAK_LOG/faults.log, RECOVERY_S being the time until the system was
# seen working again (what "working" means depends on the fault, below).

launcher_pid() {
	cat "$SOAK_WORK/launcher-$1.pid" 2>/dev/null
}

start_launcher() {	# start_launcher NODE
	# the soak's jobs are the superuser's: the postgres OS account, below the default --min-uid
	PGUSER=$SOAK_LAUNCHER_ROLE "$SOAK_ROOT/bin/mixdnn-launcher" --node "$1" --poll-interval 1 --kill-grace 1 --min-uid 1 \
		--state-dir "$SOAK_WORK/state-$1" >>"$SOAK_LOG/launcher-$1.log" 2>&1 &
	echo $! >"$SOAK_WORK/launcher-$1.pid"
	disown $!	# its SIGKILLs are the injector's: no "Killed" notices
}

alive() {
	kill -0 "$1" 2>/dev/null && ! ps -o stat= -p "$1" | grep -q '^Z'
}

# Whether process $1 is one of this soak's launchers or their keepers (a
# keeper is a fork of its launcher, so it keeps the launcher's command line
# and with it this soak's --state-dir). A pid from a log or pid file may
# belong to another process by now: the faults never signal one that is
# not ours (another test on the machine saw its job killed once).
ours() {
	[ -n "$1" ] && alive "$1" &&
		tr '\0' ' ' 2>/dev/null <"/proc/$1/cmdline" | grep -qF -- "--state-dir $SOAK_WORK/state-"
}

# What a service manager does (tools/packaging/ restarts the launcher): a dead
# launcher is started again a second later. Runs until $SOAK_WORK/stop.
launcher_keeper() {
	local node pid
	while [ ! -e "$SOAK_WORK/stop" ]; do
		for ((i = 1; i <= SOAK_NODES; i++)); do
			node=n$i
			pid=$(launcher_pid "$node")
			if [ -z "$pid" ] || ! kill -0 "$pid" 2>/dev/null; then
				[ -n "$pid" ] && echo "$(date +%s.%N) $node restarted" >>"$SOAK_LOG/launcher-restarts.log"
				start_launcher "$node"
			fi
		done
		sleep 1
	done
}

stop_launchers() {
	local i pid
	for ((i = 1; i <= SOAK_NODES; i++)); do
		pid=$(launcher_pid "n$i")
		[ -n "$pid" ] || continue
		kill -CONT "$pid" 2>/dev/null
		kill -TERM "$pid" 2>/dev/null
	done
	for ((i = 1; i <= SOAK_NODES; i++)); do
		pid=$(launcher_pid "n$i")
		[ -n "$pid" ] && wait_gone "$pid" 30
	done
}

wait_gone() {	# wait_gone PID SECONDS
	local deadline=$(($(date +%s) + $2))
	while alive "$1" && [ "$(date +%s)" -lt "$deadline" ]; do sleep 0.2; done
}

# wait_for SECONDS SQL T0: seconds (3 decimals) from epoch T0 until SQL
# returns t, or -1.
wait_for() {
	local t0=$3 deadline=$(($(date +%s) + $1))
	while [ "$(date +%s)" -lt "$deadline" ]; do
		if [ "$(timeout 5 psql -X -q -A -t -c "$2" 2>/dev/null)" = t ]; then
			awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }'
			return 0
		fi
		sleep 0.1
	done
	echo -1
}

WORKER_BACK="SELECT count(*) > 0 FROM pg_stat_activity WHERE backend_type = 'mixdnn launch worker'"

server_back() {	# EPOCH: recovery of the server: it answers and its launch worker runs again
	wait_for 120 "$WORKER_BACK" "$1"
}

heartbeat_after() {	# NODE EPOCH: recovery of a launcher: its node heartbeats again
	wait_for 60 "SELECT last_heartbeat > to_timestamp($2) FROM mixdnn.gpu_nodes WHERE node = '$1'" "$2"
}

fault_launcher_kill() {
	local node=n$((1 + RANDOM % SOAK_NODES)) t=$EPOCHREALTIME pid
	pid=$(launcher_pid "$node")
	ours "$pid" || return 1
	kill -KILL "$pid" 2>/dev/null || return 1
	echo "launcher_kill $t $node $(heartbeat_after "$node" "$t")"
}

fault_launcher_stop() {	# SIGSTOP past the lease, then SIGCONT
	local node=n$((1 + RANDOM % SOAK_NODES)) pid t
	pid=$(launcher_pid "$node")
	ours "$pid" || return 1
	t=$EPOCHREALTIME
	kill -STOP "$pid" 2>/dev/null || return 1
	sleep $((SOAK_LEASE + 2))
	kill -CONT "$pid"
	echo "launcher_stop $t $node $(heartbeat_after "$node" "$EPOCHREALTIME")"
}

fault_keeper_kill() {	# a running part's keeper; recovered when the part is no longer live
	local line job attempt keeper t
	line=$(grep -h 'started: keeper' "$SOAK_LOG"/launcher-n*.log 2>/dev/null |
		sed -n 's/.*job \([0-9]*\) attempt \([0-9]*\) started: keeper \([0-9]*\),.*/\1 \2 \3/p' |
		while read -r job attempt keeper; do
			ours "$keeper" && echo "$job $attempt $keeper"
		done | shuf -n 1)
	[ -n "$line" ] || return 1
	read -r job attempt keeper <<<"$line"
	t=$EPOCHREALTIME
	kill -KILL "$keeper" 2>/dev/null || return 1
	echo "keeper_kill $t j$job/a$attempt $(wait_for 60 "SELECT NOT EXISTS (SELECT FROM mixdnn.job_parts
		WHERE job_id = $job AND attempt = $attempt AND state IN ('launching', 'running'))" "$t")"
}

fault_worker_kill() {	# PostgreSQL resets every session: a crash
	local pid t
	pid=$(timeout 5 psql -X -A -t -c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'mixdnn launch worker' LIMIT 1")
	[ -n "$pid" ] || return 1
	t=$EPOCHREALTIME
	kill -KILL "$pid" || return 1
	sleep 0.5	# the crash reset has begun: the old worker is not taken for a new one
	echo "worker_kill $t $pid $(server_back "$t")"
}

fault_backend_kill() {	# a client's INSERT or UPDATE: in commit mode, its round
	local pid try t
	for ((try = 0; try < 50; try++)); do
		pid=$(timeout 5 psql -X -A -t -c "SELECT pid FROM pg_stat_activity
			WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() AND state = 'active'
			  AND query ~* '^\s*(insert into|update) mixdnn\.(jobs|gpu_nodes)' LIMIT 1")
		[ -n "$pid" ] && break
		sleep 0.05
	done
	[ -n "$pid" ] || return 1
	t=$EPOCHREALTIME
	kill -KILL "$pid" 2>/dev/null || return 1
	sleep 0.5
	echo "backend_kill $t $pid $(server_back "$t")"
}

fault_server_immediate() {
	local t=$EPOCHREALTIME
	as_postgres "$PG_BIN/pg_ctl" -D "$CLUSTER_DIR/data" -w -t 60 -m immediate stop >/dev/null 2>&1
	as_postgres "$PG_BIN/pg_ctl" -D "$CLUSTER_DIR/data" -l "$CLUSTER_DIR/server.log" -w -t 60 start >/dev/null 2>&1
	echo "server_immediate $t - $(server_back "$t")"
}

# MIXDNN_SOAK_FAULTS narrows them (a space-separated subset), e.g. to the
# faults that do not make PostgreSQL recover from a crash.
FAULT_KINDS=${MIXDNN_SOAK_FAULTS:-"launcher_kill keeper_kill worker_kill backend_kill server_immediate launcher_stop"}
for kind in $FAULT_KINDS; do
	declare -F "fault_$kind" >/dev/null || { echo "soak: unknown fault kind $kind" >&2; exit 2; }
done

# Every kind in turn, in a shuffled order per cycle, one every 5-10 s until
# $SOAK_FAULTS_END; a fault whose target is missing is tried again later.
injector() {
	local n=0 kind out
	sleep 5
	while [ "$(date +%s)" -lt "$SOAK_FAULTS_END" ] && [ "$n" -lt "$SOAK_MAX_REQUESTS" ]; do
		for kind in $(shuf -e $FAULT_KINDS); do
			[ "$(date +%s)" -lt "$SOAK_FAULTS_END" ] || break
			n=$((n + 1))
			if out=$("fault_$kind"); then
				echo "$out" >>"$SOAK_LOG/faults.log"
			else
				echo "$(date +%s.%N) $kind: no target" >>"$SOAK_LOG/faults-skipped.log"
			fi
			sleep $((5 + RANDOM % 6))
		done
	done
}
