// SPDX-License-Identifier: GPL-2.0
/*
 * NDP: port and connection tables of one network namespace.
 *
 * The bind table holds every socket that owns a local port: listeners and
 * active sockets (bound explicitly or at connect time).  Accepted
 * children share their listener's port and are not in it.  Two sockets
 * may share a port only when their local addresses do not overlap, or
 * when both set SO_REUSEADDR and the one already there is not listening
 * (as TCP).  A v6 wildcard socket without IPV6_V6ONLY overlaps every IPv4
 * address and receives IPv4 packets too (dual stack, as TCP): its
 * connections with IPv4 peers are IPv4 flows with IPv4-mapped addresses.
 *
 * The connection table holds connected sockets keyed by the 4-tuple and
 * the nonce, so several incarnations of one 4-tuple can coexist while an
 * old one drains.  It is an rhashtable: it grows with the number of
 * connections, and its hash is jhash over the whole key with a seed drawn
 * at random for each table, so a remote sender who chooses addresses,
 * ports and nonces cannot aim at one bucket.  Each entry holds a socket
 * reference.  Lookups (every received packet) run under RCU and take a
 * reference with refcount_inc_not_zero(); sockets are freed after a
 * grace period (SOCK_RCU_FREE), as udp.c does.  Each connection is also
 * found by ports and nonce alone (a second rhashtable, no extra
 * reference), for packets that multipath steered through other
 * addresses.  A third table lists the connections of each 4-tuple
 * (an rhltable without the nonce, no extra reference), for the exact
 * requests of sock_diag, which name a socket by addresses, ports and
 * cookie but know no nonce: one bucket, not a walk of every connection.
 * Its lists are as long as the incarnations of one 4-tuple that are
 * alive together, which the admission budgets of the listener bound.
 * ndp_hash_net.conn_lock serialises writers and keeps
 * ndp_hash_net.conn_list, every connection, for dumps.
 *
 * The bind table is small and keyed by port, which only local users
 * choose: fixed buckets, written under ndp_hash_net.bind_lock, read under
 * RCU
 * by the listener lookup of a passive open.
 */

#define pr_fmt(fmt) "NDP: " fmt

#include <linux/jhash.h>
#include <linux/random.h>
#include <linux/rhashtable.h>
#include <linux/slab.h>
#include <net/inet_sock.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/sock_reuseport.h>

#include "protocol.h"

/*
 * The lookup key: addresses, ports and nonce are contiguous in it.  Also
 * the hash of the time-wait table (timewait.c).
 */
u32 ndp_flow_hashfn(const void *data, u32 len, u32 seed)
{
	const struct ndp_flow *fl = data;

	BUILD_BUG_ON(offsetof(struct ndp_flow, raddr) != 16 ||
		     offsetof(struct ndp_flow, lport) != 32 ||
		     offsetof(struct ndp_flow, rport) != 34 ||
		     offsetof(struct ndp_flow, nonce) != 36);
	return jhash2((const u32 *)fl, 10, seed ^ fl->family);
}
EXPORT_SYMBOL_IF_KUNIT(ndp_flow_hashfn);	/* hash_test.c */

static u32 ndp_conn_obj_hashfn(const void *data, u32 len, u32 seed)
{
	return ndp_flow_hashfn(&((const struct ndp_sock *)data)->flow, 0, seed);
}

static int ndp_conn_cmpfn(struct rhashtable_compare_arg *arg, const void *obj)
{
	return !ndp_flow_match(arg->key, &((const struct ndp_sock *)obj)->flow);
}

static const struct rhashtable_params ndp_conn_params = {
	.head_offset		= offsetof(struct ndp_sock, conn_node),
	.hashfn			= ndp_flow_hashfn,
	.obj_hashfn		= ndp_conn_obj_hashfn,
	.obj_cmpfn		= ndp_conn_cmpfn,
	.automatic_shrinking	= true,
};

/* Ports and nonce only: see ndp_conn_lookup_any(). */
u32 ndp_any_hashfn(const void *data, u32 len, u32 seed)
{
	const struct ndp_flow *fl = data;

	return jhash_3words(((u32)ntohs(fl->lport) << 16) | ntohs(fl->rport),
			    fl->nonce, fl->family, seed);
}
EXPORT_SYMBOL_IF_KUNIT(ndp_any_hashfn);

