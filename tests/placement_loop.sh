#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The placement recordings of tests/vm/placement-loop-in-vm.sh, twenty of
# each variant and backend, each checked with tests/check_placement.py as
# the VM suite checks its one (tests/suites/vm.sh): a line per recording
# that fails, with its failing checks, and the count per variant.
# usage: tests/placement_loop.sh BUILD_DIR KERNEL_RELEASE
#   (after KTRACE_VM_SCRIPT=tests/vm/placement-loop-in-vm.sh scripts/vm-run.sh BUILD_DIR KREL)
build=${1:?usage: tests/placement_loop.sh BUILD_DIR KERNEL_RELEASE}
krel=${2:?usage: tests/placement_loop.sh BUILD_DIR KERNEL_RELEASE}
R=$build/vm/$krel/results
declare -A pass total
for f in "$R"/*_*_*.fxt; do
	n=$(basename "$f" .fxt)
	v=${n%_*}
	case $v in *_place | *_runfree) min=1 ;; *) min=2 ;; esac
	total[$v]=$((${total[$v]:-0} + 1))
	if grep -q "^$n 0$" "$R/status" &&
	   tests/check_placement.py "$build/ktrace" "$f" "$R/$n.expect" $min quiet >"$R/$n.check" 2>&1; then
		pass[$v]=$((${pass[$v]:-0} + 1))
	else
		echo "$n: failed"
		grep -E '^not ok|^#' "$R/$n.check" | sed 's/^/  /' | head -8
	fi
done
for v in $(printf '%s\n' "${!total[@]}" | sort); do
	echo "$v: ${pass[$v]:-0} of ${total[$v]} pass"
done
