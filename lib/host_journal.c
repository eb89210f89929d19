// SPDX-License-Identifier: GPL-2.0
/*
 * The crash journal of host changes: writing this process's, and undoing
 * what dead processes' journals still hold.
 *
 * lib/host_state.c's table of changes dies with a SIGKILL, so every change
 * is also appended to a journal file of this process before it is made
 * (format in docs/library.md, "Host changes and the crash journal"), and
 * marked done when undone there.  host_state_recover() undoes what dead
 * processes' journals still hold, with the undo that host_state.c's restore
 * uses and in its order (lib/host_undo.c).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host_journal.h"
#include "host_state.h"
#include "host_undo.h"
#include "test_util.h"

#define JOURNAL_DEFAULT_DIR	"/run/kvm-mmu-perf/journal"
#define JOURNAL_MAGIC		"kmp-host-state 1"
/* A change line: number, kind, two escaped fields (3 bytes a byte at most). */
#define JOURNAL_LINE_MAX	(3 * (HOST_STATE_PATH_MAX + HOST_STATE_VALUE_MAX) + 64)

/* The kinds' names in the journal. */
static const char *const kind_names[HS_NR_KINDS] = {
	[HS_WRITE] = "write", [HS_DELTA] = "delta", [HS_DIR] = "dir",
	[HS_MOUNT] = "mount", [HS_DYNEVENT] = "dynevent",
};

/*
 * This process's journal: <dir>/<pid>-<starttime>, made at its first
 * recorded change and unlinked when every record in it is done.  All of it
 * belongs to journal_pid: a forked child starts a journal of its own.
 */
static char journal_path[HOST_STATE_PATH_MAX];	/* "": no journal */
static volatile pid_t journal_pid;
static volatile sig_atomic_t journal_created;	/* the file exists */
static volatile sig_atomic_t journal_live;	/* its records not yet done */
static int journal_next;			/* number of its next record */
static uint64_t journal_start;			/* our start time, for the header */
static bool journal_warned;
static volatile sig_atomic_t journal_keep;	/* KMP_JOURNAL_KEEP=1: never unlinked */
static pid_t recovered_pid;			/* process that ran recovery */

/* ---- writing the journal ------------------------------------------------ */

/* Journal fields: bytes outside printable ASCII, space and '%' become %XX. */
static char *escape(char *dst, const char *src, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";

	for (size_t i = 0; i < len; i++) {
		unsigned char c = src[i];

		if (c > ' ' && c < 0x7f && c != '%') {
			*dst++ = c;
		} else {
			*dst++ = '%';
			*dst++ = hex[c >> 4];
			*dst++ = hex[c & 15];
		}
	}
	*dst = '\0';
	return dst;
}

/* The first line of a small file, without its newline ("" if unreadable). */
static void read_first_line(const char *path, char *buf, size_t size)
{
	if (hs_read_small(path, buf, size) < 0)
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

int host_proc_starttime(pid_t pid, uint64_t *start)
{
	char path[32], buf[1024], *p;
	ssize_t n;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	n = hs_read_small(path, buf, sizeof(buf));
	if (n <= 0)
		return n ? n : -ESRCH;
	/* comm (field 2) may hold spaces and ')': field 3 follows the last ')'. */
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ')
		return -EINVAL;
	p += 2;
	/* A zombie has run its last instruction: as good as gone. */
	if (*p == 'Z' || *p == 'X')
		return -ESRCH;
	for (i = 3; i < 22 && p; i++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (!p || !isdigit((unsigned char)*p))
		return -EINVAL;
	*start = strtoull(p, NULL, 10);
	return 0;
}

static const char *journal_dir(void)
{
	const char *dir = getenv("KMP_JOURNAL_DIR");

	return dir && *dir ? dir : JOURNAL_DEFAULT_DIR;
}

/*
 * KMP_JOURNAL_KEEP=1 keeps every journal, its records marked done, when a
 * process or a recoverer would remove it: a test reads from it what a run
 * changed and checks just those knobs.
 */
static bool journal_keep_env(void)
{
	const char *v = getenv("KMP_JOURNAL_KEEP");

	if (v && *v && strcmp(v, "0") && strcmp(v, "1"))
		usage_error("KMP_JOURNAL_KEEP='%s': must be 0 or 1", v);
	return v && !strcmp(v, "1");
}

/* mkdir -p, private: the journals name what this host runs. */
static int mkdir_p(const char *dir)
{
	char buf[HOST_STATE_PATH_MAX];

	if (snprintf(buf, sizeof(buf), "%s", dir) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0700) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, 0700) && errno != EEXIST)
		return -errno;
	return 0;
}

