#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ndp.ko and sch_ndp.ko load and unload cleanly, many times; socket()
# autoloads ndp.ko; an open socket keeps the module busy; the ipproto
# parameter is validated.
. "$(dirname "$0")/lib.sh"

ndp_lib_require_cmd modprobe rmmod ndp_socktest
ndp_lib_plan 7

ndp_lib_at_exit "rmmod sch_ndp; rmmod ndp"
rmmod sch_ndp 2>/dev/null
rmmod ndp_diag 2>/dev/null
rmmod ndp 2>/dev/null

cycle()
{
	local i
	for i in $(seq 1 50); do
		modprobe ndp || return 1
		modprobe sch_ndp || return 1
		rmmod sch_ndp || return 1
		rmmod ndp || return 1
	done
	! grep -qE '^(ndp|sch_ndp) ' /proc/modules
}
ndp_lib_check "load and unload both modules 50 times" cycle

autoload()
{
	rmmod ndp 2>/dev/null
	ndp_socktest hold 0 >/dev/null && grep -q '^ndp ' /proc/modules
}
ndp_lib_check "socket(AF_INET, SOCK_NDP, 0) autoloads ndp.ko" autoload

busy()
{
	local pid rc
	modprobe ndp || return 1
	ndp_socktest hold 30 >/tmp/hold.out &
	pid=$!
	ndp_lib_wait 5000 grep -q holding /tmp/hold.out
	rmmod ndp 2>/dev/null
	rc=$?
	kill $pid; wait $pid 2>/dev/null
	[ $rc -ne 0 ] && grep -q '^ndp ' /proc/modules
}
ndp_lib_check "rmmod ndp is refused while a socket is open" busy

# The last reference goes when the socket is freed, which may follow the
# holder's exit by a moment: retry until then (at most 5 s, scaled).
ndp_lib_check "rmmod ndp succeeds once the socket is closed" \
	ndp_lib_wait 5000 rmmod ndp

bad_param()
{
	local p
	for p in 0 6 17 255 300; do
		if modprobe ndp ipproto=$p 2>/dev/null; then
			echo "ipproto=$p accepted"
			rmmod ndp
			return 1
		fi
	done
}
ndp_lib_check "ipproto=0/6/17/255/300 is refused" bad_param

other_proto()
{
	modprobe ndp ipproto=254 || return 1
	grep -q 254 /sys/module/ndp/parameters/ipproto || return 1
	rmmod ndp
}
ndp_lib_check "ipproto=254 loads and is reported" other_proto

ndp_lib_check "no kernel warnings" ndp_lib_dmesg_clean
ndp_lib_done
