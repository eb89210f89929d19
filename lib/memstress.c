// SPDX-License-Identifier: GPL-2.0
/* Host half of memstress: build the VM, run vCPU threads in lockstep or nonstop. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "host_state.h"
#include "lockstep.h"
#include "memstress.h"
#include "report.h"
#include "ucall.h"
#include "vcpu_thread.h"
#include "watchdog.h"

void memstress_params_init(struct memstress_params *p)
{
	*p = (struct memstress_params){
		.mode = guest_mode_default(),
		.nr_vcpus = 1,
		.vcpu_bytes = 1ULL << 30,
		.src = DEFAULT_BACKING_SRC,
		.slots = 1,
		.write_percent = 100,
		.random_seed = 1,
		.guest_map_size = SZ_4K,
	};
}

uint32_t memstress_slot(const struct memstress *ms, uint32_t i)
{
	return MEMSTRESS_FIRST_SLOT + i;
}

uint32_t memstress_max_vcpus(void)
{
	uint32_t max = kvm_check_cap(KVM_CAP_MAX_VCPUS) ?: kvm_check_cap(KVM_CAP_NR_VCPUS);

	return max < KMP_MAX_VCPUS ? max : KMP_MAX_VCPUS;
}

uint32_t memstress_max_slots(void)
{
	uint32_t max = kvm_check_cap(KVM_CAP_NR_MEMSLOTS);

	if (max > KMP_MAX_REGIONS)
		max = KMP_MAX_REGIONS;
	return max - MEMSTRESS_FIRST_SLOT;	/* slot 0 is the system slot */
}

/* The guest mappings of test memory: guest_map_size, or the mode's larger base page. */
static uint64_t guest_map_size(const struct memstress_params *p)
{
	uint64_t page = guest_mode_page_size(p->mode);

	return p->guest_map_size > page ? p->guest_map_size : page;
}

/*
 * Test memory in bytes: -b per vCPU times -v, with -o too (as upstream, the
 * vCPUs then share all of it), aligned for the source, mappings and slots.
 */
static uint64_t memstress_total_bytes(const struct memstress_params *p)
{
	uint64_t align = backing_src_page_size(p->src), total;

	if (align < guest_map_size(p))
		align = guest_map_size(p);
	total = ALIGN_UP(p->vcpu_bytes, SZ_4K) * p->nr_vcpus;
	return ALIGN_UP(total, align * p->slots);
}

