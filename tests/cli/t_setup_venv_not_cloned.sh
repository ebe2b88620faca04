#!/usr/bin/env bash
# A Python virtual environment is not relocatable: a clone of .venv kept pointing at the user's
# venv (the workspace's pip installed into the user's environment). setup.clone and setup.copy
# refuse it (and conda environments, tox/nox folders holding venvs, CMake build dirs, a folder
# inside any of them; Meson's too) with a warning saying what to do instead; the workspace is made without it.
. "$(dirname "$0")/common.sh"
python3 -m venv --without-pip --help >/dev/null 2>&1 || skip "python3 -m venv is not available (Debian: python3-venv)"
make_repo app
printf '.venv/\n.tox/\nenv/\nbuild/\nbuilddir/\n' >.gitignore
git add .gitignore && git commit -qm ignore
python3 -m venv --without-pip .venv
# What a copy would have pointed at: the user's venv (the scripts name their venv's path).
grep -q "$T/app/.venv" .venv/bin/activate
mkdir -p .tox && python3 -m venv --without-pip .tox/py311
mkdir -p env/conda-meta build && echo 'CMAKE_HOME_DIRECTORY:INTERNAL=/x' >build/CMakeCache.txt
mkdir -p builddir/meson-private && echo "build x: phony $T/app/src" >builddir/build.ninja
before=$(tree_digest "$T/app/.venv")

ws=$(berth -c 'setup.clone=[".venv", ".tox", "env", "build", "builddir"]' new x 2>"$T/err")
for d in .venv .tox env build builddir; do
  [[ ! -e $ws/$d ]] || { echo "$d was cloned" >&2; exit 1; }
done
err=$(cat "$T/err")
assert_contains "$err" "setup.clone: '.venv' not copied: it is a Python virtual environment (pyvenv.cfg)"
assert_contains "$err" "uv sync"
assert_contains "$err" "python3 -m venv .venv"
assert_contains "$err" "'.tox/py311' is a Python virtual environment"
assert_contains "$err" "a conda environment (conda-meta/)"
assert_contains "$err" "a CMake build directory (CMakeCache.txt)"
assert_contains "$err" "a Meson build directory (meson-private/)"
assert_contains "$err" "meson setup build"
# Nor a folder inside one: .venv/bin's scripts name the user's venv as well.
ws=$(berth -c 'setup.clone=[".venv/bin"]' new inside 2>"$T/err")
[[ ! -e $ws/.venv ]] || { echo ".venv/bin was cloned" >&2; exit 1; }
assert_contains "$(cat "$T/err")" "setup.clone: '.venv/bin' not copied: '.venv' is a Python virtual environment"
# Never through setup.copy either (a pattern naming the venv's files).
ws=$(berth -c 'setup.copy=.venv/' new y 2>"$T/err")
[[ ! -e $ws/.venv ]]
assert_contains "$(cat "$T/err")" ".venv/ not copied: it is a Python virtual environment"
assert_eq "$(grep -c 'Python virtual environment' "$T/err")" 1 "warned once"
# Named by both setup.copy and setup.clone: refused, and said once.
ws=$(berth -c 'setup.copy=.venv/' -c 'setup.clone=[".venv"]' new both 2>"$T/err")
[[ ! -e $ws/.venv ]]
assert_eq "$(grep -c 'Python virtual environment' "$T/err")" 1 "warned once (copy and clone)"
# The recipe the docs give works: a setup command makes the workspace its own venv.
ws=$(berth -c 'setup.run=python3 -m venv --without-pip .venv' new z 2>/dev/null)
grep -q "$ws/.venv" "$ws/.venv/bin/activate"
not 1 grep -q "$T/app/.venv" "$ws/.venv/bin/activate"
assert_eq "$(tree_digest "$T/app/.venv")" "$before" "the user's venv"
