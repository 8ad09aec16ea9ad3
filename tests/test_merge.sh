#!/bin/bash
# ktrace merge on synthetic ftrace text dumps with a known clock offset:
# offset recovery (at most 1 us), ordering, the three line formats, bad
# lines, and JSON with the text embedded.  TAP output; no root needed.
# usage: tests/test_merge.sh BUILD_DIR
set -u
build=${1:-build}
ktrace=$build/ktrace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/lib/tap.sh"

echo "TAP version 13"
"$build/tests/gen_trace" scenario "$tmp/s.fxt"
# The scenario's clock_sync "ktrace-sync-1" is at 1000.000006700 s on the
# recorder's clock; this ftrace clock runs 4321.987654321 s ahead of it.
off_ns=4321987654321
fts() {	# fts MONO_NS DECIMALS -> the ftrace timestamp text
	python3 -c "import sys; t=int(sys.argv[1])+$off_ns; d=int(sys.argv[2]); print('%d.%0*d' % (t//10**9, d, (t%10**9)//10**(9-d)))" "$1" "$2"
}
mkdump() {	# mkdump DECIMALS FORMAT(plain|tgid|noirq) > file
	local d=$1 fmt=$2 pre
	echo "# tracer: nop"
	echo "#"
	while IFS='|' read -r t task cpu rest; do
		case $fmt in
		plain) pre=$(printf '%16s [%03d] d.h1. ' "$task" "$cpu") ;;
		tgid)  pre=$(printf '%16s (%7s) [%03d] d.h1. ' "$task" "${task##*-}" "$cpu") ;;
		noirq) pre=$(printf '%16s [%03d] ' "$task" "$cpu") ;;
		esac
		echo "${pre}$(fts "$t" "$d"): $rest"
	done <<'EVENTS'
1000000005000|<idle>-0|0|irq_handler_entry: irq=24 name=virtio0
1000000005300|<idle>-0|0|irq_handler_exit: irq=24 ret=handled
1000000006700|demo-100|1|tracing_mark_write: trace_event_clock_sync: name=ktrace-sync-1
1000000007200|worker-b-102|1|sched_wakeup: comm=worker-a pid=101 prio=120 target_cpu=000
1000000008100|my prog-103|0|softirq_entry: vec=1 [action=TIMER]
1000000008600|my prog-103|0|softirq_exit: vec=1 [action=TIMER]
EVENTS
}
# The irq entry at mono 1000.000005000 must land there, within 1 us.
irq_ts() { "$ktrace" dump "$1" | awk '/duration begin: .*"irq virtio0"/ {print $2; exit}'; }
within_1us() { python3 -c "import sys; sys.exit(0 if abs(float(sys.argv[1]) - 1000.000005) <= 1e-6 + 1e-12 else 1)" "$1"; }

for fmt in plain tgid noirq; do
	for d in 6 9; do
		mkdump $d $fmt >"$tmp/f.txt"
		run "$ktrace" merge "$tmp/s.fxt" "$tmp/f.txt" -o "$tmp/m.fxt"
		got=$(irq_ts "$tmp/m.fxt")
		[ $rc -eq 0 ] && grep -q 'aligned by 1 sync markers' "$tmp/err" && within_1us "${got:-0}"
		ok $? "$fmt lines, $d decimals: offset recovered, irq entry at ${got:-none} (expected 1000.000005000 within 1 us)"
	done
done
grep -q 'ftrace + -4321987654321 ns' "$tmp/err"
ok $? "with nanosecond timestamps the offset is exact (-4321987654321 ns)"

# A marker write that stalled: ftrace stamped it 50 ns into a 40 us write
# (the other took 200 ns, stamped 50 ns in).  Its wide window must neither
# pull the offset nor count as disagreement.
"$build/tests/gen_trace" sync-stall "$tmp/stall.fxt"
{
	echo "# tracer: nop"
	echo "            demo-100 [000] ..... $(fts 1000000001050 9): tracing_mark_write: trace_event_clock_sync: name=ktrace-sync-a"
	echo "            demo-100 [000] ..... $(fts 1000000500050 9): tracing_mark_write: trace_event_clock_sync: name=ktrace-sync-b"
} >"$tmp/stall.txt"
run "$ktrace" merge "$tmp/stall.fxt" "$tmp/stall.txt" -o "$tmp/stall-m.fxt"
got=$(sed -n 's/.*ftrace + \(-\?[0-9]*\) ns, residual \([0-9]*\) ns.*/\1 \2/p' "$tmp/err")
[ $rc -eq 0 ] && python3 -c "import sys; o, r = map(int, sys.argv[1:3]); sys.exit(0 if abs(o + $off_ns) <= 100 and r == 0 else 1)" ${got:-0 1}
ok $? "a stalled marker write does not skew the offset: offset + residual ${got:-none} (expected -$off_ns within the fast marker's 100 ns, residual 0)"

