/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ndp_util: what the NDP user-space tools and selftest helpers share
 * (ndpperf; ndp_xfer, ndp_scale, ndp_replay, ndp_fuzz, ndp_reuseport,
 * ndp_pktgen and ndp_diag of the selftests): fatal errors, clocks, sizes
 * and protocols on the command line, socket addresses, stream sockets of
 * either protocol, errno names, pcap files.  Each program is linked with
 * ndp_util.c (its Makefile lists it as a source).
 */
#ifndef NDP_UTIL_H
#define NDP_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

/* Exit status of ndp_die() (1 unless the program sets another). */
extern int ndp_die_status;

/* "PROGRAM: MESSAGE" on stderr, then exit(ndp_die_status). */
void ndp_die(const char *fmt, ...)
	__attribute__((noreturn, format(printf, 1, 2)));
/* ndp_die() with ": strerror(errno)" appended. */
void ndp_die_errno(const char *fmt, ...)
	__attribute__((noreturn, format(printf, 1, 2)));

/* CLOCK_MONOTONIC in seconds, milliseconds or nanoseconds. */
double ndp_now_s(void);
double ndp_now_ms(void);
uint64_t ndp_now_ns(void);

/*
 * A byte count with an optional binary suffix, "1500", "64k", "10M",
 * "1.5G" (k, M, G: 2^10, 2^20, 2^30, either case).  0 and *@bytes set,
 * or -1 if @s is not such a count.
 */
int ndp_parse_size(const char *s, uint64_t *bytes);
/* ndp_parse_size() that dies with "bad size 'S'". */
uint64_t ndp_size_arg(const char *s);

/* "ndp" or "tcp" (the -p option of the tools): 0 and *@ndp set, or -1. */
int ndp_parse_proto(const char *s, bool *ndp);

/*
 * The socket options the NDP/TCP tools share, for their getopt() loops:
 * -p ndp|tcp (*@ndp), -4 and -6 (*@family), -P PORT (*@port), -b ADDR
 * (*@bind).  1 if @c was one of them (applied), 0 if not, -1 if @arg is
 * bad.
 */
int ndp_sock_opt(int c, const char *arg, bool *ndp, int *family, int *port,
		 const char **bind);

/*
 * Fill @ss with @host (an IPv4 or IPv6 literal of @family; NULL: the
 * wildcard address) and @port; returns the address length.  Dies on an
 * address that does not parse.
 */
socklen_t ndp_sockaddr(struct sockaddr_storage *ss, int family,
		       const char *host, int port);
/* The port of an AF_INET or AF_INET6 address. */
int ndp_sockaddr_port(const struct sockaddr_storage *ss);
/* "ADDRESS:PORT", in a static buffer. */
const char *ndp_sockaddr_str(const struct sockaddr_storage *ss);

/*
 * A stream socket of @family: NDP (SOCK_NDP) if @ndp, else TCP; @flags
 * (SOCK_NONBLOCK, SOCK_CLOEXEC) or'ed into the type.  -1 and errno set
 * on failure.
 */
int ndp_stream_socket(int family, bool ndp, int flags);

/* The symbolic name of an errno value ("EAGAIN"; "0"; "errno N"). */
const char *ndp_errname(int e);

/* pcap files: classic format, microsecond timestamps, Ethernet frames. */
#define NDP_PCAP_MAGIC		0xa1b2c3d4
#define NDP_PCAP_ETHERNET	1

struct ndp_pcap_hdr {
	uint32_t magic;
	uint16_t major, minor;
	int32_t thiszone;
	uint32_t sigfigs, snaplen, linktype;
};

struct ndp_pcap_rec {
	uint32_t ts_sec, ts_usec, incl_len, orig_len;
};

/* Create @file with the file header for frames of up to @snaplen bytes. */
FILE *ndp_pcap_create(const char *file, unsigned int snaplen);
/* Append one frame, time-stamped now. */
void ndp_pcap_write(FILE *f, const void *frame, unsigned int len);

#endif /* NDP_UTIL_H */
