#!/usr/bin/env bash
# mixdnn.max_waiting_jobs under concurrent submissions of one role (issue #9
# item 7), in both plan modes (in worker mode submitters take no scheduler
# lock, so only the per-role row lock keeps the count exact):
# 1. a transaction that has submitted up to the limit and not committed
#    yet: a second submission of the role waits for it, then fails;
# 2. 8 sessions of the role submit one job at a time, 15 each, against a
#    limit of 40: exactly 40 are accepted, every other submission fails
#    with 54000 and leaves nothing behind.
. "$(dirname "$0")/../lib.sh"

submitter() {	# submitter N: 15 one-row submissions, one line per result
	for i in $(seq 1 15); do
		if out=$(PGUSER=e2e_limited psql -X -q -A -t -v ON_ERROR_STOP=1 \
			-c "INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('lim-$1-$i', 'hard', 'v100', 1, '1h')" 2>&1); then
			echo ok
		else
			case $out in *"would have more than 40 waiting jobs"*) echo limit ;; *) echo "error: $out" ;; esac
		fi
	done
}

for mode in commit worker; do
	reset_cluster
	q "DO \$\$BEGIN CREATE ROLE e2e_limited LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END\$\$" >/dev/null
	q "GRANT mixdnn_user TO e2e_limited" >/dev/null
	set_setting mixdnn.plan_mode "$mode"
	set_setting mixdnn.max_waiting_jobs 40
	# Hard v100 jobs can only run on n3; draining, it keeps every job waiting.
	q "UPDATE mixdnn.gpu_nodes SET status = 'draining' WHERE node = 'n3'" >/dev/null
	# 1. The first transaction sleeps after its INSERT, before its COMMIT.
	PGUSER=e2e_limited psql -X -q -v ON_ERROR_STOP=1 >"$T/open-$mode.log" 2>&1 <<-'SQL' &
		BEGIN;
		INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration)
			SELECT 'open-' || i, 'hard', 'v100', 1, '1h' FROM generate_series(1, 40) i;
		SELECT pg_sleep(4);
		COMMIT;
	SQL
	opener=$!
	wait_until 10 "[ \"\$(q \"SELECT count(*) FROM pg_stat_activity WHERE usename = 'e2e_limited' AND query LIKE 'SELECT pg_sleep%'\")\" = 1 ]"
	ok $? "$mode: (setup) a transaction of the role holds 40 uncommitted jobs"
	out=$(PGUSER=e2e_limited psql -X -q -A -t -v ON_ERROR_STOP=1 -v VERBOSITY=verbose \
		-c "INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('one-more', 'hard', 'v100', 1, '1h')" 2>&1)
	case $out in *54000*) r=54000 ;; *) r="accepted: $out" ;; esac
	is "$r" 54000 "$mode: a concurrent submission over the limit waits for the open one, then fails with 54000"
	wait "$opener"
	ok $? "$mode: the open transaction commits its 40 jobs"
	is "$(q "SELECT count(*) FROM mixdnn.jobs WHERE owner = 'e2e_limited'")" 40 "$mode: the role has 40 jobs, not 41"
	q "DELETE FROM mixdnn.jobs WHERE owner = 'e2e_limited'" >/dev/null

	# 2. Many sessions at once.
	for c in 1 2 3 4 5 6 7 8; do submitter "$c" >"$T/sub-$mode-$c.log" & done
	wait
	cat "$T"/sub-"$mode"-*.log >"$T/all-$mode.log"
	is "$(grep -c '^ok$' "$T/all-$mode.log")" 40 "$mode: exactly 40 of 120 concurrent submissions were accepted"
	is "$(grep -c '^limit$' "$T/all-$mode.log")" 80 "$mode: the other 80 failed with the limit's message"
	is "$(q "SELECT count(*) FROM mixdnn.jobs WHERE owner = 'e2e_limited'")" 40 "$mode: the role has 40 jobs"
	is "$(q "SELECT count(*) FROM mixdnn.job_events e JOIN mixdnn.jobs j USING (job_id) WHERE j.owner = 'e2e_limited' AND e.old_status IS NULL")" 40 \
		"$mode: rejected submissions left no history"
	set_setting mixdnn.max_waiting_jobs ''
done
set_setting mixdnn.plan_mode ''
done_testing
