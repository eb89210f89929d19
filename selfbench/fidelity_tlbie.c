// SPDX-License-Identifier: GPL-2.0
/*
 * fidelity_tlbie: tlbie_bench's kernel work with the barest host loop.  The
 * same VM (tlbie_bench's own tb_setup: frames, per-vCPU page tables, the
 * fork-style guest code), vCPU threads that only call KVM_RUN, and the
 * throughput read from the guest's own fork counters over a window of -t
 * seconds that starts --skip ms after the release (so thread start-up and
 * the final stop are outside it).
 *
 *	fidelity_tlbie -v N -t SEC [--pages K] [--flush page|full] [--shared] [-c LIST]
 *
 * Prints one JSON object (throughput: forks/s).
 */
#include <getopt.h>
#include <stdlib.h>
#include <unistd.h>

#include "fid.h"
#include "parse.h"
#include "tb_host.h"

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "pages", required_argument, NULL, 'P' },
		{ "flush", required_argument, NULL, 'F' },
		{ "shared", no_argument, NULL, 'S' },
		{ "skip", required_argument, NULL, 'K' },
		{ NULL, 0, NULL, 0 },
	};
	struct tb t = { .o = { .vcpus = 1, .seconds = 2, .pages = 16, .flush = FLUSH_PAGE } };
	uint64_t skip_ms = 200, c0 = 0, c1 = 0, t0, t1, release;
	struct fid_pool pool;
	int opt;

	while ((opt = getopt_long(argc, argv, "v:t:c:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'v': t.o.vcpus = parse_u64_opt("-v", optarg, 1, KMP_MAX_VCPUS); break;
		case 't': t.o.seconds = parse_u64_opt("-t", optarg, 1, 3600); break;
		case 'c': t.o.nr_cpus = fid_parse_cpus(optarg, t.o.cpus, KMP_MAX_VCPUS); break;
		case 'P': t.o.pages = parse_u64_opt("--pages", optarg, 1, TB_PT_ENTRIES); break;
		case 'F':
			if (!strcmp(optarg, "page"))
				t.o.flush = FLUSH_PAGE;
			else if (!strcmp(optarg, "full"))
				t.o.flush = FLUSH_FULL;
			else
				usage_error("--flush '%s': page or full", optarg);
			break;
		case 'S': t.o.shared = true; break;
		case 'K': skip_ms = parse_u64_opt("--skip", optarg, 0, 60000); break;
		default: usage_error("bad option (see the comment at the top of %s)", __FILE__);
		}
	}
	tb_setup(&t);
	fid_pool_start(&pool, t.vm, t.o.nr_cpus ? t.o.cpus : NULL, t.o.nr_cpus);
	release = fid_now_ns();
	fid_pool_go(&pool);
	usleep(skip_ms * 1000);
	t0 = fid_now_ns();
	for (uint32_t v = 0; v < t.o.vcpus; v++)
		c0 += t.ga->vcpu[v].cycles;
	usleep(t.o.seconds * 1000000ULL);
	t1 = fid_now_ns();
	for (uint32_t v = 0; v < t.o.vcpus; v++)
		c1 += t.ga->vcpu[v].cycles;
	t.ga->stop = 1;
	fid_pool_wait(&pool);
	fid_pool_stop(&pool);

	fid_json_begin("fidelity_tlbie");
	fid_json_num("vcpus", t.o.vcpus);
	fid_json_num("seconds", t.o.seconds);
	fid_json_num("throughput", (c1 - c0) / ((t1 - t0) / 1e9));
	fid_json_num("forks_in_window", c1 - c0);
	fid_json_num("window_time", (t1 - t0) / 1e9);
	fid_json_num("release_to_window", (t0 - release) / 1e9);
	fid_json_end();
	vm_free(t.vm);
	return 0;
}
