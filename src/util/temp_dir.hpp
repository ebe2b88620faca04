// A temporary directory removed (with its contents) when the object dies.
#pragma once

#include <string>
#include <tl/expected.hpp>

namespace util {

class TempDir {
public:
  /// mkdtemp under `parent` (or $TMPDIR, or /tmp) with the given name prefix.
  static tl::expected<TempDir, std::string> create(const std::string& prefix,
                                                   const std::string& parent = {});
  TempDir(TempDir&& other) noexcept : path_(std::move(other.path_)) { other.path_.clear(); }
  TempDir& operator=(TempDir&&) = delete;
  TempDir(const TempDir&) = delete;
  ~TempDir();

  const std::string& path() const { return path_; }

private:
  explicit TempDir(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

} // namespace util
