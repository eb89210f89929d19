// SPDX-License-Identifier: GPL-2.0
/* /dev/kvm, VM and vCPU lifecycle, memslots, guest memory allocation. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kvm_util.h"
#include "account.h"
#include "elf_load.h"

static int kvm_fd = -1;

/* Why opening /dev/kvm failed with err, and what to do about it. */
static const char *kvm_open_advice(int err)
{
	static char why[256];
	struct group *grp;
	struct stat st;

	if (err == ENOENT)
		return "/dev/kvm does not exist: load kvm and kvm_intel/kvm_amd (modprobe), "
		       "or run on a host with virtualization enabled";
	if (err == EACCES || err == EPERM) {
		if (stat("/dev/kvm", &st))
			return "/dev/kvm: permission denied; run as root";
		/* Name the group only where one owns the node and it is not root's. */
		grp = st.st_gid ? getgrgid(st.st_gid) : NULL;
		if (grp)
			snprintf(why, sizeof(why), "/dev/kvm (mode %04o, group %s): permission "
				 "denied; run as root or add this user to group %s",
				 st.st_mode & 07777, grp->gr_name, grp->gr_name);
		else
			snprintf(why, sizeof(why), "/dev/kvm (mode %04o, owned by uid %u gid %u): "
				 "permission denied; run as root", st.st_mode & 07777,
				 st.st_uid, st.st_gid);
		return why;
	}
	snprintf(why, sizeof(why), "/dev/kvm cannot be opened: %s", strerror(err));
	return why;
}

/*
 * Why fd, an open /dev/kvm, is no KVM a guest can run on (a node that opens
 * but is something else, another API, or no VM can be made); NULL when it is.
 */
static const char *kvm_fd_unusable(int fd)
{
	static char why[256];
	int api = ioctl(fd, KVM_GET_API_VERSION, 0), vm;

	if (api < 0) {
		snprintf(why, sizeof(why), "/dev/kvm opens but is not KVM: KVM_GET_API_VERSION "
			 "failed: errno %d (%s)", errno, strerror(errno));
		return why;
	}
	if (api != KVM_API_VERSION) {
		snprintf(why, sizeof(why), "/dev/kvm: KVM_GET_API_VERSION is %d, not %d: "
			 "not a KVM this suite knows", api, KVM_API_VERSION);
		return why;
	}
	vm = ioctl(fd, KVM_CREATE_VM, 0);
	if (vm < 0) {
		snprintf(why, sizeof(why), "/dev/kvm: KVM_CREATE_VM failed: errno %d (%s)",
			 errno, strerror(errno));
		return why;
	}
	close(vm);
	return NULL;
}

/* /dev/kvm opened and checked (kvm_fd_unusable): its fd, or -1 and *why. */
static int kvm_open_checked(const char **why)
{
	int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		*why = kvm_open_advice(errno);
		return -1;
	}
	*why = kvm_fd_unusable(fd);
	if (*why) {
		close(fd);
		return -1;
	}
	return fd;
}

const char *kvm_unavailable_reason(void)
{
	const char *why;
	int fd;

	if (kvm_fd >= 0)
		return NULL;
	fd = kvm_open_checked(&why);
	if (fd >= 0)
		close(fd);
	return why;
}

int kvm_dev_fd(void)
{
	const char *why;

	if (kvm_fd >= 0)
		return kvm_fd;

	(void)kvm_required();	/* a bad KMP_REQUIRE_KVM is a usage error, KVM or not */
	kvm_fd = kvm_open_checked(&why);
	if (kvm_fd >= 0)
		return kvm_fd;

	if (kvm_required())
		TEST_FAIL("KMP_REQUIRE_KVM=1 but %s", why);
	test_skip("%s (./run.sh runs the benchmarks on an emulated KVM host here)", why);
}

