#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh: run groups of kvm-mmu-perf benchmarks from configs/*.cfg into a new
# results folder, compare two result sets as the mailing-list tables, or
# sweep one parameter.
#
#   ./run.sh [-g GROUP]... [-t TEST]... [--repeat N] [--results DIR] [--host local|emulated] [--kernel K] [--arch A] [--mmu MMU] [--list] [--dry-run]
#   ./run.sh compare [--alpha A] [--same-within PCT] [--per-figure] [--json] [--verbose] BASE NEW
#   ./run.sh export --kcidb RESULTS [--origin ORIGIN]
#   ./run.sh sweep TEST --vary vcpus=1,2,4,8 [--repeat N] [--results DIR]
#   ./run.sh ab --kernel A [--kernel B] [--patch FILE]... [--patch-a FILE]... [--config FRAGMENT]... [-g GROUP]... [-t TEST]... [--arch x86_64|arm64|powerpc] [--mmu MMU] [--smp N] [--real-time] [--repeat N] [--results DIR]
#       ARCH and MMU: a line of configs/emu-hosts (--help lists them)
#   Where no /dev/kvm opens, a run goes to an emulated KVM host (--host
#   emulated: Debian's 6.12 booted under QEMU; --host local skips instead).
#
# Config text is data: sections are parsed line by line and arguments are
# split on whitespace into an array; nothing from a config is evaluated.
set -u -o pipefail
# Kernel builds (scripts/emu/kernel-build.sh) count their time from here too.
export KMP_BUILD_START=${KMP_BUILD_START:-$(date +%s)}

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CONFIGS=${KMP_CONFIGS:-$HERE/configs}
ARCH=$(uname -m)
case "$ARCH" in aarch64) ARCH=arm64 ;; ppc64le|ppc64) ARCH=powerpc ;; esac
# Binaries: KMP_BIN, an installed tree (kvm-mmu-perf/ next to run.sh), or the build tree.
if [ -n "${KMP_BIN:-}" ]; then
	BIN=$KMP_BIN
elif [ -x "$HERE/kvm-mmu-perf/dirty_log_perf" ]; then
	BIN=$HERE/kvm-mmu-perf
else
	BIN=$HERE/build/$ARCH/bin
fi
RESULTS_DIR=${KMP_RESULTS:-$HERE/results}
PY=/usr/bin/python3
RESULTS_PY=$HERE/scripts/kmp_results.py

if [ -t 1 ]; then
	C_OK=$'\e[32m' C_FAIL=$'\e[31m' C_SKIP=$'\e[33m' C_OFF=$'\e[0m'
else
	C_OK='' C_FAIL='' C_SKIP='' C_OFF=''
fi

die() {
	echo "run.sh: $*" >&2
	exit 2
}

