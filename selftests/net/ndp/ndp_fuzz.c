// SPDX-License-Identifier: GPL-2.0
/*
 * ndp_fuzz: a mutation fuzzer for the NDP receive path.
 *
 *   ndp_fuzz -i IF [-s SEED] [-n COUNT] [-r PPS] [-t SECS] [-W SECS]
 *            [-p PROTO] [-F] [-D PORT[,PORT...]] [-l PORT] [-f PCT]
 *            [-w FILE] [-v]
 *
 * It captures the NDP packets (IPv4 and IPv6) that this host sends out of
 * IF on an AF_PACKET socket while real transfers run, and sends mutated
 * copies out of the same interface on the same socket (a packet socket
 * never sees its own frames, so mutants are not captured again): they
 * reach the peer's receive path exactly like the originals.  Run one
 * instance on each side of a link to fuzz both ends.
 *
 * Each mutant is a captured frame (a recent one most of the time, an old
 * one sometimes: a delayed duplicate) with one to three mutations:
 *   field   one header field set to 0, 1, max, max-1 or a random value;
 *           psn, syn_off and pull also near the live value (+-1..16) and
 *           far from it (+-2^20, +2^31)
 *   type    0..15 or 255
 *   doff    0..15, or larger than the packet
 *   flags   every combination of the defined flags in turn, sometimes
 *           with undefined bits
 *   trunc   the NDP part cut to 0, 1, 39, 40, 41 bytes or shorter by some
 *   extend  1..256 random bytes appended
 *   iplen   the IP length field disagrees with the real length
 *   payload some payload bytes flipped
 *   swap    source and destination ports swapped
 *   dup     none (a replay of the captured packet)
 * and, independently, a new identity for a share of them: a random nonce,
 * random ports, or (-l PORT) a listener's port as source and destination,
 * so packets hit live connections' ports and nonces as well as nobody's.
 * The IPv4 header checksum is always fixed.  The NDP header checksum is
 * recomputed (so the mutant passes the checksum and reaches connection
 * state) or made certainly wrong; the payload checksum likewise after a
 * payload change.  A share of the IPv4 mutants (-f, default 15 %) is sent
 * as 2..4 IP fragments (in order or reversed), split anywhere, even inside
 * the NDP header.
 *
 * Forgery.  A packet with a live connection's ports and nonce whose
 * meaning changed (type, defined flags, psn near the live one, a payload
 * with a matching checksum) and a valid header checksum is a forgery an
 * on-path attacker can make: it may legitimately break the connection.
 * Without -F such mutants keep a wrong header checksum, so real transfers
 * must survive every mutant; what still gets a valid checksum is what a
 * receiver must reject or ignore whatever its state: malformed packets,
 * fields nobody interprets or that only hint (prio, path, detours;
 * nsenders, whose forged value can only shrink later pushed windows,
 * never break a transfer; not acks, which reports packets as received),
 * psn/ack/pull values far from the live ones (except the first psn a
 * first-window packet implies), duplicates, and packets of no live
 * connection.  A first-window packet (DATA with SYN, no PASSIVE)
 * with a new identity would open a connection at the application's
 * listener: without -F it goes to one of the decoy ports of -D instead
 * (or to a port not seen in the capture).  -F allows everything.
 *
 * -n bounds the number of mutants (default 1000; fragments count once),
 * -r their rate (default 500 per second), -t the run time (default: none),
 * -W the wait for the first captured packet (default 30 s).  Mutation
 * choices depend only on the seed (-s) and on the packets captured.  -w
 * saves every frame sent (fragments one by one) to a pcap file that
 * "ndp_replay inject" replays; -v prints one line per mutant.  At the end
 * a summary goes to stdout: "fuzz: ..." lines, the first with the totals.
 * Exit status 0, or 1 on error (nothing captured within -W included).
 *
 *   ndp_fuzz -a DST -P PORT[,PORT...] -N SRC [-s SEED] [-n COUNT] [-r PPS]
 *            [-p PROTO] [-t SECS]
 *
 * Flood mode (IPv4): COUNT first windows, each a single DATA packet with
 * SYN, LAST and UNSCHED and 64 bytes of payload, valid checksums, a random
 * nonce, psn and source port, from a random address of the /16 SRC is in
 * (its last two bytes random), to one of the PORTs of DST in turn, sent
 * through the routing table on an IP_HDRINCL raw socket.  Prints
 * "flood: sent N in S s".
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <stddef.h>
#include <linux/types.h>
#include <linux/ndp.h>

#include "ndp_util.h"

/* Byte offsets of the fields in the NDP header (<linux/ndp.h>). */
#define FZ_O(field)	offsetof(struct ndphdr, field)
enum {
	FZ_O_SOURCE = FZ_O(source), FZ_O_DEST = FZ_O(dest),
	FZ_O_TYPE = FZ_O(type), FZ_O_DOFF = FZ_O(doff),
	FZ_O_FLAGS = FZ_O(flags), FZ_O_NONCE = FZ_O(nonce),
	FZ_O_PSN = FZ_O(psn), FZ_O_SYNOFF = FZ_O(syn_off),
	FZ_O_PULL = FZ_O(pull), FZ_O_PRIO = FZ_O(prio),
	FZ_O_PAYLEN = FZ_O(paylen), FZ_O_PATH = FZ_O(path),
	FZ_O_DETOURS = FZ_O(detours), FZ_O_HCSUM = FZ_O(hcsum),
	FZ_O_PCSUM = FZ_O(pcsum), FZ_O_NSENDERS = FZ_O(nsenders),
	FZ_O_ACKS = FZ_O(acks),
};

