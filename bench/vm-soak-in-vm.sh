#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the test VM: ktrace.ko records for $SOAK_STREAM_SECONDS in
# stream and $SOAK_SECONDS in ring mode while a pipe ping-pong switches as fast as it can on
# each CPU.  Every $SOAK_INTERVAL seconds the CLI's VmRSS, the kernel's
# Slab, VmallocUsed and Shmem (the CLI's spools in /tmp) and the number of
# context switches so far (/proc/stat) are sampled.  The
# trace goes through a FIFO into `ktrace dump --stats --check` (the
# timeline checker: every break explained by a record), so that only the
# spools take memory.  Results in /results/soak-MODE.*.
R=/results
mkdir -p $R
cd /ktrace || exit 1
export PATH=/ktrace:$PATH
SOAK_SECONDS=${SOAK_SECONDS:-600}
SOAK_STREAM_SECONDS=${SOAK_STREAM_SECONDS:-$SOAK_SECONDS}
SOAK_INTERVAL=${SOAK_INTERVAL:-5}
SOAK_MODES=${SOAK_MODES:-stream ring}

uname -r >$R/uname
insmod ./ktrace.ko || exit 1
kb() { awk -v k="$1:" '$1 == k {print $2}' /proc/meminfo; }
# The spools' page cache index (xarray nodes) is slab too, and grows with
# them: sampled apart, so that the module's own Slab can be told from it.
radix_kb() { awk '$1 == "radix_tree_node" {print int($2 * $4 / 1024)}' /proc/slabinfo 2>/dev/null; }
# The spools live in /tmp, a tmpfs, half of RAM by default: all but 300 MiB.
mount -o remount,size=$(( $(awk '/MemTotal/ {print int($2 / 1024)}' /proc/meminfo) - 300 ))M /tmp

for mode in $SOAK_MODES; do
	opt=
	secs=$SOAK_STREAM_SECONDS
	[ $mode = ring ] && opt=--ring secs=$SOAK_SECONDS
	pingpong 2000000000 0 >/dev/null 2>&1 &
	pp0=$!
	pingpong 2000000000 1 >/dev/null 2>&1 &
	pp1=$!
	rm -f /tmp/soak.fxt
	mkfifo /tmp/soak.fxt
	ktrace dump --stats --check --quiet - </tmp/soak.fxt >$R/soak-$mode.stats 2>$R/soak-$mode.dump.err &
	dump=$!
	echo "t rss_kb slab_kb vmalloc_kb shmem_kb ctxt radix_kb" >$R/soak-$mode.samples
	t0=$(date +%s)
	ktrace record --backend kmod $opt -d "$secs" -o /tmp/soak.fxt \
		>/dev/null 2>$R/soak-$mode.err &
	rec=$!
	last=0
	while kill -0 $rec 2>/dev/null; do
		# A step line a minute: the host's watchdog takes silence for a hang.
		now=$(($(date +%s) - t0))
		if [ $((now - last)) -ge 60 ] && command -v vm-step >/dev/null; then
			vm-step "soak $mode ${now} s"
			last=$now
		fi
		rss=$(awk '$1 == "VmRSS:" {print $2}' /proc/$rec/status 2>/dev/null)
		[ -n "$rss" ] && echo "$(($(date +%s) - t0)) $rss $(kb Slab) $(kb VmallocUsed) $(kb Shmem)" \
			"$(awk '$1 == "ctxt" {print $2}' /proc/stat) $(radix_kb)" >>$R/soak-$mode.samples
		sleep "$SOAK_INTERVAL"
	done
	wait $rec
	echo "record_$mode $?" >>$R/status
	wait $dump
	echo "dump_$mode $?" >>$R/status
	kill $pp0 $pp1
	wait $pp0 $pp1 2>/dev/null
	rm -f /tmp/soak.fxt
	grep -E '^(Slab|VmallocUsed|Shmem|MemFree):' /proc/meminfo >$R/soak-$mode.meminfo-after
done
rmmod ktrace
echo "rmmod $?" >>$R/status
dmesg >$R/dmesg.txt
