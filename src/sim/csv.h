/*
 * csv.h — a small RFC 4180 reader for the simulator's input files.
 *
 * Fields may be quoted ("a, b" and "say ""hi"""); lines end with \n or \r\n;
 * blank lines and lines starting with '#' are skipped (csv_open; the
 * simulator reads its files as the database's path reads them:
 * csv_open_copy, csv_open_pycsv). The first record is
 * the header; columns are looked up by name.
 */
#ifndef MIXDNN_SIM_CSV_H
#define MIXDNN_SIM_CSV_H

#include <stdio.h>

#define CSV_MAX_FIELDS 64

typedef struct csv_reader
{
	FILE	   *f;
	const char *path;
	int			line;			/* line number of the current record (1-based) */
	char	   *buf;			/* current record's field text */
	size_t		bufcap;
	int			nfields;
	char	   *field[CSV_MAX_FIELDS];
	unsigned char quoted[CSV_MAX_FIELDS];	/* field i opened a quote: "" is an empty string, not NULL, in \copy */
	int			copy_rules;		/* opened by csv_open_copy: read as \copy ... CSV HEADER reads it (below) */
	int			hash_rows;		/* opened by csv_open_pycsv: a line starting with '#' is a record */
	int			ended;			/* copy_rules: the end-of-data line \. was read */
	int			nheader;
	char	   *header[CSV_MAX_FIELDS];
	char		err[256];
} csv_reader;

/* Open path and read its header. 0, or -1 with r->err set. */
int			csv_open(csv_reader *r, const char *path);

/*
 * As csv_open, for a file read as \copy ... CSV HEADER reads it
 * (r->copy_rules): no line is skipped, the header is the first line, a
 * blank line is a record of one empty field and a '#' line a record; a
 * line of \. alone ends the data (csv_next returns 0), as \copy's
 * end-of-data marker.
 */
int			csv_open_copy(csv_reader *r, const char *path);

/*
 * As csv_open, for a file read as Python's csv module reads it (the
 * trace, by test/sim/diff/replay.py): blank lines are skipped, a line
 * starting with '#' is a record.
 */
int			csv_open_pycsv(csv_reader *r, const char *path);
void		csv_close(csv_reader *r);

/*
 * Read the next record: 1 = got one, 0 = end of file, -1 = error (r->err).
 * With r->copy_rules, a record must have exactly the header's number of
 * fields, as \copy of the header's columns requires ("extra data after last
 * expected column", "missing data for column"); without, fields past the
 * header's columns may be empty.
 */
int			csv_next(csv_reader *r);

/* Column index of name in the header, -1 when absent. */
int			csv_col(const csv_reader *r, const char *name);

/* Field col of the current record ("" when col < 0 or beyond the record). */
const char *csv_get(const csv_reader *r, int col);

/*
 * 1 if field col of the current record was quoted: \copy ... CSV reads a
 * quoted empty field ("") as an empty string, an unquoted one as NULL.
 */
int			csv_quoted(const csv_reader *r, int col);

/*
 * Strict number parsing of a whole field (surrounding blanks allowed), finite
 * only. 0 or -1. csv_parse_double: decimal, as the database's numeric reads
 * it; csv_parse_float8: as its double precision reads it (float8in: strtod,
 * so hexadecimal 0x1p4 too).
 */
int			csv_parse_double(const char *s, double *out);
int			csv_parse_float8(const char *s, double *out);
int			csv_parse_int(const char *s, int *out);

#endif
