/*
 * feasibility.c — mixdnn._job_can_run(): whether any configuration of the
 * registered cluster could ever run a submission (contract §7), decided by the
 * core's own candidate rule, so that submission and planning agree: GPU
 * counts per type on every registered node (whatever its status), and the
 * model's measured throughputs, where 0 means "cannot run there".
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "clock.h"
#include "guc.h"
#include "profile_read.h"
#include "privilege.h"
#include "snapshot_read.h"
#include "utility.h"

PG_FUNCTION_INFO_V1(mixdnn_job_can_run);

static uint64_t
allowed_types(const mx_snapshot *s, ArrayType *arr)
{
	Datum	   *elems;
	bool	   *nulls;
	int			n,
				i;
	uint64_t	mask = 0;

	deconstruct_array(arr, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
	for (i = 0; i < n; i++)
	{
		int			k = nulls[i] ? -1 : mx_type_index(s, TextDatumGetCString(elems[i]));

		if (k >= 0)
			mask |= UINT64CONST(1) << k;
	}
	return mask;
}

/* The model's measured points, or -1 when it has none. */
static int
read_profile(mx_snapshot *s, text *model)
{
	return mx_read_model_profile(s, text_to_cstring(model));
}

/* (model_class, gpu_type, gpus, min_gpus, max_gpus, allowed_types, model) -> bool */
Datum
mixdnn_job_can_run(PG_FUNCTION_ARGS)
{
	mx_snapshot s;
	mx_job		j;
	bool		ok;
	int			i,
				nest;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(2))
		PG_RETURN_NULL();
	/* Its queries share prepared plans with rounds (spi_cache.c). */
	nest = mx_pin_search_path();
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "mixdnn: SPI_connect failed");

	mx_read_cluster(&s, mx_clock_now());
	/* "Ever": every registered node counts, free and up. */
	for (i = 0; i < s.nnodes; i++)
	{
		s.nodes[i].status = MX_NODE_UP;
		s.nodes[i].busy = 0;
	}

	memset(&j, 0, sizeof(j));
	j.cls = strcmp(text_to_cstring(PG_GETARG_TEXT_PP(0)), "hard") == 0 ? MX_HARD : MX_SOFT;
	j.ref_type = PG_ARGISNULL(1) ? -1 : mx_type_index(&s, text_to_cstring(PG_GETARG_TEXT_PP(1)));
	j.ref_gpus = PG_GETARG_INT32(2);
	j.min_gpus = PG_ARGISNULL(3) ? j.ref_gpus : PG_GETARG_INT32(3);
	j.max_gpus = PG_ARGISNULL(4) ? j.ref_gpus : PG_GETARG_INT32(4);
	if (j.cls == MX_HARD)
		j.allowed = j.ref_type >= 0 ? UINT64CONST(1) << j.ref_type : 0;
	else if (PG_ARGISNULL(5))
		j.allowed = s.ntypes >= 64 ? ~UINT64CONST(0) : (UINT64CONST(1) << s.ntypes) - 1;
	else
		j.allowed = allowed_types(&s, PG_GETARG_ARRAYTYPE_P(5));
	j.duration = 1.0;
	j.submitted = s.now;
	j.prev_type = -1;
	j.profile = PG_ARGISNULL(6) ? -1 : read_profile(&s, PG_GETARG_TEXT_PP(6));

	ok = mx_job_fits_ever(&s, &j, mx_guc_scaling_alpha);
	SPI_finish();
	mx_unpin_search_path(nest);
	PG_RETURN_BOOL(ok);
}
