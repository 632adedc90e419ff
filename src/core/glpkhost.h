/*
 * glpkhost.h — hosting GLPK inside the PostgreSQL server: it must never
 * print, exit or abort (docs/model.md, "Safety").
 *
 * The caller does setjmp(jb) and, when it returns non-zero (a GLPK error
 * was caught), calls glp_free_env() and gives up; otherwise
 * mx_glpk_enter(&jb) before its GLPK calls and glp_free_env() after them,
 * so that no GLPK state survives a solve.
 */
#ifndef MIXDNN_GLPKHOST_H
#define MIXDNN_GLPKHOST_H

#include <setjmp.h>

/*
 * Free an environment a failure elsewhere left in error. Call before
 * setjmp().
 */
void		mx_glpk_reset(void);

/* Error hook longjmp()s to *jb; terminal output off and swallowed. */
void		mx_glpk_enter(jmp_buf *jb);

#endif
