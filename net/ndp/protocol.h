/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NDP: private declarations shared by the files of ndp.ko.
 */
#ifndef _NDP_PROTOCOL_H
#define _NDP_PROTOCOL_H

#include <linux/types.h>
#include <net/inet_sock.h>
#include <net/ipv6.h>
#include <net/netns/generic.h>
#include <net/ndp_wire.h>
#include <net/ndp_compat.h>

#include "mib.h"

/* IP protocol number in use (module parameter "ipproto"). */
extern unsigned int ndp_ipproto;

/**
 * struct ndp_net - per-network-namespace state of ndp.ko
 * @ctl_table_hdr: registered net.ndp sysctl table.
 * @init_window: packets pushed before the first pull (net.ndp.init_window).
 * @rto_min_us: retransmission timeout floor, microseconds.
 * @rto_max_us: retransmission timeout ceiling (backoff cap), microseconds.
 * @link_rate_mbps: pull pacing rate when the device reports none; 0 = use
 *	the device's ethtool speed, falling back to 10000.
 * @pull_pacing_pct: fraction of the link rate pulls aim at, percent.
 * @time_wait_ms: lifetime of time-wait state at both ends.
 * @max_embryonic: connections created by first windows and not yet
 *	accepted, per namespace.
 * @mib: per-cpu event counters.
 */
struct ndp_net {
	struct ctl_table_header	*ctl_table_hdr;
	u32			init_window;
	u32			rto_min_us;
	u32			rto_max_us;
	u32			link_rate_mbps;
	u32			pull_pacing_pct;
	u32			time_wait_ms;
	u32			max_embryonic;
	struct ndp_mib __percpu	*mib;
};

extern unsigned int ndp_net_id;

static inline struct ndp_net *ndp_pernet(const struct net *net)
{
	return net_generic(net, ndp_net_id);
}

#define NDP_INC_STATS(net, field) \
	SNMP_INC_STATS(ndp_pernet(net)->mib, field)
#define NDP_ADD_STATS(net, field, val) \
	SNMP_ADD_STATS(ndp_pernet(net)->mib, field, val)

/**
 * struct ndp_sock - an NDP socket
 * @inet: inet_sock base; must be first.
 */
struct ndp_sock {
	struct inet_sock	inet;
};

/* ipv6_pinfo must be last: 6.1 finds it from the end of the object. */
struct ndp6_sock {
	struct ndp_sock		ndp;
	struct ipv6_pinfo	inet6;
};

static inline struct ndp_sock *ndp_sk(const struct sock *sk)
{
	return (struct ndp_sock *)sk;
}

/* ctrl.c */
int ndp_ctrl_net_init(struct net *net, struct ndp_net *nn);
void ndp_ctrl_net_exit(struct net *net, struct ndp_net *nn);

/* proc.c */
int ndp_proc_net_init(struct net *net);
void ndp_proc_net_exit(struct net *net);

#endif /* _NDP_PROTOCOL_H */
