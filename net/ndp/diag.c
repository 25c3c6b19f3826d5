// SPDX-License-Identifier: GPL-2.0
/*
 * NDP: sock_diag handler (ndp_diag.ko), so that ss, ndpctl and any other
 * inet_diag client list NDP sockets as they list TCP ones.
 *
 * inet_diag asks for protocol IPPROTO_NDP and loads this module through
 * its alias the first time it is asked.  A dump walks the bind table
 * (listeners, bound but unconnected sockets) and then the connection list
 * of the caller's namespace, a batch of referenced sockets at a time (the
 * socket locks nest outside the table locks), and reports each socket the
 * request's family, states, ports and bytecode filter select: the common
 * inet_diag_msg, the generic attributes, INET_DIAG_MEMINFO and
 * INET_DIAG_SKMEMINFO when asked for, and struct ndp_info as
 * INET_DIAG_INFO.  The connection nonce in it is shown only to a caller
 * with CAP_NET_ADMIN.  An exact request (cookie, ports, addresses) finds
 * one socket through the connection table's list of the 4-tuple's
 * incarnations or the port's bucket of the bind table (hash.c), never by
 * walking every socket; SOCK_DESTROY (ss -K: one exact request per socket
 * its dump selected) aborts a connection (RST to the peer) through
 * sock_diag_destroy(), which requires CAP_NET_ADMIN.
 *
 * Time-wait records are not sockets in NDP (timewait.c keeps a small
 * record per finished connection), but an operator expects them where
 * TCP shows its TIME-WAIT sockets: after the sockets, a dump whose state
 * filter includes TCP_TIME_WAIT reports each live record in state
 * TCP_TIME_WAIT with timer 3 ("timewait") and the time it has left, no
 * queues, uid or inode, and no further attributes.  To run the request's
 * bytecode on it and to fill the common part of the message, the record
 * is dressed as a struct inet_timewait_sock on the stack: for a socket in
 * that state inet_diag_msg_common_fill() and inet_diag_bc_sk() read only
 * its sock_common and tw_mark.  Exact requests (dump_one, SOCK_DESTROY)
 * find sockets only.
 */

#define pr_fmt(fmt) "NDP: " fmt

#include <linux/inet_diag.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sock_diag.h>
#include <net/inet_timewait_sock.h>
#include <net/ipv6.h>
#include <net/netlink.h>
#include <net/sock.h>
#include <net/tcp_states.h>

#include "protocol.h"

#define NDP_DIAG_BATCH	16
/* Time-wait records copied per walk: at least, at most. */
#define NDP_DIAG_TW_BATCH	4
#define NDP_DIAG_TW_MAX		512

/* Where a dump stands: cb->args[] indices. */
enum {
	NDP_DIAG_ARG_TABLE,	/* 0: bind table, 1: connections, 2: time-wait */
	NDP_DIAG_ARG_POS,	/* table position (time-wait: next record id) */
	NDP_DIAG_ARG_SENT,	/* sockets of that batch already handled */
};

typedef int (*ndp_diag_batch_fn)(struct ndp_net *nn, unsigned long *pos,
				 struct sock **batch, int n);

static const ndp_diag_batch_fn ndp_diag_tables[] = {
	ndp_bind_batch,
	ndp_conn_batch,
};

static size_t ndp_diag_msg_size(void)
{
	return NLMSG_ALIGN(sizeof(struct inet_diag_msg)) +
	       inet_diag_msg_attrs_size() +
	       nla_total_size(sizeof(struct inet_diag_meminfo)) +
	       nla_total_size(SK_MEMINFO_VARS * sizeof(u32)) +
	       nla_total_size_64bit(sizeof(struct ndp_info));
}

