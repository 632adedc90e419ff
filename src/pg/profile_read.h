/*
 * profile_read.h — the reader of mixdnn.profiles: the models of a round's
 * jobs, or one model for a job the round's read did not cover (a
 * submission being checked, a what-if job). SPI; the caller is connected.
 */
#ifndef MIXDNN_PROFILE_READ_H
#define MIXDNN_PROFILE_READ_H

#include "postgres.h"

#include "snapshot.h"

/* The profiles of these models (text Datums) as s->profiles (palloc'd). */
void		mx_read_profiles(mx_snapshot *s, Datum *models, int nmodels);

/*
 * Append model's rows of mixdnn.profiles to s->profiles (palloc'd) unless
 * it is there already; its index, or -1 when it has no rows.
 */
int			mx_read_model_profile(mx_snapshot *s, const char *model);

#endif
