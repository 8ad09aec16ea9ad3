#!/bin/bash
# Drops under load, as a user meets them: a pinned pipe ping-pong recorded
# in stream mode, with ftrace's sched_switch merged (--ftrace) and without,
# runs interleaved, while `make -j NCPU` builds the CLI from this tree into
# a scratch directory over and over.  Per run: the records the recorder
# dropped, the events ftrace lost, how full the fullest buffer was at the
# start of a drain pass, and the longest ftrace read pass (ktrace -v).
# perf sched record runs on the same load as a reference: when it loses
# too, the machine's other work, not the load named here, starved them.
# usage: bench/bench-loaded.sh BUILD_DIR [RUNS] [ROUND_TRIPS]   (as root;
# BENCH_LOADED_LOG=FILE keeps every recording's messages)
set -u
build=${1:-build}
source "$(dirname "$0")/lib.sh"
needs "$build" ktrace bench/pingpong
runs=${2:-6}
trips=${3:-40000}
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
load=
cleanup() {
	[ -n "$load" ] && kill "$load" 2>/dev/null && wait "$load" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
if [ "$(id -u)" -ne 0 ]; then echo "bench-loaded: needs root (BPF and tracefs)"; exit 0; fi
ncpu=$(nproc)

# The load: a build of the CLI, again and again, until the runs are done.
(
	trap 'kill $(jobs -p) 2>/dev/null; exit 0' TERM
	while :; do
		rm -rf "$tmp/load"
		make --no-print-directory -C "$src" O="$tmp/load" -j"$ncpu" "$tmp/load/ktrace" \
			>"$tmp/load.log" 2>&1 & wait $! || { touch "$tmp/load-failed"; exit 1; }
	done
) &
load=$!
sleep 5
if [ -e "$tmp/load-failed" ]; then
	echo "bench-loaded: the background build failed; see its log:"; tail -n 5 "$tmp/load.log"
	exit 1
fi

record() {	# record MODE -> "dropped ftrace_lost fill% ftrace_pass_ms backend"
	local extra=()
	[ "$1" = ftrace ] && extra=(--ftrace sched:sched_switch)
	"$build/ktrace" record -v "${extra[@]}" -o "$tmp/x.fxt" -- \
		"$build/bench/pingpong" "$trips" 0 >/dev/null 2>"$tmp/err"
	[ -n "${BENCH_LOADED_LOG:-}" ] && cat "$tmp/err" >>"$BENCH_LOADED_LOG"
	local d l f p b
	d=$(sed -n 's/.* wrote .*, \([0-9]*\) dropped.*/\1/p' "$tmp/err")
	l=$(sed -n 's/.*ftrace lost \([0-9]*\) events.*/\1/p' "$tmp/err")
	f=$(sed -n 's/.* reader: .* passes, at most .*(\([0-9.]*\)%.*/\1/p' "$tmp/err")
	b=$(sed -n 's/^ktrace: \([a-z]*\) reader: .* passes, at most .*/\1/p' "$tmp/err")
	p=$(sed -n 's/.*ftrace reader: .* the longest \([0-9.]*\) ms.*/\1/p' "$tmp/err")
	echo "${d:-?} ${l:-0} ${f:-?} ${p:--} ${b:-?}"
}
# perf sched record on the same load, for reference: what it lost, in percent.
perf_sched() {
	local lost
	lost=$(cd "$tmp" && perf sched record -o "$tmp/perf.data" -- \
		"$build/bench/pingpong" "$trips" 0 2>&1 >/dev/null |
		sed -n 's/.*samples and lost \([0-9.]*\)%.*/\1/p')
	echo "${lost:-0}"
}
have_perf=$(perf sched record -o "$tmp/perf.data" -- true >/dev/null 2>&1 && echo y)
for r in $(seq "$runs"); do
	for mode in ftrace default; do
		echo "$mode $(record $mode)" >>"$tmp/runs"
	done
	[ -n "$have_perf" ] && echo "perf $(perf_sched)" >>"$tmp/runs"
done
[ -e "$tmp/load-failed" ] && echo "bench-loaded: the background build failed part way; the load was lighter than said"
awk -v runs="$runs" -v trips="$trips" -v ncpu="$ncpu" '
	{ d[$1] = d[$1] " " $2; l[$1] = l[$1] " " $3; f[$1] = f[$1] " " $4; p[$1] = p[$1] " " $5
	  if ($2 > 0) bad[$1]++; if ($4 + 0 > maxf[$1]) maxf[$1] = $4; if ($6 != "") be = $6 }
	END {
		printf "Loaded stream recording (%s backend): pinned ping-pong, %d round trips on CPU 0, beside make -j%d, %d runs each\n",
			be, trips, ncpu, runs
		split("ftrace default", order, " ")
		for (k = 1; k <= 2; k++) { c = order[k]
			printf "  %-26s records dropped:%s (%d of %d runs lost any)\n",
				c == "ftrace" ? "--ftrace sched:sched_switch" : "without --ftrace", d[c], bad[c], runs
			printf "  %-26s fullest buffer at a drain pass, %%:%s (max %.1f)\n", "", f[c], maxf[c]
			if (c == "ftrace")
				printf "  %-26s ftrace lost:%s; its longest read pass, ms:%s\n", "", l[c], p[c]
		}
		if (d["perf"] != "")
			printf "  %-26s lost, %%:%s (%d of %d runs lost any)\n", "perf sched record", d["perf"],
				bad["perf"], runs
	}' "$tmp/runs"
