/*
 * What a sweep finds again and again (a partition member not in the
 * fabric), said once: when it first appears and when it goes away, not
 * at every heavy sweep. A round begins, each message of the round is
 * added (logged only if the last round did not have it), the round ends
 * (each message of the last round not seen again is logged as gone).
 */
#ifndef IBSMD_NOTES_H
#define IBSMD_NOTES_H

#include <stdbool.h>
#include <stddef.h>

struct notes {
	const char *tag;        /* "partitions" */
	char **said;            /* the last round's messages */
	size_t nsaid;
	char **now;             /* this round's */
	size_t nnow;
	bool open;
};

void notes_init(struct notes *n, const char *tag);
void notes_fini(struct notes *n);
void notes_begin(struct notes *n);
/* warn: a warning, else information. */
void notes_add(struct notes *n, bool warn, const char *msg);
void notes_end(struct notes *n);

#endif
