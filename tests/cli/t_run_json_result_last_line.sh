# `berth --json run` shares stdout with its command: its result is one compact line, always the
# last line of stdout and on a line of its own, whatever the command printed (`printf 'abc{'`
# used to give `abc{{` followed by an indented document whose last line was `}`). Errors too.
# `--result-file FILE` puts it in FILE instead (atomically) and leaves stdout to the command.
. "$(dirname "$0")/common.sh"
make_repo app
berth new x >/dev/null

# No newline at the end of the output: berth starts its own line.
berth --json run x -- printf 'abc{' >"$T/out"
assert_eq "$(wc -l <"$T/out")" 2 "lines on stdout"
assert_eq "$(head -n 1 "$T/out")" 'abc{' "the command's output"
assert_eq "$(tail -n 1 "$T/out" | jq -r '.name + " " + (.exit_status | tostring)')" "x 0"
[[ $(tail -c 1 "$T/out" | od -An -c | tr -d ' ') == '\n' ]]

# Output that ends with a newline: no empty line before berth's.
berth --json run x -- printf 'one\ntwo\n' >"$T/out"
assert_eq "$(cat "$T/out" | sed -n 1,2p | tr '\n' ,)" "one,two," "the command's lines"
assert_eq "$(wc -l <"$T/out")" 3 "lines on stdout"
tail -n 1 "$T/out" | jq -e '.exit_status == 0' >/dev/null
# No output at all: the result alone; the command's status is berth's.
not 3 berth --json run x -- sh -c 'exit 3' >"$T/out"
assert_eq "$(wc -l <"$T/out")" 1 "lines on stdout"
jq -e '.exit_status == 3' "$T/out" >/dev/null

# An error (no such workspace) is that same one line.
not 4 berth --json run nosuch -- true >"$T/out"
assert_eq "$(wc -l <"$T/out")" 1 "lines on stdout"
assert_eq "$(jq -r .error.code "$T/out")" not_found

# --result-file: stdout is the command's alone, the result is in the file.
berth --json run x --result-file "$T/result.json" -- printf 'abc{' >"$T/out"
assert_eq "$(cat "$T/out")" 'abc{' "stdout"
assert_eq "$(wc -l <"$T/result.json")" 1 "lines in the result file"
jq -e '.name == "x" and .exit_status == 0' "$T/result.json" >/dev/null
# ... an error too, and without --json as well.
not 4 berth --json run nosuch --result-file "$T/error.json" -- true >"$T/out"
assert_eq "$(cat "$T/out")" "" "stdout"
assert_eq "$(jq -r .error.code "$T/error.json")" not_found
berth run x --result-file "$T/plain.json" -- true >/dev/null
jq -e '.exit_status == 0' "$T/plain.json" >/dev/null
# A result file that cannot be written is said (io_error, exit 1); the command ran.
not 1 berth --json run x --result-file "$T/no/such/dir/r.json" -- touch ran >/dev/null
assert_contains "$(last_stderr)" "cannot write the result file"
[[ -e $(berth path x)/ran ]]

# Other commands keep their pretty-printed document (only run and shell share stdout).
assert_eq "$(berth --json path x | head -n 1)" "{"
