/*
 * qos-policy.conf: the resolution of a request to a QoS level, the
 * accessors, and the -nv printer. See partitions/qos.h; the policy's
 * representation is partitions/qos_int.h's. OpenSM 3.3.23's
 * osm_qos_policy.c is the baseline of the matching.
 */
#include "partitions/qos_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fabric.h"
#include "partitions/policy.h"

/* ---- resolution ------------------------------------------------------------- */

/* Whether the port holds a key of l, the membership bit ignored on both
 * sides (a group's list may be written with it): each key of its table
 * against the ranges, not each key of the ranges against the table. */
static bool
has_any_pkey(const struct qos_port *pt, const struct rlist *l)
{
	if (l->n == 0)
		return false;
	if (pt->all_keys)
		return true;
	for (uint16_t i = 0; i < pt->nkeys; i++) {
		uint16_t b = pt->keys[i] & 0x7fff;

		if (b != 0 && (qos_rl_has(l, b) || qos_rl_has(l, b | 0x8000)))
			return true;
	}
	return false;
}

bool
qos_in_group(const struct group *g, const struct qos_port *pt)
{
	if ((g->types & NT_ALL) || (g->types & (1u << pt->node_type)) ||
	    ((g->types & NT_SELF) && pt->self))
		return true;
	if (qos_rl_has(&g->guids, pt->guid))
		return true;
	for (size_t i = 0; i < g->npnames; i++)
		if (pt->desc != NULL && pt->num == g->pnames[i].num &&
		    strcmp(pt->desc, g->pnames[i].desc) == 0)
			return true;
	return has_any_pkey(pt, &g->pkeys) || has_any_pkey(pt, &g->ppkeys);
}

static bool
in_groups(const struct qos_policy *p, const size_t *gs, size_t n,
    size_t extra, const struct qos_port *pt)
{
	if (pt == NULL)
		return false;
	if (extra != SIZE_MAX && qos_in_group(&p->groups[extra], pt))
		return true;
	for (size_t i = 0; i < n; i++)
		if (qos_in_group(&p->groups[gs[i]], pt))
			return true;
	return false;
}

static bool
rule_matches(const struct qos_policy *p, const struct rule *r,
    const struct qos_query *q)
{
	size_t sx = SIZE_MAX, dx = SIZE_MAX;
	bool hs, hd;

	if (r->ulp == ULP_ANY_SOURCE || r->ulp == ULP_ANY_SOURCE_TARGET)
		sx = r->ulp_group;
	if (r->ulp == ULP_ANY_TARGET || r->ulp == ULP_SRP ||
	    r->ulp == ULP_ANY_SOURCE_TARGET)
		dx = r->ulp_group;
	hs = r->nsrc > 0 || sx != SIZE_MAX;
	hd = r->ndst > 0 || dx != SIZE_MAX;
	if (hs && !in_groups(p, r->srcg, r->nsrc, sx, q->src))
		return false;
	if (hd && !in_groups(p, r->dstg, r->ndst, dx, q->dst))
		return false;
	if (r->classes.n > 0 && (!(q->given & QOS_Q_QOS_CLASS) ||
	    !qos_rl_has(&r->classes, q->qos_class)))
		return false;
	if (r->sids.n > 0 && (!(q->given & QOS_Q_SERVICE_ID) ||
	    !qos_rl_has(&r->sids, q->service_id)))
		return false;
	if (r->pkeys.n > 0 && (!(q->given & QOS_Q_PKEY) ||
	    !qos_rl_has(&r->pkeys, q->pkey & 0x7fff)))
		return false;
	return true;
}

const struct qos_level *
qos_policy_match(const struct qos_policy *p, const struct qos_query *q)
{
	for (size_t i = 0; i < p->nrules; i++) {
		const struct rule *r = &p->rules[i];

		if (rule_matches(p, r, q))
			return r->ulp == ULP_NONE ? &p->levels[r->level] :
			    &p->simple[r->level];
	}
	return p->def;
}

bool
qos_level_has_pkey(const struct qos_level *l, uint16_t pkey)
{
	if (l->npkeys == 0)
		return true;
	for (size_t i = 0; i < l->npkeys; i++)
		if ((pkey & 0x7fff) >= l->pkeys[i].lo &&
		    (pkey & 0x7fff) <= l->pkeys[i].hi)
			return true;
	return false;
}

bool
qos_level_pkey_at(const struct qos_level *l, size_t i, uint16_t *pkey)
{
	for (size_t r = 0; r < l->npkeys; r++) {
		uint64_t n = l->pkeys[r].hi - l->pkeys[r].lo + 1;

		if (i < n) {
			*pkey = (uint16_t)(l->pkeys[r].lo + i);
			return true;
		}
		i -= n;
	}
	return false;
}

size_t
qos_policy_groups(const struct qos_policy *p)
{
	size_t n = 0;

	for (size_t i = 0; i < p->ngroups; i++)
		n += p->groups[i].name != NULL;
	return n;
}

