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
 * address for port allocation, but receives only IPv6 packets.
 *
 * The connection table holds connected sockets keyed by the 4-tuple and
 * the nonce, so several incarnations of one 4-tuple can coexist while an
 * old one drains.  Each entry holds a socket reference.  Lookups take the
 * table lock and return a referenced socket.  Each connection is also
 * hashed by ports and nonce alone (same lock, no extra reference) for
 * packets that multipath steered through other addresses.
 */

#define pr_fmt(fmt) "NDP: " fmt

#include <linux/jhash.h>
#include <linux/random.h>
#include <net/inet_sock.h>
#include <net/ip.h>
#include <net/ipv6.h>

#include "protocol.h"

void ndp_hash_net_init(struct ndp_net *nn)
{
	int i;

	spin_lock_init(&nn->bind_lock);
	spin_lock_init(&nn->conn_lock);
	for (i = 0; i < ARRAY_SIZE(nn->bind_hash); i++)
		INIT_HLIST_HEAD(&nn->bind_hash[i]);
	for (i = 0; i < ARRAY_SIZE(nn->conn_hash); i++) {
		INIT_HLIST_HEAD(&nn->conn_hash[i]);
		INIT_HLIST_HEAD(&nn->conn_any_hash[i]);
	}
}

/* Local address of @sk in v4-mapped form for IPv4 sockets. */
void ndp_sk_flow(const struct sock *sk, struct ndp_flow *fl)
{
	const struct inet_sock *inet = inet_sk(sk);

	memset(fl, 0, sizeof(*fl));
	fl->family = sk->sk_family;
	if (sk->sk_family == AF_INET) {
		ipv6_addr_set_v4mapped(inet->inet_rcv_saddr, &fl->laddr);
		ipv6_addr_set_v4mapped(inet->inet_daddr, &fl->raddr);
	} else {
		fl->laddr = sk->sk_v6_rcv_saddr;
		fl->raddr = sk->sk_v6_daddr;
	}
	fl->lport = inet->inet_sport;
	fl->rport = inet->inet_dport;
	fl->nonce = ndp_sk(sk)->nonce;
	fl->ifindex = sk->sk_bound_dev_if;
}

static bool ndp_laddr_is_any(const struct sock *sk)
{
	if (sk->sk_family == AF_INET)
		return !inet_sk(sk)->inet_rcv_saddr;
	return ipv6_addr_any(&sk->sk_v6_rcv_saddr);
}

static bool ndp_laddr_overlap(const struct sock *a, const struct sock *b)
{
	const struct sock *v6;

	if (a->sk_family == b->sk_family) {
		if (ndp_laddr_is_any(a) || ndp_laddr_is_any(b))
			return true;
		if (a->sk_family == AF_INET)
			return inet_sk(a)->inet_rcv_saddr ==
			       inet_sk(b)->inet_rcv_saddr;
		return ipv6_addr_equal(&a->sk_v6_rcv_saddr,
				       &b->sk_v6_rcv_saddr);
	}
	v6 = a->sk_family == AF_INET6 ? a : b;
	return !v6->sk_ipv6only && ndp_laddr_is_any(v6);
}

static struct hlist_head *ndp_bind_bucket(struct ndp_net *nn, u16 port)
{
	return &nn->bind_hash[hash_32(port, NDP_BIND_HASH_BITS)];
}

/* Whether @port is unusable for @sk; @listen: @sk is about to listen. */
static bool ndp_port_conflict(struct ndp_net *nn, const struct sock *sk,
			      u16 port, bool listen)
{
	struct ndp_sock *other;

	hlist_for_each_entry(other, ndp_bind_bucket(nn, port), bind_node) {
		const struct sock *sk2 = (struct sock *)other;

		if (sk2 == sk || inet_sk(sk2)->inet_num != port)
			continue;
		if (sk->sk_bound_dev_if && sk2->sk_bound_dev_if &&
		    sk->sk_bound_dev_if != sk2->sk_bound_dev_if)
			continue;
		if (!ndp_laddr_overlap(sk, sk2))
			continue;
		if (!listen && sk->sk_reuse && sk2->sk_reuse &&
		    sk2->sk_state != TCP_LISTEN)
			continue;
		if (listen && sk2->sk_state != TCP_LISTEN && sk->sk_reuse &&
		    sk2->sk_reuse)
			continue;
		return true;
	}
	return false;
}

