#!/bin/bash
# ktrace dump and convert as a user runs them: the scenario trace against
# its golden dump and DevTools' trace engine, and bad input of every kind;
# the options every command parses alike (durations, sizes, pids).
# usage: tests/test_cli.sh BUILD_DIR.  TAP output; no root needed (the
# checks that record or mount SKIP without it).
set -u
build=${1:-build}
ktrace=$build/ktrace
gen=$build/tests/gen_trace
tmp=$(mktemp -d)
trap 'umount "$tmp/full" 2>/dev/null; rm -rf "$tmp"' EXIT
source "$(dirname "$0")/lib/tap.sh"
json_valid() { node -e 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))' "$1"; }

echo "TAP version 13"
"$gen" scenario "$tmp/s.fxt"

run "$ktrace" dump --strict "$tmp/s.fxt"
ok $rc "dump --strict accepts the scenario trace"
diff -u tests/golden/scenario.dump "$tmp/out" >"$tmp/diff"
ok $? "dump output matches tests/golden/scenario.dump"
[ $? -eq 0 ] || sed 's/^/# /' "$tmp/diff" | head -20

run "$ktrace" dump --stats --quiet "$tmp/s.fxt"
grep -q '^threads: 5$' "$tmp/out" && grep -q '^cpus: 2$' "$tmp/out" &&
	grep -q '^dropped: 17 records$' "$tmp/out" && grep -q 'context switch (args) 11' "$tmp/out" &&
	grep -q '^time: 1000.000000000 .. 1000.000010400' "$tmp/out"
ok $? "dump --stats counts threads, CPUs, switches, drops and the time span"

run "$ktrace" convert "$tmp/s.fxt" -o "$tmp/s.json"
ok $rc "convert writes JSON"
if need_trace_engine "DevTools' trace engine finds the scenario's threads, slices and flows"; then
	(cd tests/js && node check_scenario.mjs "$tmp/s.json") >"$tmp/js" 2>&1
	ok $? "DevTools' trace engine finds the scenario's threads, slices and flows"
	grep -E '^not ok|^#' "$tmp/js" | sed 's/^/# /'
fi

# Truncated input: what is readable is converted, the error names the offset.
size=$(stat -c %s "$tmp/s.fxt")
head -c $((size - 20)) "$tmp/s.fxt" >"$tmp/trunc.fxt"
run "$ktrace" convert "$tmp/trunc.fxt" -o "$tmp/trunc.json"
[ $rc -ne 0 ] && grep -q 'offset 3024 (0xbd0): record size: input ends inside a scheduling record' "$tmp/err"
ok $? "convert of a truncated trace fails and names the offset"
json_valid "$tmp/trunc.json" && grep -q '"end_state":"X"' "$tmp/trunc.json"
ok $? "the truncated trace's JSON is valid and holds the records before the cut"

run "$ktrace" dump "$tmp/trunc.fxt"
[ $rc -ne 0 ] && [ "$(grep -c '^@' "$tmp/out")" -eq 109 ]
ok $? "dump of a truncated trace prints the 109 whole records and fails"

# Garbage: not FXT at all.  Refused at once, and nothing is written.
{ printf 'x'; head -c 4095 /dev/urandom; } >"$tmp/garbage.fxt"
echo "an earlier conversion" >"$tmp/garbage.json"
run timeout 10 "$ktrace" convert "$tmp/garbage.fxt" -o "$tmp/garbage.json"
[ $rc -eq 1 ] && grep -q "garbage.fxt: not an FXT trace: it does not start with FXT's magic number record" "$tmp/err" &&
	[ "$(cat "$tmp/garbage.json")" = "an earlier conversion" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]
ok $? "convert of random bytes is refused at once, in one line, and the output file is untouched" ||
	diag "$tmp/err"
