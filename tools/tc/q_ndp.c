// SPDX-License-Identifier: GPL-2.0
/*
 * q_ndp.c: iproute2 tc plugin for sch_ndp, the NDP switch-port qdisc.
 *
 * tc looks up "ndp" as TC_LIB_DIR/q_ndp.so and the symbol ndp_qdisc_util;
 * tc is linked with -export-dynamic, which makes its helpers visible to
 * plugins.  iproute2 does not install its internal headers: the Makefile
 * builds against the ones of Debian's iproute2 source package (fetched
 * by tools/install-deps), after checking that it is the release of the
 * installed tc, whose struct qdisc_util and helpers the plugin must match.
 */
#include <stdio.h>
#include <string.h>
#include <linux/ndp_sched.h>

#include "utils.h"
#include "tc_util.h"

/*
 * The iproute2 release of the headers, for tools/vm/ndp-vm to compare
 * with the tc it puts in the VM image.
 */
const char *const ndp_iproute2_version = "q_ndp built against iproute2-"
					 NDP_IPROUTE2_VERSION;

/* --- parsing ------------------------------------------------------------ */

#define NDP_MSG_MAX	1024

static void ndp_explain(void)
{
	fprintf(stderr,
		"Usage: ... ndp [ limit PACKETS ] [ hlimit PACKETS ] [ olimit PACKETS ]\n"
		"               [ wrr HEADERS ] [ rate RATE | rate unlimited ]\n"
		"               [ rts on|off ] [ mode ndp|pfabric ]\n"
		"               [ trim-prob PERCENT ] [ quantum BYTES ]\n"
		"               [ group ID ] [ hostport on|off ] [ detour on|off ]\n"
		"               [ opf-thresh PACKETS ] [ dcc-thresh DETOURS ]\n"
		"               [ deflect on|off ] [ deflect-thresh PACKETS ]\n"
		"               [ udp-port PORT ] [ trim-size BYTES ]\n"
		"               [ trim-dscp-host DSCP|keep ] [ trim-dscp-fabric DSCP|keep ]\n"
		"               [ ce-thresh PACKETS ]\n"
		" limit      data queue, packets (default 8)\n"
		" hlimit     header queue, packets (default 0: twice limit)\n"
		" olimit     queue of other (non-NDP) traffic, packets (default 1000)\n"
		" wrr        headers sent per data packet (default 10)\n"
		" rate       emulated link rate (default unlimited)\n"
		" rts        return headers to sender when the header queue is full (default on)\n"
		" mode       ndp: trimming FIFO; pfabric: priority buffer (default ndp)\n"
		" trim-prob  percent of overflows that trim the arrival, not the tail (default 50)\n"
		" quantum    DRR quantum between NDP and other traffic, bytes (default MTU)\n"
		" group      port group of this switch, 1..65535 (default 0: none)\n"
		" hostport   the port faces hosts: never a detour target (default off)\n"
		" detour     OPF detours of unscheduled packets to sibling ports (default off)\n"
		" opf-thresh data queue length that detours, packets (default 0: limit - 2)\n"
		" dcc-thresh detours a packet may take, 0..15 (default 2)\n"
		" deflect    Dart in-order deflection of short flows (default off)\n"
		" deflect-thresh data queue length that deflects, packets (default 0: 2/3 limit)\n"
		" udp-port   UDP destination port of NDP over UDP, 0..65535 (default 0: off)\n"
		" trim-size  IP length a trimmed packet keeps, 0 or 60..1500 bytes (default 0: headers)\n"
		" trim-dscp-host   DSCP 0..63 of packets this port trims when hostport is on (default keep)\n"
		" trim-dscp-fabric DSCP 0..63 of packets this port trims when hostport is off (default keep)\n"
		" ce-thresh  queue length that CE-marks ECT packets, packets (default 0: off)\n");
}

static int ndp_bad(const char *what, const char *arg)
{
	fprintf(stderr, "ndp: invalid %s \"%s\"\n", what, arg);
	ndp_explain();
	return -1;
}

