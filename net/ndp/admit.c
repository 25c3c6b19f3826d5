// SPDX-License-Identifier: GPL-2.0
/*
 * NDP: admission of first windows (zero-RTT opens) under pressure.
 *
 * A first window creates a connection with no handshake, so a sender that
 * forges its source address creates state as easily as a real one.  Two
 * budgets bound that state, and a stateless challenge keeps real clients
 * getting in when the budgets are used up:
 *
 *   - Budgets.  A connection a first window created is "unproven" while it
 *     waits on the accept queue: nothing the peer sent shows that it
 *     receives what is sent to its address.  Each listener may hold at
 *     most min(backlog, net.ndp.max_listen_embryonic) of them, the
 *     namespace net.ndp.max_embryonic (the memory bound: each holds a first
 *     window).  A flood at one listener uses up that listener's budget and
 *     leaves the others alone; TCP bounds its SYN queue per listener the
 *     same way, and Fast Open its pending children (TCP_FASTOPEN's qlen).
 *
 *   - Challenge.  When a budget is used up, a first-window packet creates
 *     no state: it is answered by a CHALLENGE, a header-only control packet
 *     (never larger than the packet it answers, so no amplification)
 *     carrying a cookie, a keyed MAC (SipHash) over both addresses, both
 *     ports, the nonce and a coarse time slot.  The opener sends the packet
 *     again with the cookie echoed (NDP_F_ECHO); so does every later
 *     first-window packet of that connection.  A valid echo proves the
 *     address: it creates the connection even under pressure, counted
 *     against the listener's backlog alone (as an established TCP child).
 *     Each challenged packet is resent once, so the window's data is
 *     resent, not lost.  An invalid or stale echo is treated as a first
 *     window without one (challenged again under pressure).
 *
 * Keys are per namespace and per time slot of NDP_ADMIT_SLOT_SECS
 * seconds: the key of a slot is drawn at random when the first challenge
 * of that slot is sent, and replaces the key of two slots before, so a
 * cookie verifies for one to two slots and no key outlives two slots.
 * Verifying never draws a key (a forged echo cannot make work).  A cookie
 * is 32 bits of MAC: forging one takes 2^31 guesses on average per
 * connection, more than TCP's SYN cookies (24 bits of MAC) ask.
 *
 *   - Tokens.  Once the peer of a passive connection has proven its
 *     address (a valid echo, or feedback on our psns), the server sends
 *     it a TOKEN (once per connection): a MAC over both addresses and a
 *     time slot of net.ndp.token_lifetime_s, under a second per-namespace
 *     key per slot.  The opener keeps the newest token per server address
 *     in a per-namespace cache of NDP_ADMIT_TOKENS_MAX entries (the least
 *     recently stored evicted) and presents it (NDP_F_TOKEN) in the first
 *     windows of later connections to that address: a valid token admits
 *     at once, whatever the budgets, zero RTT kept.  A token verifies for
 *     one to two lifetimes, only for the client address it was given to
 *     (any port, any nonce: the nonce and time-wait rules still refuse a
 *     replayed first window), and only at the server address that gave
 *     it.  An invalid token is handled as a first window without one.
 */

#define pr_fmt(fmt) "NDP: " fmt

#include <linux/hash.h>
#include <linux/jhash.h>
#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/random.h>
#include <linux/siphash.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "protocol.h"

/* Length of a key's time slot; a cookie lives one to two slots. */
#define NDP_ADMIT_SLOT_SECS	8

/*
 * Tokens an opener keeps, per namespace: one per server address, about
 * 80 bytes each, so at most some 330 KB however many servers a host
 * talks to.
 */
#define NDP_ADMIT_TOKENS_MAX	4096
#define NDP_ADMIT_TOKEN_BITS	8

/* What a token covers (the ports and nonce are not bound). */
struct ndp_admit_tmsg {
	struct in6_addr	saddr;		/* the server's */
	struct in6_addr	caddr;		/* the client's */
	u32		slot;
	u32		family;
} __aligned(SIPHASH_ALIGNMENT);

