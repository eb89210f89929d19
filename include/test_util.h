/* SPDX-License-Identifier: GPL-2.0 */
/* Host-side assertions, skips and usage errors shared by every binary. */
#ifndef KMP_TEST_UTIL_H
#define KMP_TEST_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "kselftest.h"

/* Exit code for bad command-line input: distinct from a failed measurement. */
#define KMP_EXIT_USAGE 2

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif
#define ALIGN_UP(x, a) (((x) + (a) - 1) & ~((__typeof__(x))(a) - 1))
#define ALIGN_DOWN(x, a) ((x) & ~((__typeof__(x))(a) - 1))
#define IS_ALIGNED(x, a) (((x) & ((__typeof__(x))(a) - 1)) == 0)
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))
#define SZ_4K (1ULL << 12)
#define SZ_64K (1ULL << 16)
#define SZ_2M (1ULL << 21)
#define SZ_1G (1ULL << 30)

void __attribute__((noreturn, format(printf, 4, 5)))
__test_assert_fail(const char *file, int line, const char *expr, const char *fmt, ...);

/* Fail the test (exit KSFT_FAIL) with file, line, the condition and errno. */
#define TEST_ASSERT(cond, fmt, ...)                                               \
	do {                                                                      \
		if (!(cond))                                                      \
			__test_assert_fail(__FILE__, __LINE__, #cond, fmt, ##__VA_ARGS__); \
	} while (0)
#define TEST_FAIL(fmt, ...) __test_assert_fail(__FILE__, __LINE__, NULL, fmt, ##__VA_ARGS__)

/* Skip the whole test (exit KSFT_SKIP) and say why. */
void __attribute__((noreturn, format(printf, 1, 2))) test_skip(const char *fmt, ...);

/*
 * One line on stderr "<prog>: <message>", then exit KMP_EXIT_USAGE, or
 * KSFT_FAIL under usage_error_fails(true).
 */
void __attribute__((noreturn, format(printf, 1, 2))) usage_error(const char *fmt, ...);
/*
 * Whether a usage error fails the process (exit KSFT_FAIL) instead of exiting
 * KMP_EXIT_USAGE: true in a kselftest_harness.h test (tests/usage_fails.c),
 * whose harness would read exit 2 as KSFT_XFAIL, a pass; tests/child.h's
 * children set it back to false, as their exit code is the test's to check.
 */
void usage_error_fails(bool fail);

/*
 * Called once before a failing or skipping exit (assertion, watchdog,
 * test_skip), e.g. to print the KTAP result and write the JSON record of what
 * was measured so far.  Only one hook; NULL clears it.
 */
void test_set_fail_hook(void (*hook)(bool skip, const char *reason));
/*
 * A benchmark names itself first thing in main(), and says when its KTAP
 * plan is out (after ksft_set_plan()): a skip or failure before its hook is
 * set then still prints a whole KTAP document, "ok 1 <tool> # SKIP <why>".
 */
void test_ktap_tool(const char *tool);
void test_ktap_planned(void);

/* True when KMP_REQUIRE_KVM=1: a missing KVM must fail instead of skip. */
bool kvm_required(void);

#endif
