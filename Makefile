# SPDX-License-Identifier: GPL-2.0
# ktrace: top-level build.  `make` builds what this machine can build;
# `make check` runs every test suite; `make bench` runs the benchmarks.

O		?= build
CC		?= gcc
CLANG		?= clang
PREFIX		?= /usr/local
WERROR		?= $(if $(CI),1,0)

CFLAGS		?= -O2 -g
KTRACE_CFLAGS	:= $(CFLAGS) -std=gnu11 -Wall -Wextra -Wno-missing-field-initializers \
		   -Wshadow -Wformat=2 -D_GNU_SOURCE -Iinclude/uapi -Iuser \
		   $(if $(filter 1,$(WERROR)),-Werror)

BPFTOOL		?= bpftool
# The BPF recorder is CO-RE: vmlinux.h only needs some kernel's BTF.
VMLINUX_BTF	?= /sys/kernel/btf/vmlinux

USER_LIB_SRCS	:= user/fxt_reader.c user/fxt_writer.c user/json_writer.c user/utils.c \
		   user/latency.c
USER_CMD_SRCS	:= user/ktrace.c user/cmd_dump.c user/cmd_convert.c user/cmd_record.c \
		   user/cmd_merge.c user/cmd_mark.c user/cmd_latency.c user/spool.c user/statedump.c user/source_bpf.c \
		   user/source_kmod.c user/source_ftrace.c user/ftrace_convert.c user/ftrace_text.c \
		   user/clock_sync.c user/archive.c user/bpf_exact.c