static u32 ndp_any_obj_hashfn(const void *data, u32 len, u32 seed)
{
	return ndp_any_hashfn(&((const struct ndp_sock *)data)->flow, 0, seed);
}

static int ndp_any_cmpfn(struct rhashtable_compare_arg *arg, const void *obj)
{
	const struct ndp_flow *c = &((const struct ndp_sock *)obj)->flow;
	const struct ndp_flow *fl = arg->key;

	return !(c->lport == fl->lport && c->rport == fl->rport &&
		 c->nonce == fl->nonce && c->family == fl->family);
}

static const struct rhashtable_params ndp_any_params = {
	.head_offset		= offsetof(struct ndp_sock, conn_any_node),
	.hashfn			= ndp_any_hashfn,
	.obj_hashfn		= ndp_any_obj_hashfn,
	.obj_cmpfn		= ndp_any_cmpfn,
	.automatic_shrinking	= true,
};

/* Addresses and ports only (no nonce): see ndp_conn_find(). */
static u32 ndp_tuple_hashfn(const void *data, u32 len, u32 seed)
{
	const struct ndp_flow *fl = data;

	return jhash2((const u32 *)fl, 9, seed ^ fl->family);
}

static u32 ndp_tuple_obj_hashfn(const void *data, u32 len, u32 seed)
{
	return ndp_tuple_hashfn(&((const struct ndp_sock *)data)->flow, 0, seed);
}

static int ndp_tuple_cmpfn(struct rhashtable_compare_arg *arg,
			   const void *obj)
{
	const struct ndp_flow *c = &((const struct ndp_sock *)obj)->flow;
	const struct ndp_flow *fl = arg->key;

	return !(c->lport == fl->lport && c->rport == fl->rport &&
		 c->family == fl->family &&
		 ipv6_addr_equal(&c->raddr, &fl->raddr) &&
		 ipv6_addr_equal(&c->laddr, &fl->laddr));
}

static const struct rhashtable_params ndp_tuple_params = {
	.head_offset		= offsetof(struct ndp_sock, conn_tuple_node),
	.hashfn			= ndp_tuple_hashfn,
	.obj_hashfn		= ndp_tuple_obj_hashfn,
	.obj_cmpfn		= ndp_tuple_cmpfn,
	.automatic_shrinking	= true,
};

/**
 * struct ndp_hash_net - the port and connection tables of one namespace
 * @bind_lock: serialises writers of @bind_hash (readers: RCU).
 * @bind_hash: bound sockets (listeners and explicitly or auto-bound
 *	active sockets) by local port.
 * @conn_lock: serialises writers of @conn_ht, @conn_any_ht,
 *	@conn_tuple_ht, @conn_list.
 * @conn_ht: connections by 4-tuple and nonce (RCU lookups).
 * @conn_any_ht: the same connections by ports and nonce only, for
 *	packets a path steered to or from another address (multipath).
 * @conn_tuple_ht: the same connections by 4-tuple only, every
 *	incarnation of it (sock_diag's exact requests).
 * @conn_list: every connection, for dumps.
 *
 * Private to this file (&ndp_net.hash): allocated by ndp_hash_net_init(),
 * freed by ndp_hash_net_exit().
 */
struct ndp_hash_net {
	spinlock_t		bind_lock;	/* writers of bind_hash */
	struct hlist_head	bind_hash[1 << NDP_BIND_HASH_BITS];
	spinlock_t		conn_lock;	/* writers of conn_* */
	struct rhashtable	conn_ht;
	struct rhashtable	conn_any_ht;
	struct rhltable		conn_tuple_ht;
	struct list_head	conn_list;
};

