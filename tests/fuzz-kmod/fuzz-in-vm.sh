#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the test VM: ktrace.ko under the interface fuzzer
# (fuzz_kmod $FUZZ_ARGS) while two pipe ping-pongs switch, `ktrace record`
# runs whenever the fuzzer leaves the device free, and rmmod is tried
# every few seconds; then the module must unload, reload and record.
# Results in $FUZZ_RESULTS (default /results/fuzz); each step's exit status
# goes to its file "status".  The fuzzer is /ktrace/fuzz_kmod, or the
# payload appended to this script by tests/fuzz-kmod/run-vm.sh.
R=${FUZZ_RESULTS:-/results/fuzz}
mkdir -p "$R"
cd /ktrace || exit 1
export PATH=/ktrace:$PATH
FUZZ_ARGS=${FUZZ_ARGS:---seconds 30}
# Seconds after which a fuzzer that has not finished is stuck.
FUZZ_DEADLINE=${FUZZ_DEADLINE:-600}

fuzz=/ktrace/fuzz_kmod
if [ ! -x "$fuzz" ]; then
	fuzz=/tmp/fuzz_kmod
	sed '1,/^#__FUZZ_KMOD_PAYLOAD__$/d' "$0" | base64 -d | gunzip >"$fuzz" && chmod +x "$fuzz"
fi

note() { echo "$1 $2" >>"$R/status"; }

uname -r >"$R/uname"
echo "$FUZZ_ARGS" >"$R/args"
lsmod | grep -q '^ktrace ' || insmod ./ktrace.ko 2>"$R/insmod.err"
note insmod $?
# The checker reads the kernel log from here on.
echo "ktrace-fuzz: start $FUZZ_ARGS" >/dev/kmsg
grep -E '^(Slab|VmallocUsed|MemFree):' /proc/meminfo >"$R/meminfo.before"

# The fixed sequences of bugs found before, on a quiet system.
"$fuzz" --regressions >"$R/regressions.out" 2>&1
note regressions $?

# Context switches on both CPUs while the sessions record.
pingpong 1000000000 0 >/dev/null 2>&1 &
pp0=$!
pingpong 1000000000 1 >/dev/null 2>&1 &
pp1=$!

# A real recorder whenever the device is free; a busy device is expected.
(
	ok=0 busy=0 gone=0 other=0 invalid=0
	while [ ! -e /tmp/fuzz.done ]; do
		if ktrace record --backend kmod -b 64K -d 1 -o /tmp/rec.fxt >/dev/null 2>/tmp/rec.err; then
			ok=$((ok + 1))
			ktrace dump --strict --quiet /tmp/rec.fxt >/dev/null 2>>"$R/record-invalid.err" ||
				invalid=$((invalid + 1))
		elif grep -q 'another ktrace session is running' /tmp/rec.err; then
			busy=$((busy + 1))
		elif grep -qE 'does not exist|No such (file|device)' /tmp/rec.err; then
			gone=$((gone + 1))
		else
			other=$((other + 1))
			cat /tmp/rec.err >>"$R/record-other.err"
		fi
		sleep 0.3
	done
	echo "ok=$ok busy=$busy module_unloaded=$gone other=$other invalid=$invalid" >"$R/record.txt"
) &
rec=$!

# rmmod succeeds only when nothing holds the module; then it is reloaded at once.
(
	unloaded=0 refused=0 reload_failed=0
	while [ ! -e /tmp/fuzz.done ]; do
		sleep 3
		if rmmod ktrace 2>/dev/null; then
			unloaded=$((unloaded + 1))
			insmod ./ktrace.ko 2>>"$R/reload.err" || reload_failed=$((reload_failed + 1))
		else
			refused=$((refused + 1))
		fi
	done
	echo "unloaded=$unloaded refused=$refused reload_failed=$reload_failed" >"$R/rmmod.txt"
) &
rml=$!

start=$(date +%s)
# shellcheck disable=SC2086
"$fuzz" $FUZZ_ARGS >"$R/fuzz.out" 2>"$R/fuzz.err" &
fz=$!
while kill -0 $fz 2>/dev/null && [ $(($(date +%s) - start)) -lt "$FUZZ_DEADLINE" ]; do
	sleep 1
done
if kill -0 $fz 2>/dev/null; then
	# Stuck: where each thread waits, and every blocked task, then give up.
	for t in /proc/$fz/task/*; do
		echo "== $t"
		cat "$t/stack"
	done >"$R/stuck-stacks.txt" 2>&1
	echo w >/proc/sysrq-trigger
	kill -9 $fz
	note fuzz_stuck 1
fi
wait $fz
note fuzz $?
echo $(($(date +%s) - start)) >"$R/fuzz.seconds"

touch /tmp/fuzz.done
kill $pp0 $pp1 2>/dev/null
wait $rec $rml $pp0 $pp1 2>/dev/null
grep -E '^(Slab|VmallocUsed|MemFree):' /proc/meminfo >"$R/meminfo.after"

# The module unloads once the fuzzer is gone, reloads and records.
lsmod | grep -q '^ktrace ' || insmod ./ktrace.ko
rmmod ktrace 2>"$R/rmmod.err"
note rmmod $?
insmod ./ktrace.ko 2>>"$R/rmmod.err"
note reload $?
ktrace record --backend kmod -o /tmp/after.fxt -- pingpong 2000 0 >/dev/null 2>"$R/after.err" &&
	ktrace dump --strict --quiet /tmp/after.fxt >/dev/null 2>>"$R/after.err"
note record_after $?
rmmod ktrace 2>>"$R/rmmod.err"
note rmmod_again $?
echo "ktrace-fuzz: end" >/dev/kmsg
dmesg >"$R/dmesg.txt"
exit 0
