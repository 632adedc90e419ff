-- 41_node_type.sql — a node whose GPUs are held cannot change its gpu_type
-- (55006), as it cannot shrink below them: its jobs were planned and
-- launched for that type. Also the upgrade piece 0.1.0--0.2.0/99l (a link
-- to this file), so that both create the same objects.
-- A node whose GPUs are held keeps its type as it keeps its GPU count:
-- its jobs run on the type they were planned and launched for.
CREATE FUNCTION mixdnn._node_type_in_use() RETURNS trigger
	LANGUAGE plpgsql SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	held	record;
BEGIN
	SELECT h.gpu_index, h.job_id INTO held FROM mixdnn.gpu_holds h WHERE h.node = OLD.node LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION 'node % cannot change its gpu_type: GPU % is held by job %', OLD.node, held.gpu_index, held.job_id
			USING ERRCODE = 'object_in_use',
				  HINT = 'Drain the node and wait for its jobs to finish first.';
	END IF;
	RETURN NEW;
END
$$;
COMMENT ON FUNCTION mixdnn._node_type_in_use() IS 'internal trigger: a node whose GPUs are held keeps its gpu_type';
REVOKE ALL ON FUNCTION mixdnn._node_type_in_use() FROM PUBLIC;

CREATE TRIGGER gpu_nodes_type_in_use BEFORE UPDATE OF gpu_type ON mixdnn.gpu_nodes
	FOR EACH ROW WHEN (OLD.gpu_type IS DISTINCT FROM NEW.gpu_type AND NOT mixdnn._loading())
	EXECUTE FUNCTION mixdnn._node_type_in_use();
