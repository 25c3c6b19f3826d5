// SPDX-License-Identifier: GPL-2.0
/*
 * ndp_pktgen: craft NDP packets on a raw socket, and receive and verify
 * them on a packet socket.  Used by the sch_ndp selftests; any test that
 * needs hand-made NDP traffic may use it.
 *
 *   ndp_pktgen send [-4|-6] --dst ADDR [--src ADDR] [--sport N] [--dport N]
 *                   [--psn N] [--nonce N] [--proto N] [--gap-us N]
 *                   [--udp PORT [--udp-sport N]] SPEC...
 *
 *     Sends the packets described by each SPEC, in order, through the
 *     routing table (IP_HDRINCL raw socket: the header checksum covers the
 *     addresses, so the source address is fixed before sending; without
 *     --src it is the one the kernel would pick for --dst).
 *
 *     SPEC is TYPE[*COUNT][:KEY=VALUE]... with
 *       TYPE   data | hdr (a DATA header already trimmed) | ack | nack |
 *              pull | rst | challenge | token
 *       COUNT  number of such packets (default 1)
 *       KEY    size=BYTES   payload (default 1000 for data, else 0)
 *              prio=N       ndphdr.prio (default 0)
 *              sport=N, dport=N   override --sport/--dport
 *              flags=F[,F]  syn last trimmed rts unsched pull fin rtx
 *                           passive echo token
 *              synoff=N     ndphdr.syn_off (SYN offset or cumulative ack)
 *              pull=N       ndphdr.pull (pull counter; the cookie of a
 *                           challenge, or echoed with flags=echo)
 *              psn=N        this packet's psn (the next ones follow it)
 *              badpcsum=1   DATA: a payload checksum that does not match
 *              badhcsum=1   a header checksum that does not match
 *              path=N       ndphdr.path (path id)
 *              detours=N    ndphdr.detours (detours taken so far)
 *              frags=N      IPv4: send the packet as N IP fragments (the
 *                           receiver reassembles it into a nonlinear skb)
 *              doff=N       header length N words (10..255): N * 4 - 40
 *                           option bytes, (0xc0 + i) & 0xff, follow the
 *                           fixed header
 *              doff-lie=N   ndphdr.doff says N (0..255) but no option
 *                           bytes are added (a malformed header)
 *              frag=N       IPv4 only: fragment offset N (8-byte units)
 *              mf=1         IPv4 only: more-fragments flag
 *              ucsum=1      --udp: a real UDP checksum (default 0, the
 *                           tunnel convention of RFC 6935/6936)
 *              ulen=N       --udp: UDP length field N (a lie; default
 *                           the datagram's length)
 *     With --udp PORT the NDP packet (header and payload, unchanged but
 *     for its header checksum, whose pseudo-header has --proto and no
 *     addresses, ndp-wire.rst "NDP in UDP") is the payload of a UDP
 *     datagram to PORT (NDP over UDP), from --udp-sport or by default
 *     from 49152 + psn % 16384 (path entropy).
 *     Every packet gets the next psn, starting at --psn (default 1), so a
 *     receiver can tell the order in which they were sent.  The payload
 *     of DATA packet psn P is the byte sequence (P + i) & 0xff, and pcsum
 *     is its Internet checksum.  Prints "sent N".
 *
 *   ndp_pktgen recv [--dev IF] [--count N] [--timeout-ms MS]
 *                   [--idle-ms MS] [--dport N] [--proto N] [--udp PORT]
 *                   [--quiet]
 *
 *     Receives IPv4 and IPv6 NDP packets (not the ones the host sends) on
 *     a packet socket and verifies them: IP length, header checksum
 *     (always), option bytes (the doff=N pattern, always), payload
 *     checksum and bytes (untrimmed DATA; the bytes a trimmed one kept,
 *     none unless the switch's trim-size says so).  One line per packet unless
 *     --quiet:
 *       pkt I type=T psn=N sport=N dport=N flags=F prio=N paylen=N len=N
 *           doff=N opts=ok|BAD|- hcsum=ok|BAD pcsum=ok|BAD|- src=A dst=B
 *           tos=N t_us=N detours=N
 *     and for a challenge or a token a second line
 *       "pkt I nonce=N cookie=N"
 *     (len: payload bytes present after the doff*4-byte header; t_us:
 *     kernel receive time since the first packet; tos: the IPv4 TOS or
 *     IPv6 traffic class byte, DSCP and ECN) and a summary line:
 *       summary pkts=N data=N trimmed=N ctrl=N rts=N bad_hcsum=N
 *               bad_pcsum=N bad_len=N bad_opts=N reordered=N bytes=N
 *               span_us=N bad_ucsum=N
 *     With --udp PORT only NDP over UDP to PORT is taken, and a packet
 *     line ends with " usport=N udport=N ulen=N ucsum=0|ok|BAD": a UDP
 *     length other than the IP payload length counts in bad_len, a
 *     non-zero UDP checksum that does not verify in bad_ucsum.
 *     (bytes: IP bytes of all packets but the first, so bytes / span_us
 *     is the arrival rate).  Stops after --count packets, after --idle-ms
 *     (default 1000) without a packet once one arrived, or after
 *     --timeout-ms (default 10000).  Exit status 1 if any check failed or
 *     fewer than --count packets arrived.
 *
 *   ndp_pktgen tcp-sink [-6] --port N [--timeout-ms MS]
 *
 *     Accepts one TCP connection and copies what it receives to stdout
 *     (for "TCP through the same port" tests; the guest has no netcat).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/ndp.h>

#include "ndp_util.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define NDP_DEFAULT_PROTO	IPPROTO_NDP
#define NDP_MAX_PKT	65536

/* UDP header of NDP over UDP (all fields in network order). */
struct ndp_udphdr {
	uint16_t source, dest, len, check;
};

