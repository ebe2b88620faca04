# A full disk mid-accept: the user's repository lives on a small tmpfs, filled so that
# `berth accept --strategy squash` runs out of space half-way through writing the change into the
# checkout. The accept reports no_space (exit 1) with a hint, and the files it had written are put
# back at once: the checkout, its index, the branch and the workspace are exactly as before, no
# intent record is left, and `berth doctor` is right to say all is well. Once space is freed, the
# same accept lands in full.
. "$(dirname "$0")/common.sh"
small_disk 6m
# The workspace off the small disk (beside the checkout would be the default across filesystems):
# only the checkout runs out of space.
export BERTH_WORKSPACE_ROOT=$HOME/berth/app

make_repo disk/app
mkdir -p data
for i in $(seq 1 8); do echo "old $i" >"data/m$i.bin"; done
git add -A && git commit -q -m "small files"
ws=$(berth new big)
cd "$ws"
# 30 new files of 64 KiB that do not compress, and 8 files rewritten: 2.4 MiB to write.
for i in $(seq 1 30); do head -c 65536 /dev/urandom >"data/f$i.bin"; done
for i in $(seq 1 8); do head -c 65536 /dev/urandom >"data/m$i.bin"; done
git add -A && git commit -q -m "big data"
cd "$T/disk/app"
git gc -q --prune=now 2>/dev/null || true

# Leave about 700 KiB free: a quarter of what the change needs.
avail=$(df --output=avail -B1 "$T/disk" | tail -1)
head -c $((avail - 700 * 1024)) /dev/zero >"$T/disk/filler"
before=$(fingerprint)
ws_before=$(fingerprint "$ws")

out=$(expect_error no_space 1 berth --json accept big --strategy squash)
assert_contains "$(jq -r .error.hint <<<"$out")" "free some space"
assert_contains "$(jq -r .error.message <<<"$out")" "nothing was changed"
assert_unchanged "$before"
assert_unchanged "$ws_before" "$ws"
intent_dir=$(git rev-parse --path-format=absolute --git-common-dir)/berth/intents
assert_eq "$(find "$intent_dir" -name '*.json' 2>/dev/null | wc -l)" 0 "intent records"
for i in $(seq 1 8); do assert_eq "$(cat "data/m$i.bin")" "old $i" "data/m$i.bin"; done
[[ ! -e data/f1.bin ]]
berth doctor >/dev/null

# Not a byte left: the accept cannot even record its commit or its intent. Same answer.
cat /dev/zero >"$T/disk/filler2" 2>/dev/null || true
out=$(expect_error no_space 1 berth --json accept big --strategy squash)
assert_contains "$(jq -r .error.hint <<<"$out")" "free some space"
assert_unchanged "$before"
assert_unchanged "$ws_before" "$ws"
rm "$T/disk/filler" "$T/disk/filler2"
berth accept big --strategy squash >/dev/null
assert_eq "$(git status --porcelain --untracked-files=all)" ""
assert_eq "$(git ls-files data | wc -l)" 38 "files landed"
assert_eq "$(git rev-parse HEAD:data/f30.bin)" "$(git -C "$ws" rev-parse HEAD:data/f30.bin 2>/dev/null || git rev-parse HEAD:data/f30.bin)"
berth doctor >/dev/null
