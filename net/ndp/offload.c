// SPDX-License-Identifier: GPL-2.0
/*
 * NDP: batches of packets through the stack (GSO and GRO), IPv4 and IPv6.
 *
 * A sender's batch is what the sender (output.c, ndp_gso_batch()) hands
 * to IP instead of a run of consecutive DATA packets of one connection on
 * one path (the grant of one pull, a pushed window): the first packet in
 * the head behind the IP header, every other one whole, its own NDP
 * header in front of its payload, on the head's frag_list.  Every header
 * is the one the packet would have had alone, header checksum included
 * (ndp_xmit_dst()); skb_shinfo()->gso_size is the payload of every packet
 * but the last, which may be shorter and alone may carry LAST or FIN.
 *
 * Its gso_type is NDP_SKB_GSO_BATCH (SKB_GSO_FRAGLIST), the layout GRO
 * gives UDP's fraglist batches: a device passes a GSO packet on whole
 * when it declares every bit of its gso_type (net_gso_ok()) and takes
 * frag_lists, which veth, loopback, bridges and the other software
 * devices do (NETIF_F_GSO_SOFTWARE) and no NIC driver of the supported
 * kernels does.  So a batch between namespaces of one host crosses each
 * veth, IP input and output once, as TCP's 64 KB super-packets do; it is
 * cut (ndp_gso_segment(): the packets are taken off the list, each given
 * a copy of the IP header, no payload touched) where single packets are
 * needed: validate_xmit_skb() for any other device (virtio-net, NICs,
 * tunnels), sch_ndp's enqueue (trimming is per packet), netem's
 * corruption, tbf.  Forwarding passes it on whole (ip_forward() checks
 * each packet against the MTU through gso_size).
 *
 * The receive handler takes a batch apart (ndp_gro_unbatch()) after
 * checking that every packet is the next one of the same connection and
 * path with a valid header checksum (ndp_batch_ok()); the payload sums
 * are the sender's, computed as it copied the data, and are trusted as
 * TCP trusts CHECKSUM_PARTIAL across veth: only this kernel makes such a
 * batch (devices, taps and packet sockets can only make TCP's and UDP's
 * GSO types), and what would alter a payload on the way cuts it first.
 *
 * GRO (below) builds the same layout from packets that arrived one by
 * one, each verified, with a gso_type no device declares
 * (NDP_SKB_GSO_TYPE | SKB_GSO_FRAGLIST): only the receive handler takes
 * it.
 */

#define pr_fmt(fmt) "NDP: " fmt

#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <net/gro.h>
#include <net/xfrm.h>
#include <net/ndp_compat.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/protocol.h>

#include "protocol.h"

/*
 * Whether member @m of the batch headed by @h (the first packet's header)
 * is its packet number @i: a whole DATA packet of the same connection and
 * path, the header the sender gives a batch's packets (ndp_gso_can_add()).
 */
static bool ndp_batch_member_ok(const struct sk_buff *m,
				const struct ndphdr *h, u32 i, u32 mss)
{
	const struct ndphdr *nh = (const struct ndphdr *)m->data;
	u16 flags = ntohs(h->flags);

	if (skb_headlen(m) < NDP_HDR_LEN || m->len <= NDP_HDR_LEN ||
	    m->len - NDP_HDR_LEN > mss || !ndp_hdr_is_sane(nh) ||
	    nh->type != NDP_PKT_DATA || nh->doff != NDP_HDR_WORDS ||
	    nh->source != h->source || nh->dest != h->dest ||
	    nh->nonce != h->nonce || nh->path != h->path ||
	    ntohs(nh->paylen) != m->len - NDP_HDR_LEN ||
	    (ntohs(nh->flags) & ~NDP_F_GSO_TAIL) != flags ||
	    ntohl(nh->psn) != ntohl(h->psn) + i)
		return false;
	return !(flags & NDP_F_SYN) ||
	       ntohl(nh->syn_off) == ntohl(h->syn_off) + i;
}

/**
 * ndp_batch_ok() - check a sender's batch before its packets are used
 * @skb: the batch, data at its first NDP header.
 *
 * Every packet on the frag_list must be the next DATA packet of the same
 * connection and path, full sized but the last, and nothing but the last
 * may carry LAST or FIN; the first packet's header is checked by whoever
 * takes the batch, as any packet's.
 *
 * Return: the number of packets, or 0 if the batch is not one.
 */
