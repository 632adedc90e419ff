/*
 * csvload.h — one loader for the simulator's CSV files, driven by a
 * description of their columns: the header is checked, every field is
 * parsed and range-checked into the caller's row struct with one form of
 * error message ("FILE:LINE: COLUMN \"VALUE\" must be ..."), and the caller
 * sees each parsed row.
 */
#ifndef MIXDNN_SIM_CSVLOAD_H
#define MIXDNN_SIM_CSVLOAD_H

#include <stddef.h>

#include "csv.h"

typedef enum csv_kind
{
	CSV_NAME,					/* 1 .. CSV_NAME_LEN - 1 bytes, blanks kept (as every text here: the database keeps them) */
	CSV_IDENT,					/* a GPU type's or node's name, as the database's rule (csv_ident_ok) */
	CSV_LONG_NAME,				/* 1 .. CSV_LONG_NAME_CHARS characters (a job's name) */
	CSV_MODEL,					/* a model's name: at most CSV_MODEL_CHARS characters; not empty when lo is 1 */
	CSV_TEXT,					/* as a name, but may be empty */
	CSV_ROLE,					/* a role (PostgreSQL's type name): cut to 63 bytes as namein cuts it; not empty when lo is 1 */
	CSV_LIST,					/* raw text, cut at CSV_LIST_LEN - 1 characters */
	CSV_INT,
	CSV_REAL,					/* a decimal number (numeric's syntax) */
	CSV_FLOAT8,					/* a number of a double precision column: float8in's syntax, hexadecimal too */
	CSV_RAW						/* the field itself, any length (a const char * into the record, valid while the
								 * row's function runs): the caller reads it, as a quota's limits and borrow,
								 * whose blanks the database ignores */
} csv_kind;

/* Room of a CSV_NAME or CSV_TEXT field in a row (MX_NAME_LEN), of a CSV_LIST field. */
#define CSV_NAME_LEN 64
/* 64 type names of 63 characters and their separators */
#define CSV_LIST_LEN 4160
/* mixdnn.jobs.name: 1 to 200 characters (of up to 4 UTF-8 bytes) */
#define CSV_LONG_NAME_CHARS 200
#define CSV_LONG_NAME_LEN (4 * CSV_LONG_NAME_CHARS + 1)
/* mixdnn.profiles.model and mixdnn.jobs.model: at most 63 characters (MX_MODEL_LEN bytes with the NUL) */
#define CSV_MODEL_CHARS 63
#define CSV_MODEL_LEN (4 * CSV_MODEL_CHARS + 1)

/*
 * mixdnn.jobs' ranges, which the simulator's trace and mixdnn-bench --load
 * check as the database does: GPUs per job, the duration (the estimate;
 * mixdnn._check_job_terms), the priority.
 */
#define CSV_JOB_MAX_GPUS 4096
#define CSV_JOB_MAX_DURATION_S (366.0 * 86400.0)
#define CSV_JOB_PRIORITY_MIN (-100)
#define CSV_JOB_PRIORITY_MAX 100

typedef struct csv_column
{
	const char *name;
	int			required;		/* the header must have it; a number must not be empty */
	csv_kind	kind;
	size_t		offset;			/* of the field in the row: char[CSV_NAME_LEN] (CSV_NAME, CSV_IDENT, CSV_TEXT, CSV_ROLE), char[CSV_LONG_NAME_LEN], char[CSV_MODEL_LEN], char[CSV_LIST_LEN], int, double or const char * (CSV_RAW) */
	double		lo,
				hi;				/* numbers: the range accepted; CSV_MODEL, CSV_ROLE: lo = the fewest characters (0 or 1) */
	int			lo_open;		/* 1: lo itself is not (a positive number) */
} csv_column;

/*
 * Called with each row parsed (fields of absent columns and empty optional
 * numbers are 0). Returns 0, or -1 with err set ("FILE:LINE: ..." from r).
 */
typedef int (*csv_row_fn) (void *ctx, void *row, const csv_reader *r, char *err, size_t errlen);

/*
 * Reads path: its header must have every required column, each record is
 * parsed into row (rowsize bytes, zeroed first) and handed to fn. Returns 0,
 * or -1 with err set.
 */
int			csv_load(const char *path, const csv_column *cols, int ncols, void *row, size_t rowsize,
					 csv_row_fn fn, void *ctx, char *err, size_t errlen);

/*
 * As csv_load, for a file the database loads with \copy ... CSV HEADER
 * (types, nodes, profiles, --shares, --quotas): every record has exactly
 * the header's fields (csv_next, copy_rules), and a quoted empty field ("")
 * is an empty string, not NULL: an optional number's "" is refused, as
 * the database's number input refuses ''.
 */
int			csv_load_copy(const char *path, const csv_column *cols, int ncols, void *row, size_t rowsize,
						  csv_row_fn fn, void *ctx, char *err, size_t errlen);

/*
 * As csv_load, for the trace, which test/sim/diff/replay.py reads with
 * Python's csv module: a line starting with '#' is a record, not skipped
 * (csv_open_pycsv).
 */
int			csv_load_pycsv(const char *path, const csv_column *cols, int ncols, void *row, size_t rowsize,
						   csv_row_fn fn, void *ctx, char *err, size_t errlen);

/*
 * Room for one more row in a growing array of the caller's: doubles *cap
 * (from first) when n has reached it. 0, or -1 when out of memory (*arr
 * unchanged).
 */
int			csv_reserve(void **arr, int *cap, int n, size_t elem, int first);

/* A copy of src into dst (CSV_NAME_LEN), blanks kept; -1 when too long. */
int			csv_copy_name(char *dst, const char *src);

/*
 * 1 if s is a name mixdnn.gpu_types and mixdnn.gpu_nodes take: 1 to 63
 * letters, digits, '_', '.' or '-', starting with a letter or digit (their
 * CHECK '^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$').
 */
int			csv_ident_ok(const char *s);

#endif
