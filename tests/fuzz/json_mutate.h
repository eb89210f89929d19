/* SPDX-License-Identifier: GPL-2.0 */
/* A JSON-aware mutation for libFuzzer custom mutators (json_mutate.c). */
#ifndef KMP_FUZZ_JSON_MUTATE_H
#define KMP_FUZZ_JSON_MUTATE_H

#include <stddef.h>
#include <stdint.h>

/*
 * Mutate the n bytes of JSON at d in place (room for max): one value
 * replaced, copied or deleted.  Returns the new size, or 0 when no value was
 * found or the result would not fit (then d is unchanged).
 */
size_t json_mutate(uint8_t *d, size_t n, size_t max, unsigned int seed);

#endif
