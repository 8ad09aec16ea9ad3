#!/bin/bash
# Convert throughput and peak memory of `ktrace convert` on synthetic
# scheduler traces of 1 and 10 million records: records/s, MB/s of FXT
# input, and peak RSS, which must not grow with the input.
# usage: bench/bench-convert.sh BUILD_DIR [RECORDS...]
set -eu
build=${1:-build}
source "$(dirname "$0")/lib.sh"
needs "$build" ktrace tests/gen_trace
shift || true
sizes=${*:-1000000 10000000}
tmp=${KTRACE_BENCH_DIR:-$(mktemp -d)}
trap 'rm -rf "$tmp"' EXIT

printf '%-10s %-9s %10s %9s %12s %9s %10s %9s\n' records output fxt_MB secs records/s MB/s json_MB rss_MiB
for n in $sizes; do
	"$build/tests/gen_trace" synthetic "$n" "$tmp/in.fxt"
	bytes=$(stat -c %s "$tmp/in.fxt")
	# Warm the page cache so the figure is the converter, not the disk.
	cat "$tmp/in.fxt" >/dev/null
	# Records in the file: the generated events plus the preamble and names.
	total=$("$build/ktrace" dump --stats --quiet "$tmp/in.fxt" | sed -n 's/^records: \([0-9]*\).*/\1/p')
	# A file shows what a user waits for; /dev/null the converter alone.
	for dest in file null; do
		out_path=$tmp/out.json
		[ $dest = null ] && out_path=/dev/null
		best=""
		for rep in 1 2 3; do
			/usr/bin/time -f '%e %M' -o "$tmp/time" \
				"$build/ktrace" convert "$tmp/in.fxt" -o "$out_path"
			read -r secs rss <"$tmp/time"
			if [ -z "$best" ] || awk -v a="$secs" -v b="$best" 'BEGIN{exit !(a < b)}'; then
				best=$secs best_rss=$rss
			fi
		done
		out=$(stat -c %s "$tmp/out.json")
		awk -v n="$total" -v b="$bytes" -v s="$best" -v o="$out" -v r="$best_rss" -v d="$dest" 'BEGIN {
			if (s <= 0) s = 0.001;
			printf "%-10d %-9s %10.1f %9.2f %12.0f %9.1f %10.1f %9.1f\n", n, d, b/1e6, s, n/s, b/1e6/s, o/1e6, r/1024 }'
	done
	rm -f "$tmp/out.json"
done
