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

const char * const ndp_mib_names[NDP_MIB_MAX] = {
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
	[NDP_MIB_RTOWAITPULL]	= "RtoWaitPull",
	[NDP_MIB_RTOPROBES]	= "RtoProbes",
	[NDP_MIB_INRTS]		= "InRts",
	[NDP_MIB_RTSRESENT]	= "RtsResent",
	[NDP_MIB_RTSRESENTPATH]	= "RtsResentPath",
	[NDP_MIB_RTSWAITPULL]	= "RtsWaitPull",
	[NDP_MIB_PULLSPURGED]	= "PullsPurged",
	[NDP_MIB_PULLTIMERRUNS]	= "PullTimerRuns",
	[NDP_MIB_PULLSTIMER]	= "PullsTimer",
	[NDP_MIB_REPLAYREJECTED] = "ReplayRejected",
	[NDP_MIB_INDUPS]	= "InDups",
	[NDP_MIB_PASSIVEOPENS]	= "PassiveOpens",
	[NDP_MIB_ACTIVEOPENS]	= "ActiveOpens",
	[NDP_MIB_EMBRYONICDROPS] = "EmbryonicDrops",
	[NDP_MIB_RCVQDROPS]	= "RcvQDrops",
	[NDP_MIB_ESTABRESETS]	= "EstabResets",
	[NDP_MIB_PATHEXCLUDED]	= "PathExcluded",
	[NDP_MIB_PATHREADMITTED] = "PathReadmitted",
	[NDP_MIB_RTXOTHERPATH]	= "RtxOtherPath",
	[NDP_MIB_RTXSAMEPATH]	= "RtxSamePath",
	[NDP_MIB_MEMDROPS]	= "MemDrops",
	[NDP_MIB_INBADPULLS]	= "InBadPulls",
	[NDP_MIB_INBADREPORTS]	= "InBadReports",
	[NDP_MIB_INBADRSTS]	= "InBadRsts",
	[NDP_MIB_ADDRVALIDATED]	= "AddrValidated",
	[NDP_MIB_AMPLIMITED]	= "AmpLimited",
	[NDP_MIB_AMPHEADERS]	= "AmpHeaders",
	[NDP_MIB_POLICYDROPS]	= "PolicyDrops",
	[NDP_MIB_FILTERDROPS]	= "FilterDrops",
	[NDP_MIB_TWFINACKED]	= "TwFinAcked",
	[NDP_MIB_LISTENOVERFLOWS] = "ListenOverflows",
	[NDP_MIB_EMBRYONICTIMEOUTS] = "EmbryonicTimeouts",
	[NDP_MIB_TWEVICTED]	= "TwEvicted",
	[NDP_MIB_ORPHANOVERFLOWS] = "OrphanOverflows",
	[NDP_MIB_ORPHANTIMEOUTS] = "OrphanTimeouts",
	[NDP_MIB_ROUTELOOKUPS] = "RouteLookups",
	[NDP_MIB_PMTUEVENTS] = "PmtuEvents",
	[NDP_MIB_PMTURESENT] = "PmtuResent",
	[NDP_MIB_OUTFRAGMENTED] = "OutFragmented",
	[NDP_MIB_ICMPSOFTERRS] = "IcmpSoftErrors",
	[NDP_MIB_ICMPIGNORED] = "IcmpIgnored",
	[NDP_MIB_OUTGSOPKTS] = "OutGsoPkts",
	[NDP_MIB_OUTGSOSEGS] = "OutGsoSegs",
	[NDP_MIB_GSOSEGMENTS] = "GsoSegments",
	[NDP_MIB_INGSOPKTS] = "InGsoPkts",
	[NDP_MIB_INGSOSEGS] = "InGsoSegs",
	[NDP_MIB_LATESYNOPENS] = "LateSynOpens",
	[NDP_MIB_PUSHWINDOWS] = "PushWindows",
	[NDP_MIB_OUTUNSCHED] = "OutUnsched",
	[NDP_MIB_DASRADVERTISED] = "DasrAdvertised",
	[NDP_MIB_DASRSHRUNKWINDOWS] = "DasrShrunkWindows",
	[NDP_MIB_DASRPEERSFULL] = "DasrPeersFull",
	[NDP_MIB_ENCAPINPKTS] = "EncapInPkts",
	[NDP_MIB_ENCAPOUTPKTS] = "EncapOutPkts",
	[NDP_MIB_INGROBATCHES] = "InGroBatches",
	[NDP_MIB_INGROPKTS] = "InGroPkts",
	[NDP_MIB_OUTACKSPANS] = "OutAckSpans",
	[NDP_MIB_PMTURECUT] = "PmtuRecut",
	[NDP_MIB_RTOSPURIOUS] = "RtoSpurious",
	[NDP_MIB_RTTCACHEHITS] = "RttCacheHits",
	[NDP_MIB_RTOLATE] = "RtoLate",
	[NDP_MIB_ADMITCHALLENGES] = "AdmitChallenges",
	[NDP_MIB_ADMITLISTENERFULL] = "AdmitListenerFull",
	[NDP_MIB_ADMITNETNSFULL] = "AdmitNetnsFull",
	[NDP_MIB_ADMITECHOES] = "AdmitEchoes",
	[NDP_MIB_ADMITBADECHOES] = "AdmitBadEchoes",
	[NDP_MIB_INCHALLENGES] = "InChallenges",
	[NDP_MIB_INBADCHALLENGES] = "InBadChallenges",
	[NDP_MIB_OUTTOKENS] = "OutTokens",
	[NDP_MIB_INTOKENS] = "InTokens",
	[NDP_MIB_INBADTOKENS] = "InBadTokens",
	[NDP_MIB_ADMITTOKENS] = "AdmitTokens",
	[NDP_MIB_ADMITBADTOKENS] = "AdmitBadTokens",
	[NDP_MIB_PULLSDEADSOCK] = "PullsDeadSock",
	[NDP_MIB_PULLSDEVGONE] = "PullsDevGone",
	[NDP_MIB_PULLQADDED] = "PullQueuesAdded",
	[NDP_MIB_PULLQREMOVED] = "PullQueuesRemoved",
	[NDP_MIB_BACKLOGRCV] = "BacklogRcv",
	[NDP_MIB_BACKLOGDROP] = "BacklogDrop",
	[NDP_MIB_BACKLOGSHED] = "BacklogShed",
	[NDP_MIB_DEFERRED] = "DeferredWork",
	[NDP_MIB_PMTUROUTE] = "PmtuRoute",
	[NDP_MIB_OUTTAILFILLS] = "OutTailFills",
	[NDP_MIB_INTRIMLASTHOP] = "InTrimLastHop",
	[NDP_MIB_INTRIMFABRIC] = "InTrimFabric",
	[NDP_MIB_INDATACE] = "InDataCE",
	[NDP_MIB_INCEECHOES] = "InCEEchoes",
	[NDP_MIB_PATHCE] = "PathCE",
	[NDP_MIB_WINDOWTOPUPS] = "WindowTopUps",
	[NDP_MIB_ROOMADVERTS] = "RoomAdverts",
	[NDP_MIB_ROOMUPDATES] = "RoomUpdates",
	[NDP_MIB_ROOMCUTS] = "RoomCuts",
	[NDP_MIB_RCVQFULLDROPS] = "RcvQFullDrops",
	[NDP_MIB_ROOMPROBES] = "RoomProbes",
	[NDP_MIB_ACKSHELD] = "AcksHeld",
	[NDP_MIB_ACKSONDATA] = "AcksOnData",
	[NDP_MIB_ACKHOLDEXPIRED] = "AckHoldExpired",
	[NDP_MIB_INACKSONDATA] = "InAcksOnData",
	[NDP_MIB_OUTSPLICEDBYTES] = "OutSplicedBytes",
};

static int ndp_stat_seq_show(struct seq_file *seq, void *v)
{
	struct net *net = seq->private;
	struct ndp_net *nn = ndp_pernet(net);
	int i;

	BUILD_BUG_ON(ARRAY_SIZE(ndp_mib_names) != NDP_MIB_MAX);
	for (i = 1; i < NDP_MIB_MAX; i++)
		seq_printf(seq, "%s %lu\n", ndp_mib_names[i],
			   ndp_snmp_fold_field(nn->mib, i));
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
