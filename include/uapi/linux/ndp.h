/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * NDP: user API of the NDP transport (socket type, protocol number,
 * socket options) and of the sch_ndp qdisc (TCA_NDP_* attributes and
 * extended statistics).
 *
 * The wire format is not part of this header: see include/net/ndp_wire.h
 * and Documentation/networking/ndp-wire.rst.
 */
#ifndef _UAPI_LINUX_NDP_H
#define _UAPI_LINUX_NDP_H

#include <linux/types.h>

/*
 * SOCK_NDP: socket(AF_INET or AF_INET6, SOCK_NDP, 0) opens an NDP stream
 * socket.  Types 7..9 are unused by the kernel (SOCK_MAX is 11); 7 is the
 * first of them.  socket(AF_INET, SOCK_STREAM, IPPROTO_NDP) is equivalent.
 */
#define SOCK_NDP		7

/*
 * IPPROTO_NDP: 253 is one of the two IP protocol numbers RFC 3692 and
 * RFC 4727 reserve for experimentation, so it collides with no assigned
 * protocol.  A fabric that uses 253 for something else loads ndp.ko and
 * sch_ndp.ko with "ipproto=N" (both modules must agree); module autoload
 * by socket() only knows the default.
 */
#define IPPROTO_NDP		253

/* Socket options at level SOL_NDP (getsockopt/setsockopt). */
#define SOL_NDP			IPPROTO_NDP

#endif /* _UAPI_LINUX_NDP_H */
