#include "util/mapped_file.hpp"

#include "util/fd.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

namespace util {

std::optional<MappedFile> MappedFile::open(const std::string& path) {
  // (O_NONBLOCK: a FIFO planted there is refused by its type below, never waited on.)
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  struct stat st;
  if (!fd || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  if (st.st_size == 0) return MappedFile(nullptr, 0);
  void* data =
      ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd.get(), 0);
  if (data == MAP_FAILED) return std::nullopt;
  return MappedFile(data, static_cast<size_t>(st.st_size));
}

MappedFile::MappedFile(MappedFile&& other) noexcept : data_(other.data_), size_(other.size_) {
  other.data_ = nullptr;
  other.size_ = 0;
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(data_, size_);
}

} // namespace util
