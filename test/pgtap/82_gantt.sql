-- 82_gantt.sql — mixdnn.gantt_svg(): a well-formed SVG with one bar per GPU
-- of what ran (per node) and of what is planned (per GPU type), in the
-- window only; others' job names never appear.
--
-- Scenario: n1 with 4 v100. alice's a-run (2 GPUs, 1 h) and bob's
-- b-secret (2 GPUs, 1 h) launch at t0; alice's a-next (4 GPUs, 1 h) is
-- planned at +1 h.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(22);

CREATE ROLE tap82_alice NOLOGIN IN ROLE mixdnn_user;
CREATE ROLE tap82_bob NOLOGIN IN ROLE mixdnn_user;
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n1', 'v100', 4);
:commit
SET LOCAL ROLE tap82_alice;
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('a-run', 'hard', 'v100', 2, '1 h');
:commit
RESET ROLE;
SET LOCAL ROLE tap82_bob;
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('b-secret', 'hard', 'v100', 2, '1 h');
:commit
RESET ROLE;
SELECT is(mixdnn.launch_due(), 2, '(setup) a-run and b-secret launch at t0');
SET LOCAL ROLE tap82_alice;
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('a-next', 'hard', 'v100', 4, '1 h');
:commit
CREATE TEMP TABLE g AS SELECT mixdnn.gantt_svg(pg_temp.t0() - interval '1 hour', pg_temp.t0() + interval '3 hours') AS svg;
SELECT ok(xml_is_well_formed_document((SELECT svg FROM g)), 'a well-formed XML document');
SELECT is((xpath('name(/*)', (SELECT svg FROM g)::xml))[1]::text, 'svg', 'its root is an svg element');
SELECT is((SELECT count(*) FROM g, regexp_matches(svg, '<rect class="running"', 'g')), 4::bigint,
	'one bar per GPU of what runs: 2 + 2 on n1, drawn to their expected end');
SELECT is((SELECT count(*) FROM g, regexp_matches(svg, '<rect class="planned"', 'g')), 4::bigint,
	'one bar per GPU of what is planned: 4 v100');
SELECT is((SELECT count(*) FROM g, regexp_matches(svg, '<rect class="plan" data-job="' || pg_temp.jid('a-run') || '" x="([0-9.]+)"', 'g') m
		   WHERE m[1] = (SELECT substring(svg FROM '<rect class="running" data-job="' || pg_temp.jid('a-run') || '" x="([0-9.]+)"') FROM g)),
	2::bigint, 'each GPU bar of a-run carries its first plan, which started where it ran (planned versus actual)');
SELECT is((xpath('count(//s:line[@x1 != @x2 and @y1 != @y2])', (SELECT svg FROM g)::xml,
					ARRAY[ARRAY['s', 'http://www.w3.org/2000/svg']]))[1]::text, '0',
	'every rule of the chart (lane separators, ticks, now) is horizontal or vertical');
SELECT ok((SELECT svg LIKE '%"a-next"%' AND svg LIKE '%"a-run"%' FROM g), 'alice''s job names are in the titles');
SELECT ok((SELECT svg NOT LIKE '%b-secret%' AND svg LIKE '%of tap82_bob%' FROM g),
	'bob''s job is drawn, with its owner, but without its name');
SELECT is((SELECT count(*) FROM regexp_matches(mixdnn.gantt_svg(pg_temp.t0() + interval '5 hours', pg_temp.t0() + interval '6 hours'),
	'<rect class=', 'g')), 0::bigint, 'a window after every plan has no bars');
SELECT throws_ok($$SELECT mixdnn.gantt_svg(pg_temp.t0(), pg_temp.t0())$$, '22023', NULL, 'an empty window is refused');
SELECT throws_ok($$SELECT mixdnn.gantt_svg(NULL, pg_temp.t0())$$, '22004', NULL, 'a NULL bound is refused');

-- A name may hold any character, controls too; XML 1.0 forbids most of them
-- even escaped, so one raw in a title made the whole chart unreadable.
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration)
	VALUES (E'ctl\x01\x1b]0;x\x07 ]]> <b>&amp;', 'hard', 'v100', 1, '10 min'),
		   (E'nonchar\uFFFE\uFFFFx', 'hard', 'v100', 1, '10 min');
:commit
CREATE TEMP TABLE g2 AS SELECT mixdnn.gantt_svg(pg_temp.t0() - interval '1 hour', pg_temp.t0() + interval '3 hours') AS svg;
SELECT ok(xml_is_well_formed_document((SELECT svg FROM g2)), 'a job name with control characters keeps the chart well-formed XML');
SELECT ok((SELECT svg ~ '\(hard, 1 GPU, ' AND svg !~ '[^0-9]1 GPUs' AND svg ~ '\(hard, 2 GPUs, ' FROM g2),
	'a title counts one GPU in the singular ("1 GPU"), two in the plural');
