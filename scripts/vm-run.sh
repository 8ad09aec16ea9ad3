#!/bin/bash
# Boots Debian's kernel KERNEL_RELEASE under qemu-system-x86_64 -accel tcg
# (an arm64 one under qemu-system-aarch64 -M virt, with the programs built
# by make CROSS=arm64 in BUILD_DIR/arm64) with an initramfs of busybox,
# ktrace.ko, the CLI and the test programs (with the libraries they need)
# and the kernel's own virtio modules, runs
# tests/vm/run-in-vm.sh inside, and brings /results back as a tar the guest
# writes to a raw virtio disk: the serial console only carries one line per
# step ("ktrace-vm: step NAME", which in-VM scripts print with vm-step NAME),
# so its speed does not matter (on PREEMPT_RT kernels a busy 8250 console
# garbles or crawls).
#
# A guest that stops printing step lines for KTRACE_VM_STALL seconds (300),
# or runs longer than KTRACE_VM_TIMEOUT seconds (1200) in all, is killed
# and reported with the step it was in and the console's tail.
#
# Multi-threaded TCG is not used: with it, the kernel's cross-CPU code
# patching (text_poke_bp() when a tracepoint probe is added or removed)
# sometimes never completes; one thread emulating both CPUs is reliable.
#
# usage: scripts/vm-run.sh BUILD_DIR KERNEL_RELEASE
#   -> BUILD_DIR/vm/KERNEL_RELEASE/{results/,console.log,steps.log}
# KTRACE_VM_SCRIPT: another script to run inside (it prints its own step
# lines); KTRACE_VM_LOGLEVEL: the guest's console log level (1);
# KTRACE_VM_SMP: CPUs (2); KTRACE_VM_MEM: MiB of memory (1536);
# KTRACE_VM_INIT=systemd: systemd as PID 1 (this machine's, added by
# scripts/vm-systemd-root.sh), the script run by a unit of its own.
set -eu
build=${1:-build}
krel=${2:?usage: scripts/vm-run.sh BUILD_DIR KERNEL_RELEASE}
out=$build/vm/$krel
root=$out/root
. "$(dirname "$0")/kernel-paths.sh"
kernel_paths "$krel" || true
kernel=$kimage moddir=$kmoddir
# The programs that run in the guest, and its busybox and libraries.
pbuild=$build busybox=/bin/busybox libdirs=
if [ "$karch" = arm64 ]; then
	pbuild=$build/arm64 busybox=$KTRACE_CACHE/arm64/bin/busybox
	libdirs="/lib/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu"
fi
stall_s=${KTRACE_VM_STALL:-300}
timeout_s=${KTRACE_VM_TIMEOUT:-1200}
script=${KTRACE_VM_SCRIPT:-tests/vm/run-in-vm.sh}
loglevel=${KTRACE_VM_LOGLEVEL:-1}
smp=${KTRACE_VM_SMP:-2}
mem=${KTRACE_VM_MEM:-1536}	# MiB
init=${KTRACE_VM_INIT:-busybox}

die() { echo "vm-run: $krel: $*" >&2; exit 1; }
[ -r "$kernel" ] || die "$kernel missing: install linux-image-$krel (scripts/install-deps.sh --test)"
[ -f "$moddir/modules.dep" ] || die "$moddir/modules.dep missing: install linux-image-$krel (scripts/install-deps.sh --test)"
[ -f "$build/kmod/$krel/kmod/ktrace.ko" ] || die "$build/kmod/$krel/kmod/ktrace.ko missing: make kmod KREL=$krel"
rm -rf "$out"
mkdir -p "$root"/{bin,sbin,etc,proc,sys,dev,tmp,ktrace,results,lib/modules}

# busybox with every applet linked, except busybox itself (this machine's
# busybox lists them: the guest's may be another architecture's).
[ -x "$busybox" ] || die "$busybox missing (scripts/install-deps.sh --test)"
cp "$busybox" "$root/bin/busybox"
for a in $(/bin/busybox --list); do
	[ "$a" = busybox ] || ln -sf busybox "$root/bin/$a"
done

