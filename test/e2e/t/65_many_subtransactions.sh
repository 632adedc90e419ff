#!/usr/bin/env bash
# A transaction with more subtransactions that wrote than PostgreSQL caches
# per backend (64) leaves its round to the worker. The round at its commit
# reads the rows those subtransactions wrote, and the commit records every
# one of them, both under the scheduler lock and both sized by the user: a
# plain user's 100 000 exception blocks, each changing her own waiting
# job, held the lock 0.7 s at her commit (a commit without them: 25 ms),
# and more held it longer (an audit). Checked by what the commit says at
# DEBUG1 (it runs no round) and by the job being planned all the same.
. "$(dirname "$0")/../lib.sh"

reset_cluster
user_roles e2e_alice

alice() {	# alice N: a transaction of N subtransactions that change her job, and a submission
	PGUSER=e2e_alice timeout 60 psql -X -q -A -t -v ON_ERROR_STOP=1 <<-SQL 2>&1
		BEGIN;
		DO \$\$
		DECLARE
			j bigint;
		BEGIN
			SELECT job_id INTO j FROM mixdnn.jobs WHERE name = 'mine' AND owner = current_user;
			FOR i IN 1 .. $1 LOOP
				BEGIN
					UPDATE mixdnn.jobs SET status = status WHERE job_id = j;
				EXCEPTION WHEN others THEN NULL;
				END;
			END LOOP;
		END \$\$;
		INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command)
			VALUES ('after $1', 'hard', 'a100', 1, '1 hour', 'true');
		SET LOCAL client_min_messages = debug1;
		COMMIT;
	SQL
}

PGUSER=e2e_alice psql -X -q -v ON_ERROR_STOP=1 -c "INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, command)
	VALUES ('mine', 'hard', 'a100', 1, '1 hour', 'true')" >/dev/null
ok $? "alice has a waiting job"

out=$(alice 10)
ok "$(! grep -q 'no round in this commit' <<<"$out"; echo $?)" "with 10 subtransactions her commit runs its round"
like "$(q "SELECT status FROM mixdnn.jobs WHERE name = 'after 10'")" '^(planned|launching)$' "and her new job is planned"

out=$(alice 200)
ok "$(grep -q 'no round in this commit; the background worker plans after it' <<<"$out"; echo $?)" \
	"with 200 her commit leaves its round to the worker"
wait_until 10 "[[ \"\$(q \"SELECT status FROM mixdnn.jobs WHERE name = 'after 200'\")\" =~ ^(planned|launching)$ ]]"
ok $? "which plans her new job ($(q "SELECT status FROM mixdnn.jobs WHERE name = 'after 200'"))"
done_testing
