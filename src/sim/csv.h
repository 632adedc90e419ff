/*
 * csv.h — a small RFC 4180 reader for the simulator's input files.
 *
 * Fields may be quoted ("a, b" and "say ""hi"""); lines end with \n or \r\n;
 * blank lines and lines starting with '#' are skipped. The first record is
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
	int			nheader;
	char	   *header[CSV_MAX_FIELDS];
	char		err[256];
} csv_reader;

/* Open path and read its header. 0, or -1 with r->err set. */
int			csv_open(csv_reader *r, const char *path);
void		csv_close(csv_reader *r);

/* Read the next record: 1 = got one, 0 = end of file, -1 = error (r->err). */
int			csv_next(csv_reader *r);

/* Column index of name in the header, -1 when absent. */
int			csv_col(const csv_reader *r, const char *name);

/* Field col of the current record ("" when col < 0 or beyond the record). */
const char *csv_get(const csv_reader *r, int col);

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