static const char *const ndp_type_names[NDP_PKT_MAX] = {
	[NDP_PKT_DATA] = "data", [NDP_PKT_ACK] = "ack", [NDP_PKT_NACK] = "nack",
	[NDP_PKT_PULL] = "pull", [NDP_PKT_RST] = "rst",
	[NDP_PKT_CHALLENGE] = "challenge", [NDP_PKT_TOKEN] = "token",
};

static const struct {
	const char *name;
	uint16_t bit;
} ndp_flag_names[] = {
	{ "syn", NDP_F_SYN }, { "last", NDP_F_LAST },
	{ "trimmed", NDP_F_TRIMMED }, { "rts", NDP_F_RTS },
	{ "unsched", NDP_F_UNSCHED }, { "pull", NDP_F_PULL },
	{ "fin", NDP_F_FIN }, { "rtx", NDP_F_RTX },
	{ "passive", NDP_F_PASSIVE }, { "echo", NDP_F_ECHO },
	{ "token", NDP_F_TOKEN },
};

/* --- checksums ------------------------------------------------------------ */

static uint32_t csum_add(uint32_t sum, const void *data, size_t len)
{
	const uint8_t *p = data;

	while (len > 1) {
		sum += (uint32_t)p[0] << 8 | p[1];
		p += 2;
		len -= 2;
	}
	if (len)
		sum += (uint32_t)p[0] << 8;
	return sum;
}

static uint16_t csum_fold16(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

/*
 * Pseudo-header sum: addresses, protocol and the header length (40).
 * NDP in UDP names no address (@src and @dst NULL): ndp-wire.rst.
 */
static uint32_t ndp_pseudo(int family, const void *src, const void *dst,
			   int proto)
{
	size_t alen = family == AF_INET ? 4 : 16;
	uint32_t sum = 0;

	if (src && dst) {
		sum = csum_add(sum, src, alen);
		sum = csum_add(sum, dst, alen);
	}
	return sum + proto + NDP_HDR_LEN;
}

/* Both in network order, as stored on the wire. */
static uint16_t ndp_hcsum(int family, const void *src, const void *dst,
			  int proto, const struct ndphdr *nh)
{
	uint32_t sum = ndp_pseudo(family, src, dst, proto);

	return htons((uint16_t)~csum_fold16(csum_add(sum, nh, NDP_HDR_LEN)));
}

static uint16_t ndp_pcsum(const uint8_t *payload, size_t len)
{
	if (!len)
		return 0;
	return htons((uint16_t)~csum_fold16(csum_add(0, payload, len)));
}

/*
 * UDP checksum of @len bytes at @udp (UDP header with its check field
 * included as it is): 0 when a filled-in checksum verifies.
 */
static uint16_t ndp_udp_sum(int family, const void *src, const void *dst,
			    const void *udp, size_t len)
{
	size_t alen = family == AF_INET ? 4 : 16;
	uint32_t sum = 0;

	sum = csum_add(sum, src, alen);
	sum = csum_add(sum, dst, alen);
	sum += IPPROTO_UDP + (uint32_t)len;
	return (uint16_t)~csum_fold16(csum_add(sum, udp, len));
}

static bool ndp_hcsum_ok(int family, const void *src, const void *dst,
			 int proto, const struct ndphdr *nh)
{
	uint32_t sum = ndp_pseudo(family, src, dst, proto);

	return csum_fold16(csum_add(sum, nh, NDP_HDR_LEN)) == 0xffff;
}

/* --- send ----------------------------------------------------------------- */

struct ndp_gen {
	int family;
	int proto;
	union {
		struct in_addr v4;
		struct in6_addr v6;
	} src, dst;
	uint16_t sport, dport;
	uint32_t psn, nonce;
	unsigned int gap_us;
	long udp_port;		/* NDP over UDP to this port; -1: native */
	long udp_sport;		/* -1: 49152 + psn % 16384 */
	int fd;
	unsigned long sent;
};

static void ndp_parse_addr(struct ndp_gen *g, const char *s, void *out)
{
	if (inet_pton(g->family, s, out) != 1)
		ndp_die("bad %s address '%s'", g->family == AF_INET ? "IPv4" : "IPv6", s);
}

/* The source address the kernel would use towards the destination. */
static void ndp_pick_src(struct ndp_gen *g)
{
	struct sockaddr_storage ss = { 0 };
	socklen_t sl = sizeof(ss);
	int fd = socket(g->family, SOCK_DGRAM, 0);

	if (fd < 0)
		ndp_die_errno("socket");
	if (g->family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

		sin->sin_family = AF_INET;
		sin->sin_port = htons(9);
		sin->sin_addr = g->dst.v4;
		sl = sizeof(*sin);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(9);
		sin6->sin6_addr = g->dst.v6;
		sl = sizeof(*sin6);
	}
	if (connect(fd, (struct sockaddr *)&ss, sl))
		ndp_die_errno("no route to the destination");
	sl = sizeof(ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &sl))
		ndp_die_errno("getsockname");
	if (g->family == AF_INET)
		g->src.v4 = ((struct sockaddr_in *)&ss)->sin_addr;
	else
		g->src.v6 = ((struct sockaddr_in6 *)&ss)->sin6_addr;
	close(fd);
}

