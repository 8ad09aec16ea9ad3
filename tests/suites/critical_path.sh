#!/bin/bash
# Where threads blocked and the critical path, recorded with the BPF
# backend on this machine: tests/chain_workload's pipe <- mutex <- preempted
# holder chain and its chain that ends in a timer, checked hop by hop, with
# default options and with --stacks; blocked-in functions in dump, the
# JSON, the latency report and --folded; the threshold of --blocked-in.
# usage: tests/suites/critical_path.sh BUILD_DIR.  TAP output; SKIPs without root.
set -u
build=${1:-build}
ktrace=$build/ktrace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/../lib/tap.sh"

echo "TAP version 13"
need_host_bpf "critical path on the host"

# As a first recording is made: no options.
run "$ktrace" record --backend bpf -o "$tmp/d.fxt" -- "$build/tests/chain_workload" "$tmp/expect"
[ $rc -eq $EXIT_CANNOT_RUN_HERE ] && skip_all "the chain workload" "it cannot run here (one CPU, or SCHED_FIFO refused)"
ok $rc "record --backend bpf -- chain_workload, no other option" || diag "$tmp/err"
tests/check_critical_path.py "$ktrace" "$tmp/d.fxt" "$tmp/expect" >"$tmp/check"
ok $? "with default options, the critical path names pipe_read, the futex wait and the timer" ||
	grep -E '^not ok|^#' "$tmp/check" | sed 's/^/#   /'
tests/check_blocked_in.py "$ktrace" "$tmp/d.fxt" 100000 >"$tmp/check"
ok $? "with default options, every block of 100 us or more is named at its switch-in ($(head -1 "$tmp/check"))" ||
	diag "$tmp/check"

run "$ktrace" record --backend bpf --stacks -o "$tmp/c.fxt" -- "$build/tests/chain_workload" "$tmp/expect"
ok $rc "record --backend bpf --stacks -- chain_workload" || diag "$tmp/err"
victim=$(sed -n 's/^victim=//p' "$tmp/expect")

tests/check_critical_path.py "$ktrace" "$tmp/c.fxt" "$tmp/expect" >"$tmp/check"
ok $? "the critical path of victim's waits: waiter, holder, hog; pipe_read, futex; the timer" ||
	grep -E '^not ok|^#' "$tmp/check" | sed 's/^/#   /'

"$ktrace" dump "$tmp/c.fxt" >"$tmp/dump"
grep -qE "switch: .* ==> tid=$victim \(blocked in [a-z_]*pipe_read\) .* incoming_kstack=[0-9]+ " "$tmp/dump" &&
	! grep -q 'kstack=[0-9]* .*0xffff' "$tmp/dump" && ! grep -q '"ktrace:meta":"kstack".*0xffff' "$tmp/dump"
ok $? "dump names where victim blocked on its switch-in line; no kernel address is left unnamed"

"$ktrace" convert "$tmp/c.fxt" -o "$tmp/c.json" 2>/dev/null
python3 - "$tmp/c.json" "$victim" <<'PY'
import json, re, sys
ev = json.load(open(sys.argv[1]))['traceEvents']
v = int(sys.argv[2])
sys.exit(0 if any(e.get('tid') == v and e.get('name') == 'Running' and
                  re.search('pipe_read', e.get('args', {}).get('after_blocked_in', '')) for e in ev) else 1)
PY
ok $? "the JSON's Running slice that follows the block says after_blocked_in pipe_read"

run "$ktrace" latency "$tmp/c.fxt" --comm victim
grep -qE '^ +S [0-9.]+ ms: (.*, )?[a-z_]*pipe_read [0-9.]+ ms' "$tmp/out"
ok $? "latency splits victim's blocked time by state and function (S ...: pipe_read ...)" ||
	diag "$tmp/out"

run "$ktrace" latency "$tmp/c.fxt" --comm victim --folded
[ $rc -eq 0 ] && grep -qE '^victim;.*;[a-z_]*pipe_read(;[a-z_]+)* [0-9]+$' "$tmp/out" &&
	! grep -qE ';(bpf_|__bpf|bpf_trace_run)' "$tmp/out"
ok $? "--folded: victim's blocked time per whole stack through pipe_read, no recorder frames" ||
	diag "$tmp/out"

run "$ktrace" latency "$tmp/c.fxt" --critical-path --comm victim -o "$tmp/path.json"
python3 - "$tmp/path.json" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))['traceEvents']
hops = [e for e in ev if e.get('cat') == 'ktrace:critical_path' and e.get('ph') == 'X']
flows = [e for e in ev if e.get('cat') == 'ktrace:critical_path' and e.get('ph') in 'sf']
names = {e['name'] for e in hops}
sys.exit(0 if hops and len(flows) >= 4 and any('futex' in n for n in names) and
         any('pipe_read' in n for n in names) else 1)
PY
ok $? "-o writes the path into the trace: a ktrace:critical_path slice per hop, flows between" ||
	diag "$tmp/err"

run "$ktrace" record --backend bpf --blocked-in --raw-stacks -o "$tmp/raw.fxt" -d 0.3
[ $rc -eq 0 ] && "$ktrace" dump "$tmp/raw.fxt" | grep -q '"kstack" kstack=[0-9]* blocked_in="0xffff'
ok $? "--raw-stacks keeps addresses, as asked" || diag "$tmp/err"

# The threshold: 0 names every block, even a ping-pong's microseconds.
run "$ktrace" record --backend bpf --blocked-in=0 -o "$tmp/z.fxt" -- "$build/bench/pingpong" 2000 0
[ $rc -eq 0 ] && tests/check_blocked_in.py "$ktrace" "$tmp/z.fxt" 0 >"$tmp/check"
ok $? "--blocked-in=0 names every block ($(head -1 "$tmp/check"))" || diag "$tmp/err" "$tmp/check"
run "$ktrace" record --backend bpf --no-blocked-in -o "$tmp/n.fxt" -- "$build/bench/pingpong" 2000 0
[ $rc -eq 0 ] && tests/check_blocked_in.py "$ktrace" "$tmp/n.fxt" 0 --none >"$tmp/check"
ok $? "--no-blocked-in names none" || diag "$tmp/err" "$tmp/check"
run "$ktrace" record --blocked-in=5 -d 0.1
[ $rc -eq 2 ] && grep -q -- "--blocked-in '5': give a unit" "$tmp/err"
ok $? "--blocked-in=5 (no unit) is refused with a message"
run "$ktrace" record --no-blocked-in --stacks -d 0.1
[ $rc -eq 2 ] && grep -q -- '--no-blocked-in goes with neither' "$tmp/err"
ok $? "--no-blocked-in with --stacks is refused with a message"

run "$ktrace" latency "$tmp/c.fxt" --tid 1
[ $rc -eq 2 ] && grep -q -- '--tid and --at go with --critical-path' "$tmp/err"
ok $? "--tid without --critical-path is refused with a message"
finish
