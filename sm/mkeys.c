/*
 * M_Keys on the wire (sm/mkeys.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "core/alloc.h"
#include "core/file.h"
#include "core/guidhash.h"
#include "core/log.h"
#include "sm/mkeys.h"

struct nb {                     /* one link end, as last adopted */
	uint64_t node;          /* node GUID */
	uint8_t port;           /* its port number */
	uint64_t peer;          /* the managed-port GUID cabled there */
};

struct mkeys {
	struct mkey_cfg cfg;
	mkeys_view_fn view;
	void *arg;
	uint64_t own_guid;
	char *path;             /* neighbour map file, NULL: none */
	struct nb *nb;
	size_t nnb;
	bool nb_loaded;
	struct guid_hash told;  /* managed-port GUIDs said foreign: 1 */
	struct mkeys_stats st;
	bool seen;              /* a port was read holding a key */
	double log_window;      /* start of the current 10 s of trap logs */
	unsigned logged, quiet; /* logged in it, and not */
};

static int
nb_cmp(const void *a, const void *b)
{
	const struct nb *x = a, *y = b;

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return (int)x->port - (int)y->port;
}

static void
nb_load(struct mkeys *mk)
{
	FILE *fp;
	char line[256];
	size_t cap = 0;

	mk->nb_loaded = true;
	if (mk->path == NULL || (fp = fopen(mk->path, "r")) == NULL)
		return;
	while (fgets(line, sizeof(line), fp) != NULL) {
		uint64_t node, peer;
		unsigned port;

		if (line[0] == '#' || sscanf(line, "%" SCNx64 " %u %" SCNx64,
		    &node, &port, &peer) != 3 || port > 255)
			continue;
		if (mk->nnb == cap) {
			cap = cap ? 2 * cap : 256;
			mk->nb = xreallocarray(mk->nb, cap, sizeof(*mk->nb));
		}
		mk->nb[mk->nnb++] = (struct nb){ node, (uint8_t)port, peer };
	}
	fclose(fp);
	qsort(mk->nb, mk->nnb, sizeof(*mk->nb), nb_cmp);
	mk->st.neighbors = mk->nnb;
}

static uint64_t
nb_find(struct mkeys *mk, uint64_t node, uint8_t port)
{
	struct nb k = { .node = node, .port = port }, *e;

	if (!mk->nb_loaded)
		nb_load(mk);
	e = bsearch(&k, mk->nb, mk->nnb, sizeof(*mk->nb), nb_cmp);
	return e != NULL ? e->peer : 0;
}

struct mkeys *
mkeys_new(mkeys_view_fn view, void *arg, uint64_t own_guid,
    const char *neighbors)
{
	struct mkeys *mk = xcalloc(1, sizeof(*mk));

	mk->view = view;
	mk->arg = arg;
	mk->own_guid = own_guid;
	mk->path = neighbors != NULL ? xstrdup(neighbors) : NULL;
	guid_hash_init(&mk->told);
	return mk;
}

void
mkeys_free(struct mkeys *mk)
{
	if (mk == NULL)
		return;
	guid_hash_fini(&mk->told);
	free(mk->nb);
	free(mk->path);
	free(mk);
}

void
mkeys_configure(struct mkeys *mk, const struct mkey_cfg *c)
{
	mk->cfg = *c;
	mk->st.key_set = c->key != 0;
	mk->st.per_port = c->per_port;
	mk->st.takeover = c->takeover;
}

/* A destination no model knows: the SM's own port, or a port the
 * neighbour map names behind a known one. */
static uint64_t
unknown_key(struct mkeys *mk, const struct fabric *f,
    const struct smp_req *q)
{
	struct dr_path up;
	uint32_t p;
	uint64_t g;

	mk->st.unknown++;
	if (!mk->cfg.per_port)
		return mk->cfg.key;
	if (q->path == NULL)
		return 0;
	if (q->path->hops == 0)
		return mkey_for_port(mk->cfg.key, 1, mk->own_guid);
	if (f == NULL)
		return 0;
	up = *q->path;
	up.hops--;
	p = up.hops == 0 ? f->sm_port : mkey_port_by_path(f, &up);
	if (p == FABRIC_NONE)
		return 0;
	g = nb_find(mk, f->nodes[f->ports[p].node].guid,
	    q->path->port[q->path->hops]);
	return g != 0 ? mkey_derive(mk->cfg.key, g) : 0;
}

