/*
 * output.c — query results for people (aligned columns) and for scripts
 * (JSON).
 */
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

/* Display width: UTF-8 continuation bytes take no column. */
static int
width(const char *s)
{
	int			w = 0;

	for (; *s; s++)
		if (((unsigned char) *s & 0xC0) != 0x80)
			w++;
	return w;
}

static void
pad(FILE *out, const char *s, int w, int last)
{
	fputs(s, out);
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
	fputc('"', out);
	for (; *s; s++)
	{
		unsigned char c = (unsigned char) *s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c == '\t')
			fputs("\\t", out);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
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
