#!/bin/bash
# The MMU KVM used on one side of run.sh ab, as each of its records says
# (host.mmu), must be the one --mmu asked for: a header must never describe
# a configuration that did not run.
# Usage: scripts/emu/ab-mmu-check.sh MMU FOLDER SIDE KERNEL
# Exit 0 when every record agrees (or there is none); 1, with one line naming
# both, when one does not.
set -euo pipefail
mmu=$1 folder=$2 side=$3 kernel=$4
case $mmu in	# --mmu's names, as lib/host_desc.c records them
tdp) want=tdp_mmu ;; shadow) want="shadow paging" ;; legacy-npt) want="legacy tdp" ;;
stage2) want=stage-2 ;; *) want=$mmu ;;
esac
got=$(python3 -c 'import glob, json, sys
print(", ".join(sorted({json.load(open(f)).get("host", {}).get("mmu", "?")
                        for f in glob.glob(sys.argv[1] + "/*.json")})))' "$folder")
[ -z "$got" ] || [ "$got" = "$want" ] && exit 0
echo "ab: side $side ($kernel) ran KVM's $got MMU, but --mmu $mmu asked for $want: its figures are not the pair asked for"
exit 1
