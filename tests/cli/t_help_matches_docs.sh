#!/usr/bin/env bash
# The command table is the truth: every command `berth help` lists has its entry in the man page
# and in README's command table, every long option of every command is documented in the man
# page, and neither document describes a command berth does not have.
. "$(dirname "$0")/common.sh"

man=$SOURCE_DIR/docs/berth.1
readme=$SOURCE_DIR/README.md

mapfile -t table < <(berth help | sed -n '/^commands:/,/^$/p' | awk 'NF && $1 != "commands:" && $1 != "help" {print $1}')
declare -A known=([help]=1)
for cmd in "${table[@]}"; do known[$cmd]=1; done
assert_eq "$(( ${#table[@]} >= 17 ))" 1 "number of commands berth help lists (${table[*]})"

# The man page's COMMANDS section: each command is a top-level .TP item (not inside .RS/.RE, where
# its options and actions are) whose next line starts with it.
commands_section=$(sed -n '/^\.SH COMMANDS/,/^\.SH /p' "$man")
mapfile -t documented < <(printf '%s\n' "$commands_section" |
  awk '/^\.RS/ {depth++} /^\.RE/ {depth--}
       depth == 0 && prev == ".TP" && /^\.(B|BI|BR) / {w = $2; gsub(/"/, "", w); print w}
       {prev = $0}' |
  grep -E '^[a-z]+$' | sort -u)
declare -A in_man=()
for cmd in "${documented[@]}"; do in_man[$cmd]=1; done

problems=()
for cmd in "${table[@]}"; do
  [[ -n ${in_man[$cmd]:-} ]] || problems+=("man page: no entry for '$cmd'")
  grep -qE "^\| \`berth $cmd( |\`)" "$readme" || problems+=("README: no row for 'berth $cmd'")
  # Every long option of the command (from its own --help) is named in the man page.
  while read -r opt; do
    [[ $opt == --help ]] && continue
    grep -qF -- "${opt//-/\\-}" "$man" || problems+=("man page: '$cmd $opt' is not documented")
  done < <(berth "$cmd" --help | grep -oE -- '--[a-z][a-z-]*' | sort -u)
done
for cmd in "${documented[@]}"; do
  [[ -n ${known[$cmd]:-} ]] || problems+=("man page documents '$cmd', which berth help does not list")
done
while read -r cmd; do
  [[ -n ${known[$cmd]:-} ]] || problems+=("README documents 'berth $cmd', which berth help does not list")
done < <(grep -oE '^\| `berth [a-z]+' "$readme" | awk '{print $3}' | sort -u)

((${#problems[@]} == 0)) || printf '  %s\n' "${problems[@]}" >&2
assert_eq "${#problems[@]}" 0 "problems where the docs and the command table disagree"

echo "ok: ${#table[@]} commands, their options, the man page and README agree"
