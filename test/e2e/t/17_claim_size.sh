#!/usr/bin/env bash
# What one job costs its launcher to claim is bounded by the job's size, not
# by its size times its number of environment variables: the claim returns
# the command once per job and the variables in rows of their own (before,
# a join repeated the command in every variable's row, and a 1 MB command
# with 2,000 variables made a launcher read 1.9 GB and miss its heartbeats).
# A command over 64 kB is refused at INSERT (test/pgtap/30_job_env.sql).
. "$(dirname "$0")/../lib.sh"

reset_cluster
start_launcher n1
wait_until 10 "grep -q 'listening' '$T/launcher-n1.log'"
pid=$(launcher_pid n1)
before=$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status")

# the largest command and one of the largest envs a user may submit: 64 kB, 4,000 variables
job=$(q "INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command, env)
	SELECT 'big', 'hard', 'a100', 1, '2 s',
		   rpad('env | grep -c ''^BIG_'' > $T/out/big.count; : ', 65536, 'x'),
		   (SELECT jsonb_object_agg(format('BIG_%s', i), '') FROM generate_series(1, 4000) i)
	RETURNING job_id")
is "$(q "SELECT octet_length(command) FROM mixdnn.jobs WHERE job_id = $job")" 65536 "a job with a 64 kB command is accepted"
wait_until 20 "[ \"\$(status_of $job)\" = completed ]"
ok $? "it runs and completes" || diag "status $(status_of "$job")"
is "$(cat "$T/out/big.count" 2>/dev/null)" 4000 "with all 4,000 of its variables"
after=$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status")
# 4,000 copies of the command would be 256 MB; one is 64 kB
[ -n "$after" ] && [ $((after - before)) -lt 32768 ]
ok $? "the launcher's peak memory grew by less than 32 MB claiming it" || diag "VmHWM $before kB -> $after kB"
! grep -q "disconnected\|could not" "$T/launcher-n1.log"
ok $? "the launcher kept its connection" || diag "$(tail -5 "$T/launcher-n1.log")"
done_testing