#define FZ_SNAP		(9216 + 64)
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define FZ_POOL		256
#define FZ_PORTS	256

enum fz_class {
	FZ_HARMLESS,	/* nobody interprets it, or a duplicate */
	FZ_INVALID,	/* a receiver must drop it before any state */
	FZ_FAR,		/* out of every window: must be ignored */
	FZ_SEMANTIC,	/* changes what the packet means */
};

/* Only for the sizes of its fields. */
static const struct ndphdr fz_h;

static const struct {
	const char *name;
	int off;
	int size;
	bool counter;		/* psn, syn_off, pull: near and far values */
	enum fz_class cls;	/* of a changed value (counters: see below) */
} fz_fields[] = {
	{ "source", FZ_O_SOURCE, sizeof(fz_h.source), false, FZ_SEMANTIC },
	{ "dest", FZ_O_DEST, sizeof(fz_h.dest), false, FZ_SEMANTIC },
	{ "nonce", FZ_O_NONCE, sizeof(fz_h.nonce), false, FZ_SEMANTIC },
	{ "psn", FZ_O_PSN, sizeof(fz_h.psn), true, FZ_SEMANTIC },
	{ "syn_off", FZ_O_SYNOFF, sizeof(fz_h.syn_off), true, FZ_SEMANTIC },
	{ "pull", FZ_O_PULL, sizeof(fz_h.pull), true, FZ_SEMANTIC },
	{ "prio", FZ_O_PRIO, sizeof(fz_h.prio), false, FZ_HARMLESS },
	{ "paylen", FZ_O_PAYLEN, sizeof(fz_h.paylen), false, FZ_SEMANTIC },
	{ "path", FZ_O_PATH, sizeof(fz_h.path), false, FZ_HARMLESS },
	{ "detours", FZ_O_DETOURS, sizeof(fz_h.detours), false, FZ_HARMLESS },
	{ "hcsum", FZ_O_HCSUM, sizeof(fz_h.hcsum), false, FZ_HARMLESS },
	{ "pcsum", FZ_O_PCSUM, sizeof(fz_h.pcsum), false, FZ_HARMLESS },
	{ "nsenders", FZ_O_NSENDERS, sizeof(fz_h.nsenders), false, FZ_HARMLESS },
	{ "acks", FZ_O_ACKS, sizeof(fz_h.acks), false, FZ_SEMANTIC },
};

#define FZ_NFIELDS	((int)ARRAY_SIZE(fz_fields))

enum fz_mut {
	FZ_M_FIELD, FZ_M_TYPE, FZ_M_DOFF, FZ_M_FLAGS, FZ_M_TRUNC, FZ_M_EXTEND,
	FZ_M_IPLEN, FZ_M_PAYLOAD, FZ_M_SWAP, FZ_M_DUP, FZ_M_NR,
};

static const char *const fz_mut_names[FZ_M_NR] = {
	"field", "type", "doff", "flags", "trunc", "extend", "iplen",
	"payload", "swap", "dup",
};

/* Relative weights of the mutations. */
static const int fz_mut_weight[FZ_M_NR] = {
	30, 6, 6, 10, 6, 4, 4, 6, 2, 4,
};

struct fz_frame {
	int len;
	__u8 b[FZ_SNAP];
};

/* A parsed frame: where the IP header and the NDP header start. */
struct fz_pkt {
	int family;
	int l3;		/* IP header offset */
	int l4;		/* NDP header offset */
	int l4len;	/* bytes from l4 to the end of the frame */
};

static struct {
	const char *ifname;
	__u64 seed;
	long count;
	long pps;
	int secs;
	int wait_s;
	int proto;
	bool forge;
	int decoys[16];
	int ndecoys;
	int listener;
	int frag_pct;
	const char *wfile;
	bool verbose;
	const char *flood_dst;
	const char *flood_src;
} opt = {
	.seed = 1, .count = 1000, .pps = 500, .wait_s = 30, .proto = 253,
	.frag_pct = 15,
};

static struct {
	long captured, injected, frames, v4, v6, frags, hcsum_ok, hcsum_bad;
	long live, renamed, decoy, blocked, stale, ipcsum_bad;
	long mut[FZ_M_NR];
	long cls[4];
} st;

static struct fz_frame pool[FZ_POOL];
static int pool_n, pool_next;
static __u16 seen_ports[FZ_PORTS];
static int nseen;
static __u64 rng;
static int fd, ifindex, mtu;
static FILE *pcap;
static unsigned int flag_combo;

/* SIGINT and SIGTERM are blocked and polled: they end the run early. */
static bool fz_stopped(void)
{
	sigset_t set;

	sigpending(&set);
	return sigismember(&set, SIGINT) || sigismember(&set, SIGTERM);
}

/* xorshift64*: deterministic for a seed. */
static __u64 fz_rand(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dULL;
}

static __u32 fz_below(__u32 n)
{
	return n ? (__u32)((fz_rand() >> 32) % n) : 0;
}

static bool fz_chance(int pct)
{
	return (int)fz_below(100) < pct;
}

static __u32 get_be(const __u8 *p, int size)
{
	__u32 v = 0;
	int i;

	for (i = 0; i < size; i++)
		v = v << 8 | p[i];
	return v;
}

