// SPDX-License-Identifier: GPL-2.0
/*
 * ndp_socktest: socket-creation checks for the NDP selftests.
 *
 *   ndp_socktest matrix        TAP checks: every family/type/protocol
 *                              combination opens and closes, TCP is intact
 *   ndp_socktest hold SECONDS  keep one NDP socket open (module busy test)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <linux/ndp.h>

#include "ndp_test.h"

struct combo {
	int family;
	int type;
	int protocol;
	const char *name;
};

static const struct combo combos[] = {
	{ AF_INET,  SOCK_NDP,    0,           "AF_INET SOCK_NDP 0" },
	{ AF_INET,  SOCK_NDP,    IPPROTO_NDP, "AF_INET SOCK_NDP IPPROTO_NDP" },
	{ AF_INET,  SOCK_STREAM, IPPROTO_NDP, "AF_INET SOCK_STREAM IPPROTO_NDP" },
	{ AF_INET6, SOCK_NDP,    0,           "AF_INET6 SOCK_NDP 0" },
	{ AF_INET6, SOCK_NDP,    IPPROTO_NDP, "AF_INET6 SOCK_NDP IPPROTO_NDP" },
	{ AF_INET6, SOCK_STREAM, IPPROTO_NDP, "AF_INET6 SOCK_STREAM IPPROTO_NDP" },
};

#define NCOMBOS ARRAY_SIZE(combos)

static void check_combo(const struct combo *c, int flags, const char *fname)
{
	int fd, proto = -1, type = -1, domain = -1;
	socklen_t len = sizeof(int);

	fd = socket(c->family, c->type | flags, c->protocol);
	if (fd < 0) {
		ksft_test_result_fail("%s%s opens: %s\n", c->name, fname, strerror(errno));
		return;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &len) ||
	    getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) ||
	    getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len))
		ksft_test_result_fail("%s%s getsockopt: %s\n", c->name, fname, strerror(errno));
	else if (proto != IPPROTO_NDP || type != c->type || domain != c->family)
		ksft_test_result_fail("%s%s reports domain %d type %d protocol %d\n",
				      c->name, fname, domain, type, proto);
	else
		ksft_test_result_pass("%s%s opens and reports itself\n", c->name, fname);

	if (close(fd))
		ksft_test_result_fail("%s%s closes: %s\n", c->name, fname, strerror(errno));
	else
		ksft_test_result_pass("%s%s closes\n", c->name, fname);
}

/* Plain SOCK_STREAM must still be TCP. */
static void check_tcp_intact(int family)
{
	int fd, proto = -1;
	socklen_t len = sizeof(proto);

	fd = socket(family, SOCK_STREAM, 0);
	if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &len)) {
		ksft_test_result_fail("family %d SOCK_STREAM 0 still opens: %s\n", family,
				      strerror(errno));
	} else {
		ksft_test_result(proto == IPPROTO_TCP,
				 "family %d SOCK_STREAM 0 is still TCP (got %d)\n",
				 family, proto);
	}
	if (fd >= 0)
		close(fd);
}

static int matrix(void)
{
	unsigned int i;
	int fd;

	ksft_print_header();
	ksft_set_plan(NCOMBOS * 4 + 3);
	for (i = 0; i < NCOMBOS; i++) {
		check_combo(&combos[i], 0, "");
		check_combo(&combos[i], SOCK_NONBLOCK | SOCK_CLOEXEC,
			    " NONBLOCK|CLOEXEC");
	}
	check_tcp_intact(AF_INET);
	check_tcp_intact(AF_INET6);

	/* A type NDP does not provide must still fail the usual way. */
	fd = socket(AF_INET, SOCK_DGRAM, IPPROTO_NDP);
	ksft_test_result(fd < 0 && errno == EPROTONOSUPPORT,
			 "SOCK_DGRAM IPPROTO_NDP is refused with EPROTONOSUPPORT\n");
	if (fd >= 0)
		close(fd);
	return ndp_test_done();
}

static int hold(int secs)
{
	int fd = socket(AF_INET, SOCK_NDP, 0);

	if (fd < 0) {
		perror("socket");
		return 1;
	}
	printf("holding\n");
	fflush(stdout);
	sleep(secs);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "matrix"))
		return matrix();
	if (argc >= 3 && !strcmp(argv[1], "hold"))
		return hold(atoi(argv[2]));
	fprintf(stderr, "usage: %s matrix | hold SECONDS\n", argv[0]);
	return 2;
}
