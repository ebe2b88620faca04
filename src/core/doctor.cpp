// Doctor: what is wrong with the project's workspaces, and with --repair, what is put right:
// interrupted accepts finished or rolled back, crash leftovers settled, records re-linked.
#include "berth/berth.hpp"
#include "core/accept_steps.hpp"
#include "core/admin_files.hpp"
#include "core/aside.hpp"
#include "core/behind.hpp"
#include "core/capture.hpp"
#include "core/crash_checks.hpp"
#include "core/lease.hpp"
#include "core/name.hpp"
#include "core/nested.hpp"
#include "core/plain.hpp"
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

// doctor --repair's ref updates, made without the project lock (a user's reference-transaction
// hook runs for each, and may take its time): each is a compare-and-swap on what was judged, so a
// command that changed a ref meanwhile makes the update fail rather than be undone by it.
// - Orphan branches, judged against records read now: a `new` claims its record (under the
//   lock) before its branch exists, and a branch that exists blocks every `new`/`restore` of it.
// - Branches deleted behind berth's back, made again only where none exists now, for records
//   not held by a live command since.
// - The trash's damaged or blocking refs, moved aside (created before the old one goes).
static void doctor_ref_repairs(const Project& project, const std::vector<Workspace>& branch_checks,
                               DoctorReport& report) {
  Registry registry(project.berth_dir());
  std::vector<Problem> ignored;
  auto now = registry.load_all(&ignored);
  if (now) {
    auto orphans = orphan_branches(project, *now, Repair::yes, report.repaired);
    report.problems.insert(report.problems.end(), orphans.begin(), orphans.end());
  }
  for (const auto& w : branch_checks) {
    auto fresh = registry.load(name_slug(w.name));
    if (!fresh || !*fresh) continue; // discarded meanwhile
    if (held(**fresh) && util::process_alive((*fresh)->holder_pid, (*fresh)->holder_start))
      continue; // a live command has it now
    check_branch(project, **fresh, Repair::yes, report);
  }
  check_trash(project, Repair::yes, report);
}

