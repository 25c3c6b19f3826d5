// SPDX-License-Identifier: GPL-2.0
/*
 * ndp_diag: helper of diag.sh (NDP_INFO, SIOCINQ/SIOCOUTQ, sock_diag).
 *
 *   ndp_diag xfer 4|6|m BYTES
 *	one connection over loopback (m: IPv6 sockets, the listener on [::]
 *	and the client connected to ::ffff:127.0.0.1, an IPv4 connection):
 *	the client writes BYTES, the server does not read until the checks
 *	of SIOCINQ/SIOCOUTQ and of the NDP_INFO length negotiation are
 *	done; then it reads and checks the bytes, and prints key=value
 *	lines: the checks' results, every
 *	ndp_info field of both ends ("client.<field>", "server.<field>")
 *	and /proc/net/ndp_stat ("stat.<Name>"), read while the connection
 *	is quiet so that counters of both can be compared, and the ports
 *	("server_port", "client_port"); then closes both ends.
 *
 *   ndp_diag xfer 4|6 BYTES ADDR NETNS
 *	the same transfer from a client in network namespace NETNS (a
 *	path such as /run/netns/NAME) to a listener on ADDR in the current
 *	one, read at once (no queue checks); the client's namespace's
 *	counters are printed as "cstat.<Name>".
 *
 *   ndp_diag hold 4|6|m PORT BYTES
 *	a listener on PORT, a client connected to it that wrote BYTES the
 *	server has not read, all acknowledged; prints "ready CLIENTPORT",
 *	then waits (up to 120 s) for the client to see an error (the
 *	server end destroyed with ss -K) and prints "client_err=NAME" and,
 *	after reading what it held, "server_err=NAME"; then keeps the
 *	listener open (up to 120 s, or until killed).
 *
 *   ndp_diag get 4|6 SRC SPORT DST DPORT [COOKIE]
 *	one exact sock_diag request (SOCK_DIAG_BY_FAMILY without NLM_F_DUMP,
 *	the kernel's dump_one) for the NDP socket of that local and remote
 *	address and port, with the cookie COOKIE (hex, as ss -e prints it)
 *	or none; prints "found state=N ino=N cookie=HEX" for the socket the
 *	reply describes, or "err=NAME" for the kernel's error.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <poll.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/inet_diag.h>
#include <linux/ndp.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/sockios.h>

#include "ndp_util.h"

/* "m" on the command line: IPv6 sockets, an IPv4 connection. */
#define FAM_MAPPED	46

static socklen_t fill_addr(struct sockaddr_storage *ss, int fam, int port)
{
	struct sockaddr_in6 *a6;

	memset(ss, 0, sizeof(*ss));
	if (fam == 4) {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		a->sin_family = AF_INET;
		a->sin_port = htons(port);
		a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		return sizeof(*a);
	}
	a6 = (struct sockaddr_in6 *)ss;
	a6->sin6_family = AF_INET6;
	a6->sin6_port = htons(port);
	a6->sin6_addr = in6addr_loopback;
	if (fam == FAM_MAPPED)
		inet_pton(AF_INET6, "::ffff:127.0.0.1", &a6->sin6_addr);
	return sizeof(*a6);
}

/* The address inside @ss, of family @af. */
static void *addr_of(struct sockaddr_storage *ss, int af)
{
	if (af == AF_INET)
		return &((struct sockaddr_in *)ss)->sin_addr;
	return &((struct sockaddr_in6 *)ss)->sin6_addr;
}

static int get_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len))
		ndp_die_errno("getsockname");
	if (ss.ss_family == AF_INET)
		return ntohs(((struct sockaddr_in *)&ss)->sin_port);
	return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
}

/* The client writes from a thread: the server may have to read first. */
static pthread_t sender;
static int send_fd, send_len;

