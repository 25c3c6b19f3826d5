// SPDX-License-Identifier: GPL-2.0
/*
 * NDP: /proc/net/ndp_stat, one "name value" line per event counter of the
 * reading process's network namespace.
 */

#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <net/net_namespace.h>
#include <net/ip.h>

#include "protocol.h"

static const char * const ndp_mib_names[NDP_MIB_MAX] = {
	[NDP_MIB_NUM]		= NULL,
	[NDP_MIB_INPKTS]	= "InPkts",
	[NDP_MIB_INERRS]	= "InErrs",
	[NDP_MIB_INCSUMERRS]	= "InCsumErrs",
	[NDP_MIB_NOSOCK]	= "NoSocket",
	[NDP_MIB_OUTRSTS]	= "OutRsts",
	[NDP_MIB_INRSTS]	= "InRsts",
	[NDP_MIB_OUTDATA]	= "OutData",
	[NDP_MIB_INDATA]	= "InData",
	[NDP_MIB_INTRIMMED]	= "InTrimmed",
	[NDP_MIB_OUTACKS]	= "OutAcks",
	[NDP_MIB_INACKS]	= "InAcks",
	[NDP_MIB_OUTNACKS]	= "OutNacks",
	[NDP_MIB_INNACKS]	= "InNacks",
	[NDP_MIB_OUTPULLS]	= "OutPulls",
	[NDP_MIB_INPULLS]	= "InPulls",
	[NDP_MIB_OUTPULLACKS]	= "OutPullAcks",
	[NDP_MIB_RTXNACK]	= "RtxNack",
	[NDP_MIB_RTXTIMEOUT]	= "RtxTimeout",
	[NDP_MIB_RTOS]		= "Rtos",
	[NDP_MIB_INRTS]		= "InRts",
	[NDP_MIB_RTSRESENT]	= "RtsResent",
	[NDP_MIB_PULLSPURGED]	= "PullsPurged",
	[NDP_MIB_REPLAYREJECTED] = "ReplayRejected",
	[NDP_MIB_INDUPS]	= "InDups",
	[NDP_MIB_PASSIVEOPENS]	= "PassiveOpens",
	[NDP_MIB_ACTIVEOPENS]	= "ActiveOpens",
	[NDP_MIB_EMBRYONICDROPS] = "EmbryonicDrops",
	[NDP_MIB_RCVQDROPS]	= "RcvQDrops",
	[NDP_MIB_ESTABRESETS]	= "EstabResets",
};

static int ndp_stat_seq_show(struct seq_file *seq, void *v)
{
	struct net *net = seq->private;
	struct ndp_net *nn = ndp_pernet(net);
	int i;

	BUILD_BUG_ON(ARRAY_SIZE(ndp_mib_names) != NDP_MIB_MAX);
	for (i = 1; i < NDP_MIB_MAX; i++)
		seq_printf(seq, "%s %lu\n", ndp_mib_names[i],
			   snmp_fold_field(nn->mib, i));
	return 0;
}

int ndp_proc_net_init(struct net *net)
{
	if (!proc_create_net_single("ndp_stat", 0444, net->proc_net,
				    ndp_stat_seq_show, NULL))
		return -ENOMEM;
	return 0;
}

void ndp_proc_net_exit(struct net *net)
{
	remove_proc_entry("ndp_stat", net->proc_net);
}
