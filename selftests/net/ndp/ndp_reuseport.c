// SPDX-License-Identifier: GPL-2.0
/*
 * ndp_reuseport: SO_REUSEPORT groups and the bind/listen errno rules of
 * NDP sockets (Documentation/networking/ndp-transport.rst, "Binding and
 * listening"), over loopback in the caller's network namespace, on the
 * kernel's kselftest_harness.h (one forked test per check, each with its
 * own timeout, KTAP output).
 *
 *   ndp_reuseport [-p ndp|tcp] [-4|-6] [-n LISTENERS] [-c CONNS]
 *                 [-D IFNAME] [FIXTURE...] [-- HARNESS OPTIONS]
 *
 * Fixtures, each with the variants ndp_v4, ndp_v6, tcp_v4 and tcp_v6
 * (dual: ndp and tcp):
 *   spread       LISTENERS (default 4) SO_REUSEPORT listeners share one
 *                port: CONNS (default 64) connections, each sending a
 *                pattern the server checks byte by byte, are all accepted
 *                and spread over every listener; a classic BPF program
 *                steers 16 to the second listener; with the first listener
 *                closed CONNS more go to the others, none lost; the port
 *                rules of the group.
 *   uid          another user's SO_REUSEPORT socket cannot take the
 *                group's port (a child that setuid()s; SKIP when no other
 *                uid can be had).
 *   errno_table  one test per row of the table (IFNAME: a second device
 *                for the SO_BINDTODEVICE row, SKIP without it).
 *   dual         IPv4 and IPv6 on one socket: an AF_INET6 [::] listener
 *                takes IPv4 clients (accepted as v4-mapped) unless
 *                IPV6_V6ONLY, an AF_INET6 client reaches IPv4 through a
 *                v4-mapped address, and the port rules across families.
 *
 * -p keeps one protocol's variants (default: both; TCP is there to
 * compare), -4 and -6 one family's (dual has no family variant), FIXTURE
 * names the fixtures to run (default: all).  They become the harness's
 * exclusion filters (-V, -F); HARNESS OPTIONS (-l, -t NAME, -r NAME, ...)
 * narrow further.  Exit 0 when every test passed or skipped, 1 otherwise.
 * NDP_TIME_FACTOR (lib.sh) scales the waits for a connection.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/ndp.h>

#include "ndp_util.h"
#include "kselftest_harness.h"

/*
 * GCC 12 at -Wextra warns that the 'child' of the harness's test wrapper
 * (__TEST_F_IMPL in kselftest_harness.h, set by fork() after its setjmp())
 * "might be clobbered by longjmp" for almost any test body.  If it were,
 * a test process whose ASSERT failed would skip its teardown (ours only
 * close sockets) and still end in abort(): the failure is reported all
 * the same.  The header is the kernel's; the warning is silenced here.
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wclobbered"
#endif

#ifndef SO_REUSEPORT
#define SO_REUSEPORT		15
#endif
#ifndef SO_ATTACH_REUSEPORT_CBPF
#define SO_ATTACH_REUSEPORT_CBPF 51
#endif
#ifndef SO_DETACH_REUSEPORT_BPF
#define SO_DETACH_REUSEPORT_BPF	68
#endif
#ifndef IP_LOCAL_PORT_RANGE
#define IP_LOCAL_PORT_RANGE	51
#endif
#ifndef IPV6_FREEBIND
#define IPV6_FREEBIND		78
#endif

#define MAX_LISTENERS	16
#define OTHER_UID	65534	/* nobody */
#define WAIT_MS		10000	/* per connection, x NDP_TIME_FACTOR */

/*
 * Per-test timeouts of the harness, in seconds, for a debug kernel
 * several times slower than a production one: a spread test is up to
 * 2 x 64 connections in turn (the whole of reuseport.sh, 144 a family in
 * one process then, took 54 s on the debug kernel), a table row a few
 * socket calls.
 */
#define SPREAD_TIMEOUT	180
#define DUAL_TIMEOUT	120
#define ROW_TIMEOUT	60

/* Exit status of other_uid_bind()'s child, above the errnos it reports. */
#define UID_NONE	120	/* no other uid to be had */
#define UID_NOSOCK	121	/* its socket() failed */
#define UID_NOOPT	122	/* its setsockopt() failed */

/* The knobs main() parses; every test (a forked child) reads them. */
static int nlisten = 4;
static int nconns = 64;
static const char *ifname;
static int wait_ms = WAIT_MS;

static const char *fam_name(int fam)
{
	return fam == AF_INET ? "AF_INET" : "AF_INET6";
}

static const char *proto_name(int proto)
{
	return proto == IPPROTO_TCP ? "IPPROTO_TCP" : "IPPROTO_NDP";
}

/* A stream socket of @fam and @proto; the test fails here without one. */
static int sock_new(struct __test_metadata *_metadata, int fam, int proto)
{
	int fd = socket(fam, SOCK_STREAM, proto);
	int e = errno;

	ASSERT_LE(0, fd) {
		TH_LOG("socket(%s, SOCK_STREAM, %s): %s%s", fam_name(fam),
		       proto_name(proto), strerror(e),
		       proto == IPPROTO_NDP && e == EPROTONOSUPPORT ?
		       " (ndp.ko not loaded?)" : "");
	}
	return fd;
}

static void opt_on(struct __test_metadata *_metadata, int fd, int level,
		   int name, const char *what)
{
	int one = 1;

	ASSERT_EQ(0, setsockopt(fd, level, name, &one, sizeof(one))) {
		TH_LOG("setsockopt %s: %s", what, strerror(errno));
	}
}

#define OPT_ON(fd, level, name) opt_on(_metadata, fd, level, name, #name)

/* @host NULL: the wildcard; "lo": loopback; else a literal address. */
static socklen_t mkaddr(struct sockaddr_storage *ss, int fam, const char *host,
			int port)
{
	if (host && !strcmp(host, "lo"))
		host = fam == AF_INET ? "127.0.0.1" : "::1";
	return ndp_sockaddr(ss, fam, host, port);
}

/* bind(); 0 or the errno. */
static int try_bind(int fd, int fam, const char *host, int port)
{
	struct sockaddr_storage ss;
	socklen_t len = mkaddr(&ss, fam, host, port);

	return bind(fd, (struct sockaddr *)&ss, len) ? errno : 0;
}

static int try_listen(int fd, int backlog)
{
	return listen(fd, backlog) ? errno : 0;
}

static int port_of(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len))
		return -1;
	if (ss.ss_family == AF_INET)
		return ntohs(((struct sockaddr_in *)&ss)->sin_port);
	return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
}

/* The check named @what: @got (0 or an errno) must be @want. */
static void expect_err(struct __test_metadata *_metadata, int want, int got,
		       const char *what)
{
	EXPECT_EQ(want, got) {
		TH_LOG("%s: %s, want %s", what, ndp_errname(got),
		       ndp_errname(want));
	}
}

