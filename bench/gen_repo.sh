#!/usr/bin/env bash
# Generate a benchmark repository: NFILES source-like text files in nested folders (sizes 1-20 KB,
# skewed small like real code: median ~2 KB, mean ~4 KB), a few binary files, an executable and a
# symlink, in one commit on `main`, checked out.
#   bench/gen_repo.sh NFILES DEST [SEED]
# The blobs go straight into git with fast-import (no work tree round trip), then git checks them
# out, so generating 100k files takes about a minute, not ten.
set -euo pipefail
nfiles=${1:?usage: gen_repo.sh NFILES DEST [SEED]}
dest=${2:?usage: gen_repo.sh NFILES DEST [SEED]}
seed=${3:-42}

mkdir -p "$dest"
cd "$dest"
git init -q -b main .
git config gc.auto 0

# Layout: 8 top folders, 12 modules each, subfolders of ~25 files: depth 3-4 like a real tree.
awk -v n="$nfiles" -v seed="$seed" '
function line(   k) {
  k = int(rand() * 6)
  if (k == 0) return sprintf("    int value_%d = compute_%d(input, %d);", int(rand()*9999), int(rand()*99), int(rand()*999))
  if (k == 1) return sprintf("    // %s the %s before %s it", w[int(rand()*12)], w[int(rand()*12)], w[int(rand()*12)])
  if (k == 2) return sprintf("    if (state.%s_%d > limit) return error(\"%s\");", w[int(rand()*12)], int(rand()*99), w[int(rand()*12)])
  if (k == 3) return sprintf("  for (size_t i = 0; i < items_%d.size(); ++i) total += items_%d[i];", int(rand()*50), int(rand()*50))
  if (k == 4) return ""
  return sprintf("static const char* k%s%d = \"%s/%s\";", w[int(rand()*12)], int(rand()*999), w[int(rand()*12)], w[int(rand()*12)])
}
BEGIN {
  srand(seed)
  split("read write parse check update render store fetch build merge index queue", tmp, " ")
  for (i = 1; i <= 12; i++) w[i-1] = tmp[i]
  split("src lib tests tools docs include vendor services", top, " ")
  split("c cc h py go ts rs md", ext, " ")
  for (i = 0; i < n; i++) {
    size = int(1024 * (20 ^ (rand() ^ 2)))
    body = sprintf("// file %d: generated for berth benchmarks\n#include \"common.h\"\n\n", i)
    while (length(body) < size) body = body line() "\n"
    t = top[(i % 8) + 1]; m = int(i / 8) % 12; s = int(i / 96) % int((n / 96 / 25) + 1)
    path = sprintf("%s/mod%02d/part%03d/%s_%06d.%s", t, m, s, w[i % 12], i, ext[(i % 8) + 1])
    printf "blob\nmark :%d\ndata %d\n%s\n", i + 1, length(body), body
    paths[i] = path
  }
  printf "commit refs/heads/main\ncommitter Bench <bench@example.com> 1700000000 +0000\ndata 9\ngenerate\n"
  for (i = 0; i < n; i++) printf "M 100644 :%d %s\n", i + 1, paths[i]
  printf "\n"
}' | LC_ALL=C git fast-import --quiet

git reset -q --hard main
# A few binary files (images, archives), an executable and a symlink, as real trees have.
mkdir -p assets
for i in 1 2 3 4 5 6; do head -c $((20000 * i)) /dev/urandom >"assets/blob$i.bin"; done
printf '#!/bin/sh\necho build\n' >build.sh && chmod +x build.sh
ln -s src/mod00 current
printf 'build/\n*.o\n' >.gitignore
git add -A
git -c user.name=Bench -c user.email=bench@example.com commit -q -m "assets"
git gc -q --no-prune 2>/dev/null || true
