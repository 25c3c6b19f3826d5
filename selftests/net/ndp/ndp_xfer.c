// SPDX-License-Identifier: GPL-2.0
/*
 * ndp_xfer: data-integrity and socket-API checks for the NDP selftests,
 * with identical code for NDP and TCP (the socket type is the only
 * difference), so every check can be developed and proven on TCP first.
 *
 *   ndp_xfer [-p ndp|tcp] [-4|-6] [-P PORT] [-s SEED] [-T SECS] [-I SECS] MODE ...
 *
 * -T bounds a whole run; -I (default 30, 0 = off) fails a transfer in
 * which no byte has moved for that long, so a stuck transport fails fast
 * while a slow one (TCG) may take its time.
 *
 *   server [-b ADDR] [-n CONNS] [-S BYTES] [-E BYTES] [-L SECS]
 *   client -H ADDR  [-n CONNS] [-S BYTES] [-E BYTES] [-W FILE]
 *	Transfer deterministic pseudo-random data.  Every connection sends
 *	-S bytes, then shuts down writing, and reads until EOF (so "both
 *	directions at once" is simply -S on both ends).  The server serves
 *	-n connections, then keeps listening -L seconds more and counts any
 *	extra connection it accepts (replay test).  With -W, a client
 *	connection that sent its -S bytes waits until FILE exists before it
 *	shuts down writing, so a test can look at it while it is still
 *	connected (rtt.sh's ss --ndp -i).  Each end prints one line
 *	per connection:
 *
 *	  conn KEY tx BYTES SHA256 rx BYTES SHA256 STATUS
 *
 *	KEY is the client's port, the same on both ends; the test joins the
 *	two outputs on it and compares one end's tx with the other's rx.
 *	The stream of each direction is derived from (SEED, KEY, direction),
 *	so the receiver also checks every byte itself: STATUS is "ok",
 *	"corrupt@OFFSET", "short" (fewer bytes than -E) or "long", or an
 *	errno name.  The server ends with "accepted N extra M".  Exit 0 only
 *	if every connection is ok.
 *
 *   probe NAME|all [-H ADDR] [-N NETNS_PATH]
 *	errno and poll semantics, one TAP line per check; both ends run in
 *	this process (the listener in another network namespace with -N,
 *	e.g. /run/netns/NAME, so packets cross a real link).  NAME is one of
 *	refused eagain rdhup rcvtimeo sndtimeo addrinuse notconn epipe peek
 *	waitall names.
 *
 *   gen -S BYTES -k KEY [-d c|s]  write a stream to stdout (to check the
 *	digests against sha256sum)
 *   selftest                      SHA-256 known answers
 *
 * The default protocol comes from $NDP_TEST_PROTO (else ndp).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <linux/ndp.h>

#include "ndp_test.h"
#include "ndp_util.h"
#include "sha256.h"

#define XFER_BUF	(64 * 1024)
#define XFER_MAX_CONNS	4096

static struct {
	int family;
	bool ndp;
	int port;
	uint64_t seed;
	int timeout_s;
	int idle_s;
	const char *host;
	const char *bind;
	const char *netns;
	const char *dev;	/* -D: SO_BINDTODEVICE (a VRF) */
	int conns;
	uint64_t send;
	int64_t expect;		/* -1: any */
	int linger_s;
	const char *hold;	/* -W: client shuts down its side once this exists */
} opt = {
	.family = AF_INET,
	.ndp = true,
	.port = 5201,
	.seed = 1,
	.timeout_s = 300,
	.idle_s = 30,
	.conns = 1,
	.expect = -1,
};

/* ---- deterministic streams ------------------------------------------ */

/*
 * One direction of one connection: splitmix64 over a counter, 8 bytes per
 * step, so a stream is reproducible from its key alone and any slicing of
 * reads and writes produces the same bytes.
 */
struct xfer_gen {
	uint64_t ctr;
	uint8_t word[8];
	unsigned int used;	/* bytes of @word already handed out */
};

static uint64_t xfer_mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void xfer_gen_init(struct xfer_gen *g, uint64_t seed, unsigned int key,
			  char dir)
{
	g->ctr = xfer_mix(seed * 0x9e3779b97f4a7c15ULL + ((uint64_t)key << 8) + dir);
	g->used = 8;
}

static void xfer_gen_fill(struct xfer_gen *g, uint8_t *p, size_t n)
{
	while (n) {
		if (g->used == 8) {
			uint64_t v = xfer_mix(g->ctr++);

			if (n >= 8) {	/* fast path, whole words */
				memcpy(p, &v, 8);
				p += 8;
				n -= 8;
				continue;
			}
			memcpy(g->word, &v, 8);
			g->used = 0;
		}
		*p++ = g->word[g->used++];
		n--;
	}
}

/* ---- addresses and sockets ----------------------------------------- */

/* Same address and port (family-aware, ignoring flow info and scope). */
static bool xfer_addr_eq(const struct sockaddr_storage *a,
			 const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET) {
		const struct sockaddr_in *x = (const void *)a, *y = (const void *)b;

		return x->sin_port == y->sin_port &&
		       x->sin_addr.s_addr == y->sin_addr.s_addr;
	} else {
		const struct sockaddr_in6 *x = (const void *)a, *y = (const void *)b;

		return x->sin6_port == y->sin6_port &&
		       !memcmp(&x->sin6_addr, &y->sin6_addr, sizeof(x->sin6_addr));
	}
}

static void xfer_set_nonblock(int fd, bool on)
{
	int fl = fcntl(fd, F_GETFL);

	fcntl(fd, F_SETFL, on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK);
}

/*
 * Run socket() in the network namespace at @path (when given) and come
 * back: a socket stays in the namespace it was created in, so one process
 * can own both ends of a link between two namespaces.
 */
static int xfer_socket_in(const char *path, int family)
{
	int self, target, fd, saved;

	if (!path)
		return ndp_stream_socket(family, opt.ndp, 0);
	self = open("/proc/self/ns/net", O_RDONLY);
	target = open(path, O_RDONLY);
	if (self < 0 || target < 0)
		ndp_die_errno("open netns %s", path);
	if (setns(target, CLONE_NEWNET))
		ndp_die_errno("setns %s", path);
	fd = ndp_stream_socket(family, opt.ndp, 0);
	saved = errno;
	if (setns(self, CLONE_NEWNET))
		ndp_die_errno("setns back");
	close(self);
	close(target);
	errno = saved;
	return fd;
}

