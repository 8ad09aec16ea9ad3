#!/bin/bash
# ktrace.ko's added cost per context switch against ftrace and no tracing,
# measured in the test VM (Debian's kernel under TCG) in one run, rounds
# interleaved.  TCG is noisy, and the noise (the host taking the CPU away)
# only ever adds time, to whole rounds: each condition is summarised by
# the 10th percentile of its rounds, as on the host (bench-sched.sh), with
# the median and spread beside it.  Then, in their own VM runs, the probes
# against ftrace's kprobe events, and the record path alone: N context
# switch records through ktrace.ko against N ftrace events of
# sched_switch's fields, timed in the kernel (KTRACE_IOC_BENCH).
# usage: bench/bench-vm.sh BUILD_DIR
set -eu
build=${1:-build}
krel=${KREL:-$(scripts/pick-kernel.sh)}
# The rounds take longer than the test suite: a larger overall cap.
export KTRACE_VM_TIMEOUT=${KTRACE_VM_TIMEOUT:-1800}
KTRACE_VM_SCRIPT=bench/vm-bench-in-vm.sh scripts/vm-run.sh "$build" "$krel" >"$build/vm-bench.log" 2>&1 || {
	echo "bench-vm: the VM run failed; see $build/vm-bench.log"; exit 1; }
R=$build/vm/$krel/results
awk '
	{ v[$1] = v[$1] " " $2; n[$1]++ }
	END {
		split("none ftrace ktrace-kmod no-blocked-in every-block", order, " ")
		for (k = 1; k <= 5; k++) {
			c = order[k]; m = split(substr(v[c], 2), a, " ")
			for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
			med[c] = (m % 2) ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
			x = 0.1 * (m - 1); i = int(x) + 1
			p10[c] = (i < m) ? a[i] + (x - int(x)) * (a[i + 1] - a[i]) : a[m]
			lo[c] = a[1]; hi[c] = a[m]
		}
		printf "VM (TCG) ping-pong on CPU 0, %d rounds interleaved; figures from the 10th percentile\n", n["none"]
		printf "%-14s %10s %10s %10s %10s %18s\n", "condition", "p10 ns/rt", "median", "min", "max", "added ns/switch"
		for (k = 1; k <= 5; k++) { c = order[k]
			printf "%-14s %10.0f %10.0f %10.0f %10.0f %18.0f\n", c, p10[c], med[c], lo[c], hi[c], (p10[c] - p10["none"]) / 2 }
		printf "ktrace.ko added cost / ftrace added cost = %.2f (target: at most 0.5)\n",
			(p10["ktrace-kmod"] - p10["none"]) / (p10["ftrace"] - p10["none"])
		printf "ktrace.ko default (where threads blocked, 100 us or more) / --no-blocked-in = %.2f" \
			" (target: at most 1.2); --no-blocked-in / ftrace = %.2f\n",
			(p10["ktrace-kmod"] - p10["none"]) / (p10["no-blocked-in"] - p10["none"]),
			(p10["no-blocked-in"] - p10["none"]) / (p10["ftrace"] - p10["none"])
		printf "ktrace.ko --blocked-in=0 (every block) / --no-blocked-in = %.2f\n",
			(p10["every-block"] - p10["none"]) / (p10["no-blocked-in"] - p10["none"])
	}' "$R/bench.txt"
[ -s "$R/walked" ] && awk '{ printf "switches that walked a stack by default (the last round): %d of %d (%.2f%%)\n", $2, $1, $1 ? 100 * $2 / $1 : 0 }' "$R/walked"
fb=$(awk '{print $2}' "$R/ftrace_bytes"); fe=$(awk '{print $2}' "$R/ftrace_entries")
kb=$(awk '/context switch \(args\)/ {s=$NF} /thread wakeup/ {w=$NF} END {print s*56 + w*48}' "$R/kstats")
ks=$(awk '/context switch \(args\)/ {print $NF}' "$R/kstats")
awk -v fb="$fb" -v fe="$fe" -v kb="$kb" -v ks="$ks" 'BEGIN {
	printf "bytes per switch with its wakeup: ktrace.ko %.1f, ftrace %.1f\n", kb/ks, fb/(fe/2) }'

# Probes: a kprobe event and an API event, against ftrace's kprobe events.
KTRACE_VM_SCRIPT=bench/vm-bench-probes-in-vm.sh scripts/vm-run.sh "$build" "$krel" >"$build/vm-bench.log" 2>&1 || {
	echo "bench-vm: the probe VM run failed; see $build/vm-bench.log"; exit 1; }