int ndp_hash_net_init(struct ndp_net *nn)
{
	struct ndp_hash_net *hn;
	int i, err;

	hn = kzalloc(sizeof(*hn), GFP_KERNEL);
	if (!hn)
		return -ENOMEM;
	nn->hash = hn;
	spin_lock_init(&hn->bind_lock);
	spin_lock_init(&hn->conn_lock);
	INIT_LIST_HEAD(&hn->conn_list);
	for (i = 0; i < ARRAY_SIZE(hn->bind_hash); i++)
		INIT_HLIST_HEAD(&hn->bind_hash[i]);
	err = rhashtable_init(&hn->conn_ht, &ndp_conn_params);
	if (err)
		goto err_free;
	err = rhashtable_init(&hn->conn_any_ht, &ndp_any_params);
	if (err)
		goto err_conn;
	err = rhltable_init(&hn->conn_tuple_ht, &ndp_tuple_params);
	if (err)
		goto err_any;
	return 0;

err_any:
	rhashtable_destroy(&hn->conn_any_ht);
err_conn:
	rhashtable_destroy(&hn->conn_ht);
err_free:
	nn->hash = NULL;
	kfree(hn);
	return err;
}

/* Namespace exit: every socket, and so every connection, is gone. */
void ndp_hash_net_exit(struct ndp_net *nn)
{
	WARN_ON_ONCE(!list_empty(&nn->hash->conn_list));
	rhltable_destroy(&nn->hash->conn_tuple_ht);
	rhashtable_destroy(&nn->hash->conn_any_ht);
	rhashtable_destroy(&nn->hash->conn_ht);
	kfree(nn->hash);
	nn->hash = NULL;
}

/*
 * The flow of @sk, addresses in v4-mapped form for IPv4: an AF_INET
 * socket, or an AF_INET6 one connected to an IPv4-mapped peer (dual
 * stack), whose flow is an IPv4 one.
 */
void ndp_sk_flow(const struct sock *sk, struct ndp_flow *fl)
{
	const struct inet_sock *inet = inet_sk(sk);

	memset(fl, 0, sizeof(*fl));
	if (ndp_sk_v4(sk)) {
		fl->family = AF_INET;
		ipv6_addr_set_v4mapped(inet->inet_rcv_saddr, &fl->laddr);
		ipv6_addr_set_v4mapped(inet->inet_daddr, &fl->raddr);
	} else {
		fl->family = AF_INET6;
		fl->laddr = sk->sk_v6_rcv_saddr;
		fl->raddr = sk->sk_v6_daddr;
	}
	fl->lport = inet->inet_sport;
	fl->rport = inet->inet_dport;
	fl->nonce = ndp_sk(sk)->nonce;
	fl->ifindex = sk->sk_bound_dev_if;
}

/*
 * The local addresses a socket receives on, per IP version: none, every
 * one (a wildcard) or one.  An AF_INET6 socket bound to an IPv4-mapped
 * address is an IPv4 socket for this; a wildcard AF_INET6 socket covers
 * IPv4 too unless it is IPV6_V6ONLY (inet6_bind() makes a socket bound to
 * an IPv6 address V6ONLY), as TCP's dual stack.
 */
enum { NDP_LA_NONE, NDP_LA_ANY, NDP_LA_ONE };

struct ndp_laddr {
	u8			v4;
	u8			v6;
	__be32			a4;
	const struct in6_addr	*a6;
};

static void ndp_laddr_get(const struct sock *sk, struct ndp_laddr *la)
{
	const struct in6_addr *a6 = &sk->sk_v6_rcv_saddr;

	la->v4 = NDP_LA_NONE;
	la->v6 = NDP_LA_NONE;
	la->a4 = inet_sk(sk)->inet_rcv_saddr;
	la->a6 = a6;
	if (sk->sk_family == AF_INET || ipv6_addr_v4mapped(a6)) {
		la->v4 = la->a4 ? NDP_LA_ONE : NDP_LA_ANY;
	} else if (!ipv6_addr_any(a6)) {
		la->v6 = NDP_LA_ONE;
	} else {
		la->v6 = NDP_LA_ANY;
		if (!sk->sk_ipv6only)
			la->v4 = NDP_LA_ANY;
	}
}

static bool ndp_laddr_is_any(const struct sock *sk)
{
	struct ndp_laddr la;

	ndp_laddr_get(sk, &la);
	return la.v4 != NDP_LA_ONE && la.v6 != NDP_LA_ONE;
}

