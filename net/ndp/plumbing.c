// SPDX-License-Identifier: GPL-2.0
/*
 * NDP: glue between ndp.ko and the kernel: module load and unload, the IP
 * protocol handlers, the socket types and per-namespace setup.
 *
 * Registration order (and its exact reverse on failure and unload):
 *   1. struct proto for IPv4 and IPv6 sockets;
 *   2. per-netns state (knobs, counters, /proc/net/ndp_stat);
 *   3. the IPv4 and IPv6 protocol handlers for ndp_ipproto;
 *   4. the socket types: SOCK_NDP and (SOCK_STREAM, IPPROTO_NDP), each for
 *      AF_INET and AF_INET6;
 *   5. the segmentation offload for ndp_ipproto (offload.c);
 *   6. the "ndp" generic netlink family (netlink.c).
 * Sockets hold a reference on the module (through struct proto.owner), so
 * the module cannot be unloaded while any socket exists.
 */

#define pr_fmt(fmt) "NDP: " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/net.h>
#include <net/icmp.h>
#include <net/inet_common.h>
#include <net/ip6_route.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/l3mdev.h>
#include <net/protocol.h>
#include <net/route.h>
#include <net/sock.h>
#include <net/transp_v6.h>

#include "protocol.h"

unsigned int ndp_ipproto = IPPROTO_NDP;
EXPORT_SYMBOL_GPL(ndp_ipproto);	/* ndp_diag.ko */
module_param_named(ipproto, ndp_ipproto, uint, 0444);
MODULE_PARM_DESC(ipproto, "IP protocol number of NDP (default 253, RFC 3692 experimental)");

unsigned int ndp_net_id __read_mostly;
EXPORT_SYMBOL_GPL(ndp_net_id);	/* ndp_diag.ko */

/* .protocol is filled in at load time from the ipproto parameter. */
static struct inet_protosw ndp_protosw[] = {
	{ .type = SOCK_NDP,    .prot = &ndp_prot, .ops = &ndp_inet_ops },
	{ .type = SOCK_STREAM, .prot = &ndp_prot, .ops = &ndp_inet_ops },
};

static struct inet_protosw ndpv6_protosw[] = {
	{ .type = SOCK_NDP,    .prot = &ndpv6_prot, .ops = &ndp_inet6_ops },
	{ .type = SOCK_STREAM, .prot = &ndpv6_prot, .ops = &ndp_inet6_ops },
};

/* ---------------------------------------------------------------------- */
/* Receive handlers.                                                      */

/*
 * Pull and check the fixed header and its options.  On success the
 * transport header is set; the caller verifies the header checksum.
 * Returns why the packet is to be dropped, or 0.
 */
static enum skb_drop_reason ndp_rcv_hdr(struct sk_buff *skb)
{
	struct ndphdr *nh;

	if (!pskb_may_pull(skb, NDP_HDR_LEN))
		return SKB_DROP_REASON_PKT_TOO_SMALL;
	skb_reset_transport_header(skb);
	nh = ndp_hdr(skb);
	if (!ndp_hdr_is_sane(nh))
		return SKB_DROP_REASON_INVALID_PROTO;
	if (!pskb_may_pull(skb, nh->doff * 4))
		return SKB_DROP_REASON_PKT_TOO_SMALL;
	return SKB_NOT_DROPPED_YET;
}

/* A GSO packet that is not a batch of ours (offload.c): drop it. */
static int ndp_rcv_not_batch(struct sk_buff *skb)
{
	NDP_INC_STATS(dev_net(skb->dev), NDP_MIB_INERRS);
	kfree_skb_reason(skb, SKB_DROP_REASON_INVALID_PROTO);
	return 0;
}

/**
 * ndp_l3mdev_oif() - the VRF a packet arrived in, as the oif of the routes
 * that answer it
 * @net: the namespace.
 * @ifindex: the packet's skb_iif (a VRF device, or a device in a VRF).
 *
 * A packet received in a VRF is answered in its table, as TCP answers
 * with ip_send_unicast_reply(): the route lookups of its replies, of the
 * unicast check of its sender and of a connection it opens name the VRF
 * device as their oif.
 *
 * Return: the VRF device's ifindex, or 0 outside any VRF.
 */
