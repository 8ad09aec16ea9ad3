# SPDX-License-Identifier: GPL-2.0
# Bash completion for ktrace(1): its commands and each command's options as
# its --help lists them (so they never drift), option values where the set is
# known, and file names by extension: traces (.fxt) for the commands that
# read them, .fxt or .json for -o, ftrace text (.txt) for merge's second file.

# Each command's options, from "ktrace CMD --help", asked once per shell:
# "OPT" or "OPT=METAVAR" for an option that takes a value.
declare -gA _ktrace_opts_cache

_ktrace_help_options() {	# _ktrace_help_options KTRACE CMD
	local key="$1 $2"
	if [[ -z ${_ktrace_opts_cache[$key]+set} ]]; then
		_ktrace_opts_cache[$key]=$("$1" "$2" --help 2>/dev/null | awk '
			# Option lines are indented 2 to 6 spaces; descriptions more
			# (mawk has no interval expressions).
			/^ +-/ && match($0, /^ +/) && RLENGTH >= 2 && RLENGTH <= 6 {
				s = substr($0, RLENGTH + 1); n = 0; arg = ""
				while (match(s, /^--?[A-Za-z0-9][A-Za-z0-9-]*/)) {
					o[++n] = substr(s, 1, RLENGTH)
					s = substr(s, RLENGTH + 1)
					sub(/^\[[^]]*\]/, "", s)
					if (substr(s, 1, 2) != ", ") break
					s = substr(s, 3)
				}
				# A value is named after one space; a description follows two.
				if (match(s, /^ [A-Z][A-Z_]*/)) arg = "=" substr(s, 2, RLENGTH - 1)
				for (i = 1; i <= n; i++) print o[i] arg
			}')
	fi
	printf '%s\n' "${_ktrace_opts_cache[$key]}"
}

_ktrace_files() {	# _ktrace_files CUR EXT...: directories and files with these extensions
	local cur=$1 ext
	shift
	compopt -o filenames 2>/dev/null
	COMPREPLY+=($(compgen -d -- "$cur"))
	for ext in "$@"; do
		COMPREPLY+=($(compgen -f -X "!*.$ext" -- "$cur"))
	done
}

_ktrace() {
	local ktrace=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]}
	local prev= cmd= i w opts o arg nargs=0
	COMPREPLY=()
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
	[[ $ktrace == "~"/* ]] && ktrace=$HOME/${ktrace#"~/"}
	command -v "$ktrace" >/dev/null 2>&1 || ktrace=ktrace

	if ((COMP_CWORD == 1)); then
		local cmds
		cmds=$("$ktrace" --help 2>/dev/null | awk '/^commands:/ { c = 1; next } c && /^  [a-z]/ { print $1 }')
		COMPREPLY=($(compgen -W "$cmds --help --version" -- "$cur"))
		return
	fi
	cmd=${COMP_WORDS[1]}
	opts=$(_ktrace_help_options "$ktrace" "$cmd")

	# After "record --" comes a command and its arguments.
	for ((i = 2; i < COMP_CWORD; i++)); do
		if [[ $cmd == record && ${COMP_WORDS[i]} == -- ]]; then
			if ((i + 1 == COMP_CWORD)); then
				COMPREPLY=($(compgen -c -- "$cur"))
			else
				compopt -o default 2>/dev/null
			fi
			return
		fi
	done

	# The value of the option before the cursor.
	if [[ $prev == -* ]]; then
		arg=$(printf '%s\n' "$opts" | sed -n "s/^$prev=//p" | head -n 1)
		if [[ -n $arg ]]; then
			case $prev:$arg in
			*:FILE) if [[ $cmd == convert ]]; then _ktrace_files "$cur" json; else _ktrace_files "$cur" fxt json; fi ;;
			*:FMT) COMPREPLY=($(compgen -W "fxt json" -- "$cur")) ;;
			--backend:*) COMPREPLY=($(compgen -W "bpf kmod" -- "$cur")) ;;
			--by:*) COMPREPLY=($(compgen -W "thread process cpu cgroup all" -- "$cur")) ;;
			*:PID | *:TID) COMPREPLY=($(compgen -W "$(cd /proc 2>/dev/null && ls -d [0-9]*)" -- "$cur")) ;;
			*:PATH) compopt -o dirnames 2>/dev/null ;;
			esac
			return
		fi
	fi

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(printf '%s\n' "$opts" | sed 's/=.*//')" -- "$cur"))
		return
	fi

	# Which positional argument this is: words that are neither options nor their values.
	for ((i = 2; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if [[ $w == -* ]]; then
			printf '%s\n' "$opts" | grep -q -- "^$w=" && ((i++))
			continue
		fi
		((nargs++))
	done
	case $cmd in
	convert | dump | latency) ((nargs == 0)) && _ktrace_files "$cur" fxt ;;
	merge)
		if ((nargs == 0)); then _ktrace_files "$cur" fxt
		elif ((nargs == 1)); then _ktrace_files "$cur" txt
		fi ;;
	esac
}
complete -F _ktrace ktrace
