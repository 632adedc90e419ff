# shellcheck shell=bash
# test/soak/clients.sh — the soak's load: submitters, a canceller, an admin
# draining, downing and re-adding nodes, the plan-mode phases and the purge.
# Sourced by run.sh; each loop runs in the background until $SOAK_END (epoch
# seconds) and at most $SOAK_MAX_REQUESTS requests, each bounded by timeout.

# sq SQL: one request; its errors (expected while the server restarts) go
# to the log, the status is the caller's.
sq() {
	timeout 20 psql -X -q -A -t -v ON_ERROR_STOP=1 -c "$1" 2>>"$SOAK_LOG/client-errors.log"
}

go_on() {	# the loops' condition: time and count
	[ "$(date +%s)" -lt "$SOAK_END" ] && [ "$1" -lt "$SOAK_MAX_REQUESTS" ] && [ ! -e "$SOAK_WORK/stop" ]
}

pause() {	# pause MIN_MS MAX_MS
	sleep "$(awk -v a="$1" -v b="$2" -v r="$RANDOM" 'BEGIN { printf "%.3f", (a + (b - a) * r / 32767) / 1000 }')"
}

# One row of a job: class, shape, estimate and behaviour drawn at random.
# The command's arguments say what it will do, the name repeats them so the
# checks can compare what the tables say with what was asked for.
job_row() {
	local r=$((RANDOM % 100)) class type gpus est real code=0 ignore=0
	case $((RANDOM % 10)) in
		0 | 1 | 2) class=hard type="'a100'" gpus=$((1 << (RANDOM % 3))) ;;
		3 | 4) class=hard type="'v100'" gpus=$((1 + RANDOM % 2)) ;;
		5) class=hard type="'a100'" gpus=$((5 + RANDOM % 4)) ;;	# spans two nodes
		*) class=soft type=NULL gpus=$((1 + RANDOM % 4)) ;;
	esac
	est=$((1 + RANDOM % 4))
	real=$(awk -v e="$est" -v r="$RANDOM" 'BEGIN { printf "%.2f", e * (0.4 + 0.6 * r / 32767) }')
	[ "$r" -lt 12 ] && real=$(awk -v e="$est" 'BEGIN { printf "%.2f", e * 2.5 }')	# overruns
	[ "$r" -ge 12 ] && [ "$r" -lt 24 ] && code=3				# fails
	[ "$r" -ge 24 ] && [ "$r" -lt 34 ] && ignore=1				# ignores SIGTERM
	printf "('soak c%s e%s', '%s', %s, %s, '%s s', 'bash %s/job.sh %s %s %s %s')" \
		"$code" "$ignore" "$class" "$type" "$gpus" "$est" "$SOAK_DIR" "$SOAK_OUT" "$real" "$code" "$ignore"
}

submitter() {	# submitter ID: single and multi-row submissions
	local n=0 rows k t0 t1 rc values
	while go_on "$n"; do
		n=$((n + 1))
		rows=1
		[ $((RANDOM % 3)) = 0 ] && rows=$((2 + RANDOM % 3))
		values=$(job_row)
		for ((k = 1; k < rows; k++)); do values="$values, $(job_row)"; done
		t0=$EPOCHREALTIME
		sq "INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command) VALUES $values" >/dev/null
		rc=$?
		t1=$EPOCHREALTIME
		echo "$t0 $t1 $rows $rc" >>"$SOAK_LOG/submit-$1.log"
		pause 1500 4000
	done
}

canceller() {	# cancels a waiting or a running job now and then
	local n=0 which
	while go_on "$n"; do
		n=$((n + 1))
		pause 2000 5000
		which="'pending', 'planned'"
		[ $((RANDOM % 2)) = 0 ] && which="'running'"
		sq "UPDATE mixdnn.jobs SET status = 'cancelled'
		    WHERE job_id = (SELECT job_id FROM mixdnn.jobs WHERE status IN ($which)
		                    ORDER BY random() LIMIT 1 FOR UPDATE SKIP LOCKED)
		    RETURNING job_id" >>"$SOAK_LOG/cancelled.log"
	done
}

admin() {	# one node at a time out of service: draining or down, then up again
	local n=0 node status
	while go_on "$n"; do
		n=$((n + 1))
		pause 4000 9000
		node=$(sq "SELECT node FROM mixdnn.gpu_nodes WHERE status <> 'up'" | head -1)
		if [ -n "$node" ]; then
			sq "UPDATE mixdnn.gpu_nodes SET status = 'up' WHERE node = '$node'" >/dev/null &&
				echo "$(date +%s.%N) $node up" >>"$SOAK_LOG/admin.log"
			continue
		fi
		node=n$((1 + RANDOM % SOAK_NODES))
		status=draining
		[ $((RANDOM % 2)) = 0 ] && status=down
		sq "UPDATE mixdnn.gpu_nodes SET status = '$status' WHERE node = '$node'" >/dev/null &&
			echo "$(date +%s.%N) $node $status" >>"$SOAK_LOG/admin.log"
	done
	sq "UPDATE mixdnn.gpu_nodes SET status = 'up' WHERE status <> 'up'" >/dev/null
}

phaser() {	# PHASE_SECONDS: plan_mode commit and worker in turn
	local n=0 mode=commit
	while go_on "$n"; do
		n=$((n + 1))
		sq "ALTER SYSTEM SET mixdnn.plan_mode = '$mode'" >/dev/null &&
			sq "SELECT pg_reload_conf()" >/dev/null &&
			echo "$(date +%s.%N) $mode" >>"$SOAK_LOG/phases.log"
		[ "$mode" = commit ] && mode=worker || mode=commit
		sleep "$1"
	done
}

purger() {	# retention on: what the worker does hourly, every 5 s, through the drain
	local n=0
	while [ ! -e "$SOAK_WORK/stop" ] && [ "$n" -lt "$SOAK_MAX_REQUESTS" ]; do
		n=$((n + 1))
		sleep 5
		sq "SELECT * FROM mixdnn.purge_history('$SOAK_RETENTION s')" >>"$SOAK_LOG/purge.log"
	done
}
