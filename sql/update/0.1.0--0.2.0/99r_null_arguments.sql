-- 99r_null_arguments.sql — mixdnn.explain(NULL) and mixdnn.run_round(NULL)
-- were STRICT: an empty answer and a NULL round_id instead of an error. The
-- C functions now refuse a NULL argument with 22004 (contract §7: NULLs
-- where values are required get a clear error).
ALTER FUNCTION mixdnn.explain(bigint) CALLED ON NULL INPUT;
ALTER FUNCTION mixdnn.run_round(text) CALLED ON NULL INPUT;
