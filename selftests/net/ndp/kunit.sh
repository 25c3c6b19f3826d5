#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the NDP KUnit suites (modules ndp_*_test.ko, built only against
# kernels with CONFIG_KUNIT, i.e. the debug kernel and its KCSAN flavour)
# and report each suite's result from debugfs.  On a kernel without KUnit
# this is not applicable: it skips, also in CI, except on the debug and
# KCSAN kernels where KUnit must exist.
. "$(dirname "$0")/lib.sh"

kunit=/sys/kernel/debug/kunit
mods=$(find /lib/modules/"$(uname -r)"/extra -name 'ndp_*_test.ko*' 2>/dev/null)
if [ ! -d "$kunit" ] || [ -z "$mods" ]; then
	case ${NDP_KERNEL:-} in
	debug|kcsan)
		ndp_lib_plan 1
		ndp_lib_fail "KUnit available on the $NDP_KERNEL kernel" \
			"no $kunit or no ndp_*_test modules"
		ndp_lib_done
		;;
	esac
	echo "TAP version 13"
	echo "1..0 # SKIP kernel without CONFIG_KUNIT: not applicable"
	exit $KSFT_SKIP
fi

ndp_lib_plan "$(echo "$mods" | wc -l)"
for m in $mods; do
	name=$(basename "$m"); name=${name%%.ko*}
	suite=${name%_test}
	rmmod "$name" 2>/dev/null
	if ! modprobe "$name"; then
		ndp_lib_fail "$name loads"
		continue
	fi
	res=$(cat "$kunit/$suite/results" 2>/dev/null)
	printf '%s\n' "$res" | sed 's/^/# /'
	rmmod "$name"
	if printf '%s\n' "$res" | grep -q '^ok [0-9]* '"$suite"'$'; then
		ndp_lib_pass "KUnit suite $suite"
	else
		ndp_lib_fail "KUnit suite $suite"
	fi
done
ndp_lib_done