/* A listening socket on @host (any address if NULL) and @port (0: any). */
/* -D DEV: bind the socket to a device (a VRF), as "ip vrf exec" would. */
static void xfer_bind_dev(int fd)
{
	if (opt.dev && setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, opt.dev,
				  strlen(opt.dev) + 1))
		ndp_die_errno("SO_BINDTODEVICE %s", opt.dev);
}

static int xfer_listen(const char *netns, const char *host, int port,
		       int backlog, int *bound_port)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, one = 1;

	fd = xfer_socket_in(netns, opt.family);
	if (fd < 0)
		ndp_die_errno("socket");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	xfer_bind_dev(fd);
	len = ndp_sockaddr(&ss, opt.family, host, port);
	if (bind(fd, (struct sockaddr *)&ss, len))
		ndp_die_errno("bind %s", ndp_sockaddr_str(&ss));
	if (listen(fd, backlog))
		ndp_die_errno("listen");
	if (bound_port) {
		len = sizeof(ss);
		getsockname(fd, (struct sockaddr *)&ss, &len);
		*bound_port = ndp_sockaddr_port(&ss);
	}
	return fd;
}

/* ---- transfer engine --------------------------------------------------- */

struct xfer_conn {
	int fd;
	unsigned int key;
	bool active;
	bool connecting;
	/* transmit */
	uint64_t tx_left, tx_bytes;
	struct xfer_gen tx_gen;
	struct sha256_ctx tx_sha;
	uint8_t *txbuf;
	size_t tx_off, tx_len;
	bool tx_done;
	bool holding;		/* all sent, waiting for opt.hold to shut down */
	/* receive */
	uint64_t rx_bytes;
	struct xfer_gen rx_gen;
	struct sha256_ctx rx_sha;
	int64_t bad_off;	/* first corrupt byte, -1 if none */
	bool rx_eof;
	int err;
};

static struct xfer_conn *conns;
static int nconns, ndone, nfailed, epfd;
static double last_progress;	/* a byte moved, a connection came or went */
static uint8_t rxbuf[XFER_BUF], expbuf[XFER_BUF];

static void xfer_conn_start(struct xfer_conn *c, int fd, unsigned int key,
			    bool client)
{
	struct epoll_event ev = {
		.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP,
		.data.ptr = c,
	};

	memset(c, 0, sizeof(*c));
	c->fd = fd;
	c->key = key;
	c->active = true;
	c->tx_left = opt.send;
	xfer_gen_init(&c->tx_gen, opt.seed, key, client ? 'c' : 's');
	xfer_gen_init(&c->rx_gen, opt.seed, key, client ? 's' : 'c');
	sha256_init(&c->tx_sha);
	sha256_init(&c->rx_sha);
	c->bad_off = -1;
	c->txbuf = malloc(XFER_BUF);
	if (!c->txbuf)
		ndp_die("out of memory");
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev))
		ndp_die_errno("epoll_ctl");
}

static void xfer_conn_finish(struct xfer_conn *c)
{
	char txh[SHA256_HEX_LEN], rxh[SHA256_HEX_LEN], status[48];

	sha256_final_hex(&c->tx_sha, txh);
	sha256_final_hex(&c->rx_sha, rxh);
	if (c->err)
		snprintf(status, sizeof(status), "%s", ndp_errname(c->err));
	else if (c->bad_off >= 0)
		snprintf(status, sizeof(status), "corrupt@%lld", (long long)c->bad_off);
	else if (opt.expect >= 0 && c->rx_bytes < (uint64_t)opt.expect)
		snprintf(status, sizeof(status), "short");
	else if (opt.expect >= 0 && c->rx_bytes > (uint64_t)opt.expect)
		snprintf(status, sizeof(status), "long");
	else
		snprintf(status, sizeof(status), "ok");
	if (strcmp(status, "ok"))
		nfailed++;
	printf("conn %u tx %llu %s rx %llu %s %s\n", c->key,
	       (unsigned long long)c->tx_bytes, txh,
	       (unsigned long long)c->rx_bytes, rxh, status);
	fflush(stdout);
	epoll_ctl(epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	free(c->txbuf);
	c->txbuf = NULL;
	c->active = false;
	ndone++;
}

static void xfer_conn_fail(struct xfer_conn *c, int err)
{
	if (!c->err)
		c->err = err;
	xfer_conn_finish(c);
}

/* Returns false if the connection ended (finished or failed). */
static bool xfer_conn_tx(struct xfer_conn *c)
{
	ssize_t n;

	while (!c->tx_done) {
		if (c->tx_off == c->tx_len) {
			size_t chunk = c->tx_left < XFER_BUF ? c->tx_left : XFER_BUF;

			if (!chunk) {
				c->holding = opt.hold && access(opt.hold, F_OK);
				if (c->holding)
					return true;
				if (shutdown(c->fd, SHUT_WR)) {
					xfer_conn_fail(c, errno);
					return false;
				}
				c->tx_done = true;
				break;
			}
			xfer_gen_fill(&c->tx_gen, c->txbuf, chunk);
			sha256_update(&c->tx_sha, c->txbuf, chunk);
			c->tx_left -= chunk;
			c->tx_off = 0;
			c->tx_len = chunk;
		}
		n = send(c->fd, c->txbuf + c->tx_off, c->tx_len - c->tx_off,
			 MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return true;
			xfer_conn_fail(c, errno);
			return false;
		}
		c->tx_off += n;
		c->tx_bytes += n;
		last_progress = ndp_now_s();
	}
	return true;
}

static bool xfer_conn_rx(struct xfer_conn *c)
{
	ssize_t n;
	int budget = 64;	/* be fair to other connections */

	while (!c->rx_eof && budget--) {
		n = recv(c->fd, rxbuf, sizeof(rxbuf), 0);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return true;
			xfer_conn_fail(c, errno);
			return false;
		}
		last_progress = ndp_now_s();
		if (n == 0) {
			c->rx_eof = true;
			break;
		}
		sha256_update(&c->rx_sha, rxbuf, n);
		xfer_gen_fill(&c->rx_gen, expbuf, n);
		if (c->bad_off < 0 && memcmp(rxbuf, expbuf, n)) {
			ssize_t i = 0;

			while (rxbuf[i] == expbuf[i])
				i++;
			c->bad_off = c->rx_bytes + i;
		}
		c->rx_bytes += n;
	}
	return true;
}