int ndp_l3mdev_oif(struct net *net, int ifindex)
{
	return ifindex ? l3mdev_master_ifindex_by_index(net, ifindex) : 0;
}

/* ndp_l3mdev_oif() of a packet being received: no lookup outside a VRF. */
static int ndp_skb_l3mdev_oif(const struct sk_buff *skb)
{
	if (!netif_is_l3_master(skb->dev) && !netif_is_l3_slave(skb->dev))
		return 0;
	return ndp_l3mdev_oif(dev_net(skb->dev), skb->skb_iif);
}

/*
 * The checks both families' handlers make, then the packet's way in.
 * @encap: it came in UDP (ndp_udp_rcv()), its header checksum has no
 * addresses in its pseudo-header; @rport: the UDP port to answer at
 * (&ndp_flow.encap_dport).
 */
static int __ndp_v4_rcv(struct sk_buff *skb, bool encap, __be16 rport)
{
	struct net *net = dev_net(skb->dev);
	enum skb_drop_reason reason;
	const struct iphdr *iph;
	struct sk_buff *list = NULL;
	struct rtable *rt;
	struct ndp_flow fl;
	struct ndphdr *nh;
	bool freed, gro, ok;

	if (skb_is_gso(skb)) {
		/* Batches are native NDP's (offload.c). */
		if (encap) {
			NDP_INC_STATS(net, NDP_MIB_INERRS);
			kfree_skb_reason(skb, SKB_DROP_REASON_INVALID_PROTO);
			return 0;
		}
		list = ndp_gro_unbatch(skb, &freed, &gro);
		if (!list)
			return freed ? 0 : ndp_rcv_not_batch(skb);
	}
	NDP_INC_STATS(net, NDP_MIB_INPKTS);
	reason = ndp_rcv_hdr(skb);
	if (reason)
		goto bad;
	nh = ndp_hdr(skb);
	iph = ip_hdr(skb);
	rt = skb_rtable(skb);
	/* Unicast only, both ways: an answer must not reach a group. */
	reason = SKB_DROP_REASON_IP_INADDRERRORS;
	if ((rt && rt->rt_flags & (RTCF_BROADCAST | RTCF_MULTICAST)) ||
	    ipv4_is_multicast(iph->saddr) || ipv4_is_lbcast(iph->saddr) ||
	    ipv4_is_zeronet(iph->saddr))
		goto bad;
	if (encap)
		ok = ndp_udp_hdr_csum_ok(nh, ndp_ipproto);
	else
		ok = ndp_v4_hdr_csum_ok(nh, iph->saddr, iph->daddr,
					ndp_ipproto);
	if (!ok) {
		NDP_INC_STATS(net, NDP_MIB_INCSUMERRS);
		reason = SKB_DROP_REASON_SKB_CSUM;
		goto bad;
	}
	ndp_flow_rcv_v4(&fl, iph, nh);
	fl.ifindex = ndp_skb_l3mdev_oif(skb);
	fl.encap_dport = rport;
	if (list)
		return ndp_rcv_list(skb, list, &fl, gro);
	return ndp_rcv(skb, &fl);
bad:
	NDP_INC_STATS(net, NDP_MIB_INERRS);
	kfree_skb_list_reason(list, reason);
	kfree_skb_reason(skb, reason);
	return 0;
}

/* IPv4 receive handler. */
int ndp_v4_rcv(struct sk_buff *skb)
{
	return __ndp_v4_rcv(skb, false, 0);
}

static void ndp_v4_update_pmtu(struct sk_buff *skb, struct net *net, u32 mtu)
{
	ipv4_update_pmtu(skb, net, mtu, 0, ndp_ipproto);
}

static void ndp_v6_update_pmtu(struct sk_buff *skb, struct net *net, u32 mtu)
{
	ip6_update_pmtu(skb, net, htonl(mtu), 0, 0, sock_net_uid(net, NULL));
}

/*
 * ICMP error @skb (skb->data at the quoted IP header of @family) about
 * DATA @psn of connection @sk, socket lock held: believed or not
 * (ndp_rcv_icmp()); if believed, the route learns the MTU before the
 * packet is resent.
 */