/*
 * Row @n of a sequence of table rows that share their sockets, run up to
 * row @last, the test's own: that one is EXPECTed; the rows before it are
 * the test's setup and must have given what their own tests expect
 * (ASSERTed, named in the log).  True when the sequence stops here.
 */
static bool seq_row(struct __test_metadata *_metadata, int last, int n,
		    int want, int got, const char *what)
{
	if (n < last) {
		ASSERT_EQ(want, got) {
			TH_LOG("setup, row \"%s\": %s, want %s", what,
			       ndp_errname(got), ndp_errname(want));
		}
		return false;
	}
	expect_err(_metadata, want, got, what);
	return true;
}

/* ---- connections ----------------------------------------------------- */

static uint8_t pattern(unsigned int conn, size_t off)
{
	return (uint8_t)(conn * 131 + off * 7 + (off >> 8));
}

/*
 * One connection from a client socket of family @fam to @host (see
 * mkaddr()): the client sends 1000 + 37 * @id bytes and shuts down; the
 * server accepts on whichever of the @nl listeners @lfd (-1: closed) is
 * readable (the client's address as accept() reports it in @peer, if not
 * NULL), checks every byte and the end of stream.  Returns the listener's
 * index, or -1 (logged).
 */
static int conn_from(struct __test_metadata *_metadata, const int *lfd,
		     int nl, int fam, int proto, const char *host, int port,
		     unsigned int id, struct sockaddr_storage *peer)
{
	socklen_t plen = sizeof(*peer);
	size_t len = 1000 + 37 * (id % 64), got = 0, i;
	struct pollfd pfd[MAX_LISTENERS];
	struct sockaddr_storage ss;
	int c, s = -1, who = -1, n;
	uint8_t buf[4096];
	double end;

	if (peer)
		memset(peer, 0, sizeof(*peer));
	c = sock_new(_metadata, fam, proto);
	if (connect(c, (struct sockaddr *)&ss, mkaddr(&ss, fam, host, port))) {
		TH_LOG("conn %u: connect: %s", id, strerror(errno));
		close(c);
		return -1;
	}
	for (i = 0; i < len; i++)
		buf[i] = pattern(id, i);
	if (send(c, buf, len, MSG_NOSIGNAL) != (ssize_t)len ||
	    shutdown(c, SHUT_WR)) {
		TH_LOG("conn %u: send: %s", id, strerror(errno));
		close(c);
		return -1;
	}
	end = ndp_now_ms() + wait_ms;
	while (s < 0 && ndp_now_ms() < end) {
		for (n = 0; n < nl; n++) {
			pfd[n].fd = lfd[n];
			pfd[n].events = POLLIN;
		}
		if (poll(pfd, nl, end - ndp_now_ms()) <= 0)
			continue;
		for (n = 0; n < nl && s < 0; n++) {
			if (lfd[n] < 0 || !(pfd[n].revents & POLLIN))
				continue;
			s = accept4(lfd[n], (struct sockaddr *)peer,
				    peer ? &plen : NULL, SOCK_NONBLOCK);
			if (s >= 0)
				who = n;
		}
	}
	if (s < 0) {
		TH_LOG("conn %u: not accepted in %d ms", id, wait_ms);
		close(c);
		return -1;
	}
	while (ndp_now_ms() < end) {
		struct pollfd p = { .fd = s, .events = POLLIN };
		ssize_t r;

		poll(&p, 1, end - ndp_now_ms());
		r = recv(s, buf, sizeof(buf), 0);
		if (r < 0 && errno == EAGAIN)
			continue;
		if (r <= 0)
			break;
		for (i = 0; i < (size_t)r; i++) {
			if (buf[i] != pattern(id, got + i)) {
				TH_LOG("conn %u: byte %zu differs", id,
				       got + i);
				got = SIZE_MAX;
				break;
			}
		}
		if (got == SIZE_MAX)
			break;
		got += r;
	}
	close(s);
	close(c);
	if (got != len) {
		TH_LOG("conn %u: got %zd of %zu bytes", id,
		       got == SIZE_MAX ? (ssize_t)-1 : (ssize_t)got, len);
		return -1;
	}
	return who;
}

/* ---- spread ---------------------------------------------------------- */

/* A group of nlisten SO_REUSEPORT listeners on one port of the wildcard. */
struct group {
	int fam, proto;
	int lfd[MAX_LISTENERS];		/* -1: closed */
	int port;
	int accepts[MAX_LISTENERS];	/* of the last run_conns() */
};

FIXTURE(spread) {
	struct group g;
};

FIXTURE_VARIANT(spread) {
	int proto;
	int family;
};

FIXTURE_VARIANT_ADD(spread, ndp_v4) {
	.proto = IPPROTO_NDP, .family = AF_INET,
};

FIXTURE_VARIANT_ADD(spread, ndp_v6) {
	.proto = IPPROTO_NDP, .family = AF_INET6,
};

FIXTURE_VARIANT_ADD(spread, tcp_v4) {
	.proto = IPPROTO_TCP, .family = AF_INET,
};

FIXTURE_VARIANT_ADD(spread, tcp_v6) {
	.proto = IPPROTO_TCP, .family = AF_INET6,
};

FIXTURE_SETUP(spread)
{
	struct group *g = &self->g;
	int n, e;

	g->fam = variant->family;
	g->proto = variant->proto;
	for (n = 0; n < MAX_LISTENERS; n++)
		g->lfd[n] = -1;
	g->port = 0;
	for (n = 0; n < nlisten; n++) {
		g->lfd[n] = sock_new(_metadata, g->fam, g->proto);
		OPT_ON(g->lfd[n], SOL_SOCKET, SO_REUSEPORT);
		e = try_bind(g->lfd[n], g->fam, NULL, g->port);
		if (!e && !n)
			g->port = port_of(g->lfd[0]);
		if (!e)
			e = try_listen(g->lfd[n], 128);
		ASSERT_EQ(0, e) {
			TH_LOG("listener %d of %d on port %d: %s", n, nlisten,
			       g->port, ndp_errname(e));
		}
	}
}

FIXTURE_TEARDOWN(spread)
{
	int n;

	for (n = 0; n < MAX_LISTENERS; n++)
		if (self->g.lfd[n] >= 0)
			close(self->g.lfd[n]);
}

/*
 * @conns connections to the group, ids from @first; returns how many
 * failed; how many each listener took in g->accepts[].
 */
static int run_conns(struct __test_metadata *_metadata, struct group *g,
		     int conns, unsigned int first)
{
	int i, who, failed = 0;

	memset(g->accepts, 0, sizeof(g->accepts));
	for (i = 0; i < conns; i++) {
		who = conn_from(_metadata, g->lfd, nlisten, g->fam, g->proto,
				"lo", g->port, first + i, NULL);
		if (who < 0)
			failed++;
		else
			g->accepts[who]++;
	}
	return failed;
}

static void show_accepts(struct __test_metadata *_metadata,
			 const struct group *g, const char *what)
{
	char buf[16 * MAX_LISTENERS] = "";
	size_t off = 0;
	int n;

	for (n = 0; n < nlisten; n++)
		off += snprintf(buf + off, sizeof(buf) - off, " %d",
				g->lfd[n] < 0 ? -1 : g->accepts[n]);
	TH_LOG("%s (port %d):%s", what, g->port, buf);
}

