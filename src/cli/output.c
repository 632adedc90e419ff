/*
 * output.c — query results for people (aligned columns) and for scripts
 * (JSON).
 */
#define _XOPEN_SOURCE 700		/* wcwidth */

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

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
 * One character of a value, as the table and JSON print it. Any user's job
 * name or reason reaches an admin's terminal (queue --all, top, history):
 * printed raw, ESC and OSC sequences would clear the screen, set its
 * title, write the clipboard, a newline forge rows, and a bidirectional
 * override reorder what follows it. The client asks for UTF-8
 * (main.c), but a SQL_ASCII database passes any byte through, so a byte
 * that is not valid UTF-8 is escaped too: a lone 0x9B is C1's CSI to a
 * terminal reading Latin-1.
 */
typedef enum
{
	CH_RAW,						/* printed as it is */
	CH_ESCAPED,					/* printed as \n, \t, \r, or cp in four hex digits (\u001b) */
	CH_INVALID					/* not UTF-8: printed as \xNN (tables), \ufffd (JSON) */
} ch_kind;

typedef struct
{
	ch_kind		kind;
	int			len;			/* bytes of the value it takes */
	unsigned	cp;				/* its code point (CH_INVALID: the byte) */
	int			cols;			/* columns it takes printed raw */
} mc_char;

/*
 * C0, DEL, C1, the line and paragraph separators, and the marks and
 * overrides of Unicode's bidirectional algorithm.
 */
static int
must_escape(unsigned cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x061c || cp == 0x200e || cp == 0x200f ||
		cp == 0x2028 || cp == 0x2029 || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

/* The code point of the UTF-8 sequence at s and its length; 0 when it is not a valid one. */
static int
utf8_at(const unsigned char *s, unsigned *cp)
{
	int			n = s[0] < 0x80 ? 1 : s[0] < 0xc2 ? 0 : s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : s[0] < 0xf5 ? 4 : 0;
	unsigned	lo = s[0] == 0xe0 ? 0xa0 : s[0] == 0xf0 ? 0x90 : 0x80,	/* no overlong forms */
				hi = s[0] == 0xed ? 0x9f : s[0] == 0xf4 ? 0x8f : 0xbf;	/* no surrogates, none past U+10FFFF */
	int			i;
	unsigned	v;

	*cp = s[0];					/* what an invalid sequence's first byte prints as */
	if (n <= 1)
		return n;
	v = s[0] & (0xff >> (n + 1));
	for (i = 1; i < n; i++)
	{
		if (s[i] < (i == 1 ? lo : 0x80) || s[i] > (i == 1 ? hi : 0xbf))
			return 0;
		v = (v << 6) | (s[i] & 0x3f);
	}
	*cp = v;
	return n;
}

static mc_char
char_at(const char *s)
{
	mc_char		ch = {CH_RAW, 0, 0, 1};
	int			w;

	ch.len = utf8_at((const unsigned char *) s, &ch.cp);
	if (ch.len == 0)
	{
		ch.kind = CH_INVALID;
		ch.len = 1;
	}
	else if (must_escape(ch.cp))
		ch.kind = CH_ESCAPED;
	else if (ch.cp >= 0x80 && (w = wcwidth((wchar_t) ch.cp)) >= 0)
		ch.cols = w;			/* 2 for CJK and emoji, 0 for combining marks (main.c sets LC_CTYPE) */
	return ch;
}

/* ch as an escape into esc, JSON's or the table's; false when it prints raw. */
static bool
escape(mc_char ch, bool json, char esc[8])
{
	if (ch.kind == CH_RAW)
		return false;
	if (ch.kind == CH_INVALID)
		snprintf(esc, 8, json ? "\\ufffd" : "\\x%02x", ch.cp);
	else if (ch.cp == '\n' || ch.cp == '\t' || ch.cp == '\r')
		snprintf(esc, 8, "\\%c", ch.cp == '\n' ? 'n' : ch.cp == '\t' ? 't' : 'r');
	else
		snprintf(esc, 8, "\\u%04x", ch.cp);
	return true;
}

/* Columns s takes as put_cell prints it. */
static int
width(const char *s)
{
	char		esc[8];
	int			w = 0;
	mc_char		ch;

	for (; *s; s += ch.len)
	{
		ch = char_at(s);
		w += escape(ch, false, esc) ? (int) strlen(esc) : ch.cols;
	}
	return w;
}

static void
put_cell(FILE *out, const char *s)
{
	char		esc[8];
	mc_char		ch;

	for (; *s; s += ch.len)
	{
		ch = char_at(s);
		if (escape(ch, false, esc))
			fputs(esc, out);
		else
			fwrite(s, 1, (size_t) ch.len, out);
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
	mc_char		ch;

	fputc('"', out);
	for (; *s; s += ch.len)
	{
		ch = char_at(s);
		/* DEL, C1 and bidi controls too: `jq -r` prints what the string holds */
		if (escape(ch, true, esc))
			fputs(esc, out);
		else
		{
			if (*s == '"' || *s == '\\')
				fputc('\\', out);
			fwrite(s, 1, (size_t) ch.len, out);
		}
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
