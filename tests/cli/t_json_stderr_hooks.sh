# Under --json every line on stderr is an event about the right workspace, for every command,
# however noisy the user's hooks and set-up commands are: a hook berth runs itself (post-checkout
# of new, restore and each fork attempt; post-merge after accept and pick's landing) has its
# output as an `output` event, never bare lines among the events (the post-merge hook keeps the
# terminal without --json only); a fork's set-up events carry the attempt's name; stdout is the
# one result document. (Hooks git runs during berth's own git calls, pre-commit and commit-msg of
# `berth commit` say, have their output kept with the call, not passed to stderr.)
. "$(dirname "$0")/common.sh"
make_repo app
printf '[nonsense]\nkey = 1\n' >.berth.toml # a warning for every command: unknown key
mkdir -p "$XDG_CONFIG_HOME/berth"
cat >"$XDG_CONFIG_HOME/berth/config.toml" <<'TOML'
[setup]
run = ["echo setup says; echo setup complains >&2"]
TOML
for hook in post-checkout post-merge pre-commit commit-msg post-commit post-rewrite \
  reference-transaction; do
  printf '#!/bin/sh\necho "%s on stdout"\necho "%s on stderr" >&2\n' "$hook" "$hook" \
    >".git/hooks/$hook"
  chmod +x ".git/hooks/$hook"
done

# events FILE TEST: every line of FILE is an event (type, timestamp) whose workspace passes the
# jq TEST; and each warning once.
events() {
  local file=$1 test=$2 line
  [[ -s $file ]] || { echo "no events in $file" >&2; return 1; }
  while IFS= read -r line; do
    jq -e "type == \"object\" and (.type | type) == \"string\"
      and (.timestamp | test(\"^[0-9-]{10}T[0-9:]{8}[.][0-9]{3}Z$\")) and .time == .timestamp
      and (.workspace | $test)" <<<"$line" >/dev/null 2>&1 ||
      { echo "not an event ($test): $line" >&2; return 1; }
  done <"$file"
  assert_eq "$(jq -s '[.[] | select(.type == "warning")] | length' "$file")" \
    "$(jq -s '[.[] | select(.type == "warning") | [.workspace, .message]] | unique | length' "$file")" warnings
}
# has FILE JQ: some event of FILE passes JQ.
has() { jq -e -s "any(.[]; $2)" "$1" >/dev/null || { echo "no event $2 in $1" >&2; return 1; }; }
# one_document FILE: stdout is exactly one JSON object, not an error.
one_document() { jq -e -s 'length == 1 and (.[0] | type == "object" and (has("error") | not))' \
  "$1" >/dev/null; }
hook_output() { # hook_output FILE HOOK WORKSPACE: the hook's output as one output event
  has "$1" ".type == \"output\" and .subject == \"$2 hook\" and .workspace == \"$3\"
    and (.detail | contains(\"$2 on stdout\")) and (.detail | contains(\"$2 on stderr\"))"
}

# fork: each attempt's post-checkout hook and set-up commands are events of that attempt;
# attempt events too; the fork's own warnings are the fork's.
berth --json fork t -n 2 -- true >"$T/out" 2>"$T/err"
one_document "$T/out"
events "$T/err" '. == "t" or . == "t-1" or . == "t-2"'
for i in 1 2; do
  hook_output "$T/err" post-checkout "t-$i"
  has "$T/err" ".type == \"output\" and .workspace == \"t-$i\" and (.detail | contains(\"setup says\"))"
  has "$T/err" ".type == \"command_finished\" and .workspace == \"t-$i\" and .exit_status == 0"
  has "$T/err" ".type == \"attempt_finished\" and .workspace == \"t-$i\" and .name == \"t-$i\""
done
has "$T/err" '.type == "warning" and .workspace == "t" and (.message | contains("unknown key"))'

# pick: the landing's post-merge hook is an output event (no terminal to ask on under --json).
echo picked >"$(berth -q path t-1)/picked.txt"
berth --json pick t-1 --strategy squash -m "picked" >"$T/out" 2>"$T/err"
one_document "$T/out"
events "$T/err" '. == "t-1"'
hook_output "$T/err" post-merge t-1
assert_eq "$(git log -1 --format=%s)" picked # landed

# new (and --quiet: nothing at all on stderr, not even the hook's output).
berth --json new x >"$T/out" 2>"$T/err"
one_document "$T/out"
events "$T/err" '. == "x"'
berth --json --quiet new q >"$T/out" 2>"$T/err"
one_document "$T/out"
assert_eq "$(cat "$T/err")" ""

# commit: its pre-commit, commit-msg and post-commit hooks print nothing on berth's stderr.
echo work >"$(berth -q path x)/work.txt"
berth --json commit x -m "work" >"$T/out" 2>"$T/err"
one_document "$T/out"
events "$T/err" '. == "x"'

# sync: main moved (the pick), the merge's hooks stay out of the stream.
berth --json sync x >"$T/out" 2>"$T/err"
one_document "$T/out"
events "$T/err" '. == "x"'

# setup NAME: its commands' output as events of it.
berth --json setup x >"$T/out" 2>"$T/err"
one_document "$T/out"
events "$T/err" '. == "x"'
has "$T/err" '.type == "output" and (.detail | contains("setup complains"))'

# accept (a strategy that moves the branch: the post-merge hook runs).
berth --json accept x --strategy squash -m "work of x" >"$T/out" 2>"$T/err"
one_document "$T/out"
events "$T/err" '. == "x"'
hook_output "$T/err" post-merge x
test -f work.txt

# restore: the post-checkout hook and set-up, as new's.
berth --json restore x >"$T/out" 2>"$T/err"
one_document "$T/out"
events "$T/err" '. == "x"'
hook_output "$T/err" post-checkout x
has "$T/err" '.type == "command_finished" and .workspace == "x"'

# discard, run --ephemeral, gc, pool fill (foreground).
berth --json discard x >"$T/out" 2>"$T/err"
one_document "$T/out"
events "$T/err" '. == "x"'
berth --json run --ephemeral e -- true >"$T/out" 2>"$T/err"
one_document "$T/out"
events "$T/err" '. == "e"'
hook_output "$T/err" post-checkout e
berth --json gc >"$T/out" 2>"$T/err"
one_document "$T/out"
events "$T/err" '. == null'
berth --json pool fill 1 >"$T/out" 2>"$T/err"
one_document "$T/out"
events "$T/err" '. == null'
berth pool drain >/dev/null 2>&1
