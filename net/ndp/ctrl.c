// SPDX-License-Identifier: GPL-2.0
/*
 * NDP: per-network-namespace knobs (net.ndp.* sysctls) and their defaults.
 *
 * Every namespace, init_net included, registers its own copy of the
 * template, whose .data fields hold offsets into struct ndp_net until
 * they are patched to point at that namespace's values.  Bounds live in
 * the table (extra1/extra2) so that an out-of-range write fails with
 * -EINVAL and leaves the value unchanged.
 * Readers elsewhere use READ_ONCE() on the fields of struct ndp_net.
 */

#define pr_fmt(fmt) "NDP: " fmt

#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/sysctl.h>

#include "protocol.h"

static unsigned int ndp_iw_min = 1, ndp_iw_max = 1024;
static unsigned int ndp_rto_min = 100, ndp_rto_max = 120 * USEC_PER_SEC;
static unsigned int ndp_rate_max = 1000000;	/* 1 Tb/s in Mb/s */
static unsigned int ndp_pct_min = 1, ndp_pct_max = 100;
static unsigned int ndp_tw_max = 600 * MSEC_PER_SEC;
static unsigned int ndp_tw_buckets_max = 1 << 24;
static unsigned int ndp_emb_min = 1, ndp_emb_max = 1 << 20;
static unsigned int ndp_sb_samples_max = 1000000;
static unsigned int ndp_sb_mean_min = 100, ndp_sb_mean_max = 1000;
static unsigned int ndp_sb_decay_max = 60 * MSEC_PER_SEC;
static unsigned int ndp_sb_excl_max = 600 * MSEC_PER_SEC;
static unsigned int ndp_emb_tmo_max = 600 * MSEC_PER_SEC;
static unsigned int ndp_amp_max = 1000;
static unsigned int ndp_orphans_max = 1 << 24;
static unsigned int ndp_orphan_retries_max = 255;
static unsigned int ndp_dscp_max = 63;
static unsigned int ndp_spray_max = NDP_SPRAY_PATHS_MAX;
static unsigned int ndp_quantum_max = NDP_PULL_QUANTUM_MAX;
static unsigned int ndp_ack_delay_max = U16_MAX;
static unsigned int ndp_dasr_idle_max = 600 * MSEC_PER_SEC;
static unsigned int ndp_dasr_peers_max = 1 << 20;
static unsigned int ndp_udp_port_max = 65535;
static unsigned int ndp_token_life_max = 7 * 24 * 3600;

static void ndp_ctrl_set_defaults(struct ndp_net *nn)
{
	nn->init_window = 15;
	/* The timeout comes from RTT samples (rtt.c); these only bound it.
	 * rto_min_us: 1 ms, below which a timer tick (4 ms at HZ=250)
	 * rounds anyway; rto_max_us: 60 s, half of TCP's TCP_RTO_MAX, so a
	 * path of any RTT keeps a timer above it; rto_init_us: 200 ms, TCP's
	 * TCP_RTO_MIN, for a first window to a peer never measured (a
	 * spurious expiry costs one packet, timer.c).
	 */
	nn->rto_min_us = USEC_PER_MSEC;
	nn->rto_max_us = 60 * USEC_PER_SEC;
	nn->rto_init_us = 200 * USEC_PER_MSEC;
	nn->link_rate_mbps = 0;
	nn->pull_pacing_pct = 99;
	/* Half the paper's 8-packet switch port: two quanta meeting there
	 * fit (pull.c, "Quanta").
	 */
	nn->pull_quantum = 4;
	/* Half of rto_min_us: see delack.c. */
	nn->ack_delay_us = 500;
	nn->time_wait_ms = 1000;
	nn->max_tw_buckets = 65536;
	/*
	 * Unproven connections (admit.c; reasons in ndp.rst, "Admission"):
	 * 1024 per namespace bounds the memory first windows can hold
	 * (each at most a window), 128 per listener (and at most its
	 * backlog) is TCP's historical SYN-queue floor; past either,
	 * first windows cost a round trip (challenge), not a refusal.
	 * The timeout is TCP's SYN-RECV lifetime (tcp_synack_retries 5).
	 */
	nn->max_embryonic = 1024;
	nn->max_listen_embryonic = 128;
	nn->embryonic_timeout_ms = 60 * MSEC_PER_SEC;
	/* A token vouches for an address this long (ndp.rst, "Admission"). */
	nn->token_lifetime_s = 3600;
	nn->amp_factor = 3;
	nn->max_orphans = 65536;
	nn->orphan_retries = 8;
	/* Scoreboard: htsim's rule (100 samples, 1.25x mean, 30 %). */
	nn->sb_min_samples = 100;
	nn->sb_nack_mean_pct = 125;
	nn->sb_nack_abs_pct = 30;
	nn->sb_decay_ms = 100;
	nn->sb_exclude_ms = 1000;
	/* DATA is ECT(0): unmarked it costs nothing, and a switch that
	 * cannot trim NDP can still say CE (ndp.rst, "ECN").
	 */
	nn->ecn = 1;
	/* Flow-label paths per IPv6 connection (path.c): enough labels
	 * that ECMP hashing spreads them over the equal-cost paths.
	 */
	nn->spray_paths = 16;
	/* OPF marks every unscheduled packet: all of each first window
	 * (init_window never exceeds ndp_iw_max).
	 */
	nn->detour_mark = ndp_iw_max;
	/* Dart's idle timeout; the table holds this many peers at most. */
	nn->dasr_idle_ms = 2 * MSEC_PER_SEC;
	nn->dasr_max_peers = 4096;
}