const char *kvm_ioctl_advice(const char *name, int err)
{
	if (err == ENOMEM)
		return "the host is out of memory (or memlock/overcommit limits)";
	if (err == EEXIST && strstr(name, "MEMORY_REGION"))
		return "the memslot overlaps another one";
	if (err == EINVAL && strstr(name, "MEMORY_REGION"))
		return "gpa, size and host address must be page aligned; the slot id must be below KVM_CAP_NR_MEMSLOTS";
	if (err == EINVAL && strstr(name, "CREATE_VCPU"))
		return "the vCPU id is above KVM_CAP_MAX_VCPU_ID";
	if (err == EFAULT && strstr(name, "MEMORY_REGION"))
		return "the host mapping is not accessible, or (arm64) the slot ends beyond the "
		       "VM's IPA size (the guest mode, -m)";
	if (err == EFAULT)
		return "KVM could not access userspace memory: check the backing mapping";
	if (err == ENXIO || err == ENOTTY)
		return "the kernel does not support this ioctl";
	if (err == EINTR)
		return "interrupted by a signal";
	return "";
}

void kvm_ioctl_fail(const char *name, int err, const char *file, int line)
{
	const char *advice = kvm_ioctl_advice(name, err);

	__test_assert_fail(file, line, name, "%s failed: errno %d (%s)%s%s", name, err,
			   strerror(err), *advice ? "; " : "", advice);
}

int kvm_check_cap(long cap)
{
	int ret = __kvm_ioctl(kvm_dev_fd(), KVM_CHECK_EXTENSION, cap);

	return ret < 0 ? 0 : ret;
}

int vm_check_cap(struct kvm_vm *vm, long cap)
{
	int ret = __vm_ioctl(vm, KVM_CHECK_EXTENSION, cap);

	return ret < 0 ? 0 : ret;
}

int __vm_enable_cap(struct kvm_vm *vm, uint32_t cap, uint64_t arg0)
{
	struct kvm_enable_cap ec = { .cap = cap, .args[0] = arg0 };

	return __vm_ioctl(vm, KVM_ENABLE_CAP, &ec) < 0 ? -errno : 0;
}

void vm_enable_cap(struct kvm_vm *vm, uint32_t cap, uint64_t arg0)
{
	struct kvm_enable_cap ec = { .cap = cap, .args[0] = arg0 };

	vm_ioctl(vm, KVM_ENABLE_CAP, &ec);
}

/* ---- memslots ---- */

struct mem_region *vm_mem_region(struct kvm_vm *vm, uint32_t slot)
{
	TEST_ASSERT(slot < KMP_MAX_REGIONS && vm->regions[slot].in_use,
		    "memslot %u does not exist", slot);
	return &vm->regions[slot];
}

static void set_region(struct kvm_vm *vm, struct kvm_userspace_memory_region *kr)
{
	vm_ioctl(vm, KVM_SET_USER_MEMORY_REGION, kr);
}

int __vm_mem_region_set_flags2(struct kvm_vm *vm, uint32_t slot, uint32_t flags)
{
	struct mem_region *r = vm_mem_region(vm, slot);
	struct kvm_userspace_memory_region2 kr2 = {
		.slot = r->kr.slot,
		.flags = flags,
		.guest_phys_addr = r->kr.guest_phys_addr,
		.memory_size = r->kr.memory_size,
		.userspace_addr = r->kr.userspace_addr,
	};

	if (__vm_ioctl(vm, KVM_SET_USER_MEMORY_REGION2, &kr2))
		return -errno;
	r->kr.flags = flags;
	return 0;
}

