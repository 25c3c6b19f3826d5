/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NDP: per-netns event counters (MIB), exported by /proc/net/ndp_stat.
 *
 * Adding a counter: append it to enum ndp_mib_field, name it in
 * ndp_mib_names[] (proc.c) and document it in
 * Documentation/networking/ndp.rst and ndp-transport.rst (Counters).
 */
#ifndef _NDP_MIB_H
#define _NDP_MIB_H

#include <linux/percpu.h>
#include <net/snmp.h>

enum ndp_mib_field {
	NDP_MIB_NUM = 0,
	NDP_MIB_INPKTS,		/* InPkts: packets handed to ndp by IP */
	NDP_MIB_INERRS,		/* InErrs: dropped: malformed, bad checksum */
	NDP_MIB_INCSUMERRS,	/* InCsumErrs: of which header or payload csum */
	NDP_MIB_NOSOCK,		/* NoSocket: no socket for a packet */
	NDP_MIB_OUTRSTS,	/* OutRsts: RST control replies sent */
	NDP_MIB_INRSTS,		/* InRsts: RST control packets received */
	NDP_MIB_OUTDATA,	/* OutData: DATA packets sent (incl. rtx) */
	NDP_MIB_INDATA,		/* InData: intact DATA packets received */
	NDP_MIB_INTRIMMED,	/* InTrimmed: trimmed headers received */
	NDP_MIB_OUTACKS,	/* OutAcks: ACK (and PULLACK) sent */
	NDP_MIB_INACKS,		/* InAcks: ACK received */
	NDP_MIB_OUTNACKS,	/* OutNacks: NACK sent */
	NDP_MIB_INNACKS,	/* InNacks: NACK received */
	NDP_MIB_OUTPULLS,	/* OutPulls: PULL sent (incl. PULLACK) */
	NDP_MIB_INPULLS,	/* InPulls: PULL received (incl. PULLACK) */
	NDP_MIB_OUTPULLACKS,	/* OutPullAcks: combined PULLACK sent */
	NDP_MIB_RTXNACK,	/* RtxNack: retransmissions caused by NACK */
	NDP_MIB_RTXTIMEOUT,	/* RtxTimeout: retransmissions caused by RTO */
	NDP_MIB_RTOS,		/* Rtos: RTO timer expirations */
	/* RtoWaitPull: RTO expiries with everything sent reported on and the
	 * peer heard from within the timeout (nothing sent)
	 */
	NDP_MIB_RTOWAITPULL,
	NDP_MIB_RTOPROBES,	/* RtoProbes: one packet sent, pulls presumed lost */
	NDP_MIB_INRTS,		/* InRts: returned-to-sender headers received */
	NDP_MIB_RTSRESENT,	/* RtsResent: resent at once, no pull expected */
	/* RtsResentPath: resent at once, the path's feedback is mostly ACKs */
	NDP_MIB_RTSRESENTPATH,
	NDP_MIB_RTSWAITPULL,	/* RtsWaitPull: left for a pull to resend */
	NDP_MIB_PULLSPURGED,	/* PullsPurged: pending pulls dropped after LAST */
	/* PullTimerRuns: pull clock expiries that issued pulls */
	NDP_MIB_PULLTIMERRUNS,
	/* PullsTimer: pulls those expiries issued */
	NDP_MIB_PULLSTIMER,
	/* ReplayRejected: first-window packet of a finished (time-wait)
	 * connection ignored
	 */
	NDP_MIB_REPLAYREJECTED,
	NDP_MIB_INDUPS,		/* InDups: duplicate DATA received */
	NDP_MIB_PASSIVEOPENS,	/* PassiveOpens: created by a first window */
	NDP_MIB_ACTIVEOPENS,	/* ActiveOpens: connections opened by connect */
	/* EmbryonicDrops: first windows refused, no memory to create the
	 * connection
	 */
	NDP_MIB_EMBRYONICDROPS,
	NDP_MIB_RCVQDROPS,	/* RcvQDrops: DATA dropped, receive memory full */
	NDP_MIB_ESTABRESETS,	/* EstabResets: connections reset */
	NDP_MIB_PATHEXCLUDED,	/* PathExcluded: paths excluded by scoreboard */
	NDP_MIB_PATHREADMITTED,	/* PathReadmitted: excluded paths usable again */
	/* RtxOtherPath: retransmissions sent on another path than the last */
	NDP_MIB_RTXOTHERPATH,
	/* RtxSamePath: retransmissions on the same path (the only usable) */
	NDP_MIB_RTXSAMEPATH,
	/* MemDrops: DATA refused (NACKed), beyond net.ndp.mem (see sock.c) */
	NDP_MIB_MEMDROPS,
	/* InBadPulls: pull counters beyond the packets we sent, ignored */
	NDP_MIB_INBADPULLS,
	/* InBadReports: ACK/NACK/PULL naming no psn of ours, ignored */
	NDP_MIB_INBADREPORTS,
	/* InBadRsts: RST naming no psn of the connection, ignored */
	NDP_MIB_INBADRSTS,
	/* AddrValidated: passive connections whose peer proved its address */
	NDP_MIB_ADDRVALIDATED,
	/* AmpLimited: transmissions held back by net.ndp.amp_factor */
	NDP_MIB_AMPLIMITED,
	/* AmpHeaders: headers sent instead of whole packets, same bound */
	NDP_MIB_AMPHEADERS,
	/* PolicyDrops: packets refused by IPsec policy */
	NDP_MIB_POLICYDROPS,
	/* FilterDrops: packets refused by a socket filter or the LSM */
	NDP_MIB_FILTERDROPS,
	/* TwFinAcked: a peer's late FIN acknowledged from time-wait */
	NDP_MIB_TWFINACKED,
	/* ListenOverflows: first windows refused, listener backlog full */
	NDP_MIB_LISTENOVERFLOWS,
	/* EmbryonicTimeouts: unaccepted connections reset after
	 * net.ndp.embryonic_timeout_ms
	 */
	NDP_MIB_EMBRYONICTIMEOUTS,
	/* TwEvicted: time-wait records evicted early, net.ndp.max_tw_buckets reached */
	NDP_MIB_TWEVICTED,
	/* OrphanOverflows: close() reset the connection, max_orphans reached */
	NDP_MIB_ORPHANOVERFLOWS,
	/* OrphanTimeouts: orphans reset, data unacknowledged orphan_retries
	 * RTOs in a row
	 */
	NDP_MIB_ORPHANTIMEOUTS,
	/* RouteLookups: routes looked up for a connection's packets (the
	 * rest use the route cached in the socket)
	 */
	NDP_MIB_ROUTELOOKUPS,
	/* PmtuEvents: ICMP fragmentation needed / packet too big lowered a
	 * connection's packet size
	 */
	NDP_MIB_PMTUEVENTS,
	/* PmtuResent: packets dropped for their size resent at once */
	NDP_MIB_PMTURESENT,
	/* OutFragmented: DATA larger than the path MTU (sent before it
	 * shrank) sent as IP fragments
	 */
	NDP_MIB_OUTFRAGMENTED,
	/* IcmpSoftErrors: ICMP unreachable errors recorded on a connection */
	NDP_MIB_ICMPSOFTERRS,
	/* IcmpIgnored: ICMP errors naming no packet of ours in flight */
	NDP_MIB_ICMPIGNORED,
	/* OutGsoPkts: super-packets (several DATA packets in one GSO skb)
	 * handed to IP
	 */
	NDP_MIB_OUTGSOPKTS,
	/* OutGsoSegs: DATA packets sent inside super-packets */
	NDP_MIB_OUTGSOSEGS,
	/* GsoSegments: packets cut from super-packets by NDP's segmentation
	 * callback (counted in the namespace of the device that cut them)
	 */
	NDP_MIB_GSOSEGMENTS,
	/* InGsoPkts: super-packets (a sender's batches) that reached the
	 * receive handler whole
	 */
	NDP_MIB_INGSOPKTS,
	/* InGsoSegs: DATA packets received inside them */
	NDP_MIB_INGSOSEGS,
	/* LateSynOpens: passive connections created by a first-window packet
	 * other than the first (syn_off > 0)
	 */
	NDP_MIB_LATESYNOPENS,
	/* PushWindows: unscheduled windows started (first windows, and
	 * pushes after LAST)
	 */
	NDP_MIB_PUSHWINDOWS,
	/* OutUnsched: DATA sent marked NDP_F_UNSCHED, eligible for detour
	 * (the first net.ndp.detour_mark packets of each pushed window)
	 */
	NDP_MIB_OUTUNSCHED,
	/* DasrAdvertised: ACK, NACK and PULL sent advertising more than one
	 * active sender (nsenders > 1)
	 */
	NDP_MIB_DASRADVERTISED,
	/* DasrShrunkWindows: unscheduled windows cut to ceil(IW / n) because
	 * the receiver advertised n > 1
	 */
	NDP_MIB_DASRSHRUNKWINDOWS,
	/* DasrPeersFull: peers neither counted nor remembered, the table was
	 * full (net.ndp.dasr_max_peers) or out of memory
	 */
	NDP_MIB_DASRPEERSFULL,
	/* EncapInPkts: NDP packets received in UDP (net.ndp.udp_port) */
	NDP_MIB_ENCAPINPKTS,
	/* EncapOutPkts: NDP packets sent in UDP (net.ndp.udp_port) */
	NDP_MIB_ENCAPOUTPKTS,
	/* InGroBatches: batches of DATA that GRO built for a connection and
	 * the receive handler took whole
	 */
	NDP_MIB_INGROBATCHES,
	/* InGroPkts: packets that came in those batches */
	NDP_MIB_INGROPKTS,
	/* OutAckSpans: ACKs sent reporting more than one psn (acks > 1) */
	NDP_MIB_OUTACKSPANS,
	/* PmtuRecut: never-sent packets cut again at a smaller size after a
	 * PMTU event
	 */
	NDP_MIB_PMTURECUT,
	NDP_MIB_RTOSPURIOUS,	/* RtoSpurious: the packet an expiry resent had arrived */
	NDP_MIB_RTTCACHEHITS,	/* RttCacheHits: a connection's first RTO from the peer cache */
	NDP_MIB_RTOLATE,	/* RtoLate: a late timer gave the receive path a tick */
	/* AdmitChallenges: first windows answered by a CHALLENGE, no state */
	NDP_MIB_ADMITCHALLENGES,
	/* AdmitListenerFull: of those, the listener's budget of unproven
	 * connections was used up
	 */
	NDP_MIB_ADMITLISTENERFULL,
	/* AdmitNetnsFull: of those, net.ndp.max_embryonic was reached */
	NDP_MIB_ADMITNETNSFULL,
	/* AdmitEchoes: connections created by a valid echoed cookie */
	NDP_MIB_ADMITECHOES,
	/* AdmitBadEchoes: echoed cookies refused (forged or expired) */
	NDP_MIB_ADMITBADECHOES,
	/* InChallenges: CHALLENGEs taken by an opener (packet resent) */
	NDP_MIB_INCHALLENGES,
	/* InBadChallenges: CHALLENGEs ignored (not about our first window) */
	NDP_MIB_INBADCHALLENGES,
	/* OutTokens: TOKENs sent to peers that proved their address */
	NDP_MIB_OUTTOKENS,
	/* InTokens: TOKENs an opener kept */
	NDP_MIB_INTOKENS,
	/* InBadTokens: TOKENs ignored (passive side, or reporting on no psn
	 * of ours)
	 */
	NDP_MIB_INBADTOKENS,
	/* AdmitTokens: connections created by a first window with a valid
	 * token
	 */
	NDP_MIB_ADMITTOKENS,
	/* AdmitBadTokens: tokens refused (forged, another address, expired) */
	NDP_MIB_ADMITBADTOKENS,
	/* PullsDeadSock: owed pulls withheld because their socket died
	 * (torn down with pulls owed, or dead before its PULL left)
	 */
	NDP_MIB_PULLSDEADSOCK,
	/* PullsDevGone: owed pulls dropped because the device of their pull
	 * queue went away (the sender's RTO recovers)
	 */
	NDP_MIB_PULLSDEVGONE,
	/* PullQueuesAdded: pull queues created (one per receiving device) */
	NDP_MIB_PULLQADDED,
	/* PullQueuesRemoved: pull queues removed with their device or the
	 * namespace; Added - Removed is the number of queues now
	 */
	NDP_MIB_PULLQREMOVED,
	/* BacklogRcv: packets (and ICMP errors) that waited in a socket's
	 * backlog while a user owned the socket, processed when it released
	 * it
	 */
	NDP_MIB_BACKLOGRCV,
	/* BacklogDrop: packets dropped because the backlog of a socket a
	 * user owned was full (receive plus send buffer)
	 */
	NDP_MIB_BACKLOGDROP,
	/* BacklogShed: DATA packets that found that backlog full and waited
	 * in it as their header alone, NACKed and pulled again when
	 * processed (as a trim)
	 */
	NDP_MIB_BACKLOGSHED,
	/* DeferredWork: RTO expiries and PULLs left to the user owning the
	 * socket, done when it released it
	 */
	NDP_MIB_DEFERRED,
	/* PmtuRoute: the route's MTU, dropped without an ICMP error reaching
	 * us, lowered a connection's packet size
	 */
	NDP_MIB_PMTUROUTE,
	/* OutTailFills: writes (or parts of one) that filled the unsent
	 * packet at the tail of the send queue instead of cutting a new one
	 */
	NDP_MIB_OUTTAILFILLS,
	/* InTrimLastHop: trimmed headers whose DSCP is
	 * net.ndp.trim_dscp_host: trimmed by the receiver's own link, not
	 * held against the path
	 */
	NDP_MIB_INTRIMLASTHOP,
	/* InTrimFabric: trimmed headers whose DSCP is
	 * net.ndp.trim_dscp_fabric: trimmed inside the fabric
	 */
	NDP_MIB_INTRIMFABRIC,
	/* InDataCE: DATA packets that arrived marked CE (IP header, the
	 * outer one in UDP); their ACK or NACK echoes it (NDP_F_CE)
	 */
	NDP_MIB_INDATACE,
	/* InCEEchoes: ACKs and NACKs of our DATA that echoed CE */
	NDP_MIB_INCEECHOES,
	/* PathCE: packets whose CE echo counted against the path they took
	 * (scoreboard, as a fabric trim)
	 */
	NDP_MIB_PATHCE,
	/* WindowTopUps: packets of allowance restored to new data when
	 * what circulated (in flight, pulls owed, credit) had fallen below
	 * the window
	 */
	NDP_MIB_WINDOWTOPUPS,
	/* RoomAdverts: ACKs, NACKs and PULLs sent with the room option:
	 * the receive buffer could not take two windows (room.c)
	 */
	NDP_MIB_ROOMADVERTS,
	/* RoomUpdates: PULLs that told a peer, after "no room", that the
	 * reader made room
	 */
	NDP_MIB_ROOMUPDATES,
	/* RoomCuts: unscheduled windows cut to the peer's room, or held
	 * back at a room of 0 (once per hold)
	 */
	NDP_MIB_ROOMCUTS,
	/* RcvQFullDrops: DATA dropped at a full receive buffer after it
	 * had advertised no room (a peer that ignores the option)
	 */
	NDP_MIB_RCVQFULLDROPS,
	/* RoomProbes: persist probes sent as the header alone, the peer
	 * having advertised no room
	 */
	NDP_MIB_ROOMPROBES,
	/* AcksHeld: ACKs of a message's end held to ride on our DATA
	 * (delack.c)
	 */
	NDP_MIB_ACKSHELD,
	/* AcksOnData: held ACKs that left on our DATA (NDP_OPT_ACK); the
	 * others left alone, counted in OutAcks
	 */
	NDP_MIB_ACKSONDATA,
	/* AckHoldExpired: held ACKs sent alone because no DATA of ours
	 * came within the hold
	 */
	NDP_MIB_ACKHOLDEXPIRED,
	/* InAcksOnData: ACKs received on the peer's DATA (NDP_OPT_ACK),
	 * also counted in InAcks; an option that fails its checksum counts
	 * in InErrs
	 */
	NDP_MIB_INACKSONDATA,
	/* OutSplicedBytes: payload bytes that sendfile() or splice() to the
	 * socket (MSG_SPLICE_PAGES) queued by page reference, not copied
	 */
	NDP_MIB_OUTSPLICEDBYTES,
	NDP_MIB_MAX
};

struct ndp_mib {
	unsigned long mibs[NDP_MIB_MAX];
};

#endif /* _NDP_MIB_H */
