-- 42_node_name.sql — a node keeps its name (0A000). Also the upgrade piece
-- 0.1.0--0.2.0/99o (a link to this file), so that both create the same
-- objects.
-- A node's name is the --node its launcher runs with, and the key of its
-- GPUs, its jobs' parts and holds: renaming it would leave the launcher
-- claiming for a node that no longer exists (before, the foreign key of
-- mixdnn.gpus refused it with a raw 23503).
CREATE FUNCTION mixdnn._node_keeps_name() RETURNS trigger
	LANGUAGE plpgsql
	SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	RAISE EXCEPTION 'node % cannot be renamed to %', OLD.node, NEW.node
		USING ERRCODE = 'feature_not_supported',
			  DETAIL = 'A node''s name is the --node of its launcher and names its GPUs and its jobs'' parts.',
			  HINT = 'Register the new name as another node, drain the old one, and delete it once its jobs have finished.';
END
$$;
COMMENT ON FUNCTION mixdnn._node_keeps_name() IS 'internal trigger: a node cannot be renamed';
REVOKE ALL ON FUNCTION mixdnn._node_keeps_name() FROM PUBLIC;

CREATE TRIGGER gpu_nodes_keep_name BEFORE UPDATE OF node ON mixdnn.gpu_nodes
	FOR EACH ROW WHEN (OLD.node IS DISTINCT FROM NEW.node)
	EXECUTE FUNCTION mixdnn._node_keeps_name();
