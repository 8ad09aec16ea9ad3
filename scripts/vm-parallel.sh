#!/bin/bash
# Runs the VM suite (tests/suites/vm.sh) on each kernel given, several at a
# time: KTRACE_VM_JOBS of them (default: one per CPU, fewer when memory is
# short, each VM wanting 2 GiB), each kernel's TAP in BUILD_DIR/vm/KREL.tap
# and the seconds it took in BUILD_DIR/vm/KREL.secs.  TCG emulates each
# guest in one host thread, so VMs in parallel use the CPUs one VM alone
# leaves idle.  Says on stderr when each kernel starts and ends.
# usage: scripts/vm-parallel.sh BUILD_DIR KREL...
set -u
build=${1:?usage: scripts/vm-parallel.sh BUILD_DIR KREL...}
shift
jobs=${KTRACE_VM_JOBS:-}
if [ -z "$jobs" ]; then
	jobs=$(nproc)
	mem=$(awk '/^MemAvailable:/ { print int($2 / 1024 / 2048) }' /proc/meminfo)
	[ "$mem" -lt "$jobs" ] && jobs=$mem
	[ "$jobs" -ge 1 ] || jobs=1
fi
mkdir -p "$build/vm"
echo "vm-parallel: ${#@} kernels, $jobs at a time" >&2
for k in "$@"; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
	(
		echo "vm-parallel: $k ..." >&2
		start=$(date +%s)
		KREL=$k tests/suites/vm.sh "$build" >"$build/vm/$k.tap" 2>&1
		echo $(($(date +%s) - start)) >"$build/vm/$k.secs"
		echo "vm-parallel: $k done ($(grep -cE '^not ok' "$build/vm/$k.tap") failed, $(cat "$build/vm/$k.secs") s)" >&2
	) &
done
wait
