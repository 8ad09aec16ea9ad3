#!/bin/bash
# ktrace latency on a trace whose waits are known (gen_trace latency): exact
# latencies, blame, wakers, migration, what is not measured, filters, the
# report as JSON, the annotated trace (FXT and JSON, read by DevTools'
# trace engine), and bad input of every kind.
# usage: tests/test_latency.sh BUILD_DIR.  TAP output; no root needed.
set -u
build=${1:-build}
ktrace=$build/ktrace
gen=$build/tests/gen_trace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/lib/tap.sh"
# jq-like checks: python3 -c EXPR over the JSON report in $tmp/out.
jcheck() { python3 -c "import json,sys; r=json.load(open('$tmp/out')); sys.exit(0 if ($1) else 1)"; }

echo "TAP version 13"
"$gen" latency "$tmp/l.fxt"
T0=1000000000000

run "$ktrace" latency "$tmp/l.fxt" --json --top 4
ok $rc "latency --json reads the trace" || diag "$tmp/err"
cat >"$tmp/lib.py" <<EOF
def g(r, key): return next(x for x in r['groups'] if x['key'] == key)
EOF
export PYTHONPATH=$tmp
jcheck "(lambda v: v['wakeup']['count'] == 2 and v['wakeup']['max'] == 5000 and v['wakeup']['min'] == 900 and v['wakeup']['max_ts'] == $T0 + 7000)(__import__('lib').g(r, 200))"
ok $? "victim: 2 wakeup waits, 900 ns and 5000 ns, the longest ending at T0+7000"
jcheck "(lambda v: v['preemption']['count'] == 1 and v['preemption']['max'] == 3000 and v['preemption']['p50'] == 3000)(__import__('lib').g(r, 200))"
ok $? "victim: one preemption wait of 3000 ns, p50 exact"
jcheck "(lambda v: v['blocked']['S'] == {'count': 1, 'ns': 1500} and v['blocked']['D'] == {'count': 1, 'ns': 1100})(__import__('lib').g(r, 200))"
ok $? "victim: blocked 1500 ns in S and 1100 ns in D, kept apart"
jcheck "r['not_measured'] == {'before_trace': 5, 'no_wakeup': 1, 'overlaps_loss': 1} and r['lost_records'] == 7 and r['loss_ranges'] == 1"
ok $? "not measured: 5 waits begun before the trace, 1 switch-in without a wakeup, 1 wait over lost records" ||
	diag "$tmp/out"
jcheck "__import__('lib').g(r, 204)['not_measured'] == {'before_trace': 1, 'no_wakeup': 1, 'overlaps_loss': 0} and __import__('lib').g(r, 205)['not_measured']['overlaps_loss'] == 1 and __import__('lib').g(r, 205)['wakeup']['count'] == 0"
ok $? "each unmeasured wait is counted on its own thread, none in a distribution"
jcheck "[w['latency'] for w in r['top']] == [5000, 3000, 900, 100] and [w['kind'] for w in r['top']] == ['wakeup', 'preemption', 'wakeup', 'wakeup']"
ok $? "--top 4 lists the worst waits, longest first"
jcheck "(lambda w: w['waker'] == 202 and w['waker_context'] == 'task' and w['wake_cpu'] == 0 and w['cpu'] == 1 and not w['migrated'] and w['blame']['threads'] == [{'tid': 201, 'comm': 'hog', 'prio': 49, 'ns': 5000}] and w['blame']['hardirq_ns'] == 500 and w['blame']['irqs'] == [{'name': 'irq 27 eth0', 'ns': 500}] and w['blame']['idle_ns'] == 0)(r['top'][0])"
ok $? "worst wait: woken by waker 202 on CPU 0, CPU 1 held by hog (prio 49) 5000 ns, irq 27 eth0 500 ns" ||
	diag "$tmp/out"
