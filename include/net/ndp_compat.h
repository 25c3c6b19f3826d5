/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NDP: the one place where kernel-version differences are handled.
 *
 * Supported (Documentation/networking/ndp.rst, "Supported kernels"):
 * Linux 6.1 (Debian 12's default), 6.12 (Debian 12's LTS backport, Debian
 * 13's default) and the newest kernel Debian ships, pinned in
 * tools/vm/debian-kernel (7.3 from trixie-backports).  Code elsewhere uses
 * the helpers below and never tests LINUX_VERSION_CODE itself.  A test
 * names the release where the interface changed as far as it is known;
 * only the supported kernels are built and tested, so a boundary between
 * them can be off without anyone noticing: prefer a feature probe
 * (#ifdef of a macro the change brought) where one exists.
 */
#ifndef _NET_NDP_COMPAT_H
#define _NET_NDP_COMPAT_H

#include <linux/version.h>
#include <linux/module.h>
#include <linux/sysctl.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <net/genetlink.h>
#include <net/inet_sock.h>
#include <linux/ipv6.h>
#include <linux/inet_diag.h>
#include <net/sock.h>

/*
 * Sysctl tables: 6.1 needs an empty sentinel entry at the end and has no
 * register_net_sysctl_sz(); since 6.6 the size is passed instead and from
 * 6.11 a sentinel is rejected.  NDP tables are declared with a sentinel;
 * @n counts the entries including it.
 */
static inline struct ctl_table_header *
ndp_register_net_sysctl(struct net *net, const char *path,
			struct ctl_table *table, size_t n)
{
#if KERNEL_VERSION(6, 6, 0) <= LINUX_VERSION_CODE
	return register_net_sysctl_sz(net, path, table, n - 1);
#else
	return register_net_sysctl(net, path, table);
#endif
}

/*
 * A UDP tunnel's encap_err_rcv got the offset of the quoted UDP header
 * until 6.2, then UDP's errno, port, info and a pointer behind that
 * header.  @name calls @fn(sk, skb, offset of the quoted UDP header from
 * skb->data) on either.
 */
#if KERNEL_VERSION(6, 2, 0) <= LINUX_VERSION_CODE
#define NDP_ENCAP_ERR_RCV(name, fn)					\
static void name(struct sock *sk, struct sk_buff *skb, int err,	\
		 __be16 port, u32 info, u8 *payload)			\
{									\
	fn(sk, skb, payload - skb->data - sizeof(struct udphdr));	\
}
#else
#define NDP_ENCAP_ERR_RCV(name, fn)					\
static void name(struct sock *sk, struct sk_buff *skb,			\
		 unsigned int udp_offset)				\
{									\
	fn(sk, skb, udp_offset);					\
}
#endif

/* Sysctl handlers take a const table since 6.11. */
#if KERNEL_VERSION(6, 11, 0) <= LINUX_VERSION_CODE
#define NDP_CTL_TABLE	const struct ctl_table
#else
#define NDP_CTL_TABLE	struct ctl_table
#endif

/*
 * struct proto gained ipv6_pinfo_offset in 6.6; before, the ipv6_pinfo
 * had to be the last member of the socket object, which NDP keeps anyway.
 */
static inline void ndp_proto_set_ipv6_pinfo(struct proto *prot, size_t offset)
{
#if KERNEL_VERSION(6, 6, 0) <= LINUX_VERSION_CODE
	prot->ipv6_pinfo_offset = offset;
#endif
}

/*
 * Qdisc autoload: 6.1 asks for module "sch_<kind>", which is our name;
 * later kernels ask for the "net-sch-<kind>" alias.
 */
#ifndef MODULE_ALIAS_NET_SCH
#define MODULE_ALIAS_NET_SCH(id)	MODULE_ALIAS("net-sch-" id)
#endif

/* Protocol memory accounting helpers moved to their own header in 6.10. */
#if KERNEL_VERSION(6, 10, 0) <= LINUX_VERSION_CODE
#include <net/proto_memory.h>
#endif

/*
 * EXPORT_SYMBOL_IF_KUNIT() arrived in 6.2 (exports into the KUnit
 * namespace only when the kernel has KUnit); 6.1 exports into that
 * namespace always, which no module but the tests imports.
 */
#if KERNEL_VERSION(6, 2, 0) <= LINUX_VERSION_CODE
#include <kunit/visibility.h>
#else
#define EXPORT_SYMBOL_IF_KUNIT(sym) \
	EXPORT_SYMBOL_NS_GPL(sym, EXPORTED_FOR_KUNIT_TESTING)
#endif

/* timer_shutdown_sync() appeared in 6.2. */
#if KERNEL_VERSION(6, 2, 0) > LINUX_VERSION_CODE
#define timer_shutdown_sync(t)	del_timer_sync(t)
#endif

/*
 * proto_ops.accept: since 6.10 the flags travel in struct
 * proto_accept_arg; before, as (flags, kern).  NDP implements
 * ndp_accept_common() once and plugs in ndp_compat_accept().
 */
int ndp_accept_common(struct socket *sock, struct socket *newsock, int flags,
		      bool kern);
#if KERNEL_VERSION(6, 10, 0) <= LINUX_VERSION_CODE
static inline int ndp_compat_accept(struct socket *sock,
				    struct socket *newsock,
				    struct proto_accept_arg *arg)
{
	return ndp_accept_common(sock, newsock, arg->flags, arg->kern);
}
#else
static inline int ndp_compat_accept(struct socket *sock,
				    struct socket *newsock, int flags,
				    bool kern)
{
	return ndp_accept_common(sock, newsock, flags, kern);
}
#endif

/*
 * A socket cloned from a listener must not share the listener's IPv6
 * flow label list; it moved from ipv6_pinfo to inet_sock in 6.5.
 */
static inline void ndp_compat_clear_fl_list(struct sock *newsk)
{
#if KERNEL_VERSION(6, 5, 0) <= LINUX_VERSION_CODE
	RCU_INIT_POINTER(inet_sk(newsk)->ipv6_fl_list, NULL);
#else
	if (inet_sk(newsk)->pinet6)
		RCU_INIT_POINTER(inet_sk(newsk)->pinet6->ipv6_fl_list, NULL);
#endif
}

/*
 * Generic netlink.  net/ndp/netlink_gen.c, written by the kernel's YNL
 * generator, describes the "ndp" family as split ops (6.2+): one entry
 * for the do and one for the dump of a command, each with its policy and
 * GENL_CMD_CAP_* flag.  6.1 only has struct genl_ops, one entry per
 * command with a single policy: there the generated table is folded into
 * @merged (room for @n entries) when the family is registered.  The do
 * and dump policies of every NDP command are the same.
 */
#if KERNEL_VERSION(6, 2, 0) <= LINUX_VERSION_CODE
static inline int ndp_genl_register_family(struct genl_family *family,
					   const struct genl_split_ops *ops,
					   int n, struct genl_ops *merged)
{
	family->split_ops = ops;
	family->n_split_ops = n;
	return genl_register_family(family);
}
#else
struct genl_split_ops {
	int (*doit)(struct sk_buff *skb, struct genl_info *info);
	int (*dumpit)(struct sk_buff *skb, struct netlink_callback *cb);
	const struct nla_policy *policy;
	unsigned int maxattr;
	u8 cmd;
	u8 flags;
};

static inline int ndp_genl_register_family(struct genl_family *family,
					   const struct genl_split_ops *ops,
					   int n, struct genl_ops *merged)
{
	int i, j, n_merged = 0;

	for (i = 0; i < n; i++) {
		for (j = 0; j < n_merged; j++)
			if (merged[j].cmd == ops[i].cmd)
				break;
		if (j == n_merged) {
			merged[j].cmd = ops[i].cmd;
			merged[j].flags = ops[i].flags &
				~(GENL_CMD_CAP_DO | GENL_CMD_CAP_DUMP);
			merged[j].policy = ops[i].policy;
			merged[j].maxattr = ops[i].maxattr;
			n_merged++;
		}
		if (ops[i].doit)
			merged[j].doit = ops[i].doit;
		if (ops[i].dumpit)
			merged[j].dumpit = ops[i].dumpit;
	}
	family->ops = merged;
	family->n_ops = n_merged;
	return genl_register_family(family);
}
#endif

/*
 * IP_RECVERR / IPV6_RECVERR: bit fields until the flags moved to
 * inet_sock.inet_flags (IPv4 in 6.6, IPv6 in 6.7).
 */
static inline bool ndp_recverr(const struct sock *sk)
{
	if (sk->sk_family == AF_INET6) {
#if KERNEL_VERSION(6, 7, 0) <= LINUX_VERSION_CODE
		return inet6_test_bit(RECVERR6, sk);
#else
		return inet6_sk(sk)->recverr;
#endif
	}
#if KERNEL_VERSION(6, 6, 0) <= LINUX_VERSION_CODE
	return inet_test_bit(RECVERR, sk);
#else
	return inet_sk(sk)->recverr;
#endif
}

/*
 * struct proto.ioctl: since 6.5 the core copies the result to user space
 * (sk_ioctl()); before, the protocol wrote to the user pointer itself.
 */
int ndp_ioctl(struct sock *sk, int cmd, int *karg);
#if KERNEL_VERSION(6, 5, 0) <= LINUX_VERSION_CODE
static inline int ndp_compat_ioctl(struct sock *sk, int cmd, int *karg)
{
	return ndp_ioctl(sk, cmd, karg);
}
#else
static inline int ndp_compat_ioctl(struct sock *sk, int cmd,
				   unsigned long arg)
{
	int karg, err;

	err = ndp_ioctl(sk, cmd, &karg);
	if (err)
		return err;
	return put_user(karg, (int __user *)arg);
}
#endif

/*
 * struct inet_diag_handler gained .owner in 6.9 (the module is pinned
 * while a dump runs); 6.1 serialised dumps and unregistration with a
 * mutex instead.
 */
struct inet_diag_handler;
static inline void ndp_compat_diag_owner(struct inet_diag_handler *h,
					 struct module *owner)
{
#if KERNEL_VERSION(6, 9, 0) <= LINUX_VERSION_CODE
	h->owner = owner;
#endif
}

/*
 * skb_segment(), __skb_gso_segment() and SKB_GSO_CB() moved from
 * <linux/skbuff.h> and <linux/netdevice.h> to <net/gso.h> in 6.6.
 */
#if KERNEL_VERSION(6, 6, 0) <= LINUX_VERSION_CODE
#include <net/gso.h>
#endif

/*
 * Drop reasons.  6.12 has sk_skb_reason_drop() (names the receiving
 * socket in the skb:kfree_skb event), qdisc_drop_reason() and
 * SKB_DROP_REASON_SOCKET_CLOSE; 6.1 has none of them, only
 * kfree_skb_reason(), qdisc_drop() (its caller reports QDISC_DROP) and
 * TCP_CLOSE for a closed socket.  The qdisc's reasons: below.
 */
#if KERNEL_VERSION(6, 12, 0) <= LINUX_VERSION_CODE
#define NDP_DROP_SOCKET_CLOSE	SKB_DROP_REASON_SOCKET_CLOSE
#else
#define NDP_DROP_SOCKET_CLOSE	SKB_DROP_REASON_TCP_CLOSE
#endif

static inline void ndp_compat_skb_drop(struct sock *sk, struct sk_buff *skb,
				       enum skb_drop_reason reason)
{
#if KERNEL_VERSION(6, 12, 0) <= LINUX_VERSION_CODE
	sk_skb_reason_drop(sk, skb, reason);
#else
	kfree_skb_reason(skb, reason);
#endif
}

/*
 * A qdisc's drop reasons are their own enum (QDISC_DROP_*, reported by the
 * qdisc:qdisc_drop event; skb:kfree_skb says QDISC_DROP) where
 * <net/sch_generic.h> brings <net/dropreason-qdisc.h> (probed by its
 * DEFINE_QDISC_DROP_REASON); 6.12 takes an skb drop reason; 6.1 none.
 * NDP_QDISC_DROP_FULL: a queue at its limit.
 */
#include <net/sch_generic.h>
#ifdef DEFINE_QDISC_DROP_REASON
#define NDP_QDISC_DROP_REASON	enum qdisc_drop_reason
#define NDP_QDISC_DROP_FULL	QDISC_DROP_OVERLIMIT
#else
#define NDP_QDISC_DROP_REASON	enum skb_drop_reason
#define NDP_QDISC_DROP_FULL	SKB_DROP_REASON_QDISC_DROP
#endif

static inline int ndp_compat_qdisc_drop(struct sk_buff *skb, struct Qdisc *sch,
					struct sk_buff **to_free,
					NDP_QDISC_DROP_REASON reason)
{
#if KERNEL_VERSION(6, 12, 0) <= LINUX_VERSION_CODE
	return qdisc_drop_reason(skb, sch, to_free, reason);
#else
	return qdisc_drop(skb, sch, to_free);
#endif
}

/*
 * Symbols that not every supported kernel exports to modules are not
 * used (tools/symbol-check lists the imports and checks them against
 * each kernel's Module.symvers).  snmp_fold_field() is no longer
 * exported in 7.x: the same sum over the possible CPUs, on every kernel.
 */
static inline unsigned long ndp_snmp_fold_field(void __percpu *mib, int offt)
{
	unsigned long res = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		res += *(((unsigned long *)per_cpu_ptr(mib, cpu)) + offt);
	return res;
}

/*
 * proto_ops.bind/connect take struct sockaddr_unsized since 6.19.  NDP
 * implements ndp_connect() on struct sockaddr and plugs in
 * ndp_compat_connect().
 */
int ndp_connect(struct socket *sock, struct sockaddr *uaddr, int addr_len,
		int flags);
#if KERNEL_VERSION(6, 19, 0) <= LINUX_VERSION_CODE
static inline int ndp_compat_connect(struct socket *sock,
				     struct sockaddr_unsized *uaddr,
				     int addr_len, int flags)
{
	return ndp_connect(sock, (struct sockaddr *)uaddr, addr_len, flags);
}
#else
#define ndp_compat_connect	ndp_connect
#endif

/* from_timer() became timer_container_of() in 6.16 (a macro: probed). */
#ifndef timer_container_of
#define timer_container_of(var, callback_timer, timer_fieldname)	\
	from_timer(var, callback_timer, timer_fieldname)
#endif

/* hrtimer_setup() replaced hrtimer_init() + ->function in 6.13. */
#if KERNEL_VERSION(6, 13, 0) > LINUX_VERSION_CODE
#include <linux/hrtimer.h>
static inline void hrtimer_setup(struct hrtimer *timer,
				 enum hrtimer_restart (*function)(struct hrtimer *),
				 clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock_id, mode);
	timer->function = function;
}
#endif

/*
 * inet_diag_bc_sk() takes the dump's inet_diag_dump_data since 6.18 (it
 * reads which conditions the bytecode has from it); before, the bytecode
 * attribute itself.
 */
static inline int ndp_inet_diag_bc_sk(const struct inet_diag_dump_data *d,
				      struct sock *sk)
{
#if KERNEL_VERSION(6, 18, 0) <= LINUX_VERSION_CODE
	return inet_diag_bc_sk(d, sk);
#else
	return inet_diag_bc_sk(d->inet_diag_nla_bc, sk);
#endif
}

/*
 * UDP tunnel sockets: setup_udp_tunnel_sock() and
 * udp_tunnel_sock_release() take the struct sock since 6.19; before, the
 * struct socket.  Macros, so that only encap.c needs <net/udp_tunnel.h>.
 */
#if KERNEL_VERSION(6, 19, 0) <= LINUX_VERSION_CODE
#define ndp_setup_udp_tunnel_sock(net, sock, cfg)		\
	setup_udp_tunnel_sock(net, (sock)->sk, cfg)
#define ndp_udp_tunnel_sock_release(sock)			\
	udp_tunnel_sock_release((sock)->sk)
#else
#define ndp_setup_udp_tunnel_sock(net, sock, cfg)		\
	setup_udp_tunnel_sock(net, sock, cfg)
#define ndp_udp_tunnel_sock_release(sock)			\
	udp_tunnel_sock_release(sock)
#endif

/*
 * Sending through a UDP tunnel (encap.c): udp_tunnel_xmit_skb() and
 * udp_tunnel6_xmit_skb() gained a last argument, the IPCB/IP6CB flags of
 * the outer packet, in 6.17 (7.3 has it, 6.12 does not; no macro came
 * with it to probe; out-of-tree ovpn backports test the same release).
 * NDP sets no such flag.  udp_tunnel6_xmit_skb() returned an int (always
 * 0) on 6.1, void since; NDP ignores it.
 */
#if KERNEL_VERSION(6, 17, 0) <= LINUX_VERSION_CODE
#define ndp_udp_tunnel_xmit_skb(rt, sk, skb, src, dst, tos, ttl, df,	\
				sport, dport, xnet, nocheck)		\
	udp_tunnel_xmit_skb(rt, sk, skb, src, dst, tos, ttl, df,	\
			    sport, dport, xnet, nocheck, 0)
