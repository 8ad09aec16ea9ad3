#!/bin/bash
# Runs the VM suite (tests/suites/vm.sh) on each kernel given, several VMs
# at a time (scripts/vm-parallel.sh), and prints one table: kernel, checks
# passed, failed, skipped, and the minutes the kernel took; then what the
# SCHED_FIFO hog on the reader's CPU did (losses, seconds the recording
# took) and the failed checks.  Each kernel's TAP is kept in
# BUILD_DIR/vm/KREL.tap.
# usage: scripts/vm-matrix.sh BUILD_DIR KREL...
set -u
build=${1:?usage: scripts/vm-matrix.sh BUILD_DIR KREL...}
shift
[ $# -gt 0 ] || { echo "vm-matrix: no kernel given (none installed with headers?)" >&2; exit 1; }
mkdir -p "$build/vm"
table=$(mktemp) hogs=$(mktemp) fails=$(mktemp)
trap 'rm -f "$table" "$hogs" "$fails"' EXIT
status=0
start=$(date +%s)
scripts/vm-parallel.sh "$build" "$@"
wall=$(($(date +%s) - start))
for k in "$@"; do
	tap=$build/vm/$k.tap
	secs=$(cat "$build/vm/$k.secs" 2>/dev/null || echo 0)
	p=$(grep -cE '^ok [0-9]+' "$tap")
	s=$(grep -cE '^ok [0-9]+ .*# SKIP' "$tap")
	f=$(grep -cE '^not ok [0-9]+' "$tap")
	[ "$p" -eq 0 ] && [ "$f" -eq 0 ] && f=1	# died before reporting anything
	[ "$f" -eq 0 ] || status=1
	printf '%-28s %7d %7d %7d %8.1f\n' "$k" $((p - s)) "$f" "$s" "$(echo "scale=2; $secs / 60" | bc)" >>"$table"
	# "FIFO hog ..., kmod, default buffers: the recording completes (6.0 s) ..."
	# "FIFO hog ..., kmod, default buffers: 0 losses reported, 0 in the trace's loss records"
	line=$(printf '%-28s' "$k")
	for c in "kmod, default" "bpf, default" "kmod, 32K" "bpf, 32K"; do
		t=$(grep -F "$c buffers: the recording completes" "$tap" | sed -n 's/.*completes (\([0-9.]*\) s).*/\1/p')
		l=$(grep -F "$c buffers: " "$tap" | sed -n 's/.*buffers: \([0-9a-z]*\) losses reported.*/\1/p')
		line+=$(printf ' %16s' "${l:-?} in ${t:-?} s")
	done
	echo "$line" >>"$hogs"
	grep -E '^not ok' "$tap" | sed "s/^/$k: /" >>"$fails"
done
printf '%-28s %7s %7s %7s %8s\n' kernel passed failed skipped minutes
cat "$table"
echo "$# kernels in $(echo "scale=1; $wall / 60" | bc) minutes"
echo
echo "SCHED_FIFO hog on the reader's CPU: records lost, and how long the recording took"
printf '%-28s %16s %16s %16s %16s\n' kernel "kmod, default" "bpf, default" "kmod, 32K" "bpf, 32K"
cat "$hogs"
if [ -s "$fails" ]; then
	echo
	echo "failed (TAP in $build/vm/KREL.tap):"
	cat "$fails"
fi
exit $status