# The virtio disk's drivers, from the kernel's own package when they are
# modules there, dependencies first (modules.dep lists them all, the
# innermost last), decompressed for busybox's insmod.
modpath() { awk -F: -v m="$1" '{ n = $1; sub(/.*\//, "", n); sub(/\.ko(\.[a-z]+)?$/, "", n) }
	n == m { print $0; exit }' "$moddir/modules.dep"; }
order=()
for m in virtio_pci virtio_blk; do
	line=$(modpath $m)
	if [ -z "$line" ]; then
		sed 's|.*/||; s/\.ko$//' "$moddir/modules.builtin" | grep -qx "$m" ||
			die "$m is neither a module nor built in (modules.dep, modules.builtin)"
		continue
	fi
	deps=(${line#*:})
	for ((i = ${#deps[@]} - 1; i >= 0; i--)); do order+=("${deps[i]}"); done
	order+=("${line%%:*}")
done
: >"$root/lib/modules/load"
for p in "${order[@]}"; do
	name=$(basename "$p")
	name=${name%%.ko*}.ko
	grep -qx "$name" "$root/lib/modules/load" && continue
	case $p in
	*.ko) cp "$moddir/$p" "$root/lib/modules/$name" ;;
	*.ko.xz) xz -dc "$moddir/$p" >"$root/lib/modules/$name" ;;
	*.ko.zst) zstd -qdc "$moddir/$p" >"$root/lib/modules/$name" ;;
	*.ko.gz) gzip -dc "$moddir/$p" >"$root/lib/modules/$name" ;;
	*) die "$moddir/$p: unknown module compression" ;;
	esac
	echo "$name" >>"$root/lib/modules/load"
done

progs="$pbuild/ktrace $pbuild/tests/known_workload $pbuild/tests/latency_workload $pbuild/tests/fifo_hog_workload
	$pbuild/selftests/ktrace_test"
[ -x "$pbuild/bench/pingpong" ] && progs="$progs $pbuild/bench/pingpong"
[ -x "$pbuild/bench/kmod_bench" ] && progs="$progs $pbuild/bench/kmod_bench"
[ -x "$pbuild/tests/chain_workload" ] && progs="$progs $pbuild/tests/chain_workload"
[ -x "$pbuild/tests/churn_workload" ] && progs="$progs $pbuild/tests/churn_workload"
[ -x "$pbuild/tests/placement_workload" ] && progs="$progs $pbuild/tests/placement_workload"
[ -x "$pbuild/tests/preempt_workload" ] && progs="$progs $pbuild/tests/preempt_workload"
[ -x "$pbuild/tests/spike_workload" ] && progs="$progs $pbuild/tests/spike_workload"
[ -x "$pbuild/tests/fuzz_kmod" ] && progs="$progs $pbuild/tests/fuzz_kmod"
# cyclictest (rt-tests), which the timer waits are checked against: this
# machine's, for a guest of its own architecture.
[ "$karch" != arm64 ] && cyclictest=$(command -v cyclictest) && progs="$progs $cyclictest"
for p in $progs; do [ -x "$p" ] || die "$p is not built (make vm-check KREL=$krel builds it)"; done
kobj=$build/kmod/$krel
cp "$kobj/kmod/ktrace.ko" $progs "$root/ktrace/"
[ -f "$kobj/tests/kmod-api/ktrace_api_test.ko" ] && cp "$kobj/tests/kmod-api/ktrace_api_test.ko" "$root/ktrace/"
cp "$script" "$root/ktrace/run-in-vm.sh"
cp tests/fuzz-kmod/fuzz-in-vm.sh tests/vm/steps.sh tests/throttle_workload.sh tests/cgroup_workload.sh \
	"$root/ktrace/"
# The step lines go through printk at KERN_EMERG, which shows at any console
# log level and is flushed when the kernel panics; what a process writes to
# the tty is lost then.
cat >"$root/bin/vm-step" <<'STEP'
#!/bin/sh
echo "<0>ktrace-vm: step $*" >/dev/kmsg 2>/dev/null || echo "ktrace-vm: step $*"
STEP
chmod +x "$root/bin/vm-step"
# The libraries the programs need, at the paths the loader looks for them:
# ldd's list, or for another architecture's programs each DT_NEEDED found
# in that architecture's library directories, and theirs in turn.
if [ -z "$libdirs" ]; then
	for lib in $(ldd $progs | awk '/=> \// {print $3} /^\s*\/lib/ {print $1}' | sort -u); do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
	[ -e "$root/lib64" ] || { mkdir -p "$root/lib64"; cp -L /lib64/ld-linux-x86-64.so.2 "$root/lib64/"; }
else
	todo=$progs
	while [ -n "$todo" ]; do
		next=
		for f in $todo; do
			interp=$(readelf -l "$f" | sed -n 's/.*interpreter: \(.*\)]/\1/p')
			if [ -n "$interp" ] && [ ! -e "$root$interp" ]; then
				mkdir -p "$root$(dirname "$interp")"
				cp -L "$interp" "$root$interp"
			fi
			for lib in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
				found=
				for d in $libdirs; do [ -e "$d/$lib" ] && { found=$d/$lib; break; }; done
				[ -n "$found" ] || die "$f needs $lib, which is in none of $libdirs"
				[ -e "$root$found" ] && continue
				mkdir -p "$root$(dirname "$found")"
				cp -L "$found" "$root$found"
				next="$next $found"
			done
		done
		todo=$next
	done
fi

case $init in
busybox) ;;
systemd)
	[ "$karch" = x86_64 ] || die "KTRACE_VM_INIT=systemd: this machine's systemd runs on x86_64 guests only"
	scripts/vm-systemd-root.sh "$build" "$root" || die "the root with systemd could not be made"
	;;