static bool ndp_laddr_overlap(const struct sock *a, const struct sock *b)
{
	struct ndp_laddr x, y;

	ndp_laddr_get(a, &x);
	ndp_laddr_get(b, &y);
	if (x.v4 && y.v4 &&
	    (x.v4 == NDP_LA_ANY || y.v4 == NDP_LA_ANY || x.a4 == y.a4))
		return true;
	return x.v6 && y.v6 &&
	       (x.v6 == NDP_LA_ANY || y.v6 == NDP_LA_ANY ||
		ipv6_addr_equal(x.a6, y.a6));
}

static struct hlist_head *ndp_bind_bucket(struct ndp_net *nn, u16 port)
{
	return &nn->hash->bind_hash[hash_32(port, NDP_BIND_HASH_BITS)];
}

/*
 * Whether @sk may not share its port with @sk2, which holds it: TCP's
 * rule (inet_bind_conflict()).  Sockets bound to different devices or to
 * local addresses that do not overlap never conflict.  Otherwise, with
 * @relax (bind() or listen() of a chosen port), they share it when both
 * set SO_REUSEADDR and @sk2 is not listening, or when both set
 * SO_REUSEPORT and were created by the same user; without @relax (the
 * search for an ephemeral port) any overlap is a conflict.
 */
static bool ndp_bind_conflict(const struct sock *sk, const struct sock *sk2,
			      bool relax)
{
	if (sk->sk_bound_dev_if && sk2->sk_bound_dev_if &&
	    sk->sk_bound_dev_if != sk2->sk_bound_dev_if)
		return false;
	if (!ndp_laddr_overlap(sk, sk2))
		return false;
	if (!relax)
		return true;
	if (sk->sk_reuse && sk2->sk_reuse &&
	    inet_sk_state_load(sk2) != TCP_LISTEN)
		return false;
	return !(sk->sk_reuseport && sk2->sk_reuseport &&
		 uid_eq(ndp_sk_uid(sk), ndp_sk_uid(sk2)));
}

/* Whether @port is unusable for @sk (see ndp_bind_conflict()). */
static bool ndp_port_conflict(struct ndp_net *nn, const struct sock *sk,
			      u16 port, bool relax)
{
	struct ndp_sock *other;

	lockdep_assert_held(&nn->hash->bind_lock);
	hlist_for_each_entry(other, ndp_bind_bucket(nn, port), bind_node) {
		const struct sock *sk2 = (struct sock *)other;

		if (sk2 == sk || inet_sk(sk2)->inet_num != port)
			continue;
		if (ndp_bind_conflict(sk, sk2, relax))
			return true;
	}
	return false;
}

/*
 * proto.get_port: claim @snum, or an ephemeral port when it is 0.  Called
 * by inet_bind()/inet6_bind() with the local address already set, and by
 * connect() and listen() for unbound sockets.  An ephemeral port is one
 * that no overlapping socket holds, picked from a random point of the
 * range inet_sk_get_local_port_range() gives (ip_local_port_range, or
 * the socket's IP_LOCAL_PORT_RANGE), skipping ip_local_reserved_ports;
 * none left is EADDRINUSE, as inet_csk_get_port() says (connect() makes
 * it EADDRNOTAVAIL, as TCP's).
 */
int ndp_get_port(struct sock *sk, unsigned short snum)
{
	struct ndp_net *nn = ndp_pernet(sock_net(sk));
	struct ndp_sock *nsk = ndp_sk(sk);
	int low, high, remaining, port;
	int err = 0;

	if (nsk->bound)
		return -EINVAL;
	spin_lock_bh(&nn->hash->bind_lock);
	if (snum) {
		if (ndp_port_conflict(nn, sk, snum, true)) {
			err = -EADDRINUSE;
			goto out;
		}
		port = snum;
	} else {
		ndp_local_port_range(sk, &low, &high);
		remaining = high - low + 1;
		err = -EADDRINUSE;
		if (remaining <= 0)
			goto out;
		port = low + get_random_u32_below(remaining);
		for (; remaining > 0; remaining--) {
			if (!inet_is_local_reserved_port(sock_net(sk), port) &&
			    !ndp_port_conflict(nn, sk, port, false))
				break;
			if (++port > high)
				port = low;
		}
		if (!remaining)
			goto out;
		err = 0;
	}
	inet_sk(sk)->inet_num = port;
	inet_sk(sk)->inet_sport = htons(port);
	hlist_add_head_rcu(&nsk->bind_node, ndp_bind_bucket(nn, port));
	nsk->bound = true;
out:
	spin_unlock_bh(&nn->hash->bind_lock);
	return err;
}

