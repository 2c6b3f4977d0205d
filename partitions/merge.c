/*
 * The merge: statements (stmt.h) bound to P_Keys, in two passes so that a
 * name given a P_Key anywhere in the file keeps it, repeated definitions
 * of one partition merged, then what needs the whole file checked
 * (conflicting flags, IP groups, duplicate multicast GIDs). Also the
 * policy's life cycle and look-ups.
 */
#include "partitions/stmt.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct part {
	struct pkey_partition p;
	struct pos name_at;
	unsigned flag_line[7];
	struct stmt_mgroup *mgroups;    /* with positions, until finish */
	size_t nmgroups, mgroups_cap;
	size_t members_cap;
};

struct merge {
	struct pkey_errors *errs;
	struct part *v;
	size_t n, cap;
};

static void __attribute__((format(printf, 3, 4)))
merr(struct merge *mg, struct pos at, const char *fmt, ...)
{
	va_list ap;
	char *text;

	va_start(ap, fmt);
	text = pkey_xvasprintf(fmt, ap);
	va_end(ap);
	pkey_msg_add(mg->errs, PKEY_MSG_ERROR, at.line, at.col, "%s", text);
	free(text);
}

static struct part *
part_by_pkey(struct merge *mg, uint16_t pkey)
{
	for (size_t i = 0; i < mg->n; i++)
		if (mg->v[i].p.pkey == pkey)
			return &mg->v[i];
	return NULL;
}

static struct part *
part_by_name(struct merge *mg, const char *name)
{
	for (size_t i = 0; i < mg->n; i++)
		if (mg->v[i].p.name != NULL && strcmp(mg->v[i].p.name, name) == 0)
			return &mg->v[i];
	return NULL;
}

static struct part *
part_new(struct merge *mg, uint16_t pkey, const char *name, struct pos at)
{
	struct part *pt;

	GROW(mg->v, mg->n, mg->cap);
	pt = &mg->v[mg->n++];
	memset(pt, 0, sizeof(*pt));
	pt->p.pkey = pkey;
	pt->p.name = name ? pkey_xstrndup(name, strlen(name)) : NULL;
	pt->p.line = at.line;
	pt->name_at = at;
	return pt;
}

/* A new name must not differ from another only in case (nor from
 * "Default"): that is a typo, never a second partition. */
static bool
name_case_ok(struct merge *mg, const struct stmt *st)
{
	const char *other = NULL;
	unsigned line = 0;

	if (strcmp(st->name, "Default") != 0 &&
	    pkey_caseeq(st->name, strlen(st->name), "Default"))
		other = "Default";
	for (size_t i = 0; other == NULL && i < mg->n; i++)
		if (mg->v[i].p.name != NULL &&
		    strcmp(mg->v[i].p.name, st->name) != 0 &&
		    pkey_caseeq(st->name, strlen(st->name), mg->v[i].p.name)) {
			other = mg->v[i].p.name;
			line = mg->v[i].name_at.line;
		}
	if (other == NULL)
		return true;
	if (line)
		merr(mg, st->name_at, "partition name '%s' differs only in "
		    "case from '%s' (line %u)", st->name, other, line);
	else
		merr(mg, st->name_at, "partition name '%s' differs only in "
		    "case from '%s'", st->name, other);
	return false;
}

