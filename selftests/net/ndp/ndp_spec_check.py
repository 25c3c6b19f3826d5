#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Check the "ndp" generic netlink family against its YNL spec.

  ndp_spec_check.py SPEC HEADER           spec vs the UAPI header
  ndp_spec_check.py SPEC HEADER --kernel  ... and vs the running kernel:
                                          per-command policies (types,
                                          ranges, lengths), permission
                                          flags, do/dump, multicast groups,
                                          strict rejection of unknown
                                          attributes

Stdlib only.  The YAML reader understands the subset the spec uses: block
mappings and sequences ("-" alone on a line, then the item's keys),
scalars, [flow, lists] and "|" blocks.  Prints one line per mismatch and
exits 1 if there was any.
"""

import errno
import os
import re
import socket
import struct
import sys


# ---------------------------------------------------------------------------
# A small YAML subset reader.

def _scalar(v):
    v = v.strip()
    if v.startswith('[') and v.endswith(']'):
        inner = v[1:-1].strip()
        return [_scalar(x) for x in inner.split(',')] if inner else []
    if v in ('true', 'false'):
        return v == 'true'
    if re.fullmatch(r'-?\d+', v):
        return int(v)
    if len(v) >= 2 and v[0] == v[-1] and v[0] in '"\'':
        return v[1:-1]
    return v


def _lines(text):
    out = []
    for raw in text.splitlines():
        s = raw.rstrip()
        if not s.strip() or s.lstrip().startswith('#'):
            out.append((None, raw))
            continue
        out.append((len(s) - len(s.lstrip()), s.strip()))
    return out


def yaml_load(text):
    lines = _lines(text)
    pos = [0]

    def skip_blank():
        while pos[0] < len(lines) and lines[pos[0]][0] is None:
            pos[0] += 1

    def block(indent):
        skip_blank()
        if pos[0] >= len(lines):
            return None
        ind, s = lines[pos[0]]
        if s.startswith('-'):
            return seq(ind)
        return mapping(ind)

    def seq(indent):
        items = []
        while True:
            skip_blank()
            if pos[0] >= len(lines):
                return items
            ind, s = lines[pos[0]]
            if ind != indent or not s.startswith('-'):
                return items
            rest = s[1:].strip()
            pos[0] += 1
            if rest:
                items.append(_scalar(rest))
            else:
                items.append(block(indent + 1))

    def mapping(indent):
        d = {}
        while True:
            skip_blank()
            if pos[0] >= len(lines):
                return d
            ind, s = lines[pos[0]]
            if ind != indent or s.startswith('-'):
                return d
            key, _, val = s.partition(':')
            val = val.strip()
            pos[0] += 1
            if val == '|':
                buf = []
                while pos[0] < len(lines) and (lines[pos[0]][0] is None or
                                               lines[pos[0]][0] > indent):
                    buf.append(lines[pos[0]][1].strip())
                    pos[0] += 1
                d[key] = '\n'.join(buf)
            elif val:
                d[key] = _scalar(val)
            else:
                skip_blank()
                if pos[0] < len(lines) and lines[pos[0]][0] >= indent and \
                   (lines[pos[0]][0] > indent or lines[pos[0]][1].startswith('-')):
                    d[key] = block(lines[pos[0]][0])
                else:
                    d[key] = None

    return block(0)


# ---------------------------------------------------------------------------

errors = []


def err(msg):
    errors.append(msg)
    print('MISMATCH: ' + msg)


def c_name(prefix, name):
    return (prefix + name).upper().replace('-', '_')


def header_enums(path):
    """NAME -> value for every enumerator of the header's enums."""
    vals = {}
    text = open(path).read()
    text = re.sub(r'/\*.*?\*/', '', text, flags=re.S)
    for body in re.findall(r'enum\s*\w*\s*\{(.*?)\}', text, flags=re.S):
        n = 0
        for ent in body.split(','):
            ent = ent.strip()
            if not ent:
                continue
            m = re.fullmatch(r'(\w+)\s*(?:=\s*(\d+))?', ent)
            if not m:
                continue
            if m.group(2):
                n = int(m.group(2))
            vals[m.group(1)] = n
            n += 1
    for m in re.finditer(r'#define\s+(NDP_\w+)\s+(\d+)\s*$', text, flags=re.M):
        vals[m.group(1)] = int(m.group(2))
    return vals


def spec_values(spec):
    """Expected C names and values, from the spec's order."""
    exp = {}
    sets = {}
    for aset in spec['attribute-sets']:
        attrs = {}
        for i, a in enumerate(aset['attributes'], 1):
            attrs[a['name']] = (i, a)
            exp[c_name(aset['name-prefix'], a['name'])] = i
        sets[aset['name']] = attrs
    ops = {}
    prefix = spec['operations']['name-prefix']
    for i, op in enumerate(spec['operations']['list'], 1):
        ops[op['name']] = (i, op)
        exp[c_name(prefix, op['name'])] = i
    for d in spec.get('definitions', []):
        if d['type'] == 'const':
            exp[c_name('ndp-', d['name'])] = d['value']
        elif d['type'] == 'enum':
            for i, e in enumerate(d['entries']):
                exp[c_name('ndp-' + d['name'] + '-', e)] = i
    return exp, sets, ops


def check_header(exp, hdr):
    for name, val in exp.items():
        if name not in hdr:
            err('%s: in the spec, not in the header' % name)
        elif hdr[name] != val:
            err('%s: spec says %d, header %d' % (name, val, hdr[name]))


# ---------------------------------------------------------------------------
# Generic netlink, raw.

NETLINK_GENERIC = 16
GENL_ID_CTRL = 16
CTRL_CMD_GETFAMILY, CTRL_CMD_GETPOLICY = 3, 10
CTRL_ATTR_FAMILY_ID, CTRL_ATTR_FAMILY_NAME = 1, 2
CTRL_ATTR_OPS, CTRL_ATTR_MCAST_GROUPS = 6, 7
CTRL_ATTR_POLICY, CTRL_ATTR_OP_POLICY = 8, 9
CTRL_ATTR_OP_ID, CTRL_ATTR_OP_FLAGS = 1, 2
CTRL_ATTR_MCAST_GRP_NAME = 1
NLM_F_REQUEST, NLM_F_ACK, NLM_F_DUMP = 1, 4, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
GENL_ADMIN_PERM, GENL_CMD_CAP_DO, GENL_CMD_CAP_DUMP = 0x1, 0x2, 0x4
GENL_UNS_ADMIN_PERM = 0x10

NL_TYPES = {2: 'u8', 3: 'u16', 4: 'u32', 5: 'u64', 10: 'binary',
            11: 'string', 12: 'string', 13: 'nest', 1: 'flag'}
NL_POLICY_TYPE_ATTR_TYPE = 1
NL_POLICY_TYPE_ATTR_MIN_VALUE_U, NL_POLICY_TYPE_ATTR_MAX_VALUE_U = 4, 5
NL_POLICY_TYPE_ATTR_MAX_LENGTH = 7
TYPE_MAX = {'u8': 0xff, 'u16': 0xffff, 'u32': 0xffffffff,
            'u64': 0xffffffffffffffff}


def attrs(buf):
    out = []
    off = 0
    while off + 4 <= len(buf):
        ln, typ = struct.unpack_from('HH', buf, off)
        if ln < 4:
            break
        out.append((typ & 0x3fff, buf[off + 4:off + ln]))
        off += (ln + 3) & ~3
    return out


def attr(typ, payload):
    a = struct.pack('HH', 4 + len(payload), typ) + payload
    return a + b'\0' * ((4 - len(a) % 4) % 4)


class Genl:
    def __init__(self):
        self.s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                               NETLINK_GENERIC)
        self.s.bind((0, 0))
        self.s.setsockopt(270, 11, 1)   # SOL_NETLINK, NETLINK_EXT_ACK
        self.seq = 0

    def talk(self, fam, cmd, payload=b'', flags=0):
        """Returns (error, [genl payloads])."""
        self.seq += 1
        body = struct.pack('BBH', cmd, 1, 0) + payload
        msg = struct.pack('IHHII', 16 + len(body), fam,
                          NLM_F_REQUEST | NLM_F_ACK | flags, self.seq, 0) + body
        self.s.send(msg)
        replies = []
        while True:
            data = self.s.recv(1 << 16)
            off = 0
            while off + 16 <= len(data):
                ln, typ, _, seq, _ = struct.unpack_from('IHHII', data, off)
                part = data[off + 16:off + ln]
                off += (ln + 3) & ~3
                if seq != self.seq:
                    continue
                if typ == NLMSG_ERROR:
                    return -struct.unpack_from('i', part)[0], replies
                if typ == NLMSG_DONE:   # a dump ends here, no ACK
                    return -struct.unpack_from('i', part)[0], replies
                replies.append(part[4:])


