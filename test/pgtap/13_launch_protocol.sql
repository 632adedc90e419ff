-- 13_launch_protocol.sql — the launch protocol's safety rules (SPEC §5,
-- docs/launcher.md), each in a state where breaking the rule would change
-- the outcome:
--   * gang: a due job whose GPUs are partly held (by an overrunning job)
--     starts on all its GPUs or on none;
--   * attempt fencing: a late report or claim of an old attempt changes
--     nothing while a newer attempt runs;
--   * node fencing: a report from a node that holds no part, and claim and
--     heartbeat of one node, touch only that node's parts;
--   * a second report of the same part changes nothing;
--   * across a launcher restart: an adopted part is reported once, a
--     given-up part (reset_node) is re-queued and its late report ignored.
-- tools/mutate.sh breaks each rule in turn; this file must then fail.
--
-- Mode: deferred round triggers; ":commit" (lib/fixture.sql) after each
-- write runs the round COMMIT would run. No launcher process: the
-- launcher's calls (claim, heartbeat, finish) are made by hand under the
-- virtual clock; mixdnn.launch_due() and mixdnn.expire_leases() are called
-- as the background worker would.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(78);

SET LOCAL mixdnn.overrun_grace = '10min';
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n1', 'v100', 4), ('n2', 'v100', 4), ('n3', 'v100', 4);
:commit

-- A part's state, attempt by attempt: 'attempt:node:state' sorted.
CREATE FUNCTION pg_temp.parts(job text) RETURNS text LANGUAGE sql AS $$
	SELECT string_agg(format('%s:%s:%s', p.attempt, p.node, p.state), ' ' ORDER BY p.attempt, p.node)
	FROM mixdnn.job_parts p WHERE p.job_id = pg_temp.jid(job)
$$;
CREATE FUNCTION pg_temp.held(job text) RETURNS bigint LANGUAGE sql AS $$
	SELECT count(*) FROM mixdnn.gpu_holds h WHERE h.job_id = pg_temp.jid(job)
$$;
CREATE FUNCTION pg_temp.lease(job text, n text) RETURNS timestamptz LANGUAGE sql AS $$
	SELECT p.lease_until FROM mixdnn.job_parts p JOIN mixdnn.jobs j USING (job_id)
	WHERE j.name = job AND p.attempt = j.attempt AND p.node = n
$$;

---------------------------------------------------------------- gang, overrun
-- a (8 GPUs on two nodes, 1 h) runs; g (12 GPUs, every GPU) is planned for
-- a's expected end. At that instant a still runs: 4 of g's 12 GPUs are free,
-- and g must not start on them.
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('a', 'hard', 'v100', 8, '1h');
:commit
SELECT is(mixdnn.launch_due(), 1, 'gang: a launches');
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('g', 'hard', 'v100', 12, '1h');
:commit
SELECT is((SELECT planned_start FROM mixdnn.jobs WHERE name = 'g'), pg_temp.t0() + interval '1 hour',
	'gang: g is planned for a''s expected end');
SELECT pg_temp.set_now(pg_temp.t0() + interval '1 hour');
SELECT is((SELECT count(*) FROM mixdnn.jobs WHERE status = 'planned' AND planned_start <= mixdnn.now()), 1::bigint,
	'gang: (setup) g is due now, and a overruns with 8 GPUs held');
SELECT is(mixdnn.launch_due(), 0, 'gang: launch_due starts nothing while a holds 8 of g''s 12 GPUs');
SELECT is(pg_temp.held('g'), 0::bigint, 'gang: g holds no GPU (not the 4 free ones)');
SELECT is(pg_temp.parts('g'), NULL, 'gang: g has no part on any node');
SELECT results_eq($$SELECT status, planned_start FROM mixdnn.jobs WHERE name = 'g'$$,
	$$VALUES ('planned'::text, pg_temp.t0() + interval '1 hour 10 minutes')$$,
	'gang: g stays planned, re-planned to now + overrun_grace');
