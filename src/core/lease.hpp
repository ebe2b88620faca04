// The lease: while a command changes a workspace (run, commit, sync), its record is `busy` and
// names the process, and its worktree lock says so. Every other command that would change the
// workspace (commit, sync, discard, accept, another run) sees a live holder and refuses `busy`
// (exit 5) instead of racing it: two commits moving HEAD at once, a sync whose tree a discard
// moves away, a discard that keeps a branch a commit moved under it.
#pragma once

#include "berth/berth.hpp"

#include <string>
#include <string_view>

namespace berth {

class Lease {
public:
  /// Take the lease on workspace `name` for `what` ("run", "commit", "sync"). Refused `busy`
  /// while a live process holds the workspace, unless that process is an ancestor of this one
  /// (a command started by `berth run` in its own workspace): that lease then stays its owner's
  /// and this one holds nothing.
  static Result<Lease> take(const Project& project, std::string_view name, std::string_view what);

  Lease(Lease&& other) noexcept;
  Lease& operator=(Lease&&) = delete;
  Lease(const Lease&) = delete;
  Lease& operator=(const Lease&) = delete;
  /// Gives the workspace back (its state before, not busy), if this process still holds it.
  ~Lease() { release(); }
  /// The same, now (once).
  void release();

  /// The workspace's record as the lease saved it.
  const Workspace& workspace() const { return workspace_; }

private:
  Lease(const Project& project, Workspace workspace, State previous, bool owned)
      : project_(&project), workspace_(std::move(workspace)), previous_(previous), owned_(owned) {}

  const Project* project_;
  Workspace workspace_;
  State previous_ = State::ready;
  bool owned_ = false;
  int64_t last_used_ = 0; ///< what to give back (0: the time of release, for a run)
};

} // namespace berth
