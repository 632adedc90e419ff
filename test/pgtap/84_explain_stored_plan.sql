-- 84_explain_stored_plan.sql — mixdnn.explain() plans as a round would now;
-- when that puts the job on another configuration than its stored plan,
-- the chosen row says so. README's tutorial: resnet-b's round had the
-- configuration LP choose for both ResNet jobs; once resnet-a has launched
-- (no round runs for a launch), a round would put resnet-b on V100s, while
-- its stored plan is on P100s. A user trial read the chosen row as the
-- stored plan.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(5);

INSERT INTO mixdnn.gpu_types (gpu_type, speed, memory_gb)
VALUES ('k80', 0.35, 12), ('p100', 0.75, 16), ('v100', 1.0, 32);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus)
VALUES ('k80-0', 'k80', 4), ('p100-0', 'p100', 4), ('v100-0', 'v100', 4), ('v100-1', 'v100', 4);
INSERT INTO mixdnn.profiles (model, gpu_type, gpus, throughput) VALUES
  ('resnet50', 'v100', 1, 100), ('resnet50', 'v100', 2, 190), ('resnet50', 'v100', 4, 360),
  ('resnet50', 'p100', 1, 60),  ('resnet50', 'p100', 2, 115), ('resnet50', 'p100', 4, 220),
  ('resnet50', 'k80', 1, 22),   ('resnet50', 'k80', 2, 40),   ('resnet50', 'k80', 4, 70);
:commit
INSERT INTO mixdnn.jobs (name, model_class, gpu_type, gpus, duration) VALUES ('bert-large', 'hard', 'v100', 8, '2 hours');
:commit
SELECT is(mixdnn.launch_due(), 1, 'bert-large launches (the worker does, before the next submission)');
INSERT INTO mixdnn.jobs (name, model, gpu_type, gpus, duration)
VALUES ('resnet-a', 'resnet50', 'v100', 4, '1 hour'), ('resnet-b', 'resnet50', 'v100', 2, '1 hour');
:commit
SELECT is(mixdnn.launch_due(), 1, 'resnet-a launches on the P100s');
SELECT is((SELECT planned_gpu_type || ' ' || planned_gpus FROM mixdnn.jobs WHERE name = 'resnet-b'), 'p100 2',
	'resnet-b''s stored plan: 2 P100s, after resnet-a');
SELECT is((SELECT gpu_type || ' ' || gpus FROM mixdnn.explain(pg_temp.jid('resnet-b')) WHERE chosen), 'v100 2',
	'a round now would put it on 2 V100s (resnet-a no longer in the LP)');
SELECT alike((SELECT detail FROM mixdnn.explain(pg_temp.jid('resnet-b')) WHERE chosen),
	'%a round now would choose this, while the stored plan, from an earlier round, is 2 p100 GPUs%',
	'... and the chosen row says that the stored plan differs');

SELECT * FROM finish();
ROLLBACK;
