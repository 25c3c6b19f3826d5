/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NDP transport tracepoints (ndp.ko).  Included by the files of net/ndp
 * after "protocol.h"; net/ndp/trace.c creates them.  Connection state
 * changes go through inet_sk_set_state() and so appear as the kernel's
 * own sock:inet_sock_set_state event (protocol 0xfd).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ndp

#if !defined(_TRACE_NDP_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_NDP_H

#include <linux/tracepoint.h>
#include <linux/ipv6.h>
#include <net/ndp_wire.h>

#ifndef _TRACE_NDP_ONCE
#define _TRACE_NDP_ONCE
/* ndp_trim: why a DATA packet was taken as a header only. */
#define NDP_TRIM_SWITCH	0	/* trimmed by a switch, origin not marked */
#define NDP_TRIM_CSUM	1	/* bad payload checksum */
#define NDP_TRIM_RCVBUF	2	/* receive buffer full */
#define NDP_TRIM_MEM	3	/* protocol memory (net.ndp.mem) exhausted */
#define NDP_TRIM_LAST_HOP 4	/* trimmed by the receiver's link (trim_dscp_host) */
#define NDP_TRIM_FABRIC	5	/* trimmed in the fabric (trim_dscp_fabric) */
#define NDP_TRIM_BACKLOG 6	/* socket backlog full: payload shed here */

/* The connection's addresses and ports, local first. */
static inline void ndp_trace_conn(const struct sock *sk, u8 *saddr, u8 *daddr,
				  u16 *sport, u16 *dport)
{
	const struct ndp_flow *fl = &ndp_sk(sk)->flow;

	memcpy(saddr, &fl->laddr, 16);
	memcpy(daddr, &fl->raddr, 16);
	*sport = ntohs(fl->lport);
	*dport = ntohs(fl->rport);
}
#endif

#define ndp_show_type(t)						\
	__print_symbolic(t,						\
			 { NDP_PKT_DATA, "DATA" },			\
			 { NDP_PKT_ACK,  "ACK" },			\
			 { NDP_PKT_NACK, "NACK" },			\
			 { NDP_PKT_PULL, "PULL" },			\
			 { NDP_PKT_RST,  "RST" })

#define ndp_show_flags(f)						\
	__print_flags(f, "|",						\
		      { NDP_F_SYN,     "SYN" },				\
		      { NDP_F_LAST,    "LAST" },			\
		      { NDP_F_TRIMMED, "TRIMMED" },			\
		      { NDP_F_RTS,     "RTS" },				\
		      { NDP_F_UNSCHED, "UNSCHED" },			\
		      { NDP_F_PULL,    "PULL" },			\
		      { NDP_F_FIN,     "FIN" },				\
		      { NDP_F_RTX,     "RTX" },				\
		      { NDP_F_PASSIVE, "PASSIVE" },			\
		      { NDP_F_CE,      "CE" })

/*
 * A packet handed to IP (ndp_send_pkt) or taken from it after the header
 * checksum was verified (ndp_recv_pkt).  Addresses are IPv6 or
 * v4-mapped; @len counts the NDP header and payload.
 */
DECLARE_EVENT_CLASS(ndp_pkt,

	TP_PROTO(const struct in6_addr *saddr, const struct in6_addr *daddr,
		 const struct ndphdr *nh, unsigned int len),

	TP_ARGS(saddr, daddr, nh, len),

	TP_STRUCT__entry(
		__array(__u8, saddr, 16)
		__array(__u8, daddr, 16)
		__field(__u16, sport)
		__field(__u16, dport)
		__field(__u8, type)
		__field(__u8, path)
		__field(__u16, flags)
		__field(__u32, nonce)
		__field(__u32, psn)
		__field(__u32, pull)
		__field(unsigned int, len)
	),

	TP_fast_assign(
		memcpy(__entry->saddr, saddr, 16);
		memcpy(__entry->daddr, daddr, 16);
		__entry->sport = ntohs(nh->source);
		__entry->dport = ntohs(nh->dest);
		__entry->type = nh->type;
		__entry->path = nh->path;
		__entry->flags = ntohs(nh->flags);
		__entry->nonce = ntohl(nh->nonce);
		__entry->psn = ntohl(nh->psn);
		__entry->pull = ntohl(nh->pull);
		__entry->len = len;
	),

	TP_printk("saddr=%pI6c daddr=%pI6c sport=%u dport=%u type=%s flags=%s psn=%u pull=%u nonce=%#x path=%u len=%u",
		  __entry->saddr, __entry->daddr, __entry->sport,
		  __entry->dport, ndp_show_type(__entry->type),
		  ndp_show_flags(__entry->flags), __entry->psn, __entry->pull,
		  __entry->nonce, __entry->path, __entry->len)
);

