/*
 * output.c — query results for people (aligned columns) and for scripts
 * (JSON).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"

/* Type OIDs of pg_type.h, which client code cannot include. */
#define BOOLOID 16
#define INT8OID 20
#define INT2OID 21
#define INT4OID 23
#define FLOAT4OID 700
#define FLOAT8OID 701
#define NUMERICOID 1700
#define JSONOID 114
#define JSONBOID 3802

/*
 * A control character at s (C0, DEL, or C1 as UTF-8's C2 80..9F), spelled
 * as an escape into esc: how many bytes of s it takes, 0 if s is not one.
 * Any user's job name or reason reaches an admin's terminal (queue --all,
 * top, history): printed raw, ESC and OSC sequences would clear the
 * screen, set its title, write the clipboard, and a newline forge rows.
 */
static int
control_at(const char *s, char esc[8])
{
	unsigned char c = (unsigned char) s[0];

	if (c == '\n' || c == '\t' || c == '\r')
		snprintf(esc, 8, "\\%c", c == '\n' ? 'n' : c == '\t' ? 't' : 'r');
	else if (c < 0x20 || c == 0x7f)
		snprintf(esc, 8, "\\u%04x", c);
	else if (c == 0xC2 && (unsigned char) s[1] >= 0x80 && (unsigned char) s[1] <= 0x9F)
	{
		snprintf(esc, 8, "\\u%04x", (unsigned char) s[1]);
		return 2;
	}
	else
		return 0;
	return 1;
}

/* Display width of s as put_cell prints it: UTF-8 continuation bytes take no column. */
static int
width(const char *s)
{
	char		esc[8];
	int			w = 0,
				n;

	while (*s)
	{
		if ((n = control_at(s, esc)) > 0)
		{
			w += (int) strlen(esc);
			s += n;
			continue;
		}
		if (((unsigned char) *s & 0xC0) != 0x80)
			w++;
		s++;
	}
	return w;
}

static void
put_cell(FILE *out, const char *s)
{
	char		esc[8];
	int			n;

	while (*s)
	{
		if ((n = control_at(s, esc)) > 0)
		{
			fputs(esc, out);
			s += n;
		}
		else
			fputc(*s++, out);
	}
}

static void
pad(FILE *out, const char *s, int w, int last)
{
	put_cell(out, s);
	if (!last)
		fprintf(out, "%*s", w - width(s) + 2, "");
}

void
mc_print_table(FILE *out, const PGresult *res)
{
	int			nf = PQnfields(res),
				nr = PQntuples(res),
				*w = calloc((size_t) (nf > 0 ? nf : 1), sizeof(int)),
				r,
				f;

	if (w == NULL)
		return;
	for (f = 0; f < nf; f++)
	{
		w[f] = width(PQfname(res, f));
		for (r = 0; r < nr; r++)
			if (width(PQgetvalue(res, r, f)) > w[f])
				w[f] = width(PQgetvalue(res, r, f));
	}
	for (f = 0; f < nf; f++)
		pad(out, PQfname(res, f), w[f], f == nf - 1);
	fputc('\n', out);
	for (r = 0; r < nr; r++)
	{
		for (f = 0; f < nf; f++)
			pad(out, PQgetvalue(res, r, f), w[f], f == nf - 1);
		fputc('\n', out);
	}
	if (nr == 0)
		fputs("(no rows)\n", out);
	free(w);
}

void
mc_json_string(FILE *out, const char *s)
{
	char		esc[8];
	int			n;

	fputc('"', out);
	while (*s)
	{
		/* DEL and C1 too: `jq -r` prints what the string holds */
		if ((n = control_at(s, esc)) > 0)
		{
			fputs(esc, out);
			s += n;
			continue;
		}
		if (*s == '"' || *s == '\\')
			fputc('\\', out);
		fputc(*s++, out);
	}
	fputc('"', out);
}

static void
json_value(FILE *out, const PGresult *res, int r, int f)
{
	const char *v = PQgetvalue(res, r, f);
	Oid			t = PQftype(res, f);

	if (PQgetisnull(res, r, f))
		fputs("null", out);
	else if (t == BOOLOID)
		fputs(v[0] == 't' ? "true" : "false", out);
	else if ((t == INT2OID || t == INT4OID || t == INT8OID || t == NUMERICOID ||
			  t == FLOAT4OID || t == FLOAT8OID) && strspn(v, "0123456789+-.eE") == strlen(v))
		fputs(v, out);			/* NaN and Infinity stay strings: JSON has no such numbers */
	else if (t == JSONOID || t == JSONBOID)
		fputs(v, out);
	else
		mc_json_string(out, v);
}

void
mc_print_json(FILE *out, const PGresult *res)
{
	int			nf = PQnfields(res),
				nr = PQntuples(res),
				r,
				f;

	fputc('[', out);
	for (r = 0; r < nr; r++)
	{
		fputs(r ? ", {" : "{", out);
		for (f = 0; f < nf; f++)
		{
			if (f)
				fputs(", ", out);
			mc_json_string(out, PQfname(res, f));
			fputs(": ", out);
			json_value(out, res, r, f);
		}
		fputc('}', out);
	}
	fputc(']', out);
}
