#!/bin/sh
# Short-lived children in cgroups (v2) made for them, recorded by ktrace; for
# the host (bash) and the test VM (busybox sh).  Once recording runs, the
# command moves itself into /ktrace-cgroup-test and forks a child there
# (kept), then into /ktrace-cgroup-gone and forks another (gone), then
# back to the root, and removes /ktrace-cgroup-gone before the recording
# ends.  Both children exit long before it ends, so only the recorders'
# own records can give their cgroups.  Writes OUT.kept and OUT.gone (the
# children's pids) and OUT.ids ("KEPT_ID GONE_ID", the cgroups' ids).
# Exits 4 with the reason on stdout where no cgroup v2 can be had;
# leaves no cgroup.
# usage: cgroup_workload.sh KTRACE BACKEND OUT.fxt
set -u
ktrace=$1 backend=$2 out=$3
kept=ktrace-cgroup-test gone=ktrace-cgroup-gone

# The mount point of the first mount of file system type cgroup2.
root=$(awk '{ for (i = 7; $i != "-"; i++); if ($(i + 1) == "cgroup2") { print $5; exit } }' \
	/proc/self/mountinfo)
# Not mounted (the test VM): here, if no cgroup v1 hierarchy is in the way.
if [ -z "$root" ] && ! grep -q ' - cgroup ' /proc/self/mountinfo; then
	mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null && root=/sys/fs/cgroup
fi
if [ -z "$root" ] || ! mkdir "$root/$kept" "$root/$gone"; then
	rmdir "$root/$kept" "$root/$gone" 2>/dev/null
	echo "no cgroup v2 hierarchy to make cgroups in (cgroup2 mount: ${root:-none})"
	exit 4	# EXIT_CANNOT_RUN_HERE (tests/lib/tap.sh, which the test VM does not have)
fi
echo "$(stat -c %i "$root/$kept") $(stat -c %i "$root/$gone")" >"$out.ids"
rm -f "$out.kept" "$out.gone"
"$ktrace" record --backend "$backend" -o "$out" -- sh -c "
	sleep 0.2
	echo \$\$ >$root/$kept/cgroup.procs || exit 1
	sh -c 'echo \$\$ >$out.kept; exec sleep 0.1'
	echo \$\$ >$root/$gone/cgroup.procs || exit 1
	sh -c 'echo \$\$ >$out.gone; exec sleep 0.1'
	echo \$\$ >$root/cgroup.procs
	rmdir $root/$gone || exit 1
	sleep 0.2"
rc=$?
rmdir "$root/$kept" "$root/$gone" 2>/dev/null
exit $rc