#define ndp_udp_tunnel6_xmit_skb(dst, sk, skb, dev, saddr, daddr, prio,\
				 ttl, label, sport, dport, nocheck)	\
	udp_tunnel6_xmit_skb(dst, sk, skb, dev, saddr, daddr, prio,	\
			     ttl, label, sport, dport, nocheck, 0)
#else
#define ndp_udp_tunnel_xmit_skb(rt, sk, skb, src, dst, tos, ttl, df,	\
				sport, dport, xnet, nocheck)		\
	udp_tunnel_xmit_skb(rt, sk, skb, src, dst, tos, ttl, df,	\
			    sport, dport, xnet, nocheck)
#define ndp_udp_tunnel6_xmit_skb(dst, sk, skb, dev, saddr, daddr, prio,\
				 ttl, label, sport, dport, nocheck)	\
	((void)udp_tunnel6_xmit_skb(dst, sk, skb, dev, saddr, daddr,	\
				    prio, ttl, label, sport, dport,	\
				    nocheck))
#endif

/*
 * Whether IPv6 packets of @sk get an automatic flow label, as ip6_xmit()
 * decides with ip6_autoflowlabel() (static there): the socket's
 * IPV6_AUTOFLOWLABEL if it set one, else the namespace's default.  The
 * flags moved from struct ipv6_pinfo bitfields to inet_flags bits in 6.7.
 * For NDP in UDP (encap.c), whose output does not ask the socket.
 */
