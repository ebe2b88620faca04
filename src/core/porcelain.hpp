// Parsers for git's machine-readable outputs. Pure functions, unit-tested on captured outputs.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace berth {

/// A repository inside the work tree that status names: a gitlink with something to say (a
/// submodule, or a repository `git add` turned into a gitlink), or an untracked folder git
/// reports as a whole because it holds its own repository ("? vendor/lib/" under -uall).
struct NestedChange {
  std::string path;        ///< relative to the work tree, without a trailing '/'
  bool gitlink = false;    ///< in the index as a gitlink (else an untracked repository)
  bool new_commit = false; ///< its HEAD is not the commit the index records
  bool modified = false;   ///< changes to its tracked files
  bool untracked = false;  ///< untracked files in it
};

/// `git status --porcelain=v2 -z --branch` summarised.
struct StatusSummary {
  std::string head;   ///< commit oid, "" when unborn
  std::string branch; ///< checked-out branch, "" when detached
  int staged = 0;     ///< entries with an index change
  int modified = 0;   ///< entries with a work-tree change (incl. deletions)
  int untracked = 0;
  int conflicted = 0;
  int ignored = 0;
  std::vector<std::string> paths; ///< every changed path (untracked included)
  /// The paths whose work-tree file differs from the index (modified, deleted, conflicted,
  /// untracked; an untracked nested repository without its trailing '/'): what `git add -A`
  /// would stage.
  std::vector<std::string> unstaged_paths;
  /// Submodules and nested repositories with work in them (see NestedChange).
  std::vector<NestedChange> nested;

  bool dirty() const { return staged + modified + untracked + conflicted > 0; }
};
StatusSummary parse_status_v2(const std::string& z_output);

/// One entry of an index file, as `git ls-files -s` prints it.
struct IndexEntry {
  std::string mode; ///< "100644", "100755", "120000", "160000"
  std::string oid;  ///< hex
  int stage = 0;
  std::string path;
};
/// The entries of an index file (`data`: its bytes) of version 2, 3 or 4 (names compressed, as
/// `feature.manyFiles` makes git write them), whose objects are `oid_bytes` bytes long. Nullopt
/// for anything else: a split index (its `link` extension: entries kept in another file) or a
/// sparse one (`sdir`: folders as entries), anything malformed. Read the way git's read-cache.c
/// writes it.
std::optional<std::vector<IndexEntry>> parse_index(std::string_view data, size_t oid_bytes);

/// What an index file says without listing it (no allocation per entry: a 50k-file index is read
/// in about a millisecond, where git's own read of it costs ~10 ms here).
struct IndexGlance {
  /// The tree its cache-tree holds for the whole index, when valid (git invalidates it as soon as
  /// anything is staged, until a tree is written again): the index's content is exactly that
  /// tree. "" when missing or invalid.
  std::string tree;
  std::set<std::string> present; ///< those of the paths asked that have an entry (any stage)
};
/// glance_index of `data`, as parse_index reads it; nullopt when parse_index would be.
std::optional<IndexGlance> glance_index(std::string_view data, size_t oid_bytes,
                                        const std::set<std::string>& asked);
/// glance_index of the index file at `path`, mapped (as git maps it); nullopt when it cannot be
/// read.
std::optional<IndexGlance> glance_index_file(const std::string& path, size_t oid_bytes,
                                             const std::set<std::string>& asked);

/// The one line of a small file git keeps (a loose ref, a HEAD), without its newline, read as git
/// would read a plain one: nullopt when it is not a regular file (a symlink, a FIFO, missing) or
/// does not end in a newline. Whether `line` is all lowercase hex digits (an object name's).
std::optional<std::string> read_git_line(const std::string& path);
bool is_hex(std::string_view line);

/// The object the ref `ref` ("refs/heads/x") names, read from its loose file under `common_dir`
/// as git reads it (the hex name of `hex_len` digits, then a newline), without a git process.
/// nullopt whenever git must be asked instead: no such file (a packed ref, no ref, a reftable
/// repository), a symbolic ref, a symlink, anything but a regular file, or a name berth would
/// not give a ref.
std::optional<std::string> read_loose_ref(const std::string& common_dir, const std::string& ref,
                                          size_t hex_len);

