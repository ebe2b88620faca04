// A regular file mapped read-only: its bytes without copying them (an index of 50k files is
// ~5 MB; reading it into a string costs a page fault per 4 KiB of the copy).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace util {

class MappedFile {
public:
  /// Nullopt when `path` is not a regular file that can be opened and mapped.
  static std::optional<MappedFile> open(const std::string& path);
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&&) = delete;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  std::string_view bytes() const { return {static_cast<const char*>(data_), size_}; }

private:
  MappedFile(void* data, size_t size) : data_(data), size_(size) {}
  void* data_ = nullptr;
  size_t size_ = 0;
};

} // namespace util
