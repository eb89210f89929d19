// SPDX-License-Identifier: GPL-2.0
/*
 * --profile: perf samples the whole host (kernel symbols) during the run;
 * the top symbols print in the seed's layout ("74.52%  [k] do_tlbies").
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tb_host.h"

#define PROFILE_DATA "/tmp/kmp-tlbie-perf.data"
#define PROFILE_TOP 10

int tb_profile_start(char *why, size_t len)
{
	pid_t pid;

	if (access("/usr/bin/perf", X_OK)) {
		snprintf(why, len, "perf is not installed (Debian: linux-perf)");
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(why, len, "fork: %s", strerror(errno));
		return -1;
	}
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		dup2(null, 2);
		execl("/usr/bin/perf", "perf", "record", "-a", "-F", "999", "-o", PROFILE_DATA,
		      NULL);
		_exit(127);
	}
	return pid;
}

void tb_profile_stop_and_print(int pid)
{
	char line[512];
	int status, shown = 0;
	FILE *f;

	kill(pid, SIGINT);
	waitpid(pid, &status, 0);
	/* perf record writes its data on SIGINT, then dies of it again on purpose. */
	if (!(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) &&
	    !(WIFEXITED(status) && !WEXITSTATUS(status))) {
		ksft_print_msg("profile unavailable: perf record failed (status 0x%x); "
			       "is perf_event_paranoid too strict, or perf unsupported here?\n",
			       status);
		unlink(PROFILE_DATA);
		return;
	}
	f = popen("/usr/bin/perf report -i " PROFILE_DATA " --stdio --sort sym 2>/dev/null", "r");
	ksft_print_msg("host profile (perf, all CPUs, during the run):\n");
	while (f && fgets(line, sizeof(line), f) && shown < PROFILE_TOP) {
		if (line[0] == '#' || line[0] == '\n')
			continue;
		ksft_print_msg("%s", line);
		shown++;
	}
	if (f)
		pclose(f);
	if (!shown)
		ksft_print_msg("profile unavailable: perf recorded no samples\n");
	unlink(PROFILE_DATA);
}
