#!/usr/bin/env bash
# From a subdirectory of the checkout, the command runs in the same subdirectory of the
# workspace (its root when that directory does not exist there).
. "$(dirname "$0")/common.sh"
make_repo app
berth new task >/dev/null
ws=$(berth path task)
assert_eq "$(berth run task -- pwd)" "$ws" "from the top"
cd src/lib
assert_eq "$(berth run task -- pwd)" "$ws/src/lib" "from src/lib"
assert_eq "$(berth --json run task -- true | jq -r .cwd)" "$ws/src/lib" "json cwd"
cd "$T/app"
mkdir -p only-here/deeper
cd only-here/deeper
assert_eq "$(berth run task -- pwd)" "$ws" "a directory the workspace lacks"
# -C names where berth stands, like git.
cd "$T"
assert_eq "$(berth -C app/docs run task -- pwd)" "$ws/docs" "-C"
