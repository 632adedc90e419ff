#!/usr/bin/env bash
# test/cli/run.sh — bin/mixdnn as two users would run it from a shell:
# submit, queue, why, when, cancel, history, top; tables and --json; exit
# codes. Runs against the server of PGHOST/PGPORT (PGUSER a superuser), as
# test/run_tests.sh starts it, in a database of its own, with two login
# roles it drops afterwards. Rounds run at commit on the real clock; the
# worker may launch the first job, so checks accept planned or launching.
# Prints TAP.
set -u
cd "$(dirname "$0")/../.." || exit 2
M=$PWD/bin/mixdnn
[ -x "$M" ] || { echo "cli: $M is not built (run make)" >&2; exit 2; }
SU=${PGUSER:-postgres}
DB=mixdnn_cli_$$
A=cli_alice_$$
B=cli_bob_$$
PSQL="psql -X -q -v ON_ERROR_STOP=1 -U $SU"
OUT=$(mktemp -d /tmp/mixdnn-cli.XXXXXX)
C=cli_carol_$$
cleanup() {
	$PSQL -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "DROP DATABASE IF EXISTS ${DB}_ascii" -c "DROP ROLE IF EXISTS $A" -c "DROP ROLE IF EXISTS $B" \
		-c "DROP ROLE IF EXISTS $C" >/dev/null 2>&1
	rm -rf "$OUT"
}
[ -n "${CLI_KEEP:-}" ] || trap cleanup EXIT
n=0
failed=0
ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}
# json FILE PYTHON-EXPRESSION-ON-d: exit 0 when it is true
json() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1"
}
as() {
	local who=$1
	shift
	PGUSER=$who PGDATABASE=$DB "$M" "$@"
}

# The extension first: it creates the roles mixdnn_user and the others.
$PSQL -d postgres -c "CREATE DATABASE $DB" >/dev/null || exit 2
$PSQL -d "$DB" -c "SET client_min_messages = warning" -c "CREATE EXTENSION mixdnn" \
	-c "CREATE ROLE $A LOGIN IN ROLE mixdnn_user" -c "CREATE ROLE $B LOGIN IN ROLE mixdnn_user" \
	-c "INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0)" \
	-c "INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n1', 'v100', 2)" || exit 2

as "$A" --json submit --name first --class hard --gpu-type v100 --gpus 2 --duration '1 hour' >"$OUT/s1" 2>"$OUT/e"
ok $? "submit prints the new job"
json "$OUT/s1" "len(d) == 1 and d[0]['status'] in ('planned', 'launching') and d[0]['planned_gpus'] == 2"
ok $? "... as JSON: its id and its plan (2 v100 GPUs)"
J1=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[0]['job_id'])" "$OUT/s1")
echo '{"name": "second", "model_class": "hard", "gpu_type": "v100", "gpus": 2, "duration": "2 hours"}' >"$OUT/job.json"
as "$A" --json submit --file "$OUT/job.json" --name secret-second >"$OUT/s2"
ok $? "submit from a JSON job file, an option overriding the file"
json "$OUT/s2" "d[0]['status'] == 'planned' and d[0]['reason'].startswith('waiting for 2 v100 GPUs')"
ok $? "... it waits for the first job's GPUs, and says so"
J2=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[0]['job_id'])" "$OUT/s2")
[ "$($PSQL -d "$DB" -Atc "SELECT name FROM mixdnn.jobs WHERE job_id = $J2")" = secret-second ]
ok $? "... named by the option"

as "$A" queue >"$OUT/q"
ok $? "queue"
grep -q "^position" "$OUT/q" && grep -q "secret-second" "$OUT/q"
ok $? "... a table with a header and alice's job names"
as "$B" --json queue --all >"$OUT/qb"
json "$OUT/qb" "len(d) == 2 and all(r['name'] is None and r['owner'] == '$A' for r in d) and [r['position'] for r in d if r['job_id'] == $J2] == [max(r['position'] or 0 for r in d)]"
ok $? "bob's queue --all: alice's two jobs without their names; the later one last"
as "$B" --json queue >"$OUT/qb2"
json "$OUT/qb2" "d == []"
ok $? "bob's own queue is empty"

as "$A" --json why "$J2" >"$OUT/w"
ok $? "why"
json "$OUT/w" "sum(r['chosen'] for r in d) == 1 and d[0]['gpu_type'] == 'v100'"
ok $? "... one chosen configuration"
as "$B" why "$J2" 2>"$OUT/e"
[ $? = 3 ] && grep -q "does not exist or is not yours" "$OUT/e"
ok $? "bob cannot ask why about alice's job: exit 3"
as "$A" why nine 2>/dev/null
[ $? = 2 ]
ok $? "why with a bad id: exit 2"
for id in -1 -12; do
	as "$A" why "$id" 2>"$OUT/e"
	[ $? = 2 ] && grep -qx -- "mixdnn: \"$id\" is not a job id" "$OUT/e"
	ok $? "why $id: not a job id (it was read as an unknown option), exit 2" || sed 's/^/# /' "$OUT/e"
