// Commit: record a workspace's work as a commit on its branch (`berth commit`), and the commit
// of the work tree that accept and sync share (commit_work_tree). HEAD moves by compare-and-swap,
// and a marker (crash_checks.hpp) lets the next command finish a commit killed half-way.
#include "berth/berth.hpp"
#include "core/capture.hpp"
#include "core/crash_checks.hpp"
#include "core/lease.hpp"
#include "core/porcelain.hpp"
#include "core/review.hpp"
#include "core/workspace_git.hpp"
#include "util/paths.hpp"

#include <fmt/format.h>

namespace berth {

Result<Committed> commit_workspace(const Project& project, std::string_view name,
                                   const std::string& message) {
  if (message.empty())
    return fail(ErrorCode::usage, "a commit needs a message",
                "berth commit NAME -m \"what changed\"");
  // Busy while it commits: two commits (or a commit and a sync or discard) never race on HEAD.
  Lease lease = BERTH_TRY(Lease::take(project, name, "commit"));
  const Workspace& w = lease.workspace();
  Committed c;
  c.name = w.name;
  c.commit = BERTH_TRY(commit_work_tree(project, w, message, &c.files));
  return c;
}

Result<std::string> commit_work_tree(const Project& project, const Workspace& w,
                                     const std::string& message, std::vector<FileChange>* files) {
  Captured now = BERTH_TRY(capture(project, w));
  BERTH_TRY(refuse_unrecordable(w, now));
  if (now.clean()) return std::string();
  if (files) *files = BERTH_TRY(changes_between(project, now.head, now.work_tree));
  std::string commit = BERTH_TRY(make_commit(project, now.work_tree, {now.head}, message));
  // HEAD and the index move in two git calls. A git at work in the workspace (or one that died)
  // holds the index: then HEAD does not move at all, so a refused commit changes nothing.
  if (std::string lock = util::join(w.git_dir, "index.lock"); util::exists(lock))
    return tl::unexpected(lock_error(lock, fmt::format("cannot commit in '{}'", w.name)));
  // A kill between the two calls would leave the index showing the reverse of the work: the
  // marker lets the next command finish it (crash_checks.hpp).
  auto marked = BERTH_TRY(WorkspaceOp::begin(project, w, "commit", {{"new_head", commit}}));
  // Compare-and-swap through HEAD: if the agent committed meanwhile, nothing is overwritten.
  BERTH_TRY(git(workspace_call(
      w, {"update-ref", "-m", "berth commit: " + w.name, "HEAD", commit, now.head})));
  // The index now lags behind HEAD; bring it level without touching a file. If that fails (a
  // git took the index meanwhile), HEAD goes back: the commit did not happen.
  if (auto level = git(workspace_call(w, {"reset", "-q", "--no-refresh"})); !level) {
    auto back = git_status_of(workspace_call(
        w, {"update-ref", "-m", "berth commit undone: " + w.name, "HEAD", now.head, commit}));
    if (!back || !back->ok()) {
      marked.keep(); // the next command or `doctor --repair` brings the index level
      Error e = level.error();
      e.hint = "the commit is made but the index lags behind it: run `berth doctor --repair`";
      return tl::unexpected(std::move(e));
    }
    return tl::unexpected(level.error());
  }
  (void)git_status_of(workspace_call(w, {"update-index", "-q", "--refresh"}));
  return commit;
}

} // namespace berth
