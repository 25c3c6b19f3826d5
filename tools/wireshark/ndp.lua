-- SPDX-License-Identifier: GPL-2.0
--
-- Wireshark dissector for NDP (Documentation/networking/ndp-wire.rst):
-- IP protocol 253 (preference "ndpt.ipproto") or carried in UDP to a port
-- (preference "ndpt.udp_port", net.ndp.udp_port; 0: none), the 40-byte header, its
-- options (doff > 10) and the payload.  Every field and flag is decoded;
-- the header checksum (over the pseudo-header, in UDP without the
-- addresses, and the header), the
-- payload checksum and the checksum of an ACK option (an ACK riding on
-- DATA) are verified; trimmed and returned-to-sender packets
-- are marked; each connection (ports + nonce, both directions) gets a
-- stream index, "ndpt.stream".
--
--   tshark -X lua_script:tools/wireshark/ndp.lua -r capture.pcap
--   wireshark -X lua_script:tools/wireshark/ndp.lua capture.pcap
--
-- or copy this file to ~/.local/lib/wireshark/plugins/.

local ndp = Proto("ndpt", "NDP transport")

-- The header as include/uapi/linux/ndp.h defines it (struct ndphdr and its
-- constants, the one definition); tools/wire-check compares every value
-- below with that header, and the dissector reads the header only through
-- them (no literal offsets).
local NDP_HDR_WORDS = 10
local NDP_HDR_LEN = 40
local NDP_ACK_SPAN_MAX = 64
-- Options (kind, length, value; NDP_OPT_*).
local NDP_OPT_EOL = 0
local NDP_OPT_NOP = 1
local NDP_OPT_ROOM = 2
local NDP_OPT_ROOM_LEN = 4
local NDP_OPT_ACK = 3
local NDP_OPT_ACK_LEN = 16
local NDP_OPT_ACK_SPAN = 0x7f
local NDP_OPT_ACK_CE = 0x80
-- Each field of struct ndp_opt_ack (the whole option, kind first):
-- { byte offset from the option's kind byte, size }.
local ACK_OPT = {
	kind = { 0, 1 }, len = { 1, 1 }, csum = { 2, 2 }, psn = { 4, 4 },
	cum = { 8, 4 }, path = { 12, 1 }, acks = { 13, 1 }, delay = { 14, 2 },
}
-- Each field of struct ndphdr: { byte offset, size }.
local HDR = {
	source = { 0, 2 }, dest = { 2, 2 }, type = { 4, 1 }, doff = { 5, 1 },
	flags = { 6, 2 }, nonce = { 8, 4 }, psn = { 12, 4 }, syn_off = { 16, 4 },
	pull = { 20, 4 }, prio = { 24, 4 }, paylen = { 28, 2 }, path = { 30, 1 },
	detours = { 31, 1 }, hcsum = { 32, 2 }, pcsum = { 34, 2 },
	nsenders = { 36, 2 }, acks = { 38, 2 },
}

-- enum ndp_pkt_type
local PKT_DATA, PKT_ACK, PKT_NACK, PKT_PULL = 1, 2, 3, 4
local PKT_RST, PKT_CHALLENGE, PKT_TOKEN = 5, 6, 7

local types = {
	[PKT_DATA] = "DATA",
	[PKT_ACK] = "ACK",
	[PKT_NACK] = "NACK",
	[PKT_PULL] = "PULL",
	[PKT_RST] = "RST",
	[PKT_CHALLENGE] = "CHALLENGE",
	[PKT_TOKEN] = "TOKEN",
}

-- NDP_F_*
local F_SYN, F_LAST, F_TRIMMED, F_RTS = 0x0001, 0x0002, 0x0004, 0x0008
local F_UNSCHED, F_PULL, F_FIN, F_RTX = 0x0010, 0x0020, 0x0040, 0x0080
local F_PASSIVE, F_ECHO, F_TOKEN, F_DUP = 0x0100, 0x0200, 0x0400, 0x0800
local F_CE = 0x1000
local F_ALL = 0x1fff
local flag_names = {
	{ F_SYN, "SYN" }, { F_LAST, "LAST" }, { F_TRIMMED, "TRIMMED" },
	{ F_RTS, "RTS" }, { F_UNSCHED, "UNSCHED" }, { F_PULL, "PULL" },
	{ F_FIN, "FIN" }, { F_RTX, "RTX" }, { F_PASSIVE, "PASSIVE" },
	{ F_ECHO, "ECHO" }, { F_TOKEN, "TOKEN" },
	{ F_DUP, "DUP" }, { F_CE, "CE" },
}

local f = ndp.fields
f.sport = ProtoField.uint16("ndpt.srcport", "Source port", base.DEC)
f.dport = ProtoField.uint16("ndpt.dstport", "Destination port", base.DEC)
f.port = ProtoField.uint16("ndpt.port", "Port", base.DEC)
f.type = ProtoField.uint8("ndpt.type", "Type", base.DEC, types)
f.doff = ProtoField.uint8("ndpt.doff", "Header length (32-bit words)", base.DEC)
f.hdr_len = ProtoField.uint16("ndpt.hdr_len", "Header length (bytes)", base.DEC)
f.flags = ProtoField.uint16("ndpt.flags", "Flags", base.HEX)
f.f_syn = ProtoField.bool("ndpt.flags.syn", "SYN", 16, nil, F_SYN)
f.f_last = ProtoField.bool("ndpt.flags.last", "LAST", 16, nil, F_LAST)
f.f_trimmed = ProtoField.bool("ndpt.flags.trimmed", "TRIMMED", 16, nil, F_TRIMMED)
f.f_rts = ProtoField.bool("ndpt.flags.rts", "RTS (returned to sender)", 16, nil, F_RTS)
f.f_unsched = ProtoField.bool("ndpt.flags.unsched", "UNSCHED", 16, nil, F_UNSCHED)
f.f_pull = ProtoField.bool("ndpt.flags.pull", "PULL", 16, nil, F_PULL)
f.f_fin = ProtoField.bool("ndpt.flags.fin", "FIN", 16, nil, F_FIN)
f.f_rtx = ProtoField.bool("ndpt.flags.rtx", "RTX (retransmission)", 16, nil, F_RTX)
f.f_passive = ProtoField.bool("ndpt.flags.passive", "PASSIVE", 16, nil, F_PASSIVE)
f.f_echo = ProtoField.bool("ndpt.flags.echo", "ECHO (pull counter: echoed cookie)", 16, nil, F_ECHO)
f.f_token = ProtoField.bool("ndpt.flags.token", "TOKEN (pull counter: token)", 16, nil, F_TOKEN)
f.f_dup = ProtoField.bool("ndpt.flags.dup", "DUP (ACK of a duplicate)", 16, nil, F_DUP)
f.f_ce = ProtoField.bool("ndpt.flags.ce", "CE (the DATA reported arrived CE-marked)", 16, nil, F_CE)
f.f_undef = ProtoField.uint16("ndpt.flags.undefined", "Undefined bits", base.HEX,
			      nil, 0xffff - F_ALL)
f.nonce = ProtoField.uint32("ndpt.nonce", "Connection nonce", base.HEX)
f.psn = ProtoField.uint32("ndpt.psn", "Packet sequence number", base.DEC)
f.syn_off = ProtoField.uint32("ndpt.syn_offset", "SYN offset", base.DEC)
f.cum_ack = ProtoField.uint32("ndpt.cum_ack", "Cumulative ack", base.DEC)
f.word4 = ProtoField.uint32("ndpt.word4", "SYN offset / cumulative ack", base.DEC)
f.pull = ProtoField.uint32("ndpt.pull", "Pull counter (CHALLENGE, ECHO: cookie; TOKEN: token)", base.DEC)
f.ack_held = ProtoField.uint32("ndpt.ack_held", "ACK held (us)", base.DEC)
f.prio = ProtoField.uint32("ndpt.prio", "Priority (remaining bytes)", base.DEC)
f.paylen = ProtoField.uint16("ndpt.paylen", "Payload length", base.DEC)
f.path = ProtoField.uint8("ndpt.path", "Path id", base.DEC)
f.detours = ProtoField.uint8("ndpt.detours", "Detours", base.DEC)
f.hcsum = ProtoField.uint16("ndpt.hcsum", "Header checksum", base.HEX)
f.hcsum_status = ProtoField.string("ndpt.hcsum.status", "Header checksum status")
f.pcsum = ProtoField.uint16("ndpt.pcsum", "Payload checksum", base.HEX)
f.pcsum_status = ProtoField.string("ndpt.pcsum.status", "Payload checksum status")
f.nsenders = ProtoField.uint16("ndpt.nsenders", "Active senders", base.DEC)
f.acks = ProtoField.uint16("ndpt.acks", "ACK span (psns reported)", base.DEC)
f.ack_hold = ProtoField.uint16("ndpt.ack_hold", "ACK hold allowed (us)", base.DEC)
f.options = ProtoField.bytes("ndpt.options", "Options")
f.room = ProtoField.uint16("ndpt.room", "Receive room (packets)", base.DEC)
f.opt_ack = ProtoField.bytes("ndpt.opt_ack", "ACK option (an ACK riding on DATA)")
f.opt_ack_psn = ProtoField.uint32("ndpt.opt_ack.psn", "Packet sequence number acknowledged", base.DEC)
f.opt_ack_cum = ProtoField.uint32("ndpt.opt_ack.cum_ack", "Cumulative ack", base.DEC)
f.opt_ack_path = ProtoField.uint8("ndpt.opt_ack.path", "Path id", base.DEC)
f.opt_ack_span = ProtoField.uint8("ndpt.opt_ack.span", "ACK span (psns reported)", base.DEC,
				  nil, NDP_OPT_ACK_SPAN)
f.opt_ack_ce = ProtoField.bool("ndpt.opt_ack.ce", "CE (the DATA reported arrived CE-marked)", 8,
			       nil, NDP_OPT_ACK_CE)
f.opt_ack_delay = ProtoField.uint16("ndpt.opt_ack.delay", "ACK held (us)", base.DEC)
f.opt_ack_csum = ProtoField.uint16("ndpt.opt_ack.csum", "Option checksum", base.HEX)
f.opt_ack_csum_status = ProtoField.string("ndpt.opt_ack.csum.status", "Option checksum status")
f.payload = ProtoField.bytes("ndpt.payload", "Payload")
f.captured = ProtoField.uint32("ndpt.payload.captured", "Payload bytes present", base.DEC)
f.stream = ProtoField.uint32("ndpt.stream", "Stream index", base.DEC)

local e = ndp.experts
e.short = ProtoExpert.new("ndpt.short", "Packet shorter than the NDP header",
			  expert.group.MALFORMED, expert.severity.ERROR)
e.bad_type = ProtoExpert.new("ndpt.type.unknown", "Unknown packet type (dropped by receivers)",
			     expert.group.MALFORMED, expert.severity.ERROR)
e.bad_doff = ProtoExpert.new("ndpt.doff.bad", "Header length below 10 words (dropped by receivers)",
			     expert.group.MALFORMED, expert.severity.ERROR)
e.bad_flags = ProtoExpert.new("ndpt.flags.bad", "Undefined flags set (dropped by receivers)",
			      expert.group.MALFORMED, expert.severity.ERROR)
e.bad_hcsum = ProtoExpert.new("ndpt.hcsum.bad", "Bad header checksum",
			      expert.group.CHECKSUM, expert.severity.ERROR)
e.bad_pcsum = ProtoExpert.new("ndpt.pcsum.bad", "Bad payload checksum (NACKed as if trimmed)",
			      expert.group.CHECKSUM, expert.severity.WARN)
e.bad_opt_csum = ProtoExpert.new("ndpt.opt_ack.csum.bad", "Bad ACK option checksum (option ignored, InErrs)",
				 expert.group.CHECKSUM, expert.severity.ERROR)
e.bad_opt_span = ProtoExpert.new("ndpt.opt_ack.span.bad", "ACK option span not 1-64 (option ignored, InErrs)",
				 expert.group.MALFORMED, expert.severity.ERROR)
e.bad_len = ProtoExpert.new("ndpt.paylen.bad", "Payload length differs from the packet (dropped by receivers)",
			    expert.group.MALFORMED, expert.severity.ERROR)
e.trimmed = ProtoExpert.new("ndpt.trimmed", "Trimmed by a switch: payload cut",
			    expert.group.SEQUENCE, expert.severity.NOTE)
e.rts = ProtoExpert.new("ndpt.rts", "Returned to its sender by a switch",
			expert.group.SEQUENCE, expert.severity.NOTE)
e.rtx = ProtoExpert.new("ndpt.rtx", "Retransmission",
			expert.group.SEQUENCE, expert.severity.NOTE)

ndp.prefs.ipproto = Pref.uint("IP protocol number", 253,
			      "IP protocol number NDP runs on (the modules' ipproto=)")
ndp.prefs.udp_port = Pref.uint("UDP port", 0,
			       "UDP port NDP is carried in (net.ndp.udp_port; 0: none)")

local ip_src = Field.new("ip.src")
local ip_dst = Field.new("ip.dst")
local ip6_src = Field.new("ipv6.src")
local ip6_dst = Field.new("ipv6.dst")
local udp_sport = Field.new("udp.srcport")

-- The last value of a field: the innermost header when IP is tunnelled.
local function last(field)
	local all = { field() }
	return all[#all]
end

-- One's complement sum of a ByteArray, not folded.
local function sum16(ba, acc)
	local n = ba:len()
	for i = 0, n - 2, 2 do
		acc = acc + ba:get_index(i) * 256 + ba:get_index(i + 1)
	end
	if n % 2 == 1 then
		acc = acc + ba:get_index(n - 1) * 256
	end
	return acc
end

local function fold(acc)
	while acc > 0xffff do
		acc = bit32.band(acc, 0xffff) + bit32.rshift(acc, 16)
	end
	return acc
end

-- The pseudo-header of the header checksum (ndp-wire.rst): addresses,
-- protocol, length 40; as for TCP (IPv4) or RFC 8200 8.1 (IPv6).  NDP
-- carried in UDP (a UDP header after the IP header nearest to NDP) has
-- no addresses in it, only the protocol and the length, so that NATs
-- leave it valid.
local function pseudo_sum()
	local proto = ndp.prefs.ipproto
	local s4, d4 = last(ip_src), last(ip_dst)
	local s6, d6 = last(ip6_src), last(ip6_dst)
	local s, d = s4, d4
	-- With both, the header nearest to NDP (the one further in) counts.
	if s6 and d6 and (not s4 or s6.offset > s4.offset) then
		s, d = s6, d6
	end
	if not s or not d then return nil end
	local u = last(udp_sport)
	if u and u.offset > s.offset then return proto + NDP_HDR_LEN end
	return sum16(d.range:bytes(), sum16(s.range:bytes(), 0)) + proto + NDP_HDR_LEN
end

-- Streams: one index per (ports, nonce), whatever the direction.
local streams, next_stream = {}, 0

function ndp.init()
	streams, next_stream = {}, 0
end

local function stream_of(sport, dport, nonce)
	local a, b = sport, dport
	if a > b then a, b = b, a end
	local key = string.format("%d:%d:%08x", a, b, nonce)
	local s = streams[key]
	if s == nil then
		s = next_stream
		streams[key] = s
		next_stream = next_stream + 1
	end
	return s
end

-- The range of header field @name in @tvb.
local function fld(tvb, name)
	local o = HDR[name]
	return tvb(o[1], o[2])
end

-- The range of field @name of the ACK option whose kind byte is at @p.
local function ack_fld(tvb, p, name)
	local o = ACK_OPT[name]
	return tvb(p + o[1], o[2])
end

-- The ACK option (NDP_OPT_ACK_LEN bytes) at @p under options tree @ot: its
-- fields, and its checksum, which makes the option sum to zero (no
-- pseudo-header).  Returns the psn it acknowledges and whether a receiver
-- takes it (checksum right, span 1..NDP_ACK_SPAN_MAX).
local function dissect_opt_ack(tvb, p, ot)
	local at = ot:add(f.opt_ack, tvb(p, NDP_OPT_ACK_LEN))
	local arange = ack_fld(tvb, p, "acks")
	local psn = ack_fld(tvb, p, "psn"):uint()
	local span = bit32.band(arange:uint(), NDP_OPT_ACK_SPAN)
	at:add(f.opt_ack_psn, ack_fld(tvb, p, "psn"))
	at:add(f.opt_ack_cum, ack_fld(tvb, p, "cum"))
	at:add(f.opt_ack_path, ack_fld(tvb, p, "path"))
	local si = at:add(f.opt_ack_span, arange)
	local span_ok = span >= 1 and span <= NDP_ACK_SPAN_MAX
	if not span_ok then si:add_proto_expert_info(e.bad_opt_span) end
	at:add(f.opt_ack_ce, arange)
	at:add(f.opt_ack_delay, ack_fld(tvb, p, "delay"))
	local ci = at:add(f.opt_ack_csum, ack_fld(tvb, p, "csum"))
	local good = fold(sum16(tvb(p, NDP_OPT_ACK_LEN):bytes(), 0)) == 0xffff
	if good then
		ci:append_text(" [correct]")
		at:add(f.opt_ack_csum_status, ack_fld(tvb, p, "csum"), "Good"):set_generated()
	else
		ci:append_text(" [incorrect]")
		ci:add_proto_expert_info(e.bad_opt_csum)
		at:add(f.opt_ack_csum_status, ack_fld(tvb, p, "csum"), "Bad"):set_generated()
	end
	if good and span_ok then
		at:append_text(string.format(": psn %d, cum ack %d", psn,
					     ack_fld(tvb, p, "cum"):uint()))
	elseif good then
		at:append_text(" [bad span, ignored]")
	else
		at:append_text(" [bad checksum, ignored]")
	end
	return psn, good and span_ok
end

-- One NDP packet: @tvb holds it (and, for a frame's last packet,
-- whatever follows it).
local function dissect_one(tvb, pinfo, tree)
	local len = tvb:reported_length_remaining()
	pinfo.cols.protocol = "NDP"
	local t = tree:add(ndp, tvb(), "NDP transport")
	if len < NDP_HDR_LEN or tvb:len() < NDP_HDR_LEN then
		t:add_proto_expert_info(e.short)
		pinfo.cols.info = "Malformed: " .. len .. " bytes"
		return tvb:len()
	end

	local sport, dport = fld(tvb, "source"):uint(), fld(tvb, "dest"):uint()
	local ptype, doff = fld(tvb, "type"):uint(), fld(tvb, "doff"):uint()
	local flags = fld(tvb, "flags"):uint()
	local nonce, psn = fld(tvb, "nonce"):uint(), fld(tvb, "psn"):uint()
	local paylen = fld(tvb, "paylen"):uint()
	local hlen = doff * 4

	t:add(f.sport, fld(tvb, "source"))
	t:add(f.dport, fld(tvb, "dest"))
	t:add(f.port, fld(tvb, "source")):set_hidden()
	t:add(f.port, fld(tvb, "dest")):set_hidden()
	local ti = t:add(f.type, fld(tvb, "type"))
	if not types[ptype] then ti:add_proto_expert_info(e.bad_type) end
	ti = t:add(f.doff, fld(tvb, "doff"))
	t:add(f.hdr_len, fld(tvb, "doff"), hlen):set_generated()
	if doff < NDP_HDR_WORDS then ti:add_proto_expert_info(e.bad_doff) end

	local names = {}
	for _, fl in ipairs(flag_names) do
		if bit32.band(flags, fl[1]) ~= 0 then names[#names + 1] = fl[2] end
	end
	local frange = fld(tvb, "flags")
	local ft = t:add(f.flags, frange)
	ft:append_text(" (" .. (#names > 0 and table.concat(names, ", ") or "none") .. ")")
	ft:add(f.f_syn, frange)
	ft:add(f.f_last, frange)
	ft:add(f.f_trimmed, frange)
	ft:add(f.f_rts, frange)
	ft:add(f.f_unsched, frange)
	ft:add(f.f_pull, frange)
	ft:add(f.f_fin, frange)
	ft:add(f.f_rtx, frange)
	ft:add(f.f_passive, frange)
	ft:add(f.f_echo, frange)
	ft:add(f.f_token, frange)
	ft:add(f.f_dup, frange)
	ft:add(f.f_ce, frange)
	local fu = ft:add(f.f_undef, frange)
	if bit32.band(flags, 0xffff - F_ALL) ~= 0 then fu:add_proto_expert_info(e.bad_flags) end

	t:add(f.nonce, fld(tvb, "nonce"))
	t:add(f.psn, fld(tvb, "psn"))
	t:add(f.word4, fld(tvb, "syn_off")):set_hidden()
	if ptype == PKT_DATA then
		t:add(f.syn_off, fld(tvb, "syn_off"))
	else
		t:add(f.cum_ack, fld(tvb, "syn_off"))
	end
	-- An ACK without NDP_F_PULL: the microseconds the receiver held it.
	local held = ptype == PKT_ACK and bit32.band(flags, F_PULL) == 0
	if held then
		t:add(f.pull, fld(tvb, "pull")):set_hidden()
		t:add(f.ack_held, fld(tvb, "pull"))
	else
		t:add(f.pull, fld(tvb, "pull"))
	end
	t:add(f.prio, fld(tvb, "prio"))
	t:add(f.paylen, fld(tvb, "paylen"))
	t:add(f.path, fld(tvb, "path"))
	t:add(f.detours, fld(tvb, "detours"))

	-- Header checksum: pseudo-header + 40 bytes with the field as sent
	-- sums to 0xffff when right.
	local hc = t:add(f.hcsum, fld(tvb, "hcsum"))
	local ps = pseudo_sum()
	if ps then
		local s = fold(sum16(tvb(0, NDP_HDR_LEN):bytes(), ps))
		if s == 0xffff then
			hc:append_text(" [correct]")
			t:add(f.hcsum_status, fld(tvb, "hcsum"), "Good"):set_generated()
		else
			hc:append_text(" [incorrect]")
			hc:add_proto_expert_info(e.bad_hcsum)
			t:add(f.hcsum_status, fld(tvb, "hcsum"), "Bad"):set_generated()
		end
	end

	local pc = t:add(f.pcsum, fld(tvb, "pcsum"))
	t:add(f.nsenders, fld(tvb, "nsenders"))
	-- DATA: the microseconds the sender lets the receiver hold its ACK.
	if ptype == PKT_DATA then
		t:add(f.acks, fld(tvb, "acks")):set_hidden()
		t:add(f.ack_hold, fld(tvb, "acks"))
	else
		t:add(f.acks, fld(tvb, "acks"))
	end
	local opt_ack = nil
	if hlen > NDP_HDR_LEN and tvb:len() >= hlen then
		local ot = t:add(f.options, tvb(NDP_HDR_LEN, hlen - NDP_HDR_LEN))
		-- The walk of ndp_hdr_opt() (include/net/ndp_wire.h).
		local p = NDP_HDR_LEN
		while p < hlen do
			local kind = tvb(p, 1):uint()
			if kind == NDP_OPT_EOL then break end
			if kind == NDP_OPT_NOP then
				p = p + 1
			else
				if hlen - p < 2 then break end
				local olen = tvb(p + 1, 1):uint()
				if olen < 2 or olen > hlen - p then break end
				if kind == NDP_OPT_ROOM and olen == NDP_OPT_ROOM_LEN then
					ot:add(f.room, tvb(p + 2, 2))
				elseif kind == NDP_OPT_ACK and olen == NDP_OPT_ACK_LEN then
					local apsn, good = dissect_opt_ack(tvb, p, ot)
					if good then opt_ack = apsn end
				end
				p = p + olen
			end
		end
	end
	if hlen < NDP_HDR_LEN then hlen = NDP_HDR_LEN end

	local trimmed = bit32.band(flags, F_TRIMMED) ~= 0
	local have = len - hlen
	if have < 0 then have = 0 end
	if have > 0 then
		local cap = tvb:len() - hlen
		if cap > have then cap = have end
		if cap > 0 then
			t:add(f.payload, tvb(hlen, cap))
		end
		t:add(f.captured, have):set_generated()
	end

	-- Payload checksum: of the payload alone; not checked when trimmed.
	if ptype == PKT_DATA and not trimmed then
		if have ~= paylen then
			t:add_proto_expert_info(e.bad_len)
		elseif tvb:len() >= hlen + have then
			local want = fld(tvb, "pcsum"):uint()
			local got = 0
			if have > 0 then
				got = bit32.bxor(fold(sum16(tvb(hlen, have):bytes(), 0)), 0xffff)
			end
			-- 0x0000 and 0xffff are the same one's complement zero
			if got % 0xffff == want % 0xffff then
				pc:append_text(" [correct]")
				t:add(f.pcsum_status, fld(tvb, "pcsum"), "Good"):set_generated()
			else
				pc:append_text(string.format(" [incorrect, should be 0x%04x]", got))
				pc:add_proto_expert_info(e.bad_pcsum)
				t:add(f.pcsum_status, fld(tvb, "pcsum"), "Bad"):set_generated()
			end
		end
	end
	if trimmed then t:add_proto_expert_info(e.trimmed) end
	if bit32.band(flags, F_RTS) ~= 0 then t:add_proto_expert_info(e.rts) end
	if bit32.band(flags, F_RTX) ~= 0 then t:add_proto_expert_info(e.rtx) end

	t:add(f.stream, stream_of(sport, dport, nonce)):set_generated()

	t:append_text(string.format(", Src Port: %d, Dst Port: %d, %s, psn %d",
				    sport, dport, types[ptype] or ("type " .. ptype), psn))
	local info = string.format("%d \xe2\x86\x92 %d %s", sport, dport,
				   types[ptype] or ("Unknown type " .. ptype))
	if #names > 0 then info = info .. " [" .. table.concat(names, ", ") .. "]" end
	info = info .. string.format(" psn=%d nonce=0x%08x", psn, nonce)
	if ptype == PKT_DATA then
		info = info .. " len=" .. paylen
		local hold = fld(tvb, "acks"):uint()
		if hold ~= 0 then info = info .. " hold=" .. hold end
		if opt_ack then info = info .. " ack=" .. opt_ack end
	elseif held and fld(tvb, "pull"):uint() ~= 0 then
		info = info .. " held=" .. fld(tvb, "pull"):uint()
	elseif bit32.band(flags, F_PULL) ~= 0 or ptype == PKT_PULL then
		info = info .. " pull=" .. fld(tvb, "pull"):uint()
	end
	if ptype == PKT_CHALLENGE or bit32.band(flags, F_ECHO) ~= 0 then
		info = info .. " cookie=" .. fld(tvb, "pull"):uint()
	elseif ptype == PKT_TOKEN or bit32.band(flags, F_TOKEN) ~= 0 then
		info = info .. " token=" .. fld(tvb, "pull"):uint()
	end
	if fld(tvb, "path"):uint() ~= 0 then info = info .. " path=" .. fld(tvb, "path"):uint() end
	pinfo.cols.info = info
	pinfo.cols.src_port = sport
	pinfo.cols.dst_port = dport
	return tvb:len()
end

-- A frame may hold a batch: a sender's consecutive DATA packets back to
-- back, each behind its own header, as a capture on a veth (or lo) sees
-- them (net/ndp/offload.c).  Each header's paylen says where the next
-- one starts; every packet is dissected on its own.
function ndp.dissector(tvb, pinfo, tree)
	local total, off = tvb:reported_length_remaining(), 0
	while true do
		local rest = total - off
		local n = rest
		if rest >= NDP_HDR_LEN and tvb:len() >= off + NDP_HDR_LEN then
			local h = tvb(off, NDP_HDR_LEN):tvb()
			local hl = fld(h, "doff"):uint() * 4
			local pl = fld(h, "paylen"):uint()
			if hl < NDP_HDR_LEN then hl = NDP_HDR_LEN end
			if fld(h, "type"):uint() == PKT_DATA and
			   bit32.band(fld(h, "flags"):uint(), F_TRIMMED) == 0 and
			   rest > hl + pl and tvb:len() >= off + hl + pl then
				n = hl + pl
			end
		end
		if off == 0 and n == rest then
			return dissect_one(tvb, pinfo, tree)
		end
		if n == rest then
			dissect_one(tvb(off):tvb(), pinfo, tree)
			return tvb:len()
		end
		dissect_one(tvb(off, n):tvb(), pinfo, tree)
		off = off + n
	end
end

local registered, registered_udp = nil, nil

-- The header checksum's pseudo-header names ndpt.ipproto in both cases
-- (in UDP without the addresses).
local function ndp_register()
	local tbl = DissectorTable.get("ip.proto")
	if registered then tbl:remove(registered, ndp) end
	registered = ndp.prefs.ipproto
	tbl:add(registered, ndp)
	local udp = DissectorTable.get("udp.port")
	if registered_udp then udp:remove(registered_udp, ndp) end
	registered_udp = nil
	if ndp.prefs.udp_port ~= 0 then
		registered_udp = ndp.prefs.udp_port
		udp:add(registered_udp, ndp)
	end
end

ndp.prefs_changed = ndp_register
ndp_register()