USER_HDRS	:= $(wildcard user/*.h include/uapi/linux/*.h bpf/*.h)
USER_LIBS	:= -lbpf -lelf -lz $(shell pkg-config --libs libtracefs libtraceevent 2>/dev/null || echo -ltracefs -ltraceevent)
TRACEFS_CFLAGS	:= $(shell pkg-config --cflags libtracefs libtraceevent 2>/dev/null)

# The kernel ktrace.ko is built for, as every out-of-tree module picks it:
# KDIR when given, else the running kernel's build tree, else Debian's
# newest generic headers (scripts/pick-kernel.sh).  Each kernel gets its own
# copy of the sources under $(O)/kmod/KREL, so builds for several kernels
# sit side by side.
ifeq ($(origin KDIR),undefined)
KREL		?= $(shell scripts/pick-kernel.sh)
KDIR		:= $(firstword $(wildcard /lib/modules/$(KREL)/build) /usr/src/linux-headers-$(KREL))
else
KREL		?= $(shell cat $(KDIR)/include/config/kernel.release 2>/dev/null || \
		     $(MAKE) -s -C $(KDIR) kernelrelease 2>/dev/null)
endif
export KREL
HAVE_KDIR	:= $(if $(KREL),$(wildcard $(KDIR)/Makefile))
KOBJ		:= $(O)/kmod/$(KREL)
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
GEN_TRACE	:= $(O)/tests/gen_trace
FUZZ_READER	:= $(O)/tests/fuzz_reader
WORKLOAD	:= $(O)/tests/workload
CHECK_TRACE	:= $(O)/tests/check_trace
LAT_WORKLOAD	:= $(O)/tests/latency_workload
FIFO_HOG	:= $(O)/tests/fifo_hog
TEST_PROGS	:= $(TEST_FXT) $(GEN_TRACE) $(WORKLOAD) $(CHECK_TRACE) $(LAT_WORKLOAD) $(FIFO_HOG)

.PHONY: all user bpf kmod kmod-kdir selftests check check-fuzz vm-check checkpatch bench install clean

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
	@echo "ktrace: no kernel headers for Linux $(or $(KREL),$$(uname -r)): the CLI is built, ktrace.ko is not" \
	"(install linux-headers-$$(uname -r), or 'make KDIR=/path/to/build')"
endif

kmod: $(KMOD) $(KMOD_TEST)

# The kernel's own check, before Kbuild's less helpful errors.
kmod-kdir:
	@[ -f "$(KDIR)/Makefile" ] || { echo "ktrace: no kernel build tree at '$(KDIR)' (Linux $(or $(KREL),unknown));" \
		"install its headers or pass KDIR=/lib/modules/RELEASE/build" >&2; exit 1; }

$(KMOD): $(KMOD_SRCS) | kmod-kdir
	@mkdir -p $(KOBJ) && tar -cf - $(KMOD_SRCS) | tar -xpf - -C $(KOBJ)
	$(MAKE) -C $(KDIR) M=$(abspath $(KOBJ))/kmod CONFIG_KTRACE=m W=1 \
		$(if $(filter 1,$(WERROR)),KCFLAGS=-Werror) modules

$(KMOD_TEST): $(KMOD_TEST_SRCS) $(KMOD)
	@tar -cf - $(KMOD_TEST_SRCS) | tar -xpf - -C $(KOBJ)
	$(MAKE) -C $(KDIR) M=$(abspath $(KOBJ))/tests/kmod-api W=1 \
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

$(O)/vmlinux.h:
	@mkdir -p $(dir $@)
	$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@.tmp && mv $@.tmp $@

$(BPF_OBJ): bpf/sched.bpf.c bpf/sched.bpf.h include/uapi/linux/ktrace_fxt.h $(O)/vmlinux.h
	@mkdir -p $(dir $@)
	$(CLANG) -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_x86 -Wall -I$(O) -Iinclude/uapi -Ibpf \
		$(if $(filter 1,$(WERROR)),-Werror) -c -o $@ $<

$(BPF_EXACT_OBJ): bpf/sched.bpf.c bpf/sched.bpf.h include/uapi/linux/ktrace_fxt.h $(O)/vmlinux.h
	@mkdir -p $(dir $@)
	$(CLANG) -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_x86 -DKTRACE_EXACT_IRQ_CONTEXT -Wall \
		-I$(O) -Iinclude/uapi -Ibpf $(if $(filter 1,$(WERROR)),-Werror) -c -o $@ $<

# Both skeletons are named sched_bpf: the exact one only lends its ELF bytes.
$(BPF_SKEL): $(BPF_OBJ)
	$(BPFTOOL) gen skeleton $< name sched_bpf > $@.tmp && mv $@.tmp $@

$(BPF_EXACT_SKEL): $(BPF_EXACT_OBJ)
	$(BPFTOOL) gen skeleton $< name sched_bpf > $@.tmp && mv $@.tmp $@

$(O)/user/bpf_exact.o: user/bpf_exact.c $(BPF_EXACT_SKEL) $(USER_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(KTRACE_CFLAGS) -I$(O)/bpf -Ibpf -c -o $@ $<

# The version: the git description of the tree it was built from.
KTRACE_VERSION	?= $(shell git describe --tags --always --dirty 2>/dev/null || echo unknown)

$(O)/user/ktrace.o: user/ktrace.c $(USER_HDRS) $(wildcard .git/HEAD .git/index)
	@mkdir -p $(dir $@)
	$(CC) $(KTRACE_CFLAGS) -DKTRACE_VERSION='"$(KTRACE_VERSION)"' -c -o $@ $<

$(O)/user/source_ftrace.o: user/source_ftrace.c $(USER_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(KTRACE_CFLAGS) $(TRACEFS_CFLAGS) -c -o $@ $<

$(O)/user/source_bpf.o: user/source_bpf.c $(BPF_SKEL) $(USER_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(KTRACE_CFLAGS) -I$(O)/bpf -Ibpf -c -o $@ $<

$(O)/%.o: %.c $(USER_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(KTRACE_CFLAGS) -c -o $@ $<

$(KTRACE): $(USER_CMD_OBJS) $(USER_LIB_OBJS)
	$(CC) $(KTRACE_CFLAGS) -o $@ $^ $(USER_LIBS)

$(O)/tests/%: tests/%.c tests/lib/tap.h $(USER_LIB_OBJS) $(USER_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(KTRACE_CFLAGS) -Itests -o $@ $< $(USER_LIB_OBJS) -lpthread

# libFuzzer with ASan and UBSan needs clang; the reader is built into it.
$(FUZZ_READER): tests/fuzz_reader.c $(USER_LIB_SRCS) $(USER_HDRS)
	@mkdir -p $(dir $@)
	$(CLANG) -g -O1 -std=gnu11 -D_GNU_SOURCE -Iinclude/uapi -Iuser \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		-o $@ tests/fuzz_reader.c $(USER_LIB_SRCS)

# The whole suite; the unit tests for the formats come first, no root needed.
HAVE_CLANG	:= $(shell command -v $(CLANG) 2>/dev/null)

# The VM suite runs once per kernel in VM_KERNELS, each with ktrace.ko
# built for it; a kernel in the list that is not installed (image and
# headers) is a SKIP.  The four take 8 to 12 minutes under TCG on 2 shared
# CPUs (2 to 3.5 each), well inside a 90-minute CI run.
VM_KERNELS	?= 6.1.0-56-amd64 6.1.0-56-rt-amd64 6.12.117+deb12-amd64 6.12.117+deb12-rt-amd64
vm_installed	= $(foreach k,$(1),$(if $(wildcard /boot/vmlinuz-$(k)),$(if $(wildcard /lib/modules/$(k)/build/Makefile),$(k))))
# Every Debian kernel image installed here with its headers, for vm-matrix.
VM_ALL_KERNELS	= $(call vm_installed,$(patsubst /boot/vmlinuz-%,%,$(wildcard /boot/vmlinuz-*)))

.PHONY: vm-kmods vm-matrix
vm-kmods:
	@for k in $(VM_KMODS); do $(MAKE) --no-print-directory kmod KREL=$$k || exit 1; done

check: $(KTRACE) $(TEST_PROGS) $(if $(HAVE_CLANG),$(FUZZ_READER)) \
	$(if $(HAVE_KDIR),$(KMOD) $(KMOD_TEST) $(SELFTEST))
	@$(MAKE) --no-print-directory vm-kmods VM_KMODS="$(call vm_installed,$(VM_KERNELS))"
	@VM_KERNELS="$(VM_KERNELS)" scripts/run-tests.sh $(O)

# The module's tests in a VM booting Debian's kernel KREL (also part of check).
vm-check: $(KTRACE) $(TEST_PROGS) $(KMOD) $(KMOD_TEST) $(SELFTEST)
	@KREL=$(KREL) tests/suites/vm.sh $(O)

# The VM suite on every installed Debian kernel, one VM at a time: one table.
vm-matrix: $(KTRACE) $(TEST_PROGS) $(SELFTEST)
	@$(MAKE) --no-print-directory vm-kmods VM_KMODS="$(VM_ALL_KERNELS)"
	@scripts/vm-matrix.sh $(O) $(VM_ALL_KERNELS)

check-fuzz: $(FUZZ_READER)
	@scripts/run-fuzz.sh $(O) 60

$(O)/bench/%: bench/%.c
	@mkdir -p $(dir $@)
	$(CC) $(KTRACE_CFLAGS) -o $@ $< -lpthread

# Speed and memory, as ratios against ftrace and no tracing in the same run.
bench: $(KTRACE) $(GEN_TRACE) $(LAT_WORKLOAD) $(O)/bench/pingpong $(if $(HAVE_KDIR),$(KMOD) $(SELFTEST) $(TEST_PROGS))
	@bench/bench-convert.sh $(O)
	@bench/bench-sched.sh $(O)
	@bench/bench-ftrace.sh $(O)
	@bench/bench-latency.sh $(O)
	$(if $(HAVE_KDIR),@bench/bench-vm.sh $(O))

install: $(KTRACE)
	install -D -m 0755 $(KTRACE) $(DESTDIR)$(PREFIX)/bin/ktrace

clean:
	rm -rf $(O)
