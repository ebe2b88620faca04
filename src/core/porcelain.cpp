#include "core/porcelain.hpp"

#include "core/git.hpp"
#include "util/atomic_file.hpp"
#include "util/mapped_file.hpp"
#include "util/paths.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fmt/format.h>
#include <sys/stat.h>

namespace berth {

StatusSummary parse_status_v2(const std::string& z_output) {
  StatusSummary s;
  auto records = split_z(z_output);
  for (size_t i = 0; i < records.size(); ++i) {
    const std::string& r = records[i];
    if (r.empty()) continue;
    if (r.rfind("# branch.oid ", 0) == 0) {
      std::string oid = r.substr(13);
      s.head = oid == "(initial)" ? "" : oid;
    } else if (r.rfind("# branch.head ", 0) == 0) {
      std::string head = r.substr(14);
      s.branch = head == "(detached)" ? "" : head;
    } else if (r[0] == '1' || r[0] == '2') {
      // "1 XY sub mH mI mW hH hI path" / "2 XY ... Xscore path" then origPath as its own record.
      if (r.size() < 4) continue;
      char x = r[2], y = r[3];
      if (x != '.') ++s.staged;
      if (y != '.') ++s.modified;
      // "<sub>" is "S<c><m><u>" for a gitlink: a new commit, modified and untracked content.
      if (r.size() > 8 && r[5] == 'S') {
        NestedChange n;
        n.gitlink = true;
        n.new_commit = r[6] == 'C';
        n.modified = r[7] == 'M';
        n.untracked = r[8] == 'U';
        s.nested.push_back(n); // its path is set below
      }
      bool gitlink = r.size() > 8 && r[5] == 'S';
      int fields = r[0] == '1' ? 8 : 9;
      size_t pos = 0;
      for (int f = 0; f < fields && pos != std::string::npos; ++f) {
        pos = r.find(' ', pos);
        if (pos != std::string::npos) ++pos;
      }
      if (pos != std::string::npos) {
        s.paths.push_back(r.substr(pos));
        if (y != '.') s.unstaged_paths.push_back(r.substr(pos));
        if (gitlink) s.nested.back().path = r.substr(pos);
      } else if (gitlink) {
        s.nested.pop_back();
      }
      if (r[0] == '2') ++i; // skip the original path
    } else if (r[0] == 'u') {
      ++s.conflicted;
      size_t pos = 0;
      for (int f = 0; f < 10 && pos != std::string::npos; ++f) {
        pos = r.find(' ', pos);
        if (pos != std::string::npos) ++pos;
      }
      if (pos != std::string::npos) {
        s.paths.push_back(r.substr(pos));
        s.unstaged_paths.push_back(r.substr(pos));
      }
    } else if (r[0] == '?') {
      ++s.untracked;
      if (r.size() > 2) {
        s.paths.push_back(r.substr(2));
        std::string path = r.substr(2);
        // With -uall only a folder holding its own repository is reported as a folder.
        if (path.size() > 1 && path.back() == '/') {
          path.pop_back();
          s.nested.push_back(NestedChange{path, false, false, false, false});
        }
        s.unstaged_paths.push_back(path);
      }
    } else if (r[0] == '!') {
      ++s.ignored;
    }
  }
  return s;
}

namespace {

uint32_t be32(std::string_view d, size_t at) {
  return static_cast<uint32_t>(static_cast<unsigned char>(d[at])) << 24 |
         static_cast<uint32_t>(static_cast<unsigned char>(d[at + 1])) << 16 |
         static_cast<uint32_t>(static_cast<unsigned char>(d[at + 2])) << 8 |
         static_cast<uint32_t>(static_cast<unsigned char>(d[at + 3]));
}

uint16_t be16(std::string_view d, size_t at) {
  return static_cast<uint16_t>(static_cast<unsigned char>(d[at]) << 8 |
                               static_cast<unsigned char>(d[at + 1]));
}

} // namespace

namespace {

// The walk parse_index and glance_index share, the way git's read-cache.c writes an index of
// version 2, 3 or 4: `on_entry(at, name)` for each entry (its fixed part at `at`; `name` valid
// during the call), then `on_extension(name, data)` for each extension. False for anything else
// (a split or a sparse index, anything malformed).
template <class OnEntry, class OnExtension>
bool walk_index(std::string_view d, size_t oid_bytes, OnEntry&& on_entry,
                OnExtension&& on_extension) {
  // "DIRC", version, entry count; the entries; extensions; the checksum (oid_bytes).
  if (oid_bytes == 0 || d.size() < 12 + oid_bytes || d.substr(0, 4) != "DIRC") return false;
  const uint32_t version = be32(d, 4);
  const uint32_t count = be32(d, 8);
  if (version < 2 || version > 4) return false;
  const size_t end = d.size() - oid_bytes;
  // Each entry: ctime, mtime (8 bytes each), dev, ino, mode, uid, gid, size (4 each), the oid,
  // 16 bits of flags (the name's length in the low 12, the stage in the next 2, "extended" in
  // bit 14: 16 more bits follow, version 3 and later), then the name: up to 3, NUL-ended, then
  // 0-7 more NULs to a multiple of 8; in 4, how many bytes of the previous entry's name to drop
  // (a varint), then what follows what is left of it, NUL-ended, no padding.
  const size_t fixed = 40 + oid_bytes + 2;
  if (count > (end - 12) / fixed) return false;
  size_t at = 12;
  std::string made; // (version 4: the entry's name, made from the previous one's)
  for (uint32_t i = 0; i < count; ++i) {
    if (at + fixed > end) return false;
    const uint16_t flags = be16(d, at + 40 + oid_bytes);
    size_t name_at = at + fixed;
    if (flags & 0x4000) {
      if (version < 3) return false;
      name_at += 2;
    }
    size_t drop = 0;
    if (version == 4) {
      // git's varint.c: 7 bits a byte, most significant first, each continuation adding one.
      if (name_at >= end) return false;
      auto c = static_cast<unsigned char>(d[name_at++]);
      drop = c & 127;
      while (c & 128) {
        if (name_at >= end || drop > (size_t{1} << 48)) return false;
        c = static_cast<unsigned char>(d[name_at++]);
        drop = ((drop + 1) << 7) + (c & 127);
      }
      if (drop > made.size()) return false;
    }
    const size_t nul = d.find('\0', name_at);
    if (nul == std::string_view::npos || nul >= end) return false;
    std::string_view tail = d.substr(name_at, nul - name_at);
    std::string_view full = tail;
    if (version == 4) {
      made.resize(made.size() - drop);
      made.append(tail);
      full = made;
    }
    if ((flags & 0x0fff) != std::min<size_t>(full.size(), 0x0fff) || full.empty()) return false;
    on_entry(at, full);
    at = version == 4 ? nul + 1 : at + (((name_at - at) + tail.size() + 8) & ~size_t{7});
    if (at > end) return false;
  }
  // The extensions: 4 bytes of name, 4 of size, the data.
  while (at < end) {
    if (end - at < 8) return false;
    std::string_view name = d.substr(at, 4);
    if (name == "link" || name == "sdir") return false;
    const size_t size = be32(d, at + 4);
    if (size > end - at - 8) return false;
    on_extension(name, d.substr(at + 8, size));
    at += 8 + size;
  }
  return true;
}

std::string hex_of(std::string_view raw) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(raw.size() * 2);
  for (char c : raw) {
    auto byte = static_cast<unsigned char>(c);
    hex += kHex[byte >> 4];
    hex += kHex[byte & 15];
  }
  return hex;
}

} // namespace