namespace {

// ---- the steps ---------------------------------------------------------------------------------

// One interrupted accept (its intent file, the accepting process dead): finished (the user asked
// for the change) unless the branch has moved elsewhere since, in which case the written paths
// are rolled back. Only the recorded paths are touched, and only where they hold exactly the old
// or the new content. Not under the project lock: this writes into the user's checkout and moves
// its HEAD (their hooks run); the dead intent itself keeps every other accept into that branch
// away, each path is written only where it holds the old or the new content, and HEAD moves by
// compare-and-swap. The intent goes last: a crash mid-way leaves it for the next --repair, which
// finds each path on one side or the other and does the rest. Without --repair: reported.
Result<void> settle_interrupted_accept(const Project& project, const std::string& file,
                                       Repair repair, DoctorReport& report) {
  Registry registry(project.berth_dir());
  auto loaded = load_intent(file);
  if (!loaded) {
    report.problems.push_back(
        {"intent_unreadable", "", file, loaded.error().message, loaded.error().hint});
    return {};
  }
  Intent in = *loaded;
  if (util::process_alive(in.pid, in.pid_start)) return {}; // still running
  std::string what = fmt::format("interrupted accept of '{}' into {} ({} file(s))", in.workspace,
                                 in.target, in.paths.size());
  if (repair == Repair::no) {
    std::string hint =
        "berth doctor --repair (finishes it, or rolls it back if " + in.target + " has moved since";
    // The dead accept's index.lock (IndexGuard) keeps the user's git from committing the
    // half-written checkout meanwhile: named, so that nobody takes it for a stray lock.
    struct stat st;
    auto gitdir = git_out(in.worktree, {"rev-parse", "--absolute-git-dir"});
    if (std::string guard = gitdir ? util::join(*gitdir, "index.lock") : std::string();
        !guard.empty() && ::stat(guard.c_str(), &st) == 0 && st.st_mtime + 1 >= in.time)
      hint += "; it also removes " + guard + ", which keeps git from committing there until then";
    report.problems.push_back({"interrupted_accept", in.workspace, in.worktree, what, hint + ")"});
    return {};
  }
  // The accept's own index.lock (IndexGuard), which keeps git from committing the half-written
  // checkout, and its copy of the index; a git killed with it leaves its lock too. Ours if no
  // older than the intent.
  std::string gitdir = BERTH_TRY(git_out(in.worktree, {"rev-parse", "--absolute-git-dir"}));
  std::string copy = util::join(gitdir, kAcceptIndexLeaf);
  // So does a ref transaction killed with it (the machine went down): HEAD's and the branch's.
  struct stat st;
  for (const auto& stale :
       {util::join(gitdir, "index.lock"), copy, copy + ".lock", util::join(gitdir, "HEAD.lock"),
        util::join(project.common_dir(), "refs/heads/" + in.target + ".lock")})
    if (::stat(stale.c_str(), &st) == 0 && st.st_mtime + 1 >= in.time) ::unlink(stale.c_str());

  std::string head = chomp(
      BERTH_TRY(git(GitCall{{"rev-parse", "HEAD"}, in.worktree, {}, {}, util::Stream::pipe})).out);
  bool forward = !in.moves_head || head == in.old_commit || head == in.new_commit;
  std::vector<std::string> left_alone;
  auto moved = BERTH_TRY(settle_paths(in, forward, &left_alone));
  if (forward && in.moves_head && head == in.old_commit) {
    GitCall finish{{"update-ref", "-m", "berth doctor: finish accept of " + in.workspace, "HEAD",
                    in.new_commit, in.old_commit},
                   in.worktree,
                   {},
                   {},
                   util::Stream::pipe};
    auto moved_head = BERTH_TRY(git_status_of(finish));
    // Refused because another `doctor --repair` finished it first: done all the same.
    if (!moved_head.ok() &&
        chomp(
            BERTH_TRY(git(GitCall{{"rev-parse", "HEAD"}, in.worktree, {}, {}, util::Stream::pipe}))
                .out) != in.new_commit)
      return tl::unexpected(git_error(finish, moved_head));
  }
  report.repaired.push_back(fmt::format("{}: {} ({} file(s) written)", what,
                                        forward ? "finished" : "rolled back", moved.size()));
  for (const auto& p : left_alone)
    report.problems.push_back(
        {"accept_path_changed", in.workspace, util::join(in.worktree, p),
         fmt::format("{}: {} was changed since; left as it is", in.worktree, p),
         "compare it with the workspace's version (`berth diff " + in.workspace +
             "`) and settle it by hand"});
  ::unlink(file.c_str());
  if (forward) {
    auto relock = BERTH_TRY(registry.lock());
    if (auto record = registry.load(name_slug(in.workspace)); record && *record) {
      (*record)->state = State::landed;
      (*record)->holder_pid = 0;
      (*record)->holder_start = 0;
      (*record)->landed_commit = in.new_commit.empty() ? in.old_commit : in.new_commit;
      (void)registry.save(**record);
    }
  }
  return {};
}

// What the look at the records leaves to be done once the project lock is released.
struct AfterLock {
  std::vector<Workspace> branch_checks; // records whose branch is checked (repaired) then
  std::vector<std::string> gone_names;  // workspaces --repair discards then
};

// One record against git and the disk (under the lock: no command changes what is judged here).
// Only judged: what --repair changes that runs the user's hooks (ref updates, discards) is left
// in `after` for when the lock is released.
void check_record(const Project& project, const Registry& registry,
                  const std::vector<Workspace>& records, const std::vector<WorktreeEntry>& entries,
                  const std::vector<Problem>& interrupted, const Workspace& w, Repair repair,
                  DoctorReport& report, AfterLock& after) {
  if (auto why = record_problem(project, w); !why.empty()) {
    report.problems.push_back(
        {"record_invalid", w.name, w.path,
         fmt::format("workspace '{}': its record cannot be trusted: {}; berth does not act on it",
                     w.name, why),
         fmt::format("fix or move aside its record under {} (the files it names are left as "
                     "they are)",
                     registry.dir())});
    return;
  }
  if (needs_relink(project, {w}) && util::exists(w.path)) return; // said above
  if (std::any_of(interrupted.begin(), interrupted.end(),
                  [&](const Problem& p) { return p.name == w.name; }))
    return; // said above: the half-made record is not a workspace to check
  // A live `new` or `discard` makes or removes its worktree and branch without the lock: a
  // workspace half made or half gone is theirs, not a problem.
  if ((w.state == State::creating || w.state == State::discarding) &&
      util::process_alive(w.holder_pid, w.holder_start))
    return;
  // A record that does not match git never gets a tree deleted: say which and why.
  if (util::exists(w.path)) {
    if (unlinked(w)) {
      report.problems.push_back(
          {"unlinked", w.name, w.path,
           fmt::format("workspace '{}': its directory {} is there but its git admin dir {} is "
                       "not; berth will not delete it",
                       w.name, w.path, w.git_dir),
           unlinked_advice(w)});
      return;
    }
    if (auto problem = tree_claim_problem(project, records, w); !problem.empty()) {
      report.problems.push_back(
          {"record_mismatch", w.name, w.path,
           fmt::format("workspace '{}': its record does not match git: {}", w.name, problem),
           "check the record (<git-common-dir>/berth/workspaces/) against `git worktree list`; "
           "berth leaves the directory alone"});
      return;
    }
  }
  check_gitfile(w, repair, report);
  // Submodule links a move of the repository broke (records re-linked by an older berth).
  if (repair == Repair::yes && util::is_directory(w.path))
    for (const auto& path : repair_submodule_links(w))
      report.repaired.push_back(
          fmt::format("workspace '{}': submodule {} re-linked to its module", w.name, path));
  // Removed or pruned behind berth's back (a live `new` or `discard` is not: it is at work).
  if (held(w) && util::process_alive(w.holder_pid, w.holder_start)) return;
  if (auto gone = gone_problem(project, w, entries)) {
    report.problems.push_back(*gone);
    // (Not when its whole root is gone: an unmounted disk comes back with the work on it.)
    if (repair == Repair::yes && !util::exists(w.path) && util::is_directory(util::dirname(w.path)))
      after.gone_names.push_back(w.name);
  } else if (repair == Repair::no) {
    check_branch(project, w, Repair::no, report);
  } else {
    after.branch_checks.push_back(w);
  }
}

// Worktrees locked by berth that no record claims. A tree discard moved aside into a `.trash`
// waits for the background deleter (pending, no problem); --repair deletes it only when no
// deleter is running (`deleter_running` takes the trash lock, held until doctor returns) and
// only once its snapshot is verified against a full look at it. Anything else is an orphan the
// user decides about.
template <class DeleterRunning>
void check_leftover_trees(const Project& project, const std::vector<Workspace>& records,
                          const std::vector<WorktreeEntry>& entries, Repair repair,
                          DoctorReport& report, DeleterRunning&& deleter_running) {
  // Discarded trees wait in the .trash folder of the root they lived in, whichever it is.
  auto roots = workspace_roots(project);
  auto in_trash = [&](const std::string& path) {
    std::string folder = util::dirname(util::lexically_normal(path));
    return util::basename(folder) == ".trash" &&
           std::find(roots.begin(), roots.end(), util::dirname(folder)) != roots.end();
  };
  for (const auto& e : entries) {
    if (!e.locked || e.lock_reason.rfind("berth", 0) != 0) continue;
    if (e.lock_reason.rfind("berth: pool slot", 0) == 0) continue; // the pool's, not orphans
    bool recorded = std::any_of(records.begin(), records.end(),
                                [&](const Workspace& w) { return w.path == e.path; });
    if (recorded) continue;
    if (in_trash(e.path)) {
      // A tree discard moved aside: it waits for the background deleter, which may be at work
      // right now. That is no problem. --repair deletes it only when the deleter is not running
      // and only once its own full look has verified the snapshot holds all of it.
      if (repair == Repair::no || deleter_running()) {
        report.pending.push_back(fmt::format("discarded tree {} waits for deletion", e.path));
        continue;
      }
      if (!settle_aside(project, e.path, true)) {
        report.problems.push_back(
            {"trash_unverified", "", e.path,
             fmt::format("discarded tree {} is kept: its snapshot could not be verified against it",
                         e.path),
             fmt::format(
                 "save what you need from it, then `git worktree remove --force --force {}`",
                 e.path)});
        continue;
      }
      if (auto why = aside_may_go(project, e.path); !why.empty()) {
        report.problems.push_back(
            {"trash_kept", "", e.path, fmt::format("{}: kept: {}", e.path, why),
             fmt::format(
                 "save what you need from it, then `git worktree remove --force --force {}`",
                 e.path)});
        continue;
      }
      if (remove_aside(project, e.path)) {
        report.repaired.push_back(fmt::format("removed leftover {} (snapshot verified)", e.path));
        continue;
      }
    }
    report.problems.push_back(
        {"orphan_worktree", "", e.path,
         fmt::format("worktree {} is locked by berth but has no workspace record", e.path),
         fmt::format("save what you need from it, then `git worktree remove --force --force {}`",
                     e.path)});
  }
}

} // namespace

