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

/// The tree `base` with `changes` applied; folders left empty disappear. Runs git in `git_dir`
/// (cat-file to read the trees on the way, hash-object to write the new ones, one call per
/// depth). Nullopt when the edit is not possible this way (a path both a file and a non-empty
/// folder, a name with a newline): the caller then builds the tree through an index.
Result<std::optional<std::string>> edit_tree(const std::string& git_dir, const std::string& base,
                                             const PathChanges& changes,
                                             const std::string& scratch_dir);

} // namespace berth