struct ndp_spec {
	int type;
	bool trimmed;
	unsigned long count;
	unsigned int size;
	uint32_t prio;
	uint16_t flags;
	long sport, dport;
	uint32_t syn_off, pull;
	uint8_t path, detours;
	long long psn;
	bool bad_pcsum;
	bool bad_hcsum;
	unsigned int frags;
	unsigned int doff;	/* words of header actually built (>= 10) */
	int doff_lie;		/* value for ndphdr.doff, -1: doff */
	unsigned int frag;	/* IPv4 fragment offset, 8-byte units */
	bool mf;
	bool ucsum;		/* --udp: a real UDP checksum */
	long ulen;		/* --udp: UDP length field; -1: true length */
};

static unsigned long ndp_num(const char *s, unsigned long max, const char *what)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || v > max)
		ndp_die("bad %s '%s' (0..%lu)", what, s, max);
	return v;
}

static uint16_t ndp_parse_flags(char *s)
{
	uint16_t flags = 0;
	char *tok, *save = NULL;
	size_t i;

	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < ARRAY_SIZE(ndp_flag_names); i++)
			if (!strcmp(tok, ndp_flag_names[i].name))
				break;
		if (i == ARRAY_SIZE(ndp_flag_names))
			ndp_die("unknown flag '%s'", tok);
		flags |= ndp_flag_names[i].bit;
	}
	return flags;
}

static void ndp_parse_spec(const char *arg, struct ndp_spec *sp)
{
	char *s = strdup(arg), *tok, *save = NULL, *star;
	int t;

	if (!s)
		ndp_die("out of memory");
	memset(sp, 0, sizeof(*sp));
	sp->count = 1;
	sp->size = 1000;
	sp->sport = -1;
	sp->dport = -1;
	sp->psn = -1;
	sp->frags = 1;
	sp->doff = NDP_HDR_LEN / 4;
	sp->doff_lie = -1;
	sp->ulen = -1;

	tok = strtok_r(s, ":", &save);
	if (!tok)
		ndp_die("empty packet spec");
	star = strchr(tok, '*');
	if (star) {
		*star = '\0';
		sp->count = ndp_num(star + 1, 1000000, "count");
	}
	if (!strcmp(tok, "hdr")) {
		sp->type = NDP_PKT_DATA;
		sp->trimmed = true;
		sp->size = 0;
	} else {
		for (t = NDP_PKT_DATA; t < NDP_PKT_MAX; t++)
			if (!strcmp(tok, ndp_type_names[t]))
				break;
		if (t == NDP_PKT_MAX)
			ndp_die("unknown packet type '%s'", tok);
		sp->type = t;
		if (t != NDP_PKT_DATA)
			sp->size = 0;
	}

	while ((tok = strtok_r(NULL, ":", &save))) {
		char *eq = strchr(tok, '=');

		if (!eq)
			ndp_die("spec item '%s' is not KEY=VALUE", tok);
		*eq++ = '\0';
		if (!strcmp(tok, "size"))
			sp->size = ndp_num(eq, 65000, "size");
		else if (!strcmp(tok, "prio"))
			sp->prio = ndp_num(eq, UINT32_MAX, "prio");
		else if (!strcmp(tok, "sport"))
			sp->sport = ndp_num(eq, 65535, "sport");
		else if (!strcmp(tok, "dport"))
			sp->dport = ndp_num(eq, 65535, "dport");
		else if (!strcmp(tok, "flags"))
			sp->flags = ndp_parse_flags(eq);
		else if (!strcmp(tok, "synoff"))
			sp->syn_off = ndp_num(eq, UINT32_MAX, "synoff");
		else if (!strcmp(tok, "pull"))
			sp->pull = ndp_num(eq, UINT32_MAX, "pull");
		else if (!strcmp(tok, "psn"))
			sp->psn = ndp_num(eq, UINT32_MAX, "psn");
		else if (!strcmp(tok, "path"))
			sp->path = ndp_num(eq, 255, "path");
		else if (!strcmp(tok, "detours"))
			sp->detours = ndp_num(eq, 255, "detours");
		else if (!strcmp(tok, "badpcsum"))
			sp->bad_pcsum = ndp_num(eq, 1, "badpcsum");
		else if (!strcmp(tok, "badhcsum"))
			sp->bad_hcsum = ndp_num(eq, 1, "badhcsum");
		else if (!strcmp(tok, "frags"))
			sp->frags = ndp_num(eq, 64, "frags");
		else if (!strcmp(tok, "doff"))
			sp->doff = ndp_num(eq, 255, "doff");
		else if (!strcmp(tok, "doff-lie"))
			sp->doff_lie = ndp_num(eq, 255, "doff-lie");
		else if (!strcmp(tok, "frag"))
			sp->frag = ndp_num(eq, 0x1fff, "frag");
		else if (!strcmp(tok, "mf"))
			sp->mf = ndp_num(eq, 1, "mf");
		else if (!strcmp(tok, "ucsum"))
			sp->ucsum = ndp_num(eq, 1, "ucsum");
		else if (!strcmp(tok, "ulen"))
			sp->ulen = ndp_num(eq, 65535, "ulen");
		else
			ndp_die("unknown spec key '%s'", tok);
	}
	if (!sp->frags)
		ndp_die("frags must be at least 1");
	if (sp->doff < NDP_HDR_LEN / 4)
		ndp_die("doff below %d: use doff-lie= for a malformed header", NDP_HDR_LEN / 4);
	free(s);
}

