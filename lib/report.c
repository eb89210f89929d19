// SPDX-License-Identifier: GPL-2.0
/*
 * Durations, rates and sizes as the benchmarks print them.
 *
 * Durations are struct timespec kept normalised: 0 <= tv_nsec < 1e9.  The
 * helpers expect normalised input and always return normalised output.
 */
#include <inttypes.h>
#include <stdio.h>

#include "report.h"

#define NSEC_PER_SEC 1000000000L

struct timespec ts_now(void)
{
	struct timespec t;

	/* Cannot fail for CLOCK_MONOTONIC with a valid pointer. */
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t;
}

struct timespec ts_sub(struct timespec a, struct timespec b)
{
	struct timespec r = {
		.tv_sec = a.tv_sec - b.tv_sec,
		.tv_nsec = a.tv_nsec - b.tv_nsec,
	};

	if (r.tv_nsec < 0) {	/* borrow one second */
		r.tv_nsec += NSEC_PER_SEC;
		r.tv_sec--;
	}
	return r;
}

struct timespec ts_add(struct timespec a, struct timespec b)
{
	struct timespec r = {
		.tv_sec = a.tv_sec + b.tv_sec,
		.tv_nsec = a.tv_nsec + b.tv_nsec,
	};

	if (r.tv_nsec >= NSEC_PER_SEC) {	/* carry one second */
		r.tv_nsec -= NSEC_PER_SEC;
		r.tv_sec++;
	}
	return r;
}

/* The average of n equal parts of t, to the nanosecond; n == 0 gives zero. */
struct timespec ts_div(struct timespec t, uint64_t n)
{
	if (!n)
		return (struct timespec){ 0 };
	return ns_to_ts(ts_to_ns(t) / n);
}

struct timespec ts_elapsed(struct timespec start)
{
	return ts_sub(ts_now(), start);
}

/* Negative durations (a clock going backwards) count as zero. */
uint64_t ts_to_ns(struct timespec t)
{
	if (t.tv_sec < 0)
		return 0;
	return (uint64_t)t.tv_sec * NSEC_PER_SEC + (uint64_t)t.tv_nsec;
}

struct timespec ns_to_ts(uint64_t ns)
{
	return (struct timespec){
		.tv_sec = (time_t)(ns / NSEC_PER_SEC),
		.tv_nsec = (long)(ns % NSEC_PER_SEC),
	};
}

double ts_to_sec(struct timespec t)
{
	return (double)t.tv_sec + (double)t.tv_nsec / NSEC_PER_SEC;
}

char *ts_format(struct timespec t, char *buf, size_t len)
{
	snprintf(buf, len, TS_FMT, TS_ARGS(t));
	return buf;
}

double rate_per_sec(uint64_t count, struct timespec t)
{
	double sec = ts_to_sec(t);

	return sec > 0 ? (double)count / sec : 0;
}

/*
 * The largest unit (K, M, G, T) not above the size, printed exactly: as an
 * integer ("512M") or, for whole quarters of the unit, with decimals ("1.5G",
 * "1.25G").  Sizes that no unit expresses that way are printed in the largest
 * unit that divides them, down to plain bytes ("1048580K", "4095").  The
 * integer forms parse back with parse_size().
 */
char *size_format(uint64_t bytes, char *buf, size_t len)
{
	static const char units[] = "KMGT";
	int i;

	for (i = 3; i >= 0; i--) {
		int shift = 10 * (i + 1);
		uint64_t unit = 1ULL << shift, quarter = unit / 4;
		uint64_t whole = bytes >> shift, rem = bytes & (unit - 1);

		if (!whole)
			continue;
		if (!rem)
			snprintf(buf, len, "%" PRIu64 "%c", whole, units[i]);
		else if (rem == 2 * quarter)
			snprintf(buf, len, "%" PRIu64 ".5%c", whole, units[i]);
		else if (rem % quarter == 0)
			snprintf(buf, len, "%" PRIu64 ".%" PRIu64 "%c",
				 whole, rem / quarter * 25, units[i]);
		else
			break;
		return buf;
	}

	/* Not a quarter multiple: the largest unit that divides it exactly. */
	for (i = 3; i >= 0; i--) {
		uint64_t unit = 1ULL << (10 * (i + 1));

		if (bytes >= unit && bytes % unit == 0) {
			snprintf(buf, len, "%" PRIu64 "%c", bytes / unit, units[i]);
			return buf;
		}
	}
	snprintf(buf, len, "%" PRIu64, bytes);
	return buf;
}
