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

/* Read one raw record into r->buf as NUL-separated fields. */
static int
read_record(csv_reader *r)
{
	size_t		len;
	int			c;
	size_t		starts[CSV_MAX_FIELDS];

	for (;;)
	{
		int			inq = 0,
					nf = 0,
					startline,
					was_quoted = 0,
					any = 0;

		len = 0;
		r->line++;
		startline = r->line;
		c = fgetc(r->f);
		if (c == EOF)
			return 0;
		/* comment and blank lines */
		if (c == '#' || c == '\n' || c == '\r')
		{
			if (c == '\r')
			{
				c = fgetc(r->f);
				if (c != '\n' && c != EOF)
					ungetc(c, r->f);
				continue;
			}
			while (c != '\n' && c != EOF)
				c = fgetc(r->f);
			continue;
		}
		starts[nf++] = 0;
		for (;; c = fgetc(r->f))
		{
			if (c == EOF)
			{
				if (inq)
				{
					snprintf(r->err, sizeof(r->err), "%s:%d: unterminated quoted field",
							 r->path, startline);
					return -1;
				}
				break;
			}
			any = 1;
			if (inq)
			{
				if (c == '"')
				{
					int			d = fgetc(r->f);

					if (d == '"')
					{
						if (buf_put(r, &len, '"') < 0)
							return -1;
					}
					else
					{
						inq = 0;
						if (d != EOF)
							ungetc(d, r->f);
					}
				}
				else
				{
					if (c == '\n')
						r->line++;
					if (buf_put(r, &len, c) < 0)
						return -1;
				}
				continue;
			}
			if (c == '"' && !was_quoted && len == starts[nf - 1])
			{
				inq = 1;
				was_quoted = 1;
				continue;
			}
			if (c == ',')
			{
				if (nf >= CSV_MAX_FIELDS)
				{
					snprintf(r->err, sizeof(r->err), "%s:%d: more than %d fields",
							 r->path, startline, CSV_MAX_FIELDS);
					return -1;
				}
				if (buf_put(r, &len, '\0') < 0)
					return -1;
				starts[nf++] = len;
				was_quoted = 0;
				continue;
			}
			if (c == '\r')
			{
				int			d = fgetc(r->f);

				if (d == '\n' || d == EOF)
					break;
				ungetc(d, r->f);
			}
			if (c == '\n')
				break;
			if (buf_put(r, &len, c) < 0)
				return -1;
		}
		(void) any;
		if (buf_put(r, &len, '\0') < 0)
			return -1;
		r->nfields = nf;
		for (int i = 0; i < nf; i++)
			r->field[i] = r->buf + starts[i];
		r->line = r->line < startline ? startline : r->line;
		return 1;
	}
}

int
csv_open(csv_reader *r, const char *path)
{
	int			rc,
				i;

	memset(r, 0, sizeof(*r));
	r->path = path;
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
	}
	r->nfields = 0;
	return 0;
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

int
csv_next(csv_reader *r)
{
	return read_record(r);
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
csv_parse_double(const char *s, double *out)
{
	char	   *end;
	double		v;

	while (isspace((unsigned char) *s))
		s++;
	if (*s == '\0')
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s)
		return -1;
	while (isspace((unsigned char) *end))
		end++;
	if (*end != '\0' || !isfinite(v))
		return -1;
	*out = v;
	return 0;
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
