// SPDX-License-Identifier: GPL-2.0
/* KVM binary stats: header and descriptors once, then values by pread. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

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
