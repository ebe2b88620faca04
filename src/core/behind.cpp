#include "core/behind.hpp"

#include "util/paths.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace berth {

std::optional<Problem> gone_problem(const Workspace& w, const std::vector<WorktreeEntry>& listed) {
  bool known = std::any_of(listed.begin(), listed.end(),
                           [&](const WorktreeEntry& e) { return e.path == w.path; });
  bool directory = util::is_directory(w.path);
  if (known && directory) return std::nullopt;
  std::string fix = "berth discard " + w.name +
                    " (or `berth doctor --repair`; its committed work is kept in the trash)";
  if (!known)
    return Problem{"worktree_missing", w.name, w.path,
                   directory
                       ? fmt::format("workspace '{}': git has no worktree at {}", w.name, w.path)
                       : fmt::format("workspace '{}': its worktree was removed (git has "
                                     "none at {}, and the directory is gone)",
                                     w.name, w.path),
                   directory ? "berth discard " + w.name : fix};
  return Problem{"directory_missing", w.name, w.path,
                 fmt::format("workspace '{}': its directory {} is missing", w.name, w.path), fix};
}

void discard_gone(const Project& project, const std::vector<std::string>& names,
                  DoctorReport& report) {
  for (const auto& name : names) {
    auto done = discard_workspace(project, name, Force::no, Trash::yes);
    auto mine = [&](const Problem& p) {
      return p.name == name && (p.code == "worktree_missing" || p.code == "directory_missing");
    };
    if (!done) {
      for (auto& p : report.problems)
        if (mine(p)) p.message += fmt::format(" (repair failed: {})", done.error().message);
      continue;
    }
    report.problems.erase(std::remove_if(report.problems.begin(), report.problems.end(), mine),
                          report.problems.end());
    report.repaired.push_back(
        done->snapshot
            ? fmt::format("workspace '{}': its directory was gone; discarded (its commits are "
                          "kept as {}: `berth restore {}` brings them back)",
                          name, done->snapshot->ref, name)
            : fmt::format("workspace '{}': its directory was gone; discarded", name));
  }
}

} // namespace berth