static void xfer_conn_event(struct xfer_conn *c, uint32_t ev)
{
	if (c->connecting) {
		int err = 0;
		socklen_t len = sizeof(err);

		if (!(ev & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
			return;
		getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len);
		if (err) {
			xfer_conn_fail(c, err);
			return;
		}
		c->connecting = false;
	}
	if ((ev & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) &&
	    !xfer_conn_rx(c))
		return;
	if ((ev & (EPOLLOUT | EPOLLHUP | EPOLLERR)) && !xfer_conn_tx(c))
		return;
	if (c->tx_done && c->rx_eof) {
		xfer_conn_finish(c);
		return;
	}
	if (c->tx_done || c->holding) {	/* no more to send: stop EPOLLOUT wakeups */
		struct epoll_event e = {
			.events = EPOLLIN | EPOLLRDHUP,
			.data.ptr = c,
		};

		epoll_ctl(epfd, EPOLL_CTL_MOD, c->fd, &e);
	}
}

/*
 * How long epoll may sleep: until @end, but a run in which nothing has
 * moved for opt.idle_s is stuck (returns 0 with *stalled set).
 */
static int xfer_wait_ms(double end, bool *stalled)
{
	double t = ndp_now_s(), idle_end = last_progress + opt.idle_s;

	*stalled = opt.idle_s > 0 && t >= idle_end;
	if (opt.idle_s > 0 && idle_end < end)
		end = idle_end;
	return t >= end ? 0 : (int)((end - t) * 1000) + 1;
}

static void xfer_report_stuck(void)
{
	int i;

	for (i = 0; i < nconns; i++) {
		struct xfer_conn *c = &conns[i];

		if (!c->active)
			continue;
		fprintf(stderr, "ndp_xfer: conn %u stuck: tx %llu/%llu%s rx %llu%s\n",
			c->key, (unsigned long long)c->tx_bytes,
			(unsigned long long)opt.send,
			c->tx_done ? " (shut)" : "",
			(unsigned long long)c->rx_bytes, c->rx_eof ? " (eof)" : "");
		c->err = ETIMEDOUT;
		xfer_conn_finish(c);
	}
}

/*
 * -W FILE: connections that sent everything keep their write side open
 * (the socket stays connected, for a test to look at it) until FILE
 * exists.  Returns whether one is still held; releases them once FILE
 * is there.  Holding counts as progress: only -T bounds it.
 */
static bool xfer_client_held(void)
{
	bool held = false, release;
	int i;

	if (!opt.hold)
		return false;
	release = !access(opt.hold, F_OK);
	for (i = 0; i < nconns; i++) {
		struct xfer_conn *c = &conns[i];

		if (!c->active || !c->holding)
			continue;
		last_progress = ndp_now_s();
		if (!release) {
			held = true;
			continue;
		}
		c->holding = false;
		if (!xfer_conn_tx(c))
			continue;
		if (c->tx_done && c->rx_eof)
			xfer_conn_finish(c);
	}
	return held;
}

static int xfer_client(void)
{
	struct epoll_event evs[64];
	struct sockaddr_storage ss, local;
	socklen_t len;
	double deadline = ndp_now_s() + opt.timeout_s;
	int i, n;

	if (!opt.host)
		ndp_die("client needs -H ADDR");
	conns = calloc(opt.conns, sizeof(*conns));
	epfd = epoll_create1(0);
	if (!conns || epfd < 0)
		ndp_die_errno("setup");
	len = ndp_sockaddr(&ss, opt.family, opt.host, opt.port);
	for (i = 0; i < opt.conns; i++) {
		int fd = ndp_stream_socket(opt.family, opt.ndp, 0), r;
		socklen_t llen = sizeof(local);

		if (fd < 0)
			ndp_die_errno("socket");
		xfer_bind_dev(fd);
		xfer_set_nonblock(fd, true);
		/* NDP's connect() is zero-RTT and completes at once */
		r = connect(fd, (struct sockaddr *)&ss, len);
		if (r && errno != EINPROGRESS)
			ndp_die_errno("connect %s", ndp_sockaddr_str(&ss));
		if (getsockname(fd, (struct sockaddr *)&local, &llen) ||
		    !ndp_sockaddr_port(&local))
			ndp_die("getsockname after connect gave no port");
		xfer_conn_start(&conns[i], fd, ndp_sockaddr_port(&local), true);
		conns[i].connecting = r != 0;
		nconns++;
	}
	last_progress = ndp_now_s();
	while (ndone < nconns) {
		bool stalled, held = xfer_client_held();
		int wait_ms = xfer_wait_ms(deadline, &stalled);

		if (held && wait_ms > 20)
			wait_ms = 20;	/* look for the hold file again soon */

		if (stalled || ndp_now_s() >= deadline) {
			if (stalled)
				fprintf(stderr, "ndp_xfer: no progress for %d s\n", opt.idle_s);
			else
				fprintf(stderr, "ndp_xfer: timed out after %d s\n", opt.timeout_s);
			xfer_report_stuck();
			break;
		}
		n = epoll_wait(epfd, evs, 64, wait_ms);
		if (n < 0 && errno != EINTR)
			ndp_die_errno("epoll_wait");
		for (i = 0; i < n; i++) {
			struct xfer_conn *c = evs[i].data.ptr;

			if (c->active)
				xfer_conn_event(c, evs[i].events);
		}
	}
	return nfailed ? KSFT_FAIL : KSFT_PASS;
}

static int xfer_server(void)
{
	struct epoll_event evs[64], lev = { .events = EPOLLIN };
	double deadline = ndp_now_s() + opt.timeout_s, linger_end = 0;
	int lfd, i, n, accepted = 0, extra = 0, cap;

	cap = opt.conns + XFER_MAX_CONNS;
	conns = calloc(cap, sizeof(*conns));
	epfd = epoll_create1(0);
	if (!conns || epfd < 0)
		ndp_die_errno("setup");
	lfd = xfer_listen(NULL, opt.bind, opt.port,
			  opt.conns + 64 > 4096 ? 4096 : opt.conns + 64, NULL);
	xfer_set_nonblock(lfd, true);
	lev.data.ptr = NULL;
	epoll_ctl(epfd, EPOLL_CTL_ADD, lfd, &lev);
	fprintf(stderr, "ndp_xfer: listening\n");

	last_progress = ndp_now_s();
	for (;;) {
		double t = ndp_now_s();
		bool stalled = false;
		int wait_ms;

		if (ndone == nconns && accepted >= opt.conns) {
			if (!linger_end)
				linger_end = t + opt.linger_s;
			if (t >= linger_end)
				break;
			wait_ms = (linger_end - t) * 1000 + 1;
		} else {
			/* the idle limit starts with the first connection */
			wait_ms = xfer_wait_ms(deadline, &stalled);
			stalled = stalled && accepted;
		}
		if (t >= deadline || stalled) {
			fprintf(stderr, "ndp_xfer: %s (%d/%d accepted)\n",
				stalled ? "no progress" : "timed out", accepted, opt.conns);
			xfer_report_stuck();
			nfailed++;
			break;
		}
		n = epoll_wait(epfd, evs, 64, wait_ms);
		if (n < 0 && errno != EINTR)
			ndp_die_errno("epoll_wait");
		for (i = 0; i < n; i++) {
			struct xfer_conn *c = evs[i].data.ptr;

			if (c) {
				if (c->active)
					xfer_conn_event(c, evs[i].events);
				continue;
			}
			for (;;) {
				struct sockaddr_storage peer;
				socklen_t plen = sizeof(peer);
				int fd = accept4(lfd, (struct sockaddr *)&peer, &plen,
						 SOCK_NONBLOCK);

				if (fd < 0) {
					if (errno != EAGAIN && errno != EINTR &&
					    errno != ECONNABORTED)
						ndp_die_errno("accept");
					break;
				}
				if (nconns == cap)
					ndp_die("too many connections");
				last_progress = ndp_now_s();
				if (accepted++ >= opt.conns) {
					extra++;
					fprintf(stderr, "ndp_xfer: extra connection from %s\n",
						ndp_sockaddr_str(&peer));
				}
				xfer_conn_start(&conns[nconns++], fd,
						ndp_sockaddr_port(&peer), false);
			}
		}
	}
	printf("accepted %d extra %d\n", accepted, extra);
	return nfailed || accepted < opt.conns ? KSFT_FAIL : KSFT_PASS;
}

/* ---- probes ----------------------------------------------------------- */

/* A connected pair: client @c (this netns), server @s (opt.netns). */
struct xfer_pair {
	int c, s, lfd, port;
	struct sockaddr_storage srv;
	socklen_t srvlen;
};

static bool xfer_wait(int fd, short events, int ms)
{
	struct pollfd p = { .fd = fd, .events = events };

	return poll(&p, 1, ms) == 1;
}

static const char *xfer_probe_host(void)
{
	if (opt.host)
		return opt.host;
	return opt.family == AF_INET ? "127.0.0.1" : "::1";
}

/*
 * Connect and make the server see the connection.  NDP's connect() sends
 * nothing, so the listener only learns of a connection when data
 * arrives: the client sends one byte, which the server consumes.
 */
static bool xfer_pair_open(struct xfer_pair *p)
{
	char b;

	memset(p, 0, sizeof(*p));
	p->c = -1;
	p->s = -1;
	p->lfd = xfer_listen(opt.netns, xfer_probe_host(), 0, 16, &p->port);
	p->srvlen = ndp_sockaddr(&p->srv, opt.family, xfer_probe_host(), p->port);
	p->c = ndp_stream_socket(opt.family, opt.ndp, 0);
	if (p->c < 0) {
		printf("# socket: %s\n", strerror(errno));
		return false;
	}
	if (connect(p->c, (struct sockaddr *)&p->srv, p->srvlen)) {
		printf("# connect: %s\n", strerror(errno));
		return false;
	}
	if (send(p->c, "!", 1, MSG_NOSIGNAL) != 1) {
		printf("# first send: %s\n", strerror(errno));
		return false;
	}
	if (!xfer_wait(p->lfd, POLLIN, 10000)) {
		printf("# listener saw no connection in 10 s\n");
		return false;
	}
	p->s = accept(p->lfd, NULL, NULL);
	if (p->s < 0) {
		printf("# accept: %s\n", strerror(errno));
		return false;
	}
	if (!xfer_wait(p->s, POLLIN, 10000) || recv(p->s, &b, 1, 0) != 1 || b != '!') {
		printf("# first byte did not arrive\n");
		return false;
	}
	return true;
}

static void xfer_pair_close(struct xfer_pair *p)
{
	if (p->c >= 0)
		close(p->c);
	if (p->s >= 0)
		close(p->s);
	if (p->lfd >= 0)
		close(p->lfd);
	p->c = -1;
	p->s = -1;
	p->lfd = -1;
}

/* Drain @fd without blocking; returns bytes read, -1 on error. */
static ssize_t xfer_drain(int fd)
{
	ssize_t n, total = 0;

	for (;;) {
		n = recv(fd, rxbuf, sizeof(rxbuf), MSG_DONTWAIT);
		if (n > 0) {
			total += n;
			continue;
		}
		if (n == 0 || errno == EAGAIN)
			return total;
		return -1;
	}
}

static void probe_refused(void)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int lfd, port, fd, err = 0, r;
	double t0;

	/* A port that surely has no listener: bind one, close it. */
	lfd = xfer_listen(opt.netns, xfer_probe_host(), 0, 1, &port);
	close(lfd);
	len = ndp_sockaddr(&ss, opt.family, xfer_probe_host(), port);
	fd = ndp_stream_socket(opt.family, opt.ndp, 0);
	r = connect(fd, (struct sockaddr *)&ss, len);
	if (r) {
		ksft_test_result(errno == ECONNREFUSED,
				 "refused: connect() to a port without listener: %s\n",
				 ndp_errname(errno));
		close(fd);
		return;
	}
	/* Zero-RTT: the first send carries the SYN; the RST comes back. */
	if (send(fd, "hello", 5, MSG_NOSIGNAL) < 0)
		err = errno;
	t0 = ndp_now_s();
	while (!err && ndp_now_s() - t0 < 10) {
		char b;

		if (!xfer_wait(fd, POLLIN | POLLERR, 10000))
			break;
		r = recv(fd, &b, 1, MSG_DONTWAIT);
		if (r < 0 && errno != EAGAIN)
			err = errno;
		else if (r == 0)
			break;
	}
	ksft_test_result(err == ECONNREFUSED,
			 "refused: zero-RTT connect, send, then recv sees ECONNREFUSED (got %s)\n",
			 ndp_errname(err));
	close(fd);
}

