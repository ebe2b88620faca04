#include "core/porcelain.hpp"

#include "core/git.hpp"

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
      int fields = r[0] == '1' ? 8 : 9;
      size_t pos = 0;
      for (int f = 0; f < fields && pos != std::string::npos; ++f) {
        pos = r.find(' ', pos);
        if (pos != std::string::npos) ++pos;
      }
      if (pos != std::string::npos) s.paths.push_back(r.substr(pos));
      if (r[0] == '2') ++i; // skip the original path
    } else if (r[0] == 'u') {
      ++s.conflicted;
      size_t pos = 0;
      for (int f = 0; f < 10 && pos != std::string::npos; ++f) {
        pos = r.find(' ', pos);
        if (pos != std::string::npos) ++pos;
      }
      if (pos != std::string::npos) s.paths.push_back(r.substr(pos));
    } else if (r[0] == '?') {
      ++s.untracked;
      if (r.size() > 2) s.paths.push_back(r.substr(2));
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

std::string trailer_value(const std::string& message, const std::string& key) {
  std::string prefix = key + ": ";
  std::string found;
  for (const auto& line : split_lines(message))
    if (line.rfind(prefix, 0) == 0) found = line.substr(prefix.size());
  return found;
}

} // namespace berth
