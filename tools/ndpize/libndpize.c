// SPDX-License-Identifier: GPL-2.0
/*
 * libndpize.so: run unmodified TCP applications over NDP (LD_PRELOAD).
 *
 * socket(AF_INET or AF_INET6, SOCK_STREAM, 0 or IPPROTO_TCP) returns an NDP
 * socket instead.  With a selector (NDPIZE_PORTS, NDPIZE_PREFIXES) the
 * decision waits for bind() or connect(): the socket starts as TCP and is
 * replaced in place (same descriptor number, same flags, the SOL_SOCKET and
 * IPv6 options set so far replayed) when the address matches.
 *
 * TCP-level socket options on NDP sockets: see ndpize(8).  The ones that
 * only tune TCP's own machinery are accepted and ignored; the others fail
 * as NDP itself makes them fail (ENOPROTOOPT).
 *
 * Environment:
 *   NDPIZE_PORTS=P[,P-Q...]   only sockets bound to or connecting to these
 *                             ports
 *   NDPIZE_PREFIXES=A/L[,...] only sockets connecting to (or bound to) an
 *                             address in these prefixes
 *   NDPIZE_DEBUG=1            log every decision to stderr
 * No selector: every TCP socket becomes NDP.  Both: either may match.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/ndp.h>

#define NDPIZE_MAX_FDS		65536
#define NDPIZE_MAX_OPTS		16
#define NDPIZE_OPT_LEN		32
#define NDPIZE_MAX_RANGES	32
#define NDPIZE_MAX_PREFIXES	32

struct ndpize_opt {
	int level;
	int name;
	socklen_t len;
	unsigned char val[NDPIZE_OPT_LEN];
};

/* A TCP socket that may still become NDP at bind() or connect(). */
struct ndpize_candidate {
	bool active;
	int family;
	int nopts;
	struct ndpize_opt opts[NDPIZE_MAX_OPTS];
};

struct ndpize_range {
	unsigned int lo, hi;
};

struct ndpize_prefix {
	int family;
	unsigned char addr[16];
	unsigned int len;
};

static int (*real_socket)(int, int, int);
static int (*real_bind)(int, const struct sockaddr *, socklen_t);
static int (*real_connect)(int, const struct sockaddr *, socklen_t);
static int (*real_setsockopt)(int, int, int, const void *, socklen_t);
static int (*real_getsockopt)(int, int, int, void *, socklen_t *);
static int (*real_close)(int);

static pthread_once_t ndpize_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t ndpize_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ndpize_candidate *ndpize_cands[NDPIZE_MAX_FDS];

static bool ndpize_debug;
static bool ndpize_selective;
static struct ndpize_range ndpize_ports[NDPIZE_MAX_RANGES];
static int ndpize_nports;
static struct ndpize_prefix ndpize_prefixes[NDPIZE_MAX_PREFIXES];
static int ndpize_nprefixes;

