// SPDX-License-Identifier: GPL-2.0
/*
 * ndp_scale: many concurrent connections through one listener, with the
 * same code for NDP and TCP (the socket type is the only difference).
 *
 *   ndp_scale server [-p ndp|tcp] [-4|-6] [-P PORT] [-b ADDR]
 *	Accept every connection and echo each 64-byte message back, all in
 *	one epoll loop.  Prints "listening" to stderr; runs until killed.
 *
 *   ndp_scale client [-p ndp|tcp] [-4|-6] [-P PORT] -H ADDR [-n CONNS]
 *	[-c INFLIGHT] [-r EXCHANGES] [-s SEED] [-T SECS]
 *	Open CONNS connections (at most INFLIGHT, default 256, being opened
 *	at a time), each proven by a 64-byte message echoed intact; measure
 *	kernel memory (Slab in /proc/meminfo, both ends when the server runs
 *	on the same kernel) before the first and with all of them idle; then
 *	time EXCHANGES (default 2000) 64-byte request/responses, each on a
 *	connection picked at random, with the others idle.  Prints
 *
 *	  RESULT proto=P conns=N connected=N failed=N corrupt=N
 *	         connect_s=S slab_kb=K bytes_per_conn=B rr=R rr_us=U
 *
 *	and exits 0 only if every connection connected, every echo and
 *	exchange came back intact and all within -T (default 600) seconds.
 *	Connections are closed on exit.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/ndp.h>
#include <linux/types.h>

#include "ndp_util.h"

#define SC_MSG		64
#define SC_MAX_FD	131072

static struct {
	bool ndp;
	int family;
	int port;
	const char *host;
	const char *bind;
	int conns;
	int inflight;
	int rr;
	__u64 seed;
	int timeout_s;
} opt = {
	.ndp = true, .family = AF_INET, .port = 5300, .conns = 1000,
	.inflight = 256, .rr = 2000, .seed = 1, .timeout_s = 600,
};

static int sc_socket(void)
{
	int fd = ndp_stream_socket(opt.family, opt.ndp,
				   SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (fd < 0)
		ndp_die_errno("socket");
	if (fd >= SC_MAX_FD)
		ndp_die("too many descriptors");
	return fd;
}

static void sc_raise_nofile(int want)
{
	struct rlimit rl;

	getrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_cur >= (rlim_t)want)
		return;
	rl.rlim_cur = want;
	if (rl.rlim_max < (rlim_t)want)
		rl.rlim_max = want;
	if (!setrlimit(RLIMIT_NOFILE, &rl))
		return;
	/* Without CAP_SYS_RESOURCE: as far as the hard limit goes. */
	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
}

static long sc_slab_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Slab: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* The message of connection @id (request and expected echo). */
static void sc_msg(__u8 *m, unsigned int id, unsigned int seq)
{
	int i;

	for (i = 0; i < SC_MSG; i++)
		m[i] = (id * 131 + seq * 7 + i) & 0xff;
	memcpy(m, &id, sizeof(id));
	memcpy(m + 4, &seq, sizeof(seq));
}

/* ---- server ------------------------------------------------------------ */

static __u8 (*srv_buf)[SC_MSG];
static __u8 *srv_fill;

static void sc_srv_read(int ep, int fd)
{
	__u8 tmp[SC_MSG * 16];
	int n, off = 0;

	n = recv(fd, tmp, sizeof(tmp), 0);
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL);
		close(fd);
		srv_fill[fd] = 0;
		return;
	}
	while (off < n) {
		int k = SC_MSG - srv_fill[fd];

		if (k > n - off)
			k = n - off;
		memcpy(srv_buf[fd] + srv_fill[fd], tmp + off, k);
		srv_fill[fd] += k;
		off += k;
		if (srv_fill[fd] == SC_MSG) {
			/* Small: fits in any send buffer of an idle socket. */
			if (send(fd, srv_buf[fd], SC_MSG, MSG_NOSIGNAL) != SC_MSG)
				fprintf(stderr, "ndp_scale: short echo\n");
			srv_fill[fd] = 0;
		}
	}
}