u32 ndp_batch_ok(const struct sk_buff *skb)
{
	const struct ndphdr *h = ndp_hdr(skb);
	u32 mss = skb_shinfo(skb)->gso_size, i = 1;
	unsigned int len = skb->len;
	const struct sk_buff *m;

	if (skb_headlen(skb) < NDP_HDR_LEN || !ndp_hdr_is_sane(h) ||
	    h->type != NDP_PKT_DATA || h->doff != NDP_HDR_WORDS ||
	    ndp_hdr_has(h, NDP_F_TRIMMED | NDP_F_RTS | NDP_F_GSO_TAIL) ||
	    !mss || mss >= GSO_BY_FRAGS || ntohs(h->paylen) != mss ||
	    !skb_has_frag_list(skb))
		return 0;
	skb_walk_frags(skb, m) {
		/* Only the last packet may be short or end the message. */
		if (!ndp_batch_member_ok(m, h, i, mss) ||
		    (m->next && (m->len != NDP_HDR_LEN + mss ||
				 ndp_hdr_has((const struct ndphdr *)m->data,
					     NDP_F_GSO_TAIL))) ||
		    i >= NDP_GSO_SEGS_MAX)
			return 0;
		len -= m->len;
		i++;
	}
	/* The first packet is what the frag_list leaves. */
	return len == NDP_HDR_LEN + mss ? i : 0;
}

/*
 * Put a copy of batch @skb's IP header in front of its packet @m (data at
 * its NDP header, room checked by the caller); the length it says is the
 * batch's until the caller or the IP layer sets @m's own.
 */
static void ndp_batch_copy_iph(const struct sk_buff *skb, struct sk_buff *m)
{
	unsigned int nhlen = skb_network_header_len(skb);

	skb_set_network_header(m, -(int)nhlen);
	memcpy(skb_network_header(m), skb_network_header(skb), nhlen);
}

/*
 * A sender's batch (output.c, ndp_gso_batch()) is cut: its packets are
 * already whole on the frag_list, each behind its own NDP header; each
 * gets a copy of the IP header in front (skb_segment_list() copies the
 * link header and the skb's state; the IP layer's callbacks then set
 * each one's length, id and checksum), and its header checksum is
 * computed again over the addresses that header holds (a NAT on the way
 * may have rewritten them, as it would a single packet's).
 */
#define NDP_GSO_TUNNEL_BITS	(SKB_GSO_GRE | SKB_GSO_GRE_CSUM |	\
				 SKB_GSO_IPXIP4 | SKB_GSO_IPXIP6 |	\
				 SKB_GSO_UDP_TUNNEL | SKB_GSO_UDP_TUNNEL_CSUM)