std::optional<std::vector<IndexEntry>> parse_index(std::string_view d, size_t oid_bytes) {
  std::vector<IndexEntry> entries;
  auto entry = [&](size_t at, std::string_view name) {
    IndexEntry e;
    e.mode = fmt::format("{:06o}", be32(d, at + 24));
    e.oid = hex_of(d.substr(at + 40, oid_bytes));
    e.stage = (be16(d, at + 40 + oid_bytes) >> 12) & 3;
    e.path = std::string(name);
    entries.push_back(std::move(e));
  };
  if (!walk_index(d, oid_bytes, entry, [](std::string_view, std::string_view) {}))
    return std::nullopt;
  return entries;
}

std::optional<IndexGlance> glance_index(std::string_view d, size_t oid_bytes,
                                        const std::set<std::string>& asked) {
  IndexGlance glance;
  std::set<std::string_view, std::less<>> wanted(asked.begin(), asked.end());
  auto entry = [&](size_t, std::string_view name) {
    if (wanted.empty()) return;
    if (auto it = wanted.find(name); it != wanted.end()) {
      glance.present.emplace(*it);
      wanted.erase(it);
    }
  };
  // The cache-tree ("TREE"): the whole index's entry first, as "" NUL, then "<entries> SP
  // <subtrees> LF" and, when the count is not -1 (something staged since), its tree's oid.
  auto extension = [&](std::string_view name, std::string_view data) {
    if (name != "TREE" || data.empty() || data.front() != '\0') return;
    size_t lf = data.find('\n');
    if (lf == std::string_view::npos || data.size() < lf + 1 + oid_bytes) return;
    if (data[1] == '-') return;
    glance.tree = hex_of(data.substr(lf + 1, oid_bytes));
  };
  if (!walk_index(d, oid_bytes, entry, extension)) return std::nullopt;
  return glance;
}