run "$ktrace" dump "$tmp/garbage.fxt"
[ $rc -eq 1 ] && [ ! -s "$tmp/out" ] && grep -q 'not an FXT trace' "$tmp/err"
ok $? "dump of random bytes prints no records, only the reason"
run bash -c "cat '$tmp/garbage.fxt' | '$ktrace' dump -"
[ $rc -eq 1 ] && [ ! -s "$tmp/out" ] && grep -q 'offset 0 (0x0): magic: not an FXT trace' "$tmp/err"
ok $? "the same through a pipe stops at the first record"
"$ktrace" convert "$tmp/s.fxt" -o "$tmp/s2.json" 2>/dev/null
run "$ktrace" dump "$tmp/s2.json"
[ $rc -eq 1 ] && [ ! -s "$tmp/out" ] && grep -q 's2.json: this looks like JSON, not FXT' "$tmp/err"
ok $? "dump of a JSON trace says it is JSON"
run "$ktrace" dump --stats "$tmp/s.fxt"
[ $rc -eq 0 ] && ! grep -q '^@' "$tmp/out" && grep -q '^threads: 5$' "$tmp/out"
ok $? "dump --stats prints only the summary"
run "$ktrace" dump "$tmp/s.fxt"
grep -q 'switch: tid=102 running (R) ==> tid=100 .*  \[worker-b ==> demo\]$' "$tmp/out" &&
	grep -q 'wakeup: tid=101 weight=20 waker=koid:102  \[worker-a woken by worker-b\]$' "$tmp/out" &&
	grep -q 'irq_context=2 interrupted=koid:0  \[worker-a woken from hardirq\]$' "$tmp/out"
ok $? "dump lines name the threads: switch, wakeup, wakeup from an interrupt"
run "$ktrace" --version
[ $rc -eq 0 ] && grep -qE '^ktrace [^ ]+ \(module ABI [0-9]+\)$' "$tmp/out"
ok $? "ktrace --version"

: >"$tmp/empty.fxt"
run "$ktrace" convert "$tmp/empty.fxt" -o "$tmp/empty.json"
[ $rc -eq 1 ] && grep -q 'empty, not an FXT trace' "$tmp/err"
ok $? "convert of an empty file says so"

run "$ktrace" convert "$tmp/missing.fxt" -o "$tmp/x.json"
[ $rc -eq 1 ] && grep -q "cannot open $tmp/missing.fxt: No such file" "$tmp/err"
ok $? "a missing input file is named"

# Outputs that are not regular files are written in place, never replaced.
run "$ktrace" convert "$tmp/s.fxt" -o /dev/null
[ $rc -eq 0 ] && [ -c /dev/null ]
ok $? "convert -o /dev/null leaves /dev/null a device"
mkfifo "$tmp/fifo"
# A bounded reader: a convert that fails before it opens the FIFO must not hang the suite.
timeout 60 cat "$tmp/fifo" >"$tmp/fromfifo" &
run "$ktrace" convert "$tmp/s.fxt" -o "$tmp/fifo"
wait
[ $rc -eq 0 ] && [ -p "$tmp/fifo" ] && json_valid "$tmp/fromfifo"
ok $? "convert into a FIFO writes through it and leaves it a FIFO"
echo "old" >"$tmp/target.json"
ln -s "$tmp/target.json" "$tmp/link.json"
run "$ktrace" convert "$tmp/s.fxt" -o "$tmp/link.json"
[ $rc -eq 0 ] && [ -L "$tmp/link.json" ] && json_valid "$tmp/target.json"
ok $? "convert through a symbolic link replaces the file it names and keeps the link"

run "$ktrace" convert "$tmp/s.fxt" -o /proc/nonexistent/x.json
[ $rc -eq 1 ] && grep -q 'cannot create /proc/nonexistent/x.json' "$tmp/err"
ok $? "an unwritable output is named"

# A reserved bit set in the initialization record (offset 0x18, bit 40).
python3 - "$tmp/s.fxt" "$tmp/reserved.fxt" <<'PY'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
b[0x18 + 5] |= 1
open(sys.argv[2], 'wb').write(b)
PY
run "$ktrace" dump --quiet "$tmp/reserved.fxt"
ok $rc "without --strict a reserved-bit violation is only a warning"
run "$ktrace" dump --strict --quiet "$tmp/reserved.fxt"
[ $rc -ne 0 ] && grep -q 'offset 24 (0x18): initialization: reserved bits 16..63' "$tmp/err"
ok $? "dump --strict fails on a reserved bit and names offset and field"