*) die "KTRACE_VM_INIT=$init: busybox or systemd" ;;
esac

# The guest writes /results as a tar to the start of /dev/vda, and after
# it results-complete: the disk starts as zeroes, which tar reads as an
# empty archive, and a tar cut short lacks results-complete.  /init mounts
# and loads the modules; vm-main waits for the disk, runs the script and
# writes the results; with systemd, /init hands over to it, and its
# ktrace-vm.service runs vm-main.
cat >"$root/init" <<'INIT'
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
dmesg -n LOGLEVEL
vm-step boot "$(uname -r)"
for m in $(cat /lib/modules/load); do
	insmod /lib/modules/$m || echo "ktrace-vm: insmod $m failed"
done
[ -x /lib/systemd/systemd ] && exec /lib/systemd/systemd
exec /bin/vm-main
INIT
cat >"$root/bin/vm-main" <<'INIT'
#!/bin/sh
i=0
while [ ! -b /dev/vda ] && [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
if [ -b /dev/vda ]; then
	/ktrace/run-in-vm.sh
	vm-step write-results
	echo "$(uname -r)" >/results-complete
	tar -cf /dev/vda -C / results results-complete && sync && vm-step results written
else
	echo "ktrace-vm: error: no /dev/vda, the results cannot come back"
fi
poweroff -f
INIT
sed -i "s/LOGLEVEL/$loglevel/" "$root/init"
chmod +x "$root/init" "$root/bin/vm-main"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$out/initramfs.cpio.gz"
truncate -s 512M "$out/results.img"

if [ "$karch" = arm64 ]; then
	machine=(qemu-system-aarch64 -M virt -cpu cortex-a57) console=ttyAMA0
else
	machine=(qemu-system-x86_64) console=ttyS0
fi
"${machine[@]}" -accel tcg,thread=single -m "$mem" -smp "$smp" -nographic -no-reboot -net none \
	-kernel "$kernel" -initrd "$out/initramfs.cpio.gz" \
	-drive "file=$out/results.img,format=raw,if=none,id=results" -device virtio-blk-pci,drive=results \
	-append "console=$console panic=-1 quiet loglevel=$loglevel printk.devkmsg=on rdinit=/init" \
	</dev/null >"$out/console.log" 2>&1 &
qemu=$!

# The watchdog: each step line restarts the stall clock; steps.log gets the
# seconds since start at which each step began.
start=$(date +%s)
last=$start seen=0 verdict=
step() { grep -a 'ktrace-vm: step ' "$out/console.log" | tail -n 1 | tr -d '\r' | sed 's/.*ktrace-vm: step //'; }
while kill -0 $qemu 2>/dev/null; do
	sleep 2
	now=$(date +%s)
	# Whole lines only: the last one may be half written.
	steps=$(head -n "$(wc -l <"$out/console.log")" "$out/console.log" | grep -a 'ktrace-vm: step ' |
		tr -d '\r' | sed 's/.*ktrace-vm: step //')
	n=$(printf '%s' "$steps" | grep -c '' || true)
	if [ "$n" -gt "$seen" ]; then
		printf '%s\n' "$steps" | tail -n +$((seen + 1)) | sed "s/^/$((now - start)) /" >>"$out/steps.log"
		seen=$n last=$now
	fi
	if [ $((now - last)) -ge "$stall_s" ]; then
		verdict="the guest stalled: no step line for $stall_s s, in step '$(step)'"
	elif [ $((now - start)) -ge "$timeout_s" ]; then
		verdict="the guest ran longer than $timeout_s s in all; it was in step '$(step)'"
	fi
	if [ -n "$verdict" ]; then
		kill $qemu 2>/dev/null
		break
	fi
done
wait $qemu 2>/dev/null || true
echo "$(($(date +%s) - start)) end" >>"$out/steps.log"

if [ -z "$verdict" ]; then
	tar -xf "$out/results.img" -C "$out" 2>"$out/tar.err"
	[ -f "$out/results-complete" ] ||
		verdict="the guest stopped in step '$(step)' without writing all its results$(
			[ -s "$out/tar.err" ] && echo " (tar: $(head -1 "$out/tar.err"))")"
fi
if [ -n "$verdict" ]; then
	# The console from the last step line: its first 30 lines (an oops
	# starts with what went wrong) and its last 10.
	echo "vm-run: $krel: $verdict after $(($(date +%s) - start)) s; the console ($out/console.log)" \
		"from the last step line:" >&2
	tr -d '\r' <"$out/console.log" | awk '/ktrace-vm: step / { n = 0 } { l[++n] = $0 }
		END { for (i = 1; i <= n; i++) if (i <= 30 || i > n - 10) print "  " l[i]; else if (i == 31) print "  ..." }' >&2
	exit 1
fi
rm -f "$out/results.img"