static bool ndp_err_locked(struct sock *sk, struct sk_buff *skb, int family,
			   u32 psn, u32 mtu, int err,
			   struct sk_buff_head *xmitq)
{
	ndp_sock_assert_locked(sk);
	if (!ndp_rcv_icmp(sk, psn, mtu, err, xmitq))
		return false;
	if (mtu) {
		if (family == AF_INET)
			ndp_v4_update_pmtu(skb, sock_net(sk), mtu);
		else
			ndp_v6_update_pmtu(skb, sock_net(sk), mtu);
	}
	return true;
}

/*
 * An ICMP error for a socket its user owns waits in the backlog as a
 * packet does: a clone (the error handler's caller frees @skb), with what
 * ndp_err_backlog() needs.  Returns false if it could not be queued.
 */
static bool ndp_err_to_backlog(struct sock *sk, struct sk_buff *skb,
			       int family, u32 psn, u32 mtu, int err)
{
	struct ndp_backlog_cb *bcb;
	struct sk_buff *clone;

	clone = skb_clone(skb, GFP_ATOMIC);
	if (!clone)
		return false;
	bcb = NDP_BACKLOG_CB(clone);
	memset(bcb, 0, sizeof(*bcb));
	bcb->kind = family == AF_INET ? NDP_BL_ICMP4 : NDP_BL_ICMP6;
	bcb->psn = psn;
	bcb->mtu = mtu;
	bcb->err = err;
	if (ndp_add_backlog(sk, clone))
		return true;
	kfree_skb(clone);
	return false;
}

/* An ICMP error that waited in the backlog (ndp_backlog_rcv()). */
void ndp_err_backlog(struct sock *sk, struct sk_buff *skb)
{
	struct ndp_backlog_cb *bcb = NDP_BACKLOG_CB(skb);
	int family = bcb->kind == NDP_BL_ICMP4 ? AF_INET : AF_INET6;
	struct sk_buff_head xmitq;

	__skb_queue_head_init(&xmitq);
	if (!ndp_err_locked(sk, skb, family, bcb->psn, bcb->mtu, bcb->err,
			    &xmitq))
		NDP_INC_STATS(sock_net(sk), NDP_MIB_ICMPIGNORED);
	ndp_xmit_queue(sk, &xmitq);
	consume_skb(skb);
}

/**
 * ndp_err() - an ICMP error quoting a packet of ours
 * @skb: the ICMP error, skb->data at the quoted IP header.
 * @net: its namespace.
 * @fl: the quoted addresses from our point of view (family set).
 * @q: the quoted NDP header (ports, type, nonce and psn at least).
 * @mtu: the path MTU it reports, or 0.
 * @err: the error it reports, or 0.
 *
 * Only DATA of a known connection whose psn is in flight is believed
 * (ndp_rcv_icmp()); only then may the route's path MTU be lowered, so
 * that an off-path host that cannot see the connection's nonce and psns
 * cannot shrink it.  Native (ndp_v4_err(), ndp_v6_err()) and carried in
 * UDP (encap.c).  Softirq; for a socket its user owns, the error waits in
 * the socket's backlog.
 */
void ndp_err(struct sk_buff *skb, struct net *net, struct ndp_flow *fl,
	     const struct ndphdr *q, u32 mtu, int err)
{
	struct sk_buff_head xmitq;
	struct sock *sk;
	bool ok = false;

	fl->lport = q->source;
	fl->rport = q->dest;
	fl->nonce = ntohl(q->nonce);
	if (q->type != NDP_PKT_DATA || !fl->nonce)
		goto ignore;
	sk = ndp_conn_lookup(net, fl);
	if (!sk)
		sk = ndp_conn_lookup_any(net, fl);
	if (!sk)
		goto ignore;
	__skb_queue_head_init(&xmitq);
	bh_lock_sock(sk);
	if (!sock_owned_by_user(sk))
		ok = ndp_err_locked(sk, skb, fl->family, ntohl(q->psn), mtu,
				    err, &xmitq);
	else
		ok = ndp_err_to_backlog(sk, skb, fl->family, ntohl(q->psn),
					mtu, err);
	bh_unlock_sock(sk);
	ndp_xmit_queue(sk, &xmitq);
	sock_put(sk);
	if (ok)
		return;
ignore:
	NDP_INC_STATS(net, NDP_MIB_ICMPIGNORED);
}

