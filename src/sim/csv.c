/*
 * csv.c — a small RFC 4180 reader (csv.h).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"

static int
buf_put(csv_reader *r, size_t *len, int c)
{
	if (*len + 1 >= r->bufcap)
	{
		size_t		nc = r->bufcap ? r->bufcap * 2 : 1024;
		char	   *nb = realloc(r->buf, nc);

		if (nb == NULL)
		{
			snprintf(r->err, sizeof(r->err), "%s: out of memory", r->path);
			return -1;
		}
		r->buf = nb;
		r->bufcap = nc;
	}
	r->buf[(*len)++] = (char) c;
	return 0;
}

/* One record being read: where its fields start in r->buf, and the quoting. */
typedef struct record_state
{
	size_t		len;			/* bytes of r->buf used */
	size_t		starts[CSV_MAX_FIELDS];
	int			nf;
	int			startline;
	int			inq;			/* inside a quoted field */
	int			was_quoted;		/* the current field has opened its quote */
	unsigned char quoted[CSV_MAX_FIELDS];	/* which fields opened one */
} record_state;

/*
 * A line that holds no record (blank, or a '#' comment) starting with c:
 * consumed up to its end. 1 if it was one.
 */
static int
skip_non_record(csv_reader *r, int c)
{
	if (c != '#' && c != '\n' && c != '\r')
		return 0;
	if (c == '\r')
	{
		c = fgetc(r->f);
		if (c != '\n' && c != EOF)
			ungetc(c, r->f);
		return 1;
	}
	while (c != '\n' && c != EOF)
		c = fgetc(r->f);
	return 1;
}

/* c inside quotes: a doubled quote is one quote, a single one closes them. */
static int
quoted_char(csv_reader *r, record_state *st, int c)
{
	if (c == '"')
	{
		int			d = fgetc(r->f);

		if (d == '"')
			return buf_put(r, &st->len, '"');
		st->inq = 0;
		if (d != EOF)
			ungetc(d, r->f);
		return 0;
	}
	if (c == '\n')
		r->line++;
	return buf_put(r, &st->len, c);
}

/*
 * c outside quotes: a quote opens a field's quoting only as its first
 * character; a comma ends a field, \n or \r\n the record (1); any other
 * character, a lone \r too, is text. 0 to go on, -1 on error.
 */
static int
plain_char(csv_reader *r, record_state *st, int c)
{
	if (c == '"' && !st->was_quoted && st->len == st->starts[st->nf - 1])
	{
		st->inq = 1;
		st->was_quoted = 1;
		st->quoted[st->nf - 1] = 1;
		return 0;
	}
	if (c == ',')
	{
		if (st->nf >= CSV_MAX_FIELDS)
		{
			snprintf(r->err, sizeof(r->err), "%s:%d: more than %d fields",
					 r->path, st->startline, CSV_MAX_FIELDS);
			return -1;
		}
		if (buf_put(r, &st->len, '\0') < 0)
			return -1;
		st->starts[st->nf++] = st->len;
		st->was_quoted = 0;
		return 0;
	}
	if (c == '\r')
	{
		int			d = fgetc(r->f);

		if (d == '\n' || d == EOF)
			return 1;
		ungetc(d, r->f);
	}
	if (c == '\n')
		return 1;
	return buf_put(r, &st->len, c) < 0 ? -1 : 0;
}

/* The fields of the record that starts with c, to its end. 1, or -1 on error. */
static int
read_fields(csv_reader *r, int c)
{
	record_state st = {0};

	st.startline = r->line;
	st.starts[st.nf++] = 0;
	for (; c != EOF; c = fgetc(r->f))
	{
		int			rc;

		/* text in the database cannot hold it (\copy refuses it); here it cut the field short */
		if (c == '\0')
		{
			snprintf(r->err, sizeof(r->err), "%s:%d: field %d holds a NUL byte", r->path, r->line, st.nf);
			return -1;
		}
		rc = st.inq ? quoted_char(r, &st, c) : plain_char(r, &st, c);

		if (rc < 0)
			return -1;
		if (rc > 0)
			break;
	}
	if (c == EOF && st.inq)
	{
		snprintf(r->err, sizeof(r->err), "%s:%d: unterminated quoted field", r->path, st.startline);
		return -1;
	}
	if (buf_put(r, &st.len, '\0') < 0)
		return -1;
	r->nfields = st.nf;
	for (int i = 0; i < st.nf; i++)
	{
		r->field[i] = r->buf + st.starts[i];
		r->quoted[i] = st.quoted[i];
	}
	return 1;
}

/*
 * The offset of the first byte of s that is not part of valid UTF-8 (an
 * overlong form, a surrogate, beyond U+10FFFF, a cut sequence), or -1.
 */