/*
 * The flow hash of a connection's addresses and ports (the source port
 * random) picks a member: a given listener gets none of 64 with
 * probability (3/4)^64 < 1.1e-8, any of 4 < 4.5e-8.
 */
TEST_F_TIMEOUT(spread, balance, SPREAD_TIMEOUT)
{
	int failed, n;

	failed = run_conns(_metadata, &self->g, nconns, 0);
	show_accepts(_metadata, &self->g, "accepts per listener");
	EXPECT_EQ(0, failed) {
		TH_LOG("%d of %d connections failed (accepted, every byte checked)",
		       failed, nconns);
	}
	for (n = 0; n < nlisten; n++) {
		EXPECT_LT(0, self->g.accepts[n]) {
			TH_LOG("listener %d accepted none of %d connections",
			       n, nconns);
		}
	}
}

/* ret #1: the group's second member. */
static const struct sock_filter to_second[] = {
	BPF_STMT(BPF_RET | BPF_K, 1),
};

static void attach_to_second(struct __test_metadata *_metadata, int fd)
{
	struct sock_fprog prog = {
		.len = 1,
		.filter = (struct sock_filter *)to_second,
	};

	ASSERT_EQ(0, setsockopt(fd, SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF,
				&prog, sizeof(prog))) {
		TH_LOG("SO_ATTACH_REUSEPORT_CBPF: %s", strerror(errno));
	}
}

/* A classic BPF program steers (SO_ATTACH_REUSEPORT_CBPF). */
TEST_F_TIMEOUT(spread, cbpf_steers, SPREAD_TIMEOUT)
{
	int failed;

	attach_to_second(_metadata, self->g.lfd[0]);
	failed = run_conns(_metadata, &self->g, 16, 1000);
	show_accepts(_metadata, &self->g, "with the program");
	EXPECT_EQ(0, failed) {
		TH_LOG("%d of 16 connections failed", failed);
	}
	EXPECT_EQ(16, self->g.accepts[1]) {
		TH_LOG("a CBPF program returning 1 sent %d of 16 to the second listener",
		       self->g.accepts[1]);
	}
}

/*
 * The program attached and detached again (detached, the flow hash picks
 * again: still attached, it would send everything to one listener), the
 * first listener closes: the others take every connection, and each some
 * (none of 64 with probability (2/3)^64 < 5.7e-12 for a given one of 3).
 */
TEST_F_TIMEOUT(spread, member_closes, SPREAD_TIMEOUT)
{
	int failed, n, zero = 0;

	attach_to_second(_metadata, self->g.lfd[0]);
	ASSERT_EQ(0, setsockopt(self->g.lfd[0], SOL_SOCKET,
				SO_DETACH_REUSEPORT_BPF, &zero,
				sizeof(zero))) {
		TH_LOG("SO_DETACH_REUSEPORT_BPF: %s", strerror(errno));
	}
	close(self->g.lfd[0]);
	self->g.lfd[0] = -1;
	failed = run_conns(_metadata, &self->g, nconns, 2000);
	show_accepts(_metadata, &self->g, "after the first closed");
	EXPECT_EQ(0, failed) {
		TH_LOG("first listener closed: %d of %d connections failed",
		       failed, nconns);
	}
	for (n = 1; n < nlisten; n++) {
		EXPECT_LT(0, self->g.accepts[n]) {
			TH_LOG("first listener closed: listener %d accepted none of %d",
			       n, nconns);
		}
	}
}

/*
 * After connections went through and a member closed: without
 * SO_REUSEPORT the port is taken; once every listener closed it is free,
 * nothing pending.
 */
TEST_F_TIMEOUT(spread, port_rules, SPREAD_TIMEOUT)
{
	int failed, fd, n;

	failed = run_conns(_metadata, &self->g, nconns, 3000);
	ASSERT_EQ(0, failed) {
		TH_LOG("setup: %d of %d connections through the group failed",
		       failed, nconns);
	}
	close(self->g.lfd[0]);
	self->g.lfd[0] = -1;

	fd = sock_new(_metadata, variant->family, variant->proto);
	expect_err(_metadata, EADDRINUSE,
		   try_bind(fd, variant->family, NULL, self->g.port),
		   "bind without SO_REUSEPORT to the group's port");
	close(fd);
	fd = sock_new(_metadata, variant->family, variant->proto);
	OPT_ON(fd, SOL_SOCKET, SO_REUSEADDR);
	expect_err(_metadata, EADDRINUSE,
		   try_bind(fd, variant->family, "lo", self->g.port),
		   "SO_REUSEADDR bind of a specific address to the group's port");
	close(fd);

	for (n = 1; n < nlisten; n++) {
		close(self->g.lfd[n]);
		self->g.lfd[n] = -1;
	}
	fd = sock_new(_metadata, variant->family, variant->proto);
	expect_err(_metadata, 0,
		   try_bind(fd, variant->family, NULL, self->g.port),
		   "the port binds again once the group closed");
	close(fd);
}

/* ---- uid ------------------------------------------------------------- */

/*
 * In a child of uid and gid OTHER_UID: a socket (SO_REUSEPORT if
 * @reuseport) binds @host:@port and listens.  0 or the errno; UID_NONE
 * when the child cannot setuid().
 */
static int other_uid_bind(struct __test_metadata *_metadata, int fam,
			  int proto, int port, bool reuseport,
			  const char *host)
{
	pid_t pid = fork();
	int st, one = 1;

	ASSERT_LE(0, pid) {
		TH_LOG("fork: %s", strerror(errno));
	}
	if (!pid) {
		int fd, e;

		if (setgid(OTHER_UID) || setuid(OTHER_UID))
			_exit(UID_NONE);
		fd = socket(fam, SOCK_STREAM, proto);
		if (fd < 0)
			_exit(UID_NOSOCK);
		if (reuseport && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one,
					    sizeof(one)))
			_exit(UID_NOOPT);
		e = try_bind(fd, fam, host, port);
		if (!e)
			e = try_listen(fd, 8);
		_exit(e >= UID_NONE ? UID_NONE - 1 : e);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_TRUE(WIFEXITED(st)) {
		TH_LOG("the uid %d child did not exit (status %#x)",
		       OTHER_UID, st);
	}
	ASSERT_NE(UID_NOSOCK, WEXITSTATUS(st)) {
		TH_LOG("the uid %d child's socket() failed", OTHER_UID);
	}
	ASSERT_NE(UID_NOOPT, WEXITSTATUS(st)) {
		TH_LOG("the uid %d child's setsockopt(SO_REUSEPORT) failed",
		       OTHER_UID);
	}
	return WEXITSTATUS(st);
}

/* An SO_REUSEPORT listener of this uid on the wildcard. */
FIXTURE(uid) {
	int fd;
	int port;
};

FIXTURE_VARIANT(uid) {
	int proto;
	int family;
};

