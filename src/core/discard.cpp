// Discarding a workspace: `discard`, and the rest of one a crash interrupted (finish_discard).
#include "core/discard.hpp"

#include "berth/berth.hpp"
#include "core/admin_files.hpp"
#include "core/aside.hpp"
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
#include <dirent.h>
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

// A `git gc --prune=now` running meanwhile deletes objects the snapshot wrote before its ref
// existed (or between two of its git calls, which then fail). Checked now, while the workspace
// (tree, index, branch) is all there to take it again; a snapshot that cannot be made whole is
// dropped (a ref to missing objects also breaks the user's next gc) and the discard stops before
// anything is deleted.
Result<Snapshot> take_whole_snapshot(const Project& project, const Workspace& w, Content content) {
  constexpr int kAttempts = 4;
  Result<Snapshot> snap = fail(ErrorCode::git_failed, "no snapshot taken");
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    // Again without the shadow index, whose remembered trees may be the very objects pruned,
    // and right after the gc running now (the next one prunes only after its repack).
    if (attempt > 0) {
      discard_shadow(project, w);
      wait_for_running_gc(project);
    }
    snap = take_snapshot(project, w, content);
    // The user's hook said no: asking again gets the same answer.
    if (!snap && snap.error().code == ErrorCode::hook_refused) return snap;
    std::optional<Error> why;
    if (snap && snapshot_complete(project, snap->commit, &why)) return snap;
    if (snap) {
      (void)git_status_of(repo_call(project, {"update-ref", "-d", snap->ref, snap->commit}));
      // The error carries the check that found objects missing.
      Error lost = why ? std::move(*why) : Error{ErrorCode::git_failed, {}, {}, std::nullopt, {}};
      lost.code = ErrorCode::git_failed;
      lost.message = fmt::format("the snapshot of '{}' keeps losing objects (a `git gc "
                                 "--prune=now` running meanwhile?): nothing was deleted",
                                 w.name);
      lost.hint = "wait for the gc to finish, then discard again";
      snap = tl::unexpected(std::move(lost));
    }
  }
  return snap;
}

} // namespace

// The rest of a discard killed after its tree left its place (moved aside, or removed): the tree
// aside lets go of the branch (its HEAD detached, as discard does), and the branch goes when
// nothing else has it checked out and its commits are in the trash (or it never moved from the
// base). Without this a dead discard left `berth/NAME` behind: `new` and `restore` of the name
// failed with branch_exists, and doctor saw nothing.
void finish_discard(const Project& project, const Workspace& w) {
  std::string gitfile = util::read_file(util::join(w.git_dir, "gitdir")).value_or("");
  std::string aside = util::dirname(chomp(gitfile));
  // Killed between the two halves of the move aside (rename_worktree): the tree is in .trash,
  // but the admin dir still names its old place. The tree whose .git file names this admin dir
  // is it; the second half is done now (else `worktree remove` below would drop the admin dir
  // and leave the tree in .trash for ever, unseen by doctor and the deleter).
  if (!util::is_directory(aside) && util::is_directory(w.git_dir)) {
    std::string trash = util::join(util::dirname(w.path), ".trash");
    if (DIR* d = ::opendir(trash.c_str())) {
      while (dirent* e = ::readdir(d)) {
        std::string path = util::join(trash, e->d_name);
        if (e->d_name[0] == '.' || read_gitfile(path) != w.git_dir) continue;
        auto real = util::real_path(path);
        if (real && util::write_file_atomic(util::join(w.git_dir, "gitdir"),
                                            util::join(*real, ".git") + "\n")) {
          gitfile = util::join(*real, ".git");
          aside = *real;
        }
        break;
      }
      ::closedir(d);
    }
  }
  if (!gitfile.empty() && aside != w.path && util::is_directory(aside)) {
    Workspace moved = w;
    moved.path = aside;
    // As discard does for a tree it moves aside: submodule links made absolute for the deleter.
    (void)repair_submodule_links(moved);
    (void)git_status_of(workspace_call(
        moved, {"update-ref", "--no-deref", "-m", "berth: discarded", "HEAD", "HEAD"}));
  } else {
    (void)git_status_of(repo_call(project, {"worktree", "remove", "--force", "--force", w.path}));
  }
  std::string ref = "refs/heads/" + w.branch;
  auto tip = git_status_of(repo_call(project, {"rev-parse", "--verify", "-q", ref}));
  if (!tip || !tip->ok()) return;
  std::string commit = chomp(tip->out);
  if (auto list = worktrees(project))
    for (const auto& entry : *list)
      if (entry.branch == ref) return;
  if (commit == w.base || kept_in_trash(project, w.name, commit))
    (void)git_status_of(repo_call(project, {"update-ref", "-d", ref, commit}));
}

