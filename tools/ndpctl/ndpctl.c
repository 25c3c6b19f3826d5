// SPDX-License-Identifier: GPL-2.0
/*
 * ndpctl: configure and inspect NDP (paths, parameters, counters)
 * through the "ndp" generic netlink family, in the style of "ip mptcp";
 * sockets through sock_diag (inet_diag, as ss).  See
 * Documentation/man/ndpctl.8.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/ndp.h>
#include <linux/sock_diag.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif

static struct mnl_socket *nl;
static uint16_t family_id;
static uint32_t events_grp;
static unsigned int seq;
static bool quiet;	/* the caller reports errors itself */

static void usage(void)
{
	fprintf(stderr,
		"Usage: ndpctl path add id ID dst PREFIX[/LEN] [via ADDR] [src ADDR] [fwmark MARK]\n"
		"       ndpctl path del id ID\n"
		"       ndpctl path show [id ID]\n"
		"       ndpctl param show [NAME]\n"
		"       ndpctl param set NAME VALUE\n"
		"       ndpctl stats\n"
		"       ndpctl sockets\n"
		"       ndpctl monitor\n");
	exit(2);
}

static void die(const char *what)
{
	fprintf(stderr, "ndpctl: %s\n", what);
	exit(1);
}

/* ---------------------------------------------------------------------- */
/* Request/response with extack.                                          */

typedef int (*ndpctl_cb)(const struct nlmsghdr *nlh, void *data);

/* Names of the top-level attributes, for "missing attribute" errors. */
static const char * const ndpctl_attr_names[NDP_A_MAX + 1] = {
	[NDP_A_PATH_ID] = "path id",
	[NDP_A_PATH_DST] = "path dst",
	[NDP_A_PARAM_NAME] = "parameter name",
	[NDP_A_PARAM_VALUE] = "parameter value",
};

/*
 * Print the kernel's error with its extack message, or the missing
 * attribute it names (GENL_REQ_ATTR_CHECK() sets no message).
 */
static int ndpctl_report_error(const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	char missing[64] = "";
	const char *msg = NULL;
	const struct nlattr *a;
	size_t off;

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*e)))
		return -EBADMSG;
	if (!e->error || quiet)
		return e->error;
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS) {
		off = sizeof(*e);
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
			off += e->msg.nlmsg_len - sizeof(e->msg);
		mnl_attr_for_each(a, nlh, off) {
			if (mnl_attr_get_type(a) == NLMSGERR_ATTR_MSG &&
			    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
				msg = mnl_attr_get_str(a);
			if (mnl_attr_get_type(a) == NLMSGERR_ATTR_MISS_TYPE &&
			    mnl_attr_validate(a, MNL_TYPE_U32) == 0) {
				uint32_t t = mnl_attr_get_u32(a);

				if (t < ARRAY_SIZE(ndpctl_attr_names) &&
				    ndpctl_attr_names[t])
					snprintf(missing, sizeof(missing),
						 "missing attribute: %s",
						 ndpctl_attr_names[t]);
				else
					snprintf(missing, sizeof(missing),
						 "missing attribute %u", t);
			}
		}
	}
	if (!msg && missing[0])
		msg = missing;
	if (msg)
		fprintf(stderr, "Error: %s (%s)\n", msg, strerror(-e->error));
	else
		fprintf(stderr, "Error: %s\n", strerror(-e->error));
	return e->error;
}

/*
 * Send @nlh and process replies until the final ACK/DONE.  Returns 0 or
 * the negative errno the kernel reported (already printed).
 */
