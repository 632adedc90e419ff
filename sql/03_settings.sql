--
-- 03_settings: the mixdnn.* settings, their defaults and who may set them.
-- Boot values are shown (not the current ones), so a cluster configured
-- with other values still gives the same output.
--
SELECT name, vartype, context, unit, boot_val, min_val, max_val, enumvals
FROM pg_settings WHERE name LIKE 'mixdnn.%' ORDER BY name;
SELECT name FROM pg_settings WHERE name LIKE 'mixdnn.%' AND (short_desc IS NULL OR short_desc = '') ORDER BY name;

-- Session values.
SET mixdnn.policy = 'k8s';
SHOW mixdnn.policy;
SET mixdnn.policy = 'backfill';
SHOW mixdnn.policy;
SET mixdnn.policy = 'fifo';
RESET mixdnn.policy;
SET mixdnn.solver_time_limit = '2s';
SHOW mixdnn.solver_time_limit;
SET mixdnn.solver_time_limit = 0;
RESET mixdnn.solver_time_limit;
SET mixdnn.use_milp = off;
SHOW mixdnn.use_milp;
RESET mixdnn.use_milp;
SET mixdnn.scaling_alpha = 1.5;
SET mixdnn.mip_gap = 0.05;
SHOW mixdnn.mip_gap;
RESET mixdnn.mip_gap;
SET mixdnn.starve_factor = -1;
SET mixdnn.critical_margin = -1;
SHOW mixdnn.critical_margin;
RESET mixdnn.critical_margin;
SET mixdnn.reserve_all = on;
SHOW mixdnn.reserve_all;
RESET mixdnn.reserve_all;
SET mixdnn.lease_timeout = 30;
SET mixdnn.history_retention = '1 day';
SET mixdnn.no_such_setting = 1;

-- The virtual clock.
SET timezone = 'UTC';
SET mixdnn.virtual_now = '2026-01-01 12:34:56+00';
SHOW mixdnn.virtual_now;
SELECT mixdnn.now();
SET mixdnn.virtual_now = 'yesterday-ish';
SET mixdnn.virtual_now = 'infinity';
SELECT mixdnn.now();
SET mixdnn.virtual_now = '';
SELECT abs(extract(epoch FROM mixdnn.now() - clock_timestamp())) < 60 AS real_clock;
RESET mixdnn.virtual_now;
SHOW mixdnn.virtual_now;

-- Only superusers may set the scheduler's settings.
CREATE ROLE regress_mixdnn_setter NOLOGIN IN ROLE mixdnn_admin;
SET ROLE regress_mixdnn_setter;
SET mixdnn.virtual_now = '2030-01-01 00:00+00';
SET mixdnn.policy = 'static';
SET mixdnn.use_milp = off;
SHOW mixdnn.policy;
RESET ROLE;
DROP ROLE regress_mixdnn_setter;
