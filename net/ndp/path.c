// SPDX-License-Identifier: GPL-2.0
/*
 * NDP: multipath.  The path each DATA packet takes, and the per-path
 * scoreboards that keep outlier paths out (paper 3.1.1 and 3.2.3).
 *
 * Paths are configured per namespace over netlink (netlink.c): a path
 * applies to peers inside its destination prefix and steers a packet by
 * another destination address (via_dst, e.g. one address of the receiver
 * per core switch), another source address (via_src) and/or a routing
 * mark (fwmark, for policy routing).  Its id travels in ndphdr.path; the
 * receiver echoes it in the ACK or NACK it answers with, and a header
 * returned to sender carries it back by itself.
 *
 * Sender: each connection sends in rounds.  A round is a random
 * permutation of the paths that apply to the peer and are not excluded;
 * one packet per entry, then a new round (ndp_path_pick()).  Exclusions
 * therefore take effect at the next round, at most NDP_PATHS_PER_DST
 * packets later.  A retransmission avoids the path the packet last took
 * when another one is usable.  Packets carrying SYN (the first window of
 * a connection) take the plain route, path 0: the passive side creates
 * the connection with the address the packet is sent to, which must be
 * the one the application connected to (and a listener may be bound to
 * it).  Without paths for the peer everything takes path 0, exactly as
 * without multipath.
 *
 * Bursts: on sprayed paths, packets the sender sends together (the
 * credit of one pull, a pushed window) take one path in runs of up to
 * net.ndp.pull_quantum (ndp_path_burst()), not one packet per path: a
 * run leaves as one super-packet and is received as one GRO batch
 * (offload.c), which packets of different flow labels or ports never
 * are.  The receiver pulls in quanta of the same size (pull.c), and the
 * switch port a run may meet holds two of them.  Retransmissions are
 * picked one by one; pull_quantum 1 sprays packet by packet.
 * Configured paths keep one packet per path: with runs of 4, a path
 * whose port was cut to a tenth of its rate was never trimmed and
 * never excluded, and the transfer ran at about four times that one
 * path's rate (multipath.sh's degraded phase: 19-21 % of the remaining
 * paths, against 75-77 % packet by packet).  Packet by packet the slow
 * path was excluded for RTO expiries, not trims; with runs the RTO,
 * one per connection, grew with the runs' RTT samples and never
 * expired, the port rarely trimmed, and the scoreboard saw ACKs only
 * (ndp-transport.rst, "Bursts"): a slow but lossless path gives it no
 * bad feedback, as it has no delay signal.  Sprayed paths may suffer
 * the same when one of them slows down (not tested).
 *
 * Sprayed paths are discovered, not configured: with no configured path
 * for its peer and net.ndp.spray_paths >= 2, a connection makes that many
 * paths of its own (ndp_path_spray_start()), each with a random IPv6 flow
 * label (IPv6) and a random UDP source port (used when NDP is carried in
 * UDP, encap.c, IPv4 and IPv6), so that switches hashing the label or the
 * ports spread its packets over their equal-cost next hops.  These paths
 * keep per-connection scoreboards, and its SYN packets are sprayed too:
 * the peer's address is the same on every path.
 *
 * Scoreboard: per path and per namespace (all connections through a path
 * share its board), counts of ACKs, NACKs, returned-to-sender headers
 * (RTS) and packets resent by the retransmission timer (RTO), as atomics
 * updated lock-free from the data path.  Every net.ndp.sb_decay_ms all
 * counts are halved, so they describe recent feedback.  A path's
 * feedback weighs acks + nacks + 3 * rts + rtos, of which nacks +
 * 3 * rts + rtos + ces is bad (htsim counts a bounce as three NACKs; an
 * RTO is one loss per packet the timer resends; ces counts the ACKs that
 * echoed a CE mark, NDP_F_CE: a switch on the path had a queue, which
 * weighs as a fabric trim of that packet would have).  A NACK for a trim
 * the receiver's own link made (a last-hop trim, told by the DSCP,
 * input.c) names path 0 and is not scored, unless the packet was also
 * marked CE on its way (the fabric was busy as well; one bad count, the
 * NACK's).  A CE mark carries no origin: one made at the receiver's own
 * link cannot be told from one in the fabric, but it marks every path
 * of that peer alike, and the mean rule below excludes none of them.
 * After a NACK, RTS, RTO or CE echo the path is judged: it is an outlier
 * when its feedback weighs at least sb_min_samples, its bad ratio
 * exceeds sb_nack_abs_pct percent, and it exceeds sb_nack_mean_pct
 * percent of the mean ratio of the usable paths of that peer (itself
 * included).  An outlier is excluded for
 * sb_exclude_ms unless that would leave more than half of the peer's
 * paths excluded (so never its last usable path): when most paths look
 * bad the loss is at a point they share, the receiver's link or the
 * sender's, and excluding more of them only concentrates the load on
 * the rest, which then look bad in turn (seen in multipath.sh: with one
 * spine cut, three of four paths excluded one after the other).  When the
 * time is up the next sender to build a round re-admits it with its
 * counts zeroed, so it has to collect sb_min_samples again before it can
 * be judged.  Exclusion and re-admission raise NDP_CMD_PATH_CHANGED on
 * the "events" netlink group and bump PathExcluded / PathReadmitted.
 *
 * Context: ndp_path_pick() runs under the socket lock; the others from
 * softirq or under the socket lock; all read the path list under RCU.
 * ndp_sock.spray is published once by ndp_path_pick() with
 * smp_store_release() (paired with smp_load_acquire() in
 * ndp_path_head()) and freed only when the socket is destroyed.
 */

