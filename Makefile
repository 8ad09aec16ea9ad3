# SPDX-License-Identifier: GPL-2.0
# ktrace: top-level build.  `make` builds what this machine can build;
# `make check` runs every test suite; `make bench` runs the benchmarks.

O		?= build
CC		?= gcc
CLANG		?= clang
PREFIX		?= /usr/local
WERROR		?= $(if $(CI),1,0)

CFLAGS		?= -O2 -g
# The CLI's layers (README, "Source layout"): headers are included by their
# folder ("fxt/fxt_reader.h"), from user/ only.
USER_INCS	:= -Iuser
KTRACE_CFLAGS	:= $(CPPFLAGS) $(CFLAGS) -std=gnu11 -Wall -Wextra -Wno-missing-field-initializers \
		   -Wshadow -Wformat=2 -D_GNU_SOURCE -Iinclude/uapi $(USER_INCS) \
		   $(if $(filter 1,$(WERROR)),-Werror)

BPFTOOL		?= bpftool
# The BPF recorder is CO-RE: vmlinux.h only needs some kernel's BTF.
VMLINUX_BTF	?= /sys/kernel/btf/vmlinux
BPF_ARCH	:= x86
# Where scripts/install-deps.sh --test puts the kernels of other suites and
# architectures (scripts/kernel-paths.sh).
KTRACE_CACHE	?= /var/cache/ktrace
export KTRACE_CACHE

# CROSS=arm64 builds the CLI, the BPF programs and the test programs for
# arm64 (the VM suite's arm64 kernel), into their own O=: with the cross
# compiler and arm64's libraries (the :arm64 packages), and vmlinux.h from
# the BTF in the arm64 kernel image scripts/install-deps.sh --test unpacked.
CROSS		?=
ifeq ($(CROSS),arm64)
CC		:= aarch64-linux-gnu-gcc
PKG_CONFIG_LIBDIR := /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig
export PKG_CONFIG_LIBDIR
BPF_ARCH	:= arm64
VMLINUX_BTF	:= $(O)/vmlinux.btf
ARM64_IMAGE	:= $(lastword $(sort $(wildcard $(KTRACE_CACHE)/arm64/boot/vmlinuz-*)))
else ifneq ($(CROSS),)
$(error CROSS=$(CROSS): only CROSS=arm64 is known)
endif

USER_LIB_SRCS	:= user/lib/utils.c user/lib/u64map.c user/lib/topn.c user/cli/cli.c user/cli/cli_output.c \
		   user/fxt/fxt_reader.c user/fxt/fxt_writer.c user/fxt/fxt_compact.c \
		   user/fxt/irq_names.c \
		   user/trace/kstack_names.c user/trace/timeline.c user/trace/json_writer.c user/trace/sched.c \
		   user/trace/cpu_mask.c \
		   user/analyze/latency.c user/analyze/latency_run.c user/analyze/trace_index.c user/analyze/latency_format.c user/analyze/latency_report.c user/analyze/timer_latency.c \
		   user/analyze/annotate.c user/analyze/critical_path.c \
		   user/analyze/timeline_check.c user/analyze/causes.c user/analyze/throttling.c
USER_CMD_SRCS	:= user/ktrace.c user/cmd_dump.c user/cmd_convert.c user/cmd_record.c \
		   user/cmd_merge.c user/cmd_mark.c user/cmd_latency.c user/cmd_watch.c user/cmd_spikes.c \
		   user/record/spool.c user/record/names.c user/record/statedump.c user/record/source_bpf.c \
		   user/record/source_kmod.c user/record/source_ftrace.c user/record/ftrace_convert.c \
		   user/record/ftrace_text.c user/record/clock_sync.c user/record/archive.c \
		   user/record/bpf_exact.c user/record/buffer_size.c user/record/source_thread.c \
		   user/record/drain_stats.c user/record/cgroup_limits.c user/record/throttle_layout.c \
		   user/record/cgroup_paths.c user/record/preemption.c user/record/session.c \
		   user/record/kstacks.c
