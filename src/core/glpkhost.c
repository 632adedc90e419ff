/*
 * glpkhost.c — GLPK's hooks for running inside the server (glpkhost.h).
 */
#include <glpk.h>

#include "glpkhost.h"

static void
on_glpk_error(void *info)
{
	longjmp(*(jmp_buf *) info, 1);
}

static int
on_glpk_term(void *info, const char *s)
{
	(void) info;
	(void) s;
	return 1;					/* swallow every line */
}

void
mx_glpk_reset(void)
{
	if (glp_at_error())
		glp_free_env();
}

void
mx_glpk_enter(jmp_buf *jb)
{
	glp_error_hook(on_glpk_error, jb);
	glp_term_hook(on_glpk_term, NULL);
	glp_term_out(GLP_OFF);
}
