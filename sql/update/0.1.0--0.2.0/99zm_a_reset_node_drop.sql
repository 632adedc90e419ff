-- 99zm_a_reset_node_drop.sql — reset_node() takes the launcher's cause of a
-- hand-back: the 2-argument reset_node(node, job_id) of 0.1.0 is dropped,
-- and 99zm_b (a link to 60_reset_node.sql) makes the one
-- reset_node(node, job_id, cause) with its grant; calls with one or two
-- arguments resolve to it. (It also has the reason per job that 97 once
-- gave the 2-argument function.)
DROP FUNCTION mixdnn.reset_node(text, bigint);