#include <net/ipv6.h>
static inline bool ndp_ip6_autoflowlabel(struct net *net,
					 const struct sock *sk)
{
#if KERNEL_VERSION(6, 7, 0) <= LINUX_VERSION_CODE
	if (!inet6_test_bit(AUTOFLOWLABEL_SET, sk))
		return ip6_default_np_autolabel(net);
	return inet6_test_bit(AUTOFLOWLABEL, sk);
#else
	const struct ipv6_pinfo *np = inet6_sk(sk);

	if (!np->autoflowlabel_set)
		return ip6_default_np_autolabel(net);
	return np->autoflowlabel;
#endif
}

/*
 * Binding (hash.c).  TCP compares the owners of SO_REUSEPORT sockets by
 * sk_uid(), an accessor 7.3 has and 6.1 and 6.12 do not; it is
 * READ_ONCE(sk->sk_uid), a field every supported kernel sets at socket
 * creation, so NDP reads the field so on all of them.
 */
static inline kuid_t ndp_sk_uid(const struct sock *sk)
{
	return READ_ONCE(sk->sk_uid);
}

/*
 * The ephemeral port range: inet_sk_get_local_port_range() (the netns
 * range narrowed by IP_LOCAL_PORT_RANGE) is exported by all supported
 * kernels, Debian's 6.1 included (a stable backport); it returns void
 * there and bool (whether the socket narrowed it) on 6.12 and 7.3, which
 * NDP does not need.  inet_get_local_port_range() is exported on 6.1 but
 * an inline on 6.12 and 7.3, so NDP calls only the former.
 */