/*
 * net.ndp.udp_port: a value in range is taken only if its tunnel sockets
 * open (encap.c); otherwise the write fails with their error (EADDRINUSE,
 * or EOPNOTSUPP where the kernel has no UDP tunnels) and nothing changes.
 */
static int ndp_ctrl_udp_port(NDP_CTL_TABLE *table, int write, void *buffer,
			     size_t *lenp, loff_t *ppos)
{
	struct ndp_net *nn = container_of((u32 *)table->data, struct ndp_net,
					  udp_port);
	struct ctl_table tmp = *table;
	u32 val = READ_ONCE(nn->udp_port);
	int err;

	tmp.data = &val;
	err = proc_douintvec_minmax(&tmp, write, buffer, lenp, ppos);
	if (err || !write)
		return err;
	return ndp_encap_set_port(nn->net, val);
}

/* .data holds the offset into struct ndp_net; fixed up per namespace. */
#define NDP_SYSCTL(_name, _field, _min, _max)				\
	{								\
		.procname	= _name,				\
		.data		= (void *)offsetof(struct ndp_net, _field), \
		.maxlen		= sizeof(u32),				\
		.mode		= 0644,					\
		.proc_handler	= proc_douintvec_minmax,		\
		.extra1		= _min,					\
		.extra2		= _max,					\
	}

static struct ctl_table ndp_sysctl_template[] = {
	NDP_SYSCTL("init_window", init_window, &ndp_iw_min, &ndp_iw_max),
	NDP_SYSCTL("rto_min_us", rto_min_us, &ndp_rto_min, &ndp_rto_max),
	NDP_SYSCTL("rto_max_us", rto_max_us, &ndp_rto_min, &ndp_rto_max),
	NDP_SYSCTL("rto_init_us", rto_init_us, &ndp_rto_min, &ndp_rto_max),
	NDP_SYSCTL("link_rate_mbps", link_rate_mbps, SYSCTL_ZERO, &ndp_rate_max),
	NDP_SYSCTL("pull_pacing_pct", pull_pacing_pct, &ndp_pct_min, &ndp_pct_max),
	NDP_SYSCTL("pull_quantum", pull_quantum, SYSCTL_ONE, &ndp_quantum_max),
	NDP_SYSCTL("ack_delay_us", ack_delay_us, SYSCTL_ZERO, &ndp_ack_delay_max),
	NDP_SYSCTL("time_wait_ms", time_wait_ms, SYSCTL_ZERO, &ndp_tw_max),
	NDP_SYSCTL("max_tw_buckets", max_tw_buckets, SYSCTL_ONE, &ndp_tw_buckets_max),
	NDP_SYSCTL("max_embryonic", max_embryonic, &ndp_emb_min, &ndp_emb_max),
	NDP_SYSCTL("max_listen_embryonic", max_listen_embryonic, &ndp_emb_min, &ndp_emb_max),
	NDP_SYSCTL("embryonic_timeout_ms", embryonic_timeout_ms, SYSCTL_ZERO, &ndp_emb_tmo_max),
	NDP_SYSCTL("token_lifetime_s", token_lifetime_s, SYSCTL_ONE, &ndp_token_life_max),
	NDP_SYSCTL("amp_factor", amp_factor, SYSCTL_ZERO, &ndp_amp_max),
	NDP_SYSCTL("max_orphans", max_orphans, SYSCTL_ZERO, &ndp_orphans_max),
	NDP_SYSCTL("orphan_retries", orphan_retries, SYSCTL_ONE, &ndp_orphan_retries_max),
	NDP_SYSCTL("sb_min_samples", sb_min_samples, SYSCTL_ONE, &ndp_sb_samples_max),
	NDP_SYSCTL("sb_nack_mean_pct", sb_nack_mean_pct, &ndp_sb_mean_min, &ndp_sb_mean_max),
	NDP_SYSCTL("sb_nack_abs_pct", sb_nack_abs_pct, &ndp_pct_min, &ndp_pct_max),
	NDP_SYSCTL("sb_decay_ms", sb_decay_ms, SYSCTL_ZERO, &ndp_sb_decay_max),
	NDP_SYSCTL("sb_exclude_ms", sb_exclude_ms, SYSCTL_ONE, &ndp_sb_excl_max),
	NDP_SYSCTL("ctrl_dscp", ctrl_dscp, SYSCTL_ZERO, &ndp_dscp_max),
	NDP_SYSCTL("trim_dscp_host", trim_dscp_host, SYSCTL_ZERO, &ndp_dscp_max),
	NDP_SYSCTL("trim_dscp_fabric", trim_dscp_fabric, SYSCTL_ZERO, &ndp_dscp_max),
	NDP_SYSCTL("ecn", ecn, SYSCTL_ZERO, SYSCTL_ONE),
	NDP_SYSCTL("spray_paths", spray_paths, SYSCTL_ONE, &ndp_spray_max),
	NDP_SYSCTL("detour_mark", detour_mark, SYSCTL_ZERO, &ndp_iw_max),
	NDP_SYSCTL("dasr_idle_ms", dasr_idle_ms, SYSCTL_ZERO, &ndp_dasr_idle_max),
	NDP_SYSCTL("dasr_max_peers", dasr_max_peers, SYSCTL_ONE, &ndp_dasr_peers_max),
	/* Opens the tunnel sockets: ndp_ctrl_udp_port(). */
	{
		.procname	= "udp_port",
		.data		= (void *)offsetof(struct ndp_net, udp_port),
		.maxlen		= sizeof(u32),
		.mode		= 0644,
		.proc_handler	= ndp_ctrl_udp_port,
		.extra1		= SYSCTL_ZERO,
		.extra2		= &ndp_udp_port_max,
	},
	NDP_SYSCTL("udp_fixed_sport", udp_fixed_sport, SYSCTL_ZERO, SYSCTL_ONE),
	{ }
};