static void ndpize_log(const char *fmt, ...)
{
	va_list ap;

	if (!ndpize_debug)
		return;
	va_start(ap, fmt);
	fprintf(stderr, "ndpize[%d]: ", getpid());
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void ndpize_parse_ports(const char *s)
{
	char *copy = strdup(s), *tok, *save = NULL;

	for (tok = strtok_r(copy, ",", &save); tok && ndpize_nports < NDPIZE_MAX_RANGES;
	     tok = strtok_r(NULL, ",", &save)) {
		unsigned int lo, hi;

		if (sscanf(tok, "%u-%u", &lo, &hi) != 2) {
			if (sscanf(tok, "%u", &lo) != 1) {
				fprintf(stderr, "ndpize: bad port '%s' ignored\n", tok);
				continue;
			}
			hi = lo;
		}
		if (lo > 65535 || hi > 65535 || lo > hi) {
			fprintf(stderr, "ndpize: bad port range '%s' ignored\n", tok);
			continue;
		}
		ndpize_ports[ndpize_nports].lo = lo;
		ndpize_ports[ndpize_nports].hi = hi;
		ndpize_nports++;
	}
	free(copy);
}

static void ndpize_parse_prefixes(const char *s)
{
	char *copy = strdup(s), *tok, *save = NULL;

	for (tok = strtok_r(copy, ",", &save); tok && ndpize_nprefixes < NDPIZE_MAX_PREFIXES;
	     tok = strtok_r(NULL, ",", &save)) {
		struct ndpize_prefix *p = &ndpize_prefixes[ndpize_nprefixes];
		char *slash = strchr(tok, '/');
		unsigned int max;

		if (slash)
			*slash = '\0';
		if (inet_pton(AF_INET, tok, p->addr) == 1) {
			p->family = AF_INET;
			max = 32;
		} else if (inet_pton(AF_INET6, tok, p->addr) == 1) {
			p->family = AF_INET6;
			max = 128;
		} else {
			fprintf(stderr, "ndpize: bad prefix '%s' ignored\n", tok);
			continue;
		}
		p->len = slash ? (unsigned int)atoi(slash + 1) : max;
		if (p->len > max) {
			fprintf(stderr, "ndpize: bad prefix length in '%s' ignored\n", tok);
			continue;
		}
		ndpize_nprefixes++;
	}
	free(copy);
}

static void *ndpize_sym(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (!f) {
		fprintf(stderr, "ndpize: cannot find %s: %s\n", name, dlerror());
		abort();
	}
	return f;
}

static void ndpize_init(void)
{
	const char *s;

	real_socket = ndpize_sym("socket");
	real_bind = ndpize_sym("bind");
	real_connect = ndpize_sym("connect");
	real_setsockopt = ndpize_sym("setsockopt");
	real_getsockopt = ndpize_sym("getsockopt");
	real_close = ndpize_sym("close");

	s = getenv("NDPIZE_DEBUG");
	ndpize_debug = s && *s && strcmp(s, "0");
	s = getenv("NDPIZE_PORTS");
	if (s && *s)
		ndpize_parse_ports(s);
	s = getenv("NDPIZE_PREFIXES");
	if (s && *s)
		ndpize_parse_prefixes(s);
	ndpize_selective = ndpize_nports || ndpize_nprefixes;
	ndpize_log("loaded, %s", ndpize_selective ? "selective" : "all TCP sockets");
}

static void ndpize_ensure_init(void)
{
	pthread_once(&ndpize_once, ndpize_init);
}

static bool ndpize_is_tcp_request(int domain, int type, int protocol)
{
	return (domain == AF_INET || domain == AF_INET6) &&
	       (type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC)) == SOCK_STREAM &&
	       (protocol == 0 || protocol == IPPROTO_TCP);
}

static bool ndpize_is_ndp(int fd)
{
	int proto = 0;
	socklen_t len = sizeof(proto);

	return !real_getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &len) &&
	       proto == IPPROTO_NDP;
}

static bool ndpize_port_matches(unsigned int port)
{
	int i;

	for (i = 0; i < ndpize_nports; i++)
		if (port >= ndpize_ports[i].lo && port <= ndpize_ports[i].hi)
			return true;
	return false;
}

static bool ndpize_addr_matches(int family, const unsigned char *addr)
{
	int i;

	for (i = 0; i < ndpize_nprefixes; i++) {
		const struct ndpize_prefix *p = &ndpize_prefixes[i];
		unsigned int full = p->len / 8, rem = p->len % 8;

		if (p->family != family)
			continue;
		if (memcmp(p->addr, addr, full))
			continue;
		if (rem && ((p->addr[full] ^ addr[full]) & (0xff << (8 - rem))))
			continue;
		return true;
	}
	return false;
}

