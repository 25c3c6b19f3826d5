// SPDX-License-Identifier: GPL-2.0
/*
 * ndp_smoke: quick end-to-end check of the NDP transport, the transport
 * developer's own smoke test (the full suite is ndp_xfer and friends).
 *
 *   ndp_smoke NETNS_A NETNS_B ADDR4 ADDR6
 *
 * The client side runs in this thread's namespace NETNS_A, the server in
 * threads that joined NETNS_B (paths such as /run/netns/NAME).  Tests on
 * the kernel's kselftest_harness.h (variants v4 and v6, one forked test
 * each, KTAP output):
 *   - transfers of 1 B, 100 KB and 10 MB client -> server and, after the
 *     client's shutdown(SHUT_WR), the same size back, every byte checked;
 *   - connect + send to a port nobody listens on ends in ECONNREFUSED;
 *   - 20 concurrent connections of 200 KB each through one listener.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <linux/ndp.h>
#include "kselftest_harness.h"

#define NCONC	20
#define CONC_BYTES	(200 * 1024)

static const char *ns_b;

static uint8_t pattern(uint64_t i, unsigned int seed)
{
	return (uint8_t)(i * 7 + (i >> 9) + seed * 13);
}

static int join_ns(const char *path)
{
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	if (setns(fd, CLONE_NEWNET)) {
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static void set_timeouts(int fd, int secs)
{
	struct timeval tv = { .tv_sec = secs };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

static int send_pattern(int fd, uint64_t n, unsigned int seed)
{
	uint8_t buf[65536];
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
		if ((size_t)r < len)
			continue;
	}
	return 0;
}

/* Read to EOF; returns bytes read if every byte matched, else -1. */
static int64_t recv_pattern(int fd, unsigned int seed)
{
	uint8_t buf[65536];
	uint64_t off = 0;

	for (;;) {
		ssize_t r = recv(fd, buf, sizeof(buf), 0);
		ssize_t i;

		if (r == 0)
			return off;
		if (r < 0)
			return -1;
		for (i = 0; i < r; i++)
			if (buf[i] != pattern(off + i, seed))
				return -1;
		off += r;
	}
}

