/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * NDP: user API of the NDP transport: socket type, protocol number,
 * socket options, the generic netlink family, and the wire header
 * (struct ndphdr, packet types, flags, options), as <linux/tcp.h> and
 * <linux/udp.h> carry tcphdr and udphdr.  The sch_ndp qdisc's API is in
 * <linux/ndp_sched.h>.
 *
 * This is the one definition of the wire header: the modules (through
 * include/net/ndp_wire.h, which adds the kernel helpers), the C tools and
 * the tests include it.  Documentation/networking/ndp-wire.rst is the
 * normative description of what each field means.
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

/*
 * Socket options at level SOL_NDP (getsockopt/setsockopt).  Like SOL_TCP
 * (6) and SOL_UDP (17), the level is the protocol number; 253 collides
 * with no SOL_* of include/linux/socket.h (they run 0..287, and
 * none of them is 253).
 */
#define SOL_NDP			IPPROTO_NDP

/* ---- The wire header (Documentation/networking/ndp-wire.rst) ---- */

/**
 * enum ndp_pkt_type - value of &ndphdr.type
 * @NDP_PKT_DATA: payload-carrying packet (possibly trimmed to its header).
 * @NDP_PKT_ACK: data packet @psn arrived intact (PULLACK with NDP_F_PULL).
 * @NDP_PKT_NACK: header of data packet @psn arrived trimmed; sender queues
 *	it for retransmission (sends it at once if NDP_F_PULL is set).
 * @NDP_PKT_PULL: pull counter advanced; send that many packets.
 * @NDP_PKT_RST: control reply: no socket for this packet (nothing listens,
 *	or the connection is gone).  Carries the offending @nonce and @psn.
 * @NDP_PKT_CHALLENGE: control reply to a first-window DATA packet the
 *	receiver would not create state for (admission pressure): carries
 *	that packet's @nonce and @psn and a cookie in @pull, which the
 *	sender echoes (NDP_F_ECHO) when it sends that packet again.  Never
 *	larger than the packet it answers.
 * @NDP_PKT_TOKEN: control packet of a passive connection whose peer proved
 *	its address: a token in @pull the opener may present in later first
 *	windows to this server address (NDP_F_TOKEN); @syn_off is the
 *	cumulative ack, as in ACK.
 * @NDP_PKT_MAX: number of types, first invalid value.
 */
enum ndp_pkt_type {
	NDP_PKT_DATA	= 1,
	NDP_PKT_ACK	= 2,
	NDP_PKT_NACK	= 3,
	NDP_PKT_PULL	= 4,
	NDP_PKT_RST	= 5,
	NDP_PKT_CHALLENGE = 6,
	NDP_PKT_TOKEN	= 7,
	NDP_PKT_MAX,
};

/* &ndphdr.flags bits (host order values, the field is big endian). */
#define NDP_F_SYN	0x0001	/* first-window DATA; @syn_off is valid */
#define NDP_F_LAST	0x0002	/* last DATA packet of the data queued so far */
#define NDP_F_TRIMMED	0x0004	/* payload cut by a switch (set by switches) */
#define NDP_F_RTS	0x0008	/* returned to sender (set by switches) */
#define NDP_F_UNSCHED	0x0010	/* pushed, not pulled (first window, OPF) */
#define NDP_F_PULL	0x0020	/* ACK/NACK also carries a pull (@pull) */
#define NDP_F_FIN	0x0040	/* DATA: sender shut down writing after this */
#define NDP_F_RTX	0x0080	/* DATA: a retransmission */
#define NDP_F_PASSIVE	0x0100	/* DATA: from the responder; never opens */
#define NDP_F_ECHO	0x0200	/* SYN DATA: @pull echoes a CHALLENGE cookie */
#define NDP_F_TOKEN	0x0400	/* SYN DATA: @pull carries a TOKEN's token */
#define NDP_F_DUP	0x0800	/* ACK: the DATA it reports had arrived before */
#define NDP_F_CE	0x1000	/* ACK/NACK: the DATA it reports arrived CE */
#define NDP_F_ALL	0x1fff	/* every defined flag */
/* Flags a switch may change in flight; the header checksum is updated. */
#define NDP_F_SWITCH	(NDP_F_TRIMMED | NDP_F_RTS)

/*
 * Header length: &ndphdr.doff counts 32-bit words, NDP_HDR_WORDS for the
 * fixed header alone.  A header with doff > NDP_HDR_WORDS carries
 * doff * 4 - NDP_HDR_LEN option bytes after struct ndphdr, before the
 * payload; receivers and switches skip options they do not know (the
 * header checksum covers the fixed header only).  doff is 8 bits, so a
 * header (with options) is at most NDP_DOFF_MAX words long.
 */