static int ndpctl_talk(struct nlmsghdr *nlh, ndpctl_cb cb, void *data)
{
	static char buf[1 << 16];
	uint32_t portid = mnl_socket_get_portid(nl);
	struct nlmsghdr *m;
	int len, err;

	nlh->nlmsg_flags |= NLM_F_ACK;
	nlh->nlmsg_seq = ++seq;
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		die("sendto failed");
	for (;;) {
		len = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (len < 0)
			die("recvfrom failed");
		for (m = (struct nlmsghdr *)buf; mnl_nlmsg_ok(m, len);
		     m = mnl_nlmsg_next(m, &len)) {
			if (m->nlmsg_seq != seq || m->nlmsg_pid != portid)
				continue;
			if (m->nlmsg_type == NLMSG_ERROR)
				return ndpctl_report_error(m);
			if (m->nlmsg_type == NLMSG_DONE) {
				err = *(int *)mnl_nlmsg_get_payload(m);
				if (err < 0) {
					fprintf(stderr, "Error: %s\n",
						strerror(-err));
					return err;
				}
				return 0;	/* a dump ends here, no ACK */
			}
			if (cb && cb(m, data) < 0)
				return -EINVAL;
		}
	}
}

static struct nlmsghdr *ndpctl_msg(char *buf, uint16_t type, uint8_t cmd,
				   uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = NDP_GENL_VERSION;
	return nlh;
}

/* ---------------------------------------------------------------------- */
/* Family resolution.                                                     */

static int ndpctl_family_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *a, *g, *ga;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(a)) {
		case CTRL_ATTR_FAMILY_ID:
			family_id = mnl_attr_get_u16(a);
			break;
		case CTRL_ATTR_MCAST_GROUPS:
			mnl_attr_for_each_nested(g, a) {
				const char *name = NULL;
				uint32_t id = 0;

				mnl_attr_for_each_nested(ga, g) {
					if (mnl_attr_get_type(ga) == CTRL_ATTR_MCAST_GRP_NAME)
						name = mnl_attr_get_str(ga);
					else if (mnl_attr_get_type(ga) == CTRL_ATTR_MCAST_GRP_ID)
						id = mnl_attr_get_u32(ga);
				}
				if (name && !strcmp(name, NDP_GENL_MCGRP_EVENTS))
					events_grp = id;
			}
			break;
		}
	}
	return MNL_CB_OK;
}

static void ndpctl_open(void)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	int one = 1, err;

	nl = mnl_socket_open(NETLINK_GENERIC);
	if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0)
		die("cannot open a generic netlink socket");
	mnl_socket_setsockopt(nl, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl, NETLINK_CAP_ACK, &one, sizeof(one));

	nlh = ndpctl_msg(buf, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, NDP_GENL_NAME);
	quiet = true;
	err = ndpctl_talk(nlh, ndpctl_family_cb, NULL);
	quiet = false;
	if (err || !family_id)
		die("generic netlink family \"ndp\" not found (is ndp.ko loaded?)");
}

/* ---------------------------------------------------------------------- */
/* Printing helpers.                                                      */

static const char *ndpctl_addr(const struct nlattr *a, char *buf, size_t len)
{
	int af = mnl_attr_get_payload_len(a) == 4 ? AF_INET : AF_INET6;

	if (!inet_ntop(af, mnl_attr_get_payload(a), buf, len))
		return "?";
	return buf;
}

static void ndpctl_parse(const struct nlmsghdr *nlh, const struct nlattr **tb,
			 int max)
{
	const struct nlattr *a;

	memset(tb, 0, sizeof(*tb) * (max + 1));
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr))
		if (mnl_attr_get_type(a) <= max)
			tb[mnl_attr_get_type(a)] = a;
}