static void probe_eagain(void)
{
	struct xfer_pair p;
	struct epoll_event ev = { .events = EPOLLOUT }, out;
	uint64_t sent = 0, got = 0;
	bool eagain = false, epollout = false;
	ssize_t n;
	double t0;

	if (!xfer_pair_open(&p)) {
		ksft_test_result_fail("eagain: connected pair\n");
		goto out;
	}
	xfer_set_nonblock(p.c, true);
	memset(rxbuf, 'x', sizeof(rxbuf));
	t0 = ndp_now_s();
	while (sent < (1ULL << 30) && ndp_now_s() - t0 < 30) {
		n = send(p.c, rxbuf, sizeof(rxbuf), MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EAGAIN) {
				/* Let the stack move what it can, then retry once. */
				usleep(200000);
				n = send(p.c, rxbuf, sizeof(rxbuf), MSG_NOSIGNAL);
				if (n < 0 && errno == EAGAIN) {
					eagain = true;
					break;
				}
				if (n > 0)
					sent += n;
				continue;
			}
			break;
		}
		sent += n;
	}
	ksft_test_result(eagain,
			 "eagain: non-blocking send to a non-reading peer hits EAGAIN (after %llu bytes, last %s)\n",
			 (unsigned long long)sent, ndp_errname(eagain ? EAGAIN : errno));
	if (!eagain)
		goto out;

	{
		int ep = epoll_create1(0);

		ev.data.fd = p.c;
		epoll_ctl(ep, EPOLL_CTL_ADD, p.c, &ev);
		ksft_test_result(epoll_wait(ep, &out, 1, 300) == 0,
				 "eagain: no EPOLLOUT while the send buffer is full\n");
		/* The peer starts reading: the writer must be woken. */
		t0 = ndp_now_s();
		while (ndp_now_s() - t0 < 20) {
			n = xfer_drain(p.s);
			if (n < 0)
				break;
			got += n;
			if (epoll_wait(ep, &out, 1, 10) == 1 && (out.events & EPOLLOUT)) {
				epollout = true;
				break;
			}
		}
		close(ep);
	}
	ksft_test_result(epollout, "eagain: EPOLLOUT once the peer reads (%llu read)\n",
			 (unsigned long long)got);
	n = send(p.c, rxbuf, 1000, MSG_NOSIGNAL);
	ksft_test_result(n > 0, "eagain: send succeeds after EPOLLOUT (%zd)\n", n);
	if (n > 0)
		sent += n;
	/* Everything sent arrives: nothing lost at the EAGAIN boundary. */
	shutdown(p.c, SHUT_WR);
	xfer_set_nonblock(p.s, false);
	{
		struct timeval tv = { .tv_sec = 20 };

		setsockopt(p.s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	}
	while ((n = recv(p.s, rxbuf, sizeof(rxbuf), 0)) > 0)
		got += n;
	ksft_test_result(got == sent, "eagain: the reader gets every byte (%llu of %llu)\n",
			 (unsigned long long)got, (unsigned long long)sent);
out:
	xfer_pair_close(&p);
}

