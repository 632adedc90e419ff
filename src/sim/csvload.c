/*
 * csvload.c — the column-driven CSV loader (csvload.h).
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "csvload.h"

/*
 * A copy of src into dst of size bytes; its length, or -1 when too long.
 * Blanks around it are kept: text columns of the database keep them (a
 * CSV field's spaces are data in \copy too), so " hard" is no model_class
 * there and " v100" no GPU type, and a name " a" is not "a".
 */
static long
copy_text(char *dst, size_t size, const char *src)
{
	size_t		l = strlen(src);

	if (l >= size)
		return -1;
	memcpy(dst, src, l);
	dst[l] = '\0';
	return (long) l;
}

int
csv_copy_name(char *dst, const char *src)
{
	return copy_text(dst, CSV_NAME_LEN, src) < 0 ? -1 : 0;
}

int
csv_ident_ok(const char *s)
{
	size_t		n = 0;

	if (!isalnum((unsigned char) s[0]) || (unsigned char) s[0] >= 0x80)
		return 0;
	for (; s[n]; n++)
		if ((unsigned char) s[n] >= 0x80 ||
			!(isalnum((unsigned char) s[n]) || s[n] == '_' || s[n] == '.' || s[n] == '-'))
			return 0;
	return n <= 63;
}

/* The characters of UTF-8 text (csv.c has checked that it is). */
static size_t
utf8_chars(const char *s)
{
	size_t		n = 0;

	for (; *s; s++)
		if (((unsigned char) *s & 0xC0) != 0x80)
			n++;
	return n;
}

/*
 * A role's name into dst (CSV_NAME_LEN) as PostgreSQL's type name keeps it:
 * one of more than NAMEDATALEN - 1 = 63 bytes is cut, without a word, to
 * its longest prefix of whole characters within 63 bytes (namein,
 * pg_mbcliplen), so that two owners the database keeps as one are one
 * here. Text is UTF-8 (csv.c has checked it).
 */
