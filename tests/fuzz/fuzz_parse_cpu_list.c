// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for parse_cpu_list() (lib/parse.c).
 *
 * The input, up to its first NUL, is the list.  It is parsed with several
 * capacities (max), each into a heap array of exactly max entries, so a
 * write past max is an ASan report.  On success: the count is at most max,
 * every CPU is in [0, 8191] and listed once, and the CPUs are exactly those
 * of a reference expansion written here from the grammar in include/parse.h
 * (N, A-B, A-B:S joined by commas, decimal).  On failure the reason is a
 * non-empty line (several lines only when the input itself has a newline).
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

#define CPU_LIMIT 8192		/* lib/parse.c: no CPU number at or above this */

static void fail(const char *s, int max, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 3, 4)));

static void fail(const char *s, int max, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "\n==== FINDING for input '%s' (max %d): ", s, max);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

/* A decimal number below CPU_LIMIT at *p; advances *p. */
static bool ref_number(const char **p, int *out)
{
	const char *s = *p;
	long v = 0;

	if (*s < '0' || *s > '9')
		return false;
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (*s - '0');
		if (v >= CPU_LIMIT)
			return false;
	}
	*p = s;
	*out = (int)v;
	return true;
}

/*
 * The reference: the CPUs of s in order into out[] (room for CPU_LIMIT + 1),
 * or -1 for a bad list or a repeated CPU.  Capacity is checked by the caller.
 */
static int ref_list(const char *s, int *out)
{
	static bool seen[CPU_LIMIT];
	int n = 0;

	memset(seen, 0, sizeof(seen));
	for (;;) {
		int first, last, stride = 1, cpu;

		if (!ref_number(&s, &first))
			return -1;
		last = first;
		if (*s == '-') {
			s++;
			if (!ref_number(&s, &last) || last < first)
				return -1;
			if (*s == ':') {
				s++;
				if (!ref_number(&s, &stride) || stride < 1)
					return -1;
			}
		}
		if (*s != ',' && *s)
			return -1;
		for (cpu = first; cpu <= last; cpu += stride) {
			if (seen[cpu])
				return -1;
			seen[cpu] = true;
			out[n++] = cpu;
		}
		if (!*s)
			return n;
		s++;
	}
}

static void check(const char *s, int max, const int *want, int nwant)
{
	static bool seen[CPU_LIMIT];
	/* Exactly max entries: any write beyond is caught by ASan. */
	int *cpus = malloc(max > 0 ? (size_t)max * sizeof(int) : 1);
	char *err = malloc(256);
	int n, i;

	err[0] = '\0';
	n = parse_cpu_list(s, cpus, max, err, 256);
	if (n < -1)
		fail(s, max, "returned %d", n);
	if (n >= 0) {
		if (n > max)
			fail(s, max, "returned %d CPUs", n);
		memset(seen, 0, sizeof(seen));
		for (i = 0; i < n; i++) {
			if (cpus[i] < 0 || cpus[i] >= CPU_LIMIT)
				fail(s, max, "CPU %d at %d out of range", cpus[i], i);
			if (seen[cpus[i]])
				fail(s, max, "CPU %d listed twice in the result", cpus[i]);
			seen[cpus[i]] = true;
		}
	}

	/* The reference: valid and fits in max, or an error. */
	if (nwant < 0 || nwant > max || max < 0) {
		if (n >= 0)
			fail(s, max, "accepted (%d CPUs) a list the grammar rejects (%d)", n, nwant);
		if (!*err)
			fail(s, max, "failed without a reason");
		if (strchr(err, '\n') && !strchr(s, '\n'))
			fail(s, max, "reason is more than one line: '%s'", err);
	} else {
		if (n != nwant)
			fail(s, max, "gave %d CPUs, expected %d (%s)", n, nwant, n < 0 ? err : "");
		for (i = 0; i < n; i++)
			if (cpus[i] != want[i])
				fail(s, max, "CPU %d is %d, expected %d", i, cpus[i], want[i]);
	}
	free(cpus);
	free(err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int want[CPU_LIMIT + 1];
	static const int maxes[] = { -1, 0, 1, 3, 64, CPU_LIMIT };
	char *s = malloc(size + 1);
	char small[4];
	int nwant;
	size_t i;

	memcpy(s, data, size);
	s[size] = '\0';
	nwant = *s ? ref_list(s, want) : -1;
	for (i = 0; i < sizeof(maxes) / sizeof(maxes[0]); i++)
		check(s, maxes[i], want, nwant);

	/* A short error buffer and none at all. */
	memset(small, 'x', sizeof(small));
	if (parse_cpu_list(s, want, CPU_LIMIT, small, sizeof(small)) < 0 &&
	    !memchr(small, '\0', sizeof(small)))
		fail(s, CPU_LIMIT, "reason not NUL-terminated in a 4-byte buffer");
	parse_cpu_list(s, want, CPU_LIMIT, NULL, 0);
	free(s);
	return 0;
}