/*
 * The SO_REUSEPORT group @sk joins when it listens: that of a listener
 * with the same port, family, IPV6_V6ONLY, device, owner and exactly the
 * same local address (as inet_reuseport_add_sock()), else a new one.
 */
static int ndp_reuseport_join(struct ndp_net *nn, struct sock *sk)
{
	bool any = ndp_laddr_is_any(sk);
	u16 port = inet_sk(sk)->inet_num;
	struct ndp_sock *other;
	struct ndp_flow fl, fl2;

	lockdep_assert_held(&nn->hash->bind_lock);
	ndp_sk_flow(sk, &fl);
	hlist_for_each_entry(other, ndp_bind_bucket(nn, port), bind_node) {
		struct sock *sk2 = (struct sock *)other;

		if (sk2 == sk || inet_sk(sk2)->inet_num != port ||
		    inet_sk_state_load(sk2) != TCP_LISTEN ||
		    !sk2->sk_reuseport || sk2->sk_family != sk->sk_family ||
		    sk2->sk_ipv6only != sk->sk_ipv6only ||
		    sk2->sk_bound_dev_if != sk->sk_bound_dev_if ||
		    !uid_eq(ndp_sk_uid(sk2), ndp_sk_uid(sk)))
			continue;
		ndp_sk_flow(sk2, &fl2);
		if (ipv6_addr_equal(&fl.laddr, &fl2.laddr))
			return reuseport_add_sock(sk, sk2, any);
	}
	return reuseport_alloc(sk, any);
}

/*
 * listen(): check @sk's port against the other sockets that hold it now
 * (TCP checks again at listen(): two SO_REUSEADDR sockets may share a
 * port while neither listens, not once one does), join an SO_REUSEPORT
 * group and become a listener, atomically with other binds and listens.
 */
int ndp_listen_start(struct sock *sk)
{
	struct ndp_net *nn = ndp_pernet(sock_net(sk));
	int err = 0;

	sock_owned_by_me(sk);
	spin_lock_bh(&nn->hash->bind_lock);
	if (ndp_port_conflict(nn, sk, inet_sk(sk)->inet_num, true)) {
		err = -EADDRINUSE;
		goto out;
	}
	if (sk->sk_reuseport) {
		err = ndp_reuseport_join(nn, sk);
		if (err)
			goto out;
	}
	/* Softirq backlogs first windows while we own the socket. */
	inet_sk_set_state(sk, TCP_LISTEN);
out:
	spin_unlock_bh(&nn->hash->bind_lock);
	return err;
}

/*
 * A listener stops (close(), shutdown()): out of its SO_REUSEPORT group
 * first, so that new connections go to the others.  The caller then
 * leaves TCP_LISTEN and resets the children nobody accepted.
 */
void ndp_listen_stop(struct sock *sk)
{
	struct ndp_net *nn = ndp_pernet(sock_net(sk));

	sock_owned_by_me(sk);
	if (!rcu_access_pointer(sk->sk_reuseport_cb))
		return;
	spin_lock_bh(&nn->hash->bind_lock);
	reuseport_detach_sock(sk);
	spin_unlock_bh(&nn->hash->bind_lock);
}

void ndp_unbind(struct sock *sk)
{
	struct ndp_net *nn = ndp_pernet(sock_net(sk));
	struct ndp_sock *nsk = ndp_sk(sk);

	spin_lock_bh(&nn->hash->bind_lock);
	/* A group of its own, made by SO_ATTACH_REUSEPORT_[CE]BPF. */
	if (rcu_access_pointer(sk->sk_reuseport_cb))
		reuseport_detach_sock(sk);
	if (nsk->bound) {
		hlist_del_init_rcu(&nsk->bind_node);
		nsk->bound = false;
	}
	spin_unlock_bh(&nn->hash->bind_lock);
}