jcheck "(lambda w: w['waker_context'] == 'softirq' and w['waker_irq'] == 'softirq TIMER' and w['interrupted'] == 202 and 'waker' not in w and w['migrated'] and w['prev_cpu'] == 1 and w['cpu'] == 0 and w['blame']['threads'][0]['tid'] == 202 and w['blame']['softirq_ns'] == 100)(r['top'][2])"
ok $? "a softirq wakeup names the softirq and the task it interrupted, not a waker; migration CPU 1 -> 0"

run "$ktrace" latency "$tmp/l.fxt" --top 4
grep -q '^ *200 victim  *200 app  *2  *0.9  *5.0  *5.0  *5.0  1000.000007000$' "$tmp/out" &&
	grep -q 'woken from softirq (softirq TIMER) on CPU 0, interrupting waker 202; migrated: last ran on CPU 1' "$tmp/out" &&
	grep -q 'CPU 1 meanwhile: hog 201 (rt 50) 5.0 us, hardirq 500 ns (irq 27 eth0 500 ns)' "$tmp/out" &&
	grep -q '^not measured: 5 waits began before the trace, 1 switch-ins had no recorded wakeup, 1 waits overlap lost records (7 records lost in 1 time ranges)$' "$tmp/out"
ok $? "the text report shows the rows, the blame, the waker and what was not measured" || diag "$tmp/out"

run "$ktrace" latency "$tmp/l.fxt" --by process --json --top 0
jcheck "[x['key'] for x in r['groups'] if x['wakeup']['count']] == [200] and __import__('lib').g(r, 200)['wakeup']['count'] == 3 and __import__('lib').g(r, 200)['wakeup']['max_tid'] == 200 and r['top'] == []"
ok $? "--by process puts victim's and hog's waits in process 200"
run "$ktrace" latency "$tmp/l.fxt" --by cpu --json
jcheck "__import__('lib').g(r, 0)['wakeup']['count'] == 1 and __import__('lib').g(r, 1)['wakeup']['count'] == 2 and __import__('lib').g(r, 1)['preemption']['max'] == 3000"
ok $? "--by cpu groups waits by the CPU they ended on"
run "$ktrace" latency "$tmp/l.fxt" --json --min-latency 1us
jcheck "r['waits'] == 2 and r['filtered'] == 2"
ok $? "--min-latency 1us keeps the 2 waits of at least 1 us"
run "$ktrace" latency "$tmp/l.fxt" --json --comm hog --top 1
jcheck "[x['key'] for x in r['groups'] if x['wakeup']['count']] == [201] and r['top'][0]['tid'] == 201"
ok $? "--comm hog keeps only the hog's waits"
run "$ktrace" latency "$tmp/l.fxt" --json --pid 200 --cpu 0
jcheck "r['waits'] == 1 and r['top'][0]['latency'] == 900"
ok $? "--pid 200 --cpu 0: the one wait of process 200 that ended on CPU 0"
run "$ktrace" latency "$tmp/l.fxt" --pid 200 --hist --by all
grep -q '^     usecs               : count     distribution$' "$tmp/out" &&
	grep -q '^ *4 -> 7  *: 1  *|\*\{20\} \{20\}|$' "$tmp/out"
ok $? "--hist prints runqlat's log2 layout" || diag "$tmp/out"
run "$ktrace" latency "$tmp/l.fxt" --pid 200 --hist --by all -m --json
jcheck "r['hist_unit_ns'] == 1000000 and r['groups'][0]['wakeup']['log2'] == [3]"
ok $? "-m counts the histogram in milliseconds"