static void put_be(__u8 *p, int size, __u32 v)
{
	int i;

	for (i = size - 1; i >= 0; i--, v >>= 8)
		p[i] = v;
}

/* ---- checksums ------------------------------------------------------ */

static __u32 fz_sum(__u32 s, const __u8 *p, int len)
{
	for (; len > 1; p += 2, len -= 2)
		s += p[0] << 8 | p[1];
	if (len > 0)
		s += p[0] << 8;
	return s;
}

static __u16 fz_fold(__u32 s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s;
}

/* Sum of the pseudo-header and the 40 header bytes as they are. */
static __u32 fz_hdr_sum(const __u8 *f, const struct fz_pkt *p)
{
	__u32 s;

	if (p->family == AF_INET)
		s = fz_sum(0, f + p->l3 + 12, 8);
	else
		s = fz_sum(0, f + p->l3 + 8, 32);
	s += opt.proto + NDP_HDR_LEN;
	return fz_sum(s, f + p->l4, NDP_HDR_LEN);
}

static void fz_hcsum_set(__u8 *f, const struct fz_pkt *p)
{
	put_be(f + p->l4 + FZ_O_HCSUM, 2, 0);
	put_be(f + p->l4 + FZ_O_HCSUM, 2, (__u16)~fz_fold(fz_hdr_sum(f, p)));
}

static bool fz_hcsum_ok(const __u8 *f, const struct fz_pkt *p)
{
	return fz_fold(fz_hdr_sum(f, p)) == 0xffff;
}

/* Make the header checksum certainly wrong (whatever it was). */
static void fz_hcsum_break(__u8 *f, const struct fz_pkt *p)
{
	__u8 *h = f + p->l4 + FZ_O_HCSUM;

	if (fz_chance(50))
		put_be(h, 2, fz_rand());
	while (fz_hcsum_ok(f, p))
		h[fz_below(2)] ^= 1 << fz_below(8);
}

static __u16 fz_pcsum(const __u8 *payload, int len)
{
	return len > 0 ? (__u16)~fz_fold(fz_sum(0, payload, len)) : 0;
}

static void fz_ip4_csum(__u8 *ip)
{
	int ihl = (ip[0] & 0x0f) * 4;

	put_be(ip + 10, 2, 0);
	put_be(ip + 10, 2, (__u16)~fz_fold(fz_sum(0, ip, ihl)));
}

/* ---- capture ---------------------------------------------------------- */

static bool fz_parse(const __u8 *f, int len, struct fz_pkt *p)
{
	__u16 et;

	if (len < ETH_HLEN)
		return false;
	et = f[12] << 8 | f[13];
	p->l3 = ETH_HLEN;
	if (et == ETH_P_IP && len >= ETH_HLEN + 20) {
		const __u8 *ip = f + ETH_HLEN;
		int ihl = (ip[0] & 0x0f) * 4, tot = ip[2] << 8 | ip[3];

		if (ihl < 20 || tot < ihl || len < ETH_HLEN + tot ||
		    ip[9] != opt.proto || (get_be(ip + 6, 2) & 0x3fff))
			return false;
		p->family = AF_INET;
		p->l4 = ETH_HLEN + ihl;
		p->l4len = tot - ihl;
	} else if (et == ETH_P_IPV6 && len >= ETH_HLEN + 40) {
		const __u8 *ip = f + ETH_HLEN;
		int plen = ip[4] << 8 | ip[5];

		if (ip[6] != opt.proto || len < ETH_HLEN + 40 + plen)
			return false;
		p->family = AF_INET6;
		p->l4 = ETH_HLEN + 40;
		p->l4len = plen;
	} else {
		return false;
	}
	return p->l4len >= NDP_HDR_LEN;
}

static void fz_port_seen(__u16 port)
{
	int i;

	for (i = 0; i < nseen; i++)
		if (seen_ports[i] == port)
			return;
	if (nseen < FZ_PORTS)
		seen_ports[nseen++] = port;
}

static bool fz_port_is_seen(__u16 port)
{
	int i;

	for (i = 0; i < nseen; i++)
		if (seen_ports[i] == port)
			return true;
	return false;
}

/* Take every frame waiting on the socket; keep the outgoing NDP ones. */
static void fz_drain(void)
{
	static __u8 buf[FZ_SNAP];

	for (;;) {
		struct sockaddr_ll from;
		socklen_t fl = sizeof(from);
		struct fz_pkt p;
		int n;

		n = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC,
			     (struct sockaddr *)&from, &fl);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				ndp_die_errno("recvfrom");
			return;
		}
		if (n > (int)sizeof(buf) || from.sll_pkttype != PACKET_OUTGOING)
			continue;
		n = n < (int)sizeof(buf) ? n : (int)sizeof(buf);
		if (!fz_parse(buf, n, &p))
			continue;
		fz_port_seen(get_be(buf + p.l4 + FZ_O_SOURCE, 2));
		fz_port_seen(get_be(buf + p.l4 + FZ_O_DEST, 2));
		memcpy(pool[pool_next].b, buf, n);
		pool[pool_next].len = n;
		pool_next = (pool_next + 1) % FZ_POOL;
		if (pool_n < FZ_POOL)
			pool_n++;
		st.captured++;
	}
}

/* ---- sending ---------------------------------------------------------- */

static void fz_pcap_write(const __u8 *f, int len)
{
	if (pcap)
		ndp_pcap_write(pcap, f, len);
}

