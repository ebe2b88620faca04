# LFS: with git-lfs installed, a new workspace has the real files, not pointers; setup.lfs = skip
# opts out; without git-lfs, a warning and a workspace all the same.
. "$(dirname "$0")/common.sh"
command -v git-lfs >/dev/null || skip "git-lfs is not installed (scripts/bootstrap installs it)"
make_repo app
git lfs install --local >/dev/null
git lfs track '*.bin' >/dev/null
head -c 2048 /dev/urandom >asset.bin
git add .gitattributes asset.bin && git commit -qm asset
grep -q asset.bin <<<"$(git lfs ls-files)"
sum=$(sha256sum <asset.bin | cut -d' ' -f1)

ws=$(berth new x 2>"$TMPDIR/err")
assert_eq "$(sha256sum <"$ws/asset.bin" | cut -d' ' -f1)" "$sum" "a real file, not a pointer"
assert_eq "$(git -C "$ws" status --porcelain)" ""

# A checkout that left pointers (here: smudging skipped) is completed by set-up; with
# setup.lfs = skip it is left alone.
ws=$(GIT_LFS_SKIP_SMUDGE=1 berth new pointers 2>/dev/null)
assert_eq "$(sha256sum <"$ws/asset.bin" | cut -d' ' -f1)" "$sum" "pointers fetched into real files"
ws=$(GIT_LFS_SKIP_SMUDGE=1 berth -c setup.lfs=skip new skipped 2>/dev/null)
assert_contains "$(cat "$ws/asset.bin")" "git-lfs.github.com/spec"

# Without git-lfs on PATH: a warning, not a failure.
bin=$T/bin-no-lfs
mkdir -p "$bin"
for tool in git sh; do ln -s "$(command -v $tool)" "$bin/$tool"; done
# A machine without git-lfs has neither its filter configured nor its hooks.
git config --local --remove-section filter.lfs
rm -f .git/hooks/post-checkout .git/hooks/post-commit .git/hooks/post-merge .git/hooks/pre-push
ws=$(PATH=$bin "$BERTH_BIN" new y 2>"$TMPDIR/err") || { cat "$TMPDIR/err"; false; }
[[ -d $ws ]]
assert_contains "$(cat "$TMPDIR/err")" "git-lfs is not installed"
# setup.lfs = skip: berth leaves LFS alone (and so has nothing to warn about).
ws=$(PATH=$bin "$BERTH_BIN" -c setup.lfs=skip new z 2>"$TMPDIR/err") || { cat "$TMPDIR/err"; false; }
[[ -d $ws ]]
assert_not_contains "$(cat "$TMPDIR/err")" "git-lfs is not installed"
