#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Checks what tests/fuzz-kmod/fuzz-in-vm.sh left in a results directory:
# the fuzzer found no wrong result, the kernel log has no oops, warning,
# BUG, lockdep, atomic-context or sanitizer report, recordings made
# alongside are valid, and the module unloads, reloads and records.
# usage: tests/fuzz-kmod/check-results.sh RESULTS_DIR   (TAP output)
# Sourced (after tests/lib/tap.sh), it defines fuzz_kmod_check RESULTS_DIR,
# which adds its tests to the caller's.

# The kernel's reports of a bug, as in dmesg.
FUZZ_KMOD_DMESG_BAD='WARNING:|BUG:|Oops|general protection|kernel BUG|lockdep|possible (circular|recursive) locking|INFO: task .* blocked|KASAN|UBSAN|sleeping function called from invalid context|scheduling while atomic|Call Trace|soft lockup|hard LOCKUP|rcu.*(stall|self-detected)|list_(add|del) corruption|refcount_t:|stack-protector|segfault at|page allocation failure|vmalloc error|Out of memory'

fuzz_kmod_check() {	# fuzz_kmod_check RESULTS_DIR
	local d=$1 summary bad rec
	st() { awk -v k="$1" '$1 == k {print $2}' "$d/status" 2>/dev/null; }
	[ -f "$d/status" ]
	ok $? "fuzz: the in-VM script ran and left its results" || return 1
	[ "$(st insmod)" = 0 ]
	ok $? "fuzz: insmod ktrace.ko on $(cat "$d/uname" 2>/dev/null)" || diag "$d/insmod.err"
	while read -r line; do
		case $line in
		*": ok"*) ok 0 "fuzz: regression ${line#REGRESSION }" ;;
		*": SKIP"*) n=$((n + 1)); echo "ok $n - fuzz: regression ${line%%: SKIP*} # SKIP ${line#*: SKIP }" ;;
		*) ok 1 "fuzz: regression ${line#REGRESSION }" ;;
		esac
	done < <(grep '^REGRESSION' "$d/regressions.out" 2>/dev/null)
	[ "$(st regressions)" = 0 ] || [ "$(st regressions)" = 1 ]
	ok $? "fuzz: fuzz_kmod --regressions ran" || diag "$d/regressions.out"
	summary=$(grep '^FUZZ-SUMMARY' "$d/fuzz.out" 2>/dev/null)
	[ "$(st fuzz)" = 0 ] && [ -n "$summary" ] && [ -z "$(st fuzz_stuck)" ]
	ok $? "fuzz: fuzz_kmod $(cat "$d/args") finds no wrong result (${summary#FUZZ-SUMMARY })" || {
		grep -E '^FAIL' "$d/fuzz.out" | head -20 | sed 's/^/# /'
		diag "$d/fuzz.err"
		[ -z "$(st fuzz_stuck)" ] || { echo "# the fuzzer was stuck; its threads:"; diag "$d/stuck-stacks.txt" | head -60; }
	}
	# Only what the kernel said from the fuzzer's start on.
	bad=$(sed -n '/ktrace-fuzz: start/,$p' "$d/dmesg.txt" 2>/dev/null | grep -E "$FUZZ_KMOD_DMESG_BAD")
	[ -s "$d/dmesg.txt" ] && [ -z "$bad" ]
	ok $? "fuzz: dmesg has no oops, warning, BUG, lockdep, atomic-context or sanitizer report" ||
		sed -n '/ktrace-fuzz: start/,$p' "$d/dmesg.txt" 2>/dev/null | grep -E -B2 -A25 "$FUZZ_KMOD_DMESG_BAD" | head -80 | sed 's/^/# /'
	rec=$(cat "$d/record.txt" 2>/dev/null)
	case "$rec" in *" other=0 invalid=0") true ;; *) false ;; esac
	ok $? "fuzz: ktrace record alongside: a session or 'busy' each time, every trace valid ($rec)" || {
		diag "$d/record-other.err" | head -10
		diag "$d/record-invalid.err" | head -10
	}
	grep -q 'reload_failed=0' "$d/rmmod.txt" 2>/dev/null
	ok $? "fuzz: rmmod during the run is refused while held, reloads when it succeeds ($(cat "$d/rmmod.txt" 2>/dev/null))" ||
		diag "$d/reload.err"
	[ "$(st rmmod)" = 0 ] && [ "$(st reload)" = 0 ] && [ "$(st rmmod_again)" = 0 ]
	ok $? "fuzz: the module unloads after the run and reloads" || diag "$d/rmmod.err"
	[ "$(st record_after)" = 0 ]
	ok $? "fuzz: after the reload a recording is made and is valid" || diag "$d/after.err"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	source "$(dirname "$0")/../lib/tap.sh"
	echo "TAP version 13"
	fuzz_kmod_check "${1:?usage: check-results.sh RESULTS_DIR}"
	finish
fi
