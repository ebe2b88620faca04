#include "core/crash_checks.hpp"

#include "core/git.hpp"
#include "core/name.hpp"
#include "core/registry.hpp"
#include "core/workspace_git.hpp"
#include "util/atomic_file.hpp"
#include "util/dir.hpp"
#include "util/paths.hpp"
#include "util/process_info.hpp"

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <optional>
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
    std::string ref = fields[i]; // each record after the first starts with a newline
    if (!ref.empty() && ref.front() == '\n') ref.erase(0, 1);
    const std::string& tip = fields[i + 1];
    if (recorded.count(ref) || !fields[i + 2].empty()) continue;
    std::string branch = ref.substr(std::string("refs/heads/").size());
    std::string name = branch.substr(std::string("berth/").size());
    bool trashed = kept_in_trash(project, name, tip);
    if (repair == Repair::yes && trashed) {
      GitCall del = repo_call(project, {"update-ref", "-d", ref, tip});
      auto deleted = git_status_of(del);
      if (deleted && deleted->ok()) {
        repaired.push_back(fmt::format(
            "deleted branch {} left by an interrupted discard (its commits are in the trash)",
            branch));
        continue;
      }
      // Say what is in the way (a lock a live git holds, or one too young to judge) rather than
      // send the user to `git branch -D`, which fails the same way.
      Error why = deleted ? git_error(del, *deleted) : deleted.error();
      problems.push_back(
          {why.code == ErrorCode::index_lock ? "stale_lock" : "orphan_branch", name,
           why.paths.empty() ? std::string() : why.paths.front(),
           fmt::format("branch {} belongs to no workspace and could not be deleted: {}", branch,
                       why.message),
           why.hint.empty() ? "run `berth doctor --repair` again" : why.hint});
      continue;
    }
    problems.push_back(
        {"orphan_branch", name, "",
         fmt::format("branch {} belongs to no workspace{}: `berth new {}` and `berth restore {}` "
                     "refuse the name while it exists",
                     branch, trashed ? "" : " and holds commits the trash does not keep", name,
                     name),
         trashed
             ? "berth doctor --repair (deletes it: its commits are in the trash)"
             : fmt::format("keep its commits under another name (git branch -m {} NEW) or delete "
                           "it (git branch -D {})",
                           branch, branch)});
  }
  return problems;
}