/**
 * struct ndp_admit_token - a token an opener keeps for a server address
 * @node: in &ndp_admit_cache.ht.
 * @lru: in &ndp_admit_cache.lru, the least recently stored first.
 * @addr: the server's address (v4-mapped for IPv4).
 * @family: its family.
 * @token: the token.
 */
struct ndp_admit_token {
	struct hlist_node	node;
	struct list_head	lru;
	struct in6_addr		addr;
	u16			family;
	u32			token;
};

/**
 * struct ndp_admit_cache - an opener's tokens, per namespace
 * @lock: serialises everything below.
 * @ht: entries by server address.
 * @lru: the same entries, the least recently stored first.
 * @count: entries.
 * @seed: hash seed (chosen at random).
 */
struct ndp_admit_cache {
	spinlock_t		lock;	/* everything below */
	struct hlist_head	ht[1 << NDP_ADMIT_TOKEN_BITS];
	struct list_head	lru;
	u32			count;
	u32			seed;
};

/**
 * struct ndp_admit_keys - keys of the admission challenges or tokens
 * @lock: serialises rotation and reads of @key and @slot.
 * @key: one key per parity of the time slot it serves.
 * @slot: the time slot each key serves (U32_MAX: none yet).
 */
struct ndp_admit_keys {
	spinlock_t		lock;	/* key, slot */
	siphash_key_t		key[2];
	u32			slot[2];
};

/**
 * struct ndp_admit_net - admission state of one namespace (&ndp_net.admit)
 * @chal: challenge keys.
 * @tok: token keys.
 * @cache: tokens this namespace got as an opener.
 * @embryonic: connections created by unproven first windows, not yet
 *	accepted (bounded by net.ndp.max_embryonic).
 *
 * Private to this file: allocated by ndp_admit_net_init(), freed by
 * ndp_admit_net_exit().
 */
struct ndp_admit_net {
	struct ndp_admit_keys	chal;
	struct ndp_admit_keys	tok;
	struct ndp_admit_cache	cache;
	atomic_t		embryonic;
};

/* What the cookie covers; zeroed first, so padding is constant. */
struct ndp_admit_msg {
	struct in6_addr	laddr;
	struct in6_addr	raddr;
	__be16		lport;
	__be16		rport;
	u32		nonce;
	u32		slot;
	u32		family;
} __aligned(SIPHASH_ALIGNMENT);

static void ndp_admit_keys_init(struct ndp_admit_keys *k)
{
	spin_lock_init(&k->lock);
	k->slot[0] = U32_MAX;
	k->slot[1] = U32_MAX;
}

int ndp_admit_net_init(struct ndp_net *nn)
{
	struct ndp_admit_net *an;
	struct ndp_admit_cache *c;
	unsigned int i;

	an = kzalloc(sizeof(*an), GFP_KERNEL);
	if (!an)
		return -ENOMEM;
	ndp_admit_keys_init(&an->chal);
	ndp_admit_keys_init(&an->tok);
	c = &an->cache;
	spin_lock_init(&c->lock);
	for (i = 0; i < ARRAY_SIZE(c->ht); i++)
		INIT_HLIST_HEAD(&c->ht[i]);
	INIT_LIST_HEAD(&c->lru);
	c->seed = get_random_u32();
	atomic_set(&an->embryonic, 0);
	nn->admit = an;
	return 0;
}

/* The namespace is going: no packet can reach the cache any more. */
void ndp_admit_net_exit(struct ndp_net *nn)
{
	struct ndp_admit_net *an = nn->admit;
	struct ndp_admit_token *t, *tmp;

	list_for_each_entry_safe(t, tmp, &an->cache.lru, lru)
		kfree(t);
	nn->admit = NULL;
	kfree(an);
}

static u32 ndp_admit_slot(void)
{
	return (u32)div_u64(get_jiffies_64(), NDP_ADMIT_SLOT_SECS * HZ);
}

/*
 * The key of time slot @slot into @key; with @create, drawn now if the
 * slot has none yet (replacing the key of slot - 2).  Returns false if
 * the slot has no key.
 */