static int ndpctl_path_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);
	static const char * const score_names[] = {
		[NDP_A_SCORE_ACKS] = "acks", [NDP_A_SCORE_NACKS] = "nacks",
		[NDP_A_SCORE_RTOS] = "rtos", [NDP_A_SCORE_RTS] = "rts",
		[NDP_A_SCORE_EXCLUSIONS] = "exclusions",
		[NDP_A_SCORE_TX] = "tx", [NDP_A_SCORE_RTX] = "rtx",
		[NDP_A_SCORE_CES] = "ces",
	};
	const struct nlattr *tb[NDP_A_MAX + 1], *s;
	char b[INET6_ADDRSTRLEN];

	ndpctl_parse(nlh, tb, NDP_A_MAX);
	if (data) {	/* monitor */
		switch (g->cmd) {
		case NDP_CMD_PATH_ADD:
			printf("[ADDED] ");
			break;
		case NDP_CMD_PATH_DEL:
			printf("[DELETED] ");
			break;
		case NDP_CMD_PATH_CHANGED:
			printf("[%s] ", tb[NDP_A_PATH_STATE] &&
			       mnl_attr_get_u8(tb[NDP_A_PATH_STATE]) ==
			       NDP_PATH_STATE_EXCLUDED ? "EXCLUDED" : "RESTORED");
			break;
		default:
			printf("[CMD %u] ", g->cmd);
		}
	}
	if (tb[NDP_A_PATH_ID])
		printf("id %u", mnl_attr_get_u32(tb[NDP_A_PATH_ID]));
	if (tb[NDP_A_PATH_DST])
		printf(" dst %s/%u", ndpctl_addr(tb[NDP_A_PATH_DST], b, sizeof(b)),
		       tb[NDP_A_PATH_DST_PLEN] ?
		       mnl_attr_get_u8(tb[NDP_A_PATH_DST_PLEN]) : 0);
	if (tb[NDP_A_PATH_VIA_DST])
		printf(" via %s", ndpctl_addr(tb[NDP_A_PATH_VIA_DST], b, sizeof(b)));
	if (tb[NDP_A_PATH_VIA_SRC])
		printf(" src %s", ndpctl_addr(tb[NDP_A_PATH_VIA_SRC], b, sizeof(b)));
	if (tb[NDP_A_PATH_FWMARK])
		printf(" fwmark 0x%x", mnl_attr_get_u32(tb[NDP_A_PATH_FWMARK]));
	if (tb[NDP_A_PATH_STATE])
		printf(" state %s", mnl_attr_get_u8(tb[NDP_A_PATH_STATE]) ==
		       NDP_PATH_STATE_EXCLUDED ? "excluded" : "usable");
	if (tb[NDP_A_PATH_SCORE]) {
		mnl_attr_for_each_nested(s, tb[NDP_A_PATH_SCORE]) {
			unsigned int t = mnl_attr_get_type(s);

			if (t < ARRAY_SIZE(score_names) &&
			    score_names[t])
				printf(" %s %u", score_names[t], mnl_attr_get_u32(s));
		}
	}
	printf("\n");
	fflush(stdout);
	return MNL_CB_OK;
}

/* ---------------------------------------------------------------------- */
/* Commands.                                                              */

static unsigned long ndpctl_num(const char *s, unsigned long max,
				const char *what)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end || end == s || v > max || *s == '-') {
		fprintf(stderr, "ndpctl: invalid %s \"%s\"\n", what, s);
		exit(2);
	}
	return v;
}

/* Address to 4 or 16 bytes; returns the length. */
static int ndpctl_inet(const char *s, unsigned char *out, const char *what)
{
	if (inet_pton(AF_INET, s, out) == 1)
		return 4;
	if (inet_pton(AF_INET6, s, out) == 1)
		return 16;
	fprintf(stderr, "ndpctl: invalid %s address \"%s\"\n", what, s);
	exit(2);
}

