#!/usr/bin/env bash
# `cpack -G DEB` (what scripts/package runs, here on this build tree) makes a .deb that works
# unpacked into a scratch root: `berth --version` and `git berth --help` from there, the binary
# stripped, git-berth a link, the man pages, the library files, and completions that know every
# command `berth --help` lists.
#   BERTH_BUILD_DIR: the build tree to package.
build=${BERTH_BUILD_DIR:?set BERTH_BUILD_DIR to the build tree} # before common.sh clears BERTH_*
. "$(dirname "$0")/../cli/common.sh"
command -v cpack >/dev/null || skip "cpack is not installed"
command -v dpkg-shlibdeps >/dev/null || skip "dpkg-dev is not installed (scripts/bootstrap installs it)"

cpack -G DEB --config "$build/CPackConfig.cmake" -B "$T/out" >"$T/cpack.log" 2>&1 ||
  { cat "$T/cpack.log" >&2; exit 1; }
deb=$(echo "$T"/out/berth_*.deb)
[[ -f $deb ]]
assert_contains "$(dpkg-deb -f "$deb" Depends)" "git (>= 1:2.38)"
contents=$(dpkg-deb -c "$deb")
assert_contains "$contents" "./usr/bin/git-berth -> berth"
assert_contains "$contents" "./usr/libexec/berth/berth -> ../../bin/berth"
assert_contains "$contents" "./usr/libexec/berth/berth-fsmonitor"

root=$T/root
dpkg -x "$deb" "$root"
for f in usr/share/man/man1/berth.1 usr/share/man/man1/git-berth.1 usr/include/berth/berth.hpp \
  usr/lib/pkgconfig/berth.pc usr/lib/cmake/berth/berthConfig.cmake; do
  [[ -f $root/$(dirname "$f")/$(basename "$f") || -n $(find "$root/usr/lib" -path "*${f#usr/lib}") ]] ||
    { echo "not in the package: $f" >&2; exit 1; }
done
[[ -n $(find "$root/usr/lib" -name 'libberth.so.*' -type f) && -n $(find "$root/usr/lib" -name libberth.a) ]]
# Stripped: no symbol table left in the binary.
not 1 grep -q '\.symtab' < <(readelf -S "$root/usr/bin/berth")

# From the scratch root, as a user would run it.
version=$(PATH="$root/usr/bin:$PATH" berth --version)
assert_contains "$version" "berth "
# git turns `git berth --help` into `man git-berth`: the packaged page, found beside the binary.
help=$(PATH="$root/usr/bin:$PATH" MANPAGER=cat PAGER=cat git berth --help 2>&1)
assert_contains "$help" "berth(1)"
help=$(PATH="$root/usr/bin:$PATH" git berth help)
assert_contains "$help" "usage: berth"

# Completions for every command the CLI lists.
commands=$(PATH="$root/usr/bin:$PATH" berth --help | sed -n '/^commands:/,/^$/p' | awk 'NR > 1 && NF {print $1}')
[[ -n $commands ]]
bash_file=$root/usr/share/bash-completion/completions/berth
zsh_file=$root/usr/share/zsh/vendor-completions/_berth
fish_file=$root/usr/share/fish/vendor_completions.d/berth.fish
bash -n "$bash_file"
for c in $commands; do
  grep -q "^    $c) words=" "$bash_file" || { echo "bash completion lacks $c" >&2; exit 1; }
  grep -q "^    '$c:" "$zsh_file" || { echo "zsh completion lacks $c" >&2; exit 1; }
  grep -q "__fish_use_subcommand -a $c " "$fish_file" || { echo "fish completion lacks $c" >&2; exit 1; }
done
# And the bash one completes: commands, then a command's options.
. "$bash_file"
COMP_WORDS=(berth acc)
COMP_CWORD=1
_berth
assert_eq "${COMPREPLY[*]}" accept "bash: command"
COMP_WORDS=(berth accept --str)
COMP_CWORD=2
_berth
assert_eq "${COMPREPLY[*]}" --strategy "bash: option"
