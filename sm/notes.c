/*
 * Messages said once per appearance. See notes.h.
 */
#include "sm/notes.h"

#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/log.h"

void
notes_init(struct notes *n, const char *tag)
{
	memset(n, 0, sizeof(*n));
	n->tag = tag;
}

static void
free_list(char **v, size_t k)
{
	for (size_t i = 0; i < k; i++)
		free(v[i]);
	free(v);
}

void
notes_fini(struct notes *n)
{
	free_list(n->said, n->nsaid);
	free_list(n->now, n->nnow);
	memset(n, 0, sizeof(*n));
}

void
notes_begin(struct notes *n)
{
	if (n->open)
		notes_end(n);
	n->open = true;
}

void
notes_add(struct notes *n, bool warn, const char *msg)
{
	size_t i;
	char *s = NULL;

	for (i = 0; i < n->nnow; i++)
		if (strcmp(n->now[i], msg) == 0)
			return;         /* twice in one round */
	for (i = 0; i < n->nsaid; i++)
		if (n->said[i] != NULL && strcmp(n->said[i], msg) == 0) {
			s = n->said[i];
			n->said[i] = NULL;
			break;
		}
	if (s == NULL) {
		if (warn)
			log_warnx("%s: %s", n->tag, msg);
		else
			log_info("%s: %s", n->tag, msg);
		s = xmalloc(strlen(msg) + 1);
		memcpy(s, msg, strlen(msg) + 1);
	}
	if (!n->open) {
		/* outside a round: said, not remembered */
		free(s);
		return;
	}
	n->now = xreallocarray(n->now, n->nnow + 1, sizeof(*n->now));
	n->now[n->nnow++] = s;
}

void
notes_end(struct notes *n)
{
	for (size_t i = 0; i < n->nsaid; i++)
		if (n->said[i] != NULL)
			log_info("%s: no longer so: %s", n->tag, n->said[i]);
	free_list(n->said, n->nsaid);
	n->said = n->now;
	n->nsaid = n->nnow;
	n->now = NULL;
	n->nnow = 0;
	n->open = false;
}