def check_kernel(spec, sets, ops):
    g = Genl()
    e, rep = g.talk(GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
                    attr(CTRL_ATTR_FAMILY_NAME, b'ndp\0'))
    if e:
        err('family "ndp" not registered: %s' % os.strerror(e))
        return
    fam = None
    kops, groups = {}, set()
    for typ, val in attrs(rep[0]):
        if typ == CTRL_ATTR_FAMILY_ID:
            fam = struct.unpack('H', val[:2])[0]
        elif typ == CTRL_ATTR_OPS:
            for _, op in attrs(val):
                d = dict(attrs(op))
                kops[struct.unpack('I', d[CTRL_ATTR_OP_ID])[0]] = \
                    struct.unpack('I', d[CTRL_ATTR_OP_FLAGS])[0]
        elif typ == CTRL_ATTR_MCAST_GROUPS:
            for _, grp in attrs(val):
                d = dict(attrs(grp))
                groups.add(d[CTRL_ATTR_MCAST_GRP_NAME].rstrip(b'\0').decode())

    for grp in spec['mcast-groups']['list']:
        if grp['name'] not in groups:
            err('multicast group %s missing in the kernel' % grp['name'])
    for grp in groups - {x['name'] for x in spec['mcast-groups']['list']}:
        err('kernel multicast group %s not in the spec' % grp)

    # Per-command policies.
    e, rep = g.talk(GENL_ID_CTRL, CTRL_CMD_GETPOLICY,
                    attr(CTRL_ATTR_FAMILY_NAME, b'ndp\0'), NLM_F_DUMP)
    if e:
        err('policy dump failed: %s' % os.strerror(e))
        return
    oppol = {}        # cmd -> {1: do idx, 2: dump idx}
    policies = {}     # idx -> {attr type: {policy attr: value}}
    for msg in rep:
        for typ, val in attrs(msg):
            if typ == CTRL_ATTR_OP_POLICY:
                for cmd, inner in attrs(val):
                    oppol[cmd] = {k: struct.unpack('I', v)[0]
                                  for k, v in attrs(inner)}
            elif typ == CTRL_ATTR_POLICY:
                for idx, inner in attrs(val):
                    for atype, props in attrs(inner):
                        policies.setdefault(idx, {})[atype] = dict(
                            (k, v) for k, v in attrs(props))

    aset = sets['ndp']
    byid = {i: (n, a) for n, (i, a) in aset.items()}
    for name, (cmd, op) in ops.items():
        if 'event' in op and 'do' not in op and 'dump' not in op:
            if cmd in kops:
                err('%s: event-only in the spec, a command in the kernel' % name)
            continue
        if cmd not in kops:
            err('%s (%d): not a kernel command' % (name, cmd))
            continue
        flags = kops[cmd]
        want_perm = 'uns-admin-perm' in (op.get('flags') or [])
        if bool(flags & GENL_UNS_ADMIN_PERM) != want_perm:
            err('%s: uns-admin-perm %s in the spec, flags 0x%x in the kernel' %
                (name, want_perm, flags))
        if flags & GENL_ADMIN_PERM:
            err('%s: kernel uses GENL_ADMIN_PERM (init netns only)' % name)
        for kind, cap, key in (('do', GENL_CMD_CAP_DO, 1),
                               ('dump', GENL_CMD_CAP_DUMP, 2)):
            if bool(flags & cap) != (kind in op):
                err('%s: %s %s in the spec, not in the kernel' %
                    (name, kind, 'present' if kind in op else 'absent'))
            if kind not in op:
                continue
            req = ((op[kind] or {}).get('request') or {}).get('attributes') or []
            pol = policies.get(oppol.get(cmd, {}).get(key), {})
            kernel_ids = set(pol)
            spec_ids = {aset[a][0] for a in req}
            for aid in sorted(kernel_ids - spec_ids):
                err('%s %s: kernel accepts attribute %d, spec does not' %
                    (name, kind, aid))
            for aid in sorted(spec_ids - kernel_ids):
                err('%s %s: spec lists %s, kernel policy rejects it' %
                    (name, kind, byid[aid][0]))
            for aid in sorted(spec_ids & kernel_ids):
                check_attr(name, kind, byid[aid][0], byid[aid][1], pol[aid])

    # Strict validation: an attribute the command does not take fails.
    bogus = attr(aset['pad'][0], struct.pack('I', 1))
    for name, cmd, flags in (('counters-get', ops['counters-get'][0], 0),
                             ('path-get', ops['path-get'][0], 0),
                             ('sock-get', ops['sock-get'][0], NLM_F_DUMP)):
        e, _ = g.talk(fam, cmd, bogus, flags)
        if e != errno.EINVAL:
            err('%s with a stray attribute: %s, expected EINVAL' %
                (name, os.strerror(e) if e else 'accepted'))