static int sc_server(void)
{
	struct sockaddr_storage ss;
	struct epoll_event ev, evs[256];
	socklen_t len = ndp_sockaddr(&ss, opt.family, opt.bind, opt.port);
	int ls, ep, one = 1, i, n;

	sc_raise_nofile(SC_MAX_FD);
	srv_buf = calloc(SC_MAX_FD, SC_MSG);
	srv_fill = calloc(SC_MAX_FD, 1);
	if (!srv_buf || !srv_fill)
		ndp_die_errno("calloc");
	ls = sc_socket();
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(ls, (struct sockaddr *)&ss, len))
		ndp_die_errno("bind");
	if (listen(ls, 4096))
		ndp_die_errno("listen");
	ep = epoll_create1(EPOLL_CLOEXEC);
	ev.events = EPOLLIN;
	ev.data.fd = ls;
	epoll_ctl(ep, EPOLL_CTL_ADD, ls, &ev);
	fprintf(stderr, "ndp_scale: listening\n");
	for (;;) {
		n = epoll_wait(ep, evs, 256, -1);
		if (n < 0 && errno != EINTR)
			ndp_die_errno("epoll_wait");
		for (i = 0; i < n; i++) {
			int fd = evs[i].data.fd;

			if (fd != ls) {
				sc_srv_read(ep, fd);
				continue;
			}
			for (;;) {
				int c = accept4(ls, NULL, NULL,
						SOCK_NONBLOCK | SOCK_CLOEXEC);

				if (c < 0)
					break;
				if (c >= SC_MAX_FD) {
					close(c);
					continue;
				}
				ev.events = EPOLLIN;
				ev.data.fd = c;
				epoll_ctl(ep, EPOLL_CTL_ADD, c, &ev);
			}
		}
	}
	return 0;
}

/* ---- client ------------------------------------------------------------- */

struct sc_conn {
	int fd;
	int got;
	bool sent, done, failed;
	__u8 buf[SC_MSG];
};

static int sc_open_all(struct sc_conn *c, int *corrupt, double deadline)
{
	struct sockaddr_storage ss;
	socklen_t len = ndp_sockaddr(&ss, opt.family, opt.host, opt.port);
	struct epoll_event ev, evs[256];
	int ep = epoll_create1(EPOLL_CLOEXEC);
	int next = 0, open = 0, done = 0, failed = 0, i, n;

	while (done + failed < opt.conns) {
		while (next < opt.conns && open < opt.inflight) {
			struct sc_conn *k = &c[next];

			k->fd = sc_socket();
			if (connect(k->fd, (struct sockaddr *)&ss, len) &&
			    errno != EINPROGRESS) {
				k->failed = true;
				failed++;
				next++;
				continue;
			}
			ev.events = EPOLLOUT | EPOLLIN;
			ev.data.u32 = next;
			epoll_ctl(ep, EPOLL_CTL_ADD, k->fd, &ev);
			open++;
			next++;
		}
		if (ndp_now_s() > deadline)
			break;
		n = epoll_wait(ep, evs, 256, 1000);
		for (i = 0; i < n; i++) {
			struct sc_conn *k = &c[evs[i].data.u32];
			__u8 want[SC_MSG];
			int r;

			sc_msg(want, evs[i].data.u32, 0);
			if (!k->sent && (evs[i].events & EPOLLOUT)) {
				if (send(k->fd, want, SC_MSG, MSG_NOSIGNAL) == SC_MSG) {
					k->sent = true;
					ev.events = EPOLLIN;
					ev.data.u32 = evs[i].data.u32;
					epoll_ctl(ep, EPOLL_CTL_MOD, k->fd, &ev);
				} else if (errno != EAGAIN) {
					goto fail;
				}
			}
			if (!(evs[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP)))
				continue;
			r = recv(k->fd, k->buf + k->got, SC_MSG - k->got, 0);
			if (r < 0 && errno == EAGAIN)
				continue;
			if (r <= 0)
				goto fail;
			k->got += r;
			if (k->got < SC_MSG)
				continue;
			if (memcmp(k->buf, want, SC_MSG))
				(*corrupt)++;
			k->done = true;
			done++;
			open--;
			epoll_ctl(ep, EPOLL_CTL_DEL, k->fd, NULL);
			continue;
fail:
			k->failed = true;
			failed++;
			open--;
			epoll_ctl(ep, EPOLL_CTL_DEL, k->fd, NULL);
		}
	}
	close(ep);
	return done;
}