# The timeline check: each kind of break explained by its record passes;
# each violation is reported with its time, CPU, threads and offset.
check_timeline "$tmp/s.fxt" "the scenario"
"$gen" timeline-ok "$tmp/tok.fxt"
run "$ktrace" dump --check "$tmp/tok.fxt"
[ $rc -eq 0 ] && grep -q '^timeline: 11 switches on 2 CPUs, 3 wakeups; 4 chain breaks: 1 after loss records on the CPU, 1 untraced_switch records (the kernel.s), 1 cpu_offline/cpu_online records, 1 losses on unknown CPUs$' "$tmp/out" &&
	grep -q '^timeline: 0 unexplained violations$' "$tmp/out"
ok $? "dump --check: breaks after a loss, an untraced_switch, a cpu_offline record and a loss on no known CPU are explained; a wakeup before the switch-out counts" ||
	diag "$tmp/out"
# Threads no record names say so, never with an empty name.
"$ktrace" dump "$tmp/tok.fxt" >"$tmp/out"
"$ktrace" convert "$tmp/tok.fxt" -o "$tmp/tok.json"
grep -q '\[<unnamed 303> ==> idle\]$' "$tmp/out" && grep -q '\[<unnamed 305> woken by stayer\]$' "$tmp/out" &&
	python3 -c "
import json, sys
ev = json.load(open('$tmp/tok.json'))['traceEvents']
names = {e['tid']: e['args']['name'] for e in ev if e.get('ph') == 'M' and e.get('name') == 'thread_name'}
runs = {e['args']['tid']: e['name'] for e in ev if e.get('ph') == 'X' and e.get('cat') == 'sched' and 'tid' in e['args']}
sys.exit(0 if names.get(305) == '<unnamed 305>' and runs.get(305) == '<unnamed 305>' and all(names.values()) else 1)"
ok $? "a thread no record names is '<unnamed TID>' in dump, and in the JSON's track and CPU slices"
"$gen" timeline-bad "$tmp/tbad.fxt"
run "$ktrace" dump --check "$tmp/tbad.fxt"
[ $rc -eq 1 ] &&
	grep -q '^violation: 1000.000000300 \[000\] switches out tid 403, but tid 401 was switched in (at 1000.000000100) .* (offset 1192)$' "$tmp/out" &&
	grep -q '^violation: 1000.000000500 \[001\] switches in tid 402, which blocked, with no wakeup since it last ran' "$tmp/out" &&
	grep -q '^violation: 1000.000000600 \[001\] tid 402 switched in on CPU 0 while it runs here until 1000.000000700' "$tmp/out" &&
	grep -q '^violation: 1000.000000900 \[000\] an untraced_switch record, but the next switch takes off tid 402' "$tmp/out" &&
	grep -q '^timeline: 4 unexplained violations$' "$tmp/out"
ok $? "dump --check reports a break, a switch-in without wakeup, a thread on two CPUs and a stray untraced_switch, and fails" ||
	diag "$tmp/out"
# A wakeup the kernel did not trace: the recorder's untraced_wakeup record
# stands for it; a blocked thread run with neither is still a violation.
"$gen" untraced-wakeup "$tmp/uw.fxt"
run "$ktrace" dump --check "$tmp/uw.fxt"
[ $rc -eq 1 ] &&
	grep -q '^violation: 1000.000000400 \[001\] switches in tid 702, which blocked, with no wakeup since it last ran' "$tmp/out" &&
	! grep -q 'tid 701' "$tmp/out" &&
	grep -q '^timeline: 1 untraced_wakeup records (a blocked thread ran again with no sched_waking the recorder saw)$' "$tmp/out" &&
	grep -q '^timeline: 1 unexplained violations$' "$tmp/out"
ok $? "dump --check: a blocked thread run after an untraced_wakeup record is woken; one run with no record is not" ||
	diag "$tmp/out"
