// SPDX-License-Identifier: GPL-2.0
/*
 * NDP: segmentation offload (GSO) for IPv4 and IPv6.
 *
 * A super-packet is what the sender (output.c) hands to IP instead of a
 * run of consecutive DATA packets of one connection on one path: one IP
 * header, the NDP header of the first packet, and the payloads of all
 * the packets back to back (the first in the head's page fragments, the
 * others as page-only skbs on its frag_list).  skb_shinfo()->gso_size is
 * the payload of every packet but the last, which may be shorter.
 *
 * The header of packet i of the batch follows from the first one, which
 * the sender guarantees before it adds a packet to a batch:
 *   - psn = psn_0 + i, and syn_off = syn_off_0 + i when SYN is set;
 *   - prio = prio_0 - i * gso_size (U32_MAX stays U32_MAX);
 *   - flags are the same, except that LAST and FIN (NDP_F_GSO_TAIL),
 *     carried by the super-packet's header, belong to the last packet;
 *   - paylen and the payload checksum are those of the packet's own
 *     payload: the sum the sender computed while copying it, which each
 *     packet keeps in the header in front of its payload on the frag_list
 *     (ndp_gso_sums()); for a super-packet not laid out that way,
 *     skb_segment() sums each segment as it cuts it, as it does for any
 *     protocol whose checksum the device cannot offload.  The header
 *     checksum is computed again for each packet.
 * So every packet on the wire is a complete NDP packet, identical to the
 * one the sender would have sent alone; the IP layer's callbacks
 * (inet_gso_segment(), ipv6_gso_segment()) fix IP length, id and checksum.
 *
 * The gso_type is NDP_SKB_GSO_TYPE (SKB_GSO_TUNNEL_REMCSUM): a device
 * passes a GSO packet on unsegmented only when it declares every bit of
 * its gso_type among its features (net_gso_ok()), and no driver declares
 * NETIF_F_GSO_TUNNEL_REMCSUM: not veth or loopback (NETIF_F_GSO_SOFTWARE
 * and NETIF_F_GSO_ENCAP_ALL do not contain it), nor any NIC.  The bit is
 * only ever interpreted by the UDP tunnel segmentation, which the
 * IP layer never calls for NDP's protocol number: software segmentation
 * dispatches on the IP protocol, so validate_xmit_skb() (and a qdisc's
 * skb_gso_segment()) always ends here.  The TCP and UDP types were no
 * choice: veth and NICs would pass them on as TCP or UDP, and
 * inet_gso_segment() treats SKB_GSO_UDP as IP fragmentation.
 *
 * A super-packet never leaves the host.  If one arrives anyway (a device
 * or a module that passes GSO packets up), the receive path cuts it with
 * the same callback before looking at it (plumbing.c), after checking
 * its header checksum; its payload checksums are the sender's (or, if
 * it is not laid out as the sender builds them, computed afresh, and
 * then cannot catch a corruption upstream).
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
 * Rewrite the NDP header of each segment from the super-packet's header
 * @h, as the comment at the top of this file says.
 */
static void ndp_gso_fix_segs(struct sk_buff *segs, const struct ndphdr *h,
			     unsigned int mss, const __sum16 *sums, bool v4)
{
	u16 flags = ntohs(h->flags);
	struct sk_buff *seg;
	u32 i = 0;

	for (seg = segs; seg; seg = seg->next, i++) {
		struct ndphdr *nh = ndp_hdr(seg);
		u32 len = seg->len - skb_transport_offset(seg) - NDP_HDR_LEN;

		*nh = *h;
		nh->psn = htonl(ntohl(h->psn) + i);
		if (flags & NDP_F_SYN)
			nh->syn_off = htonl(ntohl(h->syn_off) + i);
		nh->prio = htonl(ndp_gso_prio(ntohl(h->prio), i, mss));
		if (seg->next)
			nh->flags = htons(flags & ~NDP_F_GSO_TAIL);
		nh->paylen = htons(len);
		nh->pcsum = sums ? sums[i] : csum_fold(SKB_GSO_CB(seg)->csum);
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
	}
}

/*
 * The payload checksums of a batch the sender built (ndp_gso_batch()):
 * computed while copying from the user (output.c), they are in the header
 * each packet of the batch keeps in front of its payload, so the cut need
 * not sum the payload again.  False if @skb (at its payload, @n packets)
 * is not laid out that way: the cut then sums each segment.
 */
static bool ndp_gso_sums(struct sk_buff *skb, const struct ndphdr *h,
			 unsigned int mss, __sum16 *sums)
{
	unsigned int i = 1, len = skb->len;
	struct sk_buff *l;

	sums[0] = h->pcsum;
	skb_walk_frags(skb, l) {
		if (i >= NDP_GSO_SUMS_MAX || skb_headlen(l) || l->len > mss ||
		    skb_transport_header(l) + NDP_HDR_LEN != l->data)
			return false;
		sums[i++] = ndp_hdr(l)->pcsum;
		len -= l->len;
	}
	/* Packet i is the head's payload, then frag_list member i - 1. */
	return i > 1 && len == mss;
}