static void fz_send_frame(const __u8 *f, int len)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_ifindex = ifindex,
		.sll_halen = ETH_ALEN,
	};

	memcpy(sll.sll_addr, f, ETH_ALEN);
	memcpy(&sll.sll_protocol, f + 12, 2);
	fz_pcap_write(f, len);
	while (sendto(fd, f, len, 0, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		if (errno == ENOBUFS || errno == EAGAIN) {
			usleep(1000);
			continue;
		}
		/* A frame the device refuses (e.g. too long) is skipped. */
		if (errno == EMSGSIZE || errno == EINVAL)
			return;
		ndp_die_errno("sendto");
	}
	st.frames++;
}

/*
 * Send an IPv4 frame as @n fragments: payload cut at 8-byte multiples,
 * in order or reversed.  The IP length must be the real one.
 */
static void fz_send_frags(const __u8 *f, int len, int n)
{
	static __u8 frag[FZ_SNAP];
	const __u8 *ip = f + ETH_HLEN;
	int ihl = (ip[0] & 0x0f) * 4, plen = len - ETH_HLEN - ihl;
	int cut[5], i, k, units = (plen + 7) / 8;
	__u16 id = fz_rand();
	bool rev = fz_chance(30);

	if (units < n)
		n = units;
	cut[0] = 0;
	for (i = 1; i < n; i++) {
		int lo = cut[i - 1] / 8 + 1, hi = units - (n - i);

		cut[i] = (lo + (int)fz_below(hi - lo + 1)) * 8;
	}
	cut[n] = plen;
	for (k = 0; k < n; k++) {
		int fi = rev ? n - 1 - k : k;
		int off = cut[fi], flen = cut[fi + 1] - off;
		__u8 *fip = frag + ETH_HLEN;

		memcpy(frag, f, ETH_HLEN + ihl);
		memcpy(fip + ihl, ip + ihl + off, flen);
		put_be(fip + 2, 2, ihl + flen);
		put_be(fip + 4, 2, id);
		put_be(fip + 6, 2, (fi < n - 1 ? 0x2000 : 0) | off / 8);
		fz_ip4_csum(fip);
		fz_send_frame(frag, ETH_HLEN + ihl + flen);
	}
	st.frags++;
}

/* ---- mutation --------------------------------------------------------- */

static enum fz_mut fz_pick_mut(void)
{
	int total = 0, i, r;

	for (i = 0; i < FZ_M_NR; i++)
		total += fz_mut_weight[i];
	r = fz_below(total);
	for (i = 0; i < FZ_M_NR; i++) {
		r -= fz_mut_weight[i];
		if (r < 0)
			return i;
	}
	return FZ_M_DUP;
}

/* A boundary or random value for a field of @size bytes. */
static __u32 fz_boundary(int size)
{
	__u32 max = size == 4 ? 0xffffffffu : (1u << (8 * size)) - 1;

	switch (fz_below(5)) {
	case 0:
		return 0;
	case 1:
		return 1;
	case 2:
		return max;
	case 3:
		return max - 1;
	}
	return fz_rand() & max;
}

/* Distance between two 32-bit serial numbers. */
static __u32 fz_dist(__u32 a, __u32 b)
{
	__u32 d = a - b;

	return d > 0x80000000u ? -d : d;
}

static enum fz_class fz_mut_field(__u8 *h, char *desc, size_t dlen)
{
	int i = fz_below(FZ_NFIELDS);
	__u8 *p = h + fz_fields[i].off;
	int size = fz_fields[i].size;
	__u32 old = get_be(p, size), v;
	const char *how = "bound";

	if (fz_fields[i].counter && fz_chance(60)) {
		__s32 d;

		if (fz_chance(50)) {
			d = 1 + fz_below(16);
			how = "near";
		} else {
			d = fz_chance(50) ? 1 << 20 : 1 << 31;
			how = "far";
		}
		v = fz_chance(50) ? old + (__u32)d : old - (__u32)d;
	} else {
		v = fz_boundary(size);
	}
	put_be(p, size, v);
	snprintf(desc, dlen, "%s=%s:%u", fz_fields[i].name, how, v);
	if (v == old)
		return FZ_HARMLESS;
	if (fz_fields[i].counter)
		return fz_dist(v, old) >= 1u << 20 ? FZ_FAR : FZ_SEMANTIC;
	/* Checksum fields are fixed or broken afterwards anyway. */
	return fz_fields[i].cls;
}

struct fz_mutant {
	__u8 b[FZ_SNAP + 512];
	int len;
	struct fz_pkt p;
	enum fz_class cls;
	bool payload_changed;
	bool iplen_set;		/* the IP length was set on purpose */
	char desc[256];
};

static void fz_desc(struct fz_mutant *m, const char *fmt, ...)
{
	size_t n = strlen(m->desc);
	va_list ap;

	if (n + 2 >= sizeof(m->desc))
		return;
	if (n)
		m->desc[n++] = ' ';
	va_start(ap, fmt);
	vsnprintf(m->desc + n, sizeof(m->desc) - n, fmt, ap);
	va_end(ap);
}

static void fz_class_add(struct fz_mutant *m, enum fz_class c)
{
	if (c > m->cls)
		m->cls = c;
}