/* The partition an explicit "name=pkey" (or bare pkey) statement joins. */
static struct part *
bind_explicit(struct merge *mg, struct stmt *st)
{
	struct part *pt = part_by_pkey(mg, st->pkey), *other;

	if (st->name != NULL && strcmp(st->name, "Default") == 0 &&
	    st->pkey != PKEY_DEFAULT) {
		merr(mg, st->pkey_at, "the name 'Default' belongs to P_Key "
		    "0x7fff");
		return NULL;
	}
	if (st->name != NULL) {
		other = part_by_name(mg, st->name);
		if (other != NULL && other->p.pkey != st->pkey) {
			merr(mg, st->name_at, "partition name '%s' is "
			    "already used for P_Key 0x%04x (line %u)", st->name,
			    other->p.pkey, other->name_at.line);
			return NULL;
		}
		if (pt != NULL && pt->p.name != NULL &&
		    strcmp(pt->p.name, st->name) != 0) {
			merr(mg, st->name_at, "P_Key 0x%04x is already named "
			    "'%s' (line %u)", st->pkey, pt->p.name,
			    pt->name_at.line);
			return NULL;
		}
		if (other == NULL && !name_case_ok(mg, st))
			return NULL;
	}
	if (pt == NULL)
		pt = part_new(mg, st->pkey, st->name, st->name ? st->name_at :
		    st->pkey_at);
	else if (pt->p.name == NULL && st->name != NULL) {
		pt->p.name = pkey_xstrndup(st->name, strlen(st->name));
		pt->name_at = st->name_at;
	}
	return pt;
}

/* The partition a "name" statement (no P_Key) joins, or a new one with a
 * generated P_Key: the lowest not used anywhere in the file. */
static struct part *
bind_name(struct merge *mg, struct stmt *st, uint16_t *next)
{
	struct part *pt = part_by_name(mg, st->name);

	if (pt != NULL)
		return pt;
	if (strcmp(st->name, "Default") == 0) {
		pt = part_by_pkey(mg, PKEY_DEFAULT);
		if (pt != NULL && pt->p.name != NULL) {
			merr(mg, st->name_at, "P_Key 0x7fff (Default) is "
			    "already named '%s' (line %u)", pt->p.name,
			    pt->name_at.line);
			return NULL;
		}
		if (pt == NULL)
			return part_new(mg, PKEY_DEFAULT, "Default", st->name_at);
		pt->p.name = pkey_xstrndup("Default", 7);
		pt->name_at = st->name_at;
		return pt;
	}
	if (!name_case_ok(mg, st))
		return NULL;
	while (*next < PKEY_DEFAULT && part_by_pkey(mg, *next) != NULL)
		(*next)++;
	if (*next >= PKEY_DEFAULT) {
		merr(mg, st->name_at, "no P_Key left to give partition "
		    "'%s'", st->name);
		return NULL;
	}
	pt = part_new(mg, (*next)++, st->name, st->name_at);
	pt->p.generated = true;
	pkey_msg_add(mg->errs, PKEY_MSG_NOTE, st->name_at.line, st->name_at.col,
	    "partition '%s' has no P_Key: using 0x%04x (write one to keep it "
	    "stable when the file changes)", st->name, pt->p.pkey);
	return pt;
}

static unsigned
flag_value_of(const struct pkey_group_flags *f, unsigned bit)
{
	switch (bit) {
	case PKEY_GF_MTU: return f->mtu;
	case PKEY_GF_RATE: return f->rate;
	case PKEY_GF_SL: return f->sl;
	case PKEY_GF_QKEY: return f->qkey;
	case PKEY_GF_TCLASS: return f->tclass;
	case PKEY_GF_FLOWLABEL: return f->flow_label;
	}
	return 0;
}

static const char *const gf_names[7] = { "mtu", "rate", "sl", "scope",
	"Q_Key", "TClass", "FlowLabel" };

/* Partition-wide flags: the statements of one P_Key must agree. */
static void
merge_flags(struct merge *mg, struct part *pt, const struct stmt *st)
{
	struct pkey_group_flags *f = &pt->p.flags;
	char desc[96];

	pt->p.ipoib |= st->ipoib;
	pt->p.indx0 |= st->indx0;
	for (unsigned bit = 1; bit <= PKEY_GF_FLOWLABEL; bit <<= 1) {
		int i = pkey_gf_index(bit);

		if (!(st->flags.set & bit))
			continue;
		if (bit == PKEY_GF_SCOPE) {
			f->scope_mask |= st->flags.scope_mask;
		} else if (f->set & bit) {
			if (flag_value_of(f, bit) != flag_value_of(&st->flags,
			    bit))
				merr(mg, st->flag_at[i], "conflicting %s for "
				    "%s: %u here, %u at line %u", gf_names[i],
				    pkey_stmt_desc(st, desc, sizeof(desc)),
				    flag_value_of(&st->flags, bit),
				    flag_value_of(f, bit), pt->flag_line[i]);
			continue;
		} else {
			switch (bit) {
			case PKEY_GF_MTU: f->mtu = st->flags.mtu; break;
			case PKEY_GF_RATE: f->rate = st->flags.rate; break;
			case PKEY_GF_SL: f->sl = st->flags.sl; break;
			case PKEY_GF_QKEY: f->qkey = st->flags.qkey; break;
			case PKEY_GF_TCLASS: f->tclass = st->flags.tclass; break;
			case PKEY_GF_FLOWLABEL:
				f->flow_label = st->flags.flow_label;
				break;
			}
		}
		if (!(f->set & bit))
			pt->flag_line[i] = st->flag_at[i].line;
		f->set |= (uint8_t)bit;
	}
}

