// Confined file access beneath a root directory, for the coming MCP server's file tools (nothing
// calls it yet; tests/unit/test_confine.cpp covers it): `..`, absolute paths, /proc/self/root,
// sibling-prefix directories and symlinks (including symlinks swapped in while we look) cannot
// leave the root. Resolution is done by the kernel: openat2 with RESOLVE_BENEATH, never a string
// prefix check.
#pragma once

#include "berth/berth.hpp"

#include <string>

namespace berth {

enum class Access { read, write, create };

/// Open `relative` beneath `root`. Writes to a file with more than one hard link are refused.
/// Returns an owned file descriptor (close it), or Error{escape_refused} / Error{not_found} /
/// Error{io_error}.
Result<int> open_beneath(const std::string& root, const std::string& relative, Access access);

/// Read / write a whole file beneath `root` with the same guarantees.
Result<std::string> read_beneath(const std::string& root, const std::string& relative);
Result<void> write_beneath(const std::string& root, const std::string& relative,
                           const std::string& content);

} // namespace berth