/* One request/response on @k; false on error or corruption. */
static bool sc_exchange(struct sc_conn *k, unsigned int id, unsigned int seq)
{
	__u8 req[SC_MSG], got[SC_MSG];
	struct pollfd p = { .fd = k->fd, .events = POLLIN };
	int have = 0, r;

	sc_msg(req, id, seq);
	if (send(k->fd, req, SC_MSG, MSG_NOSIGNAL) != SC_MSG)
		return false;
	while (have < SC_MSG) {
		if (poll(&p, 1, 30000) <= 0)
			return false;
		r = recv(k->fd, got + have, SC_MSG - have, 0);
		if (r < 0 && errno == EAGAIN)
			continue;
		if (r <= 0)
			return false;
		have += r;
	}
	return !memcmp(req, got, SC_MSG);
}

static int sc_client(void)
{
	struct sc_conn *c = calloc(opt.conns, sizeof(*c));
	double t0, deadline, t_conn, t_rr;
	long kb0, kb1;
	int corrupt = 0, done, i, rr_bad = 0, failed;
	__u64 rng = opt.seed * 0x9e3779b97f4a7c15ULL | 1;

	if (!c)
		ndp_die_errno("calloc");
	sc_raise_nofile(opt.conns + 64);
	kb0 = sc_slab_kb();
	t0 = ndp_now_s();
	deadline = t0 + opt.timeout_s;
	done = sc_open_all(c, &corrupt, deadline);
	t_conn = ndp_now_s() - t0;
	failed = opt.conns - done;
	/* Let lazily freed memory settle before measuring the idle state. */
	sleep(2);
	kb1 = sc_slab_kb();

	t0 = ndp_now_s();
	for (i = 0; i < opt.rr && done; i++) {
		unsigned int id;

		do {
			rng ^= rng >> 12;
			rng ^= rng << 25;
			rng ^= rng >> 27;
			id = (rng * 0x2545f4914f6cdd1dULL >> 33) % opt.conns;
		} while (!c[id].done);
		if (!sc_exchange(&c[id], id, i + 1))
			rr_bad++;
		if (ndp_now_s() > deadline) {
			rr_bad += opt.rr - i - 1;
			break;
		}
	}
	t_rr = ndp_now_s() - t0;
	printf("RESULT proto=%s conns=%d connected=%d failed=%d corrupt=%d rr_bad=%d ",
	       opt.ndp ? "ndp" : "tcp", opt.conns, done, failed, corrupt,
	       rr_bad);
	printf("connect_s=%.2f slab_kb=%ld bytes_per_conn=%ld rr=%d rr_us=%.1f\n",
	       t_conn, kb1 - kb0,
	       done ? (kb1 - kb0) * 1024 / done : 0, opt.rr,
	       opt.rr ? t_rr * 1e6 / opt.rr : 0);
	fflush(stdout);
	for (i = 0; i < opt.conns; i++)
		if (c[i].fd > 0)
			close(c[i].fd);
	return failed || corrupt || rr_bad;
}

static void sc_usage(void)
{
	fprintf(stderr,
		"usage: ndp_scale server [-p ndp|tcp] [-4|-6] [-P PORT] [-b ADDR]\n"
		"       ndp_scale client [-p ndp|tcp] [-4|-6] [-P PORT] -H ADDR [-n CONNS]\n"
		"                 [-c INFLIGHT] [-r EXCHANGES] [-s SEED] [-T SECS]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *mode;
	int c;

	if (argc < 2)
		sc_usage();
	mode = argv[1];
	optind = 2;
	while ((c = getopt(argc, argv, "p:46P:b:H:n:c:r:s:T:")) != -1) {
		switch (c) {
		case 'H':
			opt.host = optarg;
			break;
		case 'n':
			opt.conns = atoi(optarg);
			break;
		case 'c':
			opt.inflight = atoi(optarg);
			break;
		case 'r':
			opt.rr = atoi(optarg);
			break;
		case 's':
			opt.seed = strtoull(optarg, NULL, 0);
			break;
		case 'T':
			opt.timeout_s = atoi(optarg);
			break;
		default:
			if (ndp_sock_opt(c, optarg, &opt.ndp, &opt.family,
					 &opt.port, &opt.bind) != 1)
				sc_usage();
		}
	}
	if (!strcmp(mode, "server"))
		return sc_server();
	if (!strcmp(mode, "client") && opt.host && opt.conns > 0 &&
	    opt.inflight > 0)
		return sc_client();
	sc_usage();
	return 2;
}
