/*
 * unit.h — a minimal TAP producer for the core's unit tests.
 * Each test binary prints TAP ("ok N - ..."), then "N passed, N failed"
 * and exits non-zero when anything failed.
 */
#ifndef MIXDNN_UNIT_H
#define MIXDNN_UNIT_H

#include <stdio.h>
#include <stdlib.h>
#include <math.h>

static int	unit_n, unit_failed;

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

static inline int
unit_done(const char *name)
{
	printf("1..%d\n", unit_n);
	printf("%s: %d passed, %d failed\n", name, unit_n - unit_failed, unit_failed);
	return unit_failed ? 1 : 0;
}

#endif