#define pr_fmt(fmt) "NDP: " fmt

#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/random.h>
#include <linux/rculist.h>
#include <linux/slab.h>

#include "protocol.h"

#define NDP_SB_ONE	10000	/* ratios are kept in 1/10000 */
#define NDP_FLOWLABEL_MAX	0xfffff	/* labels are 1..this (20 bits) */

/**
 * struct ndp_path_net - the configured paths of one namespace
 *	(&ndp_net.path)
 * @lock: serialises changes of @paths and @count (process context:
 *	ndp_paths_lock()); readers of @paths use RCU.
 * @paths: configured paths (struct ndp_path), RCU list, sorted by id.
 * @count: entries on @paths.
 * @sb_lock: serialises exclusion decisions, so that two CPUs cannot
 *	exclude the last two usable paths of a destination.
 * @rcu: freed after a grace period.
 *
 * Private to this file: allocated by ndp_path_net_init(), freed by
 * ndp_path_net_exit(); netlink.c changes and reads the list through the
 * ndp_paths_*() and ndp_path_{find,insert,remove,next_rcu}() functions.
 */
struct ndp_path_net {
	struct mutex		lock;		/* writers of @paths */
	struct list_head	paths;
	u32			count;
	spinlock_t		sb_lock;	/* exclusion decisions */
	struct rcu_head		rcu;
};

int ndp_path_net_init(struct ndp_net *nn)
{
	struct ndp_path_net *pn;

	pn = kzalloc(sizeof(*pn), GFP_KERNEL);
	if (!pn)
		return -ENOMEM;
	mutex_init(&pn->lock);
	INIT_LIST_HEAD(&pn->paths);
	spin_lock_init(&pn->sb_lock);
	nn->path = pn;
	return 0;
}

/* No socket and no netlink request of @nn is left: free everything. */
void ndp_path_net_exit(struct ndp_net *nn)
{
	struct ndp_path_net *pn = nn->path;
	struct ndp_path *p, *tmp;

	mutex_lock(&pn->lock);
	list_for_each_entry_safe(p, tmp, &pn->paths, node) {
		list_del_rcu(&p->node);
		kfree_rcu(p, rcu);
	}
	pn->count = 0;
	mutex_unlock(&pn->lock);
	nn->path = NULL;
	mutex_destroy(&pn->lock);
	kfree_rcu(pn, rcu);
}