static int ndpctl_path(int argc, char **argv)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	unsigned char a[16];
	uint8_t cmd;
	int i, len;

	if (argc < 1)
		usage();
	if (!strcmp(argv[0], "add"))
		cmd = NDP_CMD_PATH_ADD;
	else if (!strcmp(argv[0], "del") || !strcmp(argv[0], "delete"))
		cmd = NDP_CMD_PATH_DEL;
	else if (!strcmp(argv[0], "show") || !strcmp(argv[0], "list"))
		cmd = NDP_CMD_PATH_GET;
	else
		usage();

	nlh = ndpctl_msg(buf, family_id, cmd, 0);
	for (i = 1; i < argc; i += 2) {
		const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v)
			usage();
		if (!strcmp(k, "id")) {
			mnl_attr_put_u32(nlh, NDP_A_PATH_ID,
					 ndpctl_num(v, UINT32_MAX, "id"));
		} else if (cmd == NDP_CMD_PATH_ADD && !strcmp(k, "dst")) {
			char tmp[INET6_ADDRSTRLEN + 8], *slash;

			snprintf(tmp, sizeof(tmp), "%s", v);
			slash = strchr(tmp, '/');
			if (slash)
				*slash++ = 0;
			len = ndpctl_inet(tmp, a, "dst");
			mnl_attr_put(nlh, NDP_A_PATH_DST, len, a);
			if (slash)
				mnl_attr_put_u8(nlh, NDP_A_PATH_DST_PLEN,
						ndpctl_num(slash, 255, "prefix length"));
		} else if (cmd == NDP_CMD_PATH_ADD && !strcmp(k, "via")) {
			len = ndpctl_inet(v, a, "via");
			mnl_attr_put(nlh, NDP_A_PATH_VIA_DST, len, a);
		} else if (cmd == NDP_CMD_PATH_ADD && !strcmp(k, "src")) {
			len = ndpctl_inet(v, a, "src");
			mnl_attr_put(nlh, NDP_A_PATH_VIA_SRC, len, a);
		} else if (cmd == NDP_CMD_PATH_ADD && !strcmp(k, "fwmark")) {
			mnl_attr_put_u32(nlh, NDP_A_PATH_FWMARK,
					 ndpctl_num(v, UINT32_MAX, "fwmark"));
		} else {
			usage();
		}
	}
	if (cmd == NDP_CMD_PATH_GET && argc == 1)
		nlh->nlmsg_flags |= NLM_F_DUMP;
	return ndpctl_talk(nlh, cmd == NDP_CMD_PATH_GET ? ndpctl_path_cb : NULL,
			   NULL);
}

static int ndpctl_param_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[NDP_A_MAX + 1];

	ndpctl_parse(nlh, tb, NDP_A_MAX);
	if (!tb[NDP_A_PARAM_NAME] || !tb[NDP_A_PARAM_VALUE])
		return MNL_CB_OK;
	printf("%s %u", mnl_attr_get_str(tb[NDP_A_PARAM_NAME]),
	       mnl_attr_get_u32(tb[NDP_A_PARAM_VALUE]));
	if (tb[NDP_A_PARAM_MIN] && tb[NDP_A_PARAM_MAX])
		printf(" range [%u, %u]", mnl_attr_get_u32(tb[NDP_A_PARAM_MIN]),
		       mnl_attr_get_u32(tb[NDP_A_PARAM_MAX]));
	printf("\n");
	return MNL_CB_OK;
}

static int ndpctl_param(int argc, char **argv)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;

	if (argc >= 1 && !strcmp(argv[0], "show") && argc <= 2) {
		nlh = ndpctl_msg(buf, family_id, NDP_CMD_PARAM_GET,
				 argc == 1 ? NLM_F_DUMP : 0);
		if (argc == 2)
			mnl_attr_put_strz(nlh, NDP_A_PARAM_NAME, argv[1]);
		return ndpctl_talk(nlh, ndpctl_param_cb, NULL);
	}
	if (argc == 3 && !strcmp(argv[0], "set")) {
		nlh = ndpctl_msg(buf, family_id, NDP_CMD_PARAM_SET, 0);
		mnl_attr_put_strz(nlh, NDP_A_PARAM_NAME, argv[1]);
		mnl_attr_put_u32(nlh, NDP_A_PARAM_VALUE,
				 ndpctl_num(argv[2], UINT32_MAX, "value"));
		return ndpctl_talk(nlh, NULL, NULL);
	}
	usage();
	return 0;
}