static int ndp_diag_fill(struct sock *sk, struct sk_buff *skb,
			 struct netlink_callback *cb,
			 const struct inet_diag_req_v2 *req, u16 nlmsg_flags,
			 bool net_admin)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	int ext = req->idiag_ext;
	struct inet_diag_msg *r;
	struct ndp_info info;
	struct nlmsghdr *nlh;
	unsigned long expires;
	struct nlattr *attr;

	nlh = nlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			cb->nlh->nlmsg_type, sizeof(*r), nlmsg_flags);
	if (!nlh)
		return -EMSGSIZE;
	r = nlmsg_data(nlh);
	inet_diag_msg_common_fill(r, sk);
	r->idiag_state = inet_sk_state_load(sk);
	r->idiag_timer = 0;
	r->idiag_retrans = 0;
	r->idiag_expires = 0;
	expires = READ_ONCE(nsk->rto.timer.expires);
	if (timer_pending(&nsk->rto.timer)) {
		/* As TCP's retransmission timer ("timer:(on,...)" in ss). */
		r->idiag_timer = 1;
		r->idiag_retrans = READ_ONCE(nsk->rto.retries);
		r->idiag_expires = jiffies_delta_to_msecs(expires - jiffies);
	}

	if (inet_diag_msg_attrs_fill(sk, skb, r, ext,
				     sk_user_ns(NETLINK_CB(cb->skb).sk),
				     net_admin))
		goto errout;

	if (ext & (1 << (INET_DIAG_MEMINFO - 1))) {
		struct inet_diag_meminfo minfo = {
			.idiag_rmem = sk_rmem_alloc_get(sk),
			.idiag_wmem = READ_ONCE(sk->sk_wmem_queued),
			.idiag_fmem = READ_ONCE(sk->sk_forward_alloc),
			.idiag_tmem = sk_wmem_alloc_get(sk),
		};

		if (nla_put(skb, INET_DIAG_MEMINFO, sizeof(minfo), &minfo))
			goto errout;
	}
	if (ext & (1 << (INET_DIAG_SKMEMINFO - 1)) &&
	    sock_diag_put_meminfo(sk, skb, INET_DIAG_SKMEMINFO))
		goto errout;

	/* Queue sizes as TCP reports them; listeners: accept queue. */
	ndp_get_info(sk, &info, net_admin);
	r->idiag_rqueue = info.ndpi_rcvq_bytes;
	r->idiag_wqueue = info.ndpi_sndq_bytes;
	if (ext & (1 << (INET_DIAG_INFO - 1))) {
		attr = nla_reserve_64bit(skb, INET_DIAG_INFO, sizeof(info),
					 INET_DIAG_PAD);
		if (!attr)
			goto errout;
		memcpy(nla_data(attr), &info, sizeof(info));
	}
	nlmsg_end(skb, nlh);
	return 0;

errout:
	nlmsg_cancel(skb, nlh);
	return -EMSGSIZE;
}

static bool ndp_diag_selected(struct sock *sk,
			      const struct inet_diag_req_v2 *r,
			      const struct inet_diag_dump_data *bc)
{
	const struct inet_sock *inet = inet_sk(sk);

	if (r->sdiag_family != AF_UNSPEC && sk->sk_family != r->sdiag_family)
		return false;
	if (!(r->idiag_states & (1 << inet_sk_state_load(sk))))
		return false;
	if (r->id.idiag_sport && r->id.idiag_sport != inet->inet_sport)
		return false;
	if (r->id.idiag_dport && r->id.idiag_dport != inet->inet_dport)
		return false;
	return ndp_inet_diag_bc_sk(bc, sk);
}

/*
 * The parts of a time-wait socket that inet_diag reads, from a record.  An
 * IPv4 connection of an IPv6 socket is reported as AF_INET6 with
 * v4-mapped addresses, as its socket was (and as TCP's are).
 */