def check_attr(op, kind, name, spec_attr, props):
    def u(k):
        v = props.get(k)
        if v is None:
            return None
        return struct.unpack('Q' if len(v) == 8 else 'I', v)[0]

    ktype = NL_TYPES.get(u(NL_POLICY_TYPE_ATTR_TYPE), '?')
    stype = spec_attr['type']
    where = '%s %s %s' % (op, kind, name)
    if ktype != stype:
        err('%s: type %s in the spec, %s in the kernel' % (where, stype, ktype))
        return
    checks = spec_attr.get('checks') or {}
    if stype in TYPE_MAX:
        lo = checks.get('min', 0)
        hi = checks.get('max', TYPE_MAX[stype])
        if isinstance(hi, str):
            hi = {'path-id-max': 255}.get(hi, hi)
        klo = u(NL_POLICY_TYPE_ATTR_MIN_VALUE_U)
        khi = u(NL_POLICY_TYPE_ATTR_MAX_VALUE_U)
        if (klo, khi) != (lo, hi):
            err('%s: range [%s, %s] in the spec, [%s, %s] in the kernel' %
                (where, lo, hi, klo, khi))
    if stype in ('binary', 'string') and 'max-len' in checks:
        kmax = u(NL_POLICY_TYPE_ATTR_MAX_LENGTH)
        if kmax != checks['max-len']:
            err('%s: max-len %s in the spec, %s in the kernel' %
                (where, checks['max-len'], kmax))


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    spec = yaml_load(open(sys.argv[1]).read())
    exp, sets, ops = spec_values(spec)
    check_header(exp, header_enums(sys.argv[2]))
    if '--kernel' in sys.argv[3:]:
        check_kernel(spec, sets, ops)
    print('%d mismatches (%d names checked against the header)' %
          (len(errors), len(exp)))
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
