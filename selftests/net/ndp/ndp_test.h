/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal TAP 13 helpers for the NDP selftests' C programs (kselftest.h
 * is only in the kernel source tree, so the tests carry their own).
 */
#ifndef NDP_TEST_H
#define NDP_TEST_H

#include <stdarg.h>
#include <stdio.h>

#define KSFT_PASS	0
#define KSFT_FAIL	1
#define KSFT_SKIP	4

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static int ndp_test_n, ndp_test_nfail;

static inline void ndp_test_plan(int n)
{
	printf("TAP version 13\n1..%d\n", n);
	fflush(stdout);
}

static inline void __attribute__((format(printf, 2, 0)))
ndp_test_vresult(const char *status, const char *fmt, va_list ap)
{
	printf("%s %d - ", status, ++ndp_test_n);
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
}

static inline void __attribute__((format(printf, 1, 2)))
ndp_test_pass(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ndp_test_vresult("ok", fmt, ap);
	va_end(ap);
}

static inline void __attribute__((format(printf, 1, 2)))
ndp_test_fail(const char *fmt, ...)
{
	va_list ap;

	ndp_test_nfail++;
	va_start(ap, fmt);
	ndp_test_vresult("not ok", fmt, ap);
	va_end(ap);
}

static inline void __attribute__((format(printf, 2, 3)))
ndp_test_expect(int cond, const char *fmt, ...)
{
	va_list ap;

	if (!cond)
		ndp_test_nfail++;
	va_start(ap, fmt);
	ndp_test_vresult(cond ? "ok" : "not ok", fmt, ap);
	va_end(ap);
}

static inline int ndp_test_done(void)
{
	printf("# %d passed, %d failed\n", ndp_test_n - ndp_test_nfail,
	       ndp_test_nfail);
	return ndp_test_nfail ? KSFT_FAIL : KSFT_PASS;
}

#endif /* NDP_TEST_H */
