// SPDX-License-Identifier: GPL-2.0
/*
 * ndp_reuseport: SO_REUSEPORT groups and the bind/listen errno rules of
 * NDP sockets (Documentation/networking/ndp-transport.rst, "Binding and
 * listening"), over loopback in the caller's network namespace.
 *
 *   ndp_reuseport [-4|-6] [-p tcp] spread [-n LISTENERS] [-c CONNS]
 *	LISTENERS (default 4) SO_REUSEPORT listeners share one port; CONNS
 *	(default 64) connections each send a pattern the server checks
 *	byte by byte, and must all be accepted and spread over every
 *	listener.  Then a classic BPF program steers 16 more to the second
 *	listener; then the first listener closes and CONNS more go to the
 *	others, none lost.
 *   ndp_reuseport [-4|-6] [-p tcp] uid
 *	another user's SO_REUSEPORT socket cannot take the group's port (a
 *	child that setuid()s; exit 4 when no other uid can be had).
 *   ndp_reuseport [-4|-6] [-p tcp] errno [-D IFNAME]
 *	one check per row of the table (IFNAME: a second device for the
 *	SO_BINDTODEVICE row).
 *   ndp_reuseport [-p tcp] dual
 *	IPv4 and IPv6 on one socket: an AF_INET6 [::] listener takes IPv4 clients (accepted
 *	as v4-mapped) unless IPV6_V6ONLY, an AF_INET6 client reaches IPv4
 *	through a v4-mapped address, and the port rules across families.
 *
 * -p tcp runs the same checks on TCP, to compare.  Output is TAP; exit 0
 * when everything passed, 1 otherwise.
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
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/ndp.h>

#include "ndp_test.h"
#include "ndp_util.h"

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
#define WAIT_MS		10000

static int family = AF_INET;
static int proto = IPPROTO_NDP;

static int sock_new(int fam)
{
	int fd = socket(fam, SOCK_STREAM, proto);

	if (fd < 0)
		ndp_die_errno("socket");
	return fd;
}

static void opt_on(int fd, int level, int name)
{
	int one = 1;

	if (setsockopt(fd, level, name, &one, sizeof(one)))
		ndp_die_errno("setsockopt");
}

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

static void expect_err(int got, int want, const char *what)
{
	ksft_test_result(got == want, "v%d %s: %s (%s)\n",
			 family == AF_INET ? 4 : 6, what, ndp_errname(want),
			 ndp_errname(got));
}

/* ---- spread ---------------------------------------------------------- */

static int lfd[MAX_LISTENERS], nlisten = 4;
static int accepts[MAX_LISTENERS];

static uint8_t pattern(unsigned int conn, size_t off)
{
	return (uint8_t)(conn * 131 + off * 7 + (off >> 8));
}

/*
 * One connection from a client socket of family @fam to @host (see
 * mkaddr()): the client sends 1000 + 37 * @id bytes and shuts down; the
 * server accepts on whichever listener is readable (the client's address
 * as accept() reports it in @peer, if not NULL), checks every byte and
 * the end of stream.  Returns the listener's index, or -1.
 */
static int conn_from(int fam, const char *host, int port, unsigned int id,
		     struct sockaddr_storage *peer)
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
	c = sock_new(fam);
	if (connect(c, (struct sockaddr *)&ss, mkaddr(&ss, fam, host, port))) {
		printf("# conn %u: connect: %s\n", id, strerror(errno));
		close(c);
		return -1;
	}
	for (i = 0; i < len; i++)
		buf[i] = pattern(id, i);
	if (send(c, buf, len, MSG_NOSIGNAL) != (ssize_t)len ||
	    shutdown(c, SHUT_WR)) {
		printf("# conn %u: send: %s\n", id, strerror(errno));
		close(c);
		return -1;
	}
	end = ndp_now_ms() + WAIT_MS;
	while (s < 0 && ndp_now_ms() < end) {
		for (n = 0; n < nlisten; n++) {
			pfd[n].fd = lfd[n];
			pfd[n].events = POLLIN;
		}
		if (poll(pfd, nlisten, end - ndp_now_ms()) <= 0)
			continue;
		for (n = 0; n < nlisten && s < 0; n++) {
			if (lfd[n] < 0 || !(pfd[n].revents & POLLIN))
				continue;
			s = accept4(lfd[n], (struct sockaddr *)peer,
				    peer ? &plen : NULL, SOCK_NONBLOCK);
			if (s >= 0)
				who = n;
		}
	}
	if (s < 0) {
		printf("# conn %u: not accepted in %d ms\n", id, WAIT_MS);
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
				printf("# conn %u: byte %zu differs\n", id, got + i);
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
		printf("# conn %u: got %zd of %zu bytes\n", id,
		       got == SIZE_MAX ? (ssize_t)-1 : (ssize_t)got, len);
		return -1;
	}
	return who;
}