/// Whether the repository may hold refs under `prefix` ("refs/berth/trash/x/"), told from git's
/// ref files without a git process: false only when there is neither a loose ref folder there
/// nor a packed ref under it. true whenever that cannot be told (a reftable repository, a
/// packed-refs file that cannot be read).
bool may_have_refs_under(const std::string& common_dir, const std::string& prefix);

/// One entry of `git worktree list --porcelain -z`.
struct WorktreeEntry {
  std::string path;
  std::string head;
  std::string branch; ///< "refs/heads/x", "" when detached or bare
  bool bare = false;
  bool detached = false;
  bool locked = false;
  std::string lock_reason;
  bool prunable = false;
};
std::vector<WorktreeEntry> parse_worktree_list(const std::string& z_output);

/// A changed path from `git diff-tree -r -z --raw` (renames as old_path -> path).
struct RawChange {
  std::string old_mode, new_mode, old_oid, new_oid;
  char status = 'M';
  std::string path, old_path;
  std::string code; ///< the status as git printed it, with a rename's or copy's score ("R087")

  bool operator==(const RawChange&) const = default;
};
std::vector<RawChange> parse_diff_raw(const std::string& z_output);

/// Counts from `git diff-tree -r -z --numstat`: path -> (additions, deletions); -1 for binary.
struct NumStat {
  std::string path, old_path;
  int64_t additions = -1, deletions = -1;

  bool operator==(const NumStat&) const = default;
};
std::vector<NumStat> parse_numstat(const std::string& z_output);

/// One tree pair's diff from `git diff-tree -r -z -M --raw --numstat -p` (the three outputs in one
/// pass): its changed paths, their line counts, and the patch.
struct TreeDiff {
  std::vector<RawChange> raw;
  std::vector<NumStat> numstat;
  std::string patch; ///< the "diff --git" sections, "" when nothing changed
};

/// The part of such an output that belongs to one tree pair (what follows its "TREE TREE" line in
/// `--stdin` mode), parsed. Nullopt when it is not of that form (say, a cached copy that was
/// damaged).
std::optional<TreeDiff> parse_tree_diff(std::string_view body);

/// The output of `git diff-tree --stdin -r -z -M --raw --numstat -p` fed the lines `headers`
/// ("TREE TREE", in order), cut into each pair's body (what parse_tree_diff reads): git writes
/// each input line back, newline-terminated, then that pair's raw records, numstat records, a NUL
/// and the patch (nothing at all when the trees are the same). The records are walked field by
/// field, so a path that looks like a header cannot cut a body short; only the patch's end is
/// found by the next header at a line start, where no patch line can look like one. Nullopt when
/// the output is not of that form.
std::optional<std::vector<std::string>> split_tree_diffs(std::string_view output,
                                                         const std::vector<std::string>& headers);

/// The same for `git diff-tree --stdin -r -z -M --raw` (records only, no separator): each pair's
/// raw records. Nullopt when the output is not of that form.
std::optional<std::vector<std::vector<RawChange>>>
split_raw_diffs(std::string_view output, const std::vector<std::string>& headers);

/// A pair's body as diff-tree writes it (what parse_tree_diff reads back): the raw records, the
/// numstat records, a NUL and the patch; "" when nothing changed.
std::string tree_diff_body(const TreeDiff& diff);

/// A patch cut into its files' sections (each from its "diff --git " line), in order: one per
/// raw record of the same diff, except that a type change (a file become a link) has two.
std::vector<std::string_view> patch_sections(std::string_view patch);

/// `git merge-tree --write-tree --name-only -z` output: the tree and the conflicted paths.
struct MergePreview {
  std::string tree;
  std::vector<std::string> conflicts;
};
MergePreview parse_merge_tree(const std::string& z_output);

/// Trailers "Key: value" in the last paragraph of a commit message.
std::string trailer_value(const std::string& message, const std::string& key);

} // namespace berth
