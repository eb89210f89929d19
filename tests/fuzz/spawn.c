// SPDX-License-Identifier: GPL-2.0
/*
 * Running a script from a fuzz target: temporary folders, captured output,
 * a timeout on the whole process group, findings and output features.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "spawn.h"

extern char **environ;

static void die(const char *what, const char *arg)
{
	fprintf(stderr, "fuzz harness: %s %s: %s\n", what, arg ? arg : "", strerror(errno));
	abort();
}

/* ---- temporary folders ---------------------------------------------------- */

#define MAX_TMPDIRS 4
static char *tmpdirs[MAX_TMPDIRS];
static int nr_tmpdirs;

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	if (remove(path))
		fprintf(stderr, "fuzz harness: cannot remove %s: %s\n", path, strerror(errno));
	return 0;
}

static void rm_tmpdirs(void)
{
	int i;

	for (i = 0; i < nr_tmpdirs; i++)
		nftw(tmpdirs[i], rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

const char *fuzz_tmpdir(const char *name)
{
	const char *base = getenv("TMPDIR");
	char path[PATH_MAX];

	if (!base || !*base)
		base = "/tmp";
	if (nr_tmpdirs == MAX_TMPDIRS) {
		errno = EMFILE;
		die("too many temporary folders for", name);
	}
	snprintf(path, sizeof(path), "%s/kmp-fuzz-%s.XXXXXX", base, name);
	if (!mkdtemp(path))
		die("mkdtemp", path);
	if (!nr_tmpdirs)
		atexit(rm_tmpdirs);
	tmpdirs[nr_tmpdirs] = strdup(path);
	if (!tmpdirs[nr_tmpdirs])
		die("strdup", path);
	return tmpdirs[nr_tmpdirs++];
}

void fuzz_mkdir(const char *path)
{
	if (mkdir(path, 0700) && errno != EEXIST)
		die("mkdir", path);
}

void fuzz_write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	const char *p = data;

	if (fd < 0)
		die("open", path);
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("write", path);
		p += n;
		len -= n;
	}
	if (close(fd))
		die("close", path);
}

static char *read_fd(int fd, size_t *len, const char *what)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);

	if (!buf)
		die("malloc for", what);
	for (;;) {
		ssize_t got;

		if (n + 1 == cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			if (!buf)
				die("realloc for", what);
		}
		got = pread(fd, buf + n, cap - n - 1, n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			die("read", what);
		if (!got)
			break;
		n += got;
	}
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

char *fuzz_read_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *buf;

	if (fd < 0)
		die("open", path);
	buf = read_fd(fd, len, path);
	close(fd);
	return buf;
}

static int rm_below(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	if (ftw->level > 0 && remove(path))
		die("remove", path);
	return 0;
}

void fuzz_empty_dir(const char *path)
{
	if (nftw(path, rm_below, 16, FTW_DEPTH | FTW_PHYS))
		die("nftw", path);
}

/* ---- running a child ------------------------------------------------------ */

/* environ with each NAME=value of set_env replacing (or adding) NAME. */
static char **child_env(char *const set_env[])
{
	size_t n = 0, extra = 0, i, j, out = 0;
	char **env;

	while (environ[n])
		n++;
	while (set_env[extra])
		extra++;
	env = calloc(n + extra + 1, sizeof(*env));
	if (!env)
		die("calloc", "environment");
	for (i = 0; i < n; i++) {
		bool replaced = false;

		for (j = 0; j < extra; j++) {
			size_t k = strcspn(set_env[j], "=") + 1;

			if (!strncmp(environ[i], set_env[j], k))
				replaced = true;
		}
		if (!replaced)
			env[out++] = environ[i];
	}
	for (j = 0; j < extra; j++)
		env[out++] = set_env[j];
	return env;
}

static int wait_timeout(pid_t pid, int timeout_ms, int *status)
{
	int pidfd = syscall(SYS_pidfd_open, pid, 0);
	struct timespec start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		pid_t got = waitpid(pid, status, WNOHANG);
		long elapsed;

		if (got == pid)
			break;
		if (got < 0 && errno != EINTR)
			die("waitpid", NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
		elapsed = (now.tv_sec - start.tv_sec) * 1000 +
			  (now.tv_nsec - start.tv_nsec) / 1000000;
		if (elapsed >= timeout_ms) {
			if (pidfd >= 0)
				close(pidfd);
			return -1;
		}
		if (pidfd >= 0) {
			struct pollfd p = { .fd = pidfd, .events = POLLIN };

			poll(&p, 1, timeout_ms - elapsed);
		} else {
			usleep(1000);	/* no pidfd_open (before Linux 5.3) */
		}
	}
	if (pidfd >= 0)
		close(pidfd);
	return 0;
}

