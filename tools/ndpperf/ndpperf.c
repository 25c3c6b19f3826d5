// SPDX-License-Identifier: GPL-2.0
/*
 * ndpperf: request/response, bulk and incast benchmark with identical code
 * for NDP and TCP; the socket type is the only difference (-p ndp|tcp).
 *
 *   server:  ndpperf -s [-S] [-p ndp|tcp] [-4|-6] [-P PORT] [-b ADDR]
 *                    [-G FILE]
 *   client:  ndpperf -c HOST[,HOST...] [-p ndp|tcp] [-4|-6] [-P PORT]
 *                    [-m rr|crr|bulk|incast] [-r REQ] [-R RESP] [-n ITER]
 *                    [-d SECS] [-w WARMUP] [-N FLOWS] [-Q PRIO] [-D]
 *                    [-o RAWFILE] [-T TIMEOUT] [-q]
 *
 * Every exchange is one request and one response on a connection:
 *
 *   request:  struct perf_req (32 bytes) + REQ bytes of payload
 *   response: struct perf_resp (16 bytes) + RESP bytes of payload
 *
 * Payload bytes are a pseudo-random stream derived from the request's
 * sequence number and direction.  The server checks every request byte
 * and reports the verdict in the response header; the client checks
 * every response byte.  Any mismatch, short read or protocol error ends
 * the run with "ndpperf: FAIL ..." on stderr and exit status 1: numbers
 * are only printed for runs whose bytes all arrived intact.
 *
 * Modes (one sample per iteration, in microseconds):
 *   rr      one persistent connection; sample = request sent to response
 *           fully received (REQ and RESP default 1 KB);
 *   crr     a new connection per request: connect, send, receive, close;
 *   bulk    FLOWS connections (default 1) each send REQ bytes (default
 *           64 MB) at once; sample = completion of each flow; goodput is
 *           total bytes over the time to the last completion; the result
 *           line also has the machine's CPU time over the rounds (cpu_s,
 *           cpu_busy: /proc/stat, all CPUs, both ends if they share it);
 *   incast  FLOWS connections spread over the HOSTs (round robin) get a
 *           small request (REQ, default 64 B) at the same moment and each
 *           answers RESP bytes (default 64 KB); sample = completion of the
 *           last response (the N:1 incast of the NDP paper).
 * -Q sets SO_PRIORITY on the client's sockets and asks the server to set
 * it on its end too, so a prioritised flow can be run beside long flows.
 * -D sets TCP_NODELAY (TCP only).  -o writes the raw samples, one per line.
 *
 * The server serves each connection in a thread of its own, so that bulk
 * and incast flows run at once.  With -S it serves them one after another
 * in the accepting thread, as netperf's TCP_CRR server does: a new thread
 * per connection costs more than a round trip under emulation and would
 * hide the handshake NDP saves, so crr is measured against -S.
 *
 * Goodput (-G FILE, server): every 50 ms a thread replaces FILE (written
 * to FILE.tmp, then renamed) with one line "NS BYTES": the CLOCK_REALTIME
 * time in nanoseconds and the request payload bytes the server has
 * received and found intact so far, over all its connections (a chunk
 * counts once it has been checked; after the first bad byte of a request
 * nothing more of it counts).  Two readings of FILE give the application
 * goodput over the time between them, whatever the link carried
 * (duplicates, headers, control packets).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/ndp.h>

#include "ndp_util.h"

/* Every fatal error: "ndpperf: FAIL: ...", exit status 1. */
#define fail(...)	ndp_die("FAIL: " __VA_ARGS__)

#define PERF_REQ_MAGIC	0x4e445052	/* "NDPR" */
#define PERF_RESP_MAGIC	0x4e445041	/* "NDPA" */
#define PERF_BUF	(64 * 1024)
#define PERF_MAX_FLOWS	1024

struct perf_req {
	uint32_t magic;
	uint32_t prio;		/* SO_PRIORITY for the server's end, 0 = leave */
	uint64_t seq;
	uint64_t req_len;
	uint64_t resp_len;
};

