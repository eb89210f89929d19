// SPDX-License-Identifier: GPL-2.0
/*
 * Fault paths on real KVM: a stuck vCPU makes the watchdog fail the test
 * with the vCPU's exit reason and RIP instead of hanging, and the host's
 * state (hugetlb pages, any knob) is back as it was after a watchdog
 * failure and after Ctrl-C in the middle of a run.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "child.h"
#include "host_state.h"
#include "memstress.h"
#include "ucall.h"
#include "vcpu_thread.h"
#include "watchdog.h"
#include "require.h"

void guest_spin_forever(void);

static void spin_thread(struct kvm_vcpu *vcpu, void *arg)
{
	struct ucall uc;

	for (;;)
		vcpu_run_ucall(vcpu, &uc);
}

/* Child: change a host knob, then get stuck in the guest. */
static void stuck_guest(const void *knob)
{
	struct kvm_vm *vm = vm_create(1, 0);

	vm_vcpu_add(vm, 0, guest_spin_forever);
	TEST_ASSERT(host_state_write(knob, "changed\n") == 0, "host_state_write");
	watchdog_start(vm, 2);
	vcpu_threads_start(vm, spin_thread, NULL, NULL, 0);
	vcpu_threads_join(vm);		/* never returns: the watchdog fails the test */
}

TEST(watchdog_reports_stuck_vcpu_and_restores_host)
{
	char knob[256], out[8192], content[64];
	int fd, status;

	REQUIRE_KVM();

	tmp_file(knob, sizeof(knob), "knob");
	fd = open(knob, O_WRONLY);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(9, write(fd, "original\n", 9));
	close(fd);

	status = run_child(stuck_guest, knob, out, sizeof(out), NULL);
	TH_LOG("child output:\n%s", out);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(KSFT_FAIL, WEXITSTATUS(status));
	EXPECT_NE(NULL, strstr(out, "watchdog: no vCPU made progress for 2 s"));
	EXPECT_NE(NULL, strstr(out, "vCPU 0: last exit"));
	EXPECT_NE(NULL, strstr(out, ARCH_PC_NAME " 0x"));
	child_read_file(knob, content, sizeof(content));
	EXPECT_STREQ("original\n", content);
	unlink(knob);
}

/* Child: reserve hugetlb pages through memstress, run nonstop until killed. */
static void hugetlb_run(const void *ready_file)
{
	struct memstress_params p;
	struct memstress *ms;

	/* The default hugetlb size, whose pool /proc/sys/vm/nr_hugepages is (16M on powerpc). */
	memstress_params_init(&p);
	p.nr_vcpus = 2;
	p.vcpu_bytes = 2 * backing_src_page_size(SRC_ANONYMOUS_HUGETLB);
	p.src = SRC_ANONYMOUS_HUGETLB;
	p.nonstop = true;
	ms = memstress_create(&p);
	memstress_start(ms);
	memstress_wait_iteration(ms);
	memstress_next_iteration(ms);
	close(open(ready_file, O_CREAT | O_WRONLY, 0600));
	for (;;)
		pause();
}

TEST(ctrl_c_mid_run_gives_hugetlb_pages_back)
{
	const char *sysctl = "/proc/sys/vm/nr_hugepages";
	char dir[256], ready[300], out[8192], before[32], during[32] = "", after[32];
	struct child_kill at = { SIGINT, ready, sysctl, during, sizeof(during) };
	int status;

	REQUIRE_KVM();
	REQUIRE_VCPUS(2);	/* hugetlb_run's */

	if (!backing_src_page_size(SRC_ANONYMOUS_HUGETLB))
		SKIP(return, "this kernel has no hugetlb pages");
	/* The child creates "ready" in a private directory when it is mid-run. */
	snprintf(dir, sizeof(dir), "%s/kmp-faults-XXXXXX", getenv("TMPDIR") ?: "/tmp");
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(ready, sizeof(ready), "%s/ready", dir);
	child_read_file(sysctl, before, sizeof(before));
	status = run_child(hugetlb_run, ready, out, sizeof(out), &at);
	child_read_file(sysctl, after, sizeof(after));
	unlink(ready);
	rmdir(dir);
	TH_LOG("nr_hugepages before %.*s, mid-run %.*s, after %.*s", (int)strcspn(before, "\n"),
	       before, (int)strcspn(during, "\n"), during, (int)strcspn(after, "\n"), after);
	ASSERT_TRUE(WIFSIGNALED(status));
	ASSERT_EQ(SIGINT, WTERMSIG(status));
	/* The run really held more pages (2 vCPUs x 2 hugetlb pages of guest memory)... */
	ASSERT_GE(strtoul(during, NULL, 10), strtoul(before, NULL, 10) + 4);
	/* ...and Ctrl-C gave them back. */
	ASSERT_STREQ(before, after);
}

TEST_HARNESS_MAIN
