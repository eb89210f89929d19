// SPDX-License-Identifier: GPL-2.0
/*
 * kmp_restore_host [-q]: undo the host changes of runs that were killed
 * (SIGKILL, a crash, a timeout) before they could put them back, from their
 * journals (host_state.h).  Each change undone is one "# host_state: ..."
 * line on stderr; -q prints nothing else when there was nothing to undo.
 * `make restore-host` runs it; run.sh runs it before a run.  Exit 0, or 1 if
 * the journals could not be read.
 */
#include <stdio.h>
#include <string.h>

#include "host_state.h"

int main(int argc, char **argv)
{
	int quiet = argc == 2 && !strcmp(argv[1], "-q");
	int n;

	if (argc > 2 || (argc == 2 && !quiet)) {
		fprintf(stderr, "usage: kmp_restore_host [-q]\n");
		return 2;
	}
	n = host_state_recover();
	if (n < 0) {
		fprintf(stderr, "kmp_restore_host: cannot read the journals: %s\n", strerror(-n));
		return 1;
	}
	if (n)
		printf("kmp_restore_host: undid %d host change%s left by killed runs\n", n,
		       n == 1 ? "" : "s");
	else if (!quiet)
		printf("kmp_restore_host: nothing to restore\n");
	return 0;
}
