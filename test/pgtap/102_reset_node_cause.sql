-- 102_reset_node_cause.sql — a launcher that hands a claimed part back
-- with mixdnn.reset_node(node, job_id, cause) says why: its fork of the
-- part's keeper failed, the keeper killed the part on its lease, ... The
-- job's reason was a guess ("node n1 no longer runs it (its launcher
-- restarted or lost the answer to its claim, or the part's lease ran
-- out)") whatever the launcher knew; now it is "node n1 handed it back:
-- CAUSE". The cause is the launcher role's text: over 200 characters is
-- 22001, a cause that is not printable ASCII (a control character, a
-- Unicode space or bidirectional override) or is blank 22023, and nothing
-- changes. Calls with one or two arguments (launchers before the cause)
-- work as before, and there is one reset_node, granted to the launcher
-- role only.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(21);

CREATE ROLE tap102_launcher NOLOGIN IN ROLE mixdnn_launcher;
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n1', 'v100', 2);
:commit

-- c: launched on n1 and claimed.
CREATE FUNCTION pg_temp.claimed(n text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	PERFORM mixdnn.launch_due();
	PERFORM FROM mixdnn.claim('n1');
END $$;
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('c', 'hard', 'v100', 2, '1h');
:commit
SELECT pg_temp.claimed('c');
SELECT is((SELECT status FROM mixdnn.jobs WHERE name = 'c'), 'running', '(setup) c runs on n1');
SELECT pg_temp.jid('c') AS cid \gset

-- The cause, as the launcher role gives it, is in the job's reason.
SET LOCAL ROLE tap102_launcher;
SELECT is(mixdnn.reset_node('n1', :cid,
		'cannot start the keeper: Resource temporarily unavailable (after waiting 60 s)'), 1,
	'the launcher role hands c back with a cause');
RESET ROLE;
:commit
SELECT is((SELECT reason FROM mixdnn.job_events WHERE job_id = pg_temp.jid('c') AND old_status = 'running'
			 AND new_status = 'planned'),
	'node n1 handed it back: cannot start the keeper: Resource temporarily unavailable (after waiting 60 s); re-queued after attempt 1',
	'the job''s reason names the cause the launcher gave');

-- Bad causes: refused, the part still runs.
SELECT pg_temp.set_now((SELECT planned_start FROM mixdnn.jobs WHERE name = 'c'));
SELECT pg_temp.claimed('c');
SELECT is((SELECT status || ' ' || attempt FROM mixdnn.jobs WHERE name = 'c'), 'running 2', '(setup) c runs again, attempt 2');
SET LOCAL ROLE tap102_launcher;
SELECT throws_ok(pg_catalog.format('SELECT mixdnn.reset_node(%L, %s, %L)', 'n1', :cid, repeat('x', 201)),
	'22001', 'cause must be at most 200 characters, not 201', 'a cause of 201 characters is refused (22001)');
SELECT throws_ok(pg_catalog.format('SELECT mixdnn.reset_node(%L, %s, %L)', 'n1', :cid, E'fork failed\nnode n2 handed it back'),
	'22023', 'cause must be printable ASCII (no control character such as a newline)', 'a cause with a newline is refused (22023)');
SELECT throws_ok(pg_catalog.format('SELECT mixdnn.reset_node(%L, %s, %L)', 'n1', :cid, E'a\u009bb'),
	'22023', NULL, 'a cause with a C1 control character (U+009B, CSI) is refused (22023)');
SELECT throws_ok(pg_catalog.format('SELECT mixdnn.reset_node(%L, %s, %L)', 'n1', :cid, E'a\x1b[31mred'),
	'22023', NULL, 'a cause with an escape sequence is refused (22023)');
SELECT throws_ok(pg_catalog.format('SELECT mixdnn.reset_node(%L, %s, %L)', 'n1', :cid, ' '),
	'22023', NULL, 'an empty cause is refused (22023): NULL is none');
SELECT throws_ok(pg_catalog.format('SELECT mixdnn.reset_node(%L, %s, %L)', 'n1', :cid, U&'\3000\00A0'),
	'22023', NULL, 'a cause of Unicode spaces only is refused (22023)');
SELECT throws_ok(pg_catalog.format('SELECT mixdnn.reset_node(%L, %s, %L)', 'n1', :cid, U&'a\2028b'),
	'22023', NULL, 'a cause with a line separator (U+2028) is refused (22023)');
SELECT throws_ok(pg_catalog.format('SELECT mixdnn.reset_node(%L, %s, %L)', 'n1', :cid, U&'\202Eevil'),
	'22023', NULL, 'a cause with a bidirectional override (U+202E) is refused (22023)');
RESET ROLE;
SELECT results_eq($$SELECT j.status, j.attempt, p.state FROM mixdnn.jobs j JOIN mixdnn.job_parts p
				   ON p.job_id = j.job_id AND p.attempt = j.attempt WHERE j.name = 'c'$$,
	$$VALUES ('running'::text, 2, 'running'::text)$$, '... and nothing changed: c and its part still run');
SET LOCAL ROLE tap102_launcher;
SELECT is(mixdnn.reset_node('n1', :cid, repeat('x', 200)), 1,
	'a cause of 200 characters is taken');
RESET ROLE;
:commit
SELECT is((SELECT reason FROM mixdnn.jobs WHERE name = 'c'),
	'node n1 handed it back: ' || repeat('x', 200) || '; re-queued after attempt 2', '... whole');

-- The calls of launchers before the cause work as before.
SELECT pg_temp.set_now((SELECT planned_start FROM mixdnn.jobs WHERE name = 'c'));
SELECT pg_temp.claimed('c');
SET LOCAL ROLE tap102_launcher;
SELECT is(mixdnn.reset_node('n1', :cid), 1, 'reset_node(node, job_id) still hands a part back');
RESET ROLE;
:commit
SELECT is((SELECT reason FROM mixdnn.jobs WHERE name = 'c'),
	'node n1 no longer runs it (its launcher restarted or lost the answer to its claim, or the part''s lease ran out); re-queued after attempt 3',
	'... with the reason it gave before');
UPDATE mixdnn.jobs SET status = 'cancelled' WHERE name = 'c';
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('d', 'hard', 'v100', 2, '1h');
:commit
SELECT pg_temp.claimed('d');
SET LOCAL ROLE tap102_launcher;
SELECT is(mixdnn.reset_node('n1'), 1, 'reset_node(node) still hands every part back');
RESET ROLE;
:commit
SELECT is((SELECT reason FROM mixdnn.jobs WHERE name = 'd'), 'launcher of node n1 restarted; re-queued after attempt 1',
	'... saying the launcher restarted');

-- One reset_node, a SECURITY DEFINER with a pinned search_path, for the launcher role only.
SELECT is((SELECT pg_catalog.string_agg(pg_catalog.format('%s %s %s', p.oid::regprocedure, p.prosecdef, p.proconfig), '; ')
			FROM pg_catalog.pg_proc p WHERE p.proname = 'reset_node' AND p.pronamespace = 'mixdnn'::regnamespace),
	'mixdnn.reset_node(text,bigint,text) t {"search_path=pg_catalog, pg_temp"}',
	'there is one reset_node(node, job_id, cause), SECURITY DEFINER with search_path pinned');
SELECT is((SELECT pg_catalog.string_agg(coalesce(r.rolname, 'PUBLIC') || ' ' || a.privilege_type, ', ')
			FROM pg_catalog.pg_proc p CROSS JOIN pg_catalog.aclexplode(p.proacl) a
			LEFT JOIN pg_catalog.pg_roles r ON r.oid = a.grantee
			WHERE p.proname = 'reset_node' AND p.pronamespace = 'mixdnn'::regnamespace AND a.grantee <> p.proowner),
	'mixdnn_launcher EXECUTE', '... that only mixdnn_launcher may call (nothing to PUBLIC)');

SELECT * FROM finish();
ROLLBACK;