static void fz_apply(struct fz_mutant *m, enum fz_mut k)
{
	__u8 *h = m->b + m->p.l4;
	char d[96];
	int v, n;

	st.mut[k]++;
	switch (k) {
	case FZ_M_FIELD:
		fz_class_add(m, fz_mut_field(h, d, sizeof(d)));
		fz_desc(m, "%s", d);
		break;
	case FZ_M_TYPE:
		v = fz_chance(10) ? 255 : (int)fz_below(16);
		fz_desc(m, "type=%d", v);
		if (v != h[FZ_O_TYPE])
			fz_class_add(m, v >= 1 && v < NDP_PKT_MAX ?
				     FZ_SEMANTIC : FZ_INVALID);
		h[FZ_O_TYPE] = v;
		break;
	case FZ_M_DOFF:
		if (fz_chance(70))
			v = fz_below(16);
		else
			v = m->p.l4len / 4 + 1 + fz_below(256);
		v = v > NDP_DOFF_MAX ? NDP_DOFF_MAX : v;
		fz_desc(m, "doff=%d", v);
		/*
		 * A larger doff moves the payload: DATA fails its length
		 * check; control packets with room for it mean the same.
		 */
		if (v < NDP_HDR_WORDS || v * 4 > m->p.l4len || h[FZ_O_TYPE] == NDP_PKT_DATA)
			fz_class_add(m, v == h[FZ_O_DOFF] ? FZ_HARMLESS :
				     FZ_INVALID);
		h[FZ_O_DOFF] = v;
		break;
	case FZ_M_FLAGS:
		v = flag_combo++ & NDP_F_ALL;
		if (fz_chance(25))
			v |= (1 << (12 + fz_below(4))) |
			     (fz_chance(30) ? fz_rand() & 0xf000 : 0);
		fz_desc(m, "flags=0x%x", v);
		if (v & ~NDP_F_ALL)
			fz_class_add(m, FZ_INVALID);
		else if (v != (int)get_be(h + FZ_O_FLAGS, 2))
			fz_class_add(m, FZ_SEMANTIC);
		put_be(h + FZ_O_FLAGS, 2, v);
		break;
	case FZ_M_TRUNC: {
		static const int cuts[] = {
			0, 1, NDP_HDR_LEN - 1, NDP_HDR_LEN, NDP_HDR_LEN + 1,
		};

		if (m->p.l4len <= 0)
			break;
		n = fz_chance(50) ? cuts[fz_below(5)] :
		    (int)fz_below(m->p.l4len);
		if (n >= m->p.l4len)
			n = m->p.l4len - 1;
		fz_desc(m, "trunc=%d/%d", n, m->p.l4len);
		m->len -= m->p.l4len - n;
		m->p.l4len = n;
		/* Shorter than the header, or DATA shorter than paylen. */
		fz_class_add(m, FZ_INVALID);
		break;
	}
	case FZ_M_EXTEND:
		n = 1 + fz_below(256);
		if (m->len + n > mtu + ETH_HLEN)
			n = mtu + ETH_HLEN - m->len;
		if (n <= 0)
			break;
		for (v = 0; v < n; v++)
			m->b[m->len + v] = fz_rand();
		m->len += n;
		m->p.l4len += n;
		fz_desc(m, "extend=%d", n);
		fz_class_add(m, h[FZ_O_TYPE] == NDP_PKT_DATA ? FZ_INVALID :
			     FZ_HARMLESS);
		break;
	case FZ_M_IPLEN: {
		__u8 *ip = m->b + m->p.l3;
		int real = m->len - m->p.l3, delta;

		if (m->p.family == AF_INET6)
			real -= 40;
		switch (fz_below(4)) {
		case 0:
			delta = 1;
			break;
		case 1:
			delta = -1;
			break;
		case 2:
			delta = -(int)fz_below(real + 1);
			break;
		default:
			delta = fz_below(2000);
			break;
		}
		v = (real + delta) & 0xffff;
		put_be(ip + (m->p.family == AF_INET ? 2 : 4), 2, v);
		m->iplen_set = true;
		fz_desc(m, "iplen=%d/%d", v, real);
		/* Longer: IP drops it; shorter: IP trims the packet. */
		fz_class_add(m, delta ? FZ_INVALID : FZ_HARMLESS);
		break;
	}
	case FZ_M_PAYLOAD:
		n = m->p.l4len - NDP_HDR_LEN;
		if (n <= 0)
			break;
		for (v = 1 + fz_below(4); v > 0; v--)
			m->b[m->p.l4 + NDP_HDR_LEN + fz_below(n)] ^=
				1 << fz_below(8);
		m->payload_changed = true;
		fz_desc(m, "payload");
		break;
	case FZ_M_SWAP:
		v = get_be(h + FZ_O_SOURCE, 2);
		put_be(h + FZ_O_SOURCE, 2, get_be(h + FZ_O_DEST, 2));
		put_be(h + FZ_O_DEST, 2, v);
		fz_desc(m, "swap");
		fz_class_add(m, FZ_SEMANTIC);
		break;
	case FZ_M_DUP:
	case FZ_M_NR:
		fz_desc(m, "dup");
		break;
	}
}

/* A port for a packet of nobody: a decoy, or one not seen in the capture. */
static __u16 fz_nobody_port(void)
{
	__u16 p;

	if (opt.ndecoys)
		return opt.decoys[fz_below(opt.ndecoys)];
	do {
		p = 1024 + fz_below(64000);
	} while (fz_port_is_seen(p));
	return p;
}

