#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Shared helpers of the NDP selftests (source it), on the kernel's own
# selftest libraries: KTAP output through kselftest/ktap_helpers.sh and
# waits through net/lib.sh's loopy_wait (both copied from the linux-source
# tree by the Makefile, to ksft/).  What NDP needs beyond them is here:
# named checks, skips that CI counts as failures, namespaces and links,
# counters.  Functions are named ndp_lib_*; internal ones __ndp_lib_*.
# Every test script:
#
#   . "$(dirname "$0")/lib.sh"
#   ndp_lib_plan 3
#   ndp_lib_check "what it checks" command args...
#   ...
#   ndp_lib_done
#
# prints KTAP and exits 0 (all passed or skipped), 1 (a failure) or
# 4 (everything skipped).  With NDP_EXPECT_ALL=1 (set in CI) a skip counts
# as a failure, so a missing prerequisite cannot hide a feature.

NDP_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export PATH="$NDP_LIB_DIR:/ndp/bin:$PATH"

# __ndp_lib_ksft COPY PATH: a kernel selftest library, from ksft/ (the
# Makefile's copy, in the guest) or else from the kernel source tree
# (KSFT_DIR, as the Makefile's: a host script run before any build).
__ndp_lib_ksft()
{
	local f

	for f in "$NDP_LIB_DIR/ksft/$1" \
		 "${KSFT_DIR:-/var/cache/ndp/linux-source-6.12/tools/testing/selftests}/$2"; do
		if [ -r "$f" ]; then
			echo "$f"
			return 0
		fi
	done
	echo "# the kernel's $2 is missing (make; tools/install-deps)" >&2
	exit 1
}
__ndp_lib_ktap_sh=$(__ndp_lib_ksft ktap_helpers.sh kselftest/ktap_helpers.sh) || exit 1
__ndp_lib_net_sh=$(__ndp_lib_ksft net_lib.sh net/lib.sh) || exit 1
# shellcheck source=/dev/null
. "$__ndp_lib_ktap_sh"
# shellcheck source=/dev/null
. "$__ndp_lib_net_sh"

__ndp_lib_fail=0
__ndp_lib_names=" "
__ndp_lib_cleanups=()
__ndp_lib_header=

# ndp_lib_plan N: announce N test points.
ndp_lib_plan()
{
	ktap_print_header
	__ndp_lib_header=1
	ktap_set_plan "$1"
}

# __ndp_lib_ktap FUNC NAME: a KTAP test point.  ktap_helpers.sh echoes the
# name unquoted: no pathname expansion meanwhile ("*" in a name).
__ndp_lib_ktap()
{
	local noglob=0

	case $- in *f*) noglob=1 ;; esac
	set -f
	"$1" "$2"
	[ $noglob = 1 ] || set +f
}

__ndp_lib_name_check()
{
	case "$__ndp_lib_names" in
	*" $1 "*) echo "# duplicate test name: $1"; __ndp_lib_fail=$((__ndp_lib_fail + 1)) ;;
	esac
	__ndp_lib_names+="$1 "
}

# ndp_lib_pass NAME / ndp_lib_fail NAME [WHY] / ndp_lib_skip NAME WHY
ndp_lib_pass()
{
	__ndp_lib_name_check "${1// /_}"
	__ndp_lib_ktap ktap_test_pass "$1"
}

ndp_lib_fail()
{
	__ndp_lib_name_check "${1// /_}"
	__ndp_lib_ktap ktap_test_fail "$1"
	[ -n "${2:-}" ] && echo "# $2"
	return 0
}

ndp_lib_skip()
{
	if [ "${NDP_EXPECT_ALL:-0}" = 1 ]; then
		ndp_lib_fail "$1" "skipped but NDP_EXPECT_ALL=1: $2"
		return 0
	fi
	__ndp_lib_name_check "${1// /_}"
	echo "# $1: $2"
	__ndp_lib_ktap ktap_test_skip "$1"
}

