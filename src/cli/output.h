/*
 * output.h — query results as a human table or as JSON (bin/mixdnn).
 */
#ifndef MC_OUTPUT_H
#define MC_OUTPUT_H

#include <stdio.h>

#include "libpq-fe.h"

/* Every row of res as aligned columns under a header; "(no rows)" when empty. */
void		mc_print_table(FILE *out, const PGresult *res);

/* Every row of res as a JSON array of objects on one line (no newline), numbers and booleans unquoted. */
void		mc_print_json(FILE *out, const PGresult *res);

/* s as a JSON string literal, quotes included. */
void		mc_json_string(FILE *out, const char *s);

#endif
