#include "core/diff_cache.hpp"

#include "core/shadow.hpp"
#include "util/atomic_file.hpp"
#include "util/dir.hpp"
#include "util/paths.hpp"

#include <algorithm>
#include <ctime>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace berth {

namespace {

constexpr std::string_view kMagic = "berth-diff 1\n";

// An object id as git prints it (SHA-1 or SHA-256): the only names an entry's file may have.
bool is_oid(const std::string& s) {
  return (s.size() == 40 || s.size() == 64) && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

std::string checksum(const std::string& body) {
  return fmt::format("{:016x} {}", util::fnv1a(body), body.size());
}

} // namespace

std::string diff_cache_entry(const std::string& setup, const std::string& key,
                             const std::string& body) {
  return fmt::format("{}setup {}\nkey {}\nbody {}\n\n", kMagic, setup, key, checksum(body)) + body;
}

std::optional<std::string> diff_cache_body(const std::string& text, const std::string& setup,
                                           const std::string& key) {
  // The header's lines, each whole, then an empty line, then the body.
  std::string head = fmt::format("{}setup {}\nkey {}\nbody ", kMagic, setup, key);
  if (key.find('\n') != std::string::npos || text.compare(0, head.size(), head) != 0)
    return std::nullopt;
  size_t end = text.find("\n\n", head.size());
  if (end == std::string::npos) return std::nullopt;
  std::string sum = text.substr(head.size(), end - head.size());
  std::string body = text.substr(end + 2);
  if (sum != checksum(body)) return std::nullopt;
  return body;
}

DiffCache::DiffCache(const Project& project)
    : dir_(util::join(project.berth_dir(), "diffs")),
      setup_(fmt::format("{:016x}", util::fnv1a(git_setup_key(project)))) {}

std::optional<std::string> DiffCache::find(const std::string& from, const std::string& to) const {
  if (!is_oid(from) || !is_oid(to)) return std::nullopt;
  return find_entry(from + "-" + to, from + " " + to);
}

std::vector<std::string> DiffCache::recent_from(const std::string& from, size_t most) const {
  std::vector<std::string> bodies;
  if (!is_oid(from) || most == 0) return bodies;
  struct Found {
    std::string to;
    struct timespec used;
  };
  std::vector<Found> found;
  util::DirEntries dir(dir_);
  std::string prefix = from + "-";
  for (const auto& e : dir) {
    std::string name(e.name);
    struct stat st;
    if (name.compare(0, prefix.size(), prefix) != 0 || !is_oid(name.substr(prefix.size())) ||
        ::fstatat(dir.fd(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
      continue;
    found.push_back({name.substr(prefix.size()), st.st_mtim});
  }
  std::sort(found.begin(), found.end(), [](const Found& a, const Found& b) {
    return a.used.tv_sec != b.used.tv_sec ? a.used.tv_sec > b.used.tv_sec
                                          : a.used.tv_nsec > b.used.tv_nsec;
  });
  if (found.size() > most) found.resize(most);
  for (const auto& f : found)
    if (auto text = util::read_file(util::join(dir_, prefix + f.to)))
      if (auto body = diff_cache_body(*text, setup_, from + " " + f.to))
        bodies.push_back(std::move(*body));
  return bodies;
}

bool DiffCache::keep(const std::string& from, const std::string& to,
                     const std::string& body) const {
  if (!is_oid(from) || !is_oid(to)) return false;
  return keep_entry(from + "-" + to, from + " " + to, body);
}

std::optional<std::string> DiffCache::find_preview(const std::string& key) const {
  return find_entry(fmt::format("merge-{:016x}", util::fnv1a(key)), key);
}

bool DiffCache::keep_preview(const std::string& key, const std::string& body) const {
  return keep_entry(fmt::format("merge-{:016x}", util::fnv1a(key)), key, body);
}

std::optional<std::string> DiffCache::find_entry(const std::string& name,
                                                 const std::string& key) const {
  std::string file = util::join(dir_, name);
  auto text = util::read_file(file);
  if (!text) return std::nullopt;
  auto body = diff_cache_body(*text, setup_, key);
  // Used now: the last to go when the folder is pruned. (Failing to say so costs nothing.)
  if (body) (void)::utimensat(AT_FDCWD, file.c_str(), nullptr, 0);
  return body;
}

bool DiffCache::keep_entry(const std::string& name, const std::string& key,
                           const std::string& body) const {
  if (body.size() > kMaxEntryBytes || key.find('\n') != std::string::npos) return false;
  if (!util::make_dirs(dir_)) return false;
  return util::write_file_atomic(util::join(dir_, name), diff_cache_entry(setup_, key, body))
      .has_value();
}

void DiffCache::prune() const {
  struct Kept {
    std::string name;
    struct timespec used;
    uint64_t bytes;
  };
  std::vector<Kept> entries;
  util::DirEntries dir(dir_);
  time_t now = ::time(nullptr);
  for (const auto& e : dir) {
    struct stat st;
    if (::fstatat(dir.fd(), std::string(e.name).c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    std::string name(e.name);
    // A scratch file of a write that never finished (write_file_atomic's "NAME.tmp.PID.N"), or
    // anything else that is no entry: gone once it is a minute old.
    bool entry = S_ISREG(st.st_mode) && name.find('.') == std::string::npos;
    if (!entry) {
      if (now - st.st_mtim.tv_sec > 60 && !S_ISDIR(st.st_mode))
        (void)::unlinkat(dir.fd(), name.c_str(), 0);
      continue;
    }
    entries.push_back({std::move(name), st.st_mtim, static_cast<uint64_t>(st.st_size)});
  }
  // The most recently used first; what does not fit goes.
  std::sort(entries.begin(), entries.end(), [](const Kept& a, const Kept& b) {
    return a.used.tv_sec != b.used.tv_sec ? a.used.tv_sec > b.used.tv_sec
                                          : a.used.tv_nsec > b.used.tv_nsec;
  });
  uint64_t total = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    total += entries[i].bytes;
    if (i >= kMaxEntries || total > kMaxBytes)
      (void)::unlinkat(dir.fd(), entries[i].name.c_str(), 0);
  }
}

} // namespace berth