awk '
	{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[$1 "," kv[1]] = v[$1 "," kv[1]] " " kv[2] } }
	function med(s,   a, m, i, j, t) { m = split(substr(s, 2), a, " ")
		for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return (m % 2) ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2 }
	END {
		b = med(v["none,target_ns"]); k = med(v["ktrace,target_ns"]); f = med(v["ftrace,target_ns"])
		kr = med(v["ktrace-ret,target_ns"]); fr = med(v["ftrace-ret,target_ns"])
		an = med(v["none,api_ns"]); ak = med(v["ktrace,api_ns"])
		printf "\nVM (TCG), median ns per call:\n"
		printf "  kprobed function: plain %d, ktrace.ko kprobe %d (+%d), ftrace kprobe event %d (+%d); ratio %.2f\n", b, k, k - b, f, f - b, (f > b) ? (k - b) / (f - b) : 0
		printf "  kretprobed function: ktrace.ko duration %d (+%d), ftrace kretprobe event %d (+%d); ratio %.2f\n", kr, kr - b, fr, fr - b, (fr > b) ? (kr - b) / (fr - b) : 0
		printf "  API instant event: no session %d ns (static key off), recording %d ns\n", an, ak
	}' "$build/vm/$krel/results/probes.txt"

# The record path alone, timed in the kernel: ktrace.ko against ftrace.
KTRACE_VM_SCRIPT=bench/vm-bench-record-in-vm.sh scripts/vm-run.sh "$build" "$krel" >"$build/vm-bench.log" 2>&1 || {
	echo "bench-vm: the record-path VM run failed; see $build/vm-bench.log"; exit 1; }
R=$build/vm/$krel/results
[ -s "$R/record.txt" ] || { echo "bench-vm: no record-path figures:"; cat "$R/record.err"; exit 1; }
awk '
	{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = v[kv[1]] " " kv[2] } n++ }
	function med(s,   a, m, i, j, t) { m = split(substr(s, 2), a, " ")
		for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return (m % 2) ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2 }
	function least(s,   a, m, i, x) { m = split(substr(s, 2), a, " "); x = a[1]
		for (i = 2; i <= m; i++) if (a[i] + 0 < x + 0) x = a[i]
		return x }
	END {
		printf "\nVM (TCG), the record path alone (KTRACE_IOC_BENCH, %d rounds, each way in alternating batches on one CPU; clocksource %s):\n", n, cs
		printf "  ns per context switch record, fastest batch (median of rounds): ktrace.ko %.1f (%d bytes), ftrace %.1f (%d bytes of fields)\n",
			med(v["ktrace_best"]), med(v["ktrace_bytes"]), med(v["ftrace_best"]), med(v["ftrace_bytes"])
		printf "  ns per record over every batch (median of rounds): ktrace.ko %.1f, ftrace %.1f\n",
			med(v["ktrace_ns"]), med(v["ftrace_ns"])
		printf "  ktrace.ko / ftrace per record: %.3f from the fastest batches, %.3f over all (target: at most 0.5)\n",
			med(v["best_ratio"]), med(v["ratio"])
		if (v["call_best"] == "") { print "  (no floor: the module has no stages)"; exit }
		# The stages from the fastest batch of all rounds: under TCG a
		# round runs in one of two speeds as a whole, the host'"'"'s doing.
		c = least(v["call_best"]); k = least(v["clock_best"]); r = least(v["reserve_best"]); w = least(v["ktrace_best"])
		printf "  the module'"'"'s record path a stage at a time, ns per record (the fastest batch of all rounds):\n"
		printf "    %-48s %7.1f\n", "the tracepoint call to an empty probe", c
		printf "    %-48s %7.1f  (+%.1f, %.0f%%)\n", "and the clock read", k, k - c, 100 * (k - c) / w
		printf "    %-48s %7.1f  (+%.1f, %.0f%%)\n", "and reserving and committing it (its header)", r, r - k, 100 * (r - k) / w
		printf "    %-48s %7.1f  (+%.1f, %.0f%%)\n", "the whole record, encoded from the task", w, w - r, 100 * (w - r) / w
		printf "    (the call is %.0f%% of it; ftrace'"'"'s event %.1f, ratio %.3f)\n", 100 * c / w, least(v["ftrace_best"]), w / least(v["ftrace_best"])
		if (v["local_clock_best"] != "") {
			l = least(v["local_clock_best"])
			printf "    %-48s %7.1f  (the clock +%.1f against +%.1f)\n", "the call and local_clock() instead", l, l - c, k - c
		}
	}' cs="$(cat "$R/clocksource" 2>/dev/null)" "$R/record.txt"