run "$ktrace" dump --stats "$tmp/uw.fxt"
grep -q '^untraced wakeups: 1 (wakeups the recorder did not see)$' "$tmp/out"
ok $? "dump --stats counts the untraced wakeups" || diag "$tmp/out"
"$ktrace" dump "$tmp/uw.fxt" >"$tmp/out"
grep -q 'untraced_wakeup' "$tmp/out"
ok $? "dump prints the untraced_wakeup record" || diag "$tmp/out"
# Ragged edges: a CPU's switches ending before its wakeups do, or beginning
# after them, and a record past the span trace_info gives.
"$gen" ragged "$tmp/rag.fxt"
run "$ktrace" dump --check "$tmp/rag.fxt"
[ $rc -eq 1 ] &&
	grep -q '^violation: 1000.000000150 \[001\] a wakeup made by tid 505 before the first switch here, but tid 504 ran here then' "$tmp/out" &&
	grep -q '^violation: 1000.000001200 \[000\] a wakeup made by tid 502, but the switches here have tid 501 on the CPU (since 1000.000001000)' "$tmp/out" &&
	grep -q '^violation: 1000.000001500 \[000\] a wakeup made by tid 503, ' "$tmp/out" &&
	grep -q '^violation: 1000.000002500 \[001\] a record outside the recording.s span (1000.000000000 to 1000.000002000' "$tmp/out" &&
	grep -q '^timeline: 4 unexplained violations$' "$tmp/out"
ok $? "dump --check reports wakeups made by threads the CPU's switches do not have on it, before its first switch and after its last, and a record outside the span; not an idle CPU's, nor one after a loss there" ||
	diag "$tmp/out"
run "$ktrace" dump --stats "$tmp/tok.fxt"
grep -q '^untraced switches: 1 (the kernel.s)$' "$tmp/out" &&
	grep -q '^dropped: 4 records (1 of them on no known CPU)$' "$tmp/out"
ok $? "dump --stats counts untraced switches and losses on no known CPU" || diag "$tmp/out"
run "$ktrace" dump "$tmp/tok.fxt"
grep -q '"ktrace:meta":"untraced_switch" cpu=1 tid=koid:302 switched_out=koid:304 first_ts=1000000000200 last_ts=1000000001100$' "$tmp/out"
ok $? "dump prints an untraced_switch record with its CPU, threads and time range" || diag "$tmp/out"
# Thread 302 ran from 200 ns until some time before 1100 ns: its slice ends
# where that stretch begins, and the stretch is drawn on CPU 1.
run "$ktrace" convert "$tmp/tok.fxt" -o "$tmp/tok.json"
python3 - "$tmp/tok.json" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))['traceEvents']
cpu1 = [e for e in ev if e.get('ph') == 'X' and e.get('tid') == 1000000001]
run = [e for e in cpu1 if e.get('args', {}).get('tid') == 302 and e['name'] == 'stranded']
gap = [e for e in cpu1 if e['name'] == 'untraced switch']
sys.exit(0 if len(run) == 1 and run[0]['dur'] == 0 and run[0]['args']['end_state'] == 'untraced' and
         len(gap) == 1 and gap[0]['ts'] == 1000000000.2 and gap[0]['dur'] == 0.9 else 1)
PY
ok $? "JSON: the stranded thread's slice ends where the untraced stretch begins, which is drawn on its CPU"
# 305's wait (300-1100 ns) ends on CPU 1 across its untraced stretch
# (200-1100 ns) and overlaps the records lost on CPU 0 (850-880 ns), which
# may hide its own switch-in; 302, stranded on CPU 1 by that stretch, comes
# back on CPU 0 at 1200 unwoken: preempted or woken unseen, not measured
# either; 301's (450-500 ns) is on CPU 0, and so is its next one, from the
# wakeup at 600 that raced its sleep to its switch-in at 800, as perf sched
# counts it.
run "$ktrace" latency --json "$tmp/tok.fxt"
python3 -c "import json,sys; r=json.load(open('$tmp/out')); sys.exit(0 if r['not_measured']['overlaps_loss'] == 2 and [g['not_measured']['overlaps_loss'] for g in r['groups'] if g['key'] in (302, 305)] == [1, 1] and r['waits'] == 2 and sorted((w['tid'], w['start'] - 1000000000000, w['latency']) for w in r['top']) == [(301, 450, 50), (301, 600, 200)] else 1)"
ok $? "ktrace latency measures no wait across lost records, and still the others, one from a wakeup that raced the sleep" || diag "$tmp/out"

