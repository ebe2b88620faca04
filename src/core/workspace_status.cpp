// What a workspace is like now: `list` and `status`.
#include "berth/berth.hpp"
#include "core/admin_files.hpp"
#include "core/behind.hpp"
#include "core/capture.hpp"
#include "core/crash_checks.hpp"
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

// The commits on a workspace's branch not in its base, read from the repository's refs alone.
static int branch_commits(const Project& project, const Workspace& w) {
  auto count = git_status_of(repo_call(project, agent_commits_args(w, "refs/heads/" + w.branch)));
  return count && count->ok() ? std::atoi(count->out.c_str()) : 0;
}

WorkspaceStatus status_of(const Project& project, const Workspace& w) {
  WorkspaceStatus s;
  s.workspace = w;
  s.last_used = w.last_used;
  // A record berth does not trust is never looked into (its path may be "/").
  if (!w.invalid.empty()) {
    s.state = "invalid";
    return s;
  }
  bool holder_alive = held(w) && util::process_alive(w.holder_pid, w.holder_start);
  s.state = holder_alive || w.state == State::landed ? std::string(state_name(w.state)) : "ready";
  bool locked = false;
  s.lock_reason = read_lock_reason(w, &locked);
  if (!util::is_directory(w.path) || !util::is_directory(w.git_dir)) {
    // A directory that is there is never "missing": its record lost track of its admin dir (or
    // of the directory itself, moved with the repository).
    // Without its directory: "missing" while git still has the worktree (`rm -rf` of the
    // directory), "removed" once git has none (`git worktree remove -ff`, or a prune): both are
    // cleaned up by `berth discard`, which keeps the branch's commits.
    if (!holder_alive)
      s.state = unlinked(w) || !moved_with_checkout(project, w).empty() ? "unlinked"
                : util::is_directory(w.git_dir)                         ? "missing"
                                                                        : "removed";
    // What discard would keep of it: its branch's commits (the branch lives in the repository's
    // refs, whatever happened to the folder, so it counts in every one of these states).
    s.ahead = branch_commits(project, w);
    return s;
  }
  // A FIFO (or a device, a directory...) planted where git expects a file would make the git
  // calls below wait forever: such a workspace is shown for what it is, and not looked into
  // (its branch lives in the repository's refs, out of the workspace's reach: its commits count).
  if (auto hostile = hostile_admin_files(w.git_dir); !hostile.empty()) {
    if (!holder_alive) s.state = "hostile";
    s.problem = describe_hostile(hostile);
    s.dirty = true;
    s.counted = false;
    s.ahead = branch_commits(project, w);
    return s;
  }
  for (const char* file : {"index", "HEAD", "logs/HEAD"}) {
    struct stat st;
    if (::stat(util::join(w.git_dir, file).c_str(), &st) == 0)
      s.last_used = std::max<int64_t>(s.last_used, st.st_mtime);
  }
  // Through the shadow index when the watcher can help: nothing is looked at when nothing
  // changed since the last look, only what changed otherwise (git records what it learnt in the
  // shadow, never in the agent's index). Else a read-only query: GIT_OPTIONAL_LOCKS=0 keeps
  // status from taking index.lock under an agent.
  auto shadow = open_shadow(project, w);
  std::optional<Verdict> seen;
  if (shadow) {
    seen = look(project, w, *shadow);
    // A shadow git cannot read (a crash mid-copy): drop it and ask the plain way.
    if (!seen) discard_shadow(project, w);
  }
  if (!seen) seen = look_plain(project, w);
  bool have_status = seen.has_value();
  std::string status_out = seen ? seen->status : std::string();
  std::string counts_out = seen ? seen->counts : std::string();
  shadow.reset();
  if (have_status) {
    auto summary = parse_status_v2(status_out);
    s.head = summary.head;
    s.head_branch = summary.branch;
    s.staged = summary.staged;
    s.modified = summary.modified;
    s.untracked = summary.untracked;
    s.conflicted = summary.conflicted;
    s.dirty = summary.dirty();
    // Conflict markers left by `berth sync` are for the agent to resolve: say so.
    if (summary.conflicted > 0 && s.state == "ready") s.state = "conflicted";
    // Its branch deleted behind berth's back. With HEAD still naming it, git compares the work
    // tree with nothing: the counts say nothing then (its work is unknown, never clean). A HEAD
    // elsewhere costs one look at the ref.
    bool unborn = summary.head.empty() && summary.branch == w.branch;
    if ((s.state == "ready" || s.state == "conflicted") &&
        (unborn || (summary.branch != w.branch &&
                    !ref_exists(project, "refs/heads/" + w.branch).value_or(true)))) {
      s.state = "branch_missing";
      if (unborn) {
        s.staged = s.modified = s.untracked = s.conflicted = 0;
        s.dirty = true;
        s.counted = false;
        counts_out.clear();
      }
    }
  } else {
    // git could not look inside (a submodule whose links lead nowhere, a broken index): the
    // workspace may hold work, so it is never shown as clean.
    if (s.state == "ready") s.state = "unreadable";
    s.dirty = true;
    s.counted = false;
  }
  auto text = chomp(counts_out);
  if (auto tab = text.find('\t'); tab != std::string::npos) {
    s.behind = std::atoi(text.substr(0, tab).c_str());
    s.ahead = std::atoi(text.substr(tab + 1).c_str());
  }
  return s;
}

Result<std::vector<WorkspaceStatus>> list_workspaces(const Project& project) {
  BERTH_TRY(recover_interrupted(project));
  auto all = BERTH_TRY(registry_of(project).load_all());
  for (auto& w : all) {
    w.invalid = record_problem(project, w);
    if (w.root.empty()) w.root = workspace_root_of(project, w);
  }
  std::vector<WorkspaceStatus> result(all.size());
  // Each workspace costs a `git status`: run them side by side, as many as there are cores.
  util::parallel_for(all.size(), [&](size_t i) { result[i] = status_of(project, all[i]); });
  return result;
}

Result<WorkspaceStatus> workspace_status(const Project& project, std::string_view name) {
  BERTH_TRY(recover_interrupted(project));
  auto record = BERTH_TRY(load_record(project, name));
  return status_of(project,
                   record.invalid.empty() ? BERTH_TRY(load_workspace(project, name)) : record);
}

} // namespace berth
