--
-- 04_transitions: mixdnn.status_transitions, the job status machine.
--
SELECT from_status, to_status, by_whom FROM mixdnn.status_transitions
ORDER BY array_position(ARRAY['pending', 'planned', 'launching', 'running', 'completed', 'failed', 'cancelled'], from_status),
		 array_position(ARRAY['pending', 'planned', 'launching', 'running', 'completed', 'failed', 'cancelled'], to_status);

-- Every non-final status may be cancelled by its user (SPEC §3).
SELECT s AS not_cancellable_by_user
FROM unnest(ARRAY['pending', 'planned', 'launching', 'running']) s
WHERE NOT EXISTS (SELECT FROM mixdnn.status_transitions t
				  WHERE t.from_status = s AND t.to_status = 'cancelled' AND t.by_whom = 'user');
-- Final states are final (expect no rows).
SELECT * FROM mixdnn.status_transitions WHERE from_status IN ('completed', 'failed', 'cancelled');
-- Every status named in the table is a valid job status (expect no rows).
SELECT DISTINCT s FROM mixdnn.status_transitions, LATERAL (VALUES (from_status), (to_status)) v(s)
WHERE s NOT IN ('pending', 'planned', 'launching', 'running', 'completed', 'failed', 'cancelled');
-- Only the scheduler launches, runs and re-queues.
SELECT from_status, to_status FROM mixdnn.status_transitions
WHERE to_status IN ('planned', 'launching', 'running') AND by_whom <> 'system' ORDER BY 1, 2;
-- Users read the table but cannot change it.
CREATE ROLE regress_mixdnn_reader NOLOGIN IN ROLE mixdnn_user;
SET ROLE regress_mixdnn_reader;
SELECT count(*) AS transitions FROM mixdnn.status_transitions;
INSERT INTO mixdnn.status_transitions VALUES ('completed', 'running', 'user');
DELETE FROM mixdnn.status_transitions;
RESET ROLE;
DROP ROLE regress_mixdnn_reader;
-- by_whom is checked.
INSERT INTO mixdnn.status_transitions VALUES ('completed', 'pending', 'anyone');