FIXTURE_VARIANT_ADD(uid, ndp_v4) {
	.proto = IPPROTO_NDP, .family = AF_INET,
};

FIXTURE_VARIANT_ADD(uid, ndp_v6) {
	.proto = IPPROTO_NDP, .family = AF_INET6,
};

FIXTURE_VARIANT_ADD(uid, tcp_v4) {
	.proto = IPPROTO_TCP, .family = AF_INET,
};

FIXTURE_VARIANT_ADD(uid, tcp_v6) {
	.proto = IPPROTO_TCP, .family = AF_INET6,
};

FIXTURE_SETUP(uid)
{
	int e;

	self->fd = sock_new(_metadata, variant->family, variant->proto);
	OPT_ON(self->fd, SOL_SOCKET, SO_REUSEPORT);
	e = try_bind(self->fd, variant->family, NULL, 0);
	if (!e)
		e = try_listen(self->fd, 8);
	ASSERT_EQ(0, e) {
		TH_LOG("listener: %s", ndp_errname(e));
	}
	self->port = port_of(self->fd);
}

FIXTURE_TEARDOWN(uid)
{
	close(self->fd);
}

TEST_F_TIMEOUT(uid, other_uid_wildcard, ROW_TIMEOUT)
{
	int e = other_uid_bind(_metadata, variant->family, variant->proto,
			       self->port, true, NULL);

	if (e == UID_NONE)
		SKIP(return, "cannot setuid(%d)", OTHER_UID);
	expect_err(_metadata, EADDRINUSE, e,
		   "SO_REUSEPORT listener of another uid on the group's port");
}

TEST_F_TIMEOUT(uid, other_uid_addr, ROW_TIMEOUT)
{
	int e = other_uid_bind(_metadata, variant->family, variant->proto,
			       self->port, true, "lo");

	if (e == UID_NONE)
		SKIP(return, "cannot setuid(%d)", OTHER_UID);
	expect_err(_metadata, EADDRINUSE, e,
		   "another uid's SO_REUSEPORT bind to a specific address");
}

/* The same uid joins (the control). */
TEST_F_TIMEOUT(uid, same_uid_joins, ROW_TIMEOUT)
{
	int fd = sock_new(_metadata, variant->family, variant->proto), e;

	OPT_ON(fd, SOL_SOCKET, SO_REUSEPORT);
	e = try_bind(fd, variant->family, NULL, self->port);
	if (!e)
		e = try_listen(fd, 8);
	expect_err(_metadata, 0, e,
		   "the same uid's SO_REUSEPORT listener joins");
	close(fd);
}

/* ---- errno table ----------------------------------------------------- */

/* What a row's sockets are: the variant's family and protocol. */
struct famproto {
	int fam, proto;
	int other_fam;		/* the other family */
	const char *other_lo;	/* its loopback address */
	const char *nonlocal;	/* an address of no interface */
};

/* One row per test; the fixture holds only the variant's parameters. */
FIXTURE(errno_table) {
	struct famproto fp;
};

FIXTURE_VARIANT(errno_table) {
	int proto;
	int family;
};

FIXTURE_VARIANT_ADD(errno_table, ndp_v4) {
	.proto = IPPROTO_NDP, .family = AF_INET,
};

FIXTURE_VARIANT_ADD(errno_table, ndp_v6) {
	.proto = IPPROTO_NDP, .family = AF_INET6,
};

FIXTURE_VARIANT_ADD(errno_table, tcp_v4) {
	.proto = IPPROTO_TCP, .family = AF_INET,
};

FIXTURE_VARIANT_ADD(errno_table, tcp_v6) {
	.proto = IPPROTO_TCP, .family = AF_INET6,
};

FIXTURE_SETUP(errno_table)
{
	struct famproto *fp = &self->fp;

	fp->fam = variant->family;
	fp->proto = variant->proto;
	fp->other_fam = fp->fam == AF_INET ? AF_INET6 : AF_INET;
	fp->other_lo = fp->fam == AF_INET ? "::1" : "127.0.0.1";
	fp->nonlocal = fp->fam == AF_INET ? "192.0.2.77" : "2001:db8::77";
}

FIXTURE_TEARDOWN(errno_table)
{
}

static int sock_e(struct __test_metadata *_metadata,
		  const struct famproto *fp)
{
	return sock_new(_metadata, fp->fam, fp->proto);
}

/* A socket with @opt (SO_REUSEADDR, SO_REUSEPORT or 0) bound to @host:0. */
static int bound(struct __test_metadata *_metadata,
		 const struct famproto *fp, int opt, const char *host,
		 int *portp)
{
	int fd = sock_e(_metadata, fp), one = 1, e;

	if (opt) {
		ASSERT_EQ(0, setsockopt(fd, SOL_SOCKET, opt, &one,
					sizeof(one))) {
			TH_LOG("setup setsockopt %d: %s", opt, strerror(errno));
		}
	}
	e = try_bind(fd, fp->fam, host, 0);
	ASSERT_EQ(0, e) {
		TH_LOG("setup bind: %s", ndp_errname(e));
	}
	*portp = port_of(fd);
	return fd;
}

/* Plain overlap. */
TEST_F_TIMEOUT(errno_table, bind_bound_port, ROW_TIMEOUT)
{
	const struct famproto *fp = &self->fp;
	int p, a = bound(_metadata, fp, 0, NULL, &p), b = sock_e(_metadata, fp);

	expect_err(_metadata, EADDRINUSE, try_bind(b, fp->fam, NULL, p),
		   "bind to a bound port");
	close(b);
	close(a);
}

TEST_F_TIMEOUT(errno_table, bind_addr_under_wildcard, ROW_TIMEOUT)
{
	const struct famproto *fp = &self->fp;
	int p, a = bound(_metadata, fp, 0, NULL, &p), b = sock_e(_metadata, fp);

	expect_err(_metadata, EADDRINUSE, try_bind(b, fp->fam, "lo", p),
		   "bind of a specific address under a wildcard");
	close(b);
	close(a);
}

/* SO_REUSEADDR: shared while neither listens, not after. */
static void reuseaddr_rows(struct __test_metadata *_metadata,
			   const struct famproto *fp, int last)
{
	int p, a = bound(_metadata, fp, SO_REUSEADDR, "lo", &p), b, c;

	b = sock_e(_metadata, fp);
	OPT_ON(b, SOL_SOCKET, SO_REUSEADDR);
	if (seq_row(_metadata, last, 1, 0, try_bind(b, fp->fam, "lo", p),
		    "both SO_REUSEADDR, neither listening: bind"))
		goto out;
	if (seq_row(_metadata, last, 2, 0, try_listen(a, 8),
		    "both SO_REUSEADDR: the first listens"))
		goto out;
	if (seq_row(_metadata, last, 3, EADDRINUSE, try_listen(b, 8),
		    "both SO_REUSEADDR: the second cannot listen too"))
		goto out;
	c = sock_e(_metadata, fp);
	OPT_ON(c, SOL_SOCKET, SO_REUSEADDR);
	if (seq_row(_metadata, last, 4, EADDRINUSE,
		    try_bind(c, fp->fam, "lo", p),
		    "SO_REUSEADDR bind to an SO_REUSEADDR listener's port")) {
		close(c);
		goto out;
	}
	close(c);
	/* listen() on a listener with another backlog: allowed. */
	seq_row(_metadata, last, 5, 0, try_listen(a, 3),
		"listen on a listener with another backlog");
out:
	close(b);
	close(a);
}

