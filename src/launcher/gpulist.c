/*
 * gpulist.c — GPU index lists (gpulist.h).
 */
#include "gpulist.h"

#include <stdlib.h>

bool
lx_gpu_list_valid(const char *s)
{
	const char *p = s;

	if (*p == '\0')
		return true;
	for (;;)
	{
		int			digits = 0;

		while (*p >= '0' && *p <= '9')
		{
			p++;
			digits++;
		}
		if (digits == 0 || digits > LX_GPU_INDEX_DIGITS)
			return false;
		if (*p == '\0')
			return true;
		if (*p++ != ',')
			return false;
	}
}

/* The index at *p, moving *p past it and its comma; -1 at the end. */
static long
next_index(const char **p)
{
	char	   *end;
	long		g;

	if (**p == '\0')
		return -1;
	g = strtol(*p, &end, 10);
	if (end == *p)
		return -1;				/* not a list (see lx_gpu_list_valid) */
	*p = *end == ',' ? end + 1 : end;
	return g;
}

bool
lx_gpus_overlap(const char *a, const char *b)
{
	const char *p = a;
	long		g;

	while ((g = next_index(&p)) >= 0)
	{
		const char *q = b;
		long		h;

		while ((h = next_index(&q)) >= 0)
			if (g == h)
				return true;
	}
	return false;
}
