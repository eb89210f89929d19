// SPDX-License-Identifier: GPL-2.0
/* KVM binary stats: header and descriptors once, then values by pread. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "host_desc.h"
#include "json.h"
#include "kvm_util.h"
#include "stats.h"

static void read_at(const struct kvm_stats *st, void *buf, size_t len, off_t off)
{
	ssize_t n = pread(st->fd, buf, len, off);

	TEST_ASSERT(n == (ssize_t)len, "reading KVM stats fd at %ld: %zd of %zu bytes",
		    (long)off, n, len);
}

static void stats_open_fd(struct kvm_stats *st, int owner_fd, const char *what)
{
	memset(st, 0, sizeof(*st));
	st->fd = ioctl(owner_fd, KVM_GET_STATS_FD, NULL);
	if (st->fd < 0)
		TEST_FAIL("KVM_GET_STATS_FD on the %s failed: %s; binary stats need Linux 5.14+",
			  what, strerror(errno));
	read_at(st, &st->hdr, sizeof(st->hdr), 0);
	TEST_ASSERT(st->hdr.name_size && st->hdr.num_desc, "empty KVM stats header (%s)", what);
	if (st->hdr.id_offset)
		read_at(st, st->id, sizeof(st->id) < st->hdr.name_size ? sizeof(st->id) :
			st->hdr.name_size, st->hdr.id_offset);
	st->desc_size = sizeof(struct kvm_stats_desc) + st->hdr.name_size;
	st->descs = calloc(st->hdr.num_desc, st->desc_size);
	TEST_ASSERT(st->descs, "out of memory");
	read_at(st, st->descs, st->hdr.num_desc * st->desc_size, st->hdr.desc_offset);

	/* The data block ends after the last descriptor's values. */
	for (size_t i = 0; i < st->hdr.num_desc; i++) {
		struct kvm_stats_desc *d = stats_desc(st, i);
		size_t end = d->offset / sizeof(uint64_t) + d->size;

		d->name[st->hdr.name_size - 1] = 0;
		if (end > st->nr_values)
			st->nr_values = end;
	}
}

void stats_open_vm(struct kvm_stats *st, struct kvm_vm *vm)
{
	stats_open_fd(st, vm->fd, "VM");
}

void stats_open_vcpu(struct kvm_stats *st, struct kvm_vcpu *vcpu)
{
	stats_open_fd(st, vcpu->fd, "vCPU");
}

void stats_close(struct kvm_stats *st)
{
	if (st->fd > 0)
		close(st->fd);
	free(st->descs);
	memset(st, 0, sizeof(*st));
}

struct kvm_stats_desc *stats_desc(const struct kvm_stats *st, size_t i)
{
	return (struct kvm_stats_desc *)((char *)st->descs + i * st->desc_size);
}

struct kvm_stats_desc *stats_find(const struct kvm_stats *st, const char *name)
{
	for (size_t i = 0; i < st->hdr.num_desc; i++)
		if (!strcmp(stats_desc(st, i)->name, name))
			return stats_desc(st, i);
	return NULL;
}

bool stats_try_read(const struct kvm_stats *st, const char *name, uint64_t *val)
{
	struct kvm_stats_desc *d = stats_find(st, name);

	if (!d)
		return false;
	read_at(st, val, sizeof(*val), st->hdr.data_offset + d->offset);
	return true;
}

uint64_t stats_read(const struct kvm_stats *st, const char *name)
{
	uint64_t v;

	TEST_ASSERT(stats_try_read(st, name, &v), "KVM stat '%s' does not exist here (%s)",
		    name, st->id);
	return v;
}

void stats_snapshot(const struct kvm_stats *st, struct stats_snapshot *snap)
{
	snap->nr_values = st->nr_values;
	snap->values = calloc(st->nr_values, sizeof(uint64_t));
	TEST_ASSERT(snap->values, "out of memory");
	read_at(st, snap->values, st->nr_values * sizeof(uint64_t), st->hdr.data_offset);
}

void stats_snapshot_zero(const struct kvm_stats *st, struct stats_snapshot *snap)
{
	snap->nr_values = st->nr_values;
	snap->values = calloc(st->nr_values, sizeof(uint64_t));
	TEST_ASSERT(snap->values, "out of memory");
}

void stats_delta_add(struct stats_snapshot *acc, const struct stats_snapshot *before,
		     const struct stats_snapshot *after)
{
	for (size_t i = 0; i < acc->nr_values; i++)
		acc->values[i] += after->values[i] - before->values[i];
}

void stats_snapshot_free(struct stats_snapshot *snap)
{
	free(snap->values);
	snap->values = NULL;
}

