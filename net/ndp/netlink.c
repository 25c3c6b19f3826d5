// SPDX-License-Identifier: GPL-2.0
/*
 * NDP: the "ndp" generic netlink family (control plane).
 *
 * Documentation/netlink/specs/ndp.yaml is the source of truth for the
 * commands, attributes and policies: the kernel's YNL generator writes
 * them into netlink_gen.c (policies, ops table) and netlink_gen.h (the
 * handlers below, the multicast group ids); "make netlink-gen" regenerates
 * both and tools/ndp-test checks that they are current.  The user guide
 * is Documentation/networking/ndp-netlink.rst.
 *
 * Objects:
 *   paths     per namespace, keyed by id (1..255, the value carried in
 *             ndphdr.path).  A path applies to a peer prefix and steers
 *             packets through one spine by an alternative destination or
 *             source address and/or a routing mark.  Kept on an RCU list
 *             sorted by id so that the data path can walk it lock-free
 *             and a dump can resume after the last id it sent.
 *   params    the net.ndp.* sysctls, with the sysctls' bounds.
 *   counters  the MIB of /proc/net/ndp_stat.
 *   sockets   connections and listeners of the namespace (dump only).
 *
 * Changes need CAP_NET_ADMIN in the user namespace owning the network
 * namespace (GENL_UNS_ADMIN_PERM); reads are open, like /proc/net.
 * Every doit validates all of its input before changing anything and
 * says what was wrong through extack.
 */

#define pr_fmt(fmt) "NDP: " fmt

#include <linux/rculist.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <net/sock.h>
#include <uapi/linux/ndp.h>

#include "protocol.h"
#include "netlink_gen.h"

static struct genl_family ndp_genl_family;

/*
 * The generated netlink_gen.c keeps its copy of the group table to itself
 * (YNL only emits the family structure for the plain genetlink protocol,
 * and "ndp" needs genetlink-legacy for GENL_UNS_ADMIN_PERM): this one is
 * indexed by the generated ids.
 */
static const struct genl_multicast_group ndp_nl_family_mcgrps[] = {
	[NDP_NLGRP_EVENTS] = { .name = NDP_GENL_MCGRP_EVENTS },
};

/* ---------------------------------------------------------------------- */
/* Paths.                                                                 */

static int ndp_nl_put_addr(struct sk_buff *skb, int type, u16 family,
			   const struct in6_addr *a)
{
	if (family == AF_INET)
		return nla_put_in_addr(skb, type, a->s6_addr32[3]);
	return nla_put_in6_addr(skb, type, a);
}

static int ndp_nl_fill_path(struct sk_buff *skb, const struct ndp_path *p)
{
	unsigned long until = READ_ONCE(p->excluded_until);
	u8 state = NDP_PATH_STATE_USABLE;
	struct nlattr *score;

	if (until && time_before(jiffies, until))
		state = NDP_PATH_STATE_EXCLUDED;
	if (nla_put_u32(skb, NDP_A_PATH_ID, p->id) ||
	    ndp_nl_put_addr(skb, NDP_A_PATH_DST, p->family, &p->dst) ||
	    nla_put_u8(skb, NDP_A_PATH_DST_PLEN, p->dst_plen) ||
	    (!ipv6_addr_any(&p->via_dst) &&
	     ndp_nl_put_addr(skb, NDP_A_PATH_VIA_DST, p->family, &p->via_dst)) ||
	    (!ipv6_addr_any(&p->via_src) &&
	     ndp_nl_put_addr(skb, NDP_A_PATH_VIA_SRC, p->family, &p->via_src)) ||
	    (p->fwmark && nla_put_u32(skb, NDP_A_PATH_FWMARK, p->fwmark)) ||
	    nla_put_u8(skb, NDP_A_PATH_STATE, state))
		return -EMSGSIZE;

	score = nla_nest_start(skb, NDP_A_PATH_SCORE);
	if (!score)
		return -EMSGSIZE;
	if (nla_put_u32(skb, NDP_A_SCORE_ACKS, atomic_read(&p->acks)) ||
	    nla_put_u32(skb, NDP_A_SCORE_NACKS, atomic_read(&p->nacks)) ||
	    nla_put_u32(skb, NDP_A_SCORE_RTOS, atomic_read(&p->rtos)) ||
	    nla_put_u32(skb, NDP_A_SCORE_RTS, atomic_read(&p->rts)) ||
	    nla_put_u32(skb, NDP_A_SCORE_EXCLUSIONS,
			atomic_read(&p->exclusions)) ||
	    nla_put_u32(skb, NDP_A_SCORE_TX, atomic_read(&p->tx)) ||
	    nla_put_u32(skb, NDP_A_SCORE_RTX, atomic_read(&p->rtx)) ||
	    nla_put_u32(skb, NDP_A_SCORE_CES, atomic_read(&p->ces))) {
		nla_nest_cancel(skb, score);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, score);
	return 0;
}