/* PERCENT: an integer, optionally followed by '%'. */
static int ndp_get_percent(__u32 *val, const char *arg)
{
	char buf[16];
	size_t len = strlen(arg);

	if (!len || len >= sizeof(buf))
		return -1;
	memcpy(buf, arg, len + 1);
	if (buf[len - 1] == '%')
		buf[len - 1] = '\0';
	return get_u32(val, buf, 10);
}

static int ndp_parse_opt(struct qdisc_util *qu, int argc, char **argv,
			 struct nlmsghdr *n, const char *dev)
{
	struct rtattr *tail;
	__u64 rate;
	__u16 port;
	__u32 v;

	tail = addattr_nest(n, NDP_MSG_MAX, TCA_OPTIONS | NLA_F_NESTED);
	for (; argc > 0; argc--, argv++) {
		const char *opt = *argv;

		if (strcmp(opt, "help") == 0) {
			ndp_explain();
			return -1;
		}
		if (argc < 2) {
			fprintf(stderr, "ndp: option \"%s\" needs a value\n",
				opt);
			ndp_explain();
			return -1;
		}
		argc--;
		argv++;
		if (strcmp(opt, "limit") == 0 || strcmp(opt, "hlimit") == 0 ||
		    strcmp(opt, "olimit") == 0 || strcmp(opt, "wrr") == 0 ||
		    strcmp(opt, "quantum") == 0) {
			int type = opt[0] == 'l' ? TCA_NDP_LIMIT :
				   opt[0] == 'h' ? TCA_NDP_HLIMIT :
				   opt[0] == 'o' ? TCA_NDP_OLIMIT :
				   opt[0] == 'w' ? TCA_NDP_WRR :
						   TCA_NDP_QUANTUM;

			if (get_u32(&v, *argv, 0))
				return ndp_bad(opt, *argv);
			addattr32(n, NDP_MSG_MAX, type, v);
		} else if (strcmp(opt, "rate") == 0) {
			if (strcmp(*argv, "unlimited") == 0 ||
			    strcmp(*argv, "0") == 0)
				rate = 0;
			else if (get_rate64(&rate, *argv))
				return ndp_bad(opt, *argv);
			addattr_l(n, NDP_MSG_MAX, TCA_NDP_RATE, &rate,
				  sizeof(rate));
		} else if (strcmp(opt, "rts") == 0) {
			if (strcmp(*argv, "on") == 0)
				addattr8(n, NDP_MSG_MAX, TCA_NDP_RTS, 1);
			else if (strcmp(*argv, "off") == 0)
				addattr8(n, NDP_MSG_MAX, TCA_NDP_RTS, 0);
			else
				return ndp_bad("rts (on or off)", *argv);
		} else if (strcmp(opt, "mode") == 0) {
			if (strcmp(*argv, "ndp") == 0)
				addattr8(n, NDP_MSG_MAX, TCA_NDP_MODE,
					 TC_NDP_MODE_NDP);
			else if (strcmp(*argv, "pfabric") == 0)
				addattr8(n, NDP_MSG_MAX, TCA_NDP_MODE,
					 TC_NDP_MODE_PFABRIC);
			else
				return ndp_bad("mode (ndp or pfabric)", *argv);
		} else if (strcmp(opt, "group") == 0 ||
			   strcmp(opt, "opf-thresh") == 0 ||
			   strcmp(opt, "dcc-thresh") == 0 ||
			   strcmp(opt, "deflect-thresh") == 0) {
			int type = opt[0] == 'g' ? TCA_NDP_GROUP :
				   opt[0] == 'o' ? TCA_NDP_OPF_THRESH :
				   opt[1] == 'c' ? TCA_NDP_DCC_THRESH :
						   TCA_NDP_DEFLECT_THRESH;

			if (get_u32(&v, *argv, 0))
				return ndp_bad(opt, *argv);
			addattr32(n, NDP_MSG_MAX, type, v);
		} else if (strcmp(opt, "hostport") == 0 ||
			   strcmp(opt, "detour") == 0 ||
			   strcmp(opt, "deflect") == 0) {
			int type = opt[0] == 'h' ? TCA_NDP_HOSTPORT :
				   opt[2] == 't' ? TCA_NDP_DETOUR :
						   TCA_NDP_DEFLECT;

			if (strcmp(*argv, "on") == 0)
				addattr8(n, NDP_MSG_MAX, type, 1);
			else if (strcmp(*argv, "off") == 0)
				addattr8(n, NDP_MSG_MAX, type, 0);
			else
				return ndp_bad(opt, *argv);
		} else if (strcmp(opt, "udp-port") == 0) {
			if (get_u16(&port, *argv, 10))
				return ndp_bad("udp-port (0..65535, 0: off)",
					       *argv);
			addattr16(n, NDP_MSG_MAX, TCA_NDP_UDP_PORT, port);
		} else if (strcmp(opt, "trim-size") == 0 ||
			   strcmp(opt, "ce-thresh") == 0) {
			if (get_u32(&v, *argv, 0))
				return ndp_bad(opt, *argv);
			addattr32(n, NDP_MSG_MAX, opt[0] == 't' ?
				  TCA_NDP_TRIM_SIZE : TCA_NDP_CE_THRESH, v);
		} else if (strcmp(opt, "trim-dscp-host") == 0 ||
			   strcmp(opt, "trim-dscp-fabric") == 0) {
			__u8 dscp;

			/* Range checked by the kernel, which says which. */
			if (strcmp(*argv, "keep") == 0)
				dscp = TC_NDP_DSCP_KEEP;
			else if (get_u8(&dscp, *argv, 0))
				return ndp_bad(opt, *argv);
			addattr8(n, NDP_MSG_MAX, opt[10] == 'h' ?
				 TCA_NDP_TRIM_DSCP_HOST :
				 TCA_NDP_TRIM_DSCP_FABRIC, dscp);
		} else if (strcmp(opt, "trim-prob") == 0) {
			if (ndp_get_percent(&v, *argv))
				return ndp_bad("trim-prob (percent)", *argv);
			addattr32(n, NDP_MSG_MAX, TCA_NDP_TRIM_PROB, v);
		} else {
			fprintf(stderr, "ndp: unknown option \"%s\"\n", opt);
			ndp_explain();
			return -1;
		}
	}
	addattr_nest_end(n, tail);
	return 0;
}

