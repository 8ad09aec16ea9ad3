#!/bin/bash
# Extracts the kernel files ktrace builds with but Debian's headers package
# lacks (checkpatch, the kselftest headers) from /usr/src/linux-source-*.tar.xz,
# once, into build/linux-source.
# usage: scripts/extract-kernel-files.sh [DEST]
set -eu
dest=${1:-build/linux-source}
[ -f "$dest/.done" ] && exit 0
src=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | head -n 1)
if [ -z "$src" ]; then
	echo "extract-kernel-files: install linux-source-6.1 (scripts/install-deps.sh)" >&2
	exit 1
fi
d=$(basename "$src" .tar.xz)
mkdir -p "$dest"
tar -xJf "$src" -C "$dest" --strip-components=1 \
	"$d/scripts/checkpatch.pl" "$d/scripts/spelling.txt" "$d/scripts/const_structs.checkpatch" \
	"$d/tools/testing/selftests/kselftest.h" "$d/tools/testing/selftests/kselftest_harness.h"
touch "$dest/.done"