/* Set at module load, as encap.c's seed and for the same reason. */
static u32 ndp_reuseport_seed __read_mostly;

void __init ndp_hash_seed_init(void)
{
	ndp_reuseport_seed = get_random_u32();
}

/*
 * The flow hash that spreads passive opens over an SO_REUSEPORT group
 * (addresses and ports, as inet_ehashfn(); salted per module load and netns).
 */
static u32 ndp_reuseport_hash(const struct net *net, const struct ndp_flow *fl)
{
	u32 h;

	h = jhash2((const u32 *)&fl->laddr, 8, ndp_reuseport_seed);
	return jhash_3words(h, ((u32)ntohs(fl->lport) << 16) | ntohs(fl->rport),
			    net_hash_mix(net), ndp_reuseport_seed);
}

/*
 * Under RCU (softirq): the listener for the first window @skb of flow
 * @fl, with a reference.  A listener on the exact local address beats a
 * wildcard one, and a wildcard of the packet's own family beats an
 * AF_INET6 wildcard that also takes IPv4 (as TCP scores them); when it is
 * in an SO_REUSEPORT group, the group's BPF program
 * (SO_ATTACH_REUSEPORT_[CE]BPF, shown the payload) or else the flow hash
 * picks the member.
 */
struct sock *ndp_listener_lookup(struct net *net, const struct ndp_flow *fl,
				 struct sk_buff *skb)
{
	struct ndp_net *nn = ndp_pernet(net);
	u16 port = ntohs(fl->lport);
	int ifindex = skb->skb_iif;
	struct sock *best = NULL;
	struct ndp_sock *nsk;
	int best_score = 0;

	rcu_read_lock();
	hlist_for_each_entry_rcu(nsk, ndp_bind_bucket(nn, port), bind_node) {
		struct sock *sk = (struct sock *)nsk;
		struct ndp_laddr la;
		int score;
		u8 kind;

		if (inet_sk_state_load(sk) != TCP_LISTEN ||
		    READ_ONCE(inet_sk(sk)->inet_num) != port)
			continue;
		if (sk->sk_bound_dev_if && sk->sk_bound_dev_if != ifindex)
			continue;
		ndp_laddr_get(sk, &la);
		kind = fl->family == AF_INET ? la.v4 : la.v6;
		if (kind == NDP_LA_NONE)
			continue;
		if (kind == NDP_LA_ONE) {
			if (fl->family == AF_INET ?
			    la.a4 != fl->laddr.s6_addr32[3] :
			    !ipv6_addr_equal(la.a6, &fl->laddr))
				continue;
			best = sk;
			break;
		}
		score = sk->sk_family == fl->family ? 2 : 1;
		if (score > best_score) {
			best = sk;
			best_score = score;
		}
	}
	if (best && rcu_access_pointer(best->sk_reuseport_cb)) {
		int hdr_len = skb_transport_offset(skb) + ndp_hdr(skb)->doff * 4;
		struct sock *sel;

		sel = reuseport_select_sock(best, ndp_reuseport_hash(net, fl),
					    skb, hdr_len);
		/* A member that is joining or leaving: the one we found. */
		if (sel && inet_sk_state_load(sel) == TCP_LISTEN)
			best = sel;
	}
	if (best && !refcount_inc_not_zero(&best->sk_refcnt))
		best = NULL;
	rcu_read_unlock();
	return best;
}

bool ndp_flow_match(const struct ndp_flow *a, const struct ndp_flow *b)
{
	return a->lport == b->lport && a->rport == b->rport &&
	       a->nonce == b->nonce && a->family == b->family &&
	       ipv6_addr_equal(&a->raddr, &b->raddr) &&
	       ipv6_addr_equal(&a->laddr, &b->laddr);
}

/*
 * Make a connected socket reachable; @nsk->flow must be complete.  Fails
 * with -EEXIST if a connection with the same addresses, ports and nonce
 * exists, or when the table cannot grow.
 */
