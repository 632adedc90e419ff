/*
 * column.c — columns of Datums for unnest() writes (column.h).
 */
#include "postgres.h"

#include "utils/array.h"
#include "utils/lsyscache.h"

#include "column.h"

void
mx_column_init(mx_column *c, int cap)
{
	c->n = 0;
	c->cap = Max(cap, 1);
	c->values = palloc0(sizeof(Datum) * c->cap);
	c->nulls = palloc0(sizeof(bool) * c->cap);
}

void
mx_column_push(mx_column *c, Datum value, bool isnull)
{
	if (c->cap == 0)
		mx_column_init(c, 16);
	if (c->n == c->cap)
	{
		c->cap *= 2;
		c->values = repalloc(c->values, sizeof(Datum) * c->cap);
		c->nulls = repalloc(c->nulls, sizeof(bool) * c->cap);
	}
	c->values[c->n] = isnull ? (Datum) 0 : value;
	c->nulls[c->n] = isnull;
	c->n++;
}

Datum
mx_column_array(const mx_column *c, Oid elemtype)
{
	int16		typlen;
	bool		typbyval;
	char		typalign;
	int			dims[1] = {c->n};
	int			lbs[1] = {1};

	get_typlenbyvalalign(elemtype, &typlen, &typbyval, &typalign);
	/* A column without nulls gives an array without a null bitmap. */
	return PointerGetDatum(construct_md_array(c->values, c->nulls, 1, dims, lbs,
											  elemtype, typlen, typbyval, typalign));
}