namespace {

// A git at work holds its lock open from creation to rename; a lock `min_age` old that nobody
// holds open is a dead git's. (The age covers git's close-then-rename.)
bool lock_is_stale(const std::string& lock, int min_age) {
  struct stat st;
  if (::lstat(lock.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  return st.st_mtime + min_age <= ::time(nullptr) && !util::file_held_open(lock);
}

// The `*.lock` files under `dir`, at any depth (a berth name may hold slashes).
void locks_under(const std::string& dir, std::vector<std::string>& found) {
  std::error_code ec;
  auto it = std::filesystem::recursive_directory_iterator(dir, ec);
  for (; !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    const std::string path = it->path().string();
    if (path.size() > 5 && path.compare(path.size() - 5, 5, ".lock") == 0 &&
        it->is_regular_file(ec))
      found.push_back(path);
  }
}

} // namespace

std::vector<Problem> stale_locks(const std::vector<Workspace>& records, Repair repair,
                                 std::vector<std::string>& repaired, int min_age) {
  std::vector<Problem> problems;
  for (const auto& w : records) {
    if (w.git_dir.empty()) continue;
    for (const char* leaf : {"index.lock", "HEAD.lock"}) {
      std::string lock = util::join(w.git_dir, leaf);
      if (!lock_is_stale(lock, min_age)) continue;
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

std::vector<Problem> stale_repo_locks(const Project& project, Repair repair,
                                      std::vector<std::string>& repaired, int min_age) {
  // Only the locks of what berth writes in the shared repository: packed-refs (every ref
  // deletion rewrites it) and the refs of berth's branches and trash. The user's own locks (the
  // main index.lock, their branches') are theirs to judge.
  std::vector<std::string> locks{util::join(project.common_dir(), "packed-refs.lock")};
  locks_under(util::join(project.common_dir(), "refs/heads/berth"), locks);
  locks_under(util::join(project.common_dir(), "refs/berth"), locks);
  std::vector<Problem> problems;
  for (const auto& lock : locks) {
    if (!lock_is_stale(lock, min_age)) continue;
    if (repair == Repair::yes && ::unlink(lock.c_str()) == 0) {
      repaired.push_back(fmt::format("removed {} left by a git that died", lock));
      continue;
    }
    problems.push_back({"stale_lock", "", lock,
                        fmt::format("{} is left by a git that died; berth cannot create, delete "
                                    "or move a branch or trash snapshot until it goes",
                                    lock),
                        "berth doctor --repair (deletes it: no process holds it)"});
  }
  return problems;
}

std::vector<Problem> stale_temp_files(const Project& project, Repair repair,
                                      std::vector<std::string>& repaired) {
  std::vector<Problem> problems;
  std::string dir = util::join(project.berth_dir(), "tmp");
  util::DirEntries entries(dir);
  if (!entries.is_open()) return problems;
  std::vector<std::string> stale;
  for (const auto& e : entries) {
    // berth names its temp files WHAT.PID.MORE (capture, nested, tree_edit): the writer's pid.
    std::string leaf(e.name);
    auto dot = leaf.find('.');
    if (leaf[0] == '.' || dot == std::string::npos) continue;
    char* end = nullptr;
    long pid = std::strtol(leaf.c_str() + dot + 1, &end, 10);
    if (pid <= 0 || *end != '.' || util::process_alive(static_cast<pid_t>(pid), 0)) continue;
    stale.push_back(util::join(dir, leaf));
  }
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

// ---- commit and sync markers ------------------------------------------------------------------

namespace {

std::string ops_dir(const Project& project) {
  return util::join(project.berth_dir(), "ops");
}

std::string op_path(const Project& project, const std::string& name, const std::string& kind) {
  return util::join(ops_dir(project), fmt::format("{}.{}.json", name_slug(name), kind));
}

struct DeadOp {
  std::string file;
  nlohmann::json j;
};

std::vector<DeadOp> dead_ops(const Project& project) {
  std::vector<DeadOp> found;
  std::string dir = ops_dir(project);
  for (const auto& e : util::DirEntries(dir)) {
    std::string leaf(e.name);
    if (leaf.size() < 6 || leaf.compare(leaf.size() - 5, 5, ".json") != 0) continue;
    std::string file = util::join(dir, leaf);
    auto j = nlohmann::json::parse(util::read_file(file).value_or(""), nullptr, false);
    if (!j.is_object()) continue;
    // A sync that stopped on conflicts is finished by the agent (or `sync --abort`), not by
    // whichever command comes next.
    if (j.value("phase", "") == "unfinished") continue;
    if (util::process_alive(static_cast<pid_t>(j.value("pid", int64_t{0})),
                            j.value("pid_start", int64_t{0})))
      continue; // still at work
    found.push_back({file, j});
  }
  // Syncs first: a sync's undo covers the commit it started with.
  std::sort(found.begin(), found.end(), [](const DeadOp& a, const DeadOp& b) {
    return (a.j.value("op", "") == "sync") > (b.j.value("op", "") == "sync");
  });
  return found;
}

// Files a merge killed before it wrote the index left untracked: exactly those it added
// (present in `onto`, not in `head`) whose content on disk is onto's. Anything else is left.
void remove_merge_additions(const Workspace& w, const std::string& head, const std::string& onto) {
  auto added = git_status_of(workspace_call(
      w, {"diff", "--name-only", "-z", "--no-renames", "--diff-filter=A", head, onto, "--"}));
  if (!added || !added->ok()) return;
  for (const auto& rel : split_z(added->out)) {
    auto ours = git_status_of(workspace_call(w, {"hash-object", "--", rel}));
    auto theirs = git_status_of(workspace_call(w, {"rev-parse", onto + ":" + rel}));
    if (ours && ours->ok() && theirs && theirs->ok() && chomp(ours->out) == chomp(theirs->out))
      ::unlink(util::join(w.path, rel).c_str());
  }
}

std::string head_of(const Workspace& w) {
  auto now = git_status_of(workspace_call(w, {"rev-parse", "-q", "--verify", "HEAD"}));
  return now && now->ok() ? chomp(now->out) : "";
}

// A sync that died: back to exactly where it started (its commit of the agent's work undone
// too, the files left as they are), unless its merge or rebase completed (HEAD moved past the
// commit): then it is done.
std::optional<std::string> settle_sync(const Workspace& w, const nlohmann::json& j) {
  std::string start = j.value("start", ""), committed = j.value("committed", "");
  std::string onto = j.value("onto", "");
  bool merging = j.value("phase", "") == "merge";
  if (merging && util::exists(util::join(w.git_dir, "rebase-merge")))
    (void)git_status_of(workspace_call(w, {"rebase", "--abort"}));
  std::string head = head_of(w);
  if (merging) {
    if (head != committed) return ""; // the merge (or rebase) completed
    auto reset = git_status_of(workspace_call(w, {"reset", "-q", "--hard", committed}));
    if (!reset || !reset->ok()) return std::nullopt;
    remove_merge_additions(w, committed, onto);
  } else if (head != start) {
    // Killed while committing the agent's work: undone only if HEAD is that commit.
    auto parent = git_status_of(workspace_call(w, {"rev-parse", "-q", "--verify", "HEAD^"}));
    if (!parent || !parent->ok() || chomp(parent->out) != start) return "";
  }
  if (head_of(w) != start) {
    auto reset =
        git_status_of(workspace_call(w, {"reset", "-q", "--mixed", "--no-refresh", start}));
    if (!reset || !reset->ok()) return std::nullopt;
  }
  // What was staged when the sync began is staged again (the files are already as they were).
  if (std::string staged = j.value("staged", ""); !staged.empty()) {
    auto read = git_status_of(workspace_call(w, {"read-tree", staged}));
    if (!read || !read->ok()) return std::nullopt;
  }
  return fmt::format("undid the interrupted sync of workspace '{}'", w.name);
}

// One dead marker: HEAD where the command left it decides. What was done ("" for nothing);
// nullopt when git refused (the marker then stays, for doctor to report).
std::optional<std::string> settle_op(const Project& project, const DeadOp& dead) {
  std::string name = dead.j.value("workspace", "");
  auto record = Registry(project.berth_dir()).load(name_slug(name));
  if (!record || !*record || !util::is_directory((*record)->path)) return "";
  const Workspace& w = **record;
  // Its git, killed with it, left its locks (nobody holds them now: see stale_locks).
  std::vector<std::string> ignored;
  (void)stale_locks({w}, Repair::yes, ignored, 0);
  if (dead.j.value("op", "") == "sync") {
    ::unlink(op_path(project, name, "commit").c_str());
    return settle_sync(w, dead.j);
  }
  // A commit: HEAD moved to it, the index still shows the old HEAD (the reverse of the work);
  // brought level without touching a file, as the commit would have.
  std::string made = dead.j.value("new_head", "");
  if (made.empty() || head_of(w) != made) return "";
  auto reset = git_status_of(workspace_call(w, {"reset", "-q", "--no-refresh"}));
  if (!reset || !reset->ok()) return std::nullopt;
  return fmt::format("finished the interrupted commit in workspace '{}'", name);
}

} // namespace

Result<WorkspaceOp> WorkspaceOp::begin(const Project& project, const Workspace& w,
                                       const std::string& kind, nlohmann::json fields) {
  fields["version"] = 1;
  fields["op"] = kind;
  fields["workspace"] = w.name;
  fields["pid"] = static_cast<int64_t>(::getpid());
  fields["pid_start"] = util::process_start_time(::getpid());
  if (auto made = util::make_dirs(ops_dir(project)); !made)
    return fail(ErrorCode::io_error, made.error());
  WorkspaceOp op(op_path(project, w.name, kind), std::move(fields));
  BERTH_TRY(op.save());
  return op;
}

Result<void> WorkspaceOp::update(const std::string& key, const std::string& value) {
  fields_[key] = value;
  return save();
}

Result<void> WorkspaceOp::save() const {
  if (auto written = util::write_file_atomic(path_, fields_.dump() + "\n"); !written)
    return fail(ErrorCode::io_error, written.error());
  return {};
}

WorkspaceOp::~WorkspaceOp() {
  if (!path_.empty()) ::unlink(path_.c_str());
}

Result<nlohmann::json> abort_unfinished_sync(const Project& project, const Workspace& w) {
  std::string file = op_path(project, w.name, "sync");
  auto j = nlohmann::json::parse(util::read_file(file).value_or(""), nullptr, false);
  if (!j.is_object() || j.value("phase", "") != "unfinished" || j.value("workspace", "") != w.name)
    return fail(ErrorCode::not_found, fmt::format("workspace '{}' has no unfinished sync", w.name),
                "only a sync that stopped on conflicts can be aborted; nothing was changed");
  // Undone as a sync that died in its merge is: the merge (or rebase) abandoned, the files as
  // the agent left them, then HEAD and the branch back at the start, the index as staged then.
  nlohmann::json merging = j;
  merging["phase"] = "merge";
  auto undone = settle_sync(w, merging);
  if (!undone)
    return fail(ErrorCode::git_failed,
                fmt::format("could not undo the sync of workspace '{}'", w.name),
                "see `git status` in the workspace; `berth doctor` names what is in the way");
  ::unlink(file.c_str());
  if (undone->empty())
    return fail(ErrorCode::not_found,
                fmt::format("the sync of workspace '{}' was finished (its merge was committed): "
                            "nothing to abort",
                            w.name),
                "to drop the merge, reset the workspace's branch in the workspace (git reset)");
  return j;
}

void settle_dead_ops(const Project& project, std::vector<std::string>* done) {
  for (const auto& dead : dead_ops(project)) {
    if (!util::exists(dead.file)) continue; // settled with its sync
    auto what = settle_op(project, dead);
    if (!what) continue; // left for doctor to report
    if (done && !what->empty()) done->push_back(*what);
    ::unlink(dead.file.c_str());
  }
}

std::vector<Problem> interrupted_ops(const Project& project) {
  std::vector<Problem> problems;
  for (const auto& dead : dead_ops(project)) {
    std::string name = dead.j.value("workspace", "");
    bool commit = dead.j.value("op", "") == "commit";
    problems.push_back(
        {commit ? "interrupted_commit" : "interrupted_sync", name, dead.file,
         fmt::format("workspace '{}': a berth {} died half-way (pid {})", name,
                     commit ? "commit" : "sync", dead.j.value("pid", int64_t{0})),
         commit ? "berth doctor --repair (finishes it: the index is brought level with the commit)"
                : "berth doctor --repair (undoes it: the workspace as it was before the sync)"});
  }
  return problems;
}

} // namespace berth