/**
 * ndp_nl_path_event() - tell the "events" group about a path
 * @net: namespace of the path.
 * @p: the path (its current state is reported).
 * @cmd: NDP_CMD_PATH_ADD, NDP_CMD_PATH_DEL or NDP_CMD_PATH_CHANGED
 *	(excluded or restored by the scoreboard).
 *
 * Any context; allocation failures lose the event.
 */
void ndp_nl_path_event(struct net *net, const struct ndp_path *p, u8 cmd)
{
	struct sk_buff *skb;
	void *hdr;

	if (!genl_has_listeners(&ndp_genl_family, net, NDP_NLGRP_EVENTS))
		return;
	skb = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_ATOMIC);
	if (!skb)
		return;
	hdr = genlmsg_put(skb, 0, 0, &ndp_genl_family, 0, cmd);
	if (!hdr || ndp_nl_fill_path(skb, p)) {
		nlmsg_free(skb);
		return;
	}
	genlmsg_end(skb, hdr);
	genlmsg_multicast_netns(&ndp_genl_family, net, skb, 0,
				NDP_NLGRP_EVENTS, GFP_ATOMIC);
}

/*
 * Read an address attribute of @family (4 or 16 bytes) into v4-mapped
 * or plain IPv6 form.  @family 0 means "take it from the length".
 */
static int ndp_nl_get_addr(struct genl_info *info, int type, u16 *family,
			   struct in6_addr *a)
{
	struct nlattr *attr = info->attrs[type];
	int len = nla_len(attr);

	if (len != 4 && len != 16) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "address must be 4 (IPv4) or 16 (IPv6) bytes");
		return -EINVAL;
	}
	if (*family && *family != (len == 4 ? AF_INET : AF_INET6)) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "address family differs from the destination's");
		return -EINVAL;
	}
	*family = len == 4 ? AF_INET : AF_INET6;
	if (len == 4)
		ipv6_addr_set_v4mapped(nla_get_in_addr(attr), a);
	else
		*a = nla_get_in6_addr(attr);
	return 0;
}

int ndp_nl_path_add_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ndp_net *nn = ndp_pernet(genl_info_net(info));
	struct nlattr **tb = info->attrs;
	struct in6_addr masked;
	struct ndp_path *p;
	u8 plen_max;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, NDP_A_PATH_ID) ||
	    GENL_REQ_ATTR_CHECK(info, NDP_A_PATH_DST))
		return -EINVAL;
	if (!tb[NDP_A_PATH_VIA_DST] && !tb[NDP_A_PATH_VIA_SRC] &&
	    !tb[NDP_A_PATH_FWMARK]) {
		GENL_SET_ERR_MSG(info, "a path needs a via destination, a via source or a fwmark");
		return -EINVAL;
	}

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	p->id = nla_get_u32(tb[NDP_A_PATH_ID]);
	err = ndp_nl_get_addr(info, NDP_A_PATH_DST, &p->family, &p->dst);
	if (err)
		goto err_free;
	plen_max = p->family == AF_INET ? 32 : 128;
	p->dst_plen = plen_max;
	if (tb[NDP_A_PATH_DST_PLEN]) {
		p->dst_plen = nla_get_u8(tb[NDP_A_PATH_DST_PLEN]);
		if (p->dst_plen > plen_max) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[NDP_A_PATH_DST_PLEN],
					    "IPv4 prefix length must be at most 32");
			err = -EINVAL;
			goto err_free;
		}
	}
	ipv6_addr_prefix(&masked, &p->dst,
			 p->dst_plen + (p->family == AF_INET ? 96 : 0));
	if (!ipv6_addr_equal(&masked, &p->dst)) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[NDP_A_PATH_DST],
				    "destination has bits set beyond the prefix length");
		err = -EINVAL;
		goto err_free;
	}
	if (tb[NDP_A_PATH_VIA_DST]) {
		err = ndp_nl_get_addr(info, NDP_A_PATH_VIA_DST, &p->family,
				      &p->via_dst);
		if (err)
			goto err_free;
	}
	if (tb[NDP_A_PATH_VIA_SRC]) {
		err = ndp_nl_get_addr(info, NDP_A_PATH_VIA_SRC, &p->family,
				      &p->via_src);
		if (err)
			goto err_free;
	}
	if (tb[NDP_A_PATH_FWMARK])
		p->fwmark = nla_get_u32(tb[NDP_A_PATH_FWMARK]);

	ndp_paths_lock(nn);
	if (ndp_path_find(nn, p->id)) {
		ndp_paths_unlock(nn);
		NL_SET_ERR_MSG_ATTR(info->extack, tb[NDP_A_PATH_ID],
				    "a path with this id exists");
		err = -EEXIST;
		goto err_free;
	}
	ndp_path_insert(nn, p);
	ndp_nl_path_event(genl_info_net(info), p, NDP_CMD_PATH_ADD);
	ndp_paths_unlock(nn);
	return 0;

