/*
 * Prometheus' GET /metrics (ibsmd.conf metrics_listen), served from the
 * loop by libmicrohttpd in its external epoll mode: its epoll descriptor
 * is watched by an ev_io and its timeouts by an ev_timer, so no thread and
 * no request can stall the loop (a slow or silent client is dropped after
 * METRICS_CONN_TIMEOUT s; at most METRICS_CONN_LIMIT connections). Each
 * answer is rendered whole, at once, from the daemon's state at that
 * moment (the loop's one thread makes it a snapshot).
 *
 * Series: treydock/infiniband_exporter's, from sm/perfmgr's totals
 * (infiniband_{switch,hca}_port_*_total{guid,port}, the data counters in
 * bytes, infiniband_{switch,hca}_info{guid,switch|hca,lid} and
 * infiniband_{switch,hca}_uplink_info), and the SM's own ibsmd_*.
 */
#ifndef IBSMD_METRICS_H
#define IBSMD_METRICS_H

#include <stdio.h>

#define METRICS_CONN_TIMEOUT 10
#define METRICS_CONN_LIMIT 32

struct ctl_deps;
struct ev_loop;
struct metrics;

/* Listen on listen (HOST:PORT, config_hostport()); deps as the control
 * socket's, valid for the life of the server. NULL with a logged reason. */
struct metrics *metrics_open(struct ev_loop *loop, const char *listen,
    const struct ctl_deps *deps);
void metrics_close(struct metrics *m);

/* The body of GET /metrics, in the text exposition format 0.0.4. */
void metrics_render(FILE *fp, const struct ctl_deps *deps);

#endif
