#!/usr/bin/env bash
# Jobs run as their owner's OS account (groups, HOME, workdir, env as given),
# with an environment built from scratch; they cannot read the launcher's
# credentials; a role without an OS account, or one mapped to root (uid 0,
# or group 0 as primary or supplementary group), runs nothing and its job
# fails with the reason, on one line. Output files are the job user's and
# named after database, installation, job, attempt, node, rank, readable
# by that user only.
. "$(dirname "$0")/../lib.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root to create OS users and run a root launcher"
E2E_MIN_UID=()	# the launcher's default --min-uid (1000)
reset_cluster
for u in mxe2e_alice mxe2e_bob; do
	id -u "$u" >/dev/null 2>&1 || useradd -m -s /bin/sh "$u"
	getent group mxe2e_team >/dev/null || groupadd mxe2e_team
	usermod -a -G mxe2e_team "$u"
done
# root's group: as primary group, and as a supplementary one
id -u mxe2e_gid0 >/dev/null 2>&1 || useradd -M -s /bin/sh -g 0 mxe2e_gid0
id -u mxe2e_sup0 >/dev/null 2>&1 || useradd -M -s /bin/sh -G 0 mxe2e_sup0
q "DO \$\$ DECLARE r text; BEGIN
	FOREACH r IN ARRAY ARRAY['mxe2e_alice', 'mxe2e_bob', 'mxe2e_ghost', 'mxe2e_rooty', 'mxe2e_nohome', 'mxe2e_gid0', 'mxe2e_sup0', 'mxe2e_sys'] LOOP
		IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = r) THEN EXECUTE format('CREATE ROLE %I', r); END IF;
		EXECUTE format('GRANT mixdnn_user TO %I', r);
	END LOOP; END \$\$" >/dev/null
id -u mxe2e_ghost >/dev/null 2>&1 && userdel mxe2e_ghost

printf '# role  os user\nmxe2e_rooty root\nmxe2e_nohome nobody\nmxe2e_sys postgres\n' >"$T/usermap"
echo "e2e-launcher-secret-$$" >"$T/pw"
chmod 600 "$T/pw"
mkdir -p "$T/joblogs"
chmod 755 "$T/joblogs"
# The secret is in the launcher's password file, to be read in /proc in its
# environment, and in its session keyring (as a Kerberos KEYRING: cache or a
# tool's token would be): the launcher starts in a session keyring of its
# own that holds the key.
cp "$E2E_DIR/keyring.py" "$T/keyring.py"
chmod 755 "$T/keyring.py"
# It is also protected from the OOM killer, as a unit's OOMScoreAdjust would.
printf '#!/bin/sh\necho -500 2>/dev/null >/proc/self/oom_score_adj\nexec python3 %s exec-with-key mxe2e-secret %s %s "$@"\n' \
	"$T/keyring.py" "e2e-launcher-secret-$$" "$MIXDNN_LAUNCHER" >"$T/keyed-launcher"
chmod 755 "$T/keyed-launcher"
MIXDNN_LAUNCHER=$T/keyed-launcher E2E_LAUNCHER_SECRET=e2e-launcher-secret-$$ \
	start_launcher n1 --user-map "$T/usermap" --password-file "$T/pw" --output-dir "$T/joblogs"
lpid=$(launcher_pid n1)

as_role() {	# as_role ROLE SQL
	q "SET ROLE $1; $2"
}
# What the job sees, and whether it can get at the launcher's secret.
probe='{ echo "user=$(id -un) groups=$(id -Gn | tr " " ,) home=$HOME pwd=$(pwd) foo=$E2E_FOO"
	for f in /proc/$E2E_LAUNCHER/environ /proc/$E2E_LAUNCHER/cmdline /proc/$PPID/environ '"$T"'/pw; do
		if cat "$f" 2>/dev/null | tr "\0" "\n" | grep -q e2e-launcher-secret; then echo "read $f"; fi
	done
	env | grep -c -E "^(PGPASSWORD|PGUSER|PGHOST|MIXDNN_E2E_WORK|E2E_LAUNCHER_SECRET)=" | sed "s/^/leaked=/"
	python3 '"$T"'/keyring.py probe mxe2e-secret
	echo "oom=$(cat /proc/self/oom_score_adj)"
	echo "outfile=$(ls -l /proc/self/fd/1 | sed "s/.*-> //")"; } > '"$T"'/out/probe-$(id -un).txt; echo to-the-log'
