#!/bin/sh
# Runs inside the test VM (tests/suites/watch-soak.sh puts soak_secs= and
# backends= before it): ktrace watch for soak_secs with each backend, beside
# a burst of a SCHED_FIFO hog on its victim's CPU every 5 s; the watch's
# resident memory every 10 s into $R/BACKEND_soak.rss ("SECONDS KB").
. /ktrace/steps.sh

uname -r >"$R/uname"
step insmod insmod ./ktrace.ko
for b in ${backends:-kmod bpf}; do
	mark ${b}_soak
	ktrace watch --backend $b --threshold 10ms --comm kt_victim -o $R/${b}_soak --before 100ms \
		--after 10ms --max-rate 20/min >"$R/${b}_soak.out" 2>"$R/${b}_soak.err" &
	wpid=$!
	watching "$R/${b}_soak.err" $wpid
	spike_workload $R/${b}_soak.expect $((${soak_secs:-600} / 5)) 20000 5000 \
		>"$R/${b}_soakload.out" 2>"$R/${b}_soakload.err" &
	load=$!
	t=0
	: >"$R/${b}_soak.rss"
	while kill -0 $load 2>/dev/null; do
		echo "$t $(awk '/^VmRSS/ {print $2}' /proc/$wpid/status 2>/dev/null)" >>"$R/${b}_soak.rss"
		# A step line each minute: the host's watchdog sees the guest alive.
		[ $((t % 60)) -eq 0 ] && mark ${b}_soak_${t}s
		sleep 10
		t=$((t + 10))
	done
	wait $load
	echo "${b}_soakload $?" >>"$R/status"
	sleep 2
	echo "$t $(awk '/^VmRSS/ {print $2}' /proc/$wpid/status 2>/dev/null)" >>"$R/${b}_soak.rss"
	kill -TERM $wpid
	wait $wpid
	echo "${b}_soak $?" >>"$R/status"
done
dmesg >"$R/dmesg"
