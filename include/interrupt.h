/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ctrl-C (SIGINT), SIGTERM and SIGHUP for a benchmark: instead of dying in a
 * signal handler, which may only do async-signal-safe work, the signal goes
 * to a dedicated thread.  It calls the benchmark's hook (print the KTAP
 * result, write the JSON record marked interrupted), puts the host back
 * (host_state_restore) and then dies of the same signal.
 */
#ifndef KMP_INTERRUPT_H
#define KMP_INTERRUPT_H

/*
 * Call from main() before any other thread exists: every thread created
 * later inherits the blocked signals, so only the interrupt thread sees them.
 * It first undoes what killed earlier runs left on the host
 * (host_state_recover()).
 */
void interrupt_init(void (*hook)(int sig));

/*
 * Something the interrupt thread must do before its hook runs and the host
 * is put back, e.g. wait for a tracefs read or a record write to finish and
 * keep others from starting one.  Up to four; called in registration order.
 */
void interrupt_on_stop(void (*fn)(void));

#endif
