/*
 * unit.h — a minimal TAP producer for the core's unit tests.
 * Each test binary prints TAP ("ok N - ..."), then "N passed, N failed,
 * N skipped" and exits non-zero when anything failed. A skipped test is
 * "ok N # SKIP why" and counts as skipped, never as passed.
 */
#ifndef MIXDNN_UNIT_H
#define MIXDNN_UNIT_H

#include <stdio.h>
#include <stdlib.h>
#include <math.h>

static int	unit_n, unit_failed, unit_skipped;

/* The condition is evaluated once, so it may have side effects. */
#define CHECK(cond, ...) do { \
	int unit_ok_ = (cond) ? 1 : 0; \
	unit_n++; \
	if (unit_ok_) printf("ok %d - ", unit_n); \
	else { unit_failed++; printf("not ok %d - ", unit_n); } \
	printf(__VA_ARGS__); \
	printf("\n"); \
	if (!unit_ok_) printf("#   failed at %s:%d: %s\n", __FILE__, __LINE__, #cond); \
} while (0)

#define CHECK_NEAR(a, b, eps, ...) CHECK(fabs((double) (a) - (double) (b)) <= (eps), __VA_ARGS__)

/* A test that cannot run here (its data is missing): says why. */
#define SKIP(why) do { \
	unit_n++; \
	unit_skipped++; \
	printf("ok %d # SKIP %s\n", unit_n, (why)); \
} while (0)

static inline int
unit_done(const char *name)
{
	printf("1..%d\n", unit_n);
	printf("%s: %d passed, %d failed, %d skipped\n", name, unit_n - unit_failed - unit_skipped, unit_failed,
		   unit_skipped);
	return unit_failed ? 1 : 0;
}

#endif
