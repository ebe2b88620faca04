# A git read that hangs (here a `git` wrapper that sleeps on `diff`) is bounded: berth kills it
# and its process group after BERTH_GIT_TIMEOUT seconds and says which call hung (git_timeout,
# with the argv), instead of waiting forever. Nothing it started is left running.
. "$(dirname "$0")/common.sh"
# berth, bounded: a regression fails here instead of hanging the suite.
bounded() { json_logged timeout 20 "$BERTH_BIN" "$@"; }
make_repo app
berth new x >/dev/null
real_git=$(command -v git)
mkdir "$T/bin"
cat >"$T/bin/git" <<EOS
#!/bin/sh
for a in "\$@"; do
  case \$a in
    diff|diff-index|diff-files|status) sleep 317 & wait; exit 1 ;;
    -*|*=*) ;;
  esac
done
exec "$real_git" "\$@"
EOS
chmod +x "$T/bin/git"

start=$SECONDS
out=$(BERTH_GIT_TIMEOUT=1 PATH="$T/bin:$PATH" expect_error git_timeout 1 bounded --json diff x)
((SECONDS - start < 15))
assert_contains "$(jq -r .error.message <<<"$out")" "did not finish within 1 s"
jq -e '.error.git.argv | index("git") == 0' <<<"$out" >/dev/null
jq -e '.error.git.argv | map(select(. == "diff" or . == "diff-index" or . == "status")) | length == 1' <<<"$out" >/dev/null
# The sleeping child went with git's process group.
sleep 0.2
[[ -z $(pgrep -fx "sleep 317" || true) ]]