SELECT is(pg_temp.held('a'), 8::bigint, 'gang: a keeps its 8 GPUs');
-- a ends and g is planned again; at its start all 12 GPUs are free and g takes every one.
SELECT pg_temp.set_now(pg_temp.t0() + interval '1 hour 5 minutes');
UPDATE mixdnn.jobs SET status = 'completed' WHERE name = 'a';
:commit
SELECT pg_temp.set_now((SELECT planned_start FROM mixdnn.jobs WHERE name = 'g'));
SELECT is(mixdnn.launch_due(), 1, 'gang: once a has ended g launches');
SELECT is(pg_temp.held('g'), 12::bigint, 'gang: g holds all its 12 GPUs');
SELECT is((SELECT sum(gpus) FROM mixdnn.job_parts WHERE job_id = pg_temp.jid('g')), 12::bigint,
	'gang: g''s parts add up to 12 GPUs');
UPDATE mixdnn.jobs SET status = 'cancelled' WHERE name = 'g';
:commit

---------------------------------------------------------------- a gang job on two nodes
-- w (8 GPUs) runs on n1 and n2, attempt 1; both launchers claim it.
SELECT pg_temp.set_now(pg_temp.t0() + interval '3 hours');
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('w', 'hard', 'v100', 8, '1h');
:commit
SELECT is(mixdnn.launch_due(), 1, 'w launches');
CREATE TEMP TABLE w AS
	SELECT array_agg(node ORDER BY node) AS nodes FROM mixdnn.job_parts WHERE job_id = pg_temp.jid('w');
SELECT is(array_length((SELECT nodes FROM w), 1), 2, '(setup) w has a part on each of two nodes');
CREATE TEMP TABLE idle AS
	SELECT node FROM mixdnn.gpu_nodes WHERE node NOT IN (SELECT node FROM mixdnn.job_parts WHERE job_id = pg_temp.jid('w'));
SELECT results_eq($$SELECT job_id, (env->>'MIXDNN_ATTEMPT')::int FROM mixdnn.claim((SELECT nodes[1] FROM w))$$,
	$$VALUES (pg_temp.jid('w'), 1)$$, 'claim by the first node returns w, attempt 1');
SELECT is(pg_temp.parts('w'), format('1:%s:running 1:%s:launching', (SELECT nodes[1] FROM w), (SELECT nodes[2] FROM w)),
	'claim by one node leaves the other node''s part launching');
SELECT is((SELECT count(*) FROM mixdnn.claim((SELECT nodes[2] FROM w))), 1::bigint, 'the second node claims its part');

-- Heartbeat: half a lease later only the first node heartbeats.
SELECT pg_temp.set_now(pg_temp.t0() + interval '3 hours' + current_setting('mixdnn.lease_timeout')::interval / 2);
SELECT is(mixdnn.heartbeat((SELECT nodes[1] FROM w)), 1, 'heartbeat of the first node renews one part');
SELECT is(pg_temp.lease('w', (SELECT nodes[1] FROM w)), mixdnn.now() + current_setting('mixdnn.lease_timeout')::interval,
	'... its own lease: now + lease_timeout');
SELECT is(pg_temp.lease('w', (SELECT nodes[2] FROM w)), pg_temp.t0() + interval '3 hours' + current_setting('mixdnn.lease_timeout')::interval,
	'... and not the other node''s (still claim time + lease_timeout)');
SELECT is(mixdnn.heartbeat((SELECT node FROM idle)), 0, 'heartbeat of a node without parts renews none');

-- A report from a node that holds no part of w.
SELECT is(mixdnn.finish(pg_temp.jid('w'), 0, (SELECT node FROM idle), 1), false,
	'finish from a node without a part of w does not count');
SELECT is(mixdnn.finish(pg_temp.jid('w'), 1, (SELECT node FROM idle)), false,
	'... nor with a failure and no attempt');
:commit
SELECT results_eq($$SELECT status, exit_code FROM mixdnn.jobs WHERE name = 'w'$$, $$VALUES ('running'::text, NULL::int)$$,
	'w still runs');
SELECT is(pg_temp.parts('w'), format('1:%s:running 1:%s:running', (SELECT nodes[1] FROM w), (SELECT nodes[2] FROM w)),
	'both of w''s parts still run');

-- The first node finishes its part; then the same report comes again, as a failure.
SELECT is(mixdnn.finish(pg_temp.jid('w'), 0, (SELECT nodes[1] FROM w), 1), true, 'the first node''s report counts');
:commit
SELECT is((SELECT status FROM mixdnn.jobs WHERE name = 'w'), 'running', 'w runs on until its other part ends');
SELECT is(mixdnn.finish(pg_temp.jid('w'), 1, (SELECT nodes[1] FROM w), 1), false,
	'a second report of the same part does not count');