/*
 * Send an IPv4 packet of @total bytes (20-byte header first) as @n
 * fragments: every piece but the last carries a multiple of 8 bytes.
 */
static void ndp_send_frags(struct ndp_gen *g, uint8_t *pkt, size_t total,
			   unsigned int n, const struct sockaddr *sa,
			   socklen_t sl)
{
	static uint8_t frag[NDP_MAX_PKT];
	size_t body = total - sizeof(struct iphdr), step, off;
	static uint16_t id = 0x4e44;

	step = (body / n + 7) & ~(size_t)7;
	if (!step)
		step = 8;
	id++;
	for (off = 0; off < body; off += step) {
		struct iphdr *iph = (struct iphdr *)frag;
		size_t len = body - off < step ? body - off : step;
		bool more = off + len < body;

		memcpy(frag, pkt, sizeof(struct iphdr));
		memcpy(frag + sizeof(struct iphdr),
		       pkt + sizeof(struct iphdr) + off, len);
		iph->id = htons(id);
		iph->frag_off = htons((more ? IP_MF : 0) | (off / 8));
		iph->tot_len = htons(sizeof(struct iphdr) + len);
		iph->check = 0;
		if (sendto(g->fd, frag, sizeof(struct iphdr) + len, 0, sa,
			   sl) != (ssize_t)(sizeof(struct iphdr) + len))
			ndp_die_errno("sendto (fragment at %zu)", off);
	}
}

