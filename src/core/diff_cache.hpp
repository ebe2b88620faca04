// Diffs kept between commands: what `git diff-tree` said of one pair (a commit, a tree), so that
// comparing attempts nobody changed since the last compare runs no diff at all. A commit names
// exactly one tree and objects never change, so an entry is right for as long as git is set up as
// when it was made (the same git program, configuration and attribute files: git_setup_key); an
// entry made under another setup, or damaged, is not used (and is written again).
// docs/compare.md ("Cost"), docs/performance.md.
#pragma once

#include "berth/berth.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace berth {

/// The kept diffs of one project, in `<common-git-dir>/berth/diffs/`, one file per pair (named
/// `FROM-TO`; a merge preview's `merge-HASH`), each written atomically. Bounded: an entry above
/// kMaxEntryBytes is not kept, and prune() keeps the kMaxEntries most recently used within
/// kMaxBytes. Nothing here fails: a cache that cannot be read or written is a cache that misses.
/// Deleting the folder (or any file in it) at any time is safe.
class DiffCache {
public:
  static constexpr uint64_t kMaxEntryBytes = 4u << 20;
  static constexpr uint64_t kMaxBytes = 32u << 20;
  static constexpr size_t kMaxEntries = 256;

  explicit DiffCache(const Project& project);

  /// The body (split_tree_diffs' cut of the diff-tree output) kept for the diff from commit
  /// `from` to tree `to`, when one is, whole, made under the current setup. A hit marks the entry
  /// used (its modification time), for prune().
  std::optional<std::string> find(const std::string& from, const std::string& to) const;
  /// The bodies of the (at most `most`) most recently used diffs kept from commit `from`, to
  /// any tree: what a new diff from it can take its unchanged files' sections from.
  std::vector<std::string> recent_from(const std::string& from, size_t most) const;
  /// Keep `body` as the diff from `from` to `to`. Whether it was written.
  bool keep(const std::string& from, const std::string& to, const std::string& body) const;
  /// The same for what compare learnt of merging an attempt into its target (its commits, the
  /// merge-tree preview), kept under `key`: the object ids it was learnt from.
  std::optional<std::string> find_preview(const std::string& key) const;
  bool keep_preview(const std::string& key, const std::string& body) const;
  /// Drop the least recently used entries beyond the bounds, and scratch files a crashed write
  /// left (older than a minute).
  void prune() const;

  const std::string& dir() const { return dir_; }

private:
  std::optional<std::string> find_entry(const std::string& name, const std::string& key) const;
  bool keep_entry(const std::string& name, const std::string& key, const std::string& body) const;

  std::string dir_;
  std::string setup_; ///< git_setup_key's hash, in hex
};

// ---- the file format, exposed for unit tests -------------------------------------------------

/// An entry's text: a header naming the format, the setup, the key and the body's size and hash
/// (FNV-1a), then the body.
std::string diff_cache_entry(const std::string& setup, const std::string& key,
                             const std::string& body);
/// The body of an entry's text, when it is one of this format for this setup and key, and the
/// body is whole (its size and hash match); nullopt otherwise.
std::optional<std::string> diff_cache_body(const std::string& text, const std::string& setup,
                                           const std::string& key);

} // namespace berth
