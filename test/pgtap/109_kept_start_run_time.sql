-- 109_kept_start_run_time.sql — explain and what_if tell the start that
-- mixdnn.queue will show by the write-back's own rule (mx_kept_start calls
-- decision_changed): a start moved later within mixdnn.replan_tolerance is
-- kept only when the configuration and the run time are the same. Before,
-- explain compared the configuration alone and said "the stored plan keeps
-- its earlier start" of a job whose run time had changed (a profile
-- changed), whose row the next round rewrote.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(4);
CREATE ROLE tap109_alice NOLOGIN IN ROLE mixdnn_user;
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n1', 'v100', 2);
:commit

-- ea runs now for an hour, eb after it; eb's stored plan starts 5 minutes
-- early (within 10 % of the 55 minutes until it) and runs 50 minutes, not
-- the hour a round now computes.
SELECT pg_temp.submit('tap109_alice', 'ea', 'v100', 2, '1h');
:commit
SELECT pg_temp.submit('tap109_alice', 'eb', 'v100', 2, '1h');
:commit
SELECT is(mixdnn.launch_due(), 1, 'ea launches');
UPDATE mixdnn.jobs SET planned_start = pg_temp.t0() + interval '55 min', planned_end = pg_temp.t0() + interval '105 min'
WHERE name = 'eb';
SET LOCAL ROLE tap109_alice;
SELECT unalike((SELECT detail FROM mixdnn.explain(pg_temp.jid('eb'))), '%keeps its earlier start%',
	'explain does not say the stored start is kept when the run time differs');
RESET ROLE;
SELECT isnt_empty('SELECT mixdnn.run_round(''test'')', 'a round runs');
SELECT is((SELECT (planned_start, planned_end) FROM mixdnn.jobs WHERE name = 'eb'),
	(pg_temp.t0() + interval '1 hour', pg_temp.t0() + interval '2 hours'),
	'... and rewrites eb''s row, start and end, as explain implied');

SELECT * FROM finish();
ROLLBACK;
