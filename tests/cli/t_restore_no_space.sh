# A full disk during a restore's checkout: the repository and its workspace root live on a small
# tmpfs, filled so that `berth restore x` runs out of space half-way through writing the tree. The
# restore fails with no_space (exit 1) and leaves nothing half-made: no record, no branch, no
# directory of the name, the snapshot still in the trash, and `berth doctor` is right to say all
# is well. Once space is freed, the same restore brings the work back whole, and the name works.
. "$(dirname "$0")/common.sh"
small_disk 8m

make_repo disk/app
mkdir -p "$XDG_CONFIG_HOME/berth"
printf 'workspace_root = "%s"\n' "$T/disk/ws" >"$XDG_CONFIG_HOME/berth/config.toml"
ws=$(berth new x)
[[ $ws == "$T/disk/ws/"* ]] || { echo "workspace not on the small disk: $ws" >&2; exit 1; }
# 40 files of 64 KiB that do not compress: 2.5 MiB committed, and one untracked file.
mkdir -p "$ws/data"
for i in $(seq 1 40); do head -c 65536 /dev/urandom >"$ws/data/f$i.bin"; done
git -C "$ws" add -A && git -C "$ws" commit -q -m "big data"
echo "not committed" >"$ws/notes.txt"
work=$(tree_digest "$ws")
berth discard x >/dev/null 2>&1
berth pool drain >/dev/null 2>&1 || true
snapshot=$(git for-each-ref --format='%(refname) %(objectname)' refs/berth/trash/x/)
[[ -n $snapshot ]]
# Wait for the discarded tree to be deleted, so the space it held is counted free.
for ((i = 0; i < 100; i++)); do [[ -z $(ls -A "$T/disk/ws/.trash" 2>/dev/null) ]] && break; sleep 0.1; done
git gc -q 2>/dev/null || true

# Leave about 1 MiB free: well under what the checkout needs.
avail=$(df --output=avail -B1 "$T/disk" | tail -1)
head -c $((avail - 1024 * 1024)) /dev/zero >"$T/disk/filler"
before=$(fingerprint)

out=$(expect_error no_space 1 berth --json restore x)
assert_contains "$(jq -r .error.hint <<<"$out")" "space"
assert_unchanged "$before"
assert_eq "$(git for-each-ref --format='%(refname) %(objectname)' refs/berth/trash/x/)" "$snapshot" "snapshot kept"
assert_eq "$(git for-each-ref refs/heads/berth/)" "" "no branch left"
assert_eq "$(berth --json list | jq -r '.[].name')" "" "no record left"
[[ ! -e $T/disk/ws/x ]] || { echo "directory of x left" >&2; exit 1; }
assert_eq "$(berth doctor)" "all good"

rm "$T/disk/filler"
ws=$(berth restore x)
assert_eq "$(tree_digest "$ws")" "$work" "the work, whole"
berth discard x >/dev/null 2>&1
berth new x >/dev/null