#define NDP_HDR_WORDS	10
#define NDP_HDR_LEN	(NDP_HDR_WORDS * 4)
#define NDP_DOFF_MAX	255

/*
 * Options, laid out as TCP's: a kind byte, then (but for NDP_OPT_EOL and
 * NDP_OPT_NOP) a length byte counting the whole option, then the value.
 * NDP_OPT_EOL ends the list, NDP_OPT_NOP is one byte of padding; a length
 * below 2 or past the header ends the parse.  Unknown kinds are skipped.
 *
 * NDP_OPT_ROOM (ACK, NACK, PULL; NDP_OPT_ROOM_LEN bytes): the receiver's
 * room for pushed data, in packets, as a __be16 after kind and length: a
 * sender pushes no more unscheduled packets than that (0: none) until a
 * packet without the option or with a larger value comes.  Without the
 * option the receiver sets no limit.
 *
 * NDP_OPT_ACK (DATA; NDP_OPT_ACK_LEN bytes, struct ndp_opt_ack): an ACK
 * riding on DATA to the peer whose packet it reports.  The receiver of a
 * DATA packet that ends a message (LAST) may hold its ACK for up to the
 * microseconds that packet's &ndphdr.acks allows and send it on its own
 * next DATA instead of alone; only a peer that allowed it (acks not 0)
 * gets one.  The option carries its own checksum, since the header
 * checksum covers the fixed header only and the payload's does not
 * cover options: an option that does not verify is ignored.
 */
#define NDP_OPT_EOL		0
#define NDP_OPT_NOP		1
#define NDP_OPT_ROOM		2
#define NDP_OPT_ROOM_LEN	4
#define NDP_OPT_ACK		3
#define NDP_OPT_ACK_LEN		16

/**
 * struct ndp_opt_ack - NDP_OPT_ACK, an ACK carried by DATA
 * @kind: NDP_OPT_ACK.
 * @len: NDP_OPT_ACK_LEN.
 * @csum: Internet checksum of the option's NDP_OPT_ACK_LEN bytes, this
 *	field zero while it is computed: the option sums to zero.
 * @psn: as &ndphdr.psn of an ACK: the last psn reported.
 * @cum: as &ndphdr.syn_off of an ACK: the cumulative ack.
 * @path: as &ndphdr.path of an ACK: the path the reported DATA came on.
 * @acks: bits 0-6 (NDP_OPT_ACK_SPAN): as &ndphdr.acks of an ACK,
 *	1..NDP_ACK_SPAN_MAX consecutive psns ending with @psn;
 *	NDP_OPT_ACK_CE: as NDP_F_CE on an ACK.
 * @delay: microseconds the receiver held the ACK before it left,
 *	saturated at 65535 (the sender takes it off its RTT sample).
 */
struct ndp_opt_ack {
	__u8	kind;
	__u8	len;
	__sum16	csum;
	__be32	psn;
	__be32	cum;
	__u8	path;
	__u8	acks;
	__be16	delay;
};

#define NDP_OPT_ACK_SPAN	0x7f	/* &ndp_opt_ack.acks: the span */
#define NDP_OPT_ACK_CE		0x80	/* &ndp_opt_ack.acks: NDP_F_CE */

