# kvm-mmu-perf: KVM MMU benchmarks in the style of tools/testing/selftests/kvm.
#
#   make                 build every benchmark, the unit tests and the smoke tests
#   make check           build, then run unit tests and guest smoke tests (KTAP)
#   make run_tests       build, then run every benchmark through kselftest's runner
#   make install INSTALL_PATH=DIR   a run_kselftest.sh layout in DIR
#   make clean
#   make ARCH=arm64|powerpc [CROSS_COMPILE=...]   cross build (Debian cross gcc)
#   make check-x86 / check-arm64 / check-ppc64   run the x86 / arm64 / POWER
#                        sets inside emulated KVM hosts (QEMU; packages fetched
#                        on first use): x86's TDP, shadow and legacy MMUs
#   make check-ab        run.sh ab repeats: one kernel twice under icount
#   make check-ab-source run.sh ab from source: seed 004's pair built and run
#
# Variables: ARCH (x86_64, arm64, powerpc), CROSS_COMPILE, CC, OUTPUT, KSFT_DIR,
# V=1 (show commands), WERROR=0 (warnings are not errors), SANITIZE=1 (host
# code built with ASan+UBSan; guest code never is).

SRC := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))

HOST_ARCH := $(shell uname -m)
ARCH ?= $(HOST_ARCH)
override ARCH := $(patsubst aarch64,arm64,$(patsubst ppc64le,powerpc,$(patsubst ppc64,powerpc,$(patsubst amd64,x86_64,$(ARCH)))))
SUPPORTED_ARCHS := x86_64 arm64 powerpc
ifeq ($(filter $(ARCH),$(SUPPORTED_ARCHS)),)
$(error ARCH=$(ARCH) is not supported; use one of: $(SUPPORTED_ARCHS))
endif

# Cross builds: Debian's cross toolchain and a private sysroot of the
# target's libaio, hwloc, jansson, libtracefs and libtraceevent
# (scripts/cross-sysroot.sh).
DEB_ARCH_x86_64 := amd64
DEB_ARCH_arm64 := arm64
DEB_ARCH_powerpc := ppc64el
TRIPLET_x86_64 := x86_64-linux-gnu
TRIPLET_arm64 := aarch64-linux-gnu
TRIPLET_powerpc := powerpc64le-linux-gnu
DEB_ARCH := $(DEB_ARCH_$(ARCH))
TRIPLET := $(TRIPLET_$(ARCH))
CROSS := $(if $(filter $(ARCH),$(patsubst aarch64,arm64,$(patsubst ppc64le,powerpc,$(HOST_ARCH)))),,1)
ifeq ($(CROSS),1)
CROSS_COMPILE ?= $(TRIPLET)-
endif

ifeq ($(origin CC),default)
CC := $(CROSS_COMPILE)gcc
endif
AR ?= ar
ifeq ($(origin AR),default)
AR := $(CROSS_COMPILE)ar
endif

OUTPUT ?= $(SRC)/build/$(ARCH)
override OUTPUT := $(abspath $(OUTPUT))
KSFT_INC := $(OUTPUT)/ksft
INSTALL_PATH ?= $(OUTPUT)/install
COLLECTION := kvm-mmu-perf

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-7s %s\n' "$(1)" "$(patsubst $(OUTPUT)/%,%,$(2))";
endif

WERROR ?= 1
WARN := -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers -Wno-sign-compare
ifeq ($(findstring clang,$(CC)),)
WARN += -Wno-clobbered	# kselftest_harness.h's fixtures trip it under gcc
endif
ifeq ($(WERROR),1)
WARN += -Werror
endif

# Guest code is linked into the same non-PIE binary and loaded at the same
# virtual addresses inside the guest (lib/elf.c), so no PIE anywhere.
CPPFLAGS := -D_GNU_SOURCE -I$(SRC)/tests -I$(SRC)/tests/$(ARCH) -I$(SRC)/include -I$(SRC)/include/$(ARCH) -I$(KSFT_INC) \
	-I$(OUTPUT)/gen -DKMP_SRC_DIR='"$(SRC)"'
BASE_CFLAGS := -std=gnu11 -O2 -g -fmacro-prefix-map=$(SRC)/= -fno-pie -fno-omit-frame-pointer $(WARN) $(EXTRA_CFLAGS)
HOST_CFLAGS := $(BASE_CFLAGS) -pthread
# Freestanding: no stack protector, no sanitizers, no libc calls emitted for
# loops, no CET/endbr noise.  Files named *guest*.c get these flags.
GUEST_CFLAGS := $(BASE_CFLAGS) -ffreestanding -fno-stack-protector -fno-builtin \
	-fno-tree-loop-distribute-patterns -fcf-protection=none -fno-sanitize=all \
	-fno-asynchronous-unwind-tables -fno-jump-tables