/*
 * proto.get_port: claim @snum, or an ephemeral port when it is 0.  Called
 * by inet_bind()/inet6_bind() with the local address already set, and by
 * connect() for unbound sockets.
 */
int ndp_get_port(struct sock *sk, unsigned short snum)
{
	struct ndp_net *nn = ndp_pernet(sock_net(sk));
	struct ndp_sock *nsk = ndp_sk(sk);
	int low, high, remaining, port;
	int err = 0;

	if (nsk->bound)
		return -EINVAL;
	spin_lock_bh(&nn->bind_lock);
	if (snum) {
		if (ndp_port_conflict(nn, sk, snum, false)) {
			err = -EADDRINUSE;
			goto out;
		}
		port = snum;
	} else {
		inet_get_local_port_range(sock_net(sk), &low, &high);
		remaining = high - low + 1;
		if (remaining <= 0) {
			err = -EADDRNOTAVAIL;
			goto out;
		}
		port = low + get_random_u32_below(remaining);
		for (; remaining > 0; remaining--) {
			if (!inet_is_local_reserved_port(sock_net(sk), port) &&
			    !ndp_port_conflict(nn, sk, port, false))
				break;
			if (++port > high)
				port = low;
		}
		if (!remaining) {
			err = -EADDRNOTAVAIL;
			goto out;
		}
	}
	inet_sk(sk)->inet_num = port;
	inet_sk(sk)->inet_sport = htons(port);
	hlist_add_head(&nsk->bind_node, ndp_bind_bucket(nn, port));
	nsk->bound = true;
out:
	spin_unlock_bh(&nn->bind_lock);
	return err;
}

/* listen(): no other listener may overlap on our port. */
int ndp_listen_check(struct sock *sk)
{
	struct ndp_net *nn = ndp_pernet(sock_net(sk));
	int err = 0;

	spin_lock_bh(&nn->bind_lock);
	if (ndp_port_conflict(nn, sk, inet_sk(sk)->inet_num, true))
		err = -EADDRINUSE;
	spin_unlock_bh(&nn->bind_lock);
	return err;
}

void ndp_unbind(struct sock *sk)
{
	struct ndp_net *nn = ndp_pernet(sock_net(sk));
	struct ndp_sock *nsk = ndp_sk(sk);

	spin_lock_bh(&nn->bind_lock);
	if (nsk->bound) {
		hlist_del_init(&nsk->bind_node);
		nsk->bound = false;
	}
	spin_unlock_bh(&nn->bind_lock);
}

struct sock *ndp_listener_lookup(struct net *net, const struct ndp_flow *fl,
				 int ifindex)
{
	struct ndp_net *nn = ndp_pernet(net);
	u16 port = ntohs(fl->lport);
	struct sock *best = NULL;
	struct ndp_sock *nsk;

	spin_lock(&nn->bind_lock);
	hlist_for_each_entry(nsk, ndp_bind_bucket(nn, port), bind_node) {
		struct sock *sk = (struct sock *)nsk;
		struct ndp_flow sfl;

		if (sk->sk_state != TCP_LISTEN ||
		    inet_sk(sk)->inet_num != port ||
		    sk->sk_family != fl->family)
			continue;
		if (sk->sk_bound_dev_if && sk->sk_bound_dev_if != ifindex)
			continue;
		if (ndp_laddr_is_any(sk)) {
			if (!best)
				best = sk;
			continue;
		}
		ndp_sk_flow(sk, &sfl);
		if (ipv6_addr_equal(&sfl.laddr, &fl->laddr)) {
			best = sk;
			break;
		}
	}
	if (best)
		sock_hold(best);
	spin_unlock(&nn->bind_lock);
	return best;
}