usage() {
	sed -n '/^#   \.\/run.sh/p' "${BASH_SOURCE[0]}" | sed 's/^#  //'
	cat <<-'EOF'

	Run options:
	  -g GROUP          run a group's sections (repeatable; default ci)
	  -t TEST           run one section by name (repeatable)
	  --repeat N        run each section N times (default 1; ab: 4)
	  --results DIR     parent of the new results folder (default results/)
	  --host local      run on this machine's /dev/kvm; without one, every run skips
	  --host emulated   run on an emulated KVM host under QEMU, KVM or not
	  --list            list the sections (with -g or -t: those), run nothing
	  --dry-run         print the commands that would run, run nothing
	Emulated host options (run and ab; any of them without --host means emulated):
	  --kernel K        the host's kernel: a Debian series (6.12), a linux-image-* package
	                    or .deb, a source (linux-source-6.12, a tree) or a built tree;
	                    ab takes two: A, then B
	  --arch A          x86_64, arm64 or powerpc (default x86_64)
	  --mmu MMU         the KVM MMU the host runs (listed below; default the arch's first)
	  --smp N           the host's CPUs, 1 to 8 (default 1)
	  --real-time       no icount: faster, but figures move with this machine's load
	ab options:
	  --patch FILE      applied to B's source (repeatable); with one --kernel, B is A + FILE
	  --patch-a FILE    applied to A's source (repeatable): a "before" fixture
	  --config FRAG     a Kconfig fragment merged into every source side (repeatable)
	compare options:
	  --alpha A         significance level of the rank test (default 0.05)
	  --same-within PCT a change inside +-PCT% is "same" (default 2)
	  --per-figure      judge each figure alone, without Holm's correction
	  --json            one JSON document instead of the tables
	  --verbose         also compare's long lines
	  BASE NEW          two results folders; BASE1 BASE2 ... vs NEW1 NEW2 ...; or an ab folder
	export options:
	  --kcidb RESULTS   write a results folder as KCIDB JSON; --origin ORIGIN names the CI
	sweep options:
	  --vary VAR=V1,V2  run TEST once per value, then print the table and plot
	EOF
	echo
	echo "Without a usable /dev/kvm, a run goes to an emulated KVM host (--host emulated:"
	echo "Debian's 6.12, the TDP MMU over emulated NPT, under QEMU icount: code path length,"
	echo "not bare-metal time); --host local skips instead."
	echo
	echo "Groups (-g; --list -g GROUP names its sections):"
	sed -e '/^#/d' -e 's/^/  /' "$CONFIGS/groups"
	echo
	echo "Emulated hosts (--arch, --mmu; the first of an arch is its default):"
	awk '!/^#/ && NF { m[$1] = m[$1] (m[$1] ? ", " : "") $2 } !/^#/ && NF && !($1 in o) { o[$1] = ++n; a[n] = $1 }
		END { for (i = 1; i <= n; i++) printf "  %-8s %s\n", a[i], m[a[i]] }' "$HERE/configs/emu-hosts" 2> /dev/null
	exit "${1:-0}"
}

# ---- configs -------------------------------------------------------------
# Parsed into parallel arrays, one entry per section.
S_NAME=() S_FILE=() S_ARGS=() S_GROUPS=() S_ARCH=() S_REQ=() S_TIMEOUT=()

trim() {
	local s=$1
	s=${s#"${s%%[![:space:]]*}"}
	s=${s%"${s##*[![:space:]]}"}
	printf '%s' "$s"
}

load_configs() {
	local f line key value n=-1 lineno
	# Bytes, not characters: in a UTF-8 locale bash's read takes a newline
	# after a stray UTF-8 lead byte as part of the line.
	local LC_ALL=C
	for f in "$CONFIGS"/*.cfg; do
		# bash's read drops NUL bytes: "tlbie_bench\0evil" would run tlbie_benchevil.
		[ ! -f "$f" ] || [ "$(tr -d '\000' < "$f" | wc -c)" = "$(wc -c < "$f")" ] ||
			die "$f: contains a NUL byte"
		[ -e "$f" ] || die "no configs in $CONFIGS"
		lineno=0
		while IFS= read -r line || [ -n "$line" ]; do
			lineno=$((lineno + 1))
			line=$(trim "${line%%#*}")
			[ -z "$line" ] && continue
			if [[ $line =~ ^\[([A-Za-z0-9_.=-]+)\]$ ]]; then
				local k
				for ((k = 0; k <= n; k++)); do
					[ "${S_NAME[k]}" != "${BASH_REMATCH[1]}" ] ||
						die "$f:$lineno: section [${BASH_REMATCH[1]}] is defined twice"
				done
				n=$((n + 1))
				S_NAME[n]=${BASH_REMATCH[1]}
				S_FILE[n]='' S_ARGS[n]='' S_GROUPS[n]='' S_ARCH[n]='' S_REQ[n]='' S_TIMEOUT[n]=300
				continue
			fi
			[[ $line == *=* ]] || die "$f:$lineno: expected 'key = value' or '[section]'"
			[ "$n" -ge 0 ] || die "$f:$lineno: key outside a section"
			key=$(trim "${line%%=*}")
			value=$(trim "${line#*=}")
			case "$key" in
			file) [[ $value =~ ^[A-Za-z0-9_]+$ ]] || die "$f:$lineno: bad file '$value'"
			      S_FILE[n]=$value ;;
			args) S_ARGS[n]=$value ;;
			groups) S_GROUPS[n]=$value ;;
			arch) S_ARCH[n]=$value ;;
			requires) S_REQ[n]=$value ;;
			timeout) [[ $value =~ ^[0-9]+$ ]] || die "$f:$lineno: timeout '$value' is not seconds"
				 S_TIMEOUT[n]=$value ;;
			*) die "$f:$lineno: unknown key '$key'" ;;
			esac
		done < "$f"
	done
	for ((n = 0; n < ${#S_NAME[@]}; n++)); do
		[ -n "${S_FILE[n]}" ] || die "section [${S_NAME[n]}] has no 'file'"
	done
}

in_list() {	# in_list WORD "w1 w2 ...": split on blanks only, never globbed ("*" is a word)
	local w ws
	read -ra ws <<< "$2"
	for w in "${ws[@]}"; do [ "$w" = "$1" ] && return 0; done
	return 1
}

# ---- requires ------------------------------------------------------------
# Prints why a requirement is not met; nothing when all are.
unmet() {
	local req reqs size count kb free total
	read -ra reqs <<< "$1"	# never globbed: a config's "*" stays a word
	for req in "${reqs[@]}"; do
		case "$req" in
		root) [ "$(id -u)" = 0 ] || { echo "needs root"; return; } ;;
		tracefs)
			[ -d /sys/kernel/tracing ] || [ -d /sys/kernel/debug/tracing ] ||
				{ echo "needs tracefs (/sys/kernel/tracing)"; return; } ;;
		hugetlb:*)
			IFS=: read -r _ size count <<< "$req"
			case "$size" in 2M) kb=2048 ;; 1G) kb=1048576 ;; *) echo "bad requirement '$req'"; return ;; esac
			[ -d "/sys/kernel/mm/hugepages/hugepages-${kb}kB" ] ||
				{ echo "no $size hugetlb pages on this kernel"; return; }
			free=$(cat "/sys/kernel/mm/hugepages/hugepages-${kb}kB/free_hugepages")
			# As root the benchmark reserves what it needs (and gives it back).
			if [ "$(id -u)" != 0 ] && [ "$free" -lt "$count" ]; then
				echo "needs $count free $size hugetlb pages (have $free): raise /proc/sys/vm/nr_hugepages"
				return
			fi
			total=$(awk '/MemTotal/ {print $2}' /proc/meminfo)
			[ $((count * kb)) -lt "$total" ] ||
				{ echo "needs $count $size hugetlb pages: more than this host's memory"; return; } ;;
		cap:*)
			"$BIN/kmp_cap" "${req#cap:}" 2>/dev/null
			case $? in
			0) ;;
			1) echo "KVM does not offer KVM_CAP_${req#cap:}"; return ;;
			*) echo "cannot check '$req' (kmp_cap missing or unknown name)"; return ;;
			esac ;;
		mmu:*)
			# The post's path exists only on these MMUs (kmp_mmu prints "key (name)").
			local mmu want=${req#mmu:}
			want=${want//,/ }
			mmu=$("$BIN/kmp_mmu" 2>/dev/null) || { echo "cannot check '$req' (kmp_mmu missing)"; return; }
			in_list "${mmu%% *}" "$want" ||
				{ echo "needs one of these KVM MMUs: $want; this host's is ${mmu%% *} ${mmu#* }"; return; } ;;
		*) echo "unknown requirement '$req'"; return ;;
		esac
	done
}

# ---- running -------------------------------------------------------------
SELECTED=()
section_wanted() {	# section_wanted N: N is one of TESTS[], or (without -t) in SEL_GROUPS[]
	local g t
	if [ ${#TESTS[@]} -gt 0 ]; then
		for t in "${TESTS[@]}"; do [ "$t" = "${S_NAME[$1]}" ] && return 0; done
	else
		for g in "${SEL_GROUPS[@]}"; do in_list "$g" "${S_GROUPS[$1]}" && return 0; done
	fi
	return 1
}

select_sections() {	# from SEL_GROUPS[] and TESTS[]
	local n g t
	for ((n = 0; n < ${#S_NAME[@]}; n++)); do
		in_list "$ARCH" "${S_ARCH[n]:-$ARCH}" || continue
		section_wanted "$n" && SELECTED+=("$n")
	done
	if [ ${#TESTS[@]} -gt 0 ]; then
		for t in "${TESTS[@]}"; do
			local found=0
			for ((n = 0; n < ${#S_NAME[@]}; n++)); do [ "$t" = "${S_NAME[n]}" ] && found=1; done
			[ $found = 1 ] || die "-t '$t': no such section; see --list"
		done
	else
		# Each group must exist somewhere, on this arch or another.
		for g in "${SEL_GROUPS[@]}"; do
			local found=0
			for ((n = 0; n < ${#S_NAME[@]}; n++)); do in_list "$g" "${S_GROUPS[n]}" && found=1; done
			[ $found = 1 ] || die "-g '$g': no such group; see --list"
		done
	fi
}

# new_results_dir LABEL: OUT= a new folder (never an existing one, never
# through a symlink at the last component: mkdir does not follow one).
new_results_dir() {
	local base stamp dir i=1 err
	[ -n "$RESULTS_DIR" ] || die "--results '': needs a folder"
	stamp=$(date +%Y%m%d-%H%M%S)
	base="$RESULTS_DIR/$stamp-$1"
	dir=$base
	mkdir -p -- "$RESULTS_DIR" 2>/dev/null || die "--results '$RESULTS_DIR': cannot create it"
	while ! err=$(mkdir -- "$dir" 2>&1); do
		# Only "exists" is worth another name; anything else (full, read-only) is fatal.
		[ -e "$dir" ] || [ -L "$dir" ] || die "cannot create results folder $dir: ${err##*: }"
		[ "$i" -lt 1000 ] || die "cannot find a new results folder name under $RESULTS_DIR"
		i=$((i + 1))
		dir="$base-$i"
	done
	OUT=$dir
}

# need_value OPTION "$@": the option must have a non-empty value.
need_value() {
	if [ $# -lt 3 ]; then
		die "$1: needs a value; see --help"
	elif [ -z "$3" ]; then
		die "$1 '': needs a value; see --help"
	fi
}

# A repeat count: 1 to 1000.
check_repeat() {
	if ! [[ $1 =~ ^[1-9][0-9]{0,3}$ ]] || [ "$1" -gt 1000 ]; then
		die "--repeat '$1': must be between 1 and 1000"
	fi
}

host_description() {
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "kernel: $(uname -srvm)"
	# compare's several folders a side must come from separate boots.
	echo "boot_id: $(cat /proc/sys/kernel/random/boot_id 2>/dev/null || echo unknown)"
	# An emulated host's arch and --mmu (scripts/emu/boot.sh): compare checks the records' MMU.
	[ -z "${KMP_EMULATED_MMU:-}" ] || echo "emulated_mmu: $KMP_EMULATED_MMU"
	grep -m1 'model name' /proc/cpuinfo 2>/dev/null
	echo "cpus: $(nproc)"
	grep MemTotal /proc/meminfo
	local m p
	for m in kvm kvm_intel kvm_amd kvm_pvm kvm_hv; do
		[ -d "/sys/module/$m/parameters" ] || continue
		for p in "/sys/module/$m/parameters/"*; do
			[ -r "$p" ] && echo "$m.$(basename "$p")=$(cat "$p" 2>/dev/null)"
		done
	done
}

INTERRUPTED=0 SIGNAL='' CHILD=''
# SIGINT, SIGTERM or SIGHUP: stop the running benchmark (it records that it
# was interrupted) and run nothing more.  SIGKILL cannot be caught: then the
# benchmark gets SIGTERM as its parent dies (setpriv --pdeathsig), and the
# folder keeps the "incomplete" mark it got when the run began.
on_signal() {
	INTERRUPTED=1 SIGNAL=$1
	[ -n "$CHILD" ] && kill -s "$1" "$CHILD" 2>/dev/null
}

# run_one N REP OUTDIR [EXTRA_ARGS...]: one run of section N; sets STATUS.
run_one() {
	local n=$1 rep=$2 out=$3 name rc why
	shift 3
	name=${S_NAME[n]}
	local -a argv
	read -r -a argv <<< "${S_ARGS[n]}"
	why=$(unmet "${S_REQ[n]}")
	if [ -n "$why" ]; then
		echo "skip: $why" > "$out/$name.$rep.log"
		STATUS="SKIP $why"
		return
	fi
	[ -x "$BIN/${S_FILE[n]}" ] || die "$BIN/${S_FILE[n]} not found: run 'make' first (or set KMP_BIN)"
	setpriv --pdeathsig TERM timeout --foreground -k 10 "${S_TIMEOUT[n]}" \
		"$BIN/${S_FILE[n]}" "${argv[@]}" "$@" --json "$out/$name.$rep.json" \
		> "$out/$name.$rep.log" 2>&1 < /dev/null &
	CHILD=$!
	# A trapped signal ends wait early: wait again until the benchmark is gone.
	while ! wait "$CHILD" && kill -0 "$CHILD" 2>/dev/null; do :; done
	wait "$CHILD"
	rc=$?
	CHILD=
	case $rc in
	0) STATUS=PASS ;;
	4) STATUS="SKIP $(grep -m1 '# SKIP' "$out/$name.$rep.log" | sed 's/.*# SKIP:* *//')" ;;
	124|137) STATUS="FAIL timeout after ${S_TIMEOUT[n]} s" ;;
	129|130|143) STATUS="FAIL interrupted by SIG$(kill -l $((rc - 128)))" ;;
	*) STATUS="FAIL exit $rc" ;;
	esac
	# A full filesystem leaves the log empty: say so, since nothing else can.
	if [[ $STATUS == FAIL* ]] && [ ! -s "$out/$name.$rep.log" ]; then
		local free
		free=$(stat -f -c '%a %f' "$out" 2>/dev/null)
		case "$free" in
		"0 "* | *" 0") STATUS="$STATUS: no space left on the filesystem of $out (the log is empty)" ;;
		*) STATUS="$STATUS (the log is empty)" ;;
		esac
	fi
}

