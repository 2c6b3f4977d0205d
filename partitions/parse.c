/*
 * partitions.conf text -> struct pkey_policy. A hand-written scanner and
 * recursive descent over the whole text (statements may span lines) into
 * statements (stmt.h), then the merge (merge.c) that binds names to P_Keys,
 * merges repeated definitions and checks what needs the whole file. Every
 * error is collected; the policy exists only if there were none.
 */
#include "partitions/stmt.h"

#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#define NAME_MAX_LEN    64
#define SHOW_MAX        48      /* bytes of a bad word quoted in a message */

/* ---- small helpers --------------------------------------------------- */

static bool
is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static bool
is_word(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    is_digit(c) || c == '_' || c == '.' || c == '-' || c == '+' ||
	    c == '@' || c == '/';
}

static int
hexval(int c)
{
	if (is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int
lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

bool
pkey_caseeq(const char *a, size_t alen, const char *b)
{
	size_t i;

	for (i = 0; i < alen && b[i] != '\0'; i++)
		if (lower((unsigned char)a[i]) != lower((unsigned char)b[i]))
			return false;
	return i == alen && b[i] == '\0';
}

enum { NUM_OK, NUM_BAD, NUM_LEADING_ZERO, NUM_BIG };

/* Hex with 0x, or decimal without a leading zero (OpenSM's strtoul would
 * read that as octal: refuse rather than guess). */
static int
parse_num(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	bool big = false;
	size_t i;

	if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		if (len == 2)
			return NUM_BAD;
		for (i = 2; i < len; i++) {
			int d = hexval((unsigned char)s[i]);

			if (d < 0)
				return NUM_BAD;
			if (v >> 60)
				big = true;
			v = v << 4 | (uint64_t)d;
		}
	} else {
		if (len == 0)
			return NUM_BAD;
		for (i = 0; i < len; i++) {
			unsigned d = (unsigned)(s[i] - '0');

			if (!is_digit((unsigned char)s[i]))
				return NUM_BAD;
			if (v > (UINT64_MAX - d) / 10)
				big = true;
			v = v * 10 + d;
		}
		if (len > 1 && s[0] == '0')
			return NUM_LEADING_ZERO;
	}
	if (big)
		return NUM_BIG;
	*out = v;
	return NUM_OK;
}

/* Equal when case and underscores are ignored ("qkey" and "Q_Key"). */
static bool
loose_eq(const char *a, size_t alen, const char *b)
{
	size_t i = 0;

	for (;;) {
		while (i < alen && a[i] == '_')
			i++;
		while (*b == '_')
			b++;
		if (i == alen || *b == '\0')
			return i == alen && *b == '\0';
		if (lower((unsigned char)a[i]) != lower((unsigned char)*b))
			return false;
		i++;
		b++;
	}
}

/* A keyword the user may have meant: same letters in another case, or a
 * prefix of it (which OpenSM would silently have taken). */
static const char *
hint(const char *w, size_t len, const char *const *words)
{
	const char *const *k;
	size_t i;

	for (k = words; *k != NULL; k++)
		if (pkey_caseeq(w, len, *k) || loose_eq(w, len, *k))
			return *k;
	for (k = words; len > 0 && *k != NULL; k++) {
		if (len >= strlen(*k))
			continue;
		for (i = 0; i < len; i++)
			if (lower((unsigned char)w[i]) !=
			    lower((unsigned char)(*k)[i]))
				break;
		if (i == len)
			return *k;
	}
	return NULL;
}

static const char *const partition_flags[] = { "ipoib", "indx0",
	"defmember", "mtu", "rate", "sl", "scope", "Q_Key", "TClass",
	"FlowLabel", NULL };
static const char *const group_flags[] = { "mtu", "rate", "sl", "scope",
	"Q_Key", "TClass", "FlowLabel", NULL };
static const char *const member_words[] = { "ALL", "ALL_CAS",
	"ALL_SWITCHES", "ALL_ROUTERS", "SELF", "NONE", NULL };
static const char *const membership_words[] = { "full", "limited", "both",
	NULL };

/* ---- the scanner ----------------------------------------------------- */

struct parser {
	const char *s;
	size_t len, pos;
	unsigned line;
	size_t bol;             /* offset of the current line */
	struct pos end;         /* just after the last token taken */
	bool nul_seen;
	struct pkey_errors *errs;
	size_t errors0;         /* errs->nerrors before this parse */
	struct stmt *stmts;
	size_t nstmts, stmts_cap;
};

struct span {
	size_t start, len;
	struct pos at;
};

static struct pos
here(const struct parser *ps)
{
	return (struct pos){ ps->line, (unsigned)(ps->pos - ps->bol + 1) };
}

static int
peek(const struct parser *ps)
{
	return ps->pos < ps->len ? (unsigned char)ps->s[ps->pos] : -1;
}

static void
advance(struct parser *ps)
{
	if (ps->pos >= ps->len)
		return;
	if (ps->s[ps->pos] == '\n') {
		ps->line++;
		ps->bol = ps->pos + 1;
	}
	ps->pos++;
}

/* Consume one punctuation character as a token. */
static void
take(struct parser *ps)
{
	advance(ps);
	ps->end = here(ps);
}

static void __attribute__((format(printf, 3, 4)))
perr(struct parser *ps, struct pos at, const char *fmt, ...)
{
	va_list ap;
	char *text;

	va_start(ap, fmt);
	text = pkey_xvasprintf(fmt, ap);
	va_end(ap);
	pkey_msg_add(ps->errs, PKEY_MSG_ERROR, at.line, at.col, "%s", text);
	free(text);
}

/* Blanks and comments; newlines too when nl. True if a newline was
 * crossed. */
static bool
skip_blanks(struct parser *ps, bool nl)
{
	bool crossed = false;
	int c;

	while ((c = peek(ps)) != -1) {
		if (c == ' ' || c == '\t' || c == '\r' || c == '\f' ||
		    c == '\v') {
			advance(ps);
		} else if (c == '#') {
			while ((c = peek(ps)) != -1 && c != '\n')
				advance(ps);
		} else if (c == '\n' && nl) {
			advance(ps);
			crossed = true;
		} else {
			break;
		}
	}
	return crossed;
}

static bool
read_word(struct parser *ps, struct span *w)
{
	w->at = here(ps);
	w->start = ps->pos;
	while (is_word(peek(ps)))
		advance(ps);
	w->len = ps->pos - w->start;
	if (w->len > 0)
		ps->end = here(ps);
	return w->len > 0;
}

static const char *
wtext(const struct parser *ps, const struct span *w)
{
	return ps->s + w->start;
}

static bool
weq(const struct parser *ps, const struct span *w, const char *k)
{
	return strlen(k) == w->len && memcmp(wtext(ps, w), k, w->len) == 0;
}

/* printf arguments for a word in a message: "%.*s" */
#define WARG(ps, w) (int)((w)->len < SHOW_MAX ? (w)->len : SHOW_MAX), \
	wtext((ps), (w))

static void
unexpected(struct parser *ps, const char *what)
{
	int c = peek(ps);

	if (c == -1)
		perr(ps, here(ps), "unexpected end of file%s%s", *what ? ", " : "",
		    what);
	else if (c == '\n')
		perr(ps, here(ps), "unexpected end of line%s%s",
		    *what ? ", " : "", what);
	else if (c == 0 && ps->nul_seen)
		return;         /* reported once, up front */
	else if (c > 0x20 && c < 0x7f)
		perr(ps, here(ps), "unexpected '%c'%s%s", c, *what ? ", " : "",
		    what);
	else
		perr(ps, here(ps), "unexpected byte 0x%02x%s%s", c,
		    *what ? ", " : "", what);
}

/* Skip to one of stops (not consumed), or a newline if nl; over comments
 * and quoted strings. */
static void
skip_to(struct parser *ps, const char *stops, bool nl)
{
	int c;

	while ((c = peek(ps)) != -1) {
		if (c == '\n' && nl)
			return;
		if (c != 0 && strchr(stops, c) != NULL)
			return;
		if (c == '#') {
			while ((c = peek(ps)) != -1 && c != '\n')
				advance(ps);
			continue;
		}
		if (c == '"') {
			advance(ps);
			while ((c = peek(ps)) != -1 && c != '"' && c != '\n') {
				if (c == '\\')
					advance(ps);
				if (peek(ps) != '\n')
					advance(ps);
			}
			if (c == '"')
				advance(ps);
			continue;
		}
		advance(ps);
	}
}

/* ---- values ---------------------------------------------------------- */

/* A number within [min, max]; what names it, range says what is allowed. */
static bool
get_num(struct parser *ps, const struct span *w, const char *what,
    uint64_t min, uint64_t max, const char *range, uint64_t *out)
{
	uint64_t v = 0;

	switch (parse_num(wtext(ps, w), w->len, &v)) {
	case NUM_BAD:
		perr(ps, w->at, "bad %s '%.*s': not a number", what,
		    WARG(ps, w));
		return false;
	case NUM_LEADING_ZERO:
		perr(ps, w->at, "bad %s '%.*s': leading zero (OpenSM reads "
		    "octal); write hex as 0x...", what, WARG(ps, w));
		return false;
	case NUM_BIG:
		break;
	default:
		if (v >= min && v <= max) {
			*out = v;
			return true;
		}
	}
	perr(ps, w->at, "bad %s '%.*s': expected %s", what, WARG(ps, w), range);
	return false;
}

static bool
get_membership(struct parser *ps, const struct span *w, const char *what,
    uint8_t *out)
{
	const char *h;

	if (weq(ps, w, "full"))
		*out = PKEY_FULL_MEMBER;
	else if (weq(ps, w, "limited"))
		*out = PKEY_LIMITED;
	else if (weq(ps, w, "both"))
		*out = PKEY_BOTH;
	else {
		h = hint(wtext(ps, w), w->len, membership_words);
		perr(ps, w->at, "bad %s '%.*s': expected full, limited or "
		    "both%s%s%s", what, WARG(ps, w), h ? " (did you mean '" : "",
		    h ? h : "", h ? "'?)" : "");
		return false;
	}
	return true;
}

/* P_Key of a header: 16 bits; bit 15 is dropped as OpenSM does, with a
 * note; 0, 0x8000 and 0xffff are refused. */
static bool
get_pkey(struct parser *ps, const struct span *w, uint16_t *out)
{
	uint64_t v;

	if (!get_num(ps, w, "P_Key", 0, 0xffff, "a 16-bit P_Key", &v))
		return false;
	if ((v & 0x7fff) == 0) {
		perr(ps, w->at, "bad P_Key '%.*s': its low 15 bits must not be "
		    "0", WARG(ps, w));
		return false;
	}
	if (v == 0xffff) {
		perr(ps, w->at, "bad P_Key '%.*s': that is the full-member form "
		    "of the Default P_Key; write 0x7fff", WARG(ps, w));
		return false;
	}
	if (v & PKEY_FULL)
		pkey_msg_add(ps->errs, PKEY_MSG_NOTE, w->at.line, w->at.col,
		    "P_Key %.*s: bit 15 (membership) is not part of a "
		    "partition's P_Key; this is partition 0x%04x", WARG(ps, w),
		    (unsigned)(v & 0x7fff));
	*out = (uint16_t)(v & 0x7fff);
	return true;
}

int
pkey_gf_index(unsigned bit)
{
	int i = 0;

	while (bit > 1) {
		bit >>= 1;
		i++;
	}
	return i;
}

/*
 * A multicast group flag (mtu rate sl scope Q_Key TClass FlowLabel) with its
 * value into f; at[] gets where each was given. Returns -1 if name is not
 * one, 0 if it is but the value is bad, 1 if taken.
 */
static int
group_flag(struct parser *ps, struct pkey_group_flags *f, struct pos *at,
    const struct span *name, const struct span *val)
{
	static const struct {
		const char *name;
		unsigned bit;
		uint64_t min, max;
		const char *range;
	} tab[] = {
		{ "mtu", PKEY_GF_MTU, 1, 5,
		    "an MTU code, 1 (256 bytes) to 5 (4096 bytes)" },
		{ "rate", PKEY_GF_RATE, 2, 24,
		    "a rate code, 2 (2.5 Gb/s) to 24 (1200 Gb/s)" },
		{ "sl", PKEY_GF_SL, 0, 15, "0 to 15" },
		{ "scope", PKEY_GF_SCOPE, 1, 15, "1 to 15 (2 = link-local)" },
		{ "Q_Key", PKEY_GF_QKEY, 1, 0xffffffff, "0x1 to 0xffffffff" },
		{ "TClass", PKEY_GF_TCLASS, 0, 255, "0 to 255" },
		{ "FlowLabel", PKEY_GF_FLOWLABEL, 0, 0xfffff, "0 to 0xfffff" },
	};
	uint64_t v;
	size_t i;

	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (weq(ps, name, tab[i].name))
			break;
	if (i == sizeof(tab) / sizeof(tab[0]))
		return -1;
	if (val == NULL) {
		perr(ps, name->at, "flag '%s' needs a value (%s=...)",
		    tab[i].name, tab[i].name);
		return 0;
	}
	if (!get_num(ps, val, tab[i].name, tab[i].min, tab[i].max,
	    tab[i].range, &v))
		return 0;
	if ((f->set & tab[i].bit) && tab[i].bit != PKEY_GF_SCOPE) {
		perr(ps, name->at, "flag '%s' given twice", tab[i].name);
		return 0;
	}
	f->set |= (uint8_t)tab[i].bit;
	at[pkey_gf_index(tab[i].bit)] = name->at;
	switch (tab[i].bit) {
	case PKEY_GF_MTU: f->mtu = (uint8_t)v; break;
	case PKEY_GF_RATE: f->rate = (uint8_t)v; break;
	case PKEY_GF_SL: f->sl = (uint8_t)v; break;
	case PKEY_GF_SCOPE: f->scope_mask |= (uint16_t)(1u << v); break;
	case PKEY_GF_QKEY: f->qkey = (uint32_t)v; break;
	case PKEY_GF_TCLASS: f->tclass = (uint8_t)v; break;
	case PKEY_GF_FLOWLABEL: f->flow_label = (uint32_t)v; break;
	}
	return 1;
}

/* flag [= value]: the flag's word is read; reads "= value" if there. */
static bool
flag_value(struct parser *ps, struct span *val, bool nl)
{
	skip_blanks(ps, nl);
	if (peek(ps) != '=')
		return false;
	take(ps);
	skip_blanks(ps, nl);
	if (!read_word(ps, val)) {
		unexpected(ps, "expected a value after '='");
		val->len = 0;
	}
	return true;
}

/* ---- statements ------------------------------------------------------ */

const char *
pkey_stmt_desc(const struct stmt *st, char *buf, size_t len)
{
	if (st->name != NULL)
		snprintf(buf, len, "partition '%s'", st->name);
	else if (st->has_pkey)
		snprintf(buf, len, "partition 0x%04x", st->pkey);
	else
		snprintf(buf, len, "the partition");
	return buf;
}

/* 1: taken; 0: a bad flag or value, already reported, nothing to skip;
 * -1: not even a flag (the caller skips ahead). */
static int
partition_flag(struct parser *ps, struct stmt *st)
{
	struct span name, val = { 0 };
	bool has_val;
	const char *h;
	int r;

	if (!read_word(ps, &name)) {
		unexpected(ps, "expected a partition flag after ','");
		return -1;
	}
	has_val = flag_value(ps, &val, true);
	if (has_val && val.len == 0)
		return -1;
	if (weq(ps, &name, "ipoib") || weq(ps, &name, "indx0")) {
		if (has_val) {
			perr(ps, name.at, "flag '%.*s' takes no value",
			    WARG(ps, &name));
			return 0;
		}
		if (weq(ps, &name, "ipoib"))
			st->ipoib = true;
		else
			st->indx0 = true;
		return 1;
	}
	if (weq(ps, &name, "defmember")) {
		if (!has_val) {
			perr(ps, name.at, "flag 'defmember' needs a value: "
			    "full, limited or both");
			return 0;
		}
		return get_membership(ps, &val, "defmember", &st->defmember);
	}
	r = group_flag(ps, &st->flags, st->flag_at, &name,
	    has_val ? &val : NULL);
	if (r >= 0)
		return r;
	h = hint(wtext(ps, &name), name.len, partition_flags);
	perr(ps, name.at, "unknown partition flag '%.*s'%s%s%s",
	    WARG(ps, &name), h ? " (did you mean '" : "", h ? h : "",
	    h ? "'?)" : "");
	return 0;
}

/* Name[=PKey][,flag[=value]]... ':'. True when the ':' was taken. */
static bool
header(struct parser *ps, struct stmt *st)
{
	struct span w;
	bool reported = false;
	int c;

	if (read_word(ps, &w)) {
		skip_blanks(ps, true);
		if (is_digit((unsigned char)wtext(ps, &w)[0]) && peek(ps) == '=') {
			perr(ps, w.at, "a partition name cannot begin with a "
			    "digit");
			st->bad = true;
		} else if (is_digit((unsigned char)wtext(ps, &w)[0])) {
			st->pkey_at = w.at;
			st->has_pkey = get_pkey(ps, &w, &st->pkey);
			st->bad |= !st->has_pkey;
		} else if (w.len > NAME_MAX_LEN) {
			perr(ps, w.at, "partition name '%.*s...' is longer than "
			    "%d characters", WARG(ps, &w), NAME_MAX_LEN);
			st->bad = true;
		} else {
			st->name = pkey_xstrndup(wtext(ps, &w), w.len);
			st->name_at = w.at;
		}
		if (peek(ps) == '=') {
			take(ps);
			skip_blanks(ps, true);
			if (!read_word(ps, &w)) {
				unexpected(ps, "expected a P_Key after '='");
				st->bad = reported = true;
			} else {
				st->pkey_at = w.at;
				st->has_pkey = get_pkey(ps, &w, &st->pkey);
				st->bad |= !st->has_pkey;
			}
		}
	} else if (peek(ps) == '=' || peek(ps) == ':' || peek(ps) == ',') {
		perr(ps, here(ps), "missing partition name or P_Key");
		st->bad = reported = true;
	} else {
		unexpected(ps, "expected a partition name or P_Key");
		st->bad = reported = true;
	}
	for (;;) {
		skip_blanks(ps, true);
		c = peek(ps);
		if (c == ':') {
			take(ps);
			return true;
		}
		if (c == ';' || c == -1) {
			if (!reported)
				perr(ps, here(ps), "expected ':' after the "
				    "partition header");
			st->bad = true;
			if (c == ';')
				take(ps);
			return false;
		}
		if (c == ',') {
			take(ps);
			skip_blanks(ps, true);
			if (partition_flag(ps, st) >= 0)
				continue;
		} else if (!reported) {
			unexpected(ps, "expected ',' or ':' in the partition "
			    "header");
		}
		reported = true;
		st->bad = true;
		skip_to(ps, ",:;", false);
	}
}

static struct pkey_member *
add_member(struct stmt *st, uint8_t kind, struct pos at)
{
	struct pkey_member *m;

	GROW(st->members, st->nmembers, st->members_cap);
	m = &st->members[st->nmembers++];
	memset(m, 0, sizeof(*m));
	m->kind = kind;
	m->membership = st->defmember;
	m->line = at.line;
	m->col = at.col;
	return m;
}

static bool
get_guid(struct parser *ps, const struct span *w, uint64_t *out)
{
	if (!get_num(ps, w, "GUID", 0, UINT64_MAX, "a 64-bit GUID", out))
		return false;
	if (*out == 0) {
		perr(ps, w->at, "bad GUID '%.*s': GUID 0 is invalid",
		    WARG(ps, w));
		return false;
	}
	return true;
}

/* A GUID, or a range lo-hi (with or without blanks around the '-'). */
static bool
guid_member(struct parser *ps, struct stmt *st, const struct span *w,
    struct pkey_member **out)
{
	const char *s = wtext(ps, w);
	const char *dash = memchr(s, '-', w->len);
	struct span lo = *w, hi;
	uint64_t a, b;
	bool ok;

	if (dash != NULL) {
		lo.len = (size_t)(dash - s);
		hi.start = w->start + lo.len + 1;
		hi.len = w->len - lo.len - 1;
		hi.at = (struct pos){ w->at.line, w->at.col + (unsigned)lo.len +
		    1 };
		if (hi.len == 0) {
			perr(ps, hi.at, "expected a GUID after '-'");
			return false;
		}
	} else {
		skip_blanks(ps, false);
		if (peek(ps) == '-') {
			take(ps);
			skip_blanks(ps, false);
			if (!read_word(ps, &hi)) {
				unexpected(ps, "expected a GUID after '-'");
				return false;
			}
		} else {
			if (!get_guid(ps, &lo, &a))
				return false;
			*out = add_member(st, MK_GUID, w->at);
			(*out)->lo = (*out)->hi = a;
			return true;
		}
	}
	ok = get_guid(ps, &lo, &a);
	if (memchr(wtext(ps, &hi), '-', hi.len) != NULL) {
		perr(ps, hi.at, "bad GUID range: more than one '-'");
		return false;
	}
	ok &= get_guid(ps, &hi, &b);
	if (!ok)
		return false;
	if (a > b) {
		perr(ps, w->at, "bad GUID range: 0x%016llx is above 0x%016llx",
		    (unsigned long long)a, (unsigned long long)b);
		return false;
	}
	*out = add_member(st, a == b ? MK_GUID : MK_RANGE, w->at);
	(*out)->lo = a;
	(*out)->hi = b;
	return true;
}

/* "pattern": a node description with shell wildcards. */
static bool
desc_member(struct parser *ps, struct stmt *st, struct pkey_member **out)
{
	struct pos at = here(ps);
	size_t start;
	const char *why;
	char *pat;
	int c;

	advance(ps);
	start = ps->pos;
	while ((c = peek(ps)) != '"') {
		if (c == -1 || c == '\n') {
			perr(ps, at, "unterminated node description (no "
			    "closing '\"' on its line)");
			return false;
		}
		if (c == '\\') {
			advance(ps);
			if (peek(ps) == -1 || peek(ps) == '\n')
				continue;
		}
		advance(ps);
	}
	pat = pkey_xstrndup(ps->s + start, ps->pos - start);
	take(ps);
	if (pat[0] == '\0')
		why = "empty node description";
	else if (strlen(pat) != ps->pos - start - 1)
		why = "";       /* a NUL byte, reported up front */
	else if (strlen(pat) > PKEY_PATTERN_MAX)
		why = "node description pattern longer than 128 bytes";
	else
		why = pkey_glob_check(pat);
	if (why != NULL) {
		if (*why)
			perr(ps, at, "%s", why);
		free(pat);
		return false;
	}
	*out = add_member(st, MK_DESC, at);
	(*out)->pattern = pat;
	return true;
}

/* mgid=<gid>[,flag=value]...: takes the rest of its line. */
static void
mgid_item(struct parser *ps, struct stmt *st, struct pos at)
{
	struct stmt_mgroup *mg;
	struct span name, val, gid;
	struct pos flag_at[7];
	char text[64];
	uint8_t raw[16];
	const char *h;
	int c, r;

	skip_blanks(ps, false);
	if (peek(ps) != '=') {
		perr(ps, at, "expected '=' after 'mgid'");
		skip_to(ps, ";", true);
		return;
	}
	take(ps);
	skip_blanks(ps, false);
	gid.at = here(ps);
	gid.start = ps->pos;
	while ((c = peek(ps)) != -1 && (hexval(c) >= 0 || c == ':' || c == '.'))
		advance(ps);
	gid.len = ps->pos - gid.start;
	if (gid.len == 0) {
		unexpected(ps, "expected a multicast GID after 'mgid='");
		skip_to(ps, ";", true);
		return;
	}
	ps->end = here(ps);
	if (gid.len >= sizeof(text) || is_word(peek(ps))) {
		while (is_word(peek(ps)))
			advance(ps);
		gid.len = ps->pos - gid.start;
		perr(ps, gid.at, "bad GID '%.*s'", WARG(ps, &gid));
		skip_to(ps, ";", true);
		return;
	}
	memcpy(text, wtext(ps, &gid), gid.len);
	text[gid.len] = '\0';
	if (inet_pton(AF_INET6, text, raw) != 1) {
		perr(ps, gid.at, "bad GID '%s'", text);
		skip_to(ps, ";", true);
		return;
	}
	if (raw[0] != 0xff) {
		perr(ps, gid.at, "GID %s is not a multicast GID (those begin "
		    "with ff)", text);
		skip_to(ps, ";", true);
		return;
	}
	GROW(st->mgroups, st->nmgroups, st->mgroups_cap);
	mg = &st->mgroups[st->nmgroups++];
	memset(mg, 0, sizeof(*mg));
	memcpy(mg->g.mgid, raw, 16);
	mg->at = gid.at;
	mg->g.line = gid.at.line;
	memcpy(mg->text, text, gid.len + 1);
	for (;;) {
		skip_blanks(ps, false);
		c = peek(ps);
		if (c == '\n' || c == ';' || c == -1)
			return;
		if (c != ',') {
			unexpected(ps, "an mgid item takes the rest of its line");
			skip_to(ps, ";", true);
			return;
		}
		take(ps);
		skip_blanks(ps, false);
		if (!read_word(ps, &name)) {
			unexpected(ps, "expected a multicast group flag after "
			    "','");
			skip_to(ps, ";", true);
			return;
		}
		val.len = 0;
		if (flag_value(ps, &val, false) && val.len == 0) {
			skip_to(ps, ",;", true);
			continue;
		}
		r = group_flag(ps, &mg->g.flags, flag_at, &name,
		    val.len ? &val : NULL);
		if (r >= 0)
			continue;
		if (hint(wtext(ps, &name), name.len, partition_flags) != NULL &&
		    hint(wtext(ps, &name), name.len, group_flags) == NULL) {
			perr(ps, name.at, "'%.*s' is a partition flag, not a "
			    "multicast group flag", WARG(ps, &name));
			continue;
		}
		h = hint(wtext(ps, &name), name.len, group_flags);
		if (h != NULL)
			perr(ps, name.at, "unknown multicast group flag '%.*s' "
			    "(did you mean '%s'?)", WARG(ps, &name), h);
		else if (is_digit((unsigned char)wtext(ps, &name)[0]) ||
		    hint(wtext(ps, &name), name.len, member_words) != NULL)
			perr(ps, name.at, "unknown multicast group flag '%.*s' "
			    "(an mgid item takes the rest of its line: put "
			    "members on the next)", WARG(ps, &name));
		else
			perr(ps, name.at, "unknown multicast group flag '%.*s'",
			    WARG(ps, &name));
	}
}

/* One member list item. Recovers by itself (to the next separator). */
static void
item(struct parser *ps, struct stmt *st)
{
	struct pkey_member *m = NULL;
	struct span w, val;
	struct pos at = here(ps);
	bool none = false;
	const char *h;

	if (peek(ps) == '"') {
		if (!desc_member(ps, st, &m))
			goto recover;
	} else if (read_word(ps, &w)) {
		if (weq(ps, &w, "mgid")) {
			mgid_item(ps, st, at);
			return;
		}
		if (is_digit((unsigned char)wtext(ps, &w)[0])) {
			if (!guid_member(ps, st, &w, &m))
				goto recover;
		} else if (weq(ps, &w, "ALL")) {
			m = add_member(st, MK_ALL, at);
		} else if (weq(ps, &w, "ALL_CAS")) {
			m = add_member(st, MK_ALL_CAS, at);
		} else if (weq(ps, &w, "ALL_SWITCHES")) {
			m = add_member(st, MK_ALL_SWITCHES, at);
		} else if (weq(ps, &w, "ALL_ROUTERS")) {
			m = add_member(st, MK_ALL_ROUTERS, at);
		} else if (weq(ps, &w, "SELF")) {
			m = add_member(st, MK_SELF, at);
		} else if (weq(ps, &w, "NONE")) {
			none = true;
		} else if ((h = hint(wtext(ps, &w), w.len, member_words))) {
			perr(ps, at, "unknown member '%.*s' (did you mean "
			    "'%s'?)", WARG(ps, &w), h);
			goto recover;
		} else if (hint(wtext(ps, &w), w.len, partition_flags) &&
		    pkey_caseeq(wtext(ps, &w), w.len,
		    hint(wtext(ps, &w), w.len, partition_flags))) {
			perr(ps, at, "'%.*s' is a partition flag: it goes "
			    "before the ':'", WARG(ps, &w));
			goto recover;
		} else {
			perr(ps, at, "unknown member '%.*s' (members are port "
			    "GUIDs, GUID ranges, \"node descriptions\" and "
			    "ALL, ALL_CAS, ALL_SWITCHES, ALL_ROUTERS, SELF, "
			    "NONE)", WARG(ps, &w));
			goto recover;
		}
	} else {
		unexpected(ps, "expected a member");
		goto recover;
	}
	skip_blanks(ps, false);
	if (peek(ps) != '=')
		return;
	take(ps);
	skip_blanks(ps, false);
	if (!read_word(ps, &val)) {
		unexpected(ps, "expected full, limited or both after '='");
		goto drop;
	}
	if (none) {
		perr(ps, at, "NONE takes no membership");
		return;
	}
	if (!get_membership(ps, &val, "membership", &m->membership))
		goto drop;
	return;
drop:
	if (m != NULL) {
		free(m->pattern);
		st->nmembers--;
	}
recover:
	skip_to(ps, ",;", true);
}

/*
 * After a line break inside a member list: does a new statement start
 * here? ("word[=word][,word[=word]]... :" on one line, not an mgid item.)
 * Then the previous statement lacks its ';'.
 */
static bool
looks_like_header(struct parser *ps)
{
	struct parser save = *ps;
	struct span w;
	bool yes = false;

	if (!read_word(ps, &w) || weq(ps, &w, "mgid"))
		goto out;
	for (;;) {
		skip_blanks(ps, false);
		if (peek(ps) == '=') {
			advance(ps);
			skip_blanks(ps, false);
			if (!read_word(ps, &w))
				goto out;
			skip_blanks(ps, false);
		}
		if (peek(ps) != ',')
			break;
		advance(ps);
		skip_blanks(ps, false);
		if (!read_word(ps, &w))
			goto out;
	}
	yes = peek(ps) == ':';
out:
	*ps = save;
	return yes;
}

/* member[,member]... ';' where a line break also separates members. */
static void
members(struct parser *ps, struct stmt *st)
{
	enum { AFTER_COLON, AFTER_ITEM, AFTER_COMMA } state = AFTER_COLON;
	char desc[96];
	bool nl;
	int c;

	for (;;) {
		nl = skip_blanks(ps, true);
		c = peek(ps);
		if (c == ';') {
			take(ps);
			return;
		}
		if (c == -1 || (nl && looks_like_header(ps))) {
			perr(ps, ps->end, "missing ';' at the end of %s",
			    pkey_stmt_desc(st, desc, sizeof(desc)));
			return;
		}
		if (c == ',') {
			if (state != AFTER_ITEM)
				perr(ps, here(ps), "empty member before ','");
			take(ps);
			state = AFTER_COMMA;
			continue;
		}
		if (state == AFTER_ITEM && !nl) {
			perr(ps, here(ps), "expected ',' or ';' after a member");
			skip_to(ps, ",;", true);
			continue;
		}
		item(ps, st);
		state = AFTER_ITEM;
	}
}

static void
statement(struct parser *ps)
{
	struct stmt *st;

	if (peek(ps) == ';') {
		perr(ps, here(ps), "empty statement");
		take(ps);
		return;
	}
	GROW(ps->stmts, ps->nstmts, ps->stmts_cap);
	st = &ps->stmts[ps->nstmts++];
	memset(st, 0, sizeof(*st));
	st->at = here(ps);
	st->defmember = PKEY_LIMITED;
	if (header(ps, st))
		members(ps, st);
}

/* ---- the API --------------------------------------------------------- */

static void
stmts_free(struct parser *ps)
{
	for (size_t i = 0; i < ps->nstmts; i++) {
		struct stmt *st = &ps->stmts[i];

		free(st->name);
		for (size_t j = 0; j < st->nmembers; j++)
			free(st->members[j].pattern);
		free(st->members);
		free(st->mgroups);
	}
	free(ps->stmts);
}

struct pkey_policy *
pkey_policy_parse(const char *filename, const char *text, size_t len,
    struct pkey_errors *errs)
{
	struct parser ps = { .s = text, .len = len, .line = 1, .errs = errs,
	    .errors0 = errs->nerrors };
	struct pkey_policy *pol = NULL;
	size_t first = errs->n, errors = errs->nerrors;
	const char *nul;

	free(errs->file);
	errs->file = pkey_xstrndup(filename, strlen(filename));
	ps.end = here(&ps);
	if ((nul = memchr(text, '\0', len)) != NULL) {
		struct parser at = ps;

		while (at.pos < (size_t)(nul - text))
			advance(&at);
		perr(&ps, here(&at), "NUL byte: not a text file");
		ps.nul_seen = true;
	}
	for (;;) {
		skip_blanks(&ps, true);
		if (peek(&ps) == -1)
			break;
		statement(&ps);
	}
	pol = pkey_merge(ps.stmts, ps.nstmts, errs);
	stmts_free(&ps);
	if (pol != NULL && errs->nerrors != errors) {
		pkey_policy_free(pol);
		pol = NULL;
	}
	pkey_msgs_sort(errs, first);
	return pol;
}

