#!/usr/bin/env bash
# Without --output-dir a part's stdout and stderr go through its keeper
# into the launcher's log (src/launcher/relay.c), never the launcher's own
# stderr: each line behind "job J attempt A rank R: ", control characters
# escaped, so that a job can neither write a line that reads as the
# launcher's nor cut short or overwrite the log file (before, it held the
# log's descriptor and could ftruncate it).
. "$(dirname "$0")/../lib.sh"

reset_cluster
cat >"$T/out/noisy.sh" <<'JOB'
out=$1
echo "plain line"
printf '2026-12-02T00:00:00.000Z mixdnn-launcher[1] n1: job 999 attempt 1 exited with code 0\rfake\033[2K\n'
fd1=$(readlink /proc/$$/fd/1) fd2=$(readlink /proc/$$/fd/2)
echo "$fd1" >"$out/fd1"
echo "$fd2" >"$out/fd2"
python3 -c 'import os; os.ftruncate(1, 0)' 2>"$out/trunc.err"
echo $? >"$out/trunc"
printf 'last, unfinished'
JOB
start_launcher n1
wait_until 10 "grep -q 'listening' '$T/launcher-n1.log'"
first=$(head -1 "$T/launcher-n1.log")
job=$(submit noisy hard a100 1 "sh $T/out/noisy.sh $T/out" '2 s')
# a name is logged too (when its part starts): a newline in it must not start a line either
named=$(q "INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command)
	VALUES (E'x\\n2026-12-02T00:00:00.000Z mixdnn-launcher[1] n1: job 998 attempt 1 exited with code 0', 'hard', 'a100', 1, '2 s', 'true')
	RETURNING job_id")
wait_until 20 "[ \"\$(status_of $job)/\$(status_of $named)\" = completed/completed ]"
ok $? "the job completes" || diag "status $(status_of "$job")"
wait_until 5 "grep -q 'n1: job $job attempt 1 exited' '$T/launcher-n1.log'"
log=$T/launcher-n1.log

grep -q "Z mixdnn-launcher\[[0-9]*\] n1: job $job attempt 1 rank 0 output: plain line\$" "$log"
ok $? "its output is in the log, each line behind the launcher's stamp and 'job $job attempt 1 rank 0 output: '"
! grep -q '^2026-12-02T00:00:00.000Z' "$log"
ok $? "a line it forges, in its output or its name, does not start a line of the log"
grep -qF "job $named attempt 1 started: " "$log" && grep -qF '(x\x0a2026-12-02T00:00:00.000Z mixdnn-launcher[1] n1: job 998' "$log"
ok $? "the name's newline is logged as \\x0a"
grep -qF "job $job attempt 1 rank 0 output: 2026-12-02T00:00:00.000Z mixdnn-launcher[1] n1: job 999 attempt 1 exited with code 0\\x0dfake\\x1b[2K" "$log"
ok $? "it is logged behind the prefix, the carriage return and the terminal escape as \\xNN"
! grep -q $'\r\|\033' "$log"
ok $? "no raw carriage return or escape reaches the log"
case "$(cat "$T/out/fd1") $(cat "$T/out/fd2")" in
"pipe:["*"] pipe:["*"]") ok 0 "the job's stdout and stderr are a pipe to its keeper" ;;
*) ok 1 "the job's stdout and stderr are a pipe to its keeper" || diag "$(cat "$T/out/fd1" "$T/out/fd2")" ;;
esac
[ "$(cat "$T/out/trunc")" != 0 ] && grep -q "Invalid argument" "$T/out/trunc.err" && [ "$(head -1 "$log")" = "$first" ]
ok $? "ftruncate() of its stdout fails (EINVAL: a pipe), and the log keeps its first line" || diag "trunc $(cat "$T/out/trunc"), head $(head -1 "$log")"
last=$(grep -n "job $job attempt 1 rank 0 output: last, unfinished\$" "$log" | cut -d: -f1)
ended=$(grep -n "n1: job $job attempt 1 exited with code 0" "$log" | cut -d: -f1)
[ -n "$last" ] && [ -n "$ended" ] && [ "$last" -lt "$ended" ]
ok $? "a last line without a newline is logged, before the launcher logs the part's end" || diag "lines '$last' '$ended'"

# A part that prints without end gets its budget (1 MiB per 30 s) and no more; it is not slowed.
size_before=$(stat -c %s "$log")
flood=$(submit flood hard a100 1 "head -c 19999980 /dev/zero | tr '\\0' x | fold -w 99" '2 s')
wait_until 30 "[ \"\$(status_of $flood)\" = completed ]"
ok $? "a job printing 20 MB at once completes" || diag "status $(status_of "$flood")"
wait_until 5 "grep -q 'n1: job $flood attempt 1 exited' '$log'"
grown=$(($(stat -c %s "$log") - size_before))
# 1 MiB of its output, each 100 bytes behind a stamp and prefix of about 95
[ "$grown" -lt $((3 * 1024 * 1024)) ]
ok $? "the log grew by less than 3 MB ($grown bytes)"
grep -q "job $flood attempt 1 rank 0 output: (over 1048576 bytes in 30 s: lines dropped until 30 s have passed)\$" "$log"
ok $? "a notice says its lines are dropped"
dropped=$(sed -n "s/.*job $flood attempt 1 rank 0 output: (\([0-9]*\) bytes not logged: over the part's output budget)\$/\1/p" "$log")
logged=$(grep -c "job $flood attempt 1 rank 0 output: xxx" "$log")
# 202,020 lines of 99 bytes and their newlines, but the last line has none: fold ends without one
is "$((dropped + logged * 100))" 20201999 "its last line counts the bytes dropped: with those logged, all of it, byte for byte ($logged lines logged)"
done_testing
