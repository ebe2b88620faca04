#include "util/atomic_file.hpp"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <set>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace util {
namespace {

std::string dirname_of(const std::string& path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

} // namespace

tl::expected<void, std::string> write_file_atomic(const std::string& path, std::string_view content,
                                                  Fsync fsync) {
  // Unique per call: two threads writing the same file (the same content, say) each rename a
  // whole file of their own.
  static std::atomic<unsigned> calls{0};
  std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(++calls);
  auto fail = [&](const char* what) {
    int saved = errno;
    ::unlink(tmp.c_str());
    return tl::unexpected(fmt::format("cannot {} {}: {}", what, path, std::strerror(saved)));
  };
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return fail("create");
  size_t done = 0;
  while (done < content.size()) {
    ssize_t w = ::write(fd, content.data() + done, content.size() - done);
    if (w < 0) {
      if (errno == EINTR) continue;
      ::close(fd);
      return fail("write");
    }
    done += static_cast<size_t>(w);
  }
  if (fsync == Fsync::yes && ::fsync(fd) != 0) {
    ::close(fd);
    return fail("fsync");
  }
  if (::close(fd) != 0) return fail("close");
  if (::rename(tmp.c_str(), path.c_str()) != 0) return fail("rename");
  if (fsync == Fsync::no) return {};
  int dir = ::open(dirname_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
  return {};
}

std::vector<tl::expected<void, std::string>>
write_files_atomic(const std::vector<std::pair<std::string, std::string>>& files) {
  static std::atomic<unsigned> calls{0};
  std::vector<tl::expected<void, std::string>> results(files.size());
  std::vector<std::string> temps(files.size());
  std::vector<int> fds(files.size(), -1);
  auto fail = [&](size_t i, const char* what) {
    int saved = errno;
    if (fds[i] >= 0) ::close(fds[i]);
    fds[i] = -1;
    ::unlink(temps[i].c_str());
    results[i] =
        tl::unexpected(fmt::format("cannot {} {}: {}", what, files[i].first, std::strerror(saved)));
  };
  // Every temp written, then every one synced: the first fsync's journal commit takes the others'
  // data with it, so the rest find little left to do.
  for (size_t i = 0; i < files.size(); ++i) {
    temps[i] =
        files[i].first + ".tmp." + std::to_string(::getpid()) + ".b" + std::to_string(++calls);
    fds[i] = ::open(temps[i].c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fds[i] < 0) {
      fail(i, "create");
      continue;
    }
    std::string_view content = files[i].second;
    while (!content.empty()) {
      ssize_t w = ::write(fds[i], content.data(), content.size());
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) break;
      content.remove_prefix(static_cast<size_t>(w));
    }
    if (!content.empty()) fail(i, "write");
  }
  for (size_t i = 0; i < files.size(); ++i) {
    if (fds[i] < 0) continue;
    if (::fsync(fds[i]) != 0) {
      fail(i, "fsync");
      continue;
    }
    int fd = std::exchange(fds[i], -1);
    if (::close(fd) != 0) fail(i, "close");
  }
  std::set<std::string> dirs;
  for (size_t i = 0; i < files.size(); ++i) {
    if (!results[i]) continue;
    if (::rename(temps[i].c_str(), files[i].first.c_str()) != 0) {
      fail(i, "rename");
      continue;
    }
    dirs.insert(dirname_of(files[i].first));
  }
  for (const auto& d : dirs) {
    int dir = ::open(d.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
      ::fsync(dir);
      ::close(dir);
    }
  }
  return results;
}

tl::expected<void, std::string> write_file(const std::string& path, std::string_view content) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return tl::unexpected(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  while (!content.empty()) {
    ssize_t w = ::write(fd, content.data(), content.size());
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      int saved = errno;
      ::close(fd);
      return tl::unexpected(fmt::format("cannot write {}: {}", path, std::strerror(saved)));
    }
    content.remove_prefix(static_cast<size_t>(w));
  }
  if (::close(fd) != 0)
    return tl::unexpected(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  return {};
}

tl::expected<std::string, std::string> read_file(const std::string& path) {
  // Opened without blocking and read only when it is a regular file: a FIFO (or a symlink to a
  // device) planted where a file is expected would otherwise hold the caller forever.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return tl::unexpected(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return tl::unexpected(fmt::format("cannot read {}: not a regular file", path));
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  std::string data;
  char buf[65536];
  for (;;) {
    ssize_t r = ::read(fd, buf, sizeof buf);
    if (r < 0) {
      if (errno == EINTR) continue;
      int saved = errno;
      ::close(fd);
      return tl::unexpected(fmt::format("cannot read {}: {}", path, std::strerror(saved)));
    }
    if (r == 0) break;
    data.append(buf, static_cast<size_t>(r));
  }
  ::close(fd);
  return data;
}

} // namespace util
