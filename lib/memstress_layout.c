// SPDX-License-Identifier: GPL-2.0
/*
 * Where the test memory is and which part of it each vCPU walks, read back
 * from the arguments the guest itself runs with, for the record's "layout":
 * what a test checks an upstream option against.
 */
#include <stdlib.h>

#include "json.h"
#include "memstress.h"
#include "test_util.h"

void memstress_layout_get(const struct memstress *ms, struct memstress_layout *l)
{
	uint32_t n = ms->p.nr_vcpus;

	l->gpa = ms->gpa;
	l->bytes = ms->size;
	l->slots = ms->p.slots;
	l->nr_vcpus = n;
	l->vcpu = calloc(n, sizeof(*l->vcpu));
	TEST_ASSERT(l->vcpu, "out of memory");
	for (uint32_t i = 0; i < n; i++) {
		/* Identity-mapped: the guest's gva is the gpa. */
		l->vcpu[i].gpa = ms->gargs->vcpu_args[i].gva;
		l->vcpu[i].pages = ms->gargs->vcpu_args[i].pages;
	}
}

void memstress_layout_json(struct json *j, const struct memstress_layout *l)
{
	if (!l->vcpu)
		return;		/* no VM was made */
	json_object_begin(j, "layout");
	json_u64(j, "gpa", l->gpa);
	json_u64(j, "bytes", l->bytes);
	json_u64(j, "slots", l->slots);
	json_u64(j, "page_bytes", memstress_args.page_size);
	json_array_begin(j, "vcpu_gpa");
	for (uint32_t i = 0; i < l->nr_vcpus; i++)
		json_u64(j, NULL, l->vcpu[i].gpa);
	json_array_end(j);
	json_array_begin(j, "vcpu_pages");
	for (uint32_t i = 0; i < l->nr_vcpus; i++)
		json_u64(j, NULL, l->vcpu[i].pages);
	json_array_end(j);
	json_object_end(j);
}

void memstress_layout_free(struct memstress_layout *l)
{
	free(l->vcpu);
	l->vcpu = NULL;
}