/* --- printing ----------------------------------------------------------- */

static int ndp_print_opt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	struct rtattr *tb[TCA_NDP_MAX + 1];
	__u64 rate = 0;

	if (!opt)
		return 0;
	memset(tb, 0, sizeof(tb));
	parse_rtattr_flags(tb, TCA_NDP_MAX, RTA_DATA(opt), RTA_PAYLOAD(opt),
			   NLA_F_NESTED);

	if (tb[TCA_NDP_MODE] && RTA_PAYLOAD(tb[TCA_NDP_MODE]) >= 1)
		print_string(PRINT_ANY, "mode", "mode %s ",
			     rta_getattr_u8(tb[TCA_NDP_MODE]) ==
			     TC_NDP_MODE_PFABRIC ? "pfabric" : "ndp");
	if (tb[TCA_NDP_LIMIT] && RTA_PAYLOAD(tb[TCA_NDP_LIMIT]) >= 4)
		print_uint(PRINT_ANY, "limit", "limit %up ",
			   rta_getattr_u32(tb[TCA_NDP_LIMIT]));
	if (tb[TCA_NDP_HLIMIT] && RTA_PAYLOAD(tb[TCA_NDP_HLIMIT]) >= 4)
		print_uint(PRINT_ANY, "hlimit", "hlimit %up ",
			   rta_getattr_u32(tb[TCA_NDP_HLIMIT]));
	if (tb[TCA_NDP_OLIMIT] && RTA_PAYLOAD(tb[TCA_NDP_OLIMIT]) >= 4)
		print_uint(PRINT_ANY, "olimit", "olimit %up ",
			   rta_getattr_u32(tb[TCA_NDP_OLIMIT]));
	if (tb[TCA_NDP_WRR] && RTA_PAYLOAD(tb[TCA_NDP_WRR]) >= 4)
		print_uint(PRINT_ANY, "wrr", "wrr %u ",
			   rta_getattr_u32(tb[TCA_NDP_WRR]));
	if (tb[TCA_NDP_RATE] && RTA_PAYLOAD(tb[TCA_NDP_RATE]) >= 8) {
		memcpy(&rate, RTA_DATA(tb[TCA_NDP_RATE]), sizeof(rate));
		if (rate)
			tc_print_rate(PRINT_ANY, "rate", "rate %s ", rate);
		else
			print_string(PRINT_ANY, "rate", "rate %s ",
				     "unlimited");
	}
	if (tb[TCA_NDP_RTS] && RTA_PAYLOAD(tb[TCA_NDP_RTS]) >= 1)
		print_string(PRINT_ANY, "rts", "rts %s ",
			     rta_getattr_u8(tb[TCA_NDP_RTS]) ? "on" : "off");
	if (tb[TCA_NDP_TRIM_PROB] && RTA_PAYLOAD(tb[TCA_NDP_TRIM_PROB]) >= 4)
		print_uint(PRINT_ANY, "trim_prob", "trim-prob %u%% ",
			   rta_getattr_u32(tb[TCA_NDP_TRIM_PROB]));
	if (tb[TCA_NDP_QUANTUM] && RTA_PAYLOAD(tb[TCA_NDP_QUANTUM]) >= 4)
		print_uint(PRINT_ANY, "quantum", "quantum %u ",
			   rta_getattr_u32(tb[TCA_NDP_QUANTUM]));
	if (tb[TCA_NDP_IPPROTO] && RTA_PAYLOAD(tb[TCA_NDP_IPPROTO]) >= 1)
		print_uint(PRINT_ANY, "ipproto", "ipproto %u ",
			   rta_getattr_u8(tb[TCA_NDP_IPPROTO]));
	/* Shown when on (older kernels do not send it). */
	if (tb[TCA_NDP_UDP_PORT] && RTA_PAYLOAD(tb[TCA_NDP_UDP_PORT]) >= 2 &&
	    rta_getattr_u16(tb[TCA_NDP_UDP_PORT]))
		print_uint(PRINT_ANY, "udp_port", "udp-port %u ",
			   rta_getattr_u16(tb[TCA_NDP_UDP_PORT]));
	/* Trimming conventions: shown when not the default. */
	if (tb[TCA_NDP_TRIM_SIZE] && RTA_PAYLOAD(tb[TCA_NDP_TRIM_SIZE]) >= 4 &&
	    rta_getattr_u32(tb[TCA_NDP_TRIM_SIZE]))
		print_uint(PRINT_ANY, "trim_size", "trim-size %u ",
			   rta_getattr_u32(tb[TCA_NDP_TRIM_SIZE]));
	if (tb[TCA_NDP_TRIM_DSCP_HOST] &&
	    RTA_PAYLOAD(tb[TCA_NDP_TRIM_DSCP_HOST]) >= 1 &&
	    rta_getattr_u8(tb[TCA_NDP_TRIM_DSCP_HOST]) < TC_NDP_DSCP_KEEP)
		print_uint(PRINT_ANY, "trim_dscp_host", "trim-dscp-host %u ",
			   rta_getattr_u8(tb[TCA_NDP_TRIM_DSCP_HOST]));
	if (tb[TCA_NDP_TRIM_DSCP_FABRIC] &&
	    RTA_PAYLOAD(tb[TCA_NDP_TRIM_DSCP_FABRIC]) >= 1 &&
	    rta_getattr_u8(tb[TCA_NDP_TRIM_DSCP_FABRIC]) < TC_NDP_DSCP_KEEP)
		print_uint(PRINT_ANY, "trim_dscp_fabric", "trim-dscp-fabric %u ",
			   rta_getattr_u8(tb[TCA_NDP_TRIM_DSCP_FABRIC]));
	if (tb[TCA_NDP_CE_THRESH] && RTA_PAYLOAD(tb[TCA_NDP_CE_THRESH]) >= 4 &&
	    rta_getattr_u32(tb[TCA_NDP_CE_THRESH]))
		print_uint(PRINT_ANY, "ce_thresh", "ce-thresh %up ",
			   rta_getattr_u32(tb[TCA_NDP_CE_THRESH]));
	if (tb[TCA_NDP_GROUP] && RTA_PAYLOAD(tb[TCA_NDP_GROUP]) >= 4 &&
	    rta_getattr_u32(tb[TCA_NDP_GROUP])) {
		print_uint(PRINT_ANY, "group", "group %u ",
			   rta_getattr_u32(tb[TCA_NDP_GROUP]));
		if (tb[TCA_NDP_HOSTPORT] &&
		    RTA_PAYLOAD(tb[TCA_NDP_HOSTPORT]) >= 1)
			print_string(PRINT_ANY, "hostport", "hostport %s ",
				     rta_getattr_u8(tb[TCA_NDP_HOSTPORT]) ? "on" : "off");
		if (tb[TCA_NDP_DETOUR] && RTA_PAYLOAD(tb[TCA_NDP_DETOUR]) >= 1)
			print_string(PRINT_ANY, "detour", "detour %s ",
				     rta_getattr_u8(tb[TCA_NDP_DETOUR]) ? "on" : "off");
		if (tb[TCA_NDP_OPF_THRESH] &&
		    RTA_PAYLOAD(tb[TCA_NDP_OPF_THRESH]) >= 4)
			print_uint(PRINT_ANY, "opf_thresh", "opf-thresh %up ",
				   rta_getattr_u32(tb[TCA_NDP_OPF_THRESH]));
		if (tb[TCA_NDP_DCC_THRESH] &&
		    RTA_PAYLOAD(tb[TCA_NDP_DCC_THRESH]) >= 4)
			print_uint(PRINT_ANY, "dcc_thresh", "dcc-thresh %u ",
				   rta_getattr_u32(tb[TCA_NDP_DCC_THRESH]));
		if (tb[TCA_NDP_DEFLECT] && RTA_PAYLOAD(tb[TCA_NDP_DEFLECT]) >= 1)
			print_string(PRINT_ANY, "deflect", "deflect %s ",
				     rta_getattr_u8(tb[TCA_NDP_DEFLECT]) ? "on" : "off");
		if (tb[TCA_NDP_DEFLECT_THRESH] &&
		    RTA_PAYLOAD(tb[TCA_NDP_DEFLECT_THRESH]) >= 4)
			print_uint(PRINT_ANY, "deflect_thresh",
				   "deflect-thresh %up ",
				   rta_getattr_u32(tb[TCA_NDP_DEFLECT_THRESH]));
	} else if (tb[TCA_NDP_HOSTPORT] &&
		   RTA_PAYLOAD(tb[TCA_NDP_HOSTPORT]) >= 1 &&
		   rta_getattr_u8(tb[TCA_NDP_HOSTPORT])) {
		/* Without a group it picks trim-dscp-host: shown when on. */
		print_string(PRINT_ANY, "hostport", "hostport %s ", "on");
	}
	return 0;
}