struct perf_resp {
	uint32_t magic;
	uint32_t status;	/* 0: request intact; else first bad offset + 1 */
	uint64_t seq;
};

enum perf_mode { PERF_RR, PERF_CRR, PERF_BULK, PERF_INCAST };

static struct {
	bool server, serial, ndp, nodelay, quiet;
	int family, port, flows, prio, warmup, timeout_s;
	enum perf_mode mode;
	const char *bind, *raw, *goodput;
	char *hosts[PERF_MAX_FLOWS];
	int nhosts;
	int64_t req, resp, iters;
	double duration;
} opt = {
	.ndp = true, .family = AF_INET, .port = 5300, .flows = 1, .warmup = -1,
	.timeout_s = 60, .req = -1, .resp = -1, .iters = -1,
};

/*
 * The machine's CPU time in clock ticks from the aggregate "cpu" line of
 * /proc/stat: @busy = user + nice + system + irq + softirq, @total = busy +
 * idle + iowait + steal.  False when it cannot be read.
 */
static bool cpu_ticks(unsigned long long *busy, unsigned long long *total)
{
	unsigned long long v[8];
	FILE *f = fopen("/proc/stat", "r");
	int n;

	if (!f)
		return false;
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu",
		   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n != 8)
		return false;
	*busy = v[0] + v[1] + v[2] + v[5] + v[6];
	*total = *busy + v[3] + v[4] + v[7];
	return true;
}

/* CPU seconds and busy fraction over the bulk rounds; < 0 when unknown */
static double perf_cpu_s = -1, perf_cpu_busy = -1;

/* ---- payload pattern --------------------------------------------------- */

/* splitmix64 over a counter: the byte at any offset is reproducible. */
static uint64_t perf_mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Fill @p with bytes [@off, @off + @n) of the stream (@seq, @dir). */
static void perf_pattern(uint8_t *p, uint64_t seq, char dir, uint64_t off, size_t n)
{
	uint64_t base = perf_mix(seq * 2 + (dir == 'r'));
	uint64_t w = off / 8, v;
	size_t skip = off % 8, k;

	while (n) {
		v = perf_mix(base + w++);
		k = 8 - skip;
		if (k > n)
			k = n;
		memcpy(p, (uint8_t *)&v + skip, k);
		p += k;
		n -= k;
		skip = 0;
	}
}

/* Index of the first byte of @p that differs from the stream, or -1. */
static int64_t perf_check(const uint8_t *p, uint64_t seq, char dir, uint64_t off,
			  size_t n)
{
	static __thread uint8_t exp[PERF_BUF];
	size_t i;

	perf_pattern(exp, seq, dir, off, n);
	if (!memcmp(p, exp, n))
		return -1;
	for (i = 0; p[i] == exp[i]; i++)
		;
	return i;
}

/* ---- sockets ------------------------------------------------------------ */

static int perf_socket(void)
{
	int fd = ndp_stream_socket(opt.family, opt.ndp, 0);

	if (fd < 0)
		fail("socket(%s): %s", opt.ndp ? "SOCK_NDP" : "SOCK_STREAM",
		     strerror(errno));
	return fd;
}

static void perf_sockopts(int fd)
{
	int one = 1;

	if (opt.prio && setsockopt(fd, SOL_SOCKET, SO_PRIORITY, &opt.prio,
				   sizeof(opt.prio)))
		fail("SO_PRIORITY %d: %s", opt.prio, strerror(errno));
	if (opt.nodelay && !opt.ndp &&
	    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))
		fail("TCP_NODELAY: %s", strerror(errno));
}

static int perf_connect(const char *host)
{
	struct sockaddr_storage ss;
	socklen_t len = ndp_sockaddr(&ss, opt.family, host, opt.port);
	struct timeval tv = { .tv_sec = opt.timeout_s };
	int fd = perf_socket();

	perf_sockopts(fd);
	/* A stuck peer must not hang a benchmark forever. */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&ss, len))
		fail("connect %s port %d: %s", host, opt.port, strerror(errno));
	return fd;
}

