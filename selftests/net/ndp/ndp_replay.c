// SPDX-License-Identifier: GPL-2.0
/*
 * ndp_replay: capture first-window packets on an interface and re-inject
 * them byte for byte later, to show that a replayed first window of a
 * finished connection creates no second connection (at-most-once).
 *
 *   ndp_replay capture -i IF -w FILE [-p PROTO] [-d in|out|any] [-a]
 *                      [-c COUNT] [-t SECS]
 *	Save up to COUNT (default 64) Ethernet frames carrying IP protocol
 *	PROTO (default IPPROTO_NDP, 253) seen on IF within SECS (default 10)
 *	to FILE in pcap format.  Only connection openers are kept unless -a:
 *	NDP DATA packets with NDP_F_SYN, or, for PROTO 6, TCP SYNs (so the
 *	test can be developed on TCP).  "capturing" is printed to stderr once
 *	the socket is bound; the count of saved frames to stdout at the end.
 *	SIGTERM or SIGINT ends the capture early (the file stays valid).
 *   ndp_replay inject -i IF -r FILE [-g GAP_US]
 *	Send every frame of FILE out of IF (AF_PACKET), unchanged.
 *   ndp_replay show -r FILE
 *	One line per saved frame: length, protocol, ports, NDP type/flags.
 *
 * TCP frames captured on the sending side may carry only a partial
 * checksum (offload); those are completed before saving so a replay is
 * not dropped for a bad checksum.  NDP computes its own checksums, so its
 * frames are saved untouched.
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
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <linux/ndp.h>

#include "ndp_util.h"

#define REPLAY_SNAP	65536

/* Lock-free, so a signal handler may set it (C11 7.14.1.1). */
static atomic_int replay_stop;

static void replay_on_signal(int sig)
{
	replay_stop = 1;
}

/* Where the IP payload starts, and its protocol; false if not IP. */
struct replay_pkt {
	int family;
	int l4off;
	int l4len;
	int proto;
};

static bool replay_parse(const uint8_t *f, int len, struct replay_pkt *p)
{
	int off = ETH_HLEN;
	uint16_t et;

	if (len < ETH_HLEN)
		return false;
	et = f[12] << 8 | f[13];
	while ((et == ETH_P_8021Q || et == ETH_P_8021AD) && len >= off + 4) {
		et = f[off + 2] << 8 | f[off + 3];
		off += 4;
	}
	if (et == ETH_P_IP && len >= off + 20) {
		int ihl = (f[off] & 0x0f) * 4, tot = f[off + 2] << 8 | f[off + 3];

		if (ihl < 20 || tot < ihl || len < off + tot)
			return false;
		p->family = AF_INET;
		p->proto = f[off + 9];
		p->l4off = off + ihl;
		p->l4len = tot - ihl;
		return true;
	}
	if (et == ETH_P_IPV6 && len >= off + 40) {
		int plen = f[off + 4] << 8 | f[off + 5];

		if (len < off + 40 + plen)
			return false;
		p->family = AF_INET6;
		p->proto = f[off + 6];	/* no extension headers expected */
		p->l4off = off + 40;
		p->l4len = plen;
		return true;
	}
	return false;
}

static bool replay_is_opener(const uint8_t *f, const struct replay_pkt *p)
{
	const uint8_t *l4 = f + p->l4off;

	if (p->proto == 6)	/* TCP: SYN without ACK */
		return p->l4len >= 20 && (l4[13] & 0x12) == 0x02;
	if (p->l4len >= (int)sizeof(struct ndphdr)) {
		struct ndphdr h;

		memcpy(&h, l4, sizeof(h));
		return h.type == NDP_PKT_DATA && (ntohs(h.flags) & NDP_F_SYN);
	}
	return false;
}

static uint32_t replay_sum(uint32_t s, const uint8_t *p, int len)
{
	for (; len > 1; p += 2, len -= 2)
		s += p[0] << 8 | p[1];
	if (len)
		s += p[0] << 8;
	return s;
}