/* Serialise changes of the paths of @nn (process context). */
void ndp_paths_lock(struct ndp_net *nn)
{
	mutex_lock(&nn->path->lock);
}

void ndp_paths_unlock(struct ndp_net *nn)
{
	mutex_unlock(&nn->path->lock);
}

/* The configured path @id of @nn, or NULL.  ndp_paths_lock() held. */
struct ndp_path *ndp_path_find(struct ndp_net *nn, u32 id)
{
	struct ndp_path_net *pn = nn->path;
	struct ndp_path *p;

	lockdep_assert_held(&pn->lock);
	list_for_each_entry_rcu(p, &pn->paths, node,
				lockdep_is_held(&pn->lock))
		if (p->id == id)
			return p;
	return NULL;
}

/*
 * Add @p, whose id is not in use (ndp_path_find()), keeping the list
 * sorted by id (dumps resume by id).  ndp_paths_lock() held.
 */
void ndp_path_insert(struct ndp_net *nn, struct ndp_path *p)
{
	struct ndp_path_net *pn = nn->path;
	struct list_head *pos = &pn->paths;
	struct ndp_path *q;

	lockdep_assert_held(&pn->lock);
	list_for_each_entry(q, &pn->paths, node) {
		if (q->id > p->id) {
			pos = &q->node;
			break;
		}
	}
	list_add_tail_rcu(&p->node, pos);
	pn->count++;
}

/*
 * Take @p off the list; the caller frees it after a grace period
 * (kfree_rcu()).  ndp_paths_lock() held.
 */
void ndp_path_remove(struct ndp_net *nn, struct ndp_path *p)
{
	struct ndp_path_net *pn = nn->path;

	lockdep_assert_held(&pn->lock);
	list_del_rcu(&p->node);
	pn->count--;
}

/*
 * The configured path after @p (NULL: the first one), in id order, or
 * NULL at the end.  RCU held.
 */
struct ndp_path *ndp_path_next_rcu(struct ndp_net *nn, struct ndp_path *p)
{
	struct list_head *head = &nn->path->paths;

	if (!p)
		return list_first_or_null_rcu(head, struct ndp_path, node);
	return list_next_or_null_rcu(head, &p->node, struct ndp_path, node);
}

/* The paths of @sk: its flow labels, or the namespace's. */
static struct list_head *ndp_path_head(struct sock *sk)
{
	/* Paired with smp_store_release() in ndp_path_spray_start(). */
	struct ndp_spray *s = smp_load_acquire(&ndp_sk(sk)->mp.spray);

	return s ? &s->head : &ndp_pernet(sock_net(sk))->path->paths;
}

/* The path with @id, or NULL; the list is sorted by id.  RCU held. */
static struct ndp_path *ndp_path_find_rcu(struct list_head *head, u8 id)
{
	struct ndp_path *p;

	list_for_each_entry_rcu(p, head, node) {
		if (p->id == id)
			return p;
		if (p->id > id)
			break;
	}
	return NULL;
}

/* Whether @p applies to the peer of @fl (its prefix holds the peer). */
static bool ndp_path_applies(const struct ndp_path *p,
			     const struct ndp_flow *fl)
{
	unsigned int plen = p->dst_plen;

	if (p->family != fl->family)
		return false;
	if (p->family == AF_INET)
		plen += 96;	/* v4-mapped */
	return ipv6_prefix_equal(&p->dst, &fl->raddr, plen);
}

static bool ndp_path_is_excluded(const struct ndp_path *p)
{
	unsigned long until = READ_ONCE(p->excluded_until);

	return until && time_before(jiffies, until);
}

static void ndp_path_sb_reset(struct ndp_path *p)
{
	atomic_set(&p->acks, 0);
	atomic_set(&p->nacks, 0);
	atomic_set(&p->rtos, 0);
	atomic_set(&p->rts, 0);
	atomic_set(&p->ces, 0);
	WRITE_ONCE(p->decay_stamp, jiffies);
}

/*
 * Whether @p may be used now.  Re-admits a path whose exclusion ran out:
 * the cmpxchg() elects one caller to reset the board and report it.
 */
