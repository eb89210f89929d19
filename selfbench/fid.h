/* SPDX-License-Identifier: GPL-2.0 */
/*
 * make bench's own tools (docs/perf.md): the same kernel work as a
 * benchmark, issued by the barest host loop that can do it, so the suite's
 * figures can be checked against an independent measurement.  vCPU threads
 * here only call KVM_RUN: no ucall decoding, no condition variables, no
 * watchdog, no stats; a pass is timed from one barrier to the next.
 */
#ifndef FID_H
#define FID_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "kvm_util.h"

/* ---- guest code (bench_guest.c) ---- */
/* Ends fid_touch_guest's random loop (checked every 64 pages). */
extern volatile uint64_t fid_stop;
/* One 8-byte store per page of [gva, gva + pages * 4K), then a SYNC; forever. */
void fid_write_pass_guest(uint64_t gva, uint64_t pages);
/* A store to each page in order, a SYNC, then stores at random pages until fid_stop. */
void fid_touch_guest(uint64_t gva, uint64_t pages, uint64_t seed);
/* A store to one page every `stride` bytes of [gva, gva + size), then a SYNC with the count. */
void fid_stride_guest(uint64_t gva, uint64_t size, uint64_t stride);

/* ---- host ---- */
/*
 * nr_vcpus vCPUs, vCPU i over [gpa + i * vcpu_bytes, + vcpu_bytes): the
 * suite's guest (memstress_guest_code writing every 4K page in order,
 * checking each page's content as `check` says) when ms_guest, else
 * fid_write_pass_guest.
 */
void fid_vcpus_add(struct kvm_vm *vm, uint32_t nr_vcpus, uint64_t gpa, uint64_t vcpu_bytes,
		   bool ms_guest, uint32_t check);

struct fid_pool {
	struct kvm_vm *vm;
	pthread_barrier_t go, done;
	volatile bool quit;
	volatile bool free_run;	/* vCPUs re-enter the guest after each SYNC */
	const int *cpus;
	int nr_cpus;
	pthread_t *threads;
};

/* A thread per vCPU of vm, pinned to cpus[i] when given; they wait for fid_pool_go(). */
void fid_pool_start(struct fid_pool *p, struct kvm_vm *vm, const int *cpus, int nr_cpus);
/* Release every vCPU: each runs until its next exit to userspace. */
void fid_pool_go(struct fid_pool *p);
/* Wait until every vCPU exited; each exit must be a SYNC (checked, untimed). */
void fid_pool_wait(struct fid_pool *p);
/*
 * Release every vCPU to run freely: each re-enters the guest after every
 * SYNC until fid_pool_end_free(), which the caller pairs with making the
 * guest stop (so its next exit ends the run), then fid_pool_wait().
 */
void fid_pool_go_free(struct fid_pool *p);
void fid_pool_end_free(struct fid_pool *p);
/* go + wait: the wall time of one pass, in ns. */
uint64_t fid_pool_pass(struct fid_pool *p);
void fid_pool_stop(struct fid_pool *p);

uint64_t fid_now_ns(void);
/* -c LIST for the bench tools: returns the number of CPUs parsed. */
int fid_parse_cpus(const char *list, int *cpus, int max);

/* JSON on stdout: fid_json_begin(); fid_json_num(...)...; fid_json_end(). */
void fid_json_begin(const char *tool);
void fid_json_num(const char *key, double v);
void fid_json_array(const char *key, const double *v, int n);
void fid_json_end(void);

#endif
