/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * sch_ndp, the NDP switch-port qdisc: netlink attributes and statistics
 * shared by the kernel and tc.  Described in
 * Documentation/networking/ndp-sched.rst.
 */
#ifndef _UAPI_LINUX_NDP_SCHED_H
#define _UAPI_LINUX_NDP_SCHED_H

#include <linux/types.h>

/*
 * Attributes nested in TCA_OPTIONS.  Every attribute is optional; on
 * "change" only the attributes present are applied.
 */
enum {
	TCA_NDP_UNSPEC,
	TCA_NDP_LIMIT,		/* u32: data queue limit, packets */
	TCA_NDP_HLIMIT,		/* u32: header queue limit, packets; 0 = 2 x limit */
	TCA_NDP_OLIMIT,		/* u32: other-traffic queue limit, packets */
	TCA_NDP_WRR,		/* u32: headers sent per data packet */
	TCA_NDP_RATE,		/* u64: emulated link rate, bytes/s; 0 = off */
	TCA_NDP_RTS,		/* u8: return to sender on header overflow */
	TCA_NDP_MODE,		/* u8: enum tc_ndp_mode */
	TCA_NDP_TRIM_PROB,	/* u32: % of overflows that trim the arrival */
	TCA_NDP_QUANTUM,	/* u32: DRR quantum between NDP and other, bytes */
	TCA_NDP_IPPROTO,	/* u8: read only: IP protocol taken as NDP */
	TCA_NDP_PAD,
	TCA_NDP_GROUP,		/* u32: port group id; 0 = no group */
	TCA_NDP_HOSTPORT,	/* u8: 1 = port faces hosts (never a detour target) */
	TCA_NDP_DETOUR,		/* u8: OPF detours of unscheduled packets on/off */
	TCA_NDP_OPF_THRESH,	/* u32: data queue length that detours, packets; 0 = auto */
	TCA_NDP_DCC_THRESH,	/* u32: detours a packet may take (ndphdr.detours cap) */
	TCA_NDP_DEFLECT,	/* u8: Dart in-order flow deflection on/off */
	TCA_NDP_DEFLECT_THRESH,	/* u32: data queue length that deflects, packets; 0 = auto */
	TCA_NDP_UDP_PORT,	/* u16, host order: UDP port of NDP over UDP; 0 = off */
	TCA_NDP_TRIM_SIZE,	/* u32: IP length a trimmed packet keeps, bytes; 0 = headers only */
	TCA_NDP_TRIM_DSCP_HOST,	/* u8: DSCP of packets trimmed by a host-facing port; 64 = keep */
	TCA_NDP_TRIM_DSCP_FABRIC, /* u8: DSCP of packets trimmed by a fabric port; 64 = keep */
	TCA_NDP_CE_THRESH,	/* u32: queue length that CE-marks ECT packets, packets; 0 = off */
	__TCA_NDP_MAX
};

#define TCA_NDP_MAX	(__TCA_NDP_MAX - 1)

/* Limits of the attribute values (the kernel's netlink policy). */
#define TC_NDP_LIMIT_MAX	65535
#define TC_NDP_HLIMIT_MAX	131070
#define TC_NDP_OLIMIT_MAX	65535
#define TC_NDP_WRR_MAX		1024
#define TC_NDP_QUANTUM_MIN	256
#define TC_NDP_QUANTUM_MAX	1048576
#define TC_NDP_GROUP_MAX	65535
#define TC_NDP_GROUP_PORTS_MAX	64	/* ports in one group */
#define TC_NDP_THRESH_MAX	65535
#define TC_NDP_DCC_MAX		15
#define TC_NDP_DEFLECT_FLOWS	8	/* entries of a group's deflection table */
#define TC_NDP_DEFLECT_TOKENS	4	/* entries short flows may hold at once */
#define TC_NDP_DEFLECT_SHORT	102400	/* bytes: a flow up to this is short */
/*
 * A non-zero trim size is at least an IPv4 header and the NDP header
 * (a packet whose headers are longer keeps its headers), at most an
 * Ethernet MTU: a trimmed packet is meant to be small.
 */