static void *send_all(void *arg)
{
	char *buf = malloc(send_len);
	int off;

	if (!buf)
		ndp_die_errno("malloc");
	for (off = 0; off < send_len; off++)
		buf[off] = (char)(off * 7 + 1);
	for (off = 0; off < send_len;) {
		ssize_t n = send(send_fd, buf + off, send_len - off, 0);

		if (n <= 0)
			ndp_die_errno("send");
		off += n;
	}
	free(buf);
	return NULL;
}

/* Client end of the remote mode: its namespace and that one's counters. */
static const char *remote_addr, *remote_ns;
static int cstat_fd = -1;

/*
 * Listener, client connected to it with @bytes written, server end.
 * Loopback, or (remote mode) a client socket made in another namespace.
 */
static void setup(int fam, int port, int bytes, int *lfd, int *cfd, int *sfd)
{
	int af = fam == 4 ? AF_INET : AF_INET6;
	struct sockaddr_storage ss;
	int here, there;
	socklen_t len;

	*lfd = socket(af, SOCK_NDP, 0);
	if (*lfd < 0)
		ndp_die_errno("socket");
	len = fill_addr(&ss, fam, port);
	if (remote_addr || fam == FAM_MAPPED)	/* the wildcard address */
		memset(addr_of(&ss, af), 0, af == AF_INET ? 4 : 16);
	if (bind(*lfd, (struct sockaddr *)&ss, len) || listen(*lfd, 8))
		ndp_die_errno("bind/listen");
	len = fill_addr(&ss, fam, get_port(*lfd));
	if (remote_addr) {
		here = open("/proc/self/ns/net", O_RDONLY);
		there = open(remote_ns, O_RDONLY);
		if (here < 0 || there < 0 || setns(there, CLONE_NEWNET))
			ndp_die_errno("setns");
		*cfd = socket(af, SOCK_NDP, 0);
		cstat_fd = open("/proc/net/ndp_stat", O_RDONLY);
		if (setns(here, CLONE_NEWNET) || cstat_fd < 0)
			ndp_die_errno("setns back");
		close(here);
		close(there);
		if (inet_pton(af, remote_addr, addr_of(&ss, af)) != 1)
			ndp_die_errno("address");
	} else {
		*cfd = socket(af, SOCK_NDP, 0);
	}
	if (*cfd < 0)
		ndp_die_errno("socket");
	if (connect(*cfd, (struct sockaddr *)&ss, len))
		ndp_die_errno("connect");
	send_fd = *cfd;
	send_len = bytes;
	if (pthread_create(&sender, NULL, send_all, NULL))
		ndp_die_errno("pthread_create");
	*sfd = accept(*lfd, NULL, NULL);
	if (*sfd < 0)
		ndp_die_errno("accept");
}

static int ioctl_int(int fd, unsigned long req, int *val)
{
	*val = -1;
	return ioctl(fd, req, val) ? errno : 0;
}

/* Wait (up to 60 s) until @fd's ioctl @req reports @want. */
static int wait_ioctl(int fd, unsigned long req, int want)
{
	int i, val = -1;

	for (i = 0; i < 6000; i++) {
		if (ioctl_int(fd, req, &val) == 0 && val == want)
			return val;
		usleep(10000);
	}
	return val;
}