/**
 * struct ndphdr - the NDP header, 40 bytes, after the IPv4/IPv6 header
 * @source: source port.
 * @dest: destination port.
 * @type: &enum ndp_pkt_type.
 * @doff: header length in 32-bit words; NDP_HDR_WORDS today.  Receivers
 *	drop packets whose @doff is smaller; larger values leave room for
 *	options, which are skipped.
 * @flags: NDP_F_* bits.
 * @nonce: connection nonce, chosen at random (never zero) by the side that
 *	opens the connection and echoed on every packet of the connection in
 *	both directions.  Identifies the incarnation of a 4-tuple so that a
 *	replayed first window is recognised by time-wait state.
 * @psn: DATA: packet sequence number.  ACK/NACK/RST: the psn reported on.
 * @syn_off: DATA with SYN: offset of @psn from the first psn of the
 *	connection, so any first-window packet can create the connection.
 *	ACK/NACK/PULL: cumulative ack, the next psn the receiver waits for.
 * @pull: PULL, or ACK/NACK with NDP_F_PULL: the per-connection pull
 *	counter, incremented by one for each pull the receiver issues.
 *	CHALLENGE: the cookie.  DATA with NDP_F_ECHO (SYN, not PASSIVE):
 *	the cookie of a CHALLENGE, echoed.  DATA with NDP_F_TOKEN (SYN, not
 *	PASSIVE, never with NDP_F_ECHO): a token.  TOKEN: the token.
 *	Other DATA: 0.  ACK without NDP_F_PULL: see below.
 * @prio: DATA: bytes of the flow left to send when this packet was sent,
 *	including this one, saturated at U32_MAX (pFabric priority: lower is
 *	more urgent).  Control packets: 0.
 * @paylen: payload length as sent (before any trimming).
 * @path: path id the sender chose (echoed in ACK/NACK for scoreboards).
 * @detours: number of times switches detoured this packet (OPF).
 * @hcsum: header checksum: Internet checksum over a pseudo-header
 *	(source and destination address, protocol, header length) and the
 *	header with @hcsum zero.  Carried in UDP, the pseudo-header has no
 *	addresses (protocol and header length only), so that a NAT that
 *	rewrites the outer addresses leaves it valid.  It does not cover
 *	the payload, so it stays valid after trimming; switches that change
 *	@flags or @detours update it incrementally.  Swapping source and
 *	destination (return to sender) leaves it valid, as the sum is
 *	commutative.
 * @pcsum: payload checksum: Internet checksum of the payload alone, 0 when
 *	there is no payload.  Not checked on trimmed packets; 0x0000 and
 *	0xffff compare equal (ndp_pcsum_equal()).
 * @nsenders: ACK/NACK: number of senders currently active towards the
 *	receiver (Dart DASR hint, 0 = unknown).  DATA: 0.
 * @acks: ACK: how many consecutive psns, ending with @psn, arrived intact
 *	on path @path and are reported by this one ACK (a batch received
 *	at once, see GRO in ndp-transport.rst); 0 and 1 both mean @psn
 *	alone, at most NDP_ACK_SPAN_MAX.  DATA: the longest, in
 *	microseconds, the sender lets the receiver hold the ACK of this
 *	packet to carry it on its own DATA (NDP_OPT_ACK); 0 (older
 *	senders): ACK at once.  Other types: zero on send, ignored on
 *	receive.
 *
 * An ACK without NDP_F_PULL carries in @pull the microseconds the receiver
 * held it (a held ACK that found no DATA to ride on), 0 when it left at
 * once; the sender takes them off its RTT sample.
 */
struct ndphdr {
	__be16	source;
	__be16	dest;
	__u8	type;
	__u8	doff;
	__be16	flags;
	__be32	nonce;
	__be32	psn;
	__be32	syn_off;
	__be32	pull;
	__be32	prio;
	__be16	paylen;
	__u8	path;
	__u8	detours;
	__sum16	hcsum;
	__sum16	pcsum;
	__be16	nsenders;
	__be16	acks;
};

/* Most psns one ACK reports (&ndphdr.acks); a larger value is refused. */
#define NDP_ACK_SPAN_MAX	64

/* getsockopt(SOL_NDP, NDP_INFO): struct ndp_info. */
#define NDP_INFO		1

/*
 * struct ndp_info - what one NDP socket is doing (NDP_INFO, and the
 * INET_DIAG_INFO attribute of sock_diag).
 *
 * Extensible like struct tcp_info: fields are only ever appended, the
 * kernel copies min(optlen, sizeof(struct ndp_info)) bytes and writes back
 * that length, so an old program gets the prefix it knows and a new
 * program learns from the returned length which fields an old kernel
 * filled.  @ndpi_version changes only if the meaning of an existing field
 * changes (never so far).
 *
 * Counters are per connection, since it was created; packet counts wrap
 * at 2^32.  psns are raw 32-bit packet sequence numbers.  Listeners fill
 * @ndpi_version, @ndpi_state and the queue fields only.
 */
struct ndp_info {
	__u8	ndpi_version;		/* NDP_INFO_VERSION */
	__u8	ndpi_state;		/* TCP_* numbering (TCP_ESTABLISHED...) */
	__u8	ndpi_flags;		/* NDP_INFO_F_* */
	__u8	ndpi_paths;		/* paths of the current multipath round
					 * (0: the plain route only)
					 */
	__u32	ndpi_mss;		/* payload bytes per DATA packet */
	__u64	ndpi_bytes_sent;	/* bytes written by the application
					 * and queued (stream offset)
					 */
	__u64	ndpi_bytes_received;	/* bytes read by the application */
	__u32	ndpi_nonce;		/* connection nonce; 0 unless the
					 * caller has CAP_NET_ADMIN
					 */
	__u32	ndpi_rto_us;		/* the timer's wait now: timeout with
					 * backoff (before jitter)
					 */
	__u32	ndpi_backoff;		/* RTO expiries since the peer last
					 * made progress (give-up at 15)
					 */
	__u32	ndpi_srtt_us;		/* smoothed RTT (RFC 6298); 0: no
					 * sample yet
					 */
	__u32	ndpi_pull_gap_us;	/* mean gap between pulls received
					 * while waiting for them (0: none)
					 */

