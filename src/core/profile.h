/*
 * profile.h — looking up a model's measured throughputs (its profile's
 * points). A profile may hold thousands of points (every GPU count of
 * every type); a sorted one answers in O(log points), so that a large
 * profile does not make every round slow (docs/model.md, "Throughput of a
 * configuration").
 */
#ifndef MIXDNN_PROFILE_H
#define MIXDNN_PROFILE_H

#include "snapshot.h"

/*
 * Sorts p's points by type, then GPU count, keeping the order of equal
 * ones, and marks it sorted. Whoever builds a snapshot calls it once per
 * profile; an unsorted profile is read point by point, with the same
 * answers. Returns -1 (p unchanged) when out of memory.
 */
int			mx_profile_sort(mx_profile *p);

/*
 * Throughput of (type, n) from the points of that type: exact, else scaled
 * from the nearest measured count (log distance; ties to the smaller count)
 * by (n/m)^alpha. A zero point propagates (the nearest measured count cannot
 * run the model, so neither can n). -1 when the type has no point.
 */
double		mx_profile_thr(const mx_profile *p, int type, int n, double alpha);

/* 1 if the profile has a point of type with a throughput > 0. */
int			mx_profile_has_positive(const mx_profile *p, int type);

#endif
