/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A timed region: the wall clock behind a figure a benchmark reports and
 * the accounting of the suite's own time inside it (account.h), started
 * and stopped as one, so each region reads as one construct:
 *
 *	d->enable = TIMED("enable_dirty_logging_time", NULL, set_logging(d));
 *
 * Where the figure is not the region's wall time (a sum of inner clocks
 * around single ioctls, or a span from a stamp the region takes itself),
 * timed_stop_as() books that figure instead.
 */
#ifndef KMP_TIMED_H
#define KMP_TIMED_H

#include "account.h"
#include "report.h"

struct timed {
	struct account_mark am;
	struct timespec start;
};

/* vm: the region is vCPU execution (account_begin()); NULL: this thread's ioctls. */
static inline void timed_start(struct timed *t, struct kvm_vm *vm)
{
	account_begin(&t->am, vm);
	t->start = ts_now();
}

/* The wall time since timed_start(), booked as `region`'s figure. */
static inline struct timespec timed_stop(struct timed *t, const char *region)
{
	struct timespec wall = ts_elapsed(t->start);

	account_end(&t->am, region, wall);
	return wall;
}

/* Book `figure` as `region`'s (once per figure the region reports); returns it. */
static inline struct timespec timed_stop_as(struct timed *t, const char *region,
					    struct timespec figure)
{
	account_end(&t->am, region, figure);
	return figure;
}

/* The wall time of the statements, booked as region. */
#define TIMED(region, vm, ...) ({						\
	struct timed __t;							\
										\
	timed_start(&__t, vm);							\
	__VA_ARGS__;								\
	timed_stop(&__t, region);						\
})

/* The figure an expression computes (its own inner clocks), booked as region. */
#define TIMED_AS(region, vm, figure) ({					\
	struct timed __t;							\
										\
	timed_start(&__t, vm);							\
	timed_stop_as(&__t, region, figure);					\
})

#endif
