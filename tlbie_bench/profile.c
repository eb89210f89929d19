// SPDX-License-Identifier: GPL-2.0
/*
 * --profile: perf samples the whole host (kernel symbols) during the run;
 * the top symbols print in the seed's layout ("74.52%  [k] do_tlbies").
 * perf runs through fork/exec with fixed arguments (no shell), and its data
 * goes to a mkstemp file under $TMPDIR.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "json.h"
#include "tb_bench.h"

#define PERF "/usr/bin/perf"

static char data_path[4096];

/* In a forked child before exec: the signals interrupt_init() blocked are inherited. */
static void unblock_signals(void)
{
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

int tb_profile_start(struct tb_profile *p)
{
	const char *tmp = getenv("TMPDIR");
	char *why = p->unavailable;
	size_t len = sizeof(p->unavailable);
	pid_t pid;
	int fd;

	p->asked = true;
	if (access(PERF, X_OK)) {
		snprintf(why, len, "perf is not installed (Debian: linux-perf)");
		return -1;
	}
	snprintf(data_path, sizeof(data_path), "%s/kmp-perf-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	fd = mkstemp(data_path);
	if (fd < 0) {
		snprintf(why, len, "mkstemp %.64s: %s", data_path, strerror(errno));
		return -1;
	}
	close(fd);
	pid = fork();
	if (pid < 0) {
		snprintf(why, len, "fork: %s", strerror(errno));
		unlink(data_path);
		return -1;
	}
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		dup2(null, 2);
		unblock_signals();
		/* The host kernel, as the post profiles it: no user-space samples. */
		execl(PERF, "perf", "record", "-a", "--all-kernel", "-F", "999", "-o", data_path,
		      NULL);
		_exit(127);
	}
	return pid;
}

/* perf report's output through a pipe: its first TB_PROFILE_TOP sample lines into p. */
static void read_report(struct tb_profile *p)
{
	char line[512];
	int pipefd[2], status;
	pid_t pid;
	FILE *f;

	if (pipe(pipefd))
		return;
	pid = fork();
	if (pid < 0)
		return;
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		dup2(pipefd[1], 1);
		dup2(null, 2);
		close(pipefd[0]);
		unblock_signals();
		execl(PERF, "perf", "report", "-i", data_path, "--stdio", "--sort", "sym", NULL);
		_exit(127);
	}
	close(pipefd[1]);
	f = fdopen(pipefd[0], "r");
	while (f && fgets(line, sizeof(line), f)) {
		double pct;
		int at;

		/* Only sample lines ("   74.52%  [k] do_tlbies"); keep reading to the end. */
		if (p->nr >= TB_PROFILE_TOP || sscanf(line, " %lf%%%n", &pct, &at) != 1)
			continue;
		p->top[p->nr].share = pct;
		while (line[at] == ' ')
			at++;
		line[strcspn(line, "\n")] = '\0';
		snprintf(p->top[p->nr].symbol, sizeof(p->top[p->nr].symbol), "%s", line + at);
		p->nr++;
	}
	if (f)
		fclose(f);
	waitpid(pid, &status, 0);
}

void tb_profile_stop_and_print(struct tb_profile *p, int pid)
{
	int status;

	kill(pid, SIGINT);
	waitpid(pid, &status, 0);
	/* perf record writes its data on SIGINT, then dies of it again on purpose. */
	if (!(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) &&
	    !(WIFEXITED(status) && !WEXITSTATUS(status))) {
		snprintf(p->unavailable, sizeof(p->unavailable), "perf record failed (status "
			 "0x%x); is perf_event_paranoid too strict, or perf unsupported here?",
			 status);
	} else {
		read_report(p);
		if (!p->nr)
			snprintf(p->unavailable, sizeof(p->unavailable),
				 "perf recorded no samples");
	}
	unlink(data_path);
	if (!p->nr) {
		ksft_print_msg("profile unavailable: %s\n", p->unavailable);
		return;
	}
	ksft_print_msg("host profile (perf, all CPUs, during the run):\n");
	for (int i = 0; i < p->nr; i++)
		ksft_print_msg("%8.2f%%  %s\n", p->top[i].share, p->top[i].symbol);
}

void tb_profile_json(const struct tb_profile *p, struct json *j)
{
	if (!p->asked)
		return;
	json_object_begin(j, "profile");
	json_string(j, "source", "perf record -a --all-kernel -F 999; perf report --sort sym");
	json_string(j, "unavailable", p->nr ? NULL : p->unavailable);
	json_array_begin(j, "top");
	for (int i = 0; i < p->nr; i++) {
		json_object_begin(j, NULL);
		json_double(j, "share_pct", p->top[i].share);
		json_string(j, "symbol", p->top[i].symbol);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}