static void ndp_diag_tw_sock(struct inet_timewait_sock *tw,
			     const struct ndp_tw_diag *d)
{
	memset(tw, 0, sizeof(*tw));
	tw->tw_family = d->sock_family;
	tw->tw_state = TCP_TIME_WAIT;
	tw->tw_num = ntohs(d->fl.lport);
	tw->tw_dport = d->fl.rport;
	tw->tw_bound_dev_if = d->fl.ifindex;
	atomic64_set(&tw->tw_cookie, d->cookie);
	if (d->fl.family == AF_INET) {
		tw->tw_rcv_saddr = d->fl.laddr.s6_addr32[3];
		tw->tw_daddr = d->fl.raddr.s6_addr32[3];
	}
	if (d->sock_family == AF_INET6 && d->fl.family == AF_INET) {
		ipv6_addr_set_v4mapped(tw->tw_rcv_saddr, &tw->tw_v6_rcv_saddr);
		ipv6_addr_set_v4mapped(tw->tw_daddr, &tw->tw_v6_daddr);
	} else if (d->sock_family == AF_INET6) {
		tw->tw_v6_rcv_saddr = d->fl.laddr;
		tw->tw_v6_daddr = d->fl.raddr;
	}
}

static int ndp_diag_tw_fill(struct sock *sk, unsigned long expires,
			    struct sk_buff *skb, struct netlink_callback *cb)
{
	long tmo = max_t(long, expires - jiffies, 0);
	struct inet_diag_msg *r;
	struct nlmsghdr *nlh;

	nlh = nlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			cb->nlh->nlmsg_type, sizeof(*r), NLM_F_MULTI);
	if (!nlh)
		return -EMSGSIZE;
	r = nlmsg_data(nlh);
	inet_diag_msg_common_fill(r, sk);
	r->idiag_state = TCP_TIME_WAIT;
	r->idiag_timer = 3;
	r->idiag_retrans = 0;
	r->idiag_expires = jiffies_delta_to_msecs(tmo);
	r->idiag_rqueue = 0;
	r->idiag_wqueue = 0;
	r->idiag_uid = 0;
	r->idiag_inode = 0;
	nlmsg_end(skb, nlh);
	return 0;
}

/*
 * Time-wait records after the sockets; cb->args[NDP_DIAG_ARG_POS] is the
 * id of the first record not yet reported.  ndp_tw_batch() walks the
 * record list from its head, so each call copies as many records as the
 * skb can take: one walk per netlink buffer, not one per few records.
 */
static void ndp_diag_dump_tw(struct sk_buff *skb, struct netlink_callback *cb,
			     const struct inet_diag_req_v2 *r,
			     const struct inet_diag_dump_data *bc,
			     struct ndp_net *nn)
{
	size_t msg = nlmsg_total_size(sizeof(struct inet_diag_msg));
	struct ndp_tw_diag small[NDP_DIAG_TW_BATCH], *batch;
	struct inet_timewait_sock tw;
	unsigned long pos;
	int max, n, k;

	if (!(r->idiag_states & TCPF_TIME_WAIT))
		return;
	max = clamp_t(int, skb_tailroom(skb) / msg + 1, NDP_DIAG_TW_BATCH,
		      NDP_DIAG_TW_MAX);
	batch = kmalloc_array(max, sizeof(*batch), GFP_KERNEL);
	if (!batch) {
		batch = small;
		max = ARRAY_SIZE(small);
	}
	do {
		pos = cb->args[NDP_DIAG_ARG_POS];
		n = ndp_tw_batch(nn, &pos, batch, max);
		for (k = 0; k < n; k++) {
			const struct ndp_tw_diag *d = &batch[k];

			if (r->sdiag_family != AF_UNSPEC &&
			    d->sock_family != r->sdiag_family)
				continue;
			if (r->id.idiag_sport && r->id.idiag_sport != d->fl.lport)
				continue;
			if (r->id.idiag_dport && r->id.idiag_dport != d->fl.rport)
				continue;
			ndp_diag_tw_sock(&tw, d);
			if (!ndp_inet_diag_bc_sk(bc, (struct sock *)&tw))
				continue;
			if (ndp_diag_tw_fill((struct sock *)&tw, d->expires,
					     skb, cb)) {
				/* The skb is full: resume at this record. */
				cb->args[NDP_DIAG_ARG_POS] = d->id;
				goto out;
			}
		}
		cb->args[NDP_DIAG_ARG_POS] = pos;
	} while (n == max);
out:
	if (batch != small)
		kfree(batch);
}