bool stats_snapshot_value(const struct kvm_stats *st, const struct stats_snapshot *snap,
			  const char *name, uint64_t *val)
{
	const struct kvm_stats_desc *d = stats_find(st, name);

	if (!d)
		return false;
	*val = snap->values[d->offset / sizeof(uint64_t)];
	return true;
}

static int64_t desc_delta(const struct kvm_stats_desc *d, const struct stats_snapshot *before,
			  const struct stats_snapshot *after)
{
	size_t i = d->offset / sizeof(uint64_t);

	return (int64_t)(after->values[i] - before->values[i]);
}

int64_t stats_delta(const struct kvm_stats *st, const struct stats_snapshot *before,
		    const struct stats_snapshot *after, const char *name)
{
	struct kvm_stats_desc *d = stats_find(st, name);

	return d ? desc_delta(d, before, after) : 0;
}

/* Histograms have many values; a delta of their first bucket means little. */
static bool is_scalar(const struct kvm_stats_desc *d)
{
	uint32_t type = d->flags & KVM_STATS_TYPE_MASK;

	return type == KVM_STATS_TYPE_CUMULATIVE || type == KVM_STATS_TYPE_INSTANT ||
	       type == KVM_STATS_TYPE_PEAK;
}

void stats_delta_json(const struct kvm_stats *st, const struct stats_snapshot *before,
		      const struct stats_snapshot *after, struct json *j, const char *key)
{
	json_object_begin(j, key);
	/* Zeros too: "pages_4k": 0 says this host's MMU did not move it. */
	for (size_t i = 0; i < st->hdr.num_desc; i++) {
		struct kvm_stats_desc *d = stats_desc(st, i);

		if (is_scalar(d))
			json_i64(j, d->name, desc_delta(d, before, after));
	}
	json_object_end(j);
}

void stats_delta_print(const struct kvm_stats *st, const struct stats_snapshot *before,
		       const struct stats_snapshot *after, const char *prefix)
{
	for (size_t i = 0; i < st->hdr.num_desc; i++) {
		struct kvm_stats_desc *d = stats_desc(st, i);
		int64_t delta = desc_delta(d, before, after);

		if (is_scalar(d) && delta)
			ksft_print_msg("%s%s: %+ld\n", prefix, d->name, (long)delta);
	}
}

void stats_delta_print_section(const struct kvm_stats *st, const struct stats_snapshot *before,
			       const struct stats_snapshot *after, const char *heading)
{
	size_t scalars = 0, changed = 0;

	for (size_t i = 0; i < st->hdr.num_desc; i++) {
		struct kvm_stats_desc *d = stats_desc(st, i);

		if (is_scalar(d)) {
			scalars++;
			changed += desc_delta(d, before, after) != 0;
		}
	}
	if (changed) {
		ksft_print_msg("%s:\n", heading);
		stats_delta_print(st, before, after, "  ");
	} else {
		ksft_print_msg("%s: %s\n", heading, scalars ? "none changed" : "none on this host");
	}
}

/* ---- leaf mappings per size ---- */

static const char *const mapping_stats[] = { "pages_4k", "pages_2m", "pages_1g" };

void stats_mappings_read(const struct kvm_stats *st, struct stats_mappings *m, const char *when)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->when, sizeof(m->when), "%s", when);
	/* An MMU that emulates the guest's accesses has the stats, but they never move. */
	if (host_mmu() != HOST_MMU_NONE && !host_mmu_traits()->maps_guest_accesses) {
		m->why = "this host's KVM emulates the guest's accesses and maps nothing it counts";
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(mapping_stats); i++) {
		if (!stats_try_read(st, mapping_stats[i], &m->n[i])) {
			m->why = "this KVM has no pages_4k/2m/1g stats";
			return;
		}
	}
	m->counted = true;
}

void stats_mappings_print(const struct stats_mappings *m)
{
	if (m->counted)
		ksft_print_msg("guest memory mapped by KVM %s: 4K %lu, 2M %lu, 1G %lu "
			       "(pages_4k/2m/1g)\n", m->when, (unsigned long)m->n[0],
			       (unsigned long)m->n[1], (unsigned long)m->n[2]);
	else
		ksft_print_msg("guest memory mapped by KVM %s: not counted (%s)\n", m->when, m->why);
}

void stats_mappings_json(struct json *j, const struct stats_mappings *m)
{
	if (!m->when[0])
		return;		/* the run ended before it was read */
	json_object_begin(j, "mappings");
	json_string(j, "when", m->when);
	for (size_t i = 0; i < ARRAY_SIZE(mapping_stats); i++)
		if (m->counted)
			json_u64(j, mapping_stats[i], m->n[i]);
		else
			json_null(j, mapping_stats[i]);
	json_string(j, "not_counted", m->counted ? NULL : m->why);
	json_object_end(j);
}
