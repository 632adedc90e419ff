#!/usr/bin/env bash
# mixdnn.max_submissions_per_hour under concurrent submissions of one role
# (docs/design.md, "Submission budget"), in both plan modes: 8 sessions of
# the role each submit one job at a time and cancel it at once, 15 each,
# against a budget of 40 jobs an hour: exactly 40 are accepted (cancelled
# ones count), every other submission fails with 54000 and leaves nothing
# behind. The role's row of mixdnn.submitters serializes them, as it does
# for mixdnn.max_waiting_jobs (20_waiting_limit_concurrent.sh).
. "$(dirname "$0")/../lib.sh"

submitter() {	# submitter N: 15 one-row submissions, each cancelled, one line per result
	for i in $(seq 1 15); do
		if out=$(PGUSER=e2e_budget psql -X -q -A -t -v ON_ERROR_STOP=1 \
			-c "INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('bud-$1-$i', 'hard', 'v100', 1, '1h')" \
			-c "UPDATE mixdnn.jobs SET status = 'cancelled' WHERE name = 'bud-$1-$i'" 2>&1); then
			echo ok
		else
			case $out in *"would submit more than 40 jobs in an hour"*) echo budget ;; *) echo "error: $out" ;; esac
		fi
	done
}

for mode in commit worker; do
	reset_cluster
	q "DO \$\$BEGIN CREATE ROLE e2e_budget LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END\$\$" >/dev/null
	q "GRANT mixdnn_user TO e2e_budget" >/dev/null
	set_setting mixdnn.plan_mode "$mode"
	set_setting mixdnn.max_submissions_per_hour 40
	q "DELETE FROM mixdnn.jobs WHERE owner = 'e2e_budget'" >/dev/null
	for c in 1 2 3 4 5 6 7 8; do submitter "$c" >"$T/bud-$mode-$c.log" & done
	wait
	cat "$T"/bud-"$mode"-*.log >"$T/bud-all-$mode.log"
	is "$(grep -c '^ok$' "$T/bud-all-$mode.log")" 40 "$mode: exactly 40 of 120 concurrent submissions were accepted"
	is "$(grep -c '^budget$' "$T/bud-all-$mode.log")" 80 "$mode: the other 80 failed with the budget's message"
	is "$(q "SELECT count(*) || ' ' || count(*) FILTER (WHERE status = 'cancelled') FROM mixdnn.jobs WHERE owner = 'e2e_budget'")" "40 40" \
		"$mode: the role has 40 jobs, all cancelled"
	set_setting mixdnn.max_submissions_per_hour ''
done
set_setting mixdnn.plan_mode ''
done_testing