/**
 * ndp_v4_icmp() - an ICMP error quoting an IPv4 packet of ours
 * @skb: the error, skb->data at the quoted IP header.
 * @off: offset of the quoted NDP header from skb->data.
 * @info: what icmp_rcv() passes to error handlers (FRAG_NEEDED: the MTU).
 *
 * Native NDP (ndp_v4_err()) and NDP carried in UDP (encap.c).
 */
void ndp_v4_icmp(struct sk_buff *skb, unsigned int off, u32 info)
{
	const struct iphdr *iph = (const struct iphdr *)skb->data;
	int type = icmp_hdr(skb)->type, code = icmp_hdr(skb)->code;
	struct net *net = dev_net(skb->dev);
	struct ndphdr _q;
	const struct ndphdr *q;
	struct ndp_flow fl;
	u32 mtu = 0;
	int err = 0;

	/* Ports, type, nonce and psn: the first 16 bytes of the header. */
	q = skb_header_pointer(skb, off, offsetofend(struct ndphdr, psn), &_q);
	if (!q)
		return;
	switch (type) {
	case ICMP_DEST_UNREACH:
		if (code == ICMP_FRAG_NEEDED) {
			mtu = info;
			/* Not below what IPv4 routes accept anyway. */
			if (mtu < 576 || mtu >= ntohs(iph->tot_len))
				goto ignore;
			break;
		}
		if (code > NR_ICMP_UNREACH)
			return;
		err = icmp_err_convert[code].errno;
		break;
	case ICMP_TIME_EXCEEDED:
		err = EHOSTUNREACH;
		break;
	default:
		return;
	}
	memset(&fl, 0, sizeof(fl));
	fl.family = AF_INET;
	ipv6_addr_set_v4mapped(iph->saddr, &fl.laddr);
	ipv6_addr_set_v4mapped(iph->daddr, &fl.raddr);
	ndp_err(skb, net, &fl, q, mtu, err);
	return;
ignore:
	NDP_INC_STATS(net, NDP_MIB_ICMPIGNORED);
}

static int ndp_v4_err(struct sk_buff *skb, u32 info)
{
	const struct iphdr *iph = (const struct iphdr *)skb->data;

	ndp_v4_icmp(skb, iph->ihl * 4, info);
	return 0;
}

/* As __ndp_v4_rcv(), for IPv6. */
static int __ndp_v6_rcv(struct sk_buff *skb, bool encap, __be16 rport)
{
	struct net *net = dev_net(skb->dev);
	enum skb_drop_reason reason;
	const struct ipv6hdr *ip6h;
	struct sk_buff *list = NULL;
	struct ndp_flow fl;
	struct ndphdr *nh;
	bool freed, gro, ok;

	if (skb_is_gso(skb)) {
		if (encap) {
			NDP_INC_STATS(net, NDP_MIB_INERRS);
			kfree_skb_reason(skb, SKB_DROP_REASON_INVALID_PROTO);
			return 0;
		}
		list = ndp_gro_unbatch(skb, &freed, &gro);
		if (!list)
			return freed ? 0 : ndp_rcv_not_batch(skb);
	}
	NDP_INC_STATS(net, NDP_MIB_INPKTS);
	reason = ndp_rcv_hdr(skb);
	if (reason)
		goto bad;
	nh = ndp_hdr(skb);
	ip6h = ipv6_hdr(skb);
	reason = SKB_DROP_REASON_IP_INADDRERRORS;
	if (ipv6_addr_is_multicast(&ip6h->daddr) ||
	    ipv6_addr_is_multicast(&ip6h->saddr) ||
	    ipv6_addr_any(&ip6h->saddr))
		goto bad;
	if (encap)
		ok = ndp_udp_hdr_csum_ok(nh, ndp_ipproto);
	else
		ok = ndp_v6_hdr_csum_ok(nh, &ip6h->saddr, &ip6h->daddr,
					ndp_ipproto);
	if (!ok) {
		NDP_INC_STATS(net, NDP_MIB_INCSUMERRS);
		reason = SKB_DROP_REASON_SKB_CSUM;
		goto bad;
	}
	ndp_flow_rcv_v6(&fl, ip6h, nh);
	fl.ifindex = ndp_skb_l3mdev_oif(skb);
	fl.encap_dport = rport;
	if (list)
		return ndp_rcv_list(skb, list, &fl, gro);
	return ndp_rcv(skb, &fl);
bad:
	NDP_INC_STATS(net, NDP_MIB_INERRS);
	kfree_skb_list_reason(list, reason);
	kfree_skb_reason(skb, reason);
	return 0;
}

