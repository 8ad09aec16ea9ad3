#!/bin/bash
# Adds this machine's systemd to the root of a test VM (scripts/vm-run.sh
# with KTRACE_VM_INIT=systemd), so that the guest boots with systemd as PID
# 1: systemd, journald, systemctl and journalctl with their libraries, the
# unit files (without their .wants links and without the generators: only
# what a unit asks for starts, no getty, no udev), the CLI and
# ktrace-watch.service installed by make install-cli with PREFIX=/usr, as a
# package would, and ktrace-vm.target as default.target, whose
# ktrace-vm.service runs the test script (/bin/vm-main) and powers off.
#
# usage: scripts/vm-systemd-root.sh BUILD_DIR ROOT
set -eu
build=${1:?usage: scripts/vm-systemd-root.sh BUILD_DIR ROOT}
root=${2:?usage: scripts/vm-systemd-root.sh BUILD_DIR ROOT}
die() { echo "vm-systemd-root: $*" >&2; exit 1; }
sd=/lib/systemd
for f in $sd/systemd $sd/systemd-journald /bin/systemctl /bin/journalctl; do
	[ -x "$f" ] || die "$f missing: install systemd (scripts/install-deps.sh --test)"
done

mkdir -p "$root"/{run,var/lib,var/log,usr/bin,usr/lib,etc/systemd/system,lib/systemd/system}
# The guest's /bin and /lib are directories of their own (busybox's
# applets), not /usr's links: the programs go where the units name them.
cp $sd/systemd $sd/systemd-journald "$root$sd/"
cp /bin/systemctl /bin/journalctl "$root/bin/"
for lib in $(ldd $sd/systemd $sd/systemd-journald /bin/systemctl /bin/journalctl |
	awk '/=> \// {print $3} /^\s*\/lib/ && !/:$/ {print $1}' | sort -u); do
	[ -e "$root$lib" ] && continue
	mkdir -p "$root$(dirname "$lib")"
	cp -L "$lib" "$root$lib"
done
# The unit files and their aliases (default.target and the like).
find $sd/system -maxdepth 1 \( -type f -o -type l \) -exec cp -P {} "$root$sd/system/" \;

# Who is who, and what this is: systemd warns or refuses without them.
cat >"$root/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/false
EOF
cat >"$root/etc/group" <<'EOF'
root:x:0:
systemd-journal:x:101:
nogroup:x:65534:
EOF
cp -L /etc/os-release "$root/etc/os-release"
: >"$root/etc/machine-id"	# empty: systemd makes one at boot

# The CLI and the watch's unit where a package puts them; the unit's
# options in /etc/default/ktrace-watch, which the test script rewrites.
make -s --no-print-directory install-cli O="$build" DESTDIR="$(realpath "$root")" PREFIX=/usr >/dev/null ||
	die "make install-cli failed"
[ -f "$root$sd/system/ktrace-watch.service" ] && [ -f "$root/etc/default/ktrace-watch" ] ||
	die "make install-cli did not install ktrace-watch.service and /etc/default/ktrace-watch"

cat >"$root/etc/systemd/system/ktrace-vm.target" <<'EOF'
[Unit]
Description=ktrace test VM
Wants=systemd-journald.service ktrace-vm.service
AllowIsolate=yes
EOF
# The test script, its results written back and the power off: a oneshot
# with no time limit (the host's watchdog has one).
cat >"$root/etc/systemd/system/ktrace-vm.service" <<'EOF'
[Unit]
Description=ktrace test VM: the test script, its results, power off
After=systemd-journald.service

[Service]
Type=oneshot
ExecStart=/bin/vm-main
TimeoutStartSec=infinity
StandardOutput=journal+console
StandardError=journal+console
EOF
ln -sf ktrace-vm.target "$root/etc/systemd/system/default.target"