#include <net/ip.h>
static inline void ndp_local_port_range(const struct sock *sk, int *low,
					int *high)
{
	inet_sk_get_local_port_range(sk, low, high);
}

/*
 * SO_REUSEPORT groups (net/core/sock_reuseport.c): reuseport_alloc(),
 * reuseport_add_sock(), reuseport_select_sock() and
 * reuseport_detach_sock() are exported with the same signatures by every
 * supported kernel (tools/symbol-check).  reuseport_stop_listen_sock()
 * and reuseport_migrate_sock() are too, but migration of a closing
 * listener's children is TCP's only (it tests sk_protocol): NDP resets
 * them, as TCP does by default (net.ipv4.tcp_migrate_req = 0).
 */

/*
 * sendfile() and splice() to a socket (MSG_SPLICE_PAGES, 6.5): the
 * kernel calls sendmsg() with the file's pages in a bio_vec iterator and
 * the flag set, and the protocol may take them by reference with
 * skb_splice_from_iter().  Not probed by the flag: Debian's 6.1 defines
 * MSG_SPLICE_PAGES (to mask it off user flags) without the helper, and
 * never sets it.  The helper's last argument, a gfp mask it never used,
 * is gone in 7.3 and there in 6.12; the test names 6.14 without having
 * pinned the release.
 *
 * Before 6.5 sendfile() and splice() hand a socket one page at a time to
 * proto_ops.sendpage (gone in 6.5); NDP_HAVE_SENDPAGE says NDP plugs in
 * ndp_sendpage(), which passes the page to sendmsg() as a one-entry
 * bio_vec iterator; ndp_skb_splice_from_iter() then appends it by
 * reference (skb_append_pagefrags(), the 6.1 form: no fragment limit, and
 * the caller accounts the bytes).
 */
