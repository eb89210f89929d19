// SPDX-License-Identifier: GPL-2.0
/*
 * Command-line value parsing: sizes, bounded integers and CPU lists.
 *
 * Every parser is strict: no leading or trailing blanks, no signs, no junk
 * after the number.  A bad value produces a short reason that a user can act
 * on; the *_opt wrappers add the option and the value and exit.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "parse.h"
#include "test_util.h"

#define SIZE_HINT "(use e.g. 4K, 64M, 1G)"

/*
 * No Linux kernel supports more CPUs than this (x86/powerpc NR_CPUS limit);
 * anything larger in a CPU list is a typo.
 */
#define CPU_NUMBER_LIMIT 8192

static void set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

enum num_status { NUM_OK, NUM_NONE, NUM_OVERFLOW };

/*
 * Read an unsigned decimal or 0x-prefixed hex number at *p and advance *p
 * past it.  NUM_NONE when there is no digit at all (the "0x" of a bare
 * "0x" counts as no digit); NUM_OVERFLOW when it does not fit in 64 bits.
 */
static enum num_status read_u64(const char **p, uint64_t *out)
{
	const char *s = *p;
	unsigned int base = 10;
	uint64_t v = 0;
	bool overflow = false;
	int d;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if ((d = hex_digit(*s)) < 0 || (unsigned int)d >= base)
		return NUM_NONE;

	while ((d = hex_digit(*s)) >= 0 && (unsigned int)d < base) {
		if (v > (UINT64_MAX - d) / base)
			overflow = true;	/* keep going to consume the digits */
		v = v * base + d;
		s++;
	}
	*p = s;
	*out = v;
	return overflow ? NUM_OVERFLOW : NUM_OK;
}

/*
 * Size suffix at s: "", "B", or K/M/G/T optionally followed by "B" or "iB",
 * any case.  Returns the shift (0, 10, 20, 30, 40) or -1 if unrecognised.
 */
static int size_suffix_shift(const char *s)
{
	int shift;

	if (!*s || !strcasecmp(s, "B"))
		return 0;
	switch (*s) {
	case 'k': case 'K': shift = 10; break;
	case 'm': case 'M': shift = 20; break;
	case 'g': case 'G': shift = 30; break;
	case 't': case 'T': shift = 40; break;
	default: return -1;
	}
	s++;
	if (*s && strcasecmp(s, "B") && strcasecmp(s, "iB"))
		return -1;
	return shift;
}

int parse_size(const char *s, uint64_t *out, char *err, size_t errlen)
{
	const char *p = s;
	uint64_t v;
	int shift;

	if (!s || !*s) {
		set_err(err, errlen, "empty size " SIZE_HINT);
		return -1;
	}
	if (*s == '-') {
		set_err(err, errlen, "negative size " SIZE_HINT);
		return -1;
	}

	switch (read_u64(&p, &v)) {
	case NUM_NONE:
		set_err(err, errlen, "not a size " SIZE_HINT);
		return -1;
	case NUM_OVERFLOW:
		set_err(err, errlen, "too large (the limit is 2^64-1 bytes)");
		return -1;
	case NUM_OK:
		break;
	}

	if (*p == '.' || *p == ',') {
		set_err(err, errlen, "fractions are not supported; use a smaller unit (e.g. 1536M)");
		return -1;
	}
	shift = size_suffix_shift(p);
	if (shift < 0) {
		set_err(err, errlen, "not a size " SIZE_HINT);
		return -1;
	}
	if (shift && v > (UINT64_MAX >> shift)) {
		set_err(err, errlen, "too large (the limit is 2^64-1 bytes)");
		return -1;
	}

	*out = v << shift;
	return 0;
}

/* "between 1 and 100", or "at least 1" when there is no real upper bound. */
static void range_text(uint64_t min, uint64_t max, char *buf, size_t len)
{
	if (max == UINT64_MAX)
		snprintf(buf, len, "at least %" PRIu64, min);
	else
		snprintf(buf, len, "between %" PRIu64 " and %" PRIu64, min, max);
}

int parse_u64_range(const char *s, uint64_t min, uint64_t max, uint64_t *out,
		    char *err, size_t errlen)
{
	const char *p = s;
	char range[64];
	uint64_t v;

	range_text(min, max, range, sizeof(range));

	if (!s || !*s) {
		set_err(err, errlen, "empty value; must be an integer %s", range);
		return -1;
	}
	if (*s == '-') {
		set_err(err, errlen, "negative; must be an integer %s", range);
		return -1;
	}

	switch (read_u64(&p, &v)) {
	case NUM_NONE:
		set_err(err, errlen, "not a number; must be an integer %s", range);
		return -1;
	case NUM_OVERFLOW:
		set_err(err, errlen, "too large; must be %s", range);
		return -1;
	case NUM_OK:
		break;
	}
	if (*p) {
		set_err(err, errlen, "not a number; must be an integer %s", range);
		return -1;
	}
	if (v < min || v > max) {
		set_err(err, errlen, "must be %s", range);
		return -1;
	}

	*out = v;
	return 0;
}

