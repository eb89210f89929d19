// SPDX-License-Identifier: GPL-2.0
/*
 * demand_paging: how fast guest page faults are resolved through
 * userfaultfd, in the format of the kernel's demand_paging_test, and the
 * table of paging rates over vCPU counts with and without memory-fault
 * exits (--sweep-vcpus) of Anish Moorthy's "Add memory fault exits to avoid
 * slow GUP" (2023).
 */
#include <stdlib.h>

#include "bench_main.h"
#include "dp.h"
#include "report.h"

static struct dp_opts opts;
static struct dp_result *results;
static int nr_results;
static const char *w_reason;

static void print_params(const struct host_desc *host)
{
	const struct dp_opts *o = &opts;
	char size[80];

	ksft_print_msg("vCPUs: %u, memory per vCPU: %s, backing: %s\n", o->ms.nr_vcpus,
		       memstress_memory_text(&o->ms, size, sizeof(size)), backing_src_name(o->ms.src));
	if (o->ms.mode != guest_mode_default())
		ksft_print_msg("guest mode: %d (%s)\n", o->ms.mode, guest_mode_name(o->ms.mode));
	char readers[48];

	if (o->readers)
		snprintf(readers, sizeof(readers), "%d reader(s)", o->readers);
	else
		snprintf(readers, sizeof(readers), "one reader per vCPU (-r vcpus)");
	if (o->mode == UFFD_MODE_NONE)
		ksft_print_msg("paging: first-touch faults, no userfaultfd%s\n",
			       o->ignored_uffd_opts ? " (-a, -d and -r ignored without -u, as "
			       "upstream ignores them)" : "");
	else
		ksft_print_msg("paging: userfaultfd %s, %s, %s each, delay %u us, "
			       "source %s%s\n", uffd_mode_name(o->mode),
			       o->one_uffd || o->ms.shared ? "one uffd" : "one uffd per vCPU",
			       readers, o->delay_us, page_source_name(&o->src),
			       o->src.kind == PAGE_SRC_FILE ? (o->src.direct ? " (O_DIRECT)" :
							       " (buffered)") : "");
}

static void run_sweep(void)
{
	int max = opts.nr_sweep * 2 * opts.repeat;

	results = calloc(max, sizeof(*results));
	TEST_ASSERT(results, "out of memory");
	w_reason = mem_fault_unsupported_reason(&opts);
	for (int i = 0; i < opts.nr_sweep; i++) {
		for (int w = 0; w <= 1; w++) {
			if (w && w_reason)
				continue;
			for (unsigned int rep = 0; rep < opts.repeat; rep++) {
				ksft_print_msg("sweep: %u vCPU(s), %s memory-fault exits, run %u/%u\n",
					       opts.sweep[i], w ? "with" : "without", rep + 1,
					       opts.repeat);
				dp_run_once(&opts, opts.sweep[i], w, &results[nr_results++]);
			}
		}
	}
	dp_print_sweep_table(&opts, results, nr_results, w_reason);
}

static void run_single(void)
{
	if (opts.mem_fault_exits) {
		w_reason = mem_fault_unsupported_reason(&opts);
		if (w_reason)
			test_skip("-w: %s", w_reason);
	}
	results = calloc(1, sizeof(*results));
	TEST_ASSERT(results, "out of memory");
	dp_run_once(&opts, opts.ms.nr_vcpus, opts.mem_fault_exits, &results[0]);
	nr_results = 1;
	dp_print_result(&opts, &results[0]);
}

static void parse(int argc, char **argv)
{
	dp_parse_options(&opts, argc, argv);
}

static void run(const struct host_desc *host)
{
	if (opts.nr_sweep)
		run_sweep();
	else
		run_single();
}

static int write_record(const struct host_desc *host, int argc, char **argv, const char *status,
			const char *reason)
{
	return dp_write_json(&opts, results, nr_results, w_reason, host, argc, argv, status, reason);
}

static void teardown(void)
{
	page_source_close(&opts.src);
	for (int i = 0; i < nr_results; i++)
		memstress_layout_free(&results[i].layout);
	free(results);
}

int main(int argc, char **argv)
{
	static const struct bench b = {
		.name = "demand_paging", .parse = parse, .print_params = print_params,
		.run = run, .write_record = write_record, .teardown = teardown,
	};

	bench_main(&b, argc, argv);
}