static struct sk_buff *ndp_gso_segment(struct sk_buff *skb,
				       netdev_features_t features, bool v4)
{
	__sum16 sums[NDP_GSO_SUMS_MAX];
	bool have_sums;
	unsigned int mss = skb_shinfo(skb)->gso_size;
	bool own = skb->destructor == sock_wfree;
	struct sk_buff *segs, *seg;
	unsigned int truesize = 0;
	struct sock *sk;
	struct ndphdr h;
	int n = 0;

	if ((skb_shinfo(skb)->gso_type & ~SKB_GSO_DODGY) != NDP_SKB_GSO_TYPE ||
	    !pskb_may_pull(skb, NDP_HDR_LEN))
		return ERR_PTR(-EINVAL);
	h = *ndp_hdr(skb);
	if (!ndp_hdr_is_sane(&h) || h.type != NDP_PKT_DATA ||
	    h.doff != NDP_HDR_WORDS || ndp_hdr_has(&h, NDP_F_TRIMMED) ||
	    !mss || mss >= GSO_BY_FRAGS || skb->len <= NDP_HDR_LEN + mss)
		return ERR_PTR(-EINVAL);
	/*
	 * The first packet's header says how long each packet is: a
	 * gso_size rewritten on the way (e.g. by a BPF program) would cut
	 * the stream at other offsets than the psns it numbers, with fresh
	 * payload checksums the receiver would trust.
	 */
	if (ntohs(h.paylen) != mss ||
	    (skb_shinfo(skb)->gso_segs &&
	     skb_shinfo(skb)->gso_segs !=
	     DIV_ROUND_UP(skb->len - NDP_HDR_LEN, mss)))
		return ERR_PTR(-EINVAL);

	__skb_pull(skb, NDP_HDR_LEN);
	/*
	 * The segments share the socket's write memory charge, as UDP's do;
	 * cleared here so that skb_segment() does not hand it to the last
	 * segment alone.
	 */
	sk = skb->sk;
	if (own) {
		skb->destructor = NULL;
		skb->sk = NULL;
	}
	/*
	 * With the sums at hand, skb_segment() is told the device checksums
	 * (it then sums nothing; no GSO bit, so it cuts every packet).
	 * Otherwise no checksum offload: it sums each segment's payload into
	 * SKB_GSO_CB(seg)->csum, which is the payload checksum we need.
	 */
	have_sums = ndp_gso_sums(skb, &h, mss, sums);
	if (have_sums)
		features = (features & ~(NETIF_F_CSUM_MASK | NETIF_F_GSO_MASK)) |
			   NETIF_F_HW_CSUM;
	else
		features &= ~(NETIF_F_CSUM_MASK | NETIF_F_GSO_PARTIAL);
	segs = skb_segment(skb, features);
	if (IS_ERR_OR_NULL(segs)) {
		if (own) {
			skb->destructor = sock_wfree;
			skb->sk = sk;
		}
		return segs;
	}

	ndp_gso_fix_segs(segs, &h, mss, have_sums ? sums : NULL, v4);
	for (seg = segs; seg; seg = seg->next) {
		n++;
		if (own) {
			seg->destructor = sock_wfree;
			seg->sk = sk;
			truesize += seg->truesize;
		}
	}
	if (own) {
		/* The segments now hold what the super-packet was charged. */
		if (truesize > skb->truesize)
			refcount_add(truesize - skb->truesize,
				     &sk->sk_wmem_alloc);
		else
			WARN_ON_ONCE(refcount_sub_and_test(skb->truesize - truesize,
							   &sk->sk_wmem_alloc));
	}
	if (skb->dev)
		NDP_ADD_STATS(dev_net(skb->dev), NDP_MIB_GSOSEGMENTS, n);
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
 * Take a batch apart (@skb at its first NDP header, IP done): @skb is
 * left holding its first packet and the others are returned as a list,
 * each with its data at its own NDP header and what the IP layer set on
 * @skb (device, input interface, control block).  NULL if @skb is not a
 * batch GRO built, or on allocation failure (@skb is then freed).
 */
struct sk_buff *ndp_gro_unbatch(struct sk_buff *skb, bool *freed)
{
	unsigned int len = 0, truesize = 0;
	struct sk_buff *list, **pp, *seg;

	*freed = false;
	if (skb_shinfo(skb)->gso_type != (NDP_SKB_GSO_TYPE | SKB_GSO_FRAGLIST) ||
	    !skb_has_frag_list(skb))
		return NULL;
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

/*
 * Cut a super-packet that reached the receive handler (@skb->data at the
 * NDP header) into its packets; NULL if it cannot be.  Called before the
 * packet is looked at, like udp_rcv_segment().
 */
struct sk_buff *ndp_rcv_segment(struct sk_buff *skb)
{
	struct sk_buff *segs;

	if (!skb_mac_header_was_set(skb))
		return NULL;
	/* Back to the link-layer header, where segmentation starts. */
	__skb_push(skb, -skb_mac_offset(skb));
	/* Not a checksum the device left us to complete. */
	skb->ip_summed = CHECKSUM_UNNECESSARY;
	segs = __skb_gso_segment(skb, NETIF_F_SG, false);
	if (IS_ERR_OR_NULL(segs))
		return NULL;
	return segs;
}

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
