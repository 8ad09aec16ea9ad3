#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Soak: ktrace.ko records for SOAK_STREAM_SECONDS (default 600) in stream
# and SOAK_SECONDS (default 600) in ring mode, in the test VM (Debian's kernel under TCG), while a pipe
# ping-pong switches as fast as it can on each CPU.  Reports the switch
# rate, the losses the CLI reported against the loss records in the trace
# (they must be equal), and whether the module's memory (Slab,
# VmallocUsed) and the CLI's VmRSS stayed flat (first sample after the
# start against the last, and the largest).
# usage: bench/bench-soak.sh BUILD_DIR   (env SOAK_SECONDS, SOAK_STREAM_SECONDS,
#   SOAK_MODES, SOAK_INTERVAL, KREL, SOAK_RESULTS)
set -eu
build=${1:-build}
krel=${KREL:-$(scripts/pick-kernel.sh)}
secs=${SOAK_SECONDS:-600}
# Stream mode keeps everything: the CLI's spools, in the VM's tmpfs (RAM),
# grow by about 2.4 MB/s at this rate, so the VM gets 4 GiB (KTRACE_VM_MEM)
# for 600 s of them.
stream_secs=${SOAK_STREAM_SECONDS:-600}
export KTRACE_VM_MEM=${KTRACE_VM_MEM:-4096}
interval=${SOAK_INTERVAL:-5}
modes=${SOAK_MODES:-stream ring}
out=$build/bench-soak
mkdir -p "$out"
{
	echo "#!/bin/sh"
	echo "SOAK_SECONDS=$secs"
	echo "SOAK_STREAM_SECONDS=$stream_secs"
	echo "SOAK_INTERVAL=$interval"
	echo "SOAK_MODES='$modes'"
	sed 1d bench/vm-soak-in-vm.sh
} >"$out/in-vm.sh"
chmod +x "$out/in-vm.sh"
# SOAK_RESULTS=DIR: only report on the results of an earlier run.
if [ -z "${SOAK_RESULTS:-}" ]; then
	KTRACE_VM_SCRIPT=$out/in-vm.sh KTRACE_VM_TIMEOUT=$((2 * secs + 2 * stream_secs + 900)) \
		scripts/vm-run.sh "$build" "$krel" >"$out/vm-run.log" 2>&1 || {
		echo "bench-soak: the VM run failed; see $out/vm-run.log"; exit 1; }
	rm -rf "$out/results"
	cp -r "$build/vm/$krel/results" "$out/results"
fi
R=${SOAK_RESULTS:-$out/results}

status() { awk -v k="$1" '$1 == k {print $2}' "$R/status" 2>/dev/null; }
count() { awk -v k="$2" 'index($0, k) == 1 {print $NF; exit}' "$1"; }

echo "Soak in the VM (TCG, $(cat "$R/uname")): ktrace.ko recording ${stream_secs} s in stream" \
	"and ${secs} s in ring mode, a ping-pong on each CPU; samples every ${interval} s"
rc=0
for mode in $modes; do
	s=$secs
	[ "$mode" = stream ] && s=$stream_secs
	if [ "$(status "record_$mode")" != 0 ] || [ "$(status "dump_$mode")" != 0 ]; then
		echo "$mode: the recording or its dump failed:"
		sed 's/^/  /' "$R/soak-$mode.err" "$R/soak-$mode.dump.err" | head -10
		rc=1
		continue
	fi
	# The CLI's count, and the loss records' count in the trace.
	cli=$(sed -n 's/.*MB, \([0-9]*\) dropped.*/\1/p' "$R/soak-$mode.err")
	trace=$(sed -n 's/^dropped: \([0-9]*\) records.*/\1/p' "$R/soak-$mode.stats")
	switches=$(grep -E '^ *context switch' "$R/soak-$mode.stats" | awk '{s += $NF} END {print s + 0}')
	records=$(sed -n 's/.*wrote [^:]*: \([0-9]*\) records.*/\1/p' "$R/soak-$mode.err")
	mb=$(sed -n 's/.* \([0-9.]*\) MB,.*/\1/p' "$R/soak-$mode.err")
	over=$(grep -o '[0-9]* older sub-buffers were overwritten' "$R/soak-$mode.err" | head -1)
	kept=$(sed -n 's/^time: .*(\([0-9.]*\) s)$/\1/p' "$R/soak-$mode.stats")
	# The switch rate from the kernel's count while recording, not from the
	# trace (a ring keeps only its newest window).
	rate=$(awk -v secs="$s" 'NR > 1 && $1 <= secs && $6 { if (!t0) { t0 = $1; c0 = $6 } t1 = $1; c1 = $6 }
		END { print (t1 > t0 ? (c1 - c0) / (t1 - t0) : 0) }' "$R/soak-$mode.samples")
	printf '%s: %.0f context switches/s in the VM; the trace: %s records (%s MB), %s switches over %.0f s%s\n' \
		"$mode" "$rate" "$records" "$mb" "$switches" "${kept:-0}" "${over:+; $over}"
	# The checker's verdict: dump --check fails on an unexplained break.
	sed -n 's/^timeline: /  timeline: /p' "$R/soak-$mode.stats"
	grep -q '^timeline: 0 unexplained' "$R/soak-$mode.stats" ||
		{ echo "  timeline: the checker found unexplained breaks, or did not run"; rc=1; }
	if [ "${cli:-x}" = "${trace:-0}" ] || { [ -z "$trace" ] && [ "$cli" = 0 ]; }; then
		echo "  losses: the CLI reported ${cli}, the trace's loss records say ${trace:-0}: equal"
	else
		echo "  losses: the CLI reported ${cli:-?}, the trace's loss records say ${trace:-0}: NOT EQUAL"
		rc=1
	fi
	# Flat while recording: the first sample a tenth of the way in against
	# the last one before the end; then the peak while the archive is written.
	awk -v secs="$s" '
		NR == 1 { next }
		# Slab less the spools page cache index (radix_tree_node), when sampled.
		NF >= 7 { $3 -= $7; slab = "Slab less index" }
		$1 <= secs { n++; t[n] = $1; for (i = 2; i <= 5; i++) v[n, i] = $i; next }
		{ for (i = 2; i <= 5; i++) if ($i > after[i]) after[i] = $i }
		END {
			if (n < 3) { print "  too few samples"; exit }
			for (f = 1; f < n && t[f] < secs / 10; f++) ;
			label[2] = "CLI VmRSS"; label[3] = slab ? slab : "Slab"
			label[4] = "VmallocUsed"; label[5] = "Shmem (spools)"
			if (slab) print "  (Slab less index: without radix_tree_node, the page cache index of the spools)"
			for (i = 2; i <= 5; i++) {
				max = 0
				for (k = f; k <= n; k++) if (v[k, i] > max) max = v[k, i]
				printf "  %-15s %8d kB at %4d s, %8d kB at %4d s (%+d kB), max %d kB over %d samples; %d kB at most while writing\n",
					label[i], v[f, i], t[f], v[n, i], t[n], v[n, i] - v[f, i], max, n - f + 1, after[i]
			}
		}' "$R/soak-$mode.samples"
done
grep -qE 'WARNING:|BUG:|Oops|lockdep|KASAN|UBSAN|Call Trace' "$R/dmesg.txt" &&
	{ echo "dmesg has a kernel report:"; grep -E -m5 'WARNING:|BUG:|Oops|lockdep|KASAN|UBSAN|Call Trace' "$R/dmesg.txt"; rc=1; }
[ "$(status rmmod)" = 0 ] || { echo "rmmod failed after the soak"; rc=1; }
exit $rc