int ndp_conn_hash(struct sock *sk)
{
	struct ndp_net *nn = ndp_pernet(sock_net(sk));
	struct ndp_sock *nsk = ndp_sk(sk);
	int err = 0;

	spin_lock_bh(&nn->hash->conn_lock);
	if (nsk->hashed)
		goto out;
	err = rhashtable_lookup_insert_key(&nn->hash->conn_ht, &nsk->flow,
					   &nsk->conn_node, ndp_conn_params);
	if (err)
		goto out;
	err = rhltable_insert_key(&nn->hash->conn_tuple_ht, &nsk->flow,
				  &nsk->conn_tuple_node, ndp_tuple_params);
	if (err) {
		rhashtable_remove_fast(&nn->hash->conn_ht, &nsk->conn_node,
				       ndp_conn_params);
		goto out;
	}
	sock_hold(sk);
	list_add_tail(&nsk->conn_list_node, &nn->hash->conn_list);
	WRITE_ONCE(nsk->hashed, true);
out:
	spin_unlock_bh(&nn->hash->conn_lock);
	return err;
}

/*
 * Reachable by ports and nonce alone as well.  Fails quietly if another
 * connection has the same ports and nonce (chosen by the peers): this one
 * is then found by its 4-tuple only.
 */
void ndp_conn_hash_any(struct sock *sk)
{
	struct ndp_net *nn = ndp_pernet(sock_net(sk));
	struct ndp_sock *nsk = ndp_sk(sk);

	spin_lock_bh(&nn->hash->conn_lock);
	if (nsk->hashed && !nsk->any_hashed &&
	    !rhashtable_lookup_insert_key(&nn->hash->conn_any_ht, &nsk->flow,
					  &nsk->conn_any_node, ndp_any_params))
		nsk->any_hashed = true;
	spin_unlock_bh(&nn->hash->conn_lock);
}

/* The caller holds its own reference: the table's is never the last. */
void ndp_conn_unhash(struct sock *sk)
{
	struct ndp_net *nn = ndp_pernet(sock_net(sk));
	struct ndp_sock *nsk = ndp_sk(sk);
	bool was = false;

	spin_lock_bh(&nn->hash->conn_lock);
	if (nsk->any_hashed) {
		rhashtable_remove_fast(&nn->hash->conn_any_ht, &nsk->conn_any_node,
				       ndp_any_params);
		nsk->any_hashed = false;
	}
	if (nsk->hashed) {
		rhashtable_remove_fast(&nn->hash->conn_ht, &nsk->conn_node,
				       ndp_conn_params);
		rhltable_remove(&nn->hash->conn_tuple_ht, &nsk->conn_tuple_node,
				ndp_tuple_params);
		list_del_init(&nsk->conn_list_node);
		WRITE_ONCE(nsk->hashed, false);
		was = true;
	}
	spin_unlock_bh(&nn->hash->conn_lock);
	if (was)
		__sock_put(sk);
}

/* A referenced socket, or NULL; the socket is freed after RCU. */
static struct sock *ndp_hold_rcu(struct ndp_sock *nsk)
{
	struct sock *sk = (struct sock *)nsk;

	if (!nsk || !refcount_inc_not_zero(&sk->sk_refcnt))
		return NULL;
	return sk;
}

struct sock *ndp_conn_lookup(struct net *net, const struct ndp_flow *fl)
{
	struct ndp_net *nn = ndp_pernet(net);
	struct sock *sk;

	rcu_read_lock();
	sk = ndp_hold_rcu(rhashtable_lookup(&nn->hash->conn_ht, fl, ndp_conn_params));
	rcu_read_unlock();
	return sk;
}

/*
 * Multipath fallback, after ndp_conn_lookup() failed: a path may steer a
 * packet to another local address of the receiver (via_dst) or from
 * another address of the sender (via_src), and a returned-to-sender header
 * comes back from the address it was steered to.  Match on family, ports
 * and nonce alone; the 32 random bits of the nonce then stand for the
 * addresses, much as a sequence number window does for TCP.
 */
struct sock *ndp_conn_lookup_any(struct net *net, const struct ndp_flow *fl)
{
	struct ndp_net *nn = ndp_pernet(net);
	struct sock *sk;

	if (!fl->nonce)
		return NULL;
	rcu_read_lock();
	sk = ndp_hold_rcu(rhashtable_lookup(&nn->hash->conn_any_ht, fl,
					    ndp_any_params));
	rcu_read_unlock();
	return sk;
}