static struct sk_buff *ndp_gso_segment(struct sk_buff *skb,
				       netdev_features_t features, bool v4)
{
	bool own = skb->destructor == sock_wfree;
	unsigned int nhlen, truesize = 0, charged = skb->truesize;
	struct sk_buff *segs, *seg, *m;
	struct sock *sk;
	u32 n = 0;

	/* Inside a tunnel (vxlan, geneve, GRE, ...) its bits come along. */
	if ((skb_shinfo(skb)->gso_type & ~(SKB_GSO_DODGY | NDP_GSO_TUNNEL_BITS)) !=
	    NDP_SKB_GSO_BATCH)
		return ERR_PTR(-EINVAL);
	n = ndp_batch_ok(skb);
	if (!n || (skb_shinfo(skb)->gso_segs &&
		   skb_shinfo(skb)->gso_segs != n))
		return ERR_PTR(-EINVAL);
	n = 0;
	nhlen = skb_transport_offset(skb) - skb_network_offset(skb);
	/*
	 * Room in front of each packet for the headers skb_segment_list()
	 * copies there (link, and a tunnel's outer ones) and its own IP
	 * header.
	 */
	skb_walk_frags(skb, m) {
		if (skb_headroom(m) < nhlen + skb_mac_header_len(skb) +
				      skb_tnl_header_len(skb) ||
		    skb_header_cloned(m))
			return ERR_PTR(-EINVAL);
	}
	skb_walk_frags(skb, m) {
		skb_reset_transport_header(m);
		ndp_batch_copy_iph(skb, m);
	}
	/*
	 * The segments share the socket's write memory charge, as UDP's do;
	 * cleared here so that it is not handed to the first segment alone.
	 */
	sk = skb->sk;
	if (own) {
		skb->destructor = NULL;
		skb->sk = NULL;
	}
	segs = skb_segment_list(skb, features, skb_mac_header_len(skb));
	if (IS_ERR_OR_NULL(segs)) {
		if (own) {
			skb->destructor = sock_wfree;
			skb->sk = sk;
		}
		return segs;
	}
	for (seg = segs; seg; seg = seg->next) {
		struct ndphdr *nh = ndp_hdr(seg);

		if (v4) {
			const struct iphdr *iph = ip_hdr(seg);

			ndp_v4_hdr_csum_set(nh, iph->saddr, iph->daddr,
					    ndp_ipproto);
		} else {
			const struct ipv6hdr *ip6h = ipv6_hdr(seg);

			ndp_v6_hdr_csum_set(nh, &ip6h->saddr, &ip6h->daddr,
					    ndp_ipproto);
		}
		seg->ip_summed = CHECKSUM_NONE;
		n++;
		if (own) {
			seg->destructor = sock_wfree;
			seg->sk = sk;
			truesize += seg->truesize;
		}
	}
	if (own) {
		/*
		 * The segments now hold what the batch was charged (the
		 * first segment is @skb, whose truesize some kernels lower
		 * by the packets taken off its list, and others do not).
		 */
		if (truesize > charged)
			refcount_add(truesize - charged, &sk->sk_wmem_alloc);
		else
			WARN_ON_ONCE(refcount_sub_and_test(charged - truesize,
							   &sk->sk_wmem_alloc));
	}
	if (segs->dev)
		NDP_ADD_STATS(dev_net(segs->dev), NDP_MIB_GSOSEGMENTS, n);
	return segs;
}

static struct sk_buff *ndp4_gso_segment(struct sk_buff *skb,
					netdev_features_t features)
{
	return ndp_gso_segment(skb, features, true);
}

static struct sk_buff *ndp6_gso_segment(struct sk_buff *skb,
					netdev_features_t features)
{
	return ndp_gso_segment(skb, features, false);
}

/* ---------------------------------------------------------------------- */
/* GRO: batches of consecutive DATA for a local connection.              */

/*
 * Whether the packet @nh heads (payload @plen bytes at @off + NDP_HDR_LEN)
 * is intact: header and payload checksums, as the receive handler checks
 * them.  A batch is trusted whole by the transport (ndp_rcv_list()), so
 * every packet is verified before it joins one; a packet that fails is
 * left alone for the receive handler, which NACKs it.
 */
static bool ndp_gro_csum_ok(struct sk_buff *skb, const struct ndphdr *nh,
			    unsigned int off, unsigned int plen, bool v4)
{
	bool ok;

	if (v4) {
		const struct iphdr *iph = skb_gro_network_header(skb);

		ok = ndp_v4_hdr_csum_ok(nh, iph->saddr, iph->daddr,
					ndp_ipproto);
	} else {
		const struct ipv6hdr *ip6h = skb_gro_network_header(skb);

		ok = ndp_v6_hdr_csum_ok(nh, &ip6h->saddr, &ip6h->daddr,
					ndp_ipproto);
	}
	return ok && ndp_pcsum_equal(csum_fold(skb_checksum(skb, off + NDP_HDR_LEN,
							      plen, 0)),
				     nh->pcsum);
}

/*
 * Batches are built only for a connection of this namespace, as UDP
 * builds them only for a socket that asked: a forwarding namespace (a
 * software switch running sch_ndp) keeps every packet whole and trimmable.
 */
static bool ndp_gro_has_sock(struct sk_buff *skb, const struct ndphdr *nh,
			     bool v4)
{
	struct ndp_flow fl;
	struct sock *sk;

	if (v4)
		ndp_flow_rcv_v4(&fl, skb_gro_network_header(skb), nh);
	else
		ndp_flow_rcv_v6(&fl, skb_gro_network_header(skb), nh);
	sk = ndp_conn_lookup(dev_net(skb->dev), &fl);
	if (!sk)
		return false;
	sock_put(sk);
	return true;
}

/*
 * Whether @nh (payload @plen) is the next packet of batch @p, whose first
 * header is @ph: the header the sender's own batching (ndp_gso_can_add())
 * would have given it.  Every packet of a held batch is full sized: a
 * shorter one ends the batch.
 */
