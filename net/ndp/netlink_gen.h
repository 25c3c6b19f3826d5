/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/ndp.yaml */
/* YNL-GEN kernel header */

#ifndef _LINUX_NDP_GEN_H
#define _LINUX_NDP_GEN_H

#include <net/netlink.h>
#include <net/genetlink.h>

#include <uapi/linux/ndp.h>
#include <net/ndp_compat.h>

/* Ops table for ndp */
extern const struct genl_split_ops ndp_nl_ops[8];

int ndp_nl_path_add_doit(struct sk_buff *skb, struct genl_info *info);
int ndp_nl_path_del_doit(struct sk_buff *skb, struct genl_info *info);
int ndp_nl_path_get_doit(struct sk_buff *skb, struct genl_info *info);
int ndp_nl_path_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int ndp_nl_param_get_doit(struct sk_buff *skb, struct genl_info *info);
int ndp_nl_param_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int ndp_nl_param_set_doit(struct sk_buff *skb, struct genl_info *info);
int ndp_nl_counters_get_doit(struct sk_buff *skb, struct genl_info *info);

enum {
	NDP_NLGRP_EVENTS,
};

#endif /* _LINUX_NDP_GEN_H */
