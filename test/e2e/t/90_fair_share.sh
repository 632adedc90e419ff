#!/usr/bin/env bash
# Fair share with real launchers (issue #15): alice (3 shares) and bob (1
# share) each submit 12 one-GPU jobs concurrently, one row at a time, while
# the only v100 node is draining; then it comes up with its launcher. While
# both have jobs waiting, the GPU time follows the shares: of the first 8
# launches, alice's entitlement of 0.75 is 6; the test accepts 5 to 7
# (0.625..0.875). Without fair share the concurrent submissions interleave
# and the split is about even. Then a quota: bob may hold 1 GPU, and with
# both GPUs free his second job waits with the quota as reason.
. "$(dirname "$0")/../lib.sh"

reset_cluster
for r in e2e_alice e2e_bob; do
	q "DO \$\$BEGIN CREATE ROLE $r LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END\$\$" >/dev/null
	q "GRANT mixdnn_user TO $r" >/dev/null
done
q "INSERT INTO mixdnn.shares VALUES ('e2e_alice', 3), ('e2e_bob', 1)" >/dev/null
set_setting mixdnn.fair_share on
set_setting mixdnn.fair_share_half_life 60
q "UPDATE mixdnn.gpu_nodes SET status = 'draining'" >/dev/null

submitter() {	# submitter ROLE: 12 one-row submissions
	local i
	for i in $(seq 1 12); do
		PGUSER=$1 psql -X -q -v ON_ERROR_STOP=1 -c "INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command)
			VALUES ('$1-$i', 'hard', 'v100', 1, '2 s', \$c\$$(job_cmd 1)\$c\$)" >>"$T/submit-$1.log" 2>&1 || echo fail
	done
}
submitter e2e_alice >"$T/fail-alice" &
submitter e2e_bob >"$T/fail-bob" &
wait
is "$(cat "$T/fail-alice" "$T/fail-bob" | wc -l)" 0 "two users submitted 12 jobs each, concurrently"

# Jobs run as their owner's OS account: both roles run as the account of
# the other tests' jobs (the test's own role), which may write $T/out.
os_user=$(q "SELECT current_user")
printf 'e2e_alice %s\ne2e_bob %s\n' "$os_user" "$os_user" >"$T/usermap"
start_launcher n3 --user-map "$T/usermap"
q "UPDATE mixdnn.gpu_nodes SET status = 'up' WHERE node = 'n3'" >/dev/null
wait_until 90 '[ "$(unfinished)" = 0 ]'
ok $? "all 24 jobs finished within 90 s"
first=$(q "SELECT count(*) FILTER (WHERE owner = 'e2e_alice') FROM (
             SELECT owner FROM mixdnn.jobs ORDER BY started_at, job_id LIMIT 8) f")
[ "$first" -ge 5 ] && [ "$first" -le 7 ]
ok $? "of the first 8 launches alice had $first, her 3:1 shares give 6 (accepted 5..7)"
split=$(q "SELECT round((sum(extract(epoch FROM least(p.finished_at, w.t) - p.claimed_at))
                   FILTER (WHERE j.owner = 'e2e_alice') / sum(extract(epoch FROM least(p.finished_at, w.t) - p.claimed_at)))::numeric, 2)
           FROM mixdnn.job_parts p JOIN mixdnn.jobs j USING (job_id),
                (SELECT min(last) AS t FROM (SELECT max(started_at) AS last FROM mixdnn.jobs GROUP BY owner) l) w
           WHERE p.claimed_at < w.t")
diag "alice's share of GPU time while both had jobs waiting: $split (entitlement 0.75)"
awk -v s="$split" 'BEGIN { exit !(s >= 0.6 && s <= 0.9) }'
ok $? "while both had jobs waiting, alice had $split of the GPU time (0.75 +- 0.15)"

# A quota: bob may hold 1 GPU of all types; n3 has 2 free.
q "INSERT INTO mixdnn.quotas (role, max_gpus) VALUES ('e2e_bob', 1)" >/dev/null
for i in 1 2; do
	PGUSER=e2e_bob q "INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command)
		VALUES ('quota-$i', 'hard', 'v100', 1, '2 s', \$c\$$(job_cmd 3)\$c\$)" >/dev/null
done
wait_until 20 '[ "$(q "SELECT count(*) FROM mixdnn.jobs WHERE name LIKE '"'"'quota-%'"'"' AND status IN ('"'"'launching'"'"', '"'"'running'"'"')")" = 1 ]'
ok $? "one of bob's two jobs runs"
is "$(q "SELECT reason FROM mixdnn.jobs WHERE name LIKE 'quota-%' AND status = 'pending'")" \
	"over quota: role e2e_bob holds 1 of the 1 GPUs (all types) its quota allows and needs 1" \
	"the other waits with the quota as reason, though a GPU is free"
wait_until 30 '[ "$(unfinished)" = 0 ]'
ok $? "it runs once the first has ended"

# An admin raises the quota: the waiting job starts at once, by the round
# the change runs at its commit (an admin's: the pre-commit path), not when
# the running job ends a minute later.
q "DO \$\$BEGIN CREATE ROLE e2e_admin LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END\$\$" >/dev/null
q "GRANT mixdnn_admin TO e2e_admin" >/dev/null
for i in 3 4; do
	PGUSER=e2e_bob q "INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command)
		VALUES ('quota-$i', 'hard', 'v100', 1, '60 s', \$c\$$(job_cmd 60)\$c\$)" >/dev/null
done
running_quota() { q "SELECT count(*) FROM mixdnn.jobs WHERE name IN ('quota-3', 'quota-4') AND status IN ('launching', 'running')"; }
wait_until 20 '[ "$(running_quota)" = 1 ]'
ok $? "with the quota at 1 GPU, one of bob's two one-minute jobs runs"
before=$(q "SELECT max(round_id) FROM mixdnn.rounds")
PGUSER=e2e_admin q "UPDATE mixdnn.quotas SET max_gpus = 2 WHERE role = 'e2e_bob'" >/dev/null
ok $? "an admin raises bob's quota to 2 GPUs"
wait_until 20 '[ "$(running_quota)" = 2 ]'
ok $? "the other starts at once, while the first still runs"
is "$(q "SELECT string_agg(DISTINCT event, ',') FROM mixdnn.rounds WHERE round_id > $before AND event LIKE '%quota%'")" \
	"quota" "a round with event quota planned it"
q "UPDATE mixdnn.jobs SET status = 'cancelled' WHERE name IN ('quota-3', 'quota-4')" >/dev/null
wait_until 30 '[ "$(unfinished)" = 0 ]'
ok $? "both are cancelled"
set_setting mixdnn.fair_share ''
set_setting mixdnn.fair_share_half_life ''
done_testing
