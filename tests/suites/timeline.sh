#!/bin/bash
# Switches the kernel does not trace, with ftrace as the witness: a
# ping-pong pinned to CPU 0 beside a CPU-busy job on every CPU (niced, so
# the reader keeps up and ktrace loses nothing), recorded by
# the BPF backend with --ftrace 'sched:sched_switch'.  Every timeline checks
# out (ktrace dump --check), ktrace lost none of ftrace's switches, and each
# untraced_switch record marks a switch ftrace did not see either.  A run
# in which the kernel left no switch untraced still checks the chain; what
# only its untraced switches can show is then a SKIP that says so.
# usage: tests/suites/timeline.sh BUILD_DIR.  TAP output; SKIPs without root.
set -u
build=${1:-build}
ktrace=$build/ktrace
tmp=$(mktemp -d)
busy=()
trap 'for p in "${busy[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT
source "$(dirname "$0")/../lib/tap.sh"

echo "TAP version 13"
need_host_bpf "untraced switches witnessed by ftrace"

for _ in $(seq "$(nproc)"); do
	nice -n 19 sh -c 'while :; do :; done' &
	busy+=($!)
done
run "$ktrace" record --backend bpf --ftrace 'sched:sched_switch' -o "$tmp/w.fxt" -- \
	"$build/tests/known_workload" "$tmp/expect" 30000
for p in "${busy[@]}"; do kill "$p" 2>/dev/null; done
wait "${busy[@]}" 2>/dev/null
busy=()
said=$(sed -n 's/.* \([0-9]*\) untraced switches (the kernel.s).*/\1/p' "$tmp/err")
[ $rc -eq 0 ] && [ -n "$said" ]
ok $? "record --ftrace 'sched:sched_switch' beside a busy job says how many switches the kernel did not trace (${said:-?})" ||
	diag "$tmp/err"
none=
[ "$said" = 0 ] && none="the kernel left no switch untraced in this run (it does now and then: run again)"
if [ -n "$none" ]; then
	skip "dump --stats counts the same untraced_switch records" "$none"
else
	in_trace=$("$ktrace" dump --stats "$tmp/w.fxt" | sed -n 's/^untraced switches: \([0-9]*\) .*/\1/p')
	[ "${in_trace:-x}" = "${said:-y}" ]
	ok $? "dump --stats counts the same untraced_switch records ($in_trace)"
fi
check_timeline "$tmp/w.fxt" "ping-pong beside a busy job, with ftrace"
tests/check_witness.py "$ktrace" "$tmp/w.fxt" >"$tmp/witness"
witnessed=$?
if [ -n "$none" ]; then
	ok $witnessed "ftrace witnesses: ktrace lost none of its switches"
	skip "ftrace witnesses: each untraced_switch record marks a switch ftrace did not see either" "$none"
else
	ok $witnessed "ftrace witnesses: ktrace lost none of its switches, and missed only what ftrace missed too"
fi
cat "$tmp/witness"

# Each break is a stretch where the stranded thread may not have run: the
# JSON ends its slice there and draws the stretch, latency measures no wait
# across it.
if [ -n "$none" ]; then
	skip "the JSON draws each untraced stretch on its CPU" "$none"
else
	run "$ktrace" convert "$tmp/w.fxt" -o "$tmp/w.json"
	drawn=$(grep -o '"name":"untraced switch"' "$tmp/w.json" | wc -l)
	[ $rc -eq 0 ] && [ "$drawn" -eq "${said:-0}" ]
	ok $? "the JSON draws each untraced stretch on its CPU ($drawn)" || diag "$tmp/err"
fi
finish
