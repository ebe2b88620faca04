// Edit a git tree without an index: replace or delete a few paths and write only the trees on
// their way to the root. What `git update-index` + `write-tree` on a full index do, at a cost of
// O(changed paths) instead of O(files in the repository).
#pragma once

#include "berth/berth.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace berth {

struct GitCall;

/// One entry of a tree object.
struct TreeEntry {
  std::string mode; ///< as git writes it: "100644", "100755", "120000", "160000", "40000"
  std::string name;
  std::string oid; ///< hex
  bool is_tree() const { return mode == "40000" || mode == "040000"; }
};

/// Parse a raw tree object (`<mode> <name>\0<oid bytes>`...). Nullopt when malformed.
std::optional<std::vector<TreeEntry>> parse_tree(const std::string& raw, size_t oid_bytes);
/// A raw tree object of `entries`, in git's order (a tree's name sorts as if it ended in '/').
/// Nullopt when an oid is not valid hex of `oid_bytes` bytes.
std::optional<std::string> serialize_tree(std::vector<TreeEntry> entries, size_t oid_bytes);

/// A path's new state: an entry (mode and oid; the name is ignored), or nullopt to delete it.
using PathChanges = std::map<std::string, std::optional<TreeEntry>>;

/// Trees read by read_trees, by the name they were asked by: `<tree-ish>^{tree}` for a root,
/// `<tree-ish>:<folder>` for a folder. Nullopt: not there, or not a tree (a file there).
struct ListedTree {
  std::string oid;
  std::vector<TreeEntry> entries;
};
using TreeListing = std::map<std::string, std::optional<ListedTree>>;

/// Read the trees `names` (those `into` does not hold yet) in one `cat-file --batch`, into `into`.
/// False when git's answer cannot be parsed (nothing added then).
Result<bool> read_trees(const std::string& git_dir, const std::vector<std::string>& names,
                        TreeListing& into);

/// One edit of edit_trees: `base` (a tree id) with `changes` applied. Its folders are read as
/// `<read_as>:<folder>` (a commit whose tree is `base`, or `base` itself when empty), so that
/// folders already read under a commit's name (read_trees) are not read again.
struct TreeEdit {
  std::string base;
  PathChanges changes;
  std::string read_as;
};

/// The tree `base` with `changes` applied; folders left empty disappear. Runs git in `git_dir`
/// (cat-file to read the trees on the way, hash-object to write the new ones, one call per
/// depth). Nullopt when the edit is not possible this way (a path both a file and a non-empty
/// folder, a name with a newline): the caller then builds the tree through an index.
Result<std::optional<std::string>> edit_tree(const std::string& git_dir, const std::string& base,
                                             const PathChanges& changes,
                                             const std::string& scratch_dir);

/// The git read_trees reads trees with, in the repository whose git dir is `git_dir` (it reads
/// what it is asked once its input ends: a caller may start it ahead, PrestartedGits).
GitCall tree_reader(const std::string& git_dir);

/// The git that edit_trees writes trees with, in the repository whose git dir is `git_dir` (a
/// conversation: a caller may start it ahead, PrestartedGits).
GitCall tree_writer(const std::string& git_dir);

/// edit_tree of several trees at once (the workspaces of one discard or compare): the folders
/// `known` lacks read in one cat-file for all, the new folders written one depth at a time for
/// all (one hash-object per depth, whatever the number of edits). One answer per edit, nullopt
/// for an edit not possible this way.
Result<std::vector<std::optional<std::string>>> edit_trees(const std::string& git_dir,
                                                           const std::vector<TreeEdit>& edits,
                                                           const std::string& scratch_dir,
                                                           TreeListing* known = nullptr);

} // namespace berth
