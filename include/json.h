/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small streaming JSON writer into memory, and an atomic file write
 * (temp file + rename) so a reader never sees half a record.
 */
#ifndef KMP_JSON_H
#define KMP_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

struct json {
	char *buf;
	size_t len, cap;
	int depth;
	bool need_comma[32];	/* per nesting level */
	bool in_array[32];	/* per nesting level: an array, else an object */
	bool oom;
};

void json_init(struct json *j);
void json_free(struct json *j);

/* Containers: key is NULL inside arrays and at top level. */
void json_object_begin(struct json *j, const char *key);
void json_object_end(struct json *j);
void json_array_begin(struct json *j, const char *key);
void json_array_end(struct json *j);
/*
 * Close open containers, innermost first, with the right bracket each, until
 * depth levels remain open.  For a document cut short by a failure:
 * json_close_to(j, 1) leaves only the top-level object open for final
 * members; json_close_all() completes the document.
 */
void json_close_to(struct json *j, int depth);
void json_close_all(struct json *j);

/* Values: key is NULL inside arrays. Strings are escaped (RFC 8259). */
void json_string(struct json *j, const char *key, const char *val);	/* NULL -> null */
void json_u64(struct json *j, const char *key, uint64_t val);
void json_i64(struct json *j, const char *key, int64_t val);
void json_double(struct json *j, const char *key, double val);	/* NaN/inf -> null */
void json_bool(struct json *j, const char *key, bool val);
void json_null(struct json *j, const char *key);

/* The document so far, NUL-terminated (valid once all containers are closed). */
const char *json_text(const struct json *j);

/* Write the text to path atomically: path.tmpXXXXXX, fsync, rename. 0 or -errno. */
int json_write_file(const struct json *j, const char *path);

#endif
