// SPDX-License-Identifier: GPL-2.0
/* A thread that turns SIGINT/SIGTERM/SIGHUP into a recorded, clean exit. */
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "host_state.h"
#include "interrupt.h"
#include "record.h"
#include "test_util.h"

static void (*interrupt_hook)(int sig);
static sigset_t interrupt_set;
static void (*on_stop[4])(void);
static int nr_on_stop;

void interrupt_on_stop(void (*fn)(void))
{
	TEST_ASSERT(nr_on_stop < (int)ARRAY_SIZE(on_stop), "too many interrupt_on_stop()");
	on_stop[nr_on_stop++] = fn;
}

static void *interrupt_thread(void *arg)
{
	int sig;

	while (sigwait(&interrupt_set, &sig))
		;
	/* Others stop touching records and traces first; then the hook writes. */
	for (int i = 0; i < nr_on_stop; i++)
		on_stop[i]();
	/*
	 * A signal that lands after the run's final record (the result is out
	 * and exit is moments away) must not turn it into "interrupted": let
	 * the run exit with its own status, and die of the signal only if it
	 * does not.
	 */
	if (record_finished())
		sleep(2);
	else if (interrupt_hook)
		interrupt_hook(sig);
	fflush(stdout);
	host_state_restore();
	/* Die of the signal itself, so the exit status says so. */
	signal(sig, SIG_DFL);
	pthread_sigmask(SIG_UNBLOCK, &interrupt_set, NULL);
	raise(sig);
	return NULL;
}

void interrupt_init(void (*hook)(int sig))
{
	pthread_t thread;
	int ret;

	/*
	 * Every benchmark starts here: undo what a killed earlier run left on
	 * the host, even if this run changes nothing itself.
	 */
	host_state_recover();

	interrupt_hook = hook;
	interrupt_on_stop(record_quiesce);	/* the hook writes the last record */
	sigemptyset(&interrupt_set);
	sigaddset(&interrupt_set, SIGINT);
	sigaddset(&interrupt_set, SIGTERM);
	sigaddset(&interrupt_set, SIGHUP);
	ret = pthread_sigmask(SIG_BLOCK, &interrupt_set, NULL);
	TEST_ASSERT(ret == 0, "pthread_sigmask: %s", strerror(ret));
	ret = pthread_create(&thread, NULL, interrupt_thread, NULL);
	TEST_ASSERT(ret == 0, "pthread_create (interrupt thread): %s", strerror(ret));
	pthread_detach(thread);
}
