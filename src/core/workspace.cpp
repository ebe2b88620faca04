// The workspace lifecycle's shared ground: the recovery of what dead commands left
// (recover_interrupted) and the lookup of a workspace's record (load_record, load_workspace,
// find_workspace, open_workspace). The flows themselves: workspace_create.cpp (new),
// workspace_status.cpp (list, status), discard.cpp (discard), restore.cpp (restore).
//
// Every flow reads top to bottom: the reason for each step is written above it. Registry records
// change under the project lock; git work that runs the user's hooks happens outside it, so one
// slow workspace (or hook) never stalls the others: checkouts, deletions of whole trees, and also
// berth's own ref updates (`worktree add -b`, snapshot refs, branch deletions), which run the
// user's reference-transaction hook. The pattern: claim the record under the lock (creating or
// discarding, held by this process), release it, do the git work, take it again to finish.
#include "berth/berth.hpp"
#include "core/admin_files.hpp"
#include "core/behind.hpp"
#include "core/capture.hpp"
#include "core/crash_checks.hpp"
#include "core/discard.hpp"
#include "core/name.hpp"
#include "core/nested.hpp"
#include "core/pool.hpp"
#include "core/porcelain.hpp"
#include "core/ports.hpp"
#include "core/registry.hpp"
#include "core/roots.hpp"
#include "core/sandbox.hpp"
#include "core/setup.hpp"
#include "core/shadow.hpp"
#include "core/trash.hpp"
#include "core/tree_claim.hpp"
#include "core/workspace_create.hpp"
#include "core/workspace_git.hpp"
#include "util/atomic_file.hpp"
#include "util/parallel.hpp"
#include "util/paths.hpp"
#include "util/process_info.hpp"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <ctime>
#include <fcntl.h>
#include <fmt/format.h>
#include <functional>
#include <future>
#include <sys/stat.h>
#include <thread>
#include <tuple>
#include <unistd.h>