static void
merge_stmt(struct part *pt, struct stmt *st)
{
	for (size_t i = 0; i < st->nmembers; i++) {
		GROW(pt->p.members, pt->p.nmembers, pt->members_cap);
		pt->p.members[pt->p.nmembers++] = st->members[i];
	}
	st->nmembers = 0;       /* patterns now belong to the partition */
	for (size_t i = 0; i < st->nmgroups; i++) {
		GROW(pt->mgroups, pt->nmgroups, pt->mgroups_cap);
		pt->mgroups[pt->nmgroups++] = st->mgroups[i];
	}
}

static bool
mgid_is_ip(const uint8_t *g)
{
	return (g[2] == 0x40 || g[2] == 0x60) && g[3] == 0x1b;
}

/* OpenSM's IPv4 broadcast template: ff12:401b:ffff::ffff:ffff. */
static bool
mgid_is_bcast_template(const uint8_t *g)
{
	static const uint8_t t[16] = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0,
	    0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff };

	return memcmp(g, t, 16) == 0;
}

/* Effective flags of the partition and its groups; IP group checks. */
static void
finish_part(struct merge *mg, struct part *pt)
{
	struct pkey_group_flags *f = &pt->p.flags;

	if (!(f->set & PKEY_GF_MTU))
		f->mtu = PKEY_DEFAULT_MTU;
	if (!(f->set & PKEY_GF_RATE))
		f->rate = PKEY_DEFAULT_RATE;
	if (!(f->set & PKEY_GF_SCOPE))
		f->scope_mask = 1u << PKEY_DEFAULT_SCOPE;
	pt->p.mgroups = xcalloc(pt->nmgroups, sizeof(*pt->p.mgroups));
	for (size_t i = 0; i < pt->nmgroups; i++) {
		struct stmt_mgroup *sm = &pt->mgroups[i];
		struct pkey_group_flags *g = &sm->g.flags;
		uint8_t *id = sm->g.mgid;
		unsigned mp = (unsigned)id[4] << 8 | id[5];
		uint8_t set = g->set;

		if (!(set & PKEY_GF_MTU))
			g->mtu = f->mtu;
		if (!(set & PKEY_GF_RATE))
			g->rate = f->rate;
		if (!(set & PKEY_GF_SL))
			g->sl = f->sl;
		/* OpenSM forces link-local here; the GID's own scope is what
		 * the file says when no scope= does */
		if (!(set & PKEY_GF_SCOPE) && (f->set & PKEY_GF_SCOPE))
			g->scope_mask = f->scope_mask;
		else if (!(set & PKEY_GF_SCOPE) && (id[1] & 0x0f) == 0)
			merr(mg, sm->at, "multicast GID %s has scope 0 "
			    "(reserved): give a scope= flag", sm->text);
		else if (!(set & PKEY_GF_SCOPE))
			g->scope_mask = (uint16_t)(1u << (id[1] & 0x0f));
		if (!(set & PKEY_GF_QKEY))
			g->qkey = f->qkey;
		if (!(set & PKEY_GF_TCLASS))
			g->tclass = f->tclass;
		if (!(set & PKEY_GF_FLOWLABEL))
			g->flow_label = f->flow_label;
		g->set = set;
		sm->g.ip = mgid_is_ip(id);
		if (sm->g.ip) {
			if (mp != 0 && PKEY_BASE(mp) != pt->p.pkey &&
			    !mgid_is_bcast_template(id))
				merr(mg, sm->at, "IP multicast group %s "
				    "carries P_Key 0x%04x, not the partition's "
				    "0x%04x", sm->text, mp, pt->p.pkey);
			if (g->rate != f->rate)
				merr(mg, sm->at, "IP multicast group %s: rate "
				    "%u differs from the partition's rate %u",
				    sm->text, g->rate, f->rate);
			if (g->mtu != f->mtu)
				merr(mg, sm->at, "IP multicast group %s: mtu "
				    "%u differs from the partition's mtu %u",
				    sm->text, g->mtu, f->mtu);
			id[4] = (uint8_t)((pt->p.pkey | PKEY_FULL) >> 8);
			id[5] = (uint8_t)pt->p.pkey;
			if (g->qkey == 0)
				g->qkey = PKEY_IPOIB_QKEY;
		}
		pt->p.mgroups[i] = sm->g;
	}
	pt->p.nmgroups = pt->nmgroups;
}

