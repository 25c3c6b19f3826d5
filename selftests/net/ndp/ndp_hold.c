// SPDX-License-Identifier: GPL-2.0
/*
 * ndp_hold: a window that arrives while the receiving application holds
 * its socket (Documentation/networking/ndp-transport.rst, "Locking").
 *
 *   ndp_hold NETNS_B ADDR PORT [-b BUF] [-S BYTES] [-w PKTS] [-4|-6]
 *
 * The client runs in the caller's namespace, the server in a thread that
 * joined NETNS_B (a path such as /run/netns/NAME), listening on PORT of
 * ADDR.  The client sends a first message of 1000 bytes, which the server
 * reads; with -b the server then sets SO_RCVBUF and SO_SNDBUF of the
 * connection to BUF.  The server's application then calls send() from a
 * page registered with userfaultfd: the copy faults inside sendmsg(),
 * which holds the socket (lock_sock()) until the fault is resolved, and
 * every packet that arrives meanwhile waits in the socket's backlog.
 * Only once the fault is seen does the client send its second message
 * (BYTES, default 1 MB): a new window, pushed at once.  The server
 * resolves the fault when InPkts of its namespace has moved by PKTS
 * (default 15, net.ndp.init_window's default), or by all the client sent
 * once it has sent nothing more for a second (a window cut short), or at
 * a deadline, then reads the message, checking every byte.
 *
 * Output: KTAP lines (hold seen, window arrived while held, message
 * intact) and "# HOLD key=value" lines for the calling script, which
 * judges the counters (BacklogShed, BacklogDrop; held_shed and held_drop
 * are their moves from the fault to send()'s return, by when
 * release_sock() has processed what the hold left in the backlog, so
 * they count the held window alone, not the read of the rest).  Exit 0
 * when all
 * passed, 4 (skip) without userfaultfd, 1 otherwise.  NDP_TIME_FACTOR
 * (lib.sh) scales the deadlines.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>
#include <linux/ndp.h>

#include "ndp_util.h"
#include "ndp_test.h"

#define MSG1_BYTES	1000

static struct {
	const char *ns_b;
	struct sockaddr_storage addr;
	socklen_t alen;
	int family;
	int buf;
	uint64_t bytes;
	unsigned int pkts;
	unsigned int factor;
} opt = { .bytes = 1 << 20, .pkts = 15, .factor = 1 };

/* What the threads tell each other, under lock. */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool listening, holding;	/* holding: or gave up (no fault) */
	bool fault_seen, window_seen, intact, skip;
	uint64_t got, in_pkts;
	uint64_t sent, cuts;	/* the client's OutData, RoomCuts: hold */
	uint64_t held_shed, held_drop;	/* BacklogShed/Drop of the hold */
	double held_ms;
} st = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
};

static void st_set(bool *flag)
{
	pthread_mutex_lock(&st.lock);
	*flag = true;
	pthread_cond_broadcast(&st.cond);
	pthread_mutex_unlock(&st.lock);
}

/* Wait until *@flag or @secs pass (scaled); returns *@flag. */
static bool st_wait(bool *flag, int secs)
{
	struct timespec ts;
	bool v;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += (time_t)secs * opt.factor;
	pthread_mutex_lock(&st.lock);
	while (!*flag &&
	       pthread_cond_timedwait(&st.cond, &st.lock, &ts) != ETIMEDOUT)
		;
	v = *flag;
	pthread_mutex_unlock(&st.lock);
	return v;
}

static uint8_t pattern(uint64_t i, unsigned int seed)
{
	return (uint8_t)(i * 7 + (i >> 9) + seed * 13);
}

/*
 * A counter of /proc/net/ndp_stat in this thread's namespace (@ns_b: the
 * server's), else in the main thread's (the client's).
 */
static uint64_t ndp_counter_of(bool ns_b, const char *name)
{
	FILE *f = fopen(ns_b ? "/proc/thread-self/net/ndp_stat" :
			"/proc/self/net/ndp_stat", "r");
	unsigned long long v;
	uint64_t val = 0;
	char key[64];

	if (!f)
		return 0;
	while (fscanf(f, "%63s %llu", key, &v) == 2) {
		if (!strcmp(key, name)) {
			val = v;
			break;
		}
	}
	fclose(f);
	return val;
}

static uint64_t ndp_counter(const char *name)
{
	return ndp_counter_of(true, name);
}

/* Both threads send and receive: their buffers are their own. */
#define XFER_CHUNK	16384

static int send_all(int fd, uint64_t n, unsigned int seed)
{
	uint8_t buf[XFER_CHUNK];
	uint64_t off = 0;

	while (off < n) {
		size_t len = n - off < sizeof(buf) ? n - off : sizeof(buf);
		ssize_t r;
		size_t i;

		for (i = 0; i < len; i++)
			buf[i] = pattern(off + i, seed);
		r = send(fd, buf, len, MSG_NOSIGNAL);
		if (r <= 0)
			return -1;
		off += r;
	}
	return 0;
}

