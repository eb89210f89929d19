// SPDX-License-Identifier: GPL-2.0
/* Load the running binary's own PT_LOAD segments into guest memory. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_load.h"
#include "kvm_util.h"

static void read_exact(int fd, void *buf, size_t len, off_t off)
{
	ssize_t n = pread(fd, buf, len, off);

	TEST_ASSERT(n == (ssize_t)len, "reading /proc/self/exe at %ld: got %zd of %zu bytes",
		    (long)off, n, len);
}

uint64_t elf_load_self(struct kvm_vm *vm)
{
	uint64_t ps = vm->page_size, end = 0;
	Elf64_Ehdr eh;
	int fd;

	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	TEST_ASSERT(fd >= 0, "open /proc/self/exe");
	read_exact(fd, &eh, sizeof(eh), 0);
	TEST_ASSERT(!memcmp(eh.e_ident, ELFMAG, SELFMAG) && eh.e_ident[EI_CLASS] == ELFCLASS64,
		    "/proc/self/exe is not a 64-bit ELF file");
	/* The guest runs the code at its link address: a PIE would be relocated. */
	TEST_ASSERT(eh.e_type == ET_EXEC,
		    "the test binary must be linked with -no-pie (ELF type %u)", eh.e_type);
	TEST_ASSERT(eh.e_phentsize == sizeof(Elf64_Phdr), "unexpected ELF phentsize %u",
		    eh.e_phentsize);

	for (unsigned int i = 0; i < eh.e_phnum; i++) {
		uint64_t start, seg_end, gpa;
		Elf64_Phdr ph;

		read_exact(fd, &ph, sizeof(ph), eh.e_phoff + (off_t)i * sizeof(ph));
		if (ph.p_type != PT_LOAD || !ph.p_memsz)
			continue;
		TEST_ASSERT(ph.p_filesz <= ph.p_memsz, "PT_LOAD %u: filesz > memsz", i);

		start = ALIGN_DOWN(ph.p_vaddr, ps);
		seg_end = ALIGN_UP(ph.p_vaddr + ph.p_memsz, ps);
		/* Segments may share a page (text/data): map only pages not yet mapped. */
		for (uint64_t gva = start; gva < seg_end; gva += ps) {
			if (arch_gva2gpa(vm, gva) != -1ULL)
				continue;
			gpa = vm_phy_pages_alloc(vm, 1);
			arch_virt_map_page(vm, gva, gpa, ps);
		}
		/* Copy the file bytes page by page: guest pages need not be contiguous. */
		for (uint64_t off = 0; off < ph.p_filesz;) {
			uint64_t gva = ph.p_vaddr + off;
			uint64_t chunk = ps - (gva & (ps - 1));

			if (chunk > ph.p_filesz - off)
				chunk = ph.p_filesz - off;
			read_exact(fd, addr_gva2hva(vm, gva), chunk, ph.p_offset + off);
			off += chunk;
		}
		if (seg_end > end)
			end = seg_end;
	}
	close(fd);
	return end;
}