err_free:
	kfree(p);
	return err;
}

int ndp_nl_path_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ndp_net *nn = ndp_pernet(genl_info_net(info));
	struct ndp_path *p;

	if (GENL_REQ_ATTR_CHECK(info, NDP_A_PATH_ID))
		return -EINVAL;
	ndp_paths_lock(nn);
	p = ndp_path_find(nn, nla_get_u32(info->attrs[NDP_A_PATH_ID]));
	if (!p) {
		ndp_paths_unlock(nn);
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[NDP_A_PATH_ID],
				    "no path with this id");
		return -ENOENT;
	}
	ndp_path_remove(nn, p);
	ndp_nl_path_event(genl_info_net(info), p, NDP_CMD_PATH_DEL);
	ndp_paths_unlock(nn);
	kfree_rcu(p, rcu);
	return 0;
}

int ndp_nl_path_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ndp_net *nn = ndp_pernet(genl_info_net(info));
	struct sk_buff *msg;
	struct ndp_path *p;
	void *hdr;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, NDP_A_PATH_ID))
		return -EINVAL;
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &ndp_genl_family, 0,
				NDP_CMD_PATH_GET);
	if (!hdr) {
		err = -EMSGSIZE;
		goto err_free;
	}
	ndp_paths_lock(nn);
	p = ndp_path_find(nn, nla_get_u32(info->attrs[NDP_A_PATH_ID]));
	if (!p) {
		ndp_paths_unlock(nn);
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[NDP_A_PATH_ID],
				    "no path with this id");
		err = -ENOENT;
		goto err_free;
	}
	err = ndp_nl_fill_path(msg, p);
	ndp_paths_unlock(nn);
	if (err)
		goto err_free;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_free:
	nlmsg_free(msg);
	return err;
}

/* cb->args[0]: id of the last path sent. */
int ndp_nl_path_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct ndp_net *nn = ndp_pernet(sock_net(skb->sk));
	struct ndp_path *p;
	int err = 0;
	void *hdr;

	rcu_read_lock();
	for (p = ndp_path_next_rcu(nn, NULL); p; p = ndp_path_next_rcu(nn, p)) {
		if (p->id <= cb->args[0])
			continue;
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &ndp_genl_family,
				  NLM_F_MULTI, NDP_CMD_PATH_GET);
		if (!hdr) {
			err = -EMSGSIZE;
			break;
		}
		if (ndp_nl_fill_path(skb, p)) {
			genlmsg_cancel(skb, hdr);
			err = -EMSGSIZE;
			break;
		}
		genlmsg_end(skb, hdr);
		cb->args[0] = p->id;
	}
	rcu_read_unlock();
	/* A partial message ends this round; the next one resumes. */
	if (err && skb->len)
		return skb->len;
	return err ?: skb->len;
}

/* ---------------------------------------------------------------------- */
/* Parameters (the net.ndp sysctls).                                      */

static int ndp_nl_fill_param(struct sk_buff *skb, struct ndp_net *nn,
			     const struct ndp_param *prm)
{
	u32 val = READ_ONCE(*(u32 *)((char *)nn + prm->offset));

	if (nla_put_string(skb, NDP_A_PARAM_NAME, prm->name) ||
	    nla_put_u32(skb, NDP_A_PARAM_VALUE, val) ||
	    nla_put_u32(skb, NDP_A_PARAM_MIN, prm->min) ||
	    nla_put_u32(skb, NDP_A_PARAM_MAX, prm->max))
		return -EMSGSIZE;
	return 0;
}

static int ndp_nl_param_lookup(struct genl_info *info, struct ndp_param *prm)
{
	if (GENL_REQ_ATTR_CHECK(info, NDP_A_PARAM_NAME))
		return -EINVAL;
	if (!ndp_ctrl_param_find(nla_data(info->attrs[NDP_A_PARAM_NAME]), prm)) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[NDP_A_PARAM_NAME],
				    "unknown parameter");
		return -ENOENT;
	}
	return 0;
}

