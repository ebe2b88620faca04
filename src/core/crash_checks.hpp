// What a berth command killed half-way (kill -9, a crash, a lost machine) leaves, as doctor sees
// and repairs it (docs/crashes.md). Each check returns the problems it found; with Repair::yes it
// settles what it safely can first and returns what is still wrong.
#pragma once

#include "berth/berth.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace berth {

/// Whether the commit `tip` is reachable from one of workspace `name`'s trash snapshots.
bool kept_in_trash(const Project& project, std::string_view name, const std::string& tip);

/// Records a dead berth command left half made or half removed (creating, discarding): with
/// repair they were already finished or undone (recover_interrupted runs first); reported else.
std::vector<Problem> interrupted_commands(const Project& project,
                                          const std::vector<Workspace>& records);

/// `berth/*` branches no record, worktree or snapshot accounts for: a discard killed between
/// removing the tree and deleting the branch left one, and `new`/`restore` of the name then fail
/// with branch_exists. Deleted by repair when the trash keeps their commits.
std::vector<Problem> orphan_branches(const Project& project, const std::vector<Workspace>& records,
                                     Repair repair, std::vector<std::string>& repaired);

/// git lock files (index.lock, HEAD.lock) in workspaces' admin dirs that no process holds open: a
/// git killed with berth left them, and every later git call there fails. Deleted by repair.
/// `min_age`: seconds a lock must be old (a git between closing and renaming it holds none); 0
/// when the git that made it is known dead.
std::vector<Problem> stale_locks(const std::vector<Workspace>& records, Repair repair,
                                 std::vector<std::string>& repaired, int min_age = 1);

/// Stale lock files of the shared repository that berth's own writes need: packed-refs.lock and
/// the `*.lock` files under refs/heads/berth/ and refs/berth/ (a git killed while deleting a
/// branch or moving a snapshot left them; every later ref write fails). Same test and `min_age`
/// as stale_locks. Deleted by repair.
std::vector<Problem> stale_repo_locks(const Project& project, Repair repair,
                                      std::vector<std::string>& repaired, int min_age = 1);

/// Temporary files berth's writers left in `<common>/berth/tmp` when killed (their writer is
/// dead). Deleted by repair and by the next command.
std::vector<Problem> stale_temp_files(const Project& project, Repair repair,
                                      std::vector<std::string>& repaired);

/// A commit or sync moves a workspace's HEAD, index and files in several git calls. It marks
/// itself first in `<common>/berth/ops/<slug>.<kind>.json` (its process, where HEAD started, what
/// it makes); the marker goes when the command returns. A marker whose process died is settled
/// by the next command (recover_interrupted) or `doctor --repair`: a commit whose HEAD moved is
/// finished (the index brought level), a sync whose merge did not complete is undone.
class WorkspaceOp {
public:
  /// kind "commit" (fields: new_head) or "sync" (start, onto, mode, phase "commit" | "merge",
  /// committed).
  static Result<WorkspaceOp> begin(const Project& project, const Workspace& w,
                                   const std::string& kind, nlohmann::json fields);
  WorkspaceOp(WorkspaceOp&& other) noexcept
      : path_(std::move(other.path_)), fields_(std::move(other.fields_)) {
    other.path_.clear();
  }
  WorkspaceOp& operator=(WorkspaceOp&&) = delete;
  ~WorkspaceOp();
  /// Record the next step (written atomically before it is taken).
  Result<void> update(const std::string& key, const std::string& value);
  /// Leave the marker for the next command or `doctor --repair` to settle (what it marks could
  /// not be finished or undone here).
  void keep() { path_.clear(); }

private:
  WorkspaceOp(std::string path, nlohmann::json fields)
      : path_(std::move(path)), fields_(std::move(fields)) {}
  Result<void> save() const;
  std::string path_;
  nlohmann::json fields_;
};

/// `sync --abort`: undo the sync of `w` that stopped on conflicts (its marker is kept with the
/// phase "unfinished"), as a dead sync is undone; the marker's fields (start, onto, committed,
/// synced_before). not_found when there is no unfinished sync, or its merge was committed since.
Result<nlohmann::json> abort_unfinished_sync(const Project& project, const Workspace& w);

/// Settle the markers of dead commits and syncs (see WorkspaceOp); what was done in `done`.
void settle_dead_ops(const Project& project, std::vector<std::string>* done);
/// The markers of dead commits and syncs, as problems (doctor without --repair).
std::vector<Problem> interrupted_ops(const Project& project);

/// Finish or undo what berth commands that died left (creating / discarding records, dead
/// runs). Takes the registry lock: never call it while holding it.
Result<void> recover_interrupted(const Project& project);

} // namespace berth
