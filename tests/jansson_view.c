// SPDX-License-Identifier: GPL-2.0
/*
 * jansson behind a small path-based interface (see jansson_view.h).  This
 * file is linked into the unit-test binary but does not use the kselftest
 * harness, so it can be a translation unit of its own.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jansson_view.h"

struct jv_doc {
	json_t *root;
};

struct jv_doc *jv_parse(const char *text, bool ints_as_real, char *err, size_t errlen)
{
	size_t flags = JSON_DECODE_ANY | (ints_as_real ? JSON_DECODE_INT_AS_REAL : 0);
	struct jv_doc *doc;
	json_error_t jerr;
	json_t *root;

	root = json_loads(text, flags, &jerr);
	if (!root) {
		snprintf(err, errlen, "line %d column %d: %s", jerr.line,
			 jerr.column, jerr.text);
		return NULL;
	}
	doc = malloc(sizeof(*doc));
	if (!doc) {
		json_decref(root);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	doc->root = root;
	return doc;
}

void jv_free(struct jv_doc *doc)
{
	if (!doc)
		return;
	json_decref(doc->root);
	free(doc);
}

/* The value at path, or NULL.  Array indices are plain decimal numbers. */
static json_t *jv_lookup(const struct jv_doc *doc, const char *path)
{
	json_t *cur = doc->root;
	char *copy, *seg, *save = NULL;

	if (!*path)
		return cur;
	copy = strdup(path);
	if (!copy)
		return NULL;
	for (seg = strtok_r(copy, "/", &save); seg && cur;
	     seg = strtok_r(NULL, "/", &save)) {
		if (json_is_object(cur)) {
			cur = json_object_get(cur, seg);
		} else if (json_is_array(cur)) {
			char *end;
			unsigned long idx = strtoul(seg, &end, 10);

			cur = *end ? NULL : json_array_get(cur, idx);
		} else {
			cur = NULL;
		}
	}
	free(copy);
	return cur;
}

enum jv_type jv_type(const struct jv_doc *doc, const char *path)
{
	json_t *v = jv_lookup(doc, path);

	if (!v)
		return JV_MISSING;
	switch (json_typeof(v)) {
	case JSON_OBJECT:  return JV_OBJECT;
	case JSON_ARRAY:   return JV_ARRAY;
	case JSON_STRING:  return JV_STRING;
	case JSON_INTEGER: return JV_INTEGER;
	case JSON_REAL:    return JV_REAL;
	case JSON_TRUE:    return JV_TRUE;
	case JSON_FALSE:   return JV_FALSE;
	case JSON_NULL:    return JV_NULL;
	}
	return JV_MISSING;
}

long long jv_integer(const struct jv_doc *doc, const char *path)
{
	return json_integer_value(jv_lookup(doc, path));
}

double jv_number(const struct jv_doc *doc, const char *path)
{
	return json_number_value(jv_lookup(doc, path));
}

const char *jv_string(const struct jv_doc *doc, const char *path)
{
	return json_string_value(jv_lookup(doc, path));
}

size_t jv_size(const struct jv_doc *doc, const char *path)
{
	json_t *v = jv_lookup(doc, path);

	if (json_is_object(v))
		return json_object_size(v);
	return json_array_size(v);
}
