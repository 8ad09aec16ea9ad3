#!/bin/sh
# Runs a command in a Debian chroot (scripts/install-deps.sh --test makes
# the unstable one) with DIR mounted at the same path inside and /proc
# mounted (objtool reads it), in a mount namespace of its own: both mounts
# vanish with the command, however it ends.
# usage: scripts/run-in-chroot.sh CHROOT DIR COMMAND...
set -eu
root=${1:?usage: scripts/run-in-chroot.sh CHROOT DIR COMMAND...}
dir=${2:?usage: scripts/run-in-chroot.sh CHROOT DIR COMMAND...}
shift 2
[ -x "$root/bin/sh" ] || { echo "run-in-chroot: $root is no chroot: make it with scripts/install-deps.sh --test" >&2; exit 1; }
mkdir -p "$dir" "$root$dir"
exec unshare --mount --propagation private sh -c '
	root=$1 dir=$2; shift 2
	mount --bind "$dir" "$root$dir" && mount -t proc proc "$root/proc" && exec chroot "$root" "$@"' \
	run-in-chroot "$root" "$dir" "$@"