SELECT is(mixdnn.finish(pg_temp.jid('w'), 0, (SELECT nodes[1] FROM w)), false,
	'... nor a third, without an attempt');
:commit
SELECT results_eq($$SELECT status, exit_code FROM mixdnn.jobs WHERE name = 'w'$$, $$VALUES ('running'::text, NULL::int)$$,
	'w is not failed by the repeated report');
SELECT results_eq($$SELECT node, state, exit_code FROM mixdnn.job_parts WHERE job_id = pg_temp.jid('w') ORDER BY node$$,
	$$VALUES ((SELECT nodes[1] FROM w), 'completed'::text, 0), ((SELECT nodes[2] FROM w), 'running', NULL)$$,
	'the first part keeps its first report (exit 0); the second part runs');
SELECT is(mixdnn.finish(pg_temp.jid('w'), 0, (SELECT nodes[2] FROM w), 1), true, 'the second node''s report counts');
:commit
SELECT results_eq($$SELECT status, exit_code FROM mixdnn.jobs WHERE name = 'w'$$, $$VALUES ('completed'::text, 0)$$,
	'w is completed when both parts are');
SELECT is(mixdnn.finish(pg_temp.jid('w'), 3, (SELECT nodes[2] FROM w), 1), false,
	'a report after completion does not count');
:commit
SELECT results_eq($$SELECT status, exit_code FROM mixdnn.jobs WHERE name = 'w'$$, $$VALUES ('completed'::text, 0)$$,
	'w stays completed with exit code 0');

-- One failed part fails the gang; the other node's later exit-0 report does not revive it.
SELECT pg_temp.set_now(pg_temp.t0() + interval '4 hours');
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('f', 'hard', 'v100', 8, '1h');
:commit
SELECT is(mixdnn.launch_due(), 1, 'f launches on two nodes');
CREATE TEMP TABLE fn AS
	SELECT array_agg(node ORDER BY node) AS nodes FROM mixdnn.job_parts WHERE job_id = pg_temp.jid('f');
SELECT is((SELECT count(*) FROM mixdnn.claim(n)), 1::bigint, 'f: ' || n || ' claims its part')
	FROM unnest((SELECT nodes FROM fn)) n;
SELECT is(mixdnn.finish(pg_temp.jid('f'), 2, (SELECT nodes[1] FROM fn), 1), true, 'f: one part exits with code 2');
:commit
SELECT results_eq($$SELECT status, exit_code, pg_temp.held('f') FROM mixdnn.jobs WHERE name = 'f'$$,
	$$VALUES ('failed'::text, 2, 0::bigint)$$, 'f is failed with that code and its GPUs are released');
SELECT is(mixdnn.finish(pg_temp.jid('f'), 0, (SELECT nodes[2] FROM fn), 1), false,
	'f: the other part''s later exit-0 report does not count');
:commit
SELECT is((SELECT status FROM mixdnn.jobs WHERE name = 'f'), 'failed', 'f stays failed');

---------------------------------------------------------------- attempt fencing
-- p (4 GPUs) runs attempt 1; its launcher goes silent and the lease
-- expires; the launcher returns and attempt 2 is launched and claimed.
SELECT pg_temp.set_now(pg_temp.t0() + interval '5 hours');
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('p', 'hard', 'v100', 4, '1h');
:commit
SELECT is(mixdnn.launch_due(), 1, 'p launches');
CREATE TEMP TABLE pn AS SELECT node FROM mixdnn.job_parts WHERE job_id = pg_temp.jid('p');
SELECT is((SELECT count(*) FROM mixdnn.claim((SELECT node FROM pn))), 1::bigint, 'p''s node claims attempt 1');
SELECT pg_temp.set_now(pg_temp.t0() + interval '5 hours 1 second' + current_setting('mixdnn.lease_timeout')::interval);
SELECT is(mixdnn.expire_leases(), 1, 'attempt 1''s lease runs out');
:commit
SELECT is(mixdnn.heartbeat((SELECT node FROM pn)), 0, 'the launcher returns with nothing to run');
:commit
-- Its node is the first to be free again: keep p there by taking the others down.
UPDATE mixdnn.gpu_nodes SET status = 'down' WHERE node <> (SELECT node FROM pn);
:commit
SELECT is(mixdnn.launch_due(), 1, 'p launches again');
SELECT results_eq($$SELECT attempt, status FROM mixdnn.jobs WHERE name = 'p'$$, $$VALUES (2, 'launching'::text)$$,
	'(setup) p is at attempt 2');
