/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The JSON result record a benchmark writes with --json FILE (schema:
 * docs/results-schema.json, described in docs/results.md).
 *
 * This is an envelope and a few helpers, not a store: a benchmark keeps its
 * measurements in its own structs and builds the record from them at the end,
 * on the failure and skip paths too, from whatever it measured so far:
 *
 *	record_begin(&j, "dirty_log_perf", argc, argv, &host);
 *	json_object_begin(&j, "params");  ...  json_object_end(&j);
 *	json_object_begin(&j, "figures");
 *	record_figure(&j, "clear_dirty_log_time", "s", total, per_iter, iters);
 *	json_object_end(&j);
 *	json_object_begin(&j, "phases");
 *	record_phase_stats(&j, "populate", &vm_st, &before, &after);
 *	json_object_end(&j);
 *	record_end(&j, "pass", NULL, path);
 *	json_free(&j);
 *
 * record_end() closes whatever is still open, so a failure hook can end a
 * record built half-way (inside "params", inside an array) and it is still
 * a complete, valid record.
 */
#ifndef KMP_RECORD_H
#define KMP_RECORD_H

#include <stdbool.h>
#include <stddef.h>

struct json;
struct host_desc;
struct kvm_stats;
struct stats_snapshot;

/* Bump on any incompatible change to the record (see docs/results.md). */
#define RECORD_SCHEMA_VERSION 2

/*
 * Initialise j (anything it held must have been json_free()d) and open the
 * record: "schema_version", "tool", "tool_version" (KMP_VERSION), "command"
 * (argv as an array of strings), "started_at" (UTC, ISO 8601) and "host".
 * tool is the binary's name; NULL takes the last component of argv[0].
 */
void record_begin(struct json *j, const char *tool, int argc, char **argv,
		  const struct host_desc *host);

/*
 * One figure, inside the caller's "figures" object:
 *	"name": {"unit": unit, "value": total, "values": [values...]}
 * "values" (e.g. one per iteration) is left out when n is 0.  A non-finite
 * total is written as null (not measured); values must all be finite.
 */
void record_figure(struct json *j, const char *name, const char *unit, double total,
		   const double *values, size_t n);

/*
 * The VM stat deltas (after - before, the stats that changed) of one phase,
 * as an object under key phase, inside the caller's "phases" object.
 */
void record_phase_stats(struct json *j, const char *phase, const struct kvm_stats *vm_st,
			const struct stats_snapshot *before,
			const struct stats_snapshot *after);

/*
 * Close every container still open below the record's top level, add
 * "status" ("pass", "fail", "skip" or
 * "interrupted"), "reason" (NULL -> null) and
 * "finished_at", close the record and write it to path atomically (temp file
 * + rename; path NULL: only complete the document in j).  Returns 0, or
 * -errno after one line on stderr naming the path (-EINVAL: no record open
 * in j, or an unknown status, and nothing is written).  j keeps the text
 * until json_free().
 */
int record_end(struct json *j, const char *status, const char *reason, const char *path);

/*
 * For --json PATH: a one-line usage error (before any guest) when PATH is
 * empty or its directory does not exist or is not writable.
 */
void record_path_check_opt(const char *opt, const char *path);

/*
 * For the interrupt thread (interrupt_init registers it): wait for a record
 * being written, then keep every other thread from writing one.
 */
void record_quiesce(void);

/*
 * True once the run's final record (pass, fail or skip; with or without a
 * file) has been made: an interrupt arriving after it changes nothing.
 */
bool record_finished(void);

#endif
