/*
 * load.h — replay a database's round input in the benchmark: the CSV files
 * of bench/export_snapshot.sql (docs/performance.md).
 */
#ifndef MIXDNN_BENCH_LOAD_H
#define MIXDNN_BENCH_LOAD_H

#include <stddef.h>

#include "snapshot.h"

/* 0, or -1 with a message in err. Times in the files are relative to now. */
int			bench_load(const char *dir, double now, mx_snapshot *s, char *err, size_t errlen);

#endif
