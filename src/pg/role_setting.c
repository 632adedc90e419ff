/*
 * role_setting.c — a mixdnn.* integer setting's value as the server would
 * take it from a role's ALTER ROLE ... SET, for the limits that bind a
 * role whoever submits its jobs (sql/install/44_role_setting.sql).
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/guc.h"

PG_FUNCTION_INFO_V1(mixdnn_guc_int);

/*
 * mixdnn._guc_int(setting, value): value read as the server reads it for
 * setting (units such as '16MB' into the setting's own unit, hexadecimal,
 * a fraction rounded), NULL when it does not parse. Only mixdnn's own
 * integer settings: the caller's value never names another module's.
 */
Datum
mixdnn_guc_int(PG_FUNCTION_ARGS)
{
	char	   *name = text_to_cstring(PG_GETARG_TEXT_PP(0));
	char	   *value = text_to_cstring(PG_GETARG_TEXT_PP(1));
	int			result;

	if (strncmp(name, "mixdnn.", 7) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("mixdnn._guc_int reads mixdnn settings only, not \"%s\"", name)));
	if (!parse_int(value, &result, GetConfigOptionFlags(name, false), NULL))
		PG_RETURN_NULL();
	PG_RETURN_INT32(result);
}
