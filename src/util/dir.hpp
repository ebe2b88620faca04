// The entries of a directory, read with opendir/readdir and closed when done (whichever way the
// loop is left), "." and ".." skipped:
//
//   util::DirEntries dir(path);
//   for (const auto& e : dir) use(e.name, e.type);
//   if (dir.error()) ... // opendir or readdir failed: errno value
#pragma once

#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>

namespace util {

class DirEntries {
public:
  struct Entry {
    std::string_view name; ///< valid until the next entry is read
    unsigned char type;    ///< d_type: DT_DIR, DT_REG, ... (DT_UNKNOWN on some file systems)
  };

  explicit DirEntries(const std::string& path) : dir_(::opendir(path.c_str())) {
    if (!dir_) error_ = errno;
  }
  DirEntries(const DirEntries&) = delete;
  DirEntries& operator=(const DirEntries&) = delete;
  ~DirEntries() {
    if (dir_) ::closedir(dir_);
  }

  /// Whether the directory could be opened.
  bool is_open() const { return dir_ != nullptr; }
  /// The directory's own descriptor, for the *at() calls on its entries (-1 when not open).
  int fd() const { return dir_ ? ::dirfd(dir_) : -1; }
  /// The errno of a failed opendir or readdir; 0 when none failed.
  int error() const { return error_; }

  class iterator {
  public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Entry;
    using difference_type = std::ptrdiff_t;
    using pointer = const Entry*;
    using reference = const Entry&;

    iterator() = default;
    explicit iterator(DirEntries* owner) : owner_(owner) { next(); }
    reference operator*() const { return entry_; }
    pointer operator->() const { return &entry_; }
    iterator& operator++() {
      next();
      return *this;
    }
    void operator++(int) { next(); }
    bool operator==(const iterator& other) const { return owner_ == other.owner_; }

  private:
    void next() {
      for (;;) {
        errno = 0;
        dirent* e = ::readdir(owner_->dir_);
        if (!e) {
          if (errno != 0) owner_->error_ = errno;
          owner_ = nullptr; // the end
          return;
        }
        if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
        entry_ = Entry{e->d_name, e->d_type};
        return;
      }
    }
    DirEntries* owner_ = nullptr;
    Entry entry_{};
  };

  /// Reads from where the directory stands: iterate once.
  iterator begin() { return dir_ ? iterator(this) : iterator(); }
  iterator end() { return iterator(); }

private:
  DIR* dir_ = nullptr;
  int error_ = 0;
};

} // namespace util