	/* Sequence state. */
	__u32	ndpi_snd_una;		/* oldest unacknowledged psn */
	__u32	ndpi_snd_nxt;		/* psn of the next packet queued */
	__u32	ndpi_rcv_nxt;		/* next in-order psn expected */
	__u32	ndpi_rcv_high;		/* one past the highest psn seen */

	/* Queues. */
	__u32	ndpi_sndq_pkts;		/* packets queued, sent or not, not
					 * yet acknowledged in order
					 */
	__u32	ndpi_unsent_pkts;	/* of which never sent */
	__u32	ndpi_rtx_pending;	/* NACKed or returned, waiting for a
					 * pull to be resent
					 */
	__u32	ndpi_ooo_pkts;		/* received out of order, held */
	__u32	ndpi_sndq_bytes;	/* payload not yet acknowledged
					 * (SIOCOUTQ)
					 */
	__u32	ndpi_rcvq_bytes;	/* bytes waiting to be read (SIOCINQ);
					 * listeners: connections waiting
					 * to be accepted
					 */
	__u32	ndpi_credit;		/* packets the peer's pulls allow */
	__u32	ndpi_pull_pending;	/* pulls owed to the peer, not sent */

	/* Sender side. */
	__u32	ndpi_data_sent;		/* DATA packets transmitted,
					 * retransmissions included
					 */
	__u32	ndpi_rtx_nack;		/* retransmitted after a NACK */
	__u32	ndpi_rtx_timeout;	/* retransmitted by the RTO */
	__u32	ndpi_rtx_rts;		/* resent at once after a return
					 * to sender
					 */
	__u32	ndpi_rtos;		/* RTO expiries that resent a packet
					 * presumed lost (probes for pulls
					 * not counted)
					 */
	__u32	ndpi_acks_rcvd;		/* ACKs of our DATA received */
	__u32	ndpi_nacks_rcvd;	/* NACKs of our DATA received */
	__u32	ndpi_rts_rcvd;		/* our headers returned to sender */
	__u32	ndpi_pulls_rcvd;	/* the peer's pull counter (pulls it
					 * sent that reached us, cumulative)
					 */

	/* Receiver side. */
	__u32	ndpi_data_rcvd;		/* DATA packets accepted (queued) */
	__u32	ndpi_trims_rcvd;	/* trimmed headers received */
	__u32	ndpi_nacks_sent;	/* NACKs sent (trims, full buffers) */
	__u32	ndpi_pulls_sent;	/* our pull counter (pulls sent) */

	/* DASR and unscheduled windows (appended). */
	__u32	ndpi_push_window;	/* packets the last unscheduled
					 * window was given (init_window, or
					 * fewer after DASR); 0: none yet
					 */
	__u16	ndpi_peer_nsenders;	/* active senders the peer last
					 * advertised (0: unknown)
					 */
	__u16	ndpi_nsenders;		/* active senders this namespace
					 * advertises now (0: DASR off)
					 */

	/* RTT estimate and retransmission timeout (appended). */
	__u32	ndpi_rttvar_us;		/* RTT variation (RFC 6298) */
	__u32	ndpi_min_rtt_us;	/* windowed minimum RTT; 0: no sample */
	__u32	ndpi_rtt_samples;	/* RTT samples taken (Karn's rule) */
	__u32	ndpi_rto_backoff;	/* expiries since the oldest packet in
					 * flight was acknowledged: the timer
					 * waits the timeout times 2^this
					 */
	__u32	ndpi_rto_spurious;	/* expiries found spurious (the
					 * packet resent had arrived)
					 */
	__u32	ndpi_rtt_last_us;	/* the latest RTT sample */
};

#define NDP_INFO_VERSION	1

/* ndp_info.ndpi_flags */
#define NDP_INFO_F_PASSIVE	0x01	/* created by the peer's first window */
#define NDP_INFO_F_ADDR_OK	0x02	/* the peer proved its address */
#define NDP_INFO_F_PEER_SYNCED	0x04	/* the peer knows our first psn */
#define NDP_INFO_F_FIN_SENT	0x08	/* our FIN is queued or sent */
#define NDP_INFO_F_FIN_ACKED	0x10	/* our FIN was acknowledged */
#define NDP_INFO_F_FIN_RCVD	0x20	/* the peer's FIN arrived in order */
#define NDP_INFO_F_ORPHAN	0x40	/* closed by the application */

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
	NDP_A_SCORE_CES,	/* u32: ACKs/NACKs echoing CE (decayed) */
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
	/* 7 was NDP_CMD_SOCK_GET: sock_diag lists the sockets. */
	NDP_CMD_PATH_CHANGED = 8,	/* notification on "events" */
	__NDP_CMD_MAX
};

#define NDP_CMD_MAX		(__NDP_CMD_MAX - 1)

#endif /* _UAPI_LINUX_NDP_H */