USER_HDRS	:= $(wildcard user/*.h user/*/*.h include/uapi/linux/*.h bpf/*.h)
USER_LIBS	:= -pthread -lbpf -lelf -lz $(shell pkg-config --libs libtracefs libtraceevent 2>/dev/null || echo -ltracefs -ltraceevent)
TRACEFS_CFLAGS	:= $(shell pkg-config --cflags libtracefs libtraceevent 2>/dev/null)

# The kernel ktrace.ko is built for, as every out-of-tree module picks it:
# KDIR when given, else the running kernel's build tree, else Debian's
# newest generic headers (scripts/pick-kernel.sh).  Each kernel gets its own
# copy of the sources under $(O)/kmod/KREL, so builds for several kernels
# sit side by side.
#
# Kernels of other suites and architectures are where scripts/install-deps.sh
# --test puts them (scripts/kernel-paths.sh): the Debian unstable chroot's
# newest kernel is built in the chroot, whose compiler and C library are
# newer than this system's; arm64 kernels are cross-compiled.
ifeq ($(origin KDIR),undefined)
KREL		?= $(shell scripts/pick-kernel.sh)
KDIR		:= $(patsubst %/Makefile,%,$(firstword $(wildcard /lib/modules/$(KREL)/build/Makefile \
		   $(KTRACE_CACHE)/sid/usr/src/linux-headers-$(KREL)/Makefile \
		   $(KTRACE_CACHE)/arm64/usr/src/linux-headers-$(KREL)/Makefile) \
		   /usr/src/linux-headers-$(KREL)/Makefile))
else
# The release the kernel reports (uname -r), which Debian's include/config/kernel.release is not.
KREL		?= $(shell sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h 2>/dev/null)
endif
export KREL
HAVE_KDIR	:= $(if $(KREL),$(wildcard $(KDIR)/Makefile))
KOBJ		:= $(O)/kmod/$(KREL)
# Kbuild for KDIR: in the chroot KDIR lies in (with the build directory
# mounted at the same path; a make of its own, which this make's flags do
# not reach: Linux 7.2's Kbuild takes an empty O= as a directory), or with
# the cross compiler for arm64.
KCHROOT		:= $(if $(filter $(KTRACE_CACHE)/sid/%,$(KDIR)),$(KTRACE_CACHE)/sid)
KBUILD		= $(if $(KCHROOT),MAKEFLAGS= scripts/run-in-chroot.sh $(KCHROOT) $(abspath $(O)) make \
		  -C $(patsubst $(KCHROOT)/%,/%,$(KDIR)),$(MAKE) -C $(KDIR) O=) \
		  $(if $(filter %-arm64,$(KREL)),ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
KMOD		:= $(KOBJ)/kmod/ktrace.ko
KMOD_TEST	:= $(KOBJ)/tests/kmod-api/ktrace_api_test.ko
KMOD_SRCS	:= $(wildcard kmod/*.c kmod/*.h kmod/compat/*.h) kmod/Kbuild \
		   include/uapi/linux/ktrace.h include/uapi/linux/ktrace_fxt.h
KMOD_TEST_SRCS	:= tests/kmod-api/ktrace_api_test.c tests/kmod-api/Kbuild
KSELFTEST_DIR	:= $(O)/linux-source/tools/testing/selftests
SELFTEST	:= $(O)/selftests/ktrace_test

BPF_OBJ		:= $(O)/bpf/sched.bpf.o
BPF_SKEL	:= $(O)/bpf/sched.skel.h
# The same recorder, with interrupt wakers read from the preempt count.
BPF_EXACT_OBJ	:= $(O)/bpf/sched_exact.bpf.o
BPF_EXACT_SKEL	:= $(O)/bpf/sched_exact.skel.h

USER_LIB_OBJS	:= $(USER_LIB_SRCS:%.c=$(O)/%.o)
USER_CMD_OBJS	:= $(USER_CMD_SRCS:%.c=$(O)/%.o)

KTRACE		:= $(O)/ktrace
TEST_FXT	:= $(O)/tests/test_fxt
TEST_TABLES	:= $(O)/tests/test_tables
GEN_TRACE	:= $(O)/tests/gen_trace
FUZZ_READER	:= $(O)/tests/fuzz_reader
KNOWN_WORKLOAD	:= $(O)/tests/known_workload
CHECK_TRACE	:= $(O)/tests/check_trace
LAT_WORKLOAD	:= $(O)/tests/latency_workload
CHAIN_WORKLOAD	:= $(O)/tests/chain_workload
FUZZ_KMOD	:= $(O)/tests/fuzz_kmod
FIFO_HOG_WORKLOAD := $(O)/tests/fifo_hog_workload
CHURN_WORKLOAD	:= $(O)/tests/churn_workload
PLACEMENT_WORKLOAD := $(O)/tests/placement_workload
PREEMPT_WORKLOAD := $(O)/tests/preempt_workload
SPIKE_WORKLOAD	:= $(O)/tests/spike_workload
COMPACT_FXT	:= $(O)/tests/compact_fxt
TEST_PROGS	:= $(TEST_FXT) $(TEST_TABLES) $(GEN_TRACE) $(KNOWN_WORKLOAD) $(CHECK_TRACE) $(LAT_WORKLOAD) $(CHAIN_WORKLOAD) \
		   $(FIFO_HOG_WORKLOAD) $(CHURN_WORKLOAD) $(PLACEMENT_WORKLOAD) $(PREEMPT_WORKLOAD) $(SPIKE_WORKLOAD) $(COMPACT_FXT)

.PHONY: all user bpf kmod kmod-kdir selftests check check-fuzz fuzz vm-check checkpatch bench install uninstall \
	install-cli uninstall-cli install-dkms-src man deb dkms-install dkms-uninstall clean fuzz-kmod fuzz-kmod-check bench-soak vm-watch-soak

# The CLI always; the module when there are headers for the chosen kernel.
# A module that does not build for it is reported, not fatal: the CLI
# records with BPF.  `make kmod` fails instead.
all: user
ifneq ($(HAVE_KDIR),)
	@$(MAKE) --no-print-directory kmod && echo "ktrace: ktrace.ko for Linux $(KREL): $(KMOD)" || \
	{ echo "ktrace: ktrace.ko does not build for Linux $(KREL) ($(KDIR)); the CLI is built." \
	"Build for another kernel with 'make KDIR=/lib/modules/RELEASE/build' or 'make KREL=RELEASE';" \
	"headers here: $$(ls -d /usr/src/linux-headers-* 2>/dev/null | sed 's|.*/linux-headers-||' | grep -v common | tr '\n' ' ')" >&2; }
else
	@echo "ktrace: the CLI is built, ktrace.ko is not:" \
	$(if $(filter command line environment,$(origin KDIR)),"no kernel build tree at '$(KDIR)'.", \
	"no kernel headers for Linux $$(uname -r) (install linux-headers-$$(uname -r)), or pass KDIR=/path/to/build.")
endif

kmod: $(KMOD) $(KMOD_TEST)

# The kernel's own check, before Kbuild's less helpful errors.
kmod-kdir:
	@[ -f "$(KDIR)/Makefile" ] || { echo "ktrace: no kernel build tree at '$(KDIR)' (Linux $(or $(KREL),unknown));" \
		"install its headers or pass KDIR=/lib/modules/RELEASE/build" >&2; exit 1; }

# O= on the command line reaches every sub-make, where Kbuild would take it
# as the kernel's output directory: Kbuild gets O= cleared.
$(KMOD): $(KMOD_SRCS) | kmod-kdir
	@mkdir -p $(KOBJ) && tar -cf - $(KMOD_SRCS) | tar -xpf - -C $(KOBJ)
	$(KBUILD) M=$(abspath $(KOBJ))/kmod W=1 \
		$(if $(filter 1,$(WERROR)),KCFLAGS=-Werror) modules

$(KMOD_TEST): $(KMOD_TEST_SRCS) $(KMOD)
	@tar -cf - $(KMOD_TEST_SRCS) | tar -xpf - -C $(KOBJ)
	$(KBUILD) M=$(abspath $(KOBJ))/tests/kmod-api W=1 \
		KBUILD_EXTRA_SYMBOLS=$(abspath $(KOBJ))/kmod/Module.symvers \
		$(if $(filter 1,$(WERROR)),KCFLAGS=-Werror) modules

checkpatch:
	@scripts/checkpatch.sh

$(KSELFTEST_DIR)/kselftest_harness.h:
	@scripts/extract-kernel-files.sh $(O)/linux-source

selftests: $(SELFTEST)

# kselftest_harness.h is taken from the kernel source at build time.
$(SELFTEST): selftests/ktrace/ktrace_test.c $(KSELFTEST_DIR)/kselftest_harness.h $(USER_HDRS)
	@mkdir -p $(dir $@) $(KSELFTEST_DIR)/ktrace
	$(CC) -O2 -g -Wall $(if $(filter 1,$(WERROR)),-Werror) -Iinclude/uapi \
		-I$(KSELFTEST_DIR)/ktrace -o $@ $< -lpthread

user: $(KTRACE)

bpf: $(BPF_SKEL)

$(O)/vmlinux.h: $(filter $(O)/%,$(VMLINUX_BTF))
	@mkdir -p $(dir $@)
	$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@.tmp && mv $@.tmp $@

ifeq ($(CROSS),arm64)
$(VMLINUX_BTF): $(ARM64_IMAGE) scripts/extract-btf.py
	@mkdir -p $(dir $@)
	scripts/extract-btf.py $< $@
endif

$(BPF_OBJ): bpf/sched.bpf.c bpf/sched.bpf.h include/uapi/linux/ktrace_fxt.h $(O)/vmlinux.h
	@mkdir -p $(dir $@)
	$(CLANG) -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(BPF_ARCH) -Wall -I$(O) -Iinclude/uapi -Ibpf \
		$(BPF_DEFS) $(if $(filter 1,$(WERROR)),-Werror) -c -o $@ $<

$(BPF_EXACT_OBJ): bpf/sched.bpf.c bpf/sched.bpf.h include/uapi/linux/ktrace_fxt.h $(O)/vmlinux.h
	@mkdir -p $(dir $@)
	$(CLANG) -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(BPF_ARCH) -DKTRACE_EXACT_IRQ_CONTEXT -Wall \
		-I$(O) -Iinclude/uapi -Ibpf $(BPF_DEFS) $(if $(filter 1,$(WERROR)),-Werror) -c -o $@ $<

# Both skeletons are named sched_bpf: the exact one only lends its ELF bytes.
$(BPF_SKEL): $(BPF_OBJ)
	$(BPFTOOL) gen skeleton $< name sched_bpf > $@.tmp && mv $@.tmp $@

$(BPF_EXACT_SKEL): $(BPF_EXACT_OBJ)
	$(BPFTOOL) gen skeleton $< name sched_bpf > $@.tmp && mv $@.tmp $@

$(O)/user/record/bpf_exact.o: user/record/bpf_exact.c $(BPF_EXACT_SKEL) $(USER_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(KTRACE_CFLAGS) -I$(O)/bpf -Ibpf -c -o $@ $<

# Manual pages, written in scdoc (man/NAME.SECTION.scd), made at build time.
SCDOC		?= scdoc
MANDIR		?= $(PREFIX)/share/man
BASH_COMPLETION_DIR ?= $(PREFIX)/share/bash-completion/completions
MAN_NAMES	:= $(patsubst man/%.scd,%,$(wildcard man/*.scd))
MAN_PAGES	:= $(addprefix $(O)/man/,$(MAN_NAMES))

man: $(MAN_PAGES)

$(O)/man/%: man/%.scd
	@mkdir -p $(dir $@)
	@command -v $(SCDOC) >/dev/null || { echo "ktrace: scdoc makes the manual pages (apt-get install scdoc)" >&2; exit 1; }
	$(SCDOC) <$< >$@.tmp && mv $@.tmp $@

# The release is VERSION's, and the DKMS package's version; the CLI adds the
# commit it was built from when built in a git tree.
RELEASE		:= $(shell cat VERSION)
GIT_REV		:= $(shell git describe --always --dirty --exclude='*' 2>/dev/null)
KTRACE_VERSION	?= $(RELEASE)$(if $(GIT_REV),+g$(GIT_REV))

$(O)/user/ktrace.o: user/ktrace.c VERSION $(USER_HDRS) $(wildcard .git/HEAD .git/index)
	@mkdir -p $(dir $@)
	$(CC) $(KTRACE_CFLAGS) -DKTRACE_VERSION='"$(KTRACE_VERSION)"' -c -o $@ $<

$(O)/user/record/source_ftrace.o: user/record/source_ftrace.c $(USER_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(KTRACE_CFLAGS) $(TRACEFS_CFLAGS) -c -o $@ $<

$(O)/user/record/source_bpf.o: user/record/source_bpf.c $(BPF_SKEL) $(USER_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(KTRACE_CFLAGS) -I$(O)/bpf -Ibpf -c -o $@ $<

$(O)/%.o: %.c $(USER_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(KTRACE_CFLAGS) -c -o $@ $<

$(KTRACE): $(USER_CMD_OBJS) $(USER_LIB_OBJS)
	$(CC) $(KTRACE_CFLAGS) $(LDFLAGS) -o $@ $^ $(USER_LIBS)

$(O)/tests/%: tests/%.c tests/lib/tap.h tests/lib/asleep.h tests/lib/workload.h $(USER_LIB_OBJS) $(USER_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(KTRACE_CFLAGS) -Itests -o $@ $< $(USER_LIB_OBJS) -lpthread

# libFuzzer with ASan and UBSan needs clang; the reader is built into it.
$(FUZZ_READER): tests/fuzz_reader.c $(USER_LIB_SRCS) $(USER_HDRS)
	@mkdir -p $(dir $@)
	$(CLANG) -g -O1 -std=gnu11 -D_GNU_SOURCE -Iinclude/uapi $(USER_INCS) \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		-o $@ tests/fuzz_reader.c $(USER_LIB_SRCS)

# The analyses fuzzed with generated, valid but unusual traces: the commands
# that read traces run in the fuzzer's process.  The input is a program,
# not a trace: libFuzzer's comparison tracing (trace-cmp) guides it in the
# program's reader only; in the analyses, which compare what the program
# generated, it took a third of the time and guided nothing.
FUZZ_ANALYSES	:= $(O)/tests/fuzz_analyses
FUZZ_ANALYSES_SRCS := user/cmd_latency.c user/cmd_dump.c user/cmd_convert.c
FUZZ_ANALYSES_CFLAGS := -g -O1 -std=gnu11 -D_GNU_SOURCE -Iinclude/uapi $(USER_INCS) \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
# The JSON checker is the harness, not what it checks: sanitized, not
# instrumented for coverage (it took a sixth of the time with it).
$(FUZZ_ANALYSES): tests/fuzz_analyses.c tests/lib/json_valid.c tests/lib/json_valid.h \
		$(FUZZ_ANALYSES_SRCS) $(USER_LIB_SRCS) $(USER_HDRS)
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_ANALYSES_CFLAGS) -c -o $@.o tests/fuzz_analyses.c
	$(CLANG) -g -O2 -std=gnu11 -fsanitize=address,undefined -fno-sanitize-recover=undefined \
		-c -o $@-json.o tests/lib/json_valid.c
	$(CLANG) $(FUZZ_ANALYSES_CFLAGS) -fno-sanitize-coverage=trace-cmp \
		-o $@ $@.o $@-json.o $(FUZZ_ANALYSES_SRCS) $(USER_LIB_SRCS)

# The whole suite; the unit tests for the formats come first, no root needed.
HAVE_CLANG	:= $(shell command -v $(CLANG) 2>/dev/null)

# The VM suite runs once per kernel in VM_KERNELS, each with ktrace.ko
# built for it: by default the newest of each series and flavour that
# scripts/install-deps.sh --test installed (scripts/pick-kernel.sh --matrix:
# 5.10 from bullseye, 6.1 and 6.12 from bookworm, unstable's newest in its
# chroot, each generic and PREEMPT_RT, and arm64's 6.1); a kernel in the
# list that is not installed (image and headers) is a SKIP.
VM_KERNELS	?= $(shell scripts/pick-kernel.sh --matrix)
vm_installed	= $(filter $(shell scripts/pick-kernel.sh --matrix),$(1))
VM_ALL_KERNELS	= $(VM_KERNELS)

.PHONY: vm-kmods vm-matrix
vm-kmods:
	@for k in $(VM_KMODS); do $(MAKE) --no-print-directory kmod KREL=$$k || exit 1; done

check: $(KTRACE) $(MAN_PAGES) $(TEST_PROGS) $(O)/bench/pingpong $(if $(HAVE_CLANG),$(FUZZ_READER) $(FUZZ_ANALYSES)) \
	$(if $(HAVE_KDIR),$(KMOD) $(KMOD_TEST) $(SELFTEST) $(FUZZ_KMOD))
	@$(MAKE) --no-print-directory vm-kmods $(call VM_ARCH_PROGS,$(call vm_installed,$(VM_KERNELS))) \
		VM_KMODS="$(call vm_installed,$(VM_KERNELS))"
	@VM_KERNELS="$(VM_KERNELS)" SUITES="$(SUITES)" scripts/run-tests.sh $(O)

# Every suite but the VM's: no kernel booted (SUITES="..." picks suites here too).
.PHONY: check-host
check-host: $(KTRACE) $(TEST_PROGS) $(O)/bench/pingpong $(if $(HAVE_CLANG),$(FUZZ_READER) $(FUZZ_ANALYSES))
	@NO_VM=1 SUITES="$(SUITES)" scripts/run-tests.sh $(O)

# What runs in the VM, for arm64 kernels built with CROSS=arm64 in $(O)/arm64.
VM_PROGS	:= $(KTRACE) $(TEST_PROGS) $(SELFTEST) $(FUZZ_KMOD) $(O)/bench/pingpong $(O)/bench/kmod_bench
.PHONY: vm-progs vm-progs-arm64
vm-progs: $(VM_PROGS)
vm-progs-arm64:
	@$(MAKE) --no-print-directory CROSS=arm64 O=$(O)/arm64 vm-progs
VM_ARCH_PROGS	= $(if $(filter %-arm64,$(1)),vm-progs-arm64)

# The module's tests in a VM booting Debian's kernel KREL (also part of check).
vm-check: $(VM_PROGS) $(KMOD) $(KMOD_TEST) $(call VM_ARCH_PROGS,$(KREL))
	@KREL=$(KREL) tests/suites/vm.sh $(O)

# The VM suite on every installed Debian kernel, one VM at a time: one table.
vm-matrix: $(VM_PROGS)
	@$(MAKE) --no-print-directory vm-kmods $(call VM_ARCH_PROGS,$(VM_ALL_KERNELS)) VM_KMODS="$(VM_ALL_KERNELS)"
	@scripts/vm-matrix.sh $(O) $(VM_ALL_KERNELS)

check-fuzz: $(FUZZ_READER) $(FUZZ_ANALYSES)
	@scripts/run-fuzz.sh $(O) 60
	@scripts/run-fuzz-analyses.sh $(O) --seconds 60

# The analyses' long run: FUZZ_TRACES generated traces (FUZZ_JOBS at a time).
FUZZ_TRACES	?= 10000000
fuzz: $(FUZZ_ANALYSES)
	@scripts/run-fuzz-analyses.sh $(O) --traces $(FUZZ_TRACES)

# The module's interface fuzzer; static, so the VM needs no libraries for it.
$(FUZZ_KMOD): tests/fuzz-kmod/fuzz_kmod.c include/uapi/linux/ktrace.h
	@mkdir -p $(dir $@)
	$(CC) $(KTRACE_CFLAGS) -static -pthread -o $@ $<

# ktrace.ko's ioctls, mmap, poll and marks fuzzed in a VM: a long run, and
# the bounded one (about 30 s).  FUZZ_KMOD_ARGS: more fuzz_kmod options.
FUZZ_KMOD_CALLS	?= 1000000
FUZZ_KMOD_SEED	?= 1
fuzz-kmod: $(KTRACE) $(FUZZ_KMOD) $(KMOD) $(O)/bench/pingpong $(TEST_PROGS) $(SELFTEST) $(call VM_ARCH_PROGS,$(KREL))
	@tests/fuzz-kmod/run-vm.sh $(O) $(KREL) --seed $(FUZZ_KMOD_SEED) --calls $(FUZZ_KMOD_CALLS) $(FUZZ_KMOD_ARGS)

fuzz-kmod-check: $(KTRACE) $(FUZZ_KMOD) $(KMOD) $(O)/bench/pingpong $(TEST_PROGS) $(SELFTEST) $(call VM_ARCH_PROGS,$(KREL))
	@tests/fuzz-kmod/run-vm.sh $(O) $(KREL) --seed $(FUZZ_KMOD_SEED) --seconds 30 $(FUZZ_KMOD_ARGS)

$(O)/bench/%: bench/%.c
	@mkdir -p $(dir $@)
	$(CC) $(KTRACE_CFLAGS) -o $@ $< -lpthread

# The floor under a BPF recorder (bench-sched.sh): two programs that do
# nothing, and two that only read the clock.
$(O)/bench/bpf_floor: bench/bpf_floor.c
	@mkdir -p $(dir $@)
	$(CC) $(KTRACE_CFLAGS) -o $@ $< -lbpf
BPF_FLOORS	:= $(O)/bench/floor.bpf.o $(O)/bench/floor_clock.bpf.o
$(BPF_FLOORS): bench/bpf_floor.bpf.c $(O)/vmlinux.h
	@mkdir -p $(dir $@)
	$(CLANG) -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(BPF_ARCH) -Wall -I$(O) \
		$(if $(findstring clock,$@),-DFLOOR_CLOCK) -c -o $@ $<

# bench-sched.sh's ktrace whose BPF recorder leaves out the affinity check
# on each switch-out and move (KTRACE_BENCH_NO_AFFINITY), to measure it.
NOAFF_KTRACE	:= $(O)/bench/noaffinity/ktrace
$(NOAFF_KTRACE): $(USER_CMD_SRCS) $(USER_LIB_SRCS) $(USER_HDRS) bpf/sched.bpf.c
	@$(MAKE) --no-print-directory O=$(O)/bench/noaffinity BPF_DEFS=-DKTRACE_BENCH_NO_AFFINITY=1 \
		$(O)/bench/noaffinity/ktrace

# Speed and memory, as ratios against ftrace and no tracing in the same run.
# The drain and merge of ktrace record, from synthetic per-CPU buffers.
DRAIN_MERGE	:= $(O)/bench/drain_merge
$(DRAIN_MERGE): bench/drain_merge.c $(USER_LIB_OBJS) $(O)/user/record/spool.o $(O)/user/record/buffer_size.o
	@mkdir -p $(dir $@)
	$(CC) $(KTRACE_CFLAGS) -o $@ $^

# The release bench-sched.sh compares this tree with, interleaved: the
# newest v* tag (BENCH_BASE=REV for another revision, BENCH_BASE= for none).
BENCH_BASE	?= $(shell git describe --tags --abbrev=0 --match 'v*' 2>/dev/null)

bench: $(KTRACE) $(GEN_TRACE) $(DRAIN_MERGE) $(LAT_WORKLOAD) $(O)/bench/pingpong \
	$(O)/bench/bpf_floor $(BPF_FLOORS) $(NOAFF_KTRACE) \
	$(if $(HAVE_KDIR),$(KMOD) $(SELFTEST) $(TEST_PROGS) $(O)/bench/kmod_bench)
	@bench/bench-convert.sh $(O)
	@echo "ktrace record's drain and merge, and the default buffers, by CPU count:" && $(DRAIN_MERGE)
	@BENCH_BASE="$(BENCH_BASE)" bench/bench-sched.sh $(O)
	@bench/bench-loaded.sh $(O)
	@bench/bench-ftrace.sh $(O)
	@bench/bench-latency.sh $(O)
	@bench/bench-timer.sh $(O)
	@bench/bench-irq.sh $(O)
	@bench/bench-exit.sh $(O)
	@bench/bench-watch.sh $(O)
	$(if $(HAVE_KDIR),@bench/bench-vm.sh $(O))
	$(if $(HAVE_KDIR),@bench/bench-soak.sh $(O))

# The soak alone: SOAK_SECONDS per mode (default 600).
bench-soak: $(KTRACE) $(KMOD) $(O)/bench/pingpong $(TEST_PROGS) $(SELFTEST)
	@bench/bench-soak.sh $(O)

# ktrace watch for ten minutes in a VM, each backend (KTRACE_SOAK_SECS, KTRACE_SOAK_BACKENDS).
vm-watch-soak: $(VM_PROGS) $(KMOD) $(KMOD_TEST) $(call VM_ARCH_PROGS,$(KREL))
	@KREL=$(KREL) tests/suites/watch-soak.sh $(O)

# The CLI, and ktrace.ko for the selected kernel through its own
# modules_install, then depmod, so that `modprobe ktrace` finds it.
# INSTALL_MOD_DIR=updates takes precedence over the kernel's own modules.
INSTALL_MOD_DIR	?= updates
MODDIR		= $(DESTDIR)/lib/modules/$(KREL)
DEPMOD		= depmod $(if $(DESTDIR),-b $(abspath $(DESTDIR))) $(KREL)
# Distribution headers do not carry the key their kernel was signed with, so
# with CONFIG_MODULE_SIG_ALL modules_install would only fail to sign: the
# module is installed unsigned then (DKMS signs with its own key).
SIG_KEY		= $(shell sed -n 's/^CONFIG_MODULE_SIG_KEY="\(.*\)"$$/\1/p' $(KDIR)/.config 2>/dev/null)
NO_SIG_KEY	= $(if $(shell grep -qsx 'CONFIG_MODULE_SIG_ALL=y' $(KDIR)/.config && echo y),$(if \
		  $(filter pkcs11:%,$(SIG_KEY))$(wildcard $(if $(filter /%,$(SIG_KEY)),,$(KDIR)/)$(SIG_KEY)),,y))

# The unit of ktrace watch, and its options (kept if already there).
SYSTEMD_UNIT_DIR ?= $(if $(filter /usr,$(PREFIX)),/lib/systemd/system,/etc/systemd/system)

# The CLI with its manual pages, bash completion and the watch's unit (all the ktrace package has).
install-cli: $(KTRACE) $(MAN_PAGES)
	install -D -m 0755 $(KTRACE) $(DESTDIR)$(PREFIX)/bin/ktrace
	install -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man4
	install -m 0644 $(filter %.1,$(MAN_PAGES)) $(DESTDIR)$(MANDIR)/man1
	install -m 0644 $(filter %.4,$(MAN_PAGES)) $(DESTDIR)$(MANDIR)/man4
	install -D -m 0644 completion/ktrace.bash $(DESTDIR)$(BASH_COMPLETION_DIR)/ktrace
	sed 's|exec ktrace |exec $(PREFIX)/bin/ktrace |' scripts/systemd/ktrace-watch.service | \
		install -D -m 0644 /dev/stdin $(DESTDIR)$(SYSTEMD_UNIT_DIR)/ktrace-watch.service
	[ -e $(DESTDIR)/etc/default/ktrace-watch ] || \
		install -D -m 0644 scripts/systemd/ktrace-watch.default $(DESTDIR)/etc/default/ktrace-watch

install: install-cli $(if $(HAVE_KDIR),$(KMOD))
ifneq ($(HAVE_KDIR),)
	$(MAKE) -C $(KDIR) O= M=$(abspath $(KOBJ))/kmod INSTALL_MOD_DIR=$(INSTALL_MOD_DIR) \
		$(if $(DESTDIR),INSTALL_MOD_PATH=$(abspath $(DESTDIR))) \
		$(if $(NO_SIG_KEY),CONFIG_MODULE_SIG_ALL=) modules_install
	$(DEPMOD)
	@echo "ktrace: installed ktrace.ko for Linux $(KREL) in $(MODDIR)/$(INSTALL_MOD_DIR)" \
		$(if $(NO_SIG_KEY),"(unsigned: $(KDIR) has no signing key; under Secure Boot use 'make dkms-install')")
else
	@echo "ktrace: no kernel headers for Linux $(or $(KREL),$$(uname -r)): installed the CLI, not ktrace.ko"
endif

uninstall-cli:
	rm -f $(DESTDIR)$(PREFIX)/bin/ktrace $(DESTDIR)$(BASH_COMPLETION_DIR)/ktrace \
		$(addprefix $(DESTDIR)$(MANDIR)/man1/,$(filter %.1,$(MAN_NAMES))) \
		$(addprefix $(DESTDIR)$(MANDIR)/man4/,$(filter %.4,$(MAN_NAMES))) \
		$(DESTDIR)$(SYSTEMD_UNIT_DIR)/ktrace-watch.service
	@# The watch's options: removed as installed, kept (and said) once edited.
	if cmp -s scripts/systemd/ktrace-watch.default $(DESTDIR)/etc/default/ktrace-watch; then \
		rm -f $(DESTDIR)/etc/default/ktrace-watch; \
	elif [ -e $(DESTDIR)/etc/default/ktrace-watch ]; then \
		echo "ktrace: kept $(DESTDIR)/etc/default/ktrace-watch: it was edited"; fi

uninstall: uninstall-cli
ifneq ($(KREL),)
	rm -f $(MODDIR)/$(INSTALL_MOD_DIR)/ktrace.ko $(MODDIR)/$(INSTALL_MOD_DIR)/ktrace.ko.*
	-@rmdir $(MODDIR)/$(INSTALL_MOD_DIR) 2>/dev/null
	[ ! -f $(MODDIR)/modules.dep ] || $(DEPMOD)
endif

# DKMS: the module's sources with dkms.conf in /usr/src/ktrace-RELEASE, built
# and installed for the selected kernel, and rebuilt by DKMS for every kernel
# installed later.  Installing a release again replaces it.
DKMS_SRC	:= /usr/src/ktrace-$(RELEASE)
# DKMS runs make itself: none of this make's flags and variables may reach it.
DKMS		:= env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL dkms
dkms		= echo "dkms $(1)" && $(DKMS) $(1)

# The module's sources where DKMS looks for them (DESTDIR: staged; the
# ktrace-dkms package installs dkms.conf itself).
install-dkms-src:
	rm -rf $(DESTDIR)$(DKMS_SRC)
	mkdir -p $(DESTDIR)$(DKMS_SRC)
	tar -cf - --owner=0 --group=0 $(KMOD_SRCS) | tar -xf - --no-same-owner -C $(DESTDIR)$(DKMS_SRC)

dkms-install: | kmod-kdir
	@command -v dkms >/dev/null || { echo "ktrace: dkms is not installed (apt-get install dkms)" >&2; exit 1; }
	@if $(DKMS) status -m ktrace -v $(RELEASE) | grep -q .; then $(call dkms,remove ktrace/$(RELEASE) --all); fi
	@$(MAKE) --no-print-directory install-dkms-src DESTDIR=
	sed 's/#MODULE_VERSION#/$(RELEASE)/' dkms.conf >$(DKMS_SRC)/dkms.conf
	@$(call dkms,add -m ktrace -v $(RELEASE))
	@$(call dkms,build -m ktrace -v $(RELEASE) -k $(KREL) --kernelsourcedir $(KDIR))
	@$(call dkms,install -m ktrace -v $(RELEASE) -k $(KREL) --kernelsourcedir $(KDIR))

# Every release's trace: the DKMS tree, the modules it installed, the sources.
dkms-uninstall:
	@command -v dkms >/dev/null || { echo "ktrace: dkms is not installed" >&2; exit 1; }
	@for v in $$($(DKMS) status -m ktrace | sed -n 's|^ktrace/\([^,:]*\).*|\1|p' | sort -u); do \
		$(call dkms,remove ktrace/$$v --all) || exit 1; done
	rm -rf /usr/src/ktrace-*

# Debian packages (ktrace, ktrace-dkms) into $(O)/deb, built by
# dpkg-buildpackage from a copy of the tree's files (git's, when this is a
# git tree: tracked and untracked, not ignored) in $(O)/deb/ktrace-RELEASE,
# so that nothing built here gets in.  As root or not (Rules-Requires-Root: no).
DEB_DIR		:= $(O)/deb
DEB_SRC		:= $(DEB_DIR)/ktrace-$(RELEASE)
deb:
	@v=$$(dpkg-parsechangelog -S Version 2>/dev/null); [ "$$v" = "$(RELEASE)" ] || { \
		echo "ktrace: debian/changelog's version is '$$v', VERSION's is $(RELEASE): add an entry (dch -v $(RELEASE))" >&2; exit 1; }
	rm -rf $(DEB_SRC) $(DEB_DIR)/*.deb $(DEB_DIR)/*.changes $(DEB_DIR)/*.buildinfo
	mkdir -p $(DEB_SRC)
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
		git ls-files -z --cached --others --exclude-standard | \
		xargs -0 sh -c 'for f; do [ -e "$$f" ] && printf "%s\n" "$$f"; done' files | \
		tar --verbatim-files-from -T - -cf - | tar -xf - -C $(DEB_SRC); \
	else \
		tar --exclude=./$(O) --exclude=./tests/js/node_modules --exclude=./debian/build -cf - . | tar -xf - -C $(DEB_SRC); \
	fi
	cd $(DEB_SRC) && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u O dpkg-buildpackage -us -uc -b
	@echo "ktrace: packages in $(DEB_DIR):"; ls $(DEB_DIR)/*.deb

clean:
	rm -rf $(O)
