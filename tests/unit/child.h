/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Run a function that is expected to exit (usage_error, TEST_ASSERT) in a
 * child process, capturing what it writes to stderr.
 */
#ifndef KMP_UNIT_CHILD_H
#define KMP_UNIT_CHILD_H

#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * Fork, run fn(arg) with stderr redirected into out (NUL-terminated, at most
 * len - 1 bytes), and return the child's exit status: fn's own exit code, 0
 * if fn returned, or -1 if the child was killed or could not be started.
 */
static inline int run_in_child(void (*fn)(const void *arg), const void *arg,
			       char *out, size_t len)
{
	int pipefd[2], status;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	out[0] = '\0';
	if (pipe(pipefd))
		return -1;
	/* Buffered output would otherwise be printed twice. */
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return -1;
	}
	if (pid == 0) {
		close(pipefd[0]);
		dup2(pipefd[1], STDERR_FILENO);
		fn(arg);
		fflush(stderr);
		_exit(0);
	}

	close(pipefd[1]);
	while (got + 1 < len && (n = read(pipefd[0], out + got, len - 1 - got)) > 0)
		got += (size_t)n;
	out[got] = '\0';
	close(pipefd[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

#endif
