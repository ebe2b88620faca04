#!/usr/bin/env bash
# Other worktree tools' set-up files are set-up commands too, under setup.run's trust rule:
# Cursor's .cursor/worktrees.json (setup-worktree-unix, else setup-worktree; an array of commands
# or a script) and Conductor's conductor.json (scripts.setup). Skipped until `berth trust`;
# setup.run (any layer) wins over them.
. "$(dirname "$0")/common.sh"
make_repo app
mkdir -p .cursor
cat >.cursor/worktrees.json <<'JSON'
{"setup-worktree": ["echo generic >generic.txt"],
 "setup-worktree-unix": ["echo unix >cursor.txt", "echo \"$ROOT_WORKTREE_PATH\" >root.txt"]}
JSON
printf '*.txt\n' >.gitignore
git add -A && git commit -qm cursor

# Not trusted yet: skipped, saying where the commands come from.
json=$(berth --json new a 2>/dev/null)
ws=$(jq -r .path <<<"$json")
[[ ! -e $ws/cursor.txt ]]
assert_eq "$(jq -r '.setup.commands[0].trusted' <<<"$json")" false
assert_eq "$(jq -r .setup_state <<<"$json")" untrusted
assert_contains "$(berth list)" "setup-untrusted"
out=$(berth --json trust)
assert_eq "$(jq -r .source <<<"$out")" ".cursor/worktrees.json"
assert_eq "$(jq -c .commands <<<"$out")" '["echo unix >cursor.txt","echo \"$ROOT_WORKTREE_PATH\" >root.txt"]'
# Trusted: `berth setup` runs them in the workspace made before.
berth setup a >/dev/null 2>&1
assert_eq "$(cat "$ws/cursor.txt")" unix
assert_eq "$(cat "$ws/root.txt")" "$T/app"
[[ ! -e $ws/generic.txt ]]

# A script named by the file (relative to .cursor/).
printf '{"setup-worktree": "setup.sh"}\n' >.cursor/worktrees.json
printf '#!/bin/sh\necho script >script.txt\n' >.cursor/setup.sh
chmod +x .cursor/setup.sh
git add -A && git commit -qm script
berth trust >/dev/null
ws=$(berth new b 2>/dev/null)
assert_eq "$(cat "$ws/script.txt")" script

# Conductor's conductor.json, with its environment.
git rm -qr .cursor && git commit -qm 'no cursor'
printf '{"scripts": {"setup": "echo conductor >c.txt; echo \\"$CONDUCTOR_ROOT_PATH\\" >croot.txt", "run": "false"}}\n' >conductor.json
git add conductor.json && git commit -qm conductor
ws=$(berth new c 2>"$T/err")
[[ ! -e $ws/c.txt ]]
assert_contains "$(cat "$T/err")" "review the setup commands in conductor.json"
berth trust >/dev/null
ws=$(berth new d 2>/dev/null)
assert_eq "$(cat "$ws/c.txt")" conductor
assert_eq "$(cat "$ws/croot.txt")" "$T/app"

# setup.run wins: the other tools' files are not read then.
ws=$(berth -c 'setup.run=echo mine >mine.txt' new e 2>/dev/null)
assert_eq "$(cat "$ws/mine.txt")" mine
[[ ! -e $ws/c.txt ]]
