# A plain folder's accept killed half-way (after its journal, and after the folder was written)
# is finished by `berth doctor --repair`: the folder ends as the accept would have left it, the
# private base moves on, the user's other edits stay.
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/plain_helpers.sh"
F=$T/folder
make_folder "$F"
cd "$F"

for step in plain-accept-journaled plain-accept-written; do
  name=w-${step##*-}
  ws=$(berth --json new "$name" | jq -r .workspace.path)
  echo "$step" >"$ws/$name.txt"
  echo "agent $step" >>"$ws/readme.txt"
  rm -f "$ws/src/run.sh"
  echo "user $step" >"$F/user-$name.txt"
  not 137 env BERTH_TEST_FAIL_AT="$step:kill" "$BERTH_BIN" accept "$name" >/dev/null
  # Reported, and every other command that would look at the folder refuses until repaired.
  doc=$(not 1 berth --json doctor)
  jq -e '.problems | map(.code) | index("interrupted_accept") != null' <<<"$doc" >/dev/null
  expect_error interrupted 1 berth --json new blocked >/dev/null
  assert_contains "$(berth list 2>&1 >/dev/null)" "run \`berth doctor --repair\`"
  # Half-written: the journaled step wrote nothing yet; make the repair's job a partial one.
  [[ $step == plain-accept-written ]] || echo "$step" >"$F/$name.txt"
  berth --json doctor --repair >/dev/null
  assert_eq "$(cat "$F/$name.txt")" "$step" "accepted file after $step"
  assert_eq "$(tail -n1 "$F/readme.txt")" "agent $step" "readme after $step"
  [[ ! -e $F/src/run.sh && ! -e $F/.git ]]
  assert_eq "$(cat "$F/user-$name.txt")" "user $step" "the user's file after $step"
  berth --json doctor >/dev/null
  # The base moved: a new workspace has the accepted state.
  ws3=$(berth --json new "check-$name" | jq -r .workspace.path)
  assert_eq "$(cat "$ws3/$name.txt")" "$step" "next base after $step"
  [[ ! -e $ws3/src/run.sh ]]
  berth --json discard "check-$name" >/dev/null
  # The workspace is landed, as the accept would have left it (kept, like a repository's accept
  # that doctor finished): its state and landed commit say so.
  rec=$(berth --json status "$name")
  assert_eq "$(jq -r '.workspace.state // .state' <<<"$rec")" landed "state after the repaired $step"
  berth --json discard --force "$name" >/dev/null
done