done
# the element getopt refused, not a neighbour: -1 before -10, and the
# first byte of a UTF-8 character (a negative optopt) in "-é"
as "$A" why -1 -10 2>"$OUT/e"
[ $? = 2 ] && grep -qx -- 'mixdnn: "-1" is not a job id' "$OUT/e"
ok $? "why -1 -10: the first refused, exit 2" || sed 's/^/# /' "$OUT/e"
as "$A" queue -é 2>"$OUT/e"
[ $? = 2 ] && grep -qx -- 'mixdnn: unknown or ambiguous option "-é"' "$OUT/e"
ok $? "queue -é: named as typed, not the command before it, exit 2" || sed 's/^/# /' "$OUT/e"
as "$A" history -5 2>"$OUT/e"
[ $? = 2 ] && grep -qx -- 'mixdnn: "-5" is not an option' "$OUT/e"
ok $? "history -5: not an option (history takes no job id), exit 2" || sed 's/^/# /' "$OUT/e"
as "$A" queue --limit 2>"$OUT/e"
[ $? = 2 ] && grep -qx -- "mixdnn: --limit needs a value" "$OUT/e"
ok $? "an option without its value says so, exit 2" || sed 's/^/# /' "$OUT/e"
as "$A" queue --json=yes 2>"$OUT/e"
[ $? = 2 ] && grep -qx -- "mixdnn: --json takes no value" "$OUT/e"
ok $? "a value given to a flag: exit 2, said so" || sed 's/^/# /' "$OUT/e"

as "$B" --json when --class hard --gpu-type v100 --gpus 1 --duration '10 min' >"$OUT/when"
ok $? "when"
json "$OUT/when" "len(d) == 1 and d[0]['planned_gpus'] == 1 and d[0]['planned_start'] is not None"
ok $? "... when and on what it would run"
[ "$($PSQL -d "$DB" -Atc "SELECT count(*) FROM mixdnn.jobs")" = 2 ]
ok $? "... and nothing was submitted"

as "$A" submit --name bad --gpus 0 --duration 1h 2>"$OUT/e"
[ $? = 1 ] && grep -q "gpus must be between 1 and 4096" "$OUT/e" && ! grep -q '^CONTEXT' "$OUT/e"
ok $? "a submission the server refuses: exit 1 and its message, without the server's CONTEXT lines" || cat "$OUT/e"
as "$A" queue --all --user "$B" 2>/dev/null
[ $? = 2 ]
ok $? "--all with --user: exit 2"
as "$A" cancel 9223372036854775807 2>/dev/null
[ $? = 3 ]
ok $? "the largest bigint is a job id (not found: exit 3)"
as "$A" submit --name bad --gpus 1 --duration 1h --frob 2>"$OUT/e"
[ $? = 2 ] && grep -qx -- 'mixdnn: unknown or ambiguous option "--frob"' "$OUT/e"
ok $? "an unknown option: exit 2"
# An argument or option the command does not take is refused, not ignored:
# an unquoted "--duration 2 hours python train.py" submitted a 2-second job
# without a command (exit 0).
as "$A" submit --name unquoted --gpus 1 --duration 2 hours python train.py 2>"$OUT/e"
[ $? = 2 ] && grep -qx 'mixdnn: submit takes no argument, not "hours" (quote an option'"'"'s value that has spaces)' "$OUT/e" &&
	[ "$($PSQL -d "$DB" -Atc "SELECT count(*) FROM mixdnn.jobs WHERE name = 'unquoted'")" = 0 ]
ok $? "submit with a stray argument (an unquoted duration): exit 2, nothing submitted" || sed 's/^/# /' "$OUT/e"
for cmdline in "queue mine" "history 5" "when --gpus 1 --duration 1h x" "top --iterations 1 x"; do
	as "$A" $cmdline >/dev/null 2>"$OUT/e"
	[ $? = 2 ] && grep -q "takes no argument" "$OUT/e"
	ok $? "$cmdline: a stray argument, exit 2"
done
for cmdline in "cancel $J2 --all" "why $J2 --user $B" "submit --name lim --gpus 1 --duration 1h --limit 3" "queue --limit 3" \
	"history --interval 5" "top --iterations 1 --all"; do
	as "$A" $cmdline >/dev/null 2>"$OUT/e"
	[ $? = 2 ] && grep -q "is not an option of" "$OUT/e"
	ok $? "$cmdline: an option the command does not take, exit 2"
done
[ "$($PSQL -d "$DB" -Atc "SELECT count(*) FROM mixdnn.jobs WHERE name = 'lim' OR (job_id = $J2 AND status = 'cancelled')")" = 0 ]
ok $? "... and none of them submitted or cancelled anything"
as "$A" submit --name notanumber --gpus abc --duration 1h 2>"$OUT/e"
[ $? = 2 ] && grep -q -- '--gpus must be a whole number' "$OUT/e" &&
	[ "$($PSQL -d "$DB" -Atc "SELECT count(*) FROM mixdnn.jobs WHERE name = 'notanumber'")" = 0 ]
