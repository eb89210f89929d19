// SPDX-License-Identifier: GPL-2.0
/* Guest half of ucall.  Freestanding: runs inside the guest, no libc. */
#include "ucall.h"

void ucall(uint64_t cmd, int nargs, ...)
{
	struct ucall uc;
	va_list ap;

	uc.cmd = cmd;
	uc.nargs = nargs;
	uc.buffer[0] = 0;
	va_start(ap, nargs);
	for (int i = 0; i < nargs && i < UCALL_MAX_ARGS; i++)
		uc.args[i] = va_arg(ap, uint64_t);
	va_end(ap);
	ucall_arch_do(&uc);
}

void guest_assert_fail(const char *file, int line, const char *expr, int nvals,
		       uint64_t a, uint64_t b)
{
	struct ucall uc;

	uc.cmd = UCALL_ABORT;
	uc.nargs = 4;
	uc.args[0] = line;
	uc.args[1] = nvals;
	uc.args[2] = a;
	uc.args[3] = b;
	guest_snprintf(uc.buffer, sizeof(uc.buffer), "%s:%d: %s", file, line, expr);
	for (;;)	/* the host never resumes an aborted vCPU */
		ucall_arch_do(&uc);
}

void guest_fail(const char *file, int line, const char *fmt, ...)
{
	struct ucall uc;
	va_list ap;
	int n;

	uc.cmd = UCALL_ABORT;
	uc.nargs = 4;
	uc.args[0] = line;
	uc.args[1] = 0;
	n = guest_snprintf(uc.buffer, sizeof(uc.buffer), "%s:%d: ", file, line);
	if (n > (int)sizeof(uc.buffer) - 1)
		n = sizeof(uc.buffer) - 1;
	va_start(ap, fmt);
	guest_vsnprintf(uc.buffer + n, sizeof(uc.buffer) - n, fmt, ap);
	va_end(ap);
	for (;;)
		ucall_arch_do(&uc);
}

void guest_code_returned(void)
{
	guest_assert_fail(__FILE__, __LINE__, "the guest entry function returned", 0, 0, 0);
}

void guest_printf(const char *fmt, ...)
{
	struct ucall uc;
	va_list ap;

	uc.cmd = UCALL_PRINT;
	uc.nargs = 0;
	va_start(ap, fmt);
	guest_vsnprintf(uc.buffer, sizeof(uc.buffer), fmt, ap);
	va_end(ap);
	ucall_arch_do(&uc);
}
