/*
 * ibsmd.conf: schema table, YAML loader (libyaml events), command-line
 * overrides, -nv printer and reload diff. See config.h.
 *
 * A load parses the whole file into a scratch copy of the configuration
 * and swaps it in only when no error was found, so a bad file (at start or
 * on SIGHUP) changes nothing.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE		/* vasprintf, open_memstream, strcasecmp */
#endif
#include "config/config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <yaml.h>

#define MAX_ERRORS	100		/* per load, then give up */
#define MAX_FILE_SIZE	(1024 * 1024)
#define MAX_GUIDS	4096		/* per GUID list */
#define PRINT_WIDTH	40		/* column of the -nv source comment */

_Static_assert(sizeof(enum log_level) == sizeof(unsigned) &&
    sizeof(enum cfg_enforcement) == sizeof(unsigned),
    "enum options are stored as unsigned");
_Static_assert(LOG_LVL_ERROR == 0 && LOG_LVL_WARN == 1 && LOG_LVL_INFO == 2 &&
    LOG_LVL_DEBUG == 3, "log_levels[] follows enum log_level");

static const char *const log_levels[] = { "error", "warn", "info", "debug",
    NULL };
static const char *const engines[] = { "ftree", "updn", "minhop", NULL };
static const char *const enforcements[] = { "both", "in", "out", "off",
    NULL };

#define OFF(f)	offsetof(struct ibsmd_config, f)

static const struct cfg_option schema[CFG_NOPTIONS] = {
	[CFG_OPT_PORT_GUID] = {
		.name = "port_guid", .type = CFG_GUID, .offset = OFF(port_guid),
		.def = "0x0000000000000000", .flags = CFG_F_NOT_INSTANCE,
		.doc = "GUID of the local port to drive; 0x0 means the first "
		    "InfiniBand port.",
	},
	[CFG_OPT_PORTS] = {
		.name = "ports", .type = CFG_GUIDS_OR_ALL, .offset = OFF(ports),
		.max = MAX_GUIDS, .def = "[]", .reloadable = true,
		.flags = CFG_F_NOT_INSTANCE,
		.doc = "Ports ibsmd.service starts an ibsmd on (all; [] is "
		    "port_guid's port).",
	},
	[CFG_OPT_STATE_DIR] = {
		.name = "state_dir", .type = CFG_PATH, .offset = OFF(state_dir),
		.def = IBSMD_STATEDIR "/" CONFIG_GUID_PLACEHOLDER,
		.doc = "Persistent state (guid2lid, stats); <port-guid> becomes "
		    "the port GUID.",
	},
	[CFG_OPT_RUNTIME_DIR] = {
		.name = "runtime_dir", .type = CFG_PATH,
		.offset = OFF(runtime_dir), .def = IBSMD_RUNDIR,
		.doc = "Directory of the lock file and the control socket.",
	},
	[CFG_OPT_LOG_LEVEL] = {
		.name = "log_level", .type = CFG_ENUM, .offset = OFF(log_level),
		.allowed = log_levels, .def = "info", .reloadable = true,
		.doc = "Least severe messages logged.",
	},
	[CFG_OPT_LOG_FILE] = {
		.name = "log_file", .type = CFG_STRING, .offset = OFF(log_file),
		.def = "\"-\"", .reloadable = true,
		.doc = "Where to log: \"-\" for standard error, syslog, or a "
		    "file path.",
	},
	[CFG_OPT_SWEEP_INTERVAL] = {
		.name = "sweep_interval", .type = CFG_DOUBLE,
		.offset = OFF(sweep_interval), .min = 0, .max = 86400,
		.unit = "seconds", .def = "10", .reloadable = true,
		.doc = "Period of the light sweep; 0 turns periodic sweeps off.",
	},
	[CFG_OPT_ROUTING_ENGINE] = {
		.name = "routing_engine", .type = CFG_ENUM_LIST,
		.offset = OFF(routing_engine), .min = 1, .max = CFG_NAMES_MAX,
		.allowed = engines, .def = "[minhop]", .reloadable = true,
		.doc = "Routing engines to try in order; the first that can "
		    "route is used.",
	},
	[CFG_OPT_ROOT_GUIDS] = {
		.name = "root_guids", .type = CFG_GUID_LIST,
		.offset = OFF(root_guids), .max = MAX_GUIDS, .def = "[]",
		.reloadable = true,
		.doc = "Node GUIDs of the root switches (ftree, updn); [] lets "
		    "the engine choose.",
	},
	[CFG_OPT_LEAF_GUIDS] = {
		.name = "leaf_guids", .type = CFG_GUID_LIST,
		.offset = OFF(leaf_guids), .max = MAX_GUIDS, .def = "[]",
		.reloadable = true,
		.doc = "Node GUIDs of the leaf switches (ftree); [] lets the "
		    "engine choose.",
	},
	[CFG_OPT_MAX_WIRE_SMPS] = {
		.name = "max_wire_smps", .type = CFG_UINT,
		.offset = OFF(max_wire_smps), .min = 1, .max = 100000,
		.def = "64", .reloadable = true,
		.doc = "SMPs outstanding on the wire overall.",
	},
	[CFG_OPT_MAX_SMPS_PER_NODE] = {
		.name = "max_smps_per_node", .type = CFG_UINT,
		.offset = OFF(max_smps_per_node), .min = 1, .max = 100000,
		.def = "4", .reloadable = true,
		.doc = "SMPs outstanding to one node; other nodes proceed while "
		    "one is slow.",
	},
	[CFG_OPT_SMP_TIMEOUT] = {
		.name = "smp_timeout", .type = CFG_UINT,
		.offset = OFF(smp_timeout), .min = 1, .max = 100000,
		.unit = "milliseconds", .def = "200", .reloadable = true,
		.doc = "Time to wait for the answer to one SMP.",
	},
	[CFG_OPT_SMP_RETRIES] = {
		.name = "smp_retries", .type = CFG_UINT,
		.offset = OFF(smp_retries), .min = 0, .max = 20, .def = "3",
		.reloadable = true,
		.doc = "Retries of an unanswered SMP before its node is given up "
		    "for this sweep.",
	},
	[CFG_OPT_SM_PRIORITY] = {
		.name = "sm_priority", .type = CFG_UINT,
		.offset = OFF(sm_priority), .min = 0, .max = 15, .def = "0",
		.reloadable = true,
		.doc = "SM priority reported in SMInfo.",
	},
	[CFG_OPT_SM_KEY] = {
		.name = "sm_key", .type = CFG_GUID, .offset = OFF(sm_key),
		.unit = "64-bit key", .def = "0x0000000000000000",
		.reloadable = true,
		.doc = "SM_Key: SMInfo Sets must carry it; no handover with "
		    "SMs of another key.",
	},
	[CFG_OPT_SM_POLL_INTERVAL] = {
		.name = "sm_poll_interval", .type = CFG_DOUBLE,
		.offset = OFF(sm_poll_interval), .min = 0.1, .max = 3600,
		.unit = "seconds", .def = "10", .reloadable = true,
		.doc = "Seconds between SMInfo polls of the master (standby) "
		    "or other SMs.",
	},
	[CFG_OPT_SM_POLL_RETRIES] = {
		.name = "sm_poll_retries", .type = CFG_UINT,
		.offset = OFF(sm_poll_retries), .min = 1, .max = 100,
		.def = "4", .reloadable = true,
		.doc = "Polls in a row without an answering master before a "
		    "standby takes over.",
	},
	[CFG_OPT_SUBNET_PREFIX] = {
		.name = "subnet_prefix", .type = CFG_GUID,
		.offset = OFF(subnet_prefix), .unit = "64-bit prefix",
		.def = "0xfe80000000000000",
		.doc = "Subnet prefix (GID prefix) written to every port.",
	},
	[CFG_OPT_LMC] = {
		.name = "lmc", .type = CFG_UINT, .offset = OFF(lmc),
		.min = 0, .max = 0, .def = "0",
		.doc = "LID mask control: 2^lmc LIDs per port; LMC > 0 is not "
		    "supported yet.",
	},
	[CFG_OPT_M_KEY] = {
		.name = "m_key", .type = CFG_GUID, .offset = OFF(m_key),
		.unit = "64-bit key", .def = "0x0000000000000000", .reloadable = true,
		.doc = "M_Key written to every port; 0x0 means none.",
	},
	[CFG_OPT_M_KEY_LEASE_PERIOD] = {
		.name = "m_key_lease_period", .type = CFG_UINT,
		.offset = OFF(m_key_lease_period), .min = 0, .max = 65535,
		.unit = "seconds", .def = "0", .reloadable = true,
		.doc = "M_Key lease period; 0 means the lease never expires.",
	},
	[CFG_OPT_M_KEY_PROTECT_BITS] = {
		.name = "m_key_protect_bits", .type = CFG_UINT,
		.offset = OFF(m_key_protect_bits), .min = 0, .max = 3,
		.def = "0", .reloadable = true,
		.doc = "M_Key protection level (M_KeyProtectBits of PortInfo).",
	},
	[CFG_OPT_PARTITIONS_FILE] = {
		.name = "partitions_file", .type = CFG_PATH,
		.offset = OFF(partitions_file),
		.def = IBSMD_SYSCONFDIR "/partitions.conf", .reloadable = true,
		.doc = "Partition definitions, see partitions.conf(5).",
	},
	[CFG_OPT_PARTITION_ENFORCEMENT] = {
		.name = "partition_enforcement", .type = CFG_ENUM,
		.offset = OFF(partition_enforcement), .allowed = enforcements,
		.def = "both", .reloadable = true,
		.doc = "P_Key filtering on switch ports to end nodes: both ways, "
		    "in, out, off.",
	},
	[CFG_OPT_ALLOW_BOTH_PKEYS] = {
		.name = "allow_both_pkeys", .type = CFG_BOOL,
		.offset = OFF(allow_both_pkeys), .def = "false",
		.reloadable = true,
		.doc = "Allow a port to be both a full and a limited member of "
		    "one partition.",
	},
};