static void probe_rdhup(void)
{
	struct xfer_pair p;
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP }, out = { 0 };
	char buf[8];
	int ep, r;

	if (!xfer_pair_open(&p)) {
		ksft_test_result_fail("rdhup: connected pair\n");
		goto out;
	}
	ep = epoll_create1(0);
	ev.data.fd = p.s;
	epoll_ctl(ep, EPOLL_CTL_ADD, p.s, &ev);
	ksft_test_result(epoll_wait(ep, &out, 1, 200) == 0,
			 "rdhup: no event before the peer shuts down\n");
	shutdown(p.c, SHUT_WR);
	r = epoll_wait(ep, &out, 1, 10000);
	ksft_test_result(r == 1 && (out.events & EPOLLRDHUP),
			 "rdhup: EPOLLRDHUP after peer shutdown(SHUT_WR) (events 0x%x)\n",
			 r == 1 ? out.events : 0);
	r = recv(p.s, buf, sizeof(buf), MSG_DONTWAIT);
	ksft_test_result(r == 0, "rdhup: recv returns 0 (EOF) (%d %s)\n", r,
			 r < 0 ? ndp_errname(errno) : "");
	/* Half close: the other direction still works. */
	r = send(p.s, "bye", 3, MSG_NOSIGNAL);
	if (r == 3 && xfer_wait(p.c, POLLIN, 10000))
		r = recv(p.c, buf, sizeof(buf), 0);
	else
		r = -1;
	ksft_test_result(r == 3 && !memcmp(buf, "bye", 3),
			 "rdhup: data still flows the other way after SHUT_WR\n");
	close(ep);
out:
	xfer_pair_close(&p);
}