TEST_F_TIMEOUT(errno_table, reuseaddr_both_bind, ROW_TIMEOUT)
{
	reuseaddr_rows(_metadata, &self->fp, 1);
}

TEST_F_TIMEOUT(errno_table, reuseaddr_first_listens, ROW_TIMEOUT)
{
	reuseaddr_rows(_metadata, &self->fp, 2);
}

TEST_F_TIMEOUT(errno_table, reuseaddr_second_cannot_listen, ROW_TIMEOUT)
{
	reuseaddr_rows(_metadata, &self->fp, 3);
}

TEST_F_TIMEOUT(errno_table, reuseaddr_bind_to_listener, ROW_TIMEOUT)
{
	reuseaddr_rows(_metadata, &self->fp, 4);
}

TEST_F_TIMEOUT(errno_table, relisten_other_backlog, ROW_TIMEOUT)
{
	reuseaddr_rows(_metadata, &self->fp, 5);
}

/* SO_REUSEPORT on one side only. */
static void reuseport_listener_rows(struct __test_metadata *_metadata,
				    const struct famproto *fp, int last)
{
	int p, a = bound(_metadata, fp, SO_REUSEPORT, NULL, &p), b;

	if (seq_row(_metadata, last, 1, 0, try_listen(a, 8),
		    "SO_REUSEPORT listener"))
		goto out;
	b = sock_e(_metadata, fp);
	OPT_ON(b, SOL_SOCKET, SO_REUSEADDR);
	seq_row(_metadata, last, 2, EADDRINUSE, try_bind(b, fp->fam, NULL, p),
		"SO_REUSEADDR only, to an SO_REUSEPORT listener's port");
	close(b);
out:
	close(a);
}

TEST_F_TIMEOUT(errno_table, reuseport_listener, ROW_TIMEOUT)
{
	reuseport_listener_rows(_metadata, &self->fp, 1);
}

TEST_F_TIMEOUT(errno_table, reuseaddr_to_reuseport_listener, ROW_TIMEOUT)
{
	reuseport_listener_rows(_metadata, &self->fp, 2);
}

static void plain_listener_rows(struct __test_metadata *_metadata,
				const struct famproto *fp, int last)
{
	int p, a = bound(_metadata, fp, 0, NULL, &p), b;

	if (seq_row(_metadata, last, 1, 0, try_listen(a, 8), "plain listener"))
		goto out;
	b = sock_e(_metadata, fp);
	OPT_ON(b, SOL_SOCKET, SO_REUSEPORT);
	seq_row(_metadata, last, 2, EADDRINUSE, try_bind(b, fp->fam, NULL, p),
		"SO_REUSEPORT bind to a plain listener's port");
	close(b);
out:
	close(a);
}

TEST_F_TIMEOUT(errno_table, plain_listener, ROW_TIMEOUT)
{
	plain_listener_rows(_metadata, &self->fp, 1);
}

TEST_F_TIMEOUT(errno_table, reuseport_to_plain_listener, ROW_TIMEOUT)
{
	plain_listener_rows(_metadata, &self->fp, 2);
}

/* Both SO_REUSEPORT, neither listening yet: bind, then both listen. */
TEST_F_TIMEOUT(errno_table, reuseport_bind_then_both_listen, ROW_TIMEOUT)
{
	const struct famproto *fp = &self->fp;
	int p, a = bound(_metadata, fp, SO_REUSEPORT, NULL, &p), b, e;

	b = sock_e(_metadata, fp);
	OPT_ON(b, SOL_SOCKET, SO_REUSEPORT);
	e = try_bind(b, fp->fam, NULL, p);
	if (!e)
		e = try_listen(a, 8);
	if (!e)
		e = try_listen(b, 8);
	expect_err(_metadata, 0, e,
		   "both SO_REUSEPORT: bind before either listens, then both listen");
	close(b);
	close(a);
}

/* Addresses that do not overlap: the other family's loopback. */
TEST_F_TIMEOUT(errno_table, other_family_loopback, ROW_TIMEOUT)
{
	const struct famproto *fp = &self->fp;
	int p, a = bound(_metadata, fp, 0, "lo", &p), b;

	b = sock_new(_metadata, fp->other_fam, fp->proto);
	if (fp->other_fam == AF_INET6)
		OPT_ON(b, SOL_IPV6, IPV6_V6ONLY);
	expect_err(_metadata, 0,
		   try_bind(b, fp->other_fam, fp->other_lo, p),
		   "same port, the other family's loopback (no overlap)");
	close(b);
	close(a);
}

/* Different devices (SO_BINDTODEVICE): lo and -D IFNAME. */
TEST_F_TIMEOUT(errno_table, different_devices, ROW_TIMEOUT)
{
	const struct famproto *fp = &self->fp;
	int a, b, e, p;

	if (!ifname)
		SKIP(return, "different devices: no second device (-D IFNAME)");
	a = sock_e(_metadata, fp);
	b = sock_e(_metadata, fp);
	ASSERT_EQ(0, setsockopt(a, SOL_SOCKET, SO_BINDTODEVICE, "lo", 3)) {
		TH_LOG("SO_BINDTODEVICE lo: %s", strerror(errno));
	}
	ASSERT_EQ(0, setsockopt(b, SOL_SOCKET, SO_BINDTODEVICE, ifname,
				strlen(ifname) + 1)) {
		TH_LOG("SO_BINDTODEVICE %s: %s", ifname, strerror(errno));
	}
	e = try_bind(a, fp->fam, NULL, 0);
	p = port_of(a);
	if (!e)
		e = try_listen(a, 8);
	if (!e)
		e = try_bind(b, fp->fam, NULL, p);
	if (!e)
		e = try_listen(b, 8);
	expect_err(_metadata, 0, e,
		   "same port and wildcard, different devices");
	close(b);
	close(a);
}

/* EINVAL: bind on a bound, listening, connected socket. */
static void einval_rows(struct __test_metadata *_metadata,
			const struct famproto *fp, int last)
{
	int p, a = bound(_metadata, fp, 0, "lo", &p), b, e;
	struct sockaddr_storage ss;
	socklen_t len;

	if (seq_row(_metadata, last, 1, EINVAL, try_bind(a, fp->fam, "lo", 0),
		    "bind on a bound socket"))
		goto out;
	if (seq_row(_metadata, last, 2, 0, try_listen(a, 8),
		    "listen on the bound socket"))
		goto out;
	if (seq_row(_metadata, last, 3, EINVAL, try_bind(a, fp->fam, "lo", 0),
		    "bind on a listening socket"))
		goto out;
	b = sock_e(_metadata, fp);
	len = mkaddr(&ss, fp->fam, "lo", p);
	e = connect(b, (struct sockaddr *)&ss, len) ? errno : 0;
	if (!e)
		e = try_bind(b, fp->fam, "lo", 0);
	if (!seq_row(_metadata, last, 4, EINVAL, e,
		     "bind on a connected socket"))
		seq_row(_metadata, last, 5, EINVAL, try_listen(b, 8),
			"listen on a connected socket");
	close(b);
out:
	close(a);
}