/* Read @n bytes; with @seed, check them against the pattern. */
static uint64_t recv_check(int fd, uint64_t n, int seed, bool *intact)
{
	uint8_t buf[XFER_CHUNK];
	uint64_t off = 0;

	*intact = true;
	while (off < n) {
		size_t len = n - off < sizeof(buf) ? n - off : sizeof(buf);
		ssize_t r = recv(fd, buf, len, 0);
		ssize_t i;

		if (r <= 0)
			break;
		for (i = 0; seed >= 0 && i < r; i++) {
			if (buf[i] == pattern(off + i, seed) || !*intact)
				continue;
			ksft_print_msg("byte %llu: %#x, not %#x\n",
				       (unsigned long long)(off + i), buf[i],
				       pattern(off + i, seed));
			*intact = false;
		}
		off += r;
	}
	return off;
}

/* A stalled transfer fails the check instead of hanging the script. */
static void set_timeouts(int fd)
{
	struct timeval tv = { .tv_sec = 120 * opt.factor };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

struct holder {
	int fd;
	void *page;
	ssize_t sent;
};

/* The server application's send(): faults on the registered page. */
static void *hold_send(void *arg)
{
	struct holder *h = arg;

	h->sent = send(h->fd, h->page, 4096, MSG_NOSIGNAL);
	return NULL;
}

static int uffd_open(void *page, size_t len)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = {
		.range = { .start = (unsigned long)page, .len = len },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};
	int fd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return -1;
	if (ioctl(fd, UFFDIO_API, &api) || ioctl(fd, UFFDIO_REGISTER, &reg)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Wait for the fault of the page the send() copies from. */
static bool uffd_fault_seen(int ufd)
{
	struct pollfd p = { .fd = ufd, .events = POLLIN };
	struct uffd_msg msg;

	if (poll(&p, 1, 10000 * opt.factor) != 1)
		return false;
	if (read(ufd, &msg, sizeof(msg)) != sizeof(msg))
		return false;
	return msg.event == UFFD_EVENT_PAGEFAULT;
}

/*
 * The window, while the server is held: wait until PKTS packets have
 * arrived (InPkts of the server's namespace moved from @base), or until
 * every packet the client sent (its OutData moved from @sent0) has and
 * it has sent nothing more for a second (a window cut short, e.g. to the
 * room the server advertised for the first message, room.c), or the
 * deadline.  Sets st.in_pkts, st.sent, st.window_seen and st.held_ms.
 */
static void hold_window(uint64_t base, uint64_t sent0, uint64_t t0)
{
	uint64_t deadline = t0 + 10ULL * opt.factor * 1000000000;
	uint64_t quiet = 1ULL * opt.factor * 1000000000;
	uint64_t now, changed = t0, last = 0;

	for (;;) {
		now = ndp_now_ns();
		st.in_pkts = ndp_counter("InPkts") - base;
		st.sent = ndp_counter_of(false, "OutData") - sent0;
		if (st.sent != last) {
			last = st.sent;
			changed = now;
		}
		if (st.in_pkts >= opt.pkts || now >= deadline ||
		    (st.sent && st.in_pkts >= st.sent && now - changed >= quiet))
			break;
		usleep(1000);
	}
	st.window_seen = st.in_pkts >= opt.pkts ||
			 (st.sent && st.in_pkts >= st.sent);
	st.held_ms = (ndp_now_ns() - t0) / 1e6;
}

static void hold(int fd)
{
	long psz = sysconf(_SC_PAGESIZE);
	struct holder h = { .fd = fd };
	struct uffdio_zeropage zp;
	uint64_t base, t0, shed0 = 0, drop0 = 0, sent0, cuts0;
	pthread_t t;
	int ufd;

	h.page = mmap(NULL, psz, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (h.page == MAP_FAILED)
		return;
	ufd = uffd_open(h.page, psz);
	if (ufd < 0) {
		ksft_print_msg("userfaultfd: %s\n", strerror(errno));
		st.skip = true;
		st_set(&st.holding);
		return;
	}
	if (pthread_create(&t, NULL, hold_send, &h))
		ndp_die_errno("pthread_create");
	st.fault_seen = uffd_fault_seen(ufd);
	if (st.fault_seen) {
		t0 = ndp_now_ns();
		base = ndp_counter("InPkts");
		shed0 = ndp_counter("BacklogShed");
		drop0 = ndp_counter("BacklogDrop");
		sent0 = ndp_counter_of(false, "OutData");
		cuts0 = ndp_counter_of(false, "RoomCuts");
		st_set(&st.holding);
		hold_window(base, sent0, t0);
		st.cuts = ndp_counter_of(false, "RoomCuts") - cuts0;
	} else {
		st_set(&st.holding);	/* the client goes on: checks fail */
	}
	zp.range.start = (unsigned long)h.page;
	zp.range.len = psz;
	zp.mode = 0;
	if (ioctl(ufd, UFFDIO_ZEROPAGE, &zp) && errno != EEXIST)
		ndp_die_errno("UFFDIO_ZEROPAGE");
	pthread_join(t, NULL);
	/* send() returned: release_sock() has processed the backlog. */
	if (st.fault_seen) {
		st.held_shed = ndp_counter("BacklogShed") - shed0;
		st.held_drop = ndp_counter("BacklogDrop") - drop0;
	}
	close(ufd);
	munmap(h.page, psz);
}

static void *server(void *arg)
{
	int fd, lfd, one = 1, ns;
	bool intact;

	ns = open(opt.ns_b, O_RDONLY);
	if (ns < 0 || setns(ns, CLONE_NEWNET))
		ndp_die_errno("setns %s", opt.ns_b);
	close(ns);
	lfd = ndp_stream_socket(opt.family, true, 0);
	if (lfd < 0)
		ndp_die_errno("socket");
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&opt.addr, opt.alen) || listen(lfd, 4))
		ndp_die_errno("bind/listen");
	st_set(&st.listening);
	fd = accept(lfd, NULL, NULL);
	if (fd < 0)
		ndp_die_errno("accept");
	set_timeouts(fd);
	if (recv_check(fd, MSG1_BYTES, 1, &intact) != MSG1_BYTES || !intact)
		ndp_die("first message short or altered");
	if (opt.buf &&
	    (setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &opt.buf, sizeof(opt.buf)) ||
	     setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &opt.buf, sizeof(opt.buf))))
		ndp_die_errno("SO_RCVBUF/SO_SNDBUF");
	hold(fd);
	if (!st.skip) {
		st.got = recv_check(fd, opt.bytes, 2, &intact);
		st.intact = intact && st.got == opt.bytes;
	}
	close(fd);
	close(lfd);
	return NULL;
}

