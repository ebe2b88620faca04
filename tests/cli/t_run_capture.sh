# `berth run --capture` returns the command's stdout and stderr inside the JSON result (each
# stream capped at 32 KiB, start and end kept, `truncated`), and nothing of it passes through.
. "$(dirname "$0")/common.sh"
make_repo app
berth new x >/dev/null

not 3 berth --json run x --capture -- sh -c 'printf "out\n"; printf "err\n" >&2; exit 3' \
  >"$T/out"
assert_eq "$(wc -l <"$T/out")" 1 "lines on stdout"
assert_not_contains "$(last_stderr)" "err"
assert_eq "$(jq -c '[.exit_status, .output.stdout, .output.stderr, .output.truncated]' "$T/out")" \
  '[3,"out\n","err\n",false]'
# stdin is empty.
echo typed | berth --json run x --capture -- cat >"$T/out"
assert_eq "$(jq -r .output.stdout "$T/out")" ""

# Over the cap: the start and the end are kept, all of it counted.
berth --json run x --capture -- seq 1 100000 >"$T/out"
jq -e '.output.truncated and .output.stdout_bytes == 588895 and .output.stderr_bytes == 0' \
  "$T/out" >/dev/null
jq -e '(.output.stdout | startswith("1\n2\n")) and (.output.stdout | endswith("99999\n100000\n"))
  and (.output.stdout | length) < 34000 and (.output.stdout | contains("bytes left out"))' \
  "$T/out" >/dev/null
# With --result-file, stdout stays empty.
berth --json run x --capture --result-file "$T/r.json" -- echo hi >"$T/out"
assert_eq "$(cat "$T/out")" "" "stdout"
assert_eq "$(jq -r .output.stdout "$T/r.json")" "hi"
