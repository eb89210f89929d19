// SPDX-License-Identifier: GPL-2.0
/*
 * The host a result was measured on: kernel, CPU, memory, which KVM module
 * and MMU flavour, and the KVM module parameters.  Every result prints it as
 * "# " lines and stores it in its JSON record, so numbers from different
 * hosts are never compared blindly.
 */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "host_desc.h"
#include "host_state.h"
#include "json.h"
#include "test_util.h"
#include "topology.h"

/* Vendor modules, most specific first; the first one loaded is reported. */
static const char *const kvm_vendor_modules[] = {
	"kvm_pvm", "kvm_intel", "kvm_amd", "kvm_hv", "kvm_pr",
};

/* Parameters that change how guest memory is mapped: shown in the KVM line. */
static const char *const mmu_params[] = {
	"tdp_mmu", "eager_page_split", "nx_huge_pages", "mmio_caching",
	"ept", "eptad", "unrestricted_guest", "enable_unrestricted_guest", "pml",
	"npt",
};

/* Copy src into a fixed buffer, cut at the first newline. */
static void copy_line(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%.*s", (int)strcspn(src, "\n"), src);
}

static char *skip_spaces(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/*
 * "model name" on x86, "cpu" on powerpc, "Processor" on older arm; arm64
 * often has none of them, so hwloc's model string is the fallback.
 * *mmu_line gets powerpc's "MMU" field ("Radix" or "Hash"), if any.
 */
static void read_cpu_model(struct host_desc *d, char *mmu_line, size_t mmu_size,
			   bool *impl_zero)
{
	static const char *const keys[] = { "model name", "cpu", "Processor" };
	int best = ARRAY_SIZE(keys);
	char line[512], *colon, *val, *end;
	const char *hw;
	FILE *f;
	int i;

	mmu_line[0] = '\0';
	f = fopen("/proc/cpuinfo", "re");
	while (f && fgets(line, sizeof(line), f)) {
		colon = strchr(line, ':');
		if (!colon)
			continue;
		/* Key without its trailing tabs and spaces. */
		end = colon;
		while (end > line && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		*end = '\0';
		val = skip_spaces(colon + 1);

		if (!strcmp(line, "MMU") && !mmu_line[0])
			copy_line(mmu_line, mmu_size, val);
		if (!strcmp(line, "CPU implementer") && strtoul(val, NULL, 0) == 0)
			*impl_zero = true;
		for (i = 0; i < best; i++) {
			if (!strcmp(line, keys[i]) && *val != '\n') {
				copy_line(d->cpu_model, sizeof(d->cpu_model), val);
				best = i;
				break;
			}
		}
	}
	if (f)
		fclose(f);

	if (!d->cpu_model[0]) {
		hw = topology_cpu_model();
		if (hw)
			copy_line(d->cpu_model, sizeof(d->cpu_model), hw);
	}
}

static bool module_loaded(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/%s", name);
	return access(path, F_OK) == 0;
}

/* Whether the first "flags" line of /proc/cpuinfo lists flag (x86). */
static bool cpu_has_flag(const char *flag)
{
	char *line = NULL, *tok, *save, *colon;
	size_t cap = 0;
	bool found = false;
	FILE *f = fopen("/proc/cpuinfo", "re");

	while (f && getline(&line, &cap, f) > 0) {
		colon = strchr(line, ':');
		if (strncmp(line, "flags", 5) || !colon)
			continue;
		for (tok = strtok_r(colon + 1, " \t\n", &save); tok && !found;
		     tok = strtok_r(NULL, " \t\n", &save))
			found = !strcmp(tok, flag);
		break;
	}
	free(line);
	if (f)
		fclose(f);
	return found;
}

/*
 * A built-in vendor module has a /sys/module folder even where its init
 * failed (kvm_intel on an AMD CPU, when a kernel builds both in): the CPU's
 * own extension (vmx, svm) says which of the two runs KVM.
 */
static bool vendor_module_runs(const char *name)
{
	if (!module_loaded(name))
		return false;
	if (!strcmp(name, "kvm_intel"))
		return cpu_has_flag("vmx");
	if (!strcmp(name, "kvm_amd"))
		return cpu_has_flag("svm");
	return true;
}

static int no_dot_files(const struct dirent *e)
{
	return e->d_name[0] != '.';
}

/* Read one parameter file; false if it cannot be read (write-only, EIO, ...). */
static bool read_param(const char *path, char *val, size_t size)
{
	ssize_t len;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	len = read(fd, val, size - 1);
	close(fd);
	if (len < 0)
		return false;
	val[len] = '\0';
	val[strcspn(val, "\n")] = '\0';
	return true;
}

/* Add each file in /sys/module/<module>/parameters as "<module>.<file>", sorted. */
static void collect_params(struct host_desc *d, const char *module)
{
	char dir[128], path[400];
	struct dirent **list;
	int i, n;

	snprintf(dir, sizeof(dir), "/sys/module/%s/parameters", module);
	n = scandir(dir, &list, no_dot_files, alphasort);
	if (n < 0)
		return;
	for (i = 0; i < n; i++) {
		const char *file = list[i]->d_name;
		int k = d->nr_params;

		/* Skip names too long to keep and files we may not read. */
		if (k < HOST_DESC_MAX_PARAMS &&
		    snprintf(d->params[k].name, sizeof(d->params[k].name), "%s.%s",
			     module, file) < (int)sizeof(d->params[k].name) &&
		    snprintf(path, sizeof(path), "%s/%s", dir, file) < (int)sizeof(path) &&
		    read_param(path, d->params[k].value, sizeof(d->params[k].value)))
			d->nr_params++;
		free(list[i]);
	}
	free(list);
}

/* Value of "<module>.<name>", or NULL if the host does not have it. */
static const char *param(const struct host_desc *d, const char *module, const char *name)
{
	size_t mlen = strlen(module);
	int i;

	for (i = 0; i < d->nr_params; i++) {
		const char *p = d->params[i].name;

		if (!strncmp(p, module, mlen) && p[mlen] == '.' && !strcmp(p + mlen + 1, name))
			return d->params[i].value;
	}
	return NULL;
}

/* Y/N booleans, or 0/1 for older integer parameters (kvm_amd.npt). */
static bool param_on(const char *v)
{
	return v && (v[0] == 'Y' || v[0] == 'y' || v[0] == '1');
}

static bool param_off(const char *v)
{
	return v && (v[0] == 'N' || v[0] == 'n' || v[0] == '0');
}

/* The names printed and recorded ("MMU: tdp_mmu"), by enum host_mmu. */
static const char *const mmu_names[] = {
	[HOST_MMU_NONE] = "", [HOST_MMU_TDP] = "tdp_mmu", [HOST_MMU_LEGACY_TDP] = "legacy tdp",
	[HOST_MMU_SHADOW] = "shadow paging", [HOST_MMU_PVM] = "shadow paging",
	[HOST_MMU_STAGE2] = "stage-2", [HOST_MMU_HPT] = "hpt", [HOST_MMU_RADIX] = "radix",
	[HOST_MMU_PR] = "shadow paging",
};

/*
 * Which MMU builds the guest's page tables on this host.  EPT/NPT off means
 * shadow paging whatever tdp_mmu says (6.1 still reads tdp_mmu=Y with npt=0).
 */
enum host_mmu host_mmu_classify(const struct host_desc *d)
{
	const char *m = d->kvm_module, *machine = d->machine, *ppc_mmu = d->cpu_mmu;

	if (!strcmp(m, "none"))
		return HOST_MMU_NONE;
	if (!strcmp(m, "kvm_pvm"))
		return HOST_MMU_PVM;
	if (!strcmp(m, "kvm_pr"))
		return HOST_MMU_PR;
	if (param_off(param(d, "kvm_intel", "ept")) || param_off(param(d, "kvm_amd", "npt")))
		return HOST_MMU_SHADOW;
	if (!strcmp(m, "kvm_hv"))
		return strstr(ppc_mmu, "Radix") ? HOST_MMU_RADIX : HOST_MMU_HPT;
	if (!strcmp(machine, "aarch64") || !strncmp(machine, "arm", 3))
		return HOST_MMU_STAGE2;
	return param_on(param(d, "kvm", "tdp_mmu")) ? HOST_MMU_TDP : HOST_MMU_LEGACY_TDP;
}

enum host_mmu host_mmu(void)
{
	static struct host_desc d;
	static bool read;

	if (!read) {
		host_desc_read(&d);
		read = true;
	}
	return d.mmu_kind;
}

/*
 * kvm_pvm emulates every guest instruction: accesses never fault into its
 * MMU, which keeps about one shadow page, and its emulator retires a store
 * before the ring-full exit, which may come late.  Every other MMU maps
 * what the guest touches and exits on the faulting store.
 */
static const struct host_mmu_traits mmu_traits[] = {
	[HOST_MMU_NONE] = { 0 },
	[HOST_MMU_TDP ... HOST_MMU_SHADOW] = { .maps_guest_accesses = true,
					       .shadow_count_live = true,
					       .ring_full_relogs = true },
	[HOST_MMU_PVM] = { .ring_can_overfill = true },
	[HOST_MMU_STAGE2 ... HOST_MMU_PR] = { .maps_guest_accesses = true,
					      .shadow_count_live = true,
					      .ring_full_relogs = true },
};

const struct host_mmu_traits *host_mmu_traits(void)
{
	return &mmu_traits[host_mmu()];
}

const char *host_mmu_name(void)
{
	enum host_mmu m = host_mmu();

	return m == HOST_MMU_PVM ? "kvm_pvm shadow" : m == HOST_MMU_NONE ? "no" : mmu_names[m];
}

/*
 * KMP_EMULATED_HOST is printed in KTAP and records: one printable line, checked
 * first, and never cut short (compare reads the patches and config it names).
 */
static void __attribute__((constructor)) emulated_host_env_check(void)
{
	const char *env = getenv("KMP_EMULATED_HOST");
	size_t max = sizeof(((struct host_desc *)0)->emulated) - 1;

	if (env && strlen(env) > max)
		usage_error("KMP_EMULATED_HOST: %zu characters: at most %zu", strlen(env), max);
	for (const char *c = env ? env : ""; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			usage_error("KMP_EMULATED_HOST: control character 0x%02x: must be one "
				    "line of printable text", (unsigned char)*c);
}

/*
 * A KVM host that QEMU emulates in software: its timings are not bare-metal
 * figures.  scripts/emu/boot.sh says so through KMP_EMULATED_HOST; without
 * it, QEMU's powernv machines (never hardware-accelerated) and CPUs with
 * the software-reserved implementer code 0x00 (QEMU's "-cpu max") tell.
 */
static void detect_emulation(struct host_desc *d, bool cpu_impl_zero)
{
	const char *env = getenv("KMP_EMULATED_HOST");
	char compat[256] = "";
	ssize_t len;
	int fd;

	if (env && *env) {
		snprintf(d->emulated, sizeof(d->emulated), "%s", env);
		return;
	}
	fd = open("/proc/device-tree/compatible", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		len = read(fd, compat, sizeof(compat) - 1);
		close(fd);
		/* A list of NUL-separated strings: the first one names the machine. */
		if (len > 0 && !strncmp(compat, "qemu,powernv", 12))
			snprintf(d->emulated, sizeof(d->emulated), "QEMU %s machine", compat);
	}
	if (!d->emulated[0] && cpu_impl_zero)
		snprintf(d->emulated, sizeof(d->emulated), "QEMU (CPU implementer 0x00)");
}

void host_desc_read(struct host_desc *d)
{
	bool impl_zero = false;
	char ppc_mmu[32];
	struct utsname u;
	size_t i;

	memset(d, 0, sizeof(*d));
	if (!uname(&u)) {
		snprintf(d->kernel, sizeof(d->kernel), "%s %s", u.release, u.version);
		snprintf(d->machine, sizeof(d->machine), "%.31s", u.machine);
	}
	read_cpu_model(d, ppc_mmu, sizeof(ppc_mmu), &impl_zero);
	detect_emulation(d, impl_zero);
	d->cpus = topology_nr_cpus();
	d->cores = topology_nr_cores();
	d->numa_nodes = topology_nr_numa_nodes();
	d->mem_total_bytes = host_meminfo_bytes("MemTotal");

	snprintf(d->kvm_module, sizeof(d->kvm_module), "none");
	for (i = 0; i < ARRAY_SIZE(kvm_vendor_modules); i++) {
		if (vendor_module_runs(kvm_vendor_modules[i])) {
			snprintf(d->kvm_module, sizeof(d->kvm_module), "%s",
				 kvm_vendor_modules[i]);
			break;
		}
	}
	/* arm64 (and a kvm built into the kernel) has no vendor module. */
	if (!strcmp(d->kvm_module, "none") && access("/dev/kvm", F_OK) == 0)
		snprintf(d->kvm_module, sizeof(d->kvm_module), "kvm (built-in)");

	collect_params(d, "kvm");
	if (strcmp(d->kvm_module, "none") && strncmp(d->kvm_module, "kvm ", 4))
		collect_params(d, d->kvm_module);

	snprintf(d->cpu_mmu, sizeof(d->cpu_mmu), "%s", ppc_mmu);
	d->mmu_kind = host_mmu_classify(d);
	snprintf(d->mmu, sizeof(d->mmu), "%s", mmu_names[d->mmu_kind]);
}

/* "tdp_mmu=N, eager_page_split=Y, ..." for the parameters this host has. */
static void format_mmu_params(const struct host_desc *d, char *buf, size_t size)
{
	size_t len = 0, i;
	const char *dot;
	int p;

	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(mmu_params); i++) {
		for (p = 0; p < d->nr_params && len < size; p++) {
			dot = strchr(d->params[p].name, '.');
			if (!dot || strcmp(dot + 1, mmu_params[i]))
				continue;
			len += snprintf(buf + len, size - len, "%s%s=%s", len ? ", " : "",
					mmu_params[i], d->params[p].value);
		}
	}
}

/*
 * What the host's timings are: native (its own clock), or an emulated host whose clock
 * follows this machine's (real time) or the instructions it executes (QEMU
 * -icount, as boot.sh passes it): path length, repeatable.
 */
static const char *host_clock(const struct host_desc *d)
{
	if (!d->emulated[0])
		return "native";
	return strstr(d->emulated, " -icount ") ? "emulated, icount" : "emulated, real time";
}

void host_desc_print(const struct host_desc *d)
{
	char params[512];
	int release_len = strcspn(d->kernel, " ");

	ksft_print_msg("Host: Linux %.*s %s\n", release_len, d->kernel, d->machine);
	ksft_print_msg("CPU: %s, %d CPUs, %d cores, %d NUMA node(s)\n",
		       d->cpu_model[0] ? d->cpu_model : "unknown model",
		       d->cpus, d->cores, d->numa_nodes);
	ksft_print_msg("Memory: %.1f GiB\n", (double)d->mem_total_bytes / (1ULL << 30));

	format_mmu_params(d, params, sizeof(params));
	if (!strcmp(d->kvm_module, "none"))
		ksft_print_msg("KVM: none (no KVM module loaded)\n");
	else if (params[0])
		ksft_print_msg("KVM: %s, MMU: %s (%s)\n", d->kvm_module, d->mmu, params);
	else
		ksft_print_msg("KVM: %s, MMU: %s\n", d->kvm_module, d->mmu);
	if (d->emulated[0])
		ksft_print_msg("EMULATED host (%s): timings are not bare-metal figures%s\n",
			       d->emulated, strcmp(host_clock(d), "emulated, icount") ? "" :
			       "; instruction-paced (icount): they measure code path length");
}

void host_desc_json(const struct host_desc *d, struct json *j)
{
	int i;

	json_object_begin(j, "host");
	json_string(j, "kernel", d->kernel);
	json_string(j, "machine", d->machine);
	json_string(j, "cpu_model", d->cpu_model);
	json_i64(j, "cpus", d->cpus);
	json_i64(j, "cores", d->cores);
	json_i64(j, "numa_nodes", d->numa_nodes);
	json_u64(j, "mem_total_bytes", d->mem_total_bytes);
	json_string(j, "kvm_module", d->kvm_module);
	json_string(j, "mmu", d->mmu);
	json_string(j, "emulated", d->emulated[0] ? d->emulated : NULL);
	json_string(j, "clock", host_clock(d));
	json_object_begin(j, "kvm_params");
	for (i = 0; i < d->nr_params; i++)
		json_string(j, d->params[i].name, d->params[i].value);
	json_object_end(j);
	json_object_end(j);
}