std::optional<IndexGlance> glance_index_file(const std::string& path, size_t oid_bytes,
                                             const std::set<std::string>& asked) {
  auto mapped = util::MappedFile::open(path);
  if (!mapped) return std::nullopt;
  return glance_index(mapped->bytes(), oid_bytes, asked);
}

std::vector<WorktreeEntry> parse_worktree_list(const std::string& z_output) {
  std::vector<WorktreeEntry> list;
  WorktreeEntry current;
  bool open = false;
  for (const auto& line : split_z(z_output)) {
    if (line.empty()) {
      if (open) list.push_back(std::move(current));
      current = WorktreeEntry{};
      open = false;
      continue;
    }
    auto space = line.find(' ');
    std::string key = line.substr(0, space);
    std::string value = space == std::string::npos ? "" : line.substr(space + 1);
    if (key == "worktree") {
      if (open) list.push_back(std::move(current));
      current = WorktreeEntry{};
      current.path = value;
      open = true;
    } else if (key == "HEAD") {
      current.head = value;
    } else if (key == "branch") {
      current.branch = value;
    } else if (key == "bare") {
      current.bare = true;
    } else if (key == "detached") {
      current.detached = true;
    } else if (key == "locked") {
      current.locked = true;
      current.lock_reason = value;
    } else if (key == "prunable") {
      current.prunable = true;
    }
  }
  if (open) list.push_back(std::move(current));
  return list;
}