struct mem_region *vm_mem_add(struct kvm_vm *vm, enum backing_src_type src,
			      uint64_t gpa, uint32_t slot, uint64_t size, uint32_t flags)
{
	struct mem_region *r;

	TEST_ASSERT(slot < KMP_MAX_REGIONS && slot < vm->max_memslots,
		    "memslot %u is above the limit (%u)", slot,
		    vm->max_memslots < KMP_MAX_REGIONS ? vm->max_memslots : KMP_MAX_REGIONS);
	r = &vm->regions[slot];
	TEST_ASSERT(!r->in_use, "memslot %u is already in use", slot);
	TEST_ASSERT(IS_ALIGNED(gpa, vm->page_size) && IS_ALIGNED(size, vm->page_size) && size,
		    "memslot %u: gpa 0x%lx and size 0x%lx must be non-zero multiples of the %u-byte page",
		    slot, (unsigned long)gpa, (unsigned long)size, vm->page_size);

	backing_reserve(src, size);
	backing_alloc(&r->backing, src, size);
	r->kr = (struct kvm_userspace_memory_region){
		.slot = slot,
		.flags = flags,
		.guest_phys_addr = gpa,
		.memory_size = size,
		.userspace_addr = (uint64_t)(uintptr_t)r->backing.hva,
	};
	set_region(vm, &r->kr);
	r->in_use = true;
	return r;
}

void vm_mem_region_set_flags(struct kvm_vm *vm, uint32_t slot, uint32_t flags)
{
	struct mem_region *r = vm_mem_region(vm, slot);

	r->kr.flags = flags;
	set_region(vm, &r->kr);
}

void vm_mem_region_move(struct kvm_vm *vm, uint32_t slot, uint64_t new_gpa)
{
	struct mem_region *r = vm_mem_region(vm, slot);

	r->kr.guest_phys_addr = new_gpa;
	set_region(vm, &r->kr);
}

void vm_mem_region_delete(struct kvm_vm *vm, uint32_t slot)
{
	struct mem_region *r = vm_mem_region(vm, slot);
	struct kvm_userspace_memory_region kr = r->kr;

	kr.memory_size = 0;	/* size 0 deletes the slot; the memory stays mapped */
	set_region(vm, &kr);
}

void vm_mem_region_readd(struct kvm_vm *vm, uint32_t slot)
{
	set_region(vm, &vm_mem_region(vm, slot)->kr);
}

/* ---- address translation and allocation ---- */

void *addr_gpa2hva(struct kvm_vm *vm, uint64_t gpa)
{
	for (uint32_t i = 0; i < KMP_MAX_REGIONS; i++) {
		struct mem_region *r = &vm->regions[i];

		if (r->in_use && gpa >= r->kr.guest_phys_addr &&
		    gpa - r->kr.guest_phys_addr < r->kr.memory_size)
			return (char *)r->backing.hva + (gpa - r->kr.guest_phys_addr);
	}
	TEST_FAIL("no memslot holds gpa 0x%lx", (unsigned long)gpa);
}

uint64_t addr_gva2gpa(struct kvm_vm *vm, uint64_t gva)
{
	uint64_t gpa = arch_gva2gpa(vm, gva);

	TEST_ASSERT(gpa != -1ULL, "gva 0x%lx is not mapped in the guest page tables",
		    (unsigned long)gva);
	return gpa;
}

void *addr_gva2hva(struct kvm_vm *vm, uint64_t gva)
{
	return addr_gpa2hva(vm, addr_gva2gpa(vm, gva));
}

uint64_t vm_phy_pages_alloc(struct kvm_vm *vm, uint64_t npages)
{
	uint64_t gpa = vm->sys_gpa_next;
	uint64_t bytes = npages * vm->page_size;

	TEST_ASSERT(npages && bytes <= vm->sys_gpa_end - gpa,
		    "slot 0 is full: %lu pages requested, %lu left; raise vm_create()'s extra_pages",
		    (unsigned long)npages, (unsigned long)((vm->sys_gpa_end - gpa) / vm->page_size));
	vm->sys_gpa_next += bytes;
	/* Slot 0 is fresh anonymous memory, never reused: already zero. */
	return gpa;
}

uint64_t vm_vaddr_map(struct kvm_vm *vm, uint64_t gpa, uint64_t size)
{
	uint64_t npages = DIV_ROUND_UP(size, vm->page_size), gva = vm->vaddr_next;

	virt_map(vm, gva, gpa, npages * vm->page_size, vm->page_size);
	vm->vaddr_next += (npages + 1) * vm->page_size;
	return gva;
}

