#!/bin/bash
# make check-x86 / check-arm64 / check-ppc64: run check.sh once per emulated
# host of a hosts file (configs/emu-<name>.hosts), every host even after a
# failure, then say which hosts failed.
# Usage: scripts/emu/check-hosts.sh ARCH BIN_DIR HOSTS [TIMEOUT_SECONDS]
# HOSTS lines: NAME KERNEL MMU LIST [PARAMETERS ...]; KERNEL is
# "default" or a series (fetch.sh), or linux-source-X.Y+P1.patch+F.config...
# (that source built by kernel.sh, cached, with patches/P1.patch ... and the
# config fragments configs/kernel/F.config ...), MMU a line of
# configs/emu-hosts for ARCH ("-": the arch's default), then ",mem=SIZE" for
# other than boot.sh's memory, LIST a file beside HOSTS.  PARAMETERS come
# after the MMU's own; they go on the kernel command line where KVM is built
# in (arm64, source-built kernels), so any kernel parameter can be given
# there (hugepagesz=1G hugepages=2).  KMP_EMU_HOSTS="NAME ..."
# runs only those hosts.
set -euo pipefail
arch=$1 bindir=$2 hosts=$3 timeout_s=${4:-1800}
src=$(cd "$(dirname "$0")/../.." && pwd)
only=${KMP_EMU_HOSTS:-}

failed=() ran=0
listdir=$(dirname "$hosts")
while read -r name kernel mmu list params <&3; do
	case "$name" in ''|'#'*) continue ;; esac
	if [ -z "$list" ]; then
		echo "emu/check-hosts.sh: $hosts: host '$name' needs NAME KERNEL MMU LIST" >&2
		exit 2
	fi
	[ -z "$only" ] || [[ " $only " == *" $name "* ]] || continue
	mem=
	case $mmu in
	*,mem=*) mem=${mmu#*,mem=} mmu=${mmu%%,*} ;;
	*,*) echo "emu/check-hosts.sh: $hosts: host '$name': MMU '$mmu' is not MMU[,mem=SIZE]" >&2
		exit 2 ;;
	esac
	[ "$mmu" != - ] || mmu=
	"$src/scripts/emu/mmu.sh" "$arch" "$mmu" > /dev/null || exit 2
	ran=$((ran + 1))
	echo "=== emulated $arch host '$name': kernel $kernel, ${mmu:-default} MMU${params:+, $params}"
	rm -f "$bindir/emu-check-$name.out"
	start=$SECONDS
	series=$kernel cache=
	if [[ $kernel == linux-source-* ]]; then
		# A source with patches: built (or found built) first.
		base=${kernel%%+*} patch_args=()
		IFS=+ read -ra names <<< "${kernel#"$base"}"
		for p in ${names[@]+"${names[@]}"}; do
			case $p in
			'') ;;
			*.config) patch_args+=(--config "$src/configs/kernel/$p") ;;
			*) patch_args+=(--patch "$src/patches/$p") ;;
			esac
		done
		series=${base#linux-source-}
		if ! cache=$("$src/scripts/emu/kernel.sh" "$arch" "$base" "$src/build/$arch/emu-ab" \
			${patch_args[@]+"${patch_args[@]}"} </dev/null); then
			echo "=== '$name' FAILED: its kernel $kernel did not build"
			failed+=("$name")
			continue
		fi
	fi
	if KMP_EMU_NAME="$arch/$name" KMP_EMU_KERNEL=$series KMP_EMU_MODPARAMS=$params \
	   KMP_EMU_CACHE=$cache KMP_EMU_MEM=$mem \
	   KMP_EMU_MMU=$mmu KMP_EMU_CHECK_NAME=$name \
	   "$src/scripts/emu/check.sh" "$arch" "$bindir" "$listdir/$list" "$timeout_s" </dev/null 2>&1 |
	   tee "$bindir/emu-check-$name.out"; then
		echo "=== '$name' passed in $((SECONDS - start)) s"
	else
		echo "=== '$name' FAILED in $((SECONDS - start)) s"
		failed+=("$name")
	fi
done 3< "$hosts"
if [ "$ran" -eq 0 ]; then
	echo "emu/check-hosts.sh: no host of $hosts ran${only:+ (KMP_EMU_HOSTS=\"$only\")}" >&2
	exit 2
fi
if [ "${#failed[@]}" -gt 0 ]; then
	# Why, again at the end: CI keeps only the tail of a long log.
	for name in "${failed[@]}"; do
		echo "--- why '$name' failed ($bindir/emu-check-$name.out):"
		out=$bindir/emu-check-$name.out
		[ -f "$out" ] || { echo "(no output: its kernel did not build)"; continue; }
		# The console's quoted lines too: they say where a hung host stopped.
		why=$(grep -aE 'FAILED|not ok|^#+ |timed out|never finished|hung boot|^  \| |Error|error:|NOTE' "$out" |
			grep -av '^ok ' | tail -n 16) || true
		printf '%s\n' "${why:-$(tail -n 12 "$out")}"
	done
	echo "# emulated $arch hosts FAILED: ${failed[*]} (of $ran)"
	exit 1
fi
echo "# emulated $arch hosts: all $ran passed"
