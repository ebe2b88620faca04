#!/usr/bin/env bash
# The installed package works for an embedder: `cmake --install` into a temp prefix, then a small
# program (consumer/main.cpp) built against it twice, with find_package(berth) (libberth.so and
# libberth.a) and with pkg-config, each walking the lifecycle through the public API only. The
# installed headers compile alone with -Wpedantic (no GNU extensions such as BERTH_TRY's
# statement expression) and the shared library exports the public API only.
#   BERTH_BUILD_DIR: the build tree to install from.
build=${BERTH_BUILD_DIR:?set BERTH_BUILD_DIR to the build tree} # before common.sh clears BERTH_*
. "$(dirname "$0")/../cli/common.sh"

# A sanitized libberth needs the sanitizer runtime loaded first, which a program built outside
# this tree does not do: scripts/test runs this test on the dev build.
if grep -q '^BERTH_SANITIZE:BOOL=ON' "$build/CMakeCache.txt"; then
  skip "the installed library of a sanitizer build cannot be linked by an ordinary program"
fi
command -v pkg-config >/dev/null || skip "pkg-config is not installed"
cxx=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")

prefix=$T/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
libdir=$(dirname "$(find "$prefix" -name berth.pc)")
libdir=${libdir%/pkgconfig}

# What is installed: both libraries, the package files, a link for git-berth and the helper.
for f in "$libdir/libberth.a" "$libdir/libberth.so" "$libdir/cmake/berth/berthConfig.cmake" \
  "$libdir/cmake/berth/berthConfigVersion.cmake" "$prefix/include/berth/berth.hpp"; do
  [[ -e $f ]] || { echo "not installed: $f" >&2; exit 1; }
done
assert_eq "$(readlink "$prefix/bin/git-berth")" berth "git-berth link"
assert_eq "$(realpath "$prefix/libexec/berth/berth")" "$(realpath "$prefix/bin/berth")" "helper link"
# git's fsmonitor hook beside it, which the installed CLI's git calls run (by its path: no shell).
hook=$(realpath "$prefix/libexec/berth/berth-fsmonitor")
[[ -x $hook ]] || { echo "not installed: berth-fsmonitor" >&2; exit 1; }
make_repo hooked >/dev/null
ws=$(BERTH_POOL_SIZE=0 "$prefix/bin/berth" -C "$T/hooked" new w)
echo edit >>"$ws/README.md"
GIT_TRACE2_EVENT=$T/hook-trace "$prefix/bin/berth" -C "$T/hooked" status w >/dev/null
assert_contains "$(grep '"child_start"' "$T/hook-trace")" "\"argv\":[\"$hook\",\"2\","

# The public headers: no BERTH_TRY, and each compiles on its own as standard C++20.
not 1 grep -rl BERTH_TRY "$prefix/include" >/dev/null
for h in "$prefix"/include/berth/*.hpp; do
  echo "#include <berth/${h##*/}>" >"$T/header.cpp"
  "$cxx" -std=c++20 -Wall -Wextra -Wpedantic -Werror -fsyntax-only -I"$prefix/include" "$T/header.cpp"
done

# libberth.so exports berth's API, not its insides (the registry, the git runner, util).
exported=$(nm -D --defined-only -C "$libdir/libberth.so")
assert_contains "$exported" "berth::create_workspace(berth::Project const&, berth::NewOptions const&)"
assert_contains "$exported" "berth::Project::open("
not 1 grep -E ' berth::(util::|Registry|GitCall|git\(|repo_call|capture\()' <<<"$exported" >/dev/null

# find_package(berth): berth::berth (shared) and berth::berth_static.
cmake -S "$TESTS_DIR/../package/consumer" -B "$T/consumer" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_PREFIX_PATH="$prefix" >"$T/consumer.log" 2>&1 ||
  { cat "$T/consumer.log" >&2; exit 1; }
cmake --build "$T/consumer" >>"$T/consumer.log" 2>&1 || { cat "$T/consumer.log" >&2; exit 1; }
grep -q "$libdir/libberth.so" <<<"$(ldd "$T/consumer/consumer_shared")"
not 1 grep -q libberth < <(ldd "$T/consumer/consumer_static")

# pkg-config: berth.pc, relocated with the prefix.
export PKG_CONFIG_PATH=$libdir/pkgconfig
assert_eq "$(pkg-config --modversion berth)" "$(berth --version | awk '{print $NF}')" "berth.pc version"
# shellcheck disable=SC2046
"$cxx" -std=c++20 -Wall -Wextra -Wpedantic -Werror -o "$T/consumer_pc" \
  "$TESTS_DIR/../package/consumer/main.cpp" $(pkg-config --cflags --libs berth) -Wl,-rpath,"$libdir"

for consumer in "$T/consumer/consumer_shared" "$T/consumer/consumer_static" "$T/consumer_pc"; do
  repo=repo-${consumer##*/}
  make_repo "$repo" >/dev/null
  cd "$T"
  out=$("$consumer" "$T/$repo")
  assert_contains "$out" "checks passed"
  # What the program did is what the CLI sees.
  assert_eq "$(git -C "$T/$repo" log -1 --format=%s)" "Land hello" "$repo: landed commit"
  assert_eq "$(berth -C "$T/$repo" --json restore --list | jq -r '.[0].name')" \
    scratch "$repo: trash"
done

# The pool filler's helper, in a host program: found beside libberth.so (<libexecdir>/berth/berth,
# a link to the installed berth), given explicitly (libberth.a has no place to look from), or
# missing, which create and discard say instead of switching the pool off silently.
export BERTH_POOL_SIZE=1 BERTH_WATCH_ENABLED=false
helper=$(realpath "$prefix/bin/berth")
make_repo helper-shared >/dev/null
out=$("$T/consumer/consumer_shared" "$T/helper-shared" helper - found)
assert_contains "$out" "consumer: helper $helper;"
make_repo helper-static >/dev/null
out=$("$T/consumer/consumer_static" "$T/helper-static" helper "$prefix/libexec/berth/berth" found)
assert_contains "$out" "consumer: helper $helper;"
make_repo helper-missing >/dev/null
out=$("$T/consumer/consumer_static" "$T/helper-missing" helper "$T/no/berth" missing)
assert_contains "$out" "consumer: helper ;"
# The background fillers have finished (none outlives the test).
for _ in $(seq 100); do
  pgrep -f -- "-C $T/" >/dev/null || break
  sleep 0.1
done
not 1 pgrep -f -- "-C $T/" >/dev/null
