// Discarding a workspace: `discard`, and the rest of one a crash interrupted (finish_discard).
#include "core/discard.hpp"

#include "berth/berth.hpp"
#include "core/admin_files.hpp"
#include "core/aside.hpp"
#include "core/behind.hpp"
#include "core/capture.hpp"
#include "core/crash_checks.hpp"
#include "core/gc.hpp"
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
#include "core/tree_edit.hpp"
#include "core/watch.hpp"
#include "core/workspace_git.hpp"
#include "util/atomic_file.hpp"
#include "util/dir.hpp"
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
#include <map>
#include <sys/stat.h>
#include <thread>
#include <tuple>
#include <unistd.h>
#include <utility>

namespace berth {

namespace {

// A `git gc --prune=now` running meanwhile deletes objects the snapshot wrote before its ref
// existed (or between two of its git calls, which then fail). Checked now, while the workspace
// (tree, index, branch) is all there to take it again; a snapshot that cannot be made whole is
// dropped (a ref to missing objects also breaks the user's next gc) and the discard stops before
// anything is deleted.
// `hints`: what the caller read already (make_snapshot reads the rest). `trees` (when given)
// gets the snapshot's trees and its base's when the first check read them.
Result<Snapshot> take_whole_snapshot(const Project& project, const Workspace& w, Content content,
                                     const SnapshotHints& hints = {},
                                     std::optional<SnapshotTrees>* trees = nullptr) {
  constexpr int kAttempts = 4;
  Result<Snapshot> snap = fail(ErrorCode::git_failed, "no snapshot taken");
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    // Again without the shadow index, whose remembered trees may be the very objects pruned,
    // and right after the gc running now (the next one prunes only after its repack).
    if (attempt > 0) {
      discard_shadow(project, w);
      wait_for_running_gc(project);
    }
    snap = take_snapshot(project, w, content, hints);
    // The user's hook said no: asking again gets the same answer.
    if (!snap && snap.error().code == ErrorCode::hook_refused) return snap;
    // Checked as discard_workspaces checks its batch (three git calls, which read the trees
    // note_what_was_saved wants); when that finds something missing or cannot say, once more on
    // its own, which tells what is missing.
    if (snap && trees) {
      if (auto read = snapshots_complete(project, {&*snap}); read && read->size() == 1) {
        *trees = std::move(read->front());
        return snap;
      }
    }
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

// Whether the tree holds ignored files but set-up's, from its birth (TreeBirth): among the paths
// the watcher saw change since and those that left the index since, not by a walk of the tree.
// Nullopt when that cannot be told (no birth kept, the watcher cannot name the paths, set-up's
// paths narrower than then, too many paths): the caller walks.
// The index is read here, not by git: git's own read of a 50k-file index costs ~10 ms of CPU,
// twice (what left it, and which paths it tracks), beside the snapshot on its 2 cores. Its
// cache-tree, when valid, is its content as a tree: what left the index is a diff of two trees
// (none when it is still the birth's). Without one (something staged since), git is asked.
std::optional<bool>
ignored_since_birth(const Project& project, const Workspace& w,
                    const std::function<std::vector<std::string>()>& setup_paths_of) {
  constexpr size_t kMostPaths = 512; // a pathspec each: beyond, the walk is as quick
  auto birth = birth_of(project, w);
  if (!birth) return std::nullopt;
  auto root = util::real_path(w.path);
  if (!root) return std::nullopt;
  auto setup_made = std::async(std::launch::async, setup_paths_of); // (a git call)
  auto answer = watch_since(project.common_dir(), *root, birth->token);
  if (!answer) return std::nullopt;
  std::set<std::string> changed;
  bool first = true;
  for (auto& path : split_z(*answer)) {
    if (std::exchange(first, false)) continue; // the new token
    if (path == "/") return std::nullopt;      // anything may have changed
    // A folder's files are named too (made, or moved in, with all it holds).
    if (!path.empty() && path.back() != '/') changed.insert(std::move(path));
  }
  if (changed.size() > kMostPaths) return std::nullopt;
  auto index =
      glance_index_file(util::join(w.git_dir, "index"), project.null_oid().size() / 2, changed);
  std::optional<std::string> left; // NUL-separated
  if (index && !index->tree.empty() && index->tree == birth->tree) {
    left.emplace();
  } else if (index && !index->tree.empty()) {
    GitCall call = repo_call(
        project, {"diff-tree", "-r", "-z", "--name-only", "--no-renames", "--diff-filter=D",
                  birth->tree.empty() ? birth->commit : birth->tree, index->tree, "--"});
    if (auto diff = git_status_of(call); diff && diff->ok()) left = std::move(diff->out);
  } else {
    GitCall call = workspace_call(w, {"diff-index", "--cached", "-z", "--name-only", "--no-renames",
                                      "--diff-filter=D", birth->commit, "--"});
    call.env["GIT_OPTIONAL_LOCKS"] = "0";
    if (auto diff = git_status_of(call); diff && diff->ok()) left = std::move(diff->out);
  }
  std::vector<std::string> setup = setup_made.get();
  if (!left) return std::nullopt;
  for (const auto& then : birth->setup_paths)
    if (std::find(setup.begin(), setup.end(), then) == setup.end()) return std::nullopt;
  // What set-up made whole since (a clone at the take) is set-up's: not looked at.
  std::vector<std::string> paths;
  for (auto& path : changed)
    if (!made_whole_by_setup(path, setup)) paths.push_back(path);
  for (auto& path : split_z(*left))
    if (!made_whole_by_setup(path, setup)) paths.push_back(std::move(path));
  if (paths.size() > kMostPaths) return std::nullopt;
  if (!index || index->tree.empty())
    return any_untracked(w.git_dir, w.path, [&] { return setup; }, project.setup_source(),
                         {.ignored_only = true, .paths = std::move(paths)});
  // The files among them (not folders) that are there, untracked: the index has no entry for
  // them (those that left it have none), and git's rules ignore them.
  std::vector<std::string> untracked;
  std::map<std::string, struct stat> found;
  for (auto& path : paths) {
    struct stat st;
    if (index->present.contains(path) || ::lstat(util::join(w.path, path).c_str(), &st) != 0 ||
        S_ISDIR(st.st_mode))
      continue;
    found[path] = st;
    untracked.push_back(std::move(path));
  }
  auto ignored = ignored_by_rules(w, untracked);
  if (!ignored) return std::nullopt;
  return std::any_of(ignored->begin(), ignored->end(), [&](const std::string& path) {
    auto it = found.find(path);
    return !made_by_setup(path, it == found.end() ? nullptr : &it->second, setup,
                          project.setup_source());
  });
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
    for (const auto& e : util::DirEntries(trash)) {
      std::string path = util::join(trash, std::string(e.name));
      if (e.name[0] == '.' || read_gitfile(path) != w.git_dir) continue;
      auto real = util::real_path(path);
      if (real && util::write_file_atomic(util::join(w.git_dir, "gitdir"),
                                          util::join(*real, ".git") + "\n")) {
        gitfile = util::join(*real, ".git");
        aside = *real;
      }
      break;
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

// ---- the steps ---------------------------------------------------------------------------------

void stop_work_in(const Workspace& current) {
  // Held by this very process (pick holds its siblings' leases until it discards them): nothing
  // runs there, and the holder is not to be stopped.
  if (current.holder_pid == static_cast<int>(::getpid())) return;
  if (current.state == State::busy &&
      util::process_alive(current.holder_pid, current.holder_start)) {
    util::stop_processes({static_cast<pid_t>(current.holder_pid)}, 10000);
    if (util::is_directory(current.path))
      util::stop_processes(util::processes_working_in(current.path), 2000);
  }
}

DiscardClaim::DiscardClaim(Registry registry, Workspace held, Workspace as_found,
                           std::string record_file, std::string original)
    : registry_(std::move(registry)), held_(std::move(held)), as_found_(std::move(as_found)),
      record_file_(std::move(record_file)), original_(std::move(original)) {}

DiscardClaim::DiscardClaim(DiscardClaim&& other) noexcept
    : present(other.present), symlinked(other.symlinked), registry_(std::move(other.registry_)),
      held_(std::move(other.held_)), as_found_(std::move(other.as_found_)),
      record_file_(std::move(other.record_file_)), original_(std::move(other.original_)),
      armed_(std::exchange(other.armed_, false)) {}

DiscardClaim::~DiscardClaim() {
  if (!armed_) return;
  auto relock = registry_.lock();
  if (!relock) return;
  auto now = registry_.load(name_slug(held_.name));
  if (now && *now && (*now)->holder_pid == static_cast<int>(::getpid()) && !original_.empty())
    (void)util::write_file_atomic(record_file_, original_);
}

namespace {

// What a claim is to hold, checked under the project lock; nothing written yet.
struct ClaimPlan {
  Workspace held, as_found;
  std::string record_file, original;
  bool present = false, symlinked = false;
};

// What the claims of one batch share: the records, read once, and their real paths.
struct ClaimBatch {
  std::optional<std::vector<Workspace>> records;
  RealPaths real;
};

Result<ClaimPlan> plan_claim(const Project& project, const Registry& registry,
                             std::string_view name, Force force, ClaimBatch& batch) {
  Workspace w = BERTH_TRY(load_workspace(project, name));

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
    if (!batch.records) batch.records = BERTH_TRY(registry.load_all());
    BERTH_TRY(may_delete_tree(project, *batch.records, w, &batch.real));
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

  ClaimPlan plan;
  plan.record_file = registry.record_path(name_slug(w.name));
  plan.original = util::read_file(plan.record_file).value_or("");
  plan.as_found = w;
  hold(w, State::discarding);
  plan.held = std::move(w);
  plan.present = present;
  plan.symlinked = symlinked;
  return plan;
}

} // namespace

Result<DiscardClaim> claim_for_discard(const Project& project, std::string_view name, Force force) {
  return std::move(claims_for_discard(project, {std::string(name)}, force).front());
}

std::vector<Result<DiscardClaim>>
claims_for_discard(const Project& project, const std::vector<std::string>& names, Force force) {
  Registry registry = registry_of(project);
  std::vector<Result<DiscardClaim>> claims;
  claims.reserve(names.size());
  auto lock = registry.lock();
  if (!lock) {
    for (size_t i = 0; i < names.size(); ++i)
      claims.emplace_back(tl::unexpected(lock.error()));
    return claims;
  }
  std::vector<Result<ClaimPlan>> plans;
  plans.reserve(names.size()); // (`planned` points into it)
  std::vector<Workspace> held;
  std::map<std::string, const Workspace*> planned; // (a name given twice: held by the first)
  ClaimBatch batch;
  for (const auto& name : names) {
    plans.push_back(plan_claim(project, registry, name, force, batch));
    if (!plans.back()) continue;
    auto [at, fresh] = planned.emplace(plans.back()->held.name, &plans.back()->held);
    if (!fresh) {
      plans.back() = tl::unexpected(busy_error(*at->second, "wait for it to finish"));
      continue;
    }
    held.push_back(plans.back()->held);
  }
  // Each claimed (discarding, held by this process), all written with one sync; the lock is
  // released on return.
  auto saved = registry.save_all(held);
  size_t k = 0;
  for (auto& plan : plans) {
    if (!plan) {
      claims.emplace_back(tl::unexpected(plan.error()));
    } else if (auto& written = saved[k++]; !written) {
      claims.emplace_back(tl::unexpected(written.error()));
    } else {
      DiscardClaim claim(registry, plan->held, plan->as_found, plan->record_file, plan->original);
      claim.present = plan->present;
      claim.symlinked = plan->symlinked;
      claims.emplace_back(std::move(claim));
    }
  }
  return claims;
}

Result<void> make_saveable(const Workspace& w, bool present, std::vector<std::string>& warnings) {
  // A FIFO or the like planted in its admin dir would hang every git call below: moved aside
  // (HEAD, the index and the links rebuilt from the record), so the work is saved as usual.
  if (present) {
    auto repaired = BERTH_TRY(repair_admin_files(w));
    for (const auto& moved : repaired)
      warnings.push_back(fmt::format("workspace '{}': {}", w.name, moved));
  }
  return {};
}

Result<void> bring_back_lost_branch(const Project& project, const Workspace& w,
                                    std::vector<std::string>& warnings) {
  if (auto lost = lost_branch(project, w); lost && lost->head_on_it) {
    std::string at = lost->commit.empty() ? w.base : lost->commit;
    BERTH_TRY(make_branch_again(project, w, at, "berth discard: branch made again to save it"));
    if (lost->commit.empty())
      warnings.push_back(fmt::format(
          "branch {} had been deleted and its last commit is unknown: the work is saved on top of "
          "the base",
          w.branch));
  }
  return {};
}

std::string branch_tip(const Project& project, const Workspace& w) {
  // Its loose file, when it has one (a git process less on the discard's way), else git.
  if (auto loose =
          read_loose_ref(project.common_dir(), "refs/heads/" + w.branch, project.null_oid().size()))
    return *loose;
  if (auto tip = git_status_of(
          repo_call(project, {"rev-parse", "--verify", "-q", "refs/heads/" + w.branch}));
      tip && tip->ok())
    return chomp(tip->out);
  return {};
}

Result<Snapshot> snapshot_for_discard(const Project& project, const Workspace& w, bool present,
                                      const SnapshotHints& hints,
                                      std::optional<SnapshotTrees>* trees) {
  Content content = present ? Content::work_tree : Content::commits_only;
  auto snap = BERTH_TRY(take_whole_snapshot(project, w, content, hints, trees));
  test_kill_at("discard-snapshot");
  return snap;
}

std::string move_aside(const Project& project, const Workspace& w, bool present, bool symlinked,
                       const std::optional<Snapshot>& snapshot, bool note_root, Detach detach) {
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
                   snapshot ? aside_name(w.name, snapshot->ref)
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
    if (detach == Detach::now)
      (void)git_status_of(workspace_call(
          aside, {"update-ref", "--no-deref", "-m", "berth: discarded", "HEAD", "HEAD"}));
    // A root other than today's: the background deleter learns of it here.
    if (note_root) note_trash_root(project, util::dirname(w.path));
  }
  return doomed;
}

namespace {

// A tree's HEAD as the repository names it in a ref transaction (`worktrees/<id>/HEAD`, after
// its admin dir), or "" when its admin dir is not where git keeps them or the name would not
// survive the transaction's line format.
std::string head_seen_from_repo(const Project& project, const Workspace& tree) {
  if (util::dirname(tree.git_dir) != util::join(project.common_dir(), "worktrees")) return {};
  std::string head = "worktrees/" + util::basename(tree.git_dir) + "/HEAD";
  return head.find_first_of(" \n") == std::string::npos ? head : std::string();
}

} // namespace

void detach_asides(const Project& project, const std::vector<Workspace>& asides) {
  std::string input;
  bool together = asides.size() > 1;
  for (const auto& aside : asides) {
    std::string head = head_seen_from_repo(project, aside);
    if (head.empty()) together = false;
    input += fmt::format("option no-deref\nupdate {} {}\n", head, head);
  }
  if (together) {
    GitCall update = repo_call(project, {"update-ref", "-m", "berth: discarded", "--stdin"});
    update.input = input;
    if (auto all = git_status_of(update); all && all->ok()) return;
  }
  for (const auto& aside : asides)
    (void)git_status_of(workspace_call(
        aside, {"update-ref", "--no-deref", "-m", "berth: discarded", "HEAD", "HEAD"}));
}

Result<void> remove_in_place(const Project& project, const Workspace& w) {
  auto removed = BERTH_TRY(
      git_status_of(repo_call(project, {"worktree", "remove", "--force", "--force", w.path})));
  if (!removed.ok())
    return tl::unexpected(
        git_error(repo_call(project, {"worktree", "remove"}), removed,
                  fmt::format("cannot remove workspace '{}': {}", w.name, chomp(removed.err))));
  return {};
}

namespace {

// A branch berth could not delete, said as it was.
std::string kept_branch(const std::string& branch, const Result<util::ProcessResult>& del) {
  if (del && ref_hook_refused(del->err))
    return fmt::format("branch {} kept: your reference-transaction hook refused its deletion",
                       branch);
  return fmt::format("branch {} moved meanwhile: kept", branch);
}

// drop_branch of several workspaces: one worktree list, and one ref transaction deleting every
// branch (each a compare-and-swap from its tip); when it fails (one moved meanwhile, a hook's
// refusal), each on its own.
struct BranchToDrop {
  const Workspace* workspace;
  std::string tip, tree_now;
  std::vector<std::string>* warnings;
};
void drop_branches(const Project& project, const std::vector<BranchToDrop>& drops) {
  auto list = worktrees(project);
  std::vector<const BranchToDrop*> going;
  std::string input;
  for (const auto& drop : drops) {
    if (drop.tip.empty()) continue;
    std::string ref = "refs/heads/" + drop.workspace->branch;
    bool checked_out = false;
    if (list)
      for (const auto& entry : *list)
        if (entry.branch == ref && entry.path != drop.tree_now) checked_out = true;
    if (checked_out) {
      drop.warnings->push_back(fmt::format("branch {} is checked out in another worktree: kept",
                                           drop.workspace->branch));
      continue;
    }
    going.push_back(&drop);
    input += fmt::format("delete {} {}\n", ref, drop.tip);
  }
  if (going.empty()) return;
  if (going.size() > 1) {
    GitCall update = repo_call(project, {"update-ref", "--stdin"});
    update.input = input;
    if (auto all = git_status_of(update); all && all->ok()) return;
  }
  for (const BranchToDrop* drop : going)
    if (auto del = git_status_of(repo_call(
            project, {"update-ref", "-d", "refs/heads/" + drop->workspace->branch, drop->tip}));
        !del || !del->ok())
      drop->warnings->push_back(kept_branch(drop->workspace->branch, del));
}

} // namespace

void drop_branch(const Project& project, const Workspace& w, const std::string& tip,
                 const std::string& tree_now, std::vector<std::string>& warnings) {
  drop_branches(project, {BranchToDrop{&w, tip, tree_now, &warnings}});
}

namespace {

// let_go_of_branches' one transaction; false, with nothing changed, when it cannot be.
bool let_go_together(const Project& project, const std::vector<LettingGo>& going,
                     RefTransactions* through) {
  // Which branches the worktrees have checked out: their HEAD files, read once for all; git's
  // list when those cannot tell.
  auto heads = checked_out_branches(project.common_dir());
  std::optional<Result<std::vector<WorktreeEntry>>> listed;
  if (!heads) listed = worktrees(project);
  auto held_by_another = [&](const LettingGo& one, const std::string& ref) {
    if (heads) return held_elsewhere(*heads, one.workspace->git_dir, ref);
    if (!*listed) return true; // (cannot tell: each step on its own)
    return std::any_of((*listed)->begin(), (*listed)->end(), [&](const WorktreeEntry& entry) {
      return entry.branch == ref && entry.path != one.workspace->path && entry.path != one.aside;
    });
  };
  std::string input;
  for (const LettingGo& one : going) {
    std::string ref = "refs/heads/" + one.workspace->branch;
    if (!one.aside.empty()) {
      Workspace moved = *one.workspace;
      moved.path = one.aside;
      std::string head = head_seen_from_repo(project, moved);
      if (head.empty() || !one.snapshot || one.snapshot->head.empty()) return false;
      input += fmt::format("option no-deref\nupdate {} {} {}\n", head, one.snapshot->head,
                           one.snapshot->head);
    }
    if (one.tip.empty()) continue;
    if (held_by_another(one, ref)) return false;
    input += fmt::format("delete {} {}\n", ref, one.tip);
  }
  if (input.empty()) return true;
  if (through) {
    auto done = through->send(input);
    return done && done->ok();
  }
  GitCall update = repo_call(project, {"update-ref", "-m", "berth: discarded", "--stdin"});
  update.input = input;
  auto done = git_status_of(update);
  return done && done->ok();
}

} // namespace

void let_go_of_branches(const Project& project, const std::vector<LettingGo>& going,
                        RefTransactions* through) {
  if (let_go_together(project, going, through)) return;
  std::vector<Workspace> asides;
  std::vector<BranchToDrop> drops;
  for (const LettingGo& one : going) {
    if (!one.aside.empty()) {
      asides.push_back(*one.workspace);
      asides.back().path = one.aside;
    }
    drops.push_back(BranchToDrop{
        one.workspace, one.tip, one.aside.empty() ? one.workspace->path : one.aside, one.warnings});
  }
  detach_asides(project, asides);
  drop_branches(project, drops);
}

Result<void> forget_workspace(const Project& project, const Workspace& w) {
  Registry registry = registry_of(project);
  auto relock = BERTH_TRY(registry.lock());
  BERTH_TRY(registry.remove(name_slug(w.name)));
  discard_shadow(project, w);
  return {};
}

void delete_aside(const Project& project, const std::string& aside, bool background,
                  std::vector<std::string>& warnings) {
  if (background) {
    // The tree is deleted by the background pool filler, which also refills the pool: discard
    // returns now, whatever the size of the tree.
    pool_refill_in_background(project);
    return;
  }
  // Not while a deleter (started when a pool was in use) works on the same folder.
  auto reaping = lock_trash(project);
  settle_aside(project, aside, false);
  if (!remove_aside(project, aside))
    warnings.push_back(fmt::format("could not delete {}; remove it by hand", aside));
}

// What the snapshot says of the work: whether any would have been lost without it (a tree or a
// history that differs from the base, or a nested repository's own work), and what a missing
// directory left to save.
// (`trees`: the snapshot's and the base's trees when the caller has read them.)
void note_what_was_saved(const Project& project, const Workspace& w, const Snapshot& snap,
                         bool present, bool symlinked, Discarded& d,
                         const SnapshotTrees* trees = nullptr) {
  d.warnings.insert(d.warnings.end(), snap.warnings.begin(), snap.warnings.end());
  d.unsaved_work = d.unsaved_work || !snap.nested.empty();
  if (trees) {
    d.unsaved_work = d.unsaved_work || snap.head != w.base || trees->work != trees->base;
  } else if (auto read = git_status_of(
                 repo_call(project, {"rev-parse", snap.commit + "^{tree}", w.base + "^{tree}"}));
             read && read->ok()) {
    auto lines = split_lines(read->out);
    d.unsaved_work =
        d.unsaved_work || snap.head != w.base || (lines.size() == 2 && lines[0] != lines[1]);
  }
  if (!present)
    d.warnings.push_back(
        snap.head == w.base && snap.nested.empty()
            ? std::string(symlinked ? "the workspace directory had been replaced by a symlink"
                                    : "the workspace directory was missing") +
                  " and no commit of its own was found (its branch gone, or never moved): "
                  "nothing was saved"
        : symlinked ? "the workspace directory had been replaced by a symlink: only its commits "
                      "were saved"
                    : "the workspace directory was missing: only its commits were saved");
}

// ---- the flow ----------------------------------------------------------------------------------

namespace {

// discard's flow; `refill` false: a tree left to the background deleter is left for the caller
// to start it (discard_workspaces starts one for all).
Result<Discarded> discard_steps(const Project& project, std::string_view name, Force force,
                                Trash trash, bool refill) {
  BERTH_TRY(recover_interrupted(project));
  Discarded d;
  if (force == Force::yes) stop_work_in(BERTH_TRY(load_workspace(project, name)));
  DiscardClaim claim = BERTH_TRY(claim_for_discard(project, name, force));
  const Workspace& w = claim.workspace();
  d.workspace = claim.as_found();
  const bool present = claim.present, symlinked = claim.symlinked;

  BERTH_TRY(make_saveable(w, present, d.warnings));
  // Whether anything would be lost. With a snapshot, the snapshot itself answers (below), so the
  // tree is walked once, not twice; only --no-trash needs a status first.
  WorkspaceStatus before =
      present && trash == Trash::no ? status_of(project, w) : WorkspaceStatus{};
  // The name's newest snapshot (a discard killed after its snapshot left one the same), read
  // beside what follows.
  // (shared: a snapshot taken again, after a gc pruned what the first wrote, asks it again)
  std::shared_future<std::map<std::string, std::string>> newest;
  if (trash == Trash::yes)
    newest = std::async(std::launch::async,
                        [&project, &w] { return newest_in_trash(project, {w.name}); });
  // The gits its snapshot asks, started ahead, beside the rest, each answering at once when its
  // turn comes (process starts off the discard's way): the capture's first (the ignore rules,
  // the trees read) now; one `git update-ref --stdin` for the snapshot's ref and, at the end, the
  // branch let go, and the gits that write trees, untracked files as they are and commits, once
  // the capture asks the first (on 2 cores, gits that all start at once delay the first needed).
  std::optional<RefTransactions> refs;
  std::optional<PrestartedGits> ahead;
  if (trash == Trash::yes) {
    refs.emplace(repo_call(project, {"update-ref", "-m", "berth: discard " + w.name, "--stdin"}));
    if (present)
      ahead.emplace(std::vector<GitCall>{ignore_checker(w), tree_reader(project.common_dir())},
                    std::vector<GitCall>{refs->call(), tree_writer(project.common_dir()),
                                         untracked_hasher(project), commit_writer(project)});
    else
      ahead.emplace(std::vector<GitCall>{refs->call()});
  }
  // The user's ignore file, which the snapshot's capture needs (remembered in the shadow folder;
  // asked of git when its configuration changed): found beside the rest, not on the capture's
  // way.
  std::future<std::string> excludes;
  if (trash == Trash::yes && present)
    excludes = std::async(std::launch::async, [&project] { return global_excludes(project); });
  std::string tip = branch_tip(project, w);
  if (tip.empty()) {
    BERTH_TRY(bring_back_lost_branch(project, w, d.warnings));
    tip = branch_tip(project, w);
  }
  // The tree lets go of the branch and the branch goes in one transaction (let_go_of_branches):
  // while this tree holds the branch, git lets no other worktree check it out.
  const bool letting_go = trash == Trash::yes && present && !tip.empty();
  d.unsaved_work = before.dirty || before.ahead > 0 || (!tip.empty() && tip != w.base);
  // A directory gone: its submodules' commits may still be in its admin dir, going with it.
  if (!present && trash == Trash::no && !d.unsaved_work)
    d.unsaved_work = modules_hold_own_commits(project, w, tip.empty() ? w.base : tip);
  if (trash == Trash::no && d.unsaved_work && force == Force::no)
    return tl::unexpected(Error{
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
  std::future<IgnoredCount> ignored;
  if (present && !background)
    ignored =
        std::async(std::launch::async,
                   [&w, &project, made = with_setup_made(setup_made_paths(project), w.setup_made)] {
                     return count_ignored_apart(w.git_dir, w.path, made, project.setup_source());
                   });
  // Left to the deleter, they are still named when there are any (a quick look beside the
  // snapshot, not a count).
  std::future<bool> any_ignored;
  if (background)
    any_ignored = std::async(std::launch::async, [&w, &project] {
      // (Asked once, for the look from the birth and the walk when that cannot tell.)
      std::optional<std::vector<std::string>> made;
      auto setup_paths = [&] {
        if (!made) made = with_setup_made(setup_made_paths(project), w.setup_made);
        return *made;
      };
      if (auto seen = ignored_since_birth(project, w, setup_paths)) return *seen;
      return has_ignored(w.git_dir, w.path, setup_paths, project.setup_source());
    });

  if (trash == Trash::yes) {
    // What the batch reads for all its workspaces, this one's read already: its branch's tip,
    // and its newest snapshot (asked beside the rest, above).
    SnapshotHints hints;
    if (!tip.empty()) hints.branch_tip = tip;
    hints.newest = [&newest, &w]() -> std::string {
      const auto& listed = newest.get();
      auto it = listed.find(w.name);
      return it == listed.end() ? std::string() : it->second;
    };
    hints.refs = refs ? &*refs : nullptr;
    std::optional<SnapshotTrees> trees;
    d.snapshot = BERTH_TRY(snapshot_for_discard(project, w, present, hints, &trees));
    note_what_was_saved(project, w, *d.snapshot, present, symlinked, d, trees ? &*trees : nullptr);
  }
  if (ignored.valid()) {
    auto counted = ignored.get();
    // Kept for `restore --list`, as the deleter keeps the count of a tree it deletes.
    if (d.snapshot) note_ignored(project, d.snapshot->ref, counted);
    d.ignored_files = counted.files;
    d.ignored_bytes = counted.bytes;
    d.setup_files = counted.setup_files;
    d.setup_bytes = counted.setup_bytes;
  }
  if (any_ignored.valid()) d.ignored_present = any_ignored.get();

  std::string doomed = move_aside(project, w, present, symlinked, d.snapshot, background,
                                  letting_go ? Detach::later : Detach::now);
  // Nothing to remove when git no longer has the worktree (removed or pruned behind berth's
  // back, the directory gone too): `git worktree remove` would refuse it for ever.
  if (doomed == w.path && (present || symlinked || git_has_worktree(project, w.path)))
    BERTH_TRY(remove_in_place(project, w));
  // The tree has left its place: from here on a crash is finished by the next command
  // (recover_interrupted), never undone.
  claim.keep();
  // (A tree removed in place let go of everything with its admin dir.)
  if (letting_go)
    let_go_of_branches(
        project,
        {LettingGo{&w, doomed == w.path ? std::string() : doomed, &*d.snapshot, tip, &d.warnings}},
        refs ? &*refs : nullptr);
  else
    drop_branch(project, w, tip, doomed, d.warnings);
  BERTH_TRY(forget_workspace(project, w));
  if (doomed != w.path && (refill || !background))
    delete_aside(project, doomed, background, d.warnings);
  return d;
}

// delete_aside (now) of a tree whose snapshot this discard has just made and checked whole
// (`trees`, as that check read them): the full look compares with what is known instead of
// reading the snapshot again, and a tree found exactly as saved goes without a second check of
// the snapshot (its ref existed before the first, which waited for any gc running then; a later
// gc sees the ref).
void delete_checked_aside(const Project& project, const std::string& aside, const Snapshot& snap,
                          const SnapshotTrees& trees, std::vector<std::string>& warnings) {
  auto reaping = lock_trash(project);
  KnownSnapshot known{snap.ref, snap.commit, trees.work, trees.index};
  bool unchanged = false;
  settle_aside(project, aside, false, &known, &unchanged);
  if (!remove_aside(project, aside, unchanged ? SnapshotChecked::yes : SnapshotChecked::no))
    warnings.push_back(fmt::format("could not delete {}; remove it by hand", aside));
}

// The branches' tips, read in one for-each-ref: branch name → commit. A branch missing from it
// (gone, or not a commit) is read on its own by the caller.
std::map<std::string, std::string> branch_tips(const Project& project,
                                               const std::vector<const Workspace*>& workspaces) {
  std::map<std::string, std::string> tips;
  std::vector<std::string> args{"for-each-ref",
                                "--format=%(refname)%00%(objectname)%00%(objecttype)"};
  for (const Workspace* w : workspaces)
    if (!w->branch.empty()) args.push_back("refs/heads/" + w->branch);
  if (args.size() == 2) return tips;
  auto listed = git_status_of(repo_call(project, args));
  if (!listed || !listed->ok()) return tips;
  for (const auto& line : split_lines(listed->out)) {
    auto fields = split_z(line + '\0');
    if (fields.size() == 3 && fields[2] == "commit" && fields[0].rfind("refs/heads/", 0) == 0)
      tips[fields[0].substr(11)] = fields[1];
  }
  return tips;
}

// discard_workspaces to the trash: discard_steps for several workspaces, each step taken for
// all before the next, so that what they share is done once: the branches' tips read in one
// call, the snapshots' refs created in one transaction and checked whole in one pass, the
// branches deleted in one transaction, one deleter for all. Each workspace goes through the
// same states as its own discard (claimed → snapshot in the trash → moved aside → branch gone
// → record gone), so a crash anywhere leaves each either whole (claimed, tree in place: the
// next command frees it) or on its way to the trash (tree aside: finish_discard), as one
// discard would. A failure stops that workspace only.
std::vector<Result<Discarded>>
discard_to_trash(const Project& project, const std::vector<std::string>& names, Force force) {
  std::vector<Result<Discarded>> results(names.size());
  if (auto recovered = recover_interrupted(project); !recovered) {
    for (auto& r : results)
      r = tl::unexpected(recovered.error());
    return results;
  }
  struct One {
    std::optional<DiscardClaim> claim;
    Discarded d;
    std::optional<std::string> tip;
    bool tip_listed = false; // read with the others (else the snapshot reads it again)
    bool background = false;
    std::future<IgnoredCount> ignored;
    std::string doomed;
    std::optional<SnapshotTrees> trees; // as the batch's check read them
  };
  std::vector<One> all(names.size());
  auto give_up = [&](size_t i, Error error) {
    One& one = all[i];
    if (one.ignored.valid()) one.ignored.wait();
    one.claim.reset(); // (puts the record back unless the tree has left its place)
    results[i] = tl::unexpected(std::move(error));
  };
  auto live = [&](size_t i) { return all[i].claim.has_value(); };

  // Each claimed (together: one sync for their records) and made saveable, as discard does it.
  std::vector<std::string> claiming;
  std::vector<size_t> claiming_at;
  for (size_t i = 0; i < names.size(); ++i) {
    if (force == Force::yes) {
      auto current = load_workspace(project, names[i]);
      if (!current) {
        results[i] = tl::unexpected(current.error());
        continue;
      }
      stop_work_in(*current);
    }
    claiming.push_back(names[i]);
    claiming_at.push_back(i);
  }
  auto claims = claims_for_discard(project, claiming, force);
  for (size_t k = 0; k < claims.size(); ++k) {
    size_t i = claiming_at[k];
    One& one = all[i];
    if (!claims[k]) {
      results[i] = tl::unexpected(claims[k].error());
      continue;
    }
    one.claim.emplace(std::move(*claims[k]));
    one.d.workspace = one.claim->as_found();
    if (auto saveable = make_saveable(one.claim->workspace(), one.claim->present, one.d.warnings);
        !saveable)
      give_up(i, saveable.error());
  }

  // The user's ignore file, which the captures ask git for: asked beside the branches' tips.
  auto excludes = std::async(std::launch::async, [&project] { return global_excludes(project); });
  // The branches' tips, one call for all; a branch not there is brought back (or found gone) as
  // discard does it.
  std::vector<const Workspace*> claimed;
  for (size_t i = 0; i < names.size(); ++i)
    if (live(i)) claimed.push_back(&all[i].claim->workspace());
  auto tips = branch_tips(project, claimed);
  for (size_t i = 0; i < names.size(); ++i) {
    if (!live(i)) continue;
    One& one = all[i];
    const Workspace& w = one.claim->workspace();
    if (auto tip = tips.find(w.branch); !w.branch.empty() && tip != tips.end()) {
      one.tip = tip->second;
      one.tip_listed = true;
    } else {
      if (auto back = bring_back_lost_branch(project, w, one.d.warnings); !back) {
        give_up(i, back.error());
        continue;
      }
      one.tip = branch_tip(project, w);
    }
    one.d.unsaved_work = !one.tip->empty() && *one.tip != w.base;
  }

  // The snapshots: made side by side (each walks its own tree and writes only objects; its
  // ignored files counted or looked for meanwhile), their refs created in one transaction,
  // checked whole in one pass.
  const bool pooled = project.config().get_int("pool.size") > 0 && !project.helper().empty();
  std::vector<std::string> trashing;
  std::vector<size_t> snapping;
  for (size_t i = 0; i < names.size(); ++i)
    if (live(i)) {
      trashing.push_back(all[i].claim->workspace().name);
      snapping.push_back(i);
    }
  auto newest = newest_in_trash(project, trashing);
  std::optional<std::vector<std::string>> made_paths;
  std::vector<SnapshotHints> hints(names.size());
  for (size_t i : snapping) {
    One& one = all[i];
    const Workspace& w = one.claim->workspace();
    const bool present = one.claim->present;
    one.background = present && pooled;
    if (auto warning = missing_helper_warning(project)) one.d.warnings.push_back(*warning);
    one.d.ignored_counted = !one.background;
    if (present && !one.background) {
      if (!made_paths) made_paths = setup_made_paths(project);
      one.ignored = std::async(
          std::launch::async, [&w, &project, made = with_setup_made(*made_paths, w.setup_made)] {
            return count_ignored_apart(w.git_dir, w.path, made, project.setup_source());
          });
    }
    // (No quick look for ignored files in a tree left to the background deleter: a walk of
    // every folder of every sibling, for a note that only a single discard prints. The deleter
    // counts them, for `restore --list`.)
    if (one.tip_listed) hints[i].branch_tip = one.tip;
    if (auto listed = newest.find(w.name); listed != newest.end())
      hints[i].newest = [found = listed->second] { return found; };
  }
  // (one capture pass, one hash-object for their untracked files, two for their commits)
  std::vector<SnapshotAsked> asked;
  asked.reserve(snapping.size());
  for (size_t i : snapping)
    asked.push_back(SnapshotAsked{
        &all[i].claim->workspace(),
        all[i].claim->present ? Content::work_tree : Content::commits_only, hints[i]});
  auto batch = make_snapshots(project, asked);
  std::vector<Result<Snapshot>> made(names.size());
  std::vector<size_t> retaking;
  for (size_t k = 0; k < snapping.size(); ++k) {
    made[snapping[k]] = std::move(batch[k]);
    // A git call that failed (a `git gc --prune=now` deleting what it had just written, say):
    // taken again as discard takes it, its ref made and checked at once (unless a hook said no).
    if (!made[snapping[k]] && made[snapping[k]].error().code != ErrorCode::hook_refused)
      retaking.push_back(k);
  }
  util::parallel_for(retaking.size(), [&](size_t j) {
    size_t k = retaking[j];
    made[snapping[k]] = take_whole_snapshot(project, *asked[k].workspace, asked[k].content);
  });
  for (size_t i : snapping) {
    if (!made[i])
      give_up(i, made[i].error());
    else
      all[i].d.snapshot = std::move(*made[i]);
  }
  std::vector<size_t> order;
  std::vector<const Workspace*> owners;
  std::vector<Snapshot*> snaps;
  for (size_t i = 0; i < names.size(); ++i)
    if (live(i)) {
      order.push_back(i);
      owners.push_back(&all[i].claim->workspace());
      snaps.push_back(&*all[i].d.snapshot);
    }
  auto kept = keep_snapshots(project, owners, snaps);
  std::vector<const Snapshot*> to_check;
  std::vector<size_t> checked;
  for (size_t k = 0; k < order.size(); ++k) {
    size_t i = order[k];
    if (!kept[k]) {
      // Its commit pruned before its ref existed (a `git gc --prune=now` meanwhile), say: taken
      // again whole as discard takes it. A hook's refusal, or a ref in the trash's way, stands.
      if (kept[k].error().code == ErrorCode::hook_refused ||
          kept[k].error().code == ErrorCode::trash_blocked) {
        give_up(i, kept[k].error());
        continue;
      }
      auto again =
          take_whole_snapshot(project, all[i].claim->workspace(),
                              all[i].claim->present ? Content::work_tree : Content::commits_only);
      if (!again) {
        give_up(i, again.error());
        continue;
      }
      *snaps[k] = std::move(*again);
    }
    to_check.push_back(snaps[k]);
    checked.push_back(i);
  }
  std::optional<std::vector<SnapshotTrees>> trees;
  if (!to_check.empty()) trees = snapshots_complete(project, to_check);
  if (!trees)
    // Something missing (a `git gc --prune=now` meanwhile?) or unknown: each checked on its
    // own, and one that lost objects taken again as discard takes it.
    for (size_t i : checked) {
      One& one = all[i];
      Snapshot& snap = *one.d.snapshot;
      if (snapshot_complete(project, snap.commit)) continue;
      (void)git_status_of(repo_call(project, {"update-ref", "-d", snap.ref, snap.commit}));
      auto again =
          take_whole_snapshot(project, one.claim->workspace(),
                              one.claim->present ? Content::work_tree : Content::commits_only);
      if (!again)
        give_up(i, again.error());
      else
        snap = std::move(*again);
    }
  test_kill_at("discard-snapshot");
  for (size_t k = 0; k < checked.size(); ++k) {
    size_t i = checked[k];
    if (!live(i)) continue;
    One& one = all[i];
    if (trees) one.trees = (*trees)[k];
    note_what_was_saved(project, one.claim->workspace(), *one.d.snapshot, one.claim->present,
                        one.claim->symlinked, one.d, trees ? &(*trees)[k] : nullptr);
    if (one.ignored.valid()) {
      auto counted = one.ignored.get();
      if (one.d.snapshot) note_ignored(project, one.d.snapshot->ref, counted);
      one.d.ignored_files = counted.files;
      one.d.ignored_bytes = counted.bytes;
      one.d.setup_files = counted.setup_files;
      one.d.setup_bytes = counted.setup_bytes;
    }
  }

  // Each tree moved aside (or removed in place); from here on a crash is finished by the next
  // command, never undone. Then they let go of their branches, and the branches go, in one
  // transaction.
  for (size_t i = 0; i < names.size(); ++i) {
    if (!live(i)) continue;
    One& one = all[i];
    const Workspace& w = one.claim->workspace();
    one.doomed = move_aside(project, w, one.claim->present, one.claim->symlinked, one.d.snapshot,
                            one.background, Detach::later);
    if (one.doomed == w.path &&
        (one.claim->present || one.claim->symlinked || git_has_worktree(project, w.path)))
      if (auto removed = remove_in_place(project, w); !removed) {
        give_up(i, removed.error());
        continue;
      }
    one.claim->keep();
  }
  std::vector<LettingGo> going;
  for (size_t i = 0; i < names.size(); ++i)
    if (live(i)) {
      const Workspace& w = all[i].claim->workspace();
      going.push_back(LettingGo{&w, all[i].doomed == w.path ? std::string() : all[i].doomed,
                                all[i].d.snapshot ? &*all[i].d.snapshot : nullptr, *all[i].tip,
                                &all[i].d.warnings});
    }
  // (the trees let go of the branches and the branches go in one transaction)
  if (!going.empty()) let_go_of_branches(project, going);
  for (size_t i = 0; i < names.size(); ++i) {
    if (!live(i)) continue;
    One& one = all[i];
    const Workspace& w = one.claim->workspace();
    if (auto forgotten = forget_workspace(project, w); !forgotten) {
      give_up(i, forgotten.error());
      continue;
    }
    if (one.doomed != w.path && !one.background) {
      if (one.trees && one.d.snapshot)
        delete_checked_aside(project, one.doomed, *one.d.snapshot, *one.trees, one.d.warnings);
      else
        delete_aside(project, one.doomed, false, one.d.warnings);
    }
    results[i] = std::move(one.d);
  }
  return results;
}

} // namespace

Result<Discarded> discard_workspace(const Project& project, std::string_view name, Force force,
                                    Trash trash) {
  return discard_steps(project, name, force, trash, true);
}

std::vector<Result<Discarded>> discard_workspaces(const Project& project,
                                                  const std::vector<std::string>& names,
                                                  Force force, Trash trash) {
  std::vector<Result<Discarded>> discarded;
  if (trash == Trash::yes && names.size() > 1) {
    discarded = discard_to_trash(project, names, force);
  } else {
    discarded.reserve(names.size());
    for (const auto& name : names)
      discarded.push_back(discard_steps(project, name, force, trash, false));
  }
  // The trees moved aside go to one background filler (deleted, or recycled into the pool).
  // Started whatever the outcome: a discard that failed after its move aside left one too.
  if (project.config().get_int("pool.size") > 0)
    pool_refill_in_background(project);
  else
    // No filler, so no light gc pass in it: one of its own when this discard left expired trash.
    start_light_gc_after_discard(project, names);
  return discarded;
}

} // namespace berth
