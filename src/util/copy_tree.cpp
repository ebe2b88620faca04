#include "util/copy_tree.hpp"

#include "util/dir.hpp"
#include "util/fd.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace util {

std::string_view copy_method_name(CopyMethod method) {
  switch (method) {
  case CopyMethod::reflink:
    return "reflink";
  case CopyMethod::copy_file_range:
    return "copy_file_range";
  case CopyMethod::copy:
    return "copy";
  }
  return "?";
}

namespace {

std::string errno_text(std::string_view what, const std::string& path) {
  return fmt::format("{} {}: {}", what, path, std::strerror(errno));
}

// What one tree copy learned about the filesystems involved: once FICLONE or copy_file_range is
// refused for lack of support, every later file would be refused the same way, so stop asking.
struct Copier {
  const CopyOptions& options;
  CopyStats stats;
  bool try_reflink = true;
  bool try_range = true;
  uint64_t last_report = 0;

  void use(CopyMethod method) {
    if (!stats.any_file || method > stats.method) stats.method = method;
    stats.any_file = true;
  }

  void add_bytes(uint64_t n) {
    stats.bytes += n;
    if (options.progress && stats.bytes - last_report >= options.progress_every) {
      last_report = stats.bytes;
      options.progress(stats.bytes);
    }
  }

  static bool unsupported(int error) {
    return error == EOPNOTSUPP || error == ENOTTY || error == EXDEV || error == EINVAL ||
           error == ENOSYS || error == EPERM || error == EBADF;
  }

  tl::expected<void, std::string> file(const std::string& from, const std::string& to,
                                       const struct stat& st) {
    Fd in(::open(from.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
    if (in.get() < 0) return tl::unexpected(errno_text("cannot open", from));
    Fd out(::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600));
    if (out.get() < 0) return tl::unexpected(errno_text("cannot create", to));

    auto size = static_cast<uint64_t>(st.st_size);
    bool done = false;
    if (try_reflink) {
      if (::ioctl(out.get(), FICLONE, in.get()) == 0) {
        use(CopyMethod::reflink);
        add_bytes(size);
        done = true;
      } else if (unsupported(errno)) {
        try_reflink = false;
      } else {
        return tl::unexpected(errno_text("cannot clone", from));
      }
    }
    uint64_t copied = 0;
    if (!done && try_range) {
      // copy_file_range may stop short (a file that grew or shrank meanwhile, or a pseudo-file
      // reporting size 0); whatever is left goes through read/write below.
      while (copied < size) {
        ssize_t n = ::copy_file_range(in.get(), nullptr, out.get(), nullptr,
                                      std::min<uint64_t>(size - copied, 1ull << 30), 0);
        if (n < 0) {
          if (errno == EINTR) continue;
          if (copied == 0 && unsupported(errno)) {
            try_range = false;
            break;
          }
          return tl::unexpected(errno_text("cannot copy", from));
        }
        if (n == 0) break;
        copied += static_cast<uint64_t>(n);
        add_bytes(static_cast<uint64_t>(n));
      }
      if (try_range) {
        use(CopyMethod::copy_file_range);
        done = copied >= size;
      }
    }
    if (!done) {
      if (copied == 0) use(CopyMethod::copy);
      std::vector<char> buffer(1 << 20);
      for (;;) {
        ssize_t n = ::read(in.get(), buffer.data(), buffer.size());
        if (n < 0) {
          if (errno == EINTR) continue;
          return tl::unexpected(errno_text("cannot read", from));
        }
        if (n == 0) break;
        for (ssize_t off = 0; off < n;) {
          ssize_t w = ::write(out.get(), buffer.data() + off, static_cast<size_t>(n - off));
          if (w < 0) {
            if (errno == EINTR) continue;
            return tl::unexpected(errno_text("cannot write", to));
          }
          off += w;
        }
        add_bytes(static_cast<uint64_t>(n));
      }
    }
    if (::fchmod(out.get(), st.st_mode & 07777) != 0)
      return tl::unexpected(errno_text("cannot set the mode of", to));
    timespec times[2] = {st.st_atim, st.st_mtim};
    if (::futimens(out.get(), times) != 0)
      return tl::unexpected(errno_text("cannot set the times of", to));
    if (!out.close()) return tl::unexpected(errno_text("cannot write", to));
    ++stats.files;
    return {};
  }

  tl::expected<void, std::string> symlink(const std::string& from, const std::string& to,
                                          const struct stat& st) {
    std::string target(static_cast<size_t>(st.st_size) + 1, '\0');
    for (;;) {
      ssize_t n = ::readlink(from.c_str(), target.data(), target.size());
      if (n < 0) return tl::unexpected(errno_text("cannot read the link", from));
      if (static_cast<size_t>(n) < target.size()) {
        target.resize(static_cast<size_t>(n));
        break;
      }
      target.resize(target.size() * 2); // it changed meanwhile
    }
    if (::symlink(target.c_str(), to.c_str()) != 0)
      return tl::unexpected(errno_text("cannot create the link", to));
    timespec times[2] = {st.st_atim, st.st_mtim};
    ::utimensat(AT_FDCWD, to.c_str(), times, AT_SYMLINK_NOFOLLOW); // best effort (some fs refuse)
    ++stats.files;
    return {};
  }

  tl::expected<void, std::string> tree(const std::string& from, const std::string& to) {
    struct stat st;
    if (::lstat(from.c_str(), &st) != 0) return tl::unexpected(errno_text("cannot read", from));
    if (S_ISREG(st.st_mode)) return file(from, to, st);
    if (S_ISLNK(st.st_mode)) return symlink(from, to, st);
    if (!S_ISDIR(st.st_mode)) return {}; // sockets, fifos, devices: nothing a cache needs
    // Owner-writable while filling it; its own mode and time are set once its entries are in
    // (writing them changes the directory's mtime).
    if (::mkdir(to.c_str(), 0700) != 0) return tl::unexpected(errno_text("cannot create", to));
    std::vector<std::string> names;
    {
      DirEntries dir(from);
      if (!dir.is_open()) return tl::unexpected(errno_text("cannot list", from));
      for (const auto& entry : dir)
        names.emplace_back(entry.name);
    }
    for (const auto& name : names) {
      auto copied = tree(from + "/" + name, to + "/" + name);
      if (!copied) return copied;
    }
    if (::chmod(to.c_str(), st.st_mode & 07777) != 0)
      return tl::unexpected(errno_text("cannot set the mode of", to));
    timespec times[2] = {st.st_atim, st.st_mtim};
    if (::utimensat(AT_FDCWD, to.c_str(), times, AT_SYMLINK_NOFOLLOW) != 0)
      return tl::unexpected(errno_text("cannot set the times of", to));
    return {};
  }
};

} // namespace

tl::expected<CopyStats, std::string> copy_tree(const std::string& from, const std::string& to,
                                               const CopyOptions& options) {
  Copier copier{options, {}};
  auto copied = copier.tree(from, to);
  if (!copied) return tl::unexpected(copied.error());
  return copier.stats;
}

} // namespace util