static bool ndp_path_usable(struct net *net, struct ndp_path *p)
{
	unsigned long until = READ_ONCE(p->excluded_until);

	if (!until)
		return true;
	if (time_before(jiffies, until))
		return false;
	if (cmpxchg(&p->excluded_until, until, 0) == until) {
		trace_ndp_path_readmit(net, p);
		ndp_path_sb_reset(p);
		NDP_INC_STATS(net, NDP_MIB_PATHREADMITTED);
		if (!p->flowlabel)
			ndp_nl_path_event(net, p, NDP_CMD_PATH_CHANGED);
	}
	return true;
}

/* Start a new round: shuffle the usable paths of the peer (RCU held). */
static void ndp_path_new_round(struct sock *sk)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	struct ndp_path *p;
	u8 n = 0, i;

	list_for_each_entry_rcu(p, ndp_path_head(sk), node) {
		if (n == NDP_PATHS_PER_DST)
			break;
		if (ndp_path_applies(p, &nsk->flow) &&
		    ndp_path_usable(sock_net(sk), p))
			nsk->mp.round[n++] = p->id;
	}
	for (i = n; i > 1; i--) {
		u8 j = get_random_u32_below(i);

		swap(nsk->mp.round[i - 1], nsk->mp.round[j]);
	}
	nsk->mp.len = n;
	nsk->mp.pos = 0;
}

/* Whether a configured path applies to @sk's peer.  RCU held. */
static bool ndp_path_configured(struct sock *sk)
{
	struct ndp_net *nn = ndp_pernet(sock_net(sk));
	struct ndp_path *p;

	list_for_each_entry_rcu(p, &nn->path->paths, node)
		if (ndp_path_applies(p, &ndp_sk(sk)->flow))
			return true;
	return false;
}

/*
 * Whether @sk's connection can spray without configured paths: IPv6 by
 * flow labels, either family by UDP source ports when NDP is carried in
 * UDP (encap.c).
 */
static bool ndp_path_can_spray(struct sock *sk)
{
	struct ndp_net *nn = ndp_pernet(sock_net(sk));

	return READ_ONCE(nn->spray_paths) >= 2 &&
	       (ndp_sk(sk)->flow.family == AF_INET6 ||
		READ_ONCE(nn->udp_port));
}

/*
 * Give @sk its sprayed paths if it should have them (see the top of
 * the file); whether it has them.  Socket lock held, RCU held.
 */
static bool ndp_path_spray_start(struct sock *sk)
{
	u32 n = READ_ONCE(ndp_pernet(sock_net(sk))->spray_paths);
	struct ndp_sock *nsk = ndp_sk(sk);
	struct ndp_spray *s;
	u32 i, j;

	ndp_sock_assert_locked(sk);
	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "spray paths need RCU");
	if (nsk->mp.spray)
		return true;
	if (!ndp_path_can_spray(sk) || ndp_path_configured(sk))
		return false;
	n = min_t(u32, n, NDP_SPRAY_PATHS_MAX);
	s = kzalloc(struct_size(s, path, n), GFP_ATOMIC | __GFP_NOWARN);
	if (!s)
		return false;	/* the plain route; tried again later */
	INIT_LIST_HEAD(&s->head);
	s->n = n;
	for (i = 0; i < n; i++) {
		struct ndp_path *p = &s->path[i];
		__be32 label = 0;
		__be16 sport;

again:
		if (nsk->flow.family == AF_INET6)
			label = htonl(get_random_u32_below(NDP_FLOWLABEL_MAX) + 1);
		sport = ndp_encap_sport_random();
		for (j = 0; j < i; j++)
			if ((label && s->path[j].flowlabel == label) ||
			    (sport && s->path[j].encap_sport == sport))
				goto again;
		p->id = i + 1;
		p->family = nsk->flow.family;
		p->dst = nsk->flow.raddr;
		p->dst_plen = p->family == AF_INET ? 32 : 128;
		p->flowlabel = label;
		p->encap_sport = sport;
		p->decay_stamp = jiffies;
		list_add_tail(&p->node, &s->head);
	}
	nsk->mp.len = 0;
	nsk->mp.pos = 0;
	/* Labels complete before readers see them (ndp_path_head()). */
	smp_store_release(&nsk->mp.spray, s);
	return true;
}

