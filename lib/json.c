// SPDX-License-Identifier: GPL-2.0
/*
 * A streaming JSON writer and an atomic file write.
 *
 * The writer appends to a growable, always NUL-terminated buffer.  Each
 * nesting level remembers whether it already holds a member, which decides
 * whether the next one needs a comma.  If memory runs out the writer stops
 * appending and sets j->oom; json_write_file() then refuses to write.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json.h"
#include "test_util.h"

/* need_comma[] has one slot per level, the top level included. */
#define JSON_MAX_DEPTH ((int)ARRAY_SIZE(((struct json *)0)->need_comma))

void json_init(struct json *j)
{
	memset(j, 0, sizeof(*j));
}

void json_free(struct json *j)
{
	free(j->buf);
	json_init(j);
}

/* Append n bytes, growing the buffer geometrically. */
static void json_append(struct json *j, const char *s, size_t n)
{
	if (j->oom)
		return;
	if (j->len + n + 1 > j->cap) {
		size_t cap = j->cap ? j->cap : 256;
		char *buf;

		while (j->len + n + 1 > cap)
			cap *= 2;
		buf = realloc(j->buf, cap);
		if (!buf) {
			j->oom = true;
			return;
		}
		j->buf = buf;
		j->cap = cap;
	}
	memcpy(j->buf + j->len, s, n);
	j->len += n;
	j->buf[j->len] = '\0';
}

static void json_puts(struct json *j, const char *s)
{
	json_append(j, s, strlen(s));
}

/* A string literal with RFC 8259 escaping; bytes >= 0x80 pass unchanged. */
static void json_put_escaped(struct json *j, const char *s)
{
	const char *run = s;	/* start of bytes not yet appended */

	json_append(j, "\"", 1);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		char esc[8];

		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		json_append(j, run, (size_t)(s - run));
		run = s + 1;
		switch (c) {
		case '"':  json_puts(j, "\\\""); break;
		case '\\': json_puts(j, "\\\\"); break;
		case '\b': json_puts(j, "\\b"); break;
		case '\f': json_puts(j, "\\f"); break;
		case '\n': json_puts(j, "\\n"); break;
		case '\r': json_puts(j, "\\r"); break;
		case '\t': json_puts(j, "\\t"); break;
		default:
			snprintf(esc, sizeof(esc), "\\u%04x", c);
			json_puts(j, esc);
		}
	}
	json_append(j, run, (size_t)(s - run));
	json_append(j, "\"", 1);
}

/* Everything that comes before a value: the comma and the key, if any. */
static void json_member(struct json *j, const char *key)
{
	if (j->need_comma[j->depth])
		json_append(j, ",", 1);
	j->need_comma[j->depth] = true;
	if (key) {
		json_put_escaped(j, key);
		json_append(j, ":", 1);
	}
}

static void json_open(struct json *j, const char *key, char bracket)
{
	TEST_ASSERT(j->depth + 1 < JSON_MAX_DEPTH,
		    "JSON nesting deeper than %d levels", JSON_MAX_DEPTH - 1);
	json_member(j, key);
	json_append(j, &bracket, 1);
	j->depth++;
	j->need_comma[j->depth] = false;
	j->in_array[j->depth] = bracket == '[';
}

static void json_close(struct json *j, char bracket)
{
	TEST_ASSERT(j->depth > 0, "JSON '%c' without a matching open", bracket);
	j->depth--;
	json_append(j, &bracket, 1);
}

void json_object_begin(struct json *j, const char *key)
{
	json_open(j, key, '{');
}

void json_object_end(struct json *j)
{
	json_close(j, '}');
}

void json_array_begin(struct json *j, const char *key)
{
	json_open(j, key, '[');
}

void json_array_end(struct json *j)
{
	json_close(j, ']');
}

void json_close_to(struct json *j, int depth)
{
	TEST_ASSERT(depth >= 0, "JSON close to negative depth %d", depth);
	while (j->depth > depth)
		json_close(j, j->in_array[j->depth] ? ']' : '}');
}

void json_close_all(struct json *j)
{
	json_close_to(j, 0);
}

void json_string(struct json *j, const char *key, const char *val)
{
	json_member(j, key);
	if (val)
		json_put_escaped(j, val);
	else
		json_puts(j, "null");
}

void json_u64(struct json *j, const char *key, uint64_t val)
{
	char num[24];

	snprintf(num, sizeof(num), "%" PRIu64, val);
	json_member(j, key);
	json_puts(j, num);
}

void json_i64(struct json *j, const char *key, int64_t val)
{
	char num[24];

	snprintf(num, sizeof(num), "%" PRId64, val);
	json_member(j, key);
	json_puts(j, num);
}

void json_double(struct json *j, const char *key, double val)
{
	char num[40], *comma;

	json_member(j, key);
	if (!isfinite(val)) {	/* JSON has no NaN or infinity */
		json_puts(j, "null");
		return;
	}
	/* 17 significant digits read back as the same double. */
	snprintf(num, sizeof(num), "%.17g", val);
	/* A locale with a decimal comma would make this invalid JSON. */
	comma = strchr(num, ',');
	if (comma)
		*comma = '.';
	/*
	 * Keep it a real for readers that type numbers by their text: "2.0"
	 * rather than "2", and "-0.0", which "-0" would read back as integer 0.
	 */
	if (!strpbrk(num, ".e"))
		strcat(num, ".0");
	json_puts(j, num);
}

void json_bool(struct json *j, const char *key, bool val)
{
	json_member(j, key);
	json_puts(j, val ? "true" : "false");
}

void json_null(struct json *j, const char *key)
{
	json_member(j, key);
	json_puts(j, "null");
}

const char *json_text(const struct json *j)
{
	return j->buf ? j->buf : "";
}

/* write(2) all of buf, across partial writes and signals. */
static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Make a finished rename durable; failure here loses nothing already visible. */
static void fsync_parent_dir(const char *path)
{
	char *copy = strdup(path);
	int fd;

	if (!copy)
		return;
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(copy);
}

/*
 * The text plus a final newline goes to "<path>.tmpXXXXXX" in the same
 * directory (so rename() cannot cross filesystems), is flushed to disk, and
 * then replaces path in one step.  A reader sees the old file or the new one,
 * never a partial record.  On failure the temporary file is removed.
 */
int json_write_file(const struct json *j, const char *path)
{
	static const char suffix[] = ".tmpXXXXXX";
	char *tmp;
	int fd, ret;

	if (j->oom)
		return -ENOMEM;
	if (j->depth)
		return -EINVAL;	/* unclosed object or array */

	tmp = malloc(strlen(path) + sizeof(suffix));
	if (!tmp)
		return -ENOMEM;
	strcpy(tmp, path);
	strcat(tmp, suffix);

	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		free(tmp);
		return ret;
	}

	/* mkstemp creates 0600; results are meant to be shared and read. */
	ret = fchmod(fd, 0644) ? -errno : 0;
	if (!ret)
		ret = write_all(fd, json_text(j), j->len);
	if (!ret)
		ret = write_all(fd, "\n", 1);
	if (!ret && fsync(fd))
		ret = -errno;
	if (ret)
		goto err_close;
	if (close(fd)) {
		ret = -errno;
		goto err_unlink;
	}
	if (rename(tmp, path)) {
		ret = -errno;
		goto err_unlink;
	}

	fsync_parent_dir(path);
	free(tmp);
	return 0;

err_close:
	close(fd);
err_unlink:
	unlink(tmp);
	free(tmp);
	return ret;
}
