// SPDX-License-Identifier: GPL-2.0
/*
 * A JSON-aware mutation for libFuzzer custom mutators.
 *
 * Byte-level mutation of a 3 KB record almost always breaks the JSON, so the
 * reader under test stops at "not valid JSON".  This replaces one whole value
 * (after a ':', '[' or ',') with an awkward one, a value copied from
 * elsewhere in the document, or deletes one array element or object member;
 * the result is usually still JSON, with a type or a value the reader did not
 * expect.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json_mutate.h"

static const char *const awkward[] = {
	"null", "true", "false", "0", "-0", "-1", "1", "2", "1.5", "-2.5", "0.1",
	"1e308", "1e999", "-1e999", "4.9e-324", "1e-400",
	"18446744073709551616", "-9223372036854775809",
	"1000000000000000000000000000000000000000000000000000000000000000000000000000"
	"000000000000000000000000000000000000000000000000000000000000000000000000000000"
	"000000000000000000000000000000000000000000000000000000000000000000000000000000"
	"000000000000000000000000000000000000000000000000000000000000000000000000000000"
	"00000000000000000000000000000000000000000000000000000000000000000000000000000",
	"\"\"", "\"x\"", "\"\\ud800\"", "\"\\u0000\"", "\"a\\nb\"", "\"\\u00e9\"",
	"\"pass\"", "\"fail\"", "\"skip\"", "\"interrupted\"", "\"s\"", "\"ns\"",
	"\"dirty_ring\"", "\"page\"", "\"tlbie_bench\"", "\"dirty_log_perf\"",
	"\"demand_paging\"", "\"zap_latency\"",
	"[]", "{}", "[1]", "[null]", "[\"x\"]", "[1,2,3]", "[1e999]", "{\"a\":1}",
	"{\"unit\":\"s\",\"value\":1}", "{\"unit\":\"s\",\"value\":null}",
	"{\"unit\":\"s\",\"value\":1,\"values\":[]}",
	"{\"vcpus\":1,\"mem_fault_exits\":false,\"figures\":{}}",
};
#define NR_AWKWARD (sizeof(awkward) / sizeof(awkward[0]))

static uint32_t next_rand(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static bool is_ws(uint8_t c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static size_t skip_ws(const uint8_t *d, size_t i, size_t n)
{
	while (i < n && is_ws(d[i]))
		i++;
	return i;
}

/* The offset of the last non-blank byte before d[i] (i > 0), or 0. */
static size_t skip_back(const uint8_t *d, size_t i)
{
	while (i > 0 && is_ws(d[i - 1]))
		i--;
	return i ? i - 1 : 0;
}

/* The end (exclusive) of the value starting at d[i], or i when there is none. */
static size_t value_end(const uint8_t *d, size_t i, size_t n)
{
	size_t j;
	int depth = 0;
	bool str = false;

	if (i >= n || d[i] == ',' || d[i] == ']' || d[i] == '}' || d[i] == ':')
		return i;
	for (j = i; j < n; j++) {
		uint8_t c = d[j];

		if (str) {
			if (c == '\\') {
				j++;
			} else if (c == '"') {
				str = false;
				if (!depth)
					return j + 1;
			}
		} else if (c == '"') {
			str = true;
		} else if (c == '[' || c == '{') {
			depth++;
		} else if (c == ']' || c == '}') {
			if (!depth)
				return j;
			if (!--depth)
				return j + 1;
		} else if (!depth && (c == ',' || c == ':' || is_ws(c))) {
			return j;
		}
	}
	return n;
}

/* Offsets just after each ':', '[' or ',' outside strings. */
static size_t value_slots(const uint8_t *d, size_t n, size_t *slots, size_t max)
{
	size_t i, count = 0;
	bool str = false;

	for (i = 0; i < n && count < max; i++) {
		if (str) {
			if (d[i] == '\\')
				i++;
			else if (d[i] == '"')
				str = false;
		} else if (d[i] == '"') {
			str = true;
		} else if (d[i] == ':' || d[i] == '[' || d[i] == ',') {
			slots[count++] = i + 1;
		}
	}
	return count;
}

/* Replace d[from, to) of a size-n buffer with rep; 0 when it does not fit. */
static size_t splice(uint8_t *d, size_t n, size_t max, size_t from, size_t to,
		     const uint8_t *rep, size_t len)
{
	if (n - (to - from) + len > max)
		return 0;
	memmove(d + from + len, d + to, n - to);
	if (len)
		memcpy(d + from, rep, len);
	return n - (to - from) + len;
}

size_t json_mutate(uint8_t *d, size_t n, size_t max, unsigned int seed)
{
	static size_t slots[8192];
	uint32_t r = seed | 1;
	size_t count, at, end, from, to;
	uint8_t *copy;

	count = value_slots(d, n, slots, sizeof(slots) / sizeof(slots[0]));
	if (!count)
		return 0;
	at = skip_ws(d, slots[next_rand(&r) % count], n);
	end = value_end(d, at, n);
	if (end == at)
		return 0;

	switch (next_rand(&r) % 8) {
	case 0: {	/* delete: ",value" or ",\"key\": value" after a ',' */
		if (at == 0 || d[skip_back(d, at)] != ',')
			return 0;
		from = skip_back(d, at);
		to = end;
		if (d[at] == '"') {	/* a member name: the value follows its ':' */
			size_t v = skip_ws(d, end, n);

			if (v < n && d[v] == ':') {
				v = skip_ws(d, v + 1, n);
				to = value_end(d, v, n);
				if (to == v)
					return 0;
			}
		}
		return splice(d, n, max, from, to, NULL, 0);
	}
	case 1:
	case 2: {	/* a value copied from elsewhere in the document */
		size_t o = skip_ws(d, slots[next_rand(&r) % count], n);
		size_t oe = value_end(d, o, n), len = oe - o;

		if (!len)
			return 0;
		copy = malloc(len);
		if (!copy)
			return 0;
		memcpy(copy, d + o, len);
		n = splice(d, n, max, at, end, copy, len);
		free(copy);
		return n;
	}
	case 3: {	/* nested deeper than a reader recurses */
		size_t depth = 1000 + next_rand(&r) % 2000, i;

		copy = malloc(2 * depth);
		if (!copy)
			return 0;
		for (i = 0; i < depth; i++) {
			copy[i] = '[';
			copy[2 * depth - 1 - i] = ']';
		}
		n = splice(d, n, max, at, end, copy, 2 * depth);
		free(copy);
		return n;
	}
	default: {
		const char *v = awkward[next_rand(&r) % NR_AWKWARD];

		return splice(d, n, max, at, end, (const uint8_t *)v, strlen(v));
	}
	}
}