/* IPv6 receive handler. */
int ndp_v6_rcv(struct sk_buff *skb)
{
	return __ndp_v6_rcv(skb, false, 0);
}

/**
 * ndp_udp_rcv() - an NDP packet that came in UDP (encap.c)
 * @skb: skb->data at the NDP header, the UDP header stripped.
 * @rport: the UDP port to answer the peer at (&ndp_flow.encap_dport), 0
 *	for net.ndp.udp_port.
 */
int ndp_udp_rcv(struct sk_buff *skb, __be16 rport)
{
	if (skb->protocol == htons(ETH_P_IP))
		return __ndp_v4_rcv(skb, true, rport);
	return __ndp_v6_rcv(skb, true, rport);
}

/**
 * ndp_v6_icmp() - an ICMPv6 error quoting an IPv6 packet of ours
 * @skb: the error, skb->data at the quoted IPv6 header.
 * @type: ICMPv6 type.
 * @code: ICMPv6 code.
 * @off: offset of the quoted NDP header from skb->data.
 * @info: the error's info field (PKT_TOOBIG: the MTU).
 *
 * Native NDP (ndp_v6_err()) and NDP carried in UDP (encap.c).
 */
void ndp_v6_icmp(struct sk_buff *skb, u8 type, u8 code, unsigned int off,
		 __be32 info)
{
	const struct ipv6hdr *ip6h = (const struct ipv6hdr *)skb->data;
	struct net *net = dev_net(skb->dev);
	struct ndphdr _q;
	const struct ndphdr *q;
	struct ndp_flow fl;
	u32 mtu = 0;
	int err = 0;

	q = skb_header_pointer(skb, off, offsetofend(struct ndphdr, psn), &_q);
	if (!q)
		return;
	if (type == ICMPV6_PKT_TOOBIG) {
		mtu = ntohl(info);
		if (mtu < IPV6_MIN_MTU ||
		    mtu >= ntohs(ip6h->payload_len) + sizeof(*ip6h)) {
			NDP_INC_STATS(net, NDP_MIB_ICMPIGNORED);
			return;
		}
	} else if (type == ICMPV6_DEST_UNREACH || type == ICMPV6_TIME_EXCEED) {
		icmpv6_err_convert(type, code, &err);
	} else {
		return;
	}
	memset(&fl, 0, sizeof(fl));
	fl.family = AF_INET6;
	fl.laddr = ip6h->saddr;
	fl.raddr = ip6h->daddr;
	ndp_err(skb, net, &fl, q, mtu, err);
}

static int ndp_v6_err(struct sk_buff *skb, struct inet6_skb_parm *opt,
		      u8 type, u8 code, int offset, __be32 info)
{
	ndp_v6_icmp(skb, type, code, offset, info);
	return 0;
}

static struct net_protocol ndp_net_protocol = {
	.handler	= ndp_v4_rcv,
	.err_handler	= ndp_v4_err,
	.no_policy	= 1,
};

static struct inet6_protocol ndp_inet6_protocol = {
	.handler	= ndp_v6_rcv,
	.err_handler	= ndp_v6_err,
	.flags		= INET6_PROTO_NOPOLICY | INET6_PROTO_FINAL,
};

/* ---------------------------------------------------------------------- */
/* Per-namespace state.                                                   */

