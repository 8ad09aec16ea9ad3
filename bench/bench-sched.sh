#!/bin/bash
# Added cost per context switch of the BPF backend against ftrace's
# sched_switch + sched_waking events and against no tracing, in one run:
# a pinned pipe ping-pong (bench/pingpong.c), conditions interleaved round
# by round.  Debian's runqlat runs as a reference, and so does the floor
# under any BPF recorder of these events: two programs on the same
# tracepoints that do nothing and two that only read the clock
# (bench/bpf_floor.bpf.c), ktrace without recording interrupt handlers
# (--no-irq), and ktrace built without the affinity check on each
# switch-out (BUILD_DIR/bench/noaffinity/ktrace, as make bench builds it;
# the ping-pong's threads are pinned, so it is the check a pinned thread
# costs).  Also bytes per context
# switch (with its wakeup) for ktrace's archive, ftrace and perf sched record.
#
# Each run is timed in blocks of BLOCK round trips.  On a virtual machine
# the host takes the CPU away now and then, which slows whole blocks down
# by up to half, far more than tracing costs; it only ever adds time.  So
# the figure compared is the 10th percentile of all blocks of a condition
# (every block still includes the tracer's periodic work, such as buffer
# switches, spread over BLOCK round trips); the median is shown as well.
# With BASE_BUILD set to the build directory of another tree (the code
# before a change, a release), its ktrace records the same ping-pong as a
# condition of its own (ktrace-base), interleaved with this tree's, and the
# ratio of the two added costs is printed.  BENCH_BASE=REV (a release's
# tag, a commit; `make bench` passes the newest v* tag) builds that
# revision's ktrace in BUILD_DIR/bench-base first and uses it so.
# usage: [BASE_BUILD=DIR | BENCH_BASE=REV] bench/bench-sched.sh BUILD_DIR [ROUNDS] [ROUND_TRIPS] [BLOCK]   (as root)
set -u
run_cmd="${BASE_BUILD:+BASE_BUILD=$BASE_BUILD }$0 $*"
build=${1:-build}
source "$(dirname "$0")/lib.sh"
needs "$build" ktrace bench/pingpong bench/bpf_floor bench/floor.bpf.o bench/floor_clock.bpf.o
if [ -z "${BASE_BUILD:-}" ] && [ -n "${BENCH_BASE:-}" ]; then
	BASE_BUILD=$(base_build "$build" "$BENCH_BASE") || exit 1
	run_cmd="BENCH_BASE=$BENCH_BASE $run_cmd"
fi
rounds=${2:-9}
trips=${3:-100000}
block=${4:-2500}
ktrace=$build/ktrace
pp=$build/bench/pingpong
tmp=$(mktemp -d)
tracing=/sys/kernel/tracing
# Its own instance: another run of this benchmark may be going on beside it.
inst=$tracing/instances/ktrace-bench-$$
cleanup() {
	[ -d "$inst" ] && { echo 0 >"$inst/tracing_on"; rmdir "$inst"; }
	rm -rf "$tmp"
}
trap cleanup EXIT

if [ "$(id -u)" -ne 0 ]; then echo "bench-sched: needs root (BPF and tracefs)"; exit 0; fi
[ -d "$tracing/events" ] || mount -t tracefs nodev "$tracing" 2>/dev/null
ncpu=$(nproc)
cpu=0
# The recorder's reader and runqlat run on another CPU than the ping-pong.
other=$(( ncpu > 1 ? 1 : 0 ))
runqlat=$(command -v runqlat || echo /usr/sbin/runqlat)

events="sched/sched_switch sched/sched_waking"
# shellcheck disable=SC2086
ftrace_instance "$inst" $events || exit 1