"$ktrace" dump --strict "$tmp/m.fxt" >"$tmp/dump"
ok $? "the merged trace is valid FXT"
awk '$2 ~ /^[0-9]+\.[0-9]+$/ { if ($2 < last) bad++; last = $2 } END { exit bad > 0 }' "$tmp/dump"
ok $? "the merged records are in time order"
# Neither input in time order: the recorder's (an interrupt's wakeup written
# before the switch it interrupted, complete events written when they end)
# and the ftrace text's (CPU 1's events read late, as trace_pipe can).
"$build/tests/gen_trace" unordered "$tmp/u.fxt"
{
	echo "# tracer: nop"
	while IFS='|' read -r t cpu rest; do
		printf '           demo-100 [%03d] ..... %s: %s\n' "$cpu" "$(fts "$t" 9)" "$rest"
	done <<'EVENTS'
1000000001000|0|tracing_mark_write: trace_event_clock_sync: name=ktrace-sync-u
1000000003000|0|irq_handler_entry: irq=24 name=virtio0
1000000003200|0|irq_handler_exit: irq=24 ret=handled
1000000004000|0|sched_wakeup: comm=demo pid=100 prio=120 target_cpu=000
1000000002800|1|sched_wakeup: comm=worker-a pid=101 prio=120 target_cpu=001
1000000003500|1|sched_wakeup: comm=demo pid=100 prio=120 target_cpu=001
1000000008000|0|sched_wakeup: comm=worker-a pid=101 prio=120 target_cpu=000
EVENTS
} >"$tmp/u.txt"
run "$ktrace" merge "$tmp/u.fxt" "$tmp/u.txt" -o "$tmp/um.fxt"
"$ktrace" dump --strict "$tmp/um.fxt" >"$tmp/udump"
got=$(awk '$2 ~ /^[0-9]+\.[0-9]+$/ { n++; if ($2 < last) bad++; last = $2 } END { print n + 0, bad + 0 }' "$tmp/udump")
[ $rc -eq 0 ] && [ "$got" = "14 0" ]
ok $? "inputs out of time order merge in order, none lost (records with a time, out of order: $got; expected 14 0)"
[ $rc -eq 0 ] || sed 's/^/# /' "$tmp/err"
# ftrace's loss notices, as the kernel and trace-cmd report write them,
# become loss records on their CPU; an event line still merges after them.
{
	mkdump 9 plain
	echo "CPU:1 [LOST 42 EVENTS]"
	echo "CPU:0 [7 EVENTS DROPPED]"
	echo "CPU:1 [LOST EVENTS]"
	echo "my-instance: CPU:0 [5 EVENTS DROPPED]"
} >"$tmp/lost.txt"
run "$ktrace" merge "$tmp/s.fxt" "$tmp/lost.txt" -o "$tmp/lost.fxt"
"$ktrace" dump --strict "$tmp/lost.fxt" >"$tmp/lost.dump"
[ $rc -eq 0 ] && grep -q 'ftrace lost 54 events while capturing' "$tmp/err" &&
	grep -q 'lost.txt:11: CPU 1 lost events, ftrace does not say how many' "$tmp/err" &&
	grep -q '"ktrace:meta":"dropped" cpu=1 count=42 .*source="ftrace"' "$tmp/lost.dump" &&
	grep -q '"ktrace:meta":"dropped" cpu=0 count=7 .*source="ftrace"' "$tmp/lost.dump" &&
	grep -q '"ktrace:meta":"dropped" cpu=0 count=5 .*source="ftrace"' "$tmp/lost.dump" &&
	"$ktrace" dump --stats --quiet "$tmp/lost.fxt" | grep -q "^dropped: 71 records (54 of them ftrace's)"
ok $? "ftrace's loss lines, with trace-cmd's instance name too, become loss records on their CPU (42 + 7 + 5 + an unknown number; 71 with the trace's 17)" ||
	diag "$tmp/err"

# A complete event written after the 2.2 million switches it spans: more
# than the merge holds in memory to sort.  It says so, and loses nothing.
"$build/tests/gen_trace" wide 2200000 "$tmp/wide.fxt"
printf '# tracer: nop\n           demo-100 [000] ..... %s: tracing_mark_write: trace_event_clock_sync: name=ktrace-sync-u\n' \
	"$(fts 1000000001000 9)" >"$tmp/wide.txt"
run "$ktrace" merge "$tmp/wide.fxt" "$tmp/wide.txt" -o "$tmp/widem.fxt"
got=$("$ktrace" dump --strict "$tmp/widem.fxt" |
	awk '$2 ~ /^[0-9]+\.[0-9]+$/ { n++; if ($2 < last) bad++; last = $2 } END { print n + 0, bad + 0 }')