ok $? "a GPU count that is no number: exit 2 (the command line's fault), nothing submitted"
as "$A" submit --name bigprio --gpus 1 --duration 1h --priority 2147483648 2>"$OUT/e"
[ $? = 2 ] && grep -qx -- 'mixdnn: --priority must be a whole number from -2147483648 to 2147483647, not "2147483648"' "$OUT/e"
ok $? "a priority beyond an int: exit 2, the message gives the range (it said it was no whole number)" || sed 's/^/# /' "$OUT/e"
echo '{"name": "x", "gpus": 1, "duration": "1h", "colour": "red"}' >"$OUT/bad.json"
as "$A" submit --file "$OUT/bad.json" 2>"$OUT/e"
[ $? = 2 ] && grep -q "unknown job field(s): colour" "$OUT/e"
ok $? "a job file with an unknown field: exit 2"
echo '[1]' >"$OUT/arr.json"
as "$A" submit --file "$OUT/arr.json" 2>/dev/null
[ $? = 2 ]
ok $? "a job file that is not an object: exit 2"
# A column given a JSON object, array or boolean is refused: its text was
# cast, and PostgreSQL reads the interval '{"hours": 2}' as 2 seconds.
echo '{"name": "objdur", "gpus": 1, "duration": {"hours": 2}}' >"$OUT/objdur.json"
as "$A" submit --file "$OUT/objdur.json" 2>"$OUT/e"
[ $? = 2 ] && grep -qx 'mixdnn: duration in the job file must be a JSON string or number, not {"hours": 2}' "$OUT/e" &&
	[ "$($PSQL -d "$DB" -Atc "SELECT count(*) FROM mixdnn.jobs WHERE name = 'objdur'")" = 0 ]
ok $? "a duration that is a JSON object: exit 2, nothing submitted (it was a job of 2 seconds)" || sed 's/^/# /' "$OUT/e"
echo '{"name": ["arr"], "gpus": 1, "duration": "1h", "allowed_types": "v100"}' >"$OUT/kinds.json"
as "$A" when --file "$OUT/kinds.json" >/dev/null 2>"$OUT/e"
[ $? = 2 ] && grep -qx 'mixdnn: allowed_types in the job file must be a JSON array of GPU types, not "v100"' "$OUT/e"
ok $? "allowed_types that is no array, a name that is one: exit 2, the first by name" || sed 's/^/# /' "$OUT/e"
echo '{"name": "kinds", "gpus": 1, "duration": 3600, "allowed_types": ["v100"], "env": {"A": "b"}, "model": null}' >"$OUT/kinds.json"
as "$A" --json when --file "$OUT/kinds.json" >"$OUT/w2" 2>"$OUT/e"
ok $? "strings, a number (duration in seconds), an array, an object for env and null pass" || sed 's/^/# /' "$OUT/e"
# when refuses what submit would of the same file: the launcher's own
# variables in env, a relative workdir, a command over 64 kB (it answered
# with a start, and the submission then failed), and submits nothing.
for bad in '"env": {"RANK": "3"}' '"env": {"A": 1}' '"workdir": "rel/dir"' "\"command\": \"$(head -c 65537 /dev/zero | tr '\0' x)\""; do
	echo "{\"name\": \"whenbad\", \"gpus\": 1, \"duration\": \"1h\", $bad}" >"$OUT/whenbad.json"
	as "$A" submit --file "$OUT/whenbad.json" >/dev/null 2>"$OUT/es"; src=$?
	as "$A" when --file "$OUT/whenbad.json" >"$OUT/w3" 2>"$OUT/e"; wrc=$?
	[ $src = 1 ] && [ $wrc = 1 ] && [ ! -s "$OUT/w3" ] && [ -s "$OUT/e" ] && cmp -s "$OUT/e" "$OUT/es" &&
		[ "$($PSQL -d "$DB" -Atc "SELECT count(*) FROM mixdnn.jobs WHERE name = 'whenbad'")" = 0 ]
	ok $? "when with ${bad:0:24}: submit's error and exit 1, no answer" || sed 's/^/# /' "$OUT/e" "$OUT/es"