uint64_t __attribute__((weak)) arch_virt_page_max(struct kvm_vm *vm)
{
	return SZ_2M;
}

bool __attribute__((weak)) arch_memslot_change_unmaps_slot_only(void)
{
	return false;
}

void virt_map(struct kvm_vm *vm, uint64_t gva, uint64_t gpa, uint64_t size, uint64_t page_size)
{
	TEST_ASSERT(IS_ALIGNED(gva | gpa | size, page_size),
		    "virt_map: gva 0x%lx, gpa 0x%lx and size 0x%lx must be %lu-byte aligned",
		    (unsigned long)gva, (unsigned long)gpa, (unsigned long)size,
		    (unsigned long)page_size);
	for (uint64_t off = 0; off < size; off += page_size)
		arch_virt_map_page(vm, gva + off, gpa + off, page_size);
}

uint64_t vm_vaddr_alloc(struct kvm_vm *vm, uint64_t size)
{
	return vm_vaddr_map(vm, vm_phy_pages_alloc(vm, DIV_ROUND_UP(size, vm->page_size)), size);
}

/*
 * Arches whose guest page tables are a radix tree (x86_64, arm64): a new
 * top-level table, a copy of the VM's, so it shares every lower table and
 * everything mapped so far (code, data, stacks).  powerpc has its own.
 */
uint64_t __attribute__((weak)) arch_vm_new_root(struct kvm_vm *vm)
{
	uint64_t root = vm_phy_pages_alloc(vm, 1);

	memcpy(addr_gpa2hva(vm, root), addr_gpa2hva(vm, vm->pgd), vm->page_size);
	return root;
}

/* ---- VM ---- */

void (*vm_create_hook)(struct kvm_vm *vm);

/* Arches with one VM type for every mode keep this default. */
unsigned long __attribute__((weak)) arch_vm_type(struct kvm_vm *vm)
{
	return ARCH_VM_TYPE;
}

struct kvm_vm *vm_create(uint32_t nr_vcpus, uint64_t extra_pages)
{
	return vm_create_mode(guest_mode_default(), nr_vcpus, extra_pages);
}

struct kvm_vm *vm_create_mode(enum guest_mode mode, uint32_t nr_vcpus, uint64_t extra_pages)
{
	struct kvm_vm *vm = calloc(1, sizeof(*vm));
	uint64_t sys_pages;
	int ret;

	TEST_ASSERT(vm, "out of memory");
	TEST_ASSERT(guest_mode_supported(mode), "guest mode %d (%s) is not supported here",
		    mode, guest_mode_name(mode));
	vm->kvm_fd = kvm_dev_fd();
	vm->mode = mode;
	vm->page_size = guest_mode_page_size(mode);
	vm->max_vcpus = kvm_check_cap(KVM_CAP_MAX_VCPUS) ?: kvm_check_cap(KVM_CAP_NR_VCPUS);
	vm->max_memslots = kvm_check_cap(KVM_CAP_NR_MEMSLOTS);
	TEST_ASSERT(nr_vcpus <= vm->max_vcpus && nr_vcpus <= KMP_MAX_VCPUS,
		    "%u vCPUs requested; KVM allows %u", nr_vcpus, vm->max_vcpus);

	ret = ioctl(vm->kvm_fd, KVM_CREATE_VM, arch_vm_type(vm));
	TEST_ASSERT(ret >= 0, "KVM_CREATE_VM (type 0x%lx) failed: %s%s", arch_vm_type(vm),
		    strerror(errno),
		    errno == ENOMEM ? "; the host is out of memory" :
		    errno == EBUSY ? "; another hypervisor owns virtualization" : "");
	vm->fd = ret;
	if (vm_create_hook)
		vm_create_hook(vm);

