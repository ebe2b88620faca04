#include "core/tree_edit.hpp"

#include "core/git.hpp"
#include "util/atomic_file.hpp"
#include "util/paths.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <fmt/format.h>
#include <set>
#include <unistd.h>

namespace berth {
namespace {

std::string parent_of(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

std::string name_of(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

size_t depth_of(const std::string& dir) {
  return dir.empty() ? 0 : static_cast<size_t>(std::count(dir.begin(), dir.end(), '/')) + 1;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// git's order of tree entries: names compared bytewise, a tree's as if it ended in '/'.
bool git_order(const TreeEntry& a, const TreeEntry& b) {
  size_t n = std::min(a.name.size(), b.name.size());
  int c = a.name.compare(0, n, b.name, 0, n);
  if (c != 0) return c < 0;
  unsigned char ca =
      a.name.size() > n ? static_cast<unsigned char>(a.name[n]) : (a.is_tree() ? '/' : '\0');
  unsigned char cb =
      b.name.size() > n ? static_cast<unsigned char>(b.name[n]) : (b.is_tree() ? '/' : '\0');
  return ca < cb;
}

struct Scratch {
  std::vector<std::string> paths;
  ~Scratch() {
    for (const auto& p : paths)
      ::unlink(p.c_str());
  }
};

} // namespace

std::optional<std::vector<TreeEntry>> parse_tree(const std::string& raw, size_t oid_bytes) {
  static const char* digits = "0123456789abcdef";
  std::vector<TreeEntry> entries;
  size_t pos = 0;
  while (pos < raw.size()) {
    size_t space = raw.find(' ', pos);
    if (space == std::string::npos) return std::nullopt;
    size_t nul = raw.find('\0', space + 1);
    if (nul == std::string::npos || nul + 1 + oid_bytes > raw.size()) return std::nullopt;
    TreeEntry e;
    e.mode = raw.substr(pos, space - pos);
    e.name = raw.substr(space + 1, nul - space - 1);
    e.oid.reserve(oid_bytes * 2);
    for (size_t i = 0; i < oid_bytes; ++i) {
      auto byte = static_cast<unsigned char>(raw[nul + 1 + i]);
      e.oid += digits[byte >> 4];
      e.oid += digits[byte & 15];
    }
    entries.push_back(std::move(e));
    pos = nul + 1 + oid_bytes;
  }
  return entries;
}

std::optional<std::string> serialize_tree(std::vector<TreeEntry> entries, size_t oid_bytes) {
  for (auto& e : entries)
    if (e.mode == "040000") e.mode = "40000";
  std::sort(entries.begin(), entries.end(), git_order);
  std::string raw;
  for (const auto& e : entries) {
    if (e.oid.size() != oid_bytes * 2 || e.name.empty() ||
        e.name.find_first_of(std::string("/\0", 2)) != std::string::npos)
      return std::nullopt;
    raw += e.mode;
    raw += ' ';
    raw += e.name;
    raw += '\0';
    for (size_t i = 0; i < oid_bytes; ++i) {
      int hi = hex_value(e.oid[2 * i]), lo = hex_value(e.oid[2 * i + 1]);
      if (hi < 0 || lo < 0) return std::nullopt;
      raw += static_cast<char>(hi << 4 | lo);
    }
  }
  return raw;
}

Result<bool> read_trees(const std::string& git_dir, const std::vector<std::string>& names,
                        TreeListing& into) {
  std::vector<std::string> asked;
  for (const auto& name : names)
    if (!into.contains(name) && std::find(asked.begin(), asked.end(), name) == asked.end())
      asked.push_back(name);
  if (asked.empty()) return true;
  GitCall read = tree_reader(git_dir);
  for (const auto& name : asked) {
    if (name.find('\n') != std::string::npos) return false; // cat-file reads lines
    read.input += name + "\n";
  }
  auto listed = BERTH_TRY(git(read));
  TreeListing found;
  size_t pos = 0;
  for (const auto& name : asked) {
    size_t nl = listed.out.find('\n', pos);
    if (nl == std::string::npos) return false;
    std::string header = listed.out.substr(pos, nl - pos);
    pos = nl + 1;
    auto& entry = found[name];
    if (header.size() >= 8 && header.compare(header.size() - 8, 8, " missing") == 0) continue;
    auto s1 = header.find(' '), s2 = header.rfind(' ');
    if (s1 == std::string::npos || s1 == s2) return false;
    std::string oid = header.substr(0, s1);
    std::string type = header.substr(s1 + 1, s2 - s1 - 1);
    char* end = nullptr;
    unsigned long long size = std::strtoull(header.c_str() + s2 + 1, &end, 10);
    if (end != header.c_str() + header.size() || pos + size + 1 > listed.out.size()) return false;
    if (type == "tree") {
      auto parsed = parse_tree(listed.out.substr(pos, size), oid.size() / 2);
      if (!parsed) return false;
      entry = ListedTree{oid, std::move(*parsed)};
    }
    pos += size + 1;
  }
  into.merge(found);
  return true;
}

Result<std::optional<std::string>> edit_tree(const std::string& git_dir, const std::string& base,
                                             const PathChanges& changes,
                                             const std::string& scratch_dir) {
  auto edited = BERTH_TRY(edit_trees(git_dir, {TreeEdit{base, changes, {}}}, scratch_dir));
  return edited.front();
}

namespace {

// One edit on its way: its folders' entries, what the changes named.
struct Editing {
  std::vector<std::string> order; // every folder on the way from a changed path to the root
  std::map<std::string, std::map<std::string, TreeEntry>> dirs;
  std::map<std::string, std::set<std::string>> named; // which names a change set explicitly
  std::map<std::string, bool> present; // path -> whether the change leaves something there
  bool possible = true;
};

std::string folder_name(const TreeEdit& edit, const std::string& dir) {
  const std::string& as = edit.read_as.empty() ? edit.base : edit.read_as;
  return dir.empty() ? as + "^{tree}" : as + ":" + dir;
}

} // namespace

GitCall tree_reader(const std::string& git_dir) {
  return GitCall{{"--git-dir=" + git_dir, "cat-file", "--batch"}, git_dir, {}, {}, {}};
}

GitCall tree_writer(const std::string& git_dir) {
  return GitCall{{"--git-dir=" + git_dir, "hash-object", "-w", "-t", "tree", "--stdin-paths"},
                 git_dir,
                 {},
                 {},
                 {}};
}

Result<std::vector<std::optional<std::string>>> edit_trees(const std::string& git_dir,
                                                           const std::vector<TreeEdit>& edits,
                                                           const std::string& scratch_dir,
                                                           TreeListing* known) {
  std::vector<std::optional<std::string>> results(edits.size());
  std::vector<Editing> all(edits.size());
  std::vector<std::string> to_read;
  for (size_t k = 0; k < edits.size(); ++k) {
    const TreeEdit& edit = edits[k];
    Editing& e = all[k];
    size_t oid_bytes = edit.base.size() / 2;
    e.possible = oid_bytes == 20 || oid_bytes == 32;
    // Every folder on the way from a changed path to the root.
    std::set<std::string> affected{""};
    for (const auto& [path, entry] : edit.changes) {
      if (path.empty() || path.front() == '/' || path.back() == '/' ||
          path.find('\n') != std::string::npos)
        e.possible = false;
      for (std::string dir = parent_of(path); !dir.empty(); dir = parent_of(dir))
        affected.insert(dir);
    }
    if (!e.possible) continue;
    e.order.assign(affected.begin(), affected.end());
    for (const auto& dir : e.order)
      to_read.push_back(folder_name(edit, dir));
  }
  // Read them all in one call; a folder that is not there (or is a file there) starts empty.
  TreeListing own;
  TreeListing& listing = known ? *known : own;
  if (!BERTH_TRY(read_trees(git_dir, to_read, listing))) return results;
  for (size_t k = 0; k < edits.size(); ++k) {
    Editing& e = all[k];
    if (!e.possible) continue;
    for (const auto& dir : e.order) {
      auto& entries = e.dirs[dir];
      auto it = listing.find(folder_name(edits[k], dir));
      if (it == listing.end()) {
        e.possible = false;
        break;
      }
      if (it->second)
        for (const auto& entry : it->second->entries)
          entries[entry.name] = entry;
    }
    // The changes themselves.
    for (const auto& [path, entry] : edits[k].changes) {
      std::string dir = parent_of(path), name = name_of(path);
      e.named[dir].insert(name);
      e.present[path] = entry.has_value();
      if (entry) {
        TreeEntry t = *entry;
        t.name = name;
        e.dirs[dir][name] = std::move(t);
      } else {
        e.dirs[dir].erase(name);
      }
    }
  }
  // Bottom up, one depth at a time for every edit: the folders of that depth written together,
  // then each hung in its parent (or dropped from there when it became empty). One hash-object
  // for all depths, in conversation: it names each tree as it writes it (a line each), and the
  // next depth is sent once the last one's names are in.
  GitConversation writer(tree_writer(git_dir));
  static std::atomic<int> counter{0};
  int batch = ++counter;
  size_t deepest = 0;
  for (const auto& e : all)
    for (const auto& dir : e.order)
      deepest = std::max(deepest, depth_of(dir));
  for (size_t depth = deepest + 1; depth-- > 0;) {
    struct Level {
      size_t edit;
      std::vector<std::string> dirs, files;
    };
    std::vector<Level> levels;
    Scratch files;
    for (size_t k = 0; k < edits.size(); ++k) {
      Editing& e = all[k];
      if (!e.possible) continue;
      Level level{k, {}, {}};
      for (const auto& dir : e.order)
        if (depth_of(dir) == depth && (!e.dirs[dir].empty() || dir.empty()))
          level.dirs.push_back(dir);
      for (size_t i = 0; i < level.dirs.size(); ++i) {
        std::vector<TreeEntry> entries;
        for (auto& [name, t] : e.dirs[level.dirs[i]])
          entries.push_back(t);
        auto raw = serialize_tree(std::move(entries), edits[k].base.size() / 2);
        if (!raw) {
          e.possible = false;
          break;
        }
        std::string file = util::join(
            scratch_dir, fmt::format("tree.{}.{}.{}.{}.{}", ::getpid(), batch, k, depth, i));
        files.paths.push_back(file);
        level.files.push_back(file);
        if (auto w = util::write_file(file, *raw); !w) return fail(ErrorCode::io_error, w.error());
      }
      if (e.possible) levels.push_back(std::move(level));
    }
    std::string paths;
    size_t count = 0;
    for (const auto& level : levels)
      for (const auto& file : level.files) {
        paths += file + "\n";
        ++count;
      }
    std::vector<std::string> oids;
    if (count > 0) {
      oids = BERTH_TRY(writer.ask_in_rounds(paths));
      if (oids.size() != count) {
        BERTH_TRY(writer.finish()); // (says why git stopped)
        return results;
      }
    }
    size_t next = 0;
    for (const auto& level : levels) {
      const size_t k = level.edit;
      Editing& e = all[k];
      size_t first = next;
      next += level.dirs.size();
      if (depth == 0) {
        results[k] = oids[first];
        continue;
      }
      for (const auto& dir : e.order) {
        if (depth_of(dir) != depth) continue;
        std::string parent = parent_of(dir), name = name_of(dir);
        bool set_by_change = e.named[parent].count(name) > 0;
        auto it = std::find(level.dirs.begin(), level.dirs.end(), dir);
        if (it == level.dirs.end()) {
          // Empty now: it goes, unless a change put a file in its place.
          if (!set_by_change) e.dirs[parent].erase(name);
          continue;
        }
        // A folder with files where a change left a file: not something a work tree can hold.
        if (set_by_change && e.present[dir]) {
          e.possible = false;
          break;
        }
        e.dirs[parent][name] =
            TreeEntry{"40000", name, oids[first + static_cast<size_t>(it - level.dirs.begin())]};
      }
    }
  }
  BERTH_TRY(writer.finish());
  return results;
}

} // namespace berth