/*
 * Write of a knob by netlink (NDP_CMD_PARAM_SET): through the namespace's
 * own sysctl row and its handler, as a write of the decimal value to
 * /proc/sys/net/ndp/NAME would be, so that the bounds, the store and any
 * side effect (udp_port opens its sockets) have one implementation.
 */
int ndp_ctrl_param_write(struct net *net, const struct ndp_param *p, u32 val)
{
	NDP_CTL_TABLE *t = ndp_pernet(net)->ctl_table_hdr->ctl_table_arg;
	char buf[16];
	loff_t pos = 0;
	size_t len;

	for (; t->procname; t++) {
		if (strcmp(t->procname, p->name))
			continue;
		len = scnprintf(buf, sizeof(buf), "%u", val);
		return t->proc_handler(t, 1, buf, &len, &pos);
	}
	return -ENOENT;
}

/*
 * The knobs as netlink sees them (NDP_CMD_PARAM_*): same names, same
 * bounds, read from the sysctl template so the two cannot disagree.
 */
bool ndp_ctrl_param(unsigned int i, struct ndp_param *p)
{
	const struct ctl_table *t;

	if (i >= ARRAY_SIZE(ndp_sysctl_template) - 1)
		return false;
	t = &ndp_sysctl_template[i];
	p->name = t->procname;
	p->offset = (uintptr_t)t->data;
	p->min = *(const unsigned int *)t->extra1;
	p->max = *(const unsigned int *)t->extra2;
	return true;
}

bool ndp_ctrl_param_find(const char *name, struct ndp_param *p)
{
	unsigned int i;

	for (i = 0; ndp_ctrl_param(i, p); i++)
		if (!strcmp(p->name, name))
			return true;
	return false;
}

/*
 * net.ndp.mem: pages of memory all NDP sockets may hold (low, pressure,
 * hard limit; struct proto.sysctl_mem), global like net.ipv4.tcp_mem and
 * so only in the initial namespace.
 */
static struct ctl_table ndp_mem_table[] = {
	{
		.procname	= "mem",
		.data		= &sysctl_ndp_mem,
		.maxlen		= sizeof(sysctl_ndp_mem),
		.mode		= 0644,
		.proc_handler	= proc_doulongvec_minmax,
	},
	{ }
};

int ndp_ctrl_net_init(struct net *net, struct ndp_net *nn)
{
	struct ctl_table *table;
	int i;

	ndp_ctrl_set_defaults(nn);

	table = kmemdup(ndp_sysctl_template, sizeof(ndp_sysctl_template),
			GFP_KERNEL);
	if (!table)
		return -ENOMEM;

	for (i = 0; i < ARRAY_SIZE(ndp_sysctl_template) - 1; i++)
		table[i].data = (char *)nn + (uintptr_t)table[i].data;

	nn->ctl_table_hdr = ndp_register_net_sysctl(net, "net/ndp", table,
						    ARRAY_SIZE(ndp_sysctl_template));
	if (!nn->ctl_table_hdr) {
		kfree(table);
		return -ENOMEM;
	}
	if (net_eq(net, &init_net)) {
		nn->ctl_mem_hdr = ndp_register_net_sysctl(net, "net/ndp",
							  ndp_mem_table,
							  ARRAY_SIZE(ndp_mem_table));
		if (!nn->ctl_mem_hdr) {
			unregister_net_sysctl_table(nn->ctl_table_hdr);
			kfree(table);
			return -ENOMEM;
		}
	}
	return 0;
}

void ndp_ctrl_net_exit(struct net *net, struct ndp_net *nn)
{
	const struct ctl_table *table = nn->ctl_table_hdr->ctl_table_arg;

	if (nn->ctl_mem_hdr)
		unregister_net_sysctl_table(nn->ctl_mem_hdr);
	unregister_net_sysctl_table(nn->ctl_table_hdr);
	kfree(table);
}