static bool ndp_admit_key(struct ndp_admit_keys *k, u32 slot, bool create,
			  siphash_key_t *key)
{
	unsigned int i = slot & 1;
	bool ok = true;

	spin_lock_bh(&k->lock);
	if (k->slot[i] != slot) {
		if (create) {
			get_random_bytes(&k->key[i], sizeof(k->key[i]));
			k->slot[i] = slot;
		} else {
			ok = false;
		}
	}
	if (ok)
		*key = k->key[i];
	spin_unlock_bh(&k->lock);
	return ok;
}

static u32 ndp_admit_mac(const siphash_key_t *key, const struct ndp_flow *fl,
			 u32 slot)
{
	struct ndp_admit_msg m;

	memset(&m, 0, sizeof(m));
	m.laddr = fl->laddr;
	m.raddr = fl->raddr;
	m.lport = fl->lport;
	m.rport = fl->rport;
	m.nonce = fl->nonce;
	m.slot = slot;
	m.family = fl->family;
	return (u32)siphash(&m, sizeof(m), key);
}

/*
 * Whether @cookie, echoed by a first-window packet of @fl (local =
 * destination), is one this namespace gave in the current or the
 * previous time slot.
 */
bool ndp_admit_echo_ok(struct net *net, const struct ndp_flow *fl, u32 cookie)
{
	struct ndp_admit_keys *k = &ndp_pernet(net)->admit->chal;
	u32 slot = ndp_admit_slot();
	siphash_key_t key;

	if (ndp_admit_key(k, slot, false, &key) &&
	    ndp_admit_mac(&key, fl, slot) == cookie)
		return true;
	return ndp_admit_key(k, slot - 1, false, &key) &&
	       ndp_admit_mac(&key, fl, slot - 1) == cookie;
}

/* A listener's budget of unproven connections (at least one). */
static u32 ndp_admit_budget(const struct sock *lsk)
{
	u32 max = READ_ONCE(ndp_pernet(sock_net(lsk))->max_listen_embryonic);

	return max_t(u32, min_t(u32, READ_ONCE(lsk->sk_max_ack_backlog), max),
		     1);
}

/**
 * ndp_admit_check() - may a first window create a connection of @lsk?
 * @lsk: the listener; its lock held.
 * @proof: NDP_F_ECHO or NDP_F_TOKEN: the packet carried a valid cookie or
 *	token; 0: it proves nothing.
 *
 * Returns NDP_ADMIT_OPEN (create it), NDP_ADMIT_CHALLENGE (a budget is
 * used up: answer with a challenge, create nothing) or NDP_ADMIT_DROP
 * (the accept queue is full of proven connections: the application does
 * not keep up; the sender retries).  Counts the outcome.
 */
enum ndp_admit_verdict ndp_admit_check(struct sock *lsk, u16 proof)
{
	struct ndp_net *nn = ndp_pernet(sock_net(lsk));
	struct ndp_sock *lnsk = ndp_sk(lsk);

	ndp_sock_assert_locked(lsk);
	if (READ_ONCE(lsk->sk_ack_backlog) - lnsk->admit.unproven >
	    READ_ONCE(lsk->sk_max_ack_backlog)) {
		NDP_INC_STATS(sock_net(lsk), NDP_MIB_LISTENOVERFLOWS);
		return NDP_ADMIT_DROP;
	}
	if (proof)
		return NDP_ADMIT_OPEN;
	if (lnsk->admit.unproven >= ndp_admit_budget(lsk)) {
		NDP_INC_STATS(sock_net(lsk), NDP_MIB_ADMITLISTENERFULL);
		return NDP_ADMIT_CHALLENGE;
	}
	if (atomic_read(&nn->admit->embryonic) >= READ_ONCE(nn->max_embryonic)) {
		NDP_INC_STATS(sock_net(lsk), NDP_MIB_ADMITNETNSFULL);
		return NDP_ADMIT_CHALLENGE;
	}
	return NDP_ADMIT_OPEN;
}

/*
 * @child, created by a first window, joins @lsk's accept queue; @proof as
 * for ndp_admit_check().
 */
