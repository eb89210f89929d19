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

#include "tb_host.h"

#define PERF "/usr/bin/perf"
#define PROFILE_TOP 10

static char data_path[4096];

/* In a forked child before exec: the signals interrupt_init() blocked are inherited. */
static void unblock_signals(void)
{
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

int tb_profile_start(char *why, size_t len)
{
	const char *tmp = getenv("TMPDIR");
	pid_t pid;
	int fd;

	if (access(PERF, X_OK)) {
		snprintf(why, len, "perf is not installed (Debian: linux-perf)");
		return -1;
	}
	snprintf(data_path, sizeof(data_path), "%s/kmp-perf-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	fd = mkstemp(data_path);
	if (fd < 0) {
		snprintf(why, len, "mkstemp %s: %s", data_path, strerror(errno));
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
		execl(PERF, "perf", "record", "-a", "-F", "999", "-o", data_path, NULL);
		_exit(127);
	}
	return pid;
}

/* perf report's output through a pipe: the first PROFILE_TOP sample lines. */
static int print_report(void)
{
	char line[512];
	int pipefd[2], shown = 0, status;
	pid_t pid;
	FILE *f;

	if (pipe(pipefd))
		return 0;
	pid = fork();
	if (pid < 0)
		return 0;
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
	ksft_print_msg("host profile (perf, all CPUs, during the run):\n");
	while (f && fgets(line, sizeof(line), f)) {
		double pct;
		char c;

		/* Only sample lines ("   74.52%  [k] do_tlbies"); keep reading to the end. */
		if (shown >= PROFILE_TOP || sscanf(line, " %lf%c", &pct, &c) != 2 || c != '%')
			continue;
		ksft_print_msg("%s", line);
		shown++;
	}
	if (f)
		fclose(f);
	waitpid(pid, &status, 0);
	return shown;
}

void tb_profile_stop_and_print(int pid)
{
	int status;

	kill(pid, SIGINT);
	waitpid(pid, &status, 0);
	/* perf record writes its data on SIGINT, then dies of it again on purpose. */
	if (!(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) &&
	    !(WIFEXITED(status) && !WEXITSTATUS(status)))
		ksft_print_msg("profile unavailable: perf record failed (status 0x%x); "
			       "is perf_event_paranoid too strict, or perf unsupported here?\n",
			       status);
	else if (!print_report())
		ksft_print_msg("profile unavailable: perf recorded no samples\n");
	unlink(data_path);
}