# ktap_line OUTDIR LINE: append to the KTAP summary; a full disk is fatal, not silent.
ktap_line() {
	local err
	if ! err=$( { echo "$2" >> "$1/summary.ktap"; } 2>&1 ); then
		die "cannot write $1/summary.ktap: ${err##*: }"
	fi
}

# run_sections OUTDIR LABEL [EXTRA_ARGS...] over SELECTED, REPEAT times.
run_sections() {
	local out=$1 total=$(( ${#SELECTED[@]} * REPEAT )) i=0 n rep status t0 t1
	local -a notrun=()
	shift
	local err
	# A run killed earlier (timeout's SIGKILL, a crash) may have left host changes.
	[ -x "$BIN/kmp_restore_host" ] && "$BIN/kmp_restore_host" -q
	if ! err=$( { printf 'TAP version 13\n1..%s\n' "$total" > "$out/summary.ktap"; } 2>&1 ); then
		die "cannot write $out/summary.ktap: ${err##*: }"
	fi
	# A write error inside the function does not fail it: check what it said and wrote.
	err=$( { host_description > "$out/host.txt"; } 2>&1 )
	if [ -n "$err" ] || [ ! -s "$out/host.txt" ]; then
		die "cannot write $out/host.txt: ${err##*: }"
	fi
	# Until the last run ends: compare warns about a folder that still has it.
	if ! err=$( { echo "run.sh (pid $$) began $(date -u +%Y-%m-%dT%H:%M:%SZ) and has not" \
		"finished: $total run(s) planned" > "$out/incomplete"; } 2>&1 ); then
		die "cannot write $out/incomplete: ${err##*: }"
	fi
	trap 'on_signal INT' INT
	trap 'on_signal TERM' TERM
	trap 'on_signal HUP' HUP
	for n in "${SELECTED[@]}"; do
		for ((rep = 1; rep <= REPEAT; rep++)); do
			if [ $INTERRUPTED = 1 ]; then
				notrun+=("${S_NAME[n]}.$rep")
				continue
			fi
			i=$((i + 1))
			printf '[%d/%d] %s (run %d/%d) ... ' "$i" "$total" "${S_NAME[n]}" "$rep" "$REPEAT"
			t0=$(date +%s)
			run_one "$n" "$rep" "$out" "$@"
			status=$STATUS
			t1=$(date +%s)
			# The benchmark died of a Ctrl-C that reached it first.
			if [ $INTERRUPTED = 0 ] && [[ $status == "FAIL interrupted by SIG"* ]]; then
				INTERRUPTED=1 SIGNAL=${status#FAIL interrupted by SIG}
			fi
			case "$status" in
			PASS) echo "${C_OK}ok${C_OFF} ($((t1 - t0)) s)"
			      ktap_line "$out" "ok $i ${S_NAME[n]}.$rep" ;;
			SKIP*) echo "${C_SKIP}skip${C_OFF}: ${status#SKIP }"
			       ktap_line "$out" "ok $i ${S_NAME[n]}.$rep # SKIP ${status#SKIP }" ;;
			*) echo "${C_FAIL}FAIL${C_OFF}: ${status#FAIL } (log: $out/${S_NAME[n]}.$rep.log)"
			   ktap_line "$out" "not ok $i ${S_NAME[n]}.$rep # ${status#FAIL }" ;;
			esac
		done
	done
	trap - INT TERM HUP
	if [ $INTERRUPTED = 1 ]; then
		echo "interrupted by SIG$SIGNAL${notrun[*]:+: did not run: ${notrun[*]}}"
		ktap_line "$out" "# interrupted by SIG$SIGNAL${notrun[*]:+: did not run: ${notrun[*]}}"
		echo "interrupted by SIG$SIGNAL after $i of $total run(s)${notrun[*]:+; did not run: ${notrun[*]}}" \
			> "$out/incomplete"
	else
		rm -f "$out/incomplete"
	fi
}

finish() {	# print where things are and the verdict
	local out=$1 failed
	failed=$(grep -c '^not ok' "$out/summary.ktap")
	[ -x "$PY" ] && [ -f "$RESULTS_PY" ] && "$PY" "$RESULTS_PY" summary "$out"
	echo "results: $out"
	[ $INTERRUPTED = 1 ] && exit $((128 + $(kill -l "$SIGNAL")))
	[ "$failed" = 0 ] || exit 1
	exit 0
}

# Why this machine's /dev/kvm cannot run a guest (missing, unopenable, or
# not KVM); nothing when it can.  kmp_kvm decides, as the tests do.
kvm_unusable() {
	local why rc=0
	why=$("$BIN/kmp_kvm" 2>&1) || rc=$?
	[ $rc = 0 ] || echo "${why:-$BIN/kmp_kvm failed (exit $rc) without saying why}"
}

cmd_run() {
	local list=0 dry=0 n host='' why
	local -a sel=() emu=()
	SEL_GROUPS=() TESTS=() REPEAT=1
	while [ $# -gt 0 ]; do
		case "$1" in
		-g) need_value -g "$@"; SEL_GROUPS+=("$2"); sel+=(-g "$2"); shift 2 ;;
		-t) need_value -t "$@"; TESTS+=("$2"); sel+=(-t "$2"); shift 2 ;;
		--repeat) need_value --repeat "$@"; check_repeat "$2"; REPEAT=$2; shift 2 ;;
		--results) need_value --results "$@"; RESULTS_DIR=$2; shift 2 ;;
		--host) need_value --host "$@"
			case $2 in local|emulated) host=$2 ;;
			*) die "--host '$2': must be local (this machine's /dev/kvm) or emulated (a KVM host under QEMU)" ;;
			esac; shift 2 ;;
		--kernel|--arch|--mmu|--smp) need_value "$1" "$@"; emu+=("$1" "$2"); shift 2 ;;
		--real-time) emu+=("$1"); shift ;;
		--list) list=1; shift ;;
		--dry-run) dry=1; shift ;;
		-h|--help) usage 0 ;;
		*) die "unknown argument '$1'; see --help" ;;
		esac
	done
	if [ ${#emu[@]} -gt 0 ] && [ "$host" = local ]; then
		die "${emu[0]}: an emulated host's option, but --host local runs on this machine"
	fi
	# The emulated host's options ask for it; so does a machine without KVM.
	if [ $list = 0 ] && [ $dry = 0 ] && [ "$host" != local ]; then
		if [ -z "$host" ] && [ ${#emu[@]} = 0 ]; then
			[ -x "$BIN/kmp_kvm" ] || die "$BIN/kmp_kvm not found: run 'make' first (or set KMP_BIN)"
			why=$(kvm_unusable)
			[ -z "$why" ] || EMU_BECAUSE=$why host=emulated
		fi
		[ "$host" = emulated ] || [ ${#emu[@]} -gt 0 ] &&
			cmd_emulated ${emu[@]+"${emu[@]}"} --repeat "$REPEAT" ${sel[@]+"${sel[@]}"}
	fi
	[ ${#SEL_GROUPS[@]} -gt 0 ] || SEL_GROUPS=(ci)
	load_configs
	if [ $list = 1 ]; then
		for ((n = 0; n < ${#S_NAME[@]}; n++)); do
			# --list alone lists every section; with -g or -t, those.
			[ ${#sel[@]} = 0 ] || section_wanted "$n" || continue
			printf '%-28s %-16s groups: %s%s\n' "${S_NAME[n]}" "${S_FILE[n]}" "${S_GROUPS[n]}" \
				"${S_ARCH[n]:+ (arch: ${S_ARCH[n]}$(in_list "$ARCH" "${S_ARCH[n]}" || echo ", not this one"))}"
		done
		exit 0
	fi
	select_sections
	[ ${#SELECTED[@]} -gt 0 ] || die "no section in group(s) ${SEL_GROUPS[*]} for $ARCH; see --list"
	if [ $dry = 1 ]; then
		for n in "${SELECTED[@]}"; do
			why=$(unmet "${S_REQ[n]}")
			echo "${S_NAME[n]}: $BIN/${S_FILE[n]} ${S_ARGS[n]} (x$REPEAT, timeout ${S_TIMEOUT[n]} s)${why:+ [would skip: $why]}"
		done
		exit 0
	fi
	local label
	label=$(IFS=+; echo "${TESTS[*]:-${SEL_GROUPS[*]}}")
	# A folder name is at most 255 bytes: a long selection is named by its count.
	[ ${#label} -le 160 ] || label="${#SELECTED[@]}-sections"
	new_results_dir "$label"
	echo "running ${#SELECTED[@]} section(s) x $REPEAT into $OUT"
	run_sections "$OUT"
	finish "$OUT"
}

# results_folder DIR: DIR itself, or the one run folder a --results parent holds.
results_folder() {	# results_folder DIR [COMMAND]: the run.sh folder DIR is or holds
	local d=$1 cmd=${2:-compare}
	local -a runs
	if [ -e "$d/summary.ktap" ] || compgen -G "$d/*.json" > /dev/null; then
		echo "$d"
		return
	fi
	mapfile -t runs < <(find "$d" -mindepth 2 -maxdepth 2 -name summary.ktap -printf '%h\n' | sort)
	case ${#runs[@]} in
	1) echo "${runs[0]}" ;;
	0) die "$cmd: '$d' is not a results folder (no summary.ktap or records)" ;;
	*) die "$cmd: '$d' holds ${#runs[@]} results folders; name one: ${runs[*]##*/}" ;;
	esac
}

# compare [--alpha A] [--same-within PCT] [--per-figure] [--json] [--verbose] BASE NEW, or
# BASE1 BASE2 ... vs NEW1 NEW2 ...
cmd_compare() {
	local -a opts=() dirs=()
	local d
	# Every folder named must exist, before any is read.
	for d in "$@"; do
		case $d in -*|vs) ;; *) [ "${opts[*]: -1}" = --alpha ] || [ -d "$d" ] ||
			if [ -e "$d" ]; then die "compare: '$d' is not a folder: name a results folder"
			else die "compare: '$d' is not a results folder (it does not exist)"; fi ;; esac
		opts+=("$d")
	done
	opts=()
	while [ $# -gt 0 ]; do
		case $1 in
		--alpha) [ $# -ge 2 ] || die "compare: --alpha needs a value: a significance level above 0 and below 1 (0.05 by default)"
			opts+=("$1" "$2"); shift 2 ;;
		--same-within) [ $# -ge 2 ] || die "compare: --same-within needs a value: a percentage above 0 and below 100 (2 by default)"
			opts+=("$1" "$2"); shift 2 ;;
		--json|--verbose|--per-figure) opts+=("$1"); shift ;;
		-*) die "compare: unknown option '$1' (--alpha A, --same-within PCT, --per-figure, --json, --verbose)" ;;
		vs) dirs+=(vs); shift ;;
		*) if [ -d "$1/A" ] && [ -d "$1/B" ] && [ ! -e "$1/summary.ktap" ]; then
			# A run.sh ab folder: its A against its B.
			dirs+=("$(results_folder "$1/A")" "$(results_folder "$1/B")") || exit 2
			# Said on stderr under --json, whose stdout is one JSON document.
			echo "# compare: $1 is a run.sh ab folder: BASE is its A (${dirs[-2]}), NEW its B (${dirs[-1]})" >&"$([[ " ${opts[*]} " == *" --json "* ]] && echo 2 || echo 1)"
		   else
			d=$(results_folder "$1") || exit 2
			dirs+=("$d")
		   fi
		   shift ;;
		esac
	done
	[ ${#dirs[@]} -ge 2 ] || die "usage: run.sh compare [--alpha A] [--same-within PCT] [--per-figure] [--json] [--verbose] BASE NEW, BASE1 BASE2 ... vs NEW1 NEW2 ..., or an ab folder"
	exec "$PY" "$RESULTS_PY" compare "${opts[@]}" "${dirs[@]}"
}

# sweep TEST --vary VAR=v1,v2,...: the section once per value, then the table and plot.
cmd_sweep() {
	local test=${1:-} vary='' var values opt n v i
	[ $# -ge 1 ] || die "usage: run.sh sweep TEST --vary VAR=v1,v2,... [--repeat N]"
	[ -n "$test" ] || die "sweep '': needs a section name; see --list"
	shift
	REPEAT=1
	while [ $# -gt 0 ]; do
		case "$1" in
		--vary) need_value --vary "$@"; vary=$2; shift 2 ;;
		--repeat) need_value --repeat "$@"; check_repeat "$2"; REPEAT=$2; shift 2 ;;
		--results) need_value --results "$@"; RESULTS_DIR=$2; shift 2 ;;
		*) die "unknown argument '$1'" ;;
		esac
	done
	[[ $vary =~ ^([a-z]+)=([A-Za-z0-9.,]+)$ ]] || die "--vary '$vary': use VAR=v1,v2 (vcpus or chunk)"
	var=${BASH_REMATCH[1]}
	values=${BASH_REMATCH[2]}
	case "$var" in vcpus) opt=-v ;; chunk) opt=-k ;; *) die "--vary '$vary': '$var' must be vcpus or chunk" ;; esac
	# Each value: vcpus 1-9999; chunk a size (4096, 256K, 64M, 1G).
	IFS=, read -r -a vals <<< "$values"
	[ ${#vals[@]} -gt 0 ] || die "--vary '$vary': no values"
	for v in "${vals[@]}"; do
		if [ "$var" = vcpus ]; then
			[[ $v =~ ^[1-9][0-9]{0,3}$ ]] || die "--vary '$vary': '$v' is not a vCPU count (1-9999)"
		else
			[[ $v =~ ^[1-9][0-9]{0,11}[KMGT]?$ ]] || die "--vary '$vary': '$v' is not a size (e.g. 256K, 64M)"
		fi
	done
	load_configs
	TESTS=("$test") SEL_GROUPS=()
	select_sections
	n=${SELECTED[0]}
	new_results_dir "sweep-$test-$var"
	echo "sweeping $test over $var=$values into $OUT"
	# One pseudo-section per value: the same section with "$opt VALUE" appended.
	local base_name=${S_NAME[n]}
	i=${#S_NAME[@]}
	SELECTED=()
	for v in "${vals[@]}"; do
		S_NAME[i]="$base_name-$var=$v" S_FILE[i]=${S_FILE[n]} S_ARGS[i]="${S_ARGS[n]} $opt $v"
		S_REQ[i]=${S_REQ[n]} S_TIMEOUT[i]=${S_TIMEOUT[n]}
		SELECTED+=("$i")
		i=$((i + 1))
	done
	run_sections "$OUT"
	"$PY" "$RESULTS_PY" sweep-table "$OUT" "$base_name" "$var" || echo "sweep table failed"
	finish "$OUT"
}

# ---- emulated KVM hosts ----------------------------------------------------
# The options both `ab` and `--host emulated` take: EMU_ARCH, EMU_MMU, EMU_SMP,
# EMU_ICOUNT (empty: real time).  emu_option OPTION VALUE: 0 when taken.
EMU_ARCH=x86_64 EMU_MMU='' EMU_SMP=1 EMU_ICOUNT=shift=0,sleep=off
emu_option() {
	case "$1" in
	--arch) EMU_ARCH=$2 ;;
	--mmu) EMU_MMU=$2 ;;
	--smp) [[ $2 =~ ^[1-8]$ ]] || die "--smp '$2': the emulated host's vCPUs, 1 to 8"
	       EMU_SMP=$2 ;;
	*) return 1 ;;
	esac
}

# The emulated host of --arch and --mmu, from configs/emu-hosts (mmu.sh):
# EMU_MMU, EMU_KERNEL, EMU_MACHINE, EMU_CPU, EMU_PARAMS, EMU_RECORD;
# EMU_COUNTS_ONLY where only path counts compare.  Then this machine must be
# able to boot it with the suite inside.
emu_setup() {
	local n line
	EMU_COUNTS_ONLY=''
	line=$("$HERE/scripts/emu/mmu.sh" "$EMU_ARCH" "$EMU_MMU" 2>&1) || die "$line"
	eval "$line"
	# QEMU 7.2's powernv aborts under -icount in its firmware ("Bad icount
	# read", POWER8 and POWER9 alike), and POWER's emulated clock in real
	# time is unreliable (docs/arches.md): there only path counts compare.
	[ "$EMU_ARCH" = powerpc ] && EMU_ICOUNT='' EMU_COUNTS_ONLY=--counts-only
	[ "$ARCH" = x86_64 ] || die "emulated hosts are built on x86_64; this machine is $ARCH"
	# Sections are chosen for the emulated host's arch.
	ARCH=$EMU_ARCH
	# The benchmarks (every folder with a main.c, as the Makefile has them) and run.sh's tools.
	for n in "$HERE"/*/main.c kmp_mmu kmp_cap kmp_restore_host; do
		[[ $n != */main.c ]] || n=$(basename "$(dirname "$n")")
		[ -x "$HERE/build/$ARCH/bin/$n" ] || die "$HERE/build/$ARCH/bin/$n not found: run 'make$([ "$ARCH" = x86_64 ] || echo " ARCH=$ARCH")' first"
	done
}

# What the emulated host's figures are, said once before they are measured.
emu_banner() {	# emu_banner PREFIX
	echo "$1: $EMU_MMU MMU (${EMU_PARAMS:-$([ "$EMU_ARCH" = powerpc ] && echo "$EMU_MACHINE" || echo "KVM built in")}), $EMU_SMP emulated vCPU(s), $([ -n "$EMU_ICOUNT" ] && echo "QEMU -icount $EMU_ICOUNT" || echo "real time")"
	if [ -n "$EMU_COUNTS_ONLY" ]; then
		echo "$1: counts only: QEMU's powernv has no -icount (it aborts: \"Bad icount read\") and POWER's"
		echo "$1: emulated clock is unreliable, so only the path counts (KVM VM stat deltas) are compared"
	elif [ -n "$EMU_ICOUNT" ]; then
		echo "$1: the figures are instruction-paced (QEMU icount): they measure code path length in"
		echo "$1: the emulated host, repeatably, not bare-metal time (no cache, TLB or atomic costs)"
	else
		echo "$1: real-time emulation: the figures move with this machine's load; icount (the default) does not"
	fi
}

# emu_boot LABEL NAME KERNEL CACHE OUTDIR TIMEOUT RUN_SH_ARGS...: KERNEL (made
# ready as CACHE by scripts/emu/kernel.sh) booted as the emulated host, the
# selection run inside into OUTDIR, its console checked for kernel reports
# (figures from a kernel that reported a lockdep splat, a sleep in atomic
# context, a BUG or a WARN are not to be trusted).  Returns 1 when a run
# failed or the kernel reported trouble; exits when no results came back.
emu_boot() {
	local label=$1 name=$2 kernel=$3 cache=$4 outdir=$5 timeout=$6 rc=0
	shift 6
	if ! KMP_EMU_SMP=$EMU_SMP KMP_EMU_ICOUNT=$EMU_ICOUNT KMP_EMU_MMU=$EMU_MMU \
		KMP_EMU_NAME="$EMU_ARCH/$name" \
		"$HERE/scripts/emu/ab-side.sh" "$EMU_ARCH" "$cache" "$kernel" "$outdir" "$timeout" "$@"; then
		[ -n "$(find "$outdir" -name summary.ktap 2>/dev/null)" ] ||
			{ echo "$label ($kernel) gave no results: $outdir/console.log"; exit 1; }
		rc=1
	fi
	"$HERE/scripts/emu/console-reports.sh" "$outdir/console.log" "$label ($kernel)" || rc=1
	return $rc
}

# An emulated host's results folder renamed by this machine's clock (the
# guest's clock starts in 1970 or 2026-01-01); prints the new path.
host_dated() {
	local d=$1 new
	[ -d "$d" ] || return 1
	new=$(dirname "$d")/$(date +%Y%m%d-%H%M%S)-$(basename "$d" | cut -d- -f3-)
	mv -- "$d" "$new" && echo "$new"
}

# The selection's time limit on the emulated host: every run's, and a boot's.
emu_timeout() {
	local n t=900
	for n in "${SELECTED[@]}"; do t=$((t + S_TIMEOUT[n] * REPEAT)); done
	echo "$t"
}

# Each run's own lines, the ones the posts quote (its log without KTAP and
# comments), labelled with what the emulated host's figures measure.
emu_post_lines() {
	local log what
	what=$([ -n "$EMU_ICOUNT" ] && echo "QEMU icount: code path length, not bare-metal time" ||
		echo "QEMU in real time: not bare-metal time")
	for log in "$1"/*.log; do
		if [ ! -f "$log" ] || [ "$(basename "$log")" = console.log ]; then continue; fi
		echo "--- $(basename "$log" .log) on the emulated host ($what):"
		grep -v -e '^#' -e '^TAP version' -e '^1\.\.' -e '^ok ' -e '^not ok ' -e '^$' "$log"
	done
}

# --host emulated: the selection on one kernel booted as an emulated KVM host
# (default: Debian's 6.12, the TDP MMU over emulated NPT), into an ordinary
# results folder named by this machine's clock.
cmd_emulated() {
	local kernel='' cache tmp inner rc=0 label
	local -a sel=()
	SEL_GROUPS=() TESTS=() REPEAT=1
	while [ $# -gt 0 ]; do
		if [ $# -ge 2 ] && emu_option "$1" "$2"; then shift 2; continue; fi
		case "$1" in
		--kernel) kernel=$2; shift 2 ;;
		--real-time) EMU_ICOUNT=; shift ;;
		--repeat) REPEAT=$2; shift 2 ;;
		-g) SEL_GROUPS+=("$2"); sel+=("$1" "$2"); shift 2 ;;
		-t) TESTS+=("$2"); sel+=("$1" "$2"); shift 2 ;;
		esac
	done
	emu_setup
	kernel=${kernel:-$EMU_KERNEL}
	[ ${#sel[@]} -gt 0 ] || { SEL_GROUPS=(ci); sel=(-g ci); }
	load_configs
	select_sections
	[ ${#SELECTED[@]} -gt 0 ] || die "no section in ${sel[*]} for $ARCH; see --list"
	mkdir -p -- "$RESULTS_DIR" 2> /dev/null || die "--results '$RESULTS_DIR': cannot create it"
	# Said once the input is known to be good: a bad one is a one-line error.
	[ -z "${EMU_BECAUSE:-}" ] ||
		echo "run.sh: $EMU_BECAUSE: running on an emulated KVM host instead (--host local: skip)"
	# A Debian kernel series (6.12, default) as make check-ARCH boots it; else ab's kernels.
	cache=$("$HERE/scripts/emu/kernel.sh" "$ARCH" "$kernel" "$HERE/build/$ARCH/emu-ab") || exit $?
	label=$(IFS=+; echo "${TESTS[*]:-${SEL_GROUPS[*]}}")
	[ ${#label} -le 150 ] || label="${#SELECTED[@]}-sections"
	new_results_dir "$label"
	echo "running ${#SELECTED[@]} section(s) x $REPEAT on an emulated $ARCH KVM host ($kernel)"
	emu_banner run.sh
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/kmp-emulated.XXXXXX")
	emu_boot "run.sh: the emulated host" host "$kernel" "$cache" "$tmp" "$(emu_timeout)" \
		"${sel[@]}" --repeat "$REPEAT" || rc=1
	# The host's one results folder, dated by the guest's clock, becomes $OUT.
	inner=$(results_folder "$tmp") || exit 1
	mv "$inner"/* "$OUT"/ && mv "$tmp/console.log" "$OUT/console.log" && rm -rf "$tmp"
	emu_post_lines "$OUT"
	# summary refuses records of another MMU than asked (host.txt's emulated_mmu).
	"$PY" "$RESULTS_PY" summary "$OUT" || rc=1
	echo "results: $OUT"
	exit $rc
}

# ab --kernel A --kernel B SELECTION: the selection on each kernel, booted as
# an emulated KVM host of --arch (emu_boot), then compare A B.
cmd_ab() {
	local -a kernels=() sel=() passthru=() patches=() patches_a=() configs=() build_a=() build_b=()
	local n side rc=0 a b
	# 4 runs a side: the fewest at which compare's exact rank test can reach
	# p <= 0.05 (2/C(8,4) = 0.029; 3 a side can give no less than 0.1), so
	# that a noisy figure can get a verdict (docs/results.md).
	REPEAT=4
	while [ $# -gt 0 ]; do
		case "$1" in
		--kernel) need_value --kernel "$@"; kernels+=("$2"); shift 2 ;;
		--patch) need_value --patch "$@"; patches+=(--patch "$2"); shift 2 ;;
		--patch-a) need_value --patch-a "$@"
			   if [ ! -f "$2" ] || [ ! -r "$2" ]; then die "--patch-a '$2': no such readable file"; fi
			   patches_a+=(--patch "$2"); shift 2 ;;
		--config) need_value --config "$@"; configs+=(--config "$2"); shift 2 ;;
		--arch|--mmu|--smp) need_value "$1" "$@"; emu_option "$1" "$2"; shift 2 ;;
		-g|-t) need_value "$1" "$@"; sel+=("$1" "$2"); shift 2 ;;
		--repeat) need_value --repeat "$@"; check_repeat "$2"; REPEAT=$2; shift 2 ;;
		--results) need_value --results "$@"; RESULTS_DIR=$2; shift 2 ;;
		--real-time) EMU_ICOUNT=; shift ;;
		-h|--help) usage 0 ;;
		*) die "ab: unknown argument '$1'; see --help" ;;
		esac
	done
	# One source and patches: A is the source (with --patch-a's), B the
	# source with --patch's.
	[ ${#kernels[@]} = 1 ] && [ $((${#patches[@]} + ${#patches_a[@]})) -gt 0 ] &&
		kernels+=("${kernels[0]}")
	case ${#kernels[@]} in
	0) die "ab: needs two kernels: --kernel A --kernel B (or one source and --patch)" ;;
	1) die "--kernel '${kernels[0]}': ab needs a second kernel (--kernel A --kernel B), or --patch FILE to build B as A with it" ;;
	2) ;;
	*) die "--kernel '${kernels[2]}': a third kernel; ab compares two" ;;
	esac
	emu_setup
	# The selection as the emulated host will see it: checked here, first.
	SEL_GROUPS=() TESTS=()
	for ((n = 0; n < ${#sel[@]}; n += 2)); do
		if [ "${sel[n]}" = -g ]; then SEL_GROUPS+=("${sel[n + 1]}"); else TESTS+=("${sel[n + 1]}"); fi
	done
	[ ${#sel[@]} -gt 0 ] || { SEL_GROUPS=(ci); sel=(-g ci); }
	load_configs
	select_sections
	[ ${#SELECTED[@]} -gt 0 ] || die "ab: no section in ${sel[*]} for $ARCH; see --list"
	# Each kernel made ready (fetched, unpacked) before any folder is made:
	# a bad --kernel is a one-line error.
	# --config to every source side; --patch to B alone, --patch-a to A alone.
	local -a caches=()
	build_a=(${configs[@]+"${configs[@]}"} ${patches_a[@]+"${patches_a[@]}"})
	build_b=(${configs[@]+"${configs[@]}"} ${patches[@]+"${patches[@]}"})
	# The patches are tried first: one that does not apply fails before anything is built.
	if [ ${#patches_a[@]} -gt 0 ]; then
		"$HERE/scripts/emu/kernel.sh" "$ARCH" "${kernels[0]}" "$HERE/build/$ARCH/emu-ab" "${build_a[@]}" --check > /dev/null || exit $?
	fi
	if [ ${#patches[@]} -gt 0 ]; then
		"$HERE/scripts/emu/kernel.sh" "$ARCH" "${kernels[1]}" "$HERE/build/$ARCH/emu-ab" "${build_b[@]}" --check > /dev/null || exit $?
	fi
	caches[0]=$("$HERE/scripts/emu/kernel.sh" "$ARCH" "${kernels[0]}" "$HERE/build/$ARCH/emu-ab" ${build_a[@]+"${build_a[@]}"}) || exit $?
	caches[1]=$("$HERE/scripts/emu/kernel.sh" "$ARCH" "${kernels[1]}" "$HERE/build/$ARCH/emu-ab" ${build_b[@]+"${build_b[@]}"}) || exit $?
	passthru=("${sel[@]}" --repeat "$REPEAT")
	local label
	label=$(IFS=+; echo "${TESTS[*]:-${SEL_GROUPS[*]}}")
	[ ${#label} -le 150 ] || label="${#SELECTED[@]}-sections"
	new_results_dir "ab-$label"
	echo "ab: ${#SELECTED[@]} section(s) x $REPEAT on two kernels, each an emulated $ARCH KVM host"
	emu_banner ab
	for n in 0 1; do
		side=$([ $n = 0 ] && echo A || echo B)
		echo "=== $side: ${kernels[n]}"
		emu_boot "ab: side $side" "$side" "${kernels[n]}" "${caches[n]}" "$OUT/$side" \
			"$(emu_timeout)" "${passthru[@]}" || rc=1
	done
	a=$(host_dated "$(results_folder "$OUT/A")") || exit 1
	b=$(host_dated "$(results_folder "$OUT/B")") || exit 1
	echo "=== compare A ($a) -> B ($b)"
	"$PY" "$RESULTS_PY" compare ${EMU_COUNTS_ONLY:+"$EMU_COUNTS_ONLY"} "$a" "$b" | tee "$OUT/compare.txt"
	[ "${PIPESTATUS[0]}" = 0 ] || rc=1
	echo "results: $OUT"
	exit $rc
}

# export --kcidb RESULTS [--origin ORIGIN]: the folder as KCIDB's JSON on stdout.
cmd_export() {
	local kcidb='' origin=kvm_mmu_perf d
	while [ $# -gt 0 ]; do
		case $1 in
		--kcidb) [ $# -ge 2 ] || die "export: --kcidb needs a results folder"
			kcidb=$2; shift 2 ;;
		--origin) [ $# -ge 2 ] || die "export: --origin needs a name: the CI system submitting, [a-z0-9_]+"
			origin=$2; shift 2 ;;
		*) die "export: unknown argument '$1' (--kcidb RESULTS [--origin ORIGIN])" ;;
		esac
	done
	[ -n "$kcidb" ] || die "usage: run.sh export --kcidb RESULTS [--origin ORIGIN]"
	[ -d "$kcidb" ] || [ ! -e "$kcidb" ] || die "export: '$kcidb' is not a folder: name a results folder"
	[ -d "$kcidb" ] || die "export: '$kcidb' is not a results folder (it does not exist)"
	d=$(results_folder "$kcidb" export) || exit 2
	# kmp_lava names the cases and figures, for LAVA's jobs and for KCIDB alike.
	[ -x "$BIN/kmp_lava" ] || die "export: $BIN/kmp_lava not found: run 'make' first (or set KMP_BIN)"
	exec "$PY" "$RESULTS_PY" kcidb --lava "$BIN/kmp_lava" --origin "$origin" "$d"
}

case "${1:-}" in
ab) shift; cmd_ab "$@" ;;
compare) shift; cmd_compare "$@" ;;
export) shift; cmd_export "$@" ;;
sweep) shift; cmd_sweep "$@" ;;
*) cmd_run "$@" ;;
esac