/* Whether a socket bound to or connecting to @sa goes over NDP. */
static bool ndpize_selects(const struct sockaddr *sa, socklen_t len)
{
	if (!sa)
		return false;
	if (sa->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *sin = (const void *)sa;

		return ndpize_port_matches(ntohs(sin->sin_port)) ||
		       ndpize_addr_matches(AF_INET, (const void *)&sin->sin_addr);
	}
	if (sa->sa_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *sin6 = (const void *)sa;

		return ndpize_port_matches(ntohs(sin6->sin6_port)) ||
		       ndpize_addr_matches(AF_INET6, sin6->sin6_addr.s6_addr);
	}
	return false;
}

int socket(int domain, int type, int protocol)
{
	int fd;

	ndpize_ensure_init();
	if (!ndpize_is_tcp_request(domain, type, protocol))
		return real_socket(domain, type, protocol);

	if (!ndpize_selective) {
		int flags = type & (SOCK_NONBLOCK | SOCK_CLOEXEC);

		fd = real_socket(domain, SOCK_NDP | flags, 0);
		ndpize_log("%s(%s, SOCK_STREAM) -> NDP fd %d%s%s", __func__,
			   domain == AF_INET ? "AF_INET" : "AF_INET6", fd,
			   fd < 0 ? ": " : "", fd < 0 ? strerror(errno) : "");
		return fd;
	}

	fd = real_socket(domain, type, protocol);
	if (fd < 0 || fd >= NDPIZE_MAX_FDS)
		return fd;
	pthread_mutex_lock(&ndpize_lock);
	if (!ndpize_cands[fd])
		ndpize_cands[fd] = calloc(1, sizeof(struct ndpize_candidate));
	if (ndpize_cands[fd]) {
		memset(ndpize_cands[fd], 0, sizeof(struct ndpize_candidate));
		ndpize_cands[fd]->active = true;
		ndpize_cands[fd]->family = domain;
	}
	pthread_mutex_unlock(&ndpize_lock);
	ndpize_log("%s fd %d: TCP until bind/connect decides", __func__, fd);
	return fd;
}

/*
 * Replace candidate @fd by an NDP socket with the same number, status flags,
 * close-on-exec flag and recorded options.  Called with ndpize_lock held.
 */
static int ndpize_convert(int fd, struct ndpize_candidate *c)
{
	int fl = fcntl(fd, F_GETFL), fdfl = fcntl(fd, F_GETFD);
	int nfd, i, saved;

	nfd = real_socket(c->family, SOCK_NDP, 0);
	if (nfd < 0)
		return -1;
	if (fl >= 0 && fcntl(nfd, F_SETFL, fl) < 0)
		goto fail;
	for (i = 0; i < c->nopts; i++) {
		struct ndpize_opt *o = &c->opts[i];

		if (real_setsockopt(nfd, o->level, o->name, o->val, o->len) < 0)
			ndpize_log("fd %d: replaying option %d/%d failed: %s",
				   fd, o->level, o->name, strerror(errno));
	}
	if (dup3(nfd, fd, (fdfl >= 0 && (fdfl & FD_CLOEXEC)) ? O_CLOEXEC : 0) < 0)
		goto fail;
	real_close(nfd);
	c->active = false;
	return 0;
fail:
	saved = errno;
	real_close(nfd);
	errno = saved;
	return -1;
}

/* Decide for candidate @fd given the address it binds or connects to. */
static int ndpize_decide(int fd, const struct sockaddr *sa, socklen_t len,
			 const char *what)
{
	struct ndpize_candidate *c;
	int ret = 0;

	if (fd < 0 || fd >= NDPIZE_MAX_FDS)
		return 0;
	pthread_mutex_lock(&ndpize_lock);
	c = ndpize_cands[fd];
	if (c && c->active) {
		if (ndpize_selects(sa, len)) {
			ret = ndpize_convert(fd, c);
			ndpize_log("%s fd %d: selected, %s", what, fd,
				   ret ? strerror(errno) : "now NDP");
		} else {
			ndpize_log("%s fd %d: not selected, stays TCP", what, fd);
		}
		c->active = false;
	}
	pthread_mutex_unlock(&ndpize_lock);
	return ret;
}

