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
static unsigned int ndp_rto_min = 100, ndp_rto_max = 60 * USEC_PER_SEC;
static unsigned int ndp_rate_max = 1000000;	/* 1 Tb/s in Mb/s */
static unsigned int ndp_pct_min = 1, ndp_pct_max = 100;
static unsigned int ndp_tw_max = 600 * MSEC_PER_SEC;
static unsigned int ndp_emb_min = 1, ndp_emb_max = 1 << 20;

static void ndp_ctrl_set_defaults(struct ndp_net *nn)
{
	nn->init_window = 15;
	nn->rto_min_us = 20 * USEC_PER_MSEC;
	nn->rto_max_us = 2 * USEC_PER_SEC;
	nn->link_rate_mbps = 0;
	nn->pull_pacing_pct = 99;
	nn->time_wait_ms = 1000;
	nn->max_embryonic = 1024;
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
	NDP_SYSCTL("link_rate_mbps", link_rate_mbps, SYSCTL_ZERO, &ndp_rate_max),
	NDP_SYSCTL("pull_pacing_pct", pull_pacing_pct, &ndp_pct_min, &ndp_pct_max),
	NDP_SYSCTL("time_wait_ms", time_wait_ms, SYSCTL_ZERO, &ndp_tw_max),
	NDP_SYSCTL("max_embryonic", max_embryonic, &ndp_emb_min, &ndp_emb_max),
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
	return 0;
}

void ndp_ctrl_net_exit(struct net *net, struct ndp_net *nn)
{
	const struct ctl_table *table = nn->ctl_table_hdr->ctl_table_arg;

	unregister_net_sysctl_table(nn->ctl_table_hdr);
	kfree(table);
}