// doctor = settle dead commands → settle interrupted accepts → under the lock: admin files,
// moved repository, crash leftovers, each record, leftover trees → after the lock: ref repairs,
// discards of workspaces gone behind berth's back. Each step is safe to run twice: a doctor that
// dies is finished by the next one.
Result<DoctorReport> doctor(const Project& project, Repair repair) {
  DoctorReport report;
  Registry registry(project.berth_dir());
  // What berth commands that died left half made or half removed is finished or undone first
  // (as the next command would), so the checks below see settled records.
  if (repair == Repair::yes) {
    settle_dead_ops(project, &report.repaired);
    BERTH_TRY(recover_interrupted(project));
  }
  for (const auto& file : intent_files(project))
    BERTH_TRY(settle_interrupted_accept(project, file, repair, report));
  // A plain folder: its interrupted accept (finished), a folder that moved (re-linked).
  if (project.plain()) BERTH_TRY(plain_doctor(project, repair, report));

  // Registry against git and the disk, under the lock: no command changes what is judged here.
  // Repairs that update refs (a user's reference-transaction hook runs for each) are made after
  // the lock is released, below; under it they are only judged.
  // Planted FIFOs and the like first: every git call below would wait on them. Before the lock:
  // rebuilding a workspace's index (`read-tree`) runs the user's post-index-change hook, which
  // may itself call berth. Left in place (no --repair), those `git worktree list` reads stop the
  // look below.
  doctor_admin_files(project, BERTH_TRY(registry.load_all()), repair, report);
  AfterLock after;
  auto lock = BERTH_TRY(registry.lock());
  auto records = BERTH_TRY(registry.load_all(&report.problems));
  doctor_aside_leftovers(project, records, repair, report);
  if (!admin_dir_blocking_list(project.common_dir()).empty()) return report;
  // A moved repository: records re-linked to the admin dirs git has now (with --repair, after
  // `git worktree repair` for trees whose .git file still names the old place). git's list of
  // worktrees is read after that repair.
  auto relinked = relink_moved(project, records, repair);
  report.repaired.insert(report.repaired.end(), relinked.relinked.begin(), relinked.relinked.end());
  report.problems.insert(report.problems.end(), relinked.problems.begin(), relinked.problems.end());
  auto entries = BERTH_TRY(worktrees(project));
  // Crash leftovers (docs/crashes.md): each check says what a dead command left, and settles it
  // under --repair.
  auto interrupted = interrupted_commands(project, records);
  auto append = [&](std::vector<Problem> found) {
    report.problems.insert(report.problems.end(), found.begin(), found.end());
  };
  append(interrupted);
  append(interrupted_ops(project));
  // The repository's ref locks first: deleting an orphan branch needs packed-refs.lock free.
  append(stale_repo_locks(project, repair, report.repaired));
  if (repair == Repair::no) append(orphan_branches(project, records, Repair::no, report.repaired));
  append(stale_locks(records, repair, report.repaired));
  append(stale_temp_files(project, repair, report.repaired));
  for (const auto& w : records)
    check_record(project, registry, records, entries, interrupted, w, repair, report, after);
  if (repair == Repair::no) check_trash(project, Repair::no, report);
  check_config(project, repair, report);
  check_work_tree_note(project, repair, report);
  // A deleter at work (the background one, or a `pool fill`) holds the trash lock; --repair
  // holds it itself while it deletes, so the two never settle the same tree at once.
  // (Taken only when there is a tree to look at: a healthy project is left exactly as it was.)
  std::optional<util::FileLock> reaping;
  bool tried_reaping = false;
  check_leftover_trees(project, records, entries, repair, report, [&] {
    if (!tried_reaping) {
      tried_reaping = true;
      if (auto held_now = try_lock_trash(project)) reaping.emplace(std::move(*held_now));
    }
    return !reaping.has_value();
  });
  // Repairs that are whole berth commands take the lock themselves.
  { auto released = std::move(lock); }
  if (repair == Repair::yes) doctor_ref_repairs(project, after.branch_checks, report);
  reaping.reset();
  discard_gone(project, after.gone_names, report);
  return report;
}

} // namespace berth
