-- MixDNN upgrade 0.1.0 -> 0.2.0, assembled at build time from
-- sql/update/0.1.0--0.2.0/*.sql in file-name order. Each schema change of
-- 0.2.0 adds its file here and the same change to sql/install/; the upgrade
-- test (test/upgrade/run.sh) checks that both give the same catalog.
\echo Use "ALTER EXTENSION mixdnn UPDATE TO '0.2.0'" to load this file. \quit
