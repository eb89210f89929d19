// SPDX-License-Identifier: GPL-2.0
/*
 * demand_paging results: upstream's lines, the rate table of Anish Moorthy's
 * "Add memory fault exits to avoid slow GUP" (2023), the JSON record.
 */
#include <math.h>
#include <stdlib.h>

#include "dp.h"
#include "json.h"
#include "record.h"
#include "report.h"

/* Share of the handlers' time spent outside UFFDIO_COPY/CONTINUE. */
static double outside_ioctl(const struct dp_result *r)
{
	if (!r->faults.handler_ns)
		return 0;
	return (double)(r->faults.handler_ns - r->faults.ioctl_ns) / r->faults.handler_ns;
}

/*
 * The suite's own share: outside the resolving ioctl, the read(2) of the
 * fault messages, the source read and the -d delay (bookkeeping).  The
 * target is at most 10%.
 */
static double handler_overhead(const struct dp_result *r)
{
	const struct uffd_fault_stats *f = &r->faults;
	uint64_t kernel = f->ioctl_ns + f->read_ns + f->source_ns + f->delay_ns;
	uint64_t own = f->handler_ns - kernel;

	if (!f->handler_ns || kernel > f->handler_ns)
		return 0;
	return (double)own / f->handler_ns;
}

void dp_print_result(const struct dp_opts *o, const struct dp_result *r)
{
	printf("Total guest execution time:\t" TS_FMT "\n", TS_ARGS(r->total));
	printf("Per-vcpu demand paging rate:\t%f pgs/sec/vcpu\n", r->vcpu_rate);
	printf("Overall demand paging rate:\t%f pgs/sec\n", r->overall_rate);
	memstress_print_page_units(&o->ms);
	stats_mappings_print(&r->mappings);
	if (o->mode == UFFD_MODE_NONE)
		return;
	ksft_print_msg("userfaultfd: %lu faults, %lu resolved, %lu EEXIST races; handler "
		       "latency p50 %.1f us, p99 %.1f us\n", (unsigned long)r->faults.faults,
		       (unsigned long)r->faults.resolved, (unsigned long)r->faults.eexist,
		       r->p50_ns / 1000.0, r->p99_ns / 1000.0);
	ksft_print_msg("handler time: %.1f%% outside the resolving ioctl; %.1f%% the suite's "
		       "own (not the ioctl, the message read, the source read or -d)\n", 100 * outside_ioctl(r),
		       100 * handler_overhead(r));
	if (r->mem_fault_exits) {
		ksft_print_msg("memory-fault exits (%s): %lu handled by vCPU threads, %lu "
			       "resolved by the thread's own UFFDIO_COPY/CONTINUE (no wake), %lu "
			       "already resolved by a reader and made present with "
			       "MADV_POPULATE_WRITE\n", mem_fault_mechanism,
			       (unsigned long)r->mem_fault_exits_seen,
			       (unsigned long)(r->mem_fault_exits_seen - r->mem_fault_eexist),
			       (unsigned long)r->mem_fault_eexist);
		ksft_print_msg("memory-fault exit latency, from the exit reaching the thread: "
			       "p50 %.1f us, p99 %.1f us (apart from the readers')\n",
			       r->exit_p50_ns / 1000.0, r->exit_p99_ns / 1000.0);
	}
}

