/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fails the test instead of hanging: if no vCPU makes progress (ucalls or
 * guest heartbeats) for the timeout while at least one is in the guest,
 * every stuck vCPU is kicked out of KVM_RUN, prints its last exit and
 * registers, and the test fails.
 */
#ifndef KMP_WATCHDOG_H
#define KMP_WATCHDOG_H

struct kvm_vm;

#define WATCHDOG_DEFAULT_SEC 120

/* Seconds from KMP_WATCHDOG_SEC in the environment, else def. */
unsigned int watchdog_timeout_from_env(unsigned int def);
void watchdog_start(struct kvm_vm *vm, unsigned int timeout_sec);
void watchdog_stop(void);

#endif
