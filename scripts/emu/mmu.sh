#!/bin/bash
# One emulated KVM host of configs/emu-hosts as shell assignments for eval:
# EMU_MMU, EMU_KERNEL, EMU_MACHINE and EMU_CPU ("" for QEMU's default),
# EMU_PARAMS (space-separated) and EMU_RECORD.
# Usage: scripts/emu/mmu.sh ARCH [MMU]   (no MMU: the arch's first line)
# Exit 2 with one line naming what the table has, when it has no such line.
set -euo pipefail
arch=$1 want=${2:-}
table=$(cd "$(dirname "$0")/../.." && pwd)/configs/emu-hosts
arches=() mmus=()
while read -r a mmu kernel machine cpu params record; do
	case $a in ''|'#'*) continue ;; esac
	[[ " ${arches[*]} " == *" $a "* ]] || arches+=("$a")
	[ "$a" = "$arch" ] || continue
	mmus+=("$mmu")
	[ -z "$want" ] || [ "$mmu" = "$want" ] || continue
	[ "$machine" = - ] && machine=
	[ "$params" = - ] && params=
	printf 'EMU_MMU=%q EMU_KERNEL=%q EMU_MACHINE=%q EMU_CPU=%q EMU_PARAMS=%q EMU_RECORD=%q\n' \
		"$mmu" "$kernel" "$machine" "$cpu" "${params//,/ }" "$record"
	exit 0
done < "$table"
if [ ${#mmus[@]} = 0 ]; then
	echo "--arch '$arch': must be $(IFS=,; echo "${arches[*]}" | sed 's/,/, /g; s/, \([^,]*\)$/ or \1/')" >&2
else
	echo "--mmu '$want': the emulated $arch host's KVM MMU must be $(IFS=,; echo "${mmus[*]}" | sed 's/,/, /g; s/, \([^,]*\)$/ or \1/') (configs/emu-hosts)" >&2
fi
exit 2
