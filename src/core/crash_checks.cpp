#include "core/crash_checks.hpp"

#include "core/git.hpp"
#include "core/name.hpp"
#include "core/registry.hpp"
#include "core/workspace_git.hpp"
#include "util/paths.hpp"
#include "util/process_info.hpp"

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <dirent.h>
#include <fmt/format.h>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

namespace berth {

// Whether the commit `tip` is kept by the trash of workspace `name` (reachable from one of its
// snapshots): then deleting a branch that points at it loses nothing.
bool kept_in_trash(const Project& project, std::string_view name, const std::string& tip) {
  auto snapshots = list_snapshots(project, name);
  if (!snapshots) return false;
  for (const auto& snap : *snapshots) {
    auto r = git_status_of(repo_call(project, {"merge-base", "--is-ancestor", tip, snap.commit}));
    if (r && r->ok()) return true;
  }
  return false;
}

std::vector<Problem> interrupted_commands(const Project& project,
                                          const std::vector<Workspace>& records) {
  (void)project;
  std::vector<Problem> problems;
  for (const auto& w : records) {
    if (w.state != State::creating && w.state != State::discarding) continue;
    if (util::process_alive(w.holder_pid, w.holder_start)) continue; // still at work
    bool creating = w.state == State::creating;
    problems.push_back({creating ? "interrupted_creation" : "interrupted_discard", w.name, w.path,
                        fmt::format("workspace '{}': the berth command {} it died (pid {}); {}",
                                    w.name, creating ? "creating" : "discarding", w.holder_pid,
                                    creating ? "it is half made" : "its snapshot is in the trash"),
                        creating
                            ? "berth doctor --repair (undoes the creation; the name is free again)"
                            : "berth doctor --repair (finishes the discard; `berth restore " +
                                  w.name + "` brings it back)"});
  }
  return problems;
}

std::vector<Problem> orphan_branches(const Project& project, const std::vector<Workspace>& records,
                                     Repair repair, std::vector<std::string>& repaired) {
  std::vector<Problem> problems;
  // %(worktreepath): where the branch is checked out, if anywhere (git >= 2.23).
  auto listed = git_status_of(repo_call(
      project, {"for-each-ref", "--format=%(refname)%00%(objectname)%00%(worktreepath)%00",
                "refs/heads/berth/"}));
  if (!listed || !listed->ok()) return problems;
  std::set<std::string> recorded;
  for (const auto& w : records)
    recorded.insert("refs/heads/" + w.branch);
  auto fields = split_z(listed->out);
  for (size_t i = 0; i + 2 < fields.size(); i += 3) {
    std::string ref = chomp(fields[i]); // each record after the first starts with a newline
    const std::string& tip = fields[i + 1];
    if (recorded.count(ref) || !fields[i + 2].empty()) continue;
    std::string branch = ref.substr(std::string("refs/heads/").size());
    std::string name = branch.substr(std::string("berth/").size());
    if (repair == Repair::yes && kept_in_trash(project, name, tip)) {
      auto deleted = git_status_of(repo_call(project, {"update-ref", "-d", ref, tip}));
      if (deleted && deleted->ok()) {
        repaired.push_back(fmt::format(
            "deleted branch {} left by an interrupted discard (its commits are in the trash)",
            branch));
        continue;
      }
    }
    bool trashed = repair == Repair::yes || kept_in_trash(project, name, tip);
    problems.push_back(
        {"orphan_branch", name, "",
         fmt::format("branch {} belongs to no workspace{}: `berth new {}` and `berth restore {}` "
                     "refuse the name while it exists",
                     branch, trashed ? "" : " and holds commits the trash does not keep", name,
                     name),
         trashed && repair == Repair::no
             ? "berth doctor --repair (deletes it: its commits are in the trash)"
             : fmt::format("keep its commits under another name (git branch -m {} NEW) or delete "
                           "it (git branch -D {})",
                           branch, branch)});
  }
  return problems;
}

std::vector<Problem> stale_locks(const std::vector<Workspace>& records, Repair repair,
                                 std::vector<std::string>& repaired) {
  std::vector<Problem> problems;
  for (const auto& w : records) {
    if (w.git_dir.empty()) continue;
    for (const char* leaf : {"index.lock", "HEAD.lock"}) {
      std::string lock = util::join(w.git_dir, leaf);
      struct stat st;
      if (::lstat(lock.c_str(), &st) != 0) continue;
      // A git at work holds its lock open from creation to rename; a lock a second old that
      // nobody holds open is a dead git's. (The second covers git's close-then-rename.)
      if (st.st_mtime + 1 >= ::time(nullptr) || util::file_held_open(lock)) continue;
      if (repair == Repair::yes && ::unlink(lock.c_str()) == 0) {
        repaired.push_back(
            fmt::format("workspace '{}': removed {} left by a git that died", w.name, lock));
        continue;
      }
      problems.push_back(
          {"stale_lock", w.name, lock,
           fmt::format("workspace '{}': {} is left by a git that died; every git command there "
                       "fails until it goes",
                       w.name, lock),
           "berth doctor --repair (deletes it: no process holds it)"});
    }
  }
  return problems;
}

std::vector<Problem> stale_temp_files(const Project& project, Repair repair,
                                      std::vector<std::string>& repaired) {
  std::vector<Problem> problems;
  std::string dir = util::join(project.berth_dir(), "tmp");
  DIR* d = ::opendir(dir.c_str());
  if (!d) return problems;
  std::vector<std::string> stale;
  while (dirent* e = ::readdir(d)) {
    // berth names its temp files WHAT.PID.MORE (capture, nested, tree_edit): the writer's pid.
    std::string leaf = e->d_name;
    auto dot = leaf.find('.');
    if (leaf[0] == '.' || dot == std::string::npos) continue;
    char* end = nullptr;
    long pid = std::strtol(leaf.c_str() + dot + 1, &end, 10);
    if (pid <= 0 || *end != '.' || util::process_alive(static_cast<pid_t>(pid), 0)) continue;
    stale.push_back(util::join(dir, leaf));
  }
  ::closedir(d);
  for (const auto& path : stale) {
    if (repair == Repair::yes && (::unlink(path.c_str()) == 0 || util::remove_tree(path))) {
      repaired.push_back(fmt::format("removed temp file {} of a berth that died", path));
      continue;
    }
    problems.push_back({"stale_temp_file", "", path,
                        fmt::format("{} is a temp file of a berth command that died", path),
                        "berth doctor --repair (deletes it)"});
  }
  return problems;
}

} // namespace berth