SELECT results_eq($$SELECT job_id, (env->>'MIXDNN_ATTEMPT')::int FROM mixdnn.claim((SELECT node FROM pn))$$,
	$$VALUES (pg_temp.jid('p'), 2)$$, 'the claim returns attempt 2');
SELECT is(mixdnn.finish(pg_temp.jid('p'), 0, (SELECT node FROM pn), 1), false,
	'a late exit-0 report of attempt 1 does not count');
SELECT is(mixdnn.finish(pg_temp.jid('p'), 137, (SELECT node FROM pn), 1), false,
	'a late failure report of attempt 1 does not count');
:commit
SELECT results_eq($$SELECT status, exit_code, pg_temp.held('p') FROM mixdnn.jobs WHERE name = 'p'$$,
	$$VALUES ('running'::text, NULL::int, 4::bigint)$$, 'attempt 2 still runs and holds its 4 GPUs');
SELECT is(pg_temp.parts('p'), format('1:%1$s:lost 2:%1$s:running', (SELECT node FROM pn)),
	'attempt 1''s part stays lost, attempt 2''s runs');

-- A part of attempt 1 left launching or running (as a crash before the
-- start-up repair can leave it): claim and heartbeat ignore it.
UPDATE mixdnn.job_parts SET state = 'launching', lease_until = mixdnn.now()
	WHERE job_id = pg_temp.jid('p') AND attempt = 1;
SELECT is((SELECT count(*) FROM mixdnn.claim((SELECT node FROM pn))), 0::bigint,
	'claim does not take a part of attempt 1');
SELECT is(pg_temp.parts('p'), format('1:%1$s:launching 2:%1$s:running', (SELECT node FROM pn)),
	'... which stays launching');
UPDATE mixdnn.job_parts SET state = 'running' WHERE job_id = pg_temp.jid('p') AND attempt = 1;
SELECT is(mixdnn.heartbeat((SELECT node FROM pn)), 1, 'heartbeat renews only attempt 2''s part');
SELECT is((SELECT lease_until FROM mixdnn.job_parts WHERE job_id = pg_temp.jid('p') AND attempt = 1), mixdnn.now(),
	'... not attempt 1''s lease');

---------------------------------------------------------------- launcher restarts
-- A restarted launcher either adopts a running part (its keeper lived on:
-- docs/launcher.md, "Restart") and goes on heartbeating and reporting it,
-- or gives it up with reset_node(node, job); the job is then re-queued and
-- a late report of the given-up attempt must not count against the next.
SELECT pg_temp.set_now(pg_temp.t0() + interval '10 hours');
UPDATE mixdnn.jobs SET status = 'cancelled' WHERE status IN ('pending', 'planned', 'launching', 'running');
:commit
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('ad', 'hard', 'v100', 4, '1h');
:commit
SELECT is(mixdnn.launch_due(), 1, 'restart: ad launches');
CREATE TEMP TABLE adn AS SELECT node FROM mixdnn.job_parts WHERE job_id = pg_temp.jid('ad');
SELECT is((SELECT count(*) FROM mixdnn.claim((SELECT node FROM adn))), 1::bigint, 'restart: ad''s part is claimed');
-- Adopted: the new launcher sees the part in node_parts, heartbeats it and reports it once.
SELECT pg_temp.set_now(pg_temp.t0() + interval '10 hours 30 seconds');
SELECT results_eq($$SELECT job_id, attempt, state FROM mixdnn.node_parts((SELECT node FROM adn))$$,
	$$VALUES (pg_temp.jid('ad'), 1, 'running'::text)$$, 'restart: node_parts lists the adopted part');
SELECT is((SELECT gpus FROM mixdnn.node_parts((SELECT node FROM adn))),
	(SELECT pg_catalog.string_agg(gpu_index::text, ',' ORDER BY gpu_index) FROM mixdnn.gpu_holds
	 WHERE job_id = pg_temp.jid('ad')),
	'restart: ... with the GPUs it holds, for a launcher whose keeper has not said them');