static void fz_one(long i)
{
	static struct fz_mutant m;
	const struct fz_frame *src;
	bool renamed = false, hvalid, opens;
	int nmut, j, idx;
	__u8 *h;
	__u16 flags;

	/* Mostly recent packets; sometimes any (a late duplicate). */
	if (fz_chance(80)) {
		idx = (pool_next - 1 - (int)fz_below(pool_n < 8 ? pool_n : 8) +
		       FZ_POOL) % FZ_POOL;
	} else {
		idx = fz_below(pool_n);
		st.stale++;
	}
	if (idx >= pool_n)
		idx = (pool_next - 1 + FZ_POOL) % FZ_POOL;
	src = &pool[idx];
	memcpy(m.b, src->b, src->len);
	m.len = src->len;
	m.cls = FZ_HARMLESS;
	m.payload_changed = false;
	m.iplen_set = false;
	m.desc[0] = 0;
	if (!fz_parse(m.b, m.len, &m.p))
		return;
	/* Ethernet padding of short frames is not part of the packet. */
	m.len = m.p.l4 + m.p.l4len;
	h = m.b + m.p.l4;

	/* A new identity for some. */
	if (opt.listener && fz_chance(15)) {
		if (fz_chance(70))
			put_be(h + FZ_O_SOURCE, 2, opt.listener);
		if (fz_chance(70))
			put_be(h + FZ_O_DEST, 2, opt.listener);
		if (fz_chance(50))
			put_be(h + FZ_O_NONCE, 4, fz_rand());
		fz_desc(&m, "listener");
		renamed = true;
	} else if (fz_chance(25)) {
		switch (fz_below(3)) {
		case 0:
			put_be(h + FZ_O_NONCE, 4, fz_rand());
			fz_desc(&m, "nonce=rand");
			break;
		case 1:
			put_be(h + FZ_O_SOURCE, 2, 1024 + fz_below(64000));
			fz_desc(&m, "sport=rand");
			break;
		default:
			put_be(h + FZ_O_SOURCE, 2, 1024 + fz_below(64000));
			put_be(h + FZ_O_NONCE, 4, fz_rand());
			fz_desc(&m, "sport,nonce=rand");
			break;
		}
		renamed = true;
	}

	nmut = 1 + (fz_chance(30) ? fz_below(3) : 0);
	for (j = 0; j < nmut; j++)
		fz_apply(&m, fz_pick_mut());
	h = m.b + m.p.l4;
	/*
	 * A first-window packet tells the receiver the connection's first
	 * psn (psn - syn_off): if it arrives before the real ones (a packet
	 * sent by another CPU may overtake them), any change of the two is
	 * believed, however far, so it is a forgery.
	 */
	if (m.p.l4len >= NDP_HDR_LEN && h[FZ_O_TYPE] == NDP_PKT_DATA &&
	    (get_be(h + FZ_O_FLAGS, 2) & NDP_F_SYN) &&
	    get_be(h + FZ_O_PSN, 4) - get_be(h + FZ_O_SYNOFF, 4) !=
	    get_be(src->b + m.p.l4 + FZ_O_PSN, 4) -
	    get_be(src->b + m.p.l4 + FZ_O_SYNOFF, 4))
		fz_class_add(&m, FZ_SEMANTIC);
	st.cls[m.cls]++;
	/* Source or destination port mutated: no live connection either. */
	renamed |= m.p.l4len >= 4 &&
		   (get_be(h + FZ_O_SOURCE, 2) != get_be(src->b + m.p.l4 + FZ_O_SOURCE, 2) ||
		    get_be(h + FZ_O_DEST, 2) != get_be(src->b + m.p.l4 + FZ_O_DEST, 2));
	renamed |= m.p.l4len >= 12 &&
		   get_be(h + FZ_O_NONCE, 4) != get_be(src->b + m.p.l4 + FZ_O_NONCE, 4);
	if (renamed)
		st.renamed++;
	else
		st.live++;

	/* Payload checksum: right or wrong, after a payload change. */
	if (m.payload_changed && m.p.l4len > NDP_HDR_LEN && fz_chance(50)) {
		put_be(h + FZ_O_PCSUM, 2, fz_pcsum(h + NDP_HDR_LEN,
						   m.p.l4len - NDP_HDR_LEN));
		if (!renamed)
			fz_class_add(&m, FZ_SEMANTIC);
		fz_desc(&m, "pcsum=ok");
	}

	/* Header checksum: valid where allowed, most of the time. */
	hvalid = m.p.l4len >= NDP_HDR_LEN && fz_chance(65);
	if (hvalid && !opt.forge && !renamed && m.cls == FZ_SEMANTIC) {
		hvalid = false;
		st.blocked++;
	}
	if (m.p.l4len >= NDP_HDR_LEN) {
		flags = get_be(h + FZ_O_FLAGS, 2);
		opens = h[FZ_O_TYPE] == NDP_PKT_DATA && (flags & NDP_F_SYN) &&
			!(flags & NDP_F_PASSIVE);
		if (hvalid && opens && renamed && !opt.forge) {
			put_be(h + FZ_O_DEST, 2, fz_nobody_port());
			st.decoy++;
			fz_desc(&m, "dport=%u", get_be(h + FZ_O_DEST, 2));
		}
		if (hvalid) {
			fz_hcsum_set(m.b, &m.p);
			st.hcsum_ok++;
		} else {
			fz_hcsum_break(m.b, &m.p);
			st.hcsum_bad++;
		}
	}

	/* IP header: the real length unless mutated; checksum. */
	if (m.p.family == AF_INET) {
		__u8 *ip = m.b + m.p.l3;

		if (!m.iplen_set)
			put_be(ip + 2, 2, m.len - m.p.l3);
		fz_ip4_csum(ip);
		if (fz_chance(1)) {
			ip[10] ^= 0x40;
			st.ipcsum_bad++;
		}
		st.v4++;
	} else {
		if (!m.iplen_set)
			put_be(m.b + m.p.l3 + 4, 2, m.len - m.p.l3 - 40);
		st.v6++;
	}
	if (opt.verbose) {
		printf("inj %ld v%d %u>%u type %u flags 0x%x nonce %08x ", i,
		       m.p.family == AF_INET ? 4 : 6,
		       get_be(h + FZ_O_SOURCE, 2), get_be(h + FZ_O_DEST, 2),
		       h[FZ_O_TYPE], get_be(h + FZ_O_FLAGS, 2),
		       get_be(h + FZ_O_NONCE, 4));
		printf("psn %u syn_off %u pull %u %s %s hcsum=%s cls=%d len=%d\n",
		       get_be(h + FZ_O_PSN, 4), get_be(h + FZ_O_SYNOFF, 4),
		       get_be(h + FZ_O_PULL, 4),
		       renamed ? "other" : "live", m.desc,
		       m.p.l4len >= NDP_HDR_LEN ? (hvalid ? "ok" : "bad") : "-",
		       m.cls, m.len);
	}
	if (m.p.family == AF_INET && !m.iplen_set && m.p.l4len >= 16 &&
	    fz_chance(opt.frag_pct))
		fz_send_frags(m.b, m.len, 2 + fz_below(3));
	else
		fz_send_frame(m.b, m.len);
	st.injected++;
}

