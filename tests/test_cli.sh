#!/bin/bash
# ktrace dump and convert as a user runs them: the scenario trace against
# its golden dump and DevTools' trace engine, and bad input of every kind.
# usage: tests/test_cli.sh BUILD_DIR.  TAP output; no root needed.
set -u
build=${1:-build}
ktrace=$build/ktrace
gen=$build/tests/gen_trace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
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
if [ -d tests/js/node_modules/@paulirish/trace_engine ]; then
	(cd tests/js && node check_scenario.mjs "$tmp/s.json") >"$tmp/js" 2>&1
	ok $? "DevTools' trace engine finds the scenario's threads, slices and flows"
	grep -E '^not ok|^#' "$tmp/js" | sed 's/^/# /'
else
	n=$((n + 1)); echo "ok $n - # SKIP trace engine not installed (npm install in tests/js)"
fi

# Truncated input: what is readable is converted, the error names the offset.
size=$(stat -c %s "$tmp/s.fxt")
head -c $((size - 20)) "$tmp/s.fxt" >"$tmp/trunc.fxt"
run "$ktrace" convert "$tmp/trunc.fxt" -o "$tmp/trunc.json"
[ $rc -ne 0 ] && grep -q 'offset 2552 (0x9f8): record size: input ends inside a scheduling record' "$tmp/err"
ok $? "convert of a truncated trace fails and names the offset"
json_valid "$tmp/trunc.json" && grep -q '"end_state":"X"' "$tmp/trunc.json"
ok $? "the truncated trace's JSON is valid and holds the records before the cut"

run "$ktrace" dump "$tmp/trunc.fxt"
[ $rc -ne 0 ] && [ "$(grep -c '^@' "$tmp/out")" -eq 85 ]
ok $? "dump of a truncated trace prints the 85 whole records and fails"

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
cat "$tmp/fifo" >"$tmp/fromfifo" &
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

run "$ktrace" dump --bogus "$tmp/s.fxt"
[ $rc -eq 2 ] && grep -q 'usage: ktrace dump' "$tmp/err"
ok $? "an unknown option prints the usage"
run "$ktrace" frobnicate
[ $rc -eq 2 ] && grep -q "unknown command 'frobnicate'" "$tmp/err"
ok $? "an unknown command is named"

finish
