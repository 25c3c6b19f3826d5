/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * NDP: user API of the NDP transport (socket type, protocol number,
 * socket options) and of the sch_ndp qdisc (TCA_NDP_* attributes and
 * extended statistics).
 *
 * The wire format is not part of this header: see include/net/ndp_wire.h
 * and Documentation/networking/ndp-wire.rst.
 */
#ifndef _UAPI_LINUX_NDP_H
#define _UAPI_LINUX_NDP_H

#include <linux/types.h>

/*
 * SOCK_NDP: socket(AF_INET or AF_INET6, SOCK_NDP, 0) opens an NDP stream
 * socket.  Types 7..9 are unused by the kernel (SOCK_MAX is 11); 7 is the
 * first of them.  socket(AF_INET, SOCK_STREAM, IPPROTO_NDP) is equivalent.
 */
#define SOCK_NDP		7

/*
 * IPPROTO_NDP: 253 is one of the two IP protocol numbers RFC 3692 and
 * RFC 4727 reserve for experimentation, so it collides with no assigned
 * protocol.  A fabric that uses 253 for something else loads ndp.ko and
 * sch_ndp.ko with "ipproto=N" (both modules must agree); module autoload
 * by socket() only knows the default.
 */
#define IPPROTO_NDP		253

/* Socket options at level SOL_NDP (getsockopt/setsockopt). */
#define SOL_NDP			IPPROTO_NDP

/*
 * Generic netlink family "ndp": paths, parameters, counters, sockets.
 * Documentation/netlink/specs/ndp.yaml is the source of truth for the
 * values below; Documentation/networking/ndp-netlink.rst describes them.
 */
#define NDP_GENL_NAME		"ndp"
#define NDP_GENL_VERSION	1
#define NDP_GENL_MCGRP_EVENTS	"events"

/* Largest path id (ndphdr.path is 8 bits; 0 means "no path"). */
#define NDP_PATH_ID_MAX		255
/* Longest parameter name, including the terminating NUL. */
#define NDP_PARAM_NAME_LEN	32

/* NDP_A_PATH_STATE values. */
enum ndp_path_state {
	NDP_PATH_STATE_USABLE,
	NDP_PATH_STATE_EXCLUDED,
};

enum {
	NDP_A_UNSPEC,
	NDP_A_PATH_ID,		/* u32: 1..NDP_PATH_ID_MAX */
	NDP_A_PATH_DST,		/* binary: peer prefix, 4 or 16 bytes */
	NDP_A_PATH_DST_PLEN,	/* u8: prefix length */
	NDP_A_PATH_VIA_DST,	/* binary: alternative destination address */
	NDP_A_PATH_VIA_SRC,	/* binary: alternative source address */
	NDP_A_PATH_FWMARK,	/* u32: routing mark */
	NDP_A_PATH_STATE,	/* u8: enum ndp_path_state */
	NDP_A_PATH_SCORE,	/* nest: NDP_A_SCORE_* */
	NDP_A_PARAM_NAME,	/* string: a net.ndp sysctl name */
	NDP_A_PARAM_VALUE,	/* u32 */
	NDP_A_PARAM_MIN,	/* u32 */
	NDP_A_PARAM_MAX,	/* u32 */
	NDP_A_COUNTER,		/* nest: NDP_A_COUNTER_*, repeated */
	NDP_A_SOCK_FAMILY,	/* u16: AF_INET or AF_INET6 */
	NDP_A_SOCK_SADDR,	/* binary: 4 or 16 bytes */
	NDP_A_SOCK_DADDR,	/* binary: 4 or 16 bytes */
	NDP_A_SOCK_SPORT,	/* u16, host order */
	NDP_A_SOCK_DPORT,	/* u16, host order */
	NDP_A_SOCK_NONCE,	/* u32 */
	NDP_A_SOCK_STATE,	/* u8: TCP_* numbering */
	NDP_A_SOCK_SNDQ,	/* u32: packets queued to send or unacked */
	NDP_A_SOCK_RCVQ,	/* u32: bytes queued for reading */
	NDP_A_SOCK_INODE,	/* u64: socket inode number */
	NDP_A_PAD,
	__NDP_A_MAX
};

#define NDP_A_MAX		(__NDP_A_MAX - 1)

/* Inside NDP_A_PATH_SCORE: the path's scoreboard. */
enum {
	NDP_A_SCORE_UNSPEC,
	NDP_A_SCORE_ACKS,	/* u32 */
	NDP_A_SCORE_NACKS,	/* u32 */
	NDP_A_SCORE_RTOS,	/* u32 */
	NDP_A_SCORE_RTS,	/* u32 */
	NDP_A_SCORE_EXCLUSIONS,	/* u32: times the path was excluded */
	NDP_A_SCORE_TX,		/* u32: DATA packets sent (wraps, no decay) */
	NDP_A_SCORE_RTX,	/* u32: of which retransmissions */
	__NDP_A_SCORE_MAX
};

#define NDP_A_SCORE_MAX		(__NDP_A_SCORE_MAX - 1)

/* Inside NDP_A_COUNTER: one MIB counter (/proc/net/ndp_stat line). */
enum {
	NDP_A_COUNTER_UNSPEC,
	NDP_A_COUNTER_NAME,	/* string */
	NDP_A_COUNTER_VALUE,	/* u64 */
	NDP_A_COUNTER_PAD,
	__NDP_A_COUNTER_MAX
};

#define NDP_A_COUNTER_MAX	(__NDP_A_COUNTER_MAX - 1)

enum {
	NDP_CMD_UNSPEC,
	NDP_CMD_PATH_ADD,
	NDP_CMD_PATH_DEL,
	NDP_CMD_PATH_GET,	/* doit with NDP_A_PATH_ID, or dump */
	NDP_CMD_PARAM_GET,	/* doit with NDP_A_PARAM_NAME, or dump */
	NDP_CMD_PARAM_SET,
	NDP_CMD_COUNTERS_GET,
	NDP_CMD_SOCK_GET,	/* dump only */
	NDP_CMD_PATH_CHANGED,	/* notification on "events" */
	__NDP_CMD_MAX
};

#define NDP_CMD_MAX		(__NDP_CMD_MAX - 1)

#endif /* _UAPI_LINUX_NDP_H */