static long
utf8_invalid_at(const unsigned char *s)
{
	const unsigned char *p = s;

	while (*p)
	{
		int			n = *p < 0x80 ? 0 : (*p & 0xE0) == 0xC0 ? 1 : (*p & 0xF0) == 0xE0 ? 2 : (*p & 0xF8) == 0xF0 ? 3 : -1;
		unsigned long cp;
		int			k;

		if (n < 0 || (n == 1 && *p < 0xC2) || (n == 3 && *p > 0xF4))
			return p - s;
		cp = n == 0 ? *p : *p & (0x3F >> n);
		for (k = 1; k <= n; k++)
		{
			if ((p[k] & 0xC0) != 0x80)
				return p - s;
			cp = (cp << 6) | (p[k] & 0x3F);
		}
		if ((n == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (n == 3 && (cp < 0x10000 || cp > 0x10FFFF)))
			return p - s;
		p += n + 1;
	}
	return -1;
}

/*
 * Read one record into r->buf as NUL-separated fields: 1, 0 at the end of
 * the file, -1 on error (r->err). r->line counts every line read, so after
 * a record with quoted newlines it is the record's last line.
 */
static int
read_record(csv_reader *r)
{
	if (r->ended)
		return 0;
	for (;;)
	{
		int			c;

		r->line++;
		c = fgetc(r->f);
		if (c == EOF)
			return 0;
		/*
		 * \copy skips no line: a blank one is a record of one NULL field, a
		 * '#' one a record; Python's csv module (r->hash_rows) skips blank
		 * lines only
		 */
		if (r->copy_rules || (r->hash_rows && c == '#') || !skip_non_record(r, c))
		{
			int			rc = read_fields(r, c);

			/* \copy's end-of-data marker, a line of \. alone: the rest is not read there */
			if (rc > 0 && r->copy_rules && r->nfields == 1 && !r->quoted[0] && strcmp(r->field[0], "\\.") == 0)
			{
				r->ended = 1;
				return 0;
			}

			/* text goes to the outputs (JSON must be UTF-8), as \copy to the database refuses it */
			for (int i = 0; rc > 0 && i < r->nfields; i++)
			{
				long		at = utf8_invalid_at((const unsigned char *) r->field[i]);

				if (at >= 0)
				{
					snprintf(r->err, sizeof(r->err), "%s:%d: field %d is not valid UTF-8 (byte 0x%02X at %ld)",
							 r->path, r->line, i + 1, (unsigned char) r->field[i][at], at + 1);
					return -1;
				}
			}
			return rc;
		}
	}
}

static int
open_file(csv_reader *r, const char *path, int copy_rules, int hash_rows)
{
	int			rc,
				i;

	memset(r, 0, sizeof(*r));
	r->path = path;
	r->copy_rules = copy_rules;
	r->hash_rows = hash_rows;
	r->f = fopen(path, "r");
	if (r->f == NULL)
	{
		snprintf(r->err, sizeof(r->err), "%s: %s", path, strerror(errno));
		return -1;
	}
	rc = read_record(r);
	if (rc <= 0)
	{
		if (rc == 0)
			snprintf(r->err, sizeof(r->err), "%s: empty file (a header line is required)", path);
		csv_close(r);
		return -1;
	}
	r->nheader = r->nfields;
	for (i = 0; i < r->nfields; i++)
	{
		char	   *h = r->field[i];
		size_t		l;

		/* a UTF-8 byte-order mark and surrounding blanks are not part of the name */
		if (i == 0 && (unsigned char) h[0] == 0xEF && (unsigned char) h[1] == 0xBB &&
			(unsigned char) h[2] == 0xBF)
			h += 3;
		while (isspace((unsigned char) *h))
			h++;
		l = strlen(h);
		while (l > 0 && isspace((unsigned char) h[l - 1]))
			h[--l] = '\0';
		r->header[i] = strdup(h);
		if (r->header[i] == NULL)
		{
			snprintf(r->err, sizeof(r->err), "%s: out of memory", path);
			csv_close(r);
			return -1;
		}
		/* a column named twice: which one is meant is a guess (csv_col took the first) */
		if (h[0] != '\0' && csv_col(r, h) < i)
		{
			snprintf(r->err, sizeof(r->err), "%s:%d: column \"%s\" is named twice in the header",
					 path, r->line, h);
			csv_close(r);
			return -1;
		}
	}
	r->nfields = 0;
	return 0;
}

int
csv_open(csv_reader *r, const char *path)
{
	return open_file(r, path, 0, 0);
}

int
csv_open_copy(csv_reader *r, const char *path)
{
	return open_file(r, path, 1, 0);
}

int
csv_open_pycsv(csv_reader *r, const char *path)
{
	return open_file(r, path, 0, 1);
}

void
csv_close(csv_reader *r)
{
	int			i;

	if (r->f)
		fclose(r->f);
	r->f = NULL;
	for (i = 0; i < r->nheader; i++)
		free(r->header[i]);
	r->nheader = 0;
	free(r->buf);
	r->buf = NULL;
	r->bufcap = 0;
}

/*
 * The next record: 1, 0 at the end, -1 on error. A field beyond the
 * header's columns that is not empty is an error (a row shifted by a
 * comma too many was read as if it fitted); empty ones, as some
 * spreadsheets write, are ignored, unless the file is read as \copy reads
 * it (r->copy_rules): there a record has exactly the header's fields.
 */
int
csv_next(csv_reader *r)
{
	int			rc = read_record(r);

	if (rc <= 0)
		return rc;
	if (r->copy_rules && r->nfields != r->nheader)
	{
		snprintf(r->err, sizeof(r->err), "%s:%d: %d fields, but the header names %d columns (\\copy refuses "
				 "the row: %s)", r->path, r->line, r->nfields, r->nheader,
				 r->nfields > r->nheader ? "extra data after last expected column" : "missing data for a column");
		return -1;
	}
	for (int i = r->nheader; i < r->nfields; i++)
		if (r->field[i][0] != '\0')
		{
			snprintf(r->err, sizeof(r->err), "%s:%d: %d fields, but the header names %d columns",
					 r->path, r->line, r->nfields, r->nheader);
			return -1;
		}
	return 1;
}

int
csv_col(const csv_reader *r, const char *name)
{
	int			i;

	for (i = 0; i < r->nheader; i++)
		if (strcmp(r->header[i], name) == 0)
			return i;
	return -1;
}

const char *
csv_get(const csv_reader *r, int col)
{
	if (col < 0 || col >= r->nfields)
		return "";
	return r->field[col];
}

int
csv_quoted(const csv_reader *r, int col)
{
	return col >= 0 && col < r->nfields && r->quoted[col];
}

/*
 * The length of the decimal number at s ([+-]digits[.digits][e[+-]digits],
 * digits on at least one side of the point), 0 when there is none: strtod
 * also reads hexadecimal (0x10, 0x1p4), which the database's numeric (a
 * trace's times, make_interval(secs => ...), docs/simulator.md) and int
 * do not; its float8 does (csv_parse_float8).
 */
static size_t
decimal_len(const char *s)
{
	const char *p = s;
	size_t		digits = 0;

	if (*p == '+' || *p == '-')
		p++;
	for (; isdigit((unsigned char) *p); p++)
		digits++;
	if (*p == '.')
		for (p++; isdigit((unsigned char) *p); p++)
			digits++;
	if (digits == 0)
		return 0;
	if (*p == 'e' || *p == 'E')
	{
		const char *e = p + 1;

		if (*e == '+' || *e == '-')
			e++;
		if (isdigit((unsigned char) *e))
		{
			for (; isdigit((unsigned char) *e); e++)
				;
			p = e;
		}
	}
	return (size_t) (p - s);
}

/*
 * A whole field as a finite number: decimal only (numeric's syntax), or
 * whatever strtod reads (float8in's). A subnormal result (ERANGE, not 0)
 * is a number to the database too. One that underflows to 0 (1e-400) is
 * refused by float8in, but numeric holds it: a decimal one is 0 here (a
 * submit_s of 1e-400 is taken there, to_timestamp(epoch + 1e-400); a
 * duration of it is refused there and here, by its range).
 */
static int
parse_number(const char *s, int decimal_only, double *out)
{
	char	   *end;
	double		v;

	while (isspace((unsigned char) *s))
		s++;
	if (*s == '\0' || (decimal_only && decimal_len(s) == 0))
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || (errno != 0 && !(errno == ERANGE && (v != 0 || decimal_only) && isfinite(v))) ||
		(decimal_only && end != s + decimal_len(s)))
		return -1;
	while (isspace((unsigned char) *end))
		end++;
	if (*end != '\0' || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

int
csv_parse_double(const char *s, double *out)
{
	return parse_number(s, 1, out);
}

int
csv_parse_float8(const char *s, double *out)
{
	return parse_number(s, 0, out);
}

int
csv_parse_int(const char *s, int *out)
{
	char	   *end;
	long		v;

	while (isspace((unsigned char) *s))
		s++;
	if (*s == '\0')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s)
		return -1;
	while (isspace((unsigned char) *end))
		end++;
	if (*end != '\0' || v < INT_MIN || v > INT_MAX)
		return -1;
	*out = (int) v;
	return 0;
}
