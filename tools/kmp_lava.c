// SPDX-License-Identifier: GPL-2.0
/*
 * kmp_lava RESULTS: a run.sh results folder as LAVA test cases, one
 * `lava-test-case` command a line, for a LAVA test definition to run.
 *
 * summary.ktap lists every planned run (SECTION.REP) and how run.sh ended
 * it, including the runs that left no record (a crash, a timeout, a skip
 * that run.sh decided); each is a case: pass, fail or skip.  A run's record
 * (SECTION.REP.json) can only make its case worse (a record that says fail
 * or skip).  Each figure of a passing run's record is a measurement case,
 * SECTION.REP.FIGURE, with the record's unit (a sweep's: under each point,
 * SECTION.REP.POINT.FIGURE).  Runs an interrupt left
 * unrun are skips: nothing that did not run reads as a pass.  LAVA splits
 * its signals on blanks and '=', so each part of a name keeps
 * [A-Za-z0-9_-] and a unit [A-Za-z0-9_/%.-]; other bytes become '_'.
 * Before a run's case, "# record NAME FILE" names its record (a comment to
 * sh; run.sh export --kcidb reads it).
 * Exit: 0, or 2 when RESULTS has no readable summary.ktap.
 */
#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* NAME's bytes outside KEEP's classes as '_', into OUT (size N). */
static void clean(char *out, size_t n, const char *name, const char *extra)
{
	size_t i;

	for (i = 0; name[i] && i + 1 < n; i++) {
		unsigned char c = name[i];

		out[i] = isalnum(c) || c == '_' || c == '-' || (c && strchr(extra, c)) ? c : '_';
	}
	out[i] = '\0';
}

/* A run's name is SECTION.REP: each part cleaned, joined by '.'. */
static void case_name(char *out, size_t n, const char *run)
{
	char section[256], rep[32];
	const char *dot = strrchr(run, '.');
	size_t len = dot ? (size_t)(dot - run) : strlen(run);

	if (len >= sizeof(section))
		len = sizeof(section) - 1;
	memcpy(section, run, len);
	section[len] = '\0';
	clean(section, sizeof(section), section, "");
	clean(rep, sizeof(rep), dot ? dot + 1 : "1", "");
	snprintf(out, n, "%s.%s", section, rep);
}

/* The shortest decimal that reads back as V: LAVA keeps what it is given. */
static void print_number(double v)
{
	char buf[40];

	if (v == (double)(long long)v && v > -1e15 && v < 1e15) {
		printf("%lld", (long long)v);	/* a count: no exponent */
		return;
	}
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	fputs(buf, stdout);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A measurement case for each figure with a value, in name order. */
static void print_figures(const char *name, json_t *figures)
{
	size_t n = 0, size = json_object_size(figures);
	const char **keys = calloc(size ? size : 1, sizeof(*keys)), *key;
	json_t *fig;

	if (!keys) {
		fprintf(stderr, "kmp_lava: out of memory for %zu figures of %s\n", size, name);
		exit(1);
	}
	json_object_foreach(figures, key, fig)
		keys[n++] = key;
	qsort(keys, n, sizeof(keys[0]), by_name);
	for (size_t i = 0; i < n; i++) {
		json_t *value, *unit;
		char fname[128], uname[64];

		fig = json_object_get(figures, keys[i]);
		value = json_object_get(fig, "value");
		if (!json_is_number(value))
			continue;	/* a figure the run could not measure */
		clean(fname, sizeof(fname), keys[i], "");
		printf("lava-test-case %s.%s --result pass --measurement ", name, fname);
		print_number(json_number_value(value));
		unit = json_object_get(fig, "unit");
		clean(uname, sizeof(uname), json_is_string(unit) ? json_string_value(unit) : "", "/%.");
		if (uname[0])
			printf(" --units %s", uname);
		putchar('\n');
	}
	free(keys);
}

/*
 * A record's figures, or a sweep's (demand_paging's runs[]): each point's
 * figures under NAME.vcpus-N, and NAME.vcpus-N-w with memory-fault exits on.
 */
static void print_points(const char *name, json_t *rec)
{
	json_t *runs = json_object_get(rec, "runs"), *run;
	size_t i;

	if (!json_is_array(runs)) {
		print_figures(name, json_object_get(rec, "figures"));
		return;
	}
	json_array_foreach(runs, i, run) {
		char point[340];

		snprintf(point, sizeof(point), "%s.vcpus-%lld%s", name,
			 (long long)json_number_value(json_object_get(run, "vcpus")),
			 json_is_true(json_object_get(run, "mem_fault_exits")) ? "-w" : "");
		print_figures(point, json_object_get(run, "figures"));
	}
}

/* RESULT as the record RUN.json makes it, with the record's figures. */
static void print_run(const char *dir, const char *run, const char *result)
{
	char path[4096], name[300];
	json_t *rec = NULL, *status;

	case_name(name, sizeof(name), run);
	if (!strcmp(result, "pass")) {
		snprintf(path, sizeof(path), "%s/%s.json", dir, run);
		rec = json_load_file(path, 0, NULL);
		status = json_object_get(rec, "status");
		if (rec)	/* a comment to sh; the name's record to the KCIDB export */
			printf("# record %s %s.json\n", name, run);
		if (!json_is_string(status)) {
			fprintf(stderr, "kmp_lava: %s: no readable record (%s)\n", run, path);
			result = "fail";
		} else if (strcmp(json_string_value(status), "pass")) {
			result = !strcmp(json_string_value(status), "skip") ? "skip" : "fail";
		}
	}
	printf("lava-test-case %s --result %s\n", name, result);
	if (!strcmp(result, "pass"))
		print_points(name, rec);
	json_decref(rec);
}

/* "# interrupted by SIGINT: did not run: a.1 b.1": each a skip. */
static void print_not_run(const char *dir, char *line)
{
	char *list = strstr(line, "did not run: "), *save = NULL;

	if (!list)
		return;
	for (char *run = strtok_r(list + 13, " \n", &save); run; run = strtok_r(NULL, " \n", &save))
		print_run(dir, run, "skip");
}

int main(int argc, char **argv)
{
	char path[4096], line[4096], run[1024];
	FILE *ktap;

	if (argc != 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: kmp_lava RESULTS_DIR (a run.sh results folder)\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/summary.ktap", argv[1]);
	ktap = fopen(path, "r");
	if (!ktap) {
		fprintf(stderr, "kmp_lava: cannot read %s: not a run.sh results folder\n", path);
		return 2;
	}
	while (fgets(line, sizeof(line), ktap)) {
		int not = !strncmp(line, "not ok ", 7);
		const char *hash;

		if (!strncmp(line, "# interrupted", 13))
			print_not_run(argv[1], line);
		if (!not && strncmp(line, "ok ", 3))
			continue;
		if (sscanf(line + (not ? 7 : 3), "%*u %1023s", run) != 1)
			continue;
		hash = strstr(line, " # ");
		print_run(argv[1], run, not ? "fail" : hash && !strncmp(hash + 3, "SKIP", 4) ? "skip" : "pass");
	}
	fclose(ktap);
	return 0;
}