static void
check_duplicate_mgids(struct merge *mg)
{
	for (size_t i = 0; i < mg->n; i++)
		for (size_t j = 0; j < mg->v[i].nmgroups; j++) {
			struct stmt_mgroup *a = &mg->v[i].mgroups[j];
			bool dup = false;

			/* Partitions with explicit P_Keys are bound first, so
			 * storage order is not file order: look at every
			 * group and report the one that comes later. */
			for (size_t k = 0; k < mg->n && !dup; k++)
				for (size_t l = 0; l < mg->v[k].nmgroups &&
				    !dup; l++) {
					struct stmt_mgroup *b =
					    &mg->v[k].mgroups[l];

					if (memcmp(a->g.mgid, b->g.mgid, 16) == 0 &&
					    (b->at.line < a->at.line ||
					    (b->at.line == a->at.line &&
					    b->at.col < a->at.col))) {
						dup = true;
						merr(mg, a->at, "multicast "
						    "group %s is defined twice "
						    "(first at line %u)", a->text,
						    b->at.line);
					}
				}
		}
}

static int
part_cmp(const void *a, const void *b)
{
	const struct pkey_partition *x = a, *y = b;

	return (int)x->pkey - (int)y->pkey;
}

static void
partition_fini(struct pkey_partition *p)
{
	free(p->name);
	free(p->mgroups);
	for (size_t i = 0; i < p->nmembers; i++)
		free(p->members[i].pattern);
	free(p->members);
}

static void
add_member_to(struct pkey_partition *p, uint8_t kind, uint8_t membership)
{
	p->members = xreallocarray(p->members, p->nmembers + 1,
	    sizeof(*p->members));
	memset(&p->members[p->nmembers], 0, sizeof(*p->members));
	p->members[p->nmembers].kind = kind;
	p->members[p->nmembers].membership = membership;
	p->nmembers++;
}

static void
default_partition(struct pkey_partition *p, bool ipoib)
{
	memset(p, 0, sizeof(*p));
	p->name = pkey_xstrndup("Default", 7);
	p->pkey = PKEY_DEFAULT;
	p->ipoib = ipoib;
	p->implicit = true;
	p->flags.mtu = PKEY_DEFAULT_MTU;
	p->flags.rate = PKEY_DEFAULT_RATE;
	p->flags.scope_mask = 1u << PKEY_DEFAULT_SCOPE;
}