static void ndp_diag_dump(struct sk_buff *skb, struct netlink_callback *cb,
			  const struct inet_diag_req_v2 *r)
{
	bool net_admin = netlink_net_capable(cb->skb, CAP_NET_ADMIN);
	struct ndp_net *nn = ndp_pernet(sock_net(cb->skb->sk));
	const struct inet_diag_dump_data *bc = cb->data;
	struct sock *batch[NDP_DIAG_BATCH];
	unsigned long pos;
	int n, k, err;

	while (cb->args[NDP_DIAG_ARG_TABLE] < ARRAY_SIZE(ndp_diag_tables)) {
		ndp_diag_batch_fn fn;

		fn = ndp_diag_tables[cb->args[NDP_DIAG_ARG_TABLE]];
		pos = cb->args[NDP_DIAG_ARG_POS];
		n = fn(nn, &pos, batch, NDP_DIAG_BATCH);
		err = 0;
		for (k = 0; k < n; k++) {
			struct sock *sk = batch[k];

			if (!err && k >= cb->args[NDP_DIAG_ARG_SENT] &&
			    ndp_diag_selected(sk, r, bc)) {
				err = ndp_diag_fill(sk, skb, cb, r,
						    NLM_F_MULTI, net_admin);
				if (err)
					cb->args[NDP_DIAG_ARG_SENT] = k;
			}
			sock_put(sk);
		}
		if (err)
			return;		/* the skb is full: resume at @k */
		cb->args[NDP_DIAG_ARG_SENT] = 0;
		cb->args[NDP_DIAG_ARG_POS] = pos;
		if (n < NDP_DIAG_BATCH) {
			cb->args[NDP_DIAG_ARG_TABLE]++;
			cb->args[NDP_DIAG_ARG_POS] = 0;
		}
	}
	ndp_diag_dump_tw(skb, cb, r, bc, nn);
}

static bool ndp_diag_match(struct sock *sk, const void *arg)
{
	const struct inet_diag_req_v2 *req = arg;
	const struct inet_diag_sockid *id = &req->id;
	const struct inet_sock *inet = inet_sk(sk);

	if (sk->sk_family != req->sdiag_family ||
	    inet->inet_sport != id->idiag_sport ||
	    inet->inet_dport != id->idiag_dport)
		return false;
	if (id->idiag_if && sk->sk_bound_dev_if != id->idiag_if)
		return false;
	if (sock_diag_check_cookie(sk, id->idiag_cookie))
		return false;
	if (sk->sk_family == AF_INET)
		return inet->inet_rcv_saddr == id->idiag_src[0] &&
		       inet->inet_daddr == id->idiag_dst[0];
	return !memcmp(&sk->sk_v6_rcv_saddr, id->idiag_src, 16) &&
	       !memcmp(&sk->sk_v6_daddr, id->idiag_dst, 16);
}

/*
 * The socket an exact request names, with a reference, or NULL: a
 * connection from its 4-tuple's list of incarnations (the cookie picks
 * one), else a socket that owns the port and is not a connection, from
 * the port's bucket of the bind table.  An AF_INET6 request for
 * IPv4-mapped addresses names a dual-stack socket's IPv4 connection,
 * whose flow is an IPv4 one (ndp_sk_flow()).
 */
