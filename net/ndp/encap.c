// SPDX-License-Identifier: GPL-2.0
/*
 * NDP: NDP carried in UDP (net.ndp.udp_port).
 *
 * Fabrics hash their ECMP next hops on addresses and, for TCP and UDP
 * only, ports; some filter IP protocols they do not know.  With
 * net.ndp.udp_port set, a namespace sends every NDP packet as the payload
 * of a UDP datagram to that port and receives NDP on that port as well as
 * natively:
 *
 *   IP (protocol 17) | UDP (source: path entropy, destination: udp_port,
 *   checksum) | NDP header | payload
 *
 * The NDP header is the native one but for its header checksum, whose
 * pseudo-header names no address (ndp_udp_hdr_csum(): ndp_ipproto, never
 * 17, and the header length): a NAT rewrites the outer addresses, and a
 * checksum over them would fail at the receiver.  sch_ndp trims,
 * prioritises and detours it the same way (its udp-port option; its
 * in-flight updates are incremental, whatever the pseudo-header).
 *
 * Checksums.  The UDP checksum is set in both families and left to the
 * device (CHECKSUM_PARTIAL, as UDP tunnels do): a NIC with checksum
 * offload fills it, veth carries the packet unsummed to a receiver on the
 * same host, and only a device without offload sums it in software.  It
 * covers the NDP header and payload, so the receiver does not sum the
 * payload again: UDP verifies it before NDP sees the packet (for free
 * where the NIC checked it), and ndp_encap_csum() derives the NDP
 * packet's sum from it for the payload check (ndp_pcsum_ok()).  So a
 * payload is summed once, where the sender copies it in (output.c), on
 * its way from sendmsg() to recvmsg().  NATs rewrite a UDP checksum as
 * they do for any UDP; sch_ndp recomputes it over the headers it leaves
 * when it trims (a trimmer that cannot must zero it).  A datagram with a
 * corrupt payload is dropped by UDP (Udp InCsumErrors) instead of being
 * NACKed as native NDP's is: the sender resends it on its RTO.  Receivers
 * take a zero checksum as before (RFC 6935 and 6936 allow it for tunnels
 * over IPv6; older NDP senders set it), and then check the payload
 * themselves; NDP's own header checksum protects the header either way.
 *
 * Through a NAT: a host behind one sets net.ndp.udp_fixed_sport and sends
 * every datagram from udp_port, which the NAT maps to a port of its own;
 * the peer answers at the source port it sees (ndp_encap_rport(),
 * &ndp_flow.encap_dport), from its udp_port, which the NAT maps back.
 * Connections are found by addresses, ports and nonce as they arrive, the
 * NAT's address included; admission cookies and tokens name that address
 * (ndp.rst, "Deploying NDP").
 *
 * The UDP source port is the path entropy.  Control packets and the plain
 * route of a connection use one port hashed from its addresses and ports
 * with a secret seed; a connection that sprays (path.c, net.ndp.spray_paths,
 * both families here) gives each of its paths a port of its own, so
 * switches hashing the UDP ports spread its packets over their equal-cost
 * next hops without any path configured.
 *
 * Receiving: one kernel UDP socket per family bound to udp_port in the
 * namespace, set up as a UDP tunnel (udp_tunnel.h): its encap_rcv strips
 * the UDP header and hands the packet to the native receive path.  ICMP
 * errors quoting an encapsulated packet reach encap_err_rcv and then
 * ndp_err(), which believes them only for a connection's packet in flight
 * as for native NDP.  The IPv4 socket does not let UDP apply a
 * FRAG_NEEDED itself (IP_PMTUDISC_OMIT): ndp_err() does once the quoted
 * packet is authenticated.  UDP over IPv6 has no such switch (it would
 * drop the error before the tunnel sees it): a Packet Too Big for an
 * encapsulated packet lowers the route's path MTU as for any UDP tunnel,
 * and ndp_err() still decides whether a connection resizes.
 *
 * udp_port is set by sysctl or netlink (ndp_encap_set_port()), serialised
 * by &ndp_encap_net.lock; the sockets of a new port are bound before the
 * old ones go, so a failure (port in use) changes nothing.  Packets read
 * the port once (READ_ONCE) and are encapsulated or not as a whole.
 * Connections size their packets when they are created: change the port
 * before opening connections (a packet made for native NDP that no longer
 * fits with the UDP header is fragmented by IP, see ndp_xmit_dst()).
 *
 * Sending: ndp_encap_xmit(), through udp_tunnel_xmit_skb() and
 * udp_tunnel6_xmit_skb(); no UDP or IP header is built here.
 */

