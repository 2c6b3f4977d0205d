/*
 * ServiceRecord (attribute 0x31, 176 bytes): services that end ports
 * register with Set, find with Get/GetTable and remove with Delete. A
 * record is named by its RID (ServiceID, ServiceGID, ServiceP_Key); a Set
 * of an existing RID replaces it. Each record holds a lease in seconds
 * (0xFFFFFFFF: infinite; a Set without the lease component asks for an
 * infinite one, as OpenSM) and is dropped when the lease runs out, or when
 * the port its ServiceGID names leaves the fabric. The option
 * service_lease (sa_opts) caps the lease granted; 0: no cap.
 *
 * Partition scoping: a requester sees, registers and deletes a record only
 * if it holds the record's ServiceP_Key, or, for a record without a valid
 * key, shares a partition with the service's port. ServiceKey is zeroed
 * in answers to untrusted requesters.
 */
#ifndef IBSMD_SA_SERVICE_H
#define IBSMD_SA_SERVICE_H

#include <stdint.h>

#include "sa/attr.h"

#define SA_SERVICE_REC_SIZE 176
#define SA_SERVICE_LEASE_INFINITE 0xFFFFFFFFu
/* Records held at most: a Set past it gets NO_RESOURCES. */
#define SA_SERVICE_MAX 65536

extern const struct sa_attr sa_attr_service;

/* One record as ibsmctl shows it. */
struct sa_service_info {
	uint64_t id;
	uint8_t gid[16];
	uint16_t pkey;
	uint32_t lease;         /* as granted, seconds, or infinite */
	double remaining;       /* seconds left; < 0: infinite */
	char name[65];          /* ServiceName up to its first NUL */
};

/* Every record held, oldest first. */
void sa_services_foreach(struct sa *sa,
    void (*cb)(void *arg, const struct sa_service_info *si), void *arg);
/* Records held now. */
uint64_t sa_service_count(struct sa *sa);

/* For unit tests: the module state without an SA (no lease timer when
 * loop is NULL: expiry is then seen at the next request, by c->now). */
void *sa_service_state_new(struct ev_loop *loop);
void sa_service_state_free(void *state);
void sa_service_state_foreach(void *state, double now,
    void (*cb)(void *arg, const struct sa_service_info *si), void *arg);

#endif