static bool ndp_gro_follows(struct sk_buff *p, const struct ndphdr *ph,
			    const struct ndphdr *nh, unsigned int plen)
{
	u16 flags = ntohs(nh->flags), pflags = ntohs(ph->flags);
	u32 n = NAPI_GRO_CB(p)->count, mss = ntohs(ph->paylen);

	if (NAPI_GRO_CB(p)->flush || n >= NDP_GRO_MAX_SEGS ||
	    p->len + NDP_HDR_LEN + plen >= 65536 || plen > mss ||
	    (flags & ~NDP_F_GSO_TAIL) != pflags ||
	    ntohl(nh->psn) != ntohl(ph->psn) + n ||
	    nh->path != ph->path || nh->detours != ph->detours ||
	    ntohl(nh->prio) != ndp_gso_prio(ntohl(ph->prio), n, mss))
		return false;
	return !(flags & NDP_F_SYN) ||
	       ntohl(nh->syn_off) == ntohl(ph->syn_off) + n;
}

/*
 * Chain @skb, a whole NDP packet, to @p's frag_list (as
 * skb_gro_receive_list() does, which modules cannot call): its data then
 * starts at its own NDP header, its IP header in front of it.
 */
static void ndp_gro_append(struct sk_buff *p, struct sk_buff *skb)
{
	skb_pull(skb, skb_gro_offset(skb) - NDP_HDR_LEN);
	if (NAPI_GRO_CB(p)->last == p)
		skb_shinfo(p)->frag_list = skb;
	else
		NAPI_GRO_CB(p)->last->next = skb;
	NAPI_GRO_CB(p)->last = skb;
	NAPI_GRO_CB(p)->count++;
	p->data_len += skb->len;
	p->len += skb->len;
	p->truesize += skb->truesize;
	skb->destructor = NULL;
	skb->sk = NULL;
	NAPI_GRO_CB(skb)->same_flow = 1;
}

static struct sk_buff *ndp_gro_receive(struct list_head *head,
				       struct sk_buff *skb, bool v4)
{
	unsigned int off = skb_gro_offset(skb), plen;
	const struct ndphdr *nh, *ph;
	struct sk_buff *p;
	u16 flags;

	if (NAPI_GRO_CB(skb)->flush || skb_sec_path(skb))
		goto flush;
	nh = skb_gro_header(skb, off + NDP_HDR_LEN, off);
	if (!nh || skb_gro_len(skb) <= NDP_HDR_LEN)
		goto flush;
	flags = ntohs(nh->flags);
	plen = skb_gro_len(skb) - NDP_HDR_LEN;
	if (!ndp_hdr_is_sane(nh) || nh->type != NDP_PKT_DATA ||
	    nh->doff != NDP_HDR_WORDS ||
	    (flags & (NDP_F_TRIMMED | NDP_F_RTS)) ||
	    plen != ntohs(nh->paylen) ||
	    !ndp_gro_csum_ok(skb, nh, off, plen, v4))
		goto flush;

	list_for_each_entry(p, head, list) {
		if (!NAPI_GRO_CB(p)->same_flow)
			continue;
		ph = (const struct ndphdr *)(p->data + off);
		if (ph->source != nh->source || ph->dest != nh->dest ||
		    ph->nonce != nh->nonce) {
			NAPI_GRO_CB(p)->same_flow = 0;
			continue;
		}
		if (!ndp_gro_follows(p, ph, nh, plen)) {
			/* Deliver the batch; this packet may start the next. */
			skb_gro_pull(skb, NDP_HDR_LEN);
			if (flags & NDP_F_GSO_TAIL)
				NAPI_GRO_CB(skb)->flush = 1;
			return p;
		}
		if (!pskb_may_pull(skb, skb_gro_offset(skb) + NDP_HDR_LEN))
			goto flush;
		skb_gro_pull(skb, NDP_HDR_LEN);
		ndp_gro_append(p, skb);
		if ((flags & NDP_F_GSO_TAIL) || plen < ntohs(ph->paylen) ||
		    NAPI_GRO_CB(p)->count >= NDP_GRO_MAX_SEGS)
			return p;
		return NULL;
	}
	/* A new batch: the last packet of a message or no local socket. */
	if ((flags & NDP_F_GSO_TAIL) || !ndp_gro_has_sock(skb, nh, v4))
		goto flush;
	skb_gro_pull(skb, NDP_HDR_LEN);
	return NULL;
flush:
	NAPI_GRO_CB(skb)->flush = 1;
	return NULL;
}