#define pr_fmt(fmt) "NDP: " fmt

#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/jhash.h>
#include <linux/slab.h>
#include <linux/udp.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/udp.h>
#include <net/udp_tunnel.h>

#include "protocol.h"

/**
 * struct ndp_encap_net - the UDP tunnel sockets of one namespace
 * @lock: serialises changes of net.ndp.udp_port (&ndp_net.udp_port) and
 *	of the sockets.
 * @dead: the namespace is going: no socket may be opened any more.
 * @sock4: the IPv4 tunnel socket bound to udp_port (NULL: none).
 * @sock6: the IPv6 one.
 *
 * Private to this file (&ndp_net.encap): allocated by
 * ndp_encap_net_init(), freed by ndp_encap_net_free().
 */
struct ndp_encap_net {
	struct mutex	lock;		/* udp_port and the sockets */
	bool		dead;
	struct socket	*sock4;
	struct socket	*sock6;
};

/* UDP source ports of path entropy: the IANA dynamic range. */
#define NDP_ENCAP_SPORT_MIN	49152
#define NDP_ENCAP_SPORT_SPAN	16384

/*
 * Set once at module load (ndp_encap_seed_init()), not by
 * net_get_random_once() on the first packet: that disables a static key
 * from a work item, patching the module's text while packets run through
 * it, and a TCG guest once took the patch's int3 as a fatal trap there
 * (CI, spray.sh, 2026-11-29).
 */
static u32 ndp_encap_seed __read_mostly;

void __init ndp_encap_seed_init(void)
{
	ndp_encap_seed = get_random_u32();
}

/* The UDP source port of a connection's plain route and replies. */
__be16 ndp_encap_sport(const struct ndp_flow *fl)
{
	u32 h;

	h = jhash2((const u32 *)fl, 9, ndp_encap_seed);
	return htons(NDP_ENCAP_SPORT_MIN + h % NDP_ENCAP_SPORT_SPAN);
}

/**
 * ndp_encap_rport() - where to answer a peer whose datagram came from @sport
 * @net: the namespace.
 * @sport: the UDP source port of the datagram, as it arrived.
 *
 * A sender sends from an entropy port (49152-65535), which it does not
 * receive at, unless it has net.ndp.udp_fixed_sport set: then from its
 * udp_port, and a NAT in between may have mapped that to any port.  A
 * source port outside the entropy range (or our own udp_port) is thus
 * one the peer receives at: packets to it go to that port from our
 * udp_port, so that they match the NAT's mapping in reverse.
 *
 * Return: @sport, or 0 (send to net.ndp.udp_port, from entropy ports).
 */
__be16 ndp_encap_rport(struct net *net, __be16 sport)
{
	u16 port = ntohs(sport);

	if (port && (port < NDP_ENCAP_SPORT_MIN ||
		     port == READ_ONCE(ndp_pernet(net)->udp_port)))
		return sport;
	return 0;
}

/* A random port of the same range for a sprayed path (path.c). */
__be16 ndp_encap_sport_random(void)
{
	return htons(NDP_ENCAP_SPORT_MIN +
		     get_random_u32_below(NDP_ENCAP_SPORT_SPAN));
}