static int ndpctl_stats_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *a, *c;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		const char *name = NULL;
		uint64_t val = 0;

		if (mnl_attr_get_type(a) != NDP_A_COUNTER)
			continue;
		mnl_attr_for_each_nested(c, a) {
			if (mnl_attr_get_type(c) == NDP_A_COUNTER_NAME)
				name = mnl_attr_get_str(c);
			else if (mnl_attr_get_type(c) == NDP_A_COUNTER_VALUE)
				val = mnl_attr_get_u64(c);
		}
		if (name)
			printf("%s %" PRIu64 "\n", name, val);
	}
	return MNL_CB_OK;
}

static const char *ndpctl_state(unsigned int s)
{
	/* TCP numbering (include/net/tcp_states.h). */
	switch (s) {
	case 1: return "ESTAB";
	case 6: return "TIME-WAIT";
	case 7: return "CLOSE";
	case 10: return "LISTEN";
	default: return "OTHER";
	}
}

/*
 * One NDP socket of a sock_diag dump: the same line the private netlink
 * dump used to give.  sndq: payload bytes not yet acknowledged (SIOCOUTQ),
 * rcvq: bytes waiting to be read (SIOCINQ); for a listener, the accept
 * queue and its limit, as ss shows them.  The nonce is 0 without
 * CAP_NET_ADMIN.  una and nxt: the oldest unacknowledged psn and the psn
 * of the next packet queued (0 for a listener).  A time-wait record (not
 * a socket: no queues, nonce or inode) shows the milliseconds it has
 * left instead.
 */
static int ndpctl_sock_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct inet_diag_msg *r = mnl_nlmsg_get_payload(nlh);
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];
	const struct nlattr *a;
	struct ndp_info info;
	bool v6;

	if (nlh->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(*r))
		return MNL_CB_OK;
	memset(&info, 0, sizeof(info));
	mnl_attr_for_each(a, nlh, sizeof(*r)) {
		if (mnl_attr_get_type(a) == INET_DIAG_INFO) {
			size_t len = mnl_attr_get_payload_len(a);

			memcpy(&info, mnl_attr_get_payload(a),
			       len < sizeof(info) ? len : sizeof(info));
		}
	}
	v6 = r->idiag_family == AF_INET6;
	if (!inet_ntop(r->idiag_family, r->id.idiag_src, s, sizeof(s)) ||
	    !inet_ntop(r->idiag_family, r->id.idiag_dst, d, sizeof(d)))
		return MNL_CB_OK;
	if (r->idiag_state == 6) {
		printf("TIME-WAIT %s%s%s:%u %s%s%s:%u expires %ums\n",
		       v6 ? "[" : "", s, v6 ? "]" : "", ntohs(r->id.idiag_sport),
		       v6 ? "[" : "", d, v6 ? "]" : "", ntohs(r->id.idiag_dport),
		       r->idiag_expires);
		return MNL_CB_OK;
	}
	printf("%-6s %s%s%s:%u %s%s%s:%u nonce 0x%08x sndq %u rcvq %u ino %u una %u nxt %u\n",
	       ndpctl_state(r->idiag_state),
	       v6 ? "[" : "", s, v6 ? "]" : "", ntohs(r->id.idiag_sport),
	       v6 ? "[" : "", d, v6 ? "]" : "", ntohs(r->id.idiag_dport),
	       info.ndpi_nonce, r->idiag_wqueue, r->idiag_rqueue,
	       r->idiag_inode, info.ndpi_snd_una, info.ndpi_snd_nxt);
	return MNL_CB_OK;
}