run "$ktrace" dump --bogus "$tmp/s.fxt"
[ $rc -eq 2 ] && grep -q 'usage: ktrace dump' "$tmp/err"
ok $? "an unknown option prints the usage"
run "$ktrace" frobnicate
[ $rc -eq 2 ] && grep -q "unknown command 'frobnicate'" "$tmp/err"
ok $? "an unknown command is named"

# Durations: a number and a unit; a bare number only where it is seconds (-d).
run "$ktrace" record -d 300xs -o "$tmp/d.fxt"
[ $rc -eq 2 ] && [ "$(cat "$tmp/err")" = "ktrace record: -d '300xs': unknown unit 'xs' (use ns, us, ms, s, m or h)" ] &&
	[ ! -e "$tmp/d.fxt" ]
ok $? "record -d 300xs is refused, naming the option and the unit, before anything records" ||
	diag "$tmp/err"
bad=0
# Each case: the option the message must name, then the arguments.
while read -r opt args; do
	# shellcheck disable=SC2086
	run "$ktrace" record -o "$tmp/d.fxt" $args
	if [ $rc -ne 2 ] || [ -e "$tmp/d.fxt" ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] ||
		! grep -q "^ktrace record: $opt '" "$tmp/err"; then
		bad=1; echo "# '$args' exited $rc:"; diag "$tmp/err"
	fi
done <<'EOF'
-d -d -5
-d -d 5ms7
-d -d 0
-d -d ms
--duration --duration 1e3
-d -d 5_s
-d -d 99999999999h
--stop-on-latency --stop-on-latency 200
--after --stop-on-latency 5ms --after 5
--after --stop-on-latency 5ms --after 5parsecs
--after --stop-on-latency 5ms --after 2h
EOF
ok $bad "bad durations (negative, trailing junk, 0, no number, too long, bare where a unit is needed) are refused in one line naming the option"
run "$ktrace" latency "$tmp/s.fxt" --min-latency 200
[ $rc -eq 2 ] && grep -q "^ktrace latency: --min-latency '200': give a unit, as in 200us or 200ms" "$tmp/err"
ok $? "latency --min-latency 200 asks for a unit: a bare number there used to be microseconds" ||
	diag "$tmp/err"
run "$ktrace" record --help
[ $rc -eq 0 ] && grep -q 'A bare number is seconds where an option says so' "$tmp/out" &&
	grep -q '^  -d, --duration DUR .*a bare number is seconds' "$tmp/out"
ok $? "record --help says how durations are written"

# Pids: one range and one message in every command.
bad=0
for pid in 0 -1 4194305 99999999999999999999 12x ""; do
	run "$ktrace" record -o "$tmp/p.fxt" --stop-on-latency 5ms --pid "$pid"
	rmsg=$(cat "$tmp/err"); rrc=$rc
	run "$ktrace" latency "$tmp/s.fxt" --pid "$pid"
	if [ $rrc -ne 2 ] || [ $rc -ne 2 ] ||
		[ "$rmsg" != "ktrace record: --pid '$pid': give a thread or process id from 1 to 4194304" ] ||
		[ "$(cat "$tmp/err")" != "ktrace latency: --pid '$pid': give a thread or process id from 1 to 4194304" ]; then
		bad=1; echo "# --pid '$pid': record $rrc, latency $rc:"; echo "$rmsg" | sed 's/^/# /'; diag "$tmp/err"
	fi
done
ok $bad "--pid 0, -1, 4194305, too large, 12x and empty: refused alike by record and latency"
run "$ktrace" record -o "$tmp/p.fxt" --stop-on-latency 5ms --pid 4194304
[ $rc -eq 1 ] && grep -q -- '--pid 4194304: no such thread or process is running' "$tmp/err" && [ ! -e "$tmp/p.fxt" ]
ok $? "record --pid of no running thread is refused before recording" || diag "$tmp/err"

