#!/bin/bash
# checkpatch.pl --strict over the kernel code, taken from Debian's
# linux-source tarball (the headers package does not ship it).
# usage: scripts/checkpatch.sh [FILES...]
set -eu
cd "$(dirname "$0")/.."
cache=build/linux-source
scripts/extract-kernel-files.sh "$cache"
files=${*:-$(git ls-files 'kmod/*.c' 'kmod/*.h' 'include/uapi/linux/*.h' 2>/dev/null || ls kmod/*.h kmod/compat/*.h include/uapi/linux/*.h)}
perl "$cache/scripts/checkpatch.pl" --no-tree --strict --terse --show-types -f $files
