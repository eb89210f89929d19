/* SPDX-License-Identifier: GPL-2.0 */
/* Timing and output helpers: durations, rates and the upstream line formats. */
#ifndef KMP_REPORT_H
#define KMP_REPORT_H

#include <stdint.h>
#include <stddef.h>
#include <time.h>

/* CLOCK_MONOTONIC now. */
struct timespec ts_now(void);
struct timespec ts_sub(struct timespec a, struct timespec b);	/* a - b, normalised */
struct timespec ts_add(struct timespec a, struct timespec b);
struct timespec ts_div(struct timespec t, uint64_t n);		/* average over n */
struct timespec ts_elapsed(struct timespec start);		/* now - start */
uint64_t ts_to_ns(struct timespec t);
struct timespec ns_to_ts(uint64_t ns);
double ts_to_sec(struct timespec t);

/*
 * Duration in upstream's "%ld.%.9lds" format ("3.638543593s").  Returns buf.
 * TS_FMT/TS_ARGS are for use inside larger printf formats.
 */
#define TS_FMT "%ld.%.9lds"
#define TS_ARGS(t) (long)(t).tv_sec, (long)(t).tv_nsec
char *ts_format(struct timespec t, char *buf, size_t len);

/* count / duration, per second; 0 for a zero duration. */
double rate_per_sec(uint64_t count, struct timespec t);

/* Human-readable size ("512M", "1.5G", "4096") into buf. Returns buf. */
char *size_format(uint64_t bytes, char *buf, size_t len);

#endif
