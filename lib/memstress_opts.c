// SPDX-License-Identifier: GPL-2.0
/* The options every memstress-based benchmark shares, with upstream's letters. */
#include "guest_modes.h"
#include "memstress.h"
#include "parse.h"
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
		p->nr_vcpus = parse_u64_opt("-v", arg, 1, memstress_max_vcpus());
		return true;
	}
	return false;
}

void memstress_pin_opt(struct memstress_params *p, const char *list, int *cpus, int max)
{
	p->nr_cpus = topology_parse_vcpu_pins_opt(list, p->nr_vcpus, cpus, max);
	p->cpus = cpus;
}
