-- tools/bench/export_snapshot.sql — dump what a round would see into CSV
-- files that `mixdnn-bench --load DIR` replays (times relative to
-- mixdnn.now() at export). psql -v dir=/tmp/snap -f export_snapshot.sql
\set ON_ERROR_STOP on
\set QUIET on
-- Run as a superuser or the extension's owner against a real database:
-- names resolve in pg_catalog only, never in a schema of the session's
-- search_path that another role may create in (its array_to_string(text[],
-- text) would match allowed_types better than pg_catalog's and run with
-- this session's rights; docs/design.md, "How names are resolved").
SET search_path = pg_catalog, pg_temp;
SELECT mixdnn.now() AS t0 \gset
\set q_types 'COPY (SELECT gpu_type, speed FROM mixdnn.gpu_types ORDER BY gpu_type COLLATE "C") TO STDOUT CSV HEADER'
\set q_nodes 'COPY (SELECT node, gpu_type, gpus, status FROM mixdnn.gpu_nodes ORDER BY node COLLATE "C") TO STDOUT CSV HEADER'
\o :dir/types.csv
:q_types;
\o :dir/nodes.csv
:q_nodes;
\o :dir/running.csv
COPY (SELECT p.job_id, p.node, p.gpus,
			 coalesce(extract(epoch FROM j.planned_end - :'t0'::timestamptz), 0)::float8 AS end_s
		FROM mixdnn.job_parts p JOIN mixdnn.jobs j ON j.job_id = p.job_id AND j.attempt = p.attempt
		WHERE j.status IN ('launching', 'running') AND p.state IN ('launching', 'running')
		ORDER BY p.job_id, p.node_rank) TO STDOUT CSV HEADER;
\o :dir/waiting.csv
COPY (SELECT job_id, model_class, coalesce(gpu_type, '') AS gpu_type, gpus,
			 coalesce(min_gpus, gpus) AS min_gpus, coalesce(max_gpus, gpus) AS max_gpus,
			 coalesce(array_to_string(allowed_types, '|'), '') AS allowed_types,
			 extract(epoch FROM duration)::float8 AS duration_s, priority,
			 extract(epoch FROM :'t0'::timestamptz - submitted_at)::float8 AS age_s,
			 coalesce(planned_gpu_type, '') AS prev_type, coalesce(planned_gpus, 0) AS prev_gpus,
			 coalesce(extract(epoch FROM planned_start - :'t0'::timestamptz), 0)::float8 AS prev_start_s
		FROM mixdnn.jobs WHERE status IN ('pending', 'planned') ORDER BY job_id) TO STDOUT CSV HEADER;
\o
