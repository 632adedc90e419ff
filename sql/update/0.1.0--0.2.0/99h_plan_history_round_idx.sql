-- 99h_plan_history_round_idx.sql — mixdnn.purge_history deletes rounds, and
-- the foreign key of plan_history looked up each one's revisions by reading
-- the whole table: 20 000 old rounds took 7.3 s, 200 000 more than 7
-- minutes of the worker's cycle, with no launch meanwhile.
CREATE INDEX plan_history_round_idx ON mixdnn.plan_history (round_id);