/**
 * ndp_encap_xmit() - send an NDP packet in UDP, by the kernel's tunnel output
 * @sk: the packet's socket, or the namespace's control socket for a
 *	reply without one (output.c): its TTL or hop limit, its IP_MTU_DISCOVER
 *	and the socket netfilter and cgroup egress programs see.
 * @fl: addresses of the packet, those of its path.
 * @dst: the route (a reference the packet takes over).
 * @skb: NDP header at skb->data, its checksum set; mark and priority set,
 *	IP's control block cleared, room in front for UDP, IP and link
 *	headers (ndp_xmit_dst()); skb->ignore_df when it was sent before the
 *	path MTU shrank and may be fragmented.
 * @dport: the tunnel port, net.ndp.udp_port.
 * @tos: TOS byte or traffic class (ndp_pkt_tos()).
 *
 * udp_tunnel_xmit_skb() and udp_tunnel6_xmit_skb() put the UDP and IP
 * headers in front, the UDP checksum left to the device (udp_set_csum(),
 * CHECKSUM_PARTIAL), and hand the packet to ip_local_out() /
 * ip6_local_out().  The UDP source port is the path's
 * entropy port.  IPv4's DF follows the socket as ip_queue_xmit() would
 * (ip_dont_fragment()) unless the packet may be fragmented; the IP id
 * comes from the kernel's generator, as for every UDP tunnel.  The IPv6
 * flow label is the path's, else the automatic one as ip6_xmit() would
 * make it (IPV6_AUTOFLOWLABEL, net.ipv6.auto_flowlabels).
 *
 * The socket handed to the tunnel output is @sk, not the namespace's
 * tunnel socket, as SCTP over UDP passes its own (sctp_v4_xmit(),
 * sctp_v6_xmit()), with bottom halves off as there: the tunnel sockets
 * (below) only receive.  So an encapsulated packet leaves as the NDP
 * socket's, like a native one: the same cgroup egress programs (they run
 * only when the output's socket is the packet's owner) and the same path
 * MTU rule (ip_skb_dst_mtu() asks the output's socket; the IPv4 tunnel
 * socket's IP_PMTUDISC_OMIT would fragment at the device MTU instead),
 * and no reference to a tunnel socket that a change of udp_port may
 * release meanwhile (7.3's udp_tunnel_sock_release() no longer waits for
 * an RCU grace period).
 */
void ndp_encap_xmit(struct sock *sk, const struct ndp_flow *fl,
		    struct dst_entry *dst, struct sk_buff *skb, __be16 dport,
		    u8 tos)
{
	__be16 sport = fl->encap_sport ?: ndp_encap_sport(fl);

	/*
	 * A peer that receives at a port of its own (behind a NAT) gets
	 * packets from udp_port, which its NAT maps back to it; with
	 * udp_fixed_sport (we are behind one) every packet leaves from it.
	 */
	if (fl->encap_dport) {
		sport = dport;
		dport = fl->encap_dport;
	} else if (READ_ONCE(ndp_pernet(sock_net(sk))->udp_fixed_sport)) {
		sport = dport;
	}
	/* iptunnel_xmit() counts into a tunnel device's stats if set. */
	skb->dev = NULL;
	/* The tunnel output counts its recursion per CPU (this_cpu ops). */
	local_bh_disable();
	if (fl->family == AF_INET) {
		int ttl = READ_ONCE(inet_sk(sk)->uc_ttl);
		__be16 df = 0;

		if (ttl < 0)
			ttl = ip4_dst_hoplimit(dst);
		if (ip_dont_fragment(sk, dst) && !skb->ignore_df)
			df = htons(IP_DF);
		ndp_udp_tunnel_xmit_skb(container_of(dst, struct rtable, dst),
					sk, skb, fl->laddr.s6_addr32[3],
					fl->raddr.s6_addr32[3], tos, ttl, df,
					sport, dport, false, false);
	} else {
		struct net *net = sock_net(sk);
		struct flowi6 fl6;
		__be32 label;
		int hop;

		memset(&fl6, 0, sizeof(fl6));
		fl6.flowi6_proto = IPPROTO_UDP;
		fl6.saddr = fl->laddr;
		fl6.daddr = fl->raddr;
		/* The automatic label hashes the connection, as before
		 * NDP went into UDP: entropy is the UDP source port's job.
		 */
		fl6.fl6_sport = fl->lport;
		fl6.fl6_dport = fl->rport;
		label = ip6_make_flowlabel(net, skb, fl->flowlabel,
					   ndp_ip6_autoflowlabel(net, sk),
					   &fl6);
		hop = ip6_sk_dst_hoplimit(inet6_sk(sk), &fl6, dst);
		ndp_udp_tunnel6_xmit_skb(dst, sk, skb, NULL, &fl6.saddr,
					 &fl6.daddr, tos, hop, label, sport,
					 dport, false);
	}
	local_bh_enable();
}

