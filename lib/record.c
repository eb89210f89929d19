// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON result record: its envelope (what ran, where, when, how it ended)
 * and helpers for the body.  The layout is docs/results-schema.json.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "host_desc.h"
#include "json.h"
#include "kmp_version.h"
#include "record.h"
#include "stats.h"
#include "test_util.h"

/* "2026-05-09T07:35:25Z": UTC, second resolution. */
static void utc_now(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/*
 * Record files are written under this lock.  An interrupt takes it for good
 * once its own "interrupted" record is out, so no write is cut short.
 */
static pthread_mutex_t record_write_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t quiesced_by;
static volatile bool quiesced;
/* The run's own final record (pass, fail or skip) is out: its result stands. */
static volatile bool finished;

bool record_finished(void)
{
	return finished;
}

/* Interrupt thread, before its hook: from now on only it writes records. */
void record_quiesce(void)
{
	pthread_mutex_lock(&record_write_lock);
	quiesced_by = pthread_self();
	quiesced = true;
}

void record_begin(struct json *j, const char *tool, int argc, char **argv,
		  const struct host_desc *host)
{
	char now[32];
	int i;

	TEST_ASSERT(host, "record_begin() needs the host description");
	if (!tool && argc > 0 && argv[0]) {
		const char *slash = strrchr(argv[0], '/');

		tool = slash ? slash + 1 : argv[0];
	}
	TEST_ASSERT(tool && *tool, "record_begin() needs the tool's name");

	utc_now(now, sizeof(now));
	json_init(j);
	json_object_begin(j, NULL);
	json_i64(j, "schema_version", RECORD_SCHEMA_VERSION);
	json_string(j, "tool", tool);
	json_string(j, "tool_version", KMP_VERSION);
	json_array_begin(j, "command");
	for (i = 0; i < argc && argv[i]; i++)
		json_string(j, NULL, argv[i]);
	json_array_end(j);
	json_string(j, "started_at", now);
	host_desc_json(host, j);
}

void record_figure(struct json *j, const char *name, const char *unit, double total,
		   const double *values, size_t n)
{
	TEST_ASSERT(name && *name, "a figure needs a name");
	TEST_ASSERT(unit && *unit, "figure \"%s\" has no unit", name);
	TEST_ASSERT(values || !n, "figure \"%s\": %zu values but no array", name, n);

	json_object_begin(j, name);
	json_string(j, "unit", unit);
	json_double(j, "value", total);
	if (n) {
		json_array_begin(j, "values");
		for (size_t i = 0; i < n; i++)
			json_double(j, NULL, values[i]);
		json_array_end(j);
	}
	json_object_end(j);
}

void record_phase_stats(struct json *j, const char *phase, const struct kvm_stats *vm_st,
			const struct stats_snapshot *before,
			const struct stats_snapshot *after)
{
	TEST_ASSERT(phase && *phase, "a phase needs a name");
	stats_delta_json(vm_st, before, after, j, phase);
}

/* The top-level object that record_begin() opened is still open. */
static bool record_open(const struct json *j)
{
	return j->depth >= 1 && j->len && j->buf[0] == '{' && !j->in_array[1];
}

int record_end(struct json *j, const char *status, const char *reason, const char *path)
{
	const char *where = path ? path : "(no file)";
	char now[32];
	int ret;

	if (!record_open(j)) {
		fprintf(stderr, "%s: JSON record %s not written: no record was begun\n",
			program_invocation_short_name, where);
		return -EINVAL;
	}
	if (!status || (strcmp(status, "pass") && strcmp(status, "fail") &&
			strcmp(status, "skip") && strcmp(status, "interrupted"))) {
		fprintf(stderr, "%s: JSON record %s not written: status \"%s\" is not pass, fail, "
			"skip or interrupted\n",
			program_invocation_short_name, where, status ? status : "(null)");
		return -EINVAL;
	}

	/* A failure may have struck inside "params", an array, a figure... */
	json_close_to(j, 1);
	utc_now(now, sizeof(now));
	json_string(j, "status", status);
	json_string(j, "reason", reason);
	json_string(j, "finished_at", now);
	json_close_all(j);

	if (path) {
		/* Never two writers at once, nor one cut short by an interrupt (a temp file). */
		bool mine = quiesced && pthread_equal(quiesced_by, pthread_self());

		if (!mine)
			pthread_mutex_lock(&record_write_lock);
		ret = json_write_file(j, path);
		if (!mine)
			pthread_mutex_unlock(&record_write_lock);
	} else
		ret = j->oom ? -ENOMEM : 0;
	if (strcmp(status, "interrupted"))
		finished = true;
	if (ret)
		fprintf(stderr, "%s: cannot write JSON record %s: %s\n",
			program_invocation_short_name, where, strerror(-ret));
	return ret;
}

void record_path_check_opt(const char *opt, const char *path)
{
	char dir[4096];
	const char *slash;

	if (!*path)
		usage_error("%s '': needs a file name", opt);
	slash = strrchr(path, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash == path ? 1 : slash - path), path);
	if (access(dir, W_OK))
		usage_error("%s '%s': cannot write into %s: %s", opt, path, dir, strerror(errno));
}