int bind(int fd, const struct sockaddr *sa, socklen_t len)
{
	ndpize_ensure_init();
	if (ndpize_selective && ndpize_decide(fd, sa, len, "bind"))
		return -1;
	return real_bind(fd, sa, len);
}

int connect(int fd, const struct sockaddr *sa, socklen_t len)
{
	ndpize_ensure_init();
	if (ndpize_selective && ndpize_decide(fd, sa, len, "connect"))
		return -1;
	return real_connect(fd, sa, len);
}

/* TCP options that only tune TCP itself: accepted on NDP, no effect. */
static bool ndpize_tcp_opt_is_noop(int name)
{
	switch (name) {
	case TCP_NODELAY:	/* NDP never delays a send */
	case TCP_CORK:
	case TCP_QUICKACK:	/* NDP always ACKs at once */
	case TCP_KEEPIDLE:
	case TCP_KEEPINTVL:
	case TCP_KEEPCNT:
	case TCP_DEFER_ACCEPT:
	case TCP_FASTOPEN:	/* NDP is zero-RTT anyway */
	case TCP_FASTOPEN_CONNECT:
	case TCP_NOTSENT_LOWAT:
	case TCP_LINGER2:
	case TCP_WINDOW_CLAMP:
	case TCP_USER_TIMEOUT:
	case TCP_CONGESTION:	/* NDP has no congestion control */
	case TCP_MAXSEG:
		return true;
	}
	return false;
}

static void ndpize_record(int fd, int level, int name, const void *val,
			  socklen_t len)
{
	struct ndpize_candidate *c;

	if (fd < 0 || fd >= NDPIZE_MAX_FDS || len > NDPIZE_OPT_LEN ||
	    (level != SOL_SOCKET && level != IPPROTO_IPV6 && level != IPPROTO_IP))
		return;
	pthread_mutex_lock(&ndpize_lock);
	c = ndpize_cands[fd];
	if (c && c->active && c->nopts < NDPIZE_MAX_OPTS) {
		struct ndpize_opt *o = &c->opts[c->nopts++];

		o->level = level;
		o->name = name;
		o->len = len;
		memcpy(o->val, val, len);
	}
	pthread_mutex_unlock(&ndpize_lock);
}

int setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	int ret;

	ndpize_ensure_init();
	if (level == IPPROTO_TCP && ndpize_is_ndp(fd)) {
		if (ndpize_tcp_opt_is_noop(name)) {
			ndpize_log("fd %d: TCP option %d accepted as a no-op", fd, name);
			return 0;
		}
		ndpize_log("fd %d: TCP option %d refused", fd, name);
		errno = ENOPROTOOPT;
		return -1;
	}
	ret = real_setsockopt(fd, level, name, val, len);
	if (!ret && ndpize_selective && val)
		ndpize_record(fd, level, name, val, len);
	return ret;
}

int getsockopt(int fd, int level, int name, void *val, socklen_t *len)
{
	ndpize_ensure_init();
	if (level == IPPROTO_TCP &&
	    (name == TCP_NODELAY || name == TCP_QUICKACK || name == TCP_CORK) &&
	    val && len && *len >= sizeof(int) && ndpize_is_ndp(fd)) {
		/* What NDP does: never delays a send, ACKs at once, no cork. */
		*(int *)val = name != TCP_CORK;
		*len = sizeof(int);
		return 0;
	}
	return real_getsockopt(fd, level, name, val, len);
}

int close(int fd)
{
	ndpize_ensure_init();
	if (fd >= 0 && fd < NDPIZE_MAX_FDS && ndpize_selective) {
		pthread_mutex_lock(&ndpize_lock);
		if (ndpize_cands[fd])
			ndpize_cands[fd]->active = false;
		pthread_mutex_unlock(&ndpize_lock);
	}
	return real_close(fd);
}
