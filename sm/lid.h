/*
 * LID manager: a unique unicast LID for every end port (CA/router port,
 * switch port 0), stable across restarts through a persistent guid2lid map.
 * Pure policy plus load/save of the map file; no fabric I/O.
 *
 * File format (compatible with OpenSM's guid2lid): one line per port,
 *   0x<port guid> <base lid> <base lid + 2^lmc - 1>
 * '#' starts a comment. Unparsable lines (and GUID 0) are reported with
 * file:line and skipped; the rest is kept.
 */
#ifndef IBSMD_LID_H
#define IBSMD_LID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lid_map;

struct lid_req {
	uint64_t guid;          /* port GUID */
	uint16_t cur;           /* LID the port holds in the fabric now (0: none) */
	uint16_t lid;           /* out: base LID assigned */
	bool single;            /* one LID whatever the LMC, not aligned:
				 * a base switch port 0 (lmc_esp0 off) */
};

struct lid_map *lid_map_new(void);
void lid_map_free(struct lid_map *m);

/* Load path into m (replacing its content). A missing file is not an error
 * (empty map). Bad lines are logged as "path:line: reason" and skipped;
 * *bad (if not NULL) receives their count. Returns 0, or -1 when the file
 * exists but cannot be read: not a regular file (a FIFO, a directory,
 * /dev/zero: never read), larger than LID_MAP_MAX_BYTES, unreadable; the
 * reason is lid_map_why(). */
#define LID_MAP_MAX_BYTES       (16u << 20)
int lid_map_load(struct lid_map *m, const char *path, unsigned *bad);
/* Why the last lid_map_load() or lid_map_save() failed ("" if it did not
 * say: then errno does). */
const char *lid_map_why(const struct lid_map *m);

/* Write the map atomically: temporary file, fsync, rename, fsync of the
 * directory. A path that exists and is not a regular file is not replaced
 * (-1, lid_map_why() says why). Returns 0 or -1 with errno set. */
int lid_map_save(struct lid_map *m, const char *path);

/* Assign base LIDs (aligned to 2^lmc; one LID to a single request) to
 * the n requests, in order of
 * priority (the SM's port first). Rules, first that applies:
 *  1. the LID remembered for the GUID in m;
 *  2. the LID the port holds now, when valid, aligned, and claimed by no
 *     other port (remembered or already assigned in this call);
 *  3. the lowest free LID range.
 * LIDs remembered for GUIDs absent from reqs stay reserved, and are reused
 * only when the LID space is otherwise full. m is updated with every
 * assignment. A request with GUID 0, which names no port, gets lid 0 and
 * a warning, and is not remembered. Returns 0, or -1 when the LID space is
 * exhausted (the requests that could not be served get lid 0). */
int lid_assign(struct lid_map *m, struct lid_req *reqs, size_t n, uint8_t lmc);

/* Make m say what the fabric holds: every request whose current LID is a
 * valid base at this LMC, held by no other request, is remembered with
 * that LID; entries that claimed any of those LIDs are forgotten. Entries
 * of GUIDs not requested stay. Returns how many entries changed. Called by
 * an SM that takes over from another master, so that lid_assign() keeps
 * the LIDs in use (rule 1 then finds them). */
size_t lid_map_learn(struct lid_map *m, const struct lid_req *reqs, size_t n,
    uint8_t lmc);

/* Number of entries, and the LID remembered for guid (0 if none). */
size_t lid_map_count(const struct lid_map *m);
uint16_t lid_map_get(const struct lid_map *m, uint64_t guid);
/* Whether the map changed since it was loaded or saved. */
int lid_map_dirty(const struct lid_map *m);

#endif
