// SPDX-License-Identifier: GPL-2.0
/*
 * net/sched/sch_ndp.c	NDP switch port.
 *
 * Skeleton: a plain packet FIFO bounded by the device's tx_queue_len, so
 * that "tc qdisc add dev X root ndp" works.  Trimming, the header queue,
 * weighted round robin, return-to-sender, rate emulation and pFabric mode
 * are not built yet.
 */

#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/skbuff.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>
#include <net/ndp_wire.h>
#include <net/ndp_compat.h>

static int ndp_qdisc_enqueue(struct sk_buff *skb, struct Qdisc *sch,
			     struct sk_buff **to_free)
{
	if (likely(sch->q.qlen < READ_ONCE(sch->limit)))
		return qdisc_enqueue_tail(skb, sch);
	return qdisc_drop(skb, sch, to_free);
}

static int ndp_qdisc_init(struct Qdisc *sch, struct nlattr *opt,
			  struct netlink_ext_ack *extack)
{
	if (opt) {
		NL_SET_ERR_MSG_MOD(extack, "sch_ndp takes no options yet");
		return -EOPNOTSUPP;
	}
	WRITE_ONCE(sch->limit, max_t(u32, qdisc_dev(sch)->tx_queue_len, 1));
	return 0;
}

static struct Qdisc_ops ndp_qdisc_ops __read_mostly = {
	.id		= "ndp",
	.priv_size	= 0,
	.enqueue	= ndp_qdisc_enqueue,
	.dequeue	= qdisc_dequeue_head,
	.peek		= qdisc_peek_head,
	.init		= ndp_qdisc_init,
	.reset		= qdisc_reset_queue,
	.owner		= THIS_MODULE,
};

static int __init ndp_qdisc_module_init(void)
{
	ndp_wire_build_bug_on();
	return register_qdisc(&ndp_qdisc_ops);
}

static void __exit ndp_qdisc_module_exit(void)
{
	unregister_qdisc(&ndp_qdisc_ops);
}

module_init(ndp_qdisc_module_init);
module_exit(ndp_qdisc_module_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("NDP switch port: trimming, header priority, pFabric");
MODULE_ALIAS_NET_SCH("ndp");
