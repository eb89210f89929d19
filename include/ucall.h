/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ucall: a guest's call to the host test (SYNC with arguments, DONE, ABORT
 * for a failed guest assertion, PRINT).  The guest fills a struct ucall on its
 * stack and hands its address to the host (x86: port I/O with the gva in RDI).
 */
#ifndef KMP_UCALL_H
#define KMP_UCALL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

enum {
	UCALL_NONE,
	UCALL_SYNC,
	UCALL_DONE,
	UCALL_ABORT,
	UCALL_PRINT,
};

#define UCALL_MAX_ARGS 6
#define UCALL_BUFFER_LEN 256

struct ucall {
	uint64_t cmd;
	uint64_t nargs;
	uint64_t args[UCALL_MAX_ARGS];
	char buffer[UCALL_BUFFER_LEN];	/* ABORT: "file:line: expr"; PRINT: the text */
};

/* ---- guest side (lib/ucall_guest.c, lib/print_guest.c) ---- */
void ucall(uint64_t cmd, int nargs, ...);
void ucall_arch_do(struct ucall *uc);	/* per arch */
void __attribute__((noreturn)) guest_assert_fail(const char *file, int line, const char *expr,
						 int nvals, uint64_t a, uint64_t b);
void __attribute__((noreturn, format(printf, 3, 4)))
guest_fail(const char *file, int line, const char *fmt, ...);
int guest_vsnprintf(char *buf, int len, const char *fmt, va_list ap);
int guest_snprintf(char *buf, int len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void guest_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Where a guest entry function "returns" to: fails the test, says so. */
void __attribute__((noreturn)) guest_code_returned(void);

#define GUEST_SYNC(...) ucall(UCALL_SYNC, UCALL_NARGS(__VA_ARGS__), __VA_ARGS__)
#define GUEST_DONE() ucall(UCALL_DONE, 0)
#define GUEST_PRINTF(...) guest_printf(__VA_ARGS__)
#define GUEST_ASSERT(cond)                                                  \
	do {                                                                \
		if (!(cond))                                                \
			guest_assert_fail(__FILE__, __LINE__, #cond, 0, 0, 0); \
	} while (0)
#define GUEST_ASSERT_EQ(a, b)                                               \
	do {                                                                \
		uint64_t __a = (uint64_t)(a), __b = (uint64_t)(b);          \
		if (__a != __b)                                             \
			guest_assert_fail(__FILE__, __LINE__, #a " == " #b, 2, __a, __b); \
	} while (0)

/* Fail the test from the guest with a formatted message (and file:line). */
#define GUEST_FAIL(...) guest_fail(__FILE__, __LINE__, __VA_ARGS__)

#define UCALL_NARGS(...) UCALL_NARGS_(__VA_ARGS__, 6, 5, 4, 3, 2, 1, 0)
#define UCALL_NARGS_(a1, a2, a3, a4, a5, a6, n, ...) n

/* ---- host side (lib/ucall.c) ---- */
struct kvm_vcpu;

/*
 * If the vCPU's last exit was a ucall, copy it to *uc and return its cmd;
 * else return UCALL_NONE.  PRINT is printed and returned as UCALL_PRINT.
 */
uint64_t get_ucall(struct kvm_vcpu *vcpu, struct ucall *uc);
/* Host-side gva of the ucall struct for this exit, or 0 (per arch). */
uint64_t ucall_arch_gva(struct kvm_vcpu *vcpu);
/*
 * Whether the vCPU's last exit is a ucall, without reading it: no ioctl, for
 * loops that only re-enter the guest (selfbench/).  Weak default: ucall_arch_gva().
 */
bool ucall_exit(struct kvm_vcpu *vcpu);
/* Fail the test with the guest's file, line, expression and values. */
void __attribute__((noreturn)) ucall_report_abort(struct kvm_vcpu *vcpu, const struct ucall *uc);
/*
 * Run the vCPU until the next SYNC or DONE: PRINTs are printed, ABORT and
 * unexpected exits and KVM_RUN errors fail the test (vcpu_run()).  Returns
 * the cmd.
 */
uint64_t vcpu_run_ucall(struct kvm_vcpu *vcpu, struct ucall *uc);

#endif