/* Without a journal the run goes on; say once what a SIGKILL would cost. */
static void journal_warn(const char *what, int err)
{
	if (journal_warned)
		return;
	journal_warned = true;
	fprintf(stderr, "# host_state: no crash journal (%s: %s): a killed run would leave its host changes behind\n",
		what, strerror(err));
}

/*
 * Before this process's first change: undo what dead runs left (so the
 * originals we are about to read are the host's own, not a dead run's), and
 * name our journal.  The file itself comes with the first record.
 */
void hs_journal_prepare(void)
{
	const char *dir = journal_dir();
	pid_t self = getpid();
	int err, n;

	if (journal_pid == self)
		return;
	if (recovered_pid != self)
		host_state_recover();
	journal_created = 0;
	journal_live = 0;
	journal_next = 0;
	journal_keep = journal_keep_env();
	journal_path[0] = '\0';
	err = mkdir_p(dir);
	if (!err)
		err = host_proc_starttime(self, &journal_start);
	if (!err) {
		n = snprintf(journal_path, sizeof(journal_path), "%s/%d-%" PRIu64, dir, (int)self,
			     journal_start);
		if (n >= (int)sizeof(journal_path)) {
			journal_path[0] = '\0';
			err = -ENAMETOOLONG;
		}
	}
	if (err)
		journal_warn(dir, -err);
	publish_barrier();
	journal_pid = self;
}

