/*
 * profile_read.c — one model's measured throughputs (profile_read.h).
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/builtins.h"

#include "profile_read.h"
#include "spi_cache.h"

int
mx_read_model_profile(mx_snapshot *s, const char *model)
{
	int			k = s->nprofiles > 0 ? mx_profile_index(s, model) : -1;
	mx_profile *p;
	uint64		i;

	if (k >= 0)
		return k;
	if (mx_spi_execute("SELECT gpu_type, gpus, throughput FROM mixdnn.profiles WHERE model = $1",
					   1, (Oid[]) {TEXTOID}, (Datum[]) {CStringGetTextDatum(model)},
					   NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "mixdnn: could not read profiles");
	if (SPI_processed == 0)
		return -1;
	s->profiles = s->profiles ? repalloc(s->profiles, sizeof(mx_profile) * (s->nprofiles + 1))
		: palloc(sizeof(mx_profile));
	p = &s->profiles[s->nprofiles];
	memset(p, 0, sizeof(*p));
	strlcpy(p->model, model, MX_NAME_LEN);
	p->points = palloc0(sizeof(mx_profile_point) * SPI_processed);
	for (i = 0; i < SPI_processed; i++)
	{
		HeapTuple	t = SPI_tuptable->vals[i];
		TupleDesc	d = SPI_tuptable->tupdesc;
		bool		isnull;
		int			type = mx_type_index(s, TextDatumGetCString(SPI_getbinval(t, d, 1, &isnull)));

		/* A type deleted since the profile was measured is no configuration. */
		if (type < 0)
			continue;
		p->points[p->npoints].type = type;
		p->points[p->npoints].gpus = DatumGetInt32(SPI_getbinval(t, d, 2, &isnull));
		p->points[p->npoints].thr = DatumGetFloat8(SPI_getbinval(t, d, 3, &isnull));
		p->npoints++;
	}
	return s->nprofiles++;
}