#define TC_NDP_TRIM_SIZE_MIN	60
#define TC_NDP_TRIM_SIZE_MAX	1500
#define TC_NDP_DSCP_KEEP	64	/* trim-dscp-*: do not re-mark */

/**
 * enum tc_ndp_mode - scheduling of the NDP data queue
 * @TC_NDP_MODE_NDP: FIFO data queue; overflow trims the arrival or the
 *	tail; header and data queues served by weighted round robin.
 * @TC_NDP_MODE_PFABRIC: the data queue is a pFabric priority buffer
 *	(ndphdr.prio, lower is more urgent); headers are served first.
 */
enum tc_ndp_mode {
	TC_NDP_MODE_NDP,
	TC_NDP_MODE_PFABRIC,
	__TC_NDP_MODE_MAX
};

#define TC_NDP_MODE_MAX	(__TC_NDP_MODE_MAX - 1)

/*
 * struct tc_ndp_xstats - "tc -s qdisc show" statistics of sch_ndp.
 * Counters count packets unless named *_bytes.  The backlog fields are a
 * snapshot.
 */
struct tc_ndp_xstats {
	__u64	trim_arrival;	/* overflow: the arriving data packet trimmed */
	__u64	trim_tail;	/* overflow: the tail data packet trimmed */
	__u64	trim_fail;	/* trimming impossible (no memory, GSO): dropped */
	__u64	hdr_drops;	/* header queue full: dropped */
	__u64	rts;		/* header queue full: returned to sender */
	__u64	data_drops;	/* data packets dropped (never when trimming works) */
	__u64	other_drops;	/* other-traffic queue full: dropped */
	__u64	pfabric_evict;	/* pFabric: buffered packet evicted (trimmed) */
	__u64	hdr_bytes;	/* bytes sent from the header queue */
	__u64	data_bytes;	/* bytes sent from the data queue */
	__u64	other_bytes;	/* bytes sent from the other-traffic queue */
	__u64	hdr_pkts;	/* packets sent from the header queue */
	__u64	data_pkts;	/* packets sent from the data queue */
	__u64	other_pkts;	/* packets sent from the other-traffic queue */
	__u64	throttled;	/* dequeues deferred by rate emulation */
	__u32	hdr_qlen;	/* packets in the header queue */
	__u32	data_qlen;	/* packets in the data queue */
	__u32	other_qlen;	/* packets in the other-traffic queue */
	__u32	hdr_backlog;	/* bytes in the header queue */
	__u32	data_backlog;	/* bytes in the data queue */
	__u32	other_backlog;	/* bytes in the other-traffic queue */
	__u64	detour_out;	/* OPF: packets detoured to a sibling port */
	__u64	detour_nosib;	/* OPF: eligible, but no usable sibling port */
	__u64	detour_fail;	/* OPF/deflection: sibling chosen, no route, neighbour or memory */
	__u64	detour_in;	/* NDP packets enqueued with ndphdr.detours > 0 */
	__u64	deflect_out;	/* Dart: packets sent through a flow's deflected port */
	__u64	deflect_new;	/* Dart: deflection table entries allocated */
	__u64	deflect_free;	/* Dart: entries freed by a flow's last packet */
	__u64	deflect_full;	/* Dart: first packets not deflected: table or tokens exhausted */
	__u64	gso_split;	/* NDP GSO super-packets cut into packets at enqueue */
	__u64	gso_segs;	/* packets those super-packets were cut into */
	__u64	encap;		/* NDP over UDP packets enqueued (udp-port) */
	__u64	trim_remark;	/* trimmed here and re-marked with trim-dscp-host/-fabric */
	__u64	ce_mark;	/* ECT packets marked CE (ce-thresh) */
};

#endif /* _UAPI_LINUX_NDP_SCHED_H */
