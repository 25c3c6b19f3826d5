// SPDX-License-Identifier: GPL-2.0
/*
 * ndp_socktest: socket-creation checks for the NDP selftests, on the
 * kernel's kselftest_harness.h (one forked test per check, KTAP output).
 *
 *   ndp_socktest [HARNESS OPTIONS]  every family/type/protocol combination
 *                                   opens, reports itself and closes, with
 *                                   and without SOCK_NONBLOCK|SOCK_CLOEXEC;
 *                                   TCP is intact; SOCK_DGRAM is refused
 *   ndp_socktest hold SECONDS       keep one NDP socket open (module busy)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <linux/ndp.h>

#include "kselftest_harness.h"

/* One socket() combination; the test opens it in setup. */
FIXTURE(sock) {
	int fd;
};

FIXTURE_VARIANT(sock) {
	int family;
	int type;
	int protocol;
	int flags;
};

FIXTURE_VARIANT_ADD(sock, v4_ndp_0) {
	.family = AF_INET, .type = SOCK_NDP, .protocol = 0,
	.flags = 0,
};

FIXTURE_VARIANT_ADD(sock, v4_ndp_ndp) {
	.family = AF_INET, .type = SOCK_NDP, .protocol = IPPROTO_NDP,
	.flags = 0,
};

FIXTURE_VARIANT_ADD(sock, v4_stream_ndp) {
	.family = AF_INET, .type = SOCK_STREAM, .protocol = IPPROTO_NDP,
	.flags = 0,
};

FIXTURE_VARIANT_ADD(sock, v6_ndp_0) {
	.family = AF_INET6, .type = SOCK_NDP, .protocol = 0,
	.flags = 0,
};

FIXTURE_VARIANT_ADD(sock, v6_ndp_ndp) {
	.family = AF_INET6, .type = SOCK_NDP, .protocol = IPPROTO_NDP,
	.flags = 0,
};

FIXTURE_VARIANT_ADD(sock, v6_stream_ndp) {
	.family = AF_INET6, .type = SOCK_STREAM, .protocol = IPPROTO_NDP,
	.flags = 0,
};

FIXTURE_VARIANT_ADD(sock, v4_ndp_0_nb) {
	.family = AF_INET, .type = SOCK_NDP, .protocol = 0,
	.flags = SOCK_NONBLOCK | SOCK_CLOEXEC,
};

FIXTURE_VARIANT_ADD(sock, v4_ndp_ndp_nb) {
	.family = AF_INET, .type = SOCK_NDP, .protocol = IPPROTO_NDP,
	.flags = SOCK_NONBLOCK | SOCK_CLOEXEC,
};

FIXTURE_VARIANT_ADD(sock, v4_stream_ndp_nb) {
	.family = AF_INET, .type = SOCK_STREAM, .protocol = IPPROTO_NDP,
	.flags = SOCK_NONBLOCK | SOCK_CLOEXEC,
};

FIXTURE_VARIANT_ADD(sock, v6_ndp_0_nb) {
	.family = AF_INET6, .type = SOCK_NDP, .protocol = 0,
	.flags = SOCK_NONBLOCK | SOCK_CLOEXEC,
};

FIXTURE_VARIANT_ADD(sock, v6_ndp_ndp_nb) {
	.family = AF_INET6, .type = SOCK_NDP, .protocol = IPPROTO_NDP,
	.flags = SOCK_NONBLOCK | SOCK_CLOEXEC,
};

FIXTURE_VARIANT_ADD(sock, v6_stream_ndp_nb) {
	.family = AF_INET6, .type = SOCK_STREAM, .protocol = IPPROTO_NDP,
	.flags = SOCK_NONBLOCK | SOCK_CLOEXEC,
};

FIXTURE_SETUP(sock)
{
	self->fd = socket(variant->family, variant->type | variant->flags,
			  variant->protocol);
	ASSERT_LE(0, self->fd) TH_LOG("socket: %s", strerror(errno));
}

FIXTURE_TEARDOWN(sock)
{
	if (self->fd >= 0)
		close(self->fd);
}

static int sockopt_int(int fd, int name)
{
	socklen_t len = sizeof(int);
	int v = -1;

	if (getsockopt(fd, SOL_SOCKET, name, &v, &len))
		return -errno;
	return v;
}

TEST_F(sock, reports_itself)
{
	EXPECT_EQ(IPPROTO_NDP, sockopt_int(self->fd, SO_PROTOCOL));
	EXPECT_EQ(variant->type, sockopt_int(self->fd, SO_TYPE));
	EXPECT_EQ(variant->family, sockopt_int(self->fd, SO_DOMAIN));
}

TEST_F(sock, flags)
{
	int fl = fcntl(self->fd, F_GETFL), fdfl = fcntl(self->fd, F_GETFD);

	ASSERT_LE(0, fl);
	ASSERT_LE(0, fdfl);
	EXPECT_EQ(!!(variant->flags & SOCK_NONBLOCK), !!(fl & O_NONBLOCK));
	EXPECT_EQ(!!(variant->flags & SOCK_CLOEXEC), !!(fdfl & FD_CLOEXEC));
}

TEST_F(sock, closes)
{
	int fd = self->fd;

	self->fd = -1;
	EXPECT_EQ(0, close(fd)) TH_LOG("close: %s", strerror(errno));
}

/* Plain SOCK_STREAM must still be TCP. */
FIXTURE(tcp) {
	int fd;
};

FIXTURE_VARIANT(tcp) {
	int family;
};

FIXTURE_VARIANT_ADD(tcp, v4) { .family = AF_INET, };
FIXTURE_VARIANT_ADD(tcp, v6) { .family = AF_INET6, };

FIXTURE_SETUP(tcp)
{
	self->fd = socket(variant->family, SOCK_STREAM, 0);
	ASSERT_LE(0, self->fd) TH_LOG("socket: %s", strerror(errno));
}

FIXTURE_TEARDOWN(tcp)
{
	close(self->fd);
}

TEST_F(tcp, still_tcp)
{
	EXPECT_EQ(IPPROTO_TCP, sockopt_int(self->fd, SO_PROTOCOL));
}

/* A type NDP does not provide fails the usual way. */
TEST(dgram_refused)
{
	int fd = socket(AF_INET, SOCK_DGRAM, IPPROTO_NDP);

	EXPECT_GT(0, fd);
	EXPECT_EQ(EPROTONOSUPPORT, errno);
	if (fd >= 0)
		close(fd);
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
	if (argc >= 2 && !strcmp(argv[1], "hold")) {
		if (argc < 3) {
			fprintf(stderr, "usage: %s hold SECONDS\n", argv[0]);
			return 2;
		}
		return hold(atoi(argv[2]));
	}
	return test_harness_run(argc, argv);
}
