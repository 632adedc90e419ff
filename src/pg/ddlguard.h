/*
 * ddlguard.h — refuses DDL on mixdnn's relations that PostgreSQL would
 * lock before it refused it (ddlguard.c).
 */
#ifndef MIXDNN_DDLGUARD_H
#define MIXDNN_DDLGUARD_H

/* From _PG_init, in every backend that loads the library. */
void		mx_ddlguard_init(void);

#endif