done
# A job file's counts and priority: whole numbers, as their options are
# (the server's cast error was exit 1), checked before anything is submitted.
file_number() {	# FIELD VALUE MESSAGE-TAIL [COMMAND]
	echo "{\"name\": \"filenum\", \"gpus\": 1, \"duration\": \"1h\", \"$1\": $2}" >"$OUT/num.json"
	as "$A" "${4:-submit}" --file "$OUT/num.json" 2>"$OUT/e" >/dev/null
	[ $? = 2 ] && grep -qx -- "mixdnn: $1 in the job file must be a whole number from -2147483648 to 2147483647, not $3" "$OUT/e" &&
		[ "$($PSQL -d "$DB" -Atc "SELECT count(*) FROM mixdnn.jobs WHERE name = 'filenum'")" = 0 ] ||
		{ sed 's/^/# /' "$OUT/e"; false; }
}
file_number gpus 2.5 2.5
ok $? "a job file's gpus of 2.5: exit 2 with the option's message, nothing submitted"
file_number priority '"high"' '"high"'
ok $? "... a priority that is a string of no number"
file_number min_gpus 1e10 10000000000
ok $? "... a min_gpus beyond an int"
file_number max_gpus true true
ok $? "... a max_gpus that is a boolean"
file_number priority "\"$(printf '9%.0s' $(seq 200))\"" "\"$(printf '9%.0s' $(seq 39))\\.\\.\\."
ok $? "... a priority of 200 digits, quoted up to 40 characters"
file_number gpus 1e131071 "1$(printf '0%.0s' $(seq 39))\\.\\.\\."
ok $? "... a gpus of 131 072 digits, quoted up to 40 characters (it printed them all)"
file_number gpus '"\u20031"' '" 1"'
ok $? "... a gpus after a Unicode space, which the server's cast refuses (it gave the server's error)"
file_number gpus 2.0 2.0 when
ok $? "... and for when too (2.0 is no whole number to the server either)"
echo '{"name": "filenum", "gpus": "v5", "duration": "1h"}' >"$OUT/num.json"
PGOPTIONS='-c standard_conforming_strings=off' as "$A" when --file "$OUT/num.json" >/dev/null 2>"$OUT/e"
[ $? = 2 ] && grep -qx 'mixdnn: gpus in the job file must be a whole number from -2147483648 to 2147483647, not "v5"' "$OUT/e"
ok $? "... also with standard_conforming_strings off (its escapes read \\v as v: the server's cast error)" || sed 's/^/# /' "$OUT/e"
echo '{"name": "filenum-ok", "gpus": "1", "priority": -5, "min_gpus": null, "duration": "1h"}' >"$OUT/num.json"
PGOPTIONS='-c standard_conforming_strings=off' as "$A" when --file "$OUT/num.json" >/dev/null 2>"$OUT/e" && [ ! -s "$OUT/e" ]
ok $? "a job file's whole numbers, as a string or null too, pass, without a warning with standard_conforming_strings off" || sed 's/^/# /' "$OUT/e"
as "$A" queue --name x 2>/dev/null
[ $? = 2 ]
ok $? "job options on another command: exit 2"