/*
 * What the UDP checksum of @skb (data at the UDP header) tells NDP.  UDP
 * hands a datagram with a checksum to encap_rcv only once it verified it
 * (udp_lib_checksum_complete()), so the whole datagram sums to zero with
 * its pseudo-header, and the NDP packet behind the UDP header sums to
 * minus the pseudo-header and the 8 bytes of that header: no pass over
 * the payload.  That sum goes on as CHECKSUM_COMPLETE from the NDP header
 * on, and the payload check (ndp_pcsum_ok()) takes it instead of summing
 * the payload again.  A datagram this host built that has not left
 * memory (CHECKSUM_PARTIAL: the UDP checksum is still the device's to
 * fill) stays as it is; NDP trusts it as TCP does.  A zero checksum (an
 * older sender, or a trimmed header) proves nothing: NDP sums the payload
 * itself.
 */
static void ndp_encap_csum(struct sk_buff *skb)
{
	const struct udphdr *uh = udp_hdr(skb);
	__wsum sum;

	if (!uh->check || skb->ip_summed == CHECKSUM_PARTIAL)
		return;
	if (skb->protocol == htons(ETH_P_IP))
		sum = inet_compute_pseudo(skb, IPPROTO_UDP);
	else
		sum = ip6_compute_pseudo(skb, IPPROTO_UDP);
	sum = csum_partial(uh, sizeof(*uh), sum);
	skb->csum = (__force __wsum)~(__force u32)sum;
	skb->ip_summed = CHECKSUM_COMPLETE;
	skb->csum_complete_sw = 1;
}

/*
 * encap_rcv of the tunnel sockets: @skb->data is at the UDP header, whose
 * length UDP has checked (and trimmed the packet to), and whose checksum,
 * if not zero, UDP has verified.  Always consumed.
 */
static int ndp_encap_rcv(struct sock *sk, struct sk_buff *skb)
{
	struct net *net = sock_net(sk);
	__be16 sport = udp_hdr(skb)->source;

	NDP_INC_STATS(net, NDP_MIB_ENCAPINPKTS);
	ndp_encap_csum(skb);
	__skb_pull(skb, sizeof(struct udphdr));
	ndp_udp_rcv(skb, ndp_encap_rport(net, sport));
	return 0;
}

/* An ICMP error quoting a datagram to our port: ours to look at. */
static int ndp_encap_err_lookup(struct sock *sk, struct sk_buff *skb)
{
	return 0;
}

/*
 * An ICMP error quoting a datagram to our port; @udp_off is the offset of
 * the quoted UDP header from skb->data (the quoted IP header).  The error
 * is read from the ICMP header itself, as the native handlers get it, so
 * it does not depend on what UDP made of it.
 */
static void ndp_encap_err(struct sock *sk, struct sk_buff *skb,
			  unsigned int udp_off)
{
	unsigned int off = udp_off + sizeof(struct udphdr);

	if (skb->protocol == htons(ETH_P_IP)) {
		u32 info = 0;

		if (icmp_hdr(skb)->type == ICMP_DEST_UNREACH &&
		    icmp_hdr(skb)->code == ICMP_FRAG_NEEDED)
			info = ntohs(icmp_hdr(skb)->un.frag.mtu);
		ndp_v4_icmp(skb, off, info);
	} else {
		ndp_v6_icmp(skb, icmp6_hdr(skb)->icmp6_type,
			    icmp6_hdr(skb)->icmp6_code, off,
			    icmp6_hdr(skb)->icmp6_mtu);
	}
}

NDP_ENCAP_ERR_RCV(ndp_encap_err_rcv, ndp_encap_err);

static int ndp_encap_sock_open(struct net *net, u16 port, bool v6,
			       struct socket **sockp)
{
	struct udp_tunnel_sock_cfg tcfg = {
		.encap_type		= 1,
		.encap_rcv		= ndp_encap_rcv,
		.encap_err_lookup	= ndp_encap_err_lookup,
		.encap_err_rcv		= ndp_encap_err_rcv,
	};
	struct udp_port_cfg ucfg = {
		.local_udp_port		= htons(port),
	};
	struct socket *sock;
	int err;

