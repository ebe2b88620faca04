// Restoring a discarded workspace from its trash snapshot: `restore`.
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

namespace {

// Whether `oid` names a commit that is in the object store.
bool have_commit(const Project& project, const std::string& oid) {
  if (oid.empty()) return false;
  auto r = git_status_of(repo_call(project, {"rev-parse", "--verify", "-q", oid + "^{commit}"}));
  return r && r->ok();
}

// A snapshot `doctor --repair` salvaged (refs/berth/damaged/...): its files but the lost ones,
// on those of its parents that were whole. Returns the staged state to restore (the salvaged
// index commit, found by its message; HEAD when it was lost: every change then shows unstaged),
// and drops from `snap` what is gone (the branch tip, the nested repositories), saying so in
// `warnings`. Fails when its HEAD is gone: there is no commit to make a workspace on.
Result<std::string> prepare_salvaged(const Project& project, Snapshot& snap,
                                     std::vector<std::string>& warnings) {
  if (!have_commit(project, snap.head) || !have_commit(project, snap.commit))
    return fail(ErrorCode::snapshot_damaged,
                fmt::format("what is left of the snapshot {} of '{}' cannot be a workspace: the "
                            "commit it was made on ({}) is missing too",
                            snap.ref, snap.name, snap.head.empty() ? "unknown" : snap.head),
                fmt::format("its files: `git archive {} | tar -x -C DIR`; `git log {}` shows "
                            "what else is left",
                            snap.ref, snap.ref));
  std::string staged;
  auto parents = git_status_of(
      repo_call(project, {"log", "--no-walk=unsorted", "--format=%H %s", snap.commit + "^@"}));
  if (parents && parents->ok())
    for (const auto& line : split_lines(parents->out))
      if (line.find(" berth index of ") != std::string::npos)
        staged = line.substr(0, line.find(' '));
  if (staged.empty()) {
    staged = snap.head;
    warnings.push_back("its staged state is lost: every change shows as not staged");
  }
  if (!snap.branch_tip.empty() && !have_commit(project, snap.branch_tip)) {
    warnings.push_back(fmt::format("its branch's commits up to {} are lost: the branch starts at "
                                   "its HEAD {}",
                                   snap.branch_tip.substr(0, 12), snap.head.substr(0, 12)));
    snap.branch_tip.clear();
  }
  if (!snap.nested.empty() && !have_commit(project, snap.nested)) {
    warnings.push_back("its submodules' and nested repositories' own work is lost");
    snap.nested.clear();
  }
  std::string shown;
  for (const auto& m : snap.missing)
    shown += (shown.empty() ? "" : ", ") + m;
  warnings.push_back(fmt::format(
      "restored from {}, what `berth doctor --repair` kept of a damaged snapshot: {}", snap.ref,
      shown.empty() ? std::string("nothing of its files is missing")
                    : "lost (missing from the object store): " + shown));
  return staged;
}

} // namespace