std::vector<RawChange> parse_diff_raw(const std::string& z_output) {
  std::vector<RawChange> out;
  auto fields = split_z(z_output);
  for (size_t i = 0; i < fields.size(); ++i) {
    const std::string& head = fields[i];
    if (head.empty() || head[0] != ':') continue;
    // ":old_mode new_mode old_oid new_oid STATUS[score]"
    RawChange c;
    std::vector<std::string> parts;
    size_t start = 1;
    while (start <= head.size()) {
      size_t end = head.find(' ', start);
      if (end == std::string::npos) end = head.size();
      parts.push_back(head.substr(start, end - start));
      start = end + 1;
    }
    if (parts.size() < 5 || parts[4].empty() || i + 1 >= fields.size()) continue;
    c.old_mode = parts[0];
    c.new_mode = parts[1];
    c.old_oid = parts[2];
    c.new_oid = parts[3];
    c.status = parts[4][0];
    c.code = parts[4];
    if ((c.status == 'R' || c.status == 'C') && i + 2 < fields.size()) {
      c.old_path = fields[++i];
      c.path = fields[++i];
    } else {
      c.path = fields[++i];
    }
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<NumStat> parse_numstat(const std::string& z_output) {
  std::vector<NumStat> out;
  auto fields = split_z(z_output);
  for (size_t i = 0; i < fields.size(); ++i) {
    std::string record = fields[i];
    while (!record.empty() && record.front() == '\n')
      record.erase(0, 1);
    auto tab1 = record.find('\t');
    auto tab2 = tab1 == std::string::npos ? std::string::npos : record.find('\t', tab1 + 1);
    if (tab2 == std::string::npos) continue;
    NumStat n;
    std::string adds = record.substr(0, tab1), dels = record.substr(tab1 + 1, tab2 - tab1 - 1);
    if (adds != "-") n.additions = std::strtoll(adds.c_str(), nullptr, 10);
    if (dels != "-") n.deletions = std::strtoll(dels.c_str(), nullptr, 10);
    n.path = record.substr(tab2 + 1);
    if (n.path.empty() && i + 2 < fields.size()) { // a rename: old and new follow
      n.old_path = fields[++i];
      n.path = fields[++i];
    }
    out.push_back(std::move(n));
  }
  return out;
}

namespace {

// The NUL-terminated field at `at` (advanced past its NUL). False when no NUL ends it.
bool next_field(std::string_view s, size_t& at, std::string_view& field) {
  size_t nul = s.find('\0', at);
  if (nul == std::string_view::npos) return false;
  field = s.substr(at, nul - at);
  at = nul + 1;
  return true;
}

// A numstat count: digits, or "-" for a binary file (-1).
bool parse_count(std::string_view text, int64_t& count) {
  if (text == "-") {
    count = -1;
    return true;
  }
  if (text.empty() || text.size() > 18 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return false;
  count = 0;
  for (char c : text)
    count = count * 10 + (c - '0');
  return true;
}

// One pair's raw records (":old_mode new_mode old_oid new_oid STATUS[score]" NUL path NUL, a
// second path for a rename or copy), from `at` to the first byte that does not begin one. Where
// they end; nullopt when one is not of that form. `into` gets them.
std::optional<size_t> walk_raw(std::string_view s, size_t at, std::vector<RawChange>* into) {
  while (at < s.size() && s[at] == ':') {
    std::string_view head, path;
    if (!next_field(s, at, head) || !next_field(s, at, path) || path.empty()) return std::nullopt;
    std::vector<std::string_view> parts;
    for (size_t start = 1; start <= head.size();) {
      size_t end = std::min(head.find(' ', start), head.size());
      parts.push_back(head.substr(start, end - start));
      start = end + 1;
    }
    if (parts.size() != 5 || parts[4].empty()) return std::nullopt;
    RawChange c{std::string(parts[0]),
                std::string(parts[1]),
                std::string(parts[2]),
                std::string(parts[3]),
                parts[4][0],
                std::string(path),
                {},
                std::string(parts[4])};
    if (c.status == 'R' || c.status == 'C') {
      std::string_view to;
      if (!next_field(s, at, to) || to.empty()) return std::nullopt;
      c.old_path = std::move(c.path);
      c.path = std::string(to);
    }
    if (into) into->push_back(std::move(c));
  }
  return at;
}

// One pair's raw records then its numstat records ("ADDED TAB DELETED TAB path" NUL, or an empty
// path then the old and new paths), from `at` through the NUL that ends them. Where the records
// end (the patch begins); nullopt when they are not of that form. `into` gets them.
std::optional<size_t> walk_records(std::string_view s, size_t at, TreeDiff* into) {
  if (at >= s.size() || s[at] != ':') return std::nullopt;
  auto raw_end = walk_raw(s, at, into ? &into->raw : nullptr);
  if (!raw_end) return std::nullopt;
  at = *raw_end;
  while (at < s.size() && s[at] != '\0') {
    std::string_view record;
    if (!next_field(s, at, record)) return std::nullopt;
    size_t tab1 = record.find('\t');
    size_t tab2 = tab1 == std::string_view::npos ? tab1 : record.find('\t', tab1 + 1);
    NumStat n;
    if (tab2 == std::string_view::npos || !parse_count(record.substr(0, tab1), n.additions) ||
        !parse_count(record.substr(tab1 + 1, tab2 - tab1 - 1), n.deletions))
      return std::nullopt;
    n.path = std::string(record.substr(tab2 + 1));
    if (n.path.empty()) { // a rename: the old and the new path follow
      std::string_view from, to;
      if (!next_field(s, at, from) || !next_field(s, at, to) || from.empty() || to.empty())
        return std::nullopt;
      n.old_path = std::string(from);
      n.path = std::string(to);
    }
    if (into) into->numstat.push_back(std::move(n));
  }
  if (at >= s.size()) return std::nullopt; // no separator: the patch is missing
  return at + 1;
}

// Whether a line of `size` characters that are two object ids ("HEX HEX"), then a newline,
// begins at `at`.
bool is_header(std::string_view s, size_t at, size_t size) {
  if (size < 3 || size % 2 == 0 || at + size >= s.size() || s[at + size] != '\n') return false;
  size_t half = size / 2;
  for (size_t i = 0; i < size; ++i) {
    char c = s[at + i];
    bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
    if (i == half ? c != ' ' : !hex) return false;
  }
  return true;
}

} // namespace

std::optional<TreeDiff> parse_tree_diff(std::string_view body) {
  TreeDiff d;
  if (body.empty()) return d; // the same trees
  auto end = walk_records(body, 0, &d);
  if (!end) return std::nullopt;
  d.patch = std::string(body.substr(*end));
  // A patch of every changed path, whole: its first file's header, its last line ended.
  if (d.patch.rfind("diff --git ", 0) != 0 || d.patch.back() != '\n') return std::nullopt;
  return d;
}

std::optional<std::vector<std::string>> split_tree_diffs(std::string_view output,
                                                         const std::vector<std::string>& headers) {
  std::vector<std::string> bodies;
  size_t at = 0;
  for (size_t i = 0; i < headers.size(); ++i) {
    const std::string& header = headers[i];
    if (header.empty() || output.compare(at, header.size(), header) != 0 ||
        at + header.size() >= output.size() || output[at + header.size()] != '\n')
      return std::nullopt;
    at += header.size() + 1;
    size_t start = at;
    if (at < output.size() && output[at] == ':') {
      auto patch = walk_records(output, at, nullptr);
      if (!patch) return std::nullopt;
      // The patch runs to the next line that is a pair of object ids (no patch line is: each
      // begins with a keyword, a diff sign or a base85 length letter), which must be the next
      // pair's, or to the end after the last pair.
      at = *patch;
      while (at < output.size() && !is_header(output, at, header.size())) {
        size_t nl = output.find('\n', at);
        at = nl == std::string_view::npos ? output.size() : nl + 1;
      }
      if ((at == output.size()) != (i + 1 == headers.size())) return std::nullopt;
    }
    bodies.emplace_back(output.substr(start, at - start));
  }
  if (at != output.size()) return std::nullopt;
  return bodies;
}

std::optional<std::vector<std::vector<RawChange>>>
split_raw_diffs(std::string_view output, const std::vector<std::string>& headers) {
  std::vector<std::vector<RawChange>> pairs;
  size_t at = 0;
  for (const auto& header : headers) {
    if (header.empty() || output.compare(at, header.size(), header) != 0 ||
        at + header.size() >= output.size() || output[at + header.size()] != '\n')
      return std::nullopt;
    at += header.size() + 1;
    auto end = walk_raw(output, at, &pairs.emplace_back());
    if (!end) return std::nullopt;
    at = *end;
  }
  if (at != output.size()) return std::nullopt;
  return pairs;
}

std::string tree_diff_body(const TreeDiff& diff) {
  if (diff.raw.empty()) return {};
  std::string body;
  for (const auto& c : diff.raw) {
    body += fmt::format(":{} {} {} {} {}", c.old_mode, c.new_mode, c.old_oid, c.new_oid,
                        c.code.empty() ? std::string(1, c.status) : c.code);
    body += '\0';
    if (!c.old_path.empty()) body += c.old_path + '\0';
    body += c.path + '\0';
  }
  auto count = [](int64_t n) { return n < 0 ? std::string("-") : std::to_string(n); };
  for (const auto& n : diff.numstat) {
    body += count(n.additions) + '\t' + count(n.deletions) + '\t';
    if (n.old_path.empty())
      body += n.path + '\0';
    else
      body += std::string(1, '\0') + n.old_path + '\0' + n.path + '\0';
  }
  body += '\0';
  body += diff.patch;
  return body;
}

std::vector<std::string_view> patch_sections(std::string_view patch) {
  std::vector<std::string_view> sections;
  size_t start = std::string_view::npos;
  for (size_t at = 0; at < patch.size();) {
    size_t nl = patch.find('\n', at);
    size_t next = nl == std::string_view::npos ? patch.size() : nl + 1;
    if (patch.compare(at, 11, "diff --git ") == 0) {
      if (start != std::string_view::npos) sections.push_back(patch.substr(start, at - start));
      start = at;
    }
    at = next;
  }
  if (start != std::string_view::npos) sections.push_back(patch.substr(start));
  return sections;
}

MergePreview parse_merge_tree(const std::string& z_output) {
  MergePreview p;
  auto fields = split_z(z_output);
  if (fields.empty()) return p;
  p.tree = chomp(fields[0]);
  for (size_t i = 1; i < fields.size() && !fields[i].empty(); ++i) {
    if (std::find(p.conflicts.begin(), p.conflicts.end(), fields[i]) == p.conflicts.end())
      p.conflicts.push_back(fields[i]);
  }
  return p;
}

std::string trailer_value(const std::string& message, const std::string& key) {
  std::string prefix = key + ": ";
  // The first match: berth writes its trailers first and in a fixed order.
  for (const auto& line : split_lines(message))
    if (line.rfind(prefix, 0) == 0) return line.substr(prefix.size());
  return {};
}

std::optional<std::string> read_git_line(const std::string& path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  auto text = util::read_file(path); // (never waits: a FIFO put there meanwhile is refused)
  if (!text || text->empty() || text->back() != '\n') return std::nullopt;
  text->pop_back();
  return std::move(*text);
}

bool is_hex(std::string_view line) {
  return line.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

std::optional<std::string> read_loose_ref(const std::string& common_dir, const std::string& ref,
                                          size_t hex_len) {
  // (a name git would refuse, or one that would lead out of refs/: git decides)
  if (ref.rfind("refs/", 0) != 0 || ref.back() == '/' || ref.find("//") != std::string::npos ||
      ref.find("/.") != std::string::npos || ref.find('\\') != std::string::npos)
    return std::nullopt;
  auto line = read_git_line(util::join(common_dir, ref));
  if (!line || line->size() != hex_len || !is_hex(*line)) return std::nullopt;
  return line;
}

bool may_have_refs_under(const std::string& common_dir, const std::string& prefix) {
  struct stat st;
  if (::lstat(util::join(common_dir, "reftable").c_str(), &st) == 0) return true;
  std::string folder = prefix;
  while (!folder.empty() && folder.back() == '/')
    folder.pop_back();
  if (::lstat(util::join(common_dir, folder).c_str(), &st) == 0 || errno != ENOENT) return true;
  std::string packed = util::join(common_dir, "packed-refs");
  if (::lstat(packed.c_str(), &st) != 0) return errno != ENOENT;
  if (S_ISREG(st.st_mode) && st.st_size == 0) return false;
  auto mapped = util::MappedFile::open(packed);
  if (!mapped) return true;
  // "<oid> <refname>" lines (and "^<oid>" peeled ones): the prefix after a space.
  return mapped->bytes().find(" " + prefix) != std::string_view::npos;
}

} // namespace berth