static int one_conn(int port, unsigned int id)
{
	return conn_from(family, "lo", port, id, NULL);
}

/* Run @conns connections; returns how many failed; counts in accepts[]. */
static int run_conns(int port, int conns, unsigned int first)
{
	int i, who, failed = 0;

	memset(accepts, 0, sizeof(accepts));
	for (i = 0; i < conns; i++) {
		who = one_conn(port, first + i);
		if (who < 0)
			failed++;
		else
			accepts[who]++;
	}
	return failed;
}

static void show_accepts(const char *what)
{
	int n;

	printf("# %s:", what);
	for (n = 0; n < nlisten; n++)
		printf(" %d", lfd[n] < 0 ? -1 : accepts[n]);
	printf("\n");
}

static int spread(int conns)
{
	int n, port = 0, failed, idle;
	int v = family == AF_INET ? 4 : 6;
	/* ret #1: the group's second member. */
	struct sock_filter code[] = { BPF_STMT(BPF_RET | BPF_K, 1) };
	struct sock_fprog prog = { .len = 1, .filter = code };
	bool all;

	ksft_print_header();
	ksft_set_plan(9);
	for (n = 0; n < nlisten; n++) {
		int e;

		lfd[n] = sock_new(family);
		opt_on(lfd[n], SOL_SOCKET, SO_REUSEPORT);
		e = try_bind(lfd[n], family, NULL, port);
		if (!e && !n)
			port = port_of(lfd[0]);
		if (!e)
			e = try_listen(lfd[n], 128);
		if (e) {
			ksft_test_result_fail("v%d: listener %d of %d on port %d: %s\n",
					      v, n, nlisten, port, ndp_errname(e));
			return ndp_test_done();
		}
	}
	ksft_test_result_pass("v%d: %d SO_REUSEPORT listeners bound and listening on port %d\n",
			      v, nlisten, port);

	/*
	 * The flow hash of a connection's addresses and ports (the source
	 * port random) picks a member: a given listener gets none of 64
	 * with probability (3/4)^64 < 1.1e-8, any of 4 < 4.5e-8.
	 */
	failed = run_conns(port, conns, 0);
	show_accepts("accepts per listener");
	ksft_test_result(!failed,
			 "v%d: %d connections accepted, every byte checked (%d failed)\n",
			 v, conns, failed);
	for (all = true, n = 0; n < nlisten; n++)
		all &= accepts[n] > 0;
	ksft_test_result(all, "v%d: every listener accepted some of %d connections\n",
			 v, conns);

	/* A classic BPF program steers (SO_ATTACH_REUSEPORT_CBPF). */
	if (setsockopt(lfd[0], SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, &prog,
		       sizeof(prog))) {
		ksft_test_result_fail("v%d: SO_ATTACH_REUSEPORT_CBPF: %s\n", v, strerror(errno));
	} else {
		failed = run_conns(port, 16, 1000);
		show_accepts("with the program");
		ksft_test_result(!failed && accepts[1] == 16,
				 "v%d: a CBPF program returning 1 sends all 16 to the second listener\n",
				 v);
	}
	setsockopt(lfd[0], SOL_SOCKET, SO_DETACH_REUSEPORT_BPF, &n, sizeof(n));

	/* The first listener closes: the others take every connection. */
	close(lfd[0]);
	lfd[0] = -1;
	failed = run_conns(port, conns, 2000);
	show_accepts("after the first closed");
	ksft_test_result(!failed,
			 "v%d: first listener closed: %d more connections all accepted (%d failed)\n",
			 v, conns, failed);
	/* Each of 3 gets none with probability (2/3)^64 < 5.7e-12. */
	for (all = true, n = 1; n < nlisten; n++)
		all &= accepts[n] > 0;
	ksft_test_result(all, "v%d: the %d remaining listeners all accepted some\n",
			 v, nlisten - 1);

	/* Without SO_REUSEPORT the port is taken. */
	n = sock_new(family);
	expect_err(try_bind(n, family, NULL, port), EADDRINUSE,
		   "bind without SO_REUSEPORT to the group's port");
	close(n);
	n = sock_new(family);
	opt_on(n, SOL_SOCKET, SO_REUSEADDR);
	expect_err(try_bind(n, family, "lo", port), EADDRINUSE,
		   "SO_REUSEADDR bind of a specific address to the group's port");
	close(n);

	/* The listeners all close: the port is free, nothing pending. */
	for (n = 1; n < nlisten; n++)
		close(lfd[n]);
	n = sock_new(family);
	idle = try_bind(n, family, NULL, port);
	expect_err(idle, 0, "the port binds again once the group closed");
	close(n);
	return ndp_test_done();
}

