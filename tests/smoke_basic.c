// SPDX-License-Identifier: GPL-2.0
/*
 * Smoke tests of the guest library on real KVM: a guest runs C code and
 * returns a computed value; a guest assertion reaches the host with file,
 * line and values and fails the test; guest globals are the guest's own.
 */
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "kvm_util.h"
#include "ucall.h"
#include "smoke_basic.h"

static uint64_t host_sum_squares(uint64_t n)
{
	uint64_t sum = 0;

	for (uint64_t i = 1; i <= n; i++)
		sum += i * i;
	return sum;
}

TEST(guest_returns_computed_value)
{
	struct kvm_vm *vm = vm_create(1, 0);
	struct kvm_vcpu *vcpu = vm_vcpu_add(vm, 0, guest_compute);
	struct ucall uc;

	vcpu_args_set(vcpu, 1, (uint64_t)1000);
	ASSERT_EQ(UCALL_SYNC, vcpu_run_ucall(vcpu, &uc));
	ASSERT_EQ(2, uc.nargs);
	ASSERT_EQ(SMOKE_COMPUTE_TAG, uc.args[0]);
	ASSERT_EQ(host_sum_squares(1000), uc.args[1]);
	ASSERT_EQ(UCALL_DONE, vcpu_run_ucall(vcpu, &uc));
	vm_free(vm);
}

TEST(guest_globals_are_the_guests_copy)
{
	struct kvm_vm *vm = vm_create(1, 0);
	struct kvm_vcpu *vcpu = vm_vcpu_add(vm, 0, guest_globals);
	struct ucall uc;

	guest_counter = 5;
	sync_global_to_guest(vm, guest_counter);
	ASSERT_EQ(UCALL_SYNC, vcpu_run_ucall(vcpu, &uc));
	ASSERT_EQ(15, uc.args[0]);
	ASSERT_EQ(5, guest_counter);		/* the host's copy is untouched */
	sync_global_from_guest(vm, guest_counter);
	ASSERT_EQ(15, guest_counter);
	ASSERT_EQ(UCALL_DONE, vcpu_run_ucall(vcpu, &uc));
	vm_free(vm);
}

/*
 * A failing guest assertion must fail the test with the guest's file, line
 * and both values: run it in a child and read its stderr.
 */
TEST(guest_assert_reaches_host)
{
	char out[4096] = "";
	int pipefd[2], status;
	ssize_t n, total = 0;
	pid_t pid;

	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		struct kvm_vm *vm;
		struct kvm_vcpu *vcpu;
		struct ucall uc;

		dup2(pipefd[1], 2);
		vm = vm_create(1, 0);
		vcpu = vm_vcpu_add(vm, 0, guest_assert);
		vcpu_args_set(vcpu, 2, (uint64_t)0x1234, (uint64_t)0x5678);
		vcpu_run_ucall(vcpu, &uc);
		_exit(0);	/* not reached: the abort fails the child */
	}
	close(pipefd[1]);
	while ((n = read(pipefd[0], out + total, sizeof(out) - 1 - total)) > 0)
		total += n;
	out[total] = 0;
	close(pipefd[0]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(KSFT_FAIL, WEXITSTATUS(status));
	TH_LOG("child said: %s", out);
	EXPECT_NE(NULL, strstr(out, "tests/smoke_basic_guest.c:21: a == b"));
	EXPECT_NE(NULL, strstr(out, "0x1234 != 0x5678"));
}

TEST_HARNESS_MAIN
