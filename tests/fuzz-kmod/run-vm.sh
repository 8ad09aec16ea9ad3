#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fuzzes ktrace.ko's user interface in a VM booting Debian's kernel KREL:
# builds the in-VM script (tests/fuzz-kmod/fuzz-in-vm.sh with the static
# fuzzer appended, so any vm-run.sh brings it in), boots it with
# scripts/vm-run.sh, prints the fuzzer's summary and checks the results.
# usage: tests/fuzz-kmod/run-vm.sh BUILD_DIR KREL [FUZZ_KMOD OPTIONS...]
#   e.g. tests/fuzz-kmod/run-vm.sh build 6.1.0-56-amd64 --seed 1 --calls 1000000
# Results: BUILD_DIR/fuzz-kmod/KREL/.  TAP output; exit status 1 on a failure.
set -u
build=${1:?usage: run-vm.sh BUILD_DIR KREL [FUZZ_KMOD OPTIONS...]}
krel=${2:?usage: run-vm.sh BUILD_DIR KREL [FUZZ_KMOD OPTIONS...]}
shift 2
here=$(dirname "$0")
source "$here/../lib/tap.sh"
source "$here/check-results.sh"
source "$here/../../scripts/kernel-paths.sh"
out=$build/fuzz-kmod/$krel
# An arm64 kernel boots in qemu-system-aarch64 with programs built for it.
qemu=qemu-system-x86_64 pbuild=$build
kernel_paths "$krel" && [ "$karch" = arm64 ] && qemu=qemu-system-aarch64 pbuild=$build/arm64
fuzz=$pbuild/tests/fuzz_kmod
args=${*:---seconds 30}

echo "TAP version 13"
[ -r "$kimage" ] || { echo "ok 1 - fuzz in a VM # SKIP no $kimage (scripts/install-deps.sh --test)"; echo "1..1"; exit 0; }
command -v $qemu >/dev/null || { echo "ok 1 - fuzz in a VM # SKIP $qemu is not installed"; echo "1..1"; exit 0; }
for f in "$build/kmod/$krel/kmod/ktrace.ko" "$fuzz" "$pbuild/ktrace" "$pbuild/bench/pingpong"; do
	[ -e "$f" ] || { echo "ok 1 - fuzz in a VM # SKIP $f is not built (make kmod KREL=$krel $fuzz $build/bench/pingpong)"; echo "1..1"; exit 0; }
done

rm -rf "$out"
mkdir -p "$out"
# How long the VM may take: --seconds plus boot and the checks, or a bound
# for --calls runs (TCG does a few thousand calls a second).
secs=$(echo " $args " | sed -n 's/.* --seconds \([0-9]*\) .*/\1/p')
calls=$(echo " $args " | sed -n 's/.* --calls \([0-9]*\) .*/\1/p')
deadline=$(( ${secs:-0} + ${calls:-0} / 500 + 300 ))
{
	echo "#!/bin/sh"
	echo "FUZZ_ARGS='$args'"
	echo "FUZZ_DEADLINE=$deadline"
	sed 1d "$here/fuzz-in-vm.sh"
	echo "#__FUZZ_KMOD_PAYLOAD__"
	gzip -9c "$fuzz" | base64
} >"$out/in-vm.sh"
chmod +x "$out/in-vm.sh"

start=$(date +%s)
KTRACE_VM_SCRIPT=$out/in-vm.sh KTRACE_VM_TIMEOUT=$((deadline + 600)) \
	scripts/vm-run.sh "$build" "$krel" >"$out/vm-run.log" 2>&1
ok $? "fuzz: the VM booted $krel and brought the results back ($(( $(date +%s) - start )) s)" ||
	diag "$out/vm-run.log" | tail -20
cp "$build/vm/$krel/console.log" "$out/" 2>/dev/null
cp -r "$build/vm/$krel/results/fuzz" "$out/results" 2>/dev/null
sed -n '/^fuzz_kmod:/,/^FUZZ-SUMMARY/p' "$out/results/fuzz.out" 2>/dev/null | sed 's/^/# /'
fuzz_kmod_check "$out/results"
finish