static int perf_write_all(int fd, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n) {
		ssize_t r = send(fd, b, n, MSG_NOSIGNAL);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		b += r;
		n -= r;
	}
	return 0;
}

/* Read exactly @n bytes; 0 on success, 1 on EOF before any byte, -errno. */
static int perf_read_all(int fd, void *p, size_t n)
{
	uint8_t *b = p;
	size_t got = 0;

	while (got < n) {
		ssize_t r = recv(fd, b + got, n - got, 0);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			return got ? -EPIPE : 1;
		got += r;
	}
	return 0;
}

/*
 * Send @hlen bytes of header then @len bytes of stream (@seq, @dir), the
 * header in the same write as the first payload bytes: a separate small
 * write would meet Nagle and delayed ACKs on TCP (write-write-read).
 */
static int perf_send_msg(int fd, const void *hdr, size_t hlen, uint64_t seq,
			 char dir, uint64_t len)
{
	static __thread uint8_t buf[PERF_BUF];
	uint64_t off = 0;
	int err;

	do {
		size_t room = PERF_BUF - hlen;
		size_t n = len - off < room ? len - off : room;

		memcpy(buf, hdr, hlen);
		perf_pattern(buf + hlen, seq, dir, off, n);
		err = perf_write_all(fd, buf, hlen + n);
		if (err)
			return err;
		off += n;
		hlen = 0;
	} while (off < len);
	return 0;
}

/* Request payload bytes received and found intact (server, -G). */
static uint64_t perf_verified;

/*
 * Receive and check @len bytes of stream (@seq, @dir).  Returns 0, -errno,
 * or the first corrupt offset + 1 (positive).  Intact request bytes
 * (@dir 'q') are added to perf_verified.
 */