# Guests never enable FP/SIMD: keep the compiler off those registers.
GUEST_ARCH_CFLAGS_x86_64 := -mno-red-zone -mgeneral-regs-only
GUEST_ARCH_CFLAGS_arm64 := -mgeneral-regs-only -mbranch-protection=none
GUEST_ARCH_CFLAGS_powerpc := -mno-altivec -mno-vsx
GUEST_CFLAGS += $(GUEST_ARCH_CFLAGS_$(ARCH))
ifneq ($(findstring clang,$(CC)),)
GUEST_CFLAGS := $(filter-out -fno-tree-loop-distribute-patterns,$(GUEST_CFLAGS))
endif
ifeq ($(SANITIZE),1)
HOST_CFLAGS += -fsanitize=address,undefined -fno-sanitize-recover=undefined
SAN_LDFLAGS := -fsanitize=address,undefined
endif
LDFLAGS += -no-pie -pthread $(SAN_LDFLAGS)
ifeq ($(CROSS),1)
SYSROOT := $(OUTPUT)/sysroot
CPPFLAGS += -I$(SYSROOT)/usr/include -I$(SYSROOT)/usr/include/$(TRIPLET)
TRACE_INC_ROOT := $(SYSROOT)/usr/include
LDFLAGS += -L$(SYSROOT)/usr/lib/$(TRIPLET) -Wl,-rpath-link,$(SYSROOT)/usr/lib/$(TRIPLET)
endif
# libtracefs/libtraceevent include each other's headers without a prefix.
TRACE_INC_ROOT ?= /usr/include
CPPFLAGS += -I$(TRACE_INC_ROOT)/tracefs -I$(TRACE_INC_ROOT)/traceevent
LDLIBS := -ltracefs -ltraceevent -lhwloc -laio -lm

# ---- sources ---------------------------------------------------------------
LIB_SRCS := $(wildcard $(SRC)/lib/*.c) $(wildcard $(SRC)/lib/$(ARCH)/*.c) \
	    $(wildcard $(SRC)/lib/$(ARCH)/*.S)
LIB_OBJS := $(patsubst $(SRC)/%,$(OUTPUT)/obj/%.o,$(LIB_SRCS))
LIBKMP := $(OUTPUT)/libkmp.a

BENCHES := $(notdir $(patsubst %/,%,$(dir $(wildcard $(SRC)/*/main.c))))
BENCH_BINS := $(addprefix $(OUTPUT)/bin/,$(BENCHES))

SMOKE_NAMES := $(patsubst $(SRC)/tests/%.c,%,$(filter-out %_guest.c,$(wildcard $(SRC)/tests/smoke_*.c)))
SMOKE_BINS := $(addprefix $(OUTPUT)/bin/,$(SMOKE_NAMES))
# A fixture's own test, which can only skip on any other kernel: built with
# the rest, run by its fixture's check (make check-seed-NNN boots the patched
# kernel, where a skip fails), not by make check, where KMP_REQUIRE_KVM=1
# would fail it on every kernel with KVM but without the fixture.
FIXTURE_SMOKES := smoke_shared_wp_retry smoke_mem_fault
CHECK_SMOKES := $(filter-out $(FIXTURE_SMOKES),$(SMOKE_NAMES))

