#!/bin/sh
# A thread that spins in a cgroup whose CPU limit throttles it (cpu.max
# "10000 100000": 10 ms of every 100 ms), recorded by ktrace; for the host
# (bash) and the test VM (busybox sh).  cgroup v2 with the cpu controller
# enabled in the root's subtree_control; where the cpu controller is bound
# to cgroup v1 (hybrid systems), v1's cpu.cfs_quota_us instead.  Exits 77
# with the reason on stdout where neither can be had; leaves no cgroup.
# usage: throttle_workload.sh KTRACE BACKEND OUT.fxt PIDFILE [SECONDS]
set -u
ktrace=$1 backend=$2 out=$3 pidfile=$4 secs=${5:-1.5}
name=ktrace-throttle-test

# cgroup v2: mounted where the system keeps it, or here (the test VM).
root=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
if [ -z "$root" ] && ! grep -q ' cgroup ' /proc/self/mountinfo; then
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
	v1root=$(awk '$9 == "cgroup" && $NF ~ /(^|,)cpu(,|$)/ { print $5; exit }' /proc/self/mountinfo)
	if [ -n "$v1root" ]; then
		cg=$v1root/$name v1=1
		mkdir -p "$cg" && echo 100000 >"$cg/cpu.cfs_period_us" &&
			echo 10000 >"$cg/cpu.cfs_quota_us" && echo 262144 >"$cg/cpu.shares" || cg=
	fi
fi
if [ -z "$cg" ]; then
	[ -n "$root" ] && rmdir "$root/$name" 2>/dev/null
	echo "the cpu controller cannot be enabled here (cgroup v2 root: ${root:-none}; no v1 cpu hierarchy)"
	exit 77
fi
procs=$cg/cgroup.procs
[ -n "$v1" ] && procs=$cg/tasks
# The group's highest weight (cpu.weight, cpu.shares), so that on a busy
# machine nearly all the spinner waits is its cgroup's throttling, not
# its fair share of the CPU.
"$ktrace" record --backend "$backend" -o "$out" -- sh -c "echo \$\$ >$procs &&
	exec timeout $secs sh -c 'echo \$\$ >$pidfile; while :; do :; done'"
rc=$?
# timeout's own status when it ends the spinner.
[ $rc = 124 ] && rc=0
cat "$cg/cpu.stat" >"$out.cpu.stat" 2>/dev/null
rmdir "$cg"
if [ -n "$v1" ]; then echo "v1 /$name"; else echo "v2 /$name"; fi >"$out.cgroup"
exit $rc
