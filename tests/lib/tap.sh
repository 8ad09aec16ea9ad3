# SPDX-License-Identifier: GPL-2.0
# TAP helpers for the shell test suites: source it, then ok/skip/run, finish.
n=0 failed=0
ok() {	# ok EXIT-STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
	return "$1"
}
# Shows FILEs as TAP comments: what a failed check saw.
diag() { sed 's/^/# /' "$@" 2>/dev/null; }
# Runs a command; its exit status, stdout and stderr land in $rc, $tmp/out, $tmp/err.
run() { "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }
# Waits until FILE has a line matching PATTERN (at most 60 s): a recorder
# started in the background is recording once it says so.
wait_for() {	# wait_for FILE PATTERN
	local i
	for i in $(seq 600); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
finish() {
	echo "1..$n"
	echo "# $((n - failed)) passed, $failed failed"
	[ $failed -eq 0 ]
}
