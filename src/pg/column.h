/*
 * column.h — a growable column of Datums (with nulls), turned into a
 * one-dimensional array: how the write-backs send many rows in one
 * statement (INSERT ... SELECT FROM unnest($1, $2, ...)).
 */
#ifndef MIXDNN_COLUMN_H
#define MIXDNN_COLUMN_H

#include "postgres.h"

typedef struct mx_column
{
	int			n;
	int			cap;
	Datum	   *values;
	bool	   *nulls;
} mx_column;

/* An empty column with room for cap values (it grows past them). */
void		mx_column_init(mx_column *c, int cap);

/* Appends a value, or a null when isnull (value is then ignored). */
void		mx_column_push(mx_column *c, Datum value, bool isnull);

/* The column as an array of elemtype (a Datum for an SPI argument). */
Datum		mx_column_array(const mx_column *c, Oid elemtype);

#endif
