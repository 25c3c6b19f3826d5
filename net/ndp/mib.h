/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NDP: per-netns event counters (MIB), exported by /proc/net/ndp_stat.
 *
 * Adding a counter: append it to enum ndp_mib_field, name it in
 * ndp_mib_names[] (mib.c) and document it in Documentation/networking/ndp.rst.
 */
#ifndef _NDP_MIB_H
#define _NDP_MIB_H

#include <linux/percpu.h>
#include <net/snmp.h>

enum ndp_mib_field {
	NDP_MIB_NUM = 0,
	NDP_MIB_INPKTS,		/* packets handed to ndp by IP */
	NDP_MIB_INERRS,		/* dropped: malformed, bad checksum */
	NDP_MIB_INCSUMERRS,	/* of which: header or payload checksum */
	NDP_MIB_NOSOCK,		/* no socket for a packet */
	NDP_MIB_OUTRSTS,	/* RST control replies sent */
	NDP_MIB_MAX
};

struct ndp_mib {
	unsigned long mibs[NDP_MIB_MAX];
};

#endif /* _NDP_MIB_H */