static int get_info(int fd, struct ndp_info *info)
{
	socklen_t len = sizeof(*info);

	memset(info, 0, sizeof(*info));
	if (getsockopt(fd, SOL_NDP, NDP_INFO, info, &len))
		ndp_die_errno("getsockopt NDP_INFO");
	return len;
}

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define F(x)	{ #x, offsetof(struct ndp_info, ndpi_##x), \
		  sizeof(((struct ndp_info *)0)->ndpi_##x) }
static const struct {
	const char *name;
	size_t off, size;
} fields[] = {
	F(version), F(state), F(flags), F(paths), F(mss), F(bytes_sent),
	F(bytes_received), F(nonce), F(rto_us), F(backoff), F(srtt_us),
	F(pull_gap_us), F(snd_una), F(snd_nxt), F(rcv_nxt), F(rcv_high),
	F(sndq_pkts), F(unsent_pkts), F(rtx_pending), F(ooo_pkts),
	F(sndq_bytes), F(rcvq_bytes), F(credit), F(pull_pending),
	F(data_sent), F(rtx_nack), F(rtx_timeout), F(rtx_rts), F(rtos),
	F(acks_rcvd), F(nacks_rcvd), F(rts_rcvd), F(pulls_rcvd),
	F(data_rcvd), F(trims_rcvd), F(nacks_sent), F(pulls_sent),
	F(push_window), F(peer_nsenders), F(nsenders), F(rttvar_us),
	F(min_rtt_us), F(rtt_samples), F(rto_backoff), F(rto_spurious),
	F(rtt_last_us),
};

static unsigned long long field(const struct ndp_info *info, int i)
{
	const char *p = (const char *)info + fields[i].off;

	switch (fields[i].size) {
	case 1: return *(const unsigned char *)p;
	case 2: return *(const unsigned short *)p;
	case 4: return *(const unsigned int *)p;
	default: return *(const unsigned long long *)p;
	}
}

static void print_info(const char *who, const struct ndp_info *info)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fields); i++)
		printf("%s.%s=%llu\n", who, fields[i].name, field(info, i));
}

/* /proc/net/ndp_stat of this namespace, or through @fd (opened elsewhere). */
static size_t read_stat(int fd, char *buf, size_t len)
{
	ssize_t n, got = 0;
	int own = fd < 0;

	if (own)
		fd = open("/proc/net/ndp_stat", O_RDONLY);
	if (fd < 0 || lseek(fd, 0, SEEK_SET))
		ndp_die_errno("/proc/net/ndp_stat");
	while ((n = read(fd, buf + got, len - 1 - got)) > 0)
		got += n;
	buf[got] = 0;
	if (own)
		close(fd);
	return got;
}

static void print_stat(const char *who, char *st)
{
	char *p, *line;

	for (line = strtok_r(st, "\n", &p); line;
	     line = strtok_r(NULL, "\n", &p)) {
		char *sp = strchr(line, ' ');

		if (sp) {
			*sp = 0;
			printf("%s.%s=%s\n", who, line, sp + 1);
		}
	}
}

/* NDP_INFO with @len: returned length, or -errno. */
static int info_len(int fd, int len, void *buf)
{
	socklen_t l = len;

	if (getsockopt(fd, SOL_NDP, NDP_INFO, buf, &l))
		return -errno;
	return l;
}