DEFINE_EVENT(ndp_pkt, ndp_send_pkt,
	TP_PROTO(const struct in6_addr *saddr, const struct in6_addr *daddr,
		 const struct ndphdr *nh, unsigned int len),
	TP_ARGS(saddr, daddr, nh, len)
);

DEFINE_EVENT(ndp_pkt, ndp_recv_pkt,
	TP_PROTO(const struct in6_addr *saddr, const struct in6_addr *daddr,
		 const struct ndphdr *nh, unsigned int len),
	TP_ARGS(saddr, daddr, nh, len)
);

/*
 * Per connection, about DATA packet @psn sent on path @path:
 * ndp_nack: the sender got a NACK for it (the receiver saw it trimmed);
 * ndp_rts: the sender got its header back (return to sender).
 */
DECLARE_EVENT_CLASS(ndp_conn_psn,

	TP_PROTO(const struct sock *sk, u32 psn, u8 path),

	TP_ARGS(sk, psn, path),

	TP_STRUCT__entry(
		__field(const void *, skaddr)
		__array(__u8, saddr, 16)
		__array(__u8, daddr, 16)
		__field(__u16, sport)
		__field(__u16, dport)
		__field(__u32, psn)
		__field(__u8, path)
	),

	TP_fast_assign(
		__entry->skaddr = sk;
		ndp_trace_conn(sk, __entry->saddr, __entry->daddr,
			       &__entry->sport, &__entry->dport);
		__entry->psn = psn;
		__entry->path = path;
	),

	TP_printk("skaddr=%p saddr=%pI6c daddr=%pI6c sport=%u dport=%u psn=%u path=%u",
		  __entry->skaddr, __entry->saddr, __entry->daddr,
		  __entry->sport, __entry->dport, __entry->psn, __entry->path)
);

DEFINE_EVENT(ndp_conn_psn, ndp_nack,
	TP_PROTO(const struct sock *sk, u32 psn, u8 path),
	TP_ARGS(sk, psn, path)
);

DEFINE_EVENT(ndp_conn_psn, ndp_rts,
	TP_PROTO(const struct sock *sk, u32 psn, u8 path),
	TP_ARGS(sk, psn, path)
);

/*
 * The receiver got DATA @psn (path @path) as a header only and NACKs it:
 * trimmed by a switch, or handled so because its payload checksum was
 * bad, the receive buffer or protocol memory was full (@cause).  @ce: it
 * also arrived marked CE, which its NACK echoes.
 */
TRACE_EVENT(ndp_trim,

	TP_PROTO(const struct sock *sk, u32 psn, u8 path, u8 cause, bool ce),

	TP_ARGS(sk, psn, path, cause, ce),

	TP_STRUCT__entry(
		__field(const void *, skaddr)
		__array(__u8, saddr, 16)
		__array(__u8, daddr, 16)
		__field(__u16, sport)
		__field(__u16, dport)
		__field(__u32, psn)
		__field(__u8, path)
		__field(__u8, cause)
		__field(__u8, ce)
	),

	TP_fast_assign(
		__entry->skaddr = sk;
		ndp_trace_conn(sk, __entry->saddr, __entry->daddr,
			       &__entry->sport, &__entry->dport);
		__entry->psn = psn;
		__entry->path = path;
		__entry->cause = cause;
		__entry->ce = ce;
	),

	TP_printk("skaddr=%p saddr=%pI6c daddr=%pI6c sport=%u dport=%u psn=%u path=%u cause=%s ce=%u",
		  __entry->skaddr, __entry->saddr, __entry->daddr,
		  __entry->sport, __entry->dport, __entry->psn, __entry->path,
		  __print_symbolic(__entry->cause,
				   { NDP_TRIM_SWITCH, "switch" },
				   { NDP_TRIM_CSUM,   "csum" },
				   { NDP_TRIM_RCVBUF, "rcvbuf" },
				   { NDP_TRIM_MEM,    "mem" },
				   { NDP_TRIM_LAST_HOP, "last-hop" },
				   { NDP_TRIM_FABRIC, "fabric" },
				   { NDP_TRIM_BACKLOG, "backlog" }),
		  __entry->ce)
);

/*
 * The retransmission timer expired and acted: @snd_una is the oldest
 * unacknowledged psn, @retries the expiries without news so far, @rto_us
 * the timeout that ran out (with backoff), @srtt_us and @rttvar_us the
 * RTT estimate (0: no sample), @backoff the expiries since the oldest
 * packet in flight was acknowledged.
 */