uint64_t parse_size_opt(const char *opt, const char *s)
{
	char err[128];
	uint64_t v;

	if (parse_size(s, &v, err, sizeof(err)))
		usage_error("%s '%s': %s", opt, s ? s : "", err);
	return v;
}

uint64_t parse_u64_opt(const char *opt, const char *s, uint64_t min, uint64_t max)
{
	char err[128];
	uint64_t v;

	if (parse_u64_range(s, min, max, &v, err, sizeof(err)))
		usage_error("%s '%s': %s", opt, s ? s : "", err);
	return v;
}

unsigned int parse_choice_opt(const char *opt, const char *s, const char *const *choices)
{
	char allowed[256] = "";
	size_t len = 0;
	unsigned int n = 0;

	for (; choices[n]; n++)
		if (s && !strcmp(s, choices[n]))
			return n;
	for (unsigned int i = 0; i < n && len < sizeof(allowed); i++)
		len += snprintf(allowed + len, sizeof(allowed) - len, "%s%s",
				!i ? "" : i == n - 1 ? " or " : ", ", choices[i]);
	usage_error("%s '%s': must be %s", opt, s ? s : "", allowed);
}

/*
 * A CPU number in a list: decimal only, below CPU_NUMBER_LIMIT.  Advances *p.
 * what names the part for error messages ("CPU", "stride").
 */
static int read_cpu_number(const char **p, const char *what, int *out,
			   char *err, size_t errlen)
{
	const char *s = *p;
	uint64_t v = 0;

	if (*s == '-') {
		set_err(err, errlen, "negative %s number", what);
		return -1;
	}
	if (*s < '0' || *s > '9') {
		set_err(err, errlen, "expected a %s number at '%s'", what, s);
		return -1;
	}
	while (*s >= '0' && *s <= '9') {
		v = v * 10 + (uint64_t)(*s - '0');
		if (v >= CPU_NUMBER_LIMIT) {
			set_err(err, errlen, "%s number too large (limit %d)",
				what, CPU_NUMBER_LIMIT - 1);
			return -1;
		}
		s++;
	}
	*p = s;
	*out = (int)v;
	return 0;
}

int parse_cpu_list(const char *s, int *cpus, int max, char *err, size_t errlen)
{
	/* Which CPUs were already listed, to reject duplicates in O(1). */
	unsigned char seen[CPU_NUMBER_LIMIT / 8] = { 0 };
	const char *p = s;
	int count = 0;

	if (!s || !*s) {
		set_err(err, errlen, "empty CPU list (use e.g. 0,1,2 or 0-3 or 0-7:2)");
		return -1;
	}
	if (max < 0) {
		set_err(err, errlen, "no room for CPUs");
		return -1;
	}

	for (;;) {
		int first, last, stride = 1, cpu;

		/* One item: N, A-B or A-B:S. */
		if (*p == ',' || !*p) {
			set_err(err, errlen, "empty item in CPU list");
			return -1;
		}
		if (read_cpu_number(&p, "CPU", &first, err, errlen))
			return -1;
		last = first;
		if (*p == '-') {
			p++;
			if (read_cpu_number(&p, "CPU", &last, err, errlen))
				return -1;
			if (last < first) {
				set_err(err, errlen, "reversed range %d-%d", first, last);
				return -1;
			}
			if (*p == ':') {
				p++;
				if (read_cpu_number(&p, "stride", &stride, err, errlen))
					return -1;
				if (stride == 0) {
					set_err(err, errlen, "stride must be at least 1");
					return -1;
				}
			}
		} else if (*p == ':') {
			set_err(err, errlen, "a stride needs a range (e.g. 0-7:2)");
			return -1;
		}
		if (*p && *p != ',') {
			set_err(err, errlen, "unexpected '%c' in CPU list", *p);
			return -1;
		}

		for (cpu = first; cpu <= last; cpu += stride) {
			if (seen[cpu / 8] & (1u << (cpu % 8))) {
				set_err(err, errlen, "CPU %d listed twice", cpu);
				return -1;
			}
			if (count == max) {
				set_err(err, errlen, "more than %d CPUs listed", max);
				return -1;
			}
			seen[cpu / 8] |= 1u << (cpu % 8);
			cpus[count++] = cpu;
		}

		if (!*p)
			break;
		p++;	/* the ',' */
	}
	return count;
}

void usage_no_operands(int argc, char **argv)
{
	if (optind < argc)
		usage_error("unexpected argument '%s'; see -h", argv[optind]);
}

void usage_bad_opt(int opt, char **argv)
{
	const char *typed = optind > 0 ? argv[optind - 1] : "?";

	if (opt == ':')
		usage_error("%s: needs a value; see -h", typed);
	if (optopt && (typed[0] != '-' || typed[1] == '-' || !typed[1]))
		usage_error("-%c: unknown option; see -h", optopt);
	usage_error("'%s': unknown option; see -h", typed);
}