# Sizes and the getopt tail.
bad=0
for b in 4Q 4MB 99999999999999999999 0x10 ""; do
	run "$ktrace" record -o "$tmp/b.fxt" -b "$b"
	[ $rc -eq 2 ] && grep -q "^ktrace record: -b '$b': " "$tmp/err" && [ ! -e "$tmp/b.fxt" ] ||
		{ bad=1; echo "# -b '$b': $rc"; diag "$tmp/err"; }
done
ok $bad "bad sizes (unknown unit, too large, hex, empty) are refused naming -b"
run "$ktrace" convert "$tmp/s.fxt" -o
[ $rc -eq 2 ] && grep -q "^ktrace convert: -o needs an argument$" "$tmp/err" &&
	grep -q "^'ktrace convert --help' describes every option.$" "$tmp/err"
ok $? "a missing argument is named, with the synopsis and where the rest is" || diag "$tmp/err"
run "$ktrace" dump --strict=yes "$tmp/s.fxt"
[ $rc -eq 2 ] && grep -q "^ktrace dump: --strict takes no argument$" "$tmp/err"
ok $? "an argument to an option that takes none is named" || diag "$tmp/err"
run "$ktrace" merge "$tmp/s.fxt" -o "$tmp/m.fxt"
[ $rc -eq 2 ] && grep -q "^ktrace merge: 1 operand is missing$" "$tmp/err" && [ ! -e "$tmp/m.fxt" ]
ok $? "a missing operand is counted" || diag "$tmp/err"
bad=0
for c in dump convert latency mark merge record; do
	run "$ktrace" $c --help
	[ $rc -eq 0 ] && [ ! -s "$tmp/err" ] && grep -q "^usage: ktrace $c" "$tmp/out" &&
		grep -q '^  -h, --help  *this text$' "$tmp/out" && grep -q '^EXAMPLES$' "$tmp/out" ||
		{ bad=1; echo "# $c --help: $rc"; }
done
ok $bad "every command's --help: usage, -h, EXAMPLES, on stdout"

# A convert that fails after its output was opened removes its temporary file.
echo "an earlier conversion" >"$tmp/keep.json"
tried=0 bad=0
for kib in $(seq 4000 1000 16000); do
	(ulimit -v $kib; exec "$ktrace" convert "$tmp/s.fxt" -o "$tmp/keep.json") >"$tmp/out" 2>"$tmp/err"
	grep -q 'out of memory' "$tmp/err" || continue
	tried=$((tried + 1))
	if [ "$(cat "$tmp/keep.json")" != "an earlier conversion" ] || ls -A "$tmp" | grep -q '^\.keep\.json\.'; then
		bad=1; echo "# ulimit -v $kib:"; diag "$tmp/err"
	fi
done
if [ $tried -gt 0 ]; then
	ok $bad "convert out of memory ($tried address space limits): no temporary left, the old output kept"
else
	skip "convert out of memory leaves no temporary" "no address space limit from 4000 to 16000 KiB made it run out"
fi
if [ "$(id -u)" -eq 0 ] && mkdir "$tmp/full" && mount -t tmpfs -o size=4k tmpfs "$tmp/full" 2>/dev/null; then
	echo "old" >"$tmp/full/x.json"
	run "$ktrace" convert "$tmp/s.fxt" -o "$tmp/full/x.json"
	[ $rc -eq 1 ] && grep -q "writing $tmp/full/x.json: No space left on device" "$tmp/err" &&
		[ "$(ls -A "$tmp/full")" = "x.json" ] && [ "$(cat "$tmp/full/x.json")" = "old" ]
	ok $? "convert onto a full disk: the error names the file, no temporary left, the old output kept" ||
		diag "$tmp/err"
	umount "$tmp/full"
else
	skip "convert onto a full disk" "mounting a 4 KiB tmpfs needs root"
fi

