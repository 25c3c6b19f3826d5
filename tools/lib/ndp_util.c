// SPDX-License-Identifier: GPL-2.0
/*
 * ndp_util: helpers shared by the NDP user-space tools and selftest
 * helpers; see ndp_util.h.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <linux/ndp.h>

#include "ndp_util.h"

int ndp_die_status = 1;

static void __attribute__((noreturn, format(printf, 1, 0)))
ndp_vdie(const char *fmt, va_list ap, int err)
{
	fprintf(stderr, "%s: ", program_invocation_short_name);
	vfprintf(stderr, fmt, ap);
	if (err >= 0)
		fprintf(stderr, ": %s", strerror(err));
	fprintf(stderr, "\n");
	exit(ndp_die_status);
}

void ndp_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ndp_vdie(fmt, ap, -1);
}

void ndp_die_errno(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	ndp_vdie(fmt, ap, err);
}

static struct timespec ndp_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts;
}

double ndp_now_s(void)
{
	struct timespec ts = ndp_now();

	return ts.tv_sec + ts.tv_nsec / 1e9;
}

double ndp_now_ms(void)
{
	struct timespec ts = ndp_now();

	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

uint64_t ndp_now_ns(void)
{
	struct timespec ts = ndp_now();

	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int ndp_parse_size(const char *s, uint64_t *bytes)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || v < 0)
		return -1;
	switch (*end) {
	case 'k':
	case 'K':
		v *= 1024;
		end++;
		break;
	case 'm':
	case 'M':
		v *= 1024 * 1024;
		end++;
		break;
	case 'g':
	case 'G':
		v *= 1024.0 * 1024 * 1024;
		end++;
		break;
	}
	if (*end || v >= 18446744073709551616.0)
		return -1;
	*bytes = v;
	return 0;
}

uint64_t ndp_size_arg(const char *s)
{
	uint64_t v;

	if (ndp_parse_size(s, &v))
		ndp_die("bad size '%s'", s);
	return v;
}

int ndp_parse_proto(const char *s, bool *ndp)
{
	if (!strcmp(s, "ndp"))
		*ndp = true;
	else if (!strcmp(s, "tcp"))
		*ndp = false;
	else
		return -1;
	return 0;
}

int ndp_sock_opt(int c, const char *arg, bool *ndp, int *family, int *port,
		 const char **bind)
{
	char *end;
	long v;

	switch (c) {
	case 'p':
		return ndp_parse_proto(arg, ndp) ? -1 : 1;
	case '4':
		*family = AF_INET;
		return 1;
	case '6':
		*family = AF_INET6;
		return 1;
	case 'P':
		v = strtol(arg, &end, 10);
		if (end == arg || *end || v < 0 || v > 65535)
			return -1;
		*port = v;
		return 1;
	case 'b':
		*bind = arg;
		return 1;
	}
	return 0;
}

socklen_t ndp_sockaddr(struct sockaddr_storage *ss, int family,
		       const char *host, int port)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		sin->sin_addr.s_addr = htonl(INADDR_ANY);
		if (host && inet_pton(AF_INET, host, &sin->sin_addr) != 1)
			ndp_die("bad IPv4 address '%s'", host);
		return sizeof(*sin);
	}
	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = htons(port);
	sin6->sin6_addr = in6addr_any;
	if (host && inet_pton(AF_INET6, host, &sin6->sin6_addr) != 1)
		ndp_die("bad IPv6 address '%s'", host);
	return sizeof(*sin6);
}

int ndp_sockaddr_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)ss)->sin_port);
	return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
}

const char *ndp_sockaddr_str(const struct sockaddr_storage *ss)
{
	static char buf[INET6_ADDRSTRLEN + 16];
	char a[INET6_ADDRSTRLEN] = "?";

	if (ss->ss_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)ss)->sin_addr,
			  a, sizeof(a));
	else if (ss->ss_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)ss)->sin6_addr,
			  a, sizeof(a));
	snprintf(buf, sizeof(buf), "%s:%d", a, ndp_sockaddr_port(ss));
	return buf;
}

int ndp_stream_socket(int family, bool ndp, int flags)
{
	return socket(family, (ndp ? SOCK_NDP : SOCK_STREAM) | flags, 0);
}

const char *ndp_errname(int e)
{
	static char buf[32];
	const char *name;

	if (!e)
		return "0";
	name = strerrorname_np(e);
	if (name)
		return name;
	snprintf(buf, sizeof(buf), "errno %d", e);
	return buf;
}

FILE *ndp_pcap_create(const char *file, unsigned int snaplen)
{
	struct ndp_pcap_hdr gh = {
		.magic = NDP_PCAP_MAGIC, .major = 2, .minor = 4,
		.snaplen = snaplen, .linktype = NDP_PCAP_ETHERNET,
	};
	FILE *f = fopen(file, "w");

	if (!f || fwrite(&gh, sizeof(gh), 1, f) != 1)
		ndp_die_errno("%s", file);
	return f;
}

void ndp_pcap_write(FILE *f, const void *frame, unsigned int len)
{
	struct ndp_pcap_rec rec;
	struct timeval tv;

	gettimeofday(&tv, NULL);
	rec.ts_sec = tv.tv_sec;
	rec.ts_usec = tv.tv_usec;
	rec.incl_len = len;
	rec.orig_len = len;
	fwrite(&rec, sizeof(rec), 1, f);
	fwrite(frame, len, 1, f);
}
