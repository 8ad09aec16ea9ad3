#!/bin/bash
# Switches the kernel does not trace, with ftrace as the witness: a
# ping-pong pinned to CPU 0 beside a CPU-busy job on every CPU (niced, so
# the reader keeps up and ktrace loses nothing), recorded by
# the BPF backend with --ftrace 'sched:sched_switch'.  Every timeline checks
# out (ktrace dump --check), ktrace lost none of ftrace's switches, and each
# untraced_switch record marks a switch ftrace did not see either.  A run
# without such a break still checks the chain and says it saw none.
# usage: tests/suites/timeline.sh BUILD_DIR.  TAP output; SKIPs without root.
set -u
build=${1:-build}
ktrace=$build/ktrace
tmp=$(mktemp -d)
busy=()
trap 'for p in "${busy[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT
source "$(dirname "$0")/../lib/tap.sh"

echo "TAP version 13"
if [ "$(id -u)" -ne 0 ]; then
	skip "untraced switches witnessed by ftrace" "not root: the BPF backend and tracefs need root"
	finish; exit
fi
if [ ! -r /sys/kernel/btf/vmlinux ]; then
	skip "untraced switches witnessed by ftrace" "the kernel has no BTF (/sys/kernel/btf/vmlinux)"
	finish; exit
fi

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
in_trace=$("$ktrace" dump --stats "$tmp/w.fxt" | sed -n 's/^untraced switches: \([0-9]*\) .*/\1/p')
[ "${in_trace:-x}" = "${said:-y}" ]
ok $? "dump --stats counts the same untraced_switch records ($in_trace)"
check_timeline "$tmp/w.fxt" "ping-pong beside a busy job, with ftrace"
tests/check_witness.py "$ktrace" "$tmp/w.fxt" >"$tmp/witness"
ok $? "ftrace witnesses: ktrace lost none of its switches, and missed only what ftrace missed too"
cat "$tmp/witness"
[ "${said:-0}" -eq 0 ] && echo "# 0 breaks seen in this run: the chain was checked whole"

# Each break is a stretch where the stranded thread may not have run: the
# JSON ends its slice there and draws the stretch, latency measures no wait
# across it.
run "$ktrace" convert "$tmp/w.fxt" -o "$tmp/w.json"
drawn=$(grep -o '"name":"untraced switch"' "$tmp/w.json" | wc -l)
[ $rc -eq 0 ] && [ "$drawn" -eq "${said:-0}" ]
ok $? "the JSON draws each untraced stretch on its CPU ($drawn)" || diag "$tmp/err"
finish