static struct sk_buff *ndp4_gro_receive(struct list_head *head,
					struct sk_buff *skb)
{
	return ndp_gro_receive(head, skb, true);
}

static struct sk_buff *ndp6_gro_receive(struct list_head *head,
					struct sk_buff *skb)
{
	return ndp_gro_receive(head, skb, false);
}

/*
 * A batch of several packets leaves GRO.  @nhoff: offset of its first NDP
 * header.  Its packets stay whole on the frag_list, so the gso_type says
 * so next to NDP's own: only the receive handler takes such a packet
 * (ndp_gro_unbatch()); segmentation refuses it.
 */
static int ndp_gro_complete(struct sk_buff *skb, int nhoff)
{
	const struct ndphdr *nh = (const struct ndphdr *)(skb->data + nhoff);

	skb_shinfo(skb)->gso_type = NDP_SKB_GSO_TYPE | SKB_GSO_FRAGLIST;
	skb_shinfo(skb)->gso_size = ntohs(nh->paylen);
	skb_shinfo(skb)->gso_segs = NAPI_GRO_CB(skb)->count;
	skb->csum_level = 0;
	skb->ip_summed = CHECKSUM_NONE;
	return 0;
}

/*
 * Whether every packet of a sender's batch @skb (at its first NDP header,
 * IP done) is one (ndp_batch_ok()) with a header checksum over the
 * batch's addresses.  Their payload checksums are not summed again: a
 * batch is built only by this host's kernel (no device, tap or packet
 * socket can make a frag_list batch: their GSO types are TCP's and
 * UDP's), the sender summed each payload as it copied it, and the batch
 * reached us without leaving memory, as TCP trusts CHECKSUM_PARTIAL
 * across veth.  What would change a payload on the way (netem's
 * corruption) cuts the batch first, and single packets are checked.
 */
static bool ndp_batch_rcv_ok(struct sk_buff *skb)
{
	struct sk_buff *m;

	if (!ndp_batch_ok(skb))
		return false;
	skb_walk_frags(skb, m) {
		const struct ndphdr *nh = (const struct ndphdr *)m->data;
		bool ok;

		if (skb->protocol == htons(ETH_P_IP))
			ok = ndp_v4_hdr_csum_ok(nh, ip_hdr(skb)->saddr,
						ip_hdr(skb)->daddr,
						ndp_ipproto);
		else
			ok = ndp_v6_hdr_csum_ok(nh, &ipv6_hdr(skb)->saddr,
						&ipv6_hdr(skb)->daddr,
						ndp_ipproto);
		if (!ok)
			return false;
	}
	return true;
}

/* The IP header in front of @skb (data at NDP) says @skb's own length. */
static void ndp_batch_iph_len(struct sk_buff *skb)
{
	unsigned int nhlen = skb_network_header_len(skb);

	if (skb->protocol == htons(ETH_P_IP)) {
		struct iphdr *iph = ip_hdr(skb);

		iph->tot_len = htons(nhlen + skb->len);
		ip_send_check(iph);
	} else {
		ipv6_hdr(skb)->payload_len =
			htons(nhlen - sizeof(struct ipv6hdr) + skb->len);
	}
}

/*
 * Give packet @seg of a sender's batch @skb the IP header it would have
 * arrived with alone (a copy of the batch's, its own length): the receive
 * path reads the ECN and DSCP bits and the addresses there, socket filters
 * the rest.  A packet GRO chained kept its own.
 */
static int ndp_batch_seg_iph(const struct sk_buff *skb, struct sk_buff *seg)
{
	unsigned int nhlen = skb_network_header_len(skb);

	if (skb_cow_head(seg, nhlen))
		return -ENOMEM;
	ndp_batch_copy_iph(skb, seg);
	ndp_batch_iph_len(seg);
	return 0;
}

/*
 * Take a batch apart (@skb at its first NDP header, IP done): @skb is
 * left holding its first packet and the others are returned as a list,
 * each with its data at its own NDP header and what the IP layer set on
 * @skb (device, input interface, control block).  *@gro: GRO built it
 * (else a sender did, which crossed the devices whole).  NULL if @skb is
 * not a batch, or when it is bad or memory is short (@skb is then freed).
 */