# The compact archive (fxt_compact.h) reads as the recorders' records do:
# each analysis and the JSON are the same for a trace as gen_trace writes
# it and the same trace compacted as `ktrace record` writes archives.
compact=$build/tests/compact_fxt
# perfetto_check FILE WHAT: FILE as Perfetto's own trace processor imports
# it (tests/check_perfetto_import.py), where one is at hand.
perfetto_check() {
	tests/check_perfetto_import.py "$ktrace" "$1" >"$tmp/tp" 2>&1
	case $? in
	0) ok 0 "$2: Perfetto's trace processor imports it: no error, a Waking row per wakeup, the wakers, the names" ;;
	"$EXIT_CANNOT_RUN_HERE") skip "$2: Perfetto's trace processor imports it" "no Perfetto trace processor (../shared/tools/perfetto, or PERFETTO_TP)" ;;
	*) ok 1 "$2: Perfetto's trace processor imports it: no error, a Waking row per wakeup, the wakers, the names"
	   grep -E '^not ok|^#' "$tmp/tp" | diag /dev/stdin ;;
	esac
}

same_json() {
	node -e '
		const fs = require("fs");
		const [a, b] = process.argv.slice(1).map((f) => JSON.parse(fs.readFileSync(f, "utf8")));
		/* More, smaller records: the one thing allowed to differ. */
		delete a.otherData.records; delete b.otherData.records;
		process.exit(JSON.stringify(a) === JSON.stringify(b) ? 0 : 1);' "$1" "$2"
}
for s in scenario latency causes timer chain; do
	"$gen" $s "$tmp/g-$s.fxt" >/dev/null 2>&1 && "$compact" "$tmp/g-$s.fxt" "$tmp/c-$s.fxt"
	ok $? "$s: compact_fxt rewrites gen_trace's trace as record writes archives" || continue
	"$ktrace" dump --stats "$tmp/c-$s.fxt" >"$tmp/cs" 2>&1
	# 16 bytes, or 24 with a Linux state or a blocked-in stack the header
	# cannot say; only an outgoing stack (older recorders') keeps the record.
	kept=$("$ktrace" dump "$tmp/g-$s.fxt" | grep -c ' switch: .* kstack=')
	grep -q '^    context switch  .*(\(1[6-9]\|2[0-4]\)\.[0-9] bytes each)$' "$tmp/cs" &&
		[ "$(sed -n 's/^    context switch (args) *\([0-9]*\) .*/\1/p' "$tmp/cs")" = "${kept#0}" ] &&
		[ "$(stat -c %s "$tmp/c-$s.fxt")" -lt "$(stat -c %s "$tmp/g-$s.fxt")" ]
	ok $? "$s: its switches are legacy records of 16 or 24 bytes (but $kept with an outgoing stack), and the archive is smaller" ||
		diag "$tmp/cs"
	bad=
	for cmd in "latency" "latency --critical-path" "latency --folded" "dump --check"; do
		# shellcheck disable=SC2086 # $cmd is a command and its options
		"$ktrace" $cmd "$tmp/g-$s.fxt" 2>&1 | sed "s|$tmp/g-$s|T|g; s/(offset [0-9]*)//" >"$tmp/o1"
		# shellcheck disable=SC2086
		"$ktrace" $cmd "$tmp/c-$s.fxt" 2>&1 | sed "s|$tmp/c-$s|T|g; s/(offset [0-9]*)//" >"$tmp/o2"
		cmp -s "$tmp/o1" "$tmp/o2" || { bad="$bad, $cmd"; diff "$tmp/o1" "$tmp/o2" | head -5 | diag /dev/stdin; }
	done
	"$ktrace" convert "$tmp/g-$s.fxt" -o "$tmp/g.json" 2>/dev/null &&
		"$ktrace" convert "$tmp/c-$s.fxt" -o "$tmp/c.json" 2>/dev/null &&
		same_json "$tmp/g.json" "$tmp/c.json" || bad="$bad, convert"
	[ -z "$bad" ]
	ok $? "$s: latency, --critical-path, --folded, dump --check and the JSON read both the same${bad:+ (not:${bad#,})}"
	tests/check_perfetto_rules.py "$tmp/g-$s.fxt" "$tmp/c-$s.fxt" >"$tmp/pf"
	ok $? "$s: by Perfetto's importer's rules, no import errors and the same sched rows, wakeups and threads" ||
		grep -E '^not ok|^#' "$tmp/pf" | diag /dev/stdin
	perfetto_check "$tmp/c-$s.fxt" "$s, compact"
