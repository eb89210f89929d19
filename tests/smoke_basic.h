/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SMOKE_BASIC_H
#define SMOKE_BASIC_H
#include <stdint.h>

#define SMOKE_COMPUTE_TAG 0xc0ffee
void guest_compute(uint64_t n);
void guest_assert(uint64_t a, uint64_t b);
void guest_globals(void);
extern uint64_t guest_counter;
void guest_unknown_port(void);
void guest_divide_by_zero(void);
extern const char guest_div_insn[];
void guest_bad_stack(uint64_t gva);
void guest_triple_fault(void);
void guest_unmapped_load(uint64_t gva);
void guest_mmio_write(uint64_t gva);
void guest_returns(void);

#endif
