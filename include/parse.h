/* SPDX-License-Identifier: GPL-2.0 */
/* Command-line value parsing with errors that name the option and value. */
#ifndef KMP_PARSE_H
#define KMP_PARSE_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

/*
 * Sizes: a decimal or 0x number with an optional suffix K, M, G or T (also
 * KB/KiB style forms), powers of 1024: "4K", "64M", "192G", "4096".
 * Return 0 and set *out, or -1 with a human-readable reason in err.
 */
int parse_size(const char *s, uint64_t *out, char *err, size_t errlen);

/* Unsigned integer in [min, max]; same conventions as parse_size. */
int parse_u64_range(const char *s, uint64_t min, uint64_t max, uint64_t *out,
		    char *err, size_t errlen);

/*
 * The CLI forms: on error they print one line naming the option and the
 * value, e.g. "dirty_log_perf: -b '12Q': not a size (use e.g. 4K, 64M, 1G)",
 * and exit KMP_EXIT_USAGE.  opt is the option as typed ("-b", "--ring").
 */
uint64_t parse_size_opt(const char *opt, const char *s);
uint64_t parse_u64_opt(const char *opt, const char *s, uint64_t min, uint64_t max);
/*
 * s as one of choices (NULL-terminated): its index.  Anything else is a
 * one-line usage error: "--flush 'x': must be page, full or hv".
 */
unsigned int parse_choice_opt(const char *opt, const char *s, const char *const *choices);

/*
 * CPU lists as in taskset/cpuset: "0,1,2", "0-3", "0-7:2" (stride), mixed
 * "0,2-3".  Fills cpus[] in the given order (duplicates are an error), at most
 * max entries.  Returns the count, or -1 with a reason in err.
 */
int parse_cpu_list(const char *s, int *cpus, int max, char *err, size_t errlen);

/*
 * For getopt_long() with an optstring starting with ':': the one-line error
 * for a missing value (opt == ':') or an unknown option (opt == '?'),
 * naming the option as typed; exits KMP_EXIT_USAGE.
 */
void __attribute__((noreturn)) usage_bad_opt(int opt, char **argv);

/* After getopt_long(): a one-line usage error for the first non-option argument. */
void usage_no_operands(int argc, char **argv);

#endif