struct pkey_policy *
pkey_merge(struct stmt *stmts, size_t n, struct pkey_errors *errs)
{
	struct merge mg = { .errs = errs };
	struct pkey_policy *pol;
	size_t *of;
	struct part *pt;
	uint16_t next = 1;
	size_t i;

	/* Nothing said at all (an empty file, a truncated one, comments
	 * only) is not a policy of "everyone limited": that would cut every
	 * host off from every other. It reads as no file. */
	if (n == 0 && errs->nerrors == 0) {
		pkey_msg_add(errs, PKEY_MSG_WARNING, 0, 0, "no partition "
		    "statement: every port is a full member of the Default "
		    "partition (0x7fff), as with no file");
		return pkey_policy_default();
	}
	of = xcalloc(n, sizeof(*of));
	/* names bound to explicit P_Keys first, wherever they are; of[i]:
	 * 1 + the index of statement i's partition, 0 for none */
	for (i = 0; i < n; i++)
		if (!stmts[i].bad && stmts[i].has_pkey &&
		    (pt = bind_explicit(&mg, &stmts[i])) != NULL)
			of[i] = (size_t)(pt - mg.v) + 1;
	for (i = 0; i < n; i++)
		if (!stmts[i].bad && !stmts[i].has_pkey &&
		    stmts[i].name != NULL &&
		    (pt = bind_name(&mg, &stmts[i], &next)) != NULL)
			of[i] = (size_t)(pt - mg.v) + 1;
	for (i = 0; i < n; i++) {
		if (of[i] == 0)
			continue;
		pt = &mg.v[of[i] - 1];
		if (stmts[i].at.line < pt->p.line)
			pt->p.line = stmts[i].at.line;
		merge_flags(&mg, pt, &stmts[i]);
		merge_stmt(pt, &stmts[i]);
	}
	free(of);
	for (i = 0; i < mg.n; i++)
		finish_part(&mg, &mg.v[i]);
	check_duplicate_mgids(&mg);

	pol = xcalloc(1, sizeof(*pol));
	pol->n = mg.n;
	pol->v = xcalloc(mg.n + 1, sizeof(*pol->v));
	for (i = 0; i < mg.n; i++) {
		pol->v[i] = mg.v[i].p;
		free(mg.v[i].mgroups);
	}
	free(mg.v);
	if (pkey_policy_find(pol, PKEY_DEFAULT) == NULL &&
	    errs->nerrors == 0) {
		struct pkey_partition *d = &pol->v[pol->n++];

		default_partition(d, false);
		add_member_to(d, MK_ALL, PKEY_LIMITED);
		add_member_to(d, MK_SELF, PKEY_FULL_MEMBER);
		pkey_msg_add(errs, PKEY_MSG_NOTE, 0, 0, "no Default partition "
		    "(P_Key 0x7fff): adding Default=0x7fff : ALL=limited, "
		    "SELF=full, as OpenSM does");
	}
	qsort(pol->v, pol->n, sizeof(*pol->v), part_cmp);
	return pol;
}

struct pkey_policy *
pkey_policy_default(void)
{
	struct pkey_policy *pol = xcalloc(1, sizeof(*pol));

	pol->v = xcalloc(1, sizeof(*pol->v));
	pol->n = 1;
	default_partition(&pol->v[0], true);
	add_member_to(&pol->v[0], MK_ALL, PKEY_FULL_MEMBER);
	return pol;
}

void
pkey_policy_free(struct pkey_policy *p)
{
	if (p == NULL)
		return;
	for (size_t i = 0; i < p->n; i++)
		partition_fini(&p->v[i]);
	free(p->v);
	free(p);
}

size_t
pkey_policy_count(const struct pkey_policy *p)
{
	return p->n;
}

const struct pkey_partition *
pkey_policy_get(const struct pkey_policy *p, size_t i)
{
	return i < p->n ? &p->v[i] : NULL;
}

bool
pkey_policy_names_guid(const struct pkey_policy *p, uint64_t guid)
{
	for (size_t i = 0; i < p->n; i++)
		for (size_t j = 0; j < p->v[i].nmembers; j++) {
			const struct pkey_member *m = &p->v[i].members[j];

			if ((m->kind == MK_GUID && m->lo == guid) ||
			    (m->kind == MK_RANGE && m->lo <= guid &&
			    guid <= m->hi))
				return true;
		}
	return false;
}

const struct pkey_partition *
pkey_policy_find(const struct pkey_policy *p, uint16_t pkey)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].pkey == PKEY_BASE(pkey))
			return &p->v[i];
	return NULL;
}
