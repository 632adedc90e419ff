-- 22_lease.sql — the lease a claim or heartbeat grants (mixdnn._lease()) is
-- mixdnn.lease_timeout in seconds, as mixdnn.launch_due() grants it: one
-- default, in src/pg/guc.c. (The setting is reloaded, not SET, so only its
-- current value can be checked here.)
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
SELECT plan(2);
SET LOCAL client_min_messages = warning;

SELECT is(mixdnn._lease(),
		  make_interval(secs => (SELECT setting::int FROM pg_settings WHERE name = 'mixdnn.lease_timeout')),
		  'the lease is mixdnn.lease_timeout');
SELECT is(mixdnn._lease()::text, make_interval(secs => (SELECT setting::int FROM pg_settings
														WHERE name = 'mixdnn.lease_timeout'))::text,
		  'in seconds, never days (a day across a daylight-saving change is not 86400 s)');

SELECT * FROM finish();
ROLLBACK;