	if (v6) {
		ucfg.family = AF_INET6;
		ucfg.ipv6_v6only = 1;
		ucfg.use_udp6_rx_checksums = 0;	/* accept checksum 0 */
	} else {
		ucfg.family = AF_INET;
	}
	err = udp_sock_create(net, &ucfg, &sock);
	if (err)
		return err;
	if (!v6)	/* FRAG_NEEDED is ndp_err()'s to believe */
		ip_sock_set_mtu_discover(sock->sk, IP_PMTUDISC_OMIT);
	ndp_setup_udp_tunnel_sock(net, sock, &tcfg);
	/*
	 * The tunnel setup asks UDP to hand over final checksums
	 * (convert_csum): UDP would then cut a sender's batch of this host
	 * (SKB_GSO_UDP_L4 across a veth, output.c's ndp_udp_gso_batch())
	 * summing every segment in software (udp_rcv_segment()), a second
	 * pass over every payload.  NDP needs no conversion: ndp_encap_csum()
	 * makes CHECKSUM_COMPLETE itself from what UDP verified, and trusts
	 * a checksum this host left to a device (CHECKSUM_PARTIAL).
	 */
	inet_dec_convert_csum(sock->sk);
	*sockp = sock;
	return 0;
}

static void ndp_encap_sock_close(struct socket *sock)
{
	if (sock)
		ndp_udp_tunnel_sock_release(sock);
}

/**
 * ndp_encap_set_port() - open the tunnel sockets of a new net.ndp.udp_port
 * @net: the namespace.
 * @port: 0 (native NDP only) or the port.
 *
 * Return: 0, or why the port cannot be used (-EADDRINUSE: another socket
 * has it); the namespace then keeps its old port and sockets.
 */
int ndp_encap_set_port(struct net *net, u32 port)
{
	struct ndp_net *nn = ndp_pernet(net);
	struct ndp_encap_net *en = nn->encap;
	struct socket *s4 = NULL, *s6 = NULL, *o4, *o6;
	int err = 0;

	mutex_lock(&en->lock);
	err = -ENODEV;
	if (en->dead)	/* the namespace is going away */
		goto out;
	err = 0;
	if (port == nn->udp_port)
		goto out;
	if (port) {
		err = ndp_encap_sock_open(net, port, false, &s4);
		if (err)
			goto out;
		if (ipv6_mod_enabled()) {
			err = ndp_encap_sock_open(net, port, true, &s6);
			if (err) {
				ndp_encap_sock_close(s4);
				goto out;
			}
		}
	}
	o4 = en->sock4;
	o6 = en->sock6;
	en->sock4 = s4;
	en->sock6 = s6;
	WRITE_ONCE(nn->udp_port, port);
	ndp_encap_sock_close(o4);
	ndp_encap_sock_close(o6);
out:
	mutex_unlock(&en->lock);
	return err;
}

int ndp_encap_net_init(struct ndp_net *nn)
{
	struct ndp_encap_net *en = kzalloc(sizeof(*en), GFP_KERNEL);

	if (!en)
		return -ENOMEM;
	mutex_init(&en->lock);
	nn->encap = en;
	return 0;
}

/*
 * The namespace goes (first of its NDP state): no packet reaches its
 * tunnel sockets any more, and a sysctl write still in flight cannot open
 * new ones (the sysctls go later).
 */
void ndp_encap_net_exit(struct ndp_net *nn)
{
	struct ndp_encap_net *en = nn->encap;

	mutex_lock(&en->lock);
	en->dead = true;
	ndp_encap_sock_close(en->sock4);
	ndp_encap_sock_close(en->sock6);
	en->sock4 = NULL;
	en->sock6 = NULL;
	WRITE_ONCE(nn->udp_port, 0);
	mutex_unlock(&en->lock);
}

/* After the sysctls and netlink are gone: nothing sets the port any more. */
void ndp_encap_net_free(struct ndp_net *nn)
{
	struct ndp_encap_net *en = nn->encap;

	WARN_ON_ONCE(!en->dead);
	mutex_destroy(&en->lock);
	kfree(en);
	nn->encap = NULL;
}