static int __net_init ndp_net_init(struct net *net)
{
	struct ndp_net *nn = ndp_pernet(net);
	int err;

	nn->net = net;
	atomic_set(&nn->orphans, 0);
	err = ndp_admit_net_init(nn);
	if (err)
		return err;
	err = ndp_hash_net_init(nn);
	if (err)
		goto err_admit;
	err = ndp_tw_net_init(nn);
	if (err)
		goto err_hash;
	err = ndp_dasr_net_init(nn);
	if (err)
		goto err_tw_only;
	err = ndp_peer_net_init(nn);
	if (err)
		goto err_dasr_only;
	err = ndp_pull_net_init(nn);
	if (err)
		goto err_peer;
	err = ndp_path_net_init(nn);
	if (err)
		goto err_tw;
	err = ndp_encap_net_init(nn);
	if (err)
		goto err_path;
	nn->mib = alloc_percpu(struct ndp_mib);
	err = -ENOMEM;
	if (!nn->mib)
		goto err_encap;
	err = ndp_ctrl_net_init(net, nn);
	if (err)
		goto err_free_mib;
	err = ndp_proc_net_init(net);
	if (err)
		goto err_ctrl;
	err = ndp_ctl_sk_init(net, nn);
	if (err)
		goto err_proc;
	return 0;

err_proc:
	ndp_proc_net_exit(net);
err_ctrl:
	ndp_ctrl_net_exit(net, nn);
err_free_mib:
	free_percpu(nn->mib);
err_encap:
	ndp_encap_net_exit(nn);
	ndp_encap_net_free(nn);
err_path:
	ndp_path_net_exit(nn);
err_tw:
	ndp_pull_net_exit(nn);
err_peer:
	ndp_peer_net_exit(nn);
err_dasr_only:
	ndp_dasr_net_exit(nn);
err_tw_only:
	ndp_tw_net_exit(nn);
err_hash:
	ndp_hash_net_exit(nn);
err_admit:
	ndp_admit_net_exit(nn);
	return err;
}

static void __net_exit ndp_net_exit(struct net *net)
{
	struct ndp_net *nn = ndp_pernet(net);

	/* First: no packet arrives through a tunnel socket after this. */
	ndp_encap_net_exit(nn);
	ndp_pull_net_exit(nn);
	ndp_dasr_net_exit(nn);
	ndp_tw_net_exit(nn);
	ndp_hash_net_exit(nn);
	ndp_peer_net_exit(nn);
	ndp_admit_net_exit(nn);
	/* After time-wait and the connections: nothing replies any more. */
	ndp_ctl_sk_exit(nn);
	ndp_proc_net_exit(net);
	ndp_ctrl_net_exit(net, nn);
	/* The sysctls are gone: nothing sets udp_port any more. */
	ndp_encap_net_free(nn);
	ndp_path_net_exit(nn);
	free_percpu(nn->mib);
}

static struct pernet_operations ndp_net_ops = {
	.init	= ndp_net_init,
	.exit	= ndp_net_exit,
	.id	= &ndp_net_id,
	.size	= sizeof(struct ndp_net),
};

/* ---------------------------------------------------------------------- */
/* Module load and unload.                                                */