static int64_t perf_recv_payload(int fd, uint64_t seq, char dir, uint64_t len)
{
	static __thread uint8_t buf[PERF_BUF];
	uint64_t off = 0;
	int64_t bad = -1, i;

	while (off < len) {
		size_t want = len - off < PERF_BUF ? len - off : PERF_BUF;
		ssize_t r = recv(fd, buf, want, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -EPIPE;
		if (bad < 0) {
			i = perf_check(buf, seq, dir, off, r);
			if (i >= 0)
				bad = off + i;
			else if (dir == 'q')
				__atomic_fetch_add(&perf_verified, r, __ATOMIC_RELAXED);
		}
		off += r;
	}
	return bad < 0 ? 0 : bad + 1;
}

/* ---- server --------------------------------------------------------------- */

/* strerror(), except that a receive timeout says what it means. */
static const char *perf_strerror(int err)
{
	static char msg[64];

	if (err != EAGAIN && err != EWOULDBLOCK)
		return strerror(err);
	snprintf(msg, sizeof(msg), "nothing received for %d s (stalled?)",
		 opt.timeout_s);
	return msg;
}

static void *perf_serve(void *arg)
{
	int fd = (intptr_t)arg, cur_prio = 0;
	struct perf_req q;
	struct perf_resp a;
	int64_t r;

	for (;;) {
		r = perf_read_all(fd, &q, sizeof(q));
		if (r == 1)
			break;		/* clean end of connection */
		if (r < 0) {
			fprintf(stderr, "ndpperf: server: reading a request: %s\n",
				perf_strerror(-r));
			break;
		}
		if (q.magic != PERF_REQ_MAGIC) {
			fprintf(stderr, "ndpperf: FAIL: server: bad request magic %#x\n",
				q.magic);
			break;
		}
		if (q.prio && (int)q.prio != cur_prio) {
			cur_prio = q.prio;
			setsockopt(fd, SOL_SOCKET, SO_PRIORITY, &cur_prio, sizeof(cur_prio));
		}
		r = perf_recv_payload(fd, q.seq, 'q', q.req_len);
		if (r < 0) {
			fprintf(stderr, "ndpperf: server: reading request %llu: %s\n",
				(unsigned long long)q.seq, perf_strerror(-r));
			break;
		}
		if (r > 0)
			fprintf(stderr,
				"ndpperf: FAIL: server: request %llu corrupt at byte %lld\n",
				(unsigned long long)q.seq, (long long)r - 1);
		a.magic = PERF_RESP_MAGIC;
		a.status = r > UINT32_MAX ? UINT32_MAX : r;
		a.seq = q.seq;
		r = perf_send_msg(fd, &a, sizeof(a), q.seq, 'r', q.resp_len);
		if (r) {
			fprintf(stderr, "ndpperf: server: sending response %llu: %s\n",
				(unsigned long long)q.seq, perf_strerror(-r));
			break;
		}
	}
	close(fd);
	return NULL;
}

/* -G: replace opt.goodput with "NS BYTES" every 50 ms (see the top). */
static void *perf_goodput(void *arg)
{
	static char tmp[4096];
	struct timespec ts, tick = { 0, 50 * 1000 * 1000 };
	unsigned long long v;
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", opt.goodput);
	for (;;) {
		v = __atomic_load_n(&perf_verified, __ATOMIC_RELAXED);
		clock_gettime(CLOCK_REALTIME, &ts);
		f = fopen(tmp, "w");
		if (!f)
			fail("-G %s: %s", tmp, strerror(errno));
		fprintf(f, "%llu %llu\n",
			(unsigned long long)ts.tv_sec * 1000000000ULL + ts.tv_nsec, v);
		if (fclose(f) || rename(tmp, opt.goodput))
			fail("-G %s: %s", opt.goodput, strerror(errno));
		nanosleep(&tick, NULL);
	}
	return NULL;
}

static int perf_server(void)
{
	struct sockaddr_storage ss;
	socklen_t len = ndp_sockaddr(&ss, opt.family, opt.bind, opt.port);
	int lfd = perf_socket(), one = 1;

	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&ss, len))
		fail("bind port %d: %s", opt.port, strerror(errno));
	if (listen(lfd, 1024))
		fail("listen: %s", strerror(errno));
	fprintf(stderr, "ndpperf: %s server listening on port %d\n",
		opt.ndp ? "ndp" : "tcp", opt.port);
	if (opt.goodput) {
		pthread_t gt;

		if (pthread_create(&gt, NULL, perf_goodput, NULL))
			fail("-G: cannot start the goodput thread");
		pthread_detach(gt);
	}
	for (;;) {
		pthread_t th;
		int fd = accept(lfd, NULL, NULL);

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			fail("accept: %s", strerror(errno));
		}
		if (opt.serial) {
			perf_serve((void *)(intptr_t)fd);
			continue;
		}
		if (pthread_create(&th, NULL, perf_serve, (void *)(intptr_t)fd)) {
			close(fd);
			continue;
		}
		pthread_detach(th);
	}
}

/* ---- client --------------------------------------------------------------- */

static uint64_t perf_seq;

/* One request/response on @fd, blocking; fails the run on any error. */
static void perf_exchange(int fd, uint64_t seq, uint64_t req, uint64_t resp)
{
	struct perf_req q = {
		.magic = PERF_REQ_MAGIC, .prio = opt.prio, .seq = seq,
		.req_len = req, .resp_len = resp,
	};
	struct perf_resp a;
	int64_t r;

	r = perf_send_msg(fd, &q, sizeof(q), seq, 'q', req);
	if (r)
		fail("sending request %llu: %s", (unsigned long long)seq, perf_strerror(-r));
	r = perf_read_all(fd, &a, sizeof(a));
	if (r)
		fail("reading response %llu header: %s", (unsigned long long)seq,
		     r == 1 ? "connection closed" : perf_strerror(-r));
	if (a.magic != PERF_RESP_MAGIC || a.seq != seq)
		fail("response %llu: bad header (magic %#x seq %llu)",
		     (unsigned long long)seq, a.magic, (unsigned long long)a.seq);
	if (a.status)
		fail("request %llu arrived corrupt at the server (byte %u)",
		     (unsigned long long)seq, a.status - 1);
	r = perf_recv_payload(fd, seq, 'r', resp);
	if (r < 0)
		fail("reading response %llu: %s", (unsigned long long)seq, perf_strerror(-r));
	if (r > 0)
		fail("response %llu corrupt at byte %lld", (unsigned long long)seq,
		     (long long)r - 1);
}

