# SPDX-License-Identifier: GPL-2.0
# TAP helpers for the shell test suites: source it, then ok/skip/run, finish.
n=0 failed=0
ok() {	# ok EXIT-STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}
# Runs a command; its exit status, stdout and stderr land in $rc, $tmp/out, $tmp/err.
run() { "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }
finish() {
	echo "1..$n"
	echo "# $((n - failed)) passed, $failed failed"
	[ $failed -eq 0 ]
}
