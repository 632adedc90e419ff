/*
 * triggers.h — events that ask for a round, and the round at commit.
 */
#ifndef MIXDNN_TRIGGERS_H
#define MIXDNN_TRIGGERS_H

void		mx_triggers_init(void);

#endif