/* Per-flow state of a non-blocking exchange (incast). */
struct perf_flow {
	int fd;
	uint64_t seq, got;	/* payload bytes received */
	struct perf_resp a;
	size_t ahave;		/* header bytes received */
	uint64_t done_ns;
};

static void perf_flow_read(struct perf_flow *f, uint64_t resp, uint64_t now)
{
	static uint8_t buf[PERF_BUF];
	ssize_t r;

	while (!f->done_ns) {
		if (f->ahave < sizeof(f->a)) {
			r = recv(f->fd, (uint8_t *)&f->a + f->ahave,
				 sizeof(f->a) - f->ahave, MSG_DONTWAIT);
		} else {
			uint64_t left = resp - f->got;

			r = recv(f->fd, buf, left < PERF_BUF ? left : PERF_BUF,
				 MSG_DONTWAIT);
		}
		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (r < 0)
			fail("incast response %llu: %s", (unsigned long long)f->seq,
			     strerror(errno));
		if (r == 0)
			fail("incast response %llu: connection closed",
			     (unsigned long long)f->seq);
		if (f->ahave < sizeof(f->a)) {
			f->ahave += r;
			if (f->ahave < sizeof(f->a))
				continue;
			if (f->a.magic != PERF_RESP_MAGIC || f->a.seq != f->seq)
				fail("incast response %llu: bad header",
				     (unsigned long long)f->seq);
			if (f->a.status)
				fail("incast request %llu arrived corrupt",
				     (unsigned long long)f->seq);
		} else {
			int64_t i = perf_check(buf, f->seq, 'r', f->got, r);

			if (i >= 0)
				fail("incast response %llu corrupt at byte %lld",
				     (unsigned long long)f->seq, (long long)(f->got + i));
			f->got += r;
		}
		if (f->ahave == sizeof(f->a) && f->got == resp)
			f->done_ns = now;
	}
}

/* One incast round over @flows; returns the last completion in ns. */
static uint64_t perf_incast_round(struct perf_flow *flows, int n, uint64_t req,
				  uint64_t resp)
{
	struct pollfd pfd[PERF_MAX_FLOWS];
	uint64_t t0, left = n, deadline;
	int i, r;

	for (i = 0; i < n; i++) {
		flows[i].seq = ++perf_seq;
		flows[i].got = 0;
		flows[i].ahave = 0;
		flows[i].done_ns = 0;
	}
	t0 = ndp_now_ns();
	deadline = t0 + opt.timeout_s * 1000000000ULL;
	for (i = 0; i < n; i++) {
		struct perf_req q = {
			.magic = PERF_REQ_MAGIC, .prio = opt.prio,
			.seq = flows[i].seq, .req_len = req, .resp_len = resp,
		};

		r = perf_send_msg(flows[i].fd, &q, sizeof(q), q.seq, 'q', req);
		if (r)
			fail("incast request %llu: %s", (unsigned long long)q.seq,
			     perf_strerror(-r));
	}
	while (left) {
		uint64_t now = ndp_now_ns();

		if (now > deadline)
			fail("incast round timed out after %d s (%llu flows left)",
			     opt.timeout_s, (unsigned long long)left);
		for (i = 0; i < n; i++) {
			pfd[i].fd = flows[i].done_ns ? -1 : flows[i].fd;
			pfd[i].events = POLLIN;
		}
		r = poll(pfd, n, 1000);
		if (r < 0 && errno != EINTR)
			fail("poll: %s", strerror(errno));
		now = ndp_now_ns();
		for (i = 0; i < n && r > 0; i++) {
			if (!pfd[i].revents)
				continue;
			perf_flow_read(&flows[i], resp, now);
			if (flows[i].done_ns)
				left--;
		}
	}
	t0 = ndp_now_ns() - t0;
	return t0;
}