static int do_xfer(int fam, int bytes)
{
	static char st1[16384], st2[16384], ct1[16384], ct2[16384];
	struct ndp_info ci, si, ci2, si2, full;
	char big[sizeof(full) + 64];
	int lfd, cfd, sfd, v, got, i;

	setup(fam, 0, bytes, &lfd, &cfd, &sfd);
	if (remote_addr)
		goto read_all;

	/* Queues: nothing read yet, everything acknowledged. */
	printf("inq=%d\n", wait_ioctl(sfd, SIOCINQ, bytes));
	printf("fionread_err=%s\n", ndp_errname(ioctl_int(sfd, FIONREAD, &v)));
	printf("fionread=%d\n", v);
	printf("outq=%d\n", wait_ioctl(cfd, SIOCOUTQ, 0));
	printf("outqnsd_err=%s\n", ndp_errname(ioctl_int(cfd, SIOCOUTQNSD, &v)));
	printf("outqnsd=%d\n", v);
	printf("listen_inq_err=%s\n", ndp_errname(ioctl_int(lfd, SIOCINQ, &v)));
	printf("server_outq_err=%s\n", ndp_errname(ioctl_int(sfd, SIOCOUTQ, &v)));
	printf("server_outq=%d\n", v);

	/* Length negotiation, as TCP_INFO. */
	got = get_info(sfd, &full);
	printf("info_len=%d\n", got);
	printf("info_rcvq_bytes=%u\n", full.ndpi_rcvq_bytes);
	memset(big, 0xa5, sizeof(big));
	printf("short_len=%d\n", info_len(sfd, 8, big));
	printf("short_prefix_ok=%d\n", !memcmp(big, &full, 8) &&
	       (unsigned char)big[8] == 0xa5);
	printf("long_len=%d\n", info_len(sfd, sizeof(big), big));
	printf("zero_len=%d\n", info_len(sfd, 0, big));
	v = info_len(sfd, -1, big);
	printf("neg_err=%s\n", v < 0 ? ndp_errname(-v) : "0");
	v = info_len(sfd, sizeof(full), (void *)8);
	printf("fault_err=%s\n", v < 0 ? ndp_errname(-v) : "0");
	{
		socklen_t l = sizeof(big);

		v = getsockopt(sfd, SOL_NDP, 99, big, &l) ? errno : 0;
		printf("badopt_err=%s\n", ndp_errname(v));
	}
	got = get_info(lfd, &full);
	printf("listen_state=%u\n", full.ndpi_state);

read_all:
	/* Read and check everything; then wait for a quiet moment. */
	for (got = 0; got < bytes;) {
		char buf[4096];
		ssize_t n = recv(sfd, buf, sizeof(buf), 0);

		if (n <= 0)
			ndp_die_errno("recv");
		for (i = 0; i < n; i++)
			if (buf[i] != (char)((got + i) * 7 + 1))
				break;
		if (i < n) {
			printf("data_ok=0\n");
			return 1;
		}
		got += n;
	}
	printf("data_ok=1\n");
	pthread_join(sender, NULL);
	printf("inq_after=%d\n", wait_ioctl(sfd, SIOCINQ, 0));
	for (i = 0; i < 200; i++) {
		read_stat(-1, st1, sizeof(st1));
		if (cstat_fd >= 0)
			read_stat(cstat_fd, ct1, sizeof(ct1));
		get_info(cfd, &ci);
		get_info(sfd, &si);
		usleep(50000);
		get_info(cfd, &ci2);
		get_info(sfd, &si2);
		read_stat(-1, st2, sizeof(st2));
		if (cstat_fd >= 0)
			read_stat(cstat_fd, ct2, sizeof(ct2));
		if (!strcmp(st1, st2) && !memcmp(&ci, &ci2, sizeof(ci)) &&
		    !memcmp(&si, &si2, sizeof(si)) &&
		    (cstat_fd < 0 || !strcmp(ct1, ct2)))
			break;
	}
	printf("quiet=%d\n", i < 200);
	printf("server_port=%d\nclient_port=%d\n", get_port(lfd),
	       get_port(cfd));
	print_info("client", &ci);
	print_info("server", &si);
	print_stat("stat", st1);
	if (cstat_fd >= 0)
		print_stat("cstat", ct1);
	close(cfd);
	close(sfd);
	close(lfd);
	return 0;
}

static int do_hold(int fam, int port, int bytes)
{
	int lfd, cfd, sfd, e;
	struct pollfd pfd;
	socklen_t l = sizeof(e);
	char buf[4096];
	ssize_t n;

	setup(fam, port, bytes, &lfd, &cfd, &sfd);
	pthread_join(sender, NULL);
	wait_ioctl(sfd, SIOCINQ, bytes);
	wait_ioctl(cfd, SIOCOUTQ, 0);
	printf("ready %d\n", get_port(cfd));
	fflush(stdout);

	pfd.fd = cfd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 120000) <= 0) {
		printf("client_err=none\n");
		return 1;
	}
	n = recv(cfd, buf, sizeof(buf), MSG_DONTWAIT);
	printf("client_err=%s\n", n < 0 ? ndp_errname(errno) : "0");
	do {
		n = recv(sfd, buf, sizeof(buf), MSG_DONTWAIT);
	} while (n > 0);
	e = n < 0 ? errno : 0;
	if (!e && !getsockopt(sfd, SOL_SOCKET, SO_ERROR, &e, &l) && !e)
		e = 0;
	printf("server_err=%s\n", ndp_errname(e));
	fflush(stdout);
	/* The listener stays for the caller to look at, until killed. */
	pfd.fd = lfd;
	poll(&pfd, 1, 120000);
	close(cfd);
	close(sfd);
	close(lfd);
	return 0;
}