/* The socket is destroyed: nothing can look at its labels any more. */
void ndp_path_spray_free(struct sock *sk)
{
	kfree(ndp_sk(sk)->mp.spray);
	ndp_sk(sk)->mp.spray = NULL;
}

/**
 * ndp_path_pick() - the path for the next DATA packet of a connection
 * @sk: the sender, locked.
 * @avoid: path id the packet took last time (a retransmission), else 0.
 * @syn: the packet carries SYN: only a sprayed path may be used.
 *
 * Return: a path id, or 0 for the plain route (no usable path applies).
 * @avoid is returned only when it is the only usable path.
 */
u8 ndp_path_pick(struct sock *sk, u8 avoid, bool syn)
{
	struct ndp_net *nn = ndp_pernet(sock_net(sk));
	struct ndp_sock *nsk = ndp_sk(sk);
	u8 *r = nsk->mp.round;
	u8 id = 0;

	ndp_sock_assert_locked(sk);
	if (list_empty(&nn->path->paths) && !nsk->mp.spray &&
	    !ndp_path_can_spray(sk)) {
		nsk->mp.len = 0;
		return 0;
	}
	rcu_read_lock();
	if (!ndp_path_spray_start(sk) && syn)
		goto out;
	/* The rest of a burst keeps its path; a retransmission does not. */
	if (nsk->mp.stick && !avoid && nsk->mp.last &&
	    ndp_path_find_rcu(ndp_path_head(sk), nsk->mp.last)) {
		nsk->mp.stick--;
		id = nsk->mp.last;
		goto out;
	}
	nsk->mp.stick = 0;
	if (nsk->mp.pos >= nsk->mp.len)
		ndp_path_new_round(sk);
	if (!nsk->mp.len)
		goto out;
	if (r[nsk->mp.pos] == avoid && nsk->mp.len > 1) {
		/* Take the next entry; @avoid keeps its turn if any is left. */
		if (nsk->mp.pos + 1 < nsk->mp.len) {
			swap(r[nsk->mp.pos], r[nsk->mp.pos + 1]);
		} else {
			ndp_path_new_round(sk);
			if (r[0] == avoid && nsk->mp.len > 1)
				swap(r[0], r[1]);
		}
	}
	if (nsk->mp.len)
		id = r[nsk->mp.pos++];
	/* Bursts on sprayed paths only (see "Bursts" at the top). */
	if (!avoid && id && nsk->mp.spray) {
		nsk->mp.last = id;
		nsk->mp.stick = nsk->mp.burst ? nsk->mp.burst - 1 : 0;
	}
out:
	rcu_read_unlock();
	return id;
}

/**
 * ndp_path_burst() - the sender is about to send @n new packets together
 * @sk: the sender, locked.
 * @n: packets (a pull's credit, a pushed window); 0 ends the burst.
 *
 * Each sprayed path then takes up to min(@n, net.ndp.pull_quantum)
 * packets in a row before the next pick, so that a batch leaves as one
 * super-packet and arrives as one GRO batch (a packet per path, the
 * paper's spraying, would leave every packet alone); configured paths
 * keep one packet per path.  See "Bursts" at the top.
 */
void ndp_path_burst(struct sock *sk, u32 n)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	u32 q = READ_ONCE(ndp_pernet(sock_net(sk))->pull_quantum);

	ndp_sock_assert_locked(sk);
	nsk->mp.burst = min3(n, q, (u32)NDP_PULL_QUANTUM_MAX);
	if (!n)
		nsk->mp.stick = 0;
}

/* Count a DATA packet sent on path @id (0: none). */
void ndp_path_sent(struct sock *sk, u8 id, bool rtx)
{
	struct ndp_path *p;

	if (!id)
		return;
	rcu_read_lock();
	p = ndp_path_find_rcu(ndp_path_head(sk), id);
	if (p) {
		atomic_inc(&p->tx);
		if (rtx)
			atomic_inc(&p->rtx);
	}
	rcu_read_unlock();
}