struct perf_bulk {
	pthread_t th;
	const char *host;
	uint64_t seq, start_ns, end_ns;
};

static void *perf_bulk_flow(void *arg)
{
	struct perf_bulk *b = arg;
	int fd = perf_connect(b->host);

	b->start_ns = ndp_now_ns();
	perf_exchange(fd, b->seq, opt.req, opt.resp);
	b->end_ns = ndp_now_ns();
	close(fd);
	return NULL;
}

static int perf_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double perf_pct(const double *s, size_t n, double p)
{
	size_t i = (size_t)ceil(p / 100.0 * n);

	return s[i ? i - 1 : 0];
}

/*
 * Print the summary of @n samples (microseconds).  @goodput in Mbit/s, or
 * 0 to derive it from @sample_bits (payload bits one sample moves) over
 * the median sample, or 0 with @sample_bits 0 for none.
 */
static void perf_report(const char *what, double *s, size_t n, double goodput,
			double sample_bits)
{
	double sum = 0;
	size_t i;

	if (opt.raw) {
		FILE *f = fopen(opt.raw, "w");

		if (!f)
			fail("%s: %s", opt.raw, strerror(errno));
		for (i = 0; i < n; i++)
			fprintf(f, "%.3f\n", s[i]);
		fclose(f);
	}
	for (i = 0; i < n; i++)
		sum += s[i];
	qsort(s, n, sizeof(*s), perf_cmp);
	if (!goodput && sample_bits > 0 && perf_pct(s, n, 50) > 0)
		goodput = sample_bits / perf_pct(s, n, 50);	/* bit/us = Mbit/s */
	printf("%s %s: n %zu min %.1f p50 %.1f p90 %.1f p99 %.1f max %.1f mean %.1f us",
	       what, opt.ndp ? "ndp" : "tcp", n, s[0], perf_pct(s, n, 50),
	       perf_pct(s, n, 90), perf_pct(s, n, 99), s[n - 1], sum / n);
	if (goodput > 0)
		printf(" goodput %.1f Mbit/s", goodput);
	if (perf_cpu_s >= 0)
		printf(" cpu %.2f s (busy %.2f)", perf_cpu_s, perf_cpu_busy);
	printf("\n");
	fprintf(stdout,
		"RESULT proto=%s mode=%s req=%lld resp=%lld flows=%d prio=%d n=%zu min_us=%.1f p50_us=%.1f p90_us=%.1f p99_us=%.1f max_us=%.1f mean_us=%.1f goodput_mbps=%.1f",
		opt.ndp ? "ndp" : "tcp", what, (long long)opt.req, (long long)opt.resp,
		opt.flows, opt.prio, n, s[0], perf_pct(s, n, 50), perf_pct(s, n, 90),
		perf_pct(s, n, 99), s[n - 1], sum / n, goodput);
	if (perf_cpu_s >= 0)
		fprintf(stdout, " cpu_s=%.3f cpu_busy=%.3f", perf_cpu_s, perf_cpu_busy);
	fprintf(stdout, "\n");
}

/* Keep going while iterations and time remain. */
static bool perf_more(int64_t i, uint64_t t0)
{
	if (opt.duration > 0 && ndp_now_ns() - t0 >= opt.duration * 1e9)
		return false;
	return i < opt.iters;
}

