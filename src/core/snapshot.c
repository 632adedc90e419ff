/*
 * snapshot.c — freeing and name lookups for mx_snapshot (snapshot.h).
 */
#include <stdlib.h>
#include <string.h>

#include "snapshot.h"

void
mx_snapshot_free(mx_snapshot *s)
{
	int			i;

	if (s == NULL)
		return;
	if (s->profiles != NULL)
	{
		for (i = 0; i < s->nprofiles; i++)
			free(s->profiles[i].points);
	}
	free(s->types);
	free(s->nodes);
	free(s->parts);
	free(s->jobs);
	free(s->profiles);
	free(s->owners);
	memset(s, 0, sizeof(*s));
}

int
mx_type_index(const mx_snapshot *s, const char *name)
{
	int			i;

	if (s == NULL || name == NULL)
		return -1;
	for (i = 0; i < s->ntypes; i++)
		if (strcmp(s->types[i].name, name) == 0)
			return i;
	return -1;
}

int
mx_profile_index(const mx_snapshot *s, const char *model)
{
	int			i;

	if (s == NULL || model == NULL)
		return -1;
	for (i = 0; i < s->nprofiles; i++)
		if (strcmp(s->profiles[i].model, model) == 0)
			return i;
	return -1;
}

int
mx_node_status_parse(const char *name, mx_node_status *out)
{
	static const struct
	{
		const char *name;
		mx_node_status status;
	}			names[] = {{"up", MX_NODE_UP}, {"draining", MX_NODE_DRAINING}, {"down", MX_NODE_DOWN}};
	size_t		i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(name, names[i].name) == 0)
		{
			*out = names[i].status;
			return 0;
		}
	return -1;
}