TEST_F_TIMEOUT(errno_table, bind_bound_socket, ROW_TIMEOUT)
{
	einval_rows(_metadata, &self->fp, 1);
}

TEST_F_TIMEOUT(errno_table, listen_bound_socket, ROW_TIMEOUT)
{
	einval_rows(_metadata, &self->fp, 2);
}

TEST_F_TIMEOUT(errno_table, bind_listening_socket, ROW_TIMEOUT)
{
	einval_rows(_metadata, &self->fp, 3);
}

TEST_F_TIMEOUT(errno_table, bind_connected_socket, ROW_TIMEOUT)
{
	einval_rows(_metadata, &self->fp, 4);
}

TEST_F_TIMEOUT(errno_table, listen_connected_socket, ROW_TIMEOUT)
{
	einval_rows(_metadata, &self->fp, 5);
}

/* listen() unbound: an ephemeral port of the namespace's range. */
TEST_F_TIMEOUT(errno_table, listen_unbound, ROW_TIMEOUT)
{
	const struct famproto *fp = &self->fp;
	int a = sock_e(_metadata, fp), e, p, lo, hi;
	FILE *f;

	e = try_listen(a, 8);
	p = port_of(a);
	f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");
	if (!f || fscanf(f, "%d %d", &lo, &hi) != 2) {
		lo = 1;
		hi = 65535;
	}
	if (f)
		fclose(f);
	expect_err(_metadata, 0, e, "listen unbound");
	EXPECT_TRUE(p >= lo && p <= hi) {
		TH_LOG("listen unbound: port %d not in %d-%d", p, lo, hi);
	}
	close(a);
}

/*
 * Two consecutive ports from 40000 + 2 * (pid % 1000) up that no socket
 * holds: a connection of an earlier test in the namespace (the spread
 * tests' clients) may have left one of them in TIME_WAIT, which bind(0)
 * in a two-port range would count as taken.  Explicit binds of both
 * ports, on the wildcard, must succeed.  The first port.
 */
static int free_pair(struct __test_metadata *_metadata,
		     const struct famproto *fp)
{
	int i, lo, a, b, e;

	for (i = 0; i < 1000; i++) {
		lo = 40000 + (getpid() % 1000 + i) % 1000 * 2;
		a = sock_e(_metadata, fp);
		b = sock_e(_metadata, fp);
		e = try_bind(a, fp->fam, NULL, lo);
		if (!e)
			e = try_bind(b, fp->fam, NULL, lo + 1);
		close(b);
		close(a);
		if (!e)
			return lo;
	}
	ASSERT_TRUE(false) {
		TH_LOG("no two free ports in 40000-41999");
	}
	return -1;
}

/*
 * IP_LOCAL_PORT_RANGE narrows the ephemeral range (two ports); exhausted,
 * bind(0) says EADDRINUSE and connect() EADDRNOTAVAIL.
 */
static void port_range_rows(struct __test_metadata *_metadata,
			    const struct famproto *fp, int last)
{
	int lo = free_pair(_metadata, fp), hi = lo + 1;
	uint32_t range = lo | (uint32_t)hi << 16;
	struct sockaddr_storage ss;
	int fds[4], i, p, ok = 1;
	socklen_t len;

	for (i = 0; i < 4; i++) {
		fds[i] = sock_e(_metadata, fp);
		ASSERT_EQ(0, setsockopt(fds[i], SOL_IP, IP_LOCAL_PORT_RANGE,
					&range, sizeof(range))) {
			TH_LOG("IP_LOCAL_PORT_RANGE: %s", strerror(errno));
		}
	}
	for (i = 0; i < 2; i++) {
		int e = try_bind(fds[i], fp->fam, NULL, 0);

		p = port_of(fds[i]);
		if (e || p < lo || p > hi) {
			TH_LOG("bind(0) #%d with IP_LOCAL_PORT_RANGE %d-%d: %s, port %d",
			       i, lo, hi, ndp_errname(e), p);
			ok = 0;
		}
	}
	/* Row 1 is no errno: both binds gave ports of the range. */
	if (last == 1) {
		EXPECT_TRUE(ok) {
			TH_LOG("bind(0) with IP_LOCAL_PORT_RANGE %d-%d: ports in it",
			       lo, hi);
		}
		goto out;
	}
	ASSERT_TRUE(ok) {
		TH_LOG("setup, row \"bind(0) with IP_LOCAL_PORT_RANGE: ports in it\"");
	}
	if (seq_row(_metadata, last, 2, EADDRINUSE,
		    try_bind(fds[2], fp->fam, NULL, 0),
		    "bind(0) with the range exhausted"))
		goto out;
	len = mkaddr(&ss, fp->fam, "lo", 9);
	seq_row(_metadata, last, 3, EADDRNOTAVAIL,
		connect(fds[3], (struct sockaddr *)&ss, len) ? errno : 0,
		"connect with the range exhausted");
out:
	for (i = 0; i < 4; i++)
		close(fds[i]);
}

TEST_F_TIMEOUT(errno_table, local_port_range, ROW_TIMEOUT)
{
	port_range_rows(_metadata, &self->fp, 1);
}

TEST_F_TIMEOUT(errno_table, local_port_range_bind_exhausted, ROW_TIMEOUT)
{
	port_range_rows(_metadata, &self->fp, 2);
}

TEST_F_TIMEOUT(errno_table, local_port_range_connect_exhausted, ROW_TIMEOUT)
{
	port_range_rows(_metadata, &self->fp, 3);
}

/* Not a local address; then with IP_FREEBIND. */
TEST_F_TIMEOUT(errno_table, bind_nonlocal, ROW_TIMEOUT)
{
	const struct famproto *fp = &self->fp;
	int a = sock_e(_metadata, fp);

	expect_err(_metadata, EADDRNOTAVAIL,
		   try_bind(a, fp->fam, fp->nonlocal, 0),
		   "bind to a non-local address");
	close(a);
}

TEST_F_TIMEOUT(errno_table, bind_nonlocal_freebind, ROW_TIMEOUT)
{
	const struct famproto *fp = &self->fp;
	int a = sock_e(_metadata, fp);

	if (fp->fam == AF_INET)
		OPT_ON(a, SOL_IP, IP_FREEBIND);
	else
		OPT_ON(a, SOL_IPV6, IPV6_FREEBIND);
	expect_err(_metadata, 0, try_bind(a, fp->fam, fp->nonlocal, 0),
		   "bind to a non-local address with FREEBIND");
	close(a);
}