/* ---- main loop ---------------------------------------------------------- */

static void fz_open(void)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(ETH_P_ALL),
	};
	struct ifreq ifr = { 0 };
	int rcvbuf = 4 << 20;

	ifindex = if_nametoindex(opt.ifname);
	if (!ifindex)
		ndp_die("no interface '%s'", opt.ifname);
	sll.sll_ifindex = ifindex;
	fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (fd < 0)
		ndp_die_errno("AF_PACKET socket");
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)))
		ndp_die_errno("bind to %s", opt.ifname);
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", opt.ifname);
	if (ioctl(fd, SIOCGIFMTU, &ifr))
		ndp_die_errno("SIOCGIFMTU");
	mtu = ifr.ifr_mtu;
	if (mtu + ETH_HLEN > FZ_SNAP)
		mtu = FZ_SNAP - ETH_HLEN;
}

static void fz_summary(double secs)
{
	int i;

	printf("fuzz: seed %llu injected %ld frames %ld captured %ld in %.1f s\n",
	       (unsigned long long)opt.seed, st.injected, st.frames,
	       st.captured, secs);
	printf("fuzz: v4 %ld v6 %ld fragmented %ld live %ld other %ld decoy %ld stale %ld\n",
	       st.v4, st.v6, st.frags, st.live, st.renamed, st.decoy,
	       st.stale);
	printf("fuzz: hcsum valid %ld wrong %ld (forgeries kept wrong %ld) ipcsum wrong %ld\n",
	       st.hcsum_ok, st.hcsum_bad, st.blocked, st.ipcsum_bad);
	printf("fuzz: class harmless %ld invalid %ld far %ld semantic %ld\n",
	       st.cls[FZ_HARMLESS], st.cls[FZ_INVALID], st.cls[FZ_FAR],
	       st.cls[FZ_SEMANTIC]);
	printf("fuzz: mutations");
	for (i = 0; i < FZ_M_NR; i++)
		printf(" %s %ld", fz_mut_names[i], st.mut[i]);
	printf("\n");
	fflush(stdout);
}

static void fz_usage(void)
{
	fprintf(stderr,
		"usage: ndp_fuzz -i IF [-s SEED] [-n COUNT] [-r PPS] [-t SECS] [-W SECS]\n"
		"                [-p PROTO] [-F] [-D PORT[,PORT...]] [-l PORT] [-f PCT]\n"
		"                [-w FILE] [-v]\n"
		"       ndp_fuzz -a DST -P PORT[,PORT...] -N SRC [-s SEED] [-n COUNT]\n"
		"                [-r PPS] [-p PROTO] [-t SECS]\n");
	exit(2);
}