u32 ndp_flow_hash(const struct ndp_flow *fl)
{
	u32 ports = ((u32)ntohs(fl->lport) << 16) | ntohs(fl->rport);

	return jhash_3words(ipv6_addr_hash(&fl->laddr),
			    ipv6_addr_hash(&fl->raddr), ports, 0);
}

static struct hlist_head *ndp_conn_bucket(struct ndp_net *nn,
					  const struct ndp_flow *fl)
{
	return &nn->conn_hash[hash_32(ndp_flow_hash(fl), NDP_CONN_HASH_BITS)];
}

/* Ports and nonce only: see ndp_conn_lookup_any(). */
static struct hlist_head *ndp_conn_any_bucket(struct ndp_net *nn,
					      const struct ndp_flow *fl)
{
	u32 ports = ((u32)ntohs(fl->lport) << 16) | ntohs(fl->rport);

	return &nn->conn_any_hash[hash_32(jhash_2words(ports, fl->nonce, 0),
					  NDP_CONN_HASH_BITS)];
}

bool ndp_flow_match(const struct ndp_flow *a, const struct ndp_flow *b)
{
	return a->lport == b->lport && a->rport == b->rport &&
	       a->nonce == b->nonce && a->family == b->family &&
	       ipv6_addr_equal(&a->raddr, &b->raddr) &&
	       ipv6_addr_equal(&a->laddr, &b->laddr);
}

/* Make a connected socket reachable; @nsk->flow must be complete. */
void ndp_conn_hash(struct sock *sk)
{
	struct ndp_net *nn = ndp_pernet(sock_net(sk));
	struct ndp_sock *nsk = ndp_sk(sk);

	spin_lock_bh(&nn->conn_lock);
	if (!nsk->hashed) {
		sock_hold(sk);
		hlist_add_head(&nsk->conn_node,
			       ndp_conn_bucket(nn, &nsk->flow));
		hlist_add_head(&nsk->conn_any_node,
			       ndp_conn_any_bucket(nn, &nsk->flow));
		nsk->hashed = true;
	}
	spin_unlock_bh(&nn->conn_lock);
}

/* The caller holds its own reference: the table's is never the last. */
void ndp_conn_unhash(struct sock *sk)
{
	struct ndp_net *nn = ndp_pernet(sock_net(sk));
	struct ndp_sock *nsk = ndp_sk(sk);
	bool was = false;

	spin_lock_bh(&nn->conn_lock);
	if (nsk->hashed) {
		hlist_del_init(&nsk->conn_node);
		hlist_del_init(&nsk->conn_any_node);
		nsk->hashed = false;
		was = true;
	}
	spin_unlock_bh(&nn->conn_lock);
	if (was)
		__sock_put(sk);
}

struct sock *ndp_conn_lookup(struct net *net, const struct ndp_flow *fl)
{
	struct ndp_net *nn = ndp_pernet(net);
	struct ndp_sock *nsk;
	struct sock *found = NULL;

	spin_lock(&nn->conn_lock);
	hlist_for_each_entry(nsk, ndp_conn_bucket(nn, fl), conn_node) {
		if (ndp_flow_match(&nsk->flow, fl)) {
			found = (struct sock *)nsk;
			sock_hold(found);
			break;
		}
	}
	spin_unlock(&nn->conn_lock);
	return found;
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
	struct sock *found = NULL;
	struct ndp_sock *nsk;

	if (!fl->nonce)
		return NULL;
	spin_lock(&nn->conn_lock);
	hlist_for_each_entry(nsk, ndp_conn_any_bucket(nn, fl), conn_any_node) {
		const struct ndp_flow *c = &nsk->flow;

		if (c->lport == fl->lport && c->rport == fl->rport &&
		    c->nonce == fl->nonce && c->family == fl->family) {
			found = (struct sock *)nsk;
			sock_hold(found);
			break;
		}
	}
	spin_unlock(&nn->conn_lock);
	return found;
}
