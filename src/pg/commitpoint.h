/*
 * commitpoint.h — does a deferred trigger fire at commit, or earlier
 * (SET CONSTRAINTS ... IMMEDIATE)?
 */
#ifndef MIXDNN_COMMITPOINT_H
#define MIXDNN_COMMITPOINT_H

/* Installs the hooks that count statements under way; in every backend. */
void		mx_commitpoint_init(void);

/* True when no statement is under way: a deferred trigger fires at commit or PREPARE. */
bool		mx_at_commit_point(void);

#endif