void memstress_params_check_host(const struct memstress_params *p)
{
	uint64_t align = backing_src_page_size(p->src), total, mem;
	struct lockstep_wait wait;
	unsigned int pa_bits;
	char typed[32];
	const char *b = p->vcpu_bytes_text;

	/* -b as the user typed it, else the number. */
	if (!b) {
		snprintf(typed, sizeof(typed), "%lu", (unsigned long)p->vcpu_bytes);
		b = typed;
	}

	if (p->nr_vcpus < 1)
		usage_error("-v '%u': must be at least 1", p->nr_vcpus);
	if (p->vcpu_bytes < SZ_4K)
		usage_error("-b '%s': must be at least one guest page (4096 bytes)", b);
	watchdog_timeout_from_env(WATCHDOG_DEFAULT_SEC);	/* a bad KMP_WATCHDOG_SEC, now */
	lockstep_wait_init(&wait, p->nr_vcpus + 1);		/* a bad KMP_LOCKSTEP_WAIT, now */
	if (p->write_percent > 100)
		usage_error("-w '%u': must be between 0 and 100", p->write_percent);
	/*
	 * -p: at or above the arch's place (the code and data slot is below),
	 * and below the top 1G of the address space (arm64's ucall page).
	 */
	pa_bits = guest_mode_pa_bits(p->mode);
	if (!pa_bits || pa_bits > 47)	/* "PA-bits:ANY": the host's, checked with the VM */
		pa_bits = 47;
	if (p->test_gpa && p->test_gpa < arch_test_mem_gpa(NULL))
		usage_error("-p '0x%lx': test memory must start at or above 0x%lx (the guest's code "
			    "and data live below)", (unsigned long)p->test_gpa,
			    (unsigned long)arch_test_mem_gpa(NULL));
	if (p->test_gpa && p->test_gpa + memstress_total_bytes(p) > (1ULL << pa_bits) - SZ_1G)
		usage_error("-p '0x%lx': %lu bytes of test memory from there do not fit below the "
			    "top 1G of the guest's %u-bit physical address space",
			    (unsigned long)p->test_gpa, (unsigned long)memstress_total_bytes(p), pa_bits);
	/*
	 * The workload touches every page: more guest memory than the host has
	 * cannot work (and the products below must not wrap).
	 */
	mem = host_meminfo_bytes("MemTotal");
	if (p->vcpu_bytes > mem || p->vcpu_bytes * p->nr_vcpus / p->nr_vcpus != p->vcpu_bytes ||
	    p->vcpu_bytes * p->nr_vcpus > mem)
		usage_error("-b '%s': %u vCPU(s) x %lu bytes%s is more guest memory than this "
			    "host has (%lu MiB)", b, p->nr_vcpus, (unsigned long)p->vcpu_bytes,
			    p->shared ? " (shared, -o)" : "", (unsigned long)(mem >> 20));
	if (p->slots < 1)
		usage_error("-x '%u': must be at least 1", p->slots);
	if (align < guest_map_size(p))
		align = guest_map_size(p);
	total = ALIGN_UP(p->vcpu_bytes, SZ_4K) * p->nr_vcpus;
	/* One memslot: -b (and -v) are what the user gave, not -x. */
	if (p->slots == 1 && total < align)
		usage_error("-b '%s': %u vCPU(s) x %s is less than one %lu-byte %s page", b,
			    p->nr_vcpus, b, (unsigned long)align, backing_src_name(p->src));
	if (total / p->slots < align)
		usage_error("-x '%u': %lu bytes of guest memory split %u ways leaves less than "
			    "one %lu-byte %s page per memslot", p->slots, (unsigned long)total,
			    p->slots, (unsigned long)align, backing_src_name(p->src));
	/* As upstream (which asserts it): the memslots share the pages evenly. */
	if (ALIGN_UP(total, align) / align % p->slots)
		usage_error("-x '%u': guest memory of %lu pages of %lu bytes (-v x -b) cannot be "
			    "split evenly into %u memslots", p->slots,
			    (unsigned long)(ALIGN_UP(total, align) / align), (unsigned long)align,
			    p->slots);
	if (p->guest_map_size != SZ_4K && p->guest_map_size != SZ_2M)
		usage_error("guest mapping size %lu: must be 4K or 2M",
			    (unsigned long)p->guest_map_size);
}

void memstress_params_check(const struct memstress_params *p)
{
	uint32_t max_vcpus, max_slots;

	/* What can be judged without /dev/kvm first, then KVM's own limits. */
	memstress_params_check_host(p);
	max_vcpus = memstress_max_vcpus();
	max_slots = memstress_max_slots();
	if (p->nr_vcpus > max_vcpus)
		usage_error("-v '%u': must be between 1 and %u (KVM_CAP_MAX_VCPUS)",
			    p->nr_vcpus, max_vcpus);
	if (p->slots > max_slots)
		usage_error("-x '%u': must be between 1 and %u (KVM_CAP_NR_MEMSLOTS less the "
			    "system slot)", p->slots, max_slots);
}

struct memstress *memstress_create(const struct memstress_params *p)
{
	struct memstress *ms = calloc(1, sizeof(*ms));
	uint64_t per_vcpu, total, pages;
	struct kvm_vm *vm;

	TEST_ASSERT(ms, "out of memory");
	memstress_params_check(p);
	per_vcpu = ALIGN_UP(p->vcpu_bytes, SZ_4K);
	total = memstress_total_bytes(p);