/* ---- uid ------------------------------------------------------------- */

/* In a child: 0 pass, 1 fail, 4 no other uid. */
static int other_uid_bind(int port, bool reuseport, const char *host)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return KSFT_FAIL;
	if (!pid) {
		int fd, e;

		if (setgid(OTHER_UID) || setuid(OTHER_UID))
			_exit(KSFT_SKIP);
		fd = socket(family, SOCK_STREAM, proto);
		if (fd < 0)
			_exit(100);
		if (reuseport)
			opt_on(fd, SOL_SOCKET, SO_REUSEPORT);
		e = try_bind(fd, family, host, port);
		if (!e)
			e = try_listen(fd, 8);
		_exit(e > 99 ? 99 : e);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static int uid_check(void)
{
	int fd, port, e, e2;

	ksft_print_header();
	ksft_set_plan(3);
	fd = sock_new(family);
	opt_on(fd, SOL_SOCKET, SO_REUSEPORT);
	if (try_bind(fd, family, NULL, 0) || try_listen(fd, 8)) {
		perror("listener");
		return KSFT_FAIL;
	}
	port = port_of(fd);
	e = other_uid_bind(port, true, NULL);
	if (e == KSFT_SKIP) {
		printf("# cannot setuid(%d)\n", OTHER_UID);
		close(fd);
		return KSFT_SKIP;
	}
	expect_err(e, EADDRINUSE, "SO_REUSEPORT listener of another uid on the group's port");
	e2 = other_uid_bind(port, true, "lo");
	expect_err(e2, EADDRINUSE, "another uid's SO_REUSEPORT bind to a specific address");
	/* The same uid joins (as control). */
	e = sock_new(family);
	opt_on(e, SOL_SOCKET, SO_REUSEPORT);
	e2 = try_bind(e, family, NULL, port);
	if (!e2)
		e2 = try_listen(e, 8);
	expect_err(e2, 0, "the same uid's SO_REUSEPORT listener joins");
	close(e);
	close(fd);
	return ndp_test_done();
}

/* ---- errno ----------------------------------------------------------- */

/* A bound socket with @opt (SO_REUSEADDR, SO_REUSEPORT or 0). */
static int bound(int opt, const char *host, int port, int *portp)
{
	int fd = sock_new(family), e;

	if (opt)
		opt_on(fd, SOL_SOCKET, opt);
	e = try_bind(fd, family, host, port);
	if (e) {
		printf("# setup bind: %s\n", ndp_errname(e));
		exit(KSFT_FAIL);
	}
	if (portp)
		*portp = port_of(fd);
	return fd;
}

static int errno_table(const char *ifname)
{
	const char *other_fam_lo = family == AF_INET ? "::1" : "127.0.0.1";
	int other_fam = family == AF_INET ? AF_INET6 : AF_INET;
	int a, b, c, p, e, lo, hi;
	struct sockaddr_storage ss;
	socklen_t len;

	ksft_print_header();
	ksft_set_plan(28);

	/* Plain overlap. */
	a = bound(0, NULL, 0, &p);
	b = sock_new(family);
	expect_err(try_bind(b, family, NULL, p), EADDRINUSE, "bind to a bound port");
	close(b);
	b = sock_new(family);
	expect_err(try_bind(b, family, "lo", p), EADDRINUSE,
		   "bind of a specific address under a wildcard");
	close(b);
	close(a);

	/* SO_REUSEADDR: shared while neither listens, not after. */
	a = bound(SO_REUSEADDR, "lo", 0, &p);
	b = sock_new(family);
	opt_on(b, SOL_SOCKET, SO_REUSEADDR);
	expect_err(try_bind(b, family, "lo", p), 0,
		   "both SO_REUSEADDR, neither listening: bind");
	expect_err(try_listen(a, 8), 0, "both SO_REUSEADDR: the first listens");
	expect_err(try_listen(b, 8), EADDRINUSE,
		   "both SO_REUSEADDR: the second cannot listen too");
	c = sock_new(family);
	opt_on(c, SOL_SOCKET, SO_REUSEADDR);
	expect_err(try_bind(c, family, "lo", p), EADDRINUSE,
		   "SO_REUSEADDR bind to an SO_REUSEADDR listener's port");
	close(c);
	/* listen() on a listener with another backlog: allowed. */
	expect_err(try_listen(a, 3), 0, "listen on a listener with another backlog");
	close(b);
	close(a);

	/* SO_REUSEPORT on one side only. */
	a = bound(SO_REUSEPORT, NULL, 0, &p);
	expect_err(try_listen(a, 8), 0, "SO_REUSEPORT listener");
	b = sock_new(family);
	opt_on(b, SOL_SOCKET, SO_REUSEADDR);
	expect_err(try_bind(b, family, NULL, p), EADDRINUSE,
		   "SO_REUSEADDR only, to an SO_REUSEPORT listener's port");
	close(b);
	close(a);
	a = bound(0, NULL, 0, &p);
	expect_err(try_listen(a, 8), 0, "plain listener");
	b = sock_new(family);
	opt_on(b, SOL_SOCKET, SO_REUSEPORT);
	expect_err(try_bind(b, family, NULL, p), EADDRINUSE,
		   "SO_REUSEPORT bind to a plain listener's port");
	close(b);
	close(a);

	/* Both SO_REUSEPORT, neither listening yet: bind, then both listen. */
	a = bound(SO_REUSEPORT, NULL, 0, &p);
	b = sock_new(family);
	opt_on(b, SOL_SOCKET, SO_REUSEPORT);
	e = try_bind(b, family, NULL, p);
	if (!e)
		e = try_listen(a, 8);
	if (!e)
		e = try_listen(b, 8);
	expect_err(e, 0, "both SO_REUSEPORT: bind before either listens, then both listen");
	close(b);
	close(a);

	/* Addresses that do not overlap: the other family's loopback. */
	a = bound(0, "lo", 0, &p);
	b = sock_new(other_fam);
	if (other_fam == AF_INET6)
		opt_on(b, SOL_IPV6, IPV6_V6ONLY);
	expect_err(try_bind(b, other_fam, other_fam_lo, p), 0,
		   "same port, the other family's loopback (no overlap)");
	close(b);
	close(a);

	/* Different devices (SO_BINDTODEVICE). */
	if (ifname) {
		a = sock_new(family);
		b = sock_new(family);
		if (setsockopt(a, SOL_SOCKET, SO_BINDTODEVICE, "lo", 3) ||
		    setsockopt(b, SOL_SOCKET, SO_BINDTODEVICE, ifname,
			       strlen(ifname) + 1)) {
			ksft_test_result_fail("SO_BINDTODEVICE: %s\n", strerror(errno));
		} else {
			e = try_bind(a, family, NULL, 0);
			p = port_of(a);
			if (!e)
				e = try_listen(a, 8);
			if (!e)
				e = try_bind(b, family, NULL, p);
			if (!e)
				e = try_listen(b, 8);
			expect_err(e, 0, "same port and wildcard, different devices");
		}
		close(b);
		close(a);
	} else {
		ksft_test_result_skip("different devices: no second device\n");
	}

	/* EINVAL: bind on a bound, listening, connected socket. */
	a = bound(0, "lo", 0, &p);
	expect_err(try_bind(a, family, "lo", 0), EINVAL, "bind on a bound socket");
	expect_err(try_listen(a, 8), 0, "listen on the bound socket");
	expect_err(try_bind(a, family, "lo", 0), EINVAL, "bind on a listening socket");
	b = sock_new(family);
	len = mkaddr(&ss, family, "lo", p);
	e = connect(b, (struct sockaddr *)&ss, len) ? errno : 0;
	if (!e)
		e = try_bind(b, family, "lo", 0);
	expect_err(e, EINVAL, "bind on a connected socket");
	expect_err(try_listen(b, 8), EINVAL, "listen on a connected socket");
	close(b);
	close(a);

	/* listen() unbound: an ephemeral port of the namespace's range. */
	a = sock_new(family);
	e = try_listen(a, 8);
	p = port_of(a);
	{
		FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");

		if (!f || fscanf(f, "%d %d", &lo, &hi) != 2) {
			lo = 1;
			hi = 65535;
		}
		if (f)
			fclose(f);
	}
	ksft_test_result(!e && p >= lo && p <= hi,
			 "v%d listen unbound: port %d in %d-%d (%s)\n",
			 family == AF_INET ? 4 : 6, p, lo, hi, ndp_errname(e));
	close(a);

	/*
	 * IP_LOCAL_PORT_RANGE narrows the ephemeral range (two ports);
	 * exhausted, bind(0) says EADDRINUSE and connect() EADDRNOTAVAIL.
	 */
	lo = 40000 + (getpid() % 1000) * 2;
	hi = lo + 1;
	{
		uint32_t range = lo | (uint32_t)hi << 16;
		int fds[4], i, ok = 1, err[4];

		for (i = 0; i < 4; i++) {
			fds[i] = sock_new(family);
			err[i] = setsockopt(fds[i], SOL_IP, IP_LOCAL_PORT_RANGE,
					    &range, sizeof(range)) ? -errno : 0;
		}
		for (i = 0; i < 4; i++) {
			if (err[i])
				continue;
			if (i < 3) {
				err[i] = try_bind(fds[i], family, NULL, 0);
			} else {
				len = mkaddr(&ss, family, "lo", 9);
				err[i] = connect(fds[i], (struct sockaddr *)&ss,
						 len) ? errno : 0;
			}
			if (i < 2) {
				p = port_of(fds[i]);
				ok &= !err[i] && p >= lo && p <= hi;
			}
		}
		if (err[0] < 0) {
			ksft_test_result_fail("IP_LOCAL_PORT_RANGE: %s\n", ndp_errname(-err[0]));
		} else {
			ksft_test_result(ok,
					 "v%d bind(0) with IP_LOCAL_PORT_RANGE %d-%d: ports in it\n",
					 family == AF_INET ? 4 : 6, lo, hi);
		}
		expect_err(err[2], EADDRINUSE, "bind(0) with the range exhausted");
		expect_err(err[3], EADDRNOTAVAIL, "connect with the range exhausted");
		for (i = 0; i < 4; i++)
			close(fds[i]);
	}

	/* Not a local address; then with IP_FREEBIND. */
	a = sock_new(family);
	expect_err(try_bind(a, family, family == AF_INET ? "192.0.2.77" : "2001:db8::77", 0),
		   EADDRNOTAVAIL, "bind to a non-local address");
	close(a);
	a = sock_new(family);
	if (family == AF_INET)
		opt_on(a, SOL_IP, IP_FREEBIND);
	else
		opt_on(a, SOL_IPV6, IPV6_FREEBIND);
	expect_err(try_bind(a, family, family == AF_INET ? "192.0.2.77" : "2001:db8::77", 0),
		   0, "bind to a non-local address with FREEBIND");
	close(a);

	/* Short address; wrong family. */
	a = sock_new(family);
	mkaddr(&ss, family, "lo", 0);
	e = bind(a, (struct sockaddr *)&ss, 4) ? errno : 0;
	expect_err(e, EINVAL, "bind with a short address");
	close(a);
	a = sock_new(family);
	len = mkaddr(&ss, family, "lo", 0);
	ss.ss_family = other_fam;
	e = bind(a, (struct sockaddr *)&ss, len) ? errno : 0;
	expect_err(e, EAFNOSUPPORT, "bind with an address of another family");
	close(a);

	/* A privileged port without CAP_NET_BIND_SERVICE. */
	e = other_uid_bind(80, false, NULL);
	if (e == KSFT_SKIP)
		ksft_test_result_skip("privileged port: cannot setuid(%d)\n",
				      OTHER_UID);
	else
		expect_err(e, EACCES, "another uid binds port 80");
	return ndp_test_done();
}

/* ---- dual stack ------------------------------------------------------ */

static int listener6(bool v6only, const char *host, int *portp)
{
	int fd = socket(AF_INET6, SOCK_STREAM, proto), e;
	int on = v6only;

	if (fd < 0)
		ndp_die_errno("socket");
	if (setsockopt(fd, SOL_IPV6, IPV6_V6ONLY, &on, sizeof(on)))
		ndp_die_errno("setsockopt IPV6_V6ONLY");
	e = try_bind(fd, AF_INET6, host, *portp);
	if (!e)
		e = try_listen(fd, 16);
	if (e) {
		printf("# setup of a [::] listener: %s\n", ndp_errname(e));
		exit(KSFT_FAIL);
	}
	*portp = port_of(fd);
	return fd;
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
 * What a client of family @fam sees of a connection to @host: connect()'s
 * errno, or (NDP opens without a handshake: a refusal arrives later) that
 * of a recv() after one byte is sent; 0 if the connection works.
 */
static int conn_result(int fam, const char *host, int port, bool v6only)
{
	struct sockaddr_storage ss;
	struct pollfd p;
	int c = sock_new(fam), e = 0;
	char b = 'x';

	if (v6only)
		opt_on(c, SOL_IPV6, IPV6_V6ONLY);
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
	if (poll(&p, 1, WAIT_MS) == 1 && recv(c, &b, 1, MSG_DONTWAIT) < 0)
		e = errno;
out:
	close(c);
	return e;
}

/*
 * Dual stack as TCP's: an AF_INET6 wildcard listener without IPV6_V6ONLY
 * takes IPv4 clients (accept() reports them v4-mapped), an AF_INET6
 * client reaches IPv4 through a v4-mapped address, and the port and
 * connect rules follow IPV6_V6ONLY.
 */
static int dual_stack(void)
{
	struct sockaddr_storage peer;
	int a, b, p = 0, p2 = 0, p3, who;

	ksft_print_header();
	ksft_set_plan(10);
	family = AF_INET6;	/* for expect_err()'s "v6" */
	nlisten = 1;
	lfd[0] = listener6(false, NULL, &p);
	who = conn_from(AF_INET, "127.0.0.1", p, 1, &peer);
	ksft_test_result(who == 0 && peer_is(&peer, "::ffff:127.0.0.1"),
			 "[::] listener: an AF_INET client, bytes intact, accepted as %s\n",
			 ndp_sockaddr_str(&peer));
	who = conn_from(AF_INET6, "::1", p, 2, &peer);
	ksft_test_result(who == 0 && peer_is(&peer, "::1"),
			 "[::] listener: an AF_INET6 client, bytes intact, accepted as %s\n",
			 ndp_sockaddr_str(&peer));
	who = conn_from(AF_INET6, "::ffff:127.0.0.1", p, 3, &peer);
	ksft_test_result(who == 0 && peer_is(&peer, "::ffff:127.0.0.1"),
			 "an AF_INET6 client to ::ffff:127.0.0.1, bytes intact, accepted as %s\n",
			 ndp_sockaddr_str(&peer));
	b = sock_new(AF_INET);
	expect_err(try_bind(b, AF_INET, NULL, p), EADDRINUSE,
		   "AF_INET wildcard bind on a dual-stack listener's port");
	close(b);
	expect_err(conn_result(AF_INET6, "::ffff:127.0.0.1", p, true), ENETUNREACH,
		   "IPV6_V6ONLY client connects to a v4-mapped address");
	close(lfd[0]);

	/* IPV6_V6ONLY: IPv6 only, and IPv4 may have the port. */
	lfd[0] = listener6(true, NULL, &p2);
	expect_err(conn_result(AF_INET, "127.0.0.1", p2, false), ECONNREFUSED,
		   "IPV6_V6ONLY [::] listener: an AF_INET client is refused");
	b = sock_new(AF_INET);
	expect_err(try_bind(b, AF_INET, NULL, p2), 0,
		   "AF_INET wildcard bind on an IPV6_V6ONLY listener's port");
	close(b);
	close(lfd[0]);

	/* An AF_INET6 socket bound to a v4-mapped address is an IPv4 one. */
	a = sock_new(AF_INET6);
	expect_err(try_bind(a, AF_INET6, "::ffff:127.0.0.1", 0), 0,
		   "AF_INET6 bind to ::ffff:127.0.0.1");
	p3 = port_of(a);
	b = sock_new(AF_INET);
	expect_err(try_bind(b, AF_INET, "127.0.0.1", p3), EADDRINUSE,
		   "AF_INET bind to 127.0.0.1 on the port of ::ffff:127.0.0.1");
	close(b);
	b = sock_new(AF_INET);
	expect_err(try_bind(b, AF_INET, "127.0.0.2", p3), 0,
		   "AF_INET bind to 127.0.0.2 on the port of ::ffff:127.0.0.1");
	close(b);
	close(a);
	return ndp_test_done();
}

static void __attribute__((noreturn)) usage(void)
{
	fprintf(stderr,
		"usage: ndp_reuseport [-4|-6] [-p tcp] spread [-n N] [-c CONNS]\n"
		"       ndp_reuseport [-4|-6] [-p tcp] uid\n"
		"       ndp_reuseport [-4|-6] [-p tcp] errno [-D IFNAME]\n"
		"       ndp_reuseport [-p tcp] dual\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *ifname = NULL, *cmd;
	int conns = 64, o;

	while ((o = getopt(argc, argv, "+46p:")) != -1) {
		switch (o) {
		case '4':
			family = AF_INET;
			break;
		case '6':
			family = AF_INET6;
			break;
		case 'p':
			proto = strcmp(optarg, "tcp") ? IPPROTO_NDP : IPPROTO_TCP;
			break;
		default:
			usage();
		}
	}
	if (optind >= argc)
		usage();
	cmd = argv[optind];
	optind++;
	while ((o = getopt(argc, argv, "n:c:D:")) != -1) {
		switch (o) {
		case 'n':
			nlisten = atoi(optarg);
			break;
		case 'c':
			conns = atoi(optarg);
			break;
		case 'D':
			ifname = optarg;
			break;
		default:
			usage();
		}
	}
	if (nlisten < 2 || nlisten > MAX_LISTENERS || conns < 1)
		usage();
	if (!strcmp(cmd, "spread"))
		return spread(conns);
	if (!strcmp(cmd, "uid"))
		return uid_check();
	if (!strcmp(cmd, "errno"))
		return errno_table(ifname);
	if (!strcmp(cmd, "dual"))
		return dual_stack();
	usage();
}
