// Copy files and trees the cheapest way the filesystem allows: a copy-on-write clone (FICLONE:
// btrfs, XFS, bcachefs, ...), else an in-kernel copy (copy_file_range), else read and write.
// Modes, symlinks (as symlinks) and modification times are kept; the method actually used is
// reported so that a caller never degrades silently.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <tl/expected.hpp>

namespace util {

/// Ordered from cheapest to dearest: a copy's overall method is the dearest one any file needed.
enum class CopyMethod { reflink, copy_file_range, copy };
std::string_view copy_method_name(CopyMethod method);

struct CopyStats {
  uint64_t files = 0; ///< regular files and symlinks written
  uint64_t bytes = 0; ///< bytes of regular files
  CopyMethod method = CopyMethod::reflink;
  bool any_file = false; ///< false: only directories (method then means nothing)
};

struct CopyOptions {
  /// Called with the bytes copied so far, at most once per `progress_every` bytes.
  std::function<void(uint64_t bytes)> progress;
  uint64_t progress_every = 64ull << 20;
};

/// Copy `from` (a file, a symlink or a directory tree) to `to`, which must not exist; its parent
/// must. Special files (sockets, fifos, devices) inside a tree are skipped. On error, what was
/// already copied stays: the caller decides whether to remove it.
tl::expected<CopyStats, std::string> copy_tree(const std::string& from, const std::string& to,
                                               const CopyOptions& options = {});

} // namespace util