static void usage(void)
{
	fprintf(stderr,
		"Usage: ndp_hold NETNS_B ADDR PORT [-b BUF] [-S BYTES] [-w PKTS] [-4|-6]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *env = getenv("NDP_TIME_FACTOR");
	bool intact;
	pthread_t t;
	int c, fd;

	opt.family = AF_INET;
	while ((c = getopt(argc, argv, "b:S:w:46")) != -1) {
		switch (c) {
		case 'b':
			opt.buf = atoi(optarg);
			break;
		case 'S':
			opt.bytes = ndp_size_arg(optarg);
			break;
		case 'w':
			opt.pkts = strtoul(optarg, NULL, 0);
			break;
		case '4':
			opt.family = AF_INET;
			break;
		case '6':
			opt.family = AF_INET6;
			break;
		default:
			usage();
		}
	}
	if (argc - optind != 3)
		usage();
	if (env && atoi(env) > 0)
		opt.factor = atoi(env);
	opt.ns_b = argv[optind];
	opt.alen = ndp_sockaddr(&opt.addr, opt.family, argv[optind + 1],
				atoi(argv[optind + 2]));
	if (!opt.alen)
		ndp_die("bad address %s", argv[optind + 1]);

	ksft_print_header();
	if (pthread_create(&t, NULL, server, NULL))
		ndp_die_errno("pthread_create");
	if (!st_wait(&st.listening, 10))
		ndp_die("server not listening");
	fd = ndp_stream_socket(opt.family, true, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&opt.addr, opt.alen))
		ndp_die_errno("connect");
	set_timeouts(fd);
	if (send_all(fd, MSG1_BYTES, 1))
		ndp_die_errno("send");
	st_wait(&st.holding, 20);
	if (st.skip) {
		close(fd);
		pthread_join(t, NULL);
		ksft_exit_skip("no userfaultfd to hold the socket with\n");
	}
	ksft_set_plan(3);
	if (send_all(fd, opt.bytes, 2))
		ndp_die_errno("send");
	recv_check(fd, 4096, -1, &intact);
	close(fd);
	pthread_join(t, NULL);

	ksft_test_result(st.fault_seen,
			 "the server's send() faulted while holding its socket\n");
	ksft_test_result(st.window_seen,
			 "the window arrived while held (InPkts +%llu of %u; sent %llu, RoomCuts +%llu)\n",
			 (unsigned long long)st.in_pkts, opt.pkts,
			 (unsigned long long)st.sent,
			 (unsigned long long)st.cuts);
	ksft_test_result(st.intact, "%llu of %llu bytes received intact\n",
			 (unsigned long long)st.got,
			 (unsigned long long)opt.bytes);
	printf("# HOLD held_ms=%.1f in_pkts=%llu sent=%llu cuts=%llu",
	       st.held_ms, (unsigned long long)st.in_pkts,
	       (unsigned long long)st.sent, (unsigned long long)st.cuts);
	printf(" got=%llu held_shed=%llu held_drop=%llu\n",
	       (unsigned long long)st.got, (unsigned long long)st.held_shed,
	       (unsigned long long)st.held_drop);
	return ndp_test_done();
}