measure() {	# measure CONDITION -> ns per round trip on stdout
	case $1 in
	none)
		"$pp" "$trips" $cpu $block ;;
	ftrace)
		echo >"$inst/trace"
		echo 1 >"$inst/tracing_on"
		"$pp" "$trips" $cpu $block
		echo 0 >"$inst/tracing_on" ;;
	ftrace-read)
		# As trace-cmd records: a reader drains the CPU's buffer meanwhile.
		echo >"$inst/trace"
		echo 1 >"$inst/tracing_on"
		taskset -c $other dd if="$inst/per_cpu/cpu$cpu/trace_pipe_raw" of=/dev/null bs=4096 2>/dev/null &
		local rd=$!
		"$pp" "$trips" $cpu $block
		echo 0 >"$inst/tracing_on"
		kill $rd 2>/dev/null; wait $rd 2>/dev/null ;;
	ftrace-fresh)
		# As a user runs a tracer: an instance set up for this run
		# alone, as ktrace's recorder is (it costs more per event than
		# the warm one above).
		local fresh=$tracing/instances/ktrace-bench-fresh-$$
		# shellcheck disable=SC2086
		ftrace_instance "$fresh" $events || return
		echo 1 >"$fresh/tracing_on"
		"$pp" "$trips" $cpu $block
		echo 0 >"$fresh/tracing_on"
		rmdir "$fresh" ;;
	ktrace-bpf)
		taskset -c $other "$ktrace" record --backend bpf -o "$tmp/k.fxt" -- "$pp" "$trips" $cpu $block \
			2>"$tmp/kerr" ;;
	ktrace-base)
		taskset -c $other "$BASE_BUILD/ktrace" record --backend bpf -o "$tmp/$1.fxt" -- \
			"$pp" "$trips" $cpu $block 2>"$tmp/kerr" ;;
	ktrace-noirq)
		# Interrupt handlers not recorded: no program of theirs runs on
		# a switch, so this should cost what ktrace-bpf does.
		taskset -c $other "$ktrace" record --backend bpf --no-irq -o "$tmp/$1.fxt" -- \
			"$pp" "$trips" $cpu $block 2>"$tmp/kerr" ;;
	ktrace-noaffinity)
		taskset -c $other "$build/bench/noaffinity/ktrace" record --backend bpf -o "$tmp/$1.fxt" -- \
			"$pp" "$trips" $cpu $block 2>"$tmp/kerr" ;;
	ktrace-noblocked|ktrace-every|ktrace-stacks)
		# Where each thread blocked (every switch here is a pipe_read
		# block, of microseconds): by default only blocks of 100 us or
		# more are walked; off, for every block, for every block whole.
		local opt
		case $1 in
		ktrace-noblocked) opt=--no-blocked-in ;;
		ktrace-every) opt=--blocked-in=0 ;;
		ktrace-stacks) opt="--stacks --blocked-in=0" ;;
		esac
		taskset -c $other "$ktrace" record --backend bpf $opt -o "$tmp/$1.fxt" -- \
			"$pp" "$trips" $cpu $block 2>"$tmp/kerr" ;;
	bpf-empty|bpf-clock)
		# The floor: the kernel's dispatch to two programs on the same
		# tracepoints that do nothing, or only read the clock.
		local obj=floor.bpf.o
		[ "$1" = bpf-clock ] && obj=floor_clock.bpf.o
		"$build/bench/bpf_floor" "$build/bench/$obj" "$pp" "$trips" $cpu $block ;;
	runqlat)
		taskset -c $other "$runqlat" 60 1 >/dev/null 2>&1 &
		local rq=$!
		sleep 1.5	# let it load and attach
		"$pp" "$trips" $cpu $block
		kill -INT $rq 2>/dev/null; wait $rq 2>/dev/null ;;
	esac
}

conds="none ftrace ftrace-read ftrace-fresh ktrace-bpf ktrace-noirq ktrace-noblocked ktrace-every ktrace-stacks bpf-empty bpf-clock"
[ -x "$runqlat" ] && conds="$conds runqlat"
[ -n "${BASE_BUILD:-}" ] && conds="$conds ktrace-base"
[ -x "$build/bench/noaffinity/ktrace" ] && conds="$conds ktrace-noaffinity"
echo "ping-pong on CPU $cpu: $trips round trips (2 switches + 2 wakeups each) timed in blocks of $block, $rounds rounds, conditions interleaved"
for r in $(seq "$rounds"); do
	for c in $conds; do
		# every line but the last (the whole run) is one block
		measure "$c" | sed '$d' | tee -a "$tmp/$c" >"$tmp/$c.$r"
	done
	conds="$(echo $conds | awk '{for (i = 2; i <= NF; i++) printf "%s ", $i; print $1}')"
done