void ndp_admit_queued(struct sock *lsk, struct ndp_sock *child, u16 proof)
{
	struct ndp_sock *lnsk = ndp_sk(lsk);

	ndp_sock_assert_locked(lsk);
	if (proof) {
		/* It echoed our cookie or showed our token: it receives
		 * what we send to its address.
		 */
		child->addr_ok = true;	/* a (fresh) token follows */
		NDP_INC_STATS(sock_net(lsk), proof == NDP_F_ECHO ?
			      NDP_MIB_ADMITECHOES : NDP_MIB_ADMITTOKENS);
		NDP_INC_STATS(sock_net(lsk), NDP_MIB_ADDRVALIDATED);
		return;
	}
	child->admit.held = true;
	lnsk->admit.unproven++;
	atomic_inc(&ndp_pernet(sock_net(lsk))->admit->embryonic);
}

/* @child leaves @lsk's accept queue (accepted, expired, listener closed). */
void ndp_admit_dequeued(struct sock *lsk, struct ndp_sock *child)
{
	struct ndp_sock *lnsk = ndp_sk(lsk);

	ndp_sock_assert_locked(lsk);
	if (!child->admit.held)
		return;
	child->admit.held = false;
	lnsk->admit.unproven--;
	atomic_dec(&ndp_pernet(sock_net(lsk))->admit->embryonic);
}

/*
 * Answer @skb, a first-window DATA packet of @fl that created nothing,
 * with a CHALLENGE.  @skb->data is at its NDP header: the challenge (a
 * header alone, in the same IP family and carriage) is never larger.
 */
void ndp_admit_challenge(struct net *net, const struct sk_buff *skb,
			 const struct ndp_flow *fl)
{
	struct ndp_admit_keys *k = &ndp_pernet(net)->admit->chal;
	u32 slot = ndp_admit_slot();
	siphash_key_t key;

	if (skb->len < NDP_HDR_LEN)
		return;
	ndp_admit_key(k, slot, true, &key);
	ndp_send_challenge(net, fl, ntohl(ndp_hdr(skb)->psn),
			   ndp_admit_mac(&key, fl, slot));
	NDP_INC_STATS(net, NDP_MIB_ADMITCHALLENGES);
	memzero_explicit(&key, sizeof(key));
}

/* ---------------------------------------------------------------------- */
/* Tokens.                                                                */

static u32 ndp_admit_tslot(struct net *net)
{
	u32 secs = READ_ONCE(ndp_pernet(net)->token_lifetime_s);

	return (u32)div_u64(get_jiffies_64(), (u64)max(secs, 1U) * HZ);
}

/* @saddr: the server's address, @caddr the client's. */
static u32 ndp_admit_tmac(const siphash_key_t *key, const struct in6_addr *saddr,
			  const struct in6_addr *caddr, u16 family, u32 slot)
{
	struct ndp_admit_tmsg m;

	memset(&m, 0, sizeof(m));
	m.saddr = *saddr;
	m.caddr = *caddr;
	m.slot = slot;
	m.family = family;
	return (u32)siphash(&m, sizeof(m), key);
}

/*
 * Whether @token, presented by a first-window packet of @fl (local =
 * destination = the server), is one this namespace gave to that client
 * address in the current or the previous token slot.
 */
bool ndp_admit_token_ok(struct net *net, const struct ndp_flow *fl, u32 token)
{
	struct ndp_admit_keys *k = &ndp_pernet(net)->admit->tok;
	u32 slot = ndp_admit_tslot(net);
	siphash_key_t key;

	if (ndp_admit_key(k, slot, false, &key) &&
	    ndp_admit_tmac(&key, &fl->laddr, &fl->raddr, fl->family,
			   slot) == token)
		return true;
	return ndp_admit_key(k, slot - 1, false, &key) &&
	       ndp_admit_tmac(&key, &fl->laddr, &fl->raddr, fl->family,
			      slot - 1) == token;
}

/*
 * Passive connection @sk whose peer proved its address: queue its TOKEN
 * on @xmitq, once.  Lock of @sk held.
 */