static int __init ndp_init(void)
{
	int err, i;

	ndp_wire_build_bug_on();
	BUILD_BUG_ON(SOCK_NDP >= SOCK_MAX);
	BUILD_BUG_ON(offsetof(struct ndp6_sock, inet6) + sizeof(struct ipv6_pinfo) !=
		     sizeof(struct ndp6_sock));

	if (ndp_ipproto == 0 || ndp_ipproto >= IPPROTO_RAW ||
	    ndp_ipproto == IPPROTO_TCP || ndp_ipproto == IPPROTO_UDP) {
		pr_err("ipproto=%u is not a usable IP protocol number\n",
		       ndp_ipproto);
		return -EINVAL;
	}
	for (i = 0; i < ARRAY_SIZE(ndp_protosw); i++) {
		ndp_protosw[i].protocol = ndp_ipproto;
		ndpv6_protosw[i].protocol = ndp_ipproto;
	}

	ndp_proto_v6_init();
	ndp_mem_init();
	ndp_encap_seed_init();
	ndp_hash_seed_init();
	err = proto_register(&ndp_prot, 1);
	if (err)
		return err;
	err = proto_register(&ndpv6_prot, 1);
	if (err)
		goto err_unreg_prot;

	err = register_pernet_subsys(&ndp_net_ops);
	if (err)
		goto err_unreg_prot6;
	/* After the pernet state it reads, before any packet. */
	err = ndp_pull_init();
	if (err)
		goto err_unreg_pernet;

	if (inet_add_protocol(&ndp_net_protocol, ndp_ipproto) < 0) {
		pr_err("IPv4 protocol %u is already taken\n", ndp_ipproto);
		err = -EBUSY;
		goto err_pull_exit;
	}
	if (inet6_add_protocol(&ndp_inet6_protocol, ndp_ipproto) < 0) {
		pr_err("IPv6 protocol %u is already taken\n", ndp_ipproto);
		err = -EBUSY;
		goto err_del_protocol;
	}

	err = ndp_offload_init();
	if (err)
		goto err_del_protocol6;

	for (i = 0; i < ARRAY_SIZE(ndp_protosw); i++)
		inet_register_protosw(&ndp_protosw[i]);
	for (i = 0; i < ARRAY_SIZE(ndpv6_protosw); i++) {
		err = inet6_register_protosw(&ndpv6_protosw[i]);
		if (err)
			goto err_unreg_protosw6;
	}
	err = ndp_nl_init();
	if (err)
		goto err_unreg_protosw6;
	return 0;

err_unreg_protosw6:
	while (--i >= 0)
		inet6_unregister_protosw(&ndpv6_protosw[i]);
	for (i = ARRAY_SIZE(ndp_protosw) - 1; i >= 0; i--)
		inet_unregister_protosw(&ndp_protosw[i]);
	ndp_offload_exit();
err_del_protocol6:
	inet6_del_protocol(&ndp_inet6_protocol, ndp_ipproto);
err_del_protocol:
	inet_del_protocol(&ndp_net_protocol, ndp_ipproto);
	synchronize_net();
err_pull_exit:
	ndp_pull_exit();
err_unreg_pernet:
	unregister_pernet_subsys(&ndp_net_ops);
err_unreg_prot6:
	proto_unregister(&ndpv6_prot);
err_unreg_prot:
	proto_unregister(&ndp_prot);
	return err;
}

static void __exit ndp_exit(void)
{
	int i;

	ndp_nl_exit();
	for (i = ARRAY_SIZE(ndpv6_protosw) - 1; i >= 0; i--)
		inet6_unregister_protosw(&ndpv6_protosw[i]);
	for (i = ARRAY_SIZE(ndp_protosw) - 1; i >= 0; i--)
		inet_unregister_protosw(&ndp_protosw[i]);
	ndp_offload_exit();
	inet6_del_protocol(&ndp_inet6_protocol, ndp_ipproto);
	inet_del_protocol(&ndp_net_protocol, ndp_ipproto);
	/* No receive handler or segmentation callback runs past this. */
	synchronize_net();
	/* Before the pernet state the notifier reads goes. */
	ndp_pull_exit();
	unregister_pernet_subsys(&ndp_net_ops);
	proto_unregister(&ndpv6_prot);
	proto_unregister(&ndp_prot);
}

module_init(ndp_init);
module_exit(ndp_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("NDP for Linux developers");
MODULE_DESCRIPTION("NDP: receiver-driven data-centre transport");
/* socket(AF_INET{,6}, SOCK_NDP, 0|253) and (SOCK_STREAM, 253) autoload us. */
MODULE_ALIAS_NET_PF_PROTO_TYPE(PF_INET, 0, 7);
MODULE_ALIAS_NET_PF_PROTO_TYPE(PF_INET, 253, 7);
MODULE_ALIAS_NET_PF_PROTO_TYPE(PF_INET, 253, 1);
MODULE_ALIAS_NET_PF_PROTO_TYPE(PF_INET6, 0, 7);
MODULE_ALIAS_NET_PF_PROTO_TYPE(PF_INET6, 253, 7);
MODULE_ALIAS_NET_PF_PROTO_TYPE(PF_INET6, 253, 1);