base=$(pct "$tmp/none" 10); base50=$(pct "$tmp/none" 50)
printf '\n%-11s %7s %10s %10s %10s %18s %18s\n' condition blocks "p10 ns" median min "added ns/switch" "(from medians)"
for c in none ftrace ftrace-read ftrace-fresh ktrace-bpf ktrace-base ktrace-noirq ktrace-noaffinity ktrace-noblocked ktrace-every ktrace-stacks bpf-empty bpf-clock runqlat; do
	[ -f "$tmp/$c" ] || continue
	p=$(pct "$tmp/$c" 10); m=$(pct "$tmp/$c" 50)
	printf '%-14s %7d %10.1f %10.1f %10.1f %18.1f %18.1f\n' "$c" "$(wc -l <"$tmp/$c")" "$p" "$m" \
		"$(pct "$tmp/$c" 0)" "$(awk -v m="$p" -v b="$base" 'BEGIN{print (m-b)/2}')" \
		"$(awk -v m="$m" -v b="$base50" 'BEGIN{print (m-b)/2}')"
done
f=$(pct "$tmp/ftrace" 10); fr=$(pct "$tmp/ftrace-read" 10); k=$(pct "$tmp/ktrace-bpf" 10)
ff=$(pct "$tmp/ftrace-fresh" 10)
awk -v f="$f" -v fr="$fr" -v ff="$ff" -v k="$k" -v b="$base" 'BEGIN {
	printf "\nktrace-bpf added cost / ftrace added cost: %.2f against ftrace with no reader, %.2f against ftrace drained by a reader, %.2f against an ftrace instance set up for the run (target: at most 0.6)\n", (k-b)/(f-b), (k-b)/(fr-b), (k-b)/(ff-b) }'
fe=$(pct "$tmp/bpf-empty" 10); fc=$(pct "$tmp/bpf-clock" 10)
awk -v f="$f" -v ff="$ff" -v e="$fe" -v c="$fc" -v k="$k" -v b="$base" 'BEGIN {
	printf "the floor under a BPF recorder: two programs that do nothing add %.1f ns per switch (%.2f of ftrace, %.2f of ftrace set up for the run), two that read the clock %.1f ns (%.2f, %.2f); ktrace-bpf spends %.1f ns above the second\n",
		(e-b)/2, (e-b)/(f-b), (e-b)/(ff-b), (c-b)/2, (c-b)/(f-b), (c-b)/(ff-b), (k-c)/2 }'
if [ -n "${BASE_BUILD:-}" ]; then
	kb=$(pct "$tmp/ktrace-base" 10)
	awk -v k="$k" -v kb="$kb" -v c="$fc" -v b="$base" -v dir="$BASE_BUILD" 'BEGIN {
		printf "this tree against %s: ktrace-bpf adds %.1f ns per switch, that tree %.1f (%.2f of it); above the clock-only programs %.1f and %.1f ns (%.2f)\n",
			dir, (k-b)/2, (kb-b)/2, (k-b)/(kb-b), (k-c)/2, (kb-c)/2, (k-c)/(kb-c) }'
	for r in $(seq "$rounds"); do
		echo "$(pct "$tmp/none.$r" 10) $(pct "$tmp/ktrace-base.$r" 10) $(pct "$tmp/ktrace-bpf.$r" 10)"
	done | awk '{ a[NR] = ($3 - $1) / ($2 - $1) }
		function q(x, n, p,   i, j, t) {
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
			i = int((n - 1) * p + 1.5); return x[i] }
		END { printf "  round by round (%d rounds): this tree / that tree median %.2f, middle half %.2f to %.2f\n",
			NR, q(a, NR, 0.5), q(a, NR, 0.25), q(a, NR, 0.75) }'
fi
# Where threads blocked, per switch: the default (blocks of 100 us or more)
# against --no-blocked-in (the default before it was on), and every block.
knb=$(pct "$tmp/ktrace-noblocked" 10); ke=$(pct "$tmp/ktrace-every" 10); kst=$(pct "$tmp/ktrace-stacks" 10)
awk -v k="$k" -v knb="$knb" -v ke="$ke" -v ks="$kst" -v b="$base" -v f="$f" 'BEGIN {
	printf "where threads blocked: the default adds %.1f ns per switch to --no-blocked-in (%.0f%% more than its %.1f ns; target: at most 20%%); --no-blocked-in / ftrace %.2f\n",
		(k-knb)/2, 100*(k-knb)/(knb-b), (knb-b)/2, (knb-b)/(f-b)
	printf "every block (--blocked-in=0) adds %.1f ns per switch (%.0f%% more), whole stacks (--stacks --blocked-in=0) %.1f ns (%.0f%% more)\n",
		(ke-knb)/2, 100*(ke-knb)/(knb-b), (ks-knb)/2, 100*(ks-knb)/(knb-b) }'