static void
copy_role(char *dst, const char *src)
{
	size_t		l = strlen(src),
				n = 0;

	if (l >= CSV_NAME_LEN)
	{
		for (;;)
		{
			unsigned char b = (unsigned char) src[n];
			size_t		c = (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 : (b & 0xF8) == 0xF0 ? 4 : 1;

			if (n + c > CSV_NAME_LEN - 1)
				break;
			n += c;
		}
		l = n;
	}
	memcpy(dst, src, l);
	dst[l] = '\0';
}

/* What a number of column c must be, for its error message. */
static void
number_rule(const csv_column *c, char *buf, size_t size)
{
	const char *what = c->kind == CSV_INT ? "an integer" : "a number";

	if (c->lo == 0 && c->lo_open && isinf(c->hi))
		snprintf(buf, size, "must be a positive number");
	else if (isinf(c->lo) && isinf(c->hi))
		snprintf(buf, size, "must be %s", what);
	else if (c->lo_open)
		snprintf(buf, size, "must be %s greater than %g and at most %g", what, c->lo, c->hi);
	else if (isinf(c->hi))
		snprintf(buf, size, "must be %s >= %g", what, c->lo);
	else
		snprintf(buf, size, "must be %s %g..%g", what, c->lo, c->hi);
}

/* A field of a text kind into the row: 0, -1 with err set, or 1 if c is a number column. */
static int
parse_text(const csv_column *c, int col, void *row, const csv_reader *r, char *err, size_t errlen)
{
	const char *v = csv_get(r, col);
	char	   *field = (char *) row + c->offset;

	if (c->kind == CSV_RAW)
	{
		*(const char **) field = v;
		return 0;
	}
	if (c->kind == CSV_LIST)
	{
		if (strlen(v) < CSV_LIST_LEN)
		{
			snprintf(field, CSV_LIST_LEN, "%s", v);
			return 0;
		}
		snprintf(err, errlen, "%s:%d: %s longer than %d characters", r->path, r->line, c->name, CSV_LIST_LEN - 1);
		return -1;
	}
	if (c->kind == CSV_IDENT)
	{
		/* as the database: no blanks around it either */
		if (csv_ident_ok(v))
		{
			snprintf(field, CSV_NAME_LEN, "%s", v);
			return 0;
		}
		snprintf(err, errlen, "%s:%d: %s \"%s\" must be 1 to 63 letters, digits, \"_\", \".\" or \"-\", "
				 "starting with a letter or digit", r->path, r->line, c->name, v);
		return -1;
	}
	if (c->kind == CSV_LONG_NAME)
	{
		if (copy_text(field, CSV_LONG_NAME_LEN, v) > 0 && utf8_chars(field) <= CSV_LONG_NAME_CHARS)
			return 0;
		field[0] = '\0';
		snprintf(err, errlen, "%s:%d: %s must be 1..%d characters", r->path, r->line, c->name, CSV_LONG_NAME_CHARS);
		return -1;
	}
	if (c->kind == CSV_MODEL)
	{
		/* characters, as the database's length() counts them */
		long		l = copy_text(field, CSV_MODEL_LEN, v);

		if (l >= 0 && utf8_chars(field) <= CSV_MODEL_CHARS && (l > 0 || c->lo < 1))
			return 0;
		field[0] = '\0';
		snprintf(err, errlen, "%s:%d: %s must be %s%d characters", r->path, r->line, c->name,
				 c->lo >= 1 ? "1.." : "at most ", CSV_MODEL_CHARS);
		return -1;
	}
	if (c->kind == CSV_ROLE)
	{
		copy_role(field, v);
		if (field[0] != '\0' || c->lo < 1)
			return 0;
		snprintf(err, errlen, "%s:%d: %s must not be empty", r->path, r->line, c->name);
		return -1;
	}
	if (c->kind == CSV_NAME || c->kind == CSV_TEXT)
	{
		if (csv_copy_name(field, v) == 0 && (c->kind == CSV_TEXT || field[0] != '\0'))
			return 0;
		if (c->kind == CSV_NAME)
			snprintf(err, errlen, "%s:%d: %s must be 1..%d characters", r->path, r->line, c->name,
					 CSV_NAME_LEN - 1);
		else
			snprintf(err, errlen, "%s:%d: %s longer than %d characters", r->path, r->line, c->name,
					 CSV_NAME_LEN - 1);
		return -1;
	}
	return 1;
}

/* A number field; 0, or -1 with err set. */
static int
parse_number(const csv_column *c, int col, void *row, const csv_reader *r, char *err, size_t errlen)
{
	const char *v = csv_get(r, col);
	char	   *field = (char *) row + c->offset;
	double		d = 0;
	int			i = 0,
				bad;
	char		rule[64];

	/* an empty optional number is NULL; in \copy a quoted one ("") is '', which no number input takes */
	if (!c->required && v[0] == '\0' && !(r->copy_rules && csv_quoted(r, col)))
		return 0;
	if (c->kind == CSV_INT)
	{
		bad = csv_parse_int(v, &i) < 0;
		d = i;
	}
	else if (c->kind == CSV_FLOAT8)
		bad = csv_parse_float8(v, &d) < 0;
	else
		bad = csv_parse_double(v, &d) < 0;
	if (bad || d < c->lo || d > c->hi || (c->lo_open && d == c->lo))
	{
		number_rule(c, rule, sizeof(rule));
		snprintf(err, errlen, "%s:%d: %s \"%s\" %s%s", r->path, r->line, c->name, v, rule,
				 v[0] == '\0' && r->copy_rules && csv_quoted(r, col) ?
				 " (a quoted empty field is an empty string in \\copy, not NULL)" : "");
		return -1;
	}
	if (c->kind == CSV_INT)
		*(int *) field = i;
	else
		*(double *) field = d;
	return 0;
}

/* One field (column col of the file) into the row; 0, or -1 with err set. */
static int
parse_field(const csv_column *c, int col, void *row, const csv_reader *r, char *err, size_t errlen)
{
	int			rc = parse_text(c, col, row, r, err, errlen);

	return rc <= 0 ? rc : parse_number(c, col, row, r, err, errlen);
}

/* mode: 0 csv_open's reading, 1 \copy's (csv_open_copy), 2 Python's csv module's (csv_open_pycsv) */
static int
load(const char *path, int mode, const csv_column *cols, int ncols, void *row, size_t rowsize,
	 csv_row_fn fn, void *ctx, char *err, size_t errlen)
{
	csv_reader	r;
	int			idx[CSV_MAX_FIELDS];
	int			i,
				rc;

	if ((mode == 1 ? csv_open_copy(&r, path) : mode == 2 ? csv_open_pycsv(&r, path) : csv_open(&r, path)) < 0)
	{
		snprintf(err, errlen, "%s", r.err);
		return -1;
	}
	for (i = 0; i < ncols && i < CSV_MAX_FIELDS; i++)
	{
		idx[i] = csv_col(&r, cols[i].name);
		if (idx[i] < 0 && cols[i].required)
		{
			snprintf(err, errlen, "%s: missing column \"%s\" in the header", path, cols[i].name);
			csv_close(&r);
			return -1;
		}
	}
	while ((rc = csv_next(&r)) > 0)
	{
		memset(row, 0, rowsize);
		for (i = 0; i < ncols && i < CSV_MAX_FIELDS; i++)
			if (parse_field(&cols[i], idx[i], row, &r, err, errlen) < 0)
				break;
		if (i < ncols || fn(ctx, row, &r, err, errlen) < 0)
		{
			csv_close(&r);
			return -1;
		}
	}
	if (rc < 0)
		snprintf(err, errlen, "%s", r.err);
	csv_close(&r);
	return rc < 0 ? -1 : 0;
}

int
csv_load(const char *path, const csv_column *cols, int ncols, void *row, size_t rowsize,
		 csv_row_fn fn, void *ctx, char *err, size_t errlen)
{
	return load(path, 0, cols, ncols, row, rowsize, fn, ctx, err, errlen);
}

int
csv_load_copy(const char *path, const csv_column *cols, int ncols, void *row, size_t rowsize,
			  csv_row_fn fn, void *ctx, char *err, size_t errlen)
{
	return load(path, 1, cols, ncols, row, rowsize, fn, ctx, err, errlen);
}

int
csv_load_pycsv(const char *path, const csv_column *cols, int ncols, void *row, size_t rowsize,
			   csv_row_fn fn, void *ctx, char *err, size_t errlen)
{
	return load(path, 2, cols, ncols, row, rowsize, fn, ctx, err, errlen);
}

/*
 * Room for one more element in a growing array: doubles *cap (from first)
 * when n has reached it. 0, or -1 when out of memory (*arr unchanged).
 */
int
csv_reserve(void **arr, int *cap, int n, size_t elem, int first)
{
	void	   *grown;
	int			newcap;

	if (n < *cap)
		return 0;
	newcap = *cap ? *cap * 2 : first;
	grown = realloc(*arr, (size_t) newcap * elem);
	if (grown == NULL)
		return -1;
	*arr = grown;
	*cap = newcap;
	return 0;
}