static void ndp_send_one(struct ndp_gen *g, const struct ndp_spec *sp)
{
	static uint8_t pkt[NDP_MAX_PKT];
	size_t iplen = g->family == AF_INET ? sizeof(struct iphdr) : sizeof(struct ip6_hdr);
	size_t ulen = g->udp_port >= 0 ? sizeof(struct ndp_udphdr) : 0;
	struct ndp_udphdr *uh = (struct ndp_udphdr *)(pkt + iplen);
	struct ndphdr *nh = (struct ndphdr *)(pkt + iplen + ulen);
	size_t hlen = sp->doff * 4;
	uint8_t *payload = pkt + iplen + ulen + hlen;
	size_t total = iplen + ulen + hlen + sp->size;
	int ipproto = ulen ? IPPROTO_UDP : g->proto;
	struct sockaddr_storage ss = { 0 };
	socklen_t sl;
	unsigned int i;

	if (total > sizeof(pkt) || total > 65535)
		ndp_die("packet too large");
	if (sp->frags > 1 && g->family != AF_INET)
		ndp_die("frags: IPv4 only");
	if ((sp->ucsum || sp->ulen >= 0) && !ulen)
		ndp_die("ucsum= and ulen= need --udp");
	if (sp->psn >= 0)
		g->psn = sp->psn;
	memset(pkt, 0, iplen + ulen + NDP_HDR_LEN);
	for (i = 0; i < hlen - NDP_HDR_LEN; i++)
		pkt[iplen + ulen + NDP_HDR_LEN + i] = (uint8_t)(0xc0 + i);
	for (i = 0; i < sp->size; i++)
		payload[i] = (uint8_t)(g->psn + i);

	nh->source = htons(sp->sport >= 0 ? sp->sport : g->sport);
	nh->dest = htons(sp->dport >= 0 ? sp->dport : g->dport);
	nh->type = sp->type;
	nh->doff = sp->doff_lie >= 0 ? (uint8_t)sp->doff_lie : (uint8_t)sp->doff;
	nh->flags = htons(sp->flags | (sp->trimmed ? NDP_F_TRIMMED : 0));
	nh->nonce = htonl(g->nonce);
	nh->psn = htonl(g->psn);
	nh->prio = htonl(sp->prio);
	nh->paylen = htons(sp->trimmed ? 1000 : sp->size);
	nh->pcsum = ndp_pcsum(payload, sp->size);
	if (sp->bad_pcsum)
		nh->pcsum ^= htons(0x5a5a);
	nh->syn_off = htonl(sp->syn_off);
	nh->pull = htonl(sp->pull);
	nh->path = sp->path;
	nh->detours = sp->detours;

	if (g->family == AF_INET) {
		struct iphdr *iph = (struct iphdr *)pkt;
		struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

		iph->version = 4;
		iph->ihl = 5;
		iph->ttl = 64;
		iph->protocol = ipproto;
		iph->tot_len = htons(total);
		iph->frag_off = htons((sp->mf ? 0x2000 : 0) | sp->frag);
		iph->saddr = g->src.v4.s_addr;
		iph->daddr = g->dst.v4.s_addr;
		nh->hcsum = g->udp_port >= 0 ?
			ndp_hcsum(AF_INET, NULL, NULL, g->proto, nh) :
			ndp_hcsum(AF_INET, &iph->saddr, &iph->daddr, g->proto, nh);
		sin->sin_family = AF_INET;
		sin->sin_addr = g->dst.v4;
		sl = sizeof(*sin);
	} else {
		struct ip6_hdr *ip6 = (struct ip6_hdr *)pkt;
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

		ip6->ip6_flow = htonl(6u << 28);
		if (sp->frag || sp->mf)
			ndp_die("frag= and mf= are IPv4 only");
		ip6->ip6_plen = htons(total - iplen);
		ip6->ip6_nxt = ipproto;
		ip6->ip6_hlim = 64;
		ip6->ip6_src = g->src.v6;
		ip6->ip6_dst = g->dst.v6;
		nh->hcsum = g->udp_port >= 0 ?
			ndp_hcsum(AF_INET6, NULL, NULL, g->proto, nh) :
			ndp_hcsum(AF_INET6, &ip6->ip6_src, &ip6->ip6_dst,
				  g->proto, nh);
		sin6->sin6_family = AF_INET6;
		sin6->sin6_addr = g->dst.v6;
		sl = sizeof(*sin6);
	}
	if (sp->bad_hcsum)
		nh->hcsum ^= htons(0x5a5a);
	if (ulen) {
		const void *s4 = &((struct iphdr *)pkt)->saddr;
		const void *d4 = &((struct iphdr *)pkt)->daddr;
		const void *s6 = &((struct ip6_hdr *)pkt)->ip6_src;
		const void *d6 = &((struct ip6_hdr *)pkt)->ip6_dst;
		bool v4 = g->family == AF_INET;

		uh->source = htons(g->udp_sport >= 0 ? g->udp_sport :
				   49152 + g->psn % 16384);
		uh->dest = htons(g->udp_port);
		uh->len = htons(total - iplen);
		uh->check = 0;
		if (sp->ucsum) {
			uh->check = htons(ndp_udp_sum(g->family, v4 ? s4 : s6,
						      v4 ? d4 : d6, uh,
						      total - iplen));
			if (!uh->check)
				uh->check = 0xffff;
		}
		if (sp->ulen >= 0)
			uh->len = htons(sp->ulen);
	}

	if (sp->frags > 1)
		ndp_send_frags(g, pkt, total, sp->frags, (struct sockaddr *)&ss, sl);
	else if (sendto(g->fd, pkt, total, 0, (struct sockaddr *)&ss, sl) != (ssize_t)total)
		ndp_die_errno("sendto (psn %u)", g->psn);
	g->sent++;
	g->psn++;
	if (g->gap_us)
		usleep(g->gap_us);
}

static int ndp_cmd_send(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "src", required_argument, NULL, 's' },
		{ "dst", required_argument, NULL, 'd' },
		{ "sport", required_argument, NULL, 'S' },
		{ "dport", required_argument, NULL, 'D' },
		{ "psn", required_argument, NULL, 'p' },
		{ "nonce", required_argument, NULL, 'n' },
		{ "proto", required_argument, NULL, 'P' },
		{ "gap-us", required_argument, NULL, 'g' },
		{ "udp", required_argument, NULL, 'u' },
		{ "udp-sport", required_argument, NULL, 'U' },
		{ NULL, 0, NULL, 0 },
	};
	struct ndp_gen g = { .family = AF_INET, .proto = NDP_DEFAULT_PROTO,
			     .sport = 4000, .dport = 5000, .psn = 1,
			     .nonce = 0x6e6470, .udp_port = -1,
			     .udp_sport = -1 };
	const char *src = NULL, *dst = NULL;
	struct ndp_spec sp;
	unsigned long i;
	int c, k;

	while ((c = getopt_long(argc, argv, "46", opts, NULL)) != -1) {
		switch (c) {
		case '4':
			g.family = AF_INET;
			break;
		case '6':
			g.family = AF_INET6;
			break;
		case 's':
			src = optarg;
			break;
		case 'd':
			dst = optarg;
			break;
		case 'S':
			g.sport = ndp_num(optarg, 65535, "sport");
			break;
		case 'D':
			g.dport = ndp_num(optarg, 65535, "dport");
			break;
		case 'p':
			g.psn = ndp_num(optarg, UINT32_MAX, "psn");
			break;
		case 'n':
			g.nonce = ndp_num(optarg, UINT32_MAX, "nonce");
			break;
		case 'P':
			g.proto = ndp_num(optarg, 255, "proto");
			break;
		case 'g':
			g.gap_us = ndp_num(optarg, 10000000, "gap-us");
			break;
		case 'u':
			g.udp_port = ndp_num(optarg, 65535, "udp port");
			break;
		case 'U':
			g.udp_sport = ndp_num(optarg, 65535, "udp-sport");
			break;
		default:
			ndp_die("usage: see the comment at the top of ndp_pktgen.c");
		}
	}
	if (!dst)
		ndp_die("send needs --dst");
	if (optind >= argc)
		ndp_die("send needs at least one packet SPEC");
	ndp_parse_addr(&g, dst, &g.dst);
	if (src)
		ndp_parse_addr(&g, src, &g.src);
	else
		ndp_pick_src(&g);

	g.fd = socket(g.family, SOCK_RAW, IPPROTO_RAW);
	if (g.fd < 0)
		ndp_die_errno("raw socket");

	for (k = optind; k < argc; k++) {
		ndp_parse_spec(argv[k], &sp);
		for (i = 0; i < sp.count; i++)
			ndp_send_one(&g, &sp);
	}
	printf("sent %lu\n", g.sent);
	return 0;
}

