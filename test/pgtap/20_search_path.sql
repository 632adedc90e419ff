-- 20_search_path.sql — issue #9 item 1: code that runs with the extension
-- owner's rights resolves no name through the caller's search_path. A plain
-- mixdnn_user (and an admin) plants a type in pg_temp or an operator in a
-- schema of its own whose function makes it a superuser when run by one,
-- then makes a round, launch_due() or _job_can_run() run. Each round must
-- still plan (it ran, with pg_catalog's names), and nobody becomes superuser.
--
-- Every trap is dropped again before pgTAP itself runs: the test session is
-- a superuser's, and pgTAP's own functions would walk into them too.
\set ON_ERROR_STOP 1
\pset format unaligned
\pset tuples_only on
BEGIN;
\ir lib/fixture.sql
SELECT plan(12);

CREATE ROLE tap20_mallory NOLOGIN IN ROLE mixdnn_user;
CREATE ROLE tap20_boss NOLOGIN IN ROLE mixdnn_admin;
CREATE SCHEMA tap20_evil AUTHORIZATION tap20_mallory;
GRANT USAGE ON SCHEMA tap20_evil TO tap20_boss;

-- No round runs before the traps are set: a plan prepared earlier would hide them.
INSERT INTO mixdnn.gpu_types (gpu_type, speed) VALUES ('v100', 1.0);
INSERT INTO mixdnn.gpu_nodes (node, gpu_type, gpus) VALUES ('n1', 'v100', 8);

-- The payload: harmless as its creator, an escalation as any superuser.
SET LOCAL ROLE tap20_mallory;
CREATE FUNCTION tap20_evil.payload() RETURNS boolean
	LANGUAGE plpgsql AS $$
BEGIN
	IF (SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) CURRENT_USER) THEN
		EXECUTE 'ALTER ROLE tap20_mallory SUPERUSER';
		EXECUTE 'ALTER ROLE tap20_boss SUPERUSER';
	END IF;
	RETURN true;
END
$$;
GRANT EXECUTE ON FUNCTION tap20_evil.payload() TO PUBLIC;

-- 1. A domain pg_temp.float8 whose CHECK runs the payload; the round casts to float8.
CREATE DOMAIN pg_temp.float8 AS pg_catalog.float8 CHECK (tap20_evil.payload());
INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('m-1', 'v100', 2, '1h');
:commit
DROP DOMAIN pg_temp.float8;
RESET ROLE;
SELECT is((SELECT rolsuper FROM pg_roles WHERE rolname = 'tap20_mallory'), false,
	'a pg_temp.float8 domain does not make a user superuser through a round');
SELECT is((SELECT status FROM mixdnn.jobs WHERE name = 'm-1'), 'planned',
	'... and the round ran and planned her job with pg_catalog.float8');
-- Each case on its own: undo what the last one may have done.
ALTER ROLE tap20_mallory NOSUPERUSER;
ALTER ROLE tap20_boss NOSUPERUSER;

-- 2. An operator = (text, text) in her schema, first in her search_path.
SET LOCAL ROLE tap20_mallory;
CREATE FUNCTION tap20_evil.eq(a text, b text) RETURNS boolean
	LANGUAGE plpgsql AS $$
BEGIN
	PERFORM tap20_evil.payload();
	RETURN pg_catalog.texteq(a, b);
END
$$;
CREATE OPERATOR tap20_evil.= (LEFTARG = text, RIGHTARG = text, FUNCTION = tap20_evil.eq);
GRANT EXECUTE ON FUNCTION tap20_evil.eq(text, text) TO PUBLIC;
SET LOCAL search_path = tap20_evil, pg_catalog;
INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration) VALUES ('m-2', 'v100', 2, '1h');
SET CONSTRAINTS ALL IMMEDIATE;
SET CONSTRAINTS ALL DEFERRED;
RESET search_path;
RESET ROLE;
SELECT is((SELECT rolsuper FROM pg_roles WHERE rolname = 'tap20_mallory'), false,
	'an operator = in a user''s schema on her search_path does not make her superuser through a round');
SELECT is((SELECT status FROM mixdnn.jobs WHERE name = 'm-2'), 'planned',
	'... and the round ran and planned her job with pg_catalog''s =');
-- Each case on its own: undo what the last one may have done.
ALTER ROLE tap20_mallory NOSUPERUSER;
ALTER ROLE tap20_boss NOSUPERUSER;

-- 3. The same path for a direct call of _job_can_run (as the user, whose
-- cached plans a later round of the same backend must not reuse), then a
-- round with the ordinary path.
SET LOCAL ROLE tap20_mallory;
SET LOCAL search_path = tap20_evil, pg_catalog;
SELECT mixdnn._job_can_run('soft', 'v100', 2, 1, 2, NULL, 'm') AS can_run \gset
RESET search_path;
SELECT ok(:'can_run'::boolean, '(setup) _job_can_run under her path');
INSERT INTO mixdnn.jobs (name, gpu_type, gpus, duration, model) VALUES ('m-3', 'v100', 2, '1h', 'm');
:commit
RESET ROLE;
SELECT is((SELECT rolsuper FROM pg_roles WHERE rolname = 'tap20_mallory'), false,
	'a plan prepared by _job_can_run under her path is not reused by a round');
-- Each case on its own: undo what the last one may have done.
ALTER ROLE tap20_mallory NOSUPERUSER;
ALTER ROLE tap20_boss NOSUPERUSER;

-- 4. An admin's launch_due() and run_round() under the same path.
SELECT pg_temp.set_now(pg_temp.t0() + interval '1 second');
SET LOCAL ROLE tap20_boss;
SET LOCAL search_path = tap20_evil, pg_catalog;
SELECT mixdnn.launch_due() AS launched \gset
SELECT mixdnn.run_round('manual') AS round \gset
RESET search_path;
RESET ROLE;
SELECT is((SELECT rolsuper FROM pg_roles WHERE rolname = 'tap20_boss'), false,
	'launch_due() and run_round() under an admin''s hostile search_path make nobody superuser');
SELECT is(:launched, 3, '... and launch_due() launched the three jobs');
SELECT ok(:round > 0, '... and run_round() ran');
-- Each case on its own: undo what the last one may have done.
ALTER ROLE tap20_mallory NOSUPERUSER;
ALTER ROLE tap20_boss NOSUPERUSER;

-- 5. The launcher functions and lease expiry (SECURITY DEFINER, pinned).
SET LOCAL ROLE tap20_boss;
SET LOCAL search_path = tap20_evil, pg_catalog;
SELECT mixdnn.expire_leases() AS expired \gset
RESET search_path;
RESET ROLE;
SELECT is((SELECT rolsuper FROM pg_roles WHERE rolname = 'tap20_boss'), false,
	'expire_leases() under a hostile search_path makes nobody superuser');

-- The session's own search_path is what it was.
SELECT is(current_setting('search_path'), '"$user", public', 'the caller''s search_path is restored after each of them');

DROP OPERATOR tap20_evil.= (text, text);
SELECT is((SELECT count(*) FROM pg_roles WHERE rolname LIKE 'tap20_%' AND rolsuper), 0::bigint,
	'no tap20 role is superuser at the end');

SELECT * FROM finish();
ROLLBACK;
