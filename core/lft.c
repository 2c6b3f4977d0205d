#include "core/lft.h"

#include <stdlib.h>
#include <string.h>

int
lft_set_init(struct lft_set *s, const struct fabric *f)
{
	size_t entries;
	uint32_t n, i;

	memset(s, 0, sizeof(*s));
	for (n = 0; n < f->nnodes; n++)
		if (f->nodes[n].type == NODE_SWITCH)
			s->nsw++;
	s->max_lid = fabric_max_lid(f);
	entries = (size_t)s->nsw * ((size_t)s->max_lid + 1);
	/* at least one element each: malloc(0) may legitimately be NULL */
	s->sw_node = calloc(s->nsw ? s->nsw : 1, sizeof(*s->sw_node));
	s->node_sw = calloc(f->nnodes ? f->nnodes : 1, sizeof(*s->node_sw));
	s->port = malloc(entries ? entries : 1);
	if (s->sw_node == NULL || s->node_sw == NULL || s->port == NULL) {
		lft_set_fini(s);
		return -1;
	}
	for (n = 0, i = 0; n < f->nnodes; n++) {
		if (f->nodes[n].type == NODE_SWITCH) {
			s->sw_node[i] = n;
			s->node_sw[n] = i++;
		} else
			s->node_sw[n] = FABRIC_NONE;
	}
	memset(s->port, LFT_NO_ROUTE, entries);
	return 0;
}

/* Let go of the rows: freed unless another set shares them. */
static void
release_rows(struct lft_set *s)
{
	if (s->refs != NULL && --*s->refs > 0) {
		s->refs = NULL;
		s->port = NULL;
		return;
	}
	free(s->refs);
	free(s->port);
	s->refs = NULL;
	s->port = NULL;
}

void
lft_set_fini(struct lft_set *s)
{
	free(s->sw_node);
	free(s->node_sw);
	release_rows(s);
	memset(s, 0, sizeof(*s));
}

int
lft_set_grow(struct lft_set *s, uint16_t max_lid)
{
	size_t oldw = (size_t)s->max_lid + 1, neww = (size_t)max_lid + 1;
	uint8_t *p;

	if (max_lid <= s->max_lid)
		return 0;
	p = malloc(s->nsw ? s->nsw * neww : 1);
	if (p == NULL)
		return -1;
	memset(p, LFT_NO_ROUTE, s->nsw * neww);
	for (uint32_t sw = 0; sw < s->nsw; sw++)
		memcpy(p + sw * neww, s->port + sw * oldw, oldw);
	release_rows(s);
	s->port = p;
	s->max_lid = max_lid;
	return 0;
}

int
lft_set_copy(struct lft_set *dst, const struct lft_set *src, uint32_t nnodes)
{
	size_t entries = (size_t)src->nsw * ((size_t)src->max_lid + 1);

	memset(dst, 0, sizeof(*dst));
	dst->nsw = src->nsw;
	dst->max_lid = src->max_lid;
	dst->sw_node = malloc((src->nsw ? src->nsw : 1) * sizeof(uint32_t));
	dst->node_sw = malloc((nnodes ? nnodes : 1) * sizeof(uint32_t));
	dst->port = malloc(entries ? entries : 1);
	if (dst->sw_node == NULL || dst->node_sw == NULL || dst->port == NULL) {
		lft_set_fini(dst);
		return -1;
	}
	memcpy(dst->sw_node, src->sw_node, src->nsw * sizeof(uint32_t));
	memcpy(dst->node_sw, src->node_sw, nnodes * sizeof(uint32_t));
	memcpy(dst->port, src->port, entries);
	return 0;
}

int
lft_set_share(struct lft_set *dst, struct lft_set *src, uint32_t nnodes)
{
	memset(dst, 0, sizeof(*dst));
	if (src->refs == NULL) {
		if ((src->refs = malloc(sizeof(*src->refs))) == NULL)
			return -1;
		*src->refs = 1;
	}
	dst->nsw = src->nsw;
	dst->max_lid = src->max_lid;
	dst->sw_node = malloc((src->nsw ? src->nsw : 1) * sizeof(uint32_t));
	dst->node_sw = malloc((nnodes ? nnodes : 1) * sizeof(uint32_t));
	if (dst->sw_node == NULL || dst->node_sw == NULL) {
		free(dst->sw_node);
		free(dst->node_sw);
		memset(dst, 0, sizeof(*dst));
		return -1;
	}
	memcpy(dst->sw_node, src->sw_node, src->nsw * sizeof(uint32_t));
	memcpy(dst->node_sw, src->node_sw, nnodes * sizeof(uint32_t));
	dst->port = src->port;
	dst->refs = src->refs;
	(*src->refs)++;
	return 0;
}

int
lft_set_own(struct lft_set *s)
{
	size_t entries = (size_t)s->nsw * ((size_t)s->max_lid + 1);
	uint8_t *p;

	if (s->refs == NULL)
		return 0;
	if (*s->refs == 1) {
		free(s->refs);
		s->refs = NULL;
		return 0;
	}
	if ((p = malloc(entries ? entries : 1)) == NULL)
		return -1;
	memcpy(p, s->port, entries);
	(*s->refs)--;
	s->refs = NULL;
	s->port = p;
	return 0;
}