static int perf_client(void)
{
	static const char *const names[] = { "rr", "crr", "bulk", "incast" };
	double *s;
	int64_t i, n = 0, cap;
	uint64_t t0;
	int fd;

	if (opt.req < 0)
		opt.req = opt.mode == PERF_BULK ? 64 << 20 :
			  opt.mode == PERF_INCAST ? 64 : 1024;
	if (opt.resp < 0)
		opt.resp = opt.mode == PERF_BULK ? 0 :
			   opt.mode == PERF_INCAST ? 64 << 10 : 1024;
	if (opt.iters < 0)
		opt.iters = opt.mode == PERF_BULK ? 1 :
			    opt.mode == PERF_INCAST ? 20 : 1000;
	if (opt.duration > 0 && !opt.iters)
		opt.iters = INT64_MAX;
	if (opt.warmup < 0)
		opt.warmup = opt.mode == PERF_BULK ? 0 : opt.mode == PERF_INCAST ? 2 : 10;
	cap = opt.iters < (1 << 20) ? opt.iters : (1 << 20);
	if (opt.mode == PERF_BULK)
		cap = opt.iters * opt.flows;
	s = calloc(cap + 1, sizeof(*s));
	if (!s)
		fail("out of memory");
	if (!opt.quiet)
		fprintf(stderr, "ndpperf: %s %s to %s port %d: req %lld resp %lld flows %d\n",
			opt.ndp ? "ndp" : "tcp", names[opt.mode], opt.hosts[0], opt.port,
			(long long)opt.req, (long long)opt.resp, opt.flows);

	switch (opt.mode) {
	case PERF_RR:
		fd = perf_connect(opt.hosts[0]);
		for (i = 0; i < opt.warmup; i++)
			perf_exchange(fd, ++perf_seq, opt.req, opt.resp);
		t0 = ndp_now_ns();
		for (i = 0; perf_more(i, t0) && n < cap; i++) {
			uint64_t t = ndp_now_ns();

			perf_exchange(fd, ++perf_seq, opt.req, opt.resp);
			s[n++] = (ndp_now_ns() - t) / 1e3;
		}
		close(fd);
		perf_report("rr", s, n, 0, 0);
		break;
	case PERF_CRR:
		for (i = 0; i < opt.warmup; i++) {
			fd = perf_connect(opt.hosts[0]);
			perf_exchange(fd, ++perf_seq, opt.req, opt.resp);
			close(fd);
		}
		t0 = ndp_now_ns();
		for (i = 0; perf_more(i, t0) && n < cap; i++) {
			uint64_t t = ndp_now_ns();

			fd = perf_connect(opt.hosts[0]);
			perf_exchange(fd, ++perf_seq, opt.req, opt.resp);
			close(fd);
			s[n++] = (ndp_now_ns() - t) / 1e3;
		}
		perf_report("crr", s, n, 0, 0);
		break;
	case PERF_BULK: {
		struct perf_bulk *b = calloc(opt.flows, sizeof(*b));
		unsigned long long busy0, total0, busy1, total1;
		uint64_t first = 0, last = 0;
		bool cpu;
		int f;

		cpu = cpu_ticks(&busy0, &total0);
		for (i = 0; i < opt.iters; i++) {
			first = UINT64_MAX;
			last = 0;
			for (f = 0; f < opt.flows; f++) {
				b[f].host = opt.hosts[f % opt.nhosts];
				b[f].seq = ++perf_seq;
				pthread_create(&b[f].th, NULL, perf_bulk_flow, &b[f]);
			}
			for (f = 0; f < opt.flows; f++) {
				pthread_join(b[f].th, NULL);
				if (b[f].start_ns < first)
					first = b[f].start_ns;
				if (b[f].end_ns > last)
					last = b[f].end_ns;
				s[n++] = (b[f].end_ns - b[f].start_ns) / 1e3;
			}
			t0 = last - first;	/* this round's makespan */
			if (!opt.quiet)
				fprintf(stderr, "ndpperf: bulk round %lld: %.1f Mbit/s\n",
					(long long)i, opt.flows * (opt.req + opt.resp) * 8.0 /
					(t0 / 1e9) / 1e6);
		}
		if (cpu && cpu_ticks(&busy1, &total1) && total1 > total0) {
			long hz = sysconf(_SC_CLK_TCK);

			perf_cpu_s = (double)(busy1 - busy0) / (hz > 0 ? hz : 100);
			perf_cpu_busy = (double)(busy1 - busy0) / (total1 - total0);
		}
		/* goodput of the last round: all flows' bytes over the makespan */
		perf_report("bulk", s, n, opt.flows * (opt.req + opt.resp) * 8.0 /
			    ((last - first) / 1e9) / 1e6, 0);
		free(b);
		break;
	}
	case PERF_INCAST: {
		struct perf_flow *flows = calloc(opt.flows, sizeof(*flows));
		int f;

		if (opt.flows > PERF_MAX_FLOWS)
			fail("at most %d flows", PERF_MAX_FLOWS);
		for (f = 0; f < opt.flows; f++)
			flows[f].fd = perf_connect(opt.hosts[f % opt.nhosts]);
		for (i = 0; i < opt.warmup; i++)
			perf_incast_round(flows, opt.flows, opt.req, opt.resp);
		t0 = ndp_now_ns();
		for (i = 0; perf_more(i, t0) && n < cap; i++)
			s[n++] = perf_incast_round(flows, opt.flows, opt.req, opt.resp) / 1e3;
		for (f = 0; f < opt.flows; f++)
			close(flows[f].fd);
		/* goodput: response bytes of a round over its median time */
		perf_report("incast", s, n, 0, opt.flows * opt.resp * 8.0);
		free(flows);
		break;
	}
	}
	if (!n)
		fail("no samples");
	free(s);
	return 0;
}

