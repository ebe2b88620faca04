#include "core/porcelain.hpp"

#include "core/git.hpp"

#include <algorithm>
#include <cstdlib>

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

} // namespace berth
