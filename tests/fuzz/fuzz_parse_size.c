// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for parse_size() and parse_u64_range() (lib/parse.c).
 *
 * The input, up to its first NUL, is the option value.  Each parser is
 * checked against a reference written here from the documented grammar
 * (include/parse.h): a decimal or 0x number, for sizes an optional suffix B,
 * K/M/G/T, KB/KiB... in any case.  On success the value must equal
 * number << unit exactly (computed in 128 bits, so overflow is caught); on
 * failure *out must be untouched and the reason one non-empty line.  Error
 * buffers are exact-sized heap blocks, so a write past errlen is an ASan
 * report; errlen 0 and a NULL buffer must be safe too.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "parse.h"

#define SENTINEL 0x5a5a5a5a5a5a5a5aULL

static void fail(const char *s, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));

static void fail(const char *s, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "\n==== FINDING for input '%s': ", s);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

/* Reference number reader: false when there is no digit; *big saturates above 2^64. */
static bool ref_number(const char **p, unsigned __int128 *big)
{
	const char *s = *p;
	unsigned int base = 10;
	unsigned __int128 v = 0;
	const unsigned __int128 cap = (unsigned __int128)1 << 80;
	bool any = false;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	for (;; s++) {
		int d;

		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			break;
		any = true;
		v = v * base + d;
		if (v > cap)
			v = cap;	/* stays "too large" */
	}
	*p = s;
	*big = v;
	return any;
}

static int ref_shift(const char *s)
{
	static const char units[] = "KMGT";
	const char *u;

	if (!*s || !strcasecmp(s, "B"))
		return 0;
	u = strchr(units, *s & ~0x20);
	if (!u || !*u || (*s & ~0x20) != *u)
		return -1;
	s++;
	if (*s && strcasecmp(s, "B") && strcasecmp(s, "iB"))
		return -1;
	return 10 * (int)(u - units + 1);
}

/* 1 and the value, or 0 when the reference rejects s. */
static int ref_size(const char *s, uint64_t *out)
{
	unsigned __int128 v;
	int shift;

	if (!ref_number(&s, &v))
		return 0;
	shift = ref_shift(s);
	if (shift < 0)
		return 0;
	v <<= shift;
	if (v > UINT64_MAX)
		return 0;
	*out = (uint64_t)v;
	return 1;
}

static int ref_range(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned __int128 v;

	if (!ref_number(&s, &v) || *s || v > UINT64_MAX || v < min || v > max)
		return 0;
	*out = (uint64_t)v;
	return 1;
}

static void check_err(const char *s, const char *err, const char *what)
{
	if (!*err)
		fail(s, "%s failed without a reason", what);
	if (strchr(err, '\n'))
		fail(s, "%s reason is more than one line: '%s'", what, err);
}

/* errlen 1, a short buffer and no buffer at all must not write past it. */
static void small_buffers(const char *s, uint64_t min, uint64_t max, bool size)
{
	static const size_t lens[] = { 0, 1, 7 };
	uint64_t v;
	size_t i;

	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		char *err = lens[i] ? malloc(lens[i]) : NULL;
		int rc;

		if (err)
			memset(err, 'x', lens[i]);
		if (size)
			rc = parse_size(s, &v, err, lens[i]);
		else
			rc = parse_u64_range(s, min, max, &v, err, lens[i]);
		if (rc && err && !memchr(err, '\0', lens[i]))
			fail(s, "reason not NUL-terminated with errlen %zu", lens[i]);
		free(err);
	}
}

static void check_size(const char *s)
{
	uint64_t v = SENTINEL, want = 0;
	char *err = malloc(128);
	int rc, ref;

	err[0] = '\0';
	rc = parse_size(s, &v, err, 128);
	ref = ref_size(s, &want);
	if (rc != 0 && rc != -1)
		fail(s, "parse_size returned %d", rc);
	if ((rc == 0) != ref)
		fail(s, "parse_size %s, the grammar says %s (%s)", rc ? "failed" : "accepted",
		     ref ? "valid" : "invalid", err);
	if (!rc && v != want)
		fail(s, "parse_size gave %llu, expected %llu", (unsigned long long)v,
		     (unsigned long long)want);
	if (rc) {
		if (v != SENTINEL)
			fail(s, "parse_size failed but wrote *out");
		check_err(s, err, "parse_size");
	}
	free(err);
	small_buffers(s, 0, 0, true);
}

static void check_range(const char *s, uint64_t min, uint64_t max)
{
	uint64_t v = SENTINEL, want = 0;
	char *err = malloc(128);
	int rc, ref;

	err[0] = '\0';
	rc = parse_u64_range(s, min, max, &v, err, 128);
	ref = ref_range(s, min, max, &want);
	if (rc != 0 && rc != -1)
		fail(s, "parse_u64_range returned %d", rc);
	if ((rc == 0) != ref)
		fail(s, "parse_u64_range [%llu, %llu] %s, the grammar says %s (%s)",
		     (unsigned long long)min, (unsigned long long)max,
		     rc ? "failed" : "accepted", ref ? "valid" : "invalid", err);
	if (!rc && (v != want || v < min || v > max))
		fail(s, "parse_u64_range gave %llu, expected %llu", (unsigned long long)v,
		     (unsigned long long)want);
	if (rc) {
		if (v != SENTINEL)
			fail(s, "parse_u64_range failed but wrote *out");
		check_err(s, err, "parse_u64_range");
	}
	free(err);
	small_buffers(s, min, max, false);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Exactly the input's bytes plus a NUL, so reading past the end is caught. */
	char *s = malloc(size + 1);

	memcpy(s, data, size);
	s[size] = '\0';

	check_size(s);
	check_range(s, 0, UINT64_MAX);
	check_range(s, 1, 100);
	check_range(s, 4096, 4096);
	check_range(s, 7, 0);		/* an empty range: nothing is valid */
	free(s);
	return 0;
}
