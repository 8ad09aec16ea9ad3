#!/bin/bash
# The manual pages against the CLI, and the bash completion: each command
# ktrace --help lists has a page, whose OPTIONS list exactly the options (and
# their values) the command's --help lists, found by the completion's own
# parser of --help; the pages render without warnings; completions of
# commands, options, option values and file names by extension.  TAP
# output; no root needed.  usage: tests/test_docs.sh BUILD_DIR
set -u
build=${1:-build}
ktrace=$build/ktrace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/lib/tap.sh"
source completion/ktrace.bash

echo "TAP version 13"
# A page's options as "OPT" or "OPT=VALUE", from its OPTIONS section's
# "*-o*, *--output* _FILE_" lines ("[=_DUR_]": an optional value, not listed).
page_options() {	# page_options man/PAGE.scd
	awk '/^# / { sec = $0 } sec == "# OPTIONS" && /^\*-/ {
		s = $0; gsub(/\[[^]]*\]/, "", s); n = 0; arg = ""
		while (match(s, /^\*--?[A-Za-z0-9][A-Za-z0-9-]*\*/)) {
			o[++n] = substr(s, 2, RLENGTH - 2)
			s = substr(s, RLENGTH + 1)
			if (substr(s, 1, 2) != ", ") break
			s = substr(s, 3)
		}
		if (match(s, /^ _[A-Z][A-Z_]*_/)) arg = "=" substr(s, 3, RLENGTH - 3)
		for (i = 1; i <= n; i++) print o[i] arg
	}' "$1" | sort
}

commands=$("$ktrace" --help | awk '/^commands:/ { c = 1; next } c && /^  [a-z]/ { print $1 }')
[ -n "$commands" ]
ok $? "ktrace --help lists commands ($(echo $commands))"

# ---- ktrace(1): the commands, and its own options work
page_cmds=$(awk '/^# / { sec = $0 } sec == "# COMMANDS" && /^\*[a-z]+\*$/ { gsub(/\*/, ""); print }' man/ktrace.1.scd | sort)
diff <(echo "$commands" | sort) <(echo "$page_cmds") >"$tmp/diff"
ok $? "ktrace(1)'s COMMANDS are the commands ktrace --help lists" || diag "$tmp/diff"
bad=
for o in $(page_options man/ktrace.1.scd); do
	"$ktrace" "$o" >/dev/null 2>&1 || bad="$bad $o"
done
[ -z "$bad" ]
ok $? "every option ktrace(1) lists works (ktrace OPT exits 0)" || echo "fails:$bad" | diag

# ---- one page per command, its options those of --help, both ways
for c in $commands; do
	page=man/ktrace-$c.1.scd
	if [ ! -f "$page" ]; then
		ok 1 "ktrace $c has a manual page ($page)"
		continue
	fi
	_ktrace_help_options "$ktrace" "$c" | sort >"$tmp/help"
	page_options "$page" >"$tmp/page"
	[ -s "$tmp/help" ] && diff "$tmp/help" "$tmp/page" >"$tmp/diff"
	ok $? "ktrace-$c(1) lists the $(wc -l <"$tmp/help") options of 'ktrace $c --help', with their values" ||
		sed 's/^< /only in --help: /; s/^> /only in the page: /' "$tmp/diff" | grep only | diag
done
# What the checks above read must be what the parsers see: a page
# without an option line, or help without one, is a parser failure.
page_options man/ktrace-record.1.scd | grep -qx -- '--output=FILE' &&
	_ktrace_help_options "$ktrace" record | grep -qx -- '--output=FILE'
ok $? "both parsers see record's --output FILE"

# ---- the pages as man renders them: no warnings, the page for ktrace(4) too
if [ -d "$build/man" ] && command -v groff >/dev/null; then
	for p in "$build"/man/*; do
		LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$p" 2>"$tmp/warn" >"$tmp/page"
		[ $? -eq 0 ] && [ ! -s "$tmp/warn" ] && [ -s "$tmp/page" ]
		ok $? "man renders ${p##*/} without warnings" || head -5 "$tmp/warn" | diag
	done
	LC_ALL=C.UTF-8 MANWIDTH=80 man -l "$build/man/ktrace.4" 2>/dev/null | grep -q KTRACE_IOC_CONFIGURE
	ok $? "ktrace(4) describes the ioctls (KTRACE_IOC_CONFIGURE)"
else
	skip "manual pages render" "no $build/man (make man, with scdoc) or no groff"
fi

# ---- bash completion
complete_line() {	# complete_line WORD...: COMPREPLY for the last word, sorted, one a line
	COMP_WORDS=("$ktrace" "$@")
	COMP_CWORD=$#
	COMP_LINE="${COMP_WORDS[*]}"
	COMP_POINT=${#COMP_LINE}
	_ktrace
	printf '%s\n' "${COMPREPLY[@]}" | sort
}
expect() {	# expect DESCRIPTION EXPECTED WORD...
	local what=$1 want=$2 got
	shift 2
	got=$(complete_line "$@" | tr '\n' ' ' | sed 's/ $//')
	[ "$got" = "$want" ]
	ok $? "completion: $what ('ktrace $*' -> $got)" || echo "expected: $want" | diag
}
expect "commands" "latency" la
expect "all commands and the top-level options" "$(echo --help --version $commands | tr ' ' '\n' | sort | tr '\n' ' ' | sed 's/ $//')" ""
expect "a command's long options" "--critical-path" latency --cr
expect "options read from --help" "--stacks --stop-on-latency" record --st
expect "an option's values" "bpf kmod" record --backend ""
expect "-F's formats" "fxt json" merge t.fxt f.txt -F ""
expect "--by's keys" "cgroup cpu" latency t.fxt --by c
mkdir -p "$tmp/d/sub"
touch "$tmp/d/a.fxt" "$tmp/d/b.json" "$tmp/d/c.txt" "$tmp/d/e.fxt.gz"
expect "a trace to read: .fxt files and directories" "$tmp/d/a.fxt $tmp/d/sub" dump "$tmp/d/"
expect "latency's trace, after options" "$tmp/d/a.fxt $tmp/d/sub" latency --top 5 "$tmp/d/"
expect "merge's second file: ftrace text" "$tmp/d/c.txt $tmp/d/sub" merge x.fxt "$tmp/d/"
expect "convert -o: .json" "$tmp/d/b.json $tmp/d/sub" convert x.fxt -o "$tmp/d/"
expect "record -o: .fxt or .json" "$tmp/d/a.fxt $tmp/d/b.json $tmp/d/sub" record -o "$tmp/d/"
expect "no file after dump's one trace" "" dump x.fxt "$tmp/d/"
got=$(complete_line record -d 5 -- ech)
grep -qx echo <<<"$got"
ok $? "record -- completes commands (echo for 'ech')"

finish