/* --- recv ----------------------------------------------------------------- */

struct ndp_rx_stats {
	unsigned long pkts, data, trimmed, ctrl, rts;
	unsigned long bad_hcsum, bad_pcsum, bad_len, bad_opts, reordered;
	unsigned long bad_ucsum;
	unsigned long long bytes;
	uint32_t max_psn;
	struct timespec first, last;
};

static long long ts_us(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1000000LL + (b->tv_nsec - a->tv_nsec) / 1000;
}

static void ndp_flags_str(uint16_t flags, char *buf, size_t len)
{
	size_t i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(ndp_flag_names); i++)
		if (flags & ndp_flag_names[i].bit)
			off += snprintf(buf + off, len - off, "%s%s",
					off ? "," : "", ndp_flag_names[i].name);
	if (!off)
		snprintf(buf, len, "-");
}

/* Check one IP packet; returns false if it is not NDP (ignored). */
static bool ndp_rx_one(const uint8_t *pkt, size_t len, int proto, long dport,
		       long udp_port, bool quiet, const struct timespec *ts,
		       struct ndp_rx_stats *st)
{
	char srcs[INET6_ADDRSTRLEN], dsts[INET6_ADDRSTRLEN], fl[80], ud[80];
	int ipproto = udp_port >= 0 ? IPPROTO_UDP : proto;
	const struct ndp_udphdr *uh = NULL;
	const void *src, *dst;
	const struct ndphdr *nh;
	size_t iplen, iptot;
	int family;
	bool hok, pok = true, lok = true, ook = true, check_payload;
	const uint8_t *payload;
	size_t plen, hlen, i;
	unsigned int tos;
	uint16_t flags;
	uint32_t psn;

	if (len < 1)
		return false;
	if ((pkt[0] >> 4) == 4) {
		const struct iphdr *iph = (const struct iphdr *)pkt;

		if (len < sizeof(*iph) || iph->protocol != ipproto)
			return false;
		iplen = iph->ihl * 4;
		iptot = ntohs(iph->tot_len);
		tos = iph->tos;
		family = AF_INET;
		src = &iph->saddr;
		dst = &iph->daddr;
	} else if ((pkt[0] >> 4) == 6) {
		const struct ip6_hdr *ip6 = (const struct ip6_hdr *)pkt;

		if (len < sizeof(*ip6) || ip6->ip6_nxt != ipproto)
			return false;
		iplen = sizeof(*ip6);
		iptot = iplen + ntohs(ip6->ip6_plen);
		tos = (ntohl(ip6->ip6_flow) >> 20) & 0xff;
		family = AF_INET6;
		src = &ip6->ip6_src;
		dst = &ip6->ip6_dst;
	} else {
		return false;
	}
	if (udp_port >= 0) {
		/* From here on, iplen is the NDP header's offset. */
		if (len < iplen + sizeof(*uh))
			return false;
		uh = (const struct ndp_udphdr *)(pkt + iplen);
		if (ntohs(uh->dest) != udp_port)
			return false;
		iplen += sizeof(*uh);
	}
	if (len < iplen + NDP_HDR_LEN)
		return false;
	nh = (const struct ndphdr *)(pkt + iplen);
	if (dport >= 0 && ntohs(nh->dest) != dport)
		return false;

	if (!st->pkts)
		st->first = *ts;
	else
		st->bytes += len;
	st->last = *ts;
	st->pkts++;

	flags = ntohs(nh->flags);
	psn = ntohl(nh->psn);
	if (st->pkts > 1 && psn < st->max_psn)
		st->reordered++;
	if (psn > st->max_psn)
		st->max_psn = psn;

