/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Read-only access to a JSON document parsed by jansson, for the unit tests.
 *
 * jansson's json_string() and json_null() clash with include/json.h, so no
 * file may include both headers.  The tests include this one instead; only
 * jansson_view.c sees <jansson.h>.
 *
 * A path names a value from the root: object keys and array indices joined
 * by '/', e.g. "run/iterations/2/time".  "" is the root itself.
 */
#ifndef KMP_UNIT_JANSSON_VIEW_H
#define KMP_UNIT_JANSSON_VIEW_H

#include <stdbool.h>
#include <stddef.h>

enum jv_type {
	JV_MISSING = -1,	/* no value at that path */
	JV_OBJECT, JV_ARRAY, JV_STRING, JV_INTEGER, JV_REAL,
	JV_TRUE, JV_FALSE, JV_NULL,
};

struct jv_doc;

/*
 * Parse text with jansson (json_loads, any top-level value).  With
 * ints_as_real, integers beyond long long are accepted as doubles.  NULL on
 * a parse error, with jansson's message (and position) in err.
 */
struct jv_doc *jv_parse(const char *text, bool ints_as_real, char *err, size_t errlen);
void jv_free(struct jv_doc *doc);

enum jv_type jv_type(const struct jv_doc *doc, const char *path);
long long jv_integer(const struct jv_doc *doc, const char *path);	/* 0 if not */
double jv_number(const struct jv_doc *doc, const char *path);	/* integer or real */
const char *jv_string(const struct jv_doc *doc, const char *path);	/* NULL if not */
size_t jv_size(const struct jv_doc *doc, const char *path);	/* members or elements */

#endif