static uint32_t
find(const struct fabric *f, const struct smp_req *q)
{
	if (f == NULL)
		return FABRIC_NONE;
	if (q->path != NULL)
		return mkey_managed(f, mkey_port_by_path(f, q->path));
	return mkey_managed(f, fabric_port_by_lid(f, q->dlid));
}

uint64_t
mkeys_header(void *arg, const struct smp_req *q)
{
	struct mkeys *mk = arg;
	const struct fabric *fresh = NULL, *cur = NULL;
	uint32_t mp;

	/* no key given, none ever seen: nothing to look up */
	if (mk->cfg.key == 0 && !mk->cfg.takeover && !mk->seen)
		return 0;
	mk->view(mk->arg, &fresh, &cur);
	if ((mp = find(fresh, q)) != FABRIC_NONE)
		return mkey_presented(&mk->cfg, fresh, cur, mp);
	if ((mp = find(cur, q)) != FABRIC_NONE)
		return mkey_present(&mk->cfg, cur, mp);
	return unknown_key(mk, fresh != NULL ? fresh : cur, q);
}

bool
mkeys_known(void *arg, const struct smp_req *q)
{
	struct mkeys *mk = arg;
	const struct fabric *fresh = NULL, *cur = NULL, *f;
	uint32_t mp;

	if (mk->cfg.key == 0 && !mk->cfg.takeover && !mk->seen)
		return true;
	mk->view(mk->arg, &fresh, &cur);
	f = fresh;
	if ((mp = find(fresh, q)) == FABRIC_NONE || !fresh->ports[mp].info_valid) {
		f = cur;
		mp = find(cur, q);
	}
	/* a destination no model knows is presented a guess with per-port
	 * keys (the neighbour map's, or none) */
	if (mp == FABRIC_NONE)
		return !mk->cfg.per_port;
	return !f->ports[mp].mkey_foreign;
}

static const char *
port_name(const struct fabric *f, uint32_t mp, char *buf, size_t len)
{
	const struct fabric_port *port = &f->ports[mp];
	const struct fabric_node *n = &f->nodes[port->node];

	if (n->type == NODE_SWITCH)
		snprintf(buf, len, "switch 0x%016" PRIx64 " \"%s\"", n->guid,
		    n->desc);
	else
		snprintf(buf, len, "port 0x%016" PRIx64 " (\"%s\" port %u)",
		    port->guid, n->desc, port->num);
	return buf;
}