/* Short address; wrong family. */
TEST_F_TIMEOUT(errno_table, bind_short_address, ROW_TIMEOUT)
{
	const struct famproto *fp = &self->fp;
	int a = sock_e(_metadata, fp), e;
	struct sockaddr_storage ss;

	mkaddr(&ss, fp->fam, "lo", 0);
	e = bind(a, (struct sockaddr *)&ss, 4) ? errno : 0;
	expect_err(_metadata, EINVAL, e, "bind with a short address");
	close(a);
}

TEST_F_TIMEOUT(errno_table, bind_other_family_address, ROW_TIMEOUT)
{
	const struct famproto *fp = &self->fp;
	int a = sock_e(_metadata, fp), e;
	struct sockaddr_storage ss;
	socklen_t len;

	len = mkaddr(&ss, fp->fam, "lo", 0);
	ss.ss_family = fp->other_fam;
	e = bind(a, (struct sockaddr *)&ss, len) ? errno : 0;
	expect_err(_metadata, EAFNOSUPPORT, e,
		   "bind with an address of another family");
	close(a);
}

/* A privileged port without CAP_NET_BIND_SERVICE. */
TEST_F_TIMEOUT(errno_table, privileged_port, ROW_TIMEOUT)
{
	const struct famproto *fp = &self->fp;
	int e = other_uid_bind(_metadata, fp->fam, fp->proto, 80, false,
			       NULL);

	if (e == UID_NONE)
		SKIP(return, "privileged port: cannot setuid(%d)", OTHER_UID);
	expect_err(_metadata, EACCES, e, "another uid binds port 80");
}

/* ---- dual stack ------------------------------------------------------ */

/*
 * Dual stack as TCP's: an AF_INET6 wildcard listener without IPV6_V6ONLY
 * takes IPv4 clients (accept() reports them v4-mapped), an AF_INET6
 * client reaches IPv4 through a v4-mapped address, and the port and
 * connect rules follow IPV6_V6ONLY.
 */
FIXTURE(dual) {
	int lfd;	/* the [::] listener, or -1 */
	int port;
};

FIXTURE_VARIANT(dual) {
	int proto;
};

FIXTURE_VARIANT_ADD(dual, ndp) {
	.proto = IPPROTO_NDP,
};

FIXTURE_VARIANT_ADD(dual, tcp) {
	.proto = IPPROTO_TCP,
};

FIXTURE_SETUP(dual)
{
	self->lfd = -1;
	self->port = 0;
}

FIXTURE_TEARDOWN(dual)
{
	if (self->lfd >= 0)
		close(self->lfd);
}

/*
 * The fixture's [::] listener (in *@lfd, for the teardown), IPV6_V6ONLY as
 * @v6only, on an ephemeral port (*@portp).
 */
static void listener6(struct __test_metadata *_metadata, int *lfd,
		      int *portp, int proto, bool v6only)
{
	int on = v6only, e;

	*lfd = sock_new(_metadata, AF_INET6, proto);
	ASSERT_EQ(0, setsockopt(*lfd, SOL_IPV6, IPV6_V6ONLY, &on,
				sizeof(on))) {
		TH_LOG("setsockopt IPV6_V6ONLY: %s", strerror(errno));
	}
	e = try_bind(*lfd, AF_INET6, NULL, 0);
	if (!e)
		e = try_listen(*lfd, 16);
	ASSERT_EQ(0, e) {
		TH_LOG("setup of a [::] listener: %s", ndp_errname(e));
	}
	*portp = port_of(*lfd);
}

/* Whether @ss is the IPv6 address @want (IPv4-mapped ones included). */
static bool peer_is(const struct sockaddr_storage *ss, const char *want)
{
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)ss;
	struct in6_addr a;

	return ss->ss_family == AF_INET6 &&
	       inet_pton(AF_INET6, want, &a) == 1 &&
	       !memcmp(&a, &sin6->sin6_addr, sizeof(a));
}

/*
 * A connection of family @fam to @host at the dual-stack listener @lfd on
 * @port: bytes intact, accepted with @want as the client's address.
 */
static void dual_conn(struct __test_metadata *_metadata, int lfd, int port,
		      int proto, int fam, const char *host, unsigned int id,
		      const char *want)
{
	struct sockaddr_storage peer;
	int who;

	who = conn_from(_metadata, &lfd, 1, fam, proto, host, port, id, &peer);
	EXPECT_EQ(0, who) {
		TH_LOG("%s client to %s: not accepted, bytes not intact",
		       fam_name(fam), host);
	}
	EXPECT_TRUE(peer_is(&peer, want)) {
		TH_LOG("%s client to %s: accepted as %s, want %s",
		       fam_name(fam), host, ndp_sockaddr_str(&peer), want);
	}
}

/*
 * What a client of family @fam sees of a connection to @host: connect()'s
 * errno, or (NDP opens without a handshake: a refusal arrives later) that
 * of a recv() after one byte is sent; 0 if the connection works.
 */
static int conn_result(struct __test_metadata *_metadata, int fam, int proto,
		       const char *host, int port, bool v6only)
{
	struct sockaddr_storage ss;
	struct pollfd p;
	int c = sock_new(_metadata, fam, proto), e = 0;
	char b = 'x';

	if (v6only)
		OPT_ON(c, SOL_IPV6, IPV6_V6ONLY);
	if (connect(c, (struct sockaddr *)&ss, mkaddr(&ss, fam, host, port))) {
		e = errno;
		goto out;
	}
	if (send(c, &b, 1, MSG_NOSIGNAL) != 1) {
		e = errno;
		goto out;
	}
	p.fd = c;
	p.events = POLLIN;
	if (poll(&p, 1, wait_ms) == 1 && recv(c, &b, 1, MSG_DONTWAIT) < 0)
		e = errno;
out:
	close(c);
	return e;
}

TEST_F_TIMEOUT(dual, v4_client, DUAL_TIMEOUT)
{
	listener6(_metadata, &self->lfd, &self->port, variant->proto, false);
	dual_conn(_metadata, self->lfd, self->port, variant->proto, AF_INET,
		  "127.0.0.1", 1, "::ffff:127.0.0.1");
}

TEST_F_TIMEOUT(dual, v6_client, DUAL_TIMEOUT)
{
	listener6(_metadata, &self->lfd, &self->port, variant->proto, false);
	dual_conn(_metadata, self->lfd, self->port, variant->proto, AF_INET6,
		  "::1", 2, "::1");
}

TEST_F_TIMEOUT(dual, v6_client_to_v4_mapped, DUAL_TIMEOUT)
{
	listener6(_metadata, &self->lfd, &self->port, variant->proto, false);
	dual_conn(_metadata, self->lfd, self->port, variant->proto, AF_INET6,
		  "::ffff:127.0.0.1", 3, "::ffff:127.0.0.1");
}

TEST_F_TIMEOUT(dual, v4_bind_on_dual_port, DUAL_TIMEOUT)
{
	int b;

	listener6(_metadata, &self->lfd, &self->port, variant->proto,
		  false);
	b = sock_new(_metadata, AF_INET, variant->proto);
	expect_err(_metadata, EADDRINUSE,
		   try_bind(b, AF_INET, NULL, self->port),
		   "AF_INET wildcard bind on a dual-stack listener's port");
	close(b);
}