static int do_get(int argc, char **argv)
{
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 req;
	} msg = {
		.nlh.nlmsg_len = sizeof(msg),
		.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY,
		.nlh.nlmsg_flags = NLM_F_REQUEST,
		.nlh.nlmsg_seq = 1,
		.req.sdiag_protocol = IPPROTO_NDP,
		.req.idiag_states = ~0U,
		.req.id.idiag_cookie = { INET_DIAG_NOCOOKIE, INET_DIAG_NOCOOKIE },
	};
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };
	unsigned long long cookie;
	struct inet_diag_msg *r;
	struct nlmsghdr *h;
	char buf[8192];
	ssize_t n;
	int fd;

	msg.req.sdiag_family = atoi(argv[0]) == 4 ? AF_INET : AF_INET6;
	if (inet_pton(msg.req.sdiag_family, argv[1], msg.req.id.idiag_src) != 1 ||
	    inet_pton(msg.req.sdiag_family, argv[3], msg.req.id.idiag_dst) != 1)
		ndp_die("bad address");
	msg.req.id.idiag_sport = htons(atoi(argv[2]));
	msg.req.id.idiag_dport = htons(atoi(argv[4]));
	if (argc == 6) {
		cookie = strtoull(argv[5], NULL, 16);
		msg.req.id.idiag_cookie[0] = (__u32)cookie;
		msg.req.id.idiag_cookie[1] = (__u32)(cookie >> 32);
	}
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0)
		ndp_die_errno("socket(NETLINK_SOCK_DIAG)");
	if (sendto(fd, &msg, sizeof(msg), 0, (struct sockaddr *)&nl,
		   sizeof(nl)) < 0)
		ndp_die_errno("sendto");
	n = recv(fd, buf, sizeof(buf), 0);
	if (n < 0)
		ndp_die_errno("recv");
	h = (struct nlmsghdr *)buf;
	if (!NLMSG_OK(h, n))
		ndp_die("short reply");
	if (h->nlmsg_type == NLMSG_ERROR) {
		struct nlmsgerr *e = NLMSG_DATA(h);

		printf("err=%s\n", e->error ? ndp_errname(-e->error) : "0");
		return 0;
	}
	if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY)
		ndp_die("unexpected reply type %u", h->nlmsg_type);
	r = NLMSG_DATA(h);
	cookie = (unsigned long long)r->id.idiag_cookie[1] << 32 |
		 r->id.idiag_cookie[0];
	printf("found state=%u ino=%u cookie=%llx\n", r->idiag_state,
	       r->idiag_inode, cookie);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if ((argc == 4 || argc == 6) && !strcmp(argv[1], "xfer")) {
		if (argc == 6) {
			remote_addr = argv[4];
			remote_ns = argv[5];
		}
		return do_xfer(strcmp(argv[2], "m") ? atoi(argv[2]) : FAM_MAPPED,
			       atoi(argv[3]));
	}
	if (argc == 5 && !strcmp(argv[1], "hold"))
		return do_hold(strcmp(argv[2], "m") ? atoi(argv[2]) : FAM_MAPPED,
			       atoi(argv[3]), atoi(argv[4]));
	if ((argc == 7 || argc == 8) && !strcmp(argv[1], "get"))
		return do_get(argc - 2, argv + 2);
	fprintf(stderr, "usage: ndp_diag xfer 4|6|m BYTES [ADDR NETNS] | hold 4|6|m PORT BYTES\n"
		"       ndp_diag get 4|6 SRC SPORT DST DPORT [COOKIE]\n");
	return 2;
}
