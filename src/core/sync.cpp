// Sync: bring the target branch into a workspace (`berth sync`), by merge or rebase, with the
// agent's uncommitted work committed first; a sync killed half-way is undone by the next command.
#include "berth/berth.hpp"
#include "core/accept_steps.hpp"
#include "core/admin_files.hpp"
#include "core/behind.hpp"
#include "core/capture.hpp"
#include "core/crash_checks.hpp"
#include "core/lease.hpp"
#include "core/name.hpp"
#include "core/nested.hpp"
#include "core/pool.hpp"
#include "core/porcelain.hpp"
#include "core/registry.hpp"
#include "core/review.hpp"
#include "core/roots.hpp"
#include "core/trash.hpp"
#include "core/tree_claim.hpp"
#include "core/workspace_git.hpp"
#include "util/atomic_file.hpp"
#include "util/paths.hpp"
#include "util/process_info.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

namespace berth {

Result<Synced> sync_workspace(const Project& project, std::string_view name,
                              std::optional<std::string> onto, SyncMode mode) {
  // Busy while it syncs: a discard, a commit or another sync waits its turn (refused busy).
  Lease lease = BERTH_TRY(Lease::take(project, name, "sync"));
  const Workspace& w = lease.workspace();
  Synced s;
  s.name = w.name;
  std::string onto_commit;
  std::string label = onto.value_or("");
  if (onto) {
    auto r = BERTH_TRY(git_status_of(
        GitCall{{"rev-parse", "--verify", "-q", "--end-of-options", *onto + "^{commit}"},
                project.cwd(),
                {},
                {},
                util::Stream::pipe}));
    if (onto->empty() || onto->front() == '-' || !r.ok())
      return fail(ErrorCode::invalid_revision, fmt::format("unknown revision '{}'", *onto),
                  "name a branch or commit");
    onto_commit = chomp(r.out);
  } else {
    Target t = BERTH_TRY(find_target(project, w, std::nullopt));
    onto_commit = t.commit;
    label = t.branch;
  }
  s.onto = onto_commit;
  auto head = git(workspace_call(w, {"rev-parse", "--verify", "HEAD^{commit}"}));
  if (!head) BERTH_TRY(refuse_lost_branch(project, w)); // its branch deleted under it
  s.old_head = chomp(BERTH_TRY(std::move(head)).out);
  if (is_ancestor(project, onto_commit, s.old_head)) {
    s.up_to_date = true;
    s.new_head = s.old_head;
    return s;
  }
  // A sync killed half-way is undone by the next command (crash_checks.hpp): the marker says
  // where it started, what was staged then (so the undo gives back the index, not only the
  // files) and, once the agent's work is committed, from which commit it merges. An index git
  // cannot write as a tree (unmerged entries) is recorded as "": the undo then leaves it at HEAD.
  auto staged = git_status_of(workspace_call(w, {"write-tree"}));
  std::string staged_tree = staged && staged->ok() ? chomp(staged->out) : std::string();
  auto marked = BERTH_TRY(WorkspaceOp::begin(project, w, "sync",
                                             {{"start", s.old_head},
                                              {"onto", onto_commit},
                                              {"phase", "commit"},
                                              {"committed", ""},
                                              {"staged", staged_tree},
                                              {"synced_before", w.synced}}));
  // The agent's uncommitted work is committed first, so the merge can never mix with it.
  std::string committed = BERTH_TRY(
      commit_work_tree(project, w, fmt::format("berth: uncommitted work of {}", w.name), nullptr));
  BERTH_TRY(marked.update("committed", committed.empty() ? s.old_head : committed));
  BERTH_TRY(marked.update("phase", "merge"));
  GitCall call =
      mode == SyncMode::merge
          ? workspace_call(w, {"merge", "--no-edit", "-m",
                               fmt::format("berth sync: merge {} into {}", label, w.name),
                               onto_commit})
          : workspace_call(w, {"rebase", onto_commit});
  if (!has_identity(project)) call.env = berth_identity();
  auto result = BERTH_TRY(git_status_of(call));
  s.new_head = chomp(BERTH_TRY(git(workspace_call(w, {"rev-parse", "HEAD"}))).out);
  Registry registry(project.berth_dir());
  {
    auto lock = BERTH_TRY(registry.lock());
    if (auto record = BERTH_TRY(registry.load(name_slug(w.name)))) {
      record->synced = onto_commit;
      BERTH_TRY(registry.save(*record));
    }
  }
  if (!result.ok()) {
    auto unmerged =
        BERTH_TRY(git(workspace_call(w, {"diff", "--name-only", "-z", "--diff-filter=U"})));
    if (unmerged.out.empty()) {
      // Not a conflict (a git took the index meanwhile, say): the sync did not happen. Its
      // marker stays, so the next berth command puts the workspace back where it started (the
      // agent's work uncommitted again), as after a crash.
      marked.keep();
      Error e = git_error(call, result);
      e.hint = (e.hint.empty() ? "" : e.hint + "; ") +
               "the next berth command puts the workspace back where the sync started";
      return tl::unexpected(std::move(e));
    }
    s.conflicts =
        user_conflict_paths(project, split_z(unmerged.out), {s.new_head, onto_commit, s.old_head});
    // A result, not an error (exit 3 all the same): the agent resolves the conflicts there and
    // commits, or `sync --abort` undoes the sync exactly. Its marker stays for that, marked
    // unfinished so that no command takes it for a sync that died.
    BERTH_TRY(marked.update("phase", "unfinished"));
    marked.keep();
    return s;
  }
  return s;
}

Result<Synced> abort_sync(const Project& project, std::string_view name) {
  Lease lease = BERTH_TRY(Lease::take(project, name, "sync"));
  const Workspace& w = lease.workspace();
  Synced s;
  s.name = w.name;
  auto head = git(workspace_call(w, {"rev-parse", "--verify", "HEAD^{commit}"}));
  s.old_head = head ? chomp(head->out) : std::string();
  nlohmann::json undone = BERTH_TRY(abort_unfinished_sync(project, w));
  s.onto = undone.value("onto", "");
  s.new_head = undone.value("start", "");
  s.aborted = true;
  // What it was synced onto before, as the record said then.
  Registry registry(project.berth_dir());
  auto lock = BERTH_TRY(registry.lock());
  if (auto record = BERTH_TRY(registry.load(name_slug(w.name)))) {
    record->synced = undone.value("synced_before", "");
    BERTH_TRY(registry.save(*record));
  }
  return s;
}

} // namespace berth