/* Dump the NDP sockets of one family through sock_diag. */
static int ndpctl_sockets_family(struct mnl_socket *diag, uint8_t family)
{
	static char buf[1 << 16];
	uint32_t portid = mnl_socket_get_portid(diag);
	struct inet_diag_req_v2 *req;
	struct nlmsghdr *nlh, *m;
	int len;

	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = SOCK_DIAG_BY_FAMILY;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = ++seq;
	req = mnl_nlmsg_put_extra_header(nlh, sizeof(*req));
	req->sdiag_family = family;
	req->sdiag_protocol = IPPROTO_NDP;
	req->idiag_states = ~0U;
	req->idiag_ext = 1 << (INET_DIAG_INFO - 1);
	if (mnl_socket_sendto(diag, nlh, nlh->nlmsg_len) < 0)
		die("sock_diag: sendto failed");
	for (;;) {
		len = mnl_socket_recvfrom(diag, buf, sizeof(buf));
		if (len < 0)
			die("sock_diag: recvfrom failed");
		for (m = (struct nlmsghdr *)buf; mnl_nlmsg_ok(m, len);
		     m = mnl_nlmsg_next(m, &len)) {
			if (m->nlmsg_seq != seq || m->nlmsg_pid != portid)
				continue;
			if (m->nlmsg_type == NLMSG_DONE)
				return 0;
			if (m->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = mnl_nlmsg_get_payload(m);

				fprintf(stderr, "Error: sock_diag: %s%s\n",
					strerror(-e->error),
					e->error == -ENOENT ?
					" (no NDP sock_diag handler: ndp_diag.ko)" : "");
				return e->error;
			}
			ndpctl_sock_cb(m, NULL);
		}
	}
}

static int ndpctl_sockets(void)
{
	struct mnl_socket *diag;
	int err;

	diag = mnl_socket_open(NETLINK_SOCK_DIAG);
	if (!diag || mnl_socket_bind(diag, 0, MNL_SOCKET_AUTOPID) < 0)
		die("cannot open a sock_diag netlink socket");
	err = ndpctl_sockets_family(diag, AF_INET);
	if (!err)
		err = ndpctl_sockets_family(diag, AF_INET6);
	mnl_socket_close(diag);
	return err;
}

static int ndpctl_monitor(void)
{
	static char buf[1 << 16];
	struct nlmsghdr *m;
	int len, grp;

	if (!events_grp)
		die("the kernel has no \"events\" group");
	grp = events_grp;
	if (mnl_socket_setsockopt(nl, NETLINK_ADD_MEMBERSHIP, &grp,
				  sizeof(grp)) < 0)
		die("cannot join the \"events\" group");
	printf("monitoring NDP path events\n");
	fflush(stdout);
	for (;;) {
		len = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (len < 0)
			die("recvfrom failed");
		for (m = (struct nlmsghdr *)buf; mnl_nlmsg_ok(m, len);
		     m = mnl_nlmsg_next(m, &len))
			if (m->nlmsg_type == family_id)
				ndpctl_path_cb(m, (void *)1);
	}
	return 0;
}

int main(int argc, char **argv)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	int err;

	if (argc < 2 || !strcmp(argv[1], "help") || !strcmp(argv[1], "-h"))
		usage();
	ndpctl_open();
	if (!strcmp(argv[1], "path")) {
		err = ndpctl_path(argc - 2, argv + 2);
	} else if (!strcmp(argv[1], "param")) {
		err = ndpctl_param(argc - 2, argv + 2);
	} else if (!strcmp(argv[1], "stats") && argc == 2) {
		nlh = ndpctl_msg(buf, family_id, NDP_CMD_COUNTERS_GET, 0);
		err = ndpctl_talk(nlh, ndpctl_stats_cb, NULL);
	} else if (!strcmp(argv[1], "sockets") && argc == 2) {
		err = ndpctl_sockets();
	} else if (!strcmp(argv[1], "monitor") && argc == 2) {
		err = ndpctl_monitor();
	} else {
		usage();
	}
	mnl_socket_close(nl);
	return err ? 1 : 0;
}
