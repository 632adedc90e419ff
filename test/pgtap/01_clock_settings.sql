-- 01_clock_settings.sql — the scheduler clock mixdnn.now() and who may move it.
--
-- Mode: no rounds are needed here (no SET CONSTRAINTS, no run_round).
-- Everything runs in one transaction that is rolled back; the test role is
-- created inside it, so it disappears with the ROLLBACK.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
SELECT plan(12);
SET LOCAL client_min_messages = warning;
SET LOCAL timezone = 'UTC';

CREATE ROLE tap01_user NOLOGIN IN ROLE mixdnn_user;
CREATE ROLE tap01_admin NOLOGIN IN ROLE mixdnn_admin;

SET LOCAL mixdnn.virtual_now = '2026-01-01 00:00+00';
SELECT is(mixdnn.now(), '2026-01-01 00:00+00'::timestamptz, 'mixdnn.now() returns mixdnn.virtual_now');

SET LOCAL mixdnn.virtual_now = '2026-03-04 05:06:07.123456+00';
SELECT is(mixdnn.now(), '2026-03-04 05:06:07.123456+00'::timestamptz, 'mixdnn.now() follows a new virtual_now, to the microsecond');

-- Many calls while the real clock moves on (the second column shows it did).
SELECT results_eq($$SELECT count(DISTINCT mixdnn.now()), count(DISTINCT clock_timestamp()) > 1,
						   min(mixdnn.now()) FROM generate_series(1, 20000)$$,
	$$VALUES (1::bigint, true, '2026-03-04 05:06:07.123456+00'::timestamptz)$$,
	'the virtual clock stands still while the real clock moves (no drift between calls)');

SET LOCAL mixdnn.virtual_now = '';
SELECT ok(mixdnn.now() BETWEEN clock_timestamp() - interval '1 minute' AND clock_timestamp() + interval '1 minute',
	'an empty virtual_now uses the real clock');

SELECT throws_ok($$SET mixdnn.virtual_now = 'not a time'$$, '22023', NULL,
	'a malformed virtual_now is rejected');
SELECT throws_ok($$SET mixdnn.virtual_now = 'infinity'$$, '22023', NULL,
	'an infinite virtual_now is rejected');

-- A time read when it is set would pin each session's clock at its own
-- moment, and each reload anew, all shown as 'now' (before, accepted: an
-- audit). A fixed time, 'epoch' too, is taken.
CREATE FUNCTION pg_temp.tap01_set(v text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_catalog.set_config('mixdnn.virtual_now', v, true);
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE;
END $$;
SELECT is((SELECT string_agg(v || ' ' || pg_temp.tap01_set(v), ', ' ORDER BY o)
	FROM unnest(ARRAY['now', 'today', 'Tomorrow', 'yesterday 12:00', '2026-01-01 now', 'epoch', '2026-01-01 00:00+00'])
		WITH ORDINALITY u(v, o)),
	'now 22023, today 22023, Tomorrow 22023, yesterday 12:00 22023, 2026-01-01 now 22023, epoch ok, 2026-01-01 00:00+00 ok',
	'a virtual_now read when it is set (now, today, tomorrow, yesterday) is rejected (22023), as is a malformed one (2026-01-01 now)');

SET LOCAL mixdnn.virtual_now = '2026-01-01 00:00+00';

-- A plain user and an admin may read the clock but not move it.
SET LOCAL ROLE tap01_user;
SELECT is(mixdnn.now(), '2026-01-01 00:00+00'::timestamptz, 'a mixdnn_user reads the pinned clock');
SELECT throws_ok($$SET mixdnn.virtual_now = '2030-01-01 00:00+00'$$, '42501', NULL,
	'a mixdnn_user cannot set mixdnn.virtual_now (42501)');
RESET ROLE;
SET LOCAL ROLE tap01_admin;
SELECT throws_ok($$SET mixdnn.virtual_now = '2030-01-01 00:00+00'$$, '42501', NULL,
	'a mixdnn_admin cannot set mixdnn.virtual_now either (superuser only)');
RESET ROLE;
SELECT is(mixdnn.now(), '2026-01-01 00:00+00'::timestamptz, 'the refused SETs left the clock where it was');

-- Unknown settings under the reserved prefix are refused.
SELECT throws_ok($$SET mixdnn.no_such_setting = 1$$, '42602', NULL,
	'the mixdnn. prefix is reserved: unknown settings are errors');

SELECT * FROM finish();
ROLLBACK;