struct srv {
	int family;
	int port;
	int nconns;
	uint64_t bytes;
	int lfd;
	int ready;
	int ok;
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

struct conn {
	struct srv *s;
	int fd;
};

static void *srv_conn(void *arg)
{
	struct conn *c = arg;
	int64_t got;
	bool ok;

	set_timeouts(c->fd, 60);
	got = recv_pattern(c->fd, 1);
	ok = got == (int64_t)c->s->bytes;
	if (ok)
		ok = !send_pattern(c->fd, c->s->bytes, 2);
	close(c->fd);
	pthread_mutex_lock(&c->s->lock);
	if (ok)
		c->s->ok++;
	else
		fprintf(stderr, "# server conn: got %lld of %llu\n",
			(long long)got, (unsigned long long)c->s->bytes);
	pthread_mutex_unlock(&c->s->lock);
	free(c);
	return NULL;
}

static void *srv_main(void *arg)
{
	struct srv *s = arg;
	pthread_t th[NCONC];
	struct sockaddr_storage ss;
	int i, n = 0;

	memset(&ss, 0, sizeof(ss));
	if (join_ns(ns_b))
		goto fail;
	s->lfd = socket(s->family, SOCK_NDP, 0);
	if (s->lfd < 0)
		goto fail;
	ss.ss_family = s->family;
	if (s->family == AF_INET)
		((struct sockaddr_in *)&ss)->sin_port = htons(s->port);
	else
		((struct sockaddr_in6 *)&ss)->sin6_port = htons(s->port);
	if (bind(s->lfd, (struct sockaddr *)&ss, sizeof(ss)) ||
	    listen(s->lfd, 64))
		goto fail;
	pthread_mutex_lock(&s->lock);
	s->ready = 1;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
	set_timeouts(s->lfd, 60);
	for (i = 0; i < s->nconns; i++) {
		struct conn *c = calloc(1, sizeof(*c));

		c->s = s;
		c->fd = accept(s->lfd, NULL, NULL);
		if (c->fd < 0) {
			free(c);
			break;
		}
		pthread_create(&th[n++], NULL, srv_conn, c);
	}
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	close(s->lfd);
	return NULL;
fail:
	perror("# server");
	pthread_mutex_lock(&s->lock);
	s->ready = -1;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

struct cli {
	int family;
	const char *addr;
	int port;
	uint64_t bytes;
	int ok;
};

static int cli_connect(int family, const char *addr, int port)
{
	struct sockaddr_storage ss;
	int fd;

	memset(&ss, 0, sizeof(ss));
	fd = socket(family, SOCK_NDP, 0);
	if (fd < 0)
		return -1;
	ss.ss_family = family;
	if (family == AF_INET) {
		((struct sockaddr_in *)&ss)->sin_port = htons(port);
		inet_pton(AF_INET, addr, &((struct sockaddr_in *)&ss)->sin_addr);
	} else {
		((struct sockaddr_in6 *)&ss)->sin6_port = htons(port);
		inet_pton(AF_INET6, addr, &((struct sockaddr_in6 *)&ss)->sin6_addr);
	}
	if (connect(fd, (struct sockaddr *)&ss, sizeof(ss))) {
		close(fd);
		return -1;
	}
	set_timeouts(fd, 60);
	return fd;
}

static void *cli_main(void *arg)
{
	struct cli *c = arg;
	int fd = cli_connect(c->family, c->addr, c->port);
	int64_t got;

	if (fd < 0)
		return NULL;
	if (send_pattern(fd, c->bytes, 1) || shutdown(fd, SHUT_WR)) {
		close(fd);
		return NULL;
	}
	got = recv_pattern(fd, 2);
	c->ok = got == (int64_t)c->bytes;
	if (!c->ok)
		fprintf(stderr, "# client: got %lld of %llu\n", (long long)got,
			(unsigned long long)c->bytes);
	close(fd);
	return NULL;
}

static int run(int family, const char *addr, int port, int nconns,
	       uint64_t bytes)
{
	struct srv s = { .family = family, .port = port, .nconns = nconns,
			 .bytes = bytes };
	struct cli c[NCONC];
	pthread_t st, ct[NCONC];
	int i, ok = 0;

	pthread_mutex_init(&s.lock, NULL);
	pthread_cond_init(&s.cond, NULL);
	pthread_create(&st, NULL, srv_main, &s);
	pthread_mutex_lock(&s.lock);
	while (!s.ready)
		pthread_cond_wait(&s.cond, &s.lock);
	pthread_mutex_unlock(&s.lock);
	if (s.ready < 0) {
		pthread_join(st, NULL);
		return 0;
	}
	for (i = 0; i < nconns; i++) {
		c[i] = (struct cli){ .family = family, .addr = addr,
				     .port = port, .bytes = bytes };
		pthread_create(&ct[i], NULL, cli_main, &c[i]);
	}
	for (i = 0; i < nconns; i++) {
		pthread_join(ct[i], NULL);
		ok += c[i].ok;
	}
	pthread_join(st, NULL);
	return ok == nconns && s.ok == nconns;
}

/* Nothing listens on @port: a send must end in ECONNREFUSED. */
static int refused(int family, const char *addr, int port)
{
	char b = 'x';
	int fd, err = 0;

	fd = cli_connect(family, addr, port);
	if (fd < 0)
		return 0;
	set_timeouts(fd, 10);
	if (send(fd, &b, 1, MSG_NOSIGNAL) != 1)
		err = errno;
	else if (recv(fd, &b, 1, 0) < 0)
		err = errno;
	close(fd);
	if (err != ECONNREFUSED)
		fprintf(stderr, "# expected ECONNREFUSED, got %s\n",
			strerror(err));
	return err == ECONNREFUSED;
}

/* The addresses main() was given, and a port per test (forked children). */
static const char *addrs[2];

FIXTURE(smoke) {
	const char *addr;
	int port;
};

FIXTURE_VARIANT(smoke) {
	int family;
	int port;	/* first of this family's ports */
};

FIXTURE_VARIANT_ADD(smoke, v4) { .family = AF_INET, .port = 33000, };
FIXTURE_VARIANT_ADD(smoke, v6) { .family = AF_INET6, .port = 33100, };

FIXTURE_SETUP(smoke)
{
	self->addr = addrs[variant->family == AF_INET6];
	self->port = variant->port;
}

FIXTURE_TEARDOWN(smoke)
{
}

/*
 * Transfers each way, every byte checked.  The timeouts are the harness's
 * (the sockets' own are 60 s per call); the debug kernel runs several
 * times slower than a production one.
 */
TEST_F_TIMEOUT(smoke, transfer_1B, 300)
{
	ASSERT_TRUE(run(variant->family, self->addr, self->port, 1, 1));
}

TEST_F_TIMEOUT(smoke, transfer_100K, 300)
{
	ASSERT_TRUE(run(variant->family, self->addr, self->port + 1, 1,
			100 * 1024));
}

TEST_F_TIMEOUT(smoke, transfer_10M, 600)
{
	ASSERT_TRUE(run(variant->family, self->addr, self->port + 2, 1,
			10 * 1024 * 1024));
}

/* Nothing listens on the discard port. */
TEST_F_TIMEOUT(smoke, refused, 120)
{
	ASSERT_TRUE(refused(variant->family, self->addr, 9));
}

TEST_F_TIMEOUT(smoke, concurrent, 600)
{
	ASSERT_TRUE(run(variant->family, self->addr, self->port + 3, NCONC,
			CONC_BYTES));
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: %s NETNS_A NETNS_B ADDR4 ADDR6\n",
			argv[0]);
		return KSFT_FAIL;
	}
	if (join_ns(argv[1])) {
		perror("setns");
		return KSFT_FAIL;
	}
	ns_b = argv[2];
	addrs[0] = argv[3];
	addrs[1] = argv[4];
	/* The harness sees no options: the arguments were ours. */
	return test_harness_run(1, argv);
}
