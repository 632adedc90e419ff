#!/usr/bin/env bash
# DROP EXTENSION with a job running is refused with a hint; a superuser's
# forced drop goes ahead, and the launcher stops the job's process.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../ops.sh"

reset_cluster
start_launcher n3
job=$(submit runs hard v100 1 "$(job_cmd 60)" '60 s')
wait_until 15 "[ -f '$T/out/$job-1-0.env' ]"
ok $? "the job's process started"
pid=$(env_of "$job" 1 0 PID)

out=$(psql -X -q -v VERBOSITY=verbose -c "DROP EXTENSION mixdnn" 2>&1)
like "$out" "ERROR: +55006: cannot drop mixdnn: 1 job is launching or running" "DROP EXTENSION is refused (object_in_use)"
like "$out" "HINT: +Cancel them first" "with a hint"
out=$(psql -X -q -c "DROP SCHEMA mixdnn CASCADE" 2>&1)
like "$out" "cannot drop mixdnn" "so is DROP SCHEMA mixdnn CASCADE"
is "$(status_of "$job")" running "the job runs on"
alive "$pid"
ok $? "and so does its process"

out=$(psql -X -q -c "SET mixdnn.force_drop = on" -c "DROP EXTENSION mixdnn CASCADE" 2>&1)
ok $? "a superuser forces the drop with mixdnn.force_drop"
like "$out" "WARNING: +dropping mixdnn with 1 active job: $job" "which warns about the job"
wait_until 10 "! alive $pid"
ok $? "the launcher stopped the job's process"
grep -q "extension is gone" "$T/launcher-n3.log"
ok $? "and logged why"
reset_cluster

# DROP OWNED BY the role that owns the extension drops it as well: refused
# the same way while a job is active (it dropped everything before).
q "DO \$\$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'mx_ops_dba') THEN
	CREATE ROLE mx_ops_dba SUPERUSER LOGIN; END IF; END \$\$" >/dev/null
fresh_db mx_ops_owned
PGUSER=mx_ops_dba PGDATABASE=mx_ops_owned psql -X -q -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION mixdnn;
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('o1', 'v100', 1);
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command) VALUES ('owned', 'hard', 'v100', 1, '1 hour', 'true');
SELECT mixdnn.launch_due();
SQL
ok $? "a superuser mx_ops_dba owns the extension of database mx_ops_owned, with a job launching there"
out=$(PGUSER=mx_ops_dba psql -X -q -d mx_ops_owned -c "DROP OWNED BY mx_ops_dba" 2>&1)
like "$out" "cannot drop mixdnn: 1 job is launching or running" "DROP OWNED BY the extension's owner is refused"
is "$(qd mx_ops_owned "SELECT count(*) FROM pg_extension WHERE extname = 'mixdnn'")" 1 "and the extension stays"
out=$(PGUSER=mx_ops_dba psql -X -q -d mx_ops_owned -c "DROP OWNED BY $E2E_LAUNCHER_ROLE" 2>&1)
ok $? "DROP OWNED BY another role is not the guard's business ($out)"
# A cascade from what mixdnn's functions are written in reaches it too.
out=$(PGUSER=mx_ops_dba psql -X -q -d mx_ops_owned -c "DROP EXTENSION plpgsql CASCADE" 2>&1)
like "$out" "cannot drop mixdnn: 1 job is launching or running" "DROP EXTENSION plpgsql CASCADE is refused"
is "$(qd mx_ops_owned "SELECT count(*) FROM pg_extension WHERE extname IN ('mixdnn', 'plpgsql')")" 2 \
	"and both extensions stay"
out=$(PGUSER=mx_ops_dba psql -X -q -d mx_ops_owned -c "CREATE EXTENSION IF NOT EXISTS pg_trgm" -c "DROP EXTENSION pg_trgm CASCADE" 2>&1)
ok $? "a cascade that does not reach mixdnn goes ahead ($out)"
psql -X -q -d postgres -c "DROP DATABASE mx_ops_owned" >/dev/null 2>&1
done_testing