void ndp_admit_send_token(struct sock *sk, struct sk_buff_head *xmitq)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	struct net *net = sock_net(sk);
	u32 slot = ndp_admit_tslot(net);
	struct sk_buff *skb;
	siphash_key_t key;

	ndp_sock_assert_locked(sk);
	nsk->admit.token_sent = true;
	skb = ndp_ctrl_skb(sk, NDP_PKT_TOKEN, 0, 0);
	if (!skb)
		return;
	ndp_admit_key(&ndp_pernet(net)->admit->tok, slot, true, &key);
	ndp_hdr(skb)->pull = htonl(ndp_admit_tmac(&key, &nsk->flow.laddr,
						  &nsk->flow.raddr,
						  nsk->flow.family, slot));
	memzero_explicit(&key, sizeof(key));
	__skb_queue_tail(xmitq, skb);
	NDP_INC_STATS(net, NDP_MIB_OUTTOKENS);
}

static struct hlist_head *ndp_admit_bucket(struct ndp_admit_cache *c,
					   const struct in6_addr *addr)
{
	u32 h = jhash(addr, sizeof(*addr), c->seed);

	return &c->ht[hash_32(h, NDP_ADMIT_TOKEN_BITS)];
}

static struct ndp_admit_token *
ndp_admit_find(struct ndp_admit_cache *c, const struct in6_addr *addr,
	       u16 family)
{
	struct ndp_admit_token *t;

	hlist_for_each_entry(t, ndp_admit_bucket(c, addr), node)
		if (t->family == family && ipv6_addr_equal(&t->addr, addr))
			return t;
	return NULL;
}

/* An opener got @token from the server at @fl->raddr: keep it. */
void ndp_admit_token_store(struct net *net, const struct ndp_flow *fl,
			   u32 token)
{
	struct ndp_admit_cache *c = &ndp_pernet(net)->admit->cache;
	struct ndp_admit_token *t, *n;

	n = kmalloc(sizeof(*n), GFP_ATOMIC | __GFP_NOWARN);
	spin_lock_bh(&c->lock);
	t = ndp_admit_find(c, &fl->raddr, fl->family);
	if (!t && !n)
		goto out;
	if (!t) {
		if (c->count >= NDP_ADMIT_TOKENS_MAX) {
			t = list_first_entry(&c->lru, struct ndp_admit_token,
					     lru);
			hlist_del(&t->node);
			list_del(&t->lru);
			c->count--;
			kfree(t);
		}
		t = n;
		n = NULL;
		t->addr = fl->raddr;
		t->family = fl->family;
		hlist_add_head(&t->node, ndp_admit_bucket(c, &t->addr));
		c->count++;
	} else {
		list_del(&t->lru);
	}
	list_add_tail(&t->lru, &c->lru);
	t->token = token;
out:
	spin_unlock_bh(&c->lock);
	kfree(n);
}

/* The token kept for the server at @fl->raddr, if any, into @token. */
static bool ndp_admit_token_find(struct net *net, const struct ndp_flow *fl,
				 u32 *token)
{
	struct ndp_admit_cache *c = &ndp_pernet(net)->admit->cache;
	struct ndp_admit_token *t;

	spin_lock_bh(&c->lock);
	t = ndp_admit_find(c, &fl->raddr, fl->family);
	if (t)
		*token = t->token;
	spin_unlock_bh(&c->lock);
	return t;
}

/*
 * Flags a first-window packet of opener @sk carries (@flags has SYN):
 * ECHO once a challenge came, else TOKEN if a token is kept for the
 * server (looked up once per connection).  Lock of @sk held.
 */
u16 ndp_admit_tx_flags(struct sock *sk)
{
	struct ndp_sock *nsk = ndp_sk(sk);
	struct ndp_sock_admit *ad = &nsk->admit;

	if (ad->echo_ok)
		return NDP_F_ECHO;
	if (!ad->token_looked) {
		ad->token_looked = true;
		ad->token_ok = ndp_admit_token_find(sock_net(sk), &nsk->flow,
						    &ad->token);
	}
	return ad->token_ok ? NDP_F_TOKEN : 0;
}

/* The field those flags fill in the header @nh. */
void ndp_admit_tx_fill(struct sock *sk, struct ndphdr *nh, u16 flags)
{
	struct ndp_sock *nsk = ndp_sk(sk);

	if (flags & NDP_F_ECHO)
		nh->pull = htonl(nsk->admit.echo_cookie);
	else if (flags & NDP_F_TOKEN)
		nh->pull = htonl(nsk->admit.token);
}