	pages = total / SZ_4K;
	ms->p = *p;
	ms->vm = vm = vm_create_mode(p->mode, p->nr_vcpus, pages);
	ms->gpa = p->test_gpa ? p->test_gpa : arch_test_mem_gpa(vm);
	ms->size = total;
	ms->slot_size = total / p->slots;
	/* -o: every vCPU walks all of it, as upstream's vCPUs do. */
	ms->pages_per_vcpu = (p->shared ? per_vcpu * p->nr_vcpus : per_vcpu) / SZ_4K;

	TEST_ASSERT(ms->gpa + total <= (1ULL << vm->pa_bits) && ms->gpa + total < (1ULL << 47),
		    "%lu bytes of test memory at 0x%lx%s do not fit the guest's %u-bit address space",
		    (unsigned long)total, (unsigned long)ms->gpa, p->test_gpa ? " (-p)" : "",
		    vm->pa_bits);
	for (uint32_t i = 0; i < p->slots; i++) {
		uint64_t gpa = ms->gpa + i * ms->slot_size;

		vm_mem_add(vm, p->src, gpa, memstress_slot(ms, i), ms->slot_size, p->slot_flags);
	}
	/* Identity map: gva == gpa. */
	virt_map(vm, ms->gpa, ms->gpa, total, guest_map_size(p));

	memstress_args.page_size = SZ_4K;
	memstress_args.write_percent = p->write_percent;
	memstress_args.random_seed = p->random_seed;
	memstress_args.random_access = p->random_access;
	for (uint32_t i = 0; i < p->nr_vcpus; i++) {
		struct memstress_vcpu_args *va = &memstress_args.vcpu_args[i];

		va->gva = p->shared ? ms->gpa : ms->gpa + i * per_vcpu;
		va->pages = ms->pages_per_vcpu;
	}
	sync_global_to_guest(vm, memstress_args);
	ms->gargs = guest_global(vm, memstress_args);

	if (p->setup_vm)
		p->setup_vm(vm, p->setup_arg);
	ms->stats = calloc(p->nr_vcpus, sizeof(*ms->stats));
	TEST_ASSERT(ms->stats, "out of memory");
	for (uint32_t i = 0; i < p->nr_vcpus; i++) {
		struct kvm_vcpu *vcpu = vm_vcpu_add(vm, i, memstress_guest_code);

		vcpu_args_set(vcpu, 1, (uint64_t)i);
		vcpu->heartbeat = &ms->gargs->vcpu_args[i].touched;
	}
	pthread_mutex_init(&ms->lock, NULL);
	pthread_cond_init(&ms->release, NULL);
	pthread_cond_init(&ms->completed, NULL);
	lockstep_wait_init(&ms->wait, p->nr_vcpus + 1);	/* and the host thread */
	return ms;
}

/* The host waits (or is about to) on `completed`: wake it.  Else no lock at all. */
static void notify_host(struct memstress *ms)
{
	/* Pairs with wait_until(): it sets host_waiting, then checks the progress made. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&ms->host_waiting, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&ms->lock);
	pthread_cond_broadcast(&ms->completed);
	pthread_mutex_unlock(&ms->lock);
}

struct release_wait {
	struct memstress *ms;
	uint64_t done;		/* the iteration this vCPU finished */
};

static bool released(void *arg)
{
	struct release_wait *w = arg;

	return __atomic_load_n(&w->ms->iteration, __ATOMIC_ACQUIRE) != w->done ||
	       __atomic_load_n(&w->ms->free_running, __ATOMIC_ACQUIRE) || w->ms->stop;
}

/* Lockstep: until the host releases the next iteration (or runs free, or stops). */
static void wait_release(struct memstress *ms, uint64_t done)
{
	struct release_wait w = { ms, done };

	if (lockstep_spin(&ms->wait, released, &w))
		return;
	/* The releaser changes these under the lock: no wake-up is lost. */
	pthread_mutex_lock(&ms->lock);
	while (!released(&w))
		pthread_cond_wait(&ms->release, &ms->lock);
	pthread_mutex_unlock(&ms->lock);
}