struct sk_buff *ndp_gro_unbatch(struct sk_buff *skb, bool *freed, bool *gro)
{
	unsigned int len = 0, truesize = 0;
	struct sk_buff *list, **pp, *seg;

	*freed = false;
	*gro = skb_shinfo(skb)->gso_type == (NDP_SKB_GSO_TYPE | SKB_GSO_FRAGLIST);
	if ((!*gro && skb_shinfo(skb)->gso_type != NDP_SKB_GSO_BATCH) ||
	    !skb_has_frag_list(skb))
		return NULL;
	if (!*gro) {
		NDP_INC_STATS(dev_net(skb->dev), NDP_MIB_INGSOPKTS);
		if (!ndp_batch_rcv_ok(skb)) {
			*freed = true;
			NDP_INC_STATS(dev_net(skb->dev), NDP_MIB_INERRS);
			kfree_skb_reason(skb, SKB_DROP_REASON_INVALID_PROTO);
			return NULL;
		}
	}
	/*
	 * Still charged to its sender when it came without crossing into
	 * another namespace (tc mirred on lo): the charge is the whole
	 * batch's truesize, which changes below, so it ends here, as it
	 * would at a device.
	 */
	skb_orphan(skb);
	/* A tap may hold a clone sharing the frag_list: unshare it. */
	if (skb_cloned(skb) && pskb_expand_head(skb, 0, 0, GFP_ATOMIC))
		goto bad;
	list = skb_shinfo(skb)->frag_list;
	skb_shinfo(skb)->frag_list = NULL;
	for (pp = &list; *pp; pp = &(*pp)->next) {
		seg = *pp;
		if (skb_shared(seg)) {
			struct sk_buff *nseg = skb_clone(seg, GFP_ATOMIC);

			if (!nseg) {
				/* seg stays on the list and is freed there. */
				kfree_skb_list(list);
				goto bad;
			}
			nseg->next = seg->next;
			consume_skb(seg);
			*pp = nseg;
			seg = nseg;
		}
		if (!*gro && ndp_batch_seg_iph(skb, seg)) {
			kfree_skb_list(list);
			goto bad;
		}
		len += seg->len;
		truesize += seg->truesize;
		seg->dev = skb->dev;
		seg->skb_iif = skb->skb_iif;
		seg->pkt_type = skb->pkt_type;
		seg->protocol = skb->protocol;
		seg->mark = skb->mark;
		seg->ip_summed = CHECKSUM_NONE;
		skb_reset_transport_header(seg);
		memcpy(seg->cb, skb->cb, sizeof(skb->cb));
	}
	skb->len -= len;
	skb->data_len -= len;
	skb->truesize -= truesize;
	skb_gso_reset(skb);
	/* Unshared above: the first packet's header is ours to fix. */
	ndp_batch_iph_len(skb);
	return list;
bad:
	*freed = true;
	NDP_INC_STATS(dev_net(skb->dev), NDP_MIB_INERRS);
	kfree_skb_reason(skb, SKB_DROP_REASON_NOMEM);
	return NULL;
}

static const struct net_offload ndp4_offload = {
	.callbacks = {
		.gso_segment	= ndp4_gso_segment,
		.gro_receive	= ndp4_gro_receive,
		.gro_complete	= ndp_gro_complete,
	},
};

static const struct net_offload ndp6_offload = {
	.callbacks = {
		.gso_segment	= ndp6_gso_segment,
		.gro_receive	= ndp6_gro_receive,
		.gro_complete	= ndp_gro_complete,
	},
};

/* inet_add_offload() and inet6_add_offload() return -1 when taken. */
int __init ndp_offload_init(void)
{
	if (inet_add_offload(&ndp4_offload, ndp_ipproto))
		return -EBUSY;
	if (inet6_add_offload(&ndp6_offload, ndp_ipproto)) {
		inet_del_offload(&ndp4_offload, ndp_ipproto);
		synchronize_net();
		return -EBUSY;
	}
	return 0;
}

/* The caller waits for readers (synchronize_net()) before unloading. */
void ndp_offload_exit(void)
{
	inet6_del_offload(&ndp6_offload, ndp_ipproto);
	inet_del_offload(&ndp4_offload, ndp_ipproto);
}