	if (iptot != len)
		lok = false;
	if (udp_port >= 0)	/* no addresses in UDP's pseudo-header */
		hok = ndp_hcsum_ok(family, NULL, NULL, proto, nh);
	else
		hok = ndp_hcsum_ok(family, src, dst, proto, nh);
	/* Options: the doff=N pattern of "send"; a doff past the end is bad. */
	hlen = nh->doff * 4;
	if (hlen < NDP_HDR_LEN || iplen + hlen > len) {
		ook = false;
		hlen = NDP_HDR_LEN;
	}
	for (i = NDP_HDR_LEN; ook && i < hlen; i++)
		if (pkt[iplen + i] != (uint8_t)(0xc0 + i - NDP_HDR_LEN))
			ook = false;
	payload = pkt + iplen + hlen;
	plen = len - iplen - hlen;
	check_payload = nh->type == NDP_PKT_DATA && !(flags & NDP_F_TRIMMED);
	if (nh->type == NDP_PKT_DATA) {
		st->data++;
		if (flags & NDP_F_TRIMMED) {
			st->trimmed++;
			/*
			 * A trimmed packet keeps no payload, or with sch_ndp's
			 * trim-size a prefix of it: never more than it had.
			 */
			if (plen > ntohs(nh->paylen))
				lok = false;
			for (i = 0; pok && i < plen; i++)
				if (payload[i] != (uint8_t)(psn + i))
					pok = false;
		}
	} else {
		st->ctrl++;
	}
	if (flags & NDP_F_RTS)
		st->rts++;
	if (check_payload) {
		if (plen != ntohs(nh->paylen))
			lok = false;
		if (ndp_pcsum(payload, plen) != nh->pcsum)
			pok = false;
		for (i = 0; pok && i < plen; i++)
			if (payload[i] != (uint8_t)(psn + i))
				pok = false;
	}
	ud[0] = '\0';
	if (uh) {
		size_t ulen = (iptot < len ? iptot : len) -
			      (iplen - sizeof(*uh));
		bool uok = !uh->check ||
			   !ndp_udp_sum(family, src, dst, uh, ulen);

		if (ntohs(uh->len) != ulen)
			lok = false;
		st->bad_ucsum += !uok;
		snprintf(ud, sizeof(ud), " usport=%u udport=%u ulen=%u ucsum=%s",
			 ntohs(uh->source), ntohs(uh->dest), ntohs(uh->len),
			 !uh->check ? "0" : uok ? "ok" : "BAD");
	}
	st->bad_hcsum += !hok;
	st->bad_pcsum += !pok;
	st->bad_len += !lok;
	st->bad_opts += !ook;

	if (quiet)
		return true;
	inet_ntop(family, src, srcs, sizeof(srcs));
	inet_ntop(family, dst, dsts, sizeof(dsts));
	ndp_flags_str(flags, fl, sizeof(fl));
	fprintf(stdout,
		"pkt %lu type=%s psn=%u sport=%u dport=%u flags=%s prio=%u paylen=%u len=%zu doff=%u opts=%s hcsum=%s pcsum=%s%s src=%s dst=%s tos=%u t_us=%lld detours=%u%s\n",
		st->pkts,
		nh->type < NDP_PKT_MAX && ndp_type_names[nh->type] ?
		ndp_type_names[nh->type] : "unknown",
		psn, ntohs(nh->source), ntohs(nh->dest), fl, ntohl(nh->prio),
		ntohs(nh->paylen), plen, nh->doff,
		!ook ? "BAD" : hlen > NDP_HDR_LEN ? "ok" : "-",
		hok ? "ok" : "BAD",
		check_payload ? (pok ? "ok" : "BAD") : "-",
		lok ? "" : " length=BAD", srcs, dsts, tos, ts_us(&st->first, ts),
		nh->detours, ud);
	if (nh->type == NDP_PKT_CHALLENGE || nh->type == NDP_PKT_TOKEN)
		fprintf(stdout, "pkt %lu nonce=%u cookie=%u\n", st->pkts,
			ntohl(nh->nonce), ntohl(nh->pull));
	fflush(stdout);
	return true;
}