static const char *const source_names[CFG_NSOURCES] = {
	[CFG_DEFAULT] = "default",
	[CFG_COMMON_FILE] = "common file",
	[CFG_INSTANCE_FILE] = "instance file",
	[CFG_CONFIG_FILE] = "-c file",
	[CFG_CMDLINE] = "command line",
};

/* ------------------------------------------------------------------ */
/* Small helpers */

static void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (p == NULL)
		fatal("config");
	return p;
}

/* len bytes of s, NUL-terminated; s may hold NULs (YAML's "\0"). */
static char *
xstrndup(const char *s, size_t len)
{
	char *p = malloc(len + 1);

	if (p == NULL)
		fatal("config");
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

static char *
xstrdup(const char *s)
{
	return s ? xstrndup(s, strlen(s)) : NULL;
}

static void *
field(const struct ibsmd_config *cfg, const struct cfg_option *o)
{
	return (char *)cfg + o->offset;
}

static unsigned
get_enum(const void *p)
{
	unsigned v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static void
put_enum(void *p, unsigned v)
{
	memcpy(p, &v, sizeof(v));
}

static int
find_allowed(const char *const *allowed, const char *s)
{
	for (int i = 0; allowed[i] != NULL; i++)
		if (strcmp(allowed[i], s) == 0)
			return i;
	return -1;
}

/* "a, b, c" into buf. */
static void
join_allowed(const char *const *allowed, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; allowed[i] != NULL && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
		    i ? ", " : "", allowed[i]);
}

/* A value quoted for a message: control bytes escaped, long text cut. */
static const char *
show(const char *s, size_t len, char *buf, size_t buflen)
{
	size_t o = 0, i;

	buf[o++] = '"';
	for (i = 0; i < len && o + 8 < buflen; i++) {
		unsigned char c = (unsigned char)s[i];

		if (i == 40) {
			memcpy(buf + o, "...", 3);
			o += 3;
			break;
		}
		if (c < 0x20 || c == 0x7f)
			o += (size_t)snprintf(buf + o, buflen - o, "\\x%02x", c);
		else if (c == '"' || c == '\\')
			o += (size_t)snprintf(buf + o, buflen - o, "\\%c", c);
		else
			buf[o++] = (char)c;
	}
	buf[o++] = '"';
	buf[o] = '\0';
	return buf;
}

void
config_errors_fini(struct config_errors *errs)
{
	for (size_t i = 0; i < errs->n; i++)
		free(errs->line[i]);
	free(errs->line);
	errs->line = NULL;
	errs->n = 0;
}

static void
errs_add(struct config_errors *errs, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
errs_add(struct config_errors *errs, const char *fmt, ...)
{
	va_list ap;
	char **l;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		fatal("config");
	va_end(ap);
	l = realloc(errs->line, (errs->n + 1) * sizeof(*l));
	if (l == NULL)
		fatal("config");
	errs->line = l;
	errs->line[errs->n++] = s;
}

/* ------------------------------------------------------------------ */
/* Scalars from text */

static bool
is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	    (c >= 'A' && c <= 'F');
}

static unsigned
hexval(char c)
{
	return c <= '9' ? (unsigned)(c - '0') : (unsigned)((c | 0x20) - 'a' + 10);
}

/* 0x and 1-16 hex digits. */
static int
parse_guid(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || s[2] == '\0')
		return -1;
	for (i = 2; s[i] != '\0'; i++) {
		if (!is_hex(s[i]) || i - 2 >= 16)
			return -1;
		v = v << 4 | hexval(s[i]);
	}
	*out = v;
	return 0;
}

enum { INT_OK, INT_BAD, INT_NEGATIVE, INT_TOO_BIG, INT_LEADING_ZERO };

/* Decimal, or 0x hex. A leading zero is refused: YAML 1.1 would read 010
 * as octal 8, a reader as 10 (partitions.conf refuses it too). */
static int
parse_uint(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	unsigned base = 10, d;
	bool neg = false;

	if (*s == '-') {
		neg = true;
		s++;
	}
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (*s == '\0')
		return INT_BAD;
	if (base == 10 && s[0] == '0' && s[1] >= '0' && s[1] <= '9' &&
	    s[strspn(s, "0123456789")] == '\0')
		return INT_LEADING_ZERO;
	for (; *s != '\0'; s++) {
		if (base == 16 ? !is_hex(*s) : (*s < '0' || *s > '9'))
			return INT_BAD;
		d = hexval(*s);
		if (v > (UINT64_MAX - d) / base)
			return neg ? INT_NEGATIVE : INT_TOO_BIG;
		v = v * base + d;
	}
	if (neg && v != 0)
		return INT_NEGATIVE;
	*out = v;
	return INT_OK;
}