/* A vCPU finished a pass: count it, then (lockstep) wait for the next release. */
static void vcpu_pass_done(struct memstress *ms, struct kvm_vcpu *vcpu, const struct ucall *uc)
{
	struct memstress_vcpu_stats *st = &ms->stats[vcpu->id];
	uint64_t iteration = uc->args[1], done;

	TEST_ASSERT(uc->nargs == 5 && uc->args[0] == MEMSTRESS_SYNC_PASS,
		    "vCPU %u: unexpected SYNC (%lu args, tag 0x%lx)", vcpu->id,
		    (unsigned long)uc->nargs, (unsigned long)uc->args[0]);
	__atomic_add_fetch(&st->reads, uc->args[2], __ATOMIC_RELAXED);
	__atomic_add_fetch(&st->writes, uc->args[3], __ATOMIC_RELAXED);
	if (uc->args[4]) {
		st->passes++;
		st->last_pass_end = ts_now();
		__atomic_store_n(&st->last_iteration, iteration, __ATOMIC_RELEASE);
	} else {
		st->partial_passes++;
	}
	if (ms->on_pass)
		ms->on_pass(ms, vcpu->id, iteration, uc->args[2], uc->args[3]);

	if (__atomic_load_n(&ms->free_running, __ATOMIC_ACQUIRE)) {
		notify_host(ms);	/* memstress_wait_pass() */
		return;
	}
	/* Before counting this pass: once all are counted the host may move on. */
	done = __atomic_load_n(&ms->iteration, __ATOMIC_ACQUIRE);
	vcpu->state = VCPU_IN_HOST;
	if (__atomic_add_fetch(&ms->nr_completed, 1, __ATOMIC_ACQ_REL) == ms->p.nr_vcpus)
		notify_host(ms);
	wait_release(ms, done);
	st->resumed = ts_now();
	vcpu->state = VCPU_IN_GUEST;
}

static void memstress_vcpu_thread(struct kvm_vcpu *vcpu, void *arg)
{
	struct memstress *ms = arg;
	struct ucall uc;

	while (!ms->stop) {
		if (_vcpu_run(vcpu)) {
			if (vcpu_memory_fault_exit(vcpu) && ms->on_exit && ms->on_exit(ms, vcpu))
				continue;
			vcpu_run_fail(vcpu);
		}
		switch (get_ucall(vcpu, &uc)) {
		case UCALL_SYNC:
			vcpu_pass_done(ms, vcpu, &uc);
			break;
		case UCALL_PRINT:
			break;
		case UCALL_ABORT:
			ucall_report_abort(vcpu, &uc);
		case UCALL_NONE:
			if (ms->on_exit && ms->on_exit(ms, vcpu))
				break;
			vcpu_unexpected_exit(vcpu);
		default:
			TEST_FAIL("vCPU %u: memstress guest returned %s", vcpu->id,
				  uc.cmd == UCALL_DONE ? "DONE" : "an unknown ucall");
		}
	}
}

void memstress_start(struct memstress *ms)
{
	unsigned int timeout = ms->p.watchdog_sec ?:
			       watchdog_timeout_from_env(WATCHDOG_DEFAULT_SEC);

	ms->iteration = 0;
	ms->nr_completed = 0;
	ms->gargs->iteration = 0;
	ms->started = true;
	ms->start_time = ts_now();
	ms->release_time = ms->start_time;
	watchdog_start(ms->vm, timeout);
	vcpu_threads_start(ms->vm, memstress_vcpu_thread, ms, ms->p.cpus, ms->p.nr_cpus);
}

struct host_wait {
	struct memstress *ms;
	bool (*done)(struct memstress *, uint64_t);
	uint64_t arg;
};

static bool host_wait_done(void *arg)
{
	struct host_wait *w = arg;

	return w->done(w->ms, w->arg) || w->ms->stop;
}

/*
 * Until done(ms, arg): spinning first where the host has a CPU of its own
 * (ms->wait), then asleep on `completed`; with on_wait, asleep at once and
 * serving it about every millisecond.
 */
