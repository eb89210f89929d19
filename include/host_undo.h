/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside host_state (include/host_state.h is its interface): how one
 * recorded host change is undone, async-signal-safe (lib/host_undo.c).
 * lib/host_state.c's restore and lib/host_journal.c's recovery both stand
 * on it.  Nothing else includes this.
 */
#ifndef KMP_HOST_UNDO_H
#define KMP_HOST_UNDO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum hs_kind { HS_WRITE, HS_DELTA, HS_DIR, HS_MOUNT, HS_DYNEVENT, HS_NR_KINDS };

/* ---- all async-signal-safe ------------------------------------------------ */

/* v in decimal, ending just before end. Returns the start. */
char *hs_format_u64(char *end, uint64_t v);

/* Up to size - 1 bytes of path into buf, NUL-terminated. Returns the length or -errno. */
ssize_t hs_read_small(const char *path, char *buf, size_t size);

/* Undo one change, for restore and recovery alike: 1, 0 (nothing left to undo) or -errno. */
int hs_undo(enum hs_kind kind, const char *path, const char *arg, size_t len, uint64_t delta);

/*
 * Call undo(ctx, i) for i = n-1 down to 0, a dynamic event only once what
 * was made after it is gone (lib/host_undo.c says why).
 */
void hs_undo_in_order(int n, enum hs_kind (*kind)(void *ctx, int i),
		      void (*undo)(void *ctx, int i), void *ctx);

#endif
