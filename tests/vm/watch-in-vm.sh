#!/bin/sh
# Runs inside the test VM (scripts/vm-run.sh with KTRACE_VM_SCRIPT; the
# host checks with tests/suites/watch-vm.sh): ktrace watch with each
# backend beside spikes of known causes (a cgroup's SCHED_FIFO hog watched
# by --cgroup, a throttled cgroup, a thread that spins in the kernel
# through the test module), and the module unloaded under a running watch.
. /ktrace/steps.sh

uname -r >"$R/uname"
# PREEMPT_DYNAMIC's model now, "none voluntary (full) lazy" (absent without it).
cat /sys/kernel/debug/sched/preempt >"$R/preempt" 2>/dev/null
step insmod insmod ./ktrace.ko
step api_insmod insmod ./ktrace_api_test.ko

# watch_start NAME ARGS...: ktrace watch into $R/NAME in the background, its
# pid in $wpid, once it records (or has ended).
watch_start() {
	name=$1
	shift
	mark "$name"
	ktrace watch "$@" -o "$R/$name" --before 100ms --after 10ms -d 300 \
		>"$R/$name.out" 2>"$R/$name.err" &
	wpid=$!
	watching "$R/$name.err" $wpid
}
# watch_stop NAME: SIGTERM, and its exit status as NAME's.
watch_stop() {
	kill -TERM $wpid 2>/dev/null
	wait $wpid
	echo "$1 $?" >>"$R/status"
}

# cgroup v2, mounted here if the kernel has not.
cg2=$(awk '/ - cgroup2 / {print $5; exit}' /proc/self/mountinfo)
if [ -z "$cg2" ] && mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null; then
	cg2=/sys/fs/cgroup
fi
echo "${cg2:-none}" >"$R/cgroup2"
for b in kmod bpf; do
	# --cgroup: three bursts of the hog, the workload in a child of the
	# watched cgroup (its victim's: under emulation the other threads wait
	# 10 ms too, and a window they took could hold a burst); four seconds
	# apart.
	if [ -n "$cg2" ] && mkdir -p "$cg2/ktrace-watch-$b/child"; then
		watch_start ${b}_wcg --backend $b --threshold 10ms --cgroup "$cg2/ktrace-watch-$b" \
			--comm kt_victim
		step ${b}_wcgload sh -c "echo \$\$ >$cg2/ktrace-watch-$b/child/cgroup.procs &&
			exec spike_workload $R/${b}_wcg.expect 3 20000 4000"
		sleep 3
		watch_stop ${b}_wcg
		rmdir "$cg2/ktrace-watch-$b/child" "$cg2/ktrace-watch-$b"
	fi
	# A spinner in a cgroup limited to 10 ms of every 100 ms, watched by
	# its cgroup: throttled, in that cgroup, for eight seconds.
	step ${b}_wthr sh ./throttle_workload.sh ktrace $b $R/${b}_wthr/ $R/${b}_wthr.pid 8
	# A SCHED_FIFO thread woken where a fair thread spins 20 ms in the
	# kernel (the test module's spin parameter): not_preempted behind
	# kt_spinner, where the kernel does not preempt it (--rt: not while
	# kt_rt starts, a fair thread then; 1 ms: a real-time thread waits
	# that long only behind the spinner, a higher priority or interrupts).
	# Forty spins, about 0.9 s: under emulation a window takes longer than
	# twenty do, and only a spin after the first window's re-arm makes a
	# second chance.
	watch_start ${b}_wspin --backend $b --threshold 1ms --rt --comm kt_rt
	step ${b}_wspinload preempt_workload $R/${b}_wspin.expect 40 20000
	sleep 3
	watch_stop ${b}_wspin
done
step api_rmmod rmmod ktrace_api_test
# The module's bursts 120 ms apart, closer than a window and its re-arm
# take: windows reach back past the last re-arm and mark the stretch the
# re-arm left unrecorded as loss records.
watch_start kmod_wclose --backend kmod --threshold 10ms --comm kt_victim
step kmod_wcloseload spike_workload $R/kmod_wclose.expect 8 20000 120
sleep 1
watch_stop kmod_wclose

# The module unloaded under a running watch: refused while it records (the
# open device holds the module), and tried again and again while spikes
# come and the watch takes their windows and re-arms the trigger in place,
# the device open all along: refused every time, what it saved is whole.
watch_start kmod_wunload --backend kmod --threshold 10ms --comm kt_victim
step kmod_wunload_busy rmmod ktrace
kill -0 $wpid
echo "kmod_wunload_alive $?" >>"$R/status"
spike_workload $R/kmod_wunload.expect 4 20000 1500 >/dev/null 2>&1 &
load=$!
tries=0 unloaded=0
while kill -0 $load 2>/dev/null; do
	tries=$((tries + 1))
	rmmod ktrace 2>/dev/null && unloaded=$((unloaded + 1)) && break
done
echo "kmod_wunload_tries $tries" >>"$R/status"
echo "kmod_wunload_rmmod $unloaded" >>"$R/status"
wait $load
sleep 1
watch_stop kmod_wunload
[ -e /sys/module/ktrace ] || insmod ./ktrace.ko
dmesg >"$R/dmesg"
