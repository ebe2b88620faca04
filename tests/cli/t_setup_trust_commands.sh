# A repository's setup commands run only once the user trusted that exact list (`berth trust`);
# an untrusted list is skipped with a message saying how; a changed list needs trust again.
. "$(dirname "$0")/common.sh"
make_repo app
cat >.berth.toml <<TOML
[setup]
run = ["echo \"\$BERTH_NAME\" >>'$T/ran'"]
TOML
git add .berth.toml && git commit -qm setup

# Untrusted: not run, and the user is told how to trust it.
ws=$(berth new a 2>"$TMPDIR/err")
[[ -d $ws ]]
[[ ! -e $T/ran ]]
assert_contains "$(cat "$TMPDIR/err")" "berth trust"
json=$(berth --json new b 2>/dev/null)
assert_eq "$(jq -c '.setup.commands[0] | [.trusted, .ran]' <<<"$json")" '[false,false]'
assert_eq "$(jq -r .setup.failed <<<"$json")" false
assert_eq "$(berth --json trust --list | jq -c .trusted)" "[]"

# Trusted: shown, stored in the user's config dir, and run.
out=$(berth trust)
assert_contains "$out" "echo \"\$BERTH_NAME\""
status=$(berth --json trust)
assert_eq "$(jq -r .trusted <<<"$status")" true
assert_eq "$(jq -r .store <<<"$status")" "$XDG_CONFIG_HOME/berth/trust.json"
[[ -f $XDG_CONFIG_HOME/berth/trust.json ]]
hash=$(jq -r .hash <<<"$status")
assert_eq "$(berth --json trust --list | jq -r '.trusted[0].hash')" "$hash"
berth new c >/dev/null 2>&1
assert_eq "$(cat "$T/ran")" c
json=$(berth --json new d 2>/dev/null)
assert_eq "$(jq -c '.setup.commands[0] | [.trusted, .ran, .exit_status]' <<<"$json")" '[true,true,0]'

# A changed list is a new list: skipped until trusted again.
sed -i "s|>>|>> |" .berth.toml
berth new e >/dev/null 2>&1
assert_eq "$(cat "$T/ran")" "$(printf 'c\nd')"
berth trust >/dev/null
berth new f >/dev/null 2>&1
assert_eq "$(tail -1 "$T/ran")" f

# Revoked: skipped again. Revoking twice says there was nothing left to revoke.
assert_eq "$(berth trust --revoke)" "this project's setup commands are no longer trusted"
assert_eq "$(berth --json trust --list | jq -c .trusted)" "[]"
assert_eq "$(berth --json trust --revoke | jq -c '[.revoked, .trusted]')" "[false,false]"
assert_contains "$(berth trust --revoke)" "were not trusted: nothing to revoke"
berth new g >/dev/null 2>&1
assert_eq "$(tail -1 "$T/ran")" f

# Nothing to trust is an error, not a silent success.
rm .berth.toml
expect_error not_found 4 berth --json trust >/dev/null
