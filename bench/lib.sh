# SPDX-License-Identifier: GPL-2.0
# Sourced by the benchmarks, run by `make bench` or on their own.
# needs BUILD_DIR TARGET...: builds what a benchmark runs (the CLI, a test
# program) when it is not there yet, through the Makefile, so that a
# benchmark run directly measures real programs; stops with what to run
# when that fails.
needs() {
	local build=$1 t missing=()
	shift
	for t in "$@"; do [ -x "$build/$t" ] || missing+=("$build/$t"); done
	[ ${#missing[@]} -eq 0 ] && return 0
	echo "# building ${missing[*]}" >&2
	make --no-print-directory -C "$(dirname "${BASH_SOURCE[0]}")/.." O="$build" "${missing[@]}" >&2 && return 0
	echo "$(basename "$0"): ${missing[*]} cannot be built; run 'make bench' (or 'make O=$build ${missing[*]}') first" >&2
	exit 1
}

# ftrace_instance DIR EVENT...: a tracefs instance of its own, off, on the
# monotonic clock where the kernel has it, with each EVENT (sched/sched_switch)
# enabled; an event the kernel lacks is left out.  Fails if DIR cannot be made.
ftrace_instance() {
	local dir=$1 e
	shift
	mkdir "$dir" || return 1
	echo 0 >"$dir/tracing_on"
	for e in "$@"; do
		echo 1 >"$dir/events/$e/enable" 2>/dev/null
	done
	[ -w "$dir/trace_clock" ] && echo mono >"$dir/trace_clock"
	return 0
}

# pct FILE P: the P-th percentile of the numbers in FILE, one a line.
pct() { sort -n "$1" | awk -v p="$2" '{a[NR]=$1} END {i = int(NR * p / 100); if (i < 1) i = 1; print a[i]}'; }

# base_build BUILD_DIR REV: builds the ktrace of revision REV of this
# repository (a release's tag, a commit) in BUILD_DIR/bench-base, from a
# detached worktree of it there, and prints the build directory.
base_build() {
	local build=$1 rev=$2 top src out commit
	top=$(git -C "$(dirname "${BASH_SOURCE[0]}")" rev-parse --show-toplevel 2>/dev/null) || {
		echo "$(basename "$0"): BENCH_BASE=$rev: not in a git repository" >&2; return 1; }
	commit=$(git -C "$top" rev-parse --verify -q "$rev^{commit}") || {
		echo "$(basename "$0"): BENCH_BASE=$rev: no such revision" >&2; return 1; }
	build=$(realpath -m "$build")
	src=$build/bench-base/src out=$build/bench-base/build
	if [ "$(git -C "$src" rev-parse HEAD 2>/dev/null)" != "$commit" ]; then
		git -C "$top" worktree remove --force "$src" 2>/dev/null
		rm -rf "$src" "$out"
		git -C "$top" worktree add -q --detach "$src" "$commit" >&2 || return 1
	fi
	echo "# building ktrace at $rev (${commit:0:12}) in $out" >&2
	make --no-print-directory -C "$src" O="$out" "$out/ktrace" >"$build/bench-base/make.log" 2>&1 || {
		echo "$(basename "$0"): building $rev failed; see $build/bench-base/make.log" >&2; return 1; }
	echo "$out"
}