// restore's steps; restore_workspace names a full disk.
static Result<Restored> restore_steps(const Project& project, std::string_view name,
                                      std::optional<std::string> as,
                                      std::optional<std::string> from_ref,
                                      const SetupListener& on_setup) {
  BERTH_TRY(validate_name(name));
  if (as) BERTH_TRY(validate_name(*as));
  auto snapshots = BERTH_TRY(list_snapshots(project, name));
  // A ref under the name's prefix that holds no berth snapshot is not one of its snapshots.
  std::erase_if(snapshots, [](const Snapshot& s) { return s.state == "invalid"; });
  if (snapshots.empty())
    return fail(ErrorCode::not_found,
                fmt::format("no snapshot of workspace '{}' in the trash", name),
                "run `berth restore --list` to see what can be restored");
  // The newest good one; a copy `doctor --repair` salvaged of a damaged one (which lacks what was
  // lost) only when asked for, or when there is no good one. A newer damaged one is refused.
  auto chosen = snapshots.begin();
  if (from_ref) {
    chosen = std::find_if(snapshots.begin(), snapshots.end(),
                          [&](const Snapshot& s) { return s.ref == *from_ref; });
    if (chosen == snapshots.end())
      return fail(ErrorCode::not_found,
                  fmt::format("'{}' is not a snapshot of workspace '{}'", *from_ref, name),
                  fmt::format("run `berth restore --list {}` to see its snapshots", name));
  } else if (chosen->state == "salvaged") {
    auto good = std::find_if(snapshots.begin(), snapshots.end(),
                             [](const Snapshot& s) { return s.state != "salvaged"; });
    if (good != snapshots.end()) chosen = good;
  }
  Snapshot snap = *chosen;
  auto warnings = std::make_shared<std::vector<std::string>>();
  // Skipped for an older good one: said, so that nothing newer is forgotten.
  if (!from_ref && snap.state == "ok" && snapshots.front().state == "salvaged")
    warnings->push_back(fmt::format(
        "a newer copy, salvaged from a damaged snapshot (without {}), is {}: `berth restore {} "
        "--from {}` brings it back instead",
        snapshots.front().missing.empty()
            ? std::string("some files")
            : fmt::format("{} lost file(s)", snapshots.front().missing.size()),
        snapshots.front().ref, name, snapshots.front().ref));
  std::string staged;
  if (snap.state == "salvaged") staged = BERTH_TRY(prepare_salvaged(project, snap, *warnings));
  // Objects of the newest snapshot pruned or lost: nothing is made from half of it (what doctor
  // salvaged of one is whole in what it holds).
  else if (snap.state != "ok" || !snapshot_complete(project, snap.commit))
    return fail(ErrorCode::snapshot_damaged,
                fmt::format("the snapshot {} of '{}' cannot be restored: {}", snap.ref, name,
                            snap.problem.empty() ? "objects it needs are missing" : snap.problem),
                "run `berth doctor --repair`: it keeps what is left of it (`berth restore --list` "
                "names what is lost; `berth restore NAME --from REF` brings it back)");
  std::string start = snap.branch_tip.empty() ? snap.head : snap.branch_tip;
  auto checkout = BERTH_TRY(checkout_tuning(project));
  const auto& tuning = checkout.args;
  // The snapshot's tree becomes the work tree (tracked and untracked files, byte for byte), then
  // the index gets the staged state back, leaving HEAD on the branch's own commits.
  if (staged.empty()) staged = snap.index_commit.empty() ? snap.head : snap.index_commit;
  auto fill = fill_from_trees(tuning, snap.commit, staged);
  auto made_branch = std::make_shared<std::string>();
  Populate populate = [&project, fill, snap, staged, warnings,
                       made_branch](const Workspace& w, const std::string& from) -> Result<void> {
    BERTH_TRY(fill(w, from));
    return finish_restore(project, w, snap, staged, *warnings, *made_branch);
  };
  CreatePlan plan{as.value_or(std::string(name)),
                  snap.base,
                  start,
                  snap.owner,
                  populate,
                  on_setup,
                  false,
                  checkout.hooks_path,
                  {}};
  // A failed restore leaves nothing: the agent's branch it made again goes too, unless it moved
  // since (then it is someone's).
  plan.undo_populate = [&project, made_branch, head = snap.head] {
    if (!made_branch->empty())
      (void)git_status_of(repo_call(project, {"update-ref", "-d", *made_branch, head}));
  };
  Created created = BERTH_TRY(create(project, plan));
  created.warnings.insert(created.warnings.end(), checkout.warnings.begin(),
                          checkout.warnings.end());
  created.warnings.insert(created.warnings.end(), warnings->begin(), warnings->end());
  // After the workspace's setup (which checks its submodules out): their work, and the nested
  // repositories, on top.
  auto nested = restore_nested(project, created.workspace, snap.nested);
  created.warnings.insert(created.warnings.end(), nested.begin(), nested.end());
  return Restored{created.workspace, snap, created.warnings};
}

Result<Restored> restore_workspace(const Project& project, std::string_view name,
                                   std::optional<std::string> as, std::optional<std::string> from,
                                   const SetupListener& on_setup) {
  auto restored = restore_steps(project, name, std::move(as), std::move(from), on_setup);
  if (!restored) return tl::unexpected(blame_full_disk(restored.error(), "restore it again"));
  return restored;
}

} // namespace berth