void fuzz_run(char *const argv[], char *const set_env[], int timeout_ms,
	      struct fuzz_run *r)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	int out_fd, err_fd, status, rc;
	sigset_t none, all;
	char **env;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	out_fd = memfd_create("fuzz-stdout", MFD_CLOEXEC);
	err_fd = memfd_create("fuzz-stderr", MFD_CLOEXEC);
	if (out_fd < 0 || err_fd < 0)
		die("memfd_create", NULL);

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
	posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
	posix_spawnattr_init(&attr);
	sigemptyset(&none);
	sigfillset(&all);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &all);
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
				 POSIX_SPAWN_SETSIGDEF);

	env = child_env(set_env);
	/* ETXTBSY: the script is being rewritten right now (an editor, git). */
	for (int tries = 0; tries < 100; tries++) {
		rc = posix_spawn(&pid, argv[0], &fa, &attr, argv, env);
		if (rc != ETXTBSY)
			break;
		usleep(10000);
	}
	free(env);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	if (rc) {
		errno = rc;
		die("posix_spawn", argv[0]);
	}

	if (wait_timeout(pid, timeout_ms, &status)) {
		r->timed_out = true;
		kill(-pid, SIGKILL);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	} else {
		/* Nothing the script started may outlive it. */
		kill(-pid, SIGKILL);
		if (WIFSIGNALED(status))
			r->signal = WTERMSIG(status);
		else
			r->exit_code = WEXITSTATUS(status);
	}
	r->out = read_fd(out_fd, &r->out_len, "stdout");
	r->err = read_fd(err_fd, &r->err_len, "stderr");
	close(out_fd);
	close(err_fd);
}

void fuzz_run_free(struct fuzz_run *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

/* ---- features ------------------------------------------------------------- */

#define NR_COUNTERS 65536
/* libFuzzer (Linux) treats this section as extra coverage counters. */
static uint8_t counters[NR_COUNTERS]
	__attribute__((section("__libfuzzer_extra_counters"), used));

#define FNV_OFFSET 2166136261u
#define FNV_PRIME 16777619u

static uint32_t fnv(uint32_t h, unsigned char c)
{
	return (h ^ c) * FNV_PRIME;
}

/*
 * One counter per distinct line shape: digits and text in quotes dropped,
 * runs of one character collapsed (table frames of any width are alike).
 */
static void line_features(const char *text, size_t len, uint32_t seed)
{
	const char *p = text, *end = text + len;
	int lines = 0;

	while (p < end && lines++ < 256) {
		uint32_t h = fnv(FNV_OFFSET, (unsigned char)seed);
		char quote = 0, last = 0;

		for (; p < end && *p != '\n'; p++) {
			char c = *p;

			if (quote) {
				if (c == quote)
					quote = 0;
				continue;
			}
			if (c == '\'' || c == '"') {
				quote = c;
				continue;
			}
			if (c >= '0' && c <= '9')
				c = '0';
			if (c == last)
				continue;
			last = c;
			h = fnv(h, (unsigned char)c);
		}
		p++;
		counters[h % NR_COUNTERS]++;
	}
}

void fuzz_features(const struct fuzz_run *r)
{
	uint32_t status = r->timed_out ? 1000 : r->signal ? 500 + r->signal : r->exit_code;

	counters[fnv(fnv(FNV_OFFSET, 0xff), (unsigned char)status) % NR_COUNTERS]++;
	line_features(r->out, r->out_len, 'o' + status);
	line_features(r->err, r->err_len, 'e' + status);
}

/* ---- findings ------------------------------------------------------------- */

static void print_escaped(const uint8_t *data, size_t size)
{
	size_t i;

	for (i = 0; i < size && i < 4096; i++) {
		unsigned char c = data[i];

		if (c == '\n')
			fputs("\\n\n", stderr);
		else if (c == '\\')
			fputs("\\\\", stderr);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(stderr, "\\x%02x", c);
		else
			fputc(c, stderr);
	}
	if (i < size)
		fprintf(stderr, "... (%zu bytes)", size);
	fputc('\n', stderr);
}

void fuzz_finding(const struct fuzz_run *r, const uint8_t *data, size_t size,
		  const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "\n==== FINDING: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (r) {
		if (r->timed_out)
			fprintf(stderr, "---- status: killed after %d ms\n", FUZZ_CHILD_TIMEOUT_MS);
		else if (r->signal)
			fprintf(stderr, "---- status: signal %d\n", r->signal);
		else
			fprintf(stderr, "---- status: exit %d\n", r->exit_code);
		fprintf(stderr, "---- stderr:\n%s", r->err);
		fprintf(stderr, "---- stdout (first 2000 bytes):\n%.2000s", r->out);
	}
	fprintf(stderr, "---- input (escaped):\n");
	print_escaped(data, size);
	abort();
}
