-- 61_renew_leases.sql — one more lease for every active part, which the
-- launch worker grants only at its first repair after the server started
-- (a crash, a promotion) and after a data load, when launchers could not
-- have renewed them. It was part of mixdnn._repair(), which every start of
-- the worker runs: a worker restarted every 40 s (ALTER DATABASE SET, a
-- terminated worker) kept a lost launcher's parts alive for ever (a
-- review). Also the upgrade piece 0.1.0--0.2.0/99m (a link to this file).
CREATE FUNCTION mixdnn._renew_leases() RETURNS int
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS $$
DECLARE
	k	int;
BEGIN
	UPDATE mixdnn.job_parts p SET lease_until = GREATEST(p.lease_until, mixdnn.now() + mixdnn._lease())
		WHERE p.state IN ('launching', 'running');
	GET DIAGNOSTICS k = ROW_COUNT;
	RETURN k;
END
$$;
COMMENT ON FUNCTION mixdnn._renew_leases() IS 'internal: one more lease for every active part, after a server start, a promotion or a data load';
REVOKE ALL ON FUNCTION mixdnn._renew_leases() FROM PUBLIC;