Result<Discarded> discard_workspace(const Project& project, std::string_view name, Force force,
                                    Trash trash) {
  BERTH_TRY(recover_interrupted(project));
  Registry registry = registry_of(project);
  Discarded d;
  // --force on a busy workspace stops what runs there first: the `berth run` holding it (which
  // passes the TERM on to its command's whole process group and then releases its lease), then
  // anything else still working inside the directory. Done before taking the lock, which the run
  // needs to release its lease.
  if (force == Force::yes) {
    Workspace current = BERTH_TRY(load_workspace(project, name));
    if (current.state == State::busy &&
        util::process_alive(current.holder_pid, current.holder_start)) {
      util::stop_processes({static_cast<pid_t>(current.holder_pid)}, 10000);
      if (util::is_directory(current.path))
        util::stop_processes(util::processes_working_in(current.path), 2000);
    }
  }
  auto lock = BERTH_TRY(registry.lock());
  Workspace w = BERTH_TRY(load_workspace(project, name));
  d.workspace = w;

  // A workspace in use stays, unless the user says otherwise.
  if (held_alive(w) && (w.state != State::busy || force == Force::no))
    return tl::unexpected(busy_error(w, w.state == State::busy
                                            ? "wait for it to finish, or pass --force"
                                            : "wait for it to finish"));
  // A lock the user put on the worktree is theirs to lift.
  bool locked = false;
  std::string reason = read_lock_reason(w, &locked);
  if (locked && reason.rfind(kLockReasonPrefix, 0) != 0)
    return fail(ErrorCode::locked,
                fmt::format("the worktree of '{}' is locked by someone else: {}", w.name,
                            reason.empty() ? "(no reason given)" : reason),
                fmt::format("unlock it first: git worktree unlock {}", w.path));

  // What is on disk decides what can be saved, and what may be deleted.
  bool symlinked = util::is_symlink(w.path);
  bool present = util::is_directory(w.path) && util::is_directory(w.git_dir);
  // A directory whose admin dir the record lost (a moved repository) holds work git cannot show:
  // it is never deleted, nor taken for a missing one.
  BERTH_TRY(refuse_unlinked(w));
  // Nor is a workspace that moved with the repository (a root inside the checkout) taken for a
  // missing one before its record is re-linked: its work would be split from its snapshot.
  if (!present && !symlinked && !moved_with_checkout(project, w).empty())
    return fail(ErrorCode::record_mismatch,
                fmt::format("workspace '{}' moved with the repository to {}; its record still "
                            "names {}",
                            w.name, moved_with_checkout(project, w), w.path),
                "run `berth doctor --repair` to re-link it, then discard again");
  // The record must be the tree's: never another workspace's tree, admin dir or the project.
  if (present) {
    auto records = BERTH_TRY(registry.load_all());
    BERTH_TRY(may_delete_tree(project, records, w));
  }
  // Its own root decides, not today's configuration: a workspace made under another
  // `workspace_root` is still berth's to delete.
  if ((present || symlinked) && !deletable_workspace_path(project, w)) {
    std::string root = workspace_root_of(project, w);
    return fail(ErrorCode::unsafe_path,
                fmt::format("workspace '{}' lies outside its workspace root ({}): berth will not "
                            "delete {}",
                            w.name, root.empty() ? project.workspace_root() : root, w.path),
                "move or delete that directory yourself, then run `berth discard` again");
  }

  // Claimed (discarding, held by this process), then the lock is released: the snapshot, the
  // tree's move and the branch's deletion run the user's hooks (reference-transaction,
  // post-index-change), and a slow one must not stop every other berth command. No other
  // command acts on a workspace a live process holds; if we die, the next command finishes the
  // discard once the tree has left its place, and frees the workspace before that.
  // A failure before anything is removed puts the record back exactly as it was.
  std::string record_file = registry.record_path(name_slug(w.name));
  std::string original = util::read_file(record_file).value_or("");
  hold(w, State::discarding);
  BERTH_TRY(registry.save(w));
  { auto released = std::move(lock); }
  auto restore_ready = [&] {
    auto relock = registry.lock();
    if (!relock) return;
    auto now = registry.load(name_slug(w.name));
    if (now && *now && (*now)->holder_pid == static_cast<int>(::getpid()) && !original.empty())
      (void)util::write_file_atomic(record_file, original);
  };
  auto give_up = [&](Error e) -> Result<Discarded> {
    restore_ready();
    return tl::unexpected(std::move(e));
  };

  // A FIFO or the like planted in its admin dir would hang every git call below: moved aside
  // (HEAD, the index and the links rebuilt from the record), so the work is saved as usual.
  if (present) {
    auto repaired = repair_admin_files(w);
    if (!repaired) return give_up(repaired.error());
    for (const auto& moved : *repaired)
      d.warnings.push_back(fmt::format("workspace '{}': {}", w.name, moved));
  }

  // Whether anything would be lost. With a snapshot, the snapshot itself answers (below), so the
  // tree is walked once, not twice; only --no-trash needs a status first.
  WorkspaceStatus before =
      present && trash == Trash::no ? status_of(project, w) : WorkspaceStatus{};
  // Its branch deleted behind berth's back while HEAD still names it: made again where HEAD last
  // was, so that the snapshot holds the commits and the staged and work-tree state as they are
  // (and the branch then goes as usual). With no commit to be found, the work is saved on top of
  // the base.
  if (auto lost = lost_branch(project, w); lost && lost->head_on_it) {
    std::string at = lost->commit.empty() ? w.base : lost->commit;
    if (auto made =
            make_branch_again(project, w, at, "berth discard: branch made again to save it");
        !made)
      return give_up(made.error());
    if (lost->commit.empty())
      d.warnings.push_back(fmt::format(
          "branch {} had been deleted and its last commit is unknown: the work is saved on top of "
          "the base",
          w.branch));
  }
  std::string tip_out;
  if (auto tip = git_status_of(
          repo_call(project, {"rev-parse", "--verify", "-q", "refs/heads/" + w.branch}));
      tip && tip->ok())
    tip_out = chomp(tip->out);
  d.unsaved_work = before.dirty || before.ahead > 0 || (!tip_out.empty() && tip_out != w.base);
  // A directory gone: its submodules' commits may still be in its admin dir, going with it.
  if (!present && trash == Trash::no && !d.unsaved_work)
    d.unsaved_work = modules_hold_own_commits(project, w, tip_out.empty() ? w.base : tip_out);
  if (trash == Trash::no && d.unsaved_work && force == Force::no)
    return give_up(Error{
        ErrorCode::unsaved_work,
        fmt::format(
            "workspace '{}' has work that --no-trash would lose ({} commit(s), {} changed file(s))",
            w.name, before.ahead,
            before.staged + before.modified + before.untracked + before.conflicted),
        "drop --no-trash to keep a snapshot, or add --force to lose it",
        std::nullopt,
        {}});

  // Ignored files (build output) are not saved; say how much goes, so nothing vanishes silently.
  // A tree left to the background deleter is counted there (a walk of the whole tree, which
  // discard does not wait for; `restore --list` shows the count); one deleted here is counted
  // while the snapshot is taken, each walk on its own core.
  // (Only with a helper to start: else nothing would ever delete the tree.)
  bool background = present && trash == Trash::yes && project.config().get_int("pool.size") > 0 &&
                    !project.helper().empty();
  if (auto warning = missing_helper_warning(project)) d.warnings.push_back(*warning);
  d.ignored_counted = !background;
  std::future<std::pair<uint64_t, uint64_t>> ignored;
  if (present && !background)
    ignored = std::async(std::launch::async, [&w] { return count_ignored(w.git_dir, w.path); });
  // Left to the deleter, they are still named when there are any (a quick look beside the
  // snapshot, not a count).
  std::future<bool> any_ignored;
  if (background)
    any_ignored = std::async(std::launch::async, [&w] { return has_ignored(w.git_dir, w.path); });

  // Snapshot before anything is removed: this is what `berth restore` brings back.
  if (trash == Trash::yes) {
    Content content = present ? Content::work_tree : Content::commits_only;
    auto snap = take_whole_snapshot(project, w, content);
    if (!snap) return give_up(snap.error());
    d.snapshot = *snap;
    test_kill_at("discard-snapshot");
    d.warnings.insert(d.warnings.end(), snap->warnings.begin(), snap->warnings.end());
    // Unsaved work: a tree or a history that differs from the base, or a nested repository's.
    d.unsaved_work = d.unsaved_work || !snap->nested.empty();
    auto trees = git_status_of(
        repo_call(project, {"rev-parse", snap->commit + "^{tree}", w.base + "^{tree}"}));
    if (trees && trees->ok()) {
      auto lines = split_lines(trees->out);
      d.unsaved_work =
          d.unsaved_work || snap->head != w.base || (lines.size() == 2 && lines[0] != lines[1]);
    }
    if (!present)
      d.warnings.push_back(
          snap->head == w.base && snap->nested.empty()
              ? std::string(symlinked ? "the workspace directory had been replaced by a symlink"
                                      : "the workspace directory was missing") +
                    " and no commit of its own was found (its branch gone, or never moved): "
                    "nothing was saved"
          : symlinked ? "the workspace directory had been replaced by a symlink: only its commits "
                        "were saved"
                      : "the workspace directory was missing: only its commits were saved");
  }
  if (ignored.valid()) std::tie(d.ignored_files, d.ignored_bytes) = ignored.get();
  if (any_ignored.valid()) d.ignored_present = any_ignored.get();

  // A symlink in place of the directory is removed itself; what it points to is never touched.
  if (symlinked) ::unlink(w.path.c_str());
  if (present) repoint_gitfile(w);
  // Move the tree aside (a rename), so the lock is released before the slow deletion.
  std::string doomed = w.path;
  if (present) {
    // Into the .trash folder of its own root (deletable_workspace_path made sure the path is a
    // direct child of it): a rename, never a copy across file systems.
    std::string aside =
        util::join(util::join(util::dirname(w.path), ".trash"),
                   d.snapshot ? aside_name(w.name, d.snapshot->ref)
                              : fmt::format("{}.{}.{}", name_slug(w.name), unix_now(), ::getpid()));
    if (util::make_dirs(util::dirname(aside)) &&
        (rename_worktree(w.git_dir, w.path, aside, "discard-moved") ||
         git_status_of(
             repo_call(project, {"worktree", "move", "--force", "--force", w.path, aside}))
             .map([](const util::ProcessResult& r) { return r.ok(); })
             .value_or(false)))
      doomed = aside;
  }
  if (doomed != w.path) {
    // The tree aside keeps its admin dir (the deleter's full look reads its index) but lets go
    // of the branch: a HEAD still on it would make git refuse the name to the next `new` or
    // `restore` ("already checked out") until the tree is deleted. HEAD is detached in place.
    Workspace aside = w;
    aside.path = doomed;
    // Its submodules' relative links (`git submodule` writes them so) no longer lead to their
    // modules from one level deeper: made absolute, so that the deleter's full look can read them.
    (void)repair_submodule_links(aside);
    (void)git_status_of(workspace_call(
        aside, {"update-ref", "--no-deref", "-m", "berth: discarded", "HEAD", "HEAD"}));
    // A root other than today's: the background deleter learns of it here.
    if (background) note_trash_root(project, util::dirname(w.path));
  }
  // Nothing to remove when git no longer has the worktree (removed or pruned behind berth's
  // back, the directory gone too): `git worktree remove` would refuse it for ever.
  bool registered = present || symlinked || git_has_worktree(project, w.path);
  if (doomed == w.path && registered) {
    auto removed =
        git_status_of(repo_call(project, {"worktree", "remove", "--force", "--force", w.path}));
    if (!removed) return give_up(removed.error());
    if (!removed->ok())
      return give_up(
          git_error(repo_call(project, {"worktree", "remove"}), *removed,
                    fmt::format("cannot remove workspace '{}': {}", w.name, chomp(removed->err))));
  }
  // The branch goes too, unless someone checked it out elsewhere; its commits are in the snapshot.
  if (!tip_out.empty()) {
    bool checked_out = false;
    if (auto list = worktrees(project))
      for (const auto& entry : *list)
        if (entry.branch == "refs/heads/" + w.branch && entry.path != doomed) checked_out = true;
    if (checked_out)
      d.warnings.push_back(
          fmt::format("branch {} is checked out in another worktree: kept", w.branch));
    else if (auto del = git_status_of(
                 repo_call(project, {"update-ref", "-d", "refs/heads/" + w.branch, tip_out}));
             !del || !del->ok())
      d.warnings.push_back(fmt::format("branch {} moved meanwhile: kept", w.branch));
  }
  {
    auto relock = BERTH_TRY(registry.lock());
    BERTH_TRY(registry.remove(name_slug(w.name)));
    discard_shadow(project, w);
  }

  if (doomed != w.path) {
    if (background) {
      // The tree is deleted by the background pool filler, which also refills the pool: discard
      // returns now, whatever the size of the tree.
      pool_refill_in_background(project);
    } else {
      // Not while a deleter (started when a pool was in use) works on the same folder.
      auto reaping = lock_trash(project);
      settle_aside(project, doomed, false);
      if (!remove_aside(project, doomed))
        d.warnings.push_back(fmt::format("could not delete {}; remove it by hand", doomed));
    }
  }
  return d;
}

} // namespace berth