/* The journal's first line: whose it is. */
static int journal_create(void)
{
	char line[320], comm[32], boot[48], *p;
	ssize_t n;
	int fd, err;

	fd = open(journal_path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	read_first_line("/proc/self/comm", comm, sizeof(comm));
	read_first_line("/proc/sys/kernel/random/boot_id", boot, sizeof(boot));
	p = line + sprintf(line, JOURNAL_MAGIC " pid=%d start=%" PRIu64 " boot=", (int)getpid(),
			   journal_start);
	p = escape(p, boot, strlen(boot));
	p = stpcpy(p, " comm=");
	p = escape(p, comm, strlen(comm));
	*p++ = '\n';
	n = write(fd, line, p - line);
	err = n < 0 ? -errno : n != p - line ? -EIO : 0;
	close(fd);
	if (err) {
		unlink(journal_path);
		return err;
	}
	journal_next = 0;
	journal_created = 1;
	return 0;
}

/* Async-signal-safe: append one line to this process's journal. */
static void journal_append(const char *line, size_t len)
{
	ssize_t ret;
	int fd;

	fd = open(journal_path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return;
	ret = write(fd, line, len);
	(void)ret;
	close(fd);
}

/*
 * Journal the change slot e is about to make, before it is made:
 * "<n> <kind> <path> [<original>|<asked> <before>|<group/event>]".
 */
void hs_journal_record(struct host_state_entry *e, uint64_t ask, uint64_t before)
{
	char line[JOURNAL_LINE_MAX], *p;
	int err;

	e->jseq = -1;
	if (!journal_path[0])
		return;
	if (!journal_created) {
		err = journal_create();
		if (err) {
			journal_warn(journal_path, -err);
			journal_path[0] = '\0';
			return;
		}
	}
	p = line + sprintf(line, "%d %s ", journal_next, kind_names[e->kind]);
	p = escape(p, e->path, strlen(e->path));
	if (e->kind == HS_WRITE) {
		*p++ = ' ';
		p = escape(p, e->orig, e->orig_len);
	} else if (e->kind == HS_DELTA) {
		p += sprintf(p, " %" PRIu64 " %" PRIu64, ask, before);
	} else if (e->kind == HS_DYNEVENT) {
		*p++ = ' ';
		p = escape(p, e->orig + 2, e->orig_len - 3);	/* "-:" event "\n" */
	}
	*p++ = '\n';
	e->jseq = journal_next++;
	/* Counted first: a restore meanwhile must not unlink the journal. */
	__atomic_add_fetch(&journal_live, 1, __ATOMIC_SEQ_CST);
	journal_append(line, p - line);
}

/*
 * A delta's follow-up lines: "ask <n> <asked> <before>" before raising it
 * again, "granted <n> <total>" once the kernel has said how much it gave.
 */
void hs_journal_delta(const struct host_state_entry *e, bool granted, uint64_t amount,
		      uint64_t before)
{
	char line[80];
	int len;

	if (e->jseq < 0 || e->owner != getpid() || journal_pid != getpid() || !journal_created)
		return;
	if (granted)
		len = snprintf(line, sizeof(line), "granted %d %" PRIu64 "\n", e->jseq, amount);
	else
		len = snprintf(line, sizeof(line), "ask %d %" PRIu64 " %" PRIu64 "\n", e->jseq,
			       amount, before);
	journal_append(line, len);
}

/*
 * Async-signal-safe: slot e's change is no longer in place.  Mark its record
 * done, and remove the journal once nothing in it is left to undo.
 */
void hs_journal_done(struct host_state_entry *e)
{
	char line[32], *s;

	if (e->jseq < 0 || journal_pid != getpid() || !journal_created)
		return;
	line[sizeof(line) - 1] = '\n';
	s = hs_format_u64(line + sizeof(line) - 1, e->jseq);
	memcpy(s - 5, "done ", 5);
	journal_append(s - 5, line + sizeof(line) - (s - 5));
	e->jseq = -1;
	if (!__atomic_sub_fetch(&journal_live, 1, __ATOMIC_SEQ_CST) && !journal_keep) {
		unlink(journal_path);
		journal_created = 0;
	}
}

/* ---- recovery ---------------------------------------------------------------- */

/* Decode a field in place. Returns its length, or -1 if malformed. */
static ssize_t unescape(char *s)
{
	char *out = s, *start = s, hex[3] = "";

	for (; *s; s++) {
		if (*s != '%') {
			*out++ = *s;
			continue;
		}
		if (!isxdigit((unsigned char)s[1]) || !isxdigit((unsigned char)s[2]))
			return -1;
		memcpy(hex, s + 1, 2);
		*out++ = strtoul(hex, NULL, 16);
		s += 2;
	}
	*out = '\0';
	return out - start;
}

/* One change record of a dead process's journal, its fields decoded in place. */
struct jrec {
	int kind;			/* -1: no such record */
	bool done;
	char *path, *arg;		/* arg: HS_WRITE's original, HS_DYNEVENT's event */
	size_t arg_len;
	uint64_t granted;		/* HS_DELTA: the last granted total */
	bool asking;			/* HS_DELTA: asked for more, no grant known */
	uint64_t ask, before;
};

struct journal {
	pid_t pid;
	const char *comm, *boot;
	struct jrec *recs;
	int nr;
};

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return !errno && !*end;
}

/* Record number s of j (made when create); NULL if s is not one. */
static struct jrec *jrec_get(struct journal *j, const char *s, bool create)
{
	struct jrec *recs;
	uint64_t n;

	if (!parse_u64(s, &n) || n > (1 << 16))
		return NULL;
	if (n >= (uint64_t)j->nr) {
		if (!create)
			return NULL;
		recs = realloc(j->recs, (n + 1) * sizeof(*recs));
		if (!recs)
			return NULL;
		for (int i = j->nr; i <= (int)n; i++)
			recs[i] = (struct jrec){ .kind = -1 };
		j->recs = recs;
		j->nr = n + 1;
	}
	return &j->recs[n];
}

/* A field decoded in place; NULL if missing or malformed. */
static char *next_field(char **s, ssize_t *len)
{
	char *f = strsep(s, " ");
	ssize_t n = f ? unescape(f) : -1;

	if (len)
		*len = n;
	return n < 0 ? NULL : f;
}

/* The header's "key=value" fields we use (boot, comm). */
static void parse_header(char *s, struct journal *j)
{
	char *f;

	while ((f = strsep(&s, " "))) {
		if (!strncmp(f, "boot=", 5) && unescape(f + 5) > 0)
			j->boot = f + 5;
		else if (!strncmp(f, "comm=", 5) && unescape(f + 5) > 0)
			j->comm = f + 5;
	}
}

static void parse_line(char *s, struct journal *j)
{
	char *word = strsep(&s, " ");
	struct jrec *r, rec = { 0 };
	uint64_t a, b;
	ssize_t len;
	int kind;

	if (!strcmp(word, "done")) {
		r = jrec_get(j, strsep(&s, " "), false);
		if (r)
			r->done = true;
	} else if (!strcmp(word, "granted")) {
		r = jrec_get(j, strsep(&s, " "), false);
		if (r && r->kind == HS_DELTA && parse_u64(strsep(&s, " "), &a)) {
			r->granted = a;
			r->asking = false;
		}
	} else if (!strcmp(word, "ask")) {
		r = jrec_get(j, strsep(&s, " "), false);
		if (r && r->kind == HS_DELTA && parse_u64(strsep(&s, " "), &a) &&
		    parse_u64(strsep(&s, " "), &b)) {
			r->ask = a;
			r->before = b;
			r->asking = true;
		}
	} else {
		/* "<n> <kind> <path> ...": a change. */
		char *kind_word = strsep(&s, " ");

		for (kind = 0; kind < HS_NR_KINDS; kind++)
			if (kind_word && !strcmp(kind_word, kind_names[kind]))
				break;
		rec.kind = kind;
		rec.path = next_field(&s, &len);
		if (kind == HS_NR_KINDS || !rec.path || !len)
			return;
		if (kind == HS_WRITE || kind == HS_DYNEVENT) {
			rec.arg = next_field(&s, &len);
			if (!rec.arg || (kind == HS_DYNEVENT && !len))
				return;
			rec.arg_len = len;
		} else if (kind == HS_DELTA) {
			if (!parse_u64(strsep(&s, " "), &rec.ask) ||
			    !parse_u64(strsep(&s, " "), &rec.before))
				return;
			rec.asking = true;
		}
		r = jrec_get(j, word, true);
		if (r)
			*r = rec;
	}
}

/* Split a journal into its records; a line with no newline (torn) is ignored. */
static void parse_journal(char *text, struct journal *j)
{
	char *line = text, *nl;

	while ((nl = strchr(line, '\n'))) {
		*nl = '\0';
		if (line == text) {
			if (strncmp(line, JOURNAL_MAGIC " ", sizeof(JOURNAL_MAGIC)))
				return;		/* not a journal of ours */
			parse_header(line + sizeof(JOURNAL_MAGIC), j);
		} else {
			parse_line(line, j);
		}
		line = nl + 1;
	}
}

/* Undo record n of dead journal j (its file open at fd) and mark it done. */
static int recover_record(const struct journal *j, int fd, int n, const struct jrec *r)
{
	char what[2 * HOST_STATE_VALUE_MAX], line[HOST_STATE_VALUE_MAX];
	const char *arg = r->arg;
	size_t len = r->arg_len;
	uint64_t amount = 0, now;
	int ret, dlen;

	switch (r->kind) {
	case HS_WRITE:
		snprintf(what, sizeof(what), "write of %s", r->path);
		break;
	case HS_DELTA:
		amount = r->granted;
		/*
		 * It died before the kernel's grant was journaled: take what the
		 * counter grew by since, never more than it asked for.
		 */
		if (r->asking && !host_read_u64(r->path, &now) && now > r->before)
			amount += now - r->before < r->ask ? now - r->before : r->ask;
		snprintf(what, sizeof(what), "+%" PRIu64 " on %s", amount, r->path);
		break;
	case HS_DIR:
		snprintf(what, sizeof(what), "mkdir %s", r->path);
		break;
	case HS_MOUNT:
		snprintf(what, sizeof(what), "mount on %s", r->path);
		break;
	default:
		snprintf(what, sizeof(what), "dynamic event %s in %s", r->arg, r->path);
		len = snprintf(line, sizeof(line), "-:%s\n", r->arg);
		if (len >= sizeof(line))
			return -ENAMETOOLONG;
		arg = line;
		break;
	}
	ret = hs_undo(r->kind, r->path, arg, len, amount);
	if (ret > 0)
		fprintf(stderr, "# host_state: undid %s left by pid %d (%s, dead)\n", what,
			(int)j->pid, j->comm);
	else if (ret < 0)
		fprintf(stderr, "# host_state: could not undo %s left by pid %d (%s): %s\n", what,
			(int)j->pid, j->comm, strerror(-ret));
	if (ret >= 0) {
		/* Kept files (see recover_file) must not undo it twice. */
		dlen = snprintf(line, sizeof(line), "done %d\n", n);
		if (write(fd, line, dlen) != dlen)
			fprintf(stderr, "# host_state: could not mark it done: %s\n", strerror(errno));
	}
	return ret;
}

/* Whether the process that wrote journal name still runs (same pid and start time). */
static bool owner_alive(pid_t pid, uint64_t start, const char *name)
{
	uint64_t now;
	int err = host_proc_starttime(pid, &now);

	if (err == -ENOENT || err == -ESRCH)
		return false;
	if (err)
		return true;		/* cannot tell: leave it alone */
	if (now != start)
		return false;		/* the pid now belongs to another process */
	/*
	 * Our own pid and start time: our journal, or one left by the program
	 * this process was before an exec().
	 */
	if (pid == getpid())
		return journal_pid == pid && journal_path[0] &&
		       !strcmp(strrchr(journal_path, '/') + 1, name);
	return true;
}

/* One journal being recovered, for undo_in_order. */
struct recovery {
	const struct journal *j;
	int fd, undone;
	bool keep;
};

static enum hs_kind rec_kind(void *ctx, int i)
{
	const struct recovery *r = ctx;

	/* Unparsed records are skipped by rec_undo whatever they stand for. */
	return r->j->recs[i].kind < 0 ? HS_WRITE : r->j->recs[i].kind;
}

static void rec_undo(void *ctx, int i)
{
	struct recovery *r = ctx;
	const struct jrec *rec = &r->j->recs[i];
	int ret;

	if (rec->kind < 0 || rec->done)
		return;
	ret = recover_record(r->j, r->fd, i, rec);
	r->undone += ret > 0;
	/* Not allowed (not root): leave it for a run that is. */
	r->keep |= ret == -EACCES || ret == -EPERM;
}

/* Undo what journal dir/name holds if its owner is dead. Returns how many. */
static int recover_file(int dfd, const char *name, pid_t pid, uint64_t start,
			const char *boot, bool keep_file)
{
	struct journal j = { .pid = pid, .comm = "?" };
	bool keep = false;
	char *text = NULL;
	struct stat st;
	ssize_t len = 0, got;
	int fd, n = 0;

	if (owner_alive(pid, start, name))
		return 0;
	fd = openat(dfd, name, O_RDWR | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	/* Another recoverer holds it, or has finished with it (unlinked). */
	if (flock(fd, LOCK_EX | LOCK_NB) || fstat(fd, &st) || !st.st_nlink ||
	    !S_ISREG(st.st_mode) || st.st_size > (16 << 20))
		goto out;
	text = malloc(st.st_size + 1);
	if (!text)
		goto out;
	while (len < st.st_size && (got = pread(fd, text + len, st.st_size - len, len)) > 0)
		len += got;
	text[len] = '\0';
	parse_journal(text, &j);

	if (j.boot && boot[0] && strcmp(j.boot, boot)) {
		/* A reboot undid its changes already; undoing again would hit the new boot's. */
		fprintf(stderr, "# host_state: dropped the journal of pid %d (%s): from an earlier boot\n",
			(int)pid, j.comm);
	} else {
		struct recovery r = { .j = &j, .fd = fd };

		hs_undo_in_order(j.nr, rec_kind, rec_undo, &r);
		n = r.undone;
		keep = r.keep;
	}
	if (!keep && !keep_file)
		unlinkat(dfd, name, 0);
out:
	free(text);
	free(j.recs);
	close(fd);
	return n;
}

int host_state_recover(void)
{
	bool keep_files = journal_keep_env();
	char boot[48];
	struct dirent *de;
	DIR *dir;
	int n = 0;

	recovered_pid = getpid();
	dir = opendir(journal_dir());
	if (!dir)
		return errno == ENOENT ? 0 : -errno;
	read_first_line("/proc/sys/kernel/random/boot_id", boot, sizeof(boot));
	while ((de = readdir(dir))) {
		unsigned long long start;
		int pid, end = 0;

		/* Only "<pid>-<starttime>", as hs_journal_prepare() names them. */
		if (!isdigit((unsigned char)de->d_name[0]) ||
		    sscanf(de->d_name, "%d-%llu%n", &pid, &start, &end) != 2 ||
		    de->d_name[end] || pid <= 0)
			continue;
		n += recover_file(dirfd(dir), de->d_name, pid, start, boot, keep_files);
	}
	closedir(dir);
	return n;
}
