-- Everything works without shared_preload_libraries except the launch
-- worker: planned jobs then start only when mixdnn.launch_due() is called.
DO $preload$
BEGIN
	IF NOT EXISTS (SELECT FROM pg_catalog.unnest(pg_catalog.string_to_array(
						pg_catalog.current_setting('shared_preload_libraries'), ',')) l
				   WHERE pg_catalog.btrim(l, ' "') IN ('mixdnn', '$libdir/mixdnn')) THEN
		RAISE WARNING 'mixdnn is not in shared_preload_libraries: no launch worker will start planned jobs'
			USING DETAIL = 'Rounds run at commit; jobs start only when mixdnn.launch_due() is called.',
				  HINT = 'Add mixdnn to shared_preload_libraries in postgresql.conf and restart the server.';
	END IF;
END
$preload$;