/*
 * sock_diag's exact requests: the connection of 4-tuple @key (its nonce
 * ignored) that @match accepts, with a reference.  Under RCU, from the
 * 4-tuple's list: no walk of the other connections.
 */
struct sock *ndp_conn_find(struct net *net, const struct ndp_flow *key,
			   bool (*match)(struct sock *sk, const void *arg),
			   const void *arg)
{
	struct ndp_net *nn = ndp_pernet(net);
	struct rhlist_head *list, *pos;
	struct sock *found = NULL;
	struct ndp_sock *nsk;

	rcu_read_lock();
	list = rhltable_lookup(&nn->hash->conn_tuple_ht, key, ndp_tuple_params);
	rhl_for_each_entry_rcu(nsk, pos, list, conn_tuple_node) {
		if (match((struct sock *)nsk, arg)) {
			found = ndp_hold_rcu(nsk);
			break;
		}
	}
	rcu_read_unlock();
	return found;
}
EXPORT_SYMBOL_GPL(ndp_conn_find);

/*
 * The same for a socket that owns local port @port and is not a
 * connection (a listener, a bound or closing socket): one bucket of the
 * bind table.
 */
struct sock *ndp_bound_find(struct net *net, u16 port,
			    bool (*match)(struct sock *sk, const void *arg),
			    const void *arg)
{
	struct ndp_net *nn = ndp_pernet(net);
	struct sock *found = NULL;
	struct ndp_sock *nsk;

	rcu_read_lock();
	hlist_for_each_entry_rcu(nsk, ndp_bind_bucket(nn, port), bind_node) {
		struct sock *sk = (struct sock *)nsk;

		if (READ_ONCE(inet_sk(sk)->inet_num) != port ||
		    READ_ONCE(nsk->hashed) || !match(sk, arg))
			continue;
		found = ndp_hold_rcu(nsk);
		break;
	}
	rcu_read_unlock();
	return found;
}
EXPORT_SYMBOL_GPL(ndp_bound_find);

/*
 * For dumps: up to @n connections from position *@pos of the namespace's
 * list on, each with a reference the caller drops; *@pos advances.  A
 * connection added or removed meanwhile may be missed or seen twice.
 */
int ndp_conn_batch(struct ndp_net *nn, unsigned long *pos,
		   struct sock **batch, int n)
{
	struct ndp_sock *nsk;
	unsigned long k = 0;
	int got = 0;

	spin_lock_bh(&nn->hash->conn_lock);
	list_for_each_entry(nsk, &nn->hash->conn_list, conn_list_node) {
		if (k++ < *pos)
			continue;
		if (got == n)
			break;
		sock_hold((struct sock *)nsk);
		batch[got++] = (struct sock *)nsk;
	}
	spin_unlock_bh(&nn->hash->conn_lock);
	*pos += got;
	return got;
}
EXPORT_SYMBOL_GPL(ndp_conn_batch);

/*
 * For dumps: the same over the bind table, for the sockets that own a
 * port but are not connections (listeners; bound, not connected ones).
 * *@pos counts every entry of the table, so a dump resumes where it
 * stopped while the table is unchanged.
 */
int ndp_bind_batch(struct ndp_net *nn, unsigned long *pos,
		   struct sock **batch, int n)
{
	struct ndp_sock *nsk;
	unsigned long k = 0;
	int got = 0;
	int i;

	spin_lock_bh(&nn->hash->bind_lock);
	for (i = 0; i < ARRAY_SIZE(nn->hash->bind_hash) && got < n; i++) {
		hlist_for_each_entry(nsk, &nn->hash->bind_hash[i], bind_node) {
			if (k < *pos) {
				k++;
				continue;
			}
			if (got == n)
				break;
			k++;
			if (READ_ONCE(nsk->hashed))
				continue;
			sock_hold((struct sock *)nsk);
			batch[got++] = (struct sock *)nsk;
		}
	}
	spin_unlock_bh(&nn->hash->bind_lock);
	*pos = k;
	return got;
}
EXPORT_SYMBOL_GPL(ndp_bind_batch);