TEST_F_TIMEOUT(dual, v6only_client_to_v4_mapped, DUAL_TIMEOUT)
{
	listener6(_metadata, &self->lfd, &self->port, variant->proto,
		  false);
	expect_err(_metadata, ENETUNREACH,
		   conn_result(_metadata, AF_INET6, variant->proto,
			       "::ffff:127.0.0.1", self->port, true),
		   "IPV6_V6ONLY client connects to a v4-mapped address");
}

/* IPV6_V6ONLY: IPv6 only, and IPv4 may have the port. */
TEST_F_TIMEOUT(dual, v6only_listener_refuses_v4, DUAL_TIMEOUT)
{
	listener6(_metadata, &self->lfd, &self->port, variant->proto,
		  true);
	expect_err(_metadata, ECONNREFUSED,
		   conn_result(_metadata, AF_INET, variant->proto, "127.0.0.1",
			       self->port, false),
		   "IPV6_V6ONLY [::] listener: an AF_INET client is refused");
}

TEST_F_TIMEOUT(dual, v4_bind_on_v6only_port, DUAL_TIMEOUT)
{
	int b;

	listener6(_metadata, &self->lfd, &self->port, variant->proto,
		  true);
	b = sock_new(_metadata, AF_INET, variant->proto);
	expect_err(_metadata, 0, try_bind(b, AF_INET, NULL, self->port),
		   "AF_INET wildcard bind on an IPV6_V6ONLY listener's port");
	close(b);
}

/* An AF_INET6 socket bound to a v4-mapped address is an IPv4 one. */
static void mapped_bind_rows(struct __test_metadata *_metadata, int proto,
			     int last)
{
	int a = sock_new(_metadata, AF_INET6, proto), b, p;

	if (seq_row(_metadata, last, 1, 0,
		    try_bind(a, AF_INET6, "::ffff:127.0.0.1", 0),
		    "AF_INET6 bind to ::ffff:127.0.0.1"))
		goto out;
	p = port_of(a);
	b = sock_new(_metadata, AF_INET, proto);
	if (seq_row(_metadata, last, 2, EADDRINUSE,
		    try_bind(b, AF_INET, "127.0.0.1", p),
		    "AF_INET bind to 127.0.0.1 on the port of ::ffff:127.0.0.1")) {
		close(b);
		goto out;
	}
	close(b);
	b = sock_new(_metadata, AF_INET, proto);
	seq_row(_metadata, last, 3, 0, try_bind(b, AF_INET, "127.0.0.2", p),
		"AF_INET bind to 127.0.0.2 on the port of ::ffff:127.0.0.1");
	close(b);
out:
	close(a);
}

TEST_F_TIMEOUT(dual, v6_bind_v4_mapped, DUAL_TIMEOUT)
{
	mapped_bind_rows(_metadata, variant->proto, 1);
}

TEST_F_TIMEOUT(dual, v4_bind_same_as_mapped, DUAL_TIMEOUT)
{
	mapped_bind_rows(_metadata, variant->proto, 2);
}

TEST_F_TIMEOUT(dual, v4_bind_other_addr_mapped_port, DUAL_TIMEOUT)
{
	mapped_bind_rows(_metadata, variant->proto, 3);
}

/* ---- main ------------------------------------------------------------ */

static const char * const fixtures[] = {
	"spread", "uid", "errno_table", "dual",
};

/* Every variant's name, its protocol and its family (0: none). */
static const struct {
	const char *name;
	bool ndp;
	int family;
} variants[] = {
	{ "ndp_v4", true, AF_INET },
	{ "ndp_v6", true, AF_INET6 },
	{ "ndp", true, 0 },
	{ "tcp_v4", false, AF_INET },
	{ "tcp_v6", false, AF_INET6 },
	{ "tcp", false, 0 },
};

static void __attribute__((noreturn)) usage(void)
{
	fprintf(stderr,
		"usage: ndp_reuseport [-p ndp|tcp] [-4|-6] [-n LISTENERS] [-c CONNS]\n"
		"                     [-D IFNAME] [spread|uid|errno_table|dual]...\n"
		"                     [-- HARNESS OPTIONS (-l, -t NAME, ...)]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	bool want[ARRAY_SIZE(fixtures)] = { false }, any = false;
	bool ndp = true, tcp = true, pick_ndp;
	int family = 0, hargc = 0, o, i;
	const char *tf;
	char **hargv;

	/* Our options and fixture names, in any order, up to "--". */
	while (optind < argc) {
		if (!strcmp(argv[optind], "--")) {
			optind++;
			break;
		}
		o = getopt(argc, argv, "+46p:n:c:D:");
		if (o == -1) {
			for (i = 0; i < (int)ARRAY_SIZE(fixtures); i++)
				if (!strcmp(argv[optind], fixtures[i]))
					break;
			if (i == ARRAY_SIZE(fixtures))
				usage();
			want[i] = true;
			any = true;
			optind++;
			continue;
		}
		switch (o) {
		case '4':
			family = AF_INET;
			break;
		case '6':
			family = AF_INET6;
			break;
		case 'p':
			if (ndp_parse_proto(optarg, &pick_ndp))
				usage();
			ndp = pick_ndp;
			tcp = !pick_ndp;
			break;
		case 'n':
			nlisten = atoi(optarg);
			break;
		case 'c':
			nconns = atoi(optarg);
			break;
		case 'D':
			ifname = optarg;
			break;
		default:
			usage();
		}
	}
	if (nlisten < 2 || nlisten > MAX_LISTENERS || nconns < 1)
		usage();
	tf = getenv("NDP_TIME_FACTOR");
	if (tf && atoi(tf) > 1)
		wait_ms = WAIT_MS * atoi(tf);

	/*
	 * The harness's arguments: exclusion filters for what was not
	 * picked (all negative, they add up), then HARNESS OPTIONS.
	 */
	hargv = calloc(1 + 2 * (ARRAY_SIZE(variants) + ARRAY_SIZE(fixtures)) +
		       argc - optind + 1, sizeof(*hargv));
	if (!hargv)
		ndp_die("out of memory");
	hargv[hargc++] = argv[0];
	for (i = 0; i < (int)ARRAY_SIZE(variants); i++) {
		if ((variants[i].ndp ? ndp : tcp) &&
		    (!family || !variants[i].family ||
		     variants[i].family == family))
			continue;
		hargv[hargc++] = "-V";
		hargv[hargc++] = (char *)variants[i].name;
	}
	for (i = 0; any && i < (int)ARRAY_SIZE(fixtures); i++) {
		if (want[i])
			continue;
		hargv[hargc++] = "-F";
		hargv[hargc++] = (char *)fixtures[i];
	}
	while (optind < argc)
		hargv[hargc++] = argv[optind++];
	/* The harness parses its arguments with getopt() from the start. */
	optind = 0;
	return test_harness_run(hargc, hargv);
}