static void wait_until(struct memstress *ms, bool (*done)(struct memstress *, uint64_t),
		       uint64_t arg)
{
	struct host_wait w = { ms, done, arg };
	struct timespec ts;

	ms->host_waits++;
	if (!ms->on_wait && lockstep_spin(&ms->wait, host_wait_done, &w))
		goto seen;
	pthread_mutex_lock(&ms->lock);
	__atomic_store_n(&ms->host_waiting, true, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);	/* pairs with notify_host() */
	while (!done(ms, arg) && !ms->stop) {
		if (!ms->on_wait) {
			pthread_cond_wait(&ms->completed, &ms->lock);
			continue;
		}
		clock_gettime(CLOCK_REALTIME, &ts);
		ts = ts_add(ts, ns_to_ts(1000 * 1000));
		pthread_cond_timedwait(&ms->completed, &ms->lock, &ts);
		pthread_mutex_unlock(&ms->lock);
		ms->on_wait(ms);
		pthread_mutex_lock(&ms->lock);
	}
	__atomic_store_n(&ms->host_waiting, false, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&ms->lock);
seen:
	ms->completion_seen = ts_now();
}

static bool iteration_done(struct memstress *ms, uint64_t unused)
{
	return __atomic_load_n(&ms->nr_completed, __ATOMIC_ACQUIRE) == ms->p.nr_vcpus ||
	       __atomic_load_n(&ms->free_running, __ATOMIC_ACQUIRE);
}

void memstress_wait_iteration(struct memstress *ms)
{
	wait_until(ms, iteration_done, 0);
}

static bool passes_done(struct memstress *ms, uint64_t iteration)
{
	for (uint32_t i = 0; i < ms->p.nr_vcpus; i++)
		if (__atomic_load_n(&ms->stats[i].last_iteration, __ATOMIC_ACQUIRE) < iteration)
			return false;
	return true;
}

void memstress_wait_pass(struct memstress *ms, uint64_t iteration)
{
	wait_until(ms, passes_done, iteration);
}

void memstress_run_free(struct memstress *ms)
{
	pthread_mutex_lock(&ms->lock);
	__atomic_store_n(&ms->free_running, true, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&ms->release);
	pthread_mutex_unlock(&ms->lock);
}

uint64_t memstress_next_iteration(struct memstress *ms)
{
	uint64_t it;

	pthread_mutex_lock(&ms->lock);
	it = ms->iteration + 1;
	ms->gargs->iteration = it;
	/* Reset before the release: spinning vCPUs count their next pass at once. */
	__atomic_store_n(&ms->nr_completed, 0, __ATOMIC_RELAXED);
	ms->release_time = ts_now();
	if (ms->p.nonstop)
		__atomic_store_n(&ms->free_running, true, __ATOMIC_RELEASE);
	__atomic_store_n(&ms->iteration, it, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&ms->release);
	pthread_mutex_unlock(&ms->lock);
	return it;
}

void memstress_lockstep_skew(struct memstress *ms, struct timespec *release,
			     struct timespec *completion)
{
	uint64_t released = ts_to_ns(ms->release_time), worst = released, last_end = released;

	for (uint32_t i = 0; i < ms->p.nr_vcpus; i++) {
		uint64_t resumed = ts_to_ns(ms->stats[i].resumed);
		uint64_t end = ts_to_ns(ms->stats[i].last_pass_end);

		worst = resumed > worst ? resumed : worst;
		last_end = end > last_end ? end : last_end;
	}
	*release = ns_to_ts(worst - released);
	*completion = ns_to_ts(ts_to_ns(ms->completion_seen) - last_end);
}

