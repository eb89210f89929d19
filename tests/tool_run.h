/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Run a benchmark binary installed next to the test binary, with --json,
 * capturing its output, exit code and parsed record (for smoke tests).
 */
#ifndef KMP_TEST_TOOL_RUN_H
#define KMP_TEST_TOOL_RUN_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "child.h"
#include "jansson_view.h"
#include "kselftest_harness.h"

#define TOOL_OUT_LEN (64 * 1024)

struct tool_run {
	const char *tool;
	int code;			/* exit code, -1 if killed */
	char out[TOOL_OUT_LEN];		/* stdout + stderr */
	char json[128];
	struct jv_doc *doc;		/* the record, NULL if none was written */
};

static inline void tool_exec(const void *arg)
{
	char *const *argv = arg;
	char path[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 64);

	/*
	 * A test the harness ends (its timeout) takes the tool with it, by a
	 * signal the tool restores the host on; an orphan would run on.
	 */
	prctl(PR_SET_PDEATHSIG, SIGTERM);

	path[n > 0 ? n : 0] = 0;
	slash = strrchr(path, '/');
	strcpy(slash ? slash + 1 : path, argv[0]);
	execv(path, argv);
	perror(path);
	_exit(127);
}

/* Run tool with args (NULL-terminated) plus --json; r must be zeroed or reused. */
static inline void tool_run(struct tool_run *r, const char *tool, const char *const *args)
{
	const char *argv[64] = { tool };
	int argc = 1, status;
	char *text;
	size_t len;
	FILE *f;

	r->tool = tool;
	tmp_file(r->json, sizeof(r->json), tool);
	for (; *args && argc < 60; args++)
		argv[argc++] = *args;
	argv[argc++] = "--json";
	argv[argc++] = r->json;
	argv[argc] = NULL;
	status = run_child(tool_exec, argv, r->out, sizeof(r->out), NULL);
	r->code = status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;

	r->doc = NULL;
	f = fopen(r->json, "r");
	if (!f)
		return;
	text = calloc(1, 1 << 20);
	len = text ? fread(text, 1, (1 << 20) - 1, f) : 0;
	fclose(f);
	if (text) {
		text[len] = 0;
		r->doc = jv_parse(text, true, NULL, 0);
		free(text);
	}
}

static inline void tool_run_free(struct tool_run *r)
{
	jv_free(r->doc);
	r->doc = NULL;
	unlink(r->json);
}

/* The record validates against docs/results-schema.json (0 when it does). */
/*
 * Validate the record against docs/results-schema.json.  Inside an emulated
 * host (scripts/emu) there is no Python: the record is kept in
 * $KMP_RECORD_DEFER_DIR instead, and the host validates it after the boot.
 */
static inline int tool_schema_check(const struct tool_run *r)
{
	const char *defer = getenv("KMP_RECORD_DEFER_DIR");
	char cmd[PATH_MAX + 256];

	if (defer && *defer)
		snprintf(cmd, sizeof(cmd), "cp %s %s/ >&2", r->json, defer);
	else
		snprintf(cmd, sizeof(cmd), "%s/scripts/check-record.py %s >&2", KMP_SRC_DIR,
			 r->json);
	return system(cmd);
}

/*
 * The checks every passing run shares: exit 0 (its output logged if not), a
 * record with status "pass" that validates.  An ASSERT here ends the test.
 */
static inline void tool_assert_pass(struct __test_metadata *_metadata, const struct tool_run *r)
{
	if (r->code != 0)
		TH_LOG("output:\n%s", r->out);
	ASSERT_EQ(0, r->code);
	ASSERT_NE(NULL, r->doc);
	ASSERT_STREQ("pass", jv_string(r->doc, "status"));
	ASSERT_EQ(0, tool_schema_check(r));
}

/* A figure's value at a path prefix, e.g. tool_figure(r, "", "pages_touched"). */
static inline double tool_figure(const struct tool_run *r, const char *prefix, const char *fig)
{
	char path[256];

	snprintf(path, sizeof(path), "%sfigures/%s/value", prefix, fig);
	return jv_number(r->doc, path);
}

#endif