# ndp_lib_check NAME CMD...: pass if CMD exits 0; its output is shown as
# TAP comments when it fails.
ndp_lib_check()
{
	local __name=$1 out rc
	shift
	out=$("$@" 2>&1 </dev/null)
	rc=$?
	if [ $rc -eq 0 ]; then
		ndp_lib_pass "$__name"
	else
		ndp_lib_fail "$__name" "command failed (rc=$rc): $*"
		[ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/#   /' | tail -n 30
	fi
	return 0
}

# ndp_lib_expect_err NAME TEXT... -- CMD...: pass if CMD fails and its
# output (standard error and output) holds every TEXT: an extack message,
# an errno's text; an empty TEXT matches anything.
ndp_lib_expect_err()
{
	local __name=$1 texts=() t out rc ok
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		texts+=("$1")
		shift
	done
	shift
	out=$("$@" 2>&1 </dev/null)
	rc=$?
	ok=$((rc != 0))
	for t in "${texts[@]}"; do
		[[ $out == *"$t"* ]] || ok=0
	done
	if [ $ok = 1 ]; then
		ndp_lib_pass "$__name"
	else
		ndp_lib_fail "$__name" "rc=$rc, wanted '${texts[*]}', got: $out"
	fi
}

# ndp_lib_expect_eq NAME EXPECTED ACTUAL
ndp_lib_expect_eq()
{
	if [ "$2" = "$3" ]; then
		ndp_lib_pass "$1"
	else
		ndp_lib_fail "$1" "expected '$2', got '$3'"
	fi
}

# ndp_lib_expect_le NAME MAX VALUE / ndp_lib_expect_ge NAME MIN VALUE:
# pass if the integer VALUE is at most MAX / at least MIN.
ndp_lib_expect_le()
{
	if [ "${3:-x}" -le "$2" ] 2>/dev/null; then
		ndp_lib_pass "$1"
		ndp_lib_info "$1: $3 (at most $2)"
	else
		ndp_lib_fail "$1" "got ${3:-?}, want at most $2"
	fi
}

ndp_lib_expect_ge()
{
	if [ "${3:-x}" -ge "$2" ] 2>/dev/null; then
		ndp_lib_pass "$1"
		ndp_lib_info "$1: $3 (at least $2)"
	else
		ndp_lib_fail "$1" "got ${3:-?}, want at least $2"
	fi
}

# ndp_lib_info TEXT: a TAP comment.
ndp_lib_info()
{
	echo "# $*"
}

# ndp_lib_done: print the summary comment and exit with the kselftest code.
ndp_lib_done()
{
	ktap_print_totals
	# A script that ended early (an error in its own code) reported
	# fewer points than it planned: a failure, not a pass.
	if [ "$KSFT_NUM_TESTS" != $((KTAP_TESTNO - 1)) ]; then
		echo "# planned $KSFT_NUM_TESTS test points, reported $((KTAP_TESTNO - 1))"
		exit "$KSFT_FAIL"
	fi
	if [ $((KTAP_CNT_FAIL + __ndp_lib_fail)) -gt 0 ]; then
		exit "$KSFT_FAIL"
	elif [ "$KTAP_CNT_PASS" -eq 0 ] && [ "$KTAP_CNT_SKIP" -gt 0 ]; then
		exit "$KSFT_SKIP"
	fi
	exit "$KSFT_PASS"
}

# ndp_lib_require_root / ndp_lib_require_cmd CMD...: skip the whole script.
ndp_lib_skip_all()
{
	ktap_print_header
	__ndp_lib_ktap ktap_skip_all "$*"
	[ "${NDP_EXPECT_ALL:-0}" = 1 ] && exit "$KSFT_FAIL"
	exit "$KSFT_SKIP"
}

# ndp_lib_fail_all MSG: what the script tests refused its setup (sch_ndp
# or ndp.ko options the project provides): the whole script fails ("Bail
# out!"), whether or not NDP_EXPECT_ALL is set.  A skip is only for what
# the environment lacks (a command, netem, cgroups).
ndp_lib_fail_all()
{
	[ -n "$__ndp_lib_header" ] || ktap_print_header
	__ndp_lib_ktap ktap_exit_fail_msg "$*"
}

# ndp_lib_source_tool NAME: source NAME, a shell library of the project's
# tools (tools/lib): beside the tests when installed by "make install",
# in the source tree, or in PATH (/ndp/bin in the guest).  A test that
# needs it cannot run without it: missing, it fails.
ndp_lib_source_tool()
{
	local d f

	# lib.sh's own directory (not the sourcing script's: any may source it)
	d=$(dirname "${BASH_SOURCE[0]}")
	for f in "$d/$1" "$d/../../../tools/lib/$1" "$(command -v "$1")"; do
		if [ -n "$f" ] && [ -r "$f" ]; then
			# shellcheck source=/dev/null
			. "$f"
			return 0
		fi
	done
	echo "# $1 not found (tools/lib; /ndp/bin in the guest)" >&2
	exit 1
}

ndp_lib_require_cmd()
{
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || ndp_lib_skip_all "missing command: $c"
	done
}

# ndp_lib_load_modules [ndp] [sch_ndp]: modprobe, skip if impossible.
ndp_lib_load_modules()
{
	local m
	for m in "$@"; do
		modprobe "$m" 2>/dev/null || ndp_lib_skip_all "cannot load module $m"
	done
}

# ndp_lib_at_exit CMD: run CMD (a string) on exit, last added first.
ndp_lib_at_exit()
{
	__ndp_lib_cleanups=("$1" "${__ndp_lib_cleanups[@]}")
}

__ndp_lib_cleanup()
{
	local c
	for c in "${__ndp_lib_cleanups[@]}"; do
		eval "$c" >/dev/null 2>&1
	done
	ndp_topo_cleanup
}
trap __ndp_lib_cleanup EXIT

# Namespaces, links and the pair and switch topologies: tools/lib, shared
# with the benchmarks (ndp_topo_ns_new, ndp_topo_link, ndp_topo_pair,
# ndp_topo_switch; their namespaces go with ndp_topo_cleanup above).
ndp_lib_source_tool ndp_topo.sh

# ndp_lib_tracefs: the tracefs directory (/sys/kernel/tracing, mounted if
# need be, or debugfs's tracing/); the caller checks that events/ exists.
ndp_lib_tracefs()
{
	local t=/sys/kernel/tracing

	if [ ! -d "$t/events" ]; then
		mount -t tracefs nodev "$t" 2>/dev/null ||
			mount -t debugfs nodev /sys/kernel/debug 2>/dev/null
		[ -d "$t/events" ] || t=/sys/kernel/debug/tracing
	fi
	echo "$t"
}

# ndp_lib_kprobe_add NAME FUNC: count the calls of kernel function FUNC
# (a kprobe event, enabled; its hits in kprobe_profile do not depend on
# the host's load).  Fails without kprobe events or if FUNC cannot be
# probed.  Removed at exit.  ndp_lib_kprobe_hits NAME: the count so far.
ndp_lib_kprobe_add()
{
	local t

	t=$(ndp_lib_tracefs)
	[ -w "$t/kprobe_events" ] || return 1
	echo "-:ndplib_$1" >>"$t/kprobe_events" 2>/dev/null
	echo "p:ndplib_$1 $2" >>"$t/kprobe_events" 2>/dev/null || return 1
	ndp_lib_at_exit "echo 0 >$t/events/kprobes/ndplib_$1/enable; echo -:ndplib_$1 >>$t/kprobe_events"
	echo 1 >"$t/events/kprobes/ndplib_$1/enable"
}

ndp_lib_kprobe_hits()
{
	awk -v n="ndplib_$1" '$1 == n { print $2 }' "$(ndp_lib_tracefs)/kprobe_profile"
}

# ndp_lib_module_busy MOD: why MOD cannot be unloaded, for a failed
# unload check: its reference count and holders, the namespaces and
# processes left (a socket of a leftover process pins ndp.ko), the NDP
# connections of the initial namespace and the enabled NDP trace events
# (an enabled event holds its module).
ndp_lib_module_busy()
{
	local t

	echo "$1: refcnt $(cat "/sys/module/$1/refcnt" 2>/dev/null)" \
		"holders: $(ls "/sys/module/$1/holders" 2>/dev/null | tr '\n' ' ')"
	echo "namespaces: $(ip netns list | tr '\n' ' ')"
	ps -eo pid,args | grep -v -e '\[' -e 'ps -eo' | tail -n 20
	# Not through sock_diag: that would load ndp_diag.ko, a holder.
	# /proc/net/protocols: this namespace's NDP sockets.
	awk '$1 == "NDP" || $1 == "NDPv6" { print $1 " sockets: " $3 }' /proc/net/protocols
	t=$(ndp_lib_tracefs)
	grep -l 1 "$t"/events/ndp/*/enable "$t"/events/sch_ndp/*/enable 2>/dev/null
	return 0
}

# ndp_lib_unload_ndp [NS...]: delete the namespaces NS (every socket in
# them goes) and unload ndp.ko, waiting up to 60 s (NDP_UNLOAD_WAIT_MS,
# scaled as every wait) for their sockets to be freed; ndp_diag.ko, which
# holds it once a sock_diag dump loaded it, goes first.  Fails, with
# ndp_lib_module_busy's report, when ndp.ko stays: a socket, a packet or a
# timer that kept a reference.  The caller loads ndp.ko again if more
# follows.
ndp_lib_unload_ndp()
{
	local ns ms=${NDP_UNLOAD_WAIT_MS:-60000}

	for ns in "$@"; do
		[ -n "$ns" ] && ip netns del "$ns" 2>/dev/null
	done
	rmmod ndp_diag 2>/dev/null
	ndp_lib_wait "$ms" rmmod ndp 2>/dev/null && return 0
	echo "rmmod ndp still refused $((ms * ${NDP_TIME_FACTOR:-1} / 1000)) s after the namespaces died:"
	ndp_lib_module_busy ndp
	return 1
}

# ndp_lib_conns NS: the NDP connections of NS as sock_diag lists them
# (ndpctl sockets, the dump ss uses): every connection in the namespace's
# table, opening, established or draining; not listeners, sockets that
# are only bound or closed, or time-wait records.  Prints -1 (and fails)
# when the dump fails, so that a "none left" check cannot pass on it.
ndp_lib_conns()
{
	local out

	out=$(ip netns exec "$1" ndpctl sockets) || { echo -1; return 1; }
	printf '%s\n' "$out" |
		awk '$1 != "LISTEN" && $1 != "TIME-WAIT" && $1 != "CLOSE" && NF' |
		wc -l
}

# ndp_lib_slab_objs: active objects of the NDP socket slabs, -1 without
# them.  SLUB counts every object of a slab held in a per-CPU (partial)
# list as active, freed or not, and how many slabs a CPU holds depends on
# the object size: shrinking the caches first flushes those lists, so the
# count is the sockets really allocated.
ndp_lib_slab_objs()
{
	local c

	for c in /sys/kernel/slab/NDP /sys/kernel/slab/NDPv6; do
		[ -w "$c/shrink" ] && echo 1 >"$c/shrink"
	done 2>/dev/null
	awk '$1 == "NDP" || $1 == "NDPv6" { n += $2; found = 1 }
	     END { if (found) print n + 0; else print -1 }' /proc/slabinfo 2>/dev/null
}

# ndp_lib_slab_kb: the kernel's slab memory in kB (/proc/meminfo).
ndp_lib_slab_kb()
{
	awk '$1 == "Slab:" { print $2 }' /proc/meminfo
}

# ndp_lib_peaks PID NS OUT: while process PID runs, the most connections
# NS had (ndp_lib_conns), NDP slab objects (ndp_lib_slab_objs) and slab
# kB (ndp_lib_slab_kb) so far, sampled every 0.5 s and written to OUT as
# "CONNS OBJS KB" after each sample.  Run it in the background beside
# what PID does (a flood); it ends with PID.
ndp_lib_peaks()
{
	local pid=$1 ns=$2 out=$3 c o k pc=0 po=0 pk=0

	echo "0 0 0" >"$out"
	while kill -0 "$pid" 2>/dev/null; do
		c=$(ndp_lib_conns "$ns") o=$(ndp_lib_slab_objs)
		k=$(ndp_lib_slab_kb)
		[ "$c" -gt $pc ] && pc=$c
		[ "$o" -gt $po ] && po=$o
		[ "$k" -gt $pk ] && pk=$k
		echo "$pc $po $pk" >"$out"
		sleep 0.5
	done
}

# ndp_lib_sockets NS: the same dump, for a test's diagnostics.
ndp_lib_sockets()
{
	ip netns exec "$1" ndpctl sockets 2>&1
}

# ndp_lib_stat NS NAME: value of counter NAME in /proc/net/ndp_stat of NS.
ndp_lib_stat()
{
	ip netns exec "$1" awk -v n="$2" '$1 == n { print $2 }' /proc/net/ndp_stat
}

# NDP_TIME_FACTOR: how many times slower than a plain kernel this one runs
# under TCG; every ndp_lib_wait* deadline is multiplied by it.  Default 4 on
# the "-ndp-debug" and "-ndp-kcsan" kernels (KASAN, lockdep, kmemleak or
# KCSAN: 3-4x slower), else 1.  Set it in the environment to override.
if [ -z "${NDP_TIME_FACTOR:-}" ]; then
	case "$(uname -r)" in
	*-ndp-debug*|*-ndp-kcsan*) NDP_TIME_FACTOR=4 ;;
	*) NDP_TIME_FACTOR=1 ;;
	esac
