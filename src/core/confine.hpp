// Confined file access beneath a root directory, for the MCP server's file tools (src/mcp/;
// tests/unit/test_confine.cpp covers it): `..`, absolute paths, /proc/self/root,
// sibling-prefix directories and symlinks (including symlinks swapped in while we look) cannot
// leave the root. Resolution is done by the kernel: openat2 with RESOLVE_BENEATH, never a string
// prefix check.
#pragma once

#include "berth/berth.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace berth {

enum class Access { read, write, create };

/// Open `relative` beneath `root`. Writes to a file with more than one hard link are refused.
/// Returns an owned file descriptor (close it), or Error{escape_refused} / Error{not_found} /
/// Error{io_error}.
Result<int> open_beneath(const std::string& root, const std::string& relative, Access access);

/// Read / write a whole file beneath `root` with the same guarantees.
Result<std::string> read_beneath(const std::string& root, const std::string& relative);
/// With `make_parents`, missing directories on the way are made (each one beneath the root,
/// by the kernel's resolution: a symlinked directory on the way is refused, never followed out).
Result<void> write_beneath(const std::string& root, const std::string& relative,
                           const std::string& content, bool make_parents = false);

/// Remove one file (or symlink, which is removed itself, not what it points to) beneath `root`.
/// Directories are refused (usage): deleting a tree is not a file operation.
Result<void> delete_beneath(const std::string& root, const std::string& relative);

struct DirEntry {
  std::string name;
  std::string type; ///< "file", "dir", "symlink" or "other"
  int64_t size = 0; ///< bytes, for files
};

/// The entries of the directory `relative` ("" or "." for the root itself), sorted by name.
Result<std::vector<DirEntry>> list_beneath(const std::string& root, const std::string& relative);

} // namespace berth
