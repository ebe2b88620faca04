#!/usr/bin/env bash
# The command table is the truth: every command `berth help` lists has its entry in the man page
# and in README's command table, every long option of every command is documented in the man
# page, and neither document describes a command berth does not have. From the operation table
# itself (`berth help --completion-data`, include/berth/operations.hpp): every parameter of every
# operation (its option, short name and choices) is in the man page, and every command and option
# is offered by the generated shell completions (scripts/completions), internal ones by none.
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

# The operation table, as scripts/completions reads it.
data=$("$BERTH_BIN" help --completion-data)
mapfile -t data_commands < <(awk -F'\t' '$1 == "command" {print $2}' <<<"$data")
assert_eq "${data_commands[*]}" "${table[*]} help" "the table's commands, in berth help's order"
while IFS=$'\t' read -r kind cmd a b; do
  case $kind in
    option)
      for opt in "$a" ${b:+"$b"}; do
        grep -qF -- "${opt//-/\\-}" "$man" || problems+=("man page: '$cmd $opt' (operation table) is not documented")
      done ;;
    choice) grep -qwF -- "${a//-/\\-}" "$man" || problems+=("man page: '$cmd' choice '$a' is not documented") ;;
  esac
done <<<"$data"

# The completions generated from the table offer every command and every option.
bash "$SOURCE_DIR/scripts/completions" "$BERTH_BIN" "$T/completions"
while IFS=$'\t' read -r kind cmd a b; do
  case $kind in
    command)
      grep -qE "^    $cmd\) words=" "$T/completions/berth.bash" || problems+=("bash completion: no '$cmd'")
      grep -qF "'$cmd:" "$T/completions/_berth" || problems+=("zsh completion: no '$cmd'")
      grep -qF -- "-a $cmd -d" "$T/completions/berth.fish" || problems+=("fish completion: no '$cmd'") ;;
    option | choice)
      for w in "$a" ${b:+"$b"}; do
        grep -E "^    $cmd\) words=" "$T/completions/berth.bash" | grep -qwF -- "$w" ||
          problems+=("bash completion: '$cmd' does not offer '$w'")
      done ;;
  esac
done <<<"$data"
# Internal parameters (pool's --background filler) are berth's plumbing: in no help, no completion.
not 1 grep -q -- --background "$T/completions/berth.bash"
not 1 grep -q -- --background <<<"$(berth pool --help)"

((${#problems[@]} == 0)) || printf '  %s\n' "${problems[@]}" >&2
assert_eq "${#problems[@]}" 0 "problems where the docs and the command table disagree"

echo "ok: ${#table[@]} commands, their options, the man page and README agree"
