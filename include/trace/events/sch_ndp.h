/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the NDP switch port (sch_ndp.ko), created in
 * net/sched/sch_ndp.c.  Addresses are IPv6 or v4-mapped, taken from the
 * packet's network header as the port saw it.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sch_ndp

#if !defined(_TRACE_SCH_NDP_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_SCH_NDP_H

#include <linux/tracepoint.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <net/ipv6.h>
#include <net/sch_generic.h>
#include <net/ndp_wire.h>

#ifndef _TRACE_SCH_NDP_ONCE
#define _TRACE_SCH_NDP_ONCE
/* sch_ndp_drop: where the port dropped a packet. */
#define SCH_NDP_NOT_DROPPED	0	/* sch_ndp_trim, sch_ndp_rts */
#define SCH_NDP_DROP_HDR_FULL	1	/* header queue full, not returned */
#define SCH_NDP_DROP_TRIM_FAIL	2	/* data queue full, trimming failed */
#define SCH_NDP_DROP_OTHER_FULL	3	/* non-NDP queue full */
#define SCH_NDP_DROP_SHRINK	4	/* limit lowered by tc qdisc change */
#endif

/*
 * @nh: the NDP header (NULL for a packet of another protocol, and for
 *	packets dropped by "shrink", which are not decoded).
 * @where: SCH_NDP_DROP_* for sch_ndp_drop, else SCH_NDP_NOT_DROPPED.
 * @len: the packet's length at the port before the event (trimming
 *	shortens it).
 */
DECLARE_EVENT_CLASS(sch_ndp_pkt,

	TP_PROTO(const struct Qdisc *sch, const struct sk_buff *skb,
		 const struct ndphdr *nh, unsigned int len, u8 where),

	TP_ARGS(sch, skb, nh, len, where),

	TP_STRUCT__entry(
		__field(int, ifindex)
		__field(u32, handle)
		__array(__u8, saddr, 16)
		__array(__u8, daddr, 16)
		__field(__u16, sport)
		__field(__u16, dport)
		__field(__u8, type)
		__field(__u8, where)
		__field(__u16, flags)
		__field(__u32, psn)
		__field(unsigned int, len)
	),

	TP_fast_assign(
		struct in6_addr *s = (struct in6_addr *)__entry->saddr;
		struct in6_addr *d = (struct in6_addr *)__entry->daddr;

		__entry->ifindex = qdisc_dev((struct Qdisc *)sch)->ifindex;
		__entry->handle = sch->handle;
		memset(__entry->saddr, 0, 16);
		memset(__entry->daddr, 0, 16);
		if (skb->protocol == htons(ETH_P_IP)) {
			ipv6_addr_set_v4mapped(ip_hdr(skb)->saddr, s);
			ipv6_addr_set_v4mapped(ip_hdr(skb)->daddr, d);
		} else if (skb->protocol == htons(ETH_P_IPV6)) {
			*s = ipv6_hdr(skb)->saddr;
			*d = ipv6_hdr(skb)->daddr;
		}
		__entry->sport = nh ? ntohs(nh->source) : 0;
		__entry->dport = nh ? ntohs(nh->dest) : 0;
		__entry->type = nh ? nh->type : 0;
		__entry->flags = nh ? ntohs(nh->flags) : 0;
		__entry->psn = nh ? ntohl(nh->psn) : 0;
		__entry->len = len;
		__entry->where = where;
	),

	TP_printk("dev=%d handle=0x%x saddr=%pI6c daddr=%pI6c sport=%u dport=%u type=%u flags=%#x psn=%u len=%u where=%s",
		  __entry->ifindex, __entry->handle, __entry->saddr,
		  __entry->daddr, __entry->sport, __entry->dport,
		  __entry->type, __entry->flags, __entry->psn, __entry->len,
		  __print_symbolic(__entry->where,
				   { SCH_NDP_NOT_DROPPED, "-" },
				   { SCH_NDP_DROP_HDR_FULL, "hdr_full" },
				   { SCH_NDP_DROP_TRIM_FAIL, "trim_fail" },
				   { SCH_NDP_DROP_OTHER_FULL, "other_full" },
				   { SCH_NDP_DROP_SHRINK, "shrink" }))
);

/* A DATA packet was cut to its headers (@len: before the cut). */
DEFINE_EVENT(sch_ndp_pkt, sch_ndp_trim,
	TP_PROTO(const struct Qdisc *sch, const struct sk_buff *skb,
		 const struct ndphdr *nh, unsigned int len, u8 where),
	TP_ARGS(sch, skb, nh, len, where)
);

/* A header is returned to its sender. */
DEFINE_EVENT(sch_ndp_pkt, sch_ndp_rts,
	TP_PROTO(const struct Qdisc *sch, const struct sk_buff *skb,
		 const struct ndphdr *nh, unsigned int len, u8 where),
	TP_ARGS(sch, skb, nh, len, where)
);

/* A packet is dropped. */
DEFINE_EVENT(sch_ndp_pkt, sch_ndp_drop,
	TP_PROTO(const struct Qdisc *sch, const struct sk_buff *skb,
		 const struct ndphdr *nh, unsigned int len, u8 where),
	TP_ARGS(sch, skb, nh, len, where)
);

#endif /* _TRACE_SCH_NDP_H */

#include <trace/define_trace.h>