unsigned
mkeys_classify(struct mkeys *mk, struct fabric *fresh,
    const struct fabric *cur)
{
	unsigned n = 0;
	uint32_t i;

	mk->st.foreign = mk->st.hidden = mk->st.other = 0;
	for (i = 0; i < fresh->nnodes; i++) {
		const struct fabric_node *nd = &fresh->nodes[i];
		unsigned lo = nd->type == NODE_SWITCH ? 0 : 1;
		unsigned hi = nd->type == NODE_SWITCH ? 0 : nd->nports;

		for (unsigned num = lo; num <= hi; num++) {
			uint32_t mp = fabric_port_idx(fresh, i, (uint8_t)num);
			struct fabric_port *port = &fresh->ports[mp];
			uint64_t g = mkey_managed_guid(fresh, mp), sent;
			enum mkey_seen seen;
			uint32_t was;
			char name[160], kb[KEY_TEXT_LEN];

			if (!port->info_valid || g == 0)
				continue;
			if (mad_get_field64(port->info, 0, IB_PORT_MKEY_F) != 0 ||
			    mad_get_field(port->info, 0,
			    IB_PORT_MKEY_PROT_BITS_F) != 0)
				mk->seen = true;
			/* what its PortInfo Get presented (fresh's info is
			 * the answer itself) */
			sent = mkey_before_read(&mk->cfg, fresh, cur, mp);
			seen = mkey_classify(&mk->cfg, fresh, mp, port->info,
			    sent);
			if (seen == MKEY_OTHER && mk->cfg.takeover)
				seen = MKEY_OURS;
			was = guid_hash_get(&mk->told, g);
			port->mkey_foreign = (uint8_t)seen;
			if (seen == MKEY_OURS) {
				if (was == 1) {
					log_info("mkey: %s answers to our M_Key "
					    "again", port_name(fresh, mp, name,
					    sizeof(name)));
					guid_hash_put(&mk->told, g, 0);
				}
				continue;
			}
			n++;
			mk->st.foreign++;
			if (seen == MKEY_HIDDEN)
				mk->st.hidden++;
			else
				mk->st.other++;
			if (was == 1)
				continue;
			guid_hash_put(&mk->told, g, 1);
			if (seen == MKEY_HIDDEN)
				log_warnx("mkey: %s holds an M_Key this SM "
				    "does not know (protection level %u, lease "
				    "%u s): left alone%s", port_name(fresh, mp,
				    name, sizeof(name)),
				    (unsigned)mad_get_field(port->info, 0,
				    IB_PORT_MKEY_PROT_BITS_F),
				    (unsigned)mad_get_field(port->info, 0,
				    IB_PORT_MKEY_LEASE_F), mk->cfg.takeover ?
				    "; taken once its lease runs out" :
				    " (m_key_takeover: false)");
			else
				log_warnx("mkey: %s holds another M_Key (%s, "
				    "readable at protection level 0): left alone "
				    "(m_key_takeover: false)", port_name(fresh, mp,
				    name, sizeof(name)), key_text(mad_get_field64(
				    port->info, 0, IB_PORT_MKEY_F), kb));
		}
	}
	return n;
}

static int
write_nb(FILE *fp, void *arg)
{
	const struct mkeys *mk = arg;
	size_t i;

	fprintf(fp, "# ibsmd M_Key neighbours: <node guid> <port> <guid of "
	    "the port (a switch: its port 0) cabled there>\n");
	for (i = 0; i < mk->nnb; i++)
		fprintf(fp, "0x%016" PRIx64 " %u 0x%016" PRIx64 "\n",
		    mk->nb[i].node, mk->nb[i].port, mk->nb[i].peer);
	return 0;
}

void
mkeys_adopted(struct mkeys *mk, const struct fabric *f)
{
	struct nb *v = NULL;
	size_t n = 0, cap = 0;
	uint32_t p;

	if (mk->path == NULL || mk->cfg.key == 0 || !mk->cfg.per_port)
		return;
	if (!mk->nb_loaded)
		nb_load(mk);
	for (p = 0; p < f->nports; p++) {
		const struct fabric_port *port = &f->ports[p];
		uint64_t g;

		if (port->num == 0 || port->peer == FABRIC_NONE ||
		    f->nodes[port->node].guid == 0)
			continue;
		g = mkey_managed_guid(f, mkey_managed(f, port->peer));
		if (g == 0)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			v = xreallocarray(v, cap, sizeof(*v));
		}
		v[n++] = (struct nb){ f->nodes[port->node].guid, port->num, g };
	}
	qsort(v, n, sizeof(*v), nb_cmp);
	if (n == mk->nnb) {
		size_t i;

		for (i = 0; i < n && nb_cmp(&v[i], &mk->nb[i]) == 0 &&
		    v[i].peer == mk->nb[i].peer; i++)
			;
		if (i == n) {
			free(v);
			return;
		}
	}
	free(mk->nb);
	mk->nb = v;
	mk->nnb = n;
	mk->st.neighbors = n;
	if (file_replace(mk->path, write_nb, mk) != 0)
		log_warn("mkey: cannot save %s", mk->path);
}

