/*
 * The daemon's configuration: built from its layers (built-in defaults <
 * DIR/ibsmd.conf < DIR/ibsmd.<port-guid>.conf, or only -c FILE < the
 * command line), the partition policy and the node name map it names, the
 * modules' options taken from it; and the reload (SIGHUP, ibsmctl reload)
 * that re-reads all of it and applies all of it or nothing. main.c loads
 * with the same functions at start.
 */
#ifndef IBSMD_SM_RELOAD_H
#define IBSMD_SM_RELOAD_H

#include <stdbool.h>
#include <stdint.h>

struct config_errors;
struct daemon;
struct ibsmd_config;
struct mad_opts;
struct node_names;
struct pkey_errors;
struct pkey_policy;
struct qos_policy;
struct smstate_opts;
struct sweep_opts;

/* Defaults, then the files, then the command line d keeps, into out. guid
 * names the per-instance file (0: none). 0, or -1 with every mistake in
 * errs. */
int reload_config_build(const struct daemon *d, uint64_t guid,
    struct ibsmd_config *out, struct config_errors *errs);
/* The partition policy named by cfg: a missing file means the default
 * partition only (*missing set). NULL with errs filled when the file has
 * mistakes, or with "file: reason" in ce when it cannot be read (not a
 * regular file, too large: config_read_file never blocks). What the
 * parser noticed in a valid file is logged. */
struct pkey_policy *reload_policy_load(const struct ibsmd_config *cfg,
    struct pkey_errors *errs, bool *missing, struct config_errors *ce);
/* The QoS policy (issue 27 point 2) cfg names, checked against the
 * partitions parts: *out NULL when qos is off or the file is missing
 * (*missing set). 0, or -1 with every mistake in errs (or why it cannot
 * be read in ce). Warnings and notes of a valid file are logged. */
int reload_qos_load(const struct ibsmd_config *cfg,
    const struct pkey_policy *parts, struct qos_policy **out,
    struct pkey_errors *errs, bool *missing, struct config_errors *ce);
/* The node name map cfg names (*out NULL when none is): 0, or -1 with
 * every mistake, or why it cannot be read, in ce. */
int reload_names_load(const struct ibsmd_config *cfg,
    struct node_names **out, struct config_errors *ce);
/* cfg's routing engines into so's chain: NULL, or the first name that is
 * not built in. */
const char *reload_engines(const struct ibsmd_config *cfg,
    struct sweep_opts *so);

/* The modules' options from the running configuration and policy. */
void reload_sweep_opts(struct daemon *d, struct sweep_opts *so);
/* issue 27: the qos options of c as core/qos takes them. */
struct qos_config;
void reload_qos_config(const struct ibsmd_config *c, struct qos_config *qc);
void reload_smstate_opts(const struct ibsmd_config *c,
    struct smstate_opts *o);
void reload_mad_opts(const struct ibsmd_config *c, struct mad_opts *mo);

/* Re-read configuration and partitions (arg: the daemon); apply all of it
 * or nothing. 0, or -1 with the errors logged and, when errors is not
 * NULL, in *errors (malloc'd, one error per line): ctl_deps' reload. */
int reload_run(void *arg, char **errors);

#endif