/* Complete the checksum of a TCP segment whose offload was pending. */
static void replay_fix_tcp_csum(uint8_t *f, const struct replay_pkt *p)
{
	uint8_t *l4 = f + p->l4off;
	uint32_t s = 0;

	if (p->l4len < 20)
		return;
	l4[16] = 0;
	l4[17] = 0;
	if (p->family == AF_INET)
		s = replay_sum(s, l4 - (l4[-20] & 0x0f) * 4 + 12, 8);
	else
		s = replay_sum(s, l4 - 40 + 8, 32);
	s += p->proto + p->l4len;
	s = replay_sum(s, l4, p->l4len);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	s = ~s & 0xffff;
	l4[16] = s >> 8;
	l4[17] = s;
}

static int replay_ifindex(const char *ifname)
{
	int idx;

	if (!ifname)
		ndp_die("-i IF is required");
	idx = if_nametoindex(ifname);
	if (!idx)
		ndp_die("no interface '%s'", ifname);
	return idx;
}

static int replay_capture(const char *ifname, const char *file, int proto,
			  const char *dir, bool all, int count, int secs)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(ETH_P_ALL),
		.sll_ifindex = replay_ifindex(ifname),
	};
	static uint8_t frame[REPLAY_SNAP];
	uint8_t cbuf[CMSG_SPACE(sizeof(struct tpacket_auxdata))];
	struct sigaction sa = { .sa_handler = replay_on_signal };	/* no SA_RESTART */
	struct timespec t0, t;
	int fd, one = 1, saved = 0;
	FILE *out;

	fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (fd < 0)
		ndp_die_errno("AF_PACKET socket");
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)))
		ndp_die_errno("bind to %s", ifname);
	setsockopt(fd, SOL_PACKET, PACKET_AUXDATA, &one, sizeof(one));
	out = ndp_pcap_create(file, REPLAY_SNAP);
	/* SIGINT/SIGTERM end the capture early; the file stays valid. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	fprintf(stderr, "capturing on %s\n", ifname);
	clock_gettime(CLOCK_MONOTONIC, &t0);

	while (saved < count && !replay_stop) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		struct sockaddr_ll from;
		struct iovec iov = { frame, sizeof(frame) };
		struct msghdr mh = {
			.msg_name = &from, .msg_namelen = sizeof(from),
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
		};
		struct replay_pkt p;
		struct cmsghdr *cm;
		bool csum_pending = false;
		int left_ms, n;

		clock_gettime(CLOCK_MONOTONIC, &t);
		left_ms = secs * 1000 - ((t.tv_sec - t0.tv_sec) * 1000 +
					 (t.tv_nsec - t0.tv_nsec) / 1000000);
		if (left_ms <= 0)
			break;
		if (poll(&pfd, 1, left_ms) <= 0)
			continue;
		n = recvmsg(fd, &mh, MSG_TRUNC);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ndp_die_errno("recvmsg");
		}
		if (n > (int)sizeof(frame))
			continue;	/* larger than any MTU we use */
		if (!strcmp(dir, "out") && from.sll_pkttype != PACKET_OUTGOING)
			continue;
		if (!strcmp(dir, "in") && from.sll_pkttype == PACKET_OUTGOING)
			continue;
		if (!replay_parse(frame, n, &p) || p.proto != proto)
			continue;
		if (!all && !replay_is_opener(frame, &p))
			continue;
		for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
			struct tpacket_auxdata aux;

			if (cm->cmsg_level != SOL_PACKET || cm->cmsg_type != PACKET_AUXDATA)
				continue;
			memcpy(&aux, CMSG_DATA(cm), sizeof(aux));
			csum_pending = aux.tp_status & TP_STATUS_CSUMNOTREADY;
		}
		if (csum_pending && proto == 6)
			replay_fix_tcp_csum(frame, &p);
		ndp_pcap_write(out, frame, n);
		saved++;
	}
	if (fclose(out))
		ndp_die_errno("%s", file);
	close(fd);
	printf("captured %d\n", saved);
	return 0;
}

/* Read the next record of a pcap file into @frame; returns its length. */
static int replay_read(FILE *in, uint8_t *frame)
{
	struct ndp_pcap_rec rec;

	if (fread(&rec, sizeof(rec), 1, in) != 1)
		return 0;
	if (rec.incl_len > REPLAY_SNAP || fread(frame, rec.incl_len, 1, in) != 1)
		ndp_die("truncated or corrupt capture file");
	return rec.incl_len;
}