done

# A thread's cgroup (v2): dump shows its record's id and path, the JSON
# its thread_name metadata's.
"$gen" causes "$tmp/cg.fxt" >/dev/null 2>&1
"$ktrace" dump "$tmp/cg.fxt" >"$tmp/cg.dump" 2>&1
"$ktrace" convert "$tmp/cg.fxt" -o "$tmp/cg.json" 2>/dev/null
grep -q 'kernel_object: thread koid=402 name="other" process=koid:402 cgroup_id=9$' "$tmp/cg.dump" &&
	grep -q 'kernel_object: thread koid=400 name="victim" process=koid:400 cgroup="/kubepods/pod1"$' "$tmp/cg.dump" &&
	grep -q '"thread_name",[^}]*"tid":402,"args":{"name":"other","cgroup_id":9}' "$tmp/cg.json" &&
	grep -q '"thread_name",[^}]*"tid":400,"args":{"name":"victim","cgroup":"/kubepods/pod1"}' "$tmp/cg.json"
ok $? "a thread's cgroup id and path: in dump, and in the JSON's thread_name metadata" ||
	{ grep kernel_object "$tmp/cg.dump"; grep -o '"thread_name[^}]*}' "$tmp/cg.json"; } | diag /dev/stdin

# -d with units, recording: the trace's own time span says how long it ran.
if ! host_bpf; then
	skip "record -d 300ms and -d 5ms" "$why"
	skip "a recorded archive, by Perfetto's importer's rules" "$why"
	skip "a recorded archive in Perfetto; record --compact-wakeups" "$why"
else
	for d in 300ms 5ms; do
		run timeout 120 "$ktrace" record --backend bpf -d $d -o "$tmp/d$d.fxt"
		span=$("$ktrace" dump --stats "$tmp/d$d.fxt" 2>/dev/null | sed -n 's/^time: .* (\([0-9.]*\) s)$/\1/p')
		[ $rc -eq 0 ] && [ -n "$span" ] && awk -v s="$span" 'BEGIN { exit !(s < 2) }'
		ok $? "record -d $d stops by itself: the trace spans ${span:-?} s, not $d read as seconds" ||
			diag "$tmp/err"
	done
	tests/check_perfetto_rules.py "$tmp/d300ms.fxt" >"$tmp/pf"
	ok $? "a recorded archive, by Perfetto's importer's rules: no import errors, a priority on every sched row" ||
		grep -E '^not ok|^#' "$tmp/pf" | diag /dev/stdin
	perfetto_check "$tmp/d300ms.fxt" "a recorded archive"
	# --compact-wakeups: the wakers ktrace still names, and Perfetto, as
	# documented, takes for the woken threads themselves.
	run timeout 120 "$ktrace" record --backend bpf --compact-wakeups -o "$tmp/cw.fxt" -- \
		sh -c 'for i in 1 2 3 4 5 6 7 8; do echo $i | cat >/dev/null; done'
	cw=$("$ktrace" dump "$tmp/cw.fxt" 2>/dev/null | grep -c ' wakeup: .* woken by ')
	tests/check_perfetto_import.py "$ktrace" "$tmp/cw.fxt" >"$tmp/tp" 2>&1
	tp=$?
	if [ $tp -eq "$EXIT_CANNOT_RUN_HERE" ]; then
		skip "record --compact-wakeups, in Perfetto" "no Perfetto trace processor (../shared/tools/perfetto, or PERFETTO_TP)"
	else
		[ $rc -eq 0 ] && [ "$cw" -gt 0 ] && [ $tp -eq 1 ] && grep -q '^not ok .*its own waker' "$tmp/tp"
		ok $? "record --compact-wakeups: ktrace still names the $cw wakers; Perfetto shows their wakeups as made by the woken thread, as documented" ||
			{ diag "$tmp/err"; diag "$tmp/tp"; }
	fi
fi

finish