	/*
	 * Slot 0: 64 MiB for the binary and descriptors, page tables for the
	 * test memory, and per vCPU a stack, room for per-vCPU data (e.g.
	 * memstress's progress stamps) and a page (x86: TSS and IST1 stack).
	 * It is lazily populated anonymous memory, so a generous size costs
	 * nothing.
	 */
	sys_pages = (64ULL << 20) / vm->page_size + arch_page_table_pages(extra_pages) +
		    (uint64_t)nr_vcpus * ((VCPU_STACK_SIZE + VCPU_DATA_SIZE) / vm->page_size + 1);
	/* Memslots are whole host pages (64K on most powerpc hosts). */
	if ((uint64_t)getpagesize() > vm->page_size)
		sys_pages = ALIGN_UP(sys_pages, (uint64_t)getpagesize() / vm->page_size);
	vm_mem_add(vm, SRC_ANONYMOUS, 0, SYS_SLOT, sys_pages * vm->page_size, 0);
	/* Leave gpa 0 unused so a stray null pointer is never a valid page. */
	vm->sys_gpa_next = vm->page_size;
	vm->sys_gpa_end = sys_pages * vm->page_size;

	arch_vm_pgtable_init(vm);
	vm->elf_end = elf_load_self(vm);
	TEST_ASSERT(vm->elf_end < SYS_VADDR_BASE,
		    "the test binary reaches gva 0x%lx, above the allocator base 0x%llx",
		    (unsigned long)vm->elf_end, SYS_VADDR_BASE);
	vm->vaddr_next = SYS_VADDR_BASE;
	arch_vm_init(vm);
	return vm;
}

/* Arches with nothing outside guest memory keep this default. */
void __attribute__((weak)) arch_vm_free(struct kvm_vm *vm)
{
}

void vm_free(struct kvm_vm *vm)
{
	if (!vm)
		return;
	arch_vm_free(vm);
	for (uint32_t i = 0; i < vm->nr_vcpus; i++) {
		struct kvm_vcpu *vcpu = vm->vcpus[i];

		munmap(vcpu->run, vcpu->run_size);
		close(vcpu->fd);
		free(vcpu);
	}
	close(vm->fd);
	for (uint32_t i = 0; i < KMP_MAX_REGIONS; i++)
		if (vm->regions[i].in_use)
			backing_free(&vm->regions[i].backing);
	free(vm);
}

/* ---- vCPUs ---- */

struct kvm_vcpu *vm_vcpu_add(struct kvm_vm *vm, uint32_t id, void *guest_code)
{
	struct kvm_vcpu *vcpu = calloc(1, sizeof(*vcpu));
	int mmap_size;