/* ---- command line ------------------------------------------------------------ */

static void __attribute__((noreturn)) usage(void)
{
	fprintf(stderr,
		"usage: ndpperf -s [-S] [-p ndp|tcp] [-4|-6] [-P port] [-b addr]\n"
		"               [-G goodput_file]\n"
		"       ndpperf -c host[,host...] [-p ndp|tcp] [-4|-6] [-P port]\n"
		"               [-m rr|crr|bulk|incast] [-r req] [-R resp] [-n iters]\n"
		"               [-d secs] [-w warmup] [-N flows] [-Q prio] [-D]\n"
		"               [-o rawfile] [-T timeout_s] [-q]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	bool client;
	char *tok;
	int c;

	while ((c = getopt(argc, argv, "sSc:p:46P:b:G:m:r:R:n:d:w:N:Q:Do:T:qh")) != -1) {
		switch (c) {
		case 's':
			opt.server = true;
			break;
		case 'S':
			opt.serial = true;
			break;
		case 'c':
			for (tok = strtok(optarg, ","); tok && opt.nhosts < PERF_MAX_FLOWS;
			     tok = strtok(NULL, ","))
				opt.hosts[opt.nhosts++] = tok;
			break;
		case 'G':
			opt.goodput = optarg;
			break;
		case 'm':
			if (!strcmp(optarg, "rr"))
				opt.mode = PERF_RR;
			else if (!strcmp(optarg, "crr"))
				opt.mode = PERF_CRR;
			else if (!strcmp(optarg, "bulk"))
				opt.mode = PERF_BULK;
			else if (!strcmp(optarg, "incast"))
				opt.mode = PERF_INCAST;
			else
				usage();
			break;
		case 'r':
			opt.req = ndp_size_arg(optarg);
			break;
		case 'R':
			opt.resp = ndp_size_arg(optarg);
			break;
		case 'n':
			opt.iters = atoll(optarg);
			break;
		case 'd':
			opt.duration = atof(optarg);
			break;
		case 'w':
			opt.warmup = atoi(optarg);
			break;
		case 'N':
			opt.flows = atoi(optarg);
			break;
		case 'Q':
			opt.prio = atoi(optarg);
			break;
		case 'D':
			opt.nodelay = true;
			break;
		case 'o':
			opt.raw = optarg;
			break;
		case 'T':
			opt.timeout_s = atoi(optarg);
			break;
		case 'q':
			opt.quiet = true;
			break;
		default:
			if (ndp_sock_opt(c, optarg, &opt.ndp, &opt.family,
					 &opt.port, &opt.bind) != 1)
				usage();
		}
	}
	client = opt.nhosts > 0;
	if (optind != argc || opt.server == client ||
	    (opt.serial && !opt.server) || (opt.goodput && !opt.server))
		usage();
	if (opt.flows < 1 || opt.flows > PERF_MAX_FLOWS)
		fail("-N must be 1..%d", PERF_MAX_FLOWS);
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	return opt.server ? perf_server() : perf_client();
}