/* Sleep until @next (seconds on the monotonic clock). */
static void fz_wait_until(double next)
{
	double w = next - ndp_now_s();
	struct timespec ts;

	if (w <= 0)
		return;
	ts.tv_sec = (time_t)w;
	ts.tv_nsec = (long)((w - ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
}

static int fz_flood(void)
{
	struct sockaddr_in dst = { .sin_family = AF_INET };
	__u8 pkt[20 + NDP_HDR_LEN + 64];
	struct in_addr base;
	struct fz_pkt p = { .family = AF_INET, .l3 = 0, .l4 = 20 };
	double t0, next;
	long i, sent = 0;
	int rfd, one = 1;

	if (!opt.ndecoys || !opt.flood_src)
		fz_usage();
	if (inet_pton(AF_INET, opt.flood_dst, &dst.sin_addr) != 1 ||
	    inet_pton(AF_INET, opt.flood_src, &base) != 1)
		ndp_die("flood: IPv4 addresses expected");
	rfd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	if (rfd < 0 || setsockopt(rfd, IPPROTO_IP, IP_HDRINCL, &one, sizeof(one)))
		ndp_die_errno("raw socket");
	t0 = ndp_now_s();
	next = t0;
	for (i = 0; i < opt.count && !fz_stopped(); i++) {
		__u8 *ip = pkt, *h = pkt + 20;
		__u32 src = ntohl(base.s_addr) & 0xffff0000;
		int k;

		if (opt.secs && ndp_now_s() - t0 > opt.secs)
			break;
		fz_wait_until(next);
		next += 1.0 / opt.pps;
		memset(pkt, 0, sizeof(pkt));
		ip[0] = 0x45;
		put_be(ip + 2, 2, sizeof(pkt));
		put_be(ip + 6, 2, 0x4000);
		ip[8] = 64;
		ip[9] = opt.proto;
		put_be(ip + 12, 4, src | (1 + fz_below(0xfffe)));
		memcpy(ip + 16, &dst.sin_addr, 4);
		put_be(h + FZ_O_SOURCE, 2, 1024 + fz_below(64000));
		put_be(h + FZ_O_DEST, 2, opt.decoys[i % opt.ndecoys]);
		h[FZ_O_TYPE] = NDP_PKT_DATA;
		h[FZ_O_DOFF] = NDP_HDR_WORDS;
		put_be(h + FZ_O_FLAGS, 2, NDP_F_SYN | NDP_F_LAST | NDP_F_UNSCHED);
		put_be(h + FZ_O_NONCE, 4, 1 + fz_below(0xfffffffe));
		put_be(h + FZ_O_PSN, 4, fz_rand());
		put_be(h + FZ_O_PRIO, 4, 64);
		put_be(h + FZ_O_PAYLEN, 2, 64);
		for (k = 0; k < 64; k++)
			h[NDP_HDR_LEN + k] = fz_rand();
		put_be(h + FZ_O_PCSUM, 2, fz_pcsum(h + NDP_HDR_LEN, 64));
		fz_hcsum_set(pkt, &p);
		fz_ip4_csum(ip);
		while (sendto(rfd, pkt, sizeof(pkt), 0, (struct sockaddr *)&dst,
			      sizeof(dst)) < 0) {
			if (errno != ENOBUFS && errno != EAGAIN)
				ndp_die_errno("sendto");
			usleep(1000);
		}
		sent++;
	}
	printf("flood: sent %ld in %.1f s\n", sent, ndp_now_s() - t0);
	close(rfd);
	return 0;
}

static void fz_parse_decoys(char *s)
{
	char *tok, *save = NULL;

	for (tok = strtok_r(s, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (opt.ndecoys == (int)ARRAY_SIZE(opt.decoys))
			ndp_die("too many decoy ports");
		opt.decoys[opt.ndecoys++] = atoi(tok);
	}
}

int main(int argc, char **argv)
{
	sigset_t sigs;
	double t0, deadline, next, gap;
	long i;
	int c;

	while ((c = getopt(argc, argv, "i:s:n:r:t:W:p:FD:l:f:w:va:P:N:")) != -1) {
		switch (c) {
		case 'i':
			opt.ifname = optarg;
			break;
		case 's':
			opt.seed = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			opt.count = atol(optarg);
			break;
		case 'r':
			opt.pps = atol(optarg);
			break;
		case 't':
			opt.secs = atoi(optarg);
			break;
		case 'W':
			opt.wait_s = atoi(optarg);
			break;
		case 'p':
			opt.proto = atoi(optarg);
			break;
		case 'F':
			opt.forge = true;
			break;
		case 'D':
			fz_parse_decoys(optarg);
			break;
		case 'l':
			opt.listener = atoi(optarg);
			break;
		case 'f':
			opt.frag_pct = atoi(optarg);
			break;
		case 'w':
			opt.wfile = optarg;
			break;
		case 'v':
			opt.verbose = true;
			break;
		case 'a':
			opt.flood_dst = optarg;
			break;
		case 'P':
			fz_parse_decoys(optarg);
			break;
		case 'N':
			opt.flood_src = optarg;
			break;
		default:
			fz_usage();
		}
	}
	if (optind != argc || opt.pps <= 0)
		fz_usage();
	rng = opt.seed * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL;
	if (!rng)
		rng = 1;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	if (opt.flood_dst)
		return fz_flood();
	if (!opt.ifname)
		fz_usage();
	fz_open();
	if (opt.wfile)
		pcap = ndp_pcap_create(opt.wfile, 65536);
	fprintf(stderr, "ndp_fuzz: capturing on %s, seed %llu\n", opt.ifname,
		(unsigned long long)opt.seed);

	t0 = ndp_now_s();
	while (!pool_n && !fz_stopped()) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		if (ndp_now_s() - t0 > opt.wait_s)
			ndp_die("no NDP packet seen on %s within %d s",
				opt.ifname, opt.wait_s);
		poll(&pfd, 1, 100);
		fz_drain();
	}
	fprintf(stderr, "ndp_fuzz: injecting\n");
	t0 = ndp_now_s();
	deadline = opt.secs ? t0 + opt.secs : 0;
	gap = 1.0 / opt.pps;
	next = t0;
	for (i = 0; i < opt.count && !fz_stopped(); i++) {
		if (deadline && ndp_now_s() > deadline)
			break;
		fz_wait_until(next);
		next += gap;
		fz_drain();
		fz_one(i);
	}
	if (pcap && fclose(pcap))
		ndp_die_errno("%s", opt.wfile);
	fz_summary(ndp_now_s() - t0);
	close(fd);
	return 0;
}
