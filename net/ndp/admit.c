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
 * Not done yet: address-validation tokens for zero RTT under pressure
 * (issue 22, part 2, item 3).
 */

#define pr_fmt(fmt) "NDP: " fmt

#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/random.h>
#include <linux/siphash.h>
#include <net/sock.h>

#include "protocol.h"

/* Length of a key's time slot; a cookie lives one to two slots. */
#define NDP_ADMIT_SLOT_SECS	8

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

void ndp_admit_net_init(struct ndp_net *nn)
{
	spin_lock_init(&nn->admit.lock);
	nn->admit.slot[0] = U32_MAX;
	nn->admit.slot[1] = U32_MAX;
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
	struct ndp_admit_keys *k = &ndp_pernet(net)->admit;
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
 * @proven: the packet echoed a valid cookie.
 *
 * Returns NDP_ADMIT_OPEN (create it), NDP_ADMIT_CHALLENGE (a budget is
 * used up: answer with a challenge, create nothing) or NDP_ADMIT_DROP
 * (the accept queue is full of proven connections: the application does
 * not keep up; the sender retries).  Counts the outcome.
 */
enum ndp_admit_verdict ndp_admit_check(struct sock *lsk, bool proven)
{
	struct ndp_net *nn = ndp_pernet(sock_net(lsk));
	struct ndp_sock *lnsk = ndp_sk(lsk);

	lockdep_assert_held(&lnsk->lock);
	if (READ_ONCE(lsk->sk_ack_backlog) - lnsk->unproven >
	    READ_ONCE(lsk->sk_max_ack_backlog)) {
		NDP_INC_STATS(sock_net(lsk), NDP_MIB_LISTENOVERFLOWS);
		return NDP_ADMIT_DROP;
	}
	if (proven)
		return NDP_ADMIT_OPEN;
	if (lnsk->unproven >= ndp_admit_budget(lsk)) {
		NDP_INC_STATS(sock_net(lsk), NDP_MIB_ADMITLISTENERFULL);
		return NDP_ADMIT_CHALLENGE;
	}
	if (atomic_read(&nn->embryonic) >= READ_ONCE(nn->max_embryonic)) {
		NDP_INC_STATS(sock_net(lsk), NDP_MIB_ADMITNETNSFULL);
		return NDP_ADMIT_CHALLENGE;
	}
	return NDP_ADMIT_OPEN;
}

/* @child, created by a first window, joins @lsk's accept queue. */
void ndp_admit_queued(struct sock *lsk, struct ndp_sock *child, bool proven)
{
	struct ndp_sock *lnsk = ndp_sk(lsk);

	lockdep_assert_held(&lnsk->lock);
	if (proven) {
		/* It echoed our cookie: it receives what we send it. */
		child->addr_ok = true;
		NDP_INC_STATS(sock_net(lsk), NDP_MIB_ADMITECHOES);
		NDP_INC_STATS(sock_net(lsk), NDP_MIB_ADDRVALIDATED);
		return;
	}
	child->admit_unproven = true;
	lnsk->unproven++;
	atomic_inc(&ndp_pernet(sock_net(lsk))->embryonic);
}

/* @child leaves @lsk's accept queue (accepted, expired, listener closed). */
void ndp_admit_dequeued(struct sock *lsk, struct ndp_sock *child)
{
	struct ndp_sock *lnsk = ndp_sk(lsk);

	lockdep_assert_held(&lnsk->lock);
	if (!child->admit_unproven)
		return;
	child->admit_unproven = false;
	lnsk->unproven--;
	atomic_dec(&ndp_pernet(sock_net(lsk))->embryonic);
}

/*
 * Answer @skb, a first-window DATA packet of @fl that created nothing,
 * with a CHALLENGE.  @skb->data is at its NDP header: the challenge (a
 * header alone, in the same IP family and carriage) is never larger.
 */
void ndp_admit_challenge(struct net *net, const struct sk_buff *skb,
			 const struct ndp_flow *fl)
{
	struct ndp_admit_keys *k = &ndp_pernet(net)->admit;
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