static int ndp_cmd_recv(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dev", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'c' },
		{ "timeout-ms", required_argument, NULL, 't' },
		{ "idle-ms", required_argument, NULL, 'I' },
		{ "dport", required_argument, NULL, 'D' },
		{ "proto", required_argument, NULL, 'P' },
		{ "udp", required_argument, NULL, 'u' },
		{ "quiet", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long count = 0;
	long timeout_ms = 10000, idle_ms = 1000, dport = -1, udp_port = -1;
	int proto = NDP_DEFAULT_PROTO, fd, c, one = 1, rcvbuf = 8 << 20;
	const char *dev = NULL;
	struct ndp_rx_stats st = { 0 };
	struct sockaddr_ll sll = { 0 };
	static uint8_t buf[NDP_MAX_PKT];
	struct timespec start, now;
	bool quiet = false;

	while ((c = getopt_long(argc, argv, "q", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			dev = optarg;
			break;
		case 'c':
			count = ndp_num(optarg, 100000000, "count");
			break;
		case 't':
			timeout_ms = ndp_num(optarg, 3600000, "timeout-ms");
			break;
		case 'I':
			idle_ms = ndp_num(optarg, 3600000, "idle-ms");
			break;
		case 'D':
			dport = ndp_num(optarg, 65535, "dport");
			break;
		case 'P':
			proto = ndp_num(optarg, 255, "proto");
			break;
		case 'u':
			udp_port = ndp_num(optarg, 65535, "udp port");
			break;
		case 'q':
			quiet = true;
			break;
		default:
			ndp_die("usage: see the comment at the top of ndp_pktgen.c");
		}
	}

	fd = socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_ALL));
	if (fd < 0)
		ndp_die_errno("packet socket");
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_ALL);
	if (dev) {
		sll.sll_ifindex = if_nametoindex(dev);
		if (!sll.sll_ifindex)
			ndp_die("no device '%s'", dev);
	}
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)))
		ndp_die_errno("bind");
	/* Lines as they come: a test may wait for one, then stop us. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* Ready: a test may start sending once it sees this line. */
	fprintf(stderr, "ndp_pktgen: receiving\n");

	clock_gettime(CLOCK_MONOTONIC, &start);
	while (!count || st.pkts < count) {
		char cbuf[CMSG_SPACE(sizeof(struct timespec))];
		struct iovec iov = { buf, sizeof(buf) };
		struct sockaddr_ll from;
		struct msghdr msg = {
			.msg_name = &from, .msg_namelen = sizeof(from),
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
		};
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		struct timespec ts;
		struct cmsghdr *cm;
		long wait, left;
		ssize_t n;

		clock_gettime(CLOCK_MONOTONIC, &now);
		left = timeout_ms - ts_us(&start, &now) / 1000;
		wait = left;
		if (st.pkts && idle_ms < wait)
			wait = idle_ms;
		if (wait <= 0 || poll(&pfd, 1, wait) <= 0)
			break;
		n = recvmsg(fd, &msg, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ndp_die_errno("recvmsg");
		}
		if (from.sll_pkttype == PACKET_OUTGOING)
			continue;
		clock_gettime(CLOCK_REALTIME, &ts);
		for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm))
			if (cm->cmsg_level == SOL_SOCKET &&
			    cm->cmsg_type == SO_TIMESTAMPNS)
				memcpy(&ts, CMSG_DATA(cm), sizeof(ts));
		ndp_rx_one(buf, n, proto, dport, udp_port, quiet, &ts, &st);
	}

	fprintf(stdout,
		"summary pkts=%lu data=%lu trimmed=%lu ctrl=%lu rts=%lu bad_hcsum=%lu bad_pcsum=%lu bad_len=%lu bad_opts=%lu reordered=%lu bytes=%llu span_us=%lld bad_ucsum=%lu\n",
		st.pkts, st.data, st.trimmed, st.ctrl, st.rts, st.bad_hcsum,
		st.bad_pcsum, st.bad_len, st.bad_opts, st.reordered, st.bytes,
		st.pkts ? ts_us(&st.first, &st.last) : 0LL, st.bad_ucsum);
	close(fd);
	if (st.bad_hcsum || st.bad_pcsum || st.bad_len || st.bad_opts ||
	    st.bad_ucsum || st.pkts < count)
		return 1;
	return 0;
}

/* --- tcp-sink ------------------------------------------------------------- */

static int ndp_cmd_tcp_sink(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "timeout-ms", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6,
				     .sin6_addr = IN6ADDR_ANY_INIT };
	long timeout_ms = 10000;
	int port = -1, fd, cfd, c, one = 1, zero = 0;
	struct pollfd pfd;
	static char buf[65536];
	ssize_t n;

	while ((c = getopt_long(argc, argv, "6", opts, NULL)) != -1) {
		switch (c) {
		case '6':	/* a dual-stack socket takes both */
			break;
		case 'p':
			port = ndp_num(optarg, 65535, "port");
			break;
		case 't':
			timeout_ms = ndp_num(optarg, 3600000, "timeout-ms");
			break;
		default:
			ndp_die("usage: ndp_pktgen tcp-sink --port N [--timeout-ms MS]");
		}
	}
	if (port < 0)
		ndp_die("tcp-sink needs --port");
	fd = socket(AF_INET6, SOCK_STREAM, 0);
	if (fd < 0)
		ndp_die_errno("socket");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	sin6.sin6_port = htons(port);
	if (bind(fd, (struct sockaddr *)&sin6, sizeof(sin6)) || listen(fd, 1))
		ndp_die_errno("bind/listen");
	fprintf(stderr, "ndp_pktgen: listening\n");
	pfd.fd = fd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, timeout_ms) <= 0)
		ndp_die("no connection within %ld ms", timeout_ms);
	cfd = accept(fd, NULL, NULL);
	if (cfd < 0)
		ndp_die_errno("accept");
	pfd.fd = cfd;
	for (;;) {
		if (poll(&pfd, 1, timeout_ms) <= 0)
			ndp_die("connection idle for %ld ms", timeout_ms);
		n = read(cfd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			ndp_die_errno("read");
		if (!n)
			break;
		if (fwrite(buf, 1, n, stdout) != (size_t)n)
			ndp_die_errno("write");
	}
	close(cfd);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	ndp_die_status = 2;	/* a usage or setup error, not a failed check */
	if (argc < 2)
		ndp_die("usage: ndp_pktgen send|recv|tcp-sink [options] (see ndp_pktgen.c)");
	if (!strcmp(argv[1], "send"))
		return ndp_cmd_send(argc - 1, argv + 1);
	if (!strcmp(argv[1], "recv"))
		return ndp_cmd_recv(argc - 1, argv + 1);
	if (!strcmp(argv[1], "tcp-sink"))
		return ndp_cmd_tcp_sink(argc - 1, argv + 1);
	ndp_die("unknown command '%s' (send, recv or tcp-sink)", argv[1]);
}