fi
export NDP_TIME_FACTOR

# __ndp_lib_now_ms: milliseconds since the epoch, without a fork where the
# shell has EPOCHREALTIME (bash 5).
__ndp_lib_now_ms()
{
	local t=${EPOCHREALTIME:-}

	if [ -n "$t" ]; then
		t=${t/[.,]/}
		echo $((10#$t / 1000))
	else
		date +%s%3N
	fi
}

# ndp_lib_wait TIMEOUT_MS CMD...: run CMD until it exits 0, every 0.1 s,
# for at most TIMEOUT_MS x NDP_TIME_FACTOR; CMD runs once more after the
# deadline, so a slow poll cannot miss it.  Returns 0 when CMD succeeded,
# 1 on timeout (with a TAP comment naming CMD).  CMD's standard output is
# that of its last run (the state the caller checks); it runs in a
# subshell, so it cannot set the caller's variables.  Use it in place of a
# fixed sleep before a check: the check then waits as long as the guest
# needs, and no longer.  Built on loopy_wait of the kernel's
# tools/testing/selftests/net/lib.sh.
ndp_lib_wait()
{
	local timeout_ms=$(($1 * ${NDP_TIME_FACTOR:-1})) out rc
	shift

	out=$(loopy_wait "sleep 0.1" "$timeout_ms" "$@")
	rc=$?
	printf '%s' "$out"
	[ -n "$out" ] && echo
	[ $rc = 0 ] && return 0
	echo "# timed out after ${timeout_ms} ms waiting for: $*" >&2
	return 1
}

# __ndp_lib_stat_sum NAME[,NAME...]: the sum of those counters in this
# namespace's /proc/net/ndp_stat (0 for a counter the kernel lacks).
__ndp_lib_stat_sum()
{
	awk -v l="$1" '
		BEGIN { n = split(l, w, ","); for (i = 1; i <= n; i++) x[w[i]] = 1 }
		$1 in x { s += $2 }
		END { print s + 0 }' /proc/net/ndp_stat
}

# ndp_lib_stat_sum NS NAME[,NAME...]: the same, in namespace NS.
ndp_lib_stat_sum()
{
	ip netns exec "$1" bash -c "$(declare -f __ndp_lib_stat_sum)"'
		__ndp_lib_stat_sum "$1"' _ "$2"
}

# __ndp_lib_stat_poll NAME[,NAME...] MIN MS: in the namespace, until the
# sum is at least MIN or MS have passed.
__ndp_lib_stat_poll()
{
	local end=$(($(__ndp_lib_now_ms) + $3))

	while :; do
		[ "$(__ndp_lib_stat_sum "$1")" -ge "$2" ] && return 0
		[ "$(__ndp_lib_now_ms)" -ge $end ] && return 1
		sleep 0.05
	done
}

# ndp_lib_wait_stat NS NAME[,NAME...] MIN TIMEOUT_MS: wait until counter
# NAME of NS, or the sum of the names listed, is at least MIN; at most
# TIMEOUT_MS x NDP_TIME_FACTOR (return 1 then, with a TAP comment).  The
# caller reads the counter before the event it waits for and passes that
# value plus the increase it expects.  It polls inside NS (one "ip netns
# exec", every 0.05 s), so it sees a counter move soon enough to act
# mid-transfer.
ndp_lib_wait_stat()
{
	local ms=$(($4 * ${NDP_TIME_FACTOR:-1}))

	ip netns exec "$1" bash -c "$(declare -f __ndp_lib_now_ms \
		__ndp_lib_stat_sum __ndp_lib_stat_poll)"'
		__ndp_lib_stat_poll "$@"' _ "$2" "$3" "$ms" && return 0
	echo "# timed out after $ms ms waiting for $2 >= $3 in ${1%%-*}" >&2
	return 1
}

# ndp_lib_links_up NS...: every link but lo of those namespaces is up
# with a carrier (operstate UP) and has its qdisc: the kernel attaches it
# (dev_activate) from the link-watch work, up to a second after "ip link
# set up"; until then the noop qdisc drops what is sent.  For
# "ndp_lib_wait MS ndp_lib_links_up ..." after building a topology.
ndp_lib_links_up()
{
	local ns

	for ns in "$@"; do
		ip -n "$ns" -o link show | awk '$2 != "lo:" &&
			(!/ state UP / || / qdisc noop /) { bad = 1 }
			END { exit bad }' || return 1
	done
}

# ndp_lib_dmesg_clean: fail if the kernel log shows a splat (the VM
# runner checks too; this pins it to the test that caused it).
ndp_lib_dmesg_clean()
{
	! dmesg | grep -E 'BUG:|WARNING:|Oops|KASAN|refcount_t:|list_(add|del) corruption'
}