static struct sock *ndp_diag_find(struct net *net,
				  const struct inet_diag_req_v2 *req)
{
	const struct inet_diag_sockid *id = &req->id;
	struct ndp_flow key = {};
	struct sock *sk;

	if (req->sdiag_family == AF_INET) {
		key.family = AF_INET;
		ipv6_addr_set_v4mapped(id->idiag_src[0], &key.laddr);
		ipv6_addr_set_v4mapped(id->idiag_dst[0], &key.raddr);
	} else if (req->sdiag_family == AF_INET6) {
		memcpy(&key.laddr, id->idiag_src, sizeof(key.laddr));
		memcpy(&key.raddr, id->idiag_dst, sizeof(key.raddr));
		key.family = ipv6_addr_v4mapped(&key.raddr) ? AF_INET : AF_INET6;
	} else {
		return NULL;
	}
	key.lport = id->idiag_sport;
	key.rport = id->idiag_dport;
	sk = ndp_conn_find(net, &key, ndp_diag_match, req);
	if (!sk)
		sk = ndp_bound_find(net, ntohs(id->idiag_sport), ndp_diag_match,
				    req);
	return sk;
}

static int ndp_diag_dump_one(struct netlink_callback *cb,
			     const struct inet_diag_req_v2 *req)
{
	struct sk_buff *in_skb = cb->skb;
	struct net *net = sock_net(in_skb->sk);
	struct sk_buff *rep;
	struct sock *sk;
	int err;

	sk = ndp_diag_find(net, req);
	if (!sk)
		return -ENOENT;
	rep = nlmsg_new(ndp_diag_msg_size(), GFP_KERNEL);
	if (!rep) {
		err = -ENOMEM;
		goto out;
	}
	err = ndp_diag_fill(sk, rep, cb, req, 0,
			    netlink_net_capable(in_skb, CAP_NET_ADMIN));
	if (err) {
		kfree_skb(rep);
		goto out;
	}
	err = nlmsg_unicast(net->diag_nlsk, rep, NETLINK_CB(in_skb).portid);
out:
	sock_put(sk);
	return err;
}

/* SOCK_DESTROY: sock_diag_destroy() checks CAP_NET_ADMIN. */
static int ndp_diag_destroy(struct sk_buff *in_skb,
			    const struct inet_diag_req_v2 *req)
{
	struct sock *sk;
	int err;

	sk = ndp_diag_find(sock_net(in_skb->sk), req);
	if (!sk)
		return -ENOENT;
	err = sock_diag_destroy(sk, ECONNABORTED);
	sock_put(sk);
	return err;
}

/*
 * Only for the core's own callers (inet_diag_handler_get_info(), the
 * destroy broadcast, which NDP does not use): no lock may be taken here.
 */
static void ndp_diag_get_info(struct sock *sk, struct inet_diag_msg *r,
			      void *_info)
{
	struct ndp_info *info = _info;

	r->idiag_rqueue = 0;
	r->idiag_wqueue = 0;
	if (info) {
		memset(info, 0, sizeof(*info));
		info->ndpi_version = NDP_INFO_VERSION;
		info->ndpi_state = inet_sk_state_load(sk);
	}
}

static struct inet_diag_handler ndp_diag_handler = {
	.dump		 = ndp_diag_dump,
	.dump_one	 = ndp_diag_dump_one,
	.idiag_get_info	 = ndp_diag_get_info,
	.destroy	 = ndp_diag_destroy,
	.idiag_type	 = IPPROTO_NDP,
	.idiag_info_size = sizeof(struct ndp_info),
};

static int __init ndp_diag_init(void)
{
	ndp_diag_handler.idiag_type = ndp_ipproto;
	ndp_compat_diag_owner(&ndp_diag_handler, THIS_MODULE);
	return inet_diag_register(&ndp_diag_handler);
}

static void __exit ndp_diag_exit(void)
{
	inet_diag_unregister(&ndp_diag_handler);
}

module_init(ndp_diag_init);
module_exit(ndp_diag_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("NDP socket monitoring via SOCK_DIAG");
/* inet_diag asks for "net-pf-16-proto-4-type-<AF_INET>-<protocol>". */
MODULE_ALIAS("net-pf-" __stringify(PF_NETLINK) "-proto-"
	     __stringify(NETLINK_SOCK_DIAG) "-type-" __stringify(AF_INET) "-"
	     __stringify(IPPROTO_NDP));
