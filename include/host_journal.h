/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside host_state (include/host_state.h is its interface): what its two
 * halves share.  lib/host_state.c keeps this process's table of host
 * changes and undoes them; lib/host_journal.c is the crash journal, written
 * before each change and read back to undo what dead processes left.  Both
 * undo a change with include/host_undo.h.  Nothing else includes this.
 */
#ifndef KMP_HOST_JOURNAL_H
#define KMP_HOST_JOURNAL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "host_undo.h"

#define HOST_STATE_PATH_MAX	256
#define HOST_STATE_VALUE_MAX	512

struct host_state_entry {
	char path[HOST_STATE_PATH_MAX];
	/* HS_WRITE: the original content; HS_DYNEVENT: "-:group/event\n" */
	char orig[HOST_STATE_VALUE_MAX];
	size_t orig_len;
	enum hs_kind kind;
	/*
	 * HS_DELTA, a count we raised (host_state_add_u64): on restore,
	 * subtract what we added from the value then, so concurrent runs
	 * compose.
	 */
	volatile uint64_t delta;
	int jseq;				/* record number in the journal, or -1 */
	pid_t owner;				/* process that made the change */
	volatile sig_atomic_t active;		/* changed and not yet restored */
};

/* Keep the compiler from moving slot stores past the publishing store. */
#define publish_barrier() __atomic_signal_fence(__ATOMIC_SEQ_CST)

/* ---- lib/host_journal.c: this process's journal ----------------------------- */

/*
 * Before each change: on this process's first, undo what dead runs left
 * and name its journal (a forked child names one of its own).
 */
void hs_journal_prepare(void);

/*
 * Journal the change slot e is about to make, before it is made; sets
 * e->jseq (-1: not journaled).  ask, before: what HS_DELTA asks for and
 * the value before.
 */
void hs_journal_record(struct host_state_entry *e, uint64_t ask, uint64_t before);

/*
 * A delta's follow-up lines: "ask" (granted false) before raising it again,
 * "granted" once the kernel has said how much it gave.
 */
void hs_journal_delta(const struct host_state_entry *e, bool granted, uint64_t amount,
		      uint64_t before);

/* Async-signal-safe: slot e's record is done (undone, or never made). */
void hs_journal_done(struct host_state_entry *e);

#endif