as "$B" cancel "$J2" 2>/dev/null
[ $? = 3 ] && [ "$($PSQL -d "$DB" -Atc "SELECT status FROM mixdnn.jobs WHERE job_id = $J2")" = planned ]
ok $? "bob cannot cancel alice's job: exit 3, nothing changed"
before=$($PSQL -d "$DB" -Atc "SELECT status FROM mixdnn.jobs WHERE job_id = $J2")
as "$A" cancel "$J2" abc 2>/dev/null
[ $? = 2 ] && [ "$($PSQL -d "$DB" -Atc "SELECT status FROM mixdnn.jobs WHERE job_id = $J2")" = "$before" ]
ok $? "a bad id among good ones: exit 2, nothing cancelled"
as "$A" --json cancel "$J2" >"$OUT/c"
ok $? "alice cancels it"
json "$OUT/c" "d == [{'job_id': $J2, 'status': 'cancelled'}]"
ok $? "... and sees it cancelled"
as "$A" --json history >"$OUT/h"
json "$OUT/h" "[r['job_id'] for r in d] == [$J2] and d[0]['status'] == 'cancelled' and 'jct' in d[0] and 'estimate_error' in d[0]"
ok $? "history lists the finished job with wait, JCT and estimate error"
# A job whose launch was lost (re-queued, its part lost a minute after its
# launch) and that was then cancelled while waiting again, written as the
# scheduler leaves it: started_at is its lost launch's. It ran one
# minute, not the 19 minutes to its cancel.
J4=$($PSQL -d "$DB" -Atc "SET session_replication_role = replica;
	INSERT INTO mixdnn.jobs (name, owner, model_class, gpu_type, gpus, duration, status, attempt,
		submitted_at, started_at, finished_at)
	VALUES ('requeued', '$A', 'hard', 'v100', 1, '1 hour', 'cancelled', 1, now() - interval '30 min',
		now() - interval '29 min', now() - interval '10 min') RETURNING job_id")
$PSQL -d "$DB" -c "SET session_replication_role = replica" -c "INSERT INTO mixdnn.job_parts
	(job_id, attempt, node, node_rank, gpus, state, finished_at, gpu_type)
	VALUES ($J4, 1, 'n1', 0, 1, 'lost', now() - interval '28 min', 'v100')" >/dev/null
as "$A" --json history >"$OUT/h"
json "$OUT/h" "[(r['job_id'], r['run_time'], r['wait'], r['jct']) for r in d if r['job_id'] == $J4] == [($J4, '00:01:00', '00:01:00', '00:20:00')]"
ok $? "history: a job cancelled after its launch was lost ran until its part was lost, not until the cancel" || cat "$OUT/h"

as "$B" --json top --iterations 1 >"$OUT/t"
ok $? "top --iterations 1"
json "$OUT/t" "set(d) == {'gpus', 'jobs', 'queue'} and d['gpus'][0]['gpu_type'] == 'v100' and d['gpus'][0]['up'] == 2"
ok $? "... as one JSON object: GPUs per type, jobs per status, the queue"
# a node whose launcher is gone takes no jobs: its GPUs are not "up"
$PSQL -d "$DB" -c "UPDATE mixdnn.gpu_nodes SET unreachable_since = now() WHERE node = 'n1'" >/dev/null
as "$B" --json top --iterations 1 >"$OUT/t"
json "$OUT/t" "[(r['up'], r['not_up']) for r in d['gpus'] if r['gpu_type'] == 'v100'] == [(None, 2)]"
ok $? "top: an unreachable node's GPUs are not up" || cat "$OUT/t"
$PSQL -d "$DB" -c "UPDATE mixdnn.gpu_nodes SET unreachable_since = NULL WHERE node = 'n1'" >/dev/null
# a role that may read the nodes but not the queue: top's third query fails
$PSQL -d "$DB" -c "CREATE ROLE $C LOGIN" -c "GRANT USAGE ON SCHEMA mixdnn TO $C" \
	-c "GRANT SELECT ON mixdnn.gpu_nodes, mixdnn.gpu_holds TO $C" >/dev/null
as "$C" --json top --iterations 1 >"$OUT/tc" 2>/dev/null
[ $? = 1 ] && [ ! -s "$OUT/tc" ]
ok $? "top whose query fails mid-refresh: exit 1, nothing half-printed" || cat "$OUT/tc"

# A job name that would drive the reader's terminal: escape sequences (clear
# the screen, set the title) and a newline that forges a row. Printed raw
# before, to every admin's queue --all, top and history.
as "$A" submit --name "$(printf 'x\033]0;pwned\007\033[2J\302\233\nposition job_id owner')" \
	--class hard --gpu-type v100 --gpus 1 --duration '1 hour' >/dev/null
ok $? "a job whose name holds control characters is accepted"
as "$A" queue >"$OUT/qe"
! LC_ALL=C grep -q "$(printf '[\033\007\302]')" "$OUT/qe" && [ "$(wc -l <"$OUT/qe")" = 3 ] &&
	grep -qF 'x\u001b]0;pwned\u0007\u001b[2J\u009b\nposition job_id owner' "$OUT/qe"
ok $? "queue prints it escaped: no control byte, no forged row" || cat -v "$OUT/qe" | sed 's/^/# /'
as "$A" --json queue >"$OUT/qj"
! LC_ALL=C grep -q "$(printf '[\033\007\302]')" "$OUT/qj" &&
	json "$OUT/qj" "any(r['name'] == 'x\\x1b]0;pwned\\x07\\x1b[2J\\x9b\\nposition job_id owner' for r in d)"
ok $? "... and as JSON, escaped, the same name when parsed"
$PSQL -d "$DB" -c "UPDATE mixdnn.jobs SET status = 'cancelled' WHERE name LIKE 'x%pwned%'" >/dev/null
# A client encoding without C1 (PGCLIENTENCODING=LATIN1) would turn U+009B
# into the single byte 0x9B, CSI to a terminal reading Latin-1: the client
# asks for UTF-8 whatever the environment says.
as "$A" submit --name "$(printf 'y\302\233H')" --class hard --gpu-type v100 --gpus 1 --duration '1 hour' >/dev/null
PGCLIENTENCODING=LATIN1 as "$A" queue >"$OUT/ql"
! LC_ALL=C grep -q "$(printf '[\200-\237]')" "$OUT/ql" && grep -qF 'y\u009bH' "$OUT/ql"
ok $? "with PGCLIENTENCODING=LATIN1 too: no C1 byte, escaped" || cat -v "$OUT/ql" | sed 's/^/# /'
# A right-to-left override reorders what follows it on a terminal that
# applies Unicode's bidirectional algorithm ("exe.txt" shown as "txt.exe").
as "$A" submit --name "$(printf 'report\342\200\256txt.exe')" --class hard --gpu-type v100 --gpus 1 --duration '1 hour' >/dev/null
as "$A" queue >"$OUT/qr" && as "$A" --json queue >"$OUT/qrj"
grep -qF 'report\u202etxt.exe' "$OUT/qr" && ! grep -qF "$(printf '\342\200\256')" "$OUT/qr" "$OUT/qrj" &&
	json "$OUT/qrj" "any(r['name'] == 'report\u202etxt.exe' for r in d)"
ok $? "a bidirectional override is escaped in the table and in JSON (parsed back the same)"
# A line or paragraph separator (U+2028, U+2029) ends a line where a viewer
# follows Unicode's line breaking (and a JSON string read as JavaScript
# before ES2019), as the launcher's log escapes it.
as "$A" submit --name "$(printf 'line\342\200\250two\342\200\251end')" --class hard --gpu-type v100 --gpus 1 --duration '1 hour' >/dev/null
as "$A" queue >"$OUT/qs" && as "$A" --json queue >"$OUT/qsj"
grep -qF 'line\u2028two\u2029end' "$OUT/qs" && ! grep -qF "$(printf '\342\200\250')" "$OUT/qs" "$OUT/qsj" &&
	! grep -qF "$(printf '\342\200\251')" "$OUT/qs" "$OUT/qsj" &&
	json "$OUT/qsj" "any(r['name'] == 'line\u2028two\u2029end' for r in d)"
ok $? "line and paragraph separators are escaped in the table and in JSON (parsed back the same)"
# Wide characters take two columns: the columns after a CJK name line up.
as "$A" submit --name "训练任务" --class hard --gpu-type v100 --gpus 1 --duration '1 hour' >/dev/null
as "$A" submit --name "abcdefgh" --class hard --gpu-type v100 --gpus 1 --duration '1 hour' >/dev/null
as "$A" queue >"$OUT/qw"
python3 - "$OUT/qw" <<'PY'
import sys, unicodedata
def cols(s):
    return sum(2 if unicodedata.east_asian_width(ch) in 'WF' else 0 if unicodedata.combining(ch) else 1 for ch in s)
lines = open(sys.argv[1], encoding='utf-8').read().splitlines()
head = lines[0]
after = head.index('name') + len('name')
nxt = after + len(head[after:]) - len(head[after:].lstrip())       # the column after name
want = cols(head[:nxt])
rows = [l for l in lines[1:] if '训练任务' in l or 'abcdefgh' in l]
starts = []
for l in rows:
    i = l.index('训练任务') + 4 if '训练任务' in l else l.index('abcdefgh') + 8
    j = i + len(l[i:]) - len(l[i:].lstrip())
    starts.append(cols(l[:j]))
sys.exit(0 if len(rows) == 2 and starts == [want, want] else 1)
PY
ok $? "a name of wide characters keeps the columns aligned" || sed 's/^/# /' "$OUT/qw"
$PSQL -d "$DB" -c "UPDATE mixdnn.jobs SET status = 'cancelled' WHERE name IN ('训练任务', 'abcdefgh') OR name LIKE 'y%H' OR name LIKE 'report%'" >/dev/null

# What the user typed is what is submitted: a byte that is not UTF-8 in an
# option is the server's to refuse (it was silently replaced by U+FFFD).
as "$A" submit --name "$(printf 'x\351y')" --class hard --gpu-type v100 --gpus 1 --duration '1 hour' 2>"$OUT/e"
[ $? = 2 ] && [ "$($PSQL -d "$DB" -Atc "SELECT count(*) FROM mixdnn.jobs WHERE name LIKE 'x%y'")" = 0 ]
ok $? "an option with a byte that is not UTF-8: refused (exit 2), nothing stored" || cat "$OUT/e"
# A SQL_ASCII database passes any byte: the client takes them as they come
# (asking for UTF-8 failed every listing with "invalid byte sequence") and
# escapes what is not UTF-8; a bidirectional override submitted there stays.
DBA=${DB}_ascii
$PSQL -d postgres -c "CREATE DATABASE $DBA ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0" >/dev/null &&
	$PSQL -d "$DBA" -c "SET client_min_messages = warning" -c "CREATE EXTENSION mixdnn" \
		-c "INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0)" \
		-c "INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n1', 'v100', 2)" >/dev/null &&
	PGUSER=$A PGCLIENTENCODING=SQL_ASCII psql -X -q -d "$DBA" \
		-c "INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES (E'a\\x9bb\\xe9c', 'hard', 'v100', 1, '1 hour')"
ok $? "(setup) a SQL_ASCII database, a job named with bytes 0x9b and 0xe9"
PGUSER=$A PGDATABASE=$DBA "$M" queue >"$OUT/qa" 2>"$OUT/e" &&
	grep -qF 'a\x9bb\xe9c' "$OUT/qa" && ! LC_ALL=C grep -q "$(printf '[\200-\377]')" "$OUT/qa"
ok $? "SQL_ASCII: queue lists it, the bytes escaped" || { cat "$OUT/e"; cat -v "$OUT/qa"; }
PGUSER=$A PGDATABASE=$DBA "$M" --json queue >"$OUT/qaj" 2>"$OUT/e" && json "$OUT/qaj" "d[0]['name'] == 'a\ufffdb\ufffdc'"
ok $? "SQL_ASCII: ... and --json gives valid JSON (U+FFFD for them)" || cat "$OUT/e" "$OUT/qaj"
PGUSER=$A PGDATABASE=$DBA "$M" submit --name "$(printf 'r\342\200\256t')" --class hard --gpu-type v100 --gpus 1 --duration '1 hour' >/dev/null 2>"$OUT/e" &&
	[ "$(PGCLIENTENCODING=SQL_ASCII $PSQL -d "$DBA" -Atc "SELECT name FROM mixdnn.jobs WHERE name LIKE 'r%t'")" = "$(printf 'r\342\200\256t')" ]
ok $? "SQL_ASCII: a submitted name with a bidi override is stored as typed" || cat "$OUT/e"
$PSQL -d postgres -c "DROP DATABASE $DBA" >/dev/null

# A cancel behind a row lock another transaction holds waits at most the
# client's lock_timeout (10 s), or the session's own (PGOPTIONS).
J3=$(as "$A" --json submit --name locked --class hard --gpu-type v100 --gpus 1 --duration '1 hour' |
	python3 -c "import json,sys; print(json.load(sys.stdin)[0]['job_id'])")
$PSQL -d "$DB" -c "BEGIN" -c "SELECT 1 FROM mixdnn.jobs WHERE job_id = $J3 FOR UPDATE" \
	-c "SELECT pg_sleep(60) /* cli-holder */" >/dev/null 2>&1 &
holder=$!
for _ in $(seq 100); do
	[ "$($PSQL -d "$DB" -Atc "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%cli-holder */' AND pid <> pg_backend_pid()")" = 1 ] && break
	sleep 0.1
done
t0=$(date +%s)
PGOPTIONS='-c lock_timeout=1s' as "$A" cancel "$J3" >/dev/null 2>"$OUT/e"
rc=$?
t1=$(date +%s)
[ $rc = 1 ] && grep -q 'lock timeout' "$OUT/e" && [ $((t1 - t0)) -lt 8 ]
ok $? "a cancel behind a held row with PGOPTIONS lock_timeout=1s: exit 1 within seconds" || cat "$OUT/e"
as "$A" cancel "$J3" >/dev/null 2>"$OUT/e"
rc=$?
t2=$(date +%s)
[ $rc = 1 ] && grep -q 'lock timeout' "$OUT/e" && [ $((t2 - t1)) -ge 9 ] && [ $((t2 - t1)) -lt 40 ] &&
	[ "$($PSQL -d "$DB" -Atc "SELECT status FROM mixdnn.jobs WHERE job_id = $J3")" != cancelled ]
ok $? "... without it: exit 1 after the client's 10 s, the job not cancelled" || { echo "# $((t2 - t1)) s"; cat "$OUT/e"; }
$PSQL -d "$DB" -Atc "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%cli-holder */' AND pid <> pg_backend_pid()" >/dev/null
wait $holder 2>/dev/null
as "$A" cancel "$J3" >/dev/null
ok $? "... and cancelled once the row is free"

# A connection lost while the job file is read and merged: exit 4, not the
# job file's exit 2. The file is a FIFO, so the client waits in its read
# while the test ends its backend.
mkfifo "$OUT/fifo"
as "$A" submit --file "$OUT/fifo" 2>"$OUT/e" &
cli=$!
# once its session is idle after its first query (the lock timeout), the
# client is at the job file: its open waits for a writer
for _ in $(seq 100); do
	[ "$($PSQL -d "$DB" -Atc "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '$A'
		AND application_name = 'mixdnn' AND state = 'idle' AND query LIKE '%set_config%'")" = t ] && break
	sleep 0.1
done
# bounded: a client that left before its open would leave this write waiting for ever
timeout 10 sh -c 'echo "{\"name\": \"lost\", \"gpus\": 1, \"duration\": \"1 hour\"}" >"$1"' sh "$OUT/fifo"
wait $cli
rc=$?
[ $rc = 4 ] && [ "$($PSQL -d "$DB" -Atc "SELECT count(*) FROM mixdnn.jobs WHERE name = 'lost'")" = 0 ]
ok $? "a connection lost while the job file is merged: exit 4, nothing submitted" || { echo "# exit $rc"; cat "$OUT/e"; }

# workdir and env, which have no option, from a job file
echo '{"name": "wd", "model_class": "hard", "gpu_type": "v100", "gpus": 1, "duration": "1 hour",
      "workdir": "/srv/wd", "env": {"E2E_X": "1"}}' >"$OUT/wd.json"
as "$B" --json submit --file "$OUT/wd.json" >"$OUT/wd" 2>"$OUT/e" &&
	[ "$($PSQL -d "$DB" -Atc "SELECT workdir || ' ' || env::text FROM mixdnn.jobs WHERE name = 'wd'")" = '/srv/wd {"E2E_X": "1"}' ]
ok $? "a job file sets workdir and env" || cat "$OUT/e"
$PSQL -d "$DB" -c "UPDATE mixdnn.jobs SET status = 'cancelled' WHERE name = 'wd'" >/dev/null
printf '{"name": "nul", "gpus": 1, "duration": "1 hour"}\0 {"command": "rm -rf ~"}' >"$OUT/nul.json"
as "$B" submit --file "$OUT/nul.json" 2>"$OUT/e"
[ $? = 2 ] && grep -q 'NUL byte' "$OUT/e" && [ "$($PSQL -d "$DB" -Atc "SELECT count(*) FROM mixdnn.jobs WHERE name = 'nul'")" = 0 ]
ok $? "a job file with a NUL byte: exit 2, nothing submitted"
"$M" --dsn 'postgresql://u:Hunter2secret@[::1' queue 2>"$OUT/e"
[ $? = 4 ] && ! grep -q Hunter2secret "$OUT/e" && grep -q 'u:\*\*\*@' "$OUT/e"
ok $? "a URI libpq cannot parse: exit 4, its password masked in the message" || cat "$OUT/e"
"$M" --dsn 'password=Hunter2 secret host=/nonexistent' queue 2>"$OUT/e"
[ $? = 4 ] && ! grep -Eq 'Hunter2|secret' "$OUT/e"
ok $? "... and a key/value string's, the words after password= too" || cat "$OUT/e"

# What an operator finds in the server log (sent to psql here as well).
$PSQL -d "$DB" -c "UPDATE mixdnn.gpu_nodes SET gpus = 4" >/dev/null
$PSQL -d "$DB" >/dev/null 2>"$OUT/log" <<'SQL'
SET client_min_messages = log;
SET mixdnn.virtual_now = '2030-01-01 00:00+00';
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('logged', 'hard', 'v100', 1, '1h');
SELECT mixdnn.launch_due();
SELECT mixdnn.run_round('quiet');
UPDATE mixdnn.jobs SET status = 'failed', reason = 'test failure' WHERE name = 'logged';
SQL
grep -Eq "^LOG: +mixdnn launched [0-9]+ job\(s\) on [0-9]+ node part\(s\) at 2030-01-01 00:00:00\+00 \(job [0-9, ]+\)$" "$OUT/log"
ok $? "a launch: one LOG line with the count, the time and the job"
grep -Eq "^LOG: +mixdnn job [0-9]+ of $SU failed at 2030-01-01 00:00:00\+00 .*: test failure$" "$OUT/log"
ok $? "a failure: one LOG line with the job, its owner, the time and the reason"
! grep -Eq "mixdnn round|CONTEXT|STATEMENT" "$OUT/log"
ok $? "rounds say nothing at LOG; the lines are single lines"
$PSQL -d "$DB" -c "SET client_min_messages = debug1" -c "SELECT mixdnn.run_round('verbose')" >/dev/null 2>"$OUT/dbg"
grep -Eq "^DEBUG: +mixdnn round [0-9]+ for \"verbose\": [0-9]+ waiting, [0-9]+ running, solver .*, [0-9.]+ ms$" "$OUT/dbg"
ok $? "each round: one DEBUG1 line"

# Another user's operator in a schema of the caller's search_path (public,
# where CREATE is granted to PUBLIC, as before PostgreSQL 15), matching
# text || integer more exactly than pg_catalog's: the client's queries must
# not run it with the caller's rights (it read every job an admin's
# `queue --all` could).
$PSQL -d "$DB" -c "GRANT CREATE ON SCHEMA public TO $B" >/dev/null
PGUSER=$B $PSQL -U "$B" -d "$DB" >/dev/null <<'SQL'
CREATE TABLE public.cli_loot (who name);
GRANT INSERT ON public.cli_loot TO PUBLIC;
CREATE FUNCTION public.cli_cat(text, integer) RETURNS text LANGUAGE plpgsql AS $f$
BEGIN INSERT INTO public.cli_loot VALUES (current_user); RETURN $1 || $2::text; END $f$;
CREATE OPERATOR public.|| (leftarg = text, rightarg = integer, function = public.cli_cat);
SQL
PGOPTIONS='-c search_path=public' as "$SU" queue --all >/dev/null 2>&1
as "$A" queue >/dev/null 2>&1
as "$A" history --all >/dev/null 2>&1
as "$A" top --iterations 1 >/dev/null 2>&1
[ "$($PSQL -d "$DB" -Atc "SELECT count(*) FROM public.cli_loot")" = 0 ]
ok $? "another user's operator in the search_path is not run by the client's queries" \
	|| $PSQL -d "$DB" -Atc "SELECT who, count(*) FROM public.cli_loot GROUP BY who"
$PSQL -d "$DB" -c "DROP OPERATOR public.|| (text, integer)" -c "DROP FUNCTION public.cli_cat(text, integer)" \
	-c "DROP TABLE public.cli_loot" -c "REVOKE CREATE ON SCHEMA public FROM $B" >/dev/null

PGPORT=1 as "$A" queue 2>/dev/null
[ $? = 4 ]
ok $? "no server: exit 4"

echo "1..$n"
echo "cli: $((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