/**
 * ndp_path_steer() - addresses, mark and flow label of a packet on a path
 * @sk: the sender.
 * @id: path id (not 0).
 * @fl: the connection's flow.
 * @out: @fl with the path's via addresses and flow label applied.
 * @mark: in: the socket's mark; out: the path's fwmark if it has one.
 *
 * Return: false when the path is gone (or of another family): the
 * caller sends on the plain route.
 */
bool ndp_path_steer(struct sock *sk, u8 id, const struct ndp_flow *fl,
		    struct ndp_flow *out, u32 *mark)
{
	struct ndp_path *p;
	bool ok = false;

	rcu_read_lock();
	p = ndp_path_find_rcu(ndp_path_head(sk), id);
	if (p && p->family == fl->family) {
		*out = *fl;
		out->flowlabel = p->flowlabel;
		out->encap_sport = p->encap_sport;
		if (!ipv6_addr_any(&p->via_dst))
			out->raddr = p->via_dst;
		if (!ipv6_addr_any(&p->via_src))
			out->laddr = p->via_src;
		if (p->fwmark)
			*mark = p->fwmark;
		ok = true;
	}
	rcu_read_unlock();
	return ok;
}

/* Halve @v @shift times; concurrent increments make the cmpxchg retry. */
static void ndp_path_halve(atomic_t *v, unsigned int shift)
{
	int old = atomic_read(v);

	while (!atomic_try_cmpxchg(v, &old, (int)((u32)old >> shift)))
		;
}

static void ndp_path_decay(struct ndp_net *nn, struct ndp_path *p)
{
	unsigned long stamp = READ_ONCE(p->decay_stamp);
	u32 ms = READ_ONCE(nn->sb_decay_ms);
	unsigned long now = jiffies;
	unsigned long period, n;
	unsigned int shift;

	if (!ms)
		return;
	period = max(msecs_to_jiffies(ms), 1UL);
	if (time_before(now, stamp + period))
		return;
	if (cmpxchg(&p->decay_stamp, stamp, now) != stamp)
		return;		/* another CPU does it */
	n = (now - stamp) / period;
	shift = min_t(unsigned long, n, 31);
	ndp_path_halve(&p->acks, shift);
	ndp_path_halve(&p->nacks, shift);
	ndp_path_halve(&p->rtos, shift);
	ndp_path_halve(&p->rts, shift);
	ndp_path_halve(&p->ces, shift);
}

/*
 * Feedback weight and its bad part, see the top of the file.  A CE echo
 * came with an ACK, which already weighs: it only adds to the bad part,
 * which never exceeds the weight (the counts decay apart).
 */
static u64 ndp_path_score(const struct ndp_path *p, u64 *bad)
{
	u64 loss = (u64)(u32)atomic_read(&p->nacks) +
		   3ULL * (u32)atomic_read(&p->rts) +
		   (u32)atomic_read(&p->rtos);
	u64 weight = loss + (u32)atomic_read(&p->acks);

	*bad = min(loss + (u32)atomic_read(&p->ces), weight);
	return weight;
}

/* Bad ratio in 1/NDP_SB_ONE; 0 without feedback. */
static u32 ndp_path_ratio(const struct ndp_path *p, u64 *weight)
{
	u64 bad;

	*weight = ndp_path_score(p, &bad);
	if (!*weight)
		return 0;
	return div64_u64(bad * NDP_SB_ONE, *weight);
}

/* After bad news on @p: exclude it if it is an outlier.  RCU held. */
static void ndp_path_judge(struct net *net, struct list_head *head,
			   struct ndp_path *p, const struct ndp_flow *fl)
{
	struct ndp_net *nn = ndp_pernet(net);
	u32 mean_pct = READ_ONCE(nn->sb_nack_mean_pct);
	u32 abs_pct = READ_ONCE(nn->sb_nack_abs_pct);
	u32 n = 0, total = 0, excl = 0, ratio;
	bool excluded = false;
	struct ndp_path *q;
	u64 weight, sum = 0;