# Interrupt handlers, recorded by default: what they add per switch.
kni=$(pct "$tmp/ktrace-noirq" 10)
awk -v k="$k" -v kni="$kni" -v b="$base" 'BEGIN {
	printf "interrupt handlers: the default adds %.1f ns per switch to --no-irq (%.0f%% of its %.1f ns; target: at most 10%%)\n",
		(k-kni)/2, 100*(k-kni)/(kni-b), (kni-b)/2 }'
# The affinity check on each switch-out, alone: the build without it.
if [ -f "$tmp/ktrace-noaffinity" ]; then
	kna=$(pct "$tmp/ktrace-noaffinity" 10)
	awk -v k="$k" -v kna="$kna" -v b="$base" 'BEGIN {
		printf "the affinity check: %.1f ns per switch (%.0f%% of the %.1f ns ktrace adds without it)\n",
			(k-kna)/2, 100*(k-kna)/(kna-b), (kna-b)/2 }'
fi
walked=$("$ktrace" dump "$tmp/k.fxt" | awk '/switch:/ {n++} /incoming_kstack=/ {k++} END {printf "%d of %d (%.2f%%)", k, n, n ? 100 * k / n : 0}')
echo "switches that walked a stack by default (blocks of 100 us or more, the last round): $walked"
# The same ratio round by round, for its spread.
for r in $(seq "$rounds"); do
	echo "$(pct "$tmp/none.$r" 10) $(pct "$tmp/ftrace.$r" 10) $(pct "$tmp/ftrace-read.$r" 10) $(pct "$tmp/ktrace-bpf.$r" 10)"
done | awk '{ a[NR] = ($4 - $1) / ($2 - $1); b[NR] = ($4 - $1) / ($3 - $1) }
	function q(x, n, p,   i, j, t) {
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
		i = int((n - 1) * p + 1.5); return x[i] }
	END { printf "round by round (%d rounds): median %.2f, middle half %.2f to %.2f against ftrace; median %.2f, middle half %.2f to %.2f against ftrace with a reader\n",
		NR, q(a, NR, 0.5), q(a, NR, 0.25), q(a, NR, 0.75), q(b, NR, 0.5), q(b, NR, 0.25), q(b, NR, 0.75) }'

# Bytes per context switch with its wakeup, for one more ping-pong of
# $size_trips round trips each: ktrace's archive (`dump --stats`: its
# switch and wakeup records, and the whole file), ftrace's sched_switch +
# sched_waking as trace_pipe_raw gives them (the pages trace-cmd stores),
# and `perf sched record`'s perf.data.  Each is divided by the switches
# it recorded.
size_trips=20000
taskset -c $other "$ktrace" record --backend bpf -o "$tmp/size.fxt" -- "$pp" $size_trips $cpu \
	>/dev/null 2>&1
"$ktrace" dump --stats --quiet "$tmp/size.fxt" >"$tmp/kstats"
awk -v file="$(stat -c %s "$tmp/size.fxt")" '
	/^    context switch/ { n = $(NF - 3); sw += n; sb += n * substr($(NF - 2), 2) }
	/^    thread wakeup/ { n = $(NF - 3); wn = n; wb = n * substr($(NF - 2), 2) }
	END { if (sw) printf "bytes per switch with its wakeup: ktrace %.1f (a switch record %.1f B + a wakeup record %.1f B = %.1f B; %.2f wakeups per switch), %.1f with names and metadata (the whole archive)\n",
		(sb + wb) / sw, sb / sw, wn ? wb / wn : 0, sb / sw + (wn ? wb / wn : 0), wn / sw, file / sw }' "$tmp/kstats" |
	tee "$tmp/kbytes"
