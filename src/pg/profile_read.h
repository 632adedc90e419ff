/*
 * profile_read.h — one model's measured throughputs into a snapshot, for
 * a job the round's own read did not cover (a submission being checked, a
 * what-if job). SPI; the caller is connected.
 */
#ifndef MIXDNN_PROFILE_READ_H
#define MIXDNN_PROFILE_READ_H

#include "postgres.h"

#include "snapshot.h"

/*
 * Append model's rows of mixdnn.profiles to s->profiles (palloc'd) unless
 * it is there already; its index, or -1 when it has no rows.
 */
int			mx_read_model_profile(mx_snapshot *s, const char *model);

#endif
