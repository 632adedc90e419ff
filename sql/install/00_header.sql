-- MixDNN install script, assembled at build time from sql/install/*.sql
-- in file-name order.
\echo Use "CREATE EXTENSION mixdnn" to load this file. \quit