static const struct group *
named_group(const struct qos_policy *p, size_t i)
{
	for (size_t k = 0; k < p->ngroups; k++)
		if (p->groups[k].name != NULL && i-- == 0)
			return &p->groups[k];
	return NULL;
}

const char *
qos_group_name(const struct qos_policy *p, size_t i)
{
	const struct group *g = named_group(p, i);

	return g != NULL ? g->name : NULL;
}

bool
qos_group_has(const struct qos_policy *p, size_t i, const struct qos_port *pt)
{
	const struct group *g = named_group(p, i);

	return g != NULL && qos_in_group(g, pt);
}

size_t
qos_policy_levels(const struct qos_policy *p)
{
	return p->nlevels;
}

size_t
qos_policy_rules(const struct qos_policy *p)
{
	return p->nrules + p->has_ulp_default;
}

/* ---- -nv ----------------------------------------------------------------- */

static void
put_ranges(struct pkey_buf *b, const struct rlist *l, bool hex, int width)
{
	for (size_t i = 0; i < l->n; i++) {
		const char *sep = i ? ", " : "";

		if (!hex && l->v[i].lo == l->v[i].hi)
			pkey_buf_printf(b, "%s%" PRIu64, sep, l->v[i].lo);
		else if (!hex)
			pkey_buf_printf(b, "%s%" PRIu64 "-%" PRIu64, sep,
			    l->v[i].lo, l->v[i].hi);
		else if (l->v[i].lo == l->v[i].hi)
			pkey_buf_printf(b, "%s0x%0*" PRIx64, sep, width,
			    l->v[i].lo);
		else
			pkey_buf_printf(b, "%s0x%0*" PRIx64 "-0x%0*" PRIx64, sep,
			    width, l->v[i].lo, width, l->v[i].hi);
	}
}

/* A text as it reads back: in double quotes when it holds what the
 * scanner would take for a comment or a list, or blanks at an end. */
static void
put_name(struct pkey_buf *b, const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || strpbrk(s, "#,") != NULL || s[0] == ' ' ||
	    s[0] == '\t' || s[n - 1] == ' ' || s[n - 1] == '\t')
		pkey_buf_printf(b, "\"%s\"", s);
	else
		pkey_buf_printf(b, "%s", s);
}

static void
put_text(struct pkey_buf *b, const char *key, const char *s)
{
	if (s != NULL)
		pkey_buf_printf(b, "        %s: ", key);
	if (s != NULL)
		put_name(b, s);
	if (s != NULL)
		pkey_buf_printf(b, "\n");
}

static void
format_group(struct pkey_buf *b, const struct group *g,
    const struct qos_port *ports, size_t nports)
{
	static const char *const tn[] = { [NODE_CA] = "CA",
	    [NODE_SWITCH] = "SWITCH", [NODE_ROUTER] = "ROUTER" };
	size_t i, n = 0;
	const char *sep = "";

	pkey_buf_printf(b, "    port-group\n");
	put_text(b, "name", g->name);
	put_text(b, "use", g->use);
	if (g->guids.n) {
		pkey_buf_printf(b, "        port-guid: ");
		put_ranges(b, &g->guids, true, 16);
		pkey_buf_printf(b, "\n");
	}
	for (i = 0; i < g->npnames; i++)
		pkey_buf_printf(b, "        port-name: \"%s/P%u\"\n",
		    g->pnames[i].desc, g->pnames[i].num);
	for (i = 0; i < g->nparts; i++) {
		pkey_buf_printf(b, "        partition: ");
		put_name(b, g->parts[i]);
		pkey_buf_printf(b, "\n");
	}
	if (g->pkeys.n) {
		pkey_buf_printf(b, "        pkey: ");
		put_ranges(b, &g->pkeys, true, 4);
		pkey_buf_printf(b, "\n");
	}
	if (g->types) {
		pkey_buf_printf(b, "        node-type: ");
		for (i = NODE_CA; i <= NODE_ROUTER; i++)
			if (g->types & (1u << i)) {
				pkey_buf_printf(b, "%s%s", sep, tn[i]);
				sep = ", ";
			}
		if (g->types & NT_SELF) {
			pkey_buf_printf(b, "%sSELF", sep);
			sep = ", ";
		}
		if (g->types & NT_ALL)
			pkey_buf_printf(b, "%sALL", sep);
		pkey_buf_printf(b, "\n");
	}
	pkey_buf_printf(b, "    end-port-group\n");
	if (ports != NULL) {
		for (i = 0; i < nports; i++)
			n += qos_in_group(g, &ports[i]);
		pkey_buf_printf(b, "    # %s: %zu of %zu end ports\n", g->name,
		    n, nports);
	}
}