static void probe_rcvtimeo(void)
{
	struct xfer_pair p;
	struct timeval tv = { .tv_usec = 300000 };
	char b;
	double t0, dt;
	int r, e;

	if (!xfer_pair_open(&p)) {
		ksft_test_result_fail("rcvtimeo: connected pair\n");
		goto out;
	}
	setsockopt(p.c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	t0 = ndp_now_s();
	r = recv(p.c, &b, 1, 0);
	e = errno;
	dt = ndp_now_s() - t0;
	ksft_test_result(r < 0 && (e == EAGAIN || e == EWOULDBLOCK) && dt >= 0.25,
			 "rcvtimeo: blocking recv with SO_RCVTIMEO 300 ms fails with EAGAIN after %.0f ms (%d %s)\n",
			 dt * 1000, r, r < 0 ? ndp_errname(e) : "");
	/* The socket is still usable after the timeout. */
	send(p.s, "z", 1, MSG_NOSIGNAL);
	tv.tv_sec = 10;
	tv.tv_usec = 0;
	setsockopt(p.c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	r = recv(p.c, &b, 1, 0);
	ksft_test_result(r == 1 && b == 'z', "rcvtimeo: data after a timeout is received\n");
out:
	xfer_pair_close(&p);
}

static void probe_sndtimeo(void)
{
	struct xfer_pair p;
	struct timeval tv = { .tv_usec = 300000 };
	uint64_t sent = 0;
	double t0, dt = 0;
	ssize_t n = 0;
	int e = 0;

	if (!xfer_pair_open(&p)) {
		ksft_test_result_fail("sndtimeo: connected pair\n");
		goto out;
	}
	setsockopt(p.c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	memset(rxbuf, 'y', sizeof(rxbuf));
	t0 = ndp_now_s();
	while (ndp_now_s() - t0 < 60) {
		double t1 = ndp_now_s();

		n = send(p.c, rxbuf, sizeof(rxbuf), MSG_NOSIGNAL);
		if (n < 0) {
			e = errno;
			dt = ndp_now_s() - t1;
			break;
		}
		sent += n;
		if (n < (ssize_t)sizeof(rxbuf)) {	/* partial: timed out */
			dt = ndp_now_s() - t1;
			e = EAGAIN;
			n = -1;
			break;
		}
	}
	ksft_test_result(n < 0 && e == EAGAIN && dt >= 0.25,
			 "sndtimeo: blocking send to a non-reading peer times out with EAGAIN or a short write after %.0f ms (%llu bytes, %s)\n",
			 dt * 1000, (unsigned long long)sent, ndp_errname(e));
out:
	xfer_pair_close(&p);
}

static void probe_addrinuse(void)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int lfd, port, fd, r;

	lfd = xfer_listen(opt.netns, xfer_probe_host(), 0, 1, &port);
	fd = xfer_socket_in(opt.netns, opt.family);
	len = ndp_sockaddr(&ss, opt.family, xfer_probe_host(), port);
	r = bind(fd, (struct sockaddr *)&ss, len);
	ksft_test_result(r < 0 && errno == EADDRINUSE,
			 "addrinuse: second bind to a listening port fails with EADDRINUSE (%s)\n",
			 r ? ndp_errname(errno) : "bound");
	close(fd);
	/* Wildcard bind on the same port collides as well. */
	fd = xfer_socket_in(opt.netns, opt.family);
	len = ndp_sockaddr(&ss, opt.family, NULL, port);
	r = bind(fd, (struct sockaddr *)&ss, len);
	ksft_test_result(r < 0 && errno == EADDRINUSE,
			 "addrinuse: wildcard bind to that port fails with EADDRINUSE (%s)\n",
			 r ? ndp_errname(errno) : "bound");
	close(fd);
	close(lfd);
	/* Once closed, the port is free again. */
	fd = xfer_socket_in(opt.netns, opt.family);
	len = ndp_sockaddr(&ss, opt.family, xfer_probe_host(), port);
	r = bind(fd, (struct sockaddr *)&ss, len);
	ksft_test_result(r == 0, "addrinuse: the port binds again after close (%s)\n",
			 r ? ndp_errname(errno) : "ok");
	close(fd);
}

static void probe_notconn(void)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int fd = ndp_stream_socket(opt.family, opt.ndp, 0), r, e;
	char b;

	r = recv(fd, &b, 1, MSG_DONTWAIT);
	ksft_test_result(r < 0 && errno == ENOTCONN,
			 "notconn: recv before connect fails with ENOTCONN (%s)\n",
			 r < 0 ? ndp_errname(errno) : "succeeded");
	r = send(fd, "x", 1, MSG_NOSIGNAL | MSG_DONTWAIT);
	e = errno;
	/* Linux TCP answers EPIPE here (sk_stream_wait_connect); both are tcp(7). */
	ksft_test_result(r < 0 && (e == ENOTCONN || e == EPIPE),
			 "notconn: send before connect fails with ENOTCONN or EPIPE (%s)\n",
			 r < 0 ? ndp_errname(e) : "succeeded");
	r = getpeername(fd, (struct sockaddr *)&ss, &len);
	ksft_test_result(r < 0 && errno == ENOTCONN,
			 "notconn: getpeername before connect fails with ENOTCONN (%s)\n",
			 r < 0 ? ndp_errname(errno) : "succeeded");
	r = shutdown(fd, SHUT_WR);
	ksft_test_result(r < 0 && errno == ENOTCONN,
			 "notconn: shutdown before connect fails with ENOTCONN (%s)\n",
			 r < 0 ? ndp_errname(errno) : "succeeded");
	close(fd);
}

/* Lock-free, so the signal handler may count in it (C11 7.14.1.1). */
static atomic_int sigpipes;

static void xfer_on_sigpipe(int sig)
{
	sigpipes++;
}

static void probe_epipe(void)
{
	struct xfer_pair p;
	int first = 0, last = 0, before, r;
	double t0;

	if (!xfer_pair_open(&p)) {
		ksft_test_result_fail("epipe: connected pair\n");
		goto out;
	}
	signal(SIGPIPE, xfer_on_sigpipe);
	close(p.s);
	p.s = -1;
	close(p.lfd);
	p.lfd = -1;
	t0 = ndp_now_s();
	while (ndp_now_s() - t0 < 10) {
		r = send(p.c, "data", 4, 0);
		if (r < 0) {
			if (!first)
				first = errno;
			last = errno;
			if (errno == EPIPE)
				break;
		}
		usleep(20000);
	}
	ksft_test_result(last == EPIPE && sigpipes > 0,
			 "epipe: send after the peer closed fails with EPIPE and raises SIGPIPE (first error %s, last %s, %d signals)\n",
			 ndp_errname(first), ndp_errname(last), (int)sigpipes);
	before = sigpipes;
	r = send(p.c, "data", 4, MSG_NOSIGNAL);
	ksft_test_result(r < 0 && errno == EPIPE && sigpipes == before,
			 "epipe: with MSG_NOSIGNAL, EPIPE and no signal (%s)\n",
			 r < 0 ? ndp_errname(errno) : "sent");
	signal(SIGPIPE, SIG_DFL);
out:
	xfer_pair_close(&p);
}

static void probe_peek(void)
{
	struct xfer_pair p;
	char buf[32] = "";
	double t0;
	int r = 0;

	if (!xfer_pair_open(&p)) {
		ksft_test_result_fail("peek: connected pair\n");
		goto out;
	}
	send(p.s, "0123456789", 10, MSG_NOSIGNAL);
	t0 = ndp_now_s();
	while (ndp_now_s() - t0 < 10) {
		xfer_wait(p.c, POLLIN, 1000);
		r = recv(p.c, buf, 4, MSG_PEEK | MSG_DONTWAIT);
		if (r > 0)
			break;
	}
	ksft_test_result(r == 4 && !memcmp(buf, "0123", 4),
			 "peek: MSG_PEEK of 4 bytes returns the first 4 (%d)\n", r);
	t0 = ndp_now_s();
	while (ndp_now_s() - t0 < 10) {
		r = recv(p.c, buf, sizeof(buf), MSG_PEEK | MSG_DONTWAIT);
		if (r >= 10)
			break;
		usleep(10000);
	}
	ksft_test_result(r == 10 && !memcmp(buf, "0123456789", 10),
			 "peek: a second MSG_PEEK sees the same data from the start (%d)\n", r);
	memset(buf, 0, sizeof(buf));
	r = recv(p.c, buf, sizeof(buf), MSG_DONTWAIT);
	ksft_test_result(r == 10 && !memcmp(buf, "0123456789", 10),
			 "peek: a normal recv then consumes it (%d)\n", r);
	r = recv(p.c, buf, sizeof(buf), MSG_DONTWAIT);
	ksft_test_result(r < 0 && errno == EAGAIN,
			 "peek: nothing left afterwards (%d %s)\n", r,
			 r < 0 ? ndp_errname(errno) : "");
out:
	xfer_pair_close(&p);
}

struct waitall_arg {
	int fd;
	uint8_t data[4000];
};

static void *waitall_sender(void *arg)
{
	struct waitall_arg *a = arg;
	int i;

	for (i = 0; i < 4; i++) {
		usleep(100000);
		send(a->fd, a->data + i * 1000, 1000, MSG_NOSIGNAL);
	}
	return NULL;
}

static void probe_waitall(void)
{
	static struct waitall_arg a;
	struct xfer_gen g;
	struct xfer_pair p;
	struct timeval tv = { .tv_sec = 20 };
	pthread_t th;
	ssize_t r;

	if (!xfer_pair_open(&p)) {
		ksft_test_result_fail("waitall: connected pair\n");
		goto out;
	}
	xfer_gen_init(&g, opt.seed, 0, 'w');
	xfer_gen_fill(&g, a.data, sizeof(a.data));
	a.fd = p.s;
	setsockopt(p.c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	pthread_create(&th, NULL, waitall_sender, &a);
	r = recv(p.c, rxbuf, sizeof(a.data), MSG_WAITALL);
	pthread_join(th, NULL);
	ksft_test_result(r == (ssize_t)sizeof(a.data) &&
			 !memcmp(rxbuf, a.data, sizeof(a.data)),
			 "waitall: MSG_WAITALL returns all 4000 bytes sent in 4 spaced writes (%zd)\n",
			 r);
	/* MSG_WAITALL returns short at EOF. */
	send(p.s, a.data, 100, MSG_NOSIGNAL);
	shutdown(p.s, SHUT_WR);
	r = recv(p.c, rxbuf, 1000, MSG_WAITALL);
	ksft_test_result(r == 100 && !memcmp(rxbuf, a.data, 100),
			 "waitall: MSG_WAITALL returns what there is at EOF (%zd)\n", r);
out:
	xfer_pair_close(&p);
}

static void probe_names(void)
{
	struct sockaddr_storage cl, cp, sl, sp;
	socklen_t len;
	struct xfer_pair p;

	if (!xfer_pair_open(&p)) {
		ksft_test_result_fail("names: connected pair\n");
		goto out;
	}
	len = sizeof(cl);
	getsockname(p.c, (struct sockaddr *)&cl, &len);
	len = sizeof(cp);
	getpeername(p.c, (struct sockaddr *)&cp, &len);
	len = sizeof(sl);
	getsockname(p.s, (struct sockaddr *)&sl, &len);
	len = sizeof(sp);
	getpeername(p.s, (struct sockaddr *)&sp, &len);
	ksft_test_result(xfer_addr_eq(&cp, &p.srv),
			 "names: client getpeername is the server's address (%s)\n",
			 ndp_sockaddr_str(&cp));
	ksft_test_result(xfer_addr_eq(&sl, &p.srv),
			 "names: accepted getsockname is the listening address (%s)\n",
			 ndp_sockaddr_str(&sl));
	ksft_test_result(cl.ss_family == opt.family && ndp_sockaddr_port(&cl) != 0,
			 "names: client getsockname has the family and a port (%s)\n",
			 ndp_sockaddr_str(&cl));
	ksft_test_result(xfer_addr_eq(&sp, &cl),
			 "names: accepted getpeername is the client's getsockname (%s)\n",
			 ndp_sockaddr_str(&sp));
out:
	xfer_pair_close(&p);
}

/* Read exactly @len bytes from @fd into @buf within 20 s; returns the count. */
static size_t xfer_read_n(int fd, uint8_t *buf, size_t len)
{
	size_t got = 0;
	double t0 = ndp_now_s();
	ssize_t r;

	while (got < len && ndp_now_s() - t0 < 20) {
		if (!xfer_wait(fd, POLLIN, 1000))
			continue;
		r = recv(fd, buf + got, len - got, MSG_DONTWAIT);
		if (r > 0)
			got += r;
		else if (r == 0 || errno != EAGAIN)
			break;
	}
	return got;
}

/*
 * A user buffer that ends in an unmapped page, as TCP has it: send()
 * returns at most the bytes before the fault, or fails with EFAULT having
 * taken nothing, and what it took arrives intact and in order with what
 * is sent next; a send() from an unmapped address fails with EFAULT; a
 * recv() into an unmapped buffer fails with EFAULT and loses nothing.
 */
static void probe_efault(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	static uint8_t want[65536];
	struct xfer_pair p;
	struct xfer_gen g;
	uint8_t *m = NULL;
	size_t good, got, took;
	ssize_t r;

	if (!xfer_pair_open(&p)) {
		ksft_test_result_fail("efault: connected pair\n");
		goto out;
	}
	m = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED || munmap(m + 3 * pg, pg)) {
		ksft_test_result_fail("efault: mmap/munmap: %s\n", strerror(errno));
		m = NULL;
		goto out;
	}
	good = 3 * pg;
	xfer_gen_init(&g, opt.seed, 0, 'f');
	xfer_gen_fill(&g, m, good);
	memcpy(want, m, good);

	/* TCP fails the call when the fault is in the piece it copies
	 * first (its first piece may be the whole buffer).
	 */
	r = send(p.c, m, 4 * pg, MSG_NOSIGNAL);
	ksft_test_result((r > 0 && (size_t)r <= good) || (r < 0 && errno == EFAULT),
			 "efault: send() across an unmapped page returns at most the bytes before it, or EFAULT (%zd of %zu, %s)\n",
			 r, good, r < 0 ? ndp_errname(errno) : "ok");
	if ((r < 0 && errno != EFAULT) || r > (ssize_t)good)
		goto out;
	took = r > 0 ? r : 0;
	r = send(p.c, m + 3 * pg, 100, MSG_NOSIGNAL);
	ksft_test_result(r < 0 && errno == EFAULT,
			 "efault: send() from an unmapped page fails with EFAULT (%zd %s)\n",
			 r, r < 0 ? ndp_errname(errno) : "");
	memcpy(want + took, "tail", 4);
	r = send(p.c, "tail", 4, MSG_NOSIGNAL);
	printf("# send() across the fault took %zu bytes\n", took);
	got = xfer_read_n(p.s, rxbuf, took + 4);
	ksft_test_result(r == 4 && got == took + 4 && !memcmp(rxbuf, want, got),
			 "efault: the receiver gets exactly the bytes send() took, then the next send (%zu of %zu)\n",
			 got, took + 4);

	/* recv() into an unmapped page: EFAULT, the data stays queued. */
	send(p.s, "0123456789", 10, MSG_NOSIGNAL);
	xfer_wait(p.c, POLLIN, 10000);
	r = recv(p.c, m + 3 * pg, 10, MSG_DONTWAIT);
	ksft_test_result(r < 0 && errno == EFAULT,
			 "efault: recv() into an unmapped page fails with EFAULT (%zd %s)\n",
			 r, r < 0 ? ndp_errname(errno) : "");
	got = xfer_read_n(p.c, rxbuf, 10);
	ksft_test_result(got == 10 && !memcmp(rxbuf, "0123456789", 10),
			 "efault: and loses nothing: the next recv() gets all 10 bytes (%zu)\n",
			 got);
out:
	if (m)
		munmap(m, 3 * pg);
	xfer_pair_close(&p);
}

static const struct {
	const char *name;
	void (*fn)(void);
} probes[] = {
	{ "refused",	probe_refused },
	{ "eagain",	probe_eagain },
	{ "rdhup",	probe_rdhup },
	{ "rcvtimeo",	probe_rcvtimeo },
	{ "sndtimeo",	probe_sndtimeo },
	{ "addrinuse",	probe_addrinuse },
	{ "notconn",	probe_notconn },
	{ "epipe",	probe_epipe },
	{ "peek",	probe_peek },
	{ "waitall",	probe_waitall },
	{ "names",	probe_names },
	{ "efault",	probe_efault },
};

static int xfer_probe(const char *name)
{
	bool found = false;
	size_t i;

	ksft_print_header();
	printf("# %s over %s, IPv%d\n", name, opt.ndp ? "ndp" : "tcp",
	       opt.family == AF_INET ? 4 : 6);
	for (i = 0; i < ARRAY_SIZE(probes); i++) {
		if (strcmp(name, "all") && strcmp(name, probes[i].name))
			continue;
		found = true;
		probes[i].fn();
	}
	if (!found)
		ndp_die("unknown probe '%s'", name);
	/* The plan once the probes ran: TAP allows it last. */
	ksft_set_plan(ksft_test_num());
	return ndp_test_done();
}

/* ---- self checks -------------------------------------------------------- */

static int xfer_selftest(void)
{
	static const struct {
		const char *in;
		const char *out;
	} kat[] = {
		{ "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
		{ "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
	};
	struct sha256_ctx c;
	char hex[SHA256_HEX_LEN];
	size_t i, j;

	ksft_print_header();
	ksft_set_plan(ARRAY_SIZE(kat) + 1);
	for (i = 0; i < ARRAY_SIZE(kat); i++) {
		sha256_init(&c);
		/* byte by byte, to exercise the partial-block path */
		for (j = 0; kat[i].in[j]; j++)
			sha256_update(&c, kat[i].in + j, 1);
		sha256_final_hex(&c, hex);
		ksft_test_result(!strcmp(hex, kat[i].out), "sha256 of \"%s\"\n", kat[i].in);
	}
	{	/* one million 'a' */
		static const char out[] =
			"cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
		static uint8_t a[1000];

		memset(a, 'a', sizeof(a));
		sha256_init(&c);
		for (j = 0; j < 1000; j++)
			sha256_update(&c, a, sizeof(a));
		sha256_final_hex(&c, hex);
		ksft_test_result(!strcmp(hex, out), "sha256 of a million 'a'\n");
	}
	return ndp_test_done();
}

static int xfer_gen_out(unsigned int key, char dir)
{
	struct xfer_gen g;
	uint64_t left = opt.send;

	xfer_gen_init(&g, opt.seed, key, dir);
	while (left) {
		size_t n = left < XFER_BUF ? left : XFER_BUF;

		xfer_gen_fill(&g, rxbuf, n);
		if (fwrite(rxbuf, 1, n, stdout) != n)
			return KSFT_FAIL;
		left -= n;
	}
	return fflush(stdout) ? KSFT_FAIL : KSFT_PASS;
}

/* ---- command line --------------------------------------------------------- */

static void __attribute__((noreturn)) usage(void)
{
	fprintf(stderr,
		"usage: ndp_xfer [-p ndp|tcp] [-4|-6] [-P port] [-s seed] [-T secs] [-I secs] [-D dev] MODE\n"
		"  server [-b addr] [-n conns] [-S bytes] [-E bytes] [-L linger_s]\n"
		"  client -H addr [-n conns] [-S bytes] [-E bytes] [-W hold_file]\n"
		"  probe NAME|all [-H addr] [-N netns_path]\n"
		"  gen -S bytes -k key [-d c|s]\n"
		"  selftest\n");
	exit(2);
}

static void xfer_parse_opts(int argc, char **argv, unsigned int *key, char *dir)
{
	int c;

	while ((c = getopt(argc, argv, "+p:46P:s:T:I:b:n:S:E:L:H:N:k:d:D:W:")) != -1) {
		switch (c) {
		case 's':
			opt.seed = strtoull(optarg, NULL, 0);
			break;
		case 'T':
			opt.timeout_s = atoi(optarg);
			break;
		case 'I':
			opt.idle_s = atoi(optarg);
			break;
		case 'n':
			opt.conns = atoi(optarg);
			break;
		case 'S':
			opt.send = ndp_size_arg(optarg);
			break;
		case 'E':
			opt.expect = ndp_size_arg(optarg);
			break;
		case 'L':
			opt.linger_s = atoi(optarg);
			break;
		case 'W':
			opt.hold = optarg;
			break;
		case 'H':
			opt.host = optarg;
			break;
		case 'N':
			opt.netns = optarg;
			break;
		case 'D':
			opt.dev = optarg;
			break;
		case 'k':
			*key = atoi(optarg);
			break;
		case 'd':
			*dir = optarg[0];
			break;
		default:
			if (ndp_sock_opt(c, optarg, &opt.ndp, &opt.family,
					 &opt.port, &opt.bind) != 1)
				usage();
		}
	}
}

int main(int argc, char **argv)
{
	const char *env = getenv("NDP_TEST_PROTO"), *mode, *probe = NULL;
	unsigned int key = 0;
	char dir = 'c';
	int base;

	if (env && !strcmp(env, "tcp"))
		opt.ndp = false;
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* global options, the mode word (and a probe's name), mode options */
	xfer_parse_opts(argc, argv, &key, &dir);
	if (optind >= argc)
		usage();
	base = optind;
	mode = argv[base];
	if (!strcmp(mode, "probe")) {
		if (base + 1 >= argc)
			usage();
		probe = argv[++base];
	}
	optind = 1;	/* argv[base] serves as argv[0] of the second pass */
	xfer_parse_opts(argc - base, argv + base, &key, &dir);
	if (optind < argc - base)
		usage();
	if (opt.conns < 1 || opt.conns > XFER_MAX_CONNS)
		ndp_die("-n must be 1..%d", XFER_MAX_CONNS);

	if (!strcmp(mode, "server"))
		return xfer_server();
	if (!strcmp(mode, "client"))
		return xfer_client();
	if (probe)
		return xfer_probe(probe);
	if (!strcmp(mode, "gen"))
		return xfer_gen_out(key, dir);
	if (!strcmp(mode, "selftest"))
		return xfer_selftest();
	usage();
}