# A load whose switches mostly end blocks long enough for the recorder to
# take the stack (where the thread blocked): hackbench, the whole archive
# per switch.
if command -v hackbench >/dev/null; then
	"$ktrace" record --backend bpf -o "$tmp/hb.fxt" -- hackbench -g 4 -l 200 >/dev/null 2>&1
	"$ktrace" dump --stats --quiet "$tmp/hb.fxt" | awk -v file="$(stat -c %s "$tmp/hb.fxt")" '
		/^    context switch/ { n = $(NF - 3); sw += n; sb += n * substr($(NF - 2), 2) }
		/^    thread wakeup/ { wn = $(NF - 3); wb = wn * substr($(NF - 2), 2) }
		END { if (sw) printf "bytes per switch, hackbench -g 4 -l 200: ktrace %.1f for the whole archive (%d switches of %.1f B, %d wakeups of %.1f B)\n",
			file / sw, sw, sb / sw, wn, wn ? wb / wn : 0 }'
else
	echo "bytes per switch, hackbench -g 4 -l 200: hackbench is not installed"
fi
echo 16384 >"$inst/buffer_size_kb"	# all of it, so that it can be counted before it is read
echo >"$inst/trace"
echo 1 >"$inst/tracing_on"
"$pp" $size_trips $cpu >/dev/null
echo 0 >"$inst/tracing_on"
fsw=$(grep -c ' sched_switch: ' "$inst/trace")
fraw=0
for f in "$inst"/per_cpu/cpu*/trace_pipe_raw; do
	fraw=$((fraw + $(dd if="$f" iflag=nonblock bs=4096 2>/dev/null | wc -c)))
done
awk -v b="$fraw" -v n="$fsw" 'BEGIN { if (n) printf "bytes per switch with its wakeup: ftrace %.1f (trace_pipe_raw: %d bytes, %d sched_switch events)\n", b / n, b, n }' |
	tee "$tmp/fbytes"
if command -v perf >/dev/null; then
	perf sched record -o "$tmp/perf.data" -- "$pp" $size_trips $cpu >/dev/null 2>&1
	psw=$(perf script -i "$tmp/perf.data" -F event 2>/dev/null | grep -c 'sched:sched_switch')
	awk -v b="$(stat -c %s "$tmp/perf.data" 2>/dev/null || echo 0)" -v n="$psw" 'BEGIN {
		if (n) printf "bytes per switch with its wakeup: perf sched record %.1f (perf.data: %d bytes, %d sched_switch events)\n", b / n, b, n }' |
		tee "$tmp/pbytes"
else
	echo "bytes per switch with its wakeup: perf sched record: perf is not installed"
fi

# The reader's own CPU time per record while it drains a context-switch
# storm, sampled from /proc during the recording (the final merge is not in
# it).  Records counted are all the recording's, a little more than the
# storm's.
taskset -c $other "$ktrace" record --backend bpf -o "$tmp/r.fxt" 2>"$tmp/rerr" &
rp=$!
for i in $(seq 300); do grep -q 'recording with' "$tmp/rerr" && break; sleep 0.1; done
t0=$(awk '{print $14 + $15}' /proc/$rp/stat)
"$pp" 1000000 $cpu >/dev/null
t1=$(awk '{print $14 + $15}' /proc/$rp/stat)
kill -INT $rp; wait $rp
recs=$(sed -n 's/.*wrote [^:]*: \([0-9]*\) records.*/\1/p' "$tmp/rerr")
awk -v t="$((t1 - t0))" -v hz="$(getconf CLK_TCK)" -v n="${recs:-0}" 'BEGIN {
	if (n > 0) printf "reader CPU per record while recording: %.0f ns (%d records, %d clock ticks of CPU)\n", t / hz * 1e9 / n, n, t }'

# The BPF programs' own run time, from the kernel's BPF statistics (which
# add two clock reads of their own to each run), over one more ping-pong.
if command -v bpftool >/dev/null && command -v python3 >/dev/null; then
	old=$(sysctl -n kernel.bpf_stats_enabled)
	sysctl -q kernel.bpf_stats_enabled=1
	# Last, the build without the affinity check: the check's own cost per run.
	for opt in "" --no-blocked-in --blocked-in=0 "--stacks --blocked-in=0" noaffinity; do
		k=$ktrace what=${opt:-default}
		if [ "$opt" = noaffinity ]; then
			[ -x "$build/bench/noaffinity/ktrace" ] || continue
			k=$build/bench/noaffinity/ktrace opt= what="default, without the affinity check"
		fi
		# shellcheck disable=SC2086
		taskset -c $other "$k" record --backend bpf $opt -o "$tmp/s.fxt" -- sh -c \
			"'$pp' $trips $cpu >/dev/null; bpftool prog show -j >'$tmp/progs.json'" 2>/dev/null
		python3 - "$tmp/progs.json" "$what" <<'PY'
