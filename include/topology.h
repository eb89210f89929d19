/* SPDX-License-Identifier: GPL-2.0 */
/* Host topology through hwloc: CPU lists from -c, and thread pinning. */
#ifndef KMP_TOPOLOGY_H
#define KMP_TOPOLOGY_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

/* Lazily loaded hwloc topology of this host. */
int topology_nr_cpus(void);		/* online logical CPUs (PUs) */
int topology_nr_cores(void);
int topology_nr_numa_nodes(void);
bool topology_cpu_online(int cpu);	/* by OS index */
/* hwloc's CPU model string of the first package, or NULL if it has none. */
const char *topology_cpu_model(void);

/*
 * Parse a -c list and check every CPU exists and is online.  On error print
 * one line naming the option, the value and the allowed CPUs, and exit
 * KMP_EXIT_USAGE.  Returns the count; cpus[] gets the OS indices.
 */
int topology_parse_cpus_opt(const char *opt, const char *s, int *cpus, int max);

/*
 * -c for vCPU threads: one CPU per vCPU, plus optionally one more for the
 * main thread (as upstream's selftests); else a usage error.  Returns the count.
 */
int topology_parse_vcpu_pins_opt(const char *list, uint32_t nr_vcpus, int *cpus, int max);

/* Pin a thread (pthread_self() for the caller) to one OS CPU. Fails the test on error. */
void topology_pin_thread(pthread_t thread, int cpu);

/* Release the topology (optional; for leak checkers). */
void topology_fini(void);

#endif