[ $rc -eq 0 ] && grep -q 'records up to 0.220 s out of order, more than 128 MiB of them in memory could sort' "$tmp/err" &&
	[ "$got" = "2200003 1" ]
ok $? "out of order by more than memory can sort: said so, nothing lost (records with a time, out of order: $got; expected 2200003 1)"
[ $rc -eq 0 ] || sed 's/^/# /' "$tmp/err"
rm -f "$tmp/wide.fxt" "$tmp/widem.fxt"

grep -q 'duration begin: 1073741824/1073741825 "ftrace":"irq virtio0"' "$tmp/dump" &&
	grep -q 'kernel_object: thread koid=1073741825 name="CPU 0 irq"' "$tmp/dump"
ok $? "irq entry/exit became a duration on CPU 0's interrupt track"
grep -q '"ftrace":"softirq TIMER"' "$tmp/dump" && grep -q 'instant: 102/102 "ftrace":"sched_wakeup" comm="worker-a" pid=101 prio=120' "$tmp/dump"
ok $? "softirq pairs become durations; other events keep typed key=value arguments"

# A syscall pair before the first irq: the interrupt tracks' process is still named.
{ printf '# tracer: nop\n'
  printf '%16s [%03d] ....1 %s: sys_enter: NR 0 (0, 0, 0)\n' 'demo-100' 0 "$(fts 1000000004000 6)"
  printf '%16s [%03d] ....1 %s: sys_exit: NR 0 = 0\n' 'demo-100' 0 "$(fts 1000000004500 6)"
  mkdump 6 plain | grep -v '^#'; } >"$tmp/sys.txt"
run "$ktrace" merge "$tmp/s.fxt" "$tmp/sys.txt" -o "$tmp/sys.fxt"
"$ktrace" dump "$tmp/sys.fxt" | grep -q 'kernel_object: process koid=1073741824 name="interrupts"'
ok $? "the interrupts process is named even when a syscall pair comes first"

mkdump 6 plain >"$tmp/f.txt"
sed -i '4a this line is garbage' "$tmp/f.txt"
run "$ktrace" merge "$tmp/s.fxt" "$tmp/f.txt" -o "$tmp/m2.fxt"
[ $rc -eq 1 ] && grep -q "f.txt:5: not an ftrace event line" "$tmp/err" &&
	[ "$("$ktrace" dump "$tmp/m2.fxt" | grep -c '"ftrace"')" -eq "$("$ktrace" dump "$tmp/m.fxt" | grep -c '"ftrace"')" ]
ok $? "a malformed line is named by its number, the rest is merged, exit status 1"

mkdump 6 plain | grep -v clock_sync >"$tmp/nosync.txt"
run "$ktrace" merge "$tmp/s.fxt" "$tmp/nosync.txt" -o "$tmp/m3.fxt"
[ $rc -eq 0 ] && grep -q 'no sync marker in common' "$tmp/err"
ok $? "without a common marker the merge says it assumes one clock"

printf '# tracer: nop\n#\n' >"$tmp/empty.txt"
run "$ktrace" merge "$tmp/s.fxt" "$tmp/empty.txt" -o "$tmp/m4.fxt"
[ $rc -eq 1 ] && grep -q 'no ftrace event lines found' "$tmp/err"
ok $? "a dump with no events is refused with the reason"
run "$ktrace" merge "$tmp/missing.fxt" "$tmp/f.txt" -o "$tmp/m5.fxt"
[ $rc -eq 1 ] && grep -q "cannot open $tmp/missing.fxt" "$tmp/err"
ok $? "a missing trace is named"

mkdump 6 plain >"$tmp/f.txt"
run "$ktrace" merge --embed-ftrace "$tmp/s.fxt" "$tmp/f.txt" -o "$tmp/e.json"
node -e '
const j = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
const c = j.traceEvents.filter(e => e.ph === "c" && e.args.sync_id === "ktrace-sync-1");
process.exit(c.length === 1 && j.systemTraceEvents.startsWith("# tracer:") &&
	j.systemTraceEvents.includes("trace_event_clock_sync: name=ktrace-sync-1") &&
	!j.traceEvents.some(e => e.cat === "ftrace") ? 0 : 1)' "$tmp/e.json"
ok $? "--embed-ftrace: the text goes to systemTraceEvents with its marker, paired with a clock_sync event"
run "$ktrace" merge "$tmp/s.fxt" "$tmp/f.txt" -o "$tmp/m.json"
node -e '
const j = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
const b = j.traceEvents.find(e => e.ph === "B" && e.name === "irq virtio0");
process.exit(b && Math.abs(b.ts - 1000000005) <= 1 ? 0 : 1)' "$tmp/m.json"
ok $? "merged JSON: the irq duration sits at its recorder-clock time"

finish
