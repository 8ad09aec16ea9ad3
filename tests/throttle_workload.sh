#!/bin/sh
# A thread that spins in a cgroup whose CPU limit throttles it (cpu.max
# "10000 100000": 10 ms of every 100 ms), recorded by ktrace; for the host
# (bash) and the test VM (busybox sh).  cgroup v2 with the cpu controller
# enabled in the root's subtree_control; where the cpu controller is bound
# to cgroup v1 (hybrid systems), v1's cpu.cfs_quota_us instead.  Exits 4
# with the reason on stdout where neither can be had; leaves no cgroup.
# usage: throttle_workload.sh KTRACE BACKEND OUT.fxt PIDFILE [SECONDS]
# With OUT a directory ending in /, not a file: `ktrace watch --cgroup` of
# the throttled cgroup into it (--threshold 30ms and WATCH_ARGS), SIGTERMed
# once the spinner has ended; OUT.cgroup and OUT.cpu.stat beside it.
set -u
ktrace=$1 backend=$2 out=$3 pidfile=$4 secs=${5:-1.5}
watch=
case $out in */) watch=${out%/} out=${out%/} ;; esac
name=ktrace-throttle-test

# The mount point of the first mount of file system type $1 whose options
# match $2 (mountinfo's optional fields end at "-": its type is next).
mounted() {
	awk -v t="$1" -v o="$2" '{ for (i = 7; $i != "-"; i++); if ($(i + 1) == t && $NF ~ o) { print $5; exit } }' \
		/proc/self/mountinfo
}

# cgroup v2: mounted where the system keeps it, or here (the test VM).
root=$(mounted cgroup2 .)
if [ -z "$root" ] && [ -z "$(mounted cgroup .)" ]; then
	mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null && root=/sys/fs/cgroup
fi
cg= v1=
if [ -n "$root" ] && grep -qw cpu "$root/cgroup.controllers" 2>/dev/null; then
	echo +cpu >"$root/cgroup.subtree_control" 2>/dev/null
	cg=$root/$name
	mkdir -p "$cg" && echo "10000 100000" >"$cg/cpu.max" && echo 10000 >"$cg/cpu.weight" ||
		cg=
fi
if [ -z "$cg" ]; then
	v1root=$(mounted cgroup '(^|,)cpu(,|$)')
	if [ -n "$v1root" ]; then
		cg=$v1root/$name v1=1
		mkdir -p "$cg" && echo 100000 >"$cg/cpu.cfs_period_us" &&
			echo 10000 >"$cg/cpu.cfs_quota_us" && echo 262144 >"$cg/cpu.shares" || cg=
	fi
fi
if [ -z "$cg" ]; then
	[ -n "$root" ] && rmdir "$root/$name" 2>/dev/null
	echo "the cpu controller cannot be enabled here (cgroup v2 root: ${root:-none}; no v1 cpu hierarchy)"
	exit 4	# EXIT_CANNOT_RUN_HERE (tests/lib/tap.sh, which the test VM does not have)
fi
procs=$cg/cgroup.procs
[ -n "$v1" ] && procs=$cg/tasks
# The group's highest weight (cpu.weight, cpu.shares), so that on a busy
# machine nearly all the spinner waits is its cgroup's throttling, not
# its fair share of the CPU.  The spinner's parent, in the cgroup too,
# sleeps and then ends it.
spin="echo \$\$ >$procs || exit 1
	sh -c 'echo \$\$ >$pidfile; while :; do :; done' &
	sleep $secs
	kill \$!
	wait \$! 2>/dev/null
	exit 0"
if [ -n "$watch" ]; then
	"$ktrace" watch --backend "$backend" --threshold 30ms --cgroup "$cg" -o "$watch" \
		${WATCH_ARGS:-} 2>"$watch.log" &
	wpid=$!
	i=0
	while [ $i -lt 1200 ] && ! grep -q 'watching with' "$watch.log" && kill -0 $wpid 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	sh -c "$spin"
	rc=$?
	sleep 1
	kill -TERM $wpid
	wait $wpid
	[ $rc -eq 0 ] && rc=$?
else
	"$ktrace" record --backend "$backend" -o "$out" -- sh -c "$spin"
	rc=$?
fi
cat "$cg/cpu.stat" >"$out.cpu.stat" 2>/dev/null
rmdir "$cg"
if [ -n "$v1" ]; then echo "v1 /$name"; else echo "v2 /$name"; fi >"$out.cgroup"
exit $rc