# Helpers every test binary links (jansson_view: reading JSON in tests;
# usage_fails: a usage error inside a test fails it, never KSFT_XFAIL).
TEST_HELPER_OBJS := $(OUTPUT)/obj/tests/jansson_view.c.o $(OUTPUT)/obj/tests/usage_fails.c.o
UNIT_SRCS := $(wildcard $(SRC)/tests/unit/*.c)
UNIT_BIN := $(OUTPUT)/bin/unit_tests

# Script tests (tests/*_test.sh, tests/*_test.py), copied next to the binaries.
SCRIPT_TESTS := $(notdir $(wildcard $(SRC)/tests/*_test.sh $(SRC)/tests/*_test.py))
# What they share (tests/kmp_test*: kmp_testlib.sh, kmp_testlib.py, ...) goes with them.
TEST_LIBS := $(notdir $(wildcard $(SRC)/tests/kmp_test*.py $(SRC)/tests/kmp_test*.sh))
SCRIPT_BINS := $(addprefix $(OUTPUT)/bin/,$(SCRIPT_TESTS) $(TEST_LIBS))

# Small host tools (tools/NAME.c -> bin/NAME), e.g. kmp_cap for run.sh.
TOOL_NAMES := $(patsubst $(SRC)/tools/%.c,%,$(wildcard $(SRC)/tools/*.c))
TOOL_BINS := $(addprefix $(OUTPUT)/bin/,$(TOOL_NAMES))
.SECONDARY: $(patsubst %,$(OUTPUT)/obj/tools/%.c.o,$(TOOL_NAMES))

ALL_BINS := $(BENCH_BINS) $(SMOKE_BINS) $(UNIT_BIN) $(TOOL_BINS)

$(OUTPUT)/bin/%_test.sh: $(SRC)/tests/%_test.sh
	$(Q)mkdir -p $(dir $@) && cp $< $@
$(OUTPUT)/bin/%_test.py: $(SRC)/tests/%_test.py
	$(Q)mkdir -p $(dir $@) && cp $< $@
$(OUTPUT)/bin/kmp_test%: $(SRC)/tests/kmp_test%
	$(Q)mkdir -p $(dir $@) && cp $< $@

.PHONY: all check run_tests install clean deps
.DEFAULT_GOAL := all
all: $(ALL_BINS) $(SCRIPT_BINS)

# ---- dependencies and the kselftest harness --------------------------------
DEPS_STAMP := $(OUTPUT)/.deps-ok
# Cross builds need the cross toolchain; their libraries come from the sysroot.
CROSS_DEPS := $(if $(filter 1,$(CROSS)),--cross $(DEB_ARCH) $(TRIPLET))
# Re-checked when the lists of what is needed change.
$(DEPS_STAMP): $(SRC)/scripts/check-deps.sh $(SRC)/scripts/cross-sysroot.sh
	$(Q)mkdir -p $(OUTPUT)
	$(Q)if ! out=$$($(SRC)/scripts/check-deps.sh "$(CC)" "$(KSFT_DIR)" $(CROSS_DEPS)); then \
		echo "  DEPS    $$out"; \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			$(SRC)/scripts/install-deps.sh $(CROSS_DEPS) || exit 1; \
		else \
			echo "Missing build dependencies. Install them with:" >&2; \
			echo "  sudo sh -c '$$($(SRC)/scripts/install-deps.sh --print $(CROSS_DEPS))'" >&2; \
			exit 1; \
		fi; \
		$(SRC)/scripts/check-deps.sh "$(CC)" "$(KSFT_DIR)" $(CROSS_DEPS) || exit 1; \
	fi
ifeq ($(CROSS),1)
	$(Q)$(SRC)/scripts/cross-sysroot.sh $(DEB_ARCH) $(SYSROOT)
endif
	$(Q)touch $@
deps: $(DEPS_STAMP)

$(KSFT_INC)/kselftest_harness.h: | $(DEPS_STAMP)
	$(Q)$(SRC)/scripts/get-kselftest.sh $(KSFT_INC) "$(KSFT_DIR)"
	$(Q)touch $@

# ---- compile ---------------------------------------------------------------
# The tool version recorded in results; rewritten only when it changes, so
# only the files that include kmp_version.h rebuild.
KMP_VERSION := $(shell git -C $(SRC) describe --always --dirty --tags 2>/dev/null || echo unknown)
$(shell mkdir -p $(OUTPUT)/gen; v='#define KMP_VERSION "$(KMP_VERSION)"'; \
	[ "$$(cat $(OUTPUT)/gen/kmp_version.h 2>/dev/null)" = "$$v" ] || echo "$$v" > $(OUTPUT)/gen/kmp_version.h)

# Objects depend on the flags: changing CC, ARCH, SANITIZE... rebuilds them.
FLAGS_STAMP := $(OUTPUT)/.flags
FLAGS_NOW := $(CC) $(CPPFLAGS) $(HOST_CFLAGS) $(GUEST_CFLAGS) $(LDFLAGS)
$(shell mkdir -p $(OUTPUT); [ "$$(cat $(FLAGS_STAMP) 2>/dev/null)" = "$(FLAGS_NOW)" ] || echo "$(FLAGS_NOW)" > $(FLAGS_STAMP))

$(OUTPUT)/obj/%guest.c.o: $(SRC)/%guest.c $(FLAGS_STAMP) | $(KSFT_INC)/kselftest_harness.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) $(GUEST_CFLAGS) -MMD -MP -c $< -o $@

$(OUTPUT)/obj/%.c.o: $(SRC)/%.c $(FLAGS_STAMP) | $(KSFT_INC)/kselftest_harness.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) $(HOST_CFLAGS) -MMD -MP -c $< -o $@

$(OUTPUT)/obj/%.S.o: $(SRC)/%.S $(FLAGS_STAMP) | $(KSFT_INC)/kselftest_harness.h
	$(call msg,AS,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) -c $< -o $@

$(LIBKMP): $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# ---- link ------------------------------------------------------------------
# A benchmark is <name>/*.c plus its arch part <name>/$(ARCH)/*.c.
define bench_rule
$(OUTPUT)/bin/$(1): $(patsubst $(SRC)/%,$(OUTPUT)/obj/%.o,$(wildcard $(SRC)/$(1)/*.c $(SRC)/$(1)/$(ARCH)/*.c)) $(LIBKMP)
	$$(call msg,LD,$$@)
	$(Q)mkdir -p $$(dir $$@)
	$(Q)$$(CC) $$(LDFLAGS) $$^ $$(LDLIBS) -o $$@
endef
$(foreach b,$(BENCHES),$(eval $(call bench_rule,$(b))))

define smoke_rule
$(OUTPUT)/bin/$(1): $(patsubst $(SRC)/%,$(OUTPUT)/obj/%.o,$(wildcard $(SRC)/tests/$(1).c $(SRC)/tests/$(1)_guest.c)) $(TEST_HELPER_OBJS) $(LIBKMP)
	$$(call msg,LD,$$@)
	$(Q)mkdir -p $$(dir $$@)
	$(Q)$$(CC) $$(LDFLAGS) $$^ $$(LDLIBS) -ljansson -o $$@
endef
$(foreach s,$(SMOKE_NAMES),$(eval $(call smoke_rule,$(s))))

$(OUTPUT)/bin/%: $(OUTPUT)/obj/tools/%.c.o $(LIBKMP)
	$(call msg,LD,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

# kmp_lava reads the records (JSON) on the host under test, where no Python may be.
$(OUTPUT)/bin/kmp_lava: $(OUTPUT)/obj/tools/kmp_lava.c.o $(LIBKMP)
	$(call msg,LD,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -ljansson -o $@

$(UNIT_BIN): $(patsubst $(SRC)/%,$(OUTPUT)/obj/%.o,$(UNIT_SRCS)) $(TEST_HELPER_OBJS) $(LIBKMP)
	$(call msg,LD,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -ljansson -o $@

-include $(shell find $(OUTPUT)/obj -name '*.d' 2>/dev/null)

# ---- run -------------------------------------------------------------------
# make check: unit tests, then the guest smoke tests, through kselftest's runner.
# kselftest's runner LD_PRELOADs stdbuf: ASan must not insist on coming first.
CHECK_ENV := KMP_SRC_DIR=$(SRC) KMP_BIN=$(OUTPUT)/bin
ifeq ($(SANITIZE),1)
CHECK_ENV += ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1:handle_segv=0 UBSAN_OPTIONS=print_stacktrace=1 \
	LSAN_OPTIONS=suppressions=$(SRC)/tests/lsan.supp
endif
# CHECK_SCRIPTS= runs the C tests alone (.ci/run's clang pass: the script
# tests do not depend on the compiler, and the gcc and ASan passes run them).
CHECK_SCRIPTS ?= $(SCRIPT_TESTS)
check: all
	$(Q)$(CHECK_ENV) $(SRC)/scripts/ktap-run.sh $(KSFT_INC) \
		$(OUTPUT)/bin $(SRC)/configs/settings $(notdir $(UNIT_BIN)) $(CHECK_SMOKES) \
		$(CHECK_SCRIPTS)

# make run_tests: every benchmark at its default scale (until the benchmarks
# exist, the smoke tests) through the real run_kselftest.sh.
RUN_TESTS_BINS := $(if $(BENCH_BINS),$(BENCH_BINS),$(SMOKE_BINS))
run_tests: all
	$(Q)$(MAKE) --no-print-directory install INSTALL_PATH=$(OUTPUT)/install
	$(Q)$(SRC)/scripts/ktap-run.sh $(KSFT_INC) $(OUTPUT)/install/$(COLLECTION) \
		$(SRC)/configs/settings $(notdir $(RUN_TESTS_BINS))

install: all
	$(call msg,INSTALL,$(INSTALL_PATH))
	$(Q)mkdir -p $(INSTALL_PATH)/$(COLLECTION) $(INSTALL_PATH)/kselftest
	$(Q)cp $(KSFT_INC)/run_kselftest.sh $(INSTALL_PATH)/
	$(Q)cp $(KSFT_INC)/kselftest/* $(INSTALL_PATH)/kselftest/
	$(Q)cp $(ALL_BINS) $(INSTALL_PATH)/$(COLLECTION)/
	$(Q)cp $(SRC)/configs/settings $(SRC)/configs/config $(INSTALL_PATH)/$(COLLECTION)/
	@# run.sh works from INSTALL_PATH too: it finds kvm-mmu-perf/, configs/, scripts/.
	$(Q)mkdir -p $(INSTALL_PATH)/configs $(INSTALL_PATH)/scripts $(INSTALL_PATH)/docs
	$(Q)cp $(SRC)/run.sh $(INSTALL_PATH)/
	$(Q)cp $(SRC)/configs/*.cfg $(SRC)/configs/emu-hosts $(INSTALL_PATH)/configs/
	$(Q)cp $(wildcard $(SRC)/scripts/*.py) $(SRC)/scripts/emu/console-reports.sh \
		$(SRC)/lava/kmp-lava-group.sh $(INSTALL_PATH)/scripts/
	$(Q)rm -rf $(INSTALL_PATH)/scripts/kmp && cp -r $(SRC)/scripts/kmp $(INSTALL_PATH)/scripts/
	$(Q)find $(INSTALL_PATH)/scripts/kmp -name __pycache__ -prune -exec rm -rf {} +
	$(Q)cp $(SRC)/docs/results-schema.json $(SRC)/docs/results-schema.v1.json $(INSTALL_PATH)/docs/
	@# Every test binary is listed, so run_kselftest.sh -t picks any of them.
	$(Q)for t in $(notdir $(RUN_TESTS_BINS) $(UNIT_BIN) $(SMOKE_BINS)); do \
		echo "$(COLLECTION):$$t"; done > $(INSTALL_PATH)/kselftest-list.txt

clean:
	$(call msg,CLEAN,$(OUTPUT))
	$(Q)rm -rf $(OUTPUT)

# make kvm-usable: exit 0 where this host's /dev/kvm runs guests, else say
# why not and fail (tools/kmp_kvm, as run.sh and make check decide): .ci/run.
.PHONY: kvm-usable
kvm-usable: $(OUTPUT)/bin/kmp_kvm
	$(Q)$(OUTPUT)/bin/kmp_kvm

# make restore-host (as root): undo what killed runs left on the host, from
# their journals (include/host_state.h).
.PHONY: restore-host
restore-host: $(OUTPUT)/bin/kmp_restore_host
	$(Q)$(OUTPUT)/bin/kmp_restore_host

# ---- emulated hosts (scripts/emu) -------------------------------------------
# make check-x86 / check-arm64 / check-ppc64: build for the arch (a cross build
# for arm64 and POWER), then boot each host of configs/emu-<name>.hosts:
# Debian's kernel under QEMU (software emulation) as a real KVM host, running
# that host's list of tests (KTAP from the console, records validated here).
# x86: the TDP MMU, the shadow MMU and the legacy MMU over NPT on 6.12, and the
# TDP MMU on 6.1; arm64: stage 2; POWER: HPT on powernv8, radix on powernv9.
# Kernel and busybox packages are downloaded once into build/<arch>/emu*/.
# EMU_TIMEOUT bounds each boot (seconds); KMP_EMU_HOSTS="NAME ..." picks hosts.
EMU_TIMEOUT ?= 1800
.PHONY: check-x86 check-arm64 check-ppc64
check-x86 check-arm64 check-ppc64: check-%:
	$(Q)$(MAKE) --no-print-directory ARCH=$(EMU_ARCH_$*) CC=$(EMU_CC_$*) \
		SANITIZE= OUTPUT=$(SRC)/build/$(EMU_ARCH_$*) all
	$(Q)$(SRC)/scripts/emu/check-hosts.sh $(EMU_ARCH_$*) $(SRC)/build/$(EMU_ARCH_$*)/bin \
		$(SRC)/configs/emu-$*.hosts $(EMU_TIMEOUT)
# make check-seed-001 (outside CI: three cross kernel builds and four boots):
# the proof of patches/seed-001-tlbie-lock.patch, configs/emu-seed-001.list
# with its switch (plain and lockdep builds), make check-ppc64's list with
# the lock on from boot, then the negative control (the lock never taken,
# tests/fixture_control_check.py).
.PHONY: check-seed-001
check-seed-001:
	$(Q)$(MAKE) --no-print-directory ARCH=powerpc CC=$(EMU_CC_ppc64) SANITIZE= OUTPUT=$(SRC)/build/powerpc all
	$(Q)$(SRC)/scripts/emu/check-hosts.sh powerpc $(SRC)/build/powerpc/bin \
		$(SRC)/configs/emu-seed-001.hosts $(EMU_TIMEOUT)
	$(Q)$(SRC)/tests/fixture_control_check.py seed-001
# make check-seed-000 (outside CI: six cross kernel builds and seven boots):
# the proof of patches/seed-000-base.patch (the post's base, side A) and of
# patches/seed-000-clear-dirty-log-read-lock.patch (the post, side B on top
# of A): configs/emu-seed-000-a.list on A and -b.list on B, plain and
# debug (lockdep, KASAN, UBSAN) builds, make check-arm64's list on B, then the negative controls
# (A without the write-protect's retry, tests/fixture_control_check.py
# seed-000; B without the split's retry, seed-000-b).
.PHONY: check-seed-000
check-seed-000:
	$(Q)$(MAKE) --no-print-directory ARCH=arm64 CC=$(EMU_CC_arm64) SANITIZE= OUTPUT=$(SRC)/build/arm64 all
	$(Q)$(SRC)/scripts/emu/check-hosts.sh arm64 $(SRC)/build/arm64/bin \
		$(SRC)/configs/emu-seed-000.hosts $(EMU_TIMEOUT)
	$(Q)$(SRC)/tests/fixture_control_check.py seed-000
	$(Q)$(SRC)/tests/fixture_control_check.py seed-000-b
# make seed-pairs (outside CI: kernel builds and ten boots): the posts' pairs
# at the seeds' ci scale, each from linux-source-6.12 and its patch
# (docs/run.md, "The posts' patches").  Seed 000's pair leaves out its 1M
# chunk section: under icount one run of it went past 11 minutes on side A.
# Seed 004's runs where its zap is contended: the legacy MMU over nested
# paging, full preemption (configs/kernel/preempt.config), 2 CPUs, in real
# time (under icount with 2 CPUs its section did not end in ab's 20-minute
# limit), 6 runs a side, since real-time figures spread; its A is the
# post's "no-batch" side (the patch), its B 6.12's batched zap, the post's code.
.PHONY: seed-pairs
seed-pairs:
	$(Q)$(MAKE) --no-print-directory ARCH=x86_64 CC=gcc SANITIZE= OUTPUT=$(SRC)/build/x86_64 all
	$(Q)$(MAKE) --no-print-directory ARCH=arm64 CC=$(EMU_CC_arm64) SANITIZE= OUTPUT=$(SRC)/build/arm64 all
	$(Q)$(MAKE) --no-print-directory ARCH=powerpc CC=$(EMU_CC_ppc64) SANITIZE= OUTPUT=$(SRC)/build/powerpc all
	$(Q)$(SRC)/run.sh ab --arch arm64 --smp 2 --kernel linux-source-6.12 \
		--patch-a $(SRC)/patches/seed-000-base.patch --patch $(SRC)/patches/seed-000-base.patch \
		--patch $(SRC)/patches/seed-000-clear-dirty-log-read-lock.patch -g seed-000 \
		-t dlp-seed000-arm64-nosplit-chunk-whole -t dlp-seed000-arm64-nosplit-chunk-16M \
		-t dlp-seed000-arm64-chunk-whole -t dlp-seed000-arm64-chunk-16M
	$(Q)$(SRC)/run.sh ab --arch powerpc --smp 2 --kernel linux-source-6.12 \
		--patch $(SRC)/patches/seed-001-tlbie-lock.patch -g seed-001
	$(Q)$(SRC)/run.sh ab --kernel linux-source-6.12 \
		--patch $(SRC)/patches/seed-002-mem-fault-nowait.patch -g seed-002
	$(Q)$(SRC)/run.sh ab --kernel linux-source-6.12 \
		--patch-a $(SRC)/patches/seed-003-non-atomic-dirty-clear.patch -g seed-003
	$(Q)$(SRC)/run.sh ab --kernel linux-source-6.12 --mmu legacy-npt --smp 2 --real-time --repeat 6 \
		--config $(SRC)/configs/kernel/preempt.config \
		--patch-a $(SRC)/patches/seed-004-no-batch-zap.patch -g seed-004
# An x86 fixture's proof: the hosts of configs/emu-SEED.hosts, then its
# negative control (tests/fixture_control_check.py SEED).
define x86_fixture_check
	$(Q)$(MAKE) --no-print-directory ARCH=x86_64 CC=gcc SANITIZE= OUTPUT=$(SRC)/build/x86_64 all
	$(Q)$(SRC)/scripts/emu/check-hosts.sh x86_64 $(SRC)/build/x86_64/bin \
		$(SRC)/configs/emu-$(1).hosts $(EMU_TIMEOUT)
	$(Q)$(SRC)/tests/fixture_control_check.py $(1)
endef
# make check-seed-002 (outside CI: three kernel builds and seven boots): the
# proof of patches/seed-002-mem-fault-nowait.patch, configs/emu-seed-002.list
# on linux-source-6.12 built with it, with nested paging on and off, plain
# and debug (lockdep, KASAN, UBSAN) builds; then its negative control (tests/fixture_control_check.py).
.PHONY: check-seed-002
check-seed-002:
	$(call x86_fixture_check,seed-002)
# make check-seed-003 (outside CI: five kernel builds and five boots): the
# proof of patches/seed-003-non-atomic-dirty-clear.patch on linux-source-6.12
# built with it ("before", configs/emu-seed-003-whole.list) and without it
# ("after", emu-seed-003-atomic.list), plain and debug (lockdep, KASAN, UBSAN) builds, on the TDP
# MMU; then its negative control (tests/fixture_control_check.py).
.PHONY: check-seed-003
check-seed-003:
	$(call x86_fixture_check,seed-003)
# make check-seed-004 (outside CI: five kernel builds and five boots): the
# proof of patches/seed-004-no-batch-zap.patch, on linux-source-6.12 built
# with full preemption, with it (A, "no-batch") and without it (B, the
# post's batched code), plain and debug (lockdep, KASAN, UBSAN) builds, on the legacy MMU over
# nested paging: the pages zapped before the first lock-break offer are 0
# on A and 6.12's batch, 10, on B; then its negative control
# (tests/fixture_control_check.py).
.PHONY: check-seed-004
check-seed-004:
	$(call x86_fixture_check,seed-004)
# make check-ab: run.sh ab's repeatability, tests/ab_repeat_check.py: one
# kernel (make check-x86's 6.12, or KMP_AB_KERNEL) booted twice as an emulated
# x86_64 host under icount with one vCPU; timings must agree within 1%, counts
# exactly.  Then arm64 the same way, and POWER (no icount) on counts alone.
# Then run.sh's host choice, tests/host_choice_check.sh: without KVM a run
# goes to the emulated x86_64 host and comes back as an ordinary folder.
.PHONY: check-ab
check-ab:
	$(Q)$(MAKE) --no-print-directory ARCH=x86_64 CC=gcc SANITIZE= OUTPUT=$(SRC)/build/x86_64 all
	$(Q)$(MAKE) --no-print-directory ARCH=arm64 CC=$(EMU_CC_arm64) SANITIZE= \
		OUTPUT=$(SRC)/build/arm64 all
	$(Q)$(MAKE) --no-print-directory ARCH=powerpc CC=$(EMU_CC_ppc64) SANITIZE= \
		OUTPUT=$(SRC)/build/powerpc all
	$(Q)$(SRC)/tests/ab_repeat_check.py
	$(Q)$(SRC)/tests/host_choice_check.sh
# make check-ab-source: run.sh ab from kernel source, tests/ab_source_check.py:
# seed 004's pair (linux-source-6.12 and its patch) built, booted on the legacy
# MMU, run twice (the second builds nothing), and the bad builds.
.PHONY: check-ab-source
check-ab-source:
	$(Q)$(MAKE) --no-print-directory ARCH=x86_64 CC=gcc SANITIZE= OUTPUT=$(SRC)/build/x86_64 all
	$(Q)$(SRC)/tests/ab_source_check.py
# make check-lava: the suite as a LAVA test (lava/), under Debian's
# lava-dispatcher, offline: the emulated x86_64 host's job, a deliberately
# failing one and the arm64 host's through lava-run, LAVA's results checked
# (tests/lava_check.py).
.PHONY: check-lava
check-lava:
	$(Q)$(MAKE) --no-print-directory ARCH=x86_64 CC=gcc SANITIZE= OUTPUT=$(SRC)/build/x86_64 all
	$(Q)$(MAKE) --no-print-directory ARCH=arm64 CC=$(EMU_CC_arm64) SANITIZE= OUTPUT=$(SRC)/build/arm64 all
	$(Q)$(SRC)/tests/lava_check.py
# make check-ab-source-cross (outside CI: two cold cross builds of a kernel):
# linux-source-6.12 built for arm64 and powerpc, each booted as its host.
.PHONY: check-ab-source-cross
check-ab-source-cross:
	$(Q)$(MAKE) --no-print-directory ARCH=arm64 CC=$(EMU_CC_arm64) SANITIZE= \
		OUTPUT=$(SRC)/build/arm64 all
	$(Q)$(MAKE) --no-print-directory ARCH=powerpc CC=$(EMU_CC_ppc64) SANITIZE= \
		OUTPUT=$(SRC)/build/powerpc all
	$(Q)$(SRC)/tests/ab_source_check.py --cross
EMU_ARCH_x86 := x86_64
EMU_ARCH_arm64 := arm64
EMU_ARCH_ppc64 := powerpc
# x86 shares make check's gcc build (same flags, no rebuild); the others cross-build.
EMU_CC_x86 := gcc
EMU_CC_arm64 := $(TRIPLET_arm64)-gcc
EMU_CC_ppc64 := $(TRIPLET_powerpc)-gcc

# ---- fuzz (libFuzzer) --------------------------------------------------------
# make fuzz [FUZZ_SECONDS=60] [FUZZ_TARGETS="fuzz_config ..."]: build
# tests/fuzz/fuzz_*.c with clang -fsanitize=fuzzer,address,undefined (host code
# only: lib/parse.c and lib/assert.c rebuilt with the same flags), replay
# tests/fuzz/regressions/<target>/, then fuzz each target for FUZZ_SECONDS on a
# temporary copy of tests/fuzz/corpus/<target>/ (the tree never grows).
# Findings land in $(OUTPUT)/fuzz/artifacts/<target>/, logs in .../logs/.
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_DIR := $(OUTPUT)/fuzz
FUZZ_ALL := $(patsubst $(SRC)/tests/fuzz/%.c,%,$(wildcard $(SRC)/tests/fuzz/fuzz_*.c))
FUZZ_TARGETS ?= $(FUZZ_ALL)
FUZZ_BINS := $(addprefix $(FUZZ_DIR)/bin/,$(FUZZ_ALL))
FUZZ_OBJS := $(patsubst %,$(FUZZ_DIR)/obj/tests/fuzz/%.o,$(FUZZ_ALL))
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_WARN := -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare $(if $(filter 1,$(WERROR)),-Werror)
FUZZ_CFLAGS := -std=gnu11 -O1 -g -fno-omit-frame-pointer $(FUZZ_WARN) $(FUZZ_SAN)
FUZZ_LIB_OBJS := $(FUZZ_DIR)/obj/lib/parse.o $(FUZZ_DIR)/obj/lib/assert.o \
	$(FUZZ_DIR)/obj/tests/fuzz/spawn.o $(FUZZ_DIR)/obj/tests/fuzz/json_mutate.o
FUZZ_FLAGS_NOW := $(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS)

.PHONY: fuzz fuzz-build fuzz-force
.SECONDARY: $(FUZZ_OBJS)
fuzz-force:
$(FUZZ_DIR)/.flags: fuzz-force
	$(Q)mkdir -p $(@D)
	$(Q)echo '$(FUZZ_FLAGS_NOW)' | cmp -s - $@ || echo '$(FUZZ_FLAGS_NOW)' > $@

$(FUZZ_DIR)/.cc-ok:
	$(Q)$(SRC)/tests/fuzz/run-fuzz.sh check-cc $(FUZZ_CC)
	$(Q)mkdir -p $(@D) && touch $@

# Library and helper objects: instrumented, no libFuzzer main.
$(FUZZ_DIR)/obj/%.o: $(SRC)/%.c $(FUZZ_DIR)/.flags | $(FUZZ_DIR)/.cc-ok $(KSFT_INC)/kselftest_harness.h
	$(call msg,FUZZCC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

$(FUZZ_DIR)/bin/%: $(FUZZ_DIR)/obj/tests/fuzz/%.o $(FUZZ_DIR)/libfuzzkmp.a
	$(call msg,FUZZLD,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer $^ -o $@

$(FUZZ_DIR)/libfuzzkmp.a: $(FUZZ_LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

fuzz-build: $(FUZZ_BINS)
fuzz: fuzz-build
	$(Q)$(SRC)/tests/fuzz/run-fuzz.sh run $(FUZZ_DIR) $(SRC)/tests/fuzz "$(FUZZ_SECONDS)" $(FUZZ_TARGETS)

-include $(wildcard $(FUZZ_DIR)/obj/*/*.d $(FUZZ_DIR)/obj/*/*/*.d)

# ---- bench (make bench) ------------------------------------------------------
# make bench: whether the suite measures the kernel or itself (harness overhead
# per timed phase, fidelity against selfbench/'s bare tools, noise, memory,
# start-up, compare's statistics on 1000+1000 runs, scale), in under 10
# minutes here; prints a table and exits 1 when a figure is over budget; changes no tracked file (make bench-record writes
# selfbench/results.json and appends to docs/perf.md) (selfbench/bench.py, docs/perf.md).
# Tools: selfbench/NAME.c -> $(OUTPUT)/selfbench/NAME, with selfbench/fid.c, the guest code
# selfbench/bench_guest.c and the library; fidelity_tlbie also links tlbie_bench's
# VM setup and guest.  BENCH_ARGS passes options to bench.py (e.g. --quick).
BENCH_OUT := $(OUTPUT)/selfbench
BENCH_TOOLS := fidelity_dirty_log fidelity_paging fidelity_zap fidelity_tlbie startup bigvm
BENCH_TOOL_BINS := $(addprefix $(BENCH_OUT)/,$(BENCH_TOOLS))
BENCH_COMMON_OBJS := $(OUTPUT)/obj/selfbench/fid.c.o $(OUTPUT)/obj/selfbench/bench_guest.c.o
BENCH_TLBIE_OBJS := $(patsubst $(SRC)/%,$(OUTPUT)/obj/%.o,$(SRC)/tlbie_bench/setup.c \
	$(wildcard $(SRC)/tlbie_bench/$(ARCH)/*.c))
BENCH_ARGS ?=
.SECONDARY: $(BENCH_COMMON_OBJS) $(patsubst %,$(OUTPUT)/obj/selfbench/%.c.o,$(BENCH_TOOLS))

$(BENCH_OUT)/fidelity_tlbie: $(BENCH_TLBIE_OBJS)
# The library last: fidelity_tlbie's extra objects need it too.
$(BENCH_OUT)/%: $(OUTPUT)/obj/selfbench/%.c.o $(BENCH_COMMON_OBJS) $(LIBKMP)
	$(call msg,LD,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(LDFLAGS) $(filter-out $(LIBKMP),$^) $(LIBKMP) $(LDLIBS) -o $@

.PHONY: bench bench-build bench-record
bench-build: $(BENCH_TOOL_BINS) $(BENCH_BINS)
bench: bench-build
	$(Q)/usr/bin/python3 $(SRC)/selfbench/bench.py --bin $(OUTPUT)/bin --tools $(BENCH_OUT) \
		--src $(SRC) $(BENCH_ARGS)
# The same, recorded: selfbench/results.json and a dated docs/perf.md entry.
bench-record: bench-build
	$(Q)/usr/bin/python3 $(SRC)/selfbench/bench.py --bin $(OUTPUT)/bin --tools $(BENCH_OUT) \
		--src $(SRC) --record $(BENCH_ARGS)
# ---- end of bench ------------------------------------------------------------

# ---- lint ----------------------------------------------------------------------
# make lint: cppcheck over the host and guest C of lib/, the benchmarks, tools/
# and tests/fuzz/ (findings justified in .cppcheck-suppressions), and
# shellcheck over every shell script.  cppcheck and shellcheck come from apt.
LINT_CPPCHECK_DEF_x86_64 := -D__x86_64__
LINT_CPPCHECK_DEF_arm64 := -D__aarch64__
LINT_CPPCHECK_DEF_powerpc := -D__powerpc64__
LINT_C := $(patsubst $(SRC)/%,%,$(wildcard $(SRC)/lib/*.c $(SRC)/lib/$(ARCH)/*.c \
	$(foreach b,$(BENCHES),$(SRC)/$(b)/*.c $(SRC)/$(b)/$(ARCH)/*.c) \
	$(SRC)/tools/*.c $(SRC)/tests/fuzz/*.c))
LINT_SH := $(patsubst $(SRC)/%,%,$(SRC)/run.sh $(SRC)/.ci/run $(wildcard $(SRC)/scripts/*.sh $(SRC)/scripts/emu/*.sh \
	$(SRC)/tests/*.sh $(SRC)/tests/fuzz/*.sh $(SRC)/lava/*.sh))
CPPCHECK_FLAGS := -q --enable=warning,performance,portability --platform=unix64 \
	--inline-suppr --suppressions-list=.cppcheck-suppressions --error-exitcode=1 \
	-I include -I include/$(ARCH) $(LINT_CPPCHECK_DEF_$(ARCH)) -D_GNU_SOURCE '-DKMP_SRC_DIR="$(SRC)"'

.PHONY: lint
lint:
	$(Q)missing=; for t in cppcheck shellcheck; do command -v $$t >/dev/null || missing="$$missing $$t"; done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			echo "  DEPS    apt-get install$$missing"; \
			DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing || exit 1; \
		else \
			echo "make lint needs:$$missing; install with: sudo apt-get install -y$$missing" >&2; exit 1; \
		fi; \
	fi
	$(call msg,CPPCHECK,$(words $(LINT_C)) files)
	$(Q)cd $(SRC) && cppcheck $(CPPCHECK_FLAGS) $(LINT_C)
	$(call msg,SHCHECK,$(LINT_SH))
	$(Q)cd $(SRC) && shellcheck $(LINT_SH)
