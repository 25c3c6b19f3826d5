/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The NDP selftests' C programs report through the kernel's kselftest.h
 * (tools/testing/selftests of the linux-source tree the project unpacks;
 * the Makefile's KSFT_DIR).  What they add to it:
 */
#ifndef NDP_TEST_H
#define NDP_TEST_H

#include "kselftest.h"

/*
 * The counts, and the status a test function returns to main(): some
 * programs run one of several tests per invocation and return early.
 */
static inline int ndp_test_done(void)
{
	ksft_print_cnts();
	return ksft_get_fail_cnt() ? KSFT_FAIL : KSFT_PASS;
}

#endif /* NDP_TEST_H */
