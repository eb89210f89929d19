// SPDX-License-Identifier: GPL-2.0
/* The options every memstress-based benchmark shares, with upstream's letters. */
#include <stdio.h>

#include "guest_modes.h"
#include "json.h"
#include "memstress.h"
#include "parse.h"
#include "report.h"
#include "topology.h"

bool memstress_parse_opt(struct memstress_params *p, int opt, const char *arg)
{
	int src;

	switch (opt) {
	case 'b':
		p->vcpu_bytes = parse_size_opt("-b", arg);
		p->vcpu_bytes_text = arg;
		return true;
	case 'm':
		p->mode = guest_mode_parse_opt("-m", arg);
		return true;
	case 'o':
		p->shared = true;
		return true;
	case 's':
		src = backing_src_parse(arg);
		if (src < 0)
			usage_error("-s '%s': unknown backing source; use one of: %s", arg,
				    backing_src_names());
		p->src = src;
		return true;
	case 'v':
		/* The suite's limit here; KVM's, which needs /dev/kvm, in memstress_params_check(). */
		p->nr_vcpus = parse_u64_opt("-v", arg, 1, KMP_MAX_VCPUS);
		return true;
	}
	return false;
}

void memstress_pin_opt(struct memstress_params *p, const char *list, int *cpus, int max)
{
	p->nr_cpus = topology_parse_vcpu_pins_opt(list, p->nr_vcpus, cpus, max);
	p->cpus = cpus;
}

void memstress_cpus_json(struct json *j, const struct memstress_params *p)
{
	json_array_begin(j, "cpus");
	for (int i = 0; i < p->nr_cpus; i++)
		json_i64(j, NULL, p->cpus[i]);
	json_array_end(j);
}

const char *memstress_memory_text(const struct memstress_params *p, char *buf, size_t len)
{
	char per[32], all[32];

	size_format(p->vcpu_bytes, per, sizeof(per));
	if (!p->shared)
		snprintf(buf, len, "%s", per);
	else	/* upstream's -o: the vCPUs share all -v x -b bytes */
		snprintf(buf, len, "%s (-o: all %s shared by every vCPU)", per,
			 size_format(p->vcpu_bytes * p->nr_vcpus, all, sizeof(all)));
	return buf;
}
