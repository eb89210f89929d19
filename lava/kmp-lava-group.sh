#!/bin/sh
# kmp-lava-group.sh GROUP [RUN_SH_OPTIONS...]: in a LAVA test shell, run
# run.sh's GROUP on this host's own KVM, then report it to LAVA: each run a
# test case and each figure a measurement (kmp_lava, from the records), and
# kernel-reports, which fails when the kernel logged any report that
# scripts/console-reports.sh catches (a WARNING, BUG, Oops, lockdep, KASAN
# or UBSAN report, a stall, lockup or hung task, ...) by the end, and
# group-GROUP, failed when any of them failed.  A run.sh that made
# no results folder is one failed case, run.sh.  The results folder goes to
# the log too, as KMP-REC lines (lava/results-from-log.py).
# KMP_DIR: where run.sh is (make install's INSTALL_PATH; /kmp on the
# emulated hosts' ramdisks).  Exit 1 when a case failed.
set -u
group=${1:?usage: kmp-lava-group.sh GROUP [RUN_SH_OPTIONS...]}
shift
dir=${KMP_DIR:?KMP_DIR: the folder of run.sh}
PATH=$dir:$dir/kvm-mmu-perf:$dir/scripts:$PATH
out=$(mktemp -d)
failed=0
# Kernel messages on the console would split LAVA's signals and the
# results' lines: the console's level down while the group runs (the
# kernel log keeps everything, for kernel-reports), put back at the end.
level=$(cut -f1 /proc/sys/kernel/printk 2> /dev/null)
trap '[ -z "$level" ] || echo "$level" > /proc/sys/kernel/printk' EXIT
[ -z "$level" ] || echo 1 > /proc/sys/kernel/printk
bash "$dir/run.sh" -g "$group" --host local --results "$out" "$@"
echo "kmp-lava-group.sh: run.sh exit $?"
# run.sh makes one dated folder in an empty --results.
for res in "$out"/*/; do break; done
if [ -d "$res" ] && kmp_lava "$res" > "$out/cases"; then
	sh "$out/cases"
	grep -q -- '--result fail' "$out/cases" && failed=1
	# The folder itself, for run.sh compare: lava/results-from-log.py takes
	# it back out of the job's log.
	echo "KMP-REC-LAVA-BEGIN ${res%/}"
	(cd "$res" && tar cf - . | gzip -1 | base64) | sed 's/^/KMP-REC /'
	echo KMP-REC-LAVA-END
else
	lava-test-case run.sh --result fail
	failed=1
fi
dmesg | sed 's/^/KMP-REC-DMESG /' > "$out/kernel.log"
if bash "$dir/scripts/console-reports.sh" "$out/kernel.log" kernel; then
	lava-test-case kernel-reports --result pass
else
	lava-test-case kernel-reports --result fail
	failed=1
fi
# The group's verdict, one case for a dashboard: fail when any case failed.
lava-test-case "group-$group" --result "$( [ $failed = 0 ] && echo pass || echo fail)"
exit $failed