#if KERNEL_VERSION(6, 5, 0) <= LINUX_VERSION_CODE
static inline bool ndp_msg_splice(const struct msghdr *msg)
{
	return msg->msg_flags & MSG_SPLICE_PAGES;
}

static inline ssize_t ndp_skb_splice_from_iter(struct sk_buff *skb,
					       struct iov_iter *iter,
					       ssize_t maxsize, gfp_t gfp)
{
#if KERNEL_VERSION(6, 14, 0) <= LINUX_VERSION_CODE
	return skb_splice_from_iter(skb, iter, maxsize);
#else
	return skb_splice_from_iter(skb, iter, maxsize, gfp);
#endif
}
#else
#define NDP_HAVE_SENDPAGE	1

static inline bool ndp_msg_splice(const struct msghdr *msg)
{
	return false;
}

static inline ssize_t ndp_skb_splice_from_iter(struct sk_buff *skb,
					       struct iov_iter *iter,
					       ssize_t maxsize, gfp_t gfp)
{
	const struct bio_vec *bv = iter->bvec;
	size_t len = min_t(size_t, maxsize, iov_iter_count(iter));
	int err;

	/* Only ndp_sendpage()'s iterator: one page, by reference. */
	if (!iov_iter_is_bvec(iter) || iter->nr_segs != 1)
		return -EOPNOTSUPP;
	err = skb_append_pagefrags(skb, bv->bv_page,
				   bv->bv_offset + iter->iov_offset, len);
	if (err)
		return err;
	skb->len += len;
	skb->data_len += len;
	skb->truesize += len;
	iov_iter_advance(iter, len);
	return len;
}
#endif

#endif /* _NET_NDP_COMPAT_H */