int ndp_nl_param_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ndp_net *nn = ndp_pernet(genl_info_net(info));
	struct ndp_param prm;
	struct sk_buff *msg;
	void *hdr;
	int err;

	err = ndp_nl_param_lookup(info, &prm);
	if (err)
		return err;
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &ndp_genl_family, 0,
				NDP_CMD_PARAM_GET);
	if (!hdr || ndp_nl_fill_param(msg, nn, &prm)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

/* cb->args[0]: index of the next parameter. */
int ndp_nl_param_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct ndp_net *nn = ndp_pernet(sock_net(skb->sk));
	struct ndp_param prm;
	void *hdr;

	while (ndp_ctrl_param(cb->args[0], &prm)) {
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &ndp_genl_family,
				  NLM_F_MULTI, NDP_CMD_PARAM_GET);
		if (!hdr)
			break;
		if (ndp_nl_fill_param(skb, nn, &prm)) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
		cb->args[0]++;
	}
	return skb->len;
}

int ndp_nl_param_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ndp_param prm;
	u32 val;
	int err;

	err = ndp_nl_param_lookup(info, &prm);
	if (err)
		return err;
	if (GENL_REQ_ATTR_CHECK(info, NDP_A_PARAM_VALUE))
		return -EINVAL;
	val = nla_get_u32(info->attrs[NDP_A_PARAM_VALUE]);
	if (val < prm.min || val > prm.max) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[NDP_A_PARAM_VALUE],
				    "value out of the parameter's range (see param show)");
		return -ERANGE;
	}
	err = ndp_ctrl_param_write(genl_info_net(info), &prm, val);
	if (err)
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[NDP_A_PARAM_VALUE],
				    "cannot use this value now (udp_port: port in use?)");
	return err;
}

/* ---------------------------------------------------------------------- */
/* Counters.                                                              */

/* The reply's size: every counter, named (beyond GENLMSG_DEFAULT_SIZE). */
static size_t ndp_nl_counters_size(void)
{
	size_t size = 0;
	int i;

	for (i = 1; i < NDP_MIB_MAX; i++)
		size += nla_total_size(0) +
			nla_total_size(strlen(ndp_mib_names[i]) + 1) +
			nla_total_size_64bit(sizeof(u64));
	return size;
}

int ndp_nl_counters_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ndp_net *nn = ndp_pernet(genl_info_net(info));
	struct nlattr *nest;
	struct sk_buff *msg;
	void *hdr;
	int i;

	msg = genlmsg_new(ndp_nl_counters_size(), GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &ndp_genl_family, 0,
				NDP_CMD_COUNTERS_GET);
	if (!hdr)
		goto err_free;
	for (i = 1; i < NDP_MIB_MAX; i++) {
		nest = nla_nest_start(msg, NDP_A_COUNTER);
		if (!nest ||
		    nla_put_string(msg, NDP_A_COUNTER_NAME, ndp_mib_names[i]) ||
		    nla_put_u64_64bit(msg, NDP_A_COUNTER_VALUE,
				      ndp_snmp_fold_field(nn->mib, i),
				      NDP_A_COUNTER_PAD))
			goto err_free;
		nla_nest_end(msg, nest);
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_free:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

/* ---------------------------------------------------------------------- */
/* The family.                                                            */

/*
 * resv_start_op is 0 (a new family): every command validates strictly and
 * a command without a policy rejects every attribute.  The ops are
 * ndp_nl_ops of netlink_gen.c; ndp_genl_register_family() (compat header)
 * turns them into what the running kernel's genetlink expects.
 */
static struct genl_family ndp_genl_family __ro_after_init = {
	.name		= NDP_GENL_NAME,
	.version	= NDP_GENL_VERSION,
	.netnsok	= true,
	.parallel_ops	= true,
	.module		= THIS_MODULE,
	.mcgrps		= ndp_nl_family_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(ndp_nl_family_mcgrps),
};

static struct genl_ops ndp_nl_merged_ops[ARRAY_SIZE(ndp_nl_ops)] __ro_after_init;

int __init ndp_nl_init(void)
{
	return ndp_genl_register_family(&ndp_genl_family, ndp_nl_ops,
					ARRAY_SIZE(ndp_nl_ops),
					ndp_nl_merged_ops);
}

void ndp_nl_exit(void)
{
	genl_unregister_family(&ndp_genl_family);
}