static int ndp_print_xstats(struct qdisc_util *qu, FILE *f,
			    struct rtattr *xstats)
{
	struct tc_ndp_xstats st;
	size_t len;

	if (!xstats)
		return 0;
	/* Newer kernels may append fields; older ones give fewer: zero. */
	memset(&st, 0, sizeof(st));
	len = RTA_PAYLOAD(xstats);
	if (len > sizeof(st))
		len = sizeof(st);
	memcpy(&st, RTA_DATA(xstats), len);

	print_u64(PRINT_ANY, "trim_arrival", "  trimmed arrival %llu",
		  st.trim_arrival);
	print_u64(PRINT_ANY, "trim_tail", " tail %llu", st.trim_tail);
	print_u64(PRINT_ANY, "trim_fail", " failed %llu", st.trim_fail);
	print_u64(PRINT_ANY, "pfabric_evict", " pfabric_evict %llu",
		  st.pfabric_evict);
	print_u64(PRINT_ANY, "rts", "\n  rts %llu", st.rts);
	print_u64(PRINT_ANY, "hdr_drops", " hdr_drops %llu", st.hdr_drops);
	print_u64(PRINT_ANY, "data_drops", " data_drops %llu", st.data_drops);
	print_u64(PRINT_ANY, "other_drops", " other_drops %llu",
		  st.other_drops);
	print_u64(PRINT_ANY, "throttled", " throttled %llu", st.throttled);
	print_uint(PRINT_ANY, "hdr_qlen", "\n  hdr: qlen %u", st.hdr_qlen);
	print_uint(PRINT_ANY, "hdr_backlog", " backlog %ub", st.hdr_backlog);
	print_u64(PRINT_ANY, "hdr_pkts", " sent %llu pkts", st.hdr_pkts);
	print_u64(PRINT_ANY, "hdr_bytes", " %llu bytes", st.hdr_bytes);
	print_uint(PRINT_ANY, "data_qlen", "\n  data: qlen %u", st.data_qlen);
	print_uint(PRINT_ANY, "data_backlog", " backlog %ub", st.data_backlog);
	print_u64(PRINT_ANY, "data_pkts", " sent %llu pkts", st.data_pkts);
	print_u64(PRINT_ANY, "data_bytes", " %llu bytes", st.data_bytes);
	print_uint(PRINT_ANY, "other_qlen", "\n  other: qlen %u",
		   st.other_qlen);
	print_uint(PRINT_ANY, "other_backlog", " backlog %ub",
		   st.other_backlog);
	print_u64(PRINT_ANY, "other_pkts", " sent %llu pkts", st.other_pkts);
	print_u64(PRINT_ANY, "other_bytes", " %llu bytes", st.other_bytes);
	print_u64(PRINT_ANY, "detour_out", "\n  detour: out %llu",
		  st.detour_out);
	print_u64(PRINT_ANY, "detour_nosib", " no_sibling %llu",
		  st.detour_nosib);
	print_u64(PRINT_ANY, "detour_fail", " failed %llu", st.detour_fail);
	print_u64(PRINT_ANY, "detour_in", " in %llu", st.detour_in);
	print_u64(PRINT_ANY, "deflect_out", "\n  deflect: out %llu",
		  st.deflect_out);
	print_u64(PRINT_ANY, "deflect_new", " new %llu", st.deflect_new);
	print_u64(PRINT_ANY, "deflect_free", " freed %llu", st.deflect_free);
	print_u64(PRINT_ANY, "deflect_full", " full %llu", st.deflect_full);
	print_u64(PRINT_ANY, "gso_split", "\n  gso: split %llu", st.gso_split);
	print_u64(PRINT_ANY, "gso_segs", " segments %llu", st.gso_segs);
	print_u64(PRINT_ANY, "encap", "\n  encap: %llu", st.encap);
	print_u64(PRINT_ANY, "trim_remark", "\n  trim: remarked %llu",
		  st.trim_remark);
	print_u64(PRINT_ANY, "ce_mark", " ce_marked %llu", st.ce_mark);
	return 0;
}

struct qdisc_util ndp_qdisc_util = {
	.id		= "ndp",
	.parse_qopt	= ndp_parse_opt,
	.print_qopt	= ndp_print_opt,
	.print_xstats	= ndp_print_xstats,
};
