/*
 * Node names by GUID: the node name map of OpenSM and infiniband-diags
 * (ibnetdiscover --node-name-map). Lines of a GUID (0x hex or decimal) and
 * a name, the name in double quotes when it holds blanks (the rest of the
 * line otherwise); '#' starts a comment, blank lines are ignored. The map
 * names nodes for people: in the log, ibsmctl and OpenSM's dump files. It
 * never changes what a node is.
 *
 * One map is in force at a time (node_names_use()); query_node_text() and
 * query_node_name() read it. Pure: the text comes from the caller.
 */
#ifndef IBSMD_NODEMAP_H
#define IBSMD_NODEMAP_H

#include <stddef.h>
#include <stdint.h>

struct node_names;

/*
 * Parse a map. Each mistake is passed to err as "FILE:LINE:COL: message"
 * (every one, in file order); returns the number of mistakes, with *out
 * the map when there is none (NULL otherwise). A GUID named twice is a
 * mistake; an empty map is a map.
 */
unsigned node_names_parse(const char *file, const char *text, size_t len,
    struct node_names **out, void (*err)(void *arg, const char *line),
    void *arg);
void node_names_free(struct node_names *m);
size_t node_names_count(const struct node_names *m);
/* The name of GUID guid (a node GUID), NULL when the map has none. */
const char *node_names_get(const struct node_names *m, uint64_t guid);

/* The map in force (NULL: none); the caller keeps it alive until the next
 * call. */
void node_names_use(const struct node_names *m);
const struct node_names *node_names_current(void);

#endif