void
mkeys_stats(const struct mkeys *mk, struct mkeys_stats *st)
{
	*st = mk->st;
}

/* What LID lid is in f: a switch, or a CA port, by name and GUID. */
static void
lid_name(const struct fabric *f, uint16_t lid, char *buf, size_t len)
{
	uint32_t p = f != NULL ? fabric_port_by_lid(f, lid) : FABRIC_NONE;
	const struct fabric_node *n;

	if (p == FABRIC_NONE) {
		snprintf(buf, len, "LID %u (not in the fabric in use)", lid);
		return;
	}
	n = &f->nodes[f->ports[p].node];
	if (n->type == NODE_SWITCH)
		snprintf(buf, len, "switch 0x%016" PRIx64 " \"%s\" (LID %u)",
		    n->guid, n->desc, lid);
	else
		snprintf(buf, len, "\"%s\" port %u, GUID 0x%016" PRIx64
		    " (LID %u)", n->desc, f->ports[p].num, f->ports[p].guid,
		    lid);
}

void
mkeys_bad_key(struct mkeys *mk, const struct fabric *f,
    const struct mkey_trap *t, double now)
{
	char at[192], by[192], kb[KEY_TEXT_LEN];

	mk->st.bad_key_traps++;
	lid_name(f, t->issuer, at, sizeof(at));
	if (t->lid != 0 && t->lid != 0xffff)
		lid_name(f, t->lid, by, sizeof(by));
	else
		snprintf(by, sizeof(by), "a directed-route requester (%u hops, "
		    "DRSLID %u)", t->hops, t->dr_slid);
	snprintf(mk->st.last_offender, sizeof(mk->st.last_offender), "%s", by);
	if (now - mk->log_window >= 10.0) {
		if (mk->quiet > 0)
			log_warnx("mkey: %u more Bad M_Key traps not logged",
			    mk->quiet);
		mk->log_window = now;
		mk->logged = mk->quiet = 0;
	}
	if (mk->logged >= 20) {
		mk->quiet++;
		return;
	}
	mk->logged++;
	log_warnx("mkey: Bad M_Key (trap 256) at %s: %s presented key %s "
	    "in a %s of attribute 0x%04x (modifier 0x%x)%s", at, by,
	    key_text(t->mkey, kb), t->method == 0x02 ? "Set" :
	    t->method == 0x01 ? "Get" : t->method == 0x07 ? "TrapRepress" :
	    "request", t->attr, t->mod, t->dr ? ", directed route" : "");
}

static void
provoked(void *arg, int status, const uint8_t *resp)
{
	(void)arg;
	(void)status;
	(void)resp;
}

unsigned
mkeys_provoke(struct mkeys *mk, struct mad_engine *mad,
    const struct fabric *f)
{
	unsigned n = 0, longest = 0, lease;
	uint32_t p;

	if (!mk->cfg.takeover)
		return 0;
	for (p = 0; p < f->nports; p++) {
		const struct fabric_port *port = &f->ports[p];
		const struct fabric_node *nd = &f->nodes[port->node];
		struct smp_req r = { .method = MAD_SET, .attr = ATTR_NODE_DESC,
		    .dest = nd->guid };

		lease = (unsigned)mad_get_field((void *)port->info, 0,
		    IB_PORT_MKEY_LEASE_F);
		if (port->mkey_foreign != MKEY_HIDDEN || mkey_managed(f, p) != p ||
		    lease == 0)
			continue;
		r.path = nd->type == NODE_SWITCH ? &f->paths[nd->path] :
		    fabric_port_path(f, p);
		if (r.path == NULL)
			continue;
		if (smp_request(mad, &r, provoked, NULL) == 0) {
			n++;
			if (lease > longest)
				longest = lease;
		}
	}
	if (n > 0)
		log_info("mkey: %u port%s holding a key we do not know sent a "
		    "request that starts their lease (m_key_takeover)", n,
		    n == 1 ? "" : "s");
	return longest;
}