	TEST_ASSERT(vcpu, "out of memory");
	TEST_ASSERT(vm->nr_vcpus < KMP_MAX_VCPUS && vm->nr_vcpus < vm->max_vcpus,
		    "too many vCPUs (KVM allows %u)", vm->max_vcpus);
	vcpu->vm = vm;
	vcpu->id = id;
	vcpu->fd = vm_ioctl(vm, KVM_CREATE_VCPU, (unsigned long)id);
	mmap_size = kvm_ioctl(vm->kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
	TEST_ASSERT(mmap_size >= (int)sizeof(struct kvm_run),
		    "KVM_GET_VCPU_MMAP_SIZE returned %d", mmap_size);
	vcpu->run_size = mmap_size;
	vcpu->run = mmap(NULL, mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu->fd, 0);
	TEST_ASSERT(vcpu->run != MAP_FAILED, "mmap of vCPU %u's kvm_run failed", id);

	vcpu->stack_gva = vm_vaddr_alloc(vm, VCPU_STACK_SIZE);
	arch_vcpu_setup(vcpu, guest_code);
	vm->vcpus[vm->nr_vcpus++] = vcpu;
	return vcpu;
}

void vcpu_args_set(struct kvm_vcpu *vcpu, int n, ...)
{
	uint64_t args[6];
	va_list ap;

	TEST_ASSERT(n >= 0 && n <= 6, "vcpu_args_set: %d arguments, at most 6", n);
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		args[i] = va_arg(ap, uint64_t);
	va_end(ap);
	arch_vcpu_args_set(vcpu, n, args);
}

void vcpu_regs_get(struct kvm_vcpu *vcpu, struct kvm_regs *regs)
{
	vcpu_ioctl(vcpu, KVM_GET_REGS, regs);
}

void vcpu_regs_set(struct kvm_vcpu *vcpu, struct kvm_regs *regs)
{
	vcpu_ioctl(vcpu, KVM_SET_REGS, regs);
}

void vcpu_sregs_get(struct kvm_vcpu *vcpu, struct kvm_sregs *sregs)
{
	vcpu_ioctl(vcpu, KVM_GET_SREGS, sregs);
}

void vcpu_sregs_set(struct kvm_vcpu *vcpu, struct kvm_sregs *sregs)
{
	vcpu_ioctl(vcpu, KVM_SET_SREGS, sregs);
}

void (*vcpu_eintr_hook)(struct kvm_vcpu *vcpu);

int __vcpu_run(struct kvm_vcpu *vcpu)
{
	uint64_t t0;
	int ret, err;

	vcpu->state = VCPU_IN_GUEST;
	t0 = account_on ? account_clock_ns() : 0;
	ret = ioctl(vcpu->fd, KVM_RUN, NULL);
	err = errno;
	if (account_on) {
		uint64_t t1 = account_clock_ns();

		account_thread_ioctl_ns += t1 - t0;
		__atomic_store_n(&vcpu->run_ns, vcpu->run_ns + t1 - t0, __ATOMIC_RELAXED);
		if (vcpu->run_first_ns < account_region_start_ns)
			vcpu->run_first_ns = t0;
		vcpu->run_exit_ns = t1;
	}
	vcpu->last_exit_reason = vcpu->run->exit_reason;
	errno = err;
	return ret;
}

int _vcpu_run(struct kvm_vcpu *vcpu)
{
	char exc[256];
	int ret;

	while ((ret = __vcpu_run(vcpu)) < 0 && errno == EINTR) {
		vcpu->run->immediate_exit = 0;
		if (vcpu_eintr_hook)
			vcpu_eintr_hook(vcpu);
	}
	if (!ret && arch_vcpu_exception(vcpu, exc, sizeof(exc)))
		vcpu_unexpected_exit(vcpu);
	return ret;
}

bool vcpu_memory_fault_exit(struct kvm_vcpu *vcpu)
{
	/* With KVM_CAP_MEMORY_FAULT_INFO, EFAULT comes with the faulting range. */
	return errno == EFAULT && vcpu->last_exit_reason == KVM_EXIT_MEMORY_FAULT;
}

void vcpu_run(struct kvm_vcpu *vcpu)
{
	if (_vcpu_run(vcpu))
		vcpu_run_fail(vcpu);
}

void vcpu_run_fail(struct kvm_vcpu *vcpu)
{
	if (vcpu_memory_fault_exit(vcpu))
		vcpu_unexpected_exit(vcpu);
	TEST_FAIL("KVM_RUN on vCPU %u failed: errno %d (%s)%s", vcpu->id, errno,
		  strerror(errno), errno == EFAULT ?
		  "; KVM could not access guest memory (a memslot's backing went away?)" : "");
}

const char *exit_reason_str(uint32_t reason)
{
	static const char *const names[] = {
		[KVM_EXIT_UNKNOWN] = "UNKNOWN",
		[KVM_EXIT_EXCEPTION] = "EXCEPTION",
		[KVM_EXIT_IO] = "IO",
		[KVM_EXIT_HYPERCALL] = "HYPERCALL",
		[KVM_EXIT_DEBUG] = "DEBUG",
		[KVM_EXIT_HLT] = "HLT",
		[KVM_EXIT_MMIO] = "MMIO",
		[KVM_EXIT_IRQ_WINDOW_OPEN] = "IRQ_WINDOW_OPEN",
		[KVM_EXIT_SHUTDOWN] = "SHUTDOWN",
		[KVM_EXIT_FAIL_ENTRY] = "FAIL_ENTRY",
		[KVM_EXIT_INTR] = "INTR",
		[KVM_EXIT_SET_TPR] = "SET_TPR",
		[KVM_EXIT_TPR_ACCESS] = "TPR_ACCESS",
		[KVM_EXIT_INTERNAL_ERROR] = "INTERNAL_ERROR",
		[KVM_EXIT_SYSTEM_EVENT] = "SYSTEM_EVENT",
		[KVM_EXIT_HYPERV] = "HYPERV",
		[KVM_EXIT_X86_RDMSR] = "X86_RDMSR",
		[KVM_EXIT_X86_WRMSR] = "X86_WRMSR",
		[KVM_EXIT_DIRTY_RING_FULL] = "DIRTY_RING_FULL",
		[KVM_EXIT_PAPR_HCALL] = "PAPR_HCALL",
		[KVM_EXIT_MEMORY_FAULT] = "MEMORY_FAULT",
	};

	if (reason < ARRAY_SIZE(names) && names[reason])
		return names[reason];
	return "?";
}

void vcpu_dump(FILE *f, struct kvm_vcpu *vcpu, const char *indent)
{
	struct kvm_run *run = vcpu->run;

	fprintf(f, "%svCPU %u: last exit %s (%u)", indent, vcpu->id,
		exit_reason_str(vcpu->last_exit_reason), vcpu->last_exit_reason);
	switch (vcpu->last_exit_reason) {
	case KVM_EXIT_IO:
		fprintf(f, ", port 0x%x %s size %u", run->io.port,
			run->io.direction == KVM_EXIT_IO_OUT ? "out" : "in", run->io.size);
		break;
	case KVM_EXIT_MMIO:
		fprintf(f, ", gpa 0x%llx %s len %u", (unsigned long long)run->mmio.phys_addr,
			run->mmio.is_write ? "write" : "read", run->mmio.len);
		break;
	case KVM_EXIT_INTERNAL_ERROR:
		fprintf(f, ", suberror %u", run->internal.suberror);
		for (uint32_t i = 0; i < run->internal.ndata && i < 16; i++)
			fprintf(f, " data[%u]=0x%llx", i, (unsigned long long)run->internal.data[i]);
		break;
	case KVM_EXIT_MEMORY_FAULT:
		fprintf(f, ", gpa 0x%llx size 0x%llx flags 0x%llx",
			(unsigned long long)kvm_run_memory_fault(run)->gpa,
			(unsigned long long)kvm_run_memory_fault(run)->size,
			(unsigned long long)kvm_run_memory_fault(run)->flags);
		break;
	case KVM_EXIT_FAIL_ENTRY:
		fprintf(f, ", hardware reason 0x%llx",
			(unsigned long long)run->fail_entry.hardware_entry_failure_reason);
		break;
	}
	fputc('\n', f);
	arch_vcpu_dump(f, vcpu, indent);
}

/* Arches whose exception reports only arch_vcpu_dump() decodes keep this default. */
const char * __attribute__((weak)) arch_vcpu_exception(struct kvm_vcpu *vcpu, char *buf,
							size_t len)
{
	return NULL;
}

void vcpu_unexpected_exit(struct kvm_vcpu *vcpu)
{
	char exc[256];

	fflush(stdout);
	fprintf(stderr, "Unexpected exit from vCPU %u:\n", vcpu->id);
	vcpu_dump(stderr, vcpu, "  ");
	if (arch_vcpu_exception(vcpu, exc, sizeof(exc)))
		TEST_FAIL("vCPU %u: %s", vcpu->id, exc);
	TEST_FAIL("vCPU %u: unexpected exit %s (%u) at PC 0x%lx", vcpu->id,
		  exit_reason_str(vcpu->last_exit_reason), vcpu->last_exit_reason,
		  (unsigned long)arch_vcpu_pc(vcpu));
}