# The trace written back, with the worst waits as slices.
run "$ktrace" latency "$tmp/l.fxt" --top 3 -o "$tmp/a.fxt"
ok $rc "-o writes the annotated trace" || diag "$tmp/err"
run "$ktrace" dump --strict "$tmp/a.fxt"
[ $rc -eq 0 ] && [ "$(grep -c '"ktrace:latency":"' "$tmp/out")" -eq 3 ] &&
	grep -q '1000.000002000 duration complete: 200/200 "ktrace:latency":"wakeup latency" dur=5000 latency=5000 cpu=1 waker=koid:202 prev_cpu=1 blame="hog 201 (rt 50) 5.0 us, hardirq 500 ns (irq 27 eth0 500 ns)"' "$tmp/out"
ok $? "the annotated trace is valid FXT with 3 slices on the waiting thread, in time order" ||
	diag "$tmp/out"
[ "$("$ktrace" dump "$tmp/a.fxt" | grep -vc '"ktrace:latency":"')" -eq "$("$ktrace" dump "$tmp/l.fxt" | wc -l)" ]
ok $? "every record of the input is in the annotated trace"
run "$ktrace" latency "$tmp/l.fxt" --top 3 -o "$tmp/a.json"
if need_trace_engine "DevTools' trace engine finds the wait slices on the victim's thread"; then
	(cd tests/js && node check_latency.mjs "$tmp/a.json") >"$tmp/js" 2>&1
	ok $? "DevTools' trace engine finds the wait slices on the victim's thread"
	grep -E '^not ok|^#' "$tmp/js" | sed 's/^/# /'
fi

# Bad input: clear errors, and an output file that was there stays as it was.
echo "keep me" >"$tmp/keep.fxt"
yes "not a trace" | head -c 4096 >"$tmp/garbage.fxt"
run "$ktrace" latency "$tmp/garbage.fxt" -o "$tmp/keep.fxt"
[ $rc -eq 1 ] && [ "$(cat "$tmp/err")" = "ktrace: error: $tmp/garbage.fxt: not an FXT trace: it does not start with FXT's magic number record" ] &&
	[ "$(cat "$tmp/keep.fxt")" = "keep me" ]
ok $? "text: 'not an FXT trace', and -o's file is untouched" || diag "$tmp/err"
"$ktrace" convert "$tmp/l.fxt" -o "$tmp/l.json" 2>/dev/null
run "$ktrace" latency "$tmp/l.json"
[ $rc -eq 1 ] && grep -q 'this looks like JSON, not FXT: ktrace reads FXT traces' "$tmp/err"
ok $? "a JSON trace is refused at once, saying so"
: >"$tmp/empty.fxt"
run "$ktrace" latency "$tmp/empty.fxt"
[ $rc -eq 1 ] && grep -q 'empty, not an FXT trace' "$tmp/err"
ok $? "an empty file is refused"
run "$ktrace" latency "$tmp/nope.fxt"
[ $rc -eq 1 ] && grep -q "cannot open $tmp/nope.fxt: No such file" "$tmp/err"
ok $? "a missing file is named"
run bash -c "cat '$tmp/l.fxt' | '$ktrace' latency /dev/stdin"
[ $rc -eq 1 ] && grep -q 'give a file, not a pipe' "$tmp/err"
ok $? "a pipe is refused: the analysis reads the file twice"
size=$(stat -c %s "$tmp/l.fxt")
head -c $((size - 20)) "$tmp/l.fxt" >"$tmp/trunc.fxt"
run "$ktrace" latency "$tmp/trunc.fxt" --json
[ $rc -eq 0 ] && grep -q 'analysed the [0-9]* records before it' "$tmp/err" && jcheck "r['top'][0]['latency'] == 5000"
ok $? "a truncated trace is analysed up to the cut, with a warning naming the offset" || diag "$tmp/err"
bad=0
for args in "--by nothing" "--top -1" "--top x" "--min-latency 5parsecs" "--cpu -2" "--pid abc" "" "-o -"; do
	# shellcheck disable=SC2086
	run "$ktrace" latency "$tmp/l.fxt" $args
	[ -z "$args" ] && run "$ktrace" latency
	if [ $rc -ne 2 ]; then bad=1; echo "# '$args' exited $rc"; fi
done
ok $bad "bad options exit 2 with a message"
echo "keep me" >"$tmp/keep.json"
run "$ktrace" latency "$tmp/l.fxt" -o "$tmp/nodir/x.fxt"
[ $rc -eq 1 ] && grep -q "cannot create $tmp/nodir/x.fxt" "$tmp/err" && [ ! -e "$tmp/nodir" ]
ok $? "an output in a missing directory is named in the error"
! ls -a "$tmp" | grep -q '^\..*\.......$'
ok $? "no temporary output file is left behind"

finish
