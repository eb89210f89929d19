// SPDX-License-Identifier: GPL-2.0
/*
 * Host topology through hwloc: how many CPUs, cores and NUMA nodes the host
 * has, which CPUs a -c option may name, and pinning threads to one CPU.
 *
 * The topology is loaded on first use, from whichever thread gets there
 * first, and then only read.
 */
#include <errno.h>
#include <hwloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "test_util.h"
#include "topology.h"

static hwloc_topology_t topo;
static pthread_mutex_t topo_lock = PTHREAD_MUTEX_INITIALIZER;

static hwloc_topology_t topology_get(void)
{
	hwloc_topology_t t;

	pthread_mutex_lock(&topo_lock);
	if (!topo) {
		TEST_ASSERT(!hwloc_topology_init(&t), "hwloc_topology_init() failed");
		TEST_ASSERT(!hwloc_topology_load(t), "hwloc_topology_load() failed");
		topo = t;
	}
	t = topo;
	pthread_mutex_unlock(&topo_lock);
	return t;
}

static int count_objs(hwloc_obj_type_t type)
{
	int n = hwloc_get_nbobjs_by_type(topology_get(), type);

	return n > 0 ? n : 0;
}

int topology_nr_cpus(void)
{
	return count_objs(HWLOC_OBJ_PU);
}

int topology_nr_cores(void)
{
	int cores = count_objs(HWLOC_OBJ_CORE);

	/* Some virtual machines expose no core level: count the PUs then. */
	return cores ? cores : topology_nr_cpus();
}

int topology_nr_numa_nodes(void)
{
	int nodes = count_objs(HWLOC_OBJ_NUMANODE);

	return nodes ? nodes : 1;
}

/* CPUs this process may run on: online (in the topology) and allowed. */
static bool cpu_usable(hwloc_topology_t t, int cpu)
{
	return cpu >= 0 &&
	       hwloc_bitmap_isset(hwloc_topology_get_topology_cpuset(t), cpu) &&
	       hwloc_bitmap_isset(hwloc_topology_get_allowed_cpuset(t), cpu);
}

bool topology_cpu_online(int cpu)
{
	return cpu_usable(topology_get(), cpu);
}

int topology_parse_cpus_opt(const char *opt, const char *s, int *cpus, int max)
{
	hwloc_topology_t t = topology_get();
	hwloc_bitmap_t usable;
	char err[128], list[256];
	int n, i;

	n = parse_cpu_list(s, cpus, max, err, sizeof(err));
	if (n < 0)
		usage_error("%s '%s': %s", opt, s, err);

	for (i = 0; i < n; i++) {
		if (cpu_usable(t, cpus[i]))
			continue;

		/* Name the CPUs that would have worked, as a list like "0-3,8". */
		usable = hwloc_bitmap_alloc();
		TEST_ASSERT(usable, "hwloc_bitmap_alloc() failed");
		hwloc_bitmap_and(usable, hwloc_topology_get_topology_cpuset(t),
				 hwloc_topology_get_allowed_cpuset(t));
		hwloc_bitmap_list_snprintf(list, sizeof(list), usable);
		hwloc_bitmap_free(usable);

		if (cpus[i] >= 0 &&
		    hwloc_bitmap_isset(hwloc_topology_get_complete_cpuset(t), cpus[i]))
			usage_error("%s '%s': CPU %d is offline or not allowed (online CPUs: %s)",
				    opt, s, cpus[i], list);
		usage_error("%s '%s': CPU %d does not exist (online CPUs: %s)",
			    opt, s, cpus[i], list);
	}
	return n;
}

void topology_pin_thread(pthread_t thread, int cpu)
{
	size_t size;
	cpu_set_t *set;
	int ret;

	TEST_ASSERT(cpu >= 0, "cannot pin a thread to CPU %d", cpu);
	/* A dynamically sized set, so hosts with > CPU_SETSIZE CPUs work too. */
	set = CPU_ALLOC(cpu + 1);
	TEST_ASSERT(set, "CPU_ALLOC(%d) failed", cpu + 1);
	size = CPU_ALLOC_SIZE(cpu + 1);
	CPU_ZERO_S(size, set);
	CPU_SET_S(cpu, size, set);

	ret = pthread_setaffinity_np(thread, size, set);
	CPU_FREE(set);
	errno = ret;
	TEST_ASSERT(!ret, "pthread_setaffinity_np() could not pin a thread to CPU %d: %s",
		    cpu, strerror(ret));
}

void topology_fini(void)
{
	/* A later call into this file loads the topology again. */
	pthread_mutex_lock(&topo_lock);
	if (topo) {
		hwloc_topology_destroy(topo);
		topo = NULL;
	}
	pthread_mutex_unlock(&topo_lock);
}

const char *topology_cpu_model(void)
{
	hwloc_topology_t t = topology_get();
	hwloc_obj_t pkg = hwloc_get_obj_by_type(t, HWLOC_OBJ_PACKAGE, 0);

	if (!pkg)
		pkg = hwloc_get_root_obj(t);
	return hwloc_obj_get_info_by_name(pkg, "CPUModel");
}

int topology_parse_vcpu_pins_opt(const char *list, uint32_t nr_vcpus, int *cpus, int max)
{
	int n = topology_parse_cpus_opt("-c", list, cpus, max);

	if (n < (int)nr_vcpus || n > (int)nr_vcpus + 1)
		usage_error("-c '%s': %d CPUs for %u vCPUs; give one per vCPU, plus optionally "
			    "one for the main thread", list, n, nr_vcpus);
	return n;
}
