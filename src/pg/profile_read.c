/*
 * profile_read.c — the reader of mixdnn.profiles (profile_read.h).
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "profile.h"
#include "profile_read.h"
#include "spi_cache.h"

/*
 * Appends the rows of mixdnn.profiles of the models (a text[]) to
 * s->profiles, one profile per model that has rows, in model order, each
 * model's points sorted by type index and GPU count (mx_profile_sort): the
 * one reader of the table, for rounds and for single submissions alike.
 */
static void
append_profiles(mx_snapshot *s, Datum models)
{
	int			p = -1,
				first = s->nprofiles;
	uint64		i;
	mx_profile *grown;

	if (mx_spi_execute("SELECT model, gpu_type, gpus, throughput FROM mixdnn.profiles "
					   "WHERE model = ANY ($1) ORDER BY model COLLATE \"C\"",
					   1, (Oid[]) {TEXTARRAYOID}, &models, NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "mixdnn: could not read the profiles");
	if (SPI_processed == 0)
		return;
	grown = palloc0(sizeof(mx_profile) * (s->nprofiles + SPI_processed));
	if (s->nprofiles > 0)
		memcpy(grown, s->profiles, sizeof(mx_profile) * s->nprofiles);
	s->profiles = grown;
	for (i = 0; i < SPI_processed; i++)
	{
		HeapTuple	t = SPI_tuptable->vals[i];
		TupleDesc	d = SPI_tuptable->tupdesc;
		bool		isnull;
		char	   *model = TextDatumGetCString(SPI_getbinval(t, d, 1, &isnull));
		int			type = mx_type_index(s, TextDatumGetCString(SPI_getbinval(t, d, 2, &isnull)));
		mx_profile_point *pt;

		if (p < 0 || strncmp(s->profiles[p].model, model, MX_MODEL_LEN) != 0)
		{
			p = s->nprofiles++;
			strlcpy(s->profiles[p].model, model, MX_MODEL_LEN);
			s->profiles[p].points = palloc0(sizeof(mx_profile_point) * (SPI_processed - i));
		}
		/* A type deleted since the profile was measured is no configuration. */
		if (type < 0)
			continue;
		pt = &s->profiles[p].points[s->profiles[p].npoints++];
		pt->type = type;
		pt->gpus = DatumGetInt32(SPI_getbinval(t, d, 3, &isnull));
		pt->thr = DatumGetFloat8(SPI_getbinval(t, d, 4, &isnull));
	}
	/* looked up in O(log points) by the round (profile.h); unsorted if out of memory, still right */
	for (int k = first; k < s->nprofiles; k++)
		(void) mx_profile_sort(&s->profiles[k]);
}

void
mx_read_profiles(mx_snapshot *s, Datum *models, int nmodels)
{
	s->profiles = palloc0(sizeof(mx_profile));
	s->nprofiles = 0;
	if (nmodels > 0)
		append_profiles(s, PointerGetDatum(construct_array(models, nmodels, TEXTOID, -1, false,
														   TYPALIGN_INT)));
}

int
mx_read_model_profile(mx_snapshot *s, const char *model)
{
	int			k = s->nprofiles > 0 ? mx_profile_index(s, model) : -1;
	int			before = s->nprofiles;
	Datum		name = CStringGetTextDatum(model);

	if (k >= 0)
		return k;
	append_profiles(s, PointerGetDatum(construct_array(&name, 1, TEXTOID, -1, false, TYPALIGN_INT)));
	return s->nprofiles > before ? before : -1;
}
