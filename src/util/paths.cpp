#include "util/paths.hpp"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace util {

std::string join(std::string_view a, std::string_view b) {
  if (a.empty()) return std::string(b);
  if (b.empty()) return std::string(a);
  std::string result(a);
  if (result.back() != '/') result += '/';
  while (!b.empty() && b.front() == '/')
    b.remove_prefix(1);
  result += b;
  return result;
}

std::string basename(std::string_view path) {
  while (path.size() > 1 && path.back() == '/')
    path.remove_suffix(1);
  auto slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

std::string dirname(std::string_view path) {
  while (path.size() > 1 && path.back() == '/')
    path.remove_suffix(1);
  auto slash = path.rfind('/');
  if (slash == std::string_view::npos) return ".";
  if (slash == 0) return "/";
  return std::string(path.substr(0, slash));
}

std::string lexically_normal(std::string_view path) {
  std::vector<std::string_view> parts;
  size_t i = 0;
  while (i < path.size()) {
    while (i < path.size() && path[i] == '/')
      ++i;
    size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    std::string_view part = path.substr(i, j - i);
    if (part.empty() || part == ".") {
    } else if (part == "..") {
      if (!parts.empty()) parts.pop_back();
    } else {
      parts.push_back(part);
    }
    i = j;
  }
  std::string result;
  for (auto part : parts) {
    result += '/';
    result += part;
  }
  return result.empty() ? "/" : result;
}

std::string absolute(std::string_view path, std::string_view base) {
  if (!path.empty() && path.front() == '/') return lexically_normal(path);
  return lexically_normal(join(base, path));
}

tl::expected<std::string, std::string> real_path(const std::string& path) {
  char buf[PATH_MAX];
  if (::realpath(path.c_str(), buf) == nullptr)
    return tl::unexpected(fmt::format("{}: {}", path, std::strerror(errno)));
  return std::string(buf);
}

bool is_within(std::string_view path, std::string_view root) {
  if (root == "/") return !path.empty() && path.front() == '/';
  if (path.size() < root.size() || path.substr(0, root.size()) != root) return false;
  return path.size() == root.size() || path[root.size()] == '/';
}

tl::expected<void, std::string> make_dirs(const std::string& path, unsigned mode) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) return tl::unexpected(fmt::format("cannot create {}: {}", path, ec.message()));
  (void)mode;
  return {};
}

tl::expected<void, std::string> remove_tree(const std::string& path) {
  // std::filesystem::remove_all does not follow symlinks: a symlink is removed, not its target.
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
  if (ec) return tl::unexpected(fmt::format("cannot remove {}: {}", path, ec.message()));
  return {};
}

bool exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

bool is_directory(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool is_symlink(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

std::string dot_component(std::string_view path) {
  size_t start = 0;
  while (start < path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    if (end > start && path[start] == '.') return std::string(path.substr(start, end - start));
    start = end + 1;
  }
  return {};
}

uint64_t device_of(const std::string& path) {
  std::string p = path;
  for (;;) {
    struct stat st;
    if (::stat(p.c_str(), &st) == 0) return static_cast<uint64_t>(st.st_dev);
    if (p.empty() || p == "/" || p.front() != '/') return 0;
    p = dirname(p);
  }
}

std::string home_dir() {
  if (const char* home = ::getenv("HOME"); home && *home) return home;
  if (passwd* pw = ::getpwuid(::getuid()); pw && pw->pw_dir) return pw->pw_dir;
  return "/";
}

std::string expand_home(const std::string& path) {
  if (path == "~") return home_dir();
  if (path.rfind("~/", 0) == 0) return join(home_dir(), path.substr(2));
  return path;
}

std::string data_home() {
  if (const char* xdg = ::getenv("XDG_DATA_HOME"); xdg && *xdg == '/') return xdg;
  return join(home_dir(), ".local/share");
}

std::string config_home() {
  if (const char* xdg = ::getenv("XDG_CONFIG_HOME"); xdg && *xdg == '/') return xdg;
  return join(home_dir(), ".config");
}

uint64_t fnv1a(std::string_view data) {
  uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : data) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

} // namespace util
