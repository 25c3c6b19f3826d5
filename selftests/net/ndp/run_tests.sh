#!/usr/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run NDP selftests (all, or those named) the way kselftest's runner does:
# TAP 13, one result line per test script with its own TAP output nested
# as comments, a per-test timeout from ./settings, and a summary line
# "N passed, N failed, N skipped".  Exit 0 only if nothing failed.
#
#   run_tests.sh [test.sh ...]
#
cd "$(dirname "$0")" || exit 1

timeout_s=$(sed -n 's/^timeout=//p' settings 2>/dev/null)
timeout_s=${timeout_s:-600}
# Scaled as lib.sh scales every wait: the debug and KCSAN kernels run
# several times slower (NDP_TIME_FACTOR, 4 there).  kselftest's own
# override, kselftest_override_timeout, wins.
if [ -z "${NDP_TIME_FACTOR:-}" ]; then
	case "$(uname -r)" in
	*-ndp-debug*|*-ndp-kcsan*) NDP_TIME_FACTOR=4 ;;
	*) NDP_TIME_FACTOR=1 ;;
	esac
fi
timeout_s=$((timeout_s * NDP_TIME_FACTOR))
timeout_s=${kselftest_override_timeout:-$timeout_s}

if [ $# -gt 0 ]; then
	tests=("$@")
else
	mapfile -t tests < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' TESTS)
fi

echo "TAP version 13"
echo "1..${#tests[@]}"
n=0 pass=0 fail=0 skip=0
for t in "${tests[@]}"; do
	n=$((n + 1))
	t=${t##*/}
	echo "# selftests: net/ndp: $t"
	start=$(date +%s)
	timeout -k 5 "$timeout_s" ./"$t" 2>&1 | sed -u 's/^/# /'
	rc=${PIPESTATUS[0]}
	secs=$(($(date +%s) - start))
	case $rc in
	0) pass=$((pass + 1)); echo "ok $n selftests: net/ndp: $t # ${secs}s" ;;
	4) skip=$((skip + 1)); echo "ok $n selftests: net/ndp: $t # SKIP" ;;
	124) fail=$((fail + 1)); echo "not ok $n selftests: net/ndp: $t # TIMEOUT ${timeout_s}s" ;;
	*) fail=$((fail + 1)); echo "not ok $n selftests: net/ndp: $t # exit=$rc" ;;
	esac
done
echo "# NDP-SUMMARY: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