env_json="{\"E2E_FOO\": \"bar baz\", \"E2E_LAUNCHER\": \"$lpid\"}"
a=$(as_role mxe2e_alice "INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command, workdir, env)
	VALUES ('probe', 'hard', 'a100', 1, '1 s', \$c\$$probe\$c\$, '/tmp', '$env_json') RETURNING job_id")
b=$(as_role mxe2e_bob "INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command, env)
	VALUES ('probe', 'hard', 'a100', 1, '1 s', \$c\$$probe\$c\$, '$env_json') RETURNING job_id")
g=$(as_role mxe2e_ghost "INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command)
	VALUES ('ghost', 'hard', 'a100', 1, '1 s', 'touch $T/out/ghost-ran') RETURNING job_id")
r=$(as_role mxe2e_rooty "INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command)
	VALUES ('rooty', 'hard', 'a100', 1, '1 s', 'touch $T/out/rooty-ran') RETURNING job_id")
wait_until 20 '[ "$(unfinished)" = 0 ]'
ok $? "the four jobs finished"

pa=$(cat "$T/out/probe-mxe2e_alice.txt" 2>/dev/null)
pb=$(cat "$T/out/probe-mxe2e_bob.txt" 2>/dev/null)
ok "$(grep -q '^user=mxe2e_alice groups=mxe2e_alice,mxe2e_team home=/home/mxe2e_alice pwd=/tmp foo=bar baz$' <<<"$pa"; echo $?)" \
	"alice's job ran as mxe2e_alice with her groups, HOME, workdir and env ($(head -1 <<<"$pa"))"
ok "$(grep -q '^user=mxe2e_bob groups=mxe2e_bob,mxe2e_team home=/home/mxe2e_bob pwd=/home/mxe2e_bob foo=bar baz$' <<<"$pb"; echo $?)" \
	"bob's job ran as mxe2e_bob in his home directory ($(head -1 <<<"$pb"))"
is "$(grep -c '^read ' <<<"$pa$pb")" 0 "neither could read the launcher's secret in its environ, cmdline, keeper or password file"
is "$(grep -h '^leaked=' <<<"$pa")" "leaked=0" "nothing of the launcher's environment reached the job"
if [ "$(cat /proc/"$lpid"/oom_score_adj)" = -500 ]; then
	is "$(grep -h '^oom=' <<<"$pa$pb" | sort -u)" "oom=0" "the jobs' OOM score adjustment is neutral, not the launcher's protection"
else
	skip 1 "root cannot lower an OOM score adjustment here (no CAP_SYS_RESOURCE)"
fi
if grep -q '^key=unsupported' <<<"$pa"; then
	skip 1 "no session keyrings here"
else
	is "$(grep -h '^key=' <<<"$pa$pb" | sort -u)" "key=absent" \
		"neither could find the key in the launcher's session keyring ($(grep -h '^key=' <<<"$pa$pb" | tr '\n' ' '))"
fi
is "$(status_of "$a"),$(status_of "$b")" "completed,completed" "both completed"

token_of() {	# token_of JOB: its latest launch's token, as the launcher writes it
	q "SELECT replace(launch_token::text, '-', '') FROM mixdnn.job_parts WHERE job_id = $1 ORDER BY attempt DESC LIMIT 1"
}
f=$(ls "$T/joblogs" | grep -- "-j$a-a1-n1-r0-t[0-9a-f]*.log$")
inst=$(q "SELECT to_hex(system_identifier) || '-' || (SELECT oid FROM pg_extension WHERE extname = 'mixdnn') FROM pg_control_system()")
is "$f" "postgres-$inst-j$a-a1-n1-r0-t$(token_of "$a").log" \
	"the output file names database, installation, job, attempt, node, rank and the launch's token"
is "$(stat -c %U "$T/joblogs/$f" 2>/dev/null)" mxe2e_alice "and belongs to the job's user"
# the directory is every job user's way to their files: a mode with the
# group's read bit would show the output to every account of the user's
# primary group (a shared one, such as "users", on many sites)
is "$(stat -c %a "$T/joblogs/$f" 2>/dev/null)" 600 "and only that user may read it (mode 0600)"
is "$(cat "$T/joblogs/$f" 2>/dev/null)" to-the-log "and holds the job's output"

is "$(status_of "$g"),$(q "SELECT exit_code FROM mixdnn.jobs WHERE job_id = $g")" failed,126 "a role without an OS account: the job fails with 126"
ok "$(q "SELECT reason FROM mixdnn.jobs WHERE job_id = $g" | grep -q 'role "mxe2e_ghost" has no OS account'; echo $?)" \
	"with the reason ($(q "SELECT reason FROM mixdnn.jobs WHERE job_id = $g"))"
ok "$([ ! -e "$T/out/ghost-ran" ]; echo $?)" "and nothing ran"
is "$(status_of "$r")" failed "a role mapped to root without --allow-root-jobs: the job fails"
ok "$(q "SELECT reason FROM mixdnn.jobs WHERE job_id = $r" | grep -q 'allow-root-jobs'; echo $?)" "with the reason"
ok "$([ ! -e "$T/out/rooty-ran" ]; echo $?)" "and nothing ran as root"
for u in mxe2e_gid0 mxe2e_sup0; do
	j=$(as_role $u "INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command)
		VALUES ('group0', 'hard', 'a100', 1, '1 s', 'touch $T/out/$u-ran') RETURNING job_id")
	wait_until 20 "[ \"\$(status_of $j)\" = failed ]"
	ok $? "$u (group 0 as its $([ $u = mxe2e_gid0 ] && echo primary || echo supplementary) group): the job fails"
	ok "$(q "SELECT reason FROM mixdnn.jobs WHERE job_id = $j" | grep -q 'in group 0 (root).*--allow-root-jobs'; echo $?)" \
		"with the reason ($(q "SELECT reason FROM mixdnn.jobs WHERE job_id = $j"))"
	ok "$([ ! -e "$T/out/$u-ran" ]; echo $?)" "and nothing ran with root's group"
done

# A system account (postgres owns the database's files) runs nothing, even
# when a role is mapped to it: it is below the default --min-uid of 1000.
j=$(as_role mxe2e_sys "INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command)
	VALUES ('sys', 'hard', 'a100', 1, '1 s', 'touch $T/out/sys-ran') RETURNING job_id")
wait_until 20 "[ \"\$(status_of $j)\" = failed ]"
ok $? "a role mapped to postgres (uid $(id -u postgres)): the job fails"
ok "$(q "SELECT reason FROM mixdnn.jobs WHERE job_id = $j" | grep -q 'OS user "postgres" (uid [0-9]*), a system account.*--min-uid'; echo $?)" \
	"with the reason ($(q "SELECT reason FROM mixdnn.jobs WHERE job_id = $j"))"
ok "$([ ! -e "$T/out/sys-ran" ]; echo $?)" "and nothing ran as postgres"

# An account whose home directory does not exist starts in /, as at login.
n=$(as_role mxe2e_nohome "INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command)
	VALUES ('nohome', 'hard', 'a100', 1, '1 s', 'echo \$(id -un) \$(pwd) > $T/out/nohome') RETURNING job_id")
wait_until 20 '[ "$(unfinished)" = 0 ]'
is "$(status_of "$n"):$(cat "$T/out/nohome" 2>/dev/null)" "completed:nobody /" \
	"a role mapped by --user-map to nobody (home /nonexistent) runs as nobody in /"

# A reason with a newline (a workdir written before INSERT refused them, as
# an upgraded database may hold) reaches the job whole, on one line.
q "ALTER TABLE mixdnn.jobs DISABLE TRIGGER jobs_check_env" >/dev/null
w=$(as_role mxe2e_bob "INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command, workdir)
	VALUES ('nl', 'hard', 'a100', 1, '1 s', 'true', E'/nonexistent\\nsecond line') RETURNING job_id")
q "ALTER TABLE mixdnn.jobs ENABLE TRIGGER jobs_check_env" >/dev/null
wait_until 20 '[ "$(unfinished)" = 0 ]'
is "$(q "SELECT reason FROM mixdnn.jobs WHERE job_id = $w")" \
	"exited with code 126 on node n1: cannot change to working directory /nonexistent second line: No such file or directory" \
	"a newline in a failure's reason does not cut it short"

# A reason cut to 512 bytes in the middle of a character (the workdir's
# 238th é) is still reported: before, the server refused it as invalid
# UTF-8 each time and the job was re-queued with another reason.
u=$(as_role mxe2e_bob "INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command, workdir)
	VALUES ('utf8', 'hard', 'a100', 1, '1 s', 'true', '/' || repeat('é', 300)) RETURNING job_id")
wait_until 20 '[ "$(unfinished)" = 0 ]'
is "$(status_of "$u"),$(q "SELECT exit_code FROM mixdnn.jobs WHERE job_id = $u"),$(q "SELECT attempt FROM mixdnn.jobs WHERE job_id = $u")" \
	failed,126,1 "a reason cut in half a character: the job fails with 126 at once"
r=$(q "SELECT reason FROM mixdnn.jobs WHERE job_id = $u")
printf '%s\n' "$r" | grep -q '^exited with code 126 on node n[0-9]: cannot change to working directory /\(é\)*é\\xc3$'
ok $? "its reason ends with the half character escaped" || diag "reason: $r"

# A file planted under a launch's output file's name, known once the part
# is launching and before a launcher claims it (here a hard link to a file
# of root's), is not handed to the job's user.
launch_unclaimed() {	# launch_unclaimed NAME COMMAND, with n1's launcher stopped: sets p (the job) and out (its output file)
	p=$(as_role mxe2e_bob "INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command)
		VALUES ('$1', 'hard', 'a100', 1, '1 s', '$2') RETURNING job_id")
	wait_until 20 "[ \"\$(status_of $p)\" = launching ]"
	ok $? "(setup) job $p is launching, unclaimed" || diag "job $p: $(status_of "$p")"
	out="$T/joblogs/postgres-$inst-j$p-a1-n1-r0-t$(token_of "$p").log"
}
restart_n1() {
	start_launcher n1 --user-map "$T/usermap" --password-file "$T/pw" --output-dir "$T/joblogs"
}
stop_launcher n1
echo "root's" >"$T/rootfile"
chmod 600 "$T/rootfile"
launch_unclaimed planted 'echo overwritten'
ln "$T/rootfile" "$out"
ok $? "(setup) a hard link planted under the output file name of job $p's launch"
restart_n1
wait_until 20 '[ "$(unfinished)" = 0 ]'
is "$(status_of "$p"),$(q "SELECT exit_code FROM mixdnn.jobs WHERE job_id = $p")" failed,126 "fails with 126"
ok "$(q "SELECT reason FROM mixdnn.jobs WHERE job_id = $p" | grep -q "is not the job user's own"; echo $?)" "saying why"
is "$(stat -c %U "$T/rootfile"):$(cat "$T/rootfile")" "root:root's" "and the planted file is still root's and unchanged"

# A FIFO planted under the name: opening it for writing would wait for a
# reader forever, holding the part's GPUs; the job fails at once instead.
stop_launcher n1
launch_unclaimed fifo 'echo blocked'
mkfifo "$out"
ok $? "(setup) a FIFO planted under the output file name of job $p's launch"
restart_n1
wait_until 20 '[ "$(unfinished)" = 0 ]'
is "$(status_of "$p"),$(q "SELECT exit_code FROM mixdnn.jobs WHERE job_id = $p")" failed,126 "fails with 126, not waiting for a reader"
done_testing
