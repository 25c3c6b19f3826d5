/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NDP: the one place where kernel-version differences are handled.
 *
 * Supported: Linux 6.1 (Debian 12's default) and 6.12 (Debian 12's LTS
 * backport).  Code elsewhere uses the helpers below and never tests
 * LINUX_VERSION_CODE itself.
 */
#ifndef _NET_NDP_COMPAT_H
#define _NET_NDP_COMPAT_H

#include <linux/version.h>
#include <linux/module.h>
#include <linux/sysctl.h>
#include <net/net_namespace.h>

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
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
	return register_net_sysctl_sz(net, path, table, n - 1);
#else
	return register_net_sysctl(net, path, table);
#endif
}

/* struct proto gained ipv6_pinfo_offset in 6.6 (before: end of object). */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
#define NDP_PROTO_IPV6_PINFO(type, member)	\
	.ipv6_pinfo_offset = offsetof(type, member),
#else
#define NDP_PROTO_IPV6_PINFO(type, member)
#endif

/*
 * Qdisc autoload: 6.1 asks for module "sch_<kind>", which is our name;
 * later kernels ask for the "net-sch-<kind>" alias.
 */
#ifndef MODULE_ALIAS_NET_SCH
#define MODULE_ALIAS_NET_SCH(id)	MODULE_ALIAS("net-sch-" id)
#endif

/* timer_shutdown_sync() appeared in 6.2. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0)
#define timer_shutdown_sync(t)	del_timer_sync(t)
#endif

#endif /* _NET_NDP_COMPAT_H */
