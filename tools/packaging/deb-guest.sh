#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deb-guest.sh VERSION: runs in the fresh VM image of deb-vm-test, where
# ndp-tools was installed by dpkg and ndp-dkms's modules were built by its
# postinst; nothing else of the project is there.  Prints one "ok" or
# "not ok" line per check; exits 1 if any failed.
echo "deb-guest: ndp ${1:-?} packages on $(uname -r)"
rc=0
check() {	# check NAME COMMAND...
	local name=$1

	shift
	if "$@" >/tmp/check.out 2>&1; then
		echo "ok - $name"
	else
		echo "not ok - $name"
		sed 's/^/#   /' /tmp/check.out | head -n 20
		rc=1
	fi
}
krel=$(uname -r)
stat() { awk -v k="$1" '$1 == k { print $2 }' /proc/net/ndp_stat; }

check "no project files in the image (tools, selftests, modules in extra/)" \
	bash -c "find /ndp/bin /ndp/selftests /lib/modules/$krel/extra -mindepth 1 |
		 grep . && exit 1; exit 0"
check "ndp, ndp_diag, sch_ndp are DKMS's, in updates/dkms of $krel" \
	bash -c "for m in ndp ndp_diag sch_ndp; do
			modinfo -n \$m | grep -q '^/lib/modules/$krel/updates/dkms/' || exit 1
		 done"
check "modprobe ndp" modprobe ndp
check "packaged ndpctl is /usr/sbin/ndpctl" bash -c '[ "$(command -v ndpctl)" = /usr/sbin/ndpctl ]'
check "ndpctl param show (generic netlink of the loaded module)" \
	bash -c 'ndpctl param show | grep -q time_wait_ms'

# A small transfer: unmodified nc under the packaged ndpize.
if command -v nc >/dev/null; then
	in0=$(stat InData)
	ndpize run nc -l 127.0.0.1 5000 >/tmp/rx 2>/tmp/rx.err &
	srv=$!
	for _ in $(seq 100); do
		ndpctl sockets 2>/dev/null | grep -q '^LISTEN 127\.0\.0\.1:5000 ' && break
		sleep 0.2
	done
	check "ndpctl sockets lists the NDP listener (ndp_diag autoloaded)" \
		bash -c "ndpctl sockets | grep -q '^LISTEN 127\.0\.0\.1:5000 ' &&
			 grep -q '^ndp_diag ' /proc/modules"
	seq 1 20000 >/tmp/tx
	check "ndpize nc: 108894 bytes over NDP" \
		timeout 60 ndpize run nc -N 127.0.0.1 5000 </tmp/tx
	timeout 60 bash -c "while kill -0 $srv 2>/dev/null; do sleep 0.2; done"
	kill "$srv" 2>/dev/null
	check "received intact" cmp /tmp/tx /tmp/rx
	check "NDP counters moved (InData)" \
		bash -c "[ \$(awk '\$1 == \"InData\" { print \$2 }' /proc/net/ndp_stat) -gt ${in0:-0} ]"
else
	echo "ok - small transfer # SKIP no nc in the image"
fi

check "packaged tc plugin: tc qdisc add ... ndp (sch_ndp autoloaded)" \
	tc qdisc add dev lo root ndp limit 16 rate 1gbit
check "tc shows the sch_ndp options and xstats" \
	bash -c 'tc -s qdisc show dev lo | grep -q "qdisc ndp .*limit 16p" &&
		 tc -s qdisc show dev lo | grep -q "trimmed arrival"'
tc qdisc del dev lo root 2>/dev/null
check "man pages ndp(7), tc-ndp(8), ndpctl(8), ndpize(8)" \
	ls /usr/share/man/man7/ndp.7.gz /usr/share/man/man8/tc-ndp.8.gz \
	   /usr/share/man/man8/ndpctl.8.gz /usr/share/man/man8/ndpize.8.gz
check "UAPI headers" ls /usr/include/linux/ndp.h /usr/include/linux/ndp_sched.h
exit $rc
