#!/bin/bash
# Boots Debian's linux-image-amd64 under qemu-system-x86_64 -accel tcg with an
# initramfs of busybox, ktrace.ko, the CLI and the test programs (with the
# libraries ldd lists), runs tests/vm/run-in-vm.sh inside, and brings
# /results back as a base64 tar printed between markers on the serial console.
# Multi-threaded TCG is not used: with it, the kernel's cross-CPU code
# patching (text_poke_bp() when a tracepoint probe is added or removed)
# sometimes never completes; one thread emulating both CPUs is reliable.
# usage: scripts/vm-run.sh BUILD_DIR KERNEL_RELEASE   -> BUILD_DIR/vm/results
set -eu
build=${1:-build}
krel=${2:?kernel release}
vm=$build/vm
root=$vm/root
kernel=/boot/vmlinuz-$krel
timeout_s=${KTRACE_VM_TIMEOUT:-1500}
# For debugging: another script to run inside, and kernel messages on the console.
script=${KTRACE_VM_SCRIPT:-tests/vm/run-in-vm.sh}
loglevel=${KTRACE_VM_LOGLEVEL:-1}

[ -r "$kernel" ] || { echo "vm-run: $kernel missing: install linux-image-amd64" >&2; exit 1; }
rm -rf "$root" "$vm/results"
mkdir -p "$root"/{bin,sbin,etc,proc,sys,dev,tmp,ktrace,results} "$vm/results"

# busybox with every applet linked, except busybox itself.
cp /bin/busybox "$root/bin/busybox"
for a in $(/bin/busybox --list); do
	[ "$a" = busybox ] || ln -sf busybox "$root/bin/$a"
done
ln -sf ../bin/busybox "$root/sbin/init.busybox"

progs="$build/ktrace $build/tests/workload $build/tests/latency_workload $build/selftests/ktrace_test"
[ -x "$build/bench/pingpong" ] && progs="$progs $build/bench/pingpong"
kobj=$build/kmod/$krel
cp "$kobj/kmod/ktrace.ko" $progs "$root/ktrace/"
[ -f "$kobj/tests/kmod-api/ktrace_api_test.ko" ] && cp "$kobj/tests/kmod-api/ktrace_api_test.ko" "$root/ktrace/"
cp "$script" "$root/ktrace/run-in-vm.sh"
# The libraries the programs need, at the paths the loader looks for them.
for lib in $(ldd $progs | awk '/=> \// {print $3} /^\s*\/lib/ {print $1}' | sort -u); do
	mkdir -p "$root$(dirname "$lib")"
	cp -L "$lib" "$root$lib"
done
[ -e "$root/lib64" ] || { mkdir -p "$root/lib64"; cp -L /lib64/ld-linux-x86-64.so.2 "$root/lib64/"; }

cat >"$root/init" <<'INIT'
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
dmesg -n LOGLEVEL
/ktrace/run-in-vm.sh
echo "=====KTRACE-RESULTS-BEGIN====="
tar -czf - -C / results | base64
echo "=====KTRACE-RESULTS-END====="
poweroff -f
INIT
sed -i "s/LOGLEVEL/$loglevel/" "$root/init"
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$vm/initramfs.cpio.gz"

timeout "$timeout_s" qemu-system-x86_64 -accel tcg,thread=single -m 1536 -smp 2 -nographic -no-reboot \
	-kernel "$kernel" -initrd "$vm/initramfs.cpio.gz" \
	-append "console=ttyS0 panic=-1 quiet loglevel=$loglevel rdinit=/init" </dev/null >"$vm/console.log" 2>&1 || true
sed -n '/=====KTRACE-RESULTS-BEGIN=====/,/=====KTRACE-RESULTS-END=====/p' "$vm/console.log" |
	sed '1d;$d' | tr -d '\r' | base64 -d | tar -xzf - -C "$vm" 2>/dev/null || {
	echo "vm-run: no results came back; the console log is $vm/console.log" >&2
	tail -20 "$vm/console.log" >&2
	exit 1
}
