// SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/ndp.yaml */
/* YNL-GEN kernel source */

#include <net/netlink.h>
#include <net/genetlink.h>

#include "netlink_gen.h"

#include <uapi/linux/ndp.h>
#include <net/ndp_compat.h>

/* NDP_CMD_PATH_ADD - do */
static const struct nla_policy ndp_path_add_nl_policy[NDP_A_PATH_FWMARK + 1] = {
	[NDP_A_PATH_ID] = NLA_POLICY_RANGE(NLA_U32, 1, 255),
	[NDP_A_PATH_DST] = { .type = NLA_BINARY, },
	[NDP_A_PATH_DST_PLEN] = NLA_POLICY_MAX(NLA_U8, 128),
	[NDP_A_PATH_VIA_DST] = { .type = NLA_BINARY, },
	[NDP_A_PATH_VIA_SRC] = { .type = NLA_BINARY, },
	[NDP_A_PATH_FWMARK] = { .type = NLA_U32, },
};

/* NDP_CMD_PATH_DEL - do */
static const struct nla_policy ndp_path_del_nl_policy[NDP_A_PATH_ID + 1] = {
	[NDP_A_PATH_ID] = NLA_POLICY_RANGE(NLA_U32, 1, 255),
};

/* NDP_CMD_PATH_GET - do */
static const struct nla_policy ndp_path_get_do_nl_policy[NDP_A_PATH_ID + 1] = {
	[NDP_A_PATH_ID] = NLA_POLICY_RANGE(NLA_U32, 1, 255),
};

/* NDP_CMD_PATH_GET - dump */
static const struct nla_policy ndp_path_get_dump_nl_policy[NDP_A_PATH_ID + 1] = {
	[NDP_A_PATH_ID] = NLA_POLICY_RANGE(NLA_U32, 1, 255),
};

/* NDP_CMD_PARAM_GET - do */
static const struct nla_policy ndp_param_get_do_nl_policy[NDP_A_PARAM_NAME + 1] = {
	[NDP_A_PARAM_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
};

/* NDP_CMD_PARAM_GET - dump */
static const struct nla_policy ndp_param_get_dump_nl_policy[NDP_A_PARAM_NAME + 1] = {
	[NDP_A_PARAM_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
};

/* NDP_CMD_PARAM_SET - do */
static const struct nla_policy ndp_param_set_nl_policy[NDP_A_PARAM_VALUE + 1] = {
	[NDP_A_PARAM_NAME] = { .type = NLA_NUL_STRING, .len = 31, },
	[NDP_A_PARAM_VALUE] = { .type = NLA_U32, },
};

/* Ops table for ndp */
const struct genl_split_ops ndp_nl_ops[8] = {
	{
		.cmd		= NDP_CMD_PATH_ADD,
		.doit		= ndp_nl_path_add_doit,
		.policy		= ndp_path_add_nl_policy,
		.maxattr	= NDP_A_PATH_FWMARK,
		.flags		= GENL_UNS_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= NDP_CMD_PATH_DEL,
		.doit		= ndp_nl_path_del_doit,
		.policy		= ndp_path_del_nl_policy,
		.maxattr	= NDP_A_PATH_ID,
		.flags		= GENL_UNS_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd		= NDP_CMD_PATH_GET,
		.doit		= ndp_nl_path_get_doit,
		.policy		= ndp_path_get_do_nl_policy,
		.maxattr	= NDP_A_PATH_ID,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= NDP_CMD_PATH_GET,
		.dumpit		= ndp_nl_path_get_dumpit,
		.policy		= ndp_path_get_dump_nl_policy,
		.maxattr	= NDP_A_PATH_ID,
		.flags		= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd		= NDP_CMD_PARAM_GET,
		.doit		= ndp_nl_param_get_doit,
		.policy		= ndp_param_get_do_nl_policy,
		.maxattr	= NDP_A_PARAM_NAME,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= NDP_CMD_PARAM_GET,
		.dumpit		= ndp_nl_param_get_dumpit,
		.policy		= ndp_param_get_dump_nl_policy,
		.maxattr	= NDP_A_PARAM_NAME,
		.flags		= GENL_CMD_CAP_DUMP,
	},
	{
		.cmd		= NDP_CMD_PARAM_SET,
		.doit		= ndp_nl_param_set_doit,
		.policy		= ndp_param_set_nl_policy,
		.maxattr	= NDP_A_PARAM_VALUE,
		.flags		= GENL_UNS_ADMIN_PERM | GENL_CMD_CAP_DO,
	},
	{
		.cmd	= NDP_CMD_COUNTERS_GET,
		.doit	= ndp_nl_counters_get_doit,
		.flags	= GENL_CMD_CAP_DO,
	},
};

static const struct genl_multicast_group ndp_nl_mcgrps[] = {
	[NDP_NLGRP_EVENTS] = { "events", },
};