uint64_t memstress_touch_extra(struct memstress *ms, uint64_t gva, uint64_t pages)
{
	struct memstress_guest_args *a = ms->gargs;
	uint64_t req = a->extra_req + 1;
	struct timespec start = ts_now();

	TEST_ASSERT(ms->started && ms->free_running,
		    "memstress_touch_extra(): the vCPUs must be running nonstop");
	a->extra_gva = gva;
	a->extra_pages = pages;
	__atomic_store_n(&a->extra_req, req, __ATOMIC_RELEASE);
	/* vCPU 0 serves it before its next pass (the watchdog watches it meanwhile). */
	while (__atomic_load_n(&a->extra_done, __ATOMIC_ACQUIRE) != req) {
		TEST_ASSERT(!ms->stop, "memstress_touch_extra(): the vCPUs were stopped");
		TEST_ASSERT(ts_to_ns(ts_elapsed(start)) < 60 * 1000000000ULL,
			    "vCPU 0 did not write the %lu pages at gva 0x%lx within 60 s",
			    (unsigned long)pages, (unsigned long)gva);
		usleep(1000);
	}
	return a->extra_written;
}

void memstress_set_iteration(struct memstress *ms, uint64_t iteration)
{
	ms->gargs->iteration = iteration;
}

void memstress_totals(struct memstress *ms, uint64_t *reads, uint64_t *writes)
{
	*reads = *writes = 0;
	for (uint32_t i = 0; i < ms->p.nr_vcpus; i++) {
		*reads += __atomic_load_n(&ms->stats[i].reads, __ATOMIC_RELAXED);
		*writes += __atomic_load_n(&ms->stats[i].writes, __ATOMIC_RELAXED);
	}
}

void memstress_enable_stamps(struct memstress *ms, uint64_t every, uint64_t len)
{
	TEST_ASSERT(!ms->started, "memstress_enable_stamps() after memstress_start()");
	TEST_ASSERT(every && len && !(len & (len - 1)), "stamps: every %lu, ring of %lu",
		    (unsigned long)every, (unsigned long)len);
	ms->gargs->stamp_every = every;
	ms->gargs->stamp_len = len;
	for (uint32_t v = 0; v < ms->p.nr_vcpus; v++)
		ms->gargs->vcpu_args[v].stamp_ring = vm_vaddr_alloc(ms->vm, len * sizeof(uint64_t));
}

const volatile uint64_t *memstress_stamps(struct memstress *ms, uint32_t v)
{
	return addr_gva2hva(ms->vm, ms->gargs->vcpu_args[v].stamp_ring);
}

void memstress_live_counts(struct memstress *ms, uint64_t *reads, uint64_t *writes)
{
	*reads = *writes = 0;
	for (uint32_t i = 0; i < ms->p.nr_vcpus; i++) {
		/* The guest counts a read before the touch: read it first, never above. */
		uint64_t r = ms->gargs->vcpu_args[i].touched_read;

		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		*writes += ms->gargs->vcpu_args[i].touched - r;
		*reads += r;
	}
}

uint64_t memstress_touched_live(struct memstress *ms)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < ms->p.nr_vcpus; i++)
		n += ms->gargs->vcpu_args[i].touched;
	return n;
}

void memstress_print_page_units(const struct memstress_params *p)
{
	unsigned int guest_page = guest_mode_page_size(p->mode);

	if (guest_page && guest_page != SZ_4K)
		ksft_print_msg("page counts and rates are in 4K pages, the workload's unit; this "
			       "guest mode's pages are %uK (upstream's unit): divide by %u\n",
			       guest_page >> 10, (unsigned int)(guest_page / SZ_4K));
}

void memstress_stop(struct memstress *ms)
{
	if (!ms->started)
		return;
	pthread_mutex_lock(&ms->lock);
	ms->stop = true;
	ms->gargs->stop = 1;
	pthread_cond_broadcast(&ms->release);
	pthread_mutex_unlock(&ms->lock);
	vcpu_threads_join(ms->vm);
	watchdog_stop();
	ms->started = false;
}

void memstress_destroy(struct memstress *ms)
{
	if (!ms)
		return;
	memstress_stop(ms);
	vm_free(ms->vm);
	free(ms->stats);
	free(ms);
}