namespace berth {

// Records whose holder died (a crash, kill -9, a lost machine) are finished or undone here, so that
// a half-made or half-removed workspace is never shown as if it were whole.
Result<void> recover_interrupted(const Project& project) {
  Registry registry = registry_of(project);
  auto all = BERTH_TRY(registry.load_all());
  // The repository was moved (and `git worktree repair` run): records still name the old admin
  // dirs. Re-linked where git's links prove which tree is which, so that no existing workspace
  // is taken for a missing one; the others show as "unlinked" until `berth doctor --repair`.
  if (needs_relink(project, all)) {
    auto lock = BERTH_TRY(registry.lock());
    auto current = BERTH_TRY(registry.load_all());
    (void)relink_moved(project, current, Repair::no);
  }
  bool any = std::any_of(all.begin(), all.end(), [](const Workspace& w) {
    return held(w) && !util::process_alive(w.holder_pid, w.holder_start);
  });
  // A commit or sync that died half-way is finished or undone (its marker says which).
  settle_dead_ops(project, nullptr);
  // Temp files of writers that died (kill -9 mid-capture) go too: nobody else removes them.
  std::vector<std::string> cleaned;
  (void)stale_temp_files(project, Repair::yes, cleaned);
  if (!any) return {};
  // A dead creation or discard is taken over under the lock (the record held by this process,
  // so that no other command undoes it at the same time), and undone or finished after it: the
  // branch's deletion runs the user's reference-transaction hook, never under the lock. If this
  // process dies too, the next command takes it over again (each step can be done twice).
  std::vector<Workspace> undo, finish, revive;
  {
    auto lock = BERTH_TRY(registry.lock());
    for (auto& w : BERTH_TRY(registry.load_all())) {
      if (!held(w) || util::process_alive(w.holder_pid, w.holder_start)) continue;
      if (!record_problem(project, w).empty()) continue; // never acted on (doctor reports it)
      bool dead_run =
          !(w.state == State::creating || (w.state == State::discarding && !util::exists(w.path)));
      hold(w, w.state); // taken over: no other command acts on it meanwhile
      BERTH_TRY(registry.save(w));
      (dead_run ? revive : w.state == State::creating ? undo : finish).push_back(w);
    }
  }
  for (const auto& w : undo)
    roll_back(project, w, w.start.empty() ? w.base : w.start);
  // A run that died: what its end would have done. Non-files its command planted in the admin
  // dir moved aside first (the session's end reads HEAD), then its sandboxed session finished if
  // it left one (HEAD detached, objects in quarantine); the workspace is free. (Also a discard
  // that died before its tree left its place: the workspace is as it was, its snapshot in the
  // trash.) Outside the lock: rebuilding the index and moving the session's commits onto the
  // branch run the user's hooks (post-index-change, reference-transaction).
  for (auto w : revive) {
    if (util::is_directory(w.git_dir)) (void)repair_admin_files(w);
    (void)recover_confined_session(project, w);
    auto lock = BERTH_TRY(registry.lock());
    auto now = BERTH_TRY(registry.load(name_slug(w.name)));
    if (!now || now->holder_pid != static_cast<int>(::getpid())) continue; // not ours now
    w = *now;
    w.state = State::ready;
    w.holder_pid = 0;
    w.holder_start = 0;
    BERTH_TRY(registry.save(w));
    set_lock_reason(project, w, idle_lock_reason(w));
  }
  // The snapshot was taken before anything was removed; finish the removal.
  for (const auto& w : finish) {
    finish_discard(project, w);
    auto lock = BERTH_TRY(registry.lock());
    (void)registry.remove(name_slug(w.name));
  }
  return {};
}

// The record of `name`, as it is (an untrusted one with `invalid` set): for status.
Result<Workspace> load_record(const Project& project, std::string_view name) {
  BERTH_TRY(validate_name(name));
  auto record = BERTH_TRY(registry_of(project).load(name_slug(name)));
  if (!record || record->name != name)
    return fail(ErrorCode::not_found, fmt::format("no workspace named '{}'", name),
                "run `berth list` to see the workspaces");
  record->invalid = record_problem(project, *record);
  return *record;
}

Result<Workspace> load_workspace(const Project& project, std::string_view name) {
  auto record = BERTH_TRY(load_record(project, name));
  // Never acted on: whatever the command, nothing it names is touched.
  if (!record.invalid.empty())
    return fail(ErrorCode::record_mismatch,
                fmt::format("the record of workspace '{}' cannot be trusted: {}; berth will not "
                            "act on it",
                            name, record.invalid),
                fmt::format("nothing was changed; `berth doctor` lists the records berth does "
                            "not trust: fix or move aside {} (the files it names are left as they "
                            "are)",
                            registry_of(project).record_path(name_slug(name))));
  // A record from before berth kept roots: its root as far as it can be told.
  if (record.root.empty()) record.root = workspace_root_of(project, record);
  // A moved repository: where git's links prove the workspace is now, so that
  // diff, accept or run work before any listing has re-linked the record on disk (this may run
  // under the lock, which re-linking takes; a command that saves the record keeps it).
  if (needs_relink(project, {record}))
    if (auto moved = moved_workspace(project, BERTH_TRY(registry_of(project).load_all()), record)) {
      (void)repair_submodule_links(*moved); // their relative links still lead to the old place
      return *moved;
    }
  return record;
}

Result<Workspace> find_workspace(const Project& project, std::string_view name) {
  Workspace w = BERTH_TRY(load_workspace(project, name));
  // A workspace half made (or half removed) is not one to hand out: its files may not be all
  // there, and the creation may yet be undone.
  if (w.state == State::creating || w.state == State::discarding) {
    const char* what = w.state == State::creating ? "being created" : "being discarded";
    if (util::process_alive(w.holder_pid, w.holder_start))
      return fail(ErrorCode::busy,
                  fmt::format("workspace '{}' is {} (pid {})", w.name, what, w.holder_pid),
                  "wait for it to finish");
    return fail(ErrorCode::interrupted,
                fmt::format("workspace '{}' was {} by a berth command that died (pid {})", w.name,
                            what, w.holder_pid),
                "run `berth list` or `berth doctor --repair`: it finishes or undoes that command");
  }
  return w;
}

Result<Workspace> open_workspace(const Project& project, std::string_view name) {
  BERTH_TRY(recover_interrupted(project));
  return find_workspace(project, name);
}

} // namespace berth