/* Mean overall rate, in thousands of pages/s, of the runs for (vcpus, w). */
static double mean_krate(const struct dp_result *res, int nr, uint32_t vcpus, bool w, int *n)
{
	double sum = 0;

	*n = 0;
	for (int i = 0; i < nr; i++)
		if (res[i].vcpus == vcpus && res[i].mem_fault_exits == w) {
			sum += res[i].overall_rate / 1000;
			(*n)++;
		}
	return *n ? sum / *n : NAN;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* "150 (148..153)": median and range of one cell's runs, in K pages/s, into buf. */
static const char *cell_spread(const struct dp_result *res, int nr, uint32_t vcpus, bool w,
			       char *buf, size_t len)
{
	double *v = calloc(nr + 1, sizeof(double));
	int n = 0;

	TEST_ASSERT(v, "out of memory");
	for (int i = 0; i < nr; i++)
		if (res[i].vcpus == vcpus && res[i].mem_fault_exits == w)
			v[n++] = res[i].overall_rate / 1000;
	qsort(v, n, sizeof(double), cmp_double);
	if (n)
		snprintf(buf, len, "%.0f (%.0f..%.0f)", n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2,
			 v[0], v[n - 1]);
	else
		snprintf(buf, len, "n/a");
	free(v);
	return buf;
}

void dp_print_sweep_table(const struct dp_opts *o, const struct dp_result *res, int nr,
			  const char *w_reason)
{
	char a[64], b[64];

	/* The post's two columns, as it prints them; the ratio after them is ours. */
	printf("vCPUs, Paging Rate (w/o new cap), Paging Rate (w/ new cap), w/ : w/o\n");
	for (int i = 0; i < o->nr_sweep; i++) {
		int n_without, n_with;
		double without = mean_krate(res, nr, o->sweep[i], false, &n_without);
		double with = mean_krate(res, nr, o->sweep[i], true, &n_with);

		if (n_with)
			printf("%u %.0f %.0f x%.2f\n", o->sweep[i], without, with, with / without);
		else
			printf("%u %.0f n/a n/a\n", o->sweep[i], without);
	}
	ksft_print_msg("rates in thousands of pages/s, mean of %u run(s) each, as the post "
		       "averages its five\n", o->repeat);
	if (o->repeat > 1)
		for (int i = 0; i < o->nr_sweep; i++)
			ksft_print_msg("%u vCPUs: median (range) w/o %s, w/ %s\n", o->sweep[i],
				       cell_spread(res, nr, o->sweep[i], false, a, sizeof(a)),
				       cell_spread(res, nr, o->sweep[i], true, b, sizeof(b)));
	if (w_reason)
		ksft_print_msg("n/a: %s\n", w_reason);
}

static void write_params(struct json *j, const struct dp_opts *o)
{
	json_object_begin(j, "params");
	json_string(j, "guest_mode", guest_mode_name(o->ms.mode));
	json_u64(j, "vcpus", o->ms.nr_vcpus);
	json_u64(j, "vcpu_bytes", o->ms.vcpu_bytes);
	json_string(j, "backing_src", backing_src_name(o->ms.src));
	json_bool(j, "overlap", o->ms.shared);
	json_string(j, "uffd_mode", uffd_mode_name(o->mode));
	json_bool(j, "one_uffd", o->one_uffd);
	json_u64(j, "delay_us", o->delay_us);
	if (o->readers)
		json_u64(j, "readers", o->readers);
	else
		json_string(j, "readers", "vcpus");
	json_bool(j, "mem_fault_exits", o->mem_fault_exits);
	json_string(j, "source", page_source_name(&o->src));
	json_array_begin(j, "sweep_vcpus");
	for (int i = 0; i < o->nr_sweep; i++)
		json_u64(j, NULL, o->sweep[i]);
	json_array_end(j);
	json_u64(j, "repeat", o->repeat);
	memstress_cpus_json(j, &o->ms);
	json_object_end(j);
}

static void write_run(struct json *j, const struct dp_result *r)
{
	json_object_begin(j, NULL);
	json_u64(j, "vcpus", r->vcpus);
	json_bool(j, "mem_fault_exits", r->mem_fault_exits);
	stats_mappings_json(j, &r->mappings);
	memstress_layout_json(j, &r->layout);
	json_object_begin(j, "figures");
	record_figure(j, "total_guest_execution_time", "s", ts_to_sec(r->total), NULL, 0);
	record_figure(j, "per_vcpu_paging_rate", "pages/s/vcpu", r->vcpu_rate, NULL, 0);
	record_figure(j, "overall_paging_rate", "pages/s", r->overall_rate, NULL, 0);
	record_figure(j, "pages", "pages", r->pages, NULL, 0);
	record_figure(j, "uffd_faults", "faults", r->faults.faults, NULL, 0);
	record_figure(j, "uffd_eexist", "faults", r->faults.eexist, NULL, 0);
	record_figure(j, "handler_latency_p50", "ns", r->p50_ns, NULL, 0);
	record_figure(j, "handler_latency_p99", "ns", r->p99_ns, NULL, 0);
	if (r->mem_fault_exits) {
		record_figure(j, "mem_fault_exit_latency_p50", "ns", r->exit_p50_ns, NULL, 0);
		record_figure(j, "mem_fault_exit_latency_p99", "ns", r->exit_p99_ns, NULL, 0);
	}
	record_figure(j, "handler_time", "ns", r->faults.handler_ns, NULL, 0);
	record_figure(j, "handler_ioctl_time", "ns", r->faults.ioctl_ns, NULL, 0);
	record_figure(j, "handler_read_time", "ns", r->faults.read_ns, NULL, 0);
	record_figure(j, "handler_source_time", "ns", r->faults.source_ns, NULL, 0);
	record_figure(j, "handler_delay_time", "ns", r->faults.delay_ns, NULL, 0);
	record_figure(j, "handler_outside_ioctl_share", "ratio", outside_ioctl(r), NULL, 0);
	record_figure(j, "handler_overhead_share", "ratio", handler_overhead(r), NULL, 0);
	record_figure(j, "mem_fault_exits", "exits", r->mem_fault_exits_seen, NULL, 0);
	/* How each exit was resolved: the thread's own uffd ioctl, or a populate. */
	record_figure(j, "mem_fault_exits_uffd_resolved", "exits",
		      r->mem_fault_exits_seen - r->mem_fault_eexist, NULL, 0);
	record_figure(j, "mem_fault_exits_populated", "exits", r->mem_fault_eexist, NULL, 0);
	/* Faults the readers took: each is a vCPU that waited in userfaultfd. */
	record_figure(j, "uffd_reader_faults", "faults", r->reader_faults, NULL, 0);
	json_object_end(j);
	json_object_end(j);
}

int dp_write_json(const struct dp_opts *o, const struct dp_result *res, int nr,
		   const char *w_reason, const struct host_desc *host, int argc, char **argv,
		   const char *status, const char *reason)
{
	int ret;
	bool w_ran = false;
	struct json j;

	if (!o->json_path)
		return 0;
	record_begin(&j, "demand_paging", argc, argv, host);
	write_params(&j, o);
	json_string(&j, "mem_fault_exits_unsupported", w_reason);
	/* The mechanism -w used, where a run used it; else null. */
	for (int i = 0; i < nr; i++)
		w_ran |= res[i].mem_fault_exits;
	json_string(&j, "mem_fault_mechanism", w_ran ? mem_fault_mechanism : NULL);
	if (nr == 1 && !o->nr_sweep) {
		json_object_begin(&j, "figures");
		record_figure(&j, "total_guest_execution_time", "s", ts_to_sec(res->total),
			      NULL, 0);
		record_figure(&j, "per_vcpu_paging_rate", "pages/s/vcpu", res->vcpu_rate, NULL, 0);
		record_figure(&j, "overall_paging_rate", "pages/s", res->overall_rate, NULL, 0);
		json_object_end(&j);
	}
	json_array_begin(&j, "runs");
	for (int i = 0; i < nr; i++)
		write_run(&j, &res[i]);
	json_array_end(&j);
	ret = record_end(&j, status, reason, o->json_path);
	json_free(&j);
	return ret;
}