SELECT is((SELECT pg_catalog.array_length(pg_catalog.string_to_array(gpus, ','), 1)
		   FROM mixdnn.node_parts((SELECT node FROM adn))), 4, '... all four of them');
SELECT is(mixdnn.heartbeat((SELECT node FROM adn)), 1, 'restart: the new launcher''s heartbeat renews it');
SELECT is(mixdnn.finish(pg_temp.jid('ad'), 0, (SELECT node FROM adn), 1), true,
	'restart: the adopted part''s exit code counts');
SELECT is(mixdnn.finish(pg_temp.jid('ad'), 0, (SELECT node FROM adn), 1), false,
	'restart: a report repeated across the restart does not count again');
:commit
SELECT results_eq($$SELECT status, exit_code, attempt FROM mixdnn.jobs WHERE name = 'ad'$$,
	$$VALUES ('completed'::text, 0, 1)$$, 'restart: ad completed once, at attempt 1');

-- Given up: the new launcher found no keeper for rg's part.
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('rg', 'hard', 'v100', 4, '1h');
:commit
SELECT is(mixdnn.launch_due(), 1, 'restart: rg launches');
CREATE TEMP TABLE rgn AS SELECT node FROM mixdnn.job_parts WHERE job_id = pg_temp.jid('rg');
SELECT is((SELECT count(*) FROM mixdnn.claim((SELECT node FROM rgn))), 1::bigint, 'restart: rg''s part is claimed');
SELECT is(mixdnn.reset_node((SELECT node FROM rgn), pg_temp.jid('rg')), 1, 'restart: reset_node gives rg''s part up');
:commit
SELECT results_eq($$SELECT status, pg_temp.held('rg') FROM mixdnn.jobs WHERE name = 'rg'$$,
	$$VALUES ('planned'::text, 0::bigint)$$, 'restart: rg is re-queued and holds no GPU');
SELECT is((SELECT reason FROM mixdnn.job_events WHERE job_id = pg_temp.jid('rg') AND new_status = 'planned'
			 AND old_status = 'running'),
	pg_catalog.format('node %s no longer runs it (its launcher restarted or lost the answer to its claim, or the part''s lease ran out); re-queued after attempt 1',
					  (SELECT node FROM rgn)),
	'restart: the job''s reason says its node no longer runs it, not that the launcher restarted');
SELECT pg_temp.set_now((SELECT planned_start FROM mixdnn.jobs WHERE name = 'rg'));
SELECT is(mixdnn.launch_due(), 1, 'restart: rg launches again');
SELECT is((SELECT attempt FROM mixdnn.jobs WHERE name = 'rg'), 2, 'restart: (setup) rg is at attempt 2');
SELECT is(mixdnn.finish(pg_temp.jid('rg'), 0, (SELECT node FROM rgn), 1), false,
	'restart: a late report of the given-up attempt 1 does not count');
:commit
SELECT results_eq($$SELECT status, exit_code FROM mixdnn.jobs WHERE name = 'rg'$$,
	$$VALUES ('launching'::text, NULL::int)$$, 'restart: attempt 2 goes on, its exit code unset');
SELECT is(mixdnn.reset_node((SELECT node FROM rgn), pg_temp.jid('rg')), 0,
	'restart: reset_node gives up only claimed parts (attempt 2 is still launching)');
-- The whole node: its launcher restarted.
SELECT is((SELECT count(*) FROM mixdnn.claim((SELECT node FROM rgn))), 1::bigint, 'restart: rg''s attempt 2 is claimed');
SELECT is(mixdnn.reset_node((SELECT node FROM rgn)), 1, 'restart: reset_node(node) gives up every claimed part');
:commit
SELECT is((SELECT reason FROM mixdnn.job_events WHERE job_id = pg_temp.jid('rg') AND new_status = 'planned'
			 AND old_status = 'running' ORDER BY event_id DESC LIMIT 1),
	pg_catalog.format('launcher of node %s restarted; re-queued after attempt 2', (SELECT node FROM rgn)),
	'restart: reset_node(node) says the launcher restarted');

SELECT * FROM finish();
ROLLBACK;
