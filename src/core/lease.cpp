#include "core/lease.hpp"

#include "core/name.hpp"
#include "core/ports.hpp"
#include "core/registry.hpp"
#include "core/review.hpp"
#include "core/sandbox.hpp"
#include "core/workspace_git.hpp"
#include "util/atomic_file.hpp"
#include "util/process_info.hpp"

#include <fmt/format.h>
#include <unistd.h>
#include <utility>

namespace berth {

namespace {

// The parent of `pid` (field 4 of /proc/<pid>/stat, after the parenthesised command name); 0 if
// unknown.
pid_t parent_of(pid_t pid) {
  auto stat = util::read_file(fmt::format("/proc/{}/stat", pid));
  if (!stat) return 0;
  auto close = stat->rfind(')');
  if (close == std::string::npos || close + 4 > stat->size()) return 0;
  return static_cast<pid_t>(std::atol(stat->c_str() + close + 4));
}

bool is_ancestor(pid_t holder) {
  for (pid_t p = ::getppid(); p > 1; p = parent_of(p))
    if (p == holder) return true;
  return false;
}

} // namespace

Result<Lease> Lease::take(const Project& project, std::string_view name, std::string_view what) {
  Registry registry(project.berth_dir());
  auto lock = BERTH_TRY(registry.lock());
  Workspace w = BERTH_TRY(usable_workspace(project, name));
  if (held_alive(w)) {
    if (w.state == State::busy && is_ancestor(w.holder_pid))
      return Lease(project, std::move(w), State::busy, false);
    return tl::unexpected(busy_error(w, "wait for it to finish, then try again"));
  }
  // A run whose berth died mid-way (kill -9) may have left a sandboxed session: finish it.
  if (held(w)) (void)recover_confined_session(project, w);
  State previous = held(w) ? State::ready : w.state;
  // A run uses the workspace (its ports, its time of last use); a commit or a sync refused or
  // done leaves the record as it found it, but for what it changes itself (sync's `synced`).
  bool uses = what == "run";
  if (uses && w.port == 0) {
    auto others = BERTH_TRY(registry.load_all());
    w.port = BERTH_TRY(allocate_port_block(project, others));
  }
  int64_t last_used = w.last_used;
  hold(w, State::busy);
  if (uses) w.last_used = unix_now();
  BERTH_TRY(registry.save(w));
  set_lock_reason(project, w,
                  fmt::format("berth: workspace {} busy ({} pid {})", w.name, what, w.holder_pid));
  Lease lease(project, std::move(w), previous, true);
  lease.last_used_ = uses ? 0 : last_used;
  return lease;
}

Lease::Lease(Lease&& other) noexcept
    : project_(other.project_), workspace_(std::move(other.workspace_)), previous_(other.previous_),
      owned_(std::exchange(other.owned_, false)), last_used_(other.last_used_) {}

void Lease::release() {
  if (!std::exchange(owned_, false)) return;
  Registry registry(project_->berth_dir());
  auto lock = registry.lock();
  if (!lock) return;
  auto record = registry.load(name_slug(workspace_.name));
  if (!record || !*record) return;
  Workspace w = **record;
  // Not ours any more; or ours but no longer this lease's (pick's discard claimed it).
  if (w.holder_pid != static_cast<int>(::getpid()) || w.state != State::busy) return;
  w.state = previous_;
  w.holder_pid = 0;
  w.holder_start = 0;
  w.last_used = last_used_ != 0 ? last_used_ : unix_now();
  (void)registry.save(w);
  set_lock_reason(*project_, w, idle_lock_reason(w));
}

} // namespace berth
