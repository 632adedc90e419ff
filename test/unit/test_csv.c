/*
 * test_csv.c — the simulator's CSV reader (src/sim/csv.c): quoting, line
 * endings, skipped lines, line numbers, the header, the errors, and the
 * strict number parsers. Every trace, node and profile file the simulator
 * and the benchmark read goes through it.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "csv.h"
#include "unit.h"

static char path[64];

/* Write text to a fresh temporary file; its name is in path. */
static void
put_file(const char *text, size_t len)
{
	FILE	   *f;
	int			fd;

	strcpy(path, "/tmp/mixdnn-test-csv-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0 || (f = fdopen(fd, "w")) == NULL)
	{
		perror("test_csv: temporary file");
		exit(2);
	}
	fwrite(text, 1, len, f);
	fclose(f);
}

/* Open text as a CSV file; 0 or -1 as csv_open. */
static int
open_text(csv_reader *r, const char *text)
{
	put_file(text, strlen(text));
	return csv_open(r, path);
}

/* Open text as a file read as \copy reads it; 0 or -1 as csv_open_copy. */
static int
open_copy(csv_reader *r, const char *text)
{
	put_file(text, strlen(text));
	return csv_open_copy(r, path);
}

static void
done_text(csv_reader *r)
{
	csv_close(r);
	unlink(path);
}

static int
field_is(const csv_reader *r, int col, const char *want)
{
	return strcmp(csv_get(r, col), want) == 0;
}

static void
test_header(void)
{
	csv_reader	r;

	CHECK(open_text(&r, "\xEF\xBB\xBF name , b\t\n1,2\n") == 0, "header: opens");
	CHECK(r.nheader == 2 && csv_col(&r, "name") == 0 && csv_col(&r, "b") == 1,
		  "header: the byte-order mark and blanks around a name are not part of it");
	CHECK(csv_col(&r, "c") == -1, "header: an absent column is -1");
	CHECK(csv_next(&r) == 1 && field_is(&r, 0, "1") && field_is(&r, 1, "2"), "header: then the first record");
	CHECK(field_is(&r, 2, "") && field_is(&r, -1, ""), "csv_get: a column beyond the record is empty");
	CHECK(csv_next(&r) == 0, "header: then the end of the file");
	done_text(&r);

	CHECK(open_text(&r, "") == -1 && strstr(r.err, "empty file") != NULL,
		  "an empty file is refused: a header line is required");
	unlink(path);
	CHECK(csv_open(&r, "/nonexistent/mixdnn.csv") == -1 && strstr(r.err, "/nonexistent/mixdnn.csv") != NULL,
		  "a missing file is refused, naming it");
}

static void
test_quoting(void)
{
	csv_reader	r;

	CHECK(open_text(&r, "a,b,c\n\"x, y\",\"say \"\"hi\"\"\",plain\nab\"c,\"\",\n") == 0, "quoting: opens");
	CHECK(csv_next(&r) == 1 && r.nfields == 3, "quoting: three fields despite the quoted comma");
	CHECK(field_is(&r, 0, "x, y"), "quoting: a comma inside quotes is text");
	CHECK(field_is(&r, 1, "say \"hi\""), "quoting: a doubled quote is one quote");
	CHECK(field_is(&r, 2, "plain"), "quoting: an unquoted field after them");
	CHECK(csv_next(&r) == 1 && r.nfields == 3 && field_is(&r, 0, "ab\"c"),
		  "quoting: a quote inside an unquoted field is text");
	CHECK(field_is(&r, 1, "") && field_is(&r, 2, ""), "quoting: an empty quoted field and an empty last field");
	done_text(&r);

	CHECK(open_text(&r, "a\n\"open, never closed\n") == 0 && csv_next(&r) == -1 &&
		  strstr(r.err, ":2: unterminated quoted field") != NULL,
		  "an unterminated quote is refused with the line it opened on (%s)", r.err);
	done_text(&r);
}

static void
test_lines(void)
{
	csv_reader	r;

	CHECK(open_text(&r, "h,i\r\n# a comment, with a comma\n\n\r\n1,2\r\n\"two\nlines\",x\n3,4") == 0, "lines: opens");
	CHECK(csv_next(&r) == 1 && r.nfields == 2 && field_is(&r, 1, "2"),
		  "lines: \\r\\n ends a record and is not part of its last field");
	CHECK(r.line == 5, "lines: comment and blank lines are skipped but counted (line %d)", r.line);
	CHECK(csv_next(&r) == 1 && field_is(&r, 0, "two\nlines") && field_is(&r, 1, "x"),
		  "lines: a newline inside quotes is text");
	CHECK(r.line == 7, "lines: after a quoted newline the line is the record's last (line %d)", r.line);
	CHECK(csv_next(&r) == 1 && field_is(&r, 0, "3") && field_is(&r, 1, "4"),
		  "lines: a last record without a newline is read");
	CHECK(r.line == 8, "lines: the quoted newline counts as a line (line %d)", r.line);
	CHECK(csv_next(&r) == 0, "lines: then the end of the file");
	done_text(&r);
}

static void
test_carriage_returns(void)
{
	csv_reader	r;

	CHECK(open_text(&r, "h,i\n\r\na\rb,c\n\r\nd,e\r") == 0, "carriage returns: opens");
	CHECK(csv_next(&r) == 1 && field_is(&r, 0, "a\rb") && field_is(&r, 1, "c") && r.line == 3,
		  "carriage returns: a lone \\r inside a record is text; a line of \\r\\n only is blank");
	CHECK(csv_next(&r) == 1 && field_is(&r, 0, "d") && field_is(&r, 1, "e") && r.line == 5,
		  "carriage returns: \\r before the end of the file ends the record (line %d)", r.line);
	CHECK(csv_next(&r) == 0, "carriage returns: then the end of the file");
	done_text(&r);

	CHECK(open_text(&r, "h\n\rx\n") == 0 && csv_next(&r) == 1 && field_is(&r, 0, "x") && r.line == 3,
		  "carriage returns: a line that starts with a lone \\r is skipped as blank, its rest read as the next line");
	done_text(&r);
}

static void
test_after_quotes(void)
{
	csv_reader	r;

	CHECK(open_text(&r, "a,b\n\"x\"yz,\"p\"x\"q\n\"s\" t,\"u\"\n") == 0, "after quotes: opens");
	CHECK(csv_next(&r) == 1 && field_is(&r, 0, "xyz"), "after quotes: text after a closing quote is kept");
	CHECK(field_is(&r, 1, "px\"q"),
		  "after quotes: a quote later in a field whose quotes closed is text, not a second quoting (got '%s')",
		  csv_get(&r, 1));
	CHECK(csv_next(&r) == 1 && field_is(&r, 0, "s t") && field_is(&r, 1, "u"),
		  "after quotes: the next field may open its own quotes");
	done_text(&r);

	CHECK(open_text(&r, "only,a,header\n") == 0 && r.nheader == 3 && csv_next(&r) == 0,
		  "a file with only a header has no record");
	done_text(&r);
}

static void
test_field_limit(void)
{
	csv_reader	r;
	char		text[512];
	size_t		n = 0;

	n += snprintf(text + n, sizeof(text) - n, "h\n");
	for (int i = 0; i < CSV_MAX_FIELDS; i++)
		n += snprintf(text + n, sizeof(text) - n, "%d,", i % 10);
	n += snprintf(text + n, sizeof(text) - n, "x\n");
	CHECK(open_text(&r, text) == 0 && csv_next(&r) == -1 && strstr(r.err, "more than 64 fields") != NULL,
		  "a record of more than %d fields is refused (%s)", CSV_MAX_FIELDS, r.err);
	done_text(&r);

	n = 0;
	for (int i = 0; i < CSV_MAX_FIELDS; i++)
		n += snprintf(text + n, sizeof(text) - n, "c%d%s", i, i < CSV_MAX_FIELDS - 1 ? "," : "\n");
	for (int i = 0; i < CSV_MAX_FIELDS - 1; i++)
		n += snprintf(text + n, sizeof(text) - n, "%d,", i % 10);
	snprintf(text + n, sizeof(text) - n, "last\n");
	CHECK(open_text(&r, text) == 0 && csv_next(&r) == 1 && r.nfields == CSV_MAX_FIELDS &&
		  field_is(&r, CSV_MAX_FIELDS - 1, "last"), "a record of exactly %d fields is read", CSV_MAX_FIELDS);
	done_text(&r);
}

static void
test_long_field(void)
{
	csv_reader	r;
	size_t		len = 100000;
	char	   *text = malloc(len + 10);

	memcpy(text, "h,i\n", 4);
	memset(text + 4, 'z', len);
	memcpy(text + 4 + len, ",1\n", 4);
	put_file(text, strlen(text));
	CHECK(csv_open(&r, path) == 0 && csv_next(&r) == 1 && strlen(csv_get(&r, 0)) == len &&
		  field_is(&r, 1, "1"), "a field of %zu bytes is read whole (the buffer grows)", len);
	done_text(&r);
	free(text);
}

/* A row wider than its header, and a header naming a column twice. */
static void
test_header_width(void)
{
	csv_reader	r;

	CHECK(open_text(&r, "a,b\n1,2,3\n") == 0 && csv_next(&r) == -1 &&
		  strstr(r.err, ":2: 3 fields, but the header names 2 columns") != NULL,
		  "a row with a field past the header's columns is refused (%s)", r.err);
	done_text(&r);
	CHECK(open_text(&r, "a,b\n1,2,,\n") == 0 && csv_next(&r) == 1 && field_is(&r, 1, "2"),
		  "empty fields past the header's columns are ignored");
	done_text(&r);
	CHECK(open_text(&r, "a,b, a\n1,2,3\n") == -1 && strstr(r.err, "column \"a\" is named twice") != NULL,
		  "a header naming a column twice (blanks around a name ignored) is refused (%s)", r.err);
	done_text(&r);
	CHECK(open_text(&r, "a,,\n1,2,3\n") == 0 && csv_next(&r) == 1,
		  "unnamed header columns are not duplicates of each other");
	done_text(&r);
}

/*
 * \copy ... CSV reads a quoted empty field as an empty string, an unquoted
 * one as NULL, and takes a row of exactly the header's fields.
 */
static void
test_copy_rules(void)
{
	csv_reader	r;

	CHECK(open_text(&r, "a,b,c,d\n\"\",,\"x\",y\n") == 0 && csv_next(&r) == 1 && field_is(&r, 0, "") &&
		  field_is(&r, 1, "") && csv_quoted(&r, 0) && !csv_quoted(&r, 1) && csv_quoted(&r, 2) &&
		  !csv_quoted(&r, 3) && !csv_quoted(&r, 4) && !csv_quoted(&r, -1),
		  "quoted: a quoted empty field is told from an unquoted one");
	CHECK(csv_next(&r) == 0, "quoted: then the end of the file");
	done_text(&r);
	CHECK(open_text(&r, "a,b\n\"\",1\n,2\n") == 0 && csv_next(&r) == 1 && csv_quoted(&r, 0) &&
		  csv_next(&r) == 1 && !csv_quoted(&r, 0), "quoted: known per record");
	done_text(&r);
	CHECK(open_copy(&r, "a,b\n1,2,\n") == 0 && csv_next(&r) == -1 &&
		  strstr(r.err, ":2: 3 fields, but the header names 2 columns") != NULL &&
		  strstr(r.err, "extra data after last expected column") != NULL,
		  "copy rules: an empty field past the header's columns is refused (%s)", r.err);
	done_text(&r);
	CHECK(open_copy(&r, "a,b\n1\n") == 0 && csv_next(&r) == -1 &&
		  strstr(r.err, ":2: 1 fields, but the header names 2 columns") != NULL,
		  "copy rules: a missing field is refused (%s)", r.err);
	done_text(&r);
	CHECK(open_copy(&r, "a,b\n1,\n") == 0 && csv_next(&r) == 1 && field_is(&r, 1, ""),
		  "copy rules: a row of the header's fields is read");
	done_text(&r);
	CHECK(open_copy(&r, "a,b\n1,2\n\n") == 0 && csv_next(&r) == 1 && csv_next(&r) == -1 &&
		  strstr(r.err, ":3: 1 fields, but the header names 2 columns") != NULL,
		  "copy rules: a blank line is a row (of one NULL field), as \\copy reads it (%s)", r.err);
	done_text(&r);
	CHECK(open_copy(&r, "a,b\n#x,y\n") == 0 && csv_next(&r) == 1 && field_is(&r, 0, "#x") && field_is(&r, 1, "y"),
		  "copy rules: a '#' line is a row, as \\copy reads it");
	done_text(&r);
	CHECK(open_copy(&r, "# c\na,b\n") == 0 && r.nheader == 1 && csv_next(&r) == -1,
		  "copy rules: the first line is the header, a comment too (\\copy's HEADER skips it)");
	done_text(&r);
	CHECK(open_copy(&r, "a,b\n1,2\n\\.\n3\n") == 0 && csv_next(&r) == 1 && csv_next(&r) == 0 && csv_next(&r) == 0,
		  "copy rules: a line of \\. alone ends the data, as \\copy's end-of-data marker");
	done_text(&r);
	CHECK(open_copy(&r, "a\n\"\\.\"\n") == 0 && csv_next(&r) == 1 && field_is(&r, 0, "\\."),
		  "copy rules: a quoted \\. is a field");
	done_text(&r);
	put_file("a,b\n\n#x,y\n", strlen("a,b\n\n#x,y\n"));
	CHECK(csv_open_pycsv(&r, path) == 0 && csv_next(&r) == 1 && field_is(&r, 0, "#x") && csv_next(&r) == 0,
		  "Python's csv rules: a blank line is skipped, a '#' line is a row");
	done_text(&r);
}

static void
test_numbers(void)
{
	double		d = -1;
	int			i = -1;

	CHECK(csv_parse_double(" 12.5\t", &d) == 0 && d == 12.5, "double: blanks around a number");
	CHECK(csv_parse_double("1e3", &d) == 0 && d == 1000, "double: an exponent");
	CHECK(csv_parse_double("", &d) == -1 && csv_parse_double("  ", &d) == -1, "double: an empty field is no number");
	CHECK(csv_parse_double("12x", &d) == -1 && csv_parse_double("1 2", &d) == -1, "double: trailing text is refused");
	CHECK(csv_parse_double("1e400", &d) == -1, "double: an overflow is refused");
	CHECK(csv_parse_double("nan", &d) == -1 && csv_parse_double("inf", &d) == -1, "double: NaN and infinity are refused");
	CHECK(csv_parse_double("0x10", &d) == -1, "double: hexadecimal is refused (numeric reads none)");
	CHECK(csv_parse_double("1e-310", &d) == 0 && d > 0 && d < 1e-300, "double: a subnormal is a number (as numeric, float8)");
	CHECK(csv_parse_double("1e-400", &d) == 0 && d == 0 && csv_parse_double("-1e-400", &d) == 0 && d == 0,
		  "double: an underflow is 0, as numeric holds it (float8in refuses it: csv_parse_float8)");
	CHECK(csv_parse_float8(" 0x1p-1 ", &d) == 0 && d == 0.5, "float8: hexadecimal, as float8in's strtod reads it");
	CHECK(csv_parse_float8("1e-310", &d) == 0 && d > 0, "float8: a subnormal is a number");
	CHECK(csv_parse_float8("1e-400", &d) == -1 && csv_parse_float8("1e400", &d) == -1, "float8: out of range is refused");
	CHECK(csv_parse_float8("inf", &d) == -1 && csv_parse_float8("nan", &d) == -1 && csv_parse_float8("", &d) == -1,
		  "float8: only finite numbers (the columns refuse the others)");
	CHECK(csv_parse_float8("1x", &d) == -1, "float8: trailing text is refused");
	CHECK(csv_parse_int(" -7 ", &i) == 0 && i == -7, "int: blanks and a sign");
	CHECK(csv_parse_int("2147483647", &i) == 0 && i == 2147483647, "int: the largest int");
	CHECK(csv_parse_int("2147483648", &i) == -1, "int: beyond int is refused");
	CHECK(csv_parse_int("1.5", &i) == -1 && csv_parse_int("", &i) == -1, "int: a fraction or nothing is refused");
}

int
main(void)
{
	test_header();
	test_quoting();
	test_lines();
	test_carriage_returns();
	test_after_quotes();
	test_field_limit();
	test_long_field();
	test_header_width();
	test_copy_rules();
	test_numbers();
	return unit_done("test_csv");
}