static int
parse_double(const char *s, double *out)
{
	const char *p = s;
	char *end;

	/* Plain decimal notation only: no hex floats, inf or nan. */
	if (*p == '-' || *p == '+')
		p++;
	if (!((*p >= '0' && *p <= '9') || *p == '.') ||
	    (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')))
		return -1;
	errno = 0;
	*out = strtod(s, &end);
	if (*end != '\0' || errno == ERANGE || !isfinite(*out))
		return -1;
	return 0;
}

static int
parse_bool(const char *s, bool *out)
{
	if (!strcasecmp(s, "true") || !strcasecmp(s, "yes"))
		*out = true;
	else if (!strcasecmp(s, "false") || !strcasecmp(s, "no"))
		*out = false;
	else
		return -1;
	return 0;
}

/* Shortest %g that reads back to the same double, without an exponent
 * when one does. */
static int
format_double(double d, char *buf, size_t len)
{
	int n = 0;

	for (int pass = 0; pass < 2; pass++)
		for (int prec = 1; prec <= 17; prec++) {
			n = snprintf(buf, len, "%.*g", prec, d);
			if (strtod(buf, NULL) == d &&
			    (pass == 1 || strchr(buf, 'e') == NULL))
				return n;
		}
	return n;
}

/* ------------------------------------------------------------------ */
/* Values as the loader and config_set() hand them to the checker */

enum node_kind { NODE_SCALAR, NODE_LIST, NODE_MAP, NODE_ALIAS };

struct node {
	enum node_kind kind;
	char *text;			/* NODE_SCALAR; NODE_ALIAS: anchor */
	size_t len;
	bool plain;			/* unquoted */
	unsigned line, col;		/* 1-based; 0 on the command line */
};

struct value {
	struct node head;		/* the value node itself */
	size_t n;			/* NODE_LIST: its entries */
	struct node *item;
};

static void
value_free(struct value *v)
{
	free(v->head.text);
	for (size_t i = 0; i < v->n; i++)
		free(v->item[i].text);
	free(v->item);
	memset(v, 0, sizeof(*v));
}

static struct node *
value_push(struct value *v)
{
	struct node *p = realloc(v->item, (v->n + 1) * sizeof(*p));

	if (p == NULL)
		fatal("config");
	v->item = p;
	memset(&v->item[v->n], 0, sizeof(*p));
	return &v->item[v->n++];
}

static bool
node_null(const struct node *n)
{
	return n->kind == NODE_SCALAR && n->plain && (n->len == 0 ||
	    !strcmp(n->text, "~") || !strcmp(n->text, "null") ||
	    !strcmp(n->text, "Null") || !strcmp(n->text, "NULL"));
}

static const char *
kind_name(enum node_kind k)
{
	switch (k) {
	case NODE_LIST:
		return "a list";
	case NODE_MAP:
		return "a mapping";
	case NODE_ALIAS:
		return "an alias";
	default:
		return "a scalar";
	}
}

/* Where errors go: a file (positions) or the command line (none). */
struct check {
	struct config_errors *errs;
	const char *name;		/* file name; NULL: command line */
	size_t nerr;
	bool stop;			/* a syntax error, or too many */
};

static void
err_at(struct check *ck, unsigned line, unsigned col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void
err_at(struct check *ck, unsigned line, unsigned col, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (ck->stop)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (ck->nerr == MAX_ERRORS) {
		errs_add(ck->errs, "%s: too many errors, giving up", ck->name ?
		    ck->name : "command line");
		ck->stop = true;
		return;
	}
	ck->nerr++;
	if (ck->name == NULL)
		errs_add(ck->errs, "command line: %s", msg);
	else
		errs_add(ck->errs, "%s:%u:%u: %s", ck->name, line, col, msg);
}

#define ERR(ck, nd, ...) err_at((ck), (nd)->line, (nd)->col, __VA_ARGS__)

/* What a value of o must look like, for "expected ..." messages. */
static void
expected(const struct cfg_option *o, char *buf, size_t len)
{
	char list[128];

	switch (o->type) {
	case CFG_BOOL:
		snprintf(buf, len, "true or false");
		break;
	case CFG_UINT:
		snprintf(buf, len, "an integer");
		break;
	case CFG_DOUBLE:
		snprintf(buf, len, "a number");
		break;
	case CFG_GUID:
		snprintf(buf, len, "a %s (0x and up to 16 hex digits)",
		    o->unit ? o->unit : "GUID");
		break;
	case CFG_STRING:
		snprintf(buf, len, "a string");
		break;
	case CFG_PATH:
		snprintf(buf, len, "a path");
		break;
	case CFG_ENUM:
		join_allowed(o->allowed, list, sizeof(list));
		snprintf(buf, len, "one of %s", list);
		break;
	case CFG_ENUM_LIST:
		join_allowed(o->allowed, list, sizeof(list));
		snprintf(buf, len, "a list of %s", list);
		break;
	case CFG_GUID_LIST:
		snprintf(buf, len, "a list of GUIDs");
		break;
	case CFG_GUIDS_OR_ALL:
		snprintf(buf, len, "all or a list of GUIDs");
		break;
	}
}

static void
err_kind(struct check *ck, const struct cfg_option *o, const struct node *nd)
{
	char exp[160];

	expected(o, exp, sizeof(exp));
	if (nd->kind == NODE_ALIAS)
		ERR(ck, nd, "%s: aliases (*%s) are not supported", o->name,
		    nd->text);
	else
		ERR(ck, nd, "%s: expected %s, got %s", o->name, exp,
		    kind_name(nd->kind));
}

/* Range check and store of an integer or a number given as text. */
static int
check_range(struct check *ck, const struct cfg_option *o,
    const struct node *nd, double v)
{
	char lo[32], hi[32];

	if (v >= o->min && v <= o->max)
		return 0;
	format_double(o->min, lo, sizeof(lo));
	format_double(o->max, hi, sizeof(hi));
	if (o->min == o->max)
		ERR(ck, nd, "%s: %s is out of range (only %s is supported)",
		    o->name, nd->text, lo);
	else
		ERR(ck, nd, "%s: %s is out of range (%s to %s%s%s)", o->name,
		    nd->text, lo, hi, o->unit ? " " : "", o->unit ? o->unit : "");
	return -1;
}

/* One scalar node into the field of a scalar option. */
static int
check_scalar(struct check *ck, const struct cfg_option *o,
    const struct node *nd, void *f)
{
	char exp[160], got[160];
	uint64_t u;
	double d;
	bool b;
	int r;

	if (nd->kind != NODE_SCALAR) {
		err_kind(ck, o, nd);
		return -1;
	}
	if (node_null(nd)) {
		ERR(ck, nd, "%s: missing value", o->name);
		return -1;
	}
	expected(o, exp, sizeof(exp));
	show(nd->text, nd->len, got, sizeof(got));
	if (strlen(nd->text) != nd->len) {
		ERR(ck, nd, "%s: NUL character in %s", o->name, got);
		return -1;
	}
	switch (o->type) {
	case CFG_BOOL:
	case CFG_UINT:
	case CFG_DOUBLE:
	case CFG_GUID:
		/* YAML types: a quoted 10 is a string, not a number. */
		if (!nd->plain) {
			ERR(ck, nd, "%s: expected %s, got the string %s "
			    "(write it without quotes)", o->name, exp, got);
			return -1;
		}
		break;
	default:
		break;
	}
	switch (o->type) {
	case CFG_BOOL:
		if (parse_bool(nd->text, &b) < 0) {
			ERR(ck, nd, "%s: expected %s, got %s", o->name, exp, got);
			return -1;
		}
		*(bool *)f = b;
		return 0;
	case CFG_UINT:
		r = parse_uint(nd->text, &u);
		if (r == INT_BAD) {
			ERR(ck, nd, "%s: expected %s, got %s", o->name, exp, got);
			return -1;
		}
		if (r == INT_LEADING_ZERO) {
			ERR(ck, nd, "%s: %s has a leading zero (write decimal "
			    "without it, or hex after 0x)", o->name, nd->text);
			return -1;
		}
		if (r == INT_NEGATIVE)
			return check_range(ck, o, nd, -1);
		if (r == INT_TOO_BIG || u > UINT_MAX)
			return check_range(ck, o, nd, INFINITY);
		if (check_range(ck, o, nd, (double)u) < 0)
			return -1;
		*(unsigned *)f = (unsigned)u;
		return 0;
	case CFG_DOUBLE:
		if (parse_double(nd->text, &d) < 0) {
			ERR(ck, nd, "%s: expected %s, got %s", o->name, exp, got);
			return -1;
		}
		if (check_range(ck, o, nd, d) < 0)
			return -1;
		*(double *)f = d;
		return 0;
	case CFG_GUID:
		if (parse_guid(nd->text, &u) < 0) {
			ERR(ck, nd, "%s: %s is not %s", o->name, got, exp);
			return -1;
		}
		*(uint64_t *)f = u;
		return 0;
	case CFG_STRING:
	case CFG_PATH:
		if (nd->len == 0) {
			ERR(ck, nd, "%s: empty %s", o->name,
			    o->type == CFG_PATH ? "path" : "string");
			return -1;
		}
		free(*(char **)f);
		*(char **)f = xstrdup(nd->text);
		return 0;
	case CFG_ENUM:
		r = find_allowed(o->allowed, nd->text);
		if (r < 0) {
			ERR(ck, nd, "%s: %s is not %s", o->name, got, exp);
			return -1;
		}
		put_enum(f, (unsigned)r);
		return 0;
	default:
		abort();
	}
}

/* One list entry; -1 on error. */
static int
check_entry(struct check *ck, const struct cfg_option *o,
    const struct node *nd, uint64_t *guid, int *index)
{
	char got[160], list[128];

	if (nd->kind != NODE_SCALAR) {
		if (nd->kind == NODE_ALIAS)
			ERR(ck, nd, "%s: aliases (*%s) are not supported",
			    o->name, nd->text);
		else
			ERR(ck, nd, "%s: expected %s in the list, got %s",
			    o->name, o->type == CFG_ENUM_LIST ? "a name" :
			    "a GUID", kind_name(nd->kind));
		return -1;
	}
	show(nd->text, nd->len, got, sizeof(got));
	if (node_null(nd)) {
		ERR(ck, nd, "%s: empty list entry", o->name);
		return -1;
	}
	if (strlen(nd->text) != nd->len) {
		ERR(ck, nd, "%s: NUL character in %s", o->name, got);
		return -1;
	}
	if (o->type == CFG_ENUM_LIST) {
		*index = find_allowed(o->allowed, nd->text);
		if (*index >= 0)
			return 0;
		join_allowed(o->allowed, list, sizeof(list));
		ERR(ck, nd, "%s: %s is not one of %s%s", o->name, got, list,
		    strchr(nd->text, ',') && nd->plain ?
		    " (write a list: [a, b])" : "");
		return -1;
	}
	if (o->type == CFG_GUIDS_OR_ALL && !strcmp(nd->text, "all")) {
		ERR(ck, nd, "%s: all stands alone, not in a list (write %s: "
		    "all)", o->name, o->name);
		return -1;
	}
	if (!nd->plain) {
		ERR(ck, nd, "%s: expected a GUID, got the string %s (write it "
		    "without quotes)", o->name, got);
		return -1;
	}
	if (parse_guid(nd->text, guid) < 0) {
		ERR(ck, nd, "%s: %s is not a GUID (0x and up to 16 hex digits)",
		    o->name, got);
		return -1;
	}
	return 0;
}

static void
guid_list_free(struct cfg_guid_list *l)
{
	free(l->guid);
	memset(l, 0, sizeof(*l));
}

/* A list option from a list node (or one scalar, a list of one). */
static int
check_list(struct check *ck, const struct cfg_option *o, struct value *v,
    void *f)
{
	struct cfg_name_list names = { 0 };
	struct cfg_guid_list guids = { 0 };
	const struct node *items = v->item;
	size_t n = v->n, i, j;
	char list[128];
	int bad = 0, idx = 0;
	uint64_t g = 0;

	if (v->head.kind == NODE_MAP || v->head.kind == NODE_ALIAS) {
		err_kind(ck, o, &v->head);
		return -1;
	}
	if (v->head.kind == NODE_SCALAR) {
		if (node_null(&v->head)) {
			ERR(ck, &v->head, "%s: missing value (write [] for an "
			    "empty list)", o->name);
			return -1;
		}
		if (o->type == CFG_GUIDS_OR_ALL &&
		    !strcmp(v->head.text, "all")) {
			guid_list_free(f);
			((struct cfg_guid_list *)f)->all = true;
			return 0;
		}
		items = &v->head;
		n = 1;
	}
	if (n < o->min) {
		if (o->type == CFG_ENUM_LIST) {
			join_allowed(o->allowed, list, sizeof(list));
			ERR(ck, &v->head, "%s: empty list (give at least one of "
			    "%s)", o->name, list);
		} else
			ERR(ck, &v->head, "%s: empty list", o->name);
		return -1;
	}
	if (n > o->max) {
		ERR(ck, &v->head, "%s: %zu entries, at most %.0f", o->name, n,
		    o->max);
		return -1;
	}
	if (o->type != CFG_ENUM_LIST)
		guids.guid = xcalloc(n, sizeof(uint64_t));
	for (i = 0; i < n; i++) {
		if (check_entry(ck, o, &items[i], &g, &idx) < 0) {
			bad = -1;
			continue;
		}
		if (o->type == CFG_ENUM_LIST) {
			for (j = 0; j < names.n; j++)
				if (names.name[j] == o->allowed[idx])
					break;
			if (j < names.n) {
				ERR(ck, &items[i], "%s: %s is listed twice",
				    o->name, o->allowed[idx]);
				bad = -1;
			} else
				names.name[names.n++] = o->allowed[idx];
			continue;
		}
		for (j = 0; j < guids.n; j++)
			if (guids.guid[j] == g)
				break;
		if (j < guids.n) {
			ERR(ck, &items[i], "%s: 0x%016" PRIx64 " is listed twice",
			    o->name, g);
			bad = -1;
		} else
			guids.guid[guids.n++] = g;
	}
	if (bad < 0) {
		free(guids.guid);
		return -1;
	}
	if (o->type == CFG_ENUM_LIST)
		*(struct cfg_name_list *)f = names;
	else {
		guid_list_free(f);
		*(struct cfg_guid_list *)f = guids;
	}
	return 0;
}

/* Check v against o and store it in cfg; 0, or -1 with errors added. */
static int
check_value(struct check *ck, const struct cfg_option *o, struct value *v,
    struct ibsmd_config *cfg)
{
	switch (o->type) {
	case CFG_ENUM_LIST:
	case CFG_GUID_LIST:
	case CFG_GUIDS_OR_ALL:
		return check_list(ck, o, v, field(cfg, o));
	default:
		return check_scalar(ck, o, &v->head, field(cfg, o));
	}
}

/* ------------------------------------------------------------------ */
/* Whole configurations */

static void
free_field(struct ibsmd_config *cfg, const struct cfg_option *o)
{
	void *f = field(cfg, o);

	switch (o->type) {
	case CFG_STRING:
	case CFG_PATH:
		free(*(char **)f);
		*(char **)f = NULL;
		break;
	case CFG_GUID_LIST:
	case CFG_GUIDS_OR_ALL:
		guid_list_free(f);
		break;
	default:
		break;
	}
}

/* dst's field (freed before) becomes a deep copy of src's. */
static void
copy_field(struct ibsmd_config *dst, const struct ibsmd_config *src,
    const struct cfg_option *o)
{
	const struct cfg_guid_list *sl;
	struct cfg_guid_list *dl;
	void *df = field(dst, o);
	const void *sf = field(src, o);

	switch (o->type) {
	case CFG_BOOL:
		*(bool *)df = *(const bool *)sf;
		break;
	case CFG_UINT:
	case CFG_ENUM:
		put_enum(df, get_enum(sf));
		break;
	case CFG_DOUBLE:
		*(double *)df = *(const double *)sf;
		break;
	case CFG_GUID:
		*(uint64_t *)df = *(const uint64_t *)sf;
		break;
	case CFG_STRING:
	case CFG_PATH:
		*(char **)df = xstrdup(*(char *const *)sf);
		break;
	case CFG_ENUM_LIST:
		*(struct cfg_name_list *)df = *(const struct cfg_name_list *)sf;
		break;
	case CFG_GUID_LIST:
	case CFG_GUIDS_OR_ALL:
		sl = sf;
		dl = df;
		*dl = *sl;
		dl->guid = NULL;
		if (sl->n) {
			dl->guid = xcalloc(sl->n, sizeof(uint64_t));
			memcpy(dl->guid, sl->guid, sl->n * sizeof(uint64_t));
		}
		break;
	}
	dst->source[o - schema] = src->source[o - schema];
	dst->line[o - schema] = src->line[o - schema];
}

void
config_copy(struct ibsmd_config *dst, const struct ibsmd_config *src)
{
	memset(dst, 0, sizeof(*dst));
	for (size_t i = 0; i < CFG_NOPTIONS; i++)
		copy_field(dst, src, &schema[i]);
	for (size_t s = 0; s < CFG_NSOURCES; s++)
		dst->path[s] = xstrdup(src->path[s]);
}

void
config_fini(struct ibsmd_config *cfg)
{
	for (size_t i = 0; i < CFG_NOPTIONS; i++)
		free_field(cfg, &schema[i]);
	for (size_t s = 0; s < CFG_NSOURCES; s++) {
		free(cfg->path[s]);
		cfg->path[s] = NULL;
	}
}

bool
config_equal(const struct ibsmd_config *a, const struct ibsmd_config *b,
    const struct cfg_option *o)
{
	const void *fa = field(a, o), *fb = field(b, o);
	const struct cfg_name_list *na = fa, *nb = fb;
	const struct cfg_guid_list *ga = fa, *gb = fb;

	switch (o->type) {
	case CFG_BOOL:
		return *(const bool *)fa == *(const bool *)fb;
	case CFG_UINT:
	case CFG_ENUM:
		return get_enum(fa) == get_enum(fb);
	case CFG_DOUBLE:
		return *(const double *)fa == *(const double *)fb;
	case CFG_GUID:
		return *(const uint64_t *)fa == *(const uint64_t *)fb;
	case CFG_STRING:
	case CFG_PATH:
		return strcmp(*(char *const *)fa, *(char *const *)fb) == 0;
	case CFG_ENUM_LIST:
		return na->n == nb->n &&
		    memcmp(na->name, nb->name, na->n * sizeof(char *)) == 0;
	case CFG_GUID_LIST:
	case CFG_GUIDS_OR_ALL:
		return ga->all == gb->all && ga->n == gb->n && (ga->n == 0 ||
		    memcmp(ga->guid, gb->guid, ga->n * sizeof(uint64_t)) == 0);
	}
	return false;
}

/* ------------------------------------------------------------------ */
/* The YAML loader */

struct loader {
	yaml_parser_t parser;
	struct check ck;
	const char *text;
	size_t len;
	struct ibsmd_config *cfg;	/* the scratch copy */
	enum cfg_source source;
	unsigned seen[CFG_NOPTIONS];	/* line where this file set it */
};

/* Line and column (1-based, in characters) of byte offset off. */
static void
offset_pos(const char *text, size_t len, size_t off, unsigned *line,
    unsigned *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off && i < len; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else if (((unsigned char)text[i] & 0xc0) != 0x80)
			(*col)++;
	}
}

/* The byte at line:col (1-based, columns in characters), or -1. */
static int
char_at(const char *text, size_t len, unsigned line, unsigned col)
{
	size_t i = 0;

	for (unsigned l = 1; l < line; l++) {
		const char *nl = memchr(text + i, '\n', len - i);

		if (nl == NULL)
			return -1;
		i = (size_t)(nl - text) + 1;
	}
	for (unsigned c = 1; i < len; i++) {
		if (((unsigned char)text[i] & 0xc0) == 0x80)
			continue;
		if (c++ == col)
			return (unsigned char)text[i];
	}
	return -1;
}

/* Offset of the first byte that is not valid UTF-8, or len. */
static size_t
utf8_check(const unsigned char *s, size_t len)
{
	size_t i = 0, n, k;
	uint32_t cp;

	while (i < len) {
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		if (s[i] >= 0xc2 && s[i] <= 0xdf) {
			n = 1;
			cp = s[i] & 0x1f;
		} else if (s[i] >= 0xe0 && s[i] <= 0xef) {
			n = 2;
			cp = s[i] & 0x0f;
		} else if (s[i] >= 0xf0 && s[i] <= 0xf4) {
			n = 3;
			cp = s[i] & 0x07;
		} else
			return i;
		if (i + n >= len)
			return i;
		for (k = 1; k <= n; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return i;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
		    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return i;
		i += n + 1;
	}
	return len;
}

static void
syntax_error(struct loader *ld)
{
	yaml_parser_t *p = &ld->parser;
	unsigned line, col;
	char ctx[160] = "";
	int c;

	if (p->error == YAML_MEMORY_ERROR)
		fatalx("config: out of memory");
	if (p->error == YAML_READER_ERROR) {
		offset_pos(ld->text, ld->len, p->problem_offset, &line, &col);
		if (p->problem_value != -1)
			err_at(&ld->ck, line, col, "%s (0x%02x)", p->problem,
			    (unsigned)p->problem_value);
		else
			err_at(&ld->ck, line, col, "%s", p->problem);
		ld->ck.stop = true;
		return;
	}
	line = (unsigned)p->problem_mark.line + 1;
	col = (unsigned)p->problem_mark.column + 1;
	if (p->context != NULL)
		snprintf(ctx, sizeof(ctx), " (%s at %zu:%zu)", p->context,
		    p->context_mark.line + 1, p->context_mark.column + 1);
	c = char_at(ld->text, ld->len, line, col);
	err_at(&ld->ck, line, col, "YAML syntax: %s%s%s", p->problem, ctx,
	    c == '\t' && !strstr(p->problem, "tab") ?
	    "; a tab: indent with spaces" : "");
	ld->ck.stop = true;
}

/* The next event; -1 (error reported, loading stops) on a syntax error. */
static int
next_event(struct loader *ld, yaml_event_t *ev)
{
	if (ld->ck.stop)
		return -1;
	if (!yaml_parser_parse(&ld->parser, ev)) {
		syntax_error(ld);
		return -1;
	}
	return 0;
}

static void
set_mark(struct node *nd, const yaml_event_t *ev)
{
	nd->line = (unsigned)ev->start_mark.line + 1;
	nd->col = (unsigned)ev->start_mark.column + 1;
}

/* Read the events of a collection whose start was just read. */
static int
skip_collection(struct loader *ld)
{
	yaml_event_t ev;
	int depth = 1;

	while (depth > 0) {
		if (next_event(ld, &ev) < 0)
			return -1;
		if (ev.type == YAML_SEQUENCE_START_EVENT ||
		    ev.type == YAML_MAPPING_START_EVENT)
			depth++;
		else if (ev.type == YAML_SEQUENCE_END_EVENT ||
		    ev.type == YAML_MAPPING_END_EVENT)
			depth--;
		yaml_event_delete(&ev);
	}
	return 0;
}

/* A node from its first event; collections are skipped to their end. */
static int
read_node(struct loader *ld, yaml_event_t *ev, struct node *nd)
{
	set_mark(nd, ev);
	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		nd->kind = NODE_SCALAR;
		nd->text = xstrndup((const char *)ev->data.scalar.value,
		    ev->data.scalar.length);
		nd->len = ev->data.scalar.length;
		nd->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
		return 0;
	case YAML_ALIAS_EVENT:
		nd->kind = NODE_ALIAS;
		nd->text = xstrdup((const char *)ev->data.alias.anchor);
		nd->len = strlen(nd->text);
		return 0;
	case YAML_SEQUENCE_START_EVENT:
		nd->kind = NODE_LIST;
		return skip_collection(ld);
	case YAML_MAPPING_START_EVENT:
		nd->kind = NODE_MAP;
		return skip_collection(ld);
	default:
		abort();	/* libyaml gives only nodes here */
	}
}

/* The value of an option: a node, and the entries of a list. */
static int
read_value(struct loader *ld, struct value *v)
{
	yaml_event_t ev;
	int r = 0;

	if (next_event(ld, &ev) < 0)
		return -1;
	if (ev.type != YAML_SEQUENCE_START_EVENT) {
		r = read_node(ld, &ev, &v->head);
		yaml_event_delete(&ev);
		return r;
	}
	v->head.kind = NODE_LIST;
	set_mark(&v->head, &ev);
	yaml_event_delete(&ev);
	for (;;) {
		if (next_event(ld, &ev) < 0)
			return -1;
		if (ev.type == YAML_SEQUENCE_END_EVENT)
			break;
		r = read_node(ld, &ev, value_push(v));
		yaml_event_delete(&ev);
		if (r < 0)
			return -1;
	}
	yaml_event_delete(&ev);
	return 0;
}

static void
load_option(struct loader *ld, const struct node *key, struct value *v)
{
	const struct cfg_option *o = config_option(key->text);
	const char *near;
	char got[160];
	size_t id;

	if (o == NULL) {
		show(key->text, key->len, got, sizeof(got));
		near = config_nearest(key->text);
		if (near != NULL)
			ERR(&ld->ck, key, "unknown option %s (did you mean %s?)",
			    got, near);
		else
			ERR(&ld->ck, key, "unknown option %s", got);
		return;
	}
	id = (size_t)(o - schema);
	if (ld->source == CFG_INSTANCE_FILE && (o->flags & CFG_F_NOT_INSTANCE)) {
		ERR(&ld->ck, key, "%s: not allowed in a per-instance file "
		    "(only in the common file)", o->name);
		return;
	}
	if (ld->seen[id]) {
		ERR(&ld->ck, key, "%s: set twice (first on line %u)", o->name,
		    ld->seen[id]);
		return;
	}
	ld->seen[id] = key->line;
	if (check_value(&ld->ck, o, v, ld->cfg) == 0) {
		ld->cfg->source[id] = ld->source;
		ld->cfg->line[id] = ld->source == CFG_DEFAULT ? 0 : key->line;
	}
}

static void
load_mapping(struct loader *ld)
{
	yaml_event_t ev;
	struct node key;
	struct value v;

	for (;;) {
		if (next_event(ld, &ev) < 0)
			return;
		if (ev.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&ev);
			return;
		}
		memset(&key, 0, sizeof(key));
		memset(&v, 0, sizeof(v));
		if (read_node(ld, &ev, &key) < 0) {
			yaml_event_delete(&ev);
			return;
		}
		yaml_event_delete(&ev);
		if (read_value(ld, &v) < 0) {
			free(key.text);
			value_free(&v);
			return;
		}
		if (key.kind != NODE_SCALAR || node_null(&key))
			ERR(&ld->ck, &key, "expected an option name, got %s",
			    key.kind == NODE_SCALAR ? "nothing" :
			    kind_name(key.kind));
		else
			load_option(ld, &key, &v);
		free(key.text);
		value_free(&v);
	}
}

/* The document: one mapping of option: value (or nothing at all). */
static void
load_document(struct loader *ld)
{
	yaml_event_t ev;
	struct node nd = { 0 };

	if (next_event(ld, &ev) < 0)
		return;
	if (ev.type == YAML_MAPPING_START_EVENT) {
		yaml_event_delete(&ev);
		load_mapping(ld);
		return;
	}
	if (read_node(ld, &ev, &nd) == 0 && !node_null(&nd)) {
		char got[160];

		if (nd.kind == NODE_SCALAR)
			show(nd.text, nd.len, got, sizeof(got));
		ERR(&ld->ck, &nd, "expected option: value lines, got %s",
		    nd.kind == NODE_SCALAR ? got : kind_name(nd.kind));
	}
	free(nd.text);
	yaml_event_delete(&ev);
}

static void
load_stream(struct loader *ld)
{
	yaml_event_t ev;
	int docs = 0;

	if (next_event(ld, &ev) < 0)	/* stream start */
		return;
	yaml_event_delete(&ev);
	for (;;) {
		if (next_event(ld, &ev) < 0)
			return;
		if (ev.type == YAML_STREAM_END_EVENT) {
			yaml_event_delete(&ev);
			return;
		}
		if (docs++ > 0) {	/* a second document start */
			err_at(&ld->ck, (unsigned)ev.start_mark.line + 1,
			    (unsigned)ev.start_mark.column + 1,
			    "a second YAML document: a file holds only one");
			yaml_event_delete(&ev);
			return;
		}
		yaml_event_delete(&ev);
		load_document(ld);
		if (next_event(ld, &ev) < 0)	/* document end */
			return;
		yaml_event_delete(&ev);
	}
}

/* Parse text over a copy of cfg; on success the copy replaces cfg. */
static int
load(struct ibsmd_config *cfg, const char *name, const char *text,
    size_t len, enum cfg_source source, struct config_errors *errs)
{
	struct loader ld = { .ck = { .errs = errs, .name = name },
	    .text = text, .len = len, .source = source };
	struct ibsmd_config scratch;
	size_t bad = utf8_check((const unsigned char *)text, len);
	unsigned line, col;

	if (bad < len) {
		offset_pos(text, len, bad, &line, &col);
		err_at(&ld.ck, line, col, "invalid UTF-8 (byte 0x%02x): the "
		    "file must be UTF-8", (unsigned char)text[bad]);
		return CONFIG_INVALID;
	}
	config_copy(&scratch, cfg);
	ld.cfg = &scratch;
	if (!yaml_parser_initialize(&ld.parser))
		fatalx("config: out of memory");
	yaml_parser_set_input_string(&ld.parser, (const unsigned char *)text,
	    len);
	load_stream(&ld);
	yaml_parser_delete(&ld.parser);
	if (ld.ck.nerr > 0 || ld.ck.stop) {
		config_fini(&scratch);
		return CONFIG_INVALID;
	}
	if (source != CFG_DEFAULT) {
		free(scratch.path[source]);
		scratch.path[source] = xstrdup(name);
	}
	config_fini(cfg);
	*cfg = scratch;
	return CONFIG_OK;
}

int
config_load_buffer(struct ibsmd_config *cfg, const char *name,
    const char *text, size_t len, enum cfg_source source,
    struct config_errors *errs)
{
	return load(cfg, name, text, len, source, errs);
}

int
config_load(struct ibsmd_config *cfg, const char *path,
    enum cfg_source source, struct config_errors *errs)
{
	struct stat st;
	size_t got = 0, cap = 4096;
	char *text;
	ssize_t n;
	int fd, r;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return CONFIG_MISSING;
	if (fd < 0 || fstat(fd, &st) < 0) {
		errs_add(errs, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return CONFIG_INVALID;
	}
	if (S_ISDIR(st.st_mode)) {
		errs_add(errs, "%s: %s", path, strerror(EISDIR));
		close(fd);
		return CONFIG_INVALID;
	}
	/* Not only regular files: -c /dev/null is an empty configuration. */
	text = xcalloc(cap, 1);
	for (;;) {
		if (got == cap) {
			if (cap >= MAX_FILE_SIZE) {
				errs_add(errs, "%s: too large (1 MiB at most)",
				    path);
				free(text);
				close(fd);
				return CONFIG_INVALID;
			}
			cap *= 2;
			if ((text = realloc(text, cap)) == NULL)
				fatal("config");
		}
		n = read(fd, text + got, cap - got);
		if (n == 0)
			break;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			errs_add(errs, "%s: %s", path, strerror(errno));
			free(text);
			close(fd);
			return CONFIG_INVALID;
		}
		got += (size_t)n;
	}
	close(fd);
	r = load(cfg, path, text, got, source, errs);
	free(text);
	return r;
}

/* ------------------------------------------------------------------ */
/* Defaults and the command line */

void
config_init(struct ibsmd_config *cfg)
{
	struct config_errors errs = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *fp;

	/* The defaults go through the loader, so they are checked by the
	 * same rules as a file. */
	memset(cfg, 0, sizeof(*cfg));
	fp = open_memstream(&text, &len);
	if (fp == NULL)
		fatal("config");
	for (size_t i = 0; i < CFG_NOPTIONS; i++)
		fprintf(fp, "%s: %s\n", schema[i].name, schema[i].def);
	if (fclose(fp) != 0)
		fatal("config");
	if (load(cfg, "defaults", text, len, CFG_DEFAULT, &errs) != CONFIG_OK)
		fatalx("config: bad built-in default: %s", errs.line[0]);
	free(text);
}

int
config_set(struct ibsmd_config *cfg, const char *name, const char *value,
    enum cfg_source source, struct config_errors *errs)
{
	const struct cfg_option *o = config_option(name);
	struct check ck = { .errs = errs };
	struct ibsmd_config scratch;
	struct value v = { 0 };
	const char *p, *near;
	char got[160];
	size_t id, len;
	int r;

	if (o == NULL) {
		show(name, strlen(name), got, sizeof(got));
		near = config_nearest(name);
		if (near != NULL)
			err_at(&ck, 0, 0, "unknown option %s (did you mean %s?)",
			    got, near);
		else
			err_at(&ck, 0, 0, "unknown option %s", got);
		return CONFIG_INVALID;
	}
	id = (size_t)(o - schema);
	/* No quotes on a command line: text is literal for strings, and
	 * "null" is a name there, not YAML's null. */
	v.head.kind = NODE_SCALAR;
	v.head.plain = o->type != CFG_STRING && o->type != CFG_PATH;
	if (o->type == CFG_ENUM_LIST || o->type == CFG_GUID_LIST ||
	    (o->type == CFG_GUIDS_OR_ALL && strcmp(value, "all") != 0)) {
		/* "a,b", "a b" or "[a, b]"; "" is the empty list. */
		v.head.kind = NODE_LIST;
		p = value + (*value == '[');
		len = strlen(p);
		if (*value == '[' && len > 0 && p[len - 1] == ']')
			len--;
		while (len > 0) {
			size_t w = strcspn(p, ", \t");

			if (w > len)
				w = len;
			if (w > 0) {
				struct node *nd = value_push(&v);

				nd->kind = NODE_SCALAR;
				nd->plain = true;
				nd->text = xstrndup(p, w);
				nd->len = w;
			}
			if (w < len)
				w++;
			p += w;
			len -= w;
		}
	} else {
		v.head.text = xstrdup(value);
		v.head.len = strlen(value);
	}
	config_copy(&scratch, cfg);
	r = check_value(&ck, o, &v, &scratch);
	value_free(&v);
	if (r < 0) {
		config_fini(&scratch);
		return CONFIG_INVALID;
	}
	scratch.source[id] = source;
	scratch.line[id] = 0;
	config_fini(cfg);
	*cfg = scratch;
	return CONFIG_OK;
}

/* ------------------------------------------------------------------ */
/* Printing */

/* A string as YAML: plain when that reads back the same, else quoted. */
static int
yaml_string(const char *s, char *buf, size_t len)
{
	static const char indicators[] = "-?:,[]{}#&*!|>'\"%@`";
	bool quote = *s == '\0' || strchr(indicators, *s) || *s == ' ' ||
	    s[strlen(s) - 1] == ' ' || strstr(s, ": ") || strstr(s, " #") ||
	    !strcmp(s, "~") || !strcasecmp(s, "null") ||
	    s[strlen(s) - 1] == ':';
	size_t o = 0;

	for (const char *p = s; *p && !quote; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			quote = true;
	if (!quote)
		return snprintf(buf, len, "%s", s);
	if (len < 3)
		return 0;
	buf[o++] = '"';
	for (; *s && o + 6 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			o += (size_t)snprintf(buf + o, len - o, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			o += (size_t)snprintf(buf + o, len - o, "\\x%02x", c);
		else
			buf[o++] = (char)c;
	}
	buf[o++] = '"';
	buf[o] = '\0';
	return (int)o;
}

int
config_value_text(const struct ibsmd_config *cfg,
    const struct cfg_option *o, char *buf, size_t len)
{
	const void *f = field(cfg, o);
	const struct cfg_name_list *nl = f;
	const struct cfg_guid_list *gl = f;
	size_t off = 0, i;

	switch (o->type) {
	case CFG_BOOL:
		return snprintf(buf, len, "%s", *(const bool *)f ? "true" :
		    "false");
	case CFG_UINT:
		return snprintf(buf, len, "%u", get_enum(f));
	case CFG_DOUBLE:
		return format_double(*(const double *)f, buf, len);
	case CFG_GUID:
		return snprintf(buf, len, "0x%016" PRIx64, *(const uint64_t *)f);
	case CFG_STRING:
	case CFG_PATH:
		return yaml_string(*(char *const *)f, buf, len);
	case CFG_ENUM:
		return snprintf(buf, len, "%s", o->allowed[get_enum(f)]);
	case CFG_ENUM_LIST:
		off += (size_t)snprintf(buf, len, "[");
		for (i = 0; i < nl->n && off < len; i++)
			off += (size_t)snprintf(buf + off, len - off, "%s%s",
			    i ? ", " : "", nl->name[i]);
		if (off < len)
			off += (size_t)snprintf(buf + off, len - off, "]");
		return (int)off;
	case CFG_GUID_LIST:
	case CFG_GUIDS_OR_ALL:
		if (gl->all)
			return snprintf(buf, len, "all");
		off += (size_t)snprintf(buf, len, "[");
		for (i = 0; i < gl->n && off < len; i++)
			off += (size_t)snprintf(buf + off, len - off,
			    "%s0x%016" PRIx64, i ? ", " : "", gl->guid[i]);
		if (off < len)
			off += (size_t)snprintf(buf + off, len - off, "]");
		return (int)off;
	}
	return 0;
}

void
config_print(const struct ibsmd_config *cfg, FILE *fp)
{
	size_t vlen = 64 + MAX_GUIDS * 20;
	char *val = xcalloc(vlen, 1);
	int n;

	for (size_t s = CFG_COMMON_FILE; s < CFG_CMDLINE; s++)
		if (cfg->path[s] != NULL)
			fprintf(fp, "# %s: %s\n", source_names[s], cfg->path[s]);
	for (size_t i = 0; i < CFG_NOPTIONS; i++) {
		config_value_text(cfg, &schema[i], val, vlen);
		n = fprintf(fp, "%s: %s", schema[i].name, val);
		fprintf(fp, "%*s# %s", n < PRINT_WIDTH - 2 ? PRINT_WIDTH - n : 2,
		    "", source_names[cfg->source[i]]);
		if (cfg->line[i])
			fprintf(fp, ", line %u", cfg->line[i]);
		fputc('\n', fp);
	}
	free(val);
}

/* ------------------------------------------------------------------ */
/* Reload */

size_t
config_reload_diff(const struct ibsmd_config *cur,
    const struct ibsmd_config *next, config_diff_cb cb, void *arg)
{
	size_t n = 0;

	for (size_t i = 0; i < CFG_NOPTIONS; i++)
		if (!config_equal(cur, next, &schema[i])) {
			n++;
			if (cb != NULL)
				cb(arg, &schema[i], cur, next);
		}
	return n;
}

void
config_apply_reloadable(struct ibsmd_config *cur,
    const struct ibsmd_config *next)
{
	for (size_t i = 0; i < CFG_NOPTIONS; i++)
		if (schema[i].reloadable) {
			free_field(cur, &schema[i]);
			copy_field(cur, next, &schema[i]);
		}
	for (size_t s = 0; s < CFG_NSOURCES; s++) {
		free(cur->path[s]);
		cur->path[s] = xstrdup(next->path[s]);
	}
}

/* ------------------------------------------------------------------ */
/* Schema queries */

const struct cfg_option *
config_schema(size_t *n)
{
	*n = CFG_NOPTIONS;
	return schema;
}

const struct cfg_option *
config_option(const char *name)
{
	for (size_t i = 0; i < CFG_NOPTIONS; i++)
		if (strcmp(schema[i].name, name) == 0)
			return &schema[i];
	return NULL;
}

/* Case and - vs _ do not count as differences. */
static char
fold(char c)
{
	return c == '-' ? '_' : (c >= 'A' && c <= 'Z') ? (char)(c | 0x20) : c;
}

/* Edit distance with adjacent transpositions (optimal string alignment). */
static size_t
distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, best;
	size_t *d, r;

	if (la > 64 || lb > 64)
		return SIZE_MAX;
	d = xcalloc((la + 1) * (lb + 1), sizeof(*d));
#define D(x, y) d[(x) * (lb + 1) + (y)]
	for (i = 0; i <= la; i++)
		D(i, 0) = i;
	for (j = 0; j <= lb; j++)
		D(0, j) = j;
	for (i = 1; i <= la; i++)
		for (j = 1; j <= lb; j++) {
			size_t cost = fold(a[i - 1]) != fold(b[j - 1]);

			best = D(i - 1, j) + 1;
			if (D(i, j - 1) + 1 < best)
				best = D(i, j - 1) + 1;
			if (D(i - 1, j - 1) + cost < best)
				best = D(i - 1, j - 1) + cost;
			if (i > 1 && j > 1 && fold(a[i - 1]) == fold(b[j - 2]) &&
			    fold(a[i - 2]) == fold(b[j - 1]) &&
			    D(i - 2, j - 2) + 1 < best)
				best = D(i - 2, j - 2) + 1;
			D(i, j) = best;
		}
	r = D(la, lb);
#undef D
	free(d);
	return r;
}

/* needle (folded) occurs in hay. */
static bool
folded_in(const char *needle, const char *hay)
{
	size_t ln = strlen(needle), lh = strlen(hay), i, j;

	for (i = 0; i + ln <= lh; i++) {
		for (j = 0; j < ln && fold(needle[j]) == fold(hay[i + j]); j++)
			;
		if (j == ln)
			return true;
	}
	return false;
}

const char *
config_nearest(const char *name)
{
	size_t len = strlen(name), best = SIZE_MAX, d, limit;
	const char *pick = NULL;

	/* A typo: at most 1 edit in short names, 2 or 3 in longer ones. */
	limit = len <= 4 ? 1 : len <= 8 ? 2 : 3;
	for (size_t i = 0; i < CFG_NOPTIONS; i++) {
		d = distance(name, schema[i].name);
		if (d <= limit && d < best) {
			best = d;
			pick = schema[i].name;
		}
	}
	if (pick != NULL || len < 4)
		return pick;
	/* Part of a name ("priority"), or a name with more around it. */
	for (size_t i = 0; i < CFG_NOPTIONS; i++) {
		if (!folded_in(name, schema[i].name) &&
		    !folded_in(schema[i].name, name))
			continue;
		d = distance(name, schema[i].name);
		if (d < best) {
			best = d;
			pick = schema[i].name;
		}
	}
	return pick;
}

int
config_option_summary(const struct cfg_option *o, char *buf, size_t len)
{
	char type[160], lo[32], hi[32], list[128];

	switch (o->type) {
	case CFG_BOOL:
		snprintf(type, sizeof(type), "boolean");
		break;
	case CFG_UINT:
	case CFG_DOUBLE:
		format_double(o->min, lo, sizeof(lo));
		format_double(o->max, hi, sizeof(hi));
		if (o->min == o->max)
			snprintf(type, sizeof(type), "%s, only %s",
			    o->type == CFG_UINT ? "integer" : "number", lo);
		else
			snprintf(type, sizeof(type), "%s, %s to %s%s%s",
			    o->type == CFG_UINT ? "integer" : "number", lo, hi,
			    o->unit ? " " : "", o->unit ? o->unit : "");
		break;
	case CFG_GUID:
		snprintf(type, sizeof(type), "%s", o->unit ? o->unit : "GUID");
		break;
	case CFG_STRING:
		snprintf(type, sizeof(type), "string");
		break;
	case CFG_PATH:
		snprintf(type, sizeof(type), "path");
		break;
	case CFG_ENUM:
		join_allowed(o->allowed, list, sizeof(list));
		snprintf(type, sizeof(type), "one of %s", list);
		break;
	case CFG_ENUM_LIST:
		join_allowed(o->allowed, list, sizeof(list));
		snprintf(type, sizeof(type), "list of %s", list);
		break;
	case CFG_GUID_LIST:
		snprintf(type, sizeof(type), "list of GUIDs");
		break;
	case CFG_GUIDS_OR_ALL:
		snprintf(type, sizeof(type), "all, or a list of GUIDs");
		break;
	}
	return snprintf(buf, len, "%s; default: %s; %s", type, o->def,
	    o->reloadable ? "reloadable" : "restart to change");
}

const char *
config_source_name(enum cfg_source source)
{
	return (unsigned)source < CFG_NSOURCES ? source_names[source] : "?";
}

int
config_expand(const char *tmpl, uint64_t guid, char *buf, size_t len)
{
	const char *p = strstr(tmpl, CONFIG_GUID_PLACEHOLDER);
	int n;

	if (p == NULL)
		n = snprintf(buf, len, "%s", tmpl);
	else
		n = snprintf(buf, len, "%.*s0x%016" PRIx64 "%s",
		    (int)(p - tmpl), tmpl, guid,
		    p + strlen(CONFIG_GUID_PLACEHOLDER));
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int
config_instance_path(uint64_t guid, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/ibsmd.0x%016" PRIx64 ".conf",
	    IBSMD_SYSCONFDIR, guid);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}