static FILE *replay_open(const char *file)
{
	struct ndp_pcap_hdr gh;
	FILE *in;

	if (!file)
		ndp_die("-r FILE is required");
	in = fopen(file, "r");
	if (!in)
		ndp_die_errno("%s", file);
	if (fread(&gh, sizeof(gh), 1, in) != 1 || gh.magic != NDP_PCAP_MAGIC ||
	    gh.linktype != NDP_PCAP_ETHERNET)
		ndp_die("%s: not an Ethernet pcap file written by this tool", file);
	return in;
}

static int replay_inject(const char *ifname, const char *file, int gap_us)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_ifindex = replay_ifindex(ifname),
		.sll_halen = ETH_ALEN,
	};
	static uint8_t frame[REPLAY_SNAP];
	FILE *in = replay_open(file);
	int fd, n, sent = 0;

	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0)
		ndp_die_errno("AF_PACKET socket");
	while ((n = replay_read(in, frame)) > 0) {
		memcpy(sll.sll_addr, frame, ETH_ALEN);
		sll.sll_protocol = *(uint16_t *)(frame + 12);
		if (sendto(fd, frame, n, 0, (struct sockaddr *)&sll, sizeof(sll)) != n)
			ndp_die_errno("sendto");
		sent++;
		if (gap_us)
			usleep(gap_us);
	}
	fclose(in);
	close(fd);
	printf("injected %d\n", sent);
	return 0;
}

static int replay_show(const char *file)
{
	static uint8_t frame[REPLAY_SNAP];
	FILE *in = replay_open(file);
	struct replay_pkt p;
	int n, i = 0;

	while ((n = replay_read(in, frame)) > 0) {
		printf("%d len %d", ++i, n);
		if (replay_parse(frame, n, &p)) {
			const uint8_t *l4 = frame + p.l4off;

			printf(" ipv%d proto %d", p.family == AF_INET ? 4 : 6, p.proto);
			if (p.l4len >= 4)
				printf(" %d > %d", l4[0] << 8 | l4[1], l4[2] << 8 | l4[3]);
			if (p.proto != 6 && p.l4len >= (int)sizeof(struct ndphdr)) {
				struct ndphdr h;

				memcpy(&h, l4, sizeof(h));
				printf(" type %d flags 0x%x psn %u syn_off %u paylen %u nonce %08x",
				       h.type, ntohs(h.flags), ntohl(h.psn),
				       ntohl(h.syn_off), ntohs(h.paylen), ntohl(h.nonce));
			}
		}
		printf("\n");
	}
	fclose(in);
	return 0;
}

static void __attribute__((noreturn)) usage(void)
{
	fprintf(stderr,
		"usage: ndp_replay capture -i IF -w FILE [-p PROTO] [-d in|out|any] [-a] [-c COUNT] [-t SECS]\n"
		"       ndp_replay inject -i IF -r FILE [-g GAP_US]\n"
		"       ndp_replay show -r FILE\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *ifname = NULL, *wfile = NULL, *rfile = NULL, *dir = "any";
	int proto = IPPROTO_NDP, count = 64, secs = 10, gap = 0, c;
	bool all = false;
	char *mode;

	if (argc < 2)
		usage();
	mode = argv[1];
	optind = 2;
	while ((c = getopt(argc, argv, "i:w:r:p:d:ac:t:g:")) != -1) {
		switch (c) {
		case 'i':
			ifname = optarg;
			break;
		case 'w':
			wfile = optarg;
			break;
		case 'r':
			rfile = optarg;
			break;
		case 'p':
			proto = atoi(optarg);
			break;
		case 'd':
			dir = optarg;
			break;
		case 'a':
			all = true;
			break;
		case 'c':
			count = atoi(optarg);
			break;
		case 't':
			secs = atoi(optarg);
			break;
		case 'g':
			gap = atoi(optarg);
			break;
		default:
			usage();
		}
	}
	if (strcmp(dir, "in") && strcmp(dir, "out") && strcmp(dir, "any"))
		usage();
	if (!strcmp(mode, "capture")) {
		if (!wfile)
			usage();
		return replay_capture(ifname, wfile, proto, dir, all, count, secs);
	}
	if (!strcmp(mode, "inject"))
		return replay_inject(ifname, rfile, gap);
	if (!strcmp(mode, "show"))
		return replay_show(rfile);
	usage();
}
