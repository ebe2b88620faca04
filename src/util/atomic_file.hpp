// Crash-safe file replacement: write a temporary file beside the target, fsync it, rename it over
// the target, fsync the directory. Readers see the old content or the new, never a torn write.
// (Fsync::no keeps the rename and drops the two fsyncs: for a file whose loss with the machine is
// harmless, written where a command must not wait for the disk.)
#pragma once

#include <string>
#include <string_view>
#include <tl/expected.hpp>
#include <utility>
#include <vector>

namespace util {

enum class Fsync { yes, no };

tl::expected<void, std::string> write_file_atomic(const std::string& path, std::string_view content,
                                                  Fsync fsync = Fsync::yes);

/// write_file_atomic for several files at once, with the same guarantee for each: every temporary
/// file is written and synced before any rename, then each directory is synced once. (A journal
/// commit per file and per directory otherwise: the claims of a pick's siblings paid ~3 ms each.)
/// One result per file, in order; a file that failed is not renamed (the others are).
std::vector<tl::expected<void, std::string>>
write_files_atomic(const std::vector<std::pair<std::string, std::string>>& files);

/// Write a scratch file (created or truncated): no fsync, no rename. For files nothing depends on
/// after a crash.
tl::expected<void, std::string> write_file(const std::string& path, std::string_view content);

/// Read a whole regular file; the error says which file and why (ENOENT included). Anything else
/// (a FIFO, a device, a directory) is an error, found without blocking.
tl::expected<std::string, std::string> read_file(const std::string& path);

} // namespace util