TRACE_EVENT(ndp_rto,

	TP_PROTO(const struct sock *sk, u32 snd_una, u32 retries, u32 rto_us,
		 u32 srtt_us, u32 rttvar_us, u32 backoff),

	TP_ARGS(sk, snd_una, retries, rto_us, srtt_us, rttvar_us, backoff),

	TP_STRUCT__entry(
		__field(const void *, skaddr)
		__array(__u8, saddr, 16)
		__array(__u8, daddr, 16)
		__field(__u16, sport)
		__field(__u16, dport)
		__field(__u32, snd_una)
		__field(__u32, retries)
		__field(__u32, rto_us)
		__field(__u32, srtt_us)
		__field(__u32, rttvar_us)
		__field(__u32, backoff)
	),

	TP_fast_assign(
		__entry->skaddr = sk;
		ndp_trace_conn(sk, __entry->saddr, __entry->daddr,
			       &__entry->sport, &__entry->dport);
		__entry->snd_una = snd_una;
		__entry->retries = retries;
		__entry->rto_us = rto_us;
		__entry->srtt_us = srtt_us;
		__entry->rttvar_us = rttvar_us;
		__entry->backoff = backoff;
	),

	TP_printk("skaddr=%p saddr=%pI6c daddr=%pI6c sport=%u dport=%u snd_una=%u retries=%u rto_us=%u srtt_us=%u rttvar_us=%u backoff=%u",
		  __entry->skaddr, __entry->saddr, __entry->daddr,
		  __entry->sport, __entry->dport, __entry->snd_una, __entry->retries,
		  __entry->rto_us, __entry->srtt_us, __entry->rttvar_us,
		  __entry->backoff)
);

/*
 * The receiver issued a pull: counter @ctr, from the pull queue's pacing
 * timer (PULL packet) or carried by an ACK/NACK (@piggyback).
 */
TRACE_EVENT(ndp_pull,

	TP_PROTO(const struct sock *sk, u32 ctr, bool piggyback),

	TP_ARGS(sk, ctr, piggyback),

	TP_STRUCT__entry(
		__field(const void *, skaddr)
		__array(__u8, saddr, 16)
		__array(__u8, daddr, 16)
		__field(__u16, sport)
		__field(__u16, dport)
		__field(__u32, ctr)
		__field(bool, piggyback)
	),

	TP_fast_assign(
		__entry->skaddr = sk;
		ndp_trace_conn(sk, __entry->saddr, __entry->daddr,
			       &__entry->sport, &__entry->dport);
		__entry->ctr = ctr;
		__entry->piggyback = piggyback;
	),

	TP_printk("skaddr=%p saddr=%pI6c daddr=%pI6c sport=%u dport=%u ctr=%u piggyback=%d",
		  __entry->skaddr, __entry->saddr, __entry->daddr,
		  __entry->sport, __entry->dport, __entry->ctr, __entry->piggyback)
);

/* Multipath: path @id was excluded as an outlier, or readmitted. */
DECLARE_EVENT_CLASS(ndp_path,

	TP_PROTO(const struct net *net, const struct ndp_path *p),

	TP_ARGS(net, p),

	TP_STRUCT__entry(
		__field(unsigned int, netns_ino)
		__field(__u32, id)
		__array(__u8, via, 16)
		__field(__u32, acks)
		__field(__u32, nacks)
		__field(__u32, rtos)
		__field(__u32, rts)
		__field(__u32, ces)
	),

	TP_fast_assign(
		__entry->netns_ino = net->ns.inum;
		__entry->id = p->id;
		memcpy(__entry->via, &p->via_dst, 16);
		__entry->acks = atomic_read(&p->acks);
		__entry->nacks = atomic_read(&p->nacks);
		__entry->rtos = atomic_read(&p->rtos);
		__entry->rts = atomic_read(&p->rts);
		__entry->ces = atomic_read(&p->ces);
	),

	TP_printk("netns=%u id=%u via=%pI6c acks=%u nacks=%u rtos=%u rts=%u ces=%u",
		  __entry->netns_ino, __entry->id, __entry->via,
		  __entry->acks, __entry->nacks, __entry->rtos, __entry->rts,
		  __entry->ces)
);

DEFINE_EVENT(ndp_path, ndp_path_exclude,
	TP_PROTO(const struct net *net, const struct ndp_path *p),
	TP_ARGS(net, p)
);

DEFINE_EVENT(ndp_path, ndp_path_readmit,
	TP_PROTO(const struct net *net, const struct ndp_path *p),
	TP_ARGS(net, p)
);

#endif /* _TRACE_NDP_H */

#include <trace/define_trace.h>