	if (!ndp_path_usable(net, p))
		return;
	ratio = ndp_path_ratio(p, &weight);
	if (weight < READ_ONCE(nn->sb_min_samples) ||
	    ratio <= abs_pct * (NDP_SB_ONE / 100))
		return;

	spin_lock_bh(&nn->path->sb_lock);
	if (ndp_path_is_excluded(p))
		goto unlock;
	list_for_each_entry_rcu(q, head, node) {
		u32 r;
		u64 w;

		if (!ndp_path_applies(q, fl))
			continue;
		total++;
		if (q != p && ndp_path_is_excluded(q)) {
			excl++;
			continue;
		}
		r = ndp_path_ratio(q, &w);
		if (w) {
			sum += r;
			n++;
		}
	}
	/* At most half of the paths excluded, so never the last usable
	 * one; @p itself has weight, so n >= 1.
	 */
	if ((excl + 1) * 2 > total || !n)
		goto unlock;
	if ((u64)ratio * 100 * n <= (u64)mean_pct * sum)
		goto unlock;
	WRITE_ONCE(p->excluded_until,
		   (jiffies + msecs_to_jiffies(READ_ONCE(nn->sb_exclude_ms))) | 1);
	atomic_inc(&p->exclusions);
	excluded = true;
unlock:
	spin_unlock_bh(&nn->path->sb_lock);
	if (excluded) {
		trace_ndp_path_exclude(net, p);
		NDP_INC_STATS(net, NDP_MIB_PATHEXCLUDED);
		if (!p->flowlabel)
			ndp_nl_path_event(net, p, NDP_CMD_PATH_CHANGED);
	}
}

/**
 * ndp_path_feedback() - tell the scoreboard of path @id about a packet
 * @sk: the sender of the packet.
 * @id: path the packet took (echoed by the peer, or remembered); an id
 *	that is 0, unknown or does not apply to the peer is ignored.
 * @fb: what happened to it.
 */
void ndp_path_feedback(struct sock *sk, u8 id, enum ndp_path_fb fb)
{
	const struct ndp_flow *fl = &ndp_sk(sk)->flow;
	struct net *net = sock_net(sk);
	struct list_head *head;
	struct ndp_path *p;

	if (!id)
		return;
	rcu_read_lock();
	head = ndp_path_head(sk);
	p = ndp_path_find_rcu(head, id);
	if (!p || !ndp_path_applies(p, fl))
		goto out;
	ndp_path_decay(ndp_pernet(net), p);
	switch (fb) {
	case NDP_PATH_FB_ACK:
		atomic_inc(&p->acks);
		goto out;
	case NDP_PATH_FB_NACK:
		atomic_inc(&p->nacks);
		break;
	case NDP_PATH_FB_RTS:
		atomic_inc(&p->rts);
		break;
	case NDP_PATH_FB_RTO:
		atomic_inc(&p->rtos);
		break;
	case NDP_PATH_FB_CE:
		/* The packet was ACKed too (its weight): bad as a trim. */
		atomic_inc(&p->ces);
		NDP_INC_STATS(net, NDP_MIB_PATHCE);
		break;
	}
	ndp_path_judge(net, head, p, fl);
out:
	rcu_read_unlock();
}

/*
 * Whether recent feedback on path @id is mostly ACKs (more than half of
 * its weight): a header that bounced there met a passing burst, not a
 * congested path (return to sender, input.c).
 */
bool ndp_path_mostly_acks(struct sock *sk, u8 id)
{
	struct ndp_path *p;
	bool good = false;
	u64 weight, bad;

	if (!id)
		return false;
	rcu_read_lock();
	p = ndp_path_find_rcu(ndp_path_head(sk), id);
	if (p && ndp_path_applies(p, &ndp_sk(sk)->flow)) {
		weight = ndp_path_score(p, &bad);
		good = weight && (weight - bad) * 2 > weight;
	}
	rcu_read_unlock();
	return good;
}