SELECT ok((SELECT svg LIKE '%"ctl??]0;x? ]]&gt; &lt;b&gt;&amp;amp;"%' FROM g2),
	'its name is drawn, the controls as ?, the markup escaped');
SELECT ok((SELECT svg LIKE '%"nonchar??x"%' FROM g2), 'U+FFFE and U+FFFF, which XML forbids too, as ?');

-- Tick labels: to the second when the ticks are not on whole minutes.
SELECT is((SELECT count(DISTINCT m[1]) FROM regexp_matches(mixdnn.gantt_svg(pg_temp.t0(), pg_temp.t0() + interval '3 min'),
	'<text class="tick" x="[0-9.]+" y="34">([^<]*)</text>', 'g') m), 6::bigint,
	'a 3-minute window has six different tick labels (to the minute, they repeated)');
SELECT is((SELECT count(*) FROM regexp_matches(mixdnn.gantt_svg(date_trunc('hour', pg_temp.t0()), date_trunc('hour', pg_temp.t0()) + interval '5 hours'),
	'<text class="tick" x="[0-9.]+" y="34">[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}</text>', 'g')), 6::bigint,
	'a 5-hour window from a whole hour is labelled to the minute');
SELECT is((SELECT count(DISTINCT m[1]) FROM regexp_matches(mixdnn.gantt_svg(pg_temp.t0(), pg_temp.t0() + interval '2 s'),
	'<text class="tick" x="[0-9.]+" y="34">([^<]*)</text>', 'g') m), 6::bigint,
	'a 2-second window has six different tick labels (to the millisecond)');
-- Ticks are even in UTC: in Berlin, 29 March 2026 has 23 hours, and the
-- fourth tick of five days read 03-29 23:00.
SET LOCAL timezone = 'Europe/Berlin';
SELECT is((SELECT array_agg(m[1]) FROM regexp_matches(mixdnn.gantt_svg('2026-03-27 00:00+00', '2026-04-01 00:00+00'),
	'<text class="tick" x="[0-9.]+" y="34">([^<]*)</text>', 'g') m),
	ARRAY['03-27 00:00', '03-28 00:00', '03-29 00:00', '03-30 00:00', '03-31 00:00', '04-01 00:00'],
	'ticks across a DST change are a day apart in UTC');
RESET timezone;
SELECT is(((SELECT array_agg(m[1]) FROM regexp_matches(mixdnn.gantt_svg('2021-01-01 00:00+00', '2026-01-01 00:00+00'),
	'<text class="tick" x="[0-9.]+" y="34">([^<]*)</text>', 'g') m))[6], '2026-01-01 00:00',
	'a window over several years has the year in its labels');
RESET ROLE;

-- A large cluster's history: 2000 more nodes, 6000 finished one-GPU parts
-- (rows written directly, triggers off). Every bar is drawn, in one scan:
-- reading all history once per lane took about 27 s here, so the 20 s limit
-- fails it; tools/bench/surface.sh reports the real figure.
SET LOCAL session_replication_role = replica;
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) SELECT 'big' || i, 'v100', 4 FROM generate_series(1, 2000) i;
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration, status, submitted_at)
	SELECT 'big-' || i, 'hard', 'v100', 1, '1h', 'completed', pg_temp.t0() - interval '1 hour' FROM generate_series(1, 6000) i;
INSERT INTO mixdnn.job_events (job_id, at, old_status, new_status)
	SELECT job_id, pg_temp.t0() - interval '50 min', 'planned', 'launching' FROM mixdnn.jobs WHERE name LIKE 'big-%';
INSERT INTO mixdnn.job_parts (job_id, attempt, node, node_rank, gpus, state, claimed_at, finished_at, exit_code)
	SELECT job_id, 1, 'big' || (1 + job_id % 2000), 0, 1, 'completed', pg_temp.t0() - interval '50 min', pg_temp.t0() - interval '10 min', 0
	FROM mixdnn.jobs WHERE name LIKE 'big-%';
SET LOCAL session_replication_role = origin;
SET LOCAL statement_timeout = '20s';
SELECT is((SELECT count(*) FROM regexp_matches(mixdnn.gantt_svg(pg_temp.t0() - interval '1 hour', pg_temp.t0() + interval '3 hours'),
	'<rect class="ran"', 'g')), 6000::bigint, '2001 nodes and 6000 parts: every part''s bar is drawn, within 20 s');
SET LOCAL statement_timeout = 0;

SELECT * FROM finish();
ROLLBACK;