static void
format_level(struct pkey_buf *b, const struct qos_level *l)
{
	pkey_buf_printf(b, "    qos-level\n");
	put_text(b, "name", l->name);
	put_text(b, "use", l->use);
	if (l->set & QOS_LF_SL)
		pkey_buf_printf(b, "        sl: %u\n", l->sl);
	if (l->set & QOS_LF_MTU)
		pkey_buf_printf(b, "        mtu-limit: %u\n", l->mtu);
	if (l->set & QOS_LF_RATE)
		pkey_buf_printf(b, "        rate-limit: %u\n", l->rate);
	if (l->set & QOS_LF_LIFE)
		pkey_buf_printf(b, "        packet-life: %u\n", l->life);
	if (l->npkeys) {
		struct rlist pk = { l->pkeys, l->npkeys, l->npkeys };

		pkey_buf_printf(b, "        pkey: ");
		put_ranges(b, &pk, true, 4);
		pkey_buf_printf(b, "\n");
	}
	pkey_buf_printf(b, "    end-qos-level\n");
}

static void
format_refs(struct pkey_buf *b, const char *key, const struct ref *r,
    size_t n)
{
	if (n == 0)
		return;
	pkey_buf_printf(b, "        %s: ", key);
	for (size_t i = 0; i < n; i++) {
		pkey_buf_printf(b, "%s", i ? ", " : "");
		put_name(b, r[i].name);
	}
	pkey_buf_printf(b, "\n");
}

static void
format_rule(struct pkey_buf *b, const struct qos_policy *p,
    const struct rule *r)
{
	pkey_buf_printf(b, "    qos-match-rule\n");
	put_text(b, "use", r->use);
	if (r->classes.n) {
		pkey_buf_printf(b, "        qos-class: ");
		put_ranges(b, &r->classes, false, 0);
		pkey_buf_printf(b, "\n");
	}
	format_refs(b, "source", r->src, r->nsrc);
	format_refs(b, "destination", r->dst, r->ndst);
	if (r->sids.n) {
		pkey_buf_printf(b, "        service-id: ");
		put_ranges(b, &r->sids, true, 16);
		pkey_buf_printf(b, "\n");
	}
	if (r->pkeys.n) {
		pkey_buf_printf(b, "        pkey: ");
		put_ranges(b, &r->pkeys, true, 4);
		pkey_buf_printf(b, "\n");
	}
	pkey_buf_printf(b, "        qos-level-name: ");
	put_name(b, p->levels[r->level].name);
	pkey_buf_printf(b, "\n");
	pkey_buf_printf(b, "    end-qos-match-rule\n");
}

static void
format_ulp(struct pkey_buf *b, const struct rule *r)
{
	size_t i;
	uint64_t max;
	bool hex;

	for (i = 0; i < qos_nulps; i++)
		if (qos_ulps[i].kind == r->ulp)
			break;
	pkey_buf_printf(b, "    %s", qos_ulps[i].ulp);
	if (qos_ulps[i].param != NULL) {
		(void)qos_ulp_what(r->ulp, &max);
		hex = r->ulp != ULP_SDP_PORT && r->ulp != ULP_RDS_PORT &&
		    r->ulp != ULP_ISER_PORT;
		pkey_buf_printf(b, ", %s ", qos_ulps[i].param);
		put_ranges(b, &r->ulp_vals, hex, max == 0xffff ? 4 : 1);
	}
	pkey_buf_printf(b, " : %zu\n", r->level);
}

char *
qos_policy_format(const struct qos_policy *p, const struct qos_port *ports,
    size_t nports)
{
	struct pkey_buf b = { 0 };
	size_t i;

	pkey_buf_printf(&b, "%s", "");
	if (qos_policy_groups(p) > 0) {
		pkey_buf_printf(&b, "port-groups\n");
		for (i = 0; i < p->ngroups; i++)
			if (p->groups[i].name != NULL)
				format_group(&b, &p->groups[i], ports, nports);
		pkey_buf_printf(&b, "end-port-groups\n");
	}
	if (p->nlevels > 0) {
		pkey_buf_printf(&b, "qos-levels\n");
		for (i = 0; i < p->nlevels; i++)
			format_level(&b, &p->levels[i]);
		pkey_buf_printf(&b, "end-qos-levels\n");
	}
	if (p->nmatch > 0) {
		pkey_buf_printf(&b, "qos-match-rules\n");
		for (i = 0; i < p->nrules; i++)
			if (p->rules[i].ulp == ULP_NONE)
				format_rule(&b, p, &p->rules[i]);
		pkey_buf_printf(&b, "end-qos-match-rules\n");
	}
	if (p->nrules > p->nmatch || p->has_ulp_default) {
		pkey_buf_printf(&b, "qos-ulps\n");
		if (p->has_ulp_default)
			pkey_buf_printf(&b, "    default : %u\n",
			    p->ulp_default.sl);
		for (i = 0; i < p->nrules; i++)
			if (p->rules[i].ulp != ULP_NONE)
				format_ulp(&b, &p->rules[i]);
		pkey_buf_printf(&b, "end-qos-ulps\n");
	}
	pkey_buf_printf(&b, "# default level: %s (SL %u)\n",
	    p->def == &p->ulp_default ? "qos-ulps default" : p->def->name,
	    p->def->sl);
	return b.s;
}
