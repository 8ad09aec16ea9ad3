#!/bin/bash
# Runs the FXT reader fuzzer for a bounded time over the corpus kept in the
# repo (new inputs go to a scratch directory).  TAP output.
# usage: scripts/run-fuzz.sh BUILD_DIR SECONDS
set -u
build=${1:-build}
secs=${2:-30}
fuzzer=$build/tests/fuzz_reader
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "TAP version 13"
echo "1..1"
if "$fuzzer" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	"$work" tests/corpus >"$work/log" 2>&1; then
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
	echo "ok 1 - fuzz FXT reader, JSON converter and latency analysis for ${secs}s (${execs:-?} inputs, no crash)"
else
	grep -E 'ERROR|SUMMARY|Test unit written' "$work/log" | sed 's/^/# /' | head -20
	mkdir -p "$build/fuzz-crashes" && cp crash-* leak-* timeout-* "$build/fuzz-crashes/" 2>/dev/null
	rm -f crash-* leak-* timeout-*
	echo "not ok 1 - fuzz FXT reader, JSON converter and latency analysis (inputs saved in $build/fuzz-crashes)"
fi
