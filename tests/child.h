/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Run a function that is expected to exit (usage_error, TEST_ASSERT, a
 * guest assertion, the watchdog) in a child process, capturing its output.
 */
#ifndef KMP_TEST_CHILD_H
#define KMP_TEST_CHILD_H

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scratch.h"
#include "test_util.h"

/*
 * A new empty file (mkstemp) under $TMPDIR (else /tmp), named after stem;
 * its path in buf.  Fails the calling test's process if it cannot.
 */
static inline void tmp_file(char *buf, size_t len, const char *stem)
{
	char name[128];
	int fd;

	snprintf(name, sizeof(name), "kmp-%s-XXXXXX", stem);
	scratch_path(buf, len, name);
	fd = mkstemp(buf);
	if (fd < 0) {
		perror(buf);
		exit(1);
	}
	close(fd);
}

/* Optional: interrupt the child mid-run. */
struct child_kill {
	int sig;			/* sent once ready_file exists */
	const char *ready_file;		/* the child creates it when mid-run */
	const char *watch_path;		/* copied into watched just before the signal */
	char *watched;
	size_t watched_len;
};

static inline void child_read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, len - 1);

	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

/*
 * Fork, run fn(arg) with stdout and stderr redirected into out
 * (NUL-terminated, at most len - 1 bytes), and return the raw wait status
 * (-1 if the child could not be started).  A child whose fn returns exits 0.
 */
static inline int run_child(void (*fn)(const void *arg), const void *arg, char *out,
			    size_t len, const struct child_kill *kill_at)
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
		usage_error_fails(false);	/* its exit code is the caller's to check */
		close(pipefd[0]);
		dup2(pipefd[1], STDOUT_FILENO);
		dup2(pipefd[1], STDERR_FILENO);
		fn(arg);
		fflush(stdout);
		fflush(stderr);
		_exit(0);
	}
	close(pipefd[1]);
	if (kill_at) {
		for (int i = 0; i < 600 && access(kill_at->ready_file, F_OK); i++)
			usleep(50 * 1000);
		usleep(200 * 1000);
		if (kill_at->watch_path)
			child_read_file(kill_at->watch_path, kill_at->watched, kill_at->watched_len);
		kill(pid, kill_at->sig);
	}
	while (got + 1 < len && (n = read(pipefd[0], out + got, len - 1 - got)) > 0)
		got += (size_t)n;
	out[got] = '\0';
	close(pipefd[0]);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

/* The child's exit code, or -1 if it was killed or could not be started. */
static inline int run_in_child(void (*fn)(const void *arg), const void *arg, char *out, size_t len)
{
	int status = run_child(fn, arg, out, len, NULL);

	return status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

#endif