import json, sys
names = {"ktrace_sched_switch": "sched_switch", "ktrace_sched_waking": "sched_waking",
         "ktrace_sched_migrate_task": "sched_migrate_task",
         "ktrace_hrtimer_expire_entry": "hrtimer_expire_entry"}
runs = [p for p in json.load(open(sys.argv[1])) if p.get("name") in names and p.get("run_cnt")]
print("BPF program run time (kernel.bpf_stats_enabled), %s: " % sys.argv[2] + ", ".join(
    "%s %.1f ns over %d runs" % (names[p["name"]], p["run_time_ns"] / p["run_cnt"], p["run_cnt"])
    for p in runs))
PY
	done
	sysctl -q kernel.bpf_stats_enabled="$old"
fi

# One table of it all: the added cost per switch (with its wakeup) of each
# condition, against ftrace warm and set up for the run, the clock each
# reads, bytes per switch with its wakeup where measured, and what ran.
clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)
fclock=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$inst/trace_clock" 2>/dev/null)
num() { [ -s "$1" ] && sed -n "s/.*: $2 \([0-9.]*\).*/\1/p" "$1" | head -1; }
kbytes=$(num "$tmp/kbytes" ktrace) fbytes=$(num "$tmp/fbytes" ftrace) pbytes=$(num "$tmp/pbytes" 'perf sched record')
echo
echo "summary of this run ($run_cmd):"
printf '%-22s %9s %8s %8s  %-28s %7s  %s\n' condition "ns/switch" "/ftrace" "/fresh" clock "B/sw" "what ran beside the ping-pong"
row() {	# row CONDITION LABEL CLOCK BYTES WHAT
	[ -s "$tmp/$1" ] || return 0
	awk -v c="$(pct "$tmp/$1" 10)" -v b="$base" -v f="$(pct "$tmp/ftrace" 10)" -v ff="$ff" -v l="$2" -v clk="$3" -v by="${4:--}" -v w="$5" 'BEGIN {
		printf "%-22s %9.1f %8.2f %8.2f  %-28s %7s  %s\n", l, (c - b) / 2, (c - b) / (f - b), (c - b) / (ff - b), clk, by, w }'
}
bclk="bpf_ktime_get_ns ($clocksource)"
row ftrace "ftrace (warm)" "${fclock:-local} ($clocksource)" "$fbytes" "tracefs instance, sched_switch + sched_waking, on all along"
row ftrace-read "ftrace (read)" "${fclock:-local} ($clocksource)" "" "the same, trace_pipe_raw drained on CPU $other"
row ftrace-fresh "ftrace (fresh)" "${fclock:-local} ($clocksource)" "" "an instance set up for the run"
row bpf-empty "bpf floor: empty" "none" "" "bench/bpf_floor floor.bpf.o: two programs that return"
row bpf-clock "bpf floor: clock" "$bclk" "" "bench/bpf_floor floor_clock.bpf.o: two that read the clock"
row ktrace-bpf "ktrace bpf" "$bclk" "$kbytes" "ktrace record --backend bpf"
row ktrace-base "ktrace bpf (base)" "$bclk" "" "${BASE_BUILD:-}/ktrace record --backend bpf"
row ktrace-noirq "ktrace --no-irq" "$bclk" "" "ktrace record --backend bpf --no-irq"
row ktrace-noblocked "ktrace --no-blocked-in" "$bclk" "" "ktrace record --backend bpf --no-blocked-in"
row runqlat "runqlat" "$bclk" "" "$runqlat 60 1"
[ -n "$pbytes" ] && printf '%-22s %9s %8s %8s  %-28s %7s  %s\n' "perf sched record" - - - - "$pbytes" "perf sched record (bytes only)"
true
