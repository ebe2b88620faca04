// Trees discard moved aside into a `.trash` folder, on their way to deletion (or, by the pool
// filler, to recycling as a pool slot): whether one may go yet, its deletion, and the lock that
// keeps two deleters off the same folder.
#include "core/aside.hpp"

#include "core/git.hpp"
#include "core/pool.hpp"
#include "core/porcelain.hpp"
#include "core/trash.hpp"
#include "core/tree_claim.hpp"
#include "core/workspace_git.hpp"
#include "util/atomic_file.hpp"
#include "util/dir.hpp"
#include "util/paths.hpp"

#include <fmt/format.h>

namespace berth {

// The admin dir (<common>/worktrees/<id>) whose `gitdir` names the tree at `path`, or "".
std::string admin_dir_naming(const Project& project, const std::string& path) {
  std::string admin_root = util::join(project.common_dir(), "worktrees");
  std::string admin;
  for (const auto& e : util::DirEntries(admin_root)) {
    std::string name(e.name);
    auto gitdir = util::read_file(util::join(util::join(admin_root, name), "gitdir"));
    if (gitdir && chomp(*gitdir) == util::join(path, ".git")) admin = util::join(admin_root, name);
  }
  return admin;
}

std::string trash_dir(const Project& project) {
  return util::join(project.workspace_root(), ".trash");
}

std::string aside_may_go(const Project& project, const std::string& path) {
  // Never a tree a record still claims (a corrupt record, or a workspace made at that path).
  if (auto problem = aside_claim_problem(project, path); !problem.empty()) return problem;
  // Its snapshot whole: a prune racing the snapshot may have deleted objects before its ref
  // existed. A full look at the tree writes the work tree's objects again; what it cannot
  // rewrite (the commit itself) keeps the tree.
  std::string ref = aside_snapshot_ref(path);
  auto commit = git_status_of(repo_call(project, {"rev-parse", "--verify", "-q", ref}));
  if (ref.empty() || !commit || !commit->ok()) return {}; // no snapshot (--no-trash)
  if (snapshot_complete(project, chomp(commit->out))) return {};
  settle_aside(project, path, false);
  commit = git_status_of(repo_call(project, {"rev-parse", "--verify", "-q", ref}));
  if (commit && commit->ok() && snapshot_complete(project, chomp(commit->out))) return {};
  return fmt::format("its snapshot {} lost objects (a `git gc --prune=now` racing the discard?); "
                     "the tree is kept so that nothing is lost",
                     ref);
}

bool remove_aside(const Project& project, const std::string& path, SnapshotChecked checked) {
  if (util::basename(util::dirname(path)) != ".trash") return false;
  if (checked == SnapshotChecked::yes ? !aside_claim_problem(project, path).empty()
                                      : !aside_may_go(project, path).empty())
    return false;
  auto removed =
      git_status_of(repo_call(project, {"worktree", "remove", "--force", "--force", path}));
  if (removed && removed->ok()) return true;
  std::string admin = admin_dir_naming(project, path);
  if (!util::remove_tree(path)) return false;
  if (!admin.empty()) (void)util::remove_tree(admin);
  return true;
}

Result<util::FileLock> lock_trash(const Project& project) {
  if (auto made = util::make_dirs(pool_records_dir(project)); !made)
    return fail(ErrorCode::io_error, made.error());
  auto lock = util::FileLock::acquire(util::join(pool_records_dir(project), "reap.lock"));
  if (!lock) return fail(ErrorCode::io_error, lock.error());
  return std::move(*lock);
}

std::optional<util::FileLock> try_lock_trash(const Project& project) {
  if (!util::make_dirs(pool_records_dir(project))) return std::nullopt;
  auto lock = util::FileLock::try_acquire(util::join(pool_records_dir(project), "reap.lock"));
  if (!lock || !lock->has_value()) return std::nullopt;
  return std::move(**lock);
}

} // namespace berth
